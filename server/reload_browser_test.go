package server

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserReloadOnChange opens a lesson served as twice serve serves it
// and edits the lesson's file: the open tab reloads by itself and shows the
// edit, and a tab of another lesson does not reload.
func TestBrowserReloadOnChange(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.md": "# Before the edit\n\ntext\n", "b.md": "# Other\n\ntext\n"})
	srv, err := NewServer(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever, Live: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	hs := httptest.NewServer(srv)
	defer hs.Close()

	// A tab of another lesson stays as it is when a lesson's text changes
	// (its title would change the other's pager).
	navigate(t, ctx, hs.URL+"/lessons/b/")
	js[bool](t, ctx, `window.notReloaded = true`)
	writeFiles(t, dir, map[string]string{"a.md": "# Before the edit\n\nother text\n"})
	time.Sleep(4 * time.Second) // the client asks every 1.5 s
	if !js[bool](t, ctx, `window.notReloaded === true`) {
		t.Error("the tab of the lesson that did not change reloaded")
	}

	navigate(t, ctx, hs.URL+"/lessons/a/")
	js[bool](t, ctx, `window.notReloaded = true`)
	writeFiles(t, dir, map[string]string{"a.md": "# After the edit\n\ntext\n"})
	start := time.Now()
	// The page navigates under the evaluation when it reloads: ask again
	// until it answers.
	for shown := false; !shown; time.Sleep(50 * time.Millisecond) {
		if time.Since(start) > 15*time.Second {
			t.Fatal("the tab did not reload within 15 s of the edit")
		}
		shown, _ = chromedp.Run(ctx, chromedp.Evaluate[bool](`document.readyState === "complete" && document.querySelector("h1").textContent === "After the edit" && window.notReloaded === undefined`))
	}
	t.Logf("the tab showed the edit %v after it was saved", time.Since(start).Round(10*time.Millisecond))
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// TestBrowserTeacherSite serves a teacher's folder: the index has the
// teacher's title and introduction, the lesson its time and its notes
// folded until opened.
func TestBrowserTeacherSite(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"index.md": "# Queues, Tuesday\n\nGuess first, then press Run.\n\n- [The lesson](a.md)\n",
		"a.md":     "---\ntime: 10 minutes\nnotes: The answer is zero.\n---\n# The lesson\n\ntext\n",
	})
	srv, err := NewServer(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever, Live: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	navigate(t, ctx, hs.URL+"/")
	if got := js[string](t, ctx, `document.title + " | " + document.querySelector("h1").textContent + " | " + document.querySelector("main p").textContent`); got != "Queues, Tuesday · twice | Queues, Tuesday | Guess first, then press Run." {
		t.Errorf("index: %q", got)
	}
	navigate(t, ctx, hs.URL+"/lessons/a/")
	if got := js[string](t, ctx, `document.querySelector(".lesson-kicker").textContent`); got != "Lesson 1 of 1 · about 10 minutes" {
		t.Errorf("kicker %q", got)
	}
	// Folded: the notes take no room until the teacher opens them.
	if js[bool](t, ctx, `const d = document.querySelector("details.teacher-notes"); d.open || d.querySelector("p").checkVisibility()`) {
		t.Error("the notes are not folded")
	}
	if !js[bool](t, ctx, `const e = document.querySelector("details.teacher-notes"); e.querySelector("summary").click(); e.open && e.querySelector("p").textContent === "The answer is zero."`) {
		t.Error("opening the notes does not show them")
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
