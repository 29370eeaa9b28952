package server

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A lesson that is a symlink to a file outside the folder is refused, by
// name, and nothing of that file reaches a page or an export; the same for
// a manifest entry that climbs out with "..".
func TestSymlinkedLessonRefused(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.md")
	if err := os.WriteFile(secret, []byte("# Private notes\n\nSECRET-CONTENT\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		setup func(dir string) error
		entry string
	}{
		{"symlink", func(dir string) error { return os.Symlink(secret, filepath.Join(dir, "notes.md")) }, "notes.md"},
		{"dotdot", func(string) error { return nil }, "../" + filepath.Base(outside) + "/secret.md"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(filepath.Dir(outside), "lessons-"+tc.name+fmt.Sprint(time.Now().UnixNano()))
			os.Mkdir(dir, 0o755)
			t.Cleanup(func() { os.RemoveAll(dir) })
			writeFiles(t, dir, map[string]string{
				"lessons.txt": "a.md\n" + tc.entry + "\n",
				"a.md":        "# A\n\ntext\n",
			})
			if err := tc.setup(dir); err != nil {
				t.Skip("cannot make a symlink here:", err)
			}
			site, err := Render(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever})
			if err == nil {
				t.Fatal("Render read a lesson outside the folder")
			}
			if !strings.Contains(err.Error(), tc.entry) {
				t.Errorf("error %q does not name %s", err, tc.entry)
			}
			for p, f := range site.Files {
				if strings.Contains(string(f.Body), "SECRET-CONTENT") {
					t.Errorf("%s shows the outside file", p)
				}
			}
			if err := site.Export(t.TempDir()); err == nil {
				t.Error("Export succeeded")
			}
		})
	}
}

// A lessons folder of 30,000 files does not make every request look at it:
// a server without file notifications looks (at the files it reads, not
// the others) no more than once a second, however many requests come.
// Counting looks (not timing requests) keeps the test steady on a busy
// machine; before, every page request walked the whole folder.
func TestLargeLessonFolderWalkedRarely(t *testing.T) {
	// Not in parallel: fallback turns file notifications off for the
	// whole package while it runs.
	fallback(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.md": "# A\n\ntext\n"})
	n := 30_000
	if testing.Short() {
		n = 1_000
	}
	for i := range n {
		sub := filepath.Join(dir, "assets", fmt.Sprint(i/1000))
		if i%1000 == 0 {
			os.MkdirAll(sub, 0o755)
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%d.txt", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := NewServer(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever}, nil)
	if err != nil {
		t.Fatal(err)
	}
	base := srv.walks.Load()
	// Requests from four clients for a little over a second, so that at
	// least one check of the folder falls inside; each client waits a
	// millisecond between requests, so that they do not take every core
	// from the tests running beside this one.
	start := time.Now()
	var served atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Since(start) < 1500*time.Millisecond {
				rec := httptest.NewRecorder()
				srv.ServeHTTP(rec, httptest.NewRequest("GET", "/lessons/a/", nil))
				if rec.Code != 200 {
					t.Errorf("status %d", rec.Code)
					return
				}
				served.Add(1)
				time.Sleep(time.Millisecond)
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	walks := srv.walks.Load() - base
	allowed := int64(took/CheckEvery) + 2
	t.Logf("%d requests over %d files in %v: %d walks, %.0f requests/s", served.Load(), n, took, walks, float64(served.Load())/took.Seconds())
	if walks > allowed {
		t.Errorf("%d requests walked the folder %d times in %v; want at most %d (once per %v)", served.Load(), walks, took, allowed, CheckEvery)
	}
	// Hundreds of requests a second, with a wide margin: each one costs
	// microseconds once it need not walk the folder.
	if served.Load() < 300 {
		t.Errorf("only %d requests served in %v", served.Load(), took)
	}
}

// While a changed lesson renders, other requests are served the last site
// rendered at once instead of waiting behind the render.
func TestRenderInBackground(t *testing.T) {
	// Not in parallel: it waits to see a render under way, which a render
	// finished early between two looks would never show.
	fallback(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.md": "# Old title\n\ntext\n"})
	srv, err := NewServer(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv.every = 0
	srv.next.Store(0)
	// A lesson whose block takes a while to pre-render.
	writeFiles(t, dir, map[string]string{"a.md": "# New title\n\n```twice\nrace read 3000 --workers 8\n```\n"})
	future := time.Now().Add(2 * time.Second)
	os.Chtimes(filepath.Join(dir, "a.md"), future, future)
	get := func() string {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest("GET", "/lessons/a/", nil))
		return rec.Body.String()
	}
	first := make(chan string, 1)
	go func() { first <- get() }()
	got, done := "", false
	for !done && !srv.checking.Load() {
		select {
		case got = <-first:
			done = true
		case <-time.After(time.Millisecond):
		}
	}
	if done {
		// The render (cached from an earlier run of this test, or just
		// quick) was over before a second request could be made.
		t.Log("the render finished before it could be seen under way; nothing shown about waiting")
	} else {
		// The render is under way: this request must not wait for it.
		body := get()
		stillRendering := srv.checking.Load()
		if !strings.Contains(body, "Old title") {
			t.Errorf("a request during the render got something other than the last site")
		}
		if !stillRendering {
			t.Log("the render finished before the second request returned; nothing shown about waiting")
		}
		got = <-first
	}
	for srv.checking.Load() {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(got, "New title") && !strings.Contains(get(), "New title") {
		t.Errorf("the edit never showed")
	}
}

// A block the parser estimates as heavy is marked so on the page, so that
// a link to it or a view that needs a run waits for a click.
func TestHeavyBlockMarked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.md": "# A\n\n```twice\nrace read 20\n```\n\n```twice\nrace read --all --workers 8\nrace read --all --workers 8\n```\n",
	})
	site, err := Render(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever})
	if err != nil {
		t.Fatal(err)
	}
	for page, wants := range map[string][]string{
		"lessons/a/index.html": {`id="block-1"`, `cost="light"`, `id="block-2"`, `cost="heavy"`},
		"embed/a/2/index.html": {`cost="heavy"`},
		"embed/a/1/index.html": {`cost="light"`},
	} {
		body := string(site.Files[page].Body)
		last := -1
		for _, w := range wants {
			i := strings.Index(body[last+1:], w)
			if i < 0 {
				t.Errorf("%s: no %s after the previous attribute", page, w)
				break
			}
			last += 1 + i
		}
	}
}
