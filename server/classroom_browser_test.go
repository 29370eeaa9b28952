package server

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/twice-lab/twice/lessons"
	"github.com/twice-lab/twice/runtime/script/interp"
	"github.com/twice-lab/twice/runtime/script/result"
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
	want := shownText(interp.Run(l.Blocks[0].Script, interp.Options{Seed: opts.Seed}))
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

	// Reset in the middle of a long run stops it. (The block asks for a
	// guess before its first run after a Reset: this one goes without.)
	js[bool](t, ctx, `tp.set(0, "race read 10000 --workers 8\n"); tp.el(0).predicted = ""; tp.q(0, "button.run").click(); true`)
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

// TestBrowserPredict drives predict-then-run with the keyboard alone: a
// block marked predict hides its output and asks; a number typed and Enter
// run it and show the prediction beside the result; the prediction is kept
// across a reload, which hides the output again. A first Run without a
// prediction asks for one instead of running, on the slider. The page-wide
// switch, checked on a page whose blocks ask, turns asking off for every
// block, and on for every block, a block not marked too, and is kept.
func TestBrowserPredict(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"lessons.txt": "p.md\n",
		"p.md":        "# Predict\n\nHow many?\n\n```twice predict\nrace read 20\n```\n\nAnd this one.\n\n```twice\nadd order-1\nwork --job 1\n```\n",
	})
	srv, err := NewServer(Options{LessonsDir: dir, Runtime: realRuntime(t), Brotli: BrotliNever}, nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	page := hs.URL + "/lessons/p/"
	navigate(t, ctx, page)
	js[bool](t, ctx, stopHelpers)
	hidden := func(n int) bool {
		return js[bool](t, ctx, fmt.Sprintf(`tp.q(%d, ".out").getClientRects().length === 0 && tp.q(%d, ".tabs").getClientRects().length === 0`, n, n))
	}
	if !hidden(0) {
		t.Fatalf("the predict block shows its output before Run")
	}
	if hidden(1) {
		t.Fatalf("a block not marked predict hides its output")
	}
	if q := js[string](t, ctx, `tp.q(0, ".predict-q").textContent`); !strings.Contains(q, "of the 20 races") {
		t.Errorf("the question: %q", q)
	}
	// Run without a prediction asks for one, and runs nothing.
	js[bool](t, ctx, `tp.q(0, "button.run").focus(), true`)
	run(t, ctx, 5*time.Second, chromedp.KeyEvent(kb.Enter))
	time.Sleep(300 * time.Millisecond)
	if n := js[float64](t, ctx, `tpRuns`); n != 0 {
		t.Errorf("Run without a prediction sent %v run(s)", n)
	}
	if f := js[string](t, ctx, `tp.el(0).shadowRoot.activeElement ? tp.el(0).shadowRoot.activeElement.className : ""`); f != "predict-range" {
		t.Errorf("Run without a prediction leaves the focus on %q, want the prediction's slider", f)
	}
	// Tab to the number beside the slider, type 7 and press Enter: it
	// runs, and the prediction shows beside the result.
	run(t, ctx, 5*time.Second, chromedp.KeyEvent(kb.Tab))
	js[bool](t, ctx, `tp.q(0, ".predict-input").select(), true`)
	run(t, ctx, 5*time.Second, chromedp.KeyEvent("7"))
	run(t, ctx, 5*time.Second, chromedp.KeyEvent(kb.Enter))
	run(t, ctx, 120*time.Second, chromedp.Poll[bool](`tp.state(0) === "done"`))
	if hidden(0) {
		t.Errorf("after the run the output is still hidden")
	}
	dups := js[float64](t, ctx, `JSON.parse(tp.q(0, ".tally").dataset.duplicates)`)
	if got, want := js[string](t, ctx, `tp.q(0, ".prediction").textContent`), fmt.Sprintf("You predicted 7; the run gave %v of 20", dups); !strings.HasPrefix(got, want) {
		t.Errorf("beside the result: %q, want %q...", got, want)
	}
	// Kept across a reload, which asks again with the output hidden.
	navigate(t, ctx, page)
	js[bool](t, ctx, stopHelpers)
	if !hidden(0) {
		t.Errorf("after a reload the predict block shows its output")
	}
	if v := js[string](t, ctx, `tp.q(0, ".predict-input").value`); v != "7" {
		t.Errorf("after a reload the prediction field holds %q, want the kept 7", v)
	}

	// The switch: checked, as block 1 asks; off, no block asks; on, every
	// block asks first, kept across a reload.
	if !js[bool](t, ctx, `document.querySelector("#twice-predict-all").checked`) {
		t.Errorf("the switch is unchecked on a page with a block that asks")
	}
	js[bool](t, ctx, `document.querySelector("details.teacher-menu").open = true, document.querySelector("#twice-predict-all").focus(), true`)
	run(t, ctx, 5*time.Second, chromedp.KeyEvent(" "))
	if hidden(0) || hidden(1) {
		t.Errorf("with the switch off, a block hides its output")
	}
	run(t, ctx, 5*time.Second, chromedp.KeyEvent(" "))
	if !hidden(1) {
		t.Errorf("with the page-wide switch on, block 2 shows its output")
	}
	if q := js[string](t, ctx, `tp.q(1, ".predict-q").textContent`); !strings.Contains(q, "effects") {
		t.Errorf("block 2's question: %q", q)
	}
	navigate(t, ctx, page)
	if !js[bool](t, ctx, `document.querySelector("#twice-predict-all").checked`) || !hidden(1) {
		t.Errorf("the page-wide switch was not kept across a reload")
	}
	js[bool](t, ctx, `document.querySelector("#twice-predict-all").click(), true`)
	if hidden(1) {
		t.Errorf("with the switch off again, block 2 still hides its output")
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// smallText lists the visible text of the page, in the shadow roots too,
// set smaller than min px: each as "size px: text".
const smallText = `((min) => {
  const out = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) walk(el.shadowRoot);
      if (el.getClientRects().length === 0) continue;
      const own = Array.from(el.childNodes).some((n) => n.nodeType === 3 && n.textContent.trim() !== "");
      // Fields show text, but a checkbox or radio button shows none.
      const field = /^(INPUT|TEXTAREA|SELECT|BUTTON)$/.test(el.tagName) && !/^(checkbox|radio)$/.test(el.type);
      if (!own && !field) continue;
      const cs = getComputedStyle(el);
      if (cs.visibility === "hidden" || cs.opacity === "0") continue;
      const r = el.getBoundingClientRect();
      if (r.width <= 1 || r.height <= 1) continue; // screen-reader-only text
      const px = parseFloat(cs.fontSize);
      if (px < min) out.push(px + " px: " + (el.textContent || el.value || el.tagName).trim().slice(0, 60));
    }
  };
  walk(document);
  return out;
})(16)`

// TestBrowserPresenter opens a lesson with ?present at 1280x900: every
// text on the screen is at least 16 px, the timeline's included (drawn at
// the scale that makes its smallest text 16 px); one block shows at a
// time, on screen above the bar, and Page Down / Page Up move between
// them, the bar naming the block on screen; the step-through skips only
// the steps that read and write nothing shared (never the two SELECTs
// that both find the job queued), unless Every step is checked: on
// lesson 4's race and on lesson 7's.
func TestBrowserPresenter(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	hs := httptest.NewServer(browserSite(t))
	defer hs.Close()
	ls, err := lessons.Load(lessons.FS)
	if err != nil {
		t.Fatal(err)
	}
	l := ls[3] // the claim race: prose, then blocks
	run(t, ctx, 10*time.Second, chromedp.EmulateViewport(1280, 900))
	navigate(t, ctx, hs.URL+"/lessons/"+l.Slug+"/?present")
	js[bool](t, ctx, stopHelpers)
	if !js[bool](t, ctx, `document.documentElement.classList.contains("present") && tp.el(0).hasAttribute("present")`) {
		t.Fatal("?present did not turn the presenter view on")
	}
	shown := func() []bool {
		return js[[]bool](t, ctx, `Array.from(document.querySelectorAll("twice-playground"), (el) => el.getClientRects().length > 0)`)
	}
	if s := shown(); len(s) < 2 || !s[0] || s[1] {
		t.Fatalf("presenter view shows blocks %v, want only the first", s)
	}
	onScreen(t, ctx, 0, len(l.Blocks))
	shoot(t, ctx, "presenter-block-1-1280x900")
	if small := js[[]string](t, ctx, smallText); len(small) > 0 {
		t.Errorf("text under 16 px in the presenter view:\n%s", strings.Join(small, "\n"))
	}
	// Page Down and Page Up move between blocks, each on screen.
	js[bool](t, ctx, `document.activeElement && document.activeElement.blur(), true`)
	run(t, ctx, 5*time.Second, chromedp.KeyEvent(kb.PageDown))
	if s := shown(); s[0] || !s[1] {
		t.Errorf("after Page Down the blocks shown are %v, want the second only", s)
	}
	onScreen(t, ctx, 1, len(l.Blocks))
	shoot(t, ctx, "presenter-block-2-1280x900")
	run(t, ctx, 5*time.Second, chromedp.KeyEvent(kb.PageUp))
	if s := shown(); !s[0] || s[1] {
		t.Errorf("after Page Up the blocks shown are %v, want the first only", s)
	}
	onScreen(t, ctx, 0, len(l.Blocks))

	// The timeline of a run, and the step-through.
	js[bool](t, ctx, `tp.q(0, "#tab-timeline").click(), true`)
	run(t, ctx, 120*time.Second, chromedp.Poll[bool](`tp.state(0) === "done" && tp.q(0, ".tl-img").complete && tp.q(0, ".tl-img").naturalWidth > 0`))
	// A race opens on its step axis; its text is checked below, the time
	// picture's on the time scale.
	js[bool](t, ctx, timeScale(0))
	scale := js[float64](t, ctx, `(() => { const img = tp.q(0, ".tl-img"); const res = tp.el(0).result; return TwicePlayground.minFontSize(res.timeline.svg) * img.getBoundingClientRect().width / res.timeline.width; })()`)
	if scale < 16 {
		t.Errorf("the timeline's smallest text is drawn at %.1f px, want at least 16", scale)
	}
	if small := js[[]string](t, ctx, smallText); len(small) > 0 {
		t.Errorf("text under 16 px on the timeline view:\n%s", strings.Join(small, "\n"))
	}
	js[bool](t, ctx, `Array.from(tp.el(0).shadowRoot.querySelectorAll(".sx-scale")).find((b) => b.textContent === "Steps").click(), true`)
	if small := js[[]string](t, ctx, smallText); len(small) > 0 {
		t.Errorf("text under 16 px on the timeline's step axis:\n%s", strings.Join(small, "\n"))
	}
	presenterSteps(t, ctx, 0, "lesson 4")
	js[bool](t, ctx, `tp.q(0, ".every-step input").click(); tp.el(0).timeline.goStep(0); tp.q(0, ".step-btn.next").click(), true`)
	if s := js[float64](t, ctx, `tp.el(0).timeline.step`); s != 1 {
		t.Errorf("with Every step, Next went from step 1 to step %v", s+1)
	}

	// Lesson 7's race, stepped through in the presenter view.
	navigate(t, ctx, hs.URL+"/lessons/"+ls[6].Slug+"/?present")
	n := js[int](t, ctx, `[...document.querySelectorAll("twice-playground")].findIndex((el) => el.shadowRoot.querySelector("textarea.script").value.startsWith("race read 1\n"))`)
	if n < 0 {
		t.Fatal("lesson 7 has no block that runs one read race")
	}
	js[bool](t, ctx, `(window.tpShow = () => document.querySelector(".present-next").click()), true`)
	for i := 0; i < n; i++ {
		js[bool](t, ctx, `tpShow(), true`)
	}
	onScreen(t, ctx, n, len(ls[6].Blocks))
	js[bool](t, ctx, fmt.Sprintf(`tp.q(%d, "#tab-timeline").click(), true`, n))
	run(t, ctx, 120*time.Second, chromedp.Poll[bool](fmt.Sprintf(`tp.state(%d) === "done" && (tp.el(%d).result.trace || []).length > 0`, n, n)))
	presenterSteps(t, ctx, n, "lesson 7")
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// onScreen checks that block n of a presenter view is on screen above its
// bar, once the page has settled: its top below the top of the screen and
// its Run button above the bar, the whole block above the bar when it
// fits there; and that the bar names block n of of.
func onScreen(t *testing.T, ctx context.Context, n, of int) {
	t.Helper()
	time.Sleep(300 * time.Millisecond) // the block's styles and views settle
	g := js[[]float64](t, ctx, fmt.Sprintf(`(() => {
  const b = tp.el(%d).getBoundingClientRect(), run = tp.q(%d, "button.run").getBoundingClientRect();
  return [b.top, b.bottom, run.bottom, document.querySelector(".present-bar").getBoundingClientRect().top];
})()`, n, n))
	top, bottom, runBottom, bar := g[0], g[1], g[2], g[3]
	if top < 0 || runBottom > bar {
		t.Errorf("block %d is off screen: its top at %.0f px, its Run button's bottom at %.0f px, the bar's top at %.0f px", n+1, top, runBottom, bar)
	}
	if bottom-top <= bar && bottom > bar {
		t.Errorf("block %d (%.0f px high) fits above the bar (at %.0f px) but ends under it, at %.0f px", n+1, bottom-top, bar, bottom)
	}
	if c, want := js[string](t, ctx, `document.querySelector(".present-count").textContent`), fmt.Sprintf("Block %d of %d", n+1, of); c != want {
		t.Errorf("the presenter bar says %q with block %d on screen", c, n+1)
	}
}

// presenterSteps presses Next through block n's step-through from its
// first step and checks what it stopped at: every step but those whose
// kind the runtime calls quiet (reads and writes nothing shared), the
// SELECTs that find the job queued among them, and fewer steps than all.
func presenterSteps(t *testing.T, ctx context.Context, n int, what string) {
	t.Helper()
	quiet := map[string]bool{}
	for _, k := range result.Choices().Quiet {
		quiet[k] = true
	}
	js[bool](t, ctx, fmt.Sprintf(`tp.el(%d).timeline.goStep(0), true`, n))
	type step struct{ Kind, Proc, Step string }
	trace := js[[]step](t, ctx, fmt.Sprintf(`tp.el(%d).result.trace.map((e) => ({Kind: e.kind, Proc: e.proc, Step: e.step}))`, n))
	visited := map[int]bool{0: true}
	for presses := 0; presses < 400 && js[bool](t, ctx, fmt.Sprintf(`tp.q(%d, ".step-btn.next").getAttribute("aria-disabled") !== "true"`, n)); presses++ {
		js[bool](t, ctx, fmt.Sprintf(`tp.q(%d, ".step-btn.next").click(), true`, n))
		visited[js[int](t, ctx, fmt.Sprintf(`tp.el(%d).timeline.step`, n))] = true
	}
	queued, skipped := 0, 0
	for i, e := range trace {
		switch {
		case !quiet[e.Kind] && !visited[i]:
			t.Errorf("%s: the presenter's Next skipped step %d, %s %s: %s, which reads or writes shared state", what, i+1, e.Proc, e.Kind, e.Step)
		case quiet[e.Kind] && visited[i] && i != len(trace)-1:
			t.Errorf("%s: the presenter's Next stopped at step %d, %s %s, which reads and writes nothing shared", what, i+1, e.Proc, e.Kind)
		case !visited[i]:
			skipped++
		}
		if visited[i] && e.Kind == "select" && strings.Contains(e.Step, "status=queued") {
			queued++
		}
	}
	if queued < 2 {
		t.Errorf("%s: the presenter's Next showed %d SELECTs that find the job queued, want both workers'", what, queued)
	}
	if skipped == 0 {
		t.Errorf("%s: the presenter's Next skipped no step of %d", what, len(trace))
	}
	t.Logf("%s: the presenter's step-through stops at %d of %d steps", what, len(visited), len(trace))
}

// TestBrowserClassroomScreenshots takes the screenshots of predict-then-run
// (asking, then answered) and of the presenter view, at 390 and 1280 px,
// light and dark, into the artifacts folder, and fails on a page that
// scrolls sideways.
func TestBrowserClassroomScreenshots(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	dir := t.TempDir()
	src, err := lessons.FS.Open("04-claim-race.md")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(src)
	src.Close()
	writeFiles(t, dir, map[string]string{
		"lessons.txt":      "p.md\n04-claim-race.md\n",
		"p.md":             "# Predict, then run\n\nTwo workers race for one job, twenty times.\n\n```twice predict\nrace read 20\neffects\n```\n",
		"04-claim-race.md": string(b),
	})
	srv, err := NewServer(Options{LessonsDir: dir, Runtime: realRuntime(t), Brotli: BrotliNever}, nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	out := artifactDir(t)
	shoot := func(name string) {
		t.Helper()
		if over := js[float64](t, ctx, `document.documentElement.scrollWidth - innerWidth`); over > 0 {
			t.Errorf("%s scrolls sideways by %.0f px", name, over)
		}
		shot := run(t, ctx, 30*time.Second, chromedp.CaptureScreenshot())
		file := filepath.Join(out, name+".png")
		if err := os.WriteFile(file, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", file)
	}
	for _, scheme := range []string{"light", "dark"} {
		run(t, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
			})
			return err
		}))
		for _, w := range []int64{390, 1280} {
			run(t, ctx, 10*time.Second, chromedp.EmulateViewport(w, 900))
			navigate(t, ctx, hs.URL+"/lessons/p/")
			js[bool](t, ctx, `localStorage.clear(), tp.el(0).scrollIntoView(), true`)
			navigate(t, ctx, hs.URL+"/lessons/p/")
			js[bool](t, ctx, `tp.el(0).scrollIntoView(), true`)
			shoot(fmt.Sprintf("predict-ask-%d-%s", w, scheme))
			js[bool](t, ctx, `tp.q(0, ".predict-input").value = "5", tp.q(0, ".predict-run").click(), true`)
			run(t, ctx, 120*time.Second, chromedp.Poll[bool](`tp.state(0) === "done"`))
			js[bool](t, ctx, `tp.el(0).scrollIntoView(), true`)
			shoot(fmt.Sprintf("predict-answered-%d-%s", w, scheme))

			navigate(t, ctx, hs.URL+"/lessons/claim-race/?present")
			shoot(fmt.Sprintf("present-%d-%s", w, scheme))
			js[bool](t, ctx, `tp.q(0, "#tab-timeline").click(), true`)
			run(t, ctx, 120*time.Second, chromedp.Poll[bool](`tp.state(0) === "done" && tp.q(0, ".tl-img").complete && tp.q(0, ".tl-img").naturalWidth > 0`))
			js[bool](t, ctx, `tp.q(0, ".step-btn.next").click(), tp.q(0, ".tabs").scrollIntoView(), true`)
			shoot(fmt.Sprintf("present-timeline-%d-%s", w, scheme))
		}
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
