package mdbound

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// options are the lessons' own: tables, strikethrough, heading ids.
var options = []goldmark.Option{
	goldmark.WithExtensions(extension.Table, extension.Strikethrough),
	goldmark.WithParserOptions(parser.WithAutoHeadingID()),
}

// convert converts src under lim, and returns the error (an *Error or
// nil) and how long it took.
func convert(t *testing.T, src string, lim Limits) (*Error, time.Duration) {
	t.Helper()
	var b bytes.Buffer
	start := time.Now()
	err := Convert(New(lim, options...), []byte(src), &b, nil, lim)
	took := time.Since(start)
	if err == nil {
		return nil, took
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error of type %T: %v", err, err)
	}
	if strings.Contains(e.Error(), "\n") {
		t.Errorf("a multi-line error: %q", e.Error())
	}
	return e, took
}

// Each input here once took minutes (the square of its length) or
// gigabytes; each now stops at its bound with one line. Their sizes are
// those of a lesson file (under 1 MiB). The bounds that count (nesting,
// cells, bytes) are met long before a time bound of seconds; where only
// time can tell, the bound is short, so the test takes about that long
// whatever the machine.
func TestHostileMarkdownStops(t *testing.T) {
	// The bounds that count are met whatever the machine's speed: their
	// clock never moves, so time cannot come first however loaded the
	// machine is.
	frozen := time.Unix(0, 0)
	lim := Limits{Time: 5 * time.Second, Nesting: 32, TableCells: 100_000, Nodes: 200_000, Bytes: 1 << 20,
		Clock: func() time.Time { return frozen }}
	// Where only time can tell, no other bound may come first, however
	// fast the machine: the elements are not counted, and the clock moves
	// a millisecond at each read, so the bound of 100 ms is met after a
	// number of reads (the guard reads it every 16 calls into a parser),
	// never at a speed.
	quick := lim
	quick.Time = 100 * time.Millisecond
	quick.Nodes = 0
	deep := "blockquotes and lists nest 33 deep here; a page may nest them at most 32 deep"
	slow := "its markdown took more than 100ms to render"
	indented := ""
	for i := 0; i < 40; i++ {
		indented += strings.Repeat("  ", i) + "- item\n"
	}
	// A table of 98,049 cells, under the bound alone: a hundred of them
	// (800 KB) made 10 million cells, 1.9 GB of memory.
	table := strings.Repeat("|a", 2000) + "\n" + strings.Repeat("|-", 2000) + "\n" + strings.Repeat("|\n", 47) + "\n"
	for _, c := range []struct {
		name, src, want string
		line            int
	}{
		{"400,000 > on a line", "# T\n\n" + strings.Repeat("> ", 400_000) + "x\n", deep, 3},
		{"400,000 - on a line", strings.Repeat("- ", 400_000) + "x\n", deep, 1},
		{"quotes and numbered lists", strings.Repeat("> 1. ", 200_000), deep, 1},
		{"lists nested by indentation", "# T\n\ntext\n\n" + indented, deep, 37},
		{"list markers and tabs", strings.Repeat("-\t", 300_000) + "x", deep, 1},
		{"emphasis that never matches", strings.Repeat("*a_", 150_000), slow, 1},
		{"links that never close", strings.Repeat("[a](", 100_000), slow, 1},
		{"a table of 2000 columns and 4000 rows", strings.Repeat("|a", 2000) + "\n" + strings.Repeat("|-", 2000) + "\n" + strings.Repeat("|\n", 4000),
			"a table of about 2001 columns and 4001 rows, 8008002 cells; a page's tables may have at most 100000 cells", 1},
		{"100 tables of 2000 columns and 48 rows", strings.Repeat(table, 100),
			"a table of about 2001 columns and 48 rows brings the page's tables to 196098 cells; a page's tables may have at most 100000 cells", 51},
		// 1 MiB of "[": a million link openings, 420 MB of nodes.
		{"a megabyte of [", "# T\n\n" + strings.Repeat("[", 1<<20), "its markdown makes more than 200000 elements (blocks, links, emphasis, code spans); a page may have at most 200000", 3},
		{"a megabyte of ![", strings.Repeat("![", 1<<19), "its markdown makes more than 200000 elements", 1},
		{"headings", strings.Repeat("# h\n", 1<<18), "its markdown makes more than 200000 elements", 200001},
		{"a link reference used 20,000 times", "[r]: /" + strings.Repeat("u", 2000) + "\n\n" + strings.Repeat("[r]", 20_000), "its page passed 1 MB; a page may have at most 1 MB", 0},
	} {
		l := lim
		if c.want == slow {
			l = quick
			var ticks time.Duration
			l.Clock = func() time.Time { ticks += time.Millisecond; return frozen.Add(ticks) }
		}
		e, took := convert(t, c.src, l)
		if e == nil || !strings.HasPrefix(e.Msg, c.want) || e.Line != c.line {
			t.Errorf("%s: error %v; want line %d: %s", c.name, e, c.line, c.want)
		}
		t.Logf("%s (%d bytes): stopped after %v: %v", c.name, len(c.src), took.Round(time.Millisecond), e)
	}
}

// The built-in lessons pass the bounds of a page, and the bounded
// parser writes the very bytes goldmark's own does: heading ids, tables
// and strikethrough included.
func TestLessonsPassUnchanged(t *testing.T) {
	files, _ := filepath.Glob("../../lessons/*.md")
	if len(files) < 17 {
		t.Fatalf("found %d lessons", len(files))
	}
	plain := goldmark.New(options...)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var want, got bytes.Buffer
		if err := plain.Convert(src, &want); err != nil {
			t.Fatal(err)
		}
		if err := New(Page, options...).Convert(src, &got); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		if got.String() != want.String() {
			t.Errorf("%s: the bounded parser writes other HTML than goldmark's", f)
		}
	}
}

// Exclude keeps work that is not markdown's out of the time bound: a
// transformer that takes 200 ms of a fake clock under Exclude leaves a
// page under a bound of 50 ms, and the same 200 ms outside it does not.
func TestExclude(t *testing.T) {
	for _, aside := range []bool{true, false} {
		var now time.Time
		lim := Limits{Time: 50 * time.Millisecond, Clock: func() time.Time { return now }}
		slow := slowTransformer{d: 200 * time.Millisecond, now: &now, aside: aside}
		md := goldmark.New(goldmark.WithParser(Parser(parser.WithASTTransformers(util.Prioritized(slow, 100)))))
		err := Convert(md, []byte(strings.Repeat("*a* ", 20_000)), &bytes.Buffer{}, parser.NewContext(), lim)
		if aside && err != nil {
			t.Errorf("work run under Exclude counted against the bound: %v", err)
		}
		if !aside && err == nil {
			t.Errorf("200 ms of a 50 ms bound taken outside Exclude did not stop the page")
		}
	}
}

// slowTransformer is a document transformer that moves a fake clock on
// by d, under Exclude (as a twice block's run does) when aside.
type slowTransformer struct {
	d     time.Duration
	now   *time.Time
	aside bool
}

func (s slowTransformer) Transform(_ *ast.Document, _ text.Reader, pc parser.Context) {
	move := func() { *s.now = s.now.Add(s.d) }
	if s.aside {
		Exclude(pc, move)
	} else {
		move()
	}
}
