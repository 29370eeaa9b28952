package lessons

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
)

// A lesson whose markdown passes the bounds of a page is refused by
// name and line, with one line each, and the others are read: the parse
// that finds a lesson's title and blocks is bounded as a page's render.
func TestHostileLessonsRefused(t *testing.T) {
	fsys := fstest.MapFS{
		"a.md": {Data: []byte("# A\n\n" + strings.Repeat("> ", 400_000) + "x\n")},
		"b.md": {Data: []byte("# B\n\n" + strings.Repeat("|a", 2000) + "\n" + strings.Repeat("|-", 2000) + "\n" + strings.Repeat("|\n", 4000))},
		"c.md": {Data: []byte("# C\n\ntext\n")},
	}
	ls, err := Load(fsys)
	if len(ls) != 1 || ls[0].File != "c.md" {
		t.Fatalf("read %d lessons; want c.md alone", len(ls))
	}
	lines := strings.Split(fmt.Sprint(err), "\n")
	want := []string{
		"a.md:3: refused: blockquotes and lists nest 33 deep here; a page may nest them at most 32 deep",
		"b.md:3: refused: a table of about 2001 columns and 4001 rows, 8008002 cells; a page's tables may have at most 100000 cells",
	}
	if len(lines) != len(want) || lines[0] != want[0] || lines[1] != want[1] {
		t.Errorf("errors:\n%v\nwant:\n%s", err, strings.Join(want, "\n"))
	}
}

// A folder of more lessons than MaxLessons: the first MaxLessons in order
// are read, and one line says the rest are left out.
func TestTooManyLessons(t *testing.T) {
	fsys := fstest.MapFS{}
	for i := range MaxLessons + 50 {
		fsys[fmt.Sprintf("l%04d.md", i)] = &fstest.MapFile{Data: []byte(fmt.Sprintf("# L%d\n", i))}
	}
	ls, err := Load(fsys)
	if len(ls) != MaxLessons {
		t.Errorf("read %d lessons; want %d", len(ls), MaxLessons)
	}
	want := fmt.Sprintf("l%04d.md: refused: a lesson folder may have at most %d lessons and cases; this one and those after it are left out", MaxLessons, MaxLessons)
	if err == nil || err.Error() != want {
		t.Errorf("error %v; want the one line %q", err, want)
	}
	if n := len(Files(fsys)); n != MaxLessons+2 {
		t.Errorf("Files lists %d names; want the manifest, the index and %d lessons", n, MaxLessons)
	}
	var manifest strings.Builder
	for i := range MaxLessons + 50 {
		fmt.Fprintf(&manifest, "l%04d.md\n", i)
	}
	fsys[Manifest] = &fstest.MapFile{Data: []byte(manifest.String())}
	if _, err := Load(fsys); err == nil || !strings.HasPrefix(err.Error(), fmt.Sprintf("lessons.txt:%d: l%04d.md: refused: ", MaxLessons+1, MaxLessons)) {
		t.Errorf("with a manifest: %v; want the line of the first one left out", err)
	}
}

// Front matter of many lines costs its length: twice the lines, at most
// about twice the bytes allocated. Each line was added to a string that
// grew, copying it: 250,000 lines of notes took minutes.
func TestFrontMatterIsLinear(t *testing.T) {
	alloc := func(n int) uint64 {
		src := []byte("---\nnotes: a\n" + strings.Repeat("  x\n", n) + "---\n# T\n")
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, _, err := frontMatter("a.md", src); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	a, b := alloc(20_000), alloc(40_000)
	if b > 3*a {
		t.Errorf("front matter of 20,000 lines allocates %d bytes, of 40,000 %d: %.1fx for twice the lines", a, b, float64(b)/float64(a))
	}
}
