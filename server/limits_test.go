package server

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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
