package cases

import (
	"fmt"
	"strings"

	"github.com/twice-lab/twice/runtime/script/lang"
)

// A Case is a puzzle for the reader: an incident to explain and fix,
// written as one markdown file of a lesson folder whose front matter says
// kind: case (see the package documentation). Everything the page shows
// as evidence comes from running its scripts.
type Case struct {
	// Slug, File, Title, Time and Notes are as for a lesson.
	Slug, File, Title string
	Time, Notes       string
	// Level is the front matter's difficulty ("hard"), or "".
	Level string
	// Source is the markdown source, front matter lines left blank.
	Source []byte
	// Intro is the markdown between the title and the first section.
	Intro Prose
	// Symptom, Expected, Actual and Changes are the sections of those
	// names (## Symptom, ## Expected, ## Actual, ## Recent changes), as
	// markdown; each may be empty.
	Symptom, Expected, Actual, Changes Prose
	// Question is ## Question: the one question the investigation has to
	// answer. Investigation is ## Investigation: how to work the case,
	// step by step, from reproducing it to the fix. Either may be empty.
	Question, Investigation Prose
	// Architecture lists the arrows of the ## Architecture section, in
	// order; Parts lists the names they join, each once, in order of
	// first appearance.
	Architecture []Arrow
	Parts        []string
	// Evidence is the one twice block of ## Evidence: the run the page's
	// evidence desk is made from. EvidenceProse is the section's text.
	Evidence      Block
	EvidenceProse Prose
	// Hypotheses are the ### headings of ## Hypotheses, each with its
	// experiment.
	Hypotheses []Hypothesis
	// Fix is the one twice block of ## Fix: the system as the case
	// starts, which the reader edits into a fix (see [ParseFix]). It may
	// be empty.
	Fix      Block
	FixProse Prose
	// Checks are the twice blocks of ## Checks, in order.
	Checks      []Check
	ChecksProse Prose
	// Hints are the ### headings of ## Hints: a stage each, with its hints
	// from broad to narrow.
	Hints []HintStage
}

// A File is what [Parse] reads a case from: a markdown file of a lesson
// folder, already split by the lesson reader into its front matter, its
// title and its fenced twice blocks.
type File struct {
	Slug, File, Title string
	// Time, Notes and Level are the front matter's time:, notes: and
	// level:.
	Time, Notes, Level string
	// Source is the markdown, front matter lines left blank, so that
	// lines keep their numbers.
	Source []byte
	// Blocks are the twice blocks, in order.
	Blocks []Block
	// BlockOptions checks the info string of an ordinary twice block (the
	// evidence's and the fix's); nil checks nothing.
	BlockOptions func(info string) error
}

// A Block is one fenced twice block of a case.
type Block struct {
	// Line is the 1-based line of the opening fence.
	Line int
	// Info is the whole info string, starting with "twice".
	Info string
	// Script is the block's content.
	Script string
}

// Prose is a piece of a case's markdown, with the line it starts on.
type Prose struct {
	Line int
	Text string
}

// An Arrow is one line of a case's architecture: "From -> To: Label".
type Arrow struct {
	From, To, Label string
	Line            int
}

// A Hypothesis is one explanation the reader weighs, with the experiment
// that tests it.
type Hypothesis struct {
	Title string
	Line  int
	// Prose is the hypothesis's markdown, its experiment block included
	// (the page renders it as an ordinary twice block).
	Prose Prose
	// Experiment is the hypothesis's one twice block.
	Experiment Block
}

// A HintStage is one ### heading of ## Hints, with its hints in order,
// broad to narrow: at least one and at most [MaxHints].
type HintStage struct {
	Stage string
	Line  int
	Hints []Prose
}

// MaxHints is the most hints a stage of a case may have.
const MaxHints = 3

// Sections are the level-two headings a case may have, in their usual
// order, by lower-cased name.
var Sections = []string{"symptom", "expected", "actual", "question", "architecture", "evidence", "recent changes", "investigation", "hypotheses", "fix", "checks", "hints"}

// span is one level-two section: its heading's line and its body,
// [start, end) in 0-based lines.
type span struct {
	name       string
	line       int
	start, end int
}

// sections finds the title and the level-two sections of lines, outside
// fences: the intro's lines [introStart, introEnd), and each section.
func sections(name string, lines []string) (introStart, introEnd int, spans []span, seen map[string]int, err error) {
	introEnd = len(lines)
	seen = map[string]int{}
	inFence, fc := false, byte(0)
	titled := false
	for i, line := range lines {
		if f := fence(line); f != "" || inFence {
			switch {
			case !inFence:
				inFence, fc = true, f[0]
			case closesFence(line, fc):
				inFence = false
			}
			continue
		}
		level, text, ok := heading(line)
		switch {
		case !ok:
		case level == 1 && !titled:
			titled = true
			introStart = i + 1
		case level == 2:
			sec := strings.ToLower(text)
			known := false
			for _, s := range Sections {
				known = known || s == sec
			}
			if !known {
				return 0, 0, nil, nil, fmt.Errorf("%s:%d: unknown section %q of a case (known: %s)", name, i+1, lang.Short(text), strings.Join(Sections, ", "))
			}
			if first, ok := seen[sec]; ok {
				return 0, 0, nil, nil, fmt.Errorf("%s:%d: section %q is already on line %d", name, i+1, lang.Short(text), first)
			}
			seen[sec] = i + 1
			if len(spans) == 0 {
				introEnd = i
			} else {
				spans[len(spans)-1].end = i
			}
			spans = append(spans, span{name: sec, line: i + 1, start: i + 1, end: len(lines)})
		}
	}
	return introStart, introEnd, spans, seen, nil
}

// reader holds what the sections of one case file are read from.
type reader struct {
	f     File
	lines []string
}

func (r reader) prose(start, end int) Prose {
	return Prose{Line: start + 1, Text: strings.Join(r.lines[start:end], "\n")}
}

// blocksIn returns the twice blocks whose fence is on a line in
// [start, end) (0-based).
func (r reader) blocksIn(start, end int) []Block {
	var bs []Block
	for _, b := range r.f.Blocks {
		if b.Line-1 >= start && b.Line-1 < end {
			bs = append(bs, b)
		}
	}
	return bs
}

// without blanks the lines of the blocks bs in p, so that the prose keeps
// its line numbers and the page shows each block in its own place.
func without(p Prose, bs []Block) Prose {
	pl := strings.Split(p.Text, "\n")
	for _, b := range bs {
		from := b.Line - p.Line
		n := strings.Count(b.Script, "\n") + 2
		for j := from; j < from+n && j < len(pl); j++ {
			pl[j] = ""
		}
	}
	p.Text = strings.Join(pl, "\n")
	return p
}

// misplaced is the error of a twice block outside the sections that take
// one.
func (r reader) misplaced(b Block) error {
	return fmt.Errorf("%s:%d: a twice block of a case goes in its Evidence, Hypotheses, Fix or Checks section", r.f.File, b.Line)
}

// Parse reads a case from f. Its errors start with the file's name and
// the line to look at.
func Parse(f File) (Case, error) {
	c := Case{Slug: f.Slug, File: f.File, Title: f.Title, Time: f.Time, Notes: f.Notes, Level: f.Level, Source: f.Source}
	r := reader{f: f, lines: strings.Split(string(f.Source), "\n")}
	introStart, introEnd, spans, seen, err := sections(f.File, r.lines)
	if err != nil {
		return c, err
	}
	if bs := r.blocksIn(introStart, introEnd); len(bs) > 0 {
		return c, r.misplaced(bs[0])
	}
	c.Intro = r.prose(introStart, introEnd)
	for _, s := range spans {
		if err := r.section(&c, s); err != nil {
			return c, err
		}
	}
	for _, need := range []string{"evidence", "fix", "checks"} {
		if _, ok := seen[need]; !ok {
			return c, fmt.Errorf("%s:1: a case needs a ## %s section", f.File, strings.ToUpper(need[:1])+need[1:])
		}
	}
	return c, nil
}

// section reads the section s into c.
func (r reader) section(c *Case, s span) error {
	name := r.f.File
	p := r.prose(s.start, s.end)
	bs := r.blocksIn(s.start, s.end)
	var err error
	switch s.name {
	case "evidence", "fix":
		if len(bs) != 1 {
			return fmt.Errorf("%s:%d: the %s section needs exactly one twice block, it has %d", name, s.line, s.name, len(bs))
		}
		if r.f.BlockOptions != nil {
			if err := r.f.BlockOptions(bs[0].Info); err != nil {
				return fmt.Errorf("%s:%d: %v", name, bs[0].Line, err)
			}
		}
		if s.name == "evidence" {
			c.Evidence, c.EvidenceProse = bs[0], without(p, bs)
			return nil
		}
		if _, err := ParseFix(bs[0].Script); err != nil {
			return fmt.Errorf("%s:%d: the fix block: %v", name, bs[0].Line, err)
		}
		c.Fix, c.FixProse = bs[0], without(p, bs)
		return nil
	case "checks":
		c.Checks, err = r.checks(s, bs)
		c.ChecksProse = without(p, bs)
		return err
	case "hypotheses":
		c.Hypotheses, err = r.hypotheses(s)
		return err
	case "hints":
		c.Hints, err = parseHints(name, r.lines, s.start, s.end)
		return err
	}
	if len(bs) > 0 {
		return r.misplaced(bs[0])
	}
	switch s.name {
	case "symptom":
		c.Symptom = p
	case "expected":
		c.Expected = p
	case "actual":
		c.Actual = p
	case "question":
		c.Question = p
	case "investigation":
		c.Investigation = p
	case "recent changes":
		c.Changes = p
	case "architecture":
		return r.architecture(c, s)
	}
	return nil
}

// checks reads the twice blocks of ## Checks.
func (r reader) checks(s span, bs []Block) ([]Check, error) {
	if len(bs) == 0 {
		return nil, fmt.Errorf("%s:%d: the checks section has no twice block; write one per check", r.f.File, s.line)
	}
	var cks []Check
	names := map[string]int{}
	for _, b := range bs {
		ck, err := ParseCheck(b)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", r.f.File, b.Line, err)
		}
		if first, ok := names[ck.Name]; ok {
			return nil, fmt.Errorf("%s:%d: check %s is already on line %d", r.f.File, b.Line, ck.Name, first)
		}
		names[ck.Name] = b.Line
		cks = append(cks, ck)
	}
	return cks, nil
}

// architecture reads the arrows of ## Architecture.
func (r reader) architecture(c *Case, s span) error {
	for j := s.start; j < s.end; j++ {
		if strings.TrimSpace(r.lines[j]) == "" {
			continue
		}
		from, to, label, ok := arrow(r.lines[j])
		if !ok {
			return fmt.Errorf("%s:%d: want an arrow as a list item, like \"- Queue -> Worker: delivers\"", r.f.File, j+1)
		}
		a := Arrow{From: from, To: to, Label: label, Line: j + 1}
		c.Architecture = append(c.Architecture, a)
		for _, part := range []string{a.From, a.To} {
			found := false
			for _, q := range c.Parts {
				found = found || q == part
			}
			if !found {
				c.Parts = append(c.Parts, part)
			}
		}
	}
	return nil
}

// hypotheses reads the ### headings of ## Hypotheses, each with its one
// experiment.
func (r reader) hypotheses(s span) ([]Hypothesis, error) {
	name := r.f.File
	heads := subheadings(r.lines, s.start, s.end)
	if len(heads) == 0 {
		return nil, fmt.Errorf("%s:%d: the hypotheses section has no ### heading; give each hypothesis one, with its experiment", name, s.line)
	}
	if bs := r.blocksIn(s.start, heads[0].line-1); len(bs) > 0 {
		return nil, fmt.Errorf("%s:%d: a twice block of the hypotheses section goes under a hypothesis's ### heading", name, bs[0].Line)
	}
	var hs []Hypothesis
	for k, h := range heads {
		hend := s.end
		if k+1 < len(heads) {
			hend = heads[k+1].line - 1
		}
		bs := r.blocksIn(h.line, hend)
		if len(bs) != 1 {
			return nil, fmt.Errorf("%s:%d: hypothesis %q needs exactly one twice block, its experiment; it has %d", name, h.line, lang.Short(h.title), len(bs))
		}
		hs = append(hs, Hypothesis{
			Title:      h.title,
			Line:       h.line,
			Prose:      Prose{Line: h.line + 1, Text: strings.Join(r.lines[h.line:hend], "\n")},
			Experiment: bs[0],
		})
	}
	return hs, nil
}

// parseHints reads the ### headings of lines [start, end), each with a
// list of hints.
func parseHints(name string, lines []string, start, end int) ([]HintStage, error) {
	heads := subheadings(lines, start, end)
	var hs []HintStage
	for k, h := range heads {
		hend := end
		if k+1 < len(heads) {
			hend = heads[k+1].line - 1
		}
		st := HintStage{Stage: h.title, Line: h.line}
		for j := h.line; j < hend; j++ {
			line := lines[j]
			if text, ok := item(line); ok {
				st.Hints = append(st.Hints, Prose{Line: j + 1, Text: text})
				continue
			}
			if strings.TrimSpace(line) == "" {
				continue
			}
			if len(st.Hints) == 0 || !strings.HasPrefix(line, "  ") {
				return nil, fmt.Errorf("%s:%d: want the hints of stage %q as a list, broad to narrow, one item each", name, j+1, lang.Short(h.title))
			}
			last := &st.Hints[len(st.Hints)-1]
			last.Text += "\n" + strings.TrimSpace(line)
		}
		if len(st.Hints) == 0 || len(st.Hints) > MaxHints {
			return nil, fmt.Errorf("%s:%d: stage %q has %d hints; give it from 1 to %d", name, h.line, lang.Short(h.title), len(st.Hints), MaxHints)
		}
		hs = append(hs, st)
	}
	return hs, nil
}

type subheading struct {
	title string
	line  int // 1-based
}

// subheadings returns the ### headings of lines [start, end), outside
// fences.
func subheadings(lines []string, start, end int) []subheading {
	var hs []subheading
	inFence := false
	for j := start; j < end; j++ {
		if fence(lines[j]) != "" {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		if level, text, ok := heading(lines[j]); ok && level == 3 {
			hs = append(hs, subheading{title: text, line: j + 1})
		}
	}
	return hs
}
