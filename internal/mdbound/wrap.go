package mdbound

import (
	"bytes"
	"fmt"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// The wrappers: each checks the guard of its context, then does what the
// part it wraps does.

// blockParser wraps a block parser: time at every line it opens or
// continues, and the nesting of what it opens.
type blockParser struct{ parser.BlockParser }

func (b blockParser) Open(parent ast.Node, r text.Reader, pc parser.Context) (ast.Node, parser.State) {
	g := guardOf(pc)
	g.tick(offset(r))
	n, st := b.BlockParser.Open(parent, r, pc)
	if n != nil {
		g.made(offset(r))
	}
	if g != nil && g.lim.Nesting > 0 && nests(n) {
		depth := 1
		for p := parent; p != nil; p = p.Parent() {
			if nests(p) {
				depth++
			}
		}
		if depth > g.lim.Nesting {
			g.fail(offset(r), fmt.Sprintf("blockquotes and lists nest %d deep here; a page may nest them at most %d deep", depth, g.lim.Nesting))
		}
	}
	return n, st
}

func (b blockParser) Continue(n ast.Node, r text.Reader, pc parser.Context) parser.State {
	guardOf(pc).tick(offset(r))
	return b.BlockParser.Continue(n, r, pc)
}

func (b blockParser) SetOption(name parser.OptionName, value any) {
	setOption(b.BlockParser, name, value)
}

// nests reports whether n is a container that nests: a blockquote or a
// list (its items are not counted apart: a list in a list is one deeper).
func nests(n ast.Node) bool {
	switch n.(type) {
	case *ast.Blockquote, *ast.List:
		return true
	}
	return false
}

// inlineParser wraps an inline parser: time at every trigger, and at
// every step of the delimiters it makes (emphasis, strikethrough), whose
// matching runs in one call at the end of a paragraph.
type inlineParser struct{ parser.InlineParser }

func (p inlineParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	g := guardOf(pc)
	g.tick(offset(block))
	n := p.InlineParser.Parse(parent, block, pc)
	if n != nil {
		g.made(offset(block))
	}
	if d, ok := n.(*parser.Delimiter); ok && g != nil {
		d.Processor = delimiterProcessor{d.Processor, g, d.Segment.Start}
	}
	return n
}

func (p inlineParser) CloseBlock(parent ast.Node, block text.Reader, pc parser.Context) {
	guardOf(pc).tick(offset(block))
	if cb, ok := p.InlineParser.(parser.CloseBlocker); ok {
		cb.CloseBlock(parent, block, pc)
	}
}

func (p inlineParser) SetOption(name parser.OptionName, value any) {
	setOption(p.InlineParser, name, value)
}

// delimiterProcessor wraps a delimiter's processor, at its place.
type delimiterProcessor struct {
	parser.DelimiterProcessor
	g  *guard
	at int
}

func (d delimiterProcessor) CanOpenCloser(opener, closer *parser.Delimiter) bool {
	d.g.tick(d.at)
	return d.DelimiterProcessor.CanOpenCloser(opener, closer)
}

// paragraphTransformer wraps a paragraph transformer (link references,
// tables): time, and a table's cells, added to those of the document's
// tables before it, before it makes them.
type paragraphTransformer struct{ parser.ParagraphTransformer }

func (t paragraphTransformer) Transform(n *ast.Paragraph, r text.Reader, pc parser.Context) {
	g := guardOf(pc)
	if g != nil {
		lines := n.Lines()
		at := -1
		if lines.Len() > 0 {
			at = lines.At(0).Start
		}
		g.tick(at)
		if g.lim.TableCells > 0 && lines.Len() >= 2 {
			head, delim := lines.At(0), lines.At(1)
			cols := 1 + max(bytes.Count(head.Value(g.src), []byte("|")), bytes.Count(delim.Value(g.src), []byte("|")))
			// Each of a paragraph's transformers sees it: its cells are
			// counted once.
			if cells := cols * lines.Len(); g.tabled != n && isDelimiterRow(delim.Value(g.src)) {
				g.tabled = n
				g.cells += cells
				switch {
				case cells > g.lim.TableCells:
					g.fail(at, fmt.Sprintf("a table of about %d columns and %d rows, %d cells; a page's tables may have at most %d cells", cols, lines.Len()-1, cells, g.lim.TableCells))
				case g.cells > g.lim.TableCells:
					g.fail(at, fmt.Sprintf("a table of about %d columns and %d rows brings the page's tables to %d cells; a page's tables may have at most %d cells", cols, lines.Len()-1, g.cells, g.lim.TableCells))
				}
			}
		}
	}
	t.ParagraphTransformer.Transform(n, r, pc)
}

func (t paragraphTransformer) SetOption(name parser.OptionName, value any) {
	setOption(t.ParagraphTransformer, name, value)
}

// isDelimiterRow reports whether line can be a table's delimiter row:
// only pipes, dashes, colons and blanks, and a dash.
func isDelimiterRow(line []byte) bool {
	return bytes.IndexByte(line, '-') >= 0 && len(bytes.Trim(line, "|-: \t\r\n")) == 0
}

// astTransformer wraps a document transformer: time, once.
type astTransformer struct{ parser.ASTTransformer }

func (t astTransformer) Transform(doc *ast.Document, r text.Reader, pc parser.Context) {
	guardOf(pc).tick(-1)
	t.ASTTransformer.Transform(doc, r, pc)
}

func (t astTransformer) SetOption(name parser.OptionName, value any) {
	setOption(t.ASTTransformer, name, value)
}
