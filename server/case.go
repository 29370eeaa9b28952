package server

import (
	"bytes"
	"fmt"
	"html"
	"html/template"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/twice-lab/twice/cases"
	"github.com/twice-lab/twice/lessons"
	"github.com/twice-lab/twice/server/markdown"
)

// This file renders a case's page (/cases/SLUG/): the evidence desk, made
// at render time from the case's evidence run so that it shows before any
// WebAssembly loads; the hypotheses with their experiments, ordinary twice
// blocks; the fix's editor and the checks, which case.js asks the
// browser's runtime module to run and judge (package cases, the same Go
// as twice case check); the hints; and the progress. The page is
// site/templates/case.html, executed with a casePage: the template
// escapes every text. Everything the page shows as evidence comes from a
// run: nothing here is a copy of a result.

// caseEntry is one case on the index.
type caseEntry struct {
	Slug, Title, Level, Time string
	Broken                   bool
}

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
		var notes []byte
		if c.Notes != "" && !r.hideNotes {
			notes = r.notes(c.Notes)
		}
		r.addPage(s, add, page, r.livePage(s, page, pageData{Kind: "case", Title: c.Title, Root: "../../", Script: true,
			Content: body, SiteTitle: p.siteTitle}), notes)
	}
	return errs, broken
}

// writeCaseList lists the cases on the index, each with its level and
// time; broken, when not nil, says which are broken.
func (r *siteRenderer) writeCaseList(index *strings.Builder, cs []cases.Case, broken []bool) {
	if len(cs) == 0 {
		return
	}
	entries := make([]caseEntry, len(cs))
	for i, c := range cs {
		entries[i] = caseEntry{Slug: c.Slug, Title: c.Title, Level: c.Level, Time: c.Time, Broken: broken != nil && broken[i]}
	}
	index.WriteString(string(r.caseHTML("case-index", entries)))
}

// caseHTML executes the case template name with data.
func (r *siteRenderer) caseHTML(name string, data any) template.HTML {
	var b bytes.Buffer
	if err := r.caseTmpl.ExecuteTemplate(&b, name, data); err != nil {
		panic("site: case template: " + err.Error()) // the template is ours and tested
	}
	return template.HTML(b.String())
}

// casePage is what the case template shows: prose as rendered markdown,
// everything else as text.
type casePage struct {
	Slug, Kicker, Title string
	// Broken are the case's errors, each naming its file and line.
	Broken                                []string
	Notes, Intro, Question, Investigation template.HTML
	Symptom, Expected, Actual, Changes    template.HTML
	Architecture                          *archFigure
	Log, Locks                            string
	Counts                                []cases.Count
	Seed                                  uint64
	EvidenceProse                         template.HTML
	// Reproduce is the evidence run as a live block, near the top of the
	// page: the first thing a reader can press.
	Reproduce             template.HTML
	Script, Output        string
	Hypotheses            []caseHypothesis
	FixProse, ChecksProse template.HTML
	Fix                   string
	Hints                 []caseHintStage
	Data                  caseData
}

type caseHypothesis struct {
	N     int
	Title string
	Body  template.HTML
}

type caseHintStage struct {
	N     int
	Stage string
	Hints []template.HTML
}

// caseData is what case.js reads from the page: the case's name, its
// original fix and its checks, each its info string and script, which
// the runtime module parses and judges (package cases).
type caseData struct {
	Slug   string      `json:"slug"`
	Fix    string      `json:"fix"`
	Checks []caseCheck `json:"checks"`
}

type caseCheck struct {
	Name   string `json:"name"`
	Info   string `json:"info"`
	Script string `json:"script"`
}

// renderCase renders the body of case c's page. file names the case's file
// in errors, shown as pages name it. The errors name the file and line.
func (r *siteRenderer) renderCase(c cases.Case, file, shown string, deadline time.Time) (template.HTML, []error) {
	var errs []error
	p := casePage{Slug: c.Slug, Title: c.Title, Kicker: "Case", Fix: c.Fix.Script}
	fail := func(line int, format string, args ...any) {
		e := &markdown.BlockError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
		errs = append(errs, e)
		shownErr := *e
		shownErr.File = shown
		p.Broken = append(p.Broken, shownErr.Error())
	}
	prose := func(pr cases.Prose) template.HTML {
		if strings.TrimSpace(pr.Text) == "" {
			return ""
		}
		out, err := r.plainHTML([]byte(pr.Text))
		if err != nil {
			fail(pr.Line, "%v", err)
		}
		return template.HTML(out)
	}
	if c.Level != "" {
		p.Kicker += " · " + c.Level
	}
	if c.Time != "" {
		p.Kicker += " · about " + c.Time
	}
	if c.Notes != "" && !r.hideNotes {
		p.Notes = template.HTML(r.notes(c.Notes))
	}
	p.Intro, p.Question, p.Investigation = prose(c.Intro), prose(c.Question), prose(c.Investigation)
	p.Symptom, p.Expected, p.Actual, p.Changes = prose(c.Symptom), prose(c.Expected), prose(c.Actual), prose(c.Changes)
	if len(c.Architecture) > 0 {
		p.Architecture = architecture(c)
	}
	r.caseEvidence(&p, c, deadline, fail)
	p.EvidenceProse = prose(c.EvidenceProse)
	if len(p.Broken) == 0 && p.Output != "" {
		p.Reproduce = r.caseReproduce(c, file, shown, deadline)
	}
	var herrs []error
	p.Hypotheses, herrs = r.caseHypotheses(c, file, shown, deadline)
	errs = append(errs, herrs...)
	p.FixProse, p.ChecksProse = prose(c.FixProse), prose(c.ChecksProse)
	p.Data = caseData{Slug: c.Slug, Fix: c.Fix.Script}
	for _, ck := range c.Checks {
		p.Data.Checks = append(p.Data.Checks, caseCheck{Name: ck.Name, Info: ck.Block.Info, Script: ck.Block.Script})
	}
	for i, st := range c.Hints {
		hs := caseHintStage{N: i + 1, Stage: st.Stage}
		for _, h := range st.Hints {
			hs.Hints = append(hs.Hints, prose(h))
		}
		p.Hints = append(p.Hints, hs)
	}
	return r.caseHTML("case", p), errs
}

// caseEvidence runs the case's evidence and fills the desk from it: the
// log lines interleaved, the workers' lock steps interleaved, the counts, and the
// run's script and output.
func (r *siteRenderer) caseEvidence(p *casePage, c cases.Case, deadline time.Time, fail func(int, string, ...any)) {
	p.Script = c.Evidence.Script
	opts, err := lessons.ParseBlockOptions(c.Evidence.Info)
	if err != nil {
		fail(c.Evidence.Line, "%v", err)
	}
	p.Seed = opts.Seed
	if !deadline.IsZero() && time.Now().After(deadline) {
		fail(c.Evidence.Line, "evidence not run: the lesson folder took more than %v to render", MaxRenderTime)
		return
	}
	res := markdown.Prerender(c.Evidence.Script, opts.Seed)
	if e := res.Error; e != nil {
		line := c.Evidence.Line
		if e.Line > 0 {
			line += e.Line
		}
		fail(line, "the evidence run fails: %s", e.Msg)
		return
	}
	ev := cases.EvidenceOf(res)
	var log, locks strings.Builder
	for _, l := range ev.Log {
		fmt.Fprintf(&log, "%s  %-6s %s\n", cases.FormatAt(l.AtUS), l.Worker, l.Text)
	}
	// The lock trace is the workers' steps in the order they ran, as the
	// log is: one worker's check, then the other's, before either sets.
	for _, l := range ev.LockSteps {
		fmt.Fprintf(&locks, "%s  %-6s %s\n", cases.FormatAt(l.AtUS), l.Worker, l.Text)
	}
	p.Log, p.Locks, p.Counts, p.Output = log.String(), locks.String(), ev.Counts, res.Text()
}

// caseReproduce renders the case's evidence run as a block of its own,
// id evidence (the hypotheses' experiments are block-1 and on), so that
// the reader can run the system as it stands before reading the desk.
func (r *siteRenderer) caseReproduce(c cases.Case, file, shown string, deadline time.Time) template.HTML {
	src := "```" + c.Evidence.Info + "\n" + c.Evidence.Script + "```\n"
	body, st := markdown.RenderLesson(r.md, lessons.Lesson{Title: c.Title, Source: []byte(src)}, file, shown, "../../", deadline)
	if len(st.Errs) > 0 || len(st.Blocks) != 1 {
		return ""
	}
	out := strings.Replace(string(body), `id="block-1"`, `id="evidence"`, 1)
	out = strings.Replace(out, `label="`+html.EscapeString(c.Title)+`, script 1"`, `label="`+html.EscapeString(c.Title)+`, the evidence run"`, 1)
	return template.HTML(out)
}

// caseHypotheses renders the hypotheses: one markdown document, so that
// their blocks are numbered in order, cut at each hypothesis's heading.
func (r *siteRenderer) caseHypotheses(c cases.Case, file, shown string, deadline time.Time) ([]caseHypothesis, []error) {
	if len(c.Hypotheses) == 0 {
		return nil, nil
	}
	lines := strings.Split(string(c.Source), "\n")
	first := c.Hypotheses[0].Line - 1
	last := c.Hypotheses[len(c.Hypotheses)-1]
	end := last.Prose.Line - 1 + strings.Count(last.Prose.Text, "\n") + 1
	for i := range lines {
		if i < first || i >= end {
			lines[i] = ""
		}
	}
	body, st := markdown.RenderLesson(r.md, lessons.Lesson{Title: c.Title, Source: []byte(strings.Join(lines, "\n"))}, file, shown, "../../", deadline)
	parts := bytes.Split(body, []byte("<h3"))
	var hs []caseHypothesis
	for i, h := range c.Hypotheses {
		part := ""
		if i+1 < len(parts) {
			part = "<h3" + string(parts[i+1])
		}
		hs = append(hs, caseHypothesis{N: i + 1, Title: h.Title, Body: template.HTML(part)})
	}
	return hs, st.Errs
}

// archFigure is a case's architecture drawn twice (left to right on a
// wide page, top to bottom on a narrow one: style.css shows one), and its
// arrows as a list, which is what a screen reader reads.
type archFigure struct {
	Drawings []archDrawing
	Arrows   []cases.Arrow
}

type archDrawing struct {
	Class, Head   string
	Width, Height int
	Edges         []archEdge
	Boxes         []archBox
}

type archEdge struct{ X1, Y1, X2, Y2 int }

type archBox struct {
	X, Y, W, H, TX, TY int
	Name               string
}

// architecture lays out a case's arrows: each part a box, in columns by
// its distance from the first part.
func architecture(c cases.Case) *archFigure {
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
	fig := &archFigure{Arrows: c.Architecture}
	for _, down := range []bool{false, true} {
		fig.Drawings = append(fig.Drawings, drawArchitecture(c, depth, row, maxDepth, maxRows, down))
	}
	return fig
}

// drawArchitecture places the boxes and edges of one drawing: across (by
// depth in columns) or down (by depth in rows).
func drawArchitecture(c cases.Case, depth, row map[string]int, maxDepth, maxRows int, down bool) archDrawing {
	const w, h = 150, 36
	gapX, gapY := 44, 14
	cols, lines := maxDepth+1, maxRows
	class := "arch-across"
	if down {
		gapX, gapY = 14, 30
		cols, lines = maxRows, maxDepth+1
		class = "arch-down"
	}
	d := archDrawing{Class: class, Head: "url(#" + class + "-head)", Width: cols*w + (cols-1)*gapX + 2, Height: lines*h + (lines-1)*gapY + 2}
	x := func(p string) int { return 1 + depth[p]*(w+gapX) }
	y := func(p string) int { return 1 + row[p]*(h+gapY) }
	if down {
		x = func(p string) int { return 1 + row[p]*(w+gapX) }
		y = func(p string) int { return 1 + depth[p]*(h+gapY) }
	}
	for _, a := range c.Architecture {
		// From the side of one box that faces the next column (or row)
		// to the facing side of the other.
		e := archEdge{x(a.From) + w, y(a.From) + h/2, x(a.To), y(a.To) + h/2}
		if down {
			e = archEdge{x(a.From) + w/2, y(a.From) + h, x(a.To) + w/2, y(a.To)}
		}
		if depth[a.To] <= depth[a.From] {
			// Within a column (or row), or back: centre to centre.
			e = archEdge{x(a.From) + w/2, y(a.From) + h/2, x(a.To) + w/2, y(a.To) + h/2}
		}
		d.Edges = append(d.Edges, e)
	}
	for _, p := range c.Parts {
		d.Boxes = append(d.Boxes, archBox{X: x(p), Y: y(p), W: w, H: h, TX: x(p) + w/2, TY: y(p) + h/2, Name: p})
	}
	return d
}
