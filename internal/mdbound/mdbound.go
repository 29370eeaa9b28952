// Package mdbound runs goldmark under bounds, so that no markdown a
// teacher (or anyone who can write into a lesson folder) gives can stall a
// render or fill the memory of a server or a build.
//
// CommonMark's parsers are not linear on every input: a line of thousands
// of nested "> " or "- " markers, emphasis delimiters that never match
// ("*a_" repeated) or link openings that never close ("[a](" repeated)
// each cost time in the square of their length, minutes for a file of a
// few hundred kilobytes. A GitHub table pads every row to its header's
// columns, so 16 KB of table makes millions of cells, and so do a hundred
// tables each of a size that looks harmless; a megabyte of "[" makes a
// million nodes, hundreds of megabytes of memory. Rather than a list of
// such inputs, [Parser] puts every block parser, inline parser,
// delimiter, paragraph and document transformer of a goldmark parser
// behind one guard, the extensions' included (an option added later is
// wrapped too), and [Convert] and [Parse] give each document a budget
// ([Limits]): time (its clock read every few calls into a parser),
// nesting depth (blockquotes and lists), the cells of all its tables, the
// elements its parsers make, and bytes of HTML written. A document over
// one stops at once with an [Error] naming its line and the limit: Parse
// returns no document, and what Convert wrote is a part, for the caller
// to drop.
package mdbound

import (
	"bytes"
	"fmt"
	"io"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/twice-lab/twice/runtime/bytesize"
)

// Limits bound one document. A zero field does not limit.
type Limits struct {
	// Time bounds parsing and rendering together, what Exclude runs
	// aside.
	Time time.Duration
	// Nesting bounds blockquotes and lists one inside another.
	Nesting int
	// TableCells bounds the cells of a document's tables together: each
	// table's columns (as its header and delimiter row give them) times
	// its rows.
	TableCells int
	// Nodes bounds the elements a document's parsers make: each block
	// opened (a paragraph, a heading, a list item, a blockquote) and each
	// inline element a trigger character starts (a link or image
	// opening, an emphasis delimiter, a code span, an autolink). Plain
	// text between them is not counted.
	Nodes int
	// Bytes bounds the HTML written.
	Bytes int
	// Clock is what Time is measured by; nil is the wall clock. A test
	// gives a clock of its own, so that a time bound fires after a
	// number of reads rather than at a speed of the machine.
	Clock func() time.Time
}

// now reads the limits' clock.
func (l Limits) now() time.Time {
	if l.Clock != nil {
		return l.Clock()
	}
	return time.Now()
}

// Page are the limits of one page's markdown: several times what any
// lesson needs (the built-in ones render in milliseconds, nest 3 deep and
// have tables of tens of cells and a few hundred elements; a lesson file
// of the most bytes a folder reads, 1 MiB of prose, makes some tens of
// thousands) and far from what a machine feels: an element's node costs
// some hundreds of bytes of memory until the page is written.
var Page = Limits{Time: 5 * time.Second, Nesting: 32, TableCells: 100_000, Nodes: 200_000, Bytes: 8 << 20}

// Error is a document that passed a limit: the line where it did (from
// 1; 0 when no line is to blame) and what, in words. Time says the limit
// was its time.
type Error struct {
	Line int
	Msg  string
	Time bool
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

// guard is one document's budget, kept in its parser context.
type guard struct {
	lim      Limits
	src      []byte
	deadline time.Time
	calls    int
	written  int
	cells    int            // of the tables so far
	tabled   *ast.Paragraph // the paragraph whose cells were counted last
	nodes    int            // the elements made so far
	timeUp   bool           // the stop is for time
}

var guardKey = parser.NewContextKey()

func guardOf(pc parser.Context) *guard {
	if pc == nil {
		return nil
	}
	g, _ := pc.Get(guardKey).(*guard)
	return g
}

// tick counts a call into a parser at source offset at, and stops the
// document when its time is up. The clock is read every few calls.
func (g *guard) tick(at int) {
	if g == nil || g.lim.Time <= 0 {
		return
	}
	g.calls++
	if g.calls%16 == 0 && g.lim.now().After(g.deadline) {
		g.timeUp = true
		g.fail(at, fmt.Sprintf("its markdown took more than %v to render (very long or deeply nested emphasis, links or lists); a page's markdown may take at most %v", g.lim.Time, g.lim.Time))
	}
}

// made counts an element a parser made at source offset at, and stops
// the document past its bound.
func (g *guard) made(at int) {
	if g == nil {
		return
	}
	g.nodes++
	if g.lim.Nodes > 0 && g.nodes > g.lim.Nodes {
		g.fail(at, fmt.Sprintf("its markdown makes more than %d elements (blocks, links, emphasis, code spans); a page may have at most %d", g.lim.Nodes, g.lim.Nodes))
	}
}

// fail stops the document with an Error at source offset at (-1 for
// none). Parse and Convert recover it.
func (g *guard) fail(at int, msg string) {
	line := 0
	if at >= 0 && at <= len(g.src) {
		line = 1 + bytes.Count(g.src[:at], []byte("\n"))
	}
	panic(&Error{Line: line, Msg: msg, Time: g.timeUp})
}

// Exclude runs f, a part of the work that is not markdown's (a twice
// block's run, which has budgets of its own), without counting its time
// against the document's.
func Exclude(pc parser.Context, f func()) {
	g := guardOf(pc)
	if g == nil {
		f()
		return
	}
	start := g.lim.now()
	f()
	g.deadline = g.deadline.Add(g.lim.now().Sub(start))
}

// New returns a goldmark configuration whose parser is bounded (Parser)
// and whose Convert holds each document to lim (as Convert does); opts
// are goldmark's options, extensions and parser options included.
func New(lim Limits, opts ...goldmark.Option) goldmark.Markdown {
	return bounded{goldmark.New(append([]goldmark.Option{goldmark.WithParser(Parser())}, opts...)...), lim}
}

// bounded is a configuration whose Convert is bounded.
type bounded struct {
	goldmark.Markdown
	lim Limits
}

// Convert converts src into w under the configuration's limits, with the
// context of opts, if any.
func (m bounded) Convert(src []byte, w io.Writer, opts ...parser.ParseOption) error {
	c := &parser.ParseConfig{}
	for _, o := range opts {
		o(c)
	}
	return Convert(m.Markdown, src, w, c.Context, m.lim)
}

// Parser returns goldmark's default parser (CommonMark's block and
// inline parsers and link references) with every part behind the guard,
// and the parts of any option added to it later too.
func Parser(opts ...parser.Option) parser.Parser {
	all := append([]parser.Option{
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	}, opts...)
	return boundedParser{parser.NewParser(wrapOptions(all)...)}
}

// boundedParser wraps the options added to it.
type boundedParser struct{ parser.Parser }

func (p boundedParser) AddOptions(opts ...parser.Option) { p.Parser.AddOptions(wrapOptions(opts)...) }

func wrapOptions(opts []parser.Option) []parser.Option {
	out := make([]parser.Option, len(opts))
	for i, o := range opts {
		out[i] = boundedOption{o}
	}
	return out
}

// boundedOption applies an option to a configuration of its own, then
// hands on what it set with every parser and transformer wrapped.
type boundedOption struct{ parser.Option }

func (o boundedOption) SetParserOption(c *parser.Config) {
	s := parser.NewConfig()
	o.Option.SetParserOption(s)
	for k, v := range s.Options {
		c.Options[k] = v
	}
	c.EscapedSpace = c.EscapedSpace || s.EscapedSpace
	for _, v := range s.BlockParsers {
		c.BlockParsers = append(c.BlockParsers, util.Prioritized(blockParser{v.Value.(parser.BlockParser)}, v.Priority))
	}
	for _, v := range s.InlineParsers {
		c.InlineParsers = append(c.InlineParsers, util.Prioritized(inlineParser{v.Value.(parser.InlineParser)}, v.Priority))
	}
	for _, v := range s.ParagraphTransformers {
		c.ParagraphTransformers = append(c.ParagraphTransformers, util.Prioritized(paragraphTransformer{v.Value.(parser.ParagraphTransformer)}, v.Priority))
	}
	for _, v := range s.ASTTransformers {
		c.ASTTransformers = append(c.ASTTransformers, util.Prioritized(astTransformer{v.Value.(parser.ASTTransformer)}, v.Priority))
	}
}

// setOption hands a parser's option on to what it wraps, if that takes
// options (the heading parser's ids, for one).
func setOption(v any, name parser.OptionName, value any) {
	if so, ok := v.(parser.SetOptioner); ok {
		so.SetOption(name, value)
	}
}

// offset is the source offset a reader is at.
func offset(r text.Reader) int {
	_, seg := r.Position()
	return seg.Start
}

// Parse parses src with p under lim, with pc as its context (nil for a
// new one). A document over a limit gives an *Error and no document.
func Parse(p parser.Parser, src []byte, pc parser.Context, lim Limits) (doc ast.Node, err error) {
	if pc == nil {
		pc = parser.NewContext()
	}
	start(pc, src, lim)
	defer stopped(&err)
	return p.Parse(text.NewReader(src), parser.WithContext(pc)), nil
}

// Convert parses src with md's parser and renders it into w, under lim,
// with pc as the parse's context (nil for a new one). A document over a
// limit gives an *Error; w then holds part of the page, which the caller
// drops.
func Convert(md goldmark.Markdown, src []byte, w io.Writer, pc parser.Context, lim Limits) (err error) {
	if pc == nil {
		pc = parser.NewContext()
	}
	g := start(pc, src, lim)
	defer stopped(&err)
	doc := md.Parser().Parse(text.NewReader(src), parser.WithContext(pc))
	return md.Renderer().Render(&limitedWriter{w: w, g: g}, src, doc)
}

// start puts a fresh guard for src in pc.
func start(pc parser.Context, src []byte, lim Limits) *guard {
	g := &guard{lim: lim, src: src, deadline: lim.now().Add(lim.Time)}
	pc.Set(guardKey, g)
	return g
}

// stopped turns a guard's stop into the error of its call; any other
// panic goes on.
func stopped(err *error) {
	if r := recover(); r != nil {
		e, ok := r.(*Error)
		if !ok {
			panic(r)
		}
		*err = e
	}
}

// limitedWriter counts the HTML written against the guard.
type limitedWriter struct {
	w io.Writer
	g *guard
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	l.g.written += len(p)
	if l.g.lim.Bytes > 0 && l.g.written > l.g.lim.Bytes {
		l.g.fail(-1, fmt.Sprintf("its page passed %s; a page may have at most %s", bytesize.Words(l.g.lim.Bytes), bytesize.Words(l.g.lim.Bytes)))
	}
	l.g.tick(-1)
	return l.w.Write(p)
}
