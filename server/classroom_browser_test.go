package server

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/twice-lab/twice/lessons"
	"github.com/twice-lab/twice/runtime/script"
)

// TestBrowserReset edits a block's script and seed, runs it, and presses
// Reset: the lesson's script, its seed and the server's output for them
// come back. Reset during a long run stops it.
func TestBrowserReset(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	hs := httptest.NewServer(browserSite(t))
	defer hs.Close()
	ls, err := lessons.Load(lessons.FS)
	if err != nil {
		t.Fatal(err)
	}
	l := ls[3]
	opts, _ := l.Blocks[0].Options()
	want := script.Run(l.Blocks[0].Script, script.Options{Seed: opts.Seed}).Text()
	navigate(t, ctx, hs.URL+"/lessons/"+l.Slug+"/")
	js[bool](t, ctx, stopHelpers)
	lesson := js[string](t, ctx, `tp.q(0, "textarea").value`)
	seed := js[string](t, ctx, `tp.q(0, ".seed input").value`)

	js[bool](t, ctx, `tp.set(0, "add order-5\nwork --job 1\njobs\n"); tp.q(0, ".seed input").value = "42"; true`)
	if s := js[string](t, ctx, `tp.run(0)`); s != "done" {
		t.Fatalf("the edited script: state %q", s)
	}
	check := func(when string) {
		t.Helper()
		if got := js[string](t, ctx, `tp.q(0, "textarea").value`); got != lesson {
			t.Errorf("%s: the script is %q, want the lesson's %q", when, got, lesson)
		}
		if got := js[string](t, ctx, `tp.q(0, ".seed input").value`); got != seed {
			t.Errorf("%s: the seed is %q, want the lesson's %q", when, got, seed)
		}
		if s := js[string](t, ctx, `tp.state(0)`); s != "prerendered" {
			t.Errorf("%s: state %q, want prerendered", when, s)
		}
		if got := js[string](t, ctx, `tp.transcript(0)`); got != want {
			t.Errorf("%s: the output is\n%s\nwant the server's\n%s", when, got, want)
		}
		if js[bool](t, ctx, `!tp.q(0, "button.stop").hidden`) {
			t.Errorf("%s: Stop shows", when)
		}
	}
	js[bool](t, ctx, `tp.q(0, "button.reset").click(), true`)
	check("after Reset")

	// Reset in the middle of a long run stops it.
	js[bool](t, ctx, `tp.set(0, "race read 10000 --workers 8\n"); tp.q(0, "button.run").click(); true`)
	run(t, ctx, 30*time.Second, chromedp.Poll[bool](`tp.state(0) === "running"`))
	js[bool](t, ctx, `tp.q(0, "button.reset").click(), true`)
	time.Sleep(300 * time.Millisecond)
	check("after Reset during a run")
	if s := js[string](t, ctx, `tp.run(0)`); s != "done" {
		t.Fatalf("Run after Reset: state %q", s)
	}
	if got := js[string](t, ctx, `tp.transcript(0)`); got != want {
		t.Errorf("Run after Reset:\n%s\nwant\n%s", got, want)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
