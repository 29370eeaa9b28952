package lessons

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"
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

// A lesson of 80,000 empty twice blocks (1 MiB) is refused with the
// count and the line of the first one too many; its blocks' lines are
// counted from the one before, not each from the start of the file (which
// took a second a file).
func TestManyBlocksRefused(t *testing.T) {
	src := "# T\n\n" + strings.Repeat("```twice\n```\n", 80_000)
	_, err := Load(fstest.MapFS{"a.md": {Data: []byte(src)}})
	want := fmt.Sprintf("a.md:%d: refused: 80000 twice blocks, more than the %d a lesson may have; split it into several lessons", 3+2*MaxBlocks, MaxBlocks)
	if err == nil || err.Error() != want {
		t.Errorf("error %v; want %q", err, want)
	}
}

// Notes are markdown the page shows: notes past a page's bounds refuse
// their lesson, naming the file and the notes' line.
func TestHostileNotesRefused(t *testing.T) {
	src := "---\nnotes: a\n  " + strings.Repeat("> ", 40) + "x\n---\n# T\n"
	_, err := Load(fstest.MapFS{"a.md": {Data: []byte(src)}})
	want := "a.md: refused: its notes (in the front matter), line 2 of them: blockquotes and lists nest 33 deep here; a page may nest them at most 32 deep"
	if err == nil || err.Error() != want {
		t.Errorf("error %v; want %q", err, want)
	}
}

// The files of a folder are read up to MaxFolderBytes together: the one
// that passes it and those after it are left out in one line, the ones
// before it are read.
func TestFolderBytesBounded(t *testing.T) {
	fsys := fstest.MapFS{}
	n := MaxFolderBytes/1_000_000 + 3
	for i := range n {
		fsys[fmt.Sprintf("l%02d.md", i)] = &fstest.MapFile{Data: []byte(fmt.Sprintf("# L%d\n\n", i) + strings.Repeat("word ", 199_990))}
	}
	ls, err := Load(fsys)
	first := MaxFolderBytes / 1_000_000
	if len(ls) != first {
		t.Errorf("read %d lessons; want %d", len(ls), first)
	}
	want := fmt.Sprintf("l%02d.md: refused: with it the folder's files come to more than the %d MiB a lesson folder may have; this one and the %d after it are left out", first, MaxFolderBytes>>20, n-first-1)
	if err == nil || err.Error() != want {
		t.Errorf("error %v; want the one line %q", err, want)
	}
}

// The markdown of a folder's files shares one time: once it is spent,
// each file left has a tenth of a second, so that lessons each as slow as
// a page may be (5 s) do not take minutes one after another, while a
// lesson that reads in milliseconds is still read. The folder's time is
// lowered here to 200 ms; each slow lesson (180 KB of emphasis that
// never matches) would take more than the 5 s of a page: six took 30 s.
func TestFolderReadTimeShared(t *testing.T) {
	readTime = 200 * time.Millisecond
	defer func() { readTime = MaxReadTime }()
	fsys := fstest.MapFS{"z.md": {Data: []byte("# Fine\n\ntext\n")}}
	const slow = 6
	for i := range slow {
		fsys[fmt.Sprintf("s%d.md", i)] = &fstest.MapFile{Data: []byte("# S\n\n" + strings.Repeat("*a_", 60_000))}
	}
	start := time.Now()
	ls, err := Load(fsys)
	t.Logf("%d slow lessons read in %v", slow, time.Since(start).Round(time.Millisecond))
	if len(ls) != 1 || ls[0].File != "z.md" {
		t.Errorf("read %d lessons; want z.md alone", len(ls))
	}
	lines := strings.Split(fmt.Sprint(err), "\n")
	if len(lines) != slow {
		t.Fatalf("errors:\n%v\nwant one line per slow lesson", err)
	}
	for i, l := range lines[1:] {
		want := fmt.Sprintf("s%d.md:3: refused: its markdown took more than the 100ms left of the 200ms a folder's files may take to read together (the files before it took the rest)", i+1)
		if l != want {
			t.Errorf("line %d: %q\nwant %q", i+2, l, want)
		}
	}
}

// TestErrorsQuoteAWord: an error about what a lesson or a case says
// quotes at most a word of it, 40 characters. A 900 KB block option, front matter key
// or section heading made a 900 KB error line (the script's parser
// already cut a word at 40 characters).
func TestErrorsQuoteAWord(t *testing.T) {
	big := strings.Repeat("a", 900_000)
	c := func(old, new string) []byte {
		src := "---\nkind: case\n---\n# C\n\n## Evidence\n\n```twice\nadd o && work --job 1\n```\n\n## Fix\n\n```twice\n```\n\n## Checks\n\n```twice name=one effects=1\nadd o && work --job 1\n```\n"
		return []byte(strings.Replace(src, old, new, 1))
	}
	files := map[string][]byte{
		"key.md":     []byte("---\n" + big + ": 1\n---\n# A\n"),
		"line.md":    []byte("---\n" + big + "\n---\n# A\n"),
		"kind.md":    []byte("---\nkind: " + big + "\n---\n# A\n"),
		"section.md": c("## Fix", "## "+big),
		"check.md":   c("effects=1", big+"=1"),
		"name.md":    c("name=one", "name="+big+"!"),
		"count.md":   c("effects=1", "effects="+big),
	}
	for name, data := range files {
		var err error
		if b := allocated(func() { _, _, err = LoadAll(fstest.MapFS{name: {Data: data}}) }); b > readAllocBound {
			t.Errorf("%s: reading it allocated %d MB; the bound is %d MB", name, b>>20, readAllocBound>>20)
		}
		msg := fmt.Sprint(err)
		if err == nil || !strings.HasPrefix(msg, name+":") || len(msg) > 300 || !strings.Contains(msg, strings.Repeat("a", 40)+"…") {
			t.Errorf("%s: an error of %d bytes: %.300s", name, len(msg), msg)
		}
	}
	for _, info := range []string{"twice controls=" + big, "twice " + big, "twice seed=" + big, big} {
		_, err := ParseBlockOptions(info)
		if msg := fmt.Sprint(err); err == nil || len(msg) > 300 || !strings.Contains(msg, strings.Repeat("a", 40)+"…") {
			t.Errorf("%.30s: an error of %d bytes: %.300s", info, len(msg), msg)
		}
	}
}

// TestLabelsBounded: a lesson's title, time and level, and the site's
// title, are repeated by the index and the pages around them. Sixteen
// lessons with titles of 1 MB took 46 s and 639 MB to build before the
// site's bound on pages stopped them; each is refused in one line.
func TestLabelsBounded(t *testing.T) {
	big := strings.Repeat("é", MaxLabel+1)
	fsys := fstest.MapFS{
		"a.md": {Data: []byte("\n# " + big + "\n")},
		"b.md": {Data: []byte("---\nkind: lesson\ntime: " + big + "\n---\n# B\n")},
		"c.md": {Data: []byte("---\nlevel: " + big + "\n---\n# C\n")},
		"d.md": {Data: []byte("---\nlevel: hard\ntime: " + strings.Repeat("é", MaxLabel) + "\n---\n# " + strings.Repeat("é", MaxLabel) + "\n")},
	}
	var ls []Lesson
	var err error
	if b := allocated(func() { ls, err = Load(fsys) }); b > readAllocBound {
		t.Errorf("reading the folder allocated %d MB; the bound is %d MB", b>>20, readAllocBound>>20)
	}
	if len(ls) != 1 || ls[0].File != "d.md" {
		t.Errorf("read %d lessons; want d.md alone", len(ls))
	}
	want := []string{
		"a.md:2: refused: its title is 201 characters long; a title, time or level may have at most 200",
		"b.md:3: refused: its time is 201 characters long; a title, time or level may have at most 200",
		"c.md:2: refused: its level is 201 characters long; a title, time or level may have at most 200",
	}
	if got := fmt.Sprint(err); got != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	_, err = LoadSite(fstest.MapFS{"index.md": {Data: []byte("# " + big + "\n")}})
	if want := "index.md:1: refused: the site's title is 201 characters long; a title, time or level may have at most 200"; fmt.Sprint(err) != want {
		t.Errorf("the site: %v\nwant %s", err, want)
	}
}

// readAllocBound bounds the memory reading one of these hostile files
// may allocate, in all: some times the file (8 MB at most for 900 KB
// here), far under the hundreds of megabytes of the quadratic reads
// they once took. A count of bytes, unlike a time, is the same on a fast
// machine and on one at a load of 20.
const readAllocBound = 48 << 20

// allocated returns the bytes f allocated (the heap's cumulative count,
// which other goroutines of the test binary barely move here).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
