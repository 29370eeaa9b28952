package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/twice-lab/twice/internal/browsertest"
)

// axeVersion is the axe-core release the accessibility gate runs, pinned:
// .ci/run installs exactly this one from npm into .tools (ignored by git).
const axeVersion = "4.14.1"

// axeOff lists the axe rules the gate deliberately turns off, each with
// its reason. It is empty: every rule runs.
var axeOff = map[string]string{}

// axeSource returns the text of axe.min.js: $TWICE_AXE, or
// .tools/node_modules/axe-core/axe.min.js at the module root. Without it
// the test skips loudly, or fails when TWICE_REQUIRE_BROWSER=1.
func axeSource(t *testing.T) string {
	t.Helper()
	path := os.Getenv("TWICE_AXE")
	if path == "" {
		path = filepath.Join("..", ".tools", "node_modules", "axe-core", "axe.min.js")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		msg := fmt.Sprintf("no axe-core at %s (npm install --prefix .tools --no-save axe-core@%s, or set TWICE_AXE)", path, axeVersion)
		if os.Getenv("TWICE_REQUIRE_BROWSER") == "1" {
			t.Fatalf("TWICE_REQUIRE_BROWSER=1 but %s", msg)
		}
		t.Skipf("SKIPPING ACCESSIBILITY GATE: %s", msg)
	}
	var pkg struct{ Version string }
	if pj, err := os.ReadFile(filepath.Join(filepath.Dir(path), "package.json")); err == nil && json.Unmarshal(pj, &pkg) == nil && pkg.Version != axeVersion {
		t.Fatalf("axe-core at %s is %s; the gate is pinned to %s", path, pkg.Version, axeVersion)
	}
	return string(b)
}

// setView sets the viewport width and the color scheme.
func setView(t *testing.T, ctx context.Context, width int64, scheme string) {
	t.Helper()
	height := int64(900)
	if width < 600 {
		height = 844
	}
	run(t, ctx, 10*time.Second, chromedp.EmulateViewport(width, height))
	run(t, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
		})
		return err
	}))
}

// axeViolation is one rule that failed on one element.
type axeViolation struct {
	Rule, Impact, Help, Target string
}

// runAxe runs axe on the current page and returns its violations.
func runAxe(t *testing.T, ctx context.Context) []axeViolation {
	t.Helper()
	off, _ := json.Marshal(axeOff)
	return run(t, ctx, 60*time.Second, chromedp.Evaluate[[]axeViolation](`(async () => {
  const off = Object.fromEntries(Object.keys(`+string(off)+`).map((k) => [k, { enabled: false }]));
  const r = await axe.run(document, { rules: off, resultTypes: ["violations"] });
  return r.violations.flatMap((v) => v.nodes.map((n) => ({ Rule: v.id, Impact: v.impact || "", Help: v.help, Target: JSON.stringify(n.target) })));
})()`, chromedp.EvalAwaitPromise))
}

// TestBrowserAccessibility is the accessibility gate: axe-core runs on
// every page of the site (the index, every lesson, every case, every
// embed page) at 390 and 1280 px, light and dark, as the page loads and
// after a Run of every block with its Share menu and embed snippets open; and, on every
// page but the embed pages past a lesson's first block (see everyState),
// with each tab shown (timeline, compare, every ordering, and Be the
// scheduler two steps into its race) and during step-through. It must find
// nothing. A blog page with two unlabelled blocks is checked too, and a
// lesson with every block asking for a prediction and in the presenter
// view. One page per address, every view checked in place. The pages are
// dealt out to a11yShards browsers that check them at the same time; the
// findings of all are reported together.
func TestBrowserAccessibility(t *testing.T) {
	path := browsertest.Require(t)
	axeJS := axeSource(t)
	srv := browserSite(t)
	hs := httptest.NewServer(srv)
	defer hs.Close()

	var pages []string
	for _, p := range srv.Site().Paths() {
		if p == "index.html" || strings.HasPrefix(p, "lessons/") || strings.HasPrefix(p, "cases/") || strings.HasPrefix(p, "embed/") {
			if strings.HasSuffix(p, "index.html") {
				pages = append(pages, "/"+strings.TrimSuffix(p, "index.html"))
			}
		}
	}
	// TWICE_A11Y_ONLY=SUBSTRING checks only the pages whose path has it:
	// a quick loop while mending one page; the full gate checks them all.
	if only := os.Getenv("TWICE_A11Y_ONLY"); only != "" {
		pages = slices.DeleteFunc(pages, func(p string) bool { return !strings.Contains(p, only) })
	}
	if testing.Verbose() {
		t.Logf("%d pages: %v", len(pages), pages)
	}
	var mu sync.Mutex
	found := map[string][]string{} // rule + target -> where
	checks := 0
	start := time.Now()
	t.Run("shards", func(t *testing.T) {
		for shard := range a11yShards {
			t.Run(fmt.Sprint(shard), func(t *testing.T) {
				t.Parallel()
				var mine []string
				for i, page := range pages {
					if i%a11yShards == shard {
						mine = append(mine, page)
					}
				}
				// The blog page goes to the last shard, which has no more
				// pages than the first.
				a11yShard(t, path, axeJS, hs.URL, mine, shard == a11yShards-1, func(key, where string) {
					mu.Lock()
					defer mu.Unlock()
					if key == "" {
						checks++
						return
					}
					found[key] = append(found[key], where)
				})
			})
		}
	})

	t.Logf("axe-core %s: %d checks of %d pages and a blog page in %v with %d browsers (%d CPUs), %d rule(s) off", axeVersion, checks, len(pages), time.Since(start).Round(time.Second), a11yShards, runtime.NumCPU(), len(axeOff))
	if len(found) > 0 {
		var lines []string
		for k, where := range found {
			lines = append(lines, fmt.Sprintf("%s\n    %d time(s), first: %s", k, len(where), where[0]))
		}
		sort.Strings(lines)
		t.Errorf("axe found %d violation(s):\n%s", len(found), strings.Join(lines, "\n"))
	}
}

// everyState says whether the gate takes page through every tab and
// state, not only as it loads and after a Run. An embed page shows one
// block of a lesson whose own page is taken through all of them, so past
// the first block of each lesson (embed/SLUG/1/) an embed page is checked
// for what is its own: its frame, loaded and with output.
func everyState(page string) bool {
	rest, ok := strings.CutPrefix(page, "/embed/")
	if !ok {
		return true
	}
	_, n, _ := strings.Cut(strings.TrimSuffix(rest, "/"), "/")
	return n == "1"
}

// a11yShards is how many browsers the accessibility gate runs at once:
// two, one for each core of the 2-core machine CI runs on.
const a11yShards = 2

// a11yShard checks pages (and, if blog is set, a blog page with two
// unlabelled blocks) in a browser of its own, at every view and in every
// state. For each violation it calls report with the rule and target and
// where it was seen; after each check of one view, with key "".
func a11yShard(t *testing.T, path, axeJS, base string, pages []string, blog bool, report func(key, where string)) {
	// Scrollbars stay visible here, as on most desktops.
	ctx, _ := browsertest.Start(t, path, browsertest.Options(path, t.TempDir(), 1280, 900), chromedp.WithLogf(t.Logf))
	views := []struct {
		width  int64
		scheme string
	}{{1280, "light"}, {1280, "dark"}, {390, "light"}, {390, "dark"}}
	check := func(page, state string) {
		for _, v := range views {
			setView(t, ctx, v.width, v.scheme)
			for _, x := range runAxe(t, ctx) {
				key := fmt.Sprintf("%s (%s) %s: %s", x.Rule, x.Impact, x.Target, x.Help)
				report(key, fmt.Sprintf("%s %s %d %s", page, state, v.width, v.scheme))
			}
			report("", "")
		}
		setView(t, ctx, 1280, "light")
	}
	for _, page := range pages {
		navigate(t, ctx, base+page)
		js[bool](t, ctx, exploreHelpers)
		js[bool](t, ctx, axeJS+"\n;true")
		check(page, "loaded")
		n := js[int](t, ctx, `document.querySelectorAll("twice-playground").length`)
		if n == 0 {
			continue
		}
		for i := range n {
			// As long as tp.run waits, not js's 30 s: on a machine shared
			// by several browsers a run may take longer.
			if s := run(t, ctx, 130*time.Second, chromedp.Evaluate[string](fmt.Sprintf(`tp.run(%d)`, i), chromedp.EvalAwaitPromise)); s != "done" && s != "error" {
				t.Fatalf("%s block %d: run ended in %q", page, i, s)
			}
		}
		// The Share menu open, and the embed snippets in it.
		js[bool](t, ctx, `document.querySelectorAll("twice-playground").forEach((el) => { const b = el.shadowRoot.querySelector(".share-btn"); if (b && b.getAttribute("aria-expanded") !== "true") b.click(); const d = el.shadowRoot.querySelector("details.embed"); if (d) d.open = true; }); true`)
		check(page, "output")
		if !everyState(page) {
			continue
		}
		js[bool](t, ctx, `Promise.all(Array.from(document.querySelectorAll("twice-playground"), (el, i) => tp.tab(i, "timeline"))).then(() => true)`)
		check(page, "timeline")
		js[bool](t, ctx, `document.querySelectorAll("twice-playground").forEach((el, i) => { const b = tp.q(i, ".step-btn.next"); b.click(); b.click(); }); true`)
		check(page, "step-through")
		for i := range n {
			js[string](t, ctx, fmt.Sprintf(`tp.panel(%d, ".cmp-panel", () => tp.tab(%d, "compare"))`, i, i))
		}
		check(page, "compare")
		for i := range n {
			js[string](t, ctx, fmt.Sprintf(`tp.panel(%d, ".exp-panel", () => tp.tab(%d, "interleavings"))`, i, i))
		}
		check(page, "every ordering")
		// Be the scheduler, two steps into the race where a block has
		// one: the buttons, the steps and the tables all show.
		for i := range n {
			js[string](t, ctx, fmt.Sprintf(`tp.panel(%d, ".seat-panel", () => tp.tab(%d, "scheduler"))`, i, i))
			js[bool](t, ctx, fmt.Sprintf(`(async () => { const s = tp.el(%d).ui.seat; await s.pick(0); await s.pick(1); return true; })()`, i))
		}
		check(page, "scheduler")
		if strings.HasPrefix(page, "/cases/") {
			// A case page with its hints open, a verdict recorded and its
			// checks run.
			js[bool](t, ctx, `document.querySelectorAll("details.hint").forEach((d) => d.open = true); const r = document.querySelector(".verdict input"); r.click(); true`)
			js[bool](t, ctx, `document.querySelector(".case-run-checks").click(), true`)
			run(t, ctx, 120*time.Second, chromedp.Poll[bool](`document.querySelector(".case-check-results").getAttribute("aria-busy") === "false" && document.querySelectorAll(".case-check-results li").length > 0`))
			check(page, "checks")
		}
	}
	if !blog {
		return
	}
	// A blog post with two blocks pasted by script tag, neither labelled:
	// their regions must still have distinct names.
	blogSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!doctype html><html lang="en"><meta charset="utf-8"><title>Two blocks</title><link rel="icon" href="data:,">
<main><h1>Two blocks</h1>
<script src="`+base+`/assets/twice.js" defer></script>
<twice-playground><pre>race read 3
effects</pre></twice-playground>
<twice-playground controls="seed"><pre>race atomic 3
effects</pre></twice-playground></main>`)
	}))
	defer blogSrv.Close()
	navigate(t, ctx, strings.Replace(blogSrv.URL, "127.0.0.1", "localhost", 1)+"/")
	js[bool](t, ctx, exploreHelpers)
	js[bool](t, ctx, axeJS+"\n;true")
	for i := range 2 {
		if s := js[string](t, ctx, fmt.Sprintf(`tp.run(%d)`, i)); s != "done" {
			t.Fatalf("blog block %d: run ended in %q", i, s)
		}
	}
	check("blog with two unlabelled blocks", "output")
	js[bool](t, ctx, `Promise.all(Array.from(document.querySelectorAll("twice-playground"), (el, i) => tp.tab(i, "timeline"))).then(() => true)`)
	check("blog with two unlabelled blocks", "timeline")

	// Predict-then-run (the teacher's switch on: every block asks) and the
	// presenter view, on one lesson.
	navigate(t, ctx, base+"/lessons/claim-race/")
	js[bool](t, ctx, exploreHelpers)
	js[bool](t, ctx, axeJS+"\n;true")
	js[bool](t, ctx, `document.querySelector("#twice-predict-all").click(), true`)
	check("/lessons/claim-race/", "predict")
	js[bool](t, ctx, `document.querySelector("#twice-predict-all").click(), true`)
	navigate(t, ctx, base+"/lessons/claim-race/?present")
	js[bool](t, ctx, exploreHelpers)
	js[bool](t, ctx, axeJS+"\n;true")
	check("/lessons/claim-race/?present", "presenter")
}
