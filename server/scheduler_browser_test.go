package server

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/twice-lab/twice/runtime/script/interp"
	"github.com/twice-lab/twice/runtime/script/result"
)

// TestBrowserScheduler plays Be the scheduler by keyboard on the lock
// lesson, at a phone's width and a desktop's: against async-lock to a win
// in the explorer's shortest ordering (Backspace undoes on the way), then
// from its share link in a fresh page; against lock through every step to
// the end, where the explorer's proof shows and not one step before. The
// buttons wrap and the page never scrolls sideways; progress is shown,
// kept across a reload and cleared.
func TestBrowserScheduler(t *testing.T) {
	hs := httptest.NewServer(browserSite(t))
	defer hs.Close()
	explored := func(src string) result.Exploration {
		r := interp.Run(src, interp.Options{Seed: interp.DefaultSeed})
		if r.Error != nil || len(r.Explorations) != 1 {
			t.Fatalf("%s: %v", src, r.Error)
		}
		return r.Explorations[0]
	}
	broken, held := explored("race async-lock --all\n"), explored("race lock --all\n")
	if broken.Duplicating == "0" || len(broken.Shortest) == 0 || held.Duplicating != "0" {
		t.Fatalf("async-lock duplicates in %s of %s orderings, lock in %s of %s", broken.Duplicating, broken.Orderings, held.Duplicating, held.Orderings)
	}
	page := hs.URL + "/lessons/lock-that-awaits/"
	for _, width := range []int{390, 1280} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			ctx, consoleErrors := browser(t, width, 900)
			navigate(t, ctx, page)
			js[bool](t, ctx, exploreHelpers+`; localStorage.clear(), true`)
			n := seatBlock(t, ctx, "race async-lock 1\n")
			open := func(n int) {
				t.Helper()
				if s := js[string](t, ctx, fmt.Sprintf(`tp.panel(%d, ".seat-panel", () => tp.tab(%d, "scheduler"))`, n, n)); s != "done" {
					t.Fatalf("the scheduler view ended in %q: %s", s, js[string](t, ctx, fmt.Sprintf(`tp.q(%d, ".seat-panel").textContent`, n)))
				}
				// From the view's tab, Tab reaches the view: the keys work
				// from there, as from any of its buttons.
				js[bool](t, ctx, fmt.Sprintf(`tp.q(%d, "#tab-scheduler").focus(), true`, n))
				run(t, ctx, 5*time.Second, chromedp.KeyEvent(kb.Tab))
				if !js[bool](t, ctx, fmt.Sprintf(`tp.el(%d).shadowRoot.activeElement === tp.q(%d, ".seat-play")`, n, n)) {
					t.Fatalf("Tab from the scheduler's tab does not reach the view")
				}
			}
			open(n)
			if goal := js[string](t, ctx, fmt.Sprintf(`tp.q(%d, ".seat-goal").textContent`, n)); !strings.Contains(goal, "make two effects land for one job") {
				t.Errorf("the goal is not stated: %q", goal)
			}
			// The buttons name each worker's next step (the text a screen
			// reader says; the board marks it on the program), all of
			// them on the screen, and nothing scrolls sideways.
			labels := js[[]string](t, ctx, fmt.Sprintf(`[...tp.q(%d, ".seat-workers").querySelectorAll("button")].map((b) => b.textContent)`, n))
			if len(labels) != 2 || !strings.Contains(labels[0], "W1") || !strings.Contains(labels[0], "SELECT owner FROM locks") {
				t.Errorf("the workers' buttons: %q", labels)
			}
			if off := js[string](t, ctx, fmt.Sprintf(`[...tp.q(%d, ".seat-workers").querySelectorAll("button")].map((b) => b.getBoundingClientRect()).filter((r) => r.left < 0 || r.right > innerWidth).length + ""`, n)); off != "0" {
				t.Errorf("%s worker buttons stick out of the window", off)
			}
			if o := js[string](t, ctx, fmt.Sprintf(`getComputedStyle(tp.q(%d, ".seat-play")).outlineStyle`, n)); o == "none" {
				t.Errorf("the focused view shows no focus ring")
			}
			noSideScroll(t, ctx, width)

			// A win in the shortest ordering, with one step undone and
			// taken again on the way.
			var keys []string
			for _, s := range broken.Shortest {
				keys = append(keys, strings.TrimPrefix(s.Worker, "W"))
			}
			for i, k := range keys {
				seatKey(t, ctx, n, k)
				if i == 2 {
					seatKey(t, ctx, n, kb.Backspace)
					if got := seatSteps(t, ctx, n); got != i {
						t.Fatalf("Backspace left %d steps, want %d", got, i)
					}
					seatKey(t, ctx, n, k)
				}
				if got := seatSteps(t, ctx, n); got != i+1 {
					t.Fatalf("after key %d of %v: %d steps shown", i+1, keys, got)
				}
				status := js[string](t, ctx, fmt.Sprintf(`tp.q(%d, ".seat-status").textContent`, n))
				if !strings.HasPrefix(status, fmt.Sprintf("Step %d: W%s ", i+1, k)) {
					t.Errorf("the status after step %d says %q", i+1, status)
				}
			}
			outcome := js[string](t, ctx, fmt.Sprintf(`tp.q(%d, ".seat-outcome").hidden ? "" : tp.q(%d, ".seat-outcome").textContent`, n, n))
			want := fmt.Sprintf("two effects landed for one job, in %d steps, as short as any ordering that does", len(keys))
			if !strings.Contains(outcome, want) {
				t.Errorf("the outcome says %q, want %q", outcome, want)
			}
			if st := js[string](t, ctx, fmt.Sprintf(`tp.q(%d, ".seat-status").textContent`, n)); !strings.Contains(st, "Goal reached") {
				t.Errorf("the status region does not announce the win: %q", st)
			}
			if rows := js[int](t, ctx, fmt.Sprintf(`tp.table(%d, "table.seat-effects").length`, n)); rows != 2 {
				t.Errorf("the effects table shows %d rows at the win", rows)
			}
			if p := js[string](t, ctx, fmt.Sprintf(`tp.q(%d, ".seat-progress").hidden ? "" : tp.q(%d, ".seat-progress-list").textContent`, n, n)); !strings.Contains(p, "claim=async-lock, 2 workers: broken by 1 schedule") {
				t.Errorf("the progress says %q", p)
			}
			// The progress is the page's: another block's view, never
			// opened, shows the win as soon as it is kept.
			if m := seatBlock(t, ctx, "race lock 20\n"); m != n {
				if p := js[string](t, ctx, fmt.Sprintf(`tp.q(%d, ".seat-progress").hidden ? "" : tp.q(%d, ".seat-progress-list").textContent`, m, m)); !strings.Contains(p, "claim=async-lock, 2 workers: broken by 1 schedule") {
					t.Errorf("another block's progress says %q after the win", p)
				}
			}
			noSideScroll(t, ctx, width)
			link := js[string](t, ctx, fmt.Sprintf(`tp.el(%d).ui.seat.o.link(tp.el(%d).ui.seat.schedule)`, n, n))
			if !strings.Contains(link, "view=scheduler") || !strings.Contains(link, "schedule="+strings.Join(workerNames(broken.Shortest), "%2C")) {
				t.Errorf("the share link does not carry the schedule: %s", link)
			}

			// lock: every step to the end, the proof only there.
			m := seatBlock(t, ctx, "race lock 20\n")
			open(m)
			for step := 1; ; step++ {
				if step > 40 {
					t.Fatal("the lock race never ended")
				}
				// Alternate the workers while both have a step.
				free := js[[]string](t, ctx, fmt.Sprintf(`[...tp.q(%d, ".seat-workers").querySelectorAll("button:not([disabled])")].map((b) => b.dataset.worker.slice(1))`, m))
				if len(free) == 0 {
					break
				}
				if out := js[string](t, ctx, fmt.Sprintf(`tp.q(%d, ".seat-panel").textContent`, m)); strings.Contains(out, "no ordering of the") {
					t.Fatalf("the proof shows before the reader finished, at step %d", step)
				}
				seatKey(t, ctx, m, free[step%len(free)])
			}
			proof := js[string](t, ctx, fmt.Sprintf(`tp.q(%d, ".seat-outcome").textContent`, m))
			if want := "no ordering of the " + held.Orderings + " there are gives two effects with claim=lock"; !strings.Contains(proof, want) {
				t.Errorf("the end of the lock race says %q, want %q", proof, want)
			}
			if p := js[string](t, ctx, fmt.Sprintf(`tp.q(%d, ".seat-progress-list").textContent`, m)); !strings.Contains(p, "claim=lock, 2 workers: held") {
				t.Errorf("the progress does not keep the held lock: %q", p)
			}
			noSideScroll(t, ctx, width)

			// The share link, in a fresh page, replays the win; the
			// progress is still there, and Clear forgets it.
			navigate(t, ctx, "about:blank")
			navigate(t, ctx, link)
			js[bool](t, ctx, exploreHelpers)
			run(t, ctx, 60*time.Second, chromedp.Poll[bool](fmt.Sprintf(`tp.q(%d, ".seat-panel").dataset.state === "done" && !tp.q(%d, ".seat-panel").hidden`, n, n)))
			if got := seatSteps(t, ctx, n); got != len(keys) {
				t.Errorf("the link replays %d steps, want %d", got, len(keys))
			}
			if out := js[string](t, ctx, fmt.Sprintf(`tp.q(%d, ".seat-outcome").textContent`, n)); !strings.Contains(out, "Goal reached") {
				t.Errorf("the linked schedule ends with %q", out)
			}
			if js[bool](t, ctx, fmt.Sprintf(`tp.q(%d, ".seat-progress").hidden`, m)) {
				t.Errorf("before Clear, the lock block's progress is hidden")
			}
			js[bool](t, ctx, fmt.Sprintf(`tp.q(%d, ".seat-clear").click(), true`, n))
			if !js[bool](t, ctx, fmt.Sprintf(`tp.q(%d, ".seat-progress").hidden && localStorage.length === 0`, n)) {
				t.Errorf("Clear left progress behind")
			}
			// Every block of the page shows it cleared, not only the one
			// whose button was pressed.
			if p := js[string](t, ctx, fmt.Sprintf(`tp.q(%d, ".seat-progress").hidden ? "" : tp.q(%d, ".seat-progress-list").textContent`, m, m)); p != "" {
				t.Errorf("after Clear on one block, another block still lists %q", p)
			}
			if errs := consoleErrors(); len(errs) > 0 {
				t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
			}
		})
	}
}

// seatBlock returns the index of the first block whose script starts with src.
func seatBlock(t *testing.T, ctx context.Context, src string) int {
	t.Helper()
	i := js[int](t, ctx, fmt.Sprintf(`[...document.querySelectorAll("twice-playground")].findIndex((el) => el.shadowRoot.querySelector("textarea.script").value.startsWith(%q))`, src))
	if i < 0 {
		t.Fatalf("no block holds %q", src)
	}
	return i
}

// seatKey presses key in block n's scheduler view and waits for the step.
func seatKey(t *testing.T, ctx context.Context, n int, key string) {
	t.Helper()
	js[bool](t, ctx, fmt.Sprintf(`tp.q(%d, ".seat-panel").dataset.state = "", true`, n))
	run(t, ctx, 5*time.Second, chromedp.KeyEvent(key))
	run(t, ctx, 30*time.Second, chromedp.Poll[bool](fmt.Sprintf(`tp.q(%d, ".seat-panel").dataset.state === "done"`, n)))
}

// seatSteps is how many steps block n's view lists.
func seatSteps(t *testing.T, ctx context.Context, n int) int {
	t.Helper()
	return js[int](t, ctx, fmt.Sprintf(`tp.q(%d, ".seat-steps").children.length`, n))
}

func workerNames(steps []result.ExploreStep) []string {
	var ws []string
	for _, s := range steps {
		ws = append(ws, s.Worker)
	}
	return ws
}

func noSideScroll(t *testing.T, ctx context.Context, width int) {
	t.Helper()
	if over := js[float64](t, ctx, `document.documentElement.scrollWidth - innerWidth`); over > 0 {
		t.Errorf("at %d px the page scrolls sideways by %.0f px", width, over)
	}
}
