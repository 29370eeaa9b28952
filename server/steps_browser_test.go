package server

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The race drawn on its step axis: the Timeline's picture of a race, its
// player, the race every view names, Compare's two pictures, and the
// picture on a phone.

// stepsHelpers are page-side helpers for the step axis, on top of tp and
// exploreHelpers.
const stepsHelpers = `
Object.assign(window.tp, {
  // cols lists the steps the axis draws, as lane, label and mark.
  cols: (n, root) => Array.from((root || tp.q(n, ".sx-fig")).querySelectorAll(".sx-step")).map((g) => {
    const st = tp.el(n).result.timeline.steps.steps[Number(g.dataset.step)];
    return st.lane + " " + g.querySelector(".sx-label").textContent + " " + g.getAttribute("aria-label");
  }),
  // runtimeCols are the same, from the runtime's steps.
  runtimeCols: (n) => tp.el(n).result.timeline.steps.steps.filter((s) => !s.fold).map((s) => s.lane + " " + s.label),
  current: (n) => { const g = tp.q(n, ".sx-fig .sx-current"); return g ? Number(g.dataset.step) : -1; },
  // box is an element's box on the page, as [left, right, top, bottom].
  box: (el) => { const r = el.getBoundingClientRect(); return [r.left, r.right, r.top, r.bottom]; },
});
true`

// timeScale is JavaScript that shows block n's timeline on its time scale
// (the runtime's SVG on wall-clock time) rather than its step axis.
func timeScale(n int) string {
	return fmt.Sprintf(`tp.el(%d).timeline.pickScale("time"), true`, n)
}

// emulate sets the page's emulated media features.
func emulate(t *testing.T, ctx context.Context, features ...*emulation.MediaFeature) {
	t.Helper()
	run(t, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: features})
		return err
	}))
}

// shootPart saves a screenshot of the element sel of block n (in its
// shadow root), scrolled to the top of the viewport, as name.png under
// artifactDir, and names it in the log.
func shootPart(t *testing.T, ctx context.Context, name string, n int, sel string) {
	t.Helper()
	js[bool](t, ctx, fmt.Sprintf(`tp.q(%d, %q).scrollIntoView({block: "start"}), true`, n, sel))
	run(t, ctx, 10*time.Second, chromedp.Poll[bool](`new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`))
	png := run(t, ctx, 30*time.Second, chromedp.CaptureScreenshot())
	path := filepath.Join(artifactDir(t), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// openRace runs block 0 of the race lesson (race read 20) and opens its
// Timeline.
func openRace(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	navigate(t, ctx, url+"/lessons/claim-race/")
	js[bool](t, ctx, exploreHelpers)
	js[bool](t, ctx, stepsHelpers)
	if s := js[string](t, ctx, `tp.run(0)`); s != "done" {
		t.Fatalf("block 1's run ended in %q", s)
	}
	js[bool](t, ctx, `tp.tab(0, "timeline")`)
	run(t, ctx, 30*time.Second, chromedp.Poll[bool](`!!tp.q(0, ".sx-step")`))
}

// TestBrowserTimelineDrawsTheInterleaving: a race's timeline opens on its
// step axis, an inline SVG with one column per step that reads or writes
// shared state, labelled as the runtime labels them (SELECT, UPDATE,
// POST, ack); each worker's span inside the side effect overlaps the
// other's, the moment both have read queued is marked, the folded steps
// show on asking, and every step is a focusable mark with a name that the
// arrow keys move between; the time scale is one click away.
func TestBrowserTimelineDrawsTheInterleaving(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	hs := httptest.NewServer(browserSite(t))
	defer hs.Close()
	openRace(t, ctx, hs.URL)

	if js[bool](t, ctx, `tp.q(0, ".sx-fig").hidden`) {
		t.Fatal("the race's timeline does not open on its step axis")
	}
	if !js[bool](t, ctx, `tp.q(0, ".timeline").hidden`) {
		t.Error("the time picture shows beside the step axis; it should wait for the Time scale")
	}
	cols := js[[]string](t, ctx, `tp.cols(0)`)
	want := js[[]string](t, ctx, `tp.runtimeCols(0)`)
	if len(cols) != len(want) {
		t.Fatalf("the axis draws %d steps, the runtime lays out %d unfolded: %q", len(cols), len(want), cols)
	}
	for i := range cols {
		if !strings.HasPrefix(cols[i], want[i]) {
			t.Errorf("column %d is %q, the runtime's step %q", i+1, cols[i], want[i])
		}
	}
	labels := strings.Join(cols, "|")
	for _, w := range []string{"SELECT", "UPDATE", "POST", "ack", "a duplicate"} {
		if !strings.Contains(labels, w) {
			t.Errorf("no column says %s: %q", w, cols)
		}
	}
	if got := js[string](t, ctx, `tp.q(0, ".sx-note").textContent`); got != "both read queued" {
		t.Errorf("the note above the lanes says %q, want both read queued", got)
	}
	// The two spans overlap, and the band says so.
	overlap := js[float64](t, ctx, `(() => {
  const [a, b] = Array.from(tp.q(0, ".sx-fig").querySelectorAll(".sx-span")).map(tp.box);
  return Math.min(a[1], b[1]) - Math.max(a[0], b[0]);
})()`)
	if overlap < 100 {
		t.Errorf("the two workers' spans inside the side effect overlap by %.0f px, want the overlap plain to see", overlap)
	}
	if got := js[string](t, ctx, `tp.q(0, ".sx-both-text").textContent`); got != "both inside the side effect" {
		t.Errorf("the overlap's band says %q", got)
	}
	// No two labels overlap.
	if clash := js[string](t, ctx, `(() => {
  const ts = Array.from(tp.q(0, ".sx-fig").querySelectorAll("text")).map((e) => [e.textContent, tp.box(e)]);
  for (let i = 0; i < ts.length; i++) for (let j = i + 1; j < ts.length; j++) {
    const [a, b] = [ts[i][1], ts[j][1]];
    if (a[0] < b[1] - 1 && b[0] < a[1] - 1 && a[2] < b[3] - 1 && b[2] < a[3] - 1) return ts[i][0] + " / " + ts[j][0];
  }
  return "";
})()`); clash != "" {
		t.Errorf("two labels overlap: %s", clash)
	}

	// Every mark has a name; one is in the tab order; the arrows move.
	if n := js[int](t, ctx, `Array.from(tp.q(0, ".sx-fig").querySelectorAll(".sx-step")).filter((g) => !/^[^:]+: step \d+ of \d+, W\d /.test(g.getAttribute("aria-label"))).length`); n != 0 {
		t.Errorf("%d marks have no name saying their step", n)
	}
	if n := js[int](t, ctx, `tp.q(0, ".sx-fig").querySelectorAll(".sx-step[tabindex='0']").length`); n != 1 {
		t.Errorf("%d marks are in the tab order, want 1", n)
	}
	js[bool](t, ctx, `tp.q(0, ".sx-step").focus(), true`)
	run(t, ctx, 5*time.Second, chromedp.KeyEvent(kb.ArrowRight))
	run(t, ctx, 5*time.Second, chromedp.KeyEvent(kb.ArrowRight))
	if got := js[string](t, ctx, `tp.el(0).shadowRoot.activeElement.getAttribute("aria-label")`); !strings.Contains(got, ": step 3 of") {
		t.Errorf("after two Right arrows the focus is on %q, want step 3", got)
	}
	if got := js[string](t, ctx, `tp.q(0, ".step-what .step-words").textContent`); !strings.Contains(js[string](t, ctx, `tp.el(0).shadowRoot.activeElement.getAttribute("aria-label")`), ": step 3 of") || got == "" {
		t.Errorf("the step-through says %q", got)
	}
	if got, want := js[int](t, ctx, `tp.el(0).timeline.step`), js[int](t, ctx, `tp.el(0).result.timeline.steps.steps[tp.current(0)].event`); got != want {
		t.Errorf("the step-through shows trace step %d, the axis's current step is trace step %d", got, want)
	}

	// The folded steps show on asking.
	js[bool](t, ctx, `tp.q(0, ".sx-every input").click(), true`)
	if all, n := js[int](t, ctx, `tp.q(0, ".sx-fig").querySelectorAll(".sx-step").length`), js[int](t, ctx, `tp.el(0).result.timeline.steps.steps.length`); all != n {
		t.Errorf("with every step shown the axis draws %d steps, want %d", all, n)
	}
	js[bool](t, ctx, `tp.q(0, ".sx-every input").click(), true`)

	// The time scale is one click away.
	js[bool](t, ctx, `Array.from(tp.el(0).shadowRoot.querySelectorAll(".sx-scale")).find((b) => b.textContent === "Time").click(), true`)
	if js[bool](t, ctx, `tp.q(0, ".timeline").hidden || !tp.q(0, ".sx-fig").hidden`) {
		t.Error("the Time scale does not show the time picture in place of the steps")
	}
	js[bool](t, ctx, `Array.from(tp.el(0).shadowRoot.querySelectorAll(".sx-scale")).find((b) => b.textContent === "Steps").click(), true`)

	for _, scheme := range []string{"light", "dark"} {
		emulate(t, ctx, &emulation.MediaFeature{Name: "prefers-color-scheme", Value: scheme})
		for _, w := range []struct {
			name  string
			width int64
		}{{"desktop", 1280}, {"phone", 390}} {
			run(t, ctx, 10*time.Second, chromedp.EmulateViewport(w.width, 900))
			shootPart(t, ctx, fmt.Sprintf("timeline-steps-%s-%s", w.name, scheme), 0, ".tl-panel")
		}
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestBrowserTimelinePlays: the race's timeline has Play / Pause, a speed
// and a slider over the steps of its axis; the slider moves the picture
// and the step-through together, Play walks to the last step, and with
// reduced motion the cursor jumps rather than slides.
func TestBrowserTimelinePlays(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	hs := httptest.NewServer(browserSite(t))
	defer hs.Close()
	openRace(t, ctx, hs.URL)

	n := js[int](t, ctx, `tp.q(0, ".sx-fig").querySelectorAll(".sx-step").length`)
	if got := js[string](t, ctx, `tp.q(0, ".sx-fig .player-play").textContent`); got != "▶ Play" {
		t.Errorf("the play button says %q", got)
	}
	if max := js[string](t, ctx, `tp.q(0, ".sx-fig .player-slider").max`); max != fmt.Sprint(n) {
		t.Errorf("the slider runs to %s, want the axis's %d steps", max, n)
	}
	if opts := js[int](t, ctx, `tp.q(0, ".sx-fig .player-speed").options.length`); opts < 2 {
		t.Errorf("the speed control offers %d speeds", opts)
	}
	// The slider to step 4: the fourth column is current, and the
	// step-through shows its event.
	js[bool](t, ctx, `(() => { const s = tp.q(0, ".sx-fig .player-slider"); s.value = "4"; s.dispatchEvent(new Event("input")); return true; })()`)
	run(t, ctx, 10*time.Second, chromedp.Poll[bool](`tp.current(0) >= 0`))
	if got := js[string](t, ctx, `tp.q(0, ".sx-fig .sx-current").getAttribute("aria-label")`); !strings.Contains(got, ": step 4 of") {
		t.Errorf("after the slider went to 4, the current step is %q", got)
	}
	if got, want := js[int](t, ctx, `tp.el(0).timeline.step`), js[int](t, ctx, `tp.el(0).result.timeline.steps.steps[tp.current(0)].event`); got != want {
		t.Errorf("the step-through shows trace step %d, the slider's step is trace step %d", got, want)
	}
	// Play, at the fastest speed, walks to the end and stops there.
	js[bool](t, ctx, `(() => { const s = tp.q(0, ".sx-fig .player-speed"); s.value = String(s.options.length - 1); return true; })()`)
	js[bool](t, ctx, `tp.q(0, ".sx-fig .player-play").click(), true`)
	if got := js[string](t, ctx, `tp.q(0, ".sx-fig .player-play").textContent`); !strings.Contains(got, "Pause") {
		t.Errorf("while playing, the button says %q, want Pause", got)
	}
	run(t, ctx, 60*time.Second, chromedp.Poll[bool](fmt.Sprintf(`tp.q(0, ".sx-fig .player-slider").value === "%d" && tp.q(0, ".sx-fig .player-play").textContent === "▶ Play"`, n)))
	if got := js[string](t, ctx, `tp.q(0, ".sx-fig .sx-current").getAttribute("aria-label")`); !strings.Contains(got, fmt.Sprintf(": step %d of %d,", n, n)) {
		t.Errorf("after Play, the current step is %q, want the last", got)
	}
	// Reduced motion: the cursor moves without a transition.
	if d := js[string](t, ctx, `getComputedStyle(tp.q(0, ".sx-cursor")).transitionDuration`); d == "0s" {
		t.Errorf("the cursor has no transition without reduced motion")
	}
	emulate(t, ctx, &emulation.MediaFeature{Name: "prefers-reduced-motion", Value: "reduce"})
	if d := js[string](t, ctx, `getComputedStyle(tp.q(0, ".sx-cursor")).transitionDuration`); d != "0s" {
		t.Errorf("with reduced motion the cursor slides for %s, want it to jump", d)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestBrowserOneRacePerView: race read 20 names the race every view shows,
// race 20 of 20, and the timeline and the tables show that one race: the
// runs of the effects table are the runs whose requests the timeline
// draws. The transcript keeps the first race's worker lines, and says so.
func TestBrowserOneRacePerView(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	hs := httptest.NewServer(browserSite(t))
	defer hs.Close()
	openRace(t, ctx, hs.URL)

	if got := js[string](t, ctx, `tp.q(0, ".race-name").textContent`); got != "Showing race 20 of 20." {
		t.Errorf("the timeline names %q, want Showing race 20 of 20.", got)
	}
	drawn := js[[]string](t, ctx, `(() => {
  const r = tp.el(0).result;
  return r.timeline.steps.steps.filter((s) => s.label === "POST").map((s) => r.trace[s.event].run).sort();
})()`)
	js[bool](t, ctx, `tp.tab(0, "output")`)
	note := js[string](t, ctx, `tp.q(0, ".race-note").hidden ? "" : tp.q(0, ".race-note").textContent`)
	if !strings.Contains(note, "race 20 of 20") || !strings.Contains(note, "race 1's") {
		t.Errorf("the output's note on the race is %q, want it to name race 20 of 20 and the first race's lines", note)
	}
	col := js[int](t, ctx, `tp.heads(0, "effects").indexOf("run")`)
	var tabled []string
	for _, row := range js[[][]string](t, ctx, `tp.rows(0, "effects")`) {
		tabled = append(tabled, row[col])
	}
	slices.Sort(tabled)
	if len(tabled) == 0 || !slices.Equal(tabled, drawn) {
		t.Errorf("the effects table shows runs %q, the timeline draws requests of runs %q: not one race", tabled, drawn)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestBrowserCompareTwoPictures: lesson 5's first block opens on Compare,
// the read claim beside the atomic one, drawn as two pictures on one step
// axis: their first claims line up, and the step where they part is
// marked on both, with what the atomic claim's loser saw.
func TestBrowserCompareTwoPictures(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	hs := httptest.NewServer(browserSite(t))
	defer hs.Close()
	navigate(t, ctx, hs.URL+"/lessons/atomic-claim/")
	js[bool](t, ctx, exploreHelpers)
	js[bool](t, ctx, stepsHelpers)
	if got := js[string](t, ctx, `tp.el(0).view`); got != "compare" {
		t.Fatalf("lesson 5's first block opens on %q, want compare", got)
	}
	run(t, ctx, 120*time.Second, chromedp.Poll[bool](`tp.q(0, ".cmp-panel").dataset.state === "done" && tp.el(0).shadowRoot.querySelectorAll(".cmp-pictures .sx-svg").length === 2`))
	if got := js[string](t, ctx, `Array.from(tp.el(0).shadowRoot.querySelectorAll(".cmp-picture-title")).map((e) => e.textContent).join(" | ")`); !strings.Contains(got, "claim=read") || !strings.Contains(got, "claim=atomic") {
		t.Errorf("the pictures are %q, want the read claim and the atomic one", got)
	}
	// The first UPDATE of each picture sits at one x.
	xs := js[[]float64](t, ctx, `Array.from(tp.el(0).shadowRoot.querySelectorAll(".cmp-picture")).map((f) => {
  const g = Array.from(f.querySelectorAll(".sx-step")).find((g) => g.querySelector(".sx-label").textContent === "UPDATE");
  return g.querySelector(".sx-chip").getBoundingClientRect().left;
})`)
	if len(xs) != 2 || xs[0] != xs[1] {
		t.Errorf("the two pictures' first UPDATEs are at x %v, want one column", xs)
	}
	parts := js[[]string](t, ctx, `Array.from(tp.el(0).shadowRoot.querySelectorAll(".cmp-picture .sx-part")).map((e) => e.textContent + "@" + Math.round(e.getBoundingClientRect().left))`)
	if len(parts) != 2 || parts[0] != parts[1] || !strings.HasPrefix(parts[0], "0 rows changed@") {
		t.Errorf("where the pictures part is marked %q, want 0 rows changed at one x on both", parts)
	}
	for _, scheme := range []string{"light", "dark"} {
		emulate(t, ctx, &emulation.MediaFeature{Name: "prefers-color-scheme", Value: scheme})
		for _, w := range []struct {
			name  string
			width int64
		}{{"desktop", 1280}, {"phone", 390}} {
			run(t, ctx, 10*time.Second, chromedp.EmulateViewport(w.width, 900))
			shootPart(t, ctx, fmt.Sprintf("compare-steps-%s-%s", w.name, scheme), 0, ".cmp-panel")
			// Where they part is in view in both pictures.
			if !js[bool](t, ctx, `Array.from(tp.el(0).shadowRoot.querySelectorAll(".cmp-picture")).every((f) => {
  const sc = tp.box(f.querySelector(".sx-scroll")), b = tp.box(f.querySelector(".sx-part-band"));
  return b[0] >= sc[0] - 1 && b[1] <= sc[1] + 1;
})`) {
				t.Errorf("at %s width, where the two pictures part is out of view", w.name)
			}
		}
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestBrowserTimelineOnAPhone: at 390 px the race's timeline opens with
// its lane names and its current step in view, also when that step is
// far to the right.
func TestBrowserTimelineOnAPhone(t *testing.T) {
	ctx, consoleErrors := browser(t, 390, 844)
	hs := httptest.NewServer(browserSite(t))
	defer hs.Close()
	openRace(t, ctx, hs.URL)
	inView := func(when string) {
		t.Helper()
		names := js[[]float64](t, ctx, `tp.box(tp.q(0, ".sx-names"))`)
		if names[0] < 0 || names[1] > 390 || names[1]-names[0] < 30 {
			t.Errorf("%s: the lane names are at x %.0f to %.0f, not in view", when, names[0], names[1])
		}
		if !js[bool](t, ctx, `(() => {
  const sc = tp.box(tp.q(0, ".sx-scroll"));
  const g = tp.q(0, ".sx-fig .sx-current") || tp.q(0, ".sx-fig .sx-step");
  const b = tp.box(g.querySelector(".sx-chip"));
  return b[0] >= sc[0] - 1 && b[1] <= sc[1] + 1;
})()`) {
			t.Errorf("%s: the current step is out of view", when)
		}
	}
	inView("on opening")
	// The last step, then away and back.
	js[bool](t, ctx, `(() => { const s = tp.q(0, ".sx-fig .player-slider"); s.value = s.max; s.dispatchEvent(new Event("input")); return true; })()`)
	js[bool](t, ctx, `tp.tab(0, "output")`)
	js[bool](t, ctx, `tp.q(0, ".sx-scroll").scrollLeft = 0, true`)
	js[bool](t, ctx, `tp.tab(0, "timeline")`)
	inView("back at the last step")
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
