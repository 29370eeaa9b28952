package lessons

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A Case is a puzzle for the reader: an incident to explain and fix,
// written as one markdown file of the lesson folder whose front matter
// says kind: case (see the package documentation, "Writing a case").
// Everything the page shows as evidence comes from running its scripts.
type Case struct {
	// Slug, File, Title, Time and Notes are as for a [Lesson].
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
	// Fix is the one twice block of ## Fix: the prelude the reader edits,
	// which every check runs first. It may be empty.
	Fix      Block
	FixProse Prose
	// Checks are the twice blocks of ## Checks, in order.
	Checks      []Check
	ChecksProse Prose
	// Hints are the ### headings of ## Hints: a stage each, with its hints
	// from broad to narrow.
	Hints []HintStage
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

// A Check is one twice block of a case's ## Checks section: a script that
// runs after the reader's fix, and what its run must show.
type Check struct {
	Name  string
	Line  int
	Seed  uint64
	Block Block
	// Expect lists what the run must show, in the order written.
	Expect []Expectation
}

// An Expectation is one condition of a check, written in the block's
// info string as NAME=N (or NAME alone for once).
type Expectation struct {
	// What is one of Expectations.
	What string
	// N is the number wanted.
	N int
}

// Expectations lists what a check may ask of its run, and says each in
// words. A check's evidence line reports each one it asks for.
var Expectations = []struct{ Name, Words string }{
	{"overlap", "orderings of every race --all in which two workers own the job at once, each between its claim and its ack (overlap=0)"},
	{"duplicates", "orderings of every race --all, or races of a timed race, with more than one effect (duplicates=0)"},
	{"effects", "effects that landed: receipts neither refused nor replayed, and ledger rows (effects=1)"},
	{"deliveries", "deliveries of the jobs: the attempts of every job, summed (deliveries=2)"},
	{"once", "every event the producer published has exactly one effect (once, no value)"},
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

// caseSections are the level-two headings a case may have, in their
// usual order, by lower-cased name.
var caseSections = []string{"symptom", "expected", "actual", "architecture", "evidence", "recent changes", "hypotheses", "fix", "checks", "hints"}

var (
	headingLine = regexp.MustCompile(`^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$`)
	fenceLine   = regexp.MustCompile("^ {0,3}(```+|~~~+)")
	arrowLine   = regexp.MustCompile(`^\s{0,3}[-*+]\s+(.+?)\s*->\s*(.+?)\s*(?::\s*(.*?))?\s*$`)
	itemLine    = regexp.MustCompile(`^\s{0,3}(?:[-*+]|\d{1,9}[.)])\s+(.*)$`)
	checkName   = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
)

// isCase reports whether the front matter says kind: case.
func isCase(fm map[string]string) bool { return fm["kind"] == "case" }

// parseCase reads a case from a lesson already parsed (title, blocks,
// front matter).
func parseCase(l Lesson, level string) (Case, error) {
	c := Case{Slug: l.Slug, File: l.File, Title: l.Title, Time: l.Time, Notes: l.Notes, Level: level, Source: l.Source}
	name := l.File
	lines := strings.Split(string(l.Source), "\n")
	type span struct {
		name       string
		line       int // the heading's line
		start, end int // 0-based lines of the body: [start, end)
	}
	var spans []span
	introStart, introEnd := 0, len(lines)
	seen := map[string]int{}
	inFence, fence := false, ""
	titled := false
	for i, line := range lines {
		if m := fenceLine.FindStringSubmatch(line); m != nil {
			switch {
			case !inFence:
				inFence, fence = true, m[1][:1]
			case strings.HasPrefix(strings.TrimSpace(line), strings.Repeat(fence, 3)) && strings.Trim(strings.TrimSpace(line), fence) == "":
				inFence = false
			}
			continue
		}
		if inFence {
			continue
		}
		m := headingLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		switch len(m[1]) {
		case 1:
			if !titled {
				titled = true
				introStart = i + 1
			}
		case 2:
			sec := strings.ToLower(strings.TrimSpace(m[2]))
			known := false
			for _, s := range caseSections {
				known = known || s == sec
			}
			if !known {
				return c, fmt.Errorf("%s:%d: unknown section %q of a case (known: %s)", name, i+1, m[2], strings.Join(caseSections, ", "))
			}
			if first, ok := seen[sec]; ok {
				return c, fmt.Errorf("%s:%d: section %q is already on line %d", name, i+1, m[2], first)
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
	prose := func(start, end int) Prose {
		return Prose{Line: start + 1, Text: strings.Join(lines[start:end], "\n")}
	}
	// blocksIn returns the twice blocks whose fence is on a line in
	// [start, end) (0-based).
	blocksIn := func(start, end int) []Block {
		var bs []Block
		for _, b := range l.Blocks {
			if b.Line-1 >= start && b.Line-1 < end {
				bs = append(bs, b)
			}
		}
		return bs
	}
	// without blanks the lines of the blocks bs, so that the prose keeps
	// its line numbers and the page shows each block in its own place.
	without := func(p Prose, bs []Block) Prose {
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
	if bs := blocksIn(introStart, introEnd); len(bs) > 0 {
		return c, fmt.Errorf("%s:%d: a twice block of a case goes in its Evidence, Hypotheses, Fix or Checks section", name, bs[0].Line)
	}
	c.Intro = prose(introStart, introEnd)
	for _, s := range spans {
		p := prose(s.start, s.end)
		bs := blocksIn(s.start, s.end)
		switch s.name {
		case "evidence", "fix":
			if len(bs) != 1 {
				return c, fmt.Errorf("%s:%d: the %s section needs exactly one twice block, it has %d", name, s.line, s.name, len(bs))
			}
			if _, err := bs[0].Options(); err != nil {
				return c, fmt.Errorf("%s:%d: %v", name, bs[0].Line, err)
			}
			if s.name == "evidence" {
				c.Evidence, c.EvidenceProse = bs[0], without(p, bs)
			} else {
				c.Fix, c.FixProse = bs[0], without(p, bs)
			}
			continue
		case "checks":
			if len(bs) == 0 {
				return c, fmt.Errorf("%s:%d: the checks section has no twice block; write one per check", name, s.line)
			}
			names := map[string]int{}
			for _, b := range bs {
				ck, err := parseCheck(b)
				if err != nil {
					return c, fmt.Errorf("%s:%d: %v", name, b.Line, err)
				}
				if first, ok := names[ck.Name]; ok {
					return c, fmt.Errorf("%s:%d: check %s is already on line %d", name, b.Line, ck.Name, first)
				}
				names[ck.Name] = b.Line
				c.Checks = append(c.Checks, ck)
			}
			c.ChecksProse = without(p, bs)
			continue
		case "hypotheses":
			hs, err := parseHypotheses(name, lines, s.start, s.end, blocksIn)
			if err != nil {
				return c, err
			}
			if len(hs) == 0 {
				return c, fmt.Errorf("%s:%d: the hypotheses section has no ### heading; give each hypothesis one, with its experiment", name, s.line)
			}
			c.Hypotheses = hs
			continue
		case "hints":
			hs, err := parseHints(name, lines, s.start, s.end)
			if err != nil {
				return c, err
			}
			c.Hints = hs
			continue
		}
		if len(bs) > 0 {
			return c, fmt.Errorf("%s:%d: a twice block of a case goes in its Evidence, Hypotheses, Fix or Checks section", name, bs[0].Line)
		}
		switch s.name {
		case "symptom":
			c.Symptom = p
		case "expected":
			c.Expected = p
		case "actual":
			c.Actual = p
		case "recent changes":
			c.Changes = p
		case "architecture":
			for j := s.start; j < s.end; j++ {
				if strings.TrimSpace(lines[j]) == "" {
					continue
				}
				m := arrowLine.FindStringSubmatch(lines[j])
				if m == nil {
					return c, fmt.Errorf("%s:%d: want an arrow as a list item, like \"- Queue -> Worker: delivers\"", name, j+1)
				}
				a := Arrow{From: m[1], To: m[2], Label: m[3], Line: j + 1}
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
		}
	}
	for _, need := range []string{"evidence", "fix", "checks"} {
		if _, ok := seen[need]; !ok {
			return c, fmt.Errorf("%s:1: a case needs a ## %s section", name, strings.ToUpper(need[:1])+need[1:])
		}
	}
	return c, nil
}

// parseHypotheses reads the ### headings of lines [start, end).
func parseHypotheses(name string, lines []string, start, end int, blocksIn func(int, int) []Block) ([]Hypothesis, error) {
	heads := subheadings(lines, start, end)
	var hs []Hypothesis
	for k, h := range heads {
		hend := end
		if k+1 < len(heads) {
			hend = heads[k+1].line - 1
		}
		bs := blocksIn(h.line, hend)
		if len(bs) != 1 {
			return nil, fmt.Errorf("%s:%d: hypothesis %q needs exactly one twice block, its experiment; it has %d", name, h.line, h.title, len(bs))
		}
		hs = append(hs, Hypothesis{
			Title:      h.title,
			Line:       h.line,
			Prose:      Prose{Line: h.line + 1, Text: strings.Join(lines[h.line:hend], "\n")},
			Experiment: bs[0],
		})
	}
	if len(heads) > 0 {
		if bs := blocksIn(start, heads[0].line-1); len(bs) > 0 {
			return nil, fmt.Errorf("%s:%d: a twice block of the hypotheses section goes under a hypothesis's ### heading", name, bs[0].Line)
		}
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
			if m := itemLine.FindStringSubmatch(line); m != nil {
				st.Hints = append(st.Hints, Prose{Line: j + 1, Text: m[1]})
				continue
			}
			if strings.TrimSpace(line) == "" {
				continue
			}
			if len(st.Hints) == 0 || !strings.HasPrefix(line, "  ") {
				return nil, fmt.Errorf("%s:%d: want the hints of stage %q as a list, broad to narrow, one item each", name, j+1, h.title)
			}
			last := &st.Hints[len(st.Hints)-1]
			last.Text += "\n" + strings.TrimSpace(line)
		}
		if len(st.Hints) == 0 || len(st.Hints) > MaxHints {
			return nil, fmt.Errorf("%s:%d: stage %q has %d hints; give it from 1 to %d", name, h.line, h.title, len(st.Hints), MaxHints)
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
		if fenceLine.MatchString(lines[j]) {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		if m := headingLine.FindStringSubmatch(lines[j]); m != nil && len(m[1]) == 3 {
			hs = append(hs, subheading{title: strings.TrimSpace(m[2]), line: j + 1})
		}
	}
	return hs
}

// parseCheck reads a check's info string: twice, then name=NAME, an
// optional seed=N, and what the run must show, each NAME=N (or once).
func parseCheck(b Block) (Check, error) {
	ck := Check{Line: b.Line, Block: b, Seed: DefaultCheckSeed}
	fields := strings.Fields(b.Info)
	seen := map[string]bool{}
	for _, f := range fields[1:] {
		key, val, hasVal := strings.Cut(f, "=")
		if seen[key] {
			return ck, fmt.Errorf("check option %q given twice", key)
		}
		seen[key] = true
		switch key {
		case "name":
			if !checkName.MatchString(val) {
				return ck, fmt.Errorf("check name=%s: want lower-case letters, digits and dashes", val)
			}
			ck.Name = val
			continue
		case "seed":
			n, err := strconv.ParseUint(val, 10, 64)
			if !hasVal || err != nil {
				return ck, fmt.Errorf("check option seed=%s: want a whole number from 0 to 18446744073709551615", val)
			}
			ck.Seed = n
			continue
		case "once":
			if hasVal {
				return ck, errors.New("check option once takes no value")
			}
			ck.Expect = append(ck.Expect, Expectation{What: key, N: 1})
			continue
		}
		known := false
		for _, e := range Expectations {
			known = known || e.Name == key && key != "once"
		}
		if !known {
			return ck, fmt.Errorf("unknown check option %q (known: name, seed, %s)", key, expectationNames())
		}
		n, err := strconv.Atoi(val)
		if !hasVal || err != nil || n < 0 {
			return ck, fmt.Errorf("check option %s=%s: want a whole number, 0 or more", key, val)
		}
		ck.Expect = append(ck.Expect, Expectation{What: key, N: n})
	}
	if ck.Name == "" {
		return ck, errors.New("a check needs a name: write its block as ```twice name=NAME followed by what its run must show")
	}
	if len(ck.Expect) == 0 {
		return ck, fmt.Errorf("check %s asks for nothing; give it one of %s", ck.Name, expectationNames())
	}
	return ck, nil
}

func expectationNames() string {
	var names []string
	for _, e := range Expectations {
		names = append(names, e.Name)
	}
	return strings.Join(names, ", ")
}

// DefaultCheckSeed is the seed a check runs at unless it says seed=N.
const DefaultCheckSeed uint64 = 1
