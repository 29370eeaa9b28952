package server

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/twice-lab/twice/runtime/event"
	"github.com/twice-lab/twice/runtime/script/diagnosis"
	"github.com/twice-lab/twice/runtime/script/interp"
	"github.com/twice-lab/twice/runtime/script/result"
)

// The browser side of the views beyond the transcript: share links, the timeline, the keyboard
// step-through, compare and "Check every interleaving", in headless
// Chromium (same harness, skip and require rules as browser_test.go).

// Page-side helpers for the new views, on top of tp (browser_test.go).
const exploreHelpers = `
Object.assign(window.tp, {
  // tab opens a view and resolves once it is filled: the timeline of a
  // run shown is drawn when its tab opens (or the run made again).
  tab: (n, view) => {
    const el = tp.el(n);
    tp.q(n, "#tab-" + view).click();
    return new Promise((resolve) => {
      const check = () => (el.timeline.drawing || ["running", "loading"].includes(el.getAttribute("state")) ? setTimeout(check, 10) : resolve(true));
      check();
    });
  },
  // svg decodes the timeline picture and parses it, for inspection only
  // (without its <style>, which the page's CSP would refuse to apply).
  svg: (n) => {
    const src = tp.q(n, ".tl-img").getAttribute("src") || "";
    const prefix = "data:image/svg+xml;charset=utf-8,";
    if (!src.startsWith(prefix)) return null;
    const text = decodeURIComponent(src.slice(prefix.length)).replace(/<style[^>]*>[\s\S]*?<\/style>/g, "");
    return new DOMParser().parseFromString(text, "image/svg+xml");
  },
  evidence: (n) => Array.from(tp.q(n, ".diagnosis").querySelectorAll("dt")).map((dt) => dt.textContent + "=" + dt.nextElementSibling.textContent),
  dups: (n) => { const d = tp.svg(n); return d ? d.querySelectorAll(".dup").length : -1; },
  table: (n, sel) => Array.from(tp.q(n, sel + " tbody").rows)
    .filter((r) => !r.querySelector("td.none"))
    .map((r) => Array.from(r.cells).map((c) => c.textContent)),
  changed: (n, sel) => Array.from(tp.q(n, sel + " tbody").rows).findIndex((r) => r.classList.contains("changed")),
  // panel waits for a panel's data-state to settle after act().
  panel: (n, sel, act) => new Promise((resolve, reject) => {
    const p = tp.q(n, sel);
    const start = performance.now();
    p.dataset.state = "";
    act();
    const check = () => {
      const s = p.dataset.state;
      if (s === "done" || s === "error") { resolve(s); return; }
      if (performance.now() - start > 120000) { reject(new Error("panel " + sel + " never settled")); return; }
      setTimeout(check, 10);
    };
    check();
  }),
});
true`

// runIDs lists the run ids a transcript names, in order.
func runIDs(s string) []string {
	return regexp.MustCompile(`\brun ([0-9a-f]{8})\b`).FindAllString(s, -1)
}

// replayTrace is the Go side of the step-through: the tables after event k.
func replayTrace(trace []result.Event, k int) (jobs []result.Job, effects []result.Effect) {
	byID := map[int64]result.Job{}
	for _, ev := range trace[:k+1] {
		if ev.Kind == event.Reset {
			byID = map[int64]result.Job{}
			effects = nil
		}
		if ev.Job != nil {
			byID[ev.Job.ID] = *ev.Job
		}
		if ev.Effect != nil {
			effects = append(effects, *ev.Effect)
		}
	}
	for _, j := range byID {
		jobs = append(jobs, j)
	}
	slices.SortFunc(jobs, func(a, b result.Job) int { return int(a.ID - b.ID) })
	return jobs, effects
}

func msText(us int64) string { return fmt.Sprintf("%d.%03d", us/1000, us%1000) }

func TestBrowserExplore(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	srv := browserSite(t)
	served := httptest.NewServer(srv)
	defer served.Close()
	dir := t.TempDir()
	if err := srv.Site().Export(dir); err != nil {
		t.Fatal(err)
	}
	exported := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer exported.Close()

	nav := func(url string) {
		t.Helper()
		navigate(t, ctx, url)
		js[bool](t, ctx, exploreHelpers)
	}

	// The share link's encoding round-trips awkward scripts in the page,
	// and "Copy as command" quotes them so that a shell gives them back.
	nav(served.URL + "/lessons/claim-race/")
	for _, src := range []string{
		"race read 5\neffects\n",
		"# it's a 'quoted' comment & more: #x?y=z+1 %41\nrace atomic 2\n",
		"work --job 1 --claim read ; echo \"ünïcödé\" \\ $HOME `x`\n",
	} {
		for _, view := range []string{"output", "timeline", "compare", "interleavings"} {
			got := js[map[string]any](t, ctx, fmt.Sprintf(
				`TwicePlayground.parseLink(TwicePlayground.linkHash("block-2", {seed: "99", script: %q, view: %q, step: 4, workers: 3}), "block-2")`, src, view))
			if got["script"] != src || got["seed"] != "99" || got["view"] != view {
				t.Errorf("link round trip of %q (%s): %v", src, view, got)
			}
		}
		cmd := js[string](t, ctx, fmt.Sprintf(`TwicePlayground.commandFor(%q, "7")`, src))
		prefix := "twice run --seed 7 -c "
		if !strings.HasPrefix(cmd, prefix) {
			t.Fatalf("command %q", cmd)
		}
		out, err := exec.Command("sh", "-c", "printf %s "+strings.TrimPrefix(cmd, prefix)).Output()
		if err != nil {
			t.Fatalf("sh: %v", err)
		}
		if string(out) != strings.TrimRight(src, "\n") {
			t.Errorf("the shell reads %q back as %q", cmd, out)
		}
	}
	if got := js[map[string]any](t, ctx, `TwicePlayground.parseLink("#block-1?seed=5&script=race+read+2%0A&claim=atomic", "block-1")`); got["script"] != "race read 2\n" || got["claim"] != "atomic" {
		t.Errorf("a link whose claim disagrees with its script: %v; want its script and claim as they came", got)
	}

	// A share link opens the same run as interp.Run at that seed, on the
	// server and in the static export, straight into the timeline.
	const seed = 31337
	src := "race read 1\neffects\n"
	native := interp.Run(src, interp.Options{Seed: seed, Timeline: true})
	if native.Timeline == nil || !strings.Contains(native.Timeline.SVG, `class="dup"`) {
		t.Fatalf("native run of %q at seed %d draws no duplicate; pick another seed", src, seed)
	}
	link := "#block-1?" + neturl.Values{"seed": {strconv.Itoa(seed)}, "script": {src}, "claim": {"read"}, "view": {"timeline"}}.Encode()
	for _, base := range []string{served.URL, exported.URL} {
		nav(base + "/lessons/claim-race/?shared" + link) // a new document, not a jump within one
		run(t, ctx, 60*time.Second, chromedp.Poll[bool](`tp.state(0) === "done"`))
		got := js[string](t, ctx, `tp.transcript(0)`)
		if got != shownText(native) {
			t.Errorf("%s: the share link replayed\n%s\nwant (interp.Run at seed %d):\n%s", base, got, seed, shownText(native))
		}
		if ids, want := runIDs(got), runIDs(native.Text()); len(want) == 0 || !slices.Equal(ids, want) {
			t.Errorf("%s: run ids %q, want %q", base, ids, want)
		}
		if sel := js[string](t, ctx, `tp.q(0, "[role=tab][aria-selected=true]").dataset.view`); sel != "timeline" {
			t.Errorf("%s: the link opened the %q view, want timeline", base, sel)
		}
	}

	// A hand-edited link whose claim is not its script's: the runtime sets
	// the claim in the script, its comments and spacing kept, and it runs.
	edited := "add read-conditional # race read\nrace   read 2\n"
	nav(served.URL + "/lessons/claim-race/?edited#block-1?" + neturl.Values{"seed": {"5"}, "script": {edited}, "claim": {"atomic"}}.Encode())
	run(t, ctx, 60*time.Second, chromedp.Poll[bool](`tp.state(0) === "done"`))
	want := "add read-conditional # race read\nrace   atomic 2\n"
	if got := js[string](t, ctx, `tp.q(0, "textarea.script").value`); got != want {
		t.Errorf("the edited link's script reads %q, want %q", got, want)
	}
	if got, w := js[string](t, ctx, `tp.transcript(0)`), shownText(interp.Run(want, interp.Options{Seed: 5})); got != w {
		t.Errorf("the edited link ran\n%s\nwant\n%s", got, w)
	}
	nav(exported.URL + "/lessons/claim-race/?shared" + link) // back to the timeline the steps below read
	run(t, ctx, 60*time.Second, chromedp.Poll[bool](`tp.state(0) === "done"`))

	// The timeline on its time scale: the runtime's SVG, the duplicate
	// highlighted.
	js[bool](t, ctx, timeScale(0))
	if n := js[int](t, ctx, `tp.dups(0)`); n < 1 {
		t.Errorf("the read race's timeline has %d elements of class dup", n)
	}
	if root := js[string](t, ctx, `tp.svg(0).documentElement.localName`); root != "svg" {
		t.Errorf("timeline root element %q", root)
	}
	if alt := js[string](t, ctx, `tp.q(0, ".tl-img").alt`); !strings.Contains(alt, "duplicate") {
		t.Errorf("timeline alt text %q does not mention the duplicate", alt)
	}
	if !js[bool](t, ctx, `tp.q(0, ".tl-img").complete && tp.q(0, ".tl-img").naturalWidth > 0`) {
		t.Errorf("the timeline image did not load")
	}

	// Step-through with the keyboard: each ArrowRight shows the next event
	// and the tables as replaying the trace up to it gives.
	trace := native.Trace
	js[bool](t, ctx, `tp.q(0, ".step-area").focus(), true`)
	check := func(k int) {
		t.Helper()
		ev := trace[k]
		if c := js[string](t, ctx, `tp.q(0, ".step-count").textContent`); c != fmt.Sprintf("Step %d of %d", k+1, len(trace)) {
			t.Errorf("step %d: counter %q", k, c)
		}
		what := js[string](t, ctx, `tp.q(0, ".step-what").textContent`)
		if !strings.Contains(what, ev.Step) || !strings.Contains(what, ev.Proc) || !strings.Contains(what, msText(ev.AtUS)) {
			t.Errorf("step %d shows %q, want the event %+v", k, what, ev)
		}
		if live := js[string](t, ctx, `tp.q(0, ".stepper [aria-live]").textContent`); !strings.Contains(live, ev.Step) {
			t.Errorf("step %d: screen readers hear %q", k, live)
		}
		jobs, effects := replayTrace(trace, k)
		var wantJobs, wantEffects [][]string
		for _, j := range jobs {
			run := j.Run
			if run == "" {
				run = "-"
			}
			lease := "-"
			if j.LeaseUS != nil {
				lease = msText(*j.LeaseUS)
			}
			wantJobs = append(wantJobs, []string{strconv.FormatInt(j.ID, 10), j.Order, j.Event, j.Status, strconv.Itoa(j.Attempts), run, lease})
		}
		for _, e := range effects {
			wantEffects = append(wantEffects, []string{e.Order, e.Run, strconv.Itoa(e.Attempt), "s" + strconv.Itoa(e.Send), e.Worker, msText(e.AtUS)})
		}
		if got := js[[][]string](t, ctx, `tp.table(0, ".step-jobs")`); !slices.EqualFunc(got, wantJobs, slices.Equal) {
			t.Errorf("step %d (%s): jobs %q, want %q", k, ev.Step, got, wantJobs)
		}
		if got := js[[][]string](t, ctx, `tp.table(0, ".step-effects")`); !slices.EqualFunc(got, wantEffects, slices.Equal) {
			t.Errorf("step %d (%s): effects %q, want %q", k, ev.Step, got, wantEffects)
		}
		changed := js[int](t, ctx, `tp.changed(0, ".step-jobs")`)
		if (ev.Job != nil) != (changed >= 0) {
			t.Errorf("step %d (%s): highlighted jobs row %d, but the event changes job %v", k, ev.Kind, changed, ev.Job)
		}
		if e := js[int](t, ctx, `tp.changed(0, ".step-effects")`); (ev.Effect != nil) != (e >= 0) {
			t.Errorf("step %d (%s): highlighted effects row %d", k, ev.Kind, e)
		}
		x := js[float64](t, ctx, `parseFloat(tp.q(0, ".tl-cursor").style.left)`)
		if want := float64(native.Timeline.EventX[k]) * 100 / float64(native.Timeline.Width); x < want-0.01 || x > want+0.01 {
			t.Errorf("step %d: cursor at %.3f%%, want %.3f%%", k, x, want)
		}
	}
	check(0)
	sawClaim, sawDup := false, false
	for k := 1; k < len(trace); k++ {
		run(t, ctx, 10*time.Second, chromedp.KeyEvent(kb.ArrowRight))
		check(k)
		sawClaim = sawClaim || trace[k].Kind == event.Claim
		if trace[k].Effect != nil && strings.Contains(js[string](t, ctx, `tp.q(0, ".step-change").textContent`), "duplicate") {
			sawDup = true
		}
	}
	if !sawClaim || !sawDup {
		t.Errorf("stepping through the race saw a claim %v and the duplicate %v", sawClaim, sawDup)
	}
	run(t, ctx, 10*time.Second, chromedp.KeyEvent(kb.ArrowRight)) // stays on the last step
	check(len(trace) - 1)
	run(t, ctx, 10*time.Second, chromedp.KeyEvent(kb.ArrowLeft))
	check(len(trace) - 2)
	run(t, ctx, 10*time.Second, chromedp.KeyEvent(kb.Home))
	check(0)
	js[bool](t, ctx, `tp.q(0, "button.next").click(), tp.q(0, "button.next").click(), true`)
	check(2)
	if l := js[string](t, ctx, `tp.q(0, ".permalink").href`); !strings.Contains(l, "view=timeline") || !strings.Contains(l, "step=3") {
		t.Errorf("the link does not keep the view and step: %q", l)
	}

	// A click on the picture jumps to the step drawn there: aim at the
	// duplicate effect. Several events can be drawn at one x; the first
	// click takes the first of them, the next click the one after.
	dup, effects := -1, 0
	for k, ev := range trace {
		if ev.Effect != nil {
			if effects++; effects == 2 {
				dup = k
				break
			}
		}
	}
	if dup < 0 {
		t.Fatal("the read race has no second effect to aim at")
	}
	ex := native.Timeline.EventX
	var drawnThere []int
	for i, x := range ex {
		if x == ex[dup] {
			drawnThere = append(drawnThere, i)
		}
	}
	box := js[[]float64](t, ctx, `(() => { const r = tp.q(0, ".tl-inner"); r.scrollIntoView({ block: "center" }); const b = r.getBoundingClientRect(); return [b.left, b.top, b.width, b.height]; })()`)
	px, py := box[0]+float64(ex[dup])*box[2]/float64(native.Timeline.Width), box[1]+box[3]/2
	next := func(cur int) int {
		if i := slices.Index(drawnThere, cur); i >= 0 {
			return drawnThere[(i+1)%len(drawnThere)]
		}
		return drawnThere[0]
	}
	step := next(2)
	run(t, ctx, 10*time.Second, chromedp.MouseClickXY(px, py))
	check(step)
	if len(drawnThere) > 1 {
		step = next(step)
		run(t, ctx, 10*time.Second, chromedp.MouseClickXY(px, py))
		check(step)
	}

	// The atomic claim draws no duplicate.
	js[string](t, ctx, `tp.run(0, () => tp.q(0, "input[value=atomic]").click())`)
	if n := js[int](t, ctx, `tp.dups(0)`); n != 0 {
		t.Errorf("the atomic race's timeline has %d elements of class dup", n)
	}
	atomic := interp.Run(strings.Replace(src, "read", "atomic", 1), interp.Options{Seed: seed})
	if got := js[string](t, ctx, `tp.transcript(0)`); got != shownText(atomic) {
		t.Errorf("atomic run:\n%s\nwant:\n%s", got, atomic.Text())
	}

	// Check every interleaving: 40 of 46 for read, 0 of 6 for atomic.
	for _, tc := range []struct {
		claim, want string
		workers     int
	}{
		{"read", "40 of 46", 2},
		{"atomic", "0 of 6", 2},
		{"atomic", "0 of 36", 3},
		{"read", "of 15,049,651,113,413,821,739,520 interleavings of 8 workers", 8},
	} {
		// The claim set as the toggle sets it, by the runtime, without the
		// toggle's run.
		js[bool](t, ctx, fmt.Sprintf(`(async () => {
			const r = tp.q(0, "input[value=%[1]s]");
			const ta = tp.q(0, "textarea");
			if (!r.checked) { r.checked = true; ta.value = TwicePlayground.withClaim(await tp.el(0).claimsOf(ta.value), "%[1]s") || ta.value; }
			return true;
		})()`, tc.claim))
		start := time.Now()
		s := js[string](t, ctx, fmt.Sprintf(`tp.panel(0, "#panel-interleavings", () => {
			tp.q(0, ".workers").value = "%[2]d";
			tp.el(0).explore.touched = true;
			tp.q(0, ".explore-btn").click();
		})`, tc.claim, tc.workers))
		took := time.Since(start)
		head := js[string](t, ctx, `tp.q(0, ".exp-head").textContent`)
		if s != "done" || !strings.Contains(head, tc.want) {
			t.Errorf("%s, %d workers: %s %q, want %q", tc.claim, tc.workers, s, head, tc.want)
		}
		t.Logf("Check every interleaving, claim=%s, %d workers: %v from click to result; %s", tc.claim, tc.workers, took.Round(time.Millisecond), js[string](t, ctx, `tp.q(0, ".exp-time").textContent`))
		steps := js[int](t, ctx, `tp.q(0, "ol.shortest") ? tp.q(0, "ol.shortest").children.length : 0`)
		if tc.claim == "read" && steps != 6 {
			t.Errorf("read: the shortest duplicating ordering has %d steps, want 6", steps)
		}
		if tc.claim == "atomic" {
			if p := js[string](t, ctx, `tp.q(0, ".proof") ? tp.q(0, ".proof").textContent : ""`); !strings.Contains(p, "Every ordering was checked") || steps != 0 {
				t.Errorf("atomic: proof %q, %d steps", p, steps)
			}
		}
	}
	if sel := js[string](t, ctx, `tp.q(0, "[role=tab][aria-selected=true]").dataset.view`); sel != "interleavings" {
		t.Errorf("Check every interleaving left the %q view selected", sel)
	}

	// Compare: the same script and seed with each claim, side by side.
	js[bool](t, ctx, `tp.q(0, "textarea").value = "race read 20\n"; tp.q(0, ".seed input").value = "5"; true`)
	if s := js[string](t, ctx, `tp.panel(0, "#panel-compare", () => tp.tab(0, "compare"))`); s != "done" {
		t.Fatalf("compare ended in %q", s)
	}
	for _, claim := range []string{"read", "atomic"} {
		want := interp.Run("race "+claim+" 20\n", interp.Options{Seed: 5}).Text()
		if got := js[string](t, ctx, `tp.q(0, ".pane-`+claim+` pre").textContent`); got != want {
			t.Errorf("compare pane %s:\n%s\nwant:\n%s", claim, got, want)
		}
	}
	if d := js[string](t, ctx, `tp.q(0, ".pane-atomic").dataset.duplicates`); d != "0" {
		t.Errorf("the atomic pane counts %s duplicates", d)
	}
	if d := js[string](t, ctx, `tp.q(0, ".pane-read").dataset.duplicates`); d == "0" {
		t.Errorf("the read pane counts no duplicates")
	}

	// Copy as command hands over what twice run needs for this run.
	js[string](t, ctx, `tp.run(0, () => { tp.tab(0, "output"); tp.q(0, "button.run").click(); })`)
	js[bool](t, ctx, `tp.q(0, ".copy-cmd").click(), true`)
	run(t, ctx, 10*time.Second, chromedp.Poll[bool](`tp.q(0, ".copy-cmd").dataset.copied !== undefined`))
	if c := js[string](t, ctx, `tp.q(0, ".copy-cmd").dataset.copied`); c != "twice run --seed 5 -c 'race read 20'" {
		t.Errorf("Copy as command gave %q", c)
	}

	// Diagnosis beside the effects table, with its evidence.
	diag := js[string](t, ctx, `tp.q(0, ".diagnosis").textContent`) + "\n" + strings.Join(js[[]string](t, ctx, `tp.evidence(0)`), "\n")
	last := interp.Run("race read 20\n", interp.Options{Seed: 5})
	if len(last.Summary) != 1 || last.Summary[0].Kind != diagnosis.ClaimRace {
		t.Fatalf("the last race of race read 20 at seed 5 is not a claim race: %+v", last.Summary)
	}
	for _, w := range []string{"Claim race", last.Summary[0].Diagnosis, "runs=2: ", "attempts=a", "sends=s1", "gap=" + last.Summary[0].Span + " from the first effect to the last"} {
		if !strings.Contains(diag, w) {
			t.Errorf("diagnosis %q lacks %q", diag, w)
		}
	}

	// Tabs by keyboard.
	js[bool](t, ctx, `tp.q(0, "#tab-output").focus(), true`)
	run(t, ctx, 10*time.Second, chromedp.KeyEvent(kb.ArrowRight))
	if v := js[string](t, ctx, `tp.q(0, "[role=tab][aria-selected=true]").dataset.view + " " + tp.el(0).shadowRoot.activeElement.id`); v != "timeline tab-timeline" {
		t.Errorf("ArrowRight on the tabs: %q", v)
	}

	// Reduced motion: no animated cursor.
	setMedia(t, ctx, "prefers-reduced-motion", "reduce")
	if d := js[string](t, ctx, `getComputedStyle(tp.q(0, ".tl-cursor")).transitionDuration`); d != "0s" {
		t.Errorf("with reduced motion the cursor still moves in %s", d)
	}
	setMedia(t, ctx, "prefers-reduced-motion", "")

	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

func setMedia(t *testing.T, ctx context.Context, name, value string) {
	t.Helper()
	run(t, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: name, Value: value}},
		})
		return err
	}))
}

// TestBrowserExploreScreenshots keeps pictures of the new views (timeline
// with step-through, compare, every ordering) at desktop and phone width,
// light and dark, and checks that none scrolls the page sideways.
func TestBrowserExploreScreenshots(t *testing.T) {
	if testing.Short() {
		t.Skip("screenshots in -short mode")
	}
	ctx, consoleErrors := browser(t, 1280, 900)
	srv := browserSite(t)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	dir := artifactDir(t)
	link := "#block-3?" + neturl.Values{"seed": {"1"}, "script": {"race read 1\neffects\n"}, "claim": {"read"}, "view": {"timeline"}, "step": {"17"}}.Encode()
	for _, scheme := range []string{"light", "dark"} {
		setMedia(t, ctx, "prefers-color-scheme", scheme)
		for _, w := range []struct {
			name          string
			width, height int64
		}{{"desktop", 1280, 900}, {"phone", 390, 844}} {
			run(t, ctx, 10*time.Second, chromedp.EmulateViewport(w.width, w.height))
			// A query of its own makes each visit a new document.
			navigate(t, ctx, hs.URL+"/lessons/every-interleaving/?"+scheme+"-"+w.name+link)
			js[bool](t, ctx, exploreHelpers)
			run(t, ctx, 60*time.Second, chromedp.Poll[bool](`tp.state(2) === "done" && tp.q(2, ".tl-img").complete`))
			shots := []struct{ name, act string }{
				{"timeline", ``},
				{"compare", `tp.panel(2, "#panel-compare", () => tp.tab(2, "compare"))`},
				{"interleavings", `tp.panel(2, "#panel-interleavings", () => tp.q(2, ".explore-btn").click())`},
				{"output", `(tp.tab(2, "output"), "done")`},
			}
			for _, s := range shots {
				if s.act != "" {
					if st := js[string](t, ctx, s.act); st != "done" {
						t.Errorf("%s: %s", s.name, st)
					}
				}
				if over := js[float64](t, ctx, `document.documentElement.scrollWidth - innerWidth`); over > 0 {
					t.Errorf("%s view at %s width scrolls sideways by %.0f px", s.name, w.name, over)
				}
				shot := run(t, ctx, 30*time.Second, chromedp.Screenshot(chromedp.CSS("#block-3")))
				name := filepath.Join(dir, fmt.Sprintf("explore-%s-%s-%s.png", s.name, w.name, scheme))
				if err := os.WriteFile(name, shot, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("screenshot: %s", name)
			}
		}
	}
	setMedia(t, ctx, "prefers-color-scheme", "")
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
