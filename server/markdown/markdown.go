// Package markdown is the one place goldmark is configured: a lesson's
// page, and a site's introduction, a lesson's notes and a case's prose. A
// lesson is CommonMark with GitHub tables and strikethrough; raw HTML in a
// lesson is not passed through (goldmark's safe default). A fenced block whose language is
// "twice" is replaced, by an AST transformer, with a [Playground] node,
// which has a renderer of its own; every other fenced block keeps goldmark's
// built-in rendering.
package markdown

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/twice-lab/twice/internal/mdbound"
	"github.com/twice-lab/twice/lessons"
	"github.com/twice-lab/twice/runtime/script/draw"
	"github.com/twice-lab/twice/runtime/script/interp"
	"github.com/twice-lab/twice/runtime/script/lang"
	"github.com/twice-lab/twice/runtime/script/result"
)

// RevealMarker is the line that ends a predict block's answer: the prose
// from the block down to it is the answer, hidden with the block's output
// until the reader runs it (see [Reveal]). It is an HTML comment, so that
// the lesson file reads cleanly anywhere markdown is shown.
const RevealMarker = "<!-- /answer -->"

// KindReveal is the node kind of a predict block's answer prose.
var KindReveal = ast.NewNodeKind("TwiceReveal")

// Reveal holds the prose after a block marked predict, down to the next
// RevealMarker: the answer in words. It renders as a div naming the
// block; the page hides it until the block's first run while the block
// asks for a prediction, and shows it at once when predicting is off.
// Without JavaScript it is shown, as prose: the output stays folded.
type Reveal struct {
	ast.BaseBlock
	For int // the Index of the block it answers
}

// Kind implements ast.Node.
func (n *Reveal) Kind() ast.NodeKind { return KindReveal }

// Dump implements ast.Node.
func (n *Reveal) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"For": strconv.Itoa(n.For)}, nil)
}

// KindPlayground is the node kind of a twice block.
var KindPlayground = ast.NewNodeKind("TwicePlayground")

// Playground is a twice block of a lesson after parsing: its script, its
// options, and the result of running it natively at its seed.
type Playground struct {
	ast.BaseBlock
	// Index is the block's 1-based position among the lesson's twice blocks;
	// /embed/SLUG/INDEX/ shows it alone.
	Index int
	// Line is the 1-based line of the opening fence in the lesson file.
	Line int
	// Script is the block's content.
	Script string
	// Options are parsed from the info string.
	Options lessons.BlockOptions
	// Result is what interp.Run returned for Script at Options.Seed.
	Result *result.Result
	// Embed is the URL of the block's embed page relative to the page the
	// block is rendered on, or "" to show no embed snippets.
	Embed string
	// Label names the block for screen readers.
	Label string
	// Broken, when not "", is why the block is broken (bad options, a
	// script that fails though not marked fails, a block not run because
	// the render ran out of time), as the page shows it in the block:
	// FILE:LINE: message, the file named relative to the lesson folder.
	Broken string
}

// Kind implements ast.Node.
func (n *Playground) Kind() ast.NodeKind { return KindPlayground }

// IsRaw implements ast.Node: the content is not markdown.
func (n *Playground) IsRaw() bool { return true }

// Dump implements ast.Node.
func (n *Playground) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{
		"Index":  strconv.Itoa(n.Index),
		"Line":   strconv.Itoa(n.Line),
		"Script": n.Script,
	}, nil)
}

// BlockError is a twice block that cannot be shown: bad options, or a script
// that fails when it should not. Its Error starts with FILE:LINE.
type BlockError struct {
	File string // the lesson file, as the error should name it
	Line int    // 1-based line in File, or 0 for the whole file
	Col  int    // 1-based column, or 0
	Msg  string
}

func (e *BlockError) Error() string {
	switch {
	case e.Col > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Doc is one lesson as RenderLesson renders it: what the transformer and
// the renderer share, through the parser context, and what the caller reads.
type Doc struct {
	file  string // for errors
	shown string // the file as pages name it (never an absolute path)
	// deadline, when not zero, is when the render's time is up: blocks
	// after it are not run, and fail.
	deadline time.Time
	slug     string // for embed links
	title    string
	root     string        // from the lesson page to the site root
	Blocks   []*Playground // the twice blocks, in order
	Errs     []error       // each naming the file and line
	// Fatal, when not nil, is why the lesson cannot be shown: its
	// markdown passed a bound (among Errs too).
	Fatal error
}

var stateKey = parser.NewContextKey()

// transformer replaces fenced twice blocks with Playground nodes and runs
// their scripts.
type transformer struct{}

func (transformer) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	st, _ := pc.Get(stateKey).(*Doc)
	if st == nil {
		return
	}
	src := reader.Source()
	var fences []*ast.FencedCodeBlock
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if f, ok := n.(*ast.FencedCodeBlock); ok && entering {
			if string(f.Language(src)) == lessons.Language {
				fences = append(fences, f)
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	for _, f := range fences {
		line := lineOf(src, f.Pos())
		p := &Playground{
			Index:  len(st.Blocks) + 1,
			Line:   line,
			Script: string(f.Lines().Value(src)),
			Label:  fmt.Sprintf("%s, script %d", st.title, len(st.Blocks)+1),
		}
		if st.slug != "" {
			p.Embed = fmt.Sprintf("%sembed/%s/%d/", st.root, st.slug, p.Index)
		}
		opts, err := lessons.ParseBlockOptions(string(f.Info.Segment.Value(src)))
		var be *BlockError
		if err != nil {
			be = &BlockError{File: st.file, Line: line, Msg: err.Error()}
		}
		p.Options = opts
		if !st.deadline.IsZero() && time.Now().After(st.deadline) {
			msg := fmt.Sprintf("not run: the lesson folder took more than %v to render; make the blocks lighter or fewer", MaxRenderTime)
			p.Result = &result.Result{Seed: opts.Seed, Error: &lang.Error{Kind: "limit", Msg: msg}}
			if be == nil {
				be = &BlockError{File: st.file, Line: line, Msg: "twice block " + msg}
			}
		} else {
			// A block's run has budgets of its own: its time is not the
			// markdown's.
			mdbound.Exclude(pc, func() { p.Result = Prerender(p.Script, opts.Seed) })
		}
		switch e := p.Result.Error; {
		case be != nil:
		case e != nil && !opts.Fails:
			be = &BlockError{File: st.file, Line: line, Msg: "twice block: " + e.Msg}
			if e.Line > 0 {
				be.Line, be.Col = line+e.Line, e.Col
			}
		case e == nil && opts.Fails:
			be = &BlockError{File: st.file, Line: line, Msg: "twice block is marked fails but runs without an error"}
		}
		if big := tooLarge(p, st.file); big != nil && be == nil {
			be = big
		}
		if be != nil {
			st.Errs = append(st.Errs, be)
			shown := *be
			shown.File = st.shown
			p.Broken = shown.Error()
		}
		st.Blocks = append(st.Blocks, p)
		f.Parent().ReplaceChild(f.Parent(), f, p)
	}
	reveals(doc, src, st)
}

// isMarker reports whether n is a RevealMarker on a line of its own.
func isMarker(n ast.Node, src []byte) bool {
	hb, ok := n.(*ast.HTMLBlock)
	if !ok {
		return false
	}
	var b bytes.Buffer
	for i := 0; i < hb.Lines().Len(); i++ {
		seg := hb.Lines().At(i)
		b.Write(seg.Value(src))
	}
	return strings.TrimSpace(b.String()) == RevealMarker
}

// reveals moves the prose between each predict block and the
// RevealMarker after it into a Reveal node, and drops the marker. A
// marker with no predict block before it (another block, or the top of
// the lesson, in between), or not at the top level of the lesson, is an
// error naming its line.
func reveals(doc *ast.Document, src []byte, st *Doc) {
	var open *Playground // the predict block whose answer may follow
	used := map[ast.Node]bool{}
	for n := doc.FirstChild(); n != nil; {
		next := n.NextSibling()
		switch {
		case n.Kind() == KindPlayground:
			open = nil
			if p := n.(*Playground); p.Options.Predict {
				open = p
			}
		case isMarker(n, src) && open != nil:
			r := &Reveal{For: open.Index}
			for c := open.NextSibling(); c != n; {
				after := c.NextSibling()
				doc.RemoveChild(doc, c)
				r.AppendChild(r, c)
				c = after
			}
			doc.InsertAfter(doc, open, r)
			doc.RemoveChild(doc, n)
			used[n] = true
			open = nil
		}
		n = next
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering && !used[n] && isMarker(n, src) {
			line := 0
			if hb := n.(*ast.HTMLBlock); hb.Lines().Len() > 0 {
				line = lineOf(src, hb.Lines().At(0).Start)
			}
			st.Errs = append(st.Errs, &BlockError{File: st.file, Line: line, Msg: RevealMarker + " ends the answer of a block marked predict, but no such block comes before it in the same section of text"})
			n.Parent().RemoveChild(n.Parent(), n)
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
}

// MaxRenderTime bounds the time a render spends running a lesson
// folder's blocks: once it has passed, the blocks not yet run fail, each
// with a message naming its file and line, and twice build fails. For
// scale: twice build --wasm FILE of the built-in lessons took 20 s on a
// shared 2-core machine, compression included.
const MaxRenderTime = 2 * time.Minute

// lateMarkdownTime is the time a lesson's markdown may take once the
// render's time is up (MaxRenderTime): many times what a lesson takes
// (milliseconds), and little beside the render's two minutes, however
// many lessons are left.
const lateMarkdownTime = 250 * time.Millisecond

// MaxBlockBytes bounds the markup of one block in a page: its script, its
// pre-rendered output, and the Result the component draws from (the
// built-in lessons' largest is under 200 KB). A run may print up to its
// output budget (4 MB), written twice in its block: a block over the bound
// is broken, and shows its script and the error instead.
const MaxBlockBytes = 1 << 20

// tooLarge returns the error of a block whose markup passes
// MaxBlockBytes, with its Result replaced by that error, or nil.
func tooLarge(p *Playground, file string) *BlockError {
	var b bytes.Buffer
	WritePlayground(&b, p)
	if b.Len() <= MaxBlockBytes {
		return nil
	}
	msg := fmt.Sprintf("its output makes %d bytes of page, more than the %d a block may make; print less (fewer races, tables or traced workers)", b.Len(), MaxBlockBytes)
	// The claims stay (the script with each claim, a few times its
	// length): the claim control reads them.
	p.Result = &result.Result{Seed: p.Result.Seed, Error: &lang.Error{Kind: "limit", Msg: msg}, Views: result.Views{Compare: p.Result.Views.Compare}}
	return &BlockError{File: file, Line: p.Line, Msg: "twice block: " + msg}
}

// lineOf returns the 1-based line of byte offset off in src.
func lineOf(src []byte, off int) int {
	if off < 0 || off > len(src) {
		return 1
	}
	return 1 + bytes.Count(src[:off], []byte("\n"))
}

// playgroundRenderer renders Playground nodes.
type playgroundRenderer struct{}

func (playgroundRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(KindReveal, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			fmt.Fprintf(w, "<div class=\"twice-reveal\" data-for=\"block-%d\">\n", n.(*Reveal).For)
		} else {
			w.WriteString("</div>\n")
		}
		return ast.WalkContinue, nil
	})
	reg.Register(KindPlayground, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			WritePlayground(w, n.(*Playground))
		}
		return ast.WalkSkipChildren, nil
	})
}

// WritePlayground writes the HTML of one block: a <twice-playground>
// element holding the script and its pre-rendered output as text (what a
// reader without JavaScript sees), and the pre-rendered Result as JSON for
// the component's tables. The JSON omits the trace and the worker log,
// which the widget does not show.
func WritePlayground(w TextWriter, p *Playground) {
	attr := func(name, val string) {
		w.WriteString(" " + name + `="` + html.EscapeString(val) + `"`)
	}
	if p.Options.Picture {
		w.WriteString(Picture(p.Result, "picture-"+strconv.Itoa(p.Index)))
	}
	w.WriteString("<twice-playground")
	attr("id", "block-"+strconv.Itoa(p.Index))
	attr("seed", strconv.FormatUint(p.Options.Seed, 10))
	controls := strings.Join(p.Options.Controls, " ")
	if controls == "" {
		controls = "none"
	}
	attr("controls", controls)
	attr("label", p.Label)
	if p.Embed != "" {
		attr("embed", p.Embed)
	}
	// What an embed snippet carries: the plain commands, never the
	// article's shell wrapper (node queue.mjs ..., parentheses). The embed
	// page's block has it too, so that a block pasted with the snippet
	// finds there the output rendered for its script.
	if plain := plainScript(p.Script); plain != p.Script {
		attr("plain", plain)
	}
	// The parser's estimate of the script's cost: a page does not run a
	// heavy one on load (a link to it, a view that needs a run) without a
	// click. Light saves the browser asking.
	if c, err := lang.Estimate(p.Script); err == nil && c.Heavy() {
		attr("cost", "heavy")
	} else {
		attr("cost", "light")
	}
	if p.Options.Predict {
		attr("predict", p.Options.Scale)
	}
	if len(p.Options.Sliders) > 0 {
		attr("sliders", strings.Join(p.Options.Sliders, " "))
	}
	if p.Options.View != "" && p.Options.View != "output" {
		attr("view", p.Options.View)
	}
	if p.Options.Play {
		attr("play", "")
	}
	if len(p.Options.Compare) == 2 {
		attr("compare", strings.Join(p.Options.Compare, ","))
	}
	if p.Options.Picture {
		attr("run-label", "Make it happen")
	}
	w.WriteString(">\n<p class=\"twice-label\">Script</p>\n<pre class=\"twice-script\"><code>")
	w.WriteString(html.EscapeString(p.Script))
	w.WriteString("</code></pre>\n")
	if p.Options.Predict {
		// Hidden, not absent: a reader without JavaScript predicts, then
		// opens it.
		w.WriteString(`<details class="twice-answer"><summary>Output at seed ` + strconv.FormatUint(p.Options.Seed, 10) + ": predict first, then open</summary>\n")
	} else {
		w.WriteString(`<p class="twice-label">Output at seed ` + strconv.FormatUint(p.Options.Seed, 10) + "</p>\n")
	}
	w.WriteString(`<pre class="twice-output"><code>`)
	w.WriteString(html.EscapeString(p.Result.Text()))
	w.WriteString("</code></pre>\n")
	if p.Broken != "" {
		w.WriteString(`<p class="twice-error twice-broken" role="alert">This block is broken: ` + html.EscapeString(p.Broken) + "</p>\n")
	} else if e := p.Result.Error; e != nil {
		w.WriteString(`<p class="twice-error">` + html.EscapeString(e.Error()) + "</p>\n")
	}
	for _, m := range p.Result.Matrices {
		writeMatrix(w, m)
	}
	if p.Options.Predict {
		w.WriteString("</details>\n")
	}
	slim := *p.Result
	slim.Trace, slim.Log = nil, nil
	if p.Broken != "" {
		// The component shows the result's error in the block: for a
		// broken block, the message that names the file and line.
		slim.Error = &lang.Error{Kind: "usage", Msg: "This block is broken: " + p.Broken}
	}
	js, err := json.Marshal(&slim) // escapes <, > and & as \u003c...
	if err == nil {
		w.WriteString(`<script type="application/json" class="twice-result">`)
		w.Write(js)
		w.WriteString("</script>\n")
	}
	w.WriteString("</twice-playground>\n")
}

// plainScript returns src as plain commands when it is written the way the
// article's shell lines are (a parenthesised chain of node queue.mjs
// COMMAND joined by && or ;, then 2>/dev/null): each such line becomes one
// command per line, with the words the author wrote. Other lines are kept
// as they are, comments included. A result that does not parse, or would
// not run as the same commands, gives src back.
func plainScript(src string) string {
	if !strings.Contains(src, "node queue.mjs") {
		return src
	}
	var out []string
	for line := range strings.SplitSeq(strings.TrimSuffix(src, "\n"), "\n") {
		l := strings.TrimSpace(line)
		if !strings.Contains(l, "node queue.mjs") || strings.HasPrefix(l, "#") {
			out = append(out, line)
			continue
		}
		l = strings.TrimSpace(strings.TrimSuffix(l, "2>/dev/null"))
		if strings.HasPrefix(l, "(") && strings.HasSuffix(l, ")") {
			l = l[1 : len(l)-1]
		}
		for _, chain := range strings.Split(l, "&&") {
			for _, c := range strings.Split(chain, ";") {
				if c = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(c), "node queue.mjs")); c != "" {
					out = append(out, c)
				}
			}
		}
	}
	plain := strings.Join(out, "\n") + "\n"
	a, err1 := lang.Parse(src)
	b, err2 := lang.Parse(plain)
	if err1 != nil || err2 != nil || !sameCommands(a, b) {
		return src
	}
	return plain
}

// sameCommands reports whether two scripts hold the same commands, in
// canonical form, whatever joins them.
func sameCommands(a, b *lang.Script) bool {
	if len(a.Commands) != len(b.Commands) {
		return false
	}
	for i := range a.Commands {
		if a.Commands[i].String() != b.Commands[i].String() {
			return false
		}
	}
	return true
}

// writeMatrix writes one matrix as an HTML table, for a reader whose
// browser runs no script (the component draws its own from the JSON): a
// row per scenario, a column per fix, each cell the effects one live run
// produced and its verdict, as the transcript's table prints them.
func writeMatrix(w TextWriter, m result.MatrixTable) {
	esc := html.EscapeString
	w.WriteString(`<table class="twice-matrix"><caption>Which fix closes which duplicate, at seed ` + strconv.FormatUint(m.Seed, 10) +
		": effects per scenario and fix, each cell a live run; one effect per event is right</caption>\n<thead><tr><th scope=\"col\">scenario</th><th scope=\"col\">events</th>")
	for _, f := range m.Fixes {
		w.WriteString(`<th scope="col" title="` + esc(f.Title+": "+f.Change) + `">` + esc(f.ID) + "</th>")
	}
	w.WriteString("</tr></thead>\n<tbody>\n")
	for _, r := range m.Scenarios {
		w.WriteString(`<tr><th scope="row">` + esc(r.Title) + "</th><td>" + strconv.Itoa(r.Events) + "</td>")
		for _, c := range r.Cells {
			w.WriteString(`<td class="` + esc(c.Verdict) + `">` + esc(c.Text()) + "</td>")
		}
		w.WriteString("</tr>\n")
	}
	w.WriteString("</tbody>\n<tfoot><tr><th scope=\"row\">closes</th><td></td>")
	for _, f := range m.Fixes {
		w.WriteString("<td>" + esc(f.ClosesText(len(m.Scenarios))) + "</td>")
	}
	w.WriteString("</tr></tfoot></table>\n")
}

// TextWriter is what WritePlayground writes to: a goldmark BufWriter or a
// bytes.Buffer.
type TextWriter interface {
	io.Writer
	io.StringWriter
}

// New returns the goldmark configuration of every lesson page,
// bounded as a page is (mdbound.Page).
func New() goldmark.Markdown {
	return mdbound.New(mdbound.Page,
		goldmark.WithExtensions(extension.Table, extension.Strikethrough),
		goldmark.WithParserOptions(
			parser.WithAutoHeadingID(),
			parser.WithASTTransformers(util.Prioritized(transformer{}, 100)),
		),
		goldmark.WithRendererOptions(
			renderer.WithNodeRenderers(util.Prioritized(playgroundRenderer{}, 100), util.Prioritized(codeSpanRenderer{}, 100)),
		),
	)
}

// NewPlain returns the configuration of a site's introduction, a
// lesson's notes and a case's prose: as lessons (bounded the same way),
// but a twice block there is plain code.
func NewPlain() goldmark.Markdown {
	return mdbound.New(mdbound.Page,
		goldmark.WithExtensions(extension.Table, extension.Strikethrough),
		goldmark.WithRendererOptions(
			renderer.WithNodeRenderers(util.Prioritized(codeSpanRenderer{}, 100)),
		),
	)
}

// codeSpanRenderer renders inline code as goldmark does, except that a
// flag in it (a word that starts with a dash: --fence, -c, --lease=5s) is
// kept on one line. Browsers may break a line after a hyphen, and a flag
// split as "--" at the end of one line and "fence" at the start of the
// next reads as two things. The rest of the code still wraps at its spaces,
// and a word longer than maxFlag may break anywhere, so that nothing
// pushes a phone's page sideways.
type codeSpanRenderer struct{}

// maxFlag is the longest flag kept whole (about 230 CSS px in the lessons'
// monospace font at a phone's width).
const maxFlag = 32

func (codeSpanRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindCodeSpan, func(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			w.WriteString("</code>")
			return ast.WalkContinue, nil
		}
		var b strings.Builder
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text:
				// A line break inside inline code is a space.
				v := c.Segment.Value(source)
				if bytes.HasSuffix(v, []byte("\n")) {
					b.Write(v[:len(v)-1])
					b.WriteByte(' ')
				} else {
					b.Write(v)
				}
			case *ast.String:
				b.Write(c.Value)
			}
		}
		w.WriteString("<code>")
		w.WriteString(keepFlags(b.String()))
		return ast.WalkSkipChildren, nil
	})
}

// keepFlags escapes inline code for HTML and wraps each flag in it in a
// span that does not break (site/static/style.css: code .flag).
func keepFlags(code string) string {
	var b strings.Builder
	start := 0 // of the current word
	for i := 0; i <= len(code); i++ {
		if i < len(code) && code[i] != ' ' && code[i] != '\t' {
			continue
		}
		word := code[start:i]
		if strings.HasPrefix(word, "-") && strings.Trim(word, "-") != "" && len(word) <= maxFlag {
			b.WriteString(`<span class="flag">`)
			b.WriteString(html.EscapeString(word))
			b.WriteString("</span>")
		} else {
			b.WriteString(html.EscapeString(word))
		}
		if i < len(code) {
			b.WriteByte(code[i])
		}
		start = i + 1
	}
	return b.String()
}

// RenderLesson renders one lesson's markdown to HTML, running its blocks.
// The returned state lists the blocks and any errors, each naming the file
// and line; a lesson past a bound of a page's markdown (mdbound.Page) or
// a block past MaxBlockBytes of markup is one of them, and the former
// gives no HTML (st.Fatal).
func RenderLesson(md goldmark.Markdown, l lessons.Lesson, file, shown, root string, deadline time.Time) ([]byte, *Doc) {
	st := &Doc{file: file, shown: shown, slug: l.Slug, title: l.Title, root: root, deadline: deadline}
	pc := parser.NewContext()
	pc.Set(stateKey, st)
	lim := mdbound.Page
	if !deadline.IsZero() && time.Now().After(deadline) {
		// The render's time is up: its blocks do not run, and its
		// markdown gets what a lesson needs, not a page's whole bound.
		lim.Time = lateMarkdownTime
	}
	var buf bytes.Buffer
	if err := mdbound.Convert(md, l.Source, &buf, pc, lim); err != nil {
		// Past a bound of its markdown, the lesson is not shown at all:
		// what was written of it is a part, not the page.
		be := &BlockError{File: file, Msg: err.Error()}
		var e *mdbound.Error
		if errors.As(err, &e) {
			be.Line, be.Msg = e.Line, "refused: "+e.Msg
		}
		st.Errs = append(st.Errs, be)
		st.Fatal = be
		return nil, st
	}
	// A code block that scrolls sideways on a phone must be reachable by
	// keyboard: every plain code block takes focus (the playgrounds' own
	// blocks carry a class and are left alone).
	return bytes.ReplaceAll(buf.Bytes(), []byte("<pre><code"), []byte(`<pre tabindex="0"><code`)), st
}

// Prerender runs a block's script as the page shows it before any
// WebAssembly loads: its Result, with the load chart drawn (the timeline
// is drawn only from a live run). A run is a pure function of the script
// and the seed, so results are kept for the next render: a teacher's edit
// reruns only the blocks it changed. Callers must not modify the Result.
func Prerender(src string, seed uint64) *result.Result {
	key := strconv.FormatUint(seed, 10) + "\x00" + src
	prerendered.Lock()
	res, ok := prerendered.m[key]
	prerendered.Unlock()
	if ok {
		return res
	}
	res = interp.Run(src, interp.Options{Seed: seed})
	res.Chart = draw.LoadChart(res)
	// What a Result holds is about what it printed: its transcript,
	// worker log, views and trace, as the run's meter counted them.
	size := len(key) + res.Spent.Output
	prerendered.Lock()
	defer prerendered.Unlock()
	if len(prerendered.m) >= maxPrerendered || prerendered.size+size > prerendered.bytes {
		clear(prerendered.m) // a new lesson set: start over rather than track ages
		prerendered.size = 0
	}
	if size <= prerendered.bytes/8 {
		prerendered.m[key] = res
		prerendered.size += size
	}
	return res
}

// maxPrerendered and maxPrerenderedBytes bound the results kept: a few
// times the built-in lessons' blocks (about 1 MB of them), and a
// teacher's folder of similar size; a Result larger than an eighth of the
// bytes is not kept at all.
const (
	maxPrerendered      = 512
	maxPrerenderedBytes = 64 << 20
)

var prerendered = struct {
	sync.Mutex
	m     map[string]*result.Result
	size  int // the sizes of the results in m, as prerender counts them
	bytes int // the bound of size: maxPrerenderedBytes (tests set less)
}{m: map[string]*result.Result{}, bytes: maxPrerenderedBytes}
