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
)

// visibleTabs lists the keys of the tabs block n shows, in order; none
// when the row of tabs is hidden.
const quietHelpers = `
Object.assign(window.tp, {
  tabs: (n) => tp.q(n, ".tabs").hidden ? [] : Array.from(tp.el(n).shadowRoot.querySelectorAll(".tab")).filter((t) => !t.hidden).map((t) => t.dataset.view),
  shown: (n, sel) => { const e = tp.q(n, sel); return !!e && e.getClientRects().length > 0; },
  // controls counts the stops Tab makes in the block, as it shows: what
  // a reader can press or type, and the boxes that scroll.
  controls: (n) => Array.from(tp.el(n).shadowRoot.querySelectorAll("*")).filter((e) => e.tabIndex >= 0 && !e.disabled && e.getClientRects().length > 0 && !e.closest("details:not([open]) > :not(summary)")).length,
});
true`

// TestBrowserQuiet checks that a block shows what applies to its script
// and no more: a one-worker block and a load have no Compare, Every
// ordering, Be the scheduler, claim control or "Check every interleaving";
// a race has them all, the check under its tally. Share holds the five
// ways to share a run; a rerun at the same seed says so; the strip of
// seeds beside the seed field has twenty seeds, coloured by the runtime,
// each one click to run.
func TestBrowserQuiet(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	srv := browserSite(t)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	open := func(path string) {
		t.Helper()
		navigate(t, ctx, hs.URL+path)
		js[bool](t, ctx, exploreHelpers)
		js[bool](t, ctx, quietHelpers)
	}

	t.Run("one worker", func(t *testing.T) {
		open("/lessons/one-job/")
		if got := js[[]string](t, ctx, `tp.tabs(1)`); !slices.Equal(got, []string{"output", "timeline"}) {
			t.Errorf("lesson 1's one-worker block (its second, after the picture) shows the tabs %v, want output and timeline", got)
		}
		for _, sel := range []string{".explore-btn", "fieldset.claim", "#tab-compare", "#tab-interleavings", "#tab-scheduler"} {
			if js[bool](t, ctx, fmt.Sprintf(`tp.shown(1, %q)`, sel)) {
				t.Errorf("lesson 1's one-worker block (its second, after the picture) shows %s", sel)
			}
		}
		// Run, Reset, the seed, New seed, the strip, the script, Share,
		// the tab shown, the transcript's and the tables' boxes.
		if n := js[int](t, ctx, `tp.controls(1)`); n > 13 {
			t.Errorf("lesson 1's one-worker block (its second, after the picture) shows %d controls", n)
		}
		if s := js[string](t, ctx, `tp.run(1)`); s != "done" {
			t.Fatalf("run: %s", s)
		}
		if got := js[[]string](t, ctx, `tp.tabs(1)`); !slices.Equal(got, []string{"output", "timeline"}) {
			t.Errorf("after a run, lesson 1's block shows the tabs %v", got)
		}
	})

	t.Run("lesson 9", func(t *testing.T) {
		open("/lessons/heartbeats/")
		counts := js[[]int](t, ctx, `Array.from(document.querySelectorAll("twice-playground"), (el, i) => tp.controls(i))`)
		tabs := js[[][]string](t, ctx, `Array.from(document.querySelectorAll("twice-playground"), (el, i) => tp.tabs(i))`)
		total := 0
		for _, n := range counts {
			total += n
		}
		t.Logf("lesson 9: %d controls over %d blocks %v; tabs %v", total, len(counts), counts, tabs)
		for i, tb := range tabs {
			if js[bool](t, ctx, fmt.Sprintf(`!tp.el(%d).result.views.explore.own`, i)) && len(tb) > 2 {
				t.Errorf("lesson 9's block %d runs no race but shows the tabs %v", i+1, tb)
			}
		}
	})

	t.Run("load", func(t *testing.T) {
		open("/lessons/outlives-its-lease/?predict=off")
		if got := js[[]string](t, ctx, `tp.tabs(1)`); !slices.Equal(got, []string{"output", "timeline"}) {
			t.Errorf("a load block shows the tabs %v, want output and timeline", got)
		}
		for _, sel := range []string{".explore-btn", "fieldset.claim"} {
			if js[bool](t, ctx, fmt.Sprintf(`tp.shown(1, %q)`, sel)) {
				t.Errorf("a load block shows %s", sel)
			}
		}
	})

	t.Run("race", func(t *testing.T) {
		open("/lessons/claim-race/?predict=off")
		if got := js[[]string](t, ctx, `tp.tabs(0)`); !slices.Equal(got, []string{"output", "timeline", "compare", "interleavings", "scheduler"}) {
			t.Errorf("a race block shows the tabs %v, want all five", got)
		}
		if !js[bool](t, ctx, `tp.shown(0, "fieldset.claim")`) {
			t.Errorf("a race block with a claim control hides it")
		}
		// The check is part of the race's output, under its tally.
		if !js[bool](t, ctx, `tp.shown(0, ".out .explore-btn") && !tp.q(0, ".bar .explore-btn")`) {
			t.Errorf("\"Check every interleaving\" is not under the race's output")
		}
		if s := js[string](t, ctx, `tp.panel(0, "#panel-interleavings", () => tp.q(0, ".explore-btn").click())`); s != "done" {
			t.Errorf("Check every interleaving: %s", s)
		}
		if got := js[[]string](t, ctx, `tp.tabs(0)`); len(got) != 5 {
			t.Errorf("after the check, the tabs are %v", got)
		}
	})

	t.Run("share", func(t *testing.T) {
		open("/lessons/claim-race/?predict=off")
		if js[bool](t, ctx, `tp.shown(0, ".copy-link") || tp.shown(0, "details.embed")`) {
			t.Errorf("the share actions show before Share is pressed")
		}
		js[bool](t, ctx, `tp.q(0, ".share-btn").click(), true`)
		got := js[[]string](t, ctx, `Array.from(tp.q(0, ".share-panel").querySelectorAll("a.permalink, button, summary")).filter((e) => e.getClientRects().length > 0 && !e.closest("details:not([open]) > :not(summary)")).map((e) => e.textContent.trim())`)
		want := []string{"Link to this run", "Copy link", "Copy as command", "Copy as go run", "Embed this block"}
		if !slices.Equal(got, want) {
			t.Errorf("the Share menu holds %q, want %q", got, want)
		}
		if e := js[string](t, ctx, `tp.q(0, ".share-btn").getAttribute("aria-expanded")`); e != "true" {
			t.Errorf("the open Share button says aria-expanded=%q", e)
		}
		js[bool](t, ctx, `tp.q(0, ".copy-link").focus(), tp.q(0, ".copy-link").dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true })), true`)
		if js[bool](t, ctx, `tp.shown(0, ".copy-link")`) || !js[bool](t, ctx, `tp.el(0).shadowRoot.activeElement === tp.q(0, ".share-btn")`) {
			t.Errorf("Escape in the Share panel does not close it and give the focus back")
		}
	})

	t.Run("same seed", func(t *testing.T) {
		open("/lessons/claim-race/?predict=off")
		if s := js[string](t, ctx, `tp.run(0)`); s != "done" {
			t.Fatalf("run: %s", s)
		}
		if st := js[string](t, ctx, `tp.q(0, ".status").textContent`); !strings.Contains(st, "Same seed, same result") {
			t.Errorf("a rerun at the lesson's seed says %q", st)
		}
	})

	t.Run("changed", func(t *testing.T) {
		open("/lessons/claim-race/?predict=off")
		js[bool](t, ctx, `tp.q(0, "textarea.script").value = "race read 5\n", true`)
		prev, changes := "", 0
		for seed := 1; seed <= 12; seed++ {
			if s := js[string](t, ctx, fmt.Sprintf(`tp.run(0, () => tp.q(0, ".strip-seed[data-seed='%d']").click())`, seed)); s != "done" {
				t.Fatalf("seed %d: %s", seed, s)
			}
			head := js[string](t, ctx, `tp.el(0).result.outcome.headline`)
			status := js[string](t, ctx, `tp.q(0, ".status").textContent`)
			marked := js[bool](t, ctx, `tp.q(0, ".tally").classList.contains("changed")`)
			switch {
			case seed == 1:
			case head != prev:
				changes++
				if !strings.Contains(status, "Changed: "+head+" (was "+prev+")") || !marked {
					t.Errorf("seed %d changed the outcome from %q to %q; the block says %q, tally marked %v", seed, prev, head, status, marked)
				}
			default:
				if !strings.Contains(status, fmt.Sprintf("Same outcome as seed %d", seed-1)) || marked {
					t.Errorf("seed %d kept the outcome %q; the block says %q, tally marked %v", seed, head, status, marked)
				}
			}
			prev = head
		}
		if changes == 0 {
			t.Errorf("twelve seeds of race read 5 gave one outcome: the test shows nothing")
		}
	})

	t.Run("seed strip", func(t *testing.T) {
		open("/lessons/claim-race/?predict=off")
		if n := js[int](t, ctx, `tp.el(0).shadowRoot.querySelectorAll(".seed-group .strip-seed").length`); n != 20 {
			t.Fatalf("the seed strip has %d seeds, want 20", n)
		}
		if s := js[string](t, ctx, `tp.run(0, () => tp.q(0, ".strip-seed[data-seed='7']").click())`); s != "done" {
			t.Fatalf("run seed 7: %s", s)
		}
		// Reaching for a seed fills the strip, one run per seed.
		run(t, ctx, 120*time.Second, chromedp.Poll[bool](`tp.q(0, ".seed-strip").dataset.state === "done"`))
		dup := js[[]string](t, ctx, `Array.from(tp.el(0).shadowRoot.querySelectorAll(".strip-seed"), (b) => b.dataset.dup || "")`)
		for _, d := range dup {
			if d == "" {
				t.Fatalf("a seed of the strip is uncoloured: %v", dup)
			}
		}
		if seed := js[string](t, ctx, `tp.el(0).ran.seed + " " + tp.q(0, ".seed input").value`); seed != "7 7" {
			t.Errorf("clicking seed 7 of the strip ran %q", seed)
		}
		if p := js[string](t, ctx, `tp.q(0, ".strip-seed[data-seed='7']").getAttribute("aria-pressed")`); p != "true" {
			t.Errorf("seed 7 is not marked as the one shown")
		}
		// The strip is one stop in the Tab order, at the seed shown; the
		// arrow keys move along it.
		if got := js[[]string](t, ctx, `Array.from(tp.el(0).shadowRoot.querySelectorAll(".strip-seed"), (b) => b.tabIndex).map(String).filter((x) => x === "0").concat(tp.q(0, ".strip-seed[tabindex='0']").dataset.seed)`); !slices.Equal(got, []string{"0", "7"}) {
			t.Errorf("the strip's Tab stops (and the seed of the one): %v, want one, at seed 7", got)
		}
		if got := js[string](t, ctx, `(() => { const b = tp.q(0, ".strip-seed[data-seed='7']"); b.focus(); b.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight", bubbles: true })); return tp.el(0).shadowRoot.activeElement.dataset.seed; })()`); got != "8" {
			t.Errorf("ArrowRight from seed 7 moved the focus to seed %q", got)
		}
		// The Result of seed 7 agrees with the strip's colour.
		red := js[bool](t, ctx, `tp.el(0).result.outcome.duplicates > 0`)
		if (dup[6] == "true") != red {
			t.Errorf("seed 7 is %s on the strip, but its run has duplicates: %v", dup[6], red)
		}
		if s := js[string](t, ctx, `tp.run(0, () => tp.q(0, ".new-seed").click())`); s != "done" {
			t.Fatalf("New seed: %s", s)
		}
		if seed := js[string](t, ctx, `tp.el(0).ran.seed`); seed == "7" || seed == "" {
			t.Errorf("New seed ran seed %q", seed)
		}
	})

	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestBrowserFits checks that every page fits every screen: lesson 16's
// matrix fits a 1280 px desktop without a sideways scroll, a transcript
// line that wraps hangs under its start, the tabs keep to one row, and
// when the clipboard is refused the box to copy from shows the whole
// link. It keeps screenshots of lessons 1, 9 and 16's blocks at 1280 and
// 390 px, light and dark.
func TestBrowserFits(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	srv := browserSite(t)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	open := func(path string) {
		t.Helper()
		navigate(t, ctx, hs.URL+path)
		js[bool](t, ctx, exploreHelpers)
		js[bool](t, ctx, quietHelpers)
	}

	t.Run("matrix", func(t *testing.T) {
		open("/lessons/which-fix/")
		over := js[[]int](t, ctx, `(() => { const b = tp.q(0, ".matrix-box"); return [b.scrollWidth, b.clientWidth]; })()`)
		if over[0] > over[1] {
			t.Errorf("lesson 16's matrix scrolls sideways at 1280 px: %d px of content in %d", over[0], over[1])
		}
		// A heatmap: each verdict's cells filled, not only coloured text.
		fills := js[[]string](t, ctx, `["duplicate", "closed"].map((v) => getComputedStyle(tp.q(0, "td.cell." + v)).backgroundColor)`)
		if fills[0] == fills[1] || strings.Contains(fills[0], "0, 0, 0, 0") || fills[0] == "transparent" {
			t.Errorf("the matrix's cells are not filled by verdict: %v", fills)
		}
	})

	t.Run("hanging indent", func(t *testing.T) {
		run(t, ctx, 10*time.Second, chromedp.EmulateViewport(390, 844))
		defer run(t, ctx, 10*time.Second, chromedp.EmulateViewport(1280, 900))
		open("/lessons/claim-race/?predict=off")
		// The first wrapped line: its second row starts right of its first.
		got := js[[]float64](t, ctx, `(() => {
  for (const l of tp.el(0).shadowRoot.querySelectorAll(".transcript .line")) {
    const r = document.createRange();
    r.selectNodeContents(l);
    const rows = new Map();
    for (const c of r.getClientRects()) if (c.width > 0) rows.set(Math.round(c.top), Math.min(rows.get(Math.round(c.top)) ?? Infinity, c.left));
    const tops = [...rows.keys()].sort((a, b) => a - b);
    if (tops.length > 1) return [rows.get(tops[0]), rows.get(tops[1])];
  }
  return [];
})()`)
		if len(got) != 2 {
			t.Fatalf("no transcript line wraps at 390 px")
		}
		if got[1] <= got[0]+4 {
			t.Errorf("a wrapped transcript line's second row starts at %.0f px, its first at %.0f: no hanging indent", got[1], got[0])
		}
		// The tabs: one row, which scrolls sideways if need be.
		if rows := js[int](t, ctx, `new Set(Array.from(tp.el(0).shadowRoot.querySelectorAll(".tab")).filter((t) => !t.hidden).map((t) => t.offsetTop)).size`); rows != 1 {
			t.Errorf("the tabs take %d rows at 390 px", rows)
		}
	})

	t.Run("clipboard refused", func(t *testing.T) {
		for _, w := range []int64{390, 1280} {
			run(t, ctx, 10*time.Second, chromedp.EmulateViewport(w, 844))
			open("/lessons/claim-race/?predict=off")
			js[bool](t, ctx, `Object.defineProperty(navigator, "clipboard", { value: undefined, configurable: true }), true`)
			js[bool](t, ctx, `tp.q(0, ".share-btn").click(), tp.q(0, ".copy-link").click(), true`)
			run(t, ctx, 10*time.Second, chromedp.Poll[bool](`!tp.q(0, ".copy-box").hidden`))
			f := js[[]int](t, ctx, `(() => { const f = tp.q(0, ".copy-field"); return [f.scrollWidth, f.clientWidth, f.scrollHeight, f.clientHeight, f.value.length]; })()`)
			if f[4] < 40 || f[0] > f[1] || f[2] > f[3] {
				t.Errorf("at %d px the box to copy from shows part of the link: %d of %d px wide, %d of %d px tall", w, f[1], f[0], f[3], f[2])
			}
			shot := run(t, ctx, 30*time.Second, chromedp.Screenshot(chromedp.CSS("#block-1")))
			name := filepath.Join(artifactDir(t), fmt.Sprintf("quiet-copy-refused-%d.png", w))
			if err := os.WriteFile(name, shot, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("screenshot: %s", name)
		}
		run(t, ctx, 10*time.Second, chromedp.EmulateViewport(1280, 900))
	})

	t.Run("screenshots", func(t *testing.T) {
		dir := artifactDir(t)
		for _, scheme := range []string{"light", "dark"} {
			run(t, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
					Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
				})
				return err
			}))
			for _, w := range []int64{1280, 390} {
				run(t, ctx, 10*time.Second, chromedp.EmulateViewport(w, 900))
				for _, p := range []struct {
					name, path string
					block      int
				}{{"lesson1", "/lessons/one-job/", 0}, {"lesson4", "/lessons/claim-race/", 0}, {"lesson9", "/lessons/heartbeats/", 4}, {"lesson16", "/lessons/which-fix/", 0}} {
					open(p.path)
					if s := js[string](t, ctx, fmt.Sprintf(`tp.run(%d)`, p.block)); s != "done" {
						t.Fatalf("%s: run ended in %q", p.path, s)
					}
					if p.block == 4 {
						js[bool](t, ctx, fmt.Sprintf(`tp.q(%d, ".seed-group").dispatchEvent(new FocusEvent("focusin")), true`, p.block))
						run(t, ctx, 120*time.Second, chromedp.Poll[bool](fmt.Sprintf(`tp.q(%d, ".seed-strip").dataset.state === "done"`, p.block)))
						js[bool](t, ctx, fmt.Sprintf(`tp.q(%d, ".share-btn").click(), true`, p.block))
					}
					shot := run(t, ctx, 30*time.Second, chromedp.Screenshot(chromedp.CSS(fmt.Sprintf("#block-%d", p.block+1))))
					name := filepath.Join(dir, fmt.Sprintf("quiet-%s-block%d-%d-%s.png", p.name, p.block+1, w, scheme))
					if err := os.WriteFile(name, shot, 0o644); err != nil {
						t.Fatal(err)
					}
					t.Logf("screenshot: %s", name)
				}
			}
		}
	})

	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
