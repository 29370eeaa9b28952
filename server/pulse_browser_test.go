package server

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/twice-lab/twice/server/class"
)

// classSite serves a lesson with one predict block (races: a scale of 0
// to 20) to a class, and returns the class and n URLs of the server, each
// an origin of its own (as many browsers' storage).
func classSite(t *testing.T, n int) ([]string, *class.Service) {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"lessons.txt": "p.md\n",
		"p.md":        "# Predict, then run\n\nTwo workers race for one job, twenty times. How many races end with an effect twice?\n\n```twice predict\nrace read 20\neffects\n```\n",
	})
	var srv *Server
	cls, err := class.Open(class.Config{DB: filepath.Join(t.TempDir(), "class.db"), Blocks: func(b string) (class.Scale, bool) { return srv.BlockScale(b) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cls.Close() })
	srv, err = NewServer(Options{LessonsDir: dir, Runtime: realRuntime(t), Brotli: BrotliNever, Live: true, Class: cls}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	var urls []string
	for range n {
		hs := httptest.NewServer(srv)
		t.Cleanup(hs.Close)
		urls = append(urls, hs.URL)
	}
	// First, so that the teacher's waiting request ends before hs.Close.
	t.Cleanup(func() { cls.Close() })
	return urls, cls
}

// TestBrowserClassPulse: three students' pages and the teacher's
// presenter view. The students vote (one changes its mind); the teacher
// sees the count, shows the histogram, starts round 2, which the
// students' pages announce, shows it beside round 1, reveals the run,
// which closes the voting, and resets the block. A student's page cannot
// do what the teacher does.
func TestBrowserClassPulse(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	origins, cls := classSite(t, 4)
	page := origins[0] + "/lessons/p/"

	// The teacher's link carries the key in its fragment.
	navigate(t, ctx, page+"?present#teacher="+cls.Key())
	if h := js[string](t, ctx, `location.hash`); h != "" {
		t.Errorf("the teacher's key stays in the address: %q", h)
	}
	count := func(want string) {
		t.Helper()
		run(t, ctx, 20*time.Second, chromedp.Poll[bool](fmt.Sprintf(`((document.querySelector(".pulse-count") || {}).textContent || "") === %q`, want)))
	}
	count("0 votes in round 1")
	// The students: a browser of their own, one tab that goes from one
	// student's page to the next, each on an origin of its own (its own
	// storage, so its own voter id).
	sctx, studentErrors := browser(t, 390, 800)
	student := func(i int, path string) {
		t.Helper()
		goTo(t, sctx, origins[i+1]+path)
	}
	vote := func(i int, value string) {
		t.Helper()
		s := sctx
		student(i, "/lessons/p/")
		js[bool](t, s, fmt.Sprintf(`tp.q(0, ".predict-input").value = %q, tp.q(0, ".predict-run").click(), true`, value))
		want := fmt.Sprintf("Your vote, %s, is counted", value)
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			got := js[string](t, s, `(tp.q(0, ".pulse-status") || {}).textContent || ""`)
			if strings.HasPrefix(got, want) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("student %d voted %s: the block says %q", i, value, got)
			}
		}
	}
	for i, v := range []string{"3", "5", "5"} {
		vote(i, v)
	}
	studentShots(t, sctx)
	// The vote holds the run back: the output stays hidden.
	student(0, "/lessons/p/")
	if js[bool](t, sctx, `tp.state(0) === "done" || !tp.q(0, ".box").classList.contains("predicting")`) {
		t.Errorf("a student's vote ran the block and showed the output")
	}
	count("3 votes in round 1")
	if !js[bool](t, ctx, `!!document.querySelector(".pulse-hidden") && !document.querySelector(".pulse-chart")`) {
		t.Errorf("the histogram shows before the teacher shows it")
	}
	vote(0, "7") // changes its mind: still three votes
	chart := func(n int, want string) {
		t.Helper()
		run(t, ctx, 20*time.Second, chromedp.Poll[bool](fmt.Sprintf(`(() => { const c = document.querySelectorAll(".pulse-chart")[%d]; return !!c && c.getAttribute("aria-label").includes(%q); })()`, n, want)))
	}
	js[bool](t, ctx, `document.querySelector(".pulse-show").click(), true`)
	chart(0, "5: 2, 6: 0, 7: 1")
	count("3 votes in round 1")

	// A student's page cannot reveal, reset or read the tallies.
	for _, path := range []string{"/class/reveal", "/class/reset", "/class/round", "/class/run"} {
		got := js[float64](t, sctx, fmt.Sprintf(`fetch(%q, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({block: "/lessons/p/#block-1"})}).then((r) => r.status)`, path))
		if got != 401 {
			t.Errorf("a student's POST %s: %v, want 401", path, got)
		}
	}
	student(1, "/lessons/p/?present")
	if js[bool](t, sctx, `!!document.querySelector(".pulse-panel")`) {
		t.Errorf("a student's presenter view shows the class's panel")
	}

	// Round 2: the students' pages say so, and they vote again.
	js[bool](t, ctx, `document.querySelector(".pulse-again").click(), true`)
	count("0 votes in round 2")
	student(2, "/lessons/p/")
	run(t, sctx, 30*time.Second, chromedp.Poll[bool](`((tp.q(0, ".pulse-status") || {}).textContent || "").startsWith("Round 2")`))
	for i, v := range []string{"5", "5", "4"} {
		vote(i, v)
	}
	count("3 votes in round 2")
	js[bool](t, ctx, `document.querySelector(".pulse-show").click(), true`)
	chart(1, "4: 1, 5: 2")
	chart(0, "5: 2, 6: 0, 7: 1")
	teacherShots(t, ctx)

	// The run decides: the teacher's block runs, and the voting is over.
	js[bool](t, ctx, `document.querySelector(".pulse-run").click(), true`)
	run(t, ctx, 120*time.Second, chromedp.Poll[bool](`tp.state(0) === "done"`))
	run(t, ctx, 20*time.Second, chromedp.Poll[bool](`document.querySelector(".pulse-head").textContent.includes("the run is revealed")`))
	student(0, "/lessons/p/")
	js[bool](t, sctx, `tp.q(0, ".predict-input").value = "9", tp.q(0, ".predict-run").click(), true`)
	run(t, sctx, 20*time.Second, chromedp.Poll[bool](`((tp.q(0, ".pulse-status") || {}).textContent || "").includes("voting on this block is over")`))

	// Reset asks twice, then clears the block.
	js[bool](t, ctx, `document.querySelector(".pulse-reset").click(), document.querySelector(".pulse-reset").click(), true`)
	count("0 votes in round 1")
	if n := js[float64](t, ctx, `document.querySelectorAll(".pulse-round").length`); n != 1 {
		t.Errorf("after reset: %v rounds shown", n)
	}

	// A new class: each student's page forgets its predictions on its
	// next load, and keeps its voter id.
	student(0, "/lessons/p/")
	voter := js[string](t, sctx, `localStorage.getItem("twice:voter")`)
	if !js[bool](t, sctx, `Object.keys(localStorage).some((k) => k.startsWith("twice:prediction:"))`) {
		t.Fatalf("the student's page kept no prediction: %s", js[string](t, sctx, `JSON.stringify(Object.keys(localStorage))`))
	}
	js[bool](t, ctx, `document.querySelector(".pulse-new").click(), document.querySelector(".pulse-new").click(), true`)
	run(t, ctx, 20*time.Second, chromedp.Poll[bool](`document.querySelector(".pulse-new").textContent === "New class started"`))
	student(0, "/lessons/p/")
	run(t, sctx, 20*time.Second, chromedp.Poll[bool](`!Object.keys(localStorage).some((k) => k.startsWith("twice:prediction:") || k.startsWith("twice:votes:"))`))
	if got := js[string](t, sctx, `localStorage.getItem("twice:voter")`); got != voter {
		t.Errorf("the new class changed the voter id: %q, was %q", got, voter)
	}

	var errs []string
	for _, e := range consoleErrors() {
		if !strings.Contains(e, "Applying inline style") { // axe's own styles, which the CSP refuses
			errs = append(errs, e)
		}
	}
	for _, e := range studentErrors() {
		if !strings.Contains(e, "401 (Unauthorized)") { // the student's tries at the teacher's requests
			errs = append(errs, e)
		}
	}
	if len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// studentShots takes a student's block that says the vote was counted,
// at 390 and 1280 px, light and dark.
func studentShots(t *testing.T, ctx context.Context) {
	t.Helper()
	out := artifactDir(t)
	for _, scheme := range []string{"light", "dark"} {
		for _, w := range []int64{390, 1280} {
			setView(t, ctx, w, scheme)
			js[bool](t, ctx, `tp.q(0, ".pulse-status").scrollIntoView({block: "center"}), true`)
			shot := run(t, ctx, 30*time.Second, chromedp.CaptureScreenshot())
			file := filepath.Join(out, fmt.Sprintf("class-student-voted-%d-%s.png", w, scheme))
			if err := os.WriteFile(file, shot, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("screenshot: %s", file)
		}
	}
	setView(t, ctx, 390, "light")
}

// teacherShots takes the teacher's presenter view with the two rounds'
// histograms at 1280 and 390 px, light and dark, and runs axe on each.
func teacherShots(t *testing.T, ctx context.Context) {
	t.Helper()
	out := artifactDir(t)
	js[bool](t, ctx, axeSource(t)+"\n;true")
	for _, scheme := range []string{"light", "dark"} {
		run(t, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
			})
			return err
		}))
		for _, w := range []int64{1280, 390} {
			run(t, ctx, 10*time.Second, chromedp.EmulateViewport(w, 900))
			time.Sleep(300 * time.Millisecond) // the layout settles
			js[bool](t, ctx, `document.querySelector(".pulse-panel").scrollIntoView({block: "end"}), scrollBy(0, document.querySelector(".present-bar").offsetHeight + 12), true`)
			if over := js[float64](t, ctx, `document.documentElement.scrollWidth - innerWidth`); over > 0 {
				t.Errorf("the presenter view at %d px scrolls sideways by %.0f px", w, over)
			}
			for _, v := range runAxe(t, ctx) {
				t.Errorf("the presenter view with the class's panel at %d px, %s: axe: %s (%s) on %s", w, scheme, v.Rule, v.Help, v.Target)
			}
			shot := run(t, ctx, 30*time.Second, chromedp.CaptureScreenshot())
			file := filepath.Join(out, fmt.Sprintf("class-pulse-%d-%s.png", w, scheme))
			if err := os.WriteFile(file, shot, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("screenshot: %s", file)
		}
	}
	run(t, ctx, 10*time.Second, chromedp.EmulateViewport(1280, 900))
}

// TestBrowserPrintHandout prints a lesson as a handout: the prose, each
// script and its output, without Run, the tabs, the share links and the
// embed snippets.
func TestBrowserPrintHandout(t *testing.T) {
	ctx, _ := browser(t, 1280, 900)
	origins, _ := classSite(t, 1)
	navigate(t, ctx, origins[0]+"/lessons/p/?present")
	run(t, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"})
		return err
	}))
	shown := func(expr string) bool {
		return js[bool](t, ctx, `(() => { const el = `+expr+`; return !!el && getComputedStyle(el).display !== "none" && el.getBoundingClientRect().height > 0; })()`)
	}
	for _, hidden := range []string{`tp.q(0, "button.run")`, `tp.q(0, ".tabs")`, `tp.q(0, ".share")`, `tp.q(0, ".embed")`, `tp.q(0, ".predict")`, `document.querySelector(".present-bar")`, `document.querySelector(".teacher")`} {
		if shown(hidden) {
			t.Errorf("printed, %s shows", hidden)
		}
	}
	for _, kept := range []string{`tp.q(0, ".transcript")`, `tp.q(0, "textarea")`, `document.querySelector("main p")`} {
		if !shown(kept) {
			t.Errorf("printed, %s is left out", kept)
		}
	}
	shot := run(t, ctx, 30*time.Second, chromedp.CaptureScreenshot())
	file := filepath.Join(artifactDir(t), "handout-print-1280.png")
	if err := os.WriteFile(file, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", file)
}
