package server

import (
	"context"
	"net/http/httptest"
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
	time.Sleep(300 * time.Millisecond) // the long run is under way in the worker
	if s := js[string](t, ctx, `tp.state(1)`); s == "done" {
		t.Fatal("block 1 finished while block 0's long run held the worker; the test shows nothing")
	}

	start := time.Now()
	js[bool](t, ctx, `tp.q(0, "button.stop").click(); true`)
	if s := js[string](t, ctx, `tp.state(0)`); s == "running" || s == "loading" {
		t.Errorf("state after Stop = %q", s)
	}
	if st := js[string](t, ctx, `tp.q(0, ".status").textContent`); !strings.HasPrefix(st, "Stopped") {
		t.Errorf("status after Stop = %q", st)
	}
	// The edited script never finished: the output of the script block 0
	// ran before must not stand under it as if it were this one's.
	if got := js[string](t, ctx, `tp.transcript(0)`); got != "" {
		t.Errorf("after Stop, the edited script shows an earlier run's transcript:\n%s", got)
	}
	if hd := js[string](t, ctx, `tp.q(0, ".out-heading").textContent`); !strings.HasPrefix(hd, "Stopped after ") || !strings.Contains(hd, "no output") {
		t.Errorf("heading after Stop of an edited script = %q", hd)
	}
	if js[bool](t, ctx, `!tp.q(0, ".tables").hidden || !tp.q(0, ".share").hidden`) {
		t.Errorf("after Stop, the edited script still shows an earlier run's tables or links")
	}
	ms := js[float64](t, ctx, `tp.until(() => tp.state(1) === "done", 20000)`)
	t.Logf("block 1's queued run finished %.0f ms after Stop", ms)
	if got := js[string](t, ctx, `tp.transcript(1)`); !strings.Contains(got, "job 1 order-5 event=ev-1 status=done") {
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
	if got := js[string](t, ctx, `tp.transcript(0)`); !strings.Contains(got, "job 1 order-9 event=ev-1 status=done") {
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
	// What wasm_exec.js does when the Go program exits inside a call.
	if _, err := chromedp.Run(tctx, chromedp.Evaluate[bool](`self.twiceRun = () => { go.exited = true; return undefined; }, true`)); err != nil {
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
