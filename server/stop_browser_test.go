package server

import (
	"context"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/twice-lab/twice/lessons"
)

// stopHelpers count the runs the page sends to its worker, and set a
// block's script.
const stopHelpers = `
window.tpRuns = 0;
if (!Worker.prototype.__counted) {
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (m) {
    if (m && m.type === "run") window.tpRuns++;
    return post.apply(this, arguments);
  };
  Worker.prototype.__counted = true;
}
tp.set = (n, src) => { tp.q(n, "textarea").value = src; };
tp.until = (cond, ms) => new Promise((resolve, reject) => {
  const start = performance.now();
  const check = () => {
    if (cond()) { resolve(performance.now() - start); return; }
    if (performance.now() - start > ms) { reject(new Error("timed out after " + ms + " ms")); return; }
    setTimeout(check, 20);
  };
  check();
});
true`

// TestBrowserStop presses Stop during a long run: the block stops at once,
// a run queued by another block is not stuck behind it, and a small script
// run next in the same block gets its result within a couple of seconds
// from a fresh runtime. A newer Run replaces a queued one. A link to a
// heavy script does not run on load, and a link with a bad seed says so.
func TestBrowserStop(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	srv := browserSite(t)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	ls, err := lessons.Load(lessons.FS)
	if err != nil {
		t.Fatal(err)
	}
	var page string
	for _, l := range ls {
		if len(l.Blocks) >= 2 {
			page = hs.URL + "/lessons/" + l.Slug + "/"
			break
		}
	}
	if page == "" {
		t.Fatal("no lesson with two blocks")
	}
	navigate(t, ctx, page)
	js[bool](t, ctx, stopHelpers)

	// Warm up: a first run loads the runtime.
	if s := js[string](t, ctx, `tp.run(0)`); s != "done" {
		t.Fatalf("first run: state %q", s)
	}

	// A long run in block 0, and a small one queued behind it by block 1.
	js[bool](t, ctx, `tp.set(0, "race read 10000 --workers 8\n"); tp.q(0, "button.run").click(); true`)
	js[float64](t, ctx, `tp.until(() => tp.state(0) === "running" && !tp.q(0, "button.stop").hidden, 10000)`)
	js[bool](t, ctx, `tp.set(1, "add order-5\nwork --job 1\njobs\n"); tp.q(1, "button.run").click(); true`)
	// The long run is under way in the worker: the bar shows how far.
	js[float64](t, ctx, `tp.until(() => !tp.q(0, ".ran").hidden, 20000)`)
	if r := js[string](t, ctx, `tp.q(0, ".ran").textContent`); !regexp.MustCompile(`^[1-9][0-9]* of 10000 races$`).MatchString(r) {
		t.Errorf("during the long run the bar shows %q; want how many races ran", r)
	}
	if s := js[string](t, ctx, `tp.state(1)`); s == "done" {
		t.Fatal("block 1 finished while block 0's long run held the worker; the test shows nothing")
	}

	start := time.Now()
	js[bool](t, ctx, `tp.q(0, "button.stop").click(); true`)
	if s := js[string](t, ctx, `tp.state(0)`); s == "running" || s == "loading" {
		t.Errorf("state after Stop = %q", s)
	}
	// Stop says how far the run had got, in races, as the runtime told.
	races := regexp.MustCompile(`^Stopped after [1-9][0-9]* of 10000 races`)
	if st := js[string](t, ctx, `tp.q(0, ".status").textContent`); !races.MatchString(st) {
		t.Errorf("status after Stop = %q; want it to say how many races ran", st)
	}
	if js[bool](t, ctx, `!tp.q(0, ".ran").hidden`) {
		t.Errorf("after Stop the bar still shows how far the run had got")
	}
	// The edited script never finished: the output of the script block 0
	// ran before must not stand under it as if it were this one's.
	if got := js[string](t, ctx, `tp.transcript(0)`); got != "" {
		t.Errorf("after Stop, the edited script shows an earlier run's transcript:\n%s", got)
	}
	if hd := js[string](t, ctx, `tp.q(0, ".out-heading").textContent`); !races.MatchString(hd) || !strings.Contains(hd, "no output") {
		t.Errorf("heading after Stop of an edited script = %q", hd)
	}
	if js[bool](t, ctx, `!tp.q(0, ".tables").hidden || !tp.q(0, ".share").hidden`) {
		t.Errorf("after Stop, the edited script still shows an earlier run's tables or links")
	}
	ms := js[float64](t, ctx, `tp.until(() => tp.state(1) === "done", 20000)`)
	t.Logf("block 1's queued run finished %.0f ms after Stop", ms)
	if got := js[string](t, ctx, `tp.transcript(1)`); !strings.Contains(got, "job 1 order-5 status=done") {
		t.Errorf("block 1 after Stop: %q", got)
	}

	// The same block runs a small script at once, in the fresh runtime.
	js[bool](t, ctx, `tp.set(0, "add order-9\nwork --job 1\njobs\n"); true`)
	t0 := time.Now()
	if s := js[string](t, ctx, `tp.run(0)`); s != "done" {
		t.Fatalf("run after Stop: state %q", s)
	}
	took := time.Since(t0)
	t.Logf("Stop to next result in block 0: %v (run alone %v)", time.Since(start).Round(time.Millisecond), took.Round(time.Millisecond))
	if got := js[string](t, ctx, `tp.transcript(0)`); !strings.Contains(got, "job 1 order-9 status=done") {
		t.Errorf("block 0 after Stop: %q", got)
	}
	if took > 5*time.Second {
		t.Errorf("the small run after Stop took %v; want a couple of seconds", took)
	}

	// A newer Run replaces a queued one: behind a long run of block 1,
	// three presses of Run in block 0 send one run, the last script.
	js[bool](t, ctx, `tp.set(1, "race read 1500 --workers 8\n"); tp.q(1, "button.run").click(); true`)
	js[float64](t, ctx, `tp.until(() => tp.state(1) === "running", 10000)`)
	before := js[float64](t, ctx, `tpRuns`)
	js[bool](t, ctx, `for (const o of ["order-a", "order-b", "order-c"]) { tp.set(0, "add " + o + "\njobs\n"); tp.q(0, "button.run").click(); } true`)
	run(t, ctx, 90*time.Second, chromedp.Evaluate[float64](`tp.until(() => tp.state(0) === "done" && tp.state(1) === "done", 60000)`, chromedp.EvalAwaitPromise))
	if got := js[string](t, ctx, `tp.transcript(0)`); !strings.Contains(got, "order-c") {
		t.Errorf("block 0 shows %q; want the last script's output", got)
	}
	if sent := js[float64](t, ctx, `tpRuns`) - before; sent != 1 {
		t.Errorf("three Runs queued behind a long run sent %v runs to the worker; want 1", sent)
	}

	// A link to a heavy script shows it and waits for Run.
	// (A query string makes each a new page load, not a same-page hash change.)
	heavy := page + "?heavy#block-1?seed=1&script=" + strings.ReplaceAll("race read 10000 --workers 8", " ", "+")
	navigate(t, ctx, heavy)
	js[bool](t, ctx, stopHelpers)
	js[float64](t, ctx, `tp.until(() => tp.q(0, ".status").textContent === "Waiting for Run.", 30000)`)
	if s := js[string](t, ctx, `tp.state(0)`); s == "running" || s == "done" {
		t.Errorf("a heavy linked script ran on load: state %q", s)
	}
	if hd := js[string](t, ctx, `tp.q(0, ".out-heading").textContent`); !strings.Contains(hd, "heavy") {
		t.Errorf("heading for a heavy link: %q", hd)
	}

	// A link with a bad seed says so and runs nothing.
	navigate(t, ctx, page+"?bad#block-1?seed=-1&script=jobs")
	js[bool](t, ctx, stopHelpers)
	if e := js[string](t, ctx, `tp.q(0, ".error").textContent`); !strings.Contains(e, `seed="-1"`) {
		t.Errorf("a link with seed=-1 shows %q", e)
	}

	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestBrowserWorkerDies makes the Go program in the page's worker die in
// the middle of a run, as it does when it runs out of memory: the call
// returns undefined and the program is gone. The block says so in words
// (never a JSON parse error), the dead worker is terminated, Stop is not
// left showing, and Run again gets a result from a fresh worker.
func TestBrowserWorkerDies(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	hs := httptest.NewServer(browserSite(t))
	defer hs.Close()
	ls, err := lessons.Load(lessons.FS)
	if err != nil {
		t.Fatal(err)
	}
	navigate(t, ctx, hs.URL+"/lessons/"+ls[3].Slug+"/")
	js[bool](t, ctx, stopHelpers)
	if s := js[string](t, ctx, `tp.run(0)`); s != "done" {
		t.Fatalf("first run: state %q", s)
	}
	workers := func() []target.ID {
		tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		infos, err := chromedp.Targets(tctx)
		if err != nil {
			t.Fatal(err)
		}
		var ids []target.ID
		for _, i := range infos {
			if i.Type == "worker" {
				ids = append(ids, i.TargetID)
			}
		}
		return ids
	}
	before := workers()
	if len(before) != 1 {
		t.Fatalf("%d worker targets before the crash, want 1", len(before))
	}
	wctx, cancel := chromedp.NewContext(ctx, chromedp.WithTargetID(before[0]))
	defer cancel()
	tctx, tcancel := context.WithTimeout(wctx, 20*time.Second)
	// What wasm_exec.js does when the Go program exits inside a call; only
	// in the run of the script below: the worker's warm-up (worker.js, warm)
	// may still be going on between runs, and a warm-up that took this
	// call would leave the run to a fresh Go program.
	if _, err := chromedp.Run(tctx, chromedp.Evaluate[bool](`(() => { const real = self.twiceRun; self.twiceRun = (src, opts) => { if (!src.startsWith("add a --times 100")) return real(src, opts); go.exited = true; return undefined; }; return true; })()`)); err != nil {
		tcancel()
		t.Fatalf("evaluating in the worker: %v", err)
	}
	tcancel()

	js[bool](t, ctx, `tp.set(0, "add a --times 100\njobs\n"); true`)
	if s := js[string](t, ctx, `tp.run(0)`); s != "error" {
		t.Fatalf("a run whose worker died ended in %q", s)
	}
	said := js[string](t, ctx, `tp.q(0, ".error").textContent + " | " + tp.q(0, ".out-heading").textContent + " | " + tp.q(0, ".status").textContent`)
	t.Logf("the block says: %s", said)
	for _, want := range []string{"out of memory", "freed", "Run again"} {
		if !strings.Contains(said, want) {
			t.Errorf("after the worker died the block says %q; want it to mention %q", said, want)
		}
	}
	if strings.Contains(said, "JSON") {
		t.Errorf("the block shows a JSON error: %q", said)
	}
	if got := js[string](t, ctx, `tp.q(0, "button.run").textContent`); got != "Run again" {
		t.Errorf("Run button says %q, want Run again", got)
	}
	if js[bool](t, ctx, `!tp.q(0, "button.stop").hidden`) {
		t.Errorf("Stop still shows after the run ended")
	}
	for _, id := range workers() {
		if id == before[0] {
			t.Errorf("the dead worker %s was not terminated", id)
		}
	}
	if s := js[string](t, ctx, `tp.run(0)`); s != "done" {
		t.Fatalf("Run again: state %q", s)
	}
	if got := js[string](t, ctx, `tp.transcript(0)`); !strings.Contains(got, "job 100") {
		t.Errorf("Run again shows %q", got)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// treeRSS sums the resident memory of a process and its descendants, in
// bytes, from /proc: the whole browser (every renderer and worker), each
// page shared between processes counted once (the proportional set size).
// 0 where /proc is not there.
func treeRSS(pid int) int64 {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	parent := map[int]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after ')'.
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 1 {
			parent[p], _ = strconv.Atoi(f[1])
		}
	}
	in := func(p int) bool {
		for ; p > 1; p = parent[p] {
			if p == pid {
				return true
			}
		}
		return false
	}
	var sum int64
	for p := range parent {
		if !in(p) {
			continue
		}
		b, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/smaps_rollup")
		if err != nil {
			continue
		}
		for line := range strings.SplitSeq(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "Pss:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
				sum += kb << 10
			}
		}
	}
	return sum
}

// TestBrowserHeavyLink opens share links carrying scripts that print or
// poll without end: they are not heavy by the parser's estimate, so the
// page runs them on load, but only under the runtime's small budget for
// runs nobody pressed Run for. The block then says the script is heavy and
// offers Run, shows no partial output, and the browser (every process of
// it) stays under 1 GB.
func TestBrowserHeavyLink(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	hs := httptest.NewServer(browserSite(t))
	defer hs.Close()
	ls, err := lessons.Load(lessons.FS)
	if err != nil {
		t.Fatal(err)
	}
	page := hs.URL + "/lessons/" + ls[3].Slug + "/"
	pid := chromedp.FromContext(ctx).Browser.Process().Pid
	for _, tc := range []struct{ name, script string }{
		{"printing", strings.Repeat("add a --times 100\n", 1000) + strings.Repeat("jobs\n", 60)},
		{"polling", "load 1000 --processing fixed:2428 --lease 0.523 --workers 8 --heartbeat 938\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			link := page + "?" + tc.name + "#block-1?seed=1&script=" + url.QueryEscape(tc.script)
			t.Logf("the link is %d bytes; the browser holds %.0f MB before it", len(link), float64(treeRSS(pid))/(1<<20))
			var peak int64
			done := make(chan struct{})
			sampled := make(chan struct{})
			go func() {
				defer close(sampled)
				for {
					if m := treeRSS(pid); m > peak {
						peak = m
					}
					select {
					case <-done:
						return
					case <-time.After(100 * time.Millisecond):
					}
				}
			}()
			navigate(t, ctx, link)
			js[bool](t, ctx, stopHelpers)
			run(t, ctx, 90*time.Second, chromedp.Poll[bool](`tp.q(0, ".status").textContent === "Waiting for Run."`))
			close(done)
			<-sampled
			t.Logf("peak resident memory of the browser: %.0f MB", float64(peak)/(1<<20))
			if peak > 1<<30 {
				t.Errorf("the browser reached %.0f MB for a link; want under 1 GB", float64(peak)/(1<<20))
			}
			if s := js[string](t, ctx, `tp.state(0)`); s == "done" || s == "running" || s == "error" {
				t.Errorf("state %q after a heavy link", s)
			}
			hd := js[string](t, ctx, `tp.q(0, ".out-heading").textContent`)
			t.Logf("the block says: %s (runs sent: %v)", hd, js[float64](t, ctx, `tpRuns`))
			if !strings.Contains(hd, "heavy") || !strings.Contains(hd, "Press Run") {
				t.Errorf("heading: %q", hd)
			}
			if got := js[string](t, ctx, `tp.transcript(0)`); got != "" {
				t.Errorf("a heavy link shows part of its output: %.200q", got)
			}
			if got := js[string](t, ctx, `tp.q(0, "textarea").value`); got != tc.script {
				t.Errorf("the editor does not hold the linked script")
			}
			if js[bool](t, ctx, `tp.q(0, "button.run").hidden || !tp.q(0, "button.stop").hidden`) {
				t.Errorf("Run is hidden, or Stop still shows")
			}
		})
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestBrowserHeavyLinkOnePress opens a link whose script the parser
// estimates heavy: it waits for Run, and one press of Run runs it in
// full, on the budget of a run the reader asked for.
func TestBrowserHeavyLinkOnePress(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	hs := httptest.NewServer(browserSite(t))
	defer hs.Close()
	ls, err := lessons.Load(lessons.FS)
	if err != nil {
		t.Fatal(err)
	}
	page := hs.URL + "/lessons/" + ls[3].Slug + "/"
	for _, tc := range []struct{ name, script, want string }{
		{"estimated", "race read 5000", "two effects in 4722 of 5000 races"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			navigate(t, ctx, page+"?"+url.QueryEscape(tc.name)+"#block-1?seed=1&script="+url.QueryEscape(tc.script))
			run(t, ctx, 90*time.Second, chromedp.Poll[bool](`tp.q(0, ".status").textContent === "Waiting for Run."`))
			if s := run(t, ctx, 130*time.Second, chromedp.Evaluate[string](`tp.run(0)`, chromedp.EvalAwaitPromise)); s != "done" {
				t.Fatalf("one press of Run ended in %q: %s", s, js[string](t, ctx, `tp.q(0, ".out-heading").textContent + " | " + tp.q(0, ".status").textContent`))
			}
			if got := js[string](t, ctx, `tp.fullText(0)`); !strings.Contains(got, tc.want) {
				t.Errorf("one press of Run shows %.300q, without %q", got, tc.want)
			}
		})
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
