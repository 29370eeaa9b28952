package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/twice-lab/twice/lessons"
	"github.com/twice-lab/twice/runtime/script/result"
)

// This file renders a case's page (/cases/SLUG/): the evidence desk, made
// at render time from the case's evidence run so that it shows before any
// WebAssembly loads; the hypotheses with their experiments, ordinary twice
// blocks; the fix prelude's editor and the checks, which case.js runs in
// the browser's runtime; the hints; and the progress. Everything the page
// shows as evidence comes from a run: nothing here is a copy of a result.

// renderCases renders the case pages of plan p into s, with add; it returns the errors, each naming the case's
// file and line, and which cases are broken, for the index (see
// writeCaseList). A case file that cannot be read is already named among
// the files left out (lessons.Load reads it too).
func (r *siteRenderer) renderCases(s *Site, p *plan, deadline time.Time, add func(string, []byte, int) *File) ([]error, []bool) {
	var errs []error
	broken := make([]bool, len(p.cases))
	for i, c := range p.cases {
		file := path.Join(p.name, c.File)
		if p.name != "lessons" {
			file = filepath.Join(p.name, filepath.FromSlash(c.File))
		}
		body, cerrs := r.renderCase(c, file, c.File, deadline)
		errs = append(errs, cerrs...)
		broken[i] = len(cerrs) > 0
		page := "cases/" + c.Slug + "/index.html"
		add(page, r.livePage(s, page, pageData{Kind: "case", Title: c.Title, Root: "../../", Script: true,
			Content: template.HTML(body), SiteTitle: p.siteTitle}), 200)
	}
	return errs, broken
}

// writeCaseList lists the cases on the index, each with its level and
// time; broken, when not nil, says which are broken.
func writeCaseList(index *strings.Builder, cases []lessons.Case, broken []bool) {
	if len(cases) == 0 {
		return
	}
	index.WriteString(`<h2 id="cases-title">Cases to solve</h2>
<ul class="cases" aria-labelledby="cases-title">
`)
	for i, c := range cases {
		fmt.Fprintf(index, `<li><a href="cases/%s/">%s</a>`, c.Slug, html.EscapeString(c.Title))
		if c.Level != "" {
			fmt.Fprintf(index, ` <span class="time">· %s</span>`, html.EscapeString(c.Level))
		}
		if c.Time != "" {
			fmt.Fprintf(index, ` <span class="time">· %s</span>`, html.EscapeString(c.Time))
		}
		if broken != nil && broken[i] {
			fmt.Fprintf(index, ` <span class="broken">(broken)</span>`)
		}
		index.WriteString("</li>\n")
	}
	index.WriteString("</ul>\n")
}

// caseData is what case.js reads from the page: the case's name, its
// original fix and its checks.
type caseData struct {
	Slug   string      `json:"slug"`
	Fix    string      `json:"fix"`
	Checks []caseCheck `json:"checks"`
}

type caseCheck struct {
	Name   string       `json:"name"`
	Seed   string       `json:"seed"`
	Script string       `json:"script"`
	Expect []caseExpect `json:"expect"`
}

type caseExpect struct {
	What string `json:"what"`
	N    int    `json:"n"`
}

// renderCase renders the body of case c's page. file names the case's file
// in errors, shown as pages name it. The errors name the file and line.
func (r *siteRenderer) renderCase(c lessons.Case, file, shown string, deadline time.Time) ([]byte, []error) {
	var b bytes.Buffer
	var errs []error
	fail := func(line int, format string, args ...any) string {
		e := &BlockError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
		errs = append(errs, e)
		shownErr := *e
		shownErr.File = shown
		return `<p class="twice-error twice-broken" role="alert">This case is broken: ` + html.EscapeString(shownErr.Error()) + "</p>\n"
	}
	prose := func(p lessons.Prose) string {
		var out bytes.Buffer
		if err := r.plain.Convert([]byte(p.Text), &out); err != nil {
			return fail(p.Line, "%v", err)
		}
		return out.String()
	}
	esc := html.EscapeString
	kicker := "Case"
	if c.Level != "" {
		kicker += " · " + c.Level
	}
	if c.Time != "" {
		kicker += " · about " + c.Time
	}
	fmt.Fprintf(&b, "<p class=\"lesson-kicker\">%s</p>\n<h1>%s</h1>\n", esc(kicker), esc(c.Title))
	if c.Notes != "" && !r.hideNotes {
		b.Write(r.notes(c.Notes))
	}
	b.WriteString(prose(c.Intro))
	b.WriteString(`<nav class="case-progress" aria-label="Progress">
<ol>
<li data-stage="reproduce">Reproduce <span class="state">not yet</span></li>
<li data-stage="edit">Edit the fix <span class="state">not yet</span></li>
<li data-stage="pass">Pass the checks <span class="state">not yet</span></li>
<li data-stage="submit">Submit <span class="state">not yet</span></li>
</ol>
</nav>
`)

	// The evidence desk.
	opts, err := c.Evidence.Options()
	if err != nil {
		b.WriteString(fail(c.Evidence.Line, "%v", err))
	}
	var res *result.Result
	if !deadline.IsZero() && time.Now().After(deadline) {
		b.WriteString(fail(c.Evidence.Line, "evidence not run: the lesson folder took more than %v to render", MaxRenderTime))
	} else {
		res = prerender(c.Evidence.Script, opts.Seed)
		if e := res.Error; e != nil {
			line := c.Evidence.Line
			if e.Line > 0 {
				line += e.Line
			}
			b.WriteString(fail(line, "the evidence run fails: %s", e.Msg))
			res = nil
		}
	}
	b.WriteString(`<section class="evidence-desk" aria-labelledby="desk-title">
<h2 id="desk-title">Evidence desk</h2>
<div class="desk">
`)
	panel := func(id, title, body string) {
		if strings.TrimSpace(body) == "" {
			return
		}
		fmt.Fprintf(&b, "<section class=\"desk-panel desk-%s\" aria-labelledby=\"desk-%s-title\">\n<h3 id=\"desk-%s-title\">%s</h3>\n%s</section>\n", id, id, id, esc(title), body)
	}
	panel("symptom", "Symptom", prose(c.Symptom))
	if strings.TrimSpace(c.Expected.Text+c.Actual.Text) != "" {
		panel("expected", "Expected and actual", "<dl>\n<dt>Expected</dt>\n<dd>"+prose(c.Expected)+"</dd>\n<dt>Actual</dt>\n<dd>"+prose(c.Actual)+"</dd>\n</dl>\n")
	}
	if len(c.Architecture) > 0 {
		panel("architecture", "Architecture", architecture(c))
	}
	if res != nil {
		ev := lessons.EvidenceOf(res)
		var log strings.Builder
		for _, l := range ev.Log {
			fmt.Fprintf(&log, "%s  %-6s %s\n", lessons.FormatAt(l.AtUS), l.Worker, l.Text)
		}
		if log.Len() > 0 {
			panel("log", "Worker log, interleaved", `<pre class="desk-lines" tabindex="0"><code>`+esc(log.String())+"</code></pre>\n")
		}
		var locks strings.Builder
		for _, l := range ev.Locks {
			fmt.Fprintf(&locks, "%s\n", l.Worker)
			for i, st := range l.Steps {
				fmt.Fprintf(&locks, "  %d. %s\n", i+1, st)
			}
		}
		if locks.Len() > 0 {
			panel("locks", "Lock trace", `<pre class="desk-lines" tabindex="0"><code>`+esc(locks.String())+"</code></pre>\n")
		}
		var counts strings.Builder
		counts.WriteString("<dl class=\"desk-metrics\">\n")
		for _, n := range ev.Counts {
			fmt.Fprintf(&counts, "<div><dt>%s</dt><dd>%d</dd></div>\n", esc(n.Name), n.Value)
		}
		counts.WriteString("</dl>\n")
		panel("counts", "Metrics", counts.String())
	}
	panel("changes", "Recent changes", prose(c.Changes))
	b.WriteString("</div>\n")
	fmt.Fprintf(&b, "<details class=\"desk-run\"><summary>The run behind this evidence (seed %d)</summary>\n%s<pre class=\"twice-script\" tabindex=\"0\"><code>%s</code></pre>\n",
		opts.Seed, prose(c.EvidenceProse), esc(c.Evidence.Script))
	if res != nil {
		fmt.Fprintf(&b, "<pre class=\"twice-output\" tabindex=\"0\"><code>%s</code></pre>\n", esc(res.Text()))
	}
	b.WriteString("</details>\n</section>\n")

	// The hypotheses: one markdown document, so that their blocks are
	// numbered in order, cut at each hypothesis's heading.
	if len(c.Hypotheses) > 0 {
		b.WriteString("<section class=\"hypotheses\" aria-labelledby=\"hypotheses-title\">\n<h2 id=\"hypotheses-title\">Hypotheses</h2>\n")
		lines := strings.Split(string(c.Source), "\n")
		first := c.Hypotheses[0].Line - 1
		last := c.Hypotheses[len(c.Hypotheses)-1]
		end := last.Prose.Line - 1 + strings.Count(last.Prose.Text, "\n") + 1
		for i := range lines {
			if i < first || i >= end {
				lines[i] = ""
			}
		}
		body, st := renderLesson(r.md, lessons.Lesson{Title: c.Title, Source: []byte(strings.Join(lines, "\n"))}, file, shown, "../../", deadline)
		errs = append(errs, st.errs...)
		parts := bytes.Split(body, []byte("<h3"))
		for i, h := range c.Hypotheses {
			part := []byte{}
			if i+1 < len(parts) {
				part = append([]byte("<h3"), parts[i+1]...)
			}
			fmt.Fprintf(&b, "<section class=\"hypothesis\" data-hypothesis=\"%d\" aria-label=\"Hypothesis %d: %s\">\n", i+1, i+1, esc(h.Title))
			b.Write(part)
			fmt.Fprintf(&b, `<fieldset class="verdict" data-hypothesis="%d">
<legend>What the experiment showed</legend>
<label><input type="radio" name="verdict-%d" value="confirmed"> confirmed</label>
<label><input type="radio" name="verdict-%d" value="ruled out"> ruled out</label>
<label><input type="radio" name="verdict-%d" value="not the cause"> true, but not the cause</label>
<label class="verdict-line">the line it rests on <select name="line-%d"><option value="">run the experiment first</option></select></label>
<p class="verdict-record" role="status"></p>
</fieldset>
</section>
`, i+1, i+1, i+1, i+1, i+1)
		}
		b.WriteString("</section>\n")
	}

	// The fix and its checks.
	data := caseData{Slug: c.Slug, Fix: c.Fix.Script}
	for _, ck := range c.Checks {
		cc := caseCheck{Name: ck.Name, Seed: strconv.FormatUint(ck.Seed, 10), Script: ck.Block.Script}
		for _, x := range ck.Expect {
			cc.Expect = append(cc.Expect, caseExpect{What: x.What, N: x.N})
		}
		data.Checks = append(data.Checks, cc)
	}
	js, err := json.Marshal(data) // escapes <, > and &
	if err != nil {
		panic("server: case data: " + err.Error()) // strings and numbers only
	}
	fmt.Fprintf(&b, `<section class="case-fix" aria-labelledby="fix-title">
<h2 id="fix-title">Your fix</h2>
%s<label for="case-fix">Fix prelude: lines that run before every check</label>
<textarea id="case-fix" class="case-fix-text" rows="6" spellcheck="false" autocapitalize="off" autocomplete="off">%s</textarea>
</section>
<section class="case-checks" aria-labelledby="checks-title">
<h2 id="checks-title">Checks</h2>
%s<p><button type="button" class="case-run-checks" disabled>Run checks</button> <span class="case-checks-status" role="status"></span></p>
<ol class="case-check-results" aria-live="polite"></ol>
<p class="case-no-script">Run checks needs JavaScript. From a terminal: <code>twice case check %s --fix FILE</code>.</p>
</section>
`, prose(c.FixProse), esc(c.Fix.Script), prose(c.ChecksProse), esc(c.Slug))

	if len(c.Hints) > 0 {
		b.WriteString("<section class=\"case-hints\" aria-labelledby=\"hints-title\">\n<h2 id=\"hints-title\">Hints</h2>\n<p class=\"case-hints-count\" role=\"status\">No hints opened.</p>\n")
		for i, st := range c.Hints {
			fmt.Fprintf(&b, "<section class=\"hint-stage\" aria-labelledby=\"hint-stage-%d\">\n<h3 id=\"hint-stage-%d\">%s</h3>\n", i+1, i+1, esc(st.Stage))
			for j, h := range st.Hints {
				fmt.Fprintf(&b, "<details class=\"hint\" data-hint=\"%d.%d\"><summary>Hint %d of %d</summary>\n%s</details>\n", i+1, j+1, j+1, len(st.Hints), prose(h))
			}
			b.WriteString("</section>\n")
		}
		b.WriteString("</section>\n")
	}
	b.WriteString(`<section class="case-submit" aria-labelledby="submit-title">
<h2 id="submit-title">Submit</h2>
<p>Once every check passes, submit: you get a link that replays your fix and its checks.</p>
<p><button type="button" class="case-submit-button" disabled>Submit</button></p>
<p class="case-submit-link" role="status"></p>
</section>
`)
	b.WriteString(`<script type="application/json" id="case-data">`)
	b.Write(js)
	b.WriteString("</script>\n")
	return b.Bytes(), errs
}

// architecture draws a case's arrows as a small diagram: each part a box,
// in columns by its distance from the first part, and the same arrows as
// a list, which is what a screen reader reads.
func architecture(c lessons.Case) string {
	depth := map[string]int{}
	if len(c.Parts) > 0 {
		depth[c.Parts[0]] = 0
	}
	for changed := true; changed; {
		changed = false
		for _, a := range c.Architecture {
			d, ok := depth[a.From]
			if !ok {
				continue
			}
			if _, seen := depth[a.To]; !seen {
				depth[a.To] = d + 1
				changed = true
			}
		}
	}
	maxDepth := 0
	for _, p := range c.Parts {
		if _, ok := depth[p]; !ok {
			depth[p] = 0 // not reached from the first part: a column of its own at the left
		}
		maxDepth = max(maxDepth, depth[p])
	}
	row := map[string]int{}
	rows := make([]int, maxDepth+1)
	for _, p := range c.Parts {
		row[p] = rows[depth[p]]
		rows[depth[p]]++
	}
	maxRows := 0
	for _, n := range rows {
		maxRows = max(maxRows, n)
	}
	var b strings.Builder
	b.WriteString("<figure class=\"case-architecture\">\n")
	// Two drawings of one diagram: left to right on a wide page, top to
	// bottom on a narrow one (style.css shows one).
	for _, down := range []bool{false, true} {
		const w, h = 150, 36
		gapX, gapY := 44, 14
		cols, lines := maxDepth+1, maxRows
		if down {
			gapX, gapY = 14, 30
			cols, lines = maxRows, maxDepth+1
		}
		width := cols*w + (cols-1)*gapX + 2
		height := lines*h + (lines-1)*gapY + 2
		x := func(p string) int { return 1 + depth[p]*(w+gapX) }
		y := func(p string) int { return 1 + row[p]*(h+gapY) }
		if down {
			x = func(p string) int { return 1 + row[p]*(w+gapX) }
			y = func(p string) int { return 1 + depth[p]*(h+gapY) }
		}
		class := "arch-across"
		if down {
			class = "arch-down"
		}
		fmt.Fprintf(&b, `<svg class="%s" viewBox="0 0 %d %d" width="%d" height="%d" aria-hidden="true" focusable="false">
<defs><marker id="%s-head" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" class="arch-head"/></marker></defs>
`, class, width, height, width, height, class)
		for _, a := range c.Architecture {
			// From the side of one box that faces the next column (or
			// row) to the facing side of the other.
			x1, y1 := x(a.From)+w, y(a.From)+h/2
			x2, y2 := x(a.To), y(a.To)+h/2
			if down {
				x1, y1 = x(a.From)+w/2, y(a.From)+h
				x2, y2 = x(a.To)+w/2, y(a.To)
			}
			if depth[a.To] <= depth[a.From] {
				// Within a column (or row), or back: centre to centre,
				// stopping at the edges.
				x1, y1 = x(a.From)+w/2, y(a.From)+h/2
				x2, y2 = x(a.To)+w/2, y(a.To)+h/2
			}
			fmt.Fprintf(&b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"arch-edge\" marker-end=\"url(#%s-head)\"/>\n", x1, y1, x2, y2, class)
		}
		for _, p := range c.Parts {
			fmt.Fprintf(&b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"4\" class=\"arch-box\"/><text x=\"%d\" y=\"%d\" class=\"arch-name\" text-anchor=\"middle\" dominant-baseline=\"central\">%s</text>\n",
				x(p), y(p), w, h, x(p)+w/2, y(p)+h/2, html.EscapeString(p))
		}
		b.WriteString("</svg>\n")
	}
	b.WriteString("<figcaption><ul class=\"arch-arrows\">\n")
	for _, a := range c.Architecture {
		fmt.Fprintf(&b, "<li>%s → %s", html.EscapeString(a.From), html.EscapeString(a.To))
		if a.Label != "" {
			fmt.Fprintf(&b, ": %s", html.EscapeString(a.Label))
		}
		b.WriteString("</li>\n")
	}
	b.WriteString("</ul></figcaption>\n</figure>\n")
	return b.String()
}
