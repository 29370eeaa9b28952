package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/twice-lab/twice/runtime/script/interp"
)

// boardHelpers are the page-side helpers of the board's tests.
const boardHelpers = `
Object.assign(window.tp, {
  // cols are the board's columns: each worker's name, its program's
  // lines as shown, the index of the line marked current, and its state.
  cols: (n) => [...tp.q(n, ".seat-workers").querySelectorAll(".board-col")].map((c) => {
    const lines = [...c.querySelectorAll(".board-program > li")];
    return {
      worker: c.dataset.worker,
      state: c.dataset.state,
      lines: lines.map((li) => li.querySelector("code").textContent),
      at: lines.findIndex((li) => li.getAttribute("aria-current") === "step"),
      ran: lines.map((li, i) => li.classList.contains("ran") ? i : -1).filter((i) => i >= 0),
    };
  }),
  // settle resolves once the scheduler view of block n is done.
  settle: (n) => new Promise((resolve) => {
    const check = () => (tp.q(n, ".seat-panel").dataset.state === "done" ? resolve("done") : setTimeout(check, 20));
    check();
  }),
});
true`

// boardShots keeps a screenshot of block n at the page's width and
// scheme, under name.
func boardShot(t *testing.T, ctx context.Context, n int, name string) {
	t.Helper()
	shot := run(t, ctx, 30*time.Second, chromedp.Screenshot(chromedp.CSS(fmt.Sprintf("twice-playground:nth-of-type(%d)", n+1))))
	path := filepath.Join(artifactDir(t), name+".png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// TestBrowserBoardScreenshots keeps pictures of the board at a desktop's
// and a phone's width, light and dark: lesson 4's board after it played
// its ordering, and the lock lesson's board half-way through a game.
func TestBrowserBoardScreenshots(t *testing.T) {
	if testing.Short() {
		t.Skip("screenshots in -short mode")
	}
	hs := httptest.NewServer(browserSite(t))
	defer hs.Close()
	for _, w := range []struct {
		name          string
		width, height int
	}{{"desktop", 1280, 900}, {"phone", 390, 844}} {
		ctx, consoleErrors := browser(t, w.width, w.height)
		for _, scheme := range []string{"light", "dark"} {
			setMedia(t, ctx, "prefers-color-scheme", scheme)
			navigate(t, ctx, hs.URL+"/lessons/claim-race/?"+scheme)
			js[bool](t, ctx, exploreHelpers+";"+boardHelpers)
			n := js[int](t, ctx, `[...document.querySelectorAll("twice-playground")].findIndex((el) => el.getAttribute("view") === "scheduler")`)
			if n < 0 {
				t.Fatal("lesson 4 has no block that opens on the board")
			}
			js[bool](t, ctx, fmt.Sprintf(`tp.el(%d).scrollIntoView(), true`, n))
			run(t, ctx, 90*time.Second, chromedp.Poll[bool](fmt.Sprintf(`tp.q(%d, ".seat-steps").children.length === 6 && tp.q(%d, ".seat-panel").dataset.state === "done"`, n, n)))
			noSideScroll(t, ctx, w.width)
			if pos := js[string](t, ctx, fmt.Sprintf(`getComputedStyle(tp.q(%d, ".board-shared")).position`, n)); w.width < 640 && pos != "sticky" {
				t.Errorf("on a phone the shared rows scroll out of view (position %s)", pos)
			}
			boardShot(t, ctx, n, fmt.Sprintf("board-claim-race-%s-%s", w.name, scheme))

			navigate(t, ctx, hs.URL+"/lessons/lock-that-awaits/?"+scheme)
			js[bool](t, ctx, exploreHelpers+";"+boardHelpers)
			m := seatBlock(t, ctx, "race async-lock 1\n")
			if s := js[string](t, ctx, fmt.Sprintf(`tp.panel(%d, ".seat-panel", () => tp.tab(%d, "scheduler"))`, m, m)); s != "done" {
				t.Fatalf("the board ended in %q", s)
			}
			js[bool](t, ctx, fmt.Sprintf(`tp.q(%d, ".seat-play").focus(), true`, m))
			for _, k := range []string{"1", "2", "1"} {
				seatKey(t, ctx, m, k)
			}
			js[bool](t, ctx, fmt.Sprintf(`tp.el(%d).scrollIntoView(), true`, m))
			noSideScroll(t, ctx, w.width)
			boardShot(t, ctx, m, fmt.Sprintf("board-async-lock-%s-%s", w.name, scheme))

			// Three workers under the lock claim, two of them stopped.
			view, _ := json.Marshal(interp.Run("race lock 1 --workers 3 --heartbeat 100\n", interp.Options{Seed: interp.DefaultSeed}).Views.Scheduler)
			js[string](t, ctx, fmt.Sprintf(`tp.panel(%d, ".seat-panel", () => tp.el(%d).ui.seat.open(%s))`, m, m, view))
			js[bool](t, ctx, fmt.Sprintf(`tp.q(%d, ".seat-play").focus(), true`, m))
			for _, k := range []string{"1", "2", "3", "1"} {
				seatKey(t, ctx, m, k)
			}
			js[bool](t, ctx, fmt.Sprintf(`tp.el(%d).scrollIntoView(), true`, m))
			noSideScroll(t, ctx, w.width)
			boardShot(t, ctx, m, fmt.Sprintf("board-lock-3-workers-%s-%s", w.name, scheme))
		}
		setMedia(t, ctx, "prefers-color-scheme", "")
		if errs := consoleErrors(); len(errs) > 0 {
			t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
		}
	}
}

// programs are the runtime's programs for script's race, at its start:
// what the board must show, line for line.
func programs(t *testing.T, script string) [][]string {
	t.Helper()
	r := interp.Run(strings.TrimSuffix(script, "\n")+" --schedule -\n", interp.Options{Seed: interp.DefaultSeed})
	if r.Error != nil || r.Schedule == nil {
		t.Fatalf("%s: %v", script, r.Error)
	}
	var out [][]string
	for _, p := range r.Schedule.Programs {
		out = append(out, p.Lines)
	}
	return out
}

// boardCol is one column of the board as tp.cols reads it.
type boardCol struct {
	Worker string   `json:"worker"`
	State  string   `json:"state"`
	Lines  []string `json:"lines"`
	At     int      `json:"at"`
	Ran    []int    `json:"ran"`
}

func cols(t *testing.T, ctx context.Context, n int) []boardCol {
	t.Helper()
	return js[[]boardCol](t, ctx, fmt.Sprintf(`tp.cols(%d)`, n))
}

// sameLines reports whether the board's columns show the runtime's
// programs, each column at its first line.
func sameLines(t *testing.T, what string, got []boardCol, want [][]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d columns, the runtime has %d workers", what, len(got), len(want))
		return
	}
	for i := range want {
		if strings.Join(got[i].Lines, "\n") != strings.Join(want[i], "\n") {
			t.Errorf("%s: %s's column shows\n%s\nthe runtime's program is\n%s", what, got[i].Worker, strings.Join(got[i].Lines, "\n"), strings.Join(want[i], "\n"))
		}
	}
}

// TestBrowserBoard plays the board of the lock lesson: each worker's
// column shows the runtime's program for the race, line for line, for
// every claim of the toggle and for races with three workers, a heartbeat,
// a fence, a key and the ledger; a click on a column or its number steps
// that worker and moves its mark; the player plays a whole ordering of
// the lock claim to the explorer's proof, and its slider scrubs back by
// keyboard; the effects table keeps its columns through a game.
func TestBrowserBoard(t *testing.T) {
	hs := httptest.NewServer(browserSite(t))
	defer hs.Close()
	ctx, consoleErrors := browser(t, 1280, 900)
	navigate(t, ctx, hs.URL+"/lessons/lock-that-awaits/")
	js[bool](t, ctx, exploreHelpers+";"+boardHelpers+"; localStorage.clear(), true")
	n := seatBlock(t, ctx, "race async-lock 1\n")
	if s := js[string](t, ctx, fmt.Sprintf(`tp.panel(%d, ".seat-panel", () => tp.tab(%d, "scheduler"))`, n, n)); s != "done" {
		t.Fatalf("the board ended in %q", s)
	}
	got := cols(t, ctx, n)
	sameLines(t, "async-lock", got, programs(t, "race async-lock"))
	for _, c := range got {
		if c.At != 0 || len(c.Ran) != 0 || c.State != "ready" {
			t.Errorf("at the start %s's column: %+v", c.Worker, c)
		}
	}
	// The shared rows stand between the two columns.
	between := js[bool](t, ctx, fmt.Sprintf(`(() => { const [a, b] = [...tp.q(%d, ".seat-workers").querySelectorAll(".board-col")].map((c) => c.getBoundingClientRect()); const s = tp.q(%d, ".board-shared").getBoundingClientRect(); return a.right <= s.left && s.right <= b.left; })()`, n, n))
	if !between {
		t.Errorf("the shared rows do not stand between the two columns")
	}
	if !js[bool](t, ctx, fmt.Sprintf(`!!tp.q(%d, ".board-shared table.seat-jobs") && !!tp.q(%d, ".board-shared table.seat-locks")`, n, n)) {
		t.Errorf("the shared rows lack the job's row or the lock's")
	}
	effectCols := js[[]string](t, ctx, fmt.Sprintf(`[...tp.q(%d, "table.seat-effects thead tr").cells].map((c) => c.textContent)`, n))

	// A click on W2's column steps W2; key 1 steps W1.
	js[bool](t, ctx, fmt.Sprintf(`tp.q(%d, ".seat-panel").dataset.state = "", tp.q(%d, '.board-col[data-worker="W2"]').click(), true`, n, n))
	js[string](t, ctx, fmt.Sprintf(`tp.settle(%d)`, n))
	js[bool](t, ctx, fmt.Sprintf(`tp.q(%d, ".seat-play").focus(), true`, n))
	seatKey(t, ctx, n, "1")
	got = cols(t, ctx, n)
	if got[0].At != 1 || got[1].At != 1 || len(got[0].Ran) != 1 || len(got[1].Ran) != 1 {
		t.Errorf("after W2's step and W1's, the columns: %+v", got)
	}
	if s := seatSteps(t, ctx, n); s != 2 {
		t.Errorf("%d steps after a click and a key", s)
	}

	// The claim toggle swaps the programs in place.
	for _, claim := range []string{"read", "lock", "atomic", "async-lock"} {
		js[string](t, ctx, fmt.Sprintf(`tp.panel(%d, ".seat-panel", () => tp.q(%d, 'input[type="radio"][value="%s"]').click())`, n, n, claim))
		run(t, ctx, 30*time.Second, chromedp.Poll[bool](fmt.Sprintf(`tp.q(%d, ".seat-goal").textContent.includes("claim=%s,") && tp.q(%d, ".seat-panel").dataset.state === "done"`, n, claim, n)))
		sameLines(t, claim, cols(t, ctx, n), programs(t, "race "+claim))
	}

	// Other races, as the runtime's view of a block gives them.
	for _, src := range []string{
		"race read 1 --workers 3\n",
		"race lock 1 --heartbeat 100\n",
		"race atomic 1 --fence\n",
		"service --dedupe claim\nrace read 1 --key job\n",
		"race read 1 --effect ledger\n",
	} {
		r := interp.Run(src, interp.Options{Seed: interp.DefaultSeed})
		if r.Error != nil || r.Views.Scheduler.Script == "" {
			t.Fatalf("%q: %v", src, r.Error)
		}
		view, _ := json.Marshal(r.Views.Scheduler)
		if s := js[string](t, ctx, fmt.Sprintf(`tp.panel(%d, ".seat-panel", () => tp.el(%d).ui.seat.open(%s))`, n, n, view)); s != "done" {
			t.Fatalf("%q: the board ended in %q", src, s)
		}
		sameLines(t, src, cols(t, ctx, n), programs(t, r.Views.Scheduler.Script))
	}

	// A block has two players, the timeline's and the board's: the
	// selectors name the board's (.seat-panel).

	// The player plays a whole ordering of the lock claim: no ordering
	// duplicates, and the board says so at the end.
	view, _ := json.Marshal(interp.Run("race lock 1\n", interp.Options{Seed: interp.DefaultSeed}).Views.Scheduler)
	js[string](t, ctx, fmt.Sprintf(`tp.panel(%d, ".seat-panel", () => tp.el(%d).ui.seat.open(%s))`, n, n, view))
	ordering := interp.Run("race lock --schedule -\n", interp.Options{Seed: interp.DefaultSeed}).Schedule.Ordering
	js[bool](t, ctx, fmt.Sprintf(`(() => { const s = tp.q(%d, ".seat-panel .player-speed"); s.value = String(s.options.length - 1); tp.q(%d, ".seat-panel .player-play").click(); return true; })()`, n, n))
	run(t, ctx, 120*time.Second, chromedp.Poll[bool](fmt.Sprintf(`tp.q(%d, ".seat-panel .player").dataset.playing === "false" && tp.q(%d, ".seat-panel").dataset.state === "done"`, n, n)))
	if s := seatSteps(t, ctx, n); s != len(ordering) {
		t.Errorf("Play took %d steps; the runtime's ordering has %d", s, len(ordering))
	}
	if out := js[string](t, ctx, fmt.Sprintf(`tp.q(%d, ".seat-outcome").textContent`, n)); !strings.Contains(out, "You cannot win this one") || !strings.Contains(out, "no ordering of the ") {
		t.Errorf("the played lock race ends with %q", out)
	}
	for _, c := range cols(t, ctx, n) {
		if c.State != "finished" && c.State != "stopped" {
			t.Errorf("after the whole ordering %s's column is %q", c.Worker, c.State)
		}
	}
	if got := js[[]string](t, ctx, fmt.Sprintf(`[...tp.q(%d, "table.seat-effects thead tr").cells].map((c) => c.textContent)`, n)); strings.Join(got, ",") != strings.Join(effectCols, ",") {
		t.Errorf("the effects table's columns were %q at the start and are %q at the end", effectCols, got)
	}
	// The slider, by keyboard: one step back.
	js[bool](t, ctx, fmt.Sprintf(`tp.q(%d, ".seat-panel").dataset.state = "", tp.q(%d, ".seat-panel .player-slider").focus(), true`, n, n))
	run(t, ctx, 5*time.Second, chromedp.KeyEvent(kb.ArrowLeft))
	run(t, ctx, 30*time.Second, chromedp.Poll[bool](fmt.Sprintf(`tp.q(%d, ".seat-panel").dataset.state === "done"`, n)))
	if s := seatSteps(t, ctx, n); s != len(ordering)-1 {
		t.Errorf("the slider's ArrowLeft left %d steps, want %d", s, len(ordering)-1)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestBrowserBoardLessons reads the board where the lessons use it:
// lesson 4's race opens on the board in place of a static table and
// plays the explorer's shortest duplicating ordering by itself into two
// effects (without animation for a reader who asks for reduced motion).
func TestBrowserBoardLessons(t *testing.T) {
	hs := httptest.NewServer(browserSite(t))
	defer hs.Close()
	ctx, consoleErrors := browser(t, 1280, 900)
	setMedia(t, ctx, "prefers-reduced-motion", "reduce")
	navigate(t, ctx, hs.URL+"/lessons/claim-race/")
	js[bool](t, ctx, exploreHelpers+";"+boardHelpers)
	if js[bool](t, ctx, `[...document.querySelectorAll("main table, article table")].some((t) => /\bW1\b/.test(t.textContent) && /\bW2\b/.test(t.textContent))`) {
		t.Errorf("lesson 4 still draws the race as a static table")
	}
	n := js[int](t, ctx, `[...document.querySelectorAll("twice-playground")].findIndex((el) => el.getAttribute("view") === "scheduler")`)
	if n < 0 {
		t.Fatal("lesson 4 has no block that opens on the board")
	}
	if sel := js[string](t, ctx, fmt.Sprintf(`tp.q(%d, "#tab-scheduler").getAttribute("aria-selected")`, n)); sel != "true" {
		t.Errorf("the block opens on another view (scheduler tab aria-selected=%s)", sel)
	}
	js[bool](t, ctx, fmt.Sprintf(`tp.el(%d).scrollIntoView(), true`, n))
	shortest := interp.Run("race read --all\n", interp.Options{Seed: interp.DefaultSeed}).Explorations[0].Shortest
	run(t, ctx, 90*time.Second, chromedp.Poll[bool](fmt.Sprintf(`tp.q(%d, ".seat-steps").children.length === %d && tp.q(%d, ".seat-panel .player").dataset.playing === "false" && tp.q(%d, ".seat-panel").dataset.state === "done"`, n, len(shortest), n, n)))
	steps := js[[]string](t, ctx, fmt.Sprintf(`[...tp.q(%d, ".seat-steps").children].map((li) => li.textContent)`, n))
	for i, s := range shortest {
		if !strings.HasPrefix(steps[i], s.Worker+" ") {
			t.Errorf("played step %d is %q, the explorer's shortest ordering has %s there", i+1, steps[i], s.Worker)
		}
	}
	if out := js[string](t, ctx, fmt.Sprintf(`tp.q(%d, ".seat-outcome").textContent`, n)); !strings.Contains(out, "two effects landed for one job") {
		t.Errorf("the played race ends with %q", out)
	}
	if d := js[string](t, ctx, fmt.Sprintf(`getComputedStyle(tp.q(%d, ".board-line")).transitionDuration`, n)); d != "0s" {
		t.Errorf("with reduced motion the board's lines still move: transition %s", d)
	}
	setMedia(t, ctx, "prefers-reduced-motion", "")
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestBrowserCaseLockTrace reads the case page's lock trace: the two
// workers' steps interleaved in the order they ran, W1's check, then
// W2's, before either sets.
func TestBrowserCaseLockTrace(t *testing.T) {
	hs := httptest.NewServer(browserSite(t))
	defer hs.Close()
	ctx, consoleErrors := browser(t, 1280, 900)

	navigate(t, ctx, hs.URL+"/cases/two-workers-completed/")
	trace := js[string](t, ctx, `document.querySelector(".desk-locks code").textContent`)
	var who []string
	for _, l := range strings.Split(strings.TrimSpace(trace), "\n") {
		f := strings.Fields(l)
		if len(f) < 4 {
			t.Fatalf("lock trace line %q has no instant and worker", l)
		}
		who = append(who, f[2])
	}
	if len(who) < 4 || who[0] == who[1] {
		t.Errorf("the lock trace does not interleave the workers:\n%s", trace)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestBrowserSchedulerEffectColumns plays the async-lock race to two
// effects by keyboard: the effects table has the same columns before the
// first step as after the last.
func TestBrowserSchedulerEffectColumns(t *testing.T) {
	hs := httptest.NewServer(browserSite(t))
	defer hs.Close()
	ctx, consoleErrors := browser(t, 1280, 900)
	navigate(t, ctx, hs.URL+"/lessons/lock-that-awaits/")
	js[bool](t, ctx, exploreHelpers+"; localStorage.clear(), true")
	n := seatBlock(t, ctx, "race async-lock 1\n")
	if s := js[string](t, ctx, fmt.Sprintf(`tp.panel(%d, ".seat-panel", () => tp.tab(%d, "scheduler"))`, n, n)); s != "done" {
		t.Fatalf("the scheduler ended in %q", s)
	}
	heads := func() string {
		return strings.Join(js[[]string](t, ctx, fmt.Sprintf(`[...tp.q(%d, "table.seat-effects thead tr").cells].map((c) => c.textContent)`, n)), ",")
	}
	before := heads()
	js[bool](t, ctx, fmt.Sprintf(`tp.q(%d, ".seat-play").focus(), true`, n))
	for _, s := range interp.Run("race async-lock --all\n", interp.Options{Seed: interp.DefaultSeed}).Explorations[0].Shortest {
		seatKey(t, ctx, n, strings.TrimPrefix(s.Worker, "W"))
	}
	if rows := js[int](t, ctx, fmt.Sprintf(`tp.table(%d, "table.seat-effects").length`, n)); rows != 2 {
		t.Fatalf("%d effects after the shortest ordering", rows)
	}
	if after := heads(); after != before {
		t.Errorf("the effects table's columns were %q before the first step and are %q after the last", before, after)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
