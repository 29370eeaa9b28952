package server

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fallback makes the servers of one test look on requests, as they do
// where file notifications are unavailable.
func fallback(t *testing.T) {
	noWatch = true
	t.Cleanup(func() { noWatch = false })
}

// waitRenders waits up to five seconds for srv to have done more than n
// renders, and reports whether it did.
func waitRenders(srv *Server, n int64) bool { return renderedWithin(srv, n, 5*time.Second) }

// renderedWithin reports whether srv renders again (after its nth render)
// within d. A check that no render happens waits ten times the watcher's
// settling time, not the five seconds a render may take on a busy machine.
func renderedWithin(srv *Server, n int64, d time.Duration) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if srv.renders.Load() > n {
			return true
		}
	}
	return false
}

// A watching server renders again when a lesson the manifest names
// changes, with no request to prompt it, and not when a file it does not
// read changes, even in a folder it watches.
func TestWatchRendersOnChange(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"lessons.txt":     "a.md\npart/b.md\n",
		"a.md":            "# A\n\ntext\n",
		"part/b.md":       "# B\n\ntext\n",
		"draft.md":        "# Draft\n",
		"assets/x/y.txt":  "unrelated",
		"part/notes.txt":  "unrelated",
		"part/deeper/z.m": "unrelated",
	})
	srv, err := NewServer(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if !srv.watching.Load() {
		t.Skip("no file notifications here")
	}
	n := srv.renders.Load()
	writeFiles(t, dir, map[string]string{"part/b.md": "# B, edited\n\ntext\n"})
	if !waitRenders(srv, n) {
		t.Fatal("an edit of a listed lesson in a subfolder was not rendered within 5 s")
	}
	if body := string(srv.Site().Files["lessons/b/index.html"].Body); !strings.Contains(body, "B, edited") {
		t.Error("the new render does not show the edit")
	}
	n = srv.renders.Load()
	writeFiles(t, dir, map[string]string{"draft.md": "# Draft 2\n", "part/notes.txt": "changed", "assets/x/y.txt": "changed"})
	if renderedWithin(srv, n, 10*settle) {
		t.Error("a change to files the site does not read rendered it again")
	}
	// A lesson added to the manifest is read, and so watched.
	writeFiles(t, dir, map[string]string{"new/c.md": "# C\n\ntext\n", "lessons.txt": "a.md\npart/b.md\nnew/c.md\n"})
	if !waitRenders(srv, n) {
		t.Fatal("an edit of the manifest was not rendered")
	}
	watched := func() bool {
		srv.mu.Lock()
		defer srv.mu.Unlock()
		_, ok := srv.watched[filepath.Join(srv.root(), "new")]
		return ok
	}
	for !watched() {
		if !waitRenders(srv, srv.renders.Load()) {
			t.Fatal("the new lesson's folder is not watched")
		}
	}
	n = srv.renders.Load()
	writeFiles(t, dir, map[string]string{"new/c.md": "# C, edited\n\ntext\n"})
	if !waitRenders(srv, n) {
		t.Fatal("an edit of the newly listed lesson was not rendered")
	}
}

// The fingerprint a server compares looks only at the files a render
// reads: a change anywhere else in the folder is not a change.
func TestFingerprintOnlyListedFiles(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"lessons.txt": "a.md\n", "a.md": "# A\n", "b.md": "# B\n", "sub/c.md": "# C\n"})
	fsys, _, done := lessonSource(Options{LessonsDir: dir})
	defer done()
	before := fingerprint(fsys)
	writeFiles(t, dir, map[string]string{"b.md": "# B2\n", "sub/c.md": "# C2\n", "sub/d.txt": "x"})
	if fingerprint(fsys) != before {
		t.Error("a change to files the manifest does not name changed the fingerprint")
	}
	writeFiles(t, dir, map[string]string{"a.md": "# A, longer\n"})
	if fingerprint(fsys) == before {
		t.Error("a change to a listed lesson did not change the fingerprint")
	}
	os.Remove(filepath.Join(dir, "lessons.txt"))
	if fingerprint(fsys) == before {
		t.Error("removing the manifest did not change the fingerprint")
	}
	// An index.md that lists the lessons: its lessons are looked at,
	// in subfolders too.
	writeFiles(t, dir, map[string]string{"index.md": "# T\n\n- [C](sub/c.md)\n"})
	before = fingerprint(fsys)
	writeFiles(t, dir, map[string]string{"sub/c.md": "# C3, longer\n"})
	if fingerprint(fsys) == before {
		t.Error("a change to a lesson index.md lists did not change the fingerprint")
	}
}

// A started server answers at once, before its first render is done: every
// page is the "rendering" page (503, reloading itself), the assets are
// served, and the lessons come once the render is done.
func TestStartServerServesWhileRendering(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.md": "# A\n\n```twice seed=90417\nrace read 3000 --workers 8\n```\n"})
	srv, err := StartServer(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	get := func(p string) (int, string) {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest("GET", p, nil))
		return rec.Code, rec.Body.String()
	}
	code, body := get("/lessons/a/")
	select {
	case <-srv.Ready():
		t.Log("the render finished before the first request; the rendering page is checked as served then")
	default:
		if code != 503 || !strings.Contains(body, "Rendering the lessons") || !strings.Contains(body, `<meta http-equiv="refresh" content="2">`) {
			t.Errorf("during the first render: %d\n%s", code, body)
		}
		if c, _ := get("/assets/twice.js"); c != 200 {
			t.Errorf("assets/twice.js during the first render: %d", c)
		}
	}
	<-srv.Ready()
	if code, body := get("/lessons/a/"); code != 200 || !strings.Contains(body, "claim=read") {
		t.Errorf("after the first render: %d", code)
	}
}

// A lesson folder replaced whole, as rm -rf D && cp -r D.bak D does, or
// moved away and back (mv D D2; mv D2 D, as an editor's save or a git
// checkout of a branch can), is served again within seconds, and its
// edits after that are seen: the server does not keep watching the
// folder that went away, nor serve "no lessons" from it.
func TestWatchFolderReplaced(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	dir := filepath.Join(parent, "D")
	files := map[string]string{"lessons.txt": "a.md\npart/b.md\n", "a.md": "# A\n\ntext\n", "part/b.md": "# B\n\ntext\n"}
	writeFiles(t, dir, files)
	srv, err := NewServer(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever, Live: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	get := func(p string) (int, string) {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest("GET", p, nil))
		return rec.Code, rec.Body.String()
	}
	// shows asks for the page as an open tab does (its reload.js asks
	// every 1.5 s) until it shows want, for up to 10 s.
	shows := func(page, want string) bool {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			get(VersionPath + "?page=" + page)
			if code, body := get(page); code == 200 && strings.Contains(body, want) {
				return true
			}
		}
		return false
	}
	replacements := []struct {
		name    string
		replace func()
	}{
		{"rm -rf D && cp -r D.bak D", func() {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			time.Sleep(3 * settle) // the server renders the missing folder meanwhile
			writeFiles(t, dir, files)
		}},
		{"mv D D2; mv D2 D", func() {
			if err := os.Rename(dir, dir+"2"); err != nil {
				t.Fatal(err)
			}
			time.Sleep(3 * settle)
			if err := os.Rename(dir+"2", dir); err != nil {
				t.Fatal(err)
			}
		}},
		{"mv D D.old; cp -r D.bak D", func() {
			if err := os.Rename(dir, dir+".old"+strings.Repeat("x", len(t.Name())%3)); err != nil {
				t.Fatal(err)
			}
			writeFiles(t, dir, files)
		}},
	}
	for i, r := range replacements {
		r.replace()
		if !shows("/lessons/a/", "<h1") {
			code, body := get("/lessons/a/")
			t.Fatalf("after %s, /lessons/a/ answers %d:\n%.300s", r.name, code, body)
		}
		// The folder in place now is the one watched: its edits show.
		edit := fmt.Sprintf("B, edit %d", i)
		writeFiles(t, dir, map[string]string{"part/b.md": "# " + edit + "\n\ntext\n"})
		if !shows("/lessons/b/", edit) {
			t.Fatalf("after %s, an edit of part/b.md was not served within 10 s", r.name)
		}
	}
}
