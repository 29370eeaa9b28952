package server

import (
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/andybalholm/brotli"

	"github.com/twice-lab/twice/lessons"
)

// hostileFolder writes a lesson folder that once stalled serve and build:
// a named pipe called b.md (reading it blocks until a writer comes), a
// 50 MB lesson (sparse, so the test writes little), and a lesson with
// 10,000 twice blocks, beside one good lesson. It returns the folder.
func hostileFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var many strings.Builder
	many.WriteString("# Many\n\n")
	for range 10_000 {
		many.WriteString("```twice\nadd a\n```\n\n")
	}
	writeFiles(t, dir, map[string]string{
		"a.md": "# Fine\n\n```twice\nrace read 3\n```\n",
		"d.md": many.String(),
	})
	if err := syscall.Mkfifo(filepath.Join(dir, "b.md"), 0o644); err != nil {
		t.Skip("cannot make a named pipe here:", err)
	}
	big, err := os.Create(filepath.Join(dir, "c.md"))
	if err != nil {
		t.Fatal(err)
	}
	big.WriteString("# Big\n\n")
	if err := big.Truncate(50 << 20); err != nil {
		t.Fatal(err)
	}
	big.Close()
	return dir
}

// The hostile folder renders in moments: each bad file is refused with a
// message naming it (and, on the index, listed as left out), the good
// lesson is served, and the export fails naming them.
func TestHostileFolderRefusedByName(t *testing.T) {
	dir := hostileFolder(t)
	done := make(chan struct{})
	var site *Site
	var err error
	start := time.Now()
	go func() {
		defer close(done)
		site, err = Render(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever})
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Render did not return within 20 s (a named pipe opened for reading blocks forever)")
	}
	t.Logf("rendered in %v", time.Since(start))
	if err == nil {
		t.Fatal("Render succeeded")
	}
	for _, want := range []string{
		filepath.Join(dir, "b.md") + ": refused: it is a named pipe (FIFO)",
		filepath.Join(dir, "c.md") + ": refused: 52428800 bytes",
		filepath.Join(dir, "d.md") + ":",
		"10000 twice blocks",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q:\n%v", want, err)
		}
	}
	if f := site.Files["lessons/a/index.html"]; f == nil || f.Status != 200 {
		t.Error("the good lesson was not rendered")
	}
	index := string(site.Files["index.html"].Body)
	for _, name := range []string{"b.md", "c.md", "d.md"} {
		if !strings.Contains(index, "<li><code>"+name+":") {
			t.Errorf("the index does not list %s as left out", name)
		}
	}
	if strings.Contains(index, dir) {
		t.Error("the index shows the folder's absolute path")
	}
	if err := site.Export(t.TempDir()); err == nil || !strings.Contains(err.Error(), "b.md") {
		t.Errorf("Export: %v, want an error naming b.md", err)
	}
}

// A lesson file swapped for a named pipe between the check and the open
// does not block: the folder's files are opened without blocking and
// checked again once open.
func TestRootFSOpensWithoutBlocking(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "p.md"), 0o644); err != nil {
		t.Skip("cannot make a named pipe here:", err)
	}
	fsys, _, close := lessonSource(Options{LessonsDir: dir})
	defer close()
	done := make(chan error, 1)
	go func() {
		f, err := fsys.Open("p.md")
		if err == nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Logf("open: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("opening a named pipe blocked")
	}
}

// Once a render has spent its time, the blocks not yet run fail, each in
// its block and in the error with its file and line, and the export
// refuses the site: a folder of many slow blocks cannot hold a render
// for ever.
func TestRenderTimeBudget(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.md": "# A\n\n```twice\nrace read 3\n```\n\ntext\n\n```twice\nrace read 4\n```\n",
	})
	r, err := newRenderer(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.budget = 0 // spent before the first block
	fsys, name, done := lessonSource(Options{LessonsDir: dir})
	defer done()
	site := r.render(fsys, name, nil)
	if site.Err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{filepath.Join(dir, "a.md") + ":3: twice block not run: the lesson folder took more than 2m0s to render", filepath.Join(dir, "a.md") + ":9: twice block not run"} {
		if !strings.Contains(site.Err.Error(), want) {
			t.Errorf("error does not say %q:\n%v", want, site.Err)
		}
	}
	page := string(site.Files["lessons/a/index.html"].Body)
	if n := strings.Count(page, `role="alert">This block is broken: a.md:`); n != 2 || !strings.Contains(page, "text") {
		t.Errorf("the page shows %d broken blocks, want 2, and its prose:\n%s", n, page)
	}
	if err := site.Export(t.TempDir()); err == nil {
		t.Error("Export succeeded")
	}
}

// renderDir renders the lesson folder dir with a stand-in runtime; edit,
// when not nil, changes the renderer's bounds first.
func renderDir(t *testing.T, dir string, edit func(r *siteRenderer)) *Site {
	t.Helper()
	r, err := newRenderer(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(r)
	}
	fsys, name, done := lessonSource(Options{LessonsDir: dir})
	defer done()
	return r.render(fsys, name, nil)
}

// A block whose output would make megabytes of page (written twice in
// the page, and again in its embed page) is broken, with one line that
// names its file, line and the bound; its page holds its script and that
// line, not the output. 100 such blocks made a 649 MB page.
func TestLargeOutputBounded(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("add a --times 100\n", 5) + strings.Repeat("jobs\n", 100) // 2.6 MB of transcript
	var b strings.Builder
	b.WriteString("# Big\n\n")
	for range 10 {
		b.WriteString("```twice\n" + big + "```\n\n")
	}
	writeFiles(t, dir, map[string]string{"a.md": b.String()})
	site := renderDir(t, dir, nil)
	want := filepath.Join(dir, "a.md") + ":3: twice block: its output makes "
	if site.Err == nil || !strings.HasPrefix(site.Err.Error(), want) || !strings.Contains(site.Err.Error(), "more than the 1048576 a block may make") {
		t.Fatalf("error %v; want it to start %q", site.Err, want)
	}
	if n := strings.Count(site.Err.Error(), "\n") + 1; n != 10 {
		t.Errorf("%d error lines; want one per block", n)
	}
	page := site.Files["lessons/a/index.html"].Body
	if len(page) > 10*MaxBlockBytes/8 {
		t.Errorf("the page of 10 blocks is %d bytes", len(page))
	}
	if n := strings.Count(string(page), `role="alert">This block is broken: a.md:`); n != 10 {
		t.Errorf("the page shows %d broken blocks, want 10", n)
	}
	if e := site.Files["embed/a/1/index.html"].Body; len(e) > MaxBlockBytes/8 {
		t.Errorf("the embed page is %d bytes", len(e))
	}
}

// A lesson whose markdown passes a page's bounds only as it is written
// (a link reference of 2,000 characters used 5,000 times: 10 MB of HTML
// from 17 KB) is not shown: its page says why (status 500), the index
// marks it, and the error names the file and the bound.
func TestPageBytesBounded(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.md": "# Links\n\n[r]: /" + strings.Repeat("u", 2000) + "\n\n" + strings.Repeat("[r] ", 5000) + "\n",
		"b.md": "# Fine\n\ntext\n",
	})
	site := renderDir(t, dir, nil)
	want := filepath.Join(dir, "a.md") + ": refused: its page passed 8 MB; a page may have at most 8 MB"
	if site.Err == nil || site.Err.Error() != want {
		t.Errorf("error %v; want %q", site.Err, want)
	}
	f := site.Files["lessons/a/index.html"]
	if f.Status != 500 || len(f.Body) > 64<<10 || !strings.Contains(string(f.Body), "its page passed 8 MB") {
		t.Errorf("the lesson's page: status %d, %d bytes", f.Status, len(f.Body))
	}
	if !strings.Contains(string(site.Files["index.html"].Body), "Links</a> <span class=\"broken\">(cannot be shown)</span>") {
		t.Error("the index does not mark the lesson")
	}
	if site.Files["lessons/b/index.html"].Status != 200 {
		t.Error("the other lesson is not served")
	}
}

// Once a site's pages pass their bound, the lessons left are not
// rendered, each with its line; those before are served.
func TestSiteBytesBounded(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d"} {
		files[n+".md"] = "# " + n + "\n\n" + strings.Repeat("word ", 20_000) + "\n" // about 100 KB of page
	}
	writeFiles(t, dir, files)
	site := renderDir(t, dir, func(r *siteRenderer) { r.maxPages = 150 << 10 })
	if site.Files["lessons/a/index.html"].Status != 200 || site.Files["lessons/b/index.html"].Status != 200 {
		t.Error("the lessons within the bound are not served")
	}
	lines := strings.Split(fmt.Sprint(site.Err), "\n")
	want := filepath.Join(dir, "c.md") + ": not rendered: the site's pages passed 150 KB; a site may have at most 150 KB of pages"
	if len(lines) != 2 || !strings.HasPrefix(lines[0], want) || !strings.HasPrefix(lines[1], filepath.Join(dir, "d.md")+": not rendered") {
		t.Errorf("errors:\n%v\nwant c.md and d.md not rendered", site.Err)
	}
}

// An introduction (index.md) past a page's bounds is shown as its text,
// escaped, with the error naming the file: never the part converted
// before the bound stopped it (here 8 MB of links from 17 KB, a <p> left
// open).
func TestIntroPastBoundsEscaped(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"index.md": "# My course\n\n[r]: /" + strings.Repeat("u", 2000) + "\n\n" + strings.Repeat("[r] ", 5000) + "\n",
		"a.md":     "# A\n\ntext\n",
	})
	site := renderDir(t, dir, nil)
	if site.Err == nil || site.Err.Error() != filepath.Join(dir, "index.md")+": its page passed 8 MB; a page may have at most 8 MB" {
		t.Errorf("error %v; want index.md's page bytes named", site.Err)
	}
	index := string(site.Files["index.html"].Body)
	if len(index) > 256<<10 || strings.Contains(index, `<a href="/uuu`) {
		t.Errorf("the index is %d bytes, with the links converted before the bound stopped the introduction", len(index))
	}
	if !strings.Contains(index, "[r] [r] [r]") || !strings.Contains(index, `<a href="lessons/a/">A</a>`) {
		t.Error("the index does not show the introduction's text escaped, then the lessons")
	}
}

// The compressed forms a compressor keeps in memory are bounded in
// bytes: a server that compresses page after page (a teacher's edits for
// hours) starts over rather than keep them all. The bound is lowered to
// 256 KB here.
func TestCompressorMemoryBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	c := newCompressor("", BrotliNever)
	c.maxMem = 256 << 10
	for i := range 200 {
		text := make([]byte, 16<<10) // what compresses little
		for j := range text {
			text[j] = byte(rng.Uint32())
		}
		body := []byte(fmt.Sprintf("<p>page %d %x</p>", i, text))
		c.compress(newFile(fmt.Sprintf("p%d.html", i), body, 200, false))
		c.mu.Lock()
		n := 0
		for _, b := range c.mem {
			n += len(b)
		}
		c.mu.Unlock()
		if n > c.maxMem {
			t.Fatalf("after %d pages the compressor keeps %d bytes of forms; the bound is %d", i+1, n, c.maxMem)
		}
	}
}

// TestServeRenderLinearInLessons: under twice serve, the index and the
// service worker are published after each lesson, so that pages are
// served as they are done. Each was compressed, brotli and gzip, at
// each publish: a folder of 200 short lessons took 46 s to render here,
// 30 s under twice serve, 4 s for 50. Published as they are, the whole
// folder takes a few seconds, most of them compressing its final pages.
func TestServeRenderLinearInLessons(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range lessons.MaxLessons {
		files[fmt.Sprintf("l%03d.md", i)] = fmt.Sprintf("# Lesson number %d\n\ntext\n", i)
	}
	writeFiles(t, dir, files)
	// At the qualities twice serve compresses with, not the tests' fastest.
	q, level := BrotliQuality, GzipLevel
	BrotliQuality, GzipLevel = brotli.BestCompression, gzip.BestCompression
	defer func() { BrotliQuality, GzipLevel = q, level }()
	r, err := newRenderer(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliLater, CacheDir: t.TempDir(), Live: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	fsys, name, done := lessonSource(Options{LessonsDir: dir})
	defer done()
	published := 0
	before := compressions.Load()
	start := time.Now()
	site := r.render(fsys, name, func(*Site) { published++ })
	took := time.Since(start)
	// The work is counted, not timed: each compressible file of the final
	// site compressed once in each encoding (a file is compressed as it
	// is served, or by the background brotli pass), and a few more for
	// the pages published before their final form; compressing the index
	// and the service worker at each publish made twice as many again.
	did := compressions.Load() - before
	squeezable := 0
	for _, f := range site.Files {
		if compressible(f.Type) {
			squeezable++
		}
	}
	if site.Err != nil || published < lessons.MaxLessons-1 || did > int64(2*squeezable+20) {
		t.Errorf("%d lessons rendered, published %d times, %d compressions for %d compressible files: %v",
			lessons.MaxLessons, published, did, squeezable, site.Err)
	}
	t.Logf("%d lessons rendered in %v, %d compressions for %d compressible files",
		lessons.MaxLessons, took.Round(time.Millisecond), did, squeezable)
}
