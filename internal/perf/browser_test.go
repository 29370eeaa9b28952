package perf

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/twice-lab/twice/internal/browsertest"
)

// The browser benchmarks measure the `twice build` export named by
// $TWICE_PERF_SITE (docs/perf/run.sh sets it) in headless Chromium, served
// from 127.0.0.1 by a plain file server:
//
//	TWICE_PERF_SITE=DIR go test ./internal/perf -run '^$' -bench Browser -benchtime 1x -count 5
//
// Without $TWICE_PERF_SITE or a Chromium they skip, loudly.

// site serves the export and returns its base URL.
func site(b *testing.B) (base string, dir string) {
	b.Helper()
	srv := serve(b)
	return srv.URL, srv.site
}

// server is the benchmarks' static file server: the export at /, and the
// peer page (see peer_test.go) at /peer/ when $TWICE_PERF_PEER names it.
// It logs the path of every file it sends.
type server struct {
	URL string
	// site is the export measured; peer the peer's page; before, when
	// set ($TWICE_PERF_BEFORE), an earlier export measured beside them,
	// served under /before/.
	site, peer, before string

	mu   sync.Mutex
	sent []string
}

// serve starts the server; it skips the benchmark without an export.
func serve(b *testing.B) *server {
	b.Helper()
	s := &server{site: os.Getenv("TWICE_PERF_SITE"), peer: os.Getenv("TWICE_PERF_PEER"), before: os.Getenv("TWICE_PERF_BEFORE")}
	if s.site == "" {
		b.Skip("SKIPPING BROWSER BENCHMARK: set TWICE_PERF_SITE to a `twice build -o DIR` export")
	}
	// The headers twice serve and docs/perf/nginx.conf send: hashed
	// assets are fresh for a year, pages are revalidated.
	files := http.FileServer(http.Dir(s.site))
	var peer, before http.Handler = http.NotFoundHandler(), http.NotFoundHandler()
	if s.peer != "" {
		peer = http.StripPrefix("/peer", http.FileServer(http.Dir(s.peer)))
	}
	if s.before != "" {
		before = http.StripPrefix("/before", http.FileServer(http.Dir(s.before)))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/assets/") || strings.HasPrefix(r.URL.Path, "/before/assets/") {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			w.Header().Set("Cache-Control", "no-cache")
		}
		s.mu.Lock()
		s.sent = append(s.sent, r.URL.Path)
		s.mu.Unlock()
		if strings.HasPrefix(r.URL.Path, "/peer/") {
			peer.ServeHTTP(w, r)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/before/") {
			before.ServeHTTP(w, r)
			return
		}
		files.ServeHTTP(w, r)
	}))
	b.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// requests returns the paths requested since the last call, and forgets them.
func (s *server) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.sent
	s.sent = nil
	return r
}

// file returns the file behind a request path, or "".
func (s *server) file(path string) string {
	root, rel := s.site, path
	if after, ok := strings.CutPrefix(path, "/peer/"); ok {
		root, rel = s.peer, after
	} else if after, ok := strings.CutPrefix(path, "/before/"); ok {
		root, rel = s.before, after
	}
	if root == "" || strings.Contains(rel, "..") {
		return ""
	}
	f := filepath.Join(root, filepath.FromSlash(rel))
	if fi, err := os.Stat(f); err != nil || fi.IsDir() {
		return ""
	}
	return f
}

// launch starts a headless Chromium with a fresh profile (a cold HTTP
// cache and an empty V8 code cache) and returns its tab and its process id.
func launch(b *testing.B, profile string) (context.Context, int) {
	b.Helper()
	ctx, pid, _ := launchStop(b, profile)
	return ctx, pid
}

// launchStop is launch that also returns a func that closes the browser.
func launchStop(b *testing.B, profile string) (context.Context, int, func()) {
	b.Helper()
	path := browsertest.Path()
	if path == "" {
		b.Skip("SKIPPING BROWSER BENCHMARK: no Chromium (install Debian's chromium or set TWICE_CHROMIUM)")
	}
	opts := append(browsertest.Options(path, profile, 1280, 900),
		// A diagnostic knob, not for the report's figures: V8 flags, for
		// example --liftoff-only to see what the optimizing tier costs.
		chromedp.Flag("js-flags", os.Getenv("TWICE_PERF_JS_FLAGS")))
	ctx, stop := browsertest.Start(b, path, opts)
	return ctx, chromedp.FromContext(ctx).Browser.Process().Pid, stop
}

func eval[T any](b *testing.B, ctx context.Context, timeout time.Duration, expr string) T {
	b.Helper()
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	v, err := chromedp.Run(tctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		b.Fatalf("browser: %v", err)
	}
	return v
}

func navigate(b *testing.B, ctx context.Context, url string) {
	b.Helper()
	tctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if _, err := chromedp.Run(tctx, chromedp.Navigate(url)); err != nil {
		b.Fatalf("browser: %v", err)
	}
}

// firstResult clicks Run on the page's first block as soon as the element
// is defined, and resolves with the click and the result in ms since
// navigation start (performance.timeOrigin), and the runtime's start-up
// phases (TwicePlayground.timings, on the same clock; see worker.js).
const firstResult = `new Promise((resolve, reject) => {
  const until = (cond, then) => {
    if (cond()) { then(); return; }
    if (performance.now() > 120000) { reject(new Error("timed out; state " + document.querySelector("twice-playground")?.getAttribute("state"))); return; }
    setTimeout(() => until(cond, then), 2);
  };
  until(() => customElements.get("twice-playground") && document.querySelector("twice-playground")?.shadowRoot?.querySelector("button.run"), () => {
    const el = document.querySelector("twice-playground");
    const click = performance.now();
    el.shadowRoot.querySelector("button.run").click();
    until(() => el.getAttribute("state") === "done" || el.getAttribute("state") === "error", () => {
      if (el.getAttribute("state") === "error") reject(new Error("the block failed"));
      else resolve({ click, result: performance.now(), phases: TwicePlayground.timings() || {} });
    });
  });
})`

// startup is what firstResult resolves with.
type startup struct {
	Click, Result float64
	Phases        map[string]float64
}

// phases are the start-up's steps as reported, in order: each metric is the
// time from the previous step (from the press for the first).
var phases = []struct{ mark, unit string }{
	{"created", "ms-press-to-worker"}, // the widget starts the worker
	{"worker", "ms-worker-start"},     // worker.js runs
	{"fetch", "ms-fetch"},             // wasm_exec.js loaded, wasm response headers in
	{"compiled", "ms-compile"},        // downloaded and compiled (streaming)
	{"goReady", "ms-go-start"},        // instantiated, Go's main installed twiceRun
	{"run", "ms-to-run"},              // the run message reached the worker
	{"ran", "ms-first-run"},           // the first run itself
	{"received", "ms-to-page"},        // the result reached the page
}

// reportStartup adds the mean of each phase over runs to b.
func reportStartup(b *testing.B, runs []startup, prefix string) {
	var toResult, fromClick float64
	sums := make([]float64, len(phases))
	for _, r := range runs {
		toResult += r.Result
		fromClick += r.Result - r.Click
		prev := r.Click
		for i, p := range phases {
			v, ok := r.Phases[p.mark]
			if !ok {
				continue
			}
			sums[i] += v - prev
			prev = max(prev, v)
		}
	}
	n := float64(len(runs))
	b.ReportMetric(toResult/n, prefix+"ms-to-first-result")
	b.ReportMetric(fromClick/n, prefix+"ms-click-to-result")
	for i, p := range phases {
		b.ReportMetric(sums[i]/n, prefix+p.unit)
	}
}

// racePage is the race lesson, with asking for a guess first turned off
// for the visit: its first block asks before it runs, and the start-up
// figures are of a press of Run that runs.
const racePage = "/lessons/claim-race/?predict=off"

// BenchmarkBrowserColdStart: per op, a new Chromium with a fresh profile
// navigates to the race lesson and presses Run on its first block; the
// figures are ms from navigation start to the first live result, from the
// press to it, and the phases between (see phases).
func BenchmarkBrowserColdStart(b *testing.B) {
	base, _ := site(b)
	var runs []startup
	for b.Loop() {
		ctx, _ := launch(b, b.TempDir())
		navigate(b, ctx, base+racePage)
		r := eval[startup](b, ctx, 150*time.Second, firstResult)
		b.Logf("press %.0f, result %.0f ms after navigation; phases %v", r.Click, r.Result, r.Phases)
		runs = append(runs, r)
	}
	reportStartup(b, runs, "")
}

// BenchmarkBrowserReadThenRun: per op, a new Chromium with a fresh profile
// navigates to the race lesson, waits 3 s (a reader reading; the block is
// in view, so the runtime loads meanwhile) and then presses Run; the
// figure is ms from the press to the first live result.
func BenchmarkBrowserReadThenRun(b *testing.B) {
	base, _ := site(b)
	var runs []startup
	for b.Loop() {
		ctx, _ := launch(b, b.TempDir())
		navigate(b, ctx, base+racePage)
		eval[bool](b, ctx, 30*time.Second, `new Promise((resolve) => setTimeout(() => resolve(true), 3000))`)
		r := eval[startup](b, ctx, 150*time.Second, firstResult)
		if w, ok := r.Phases["warm2"]; ok {
			b.Logf("the worker's warm-up took %.0f ms (Go ready at %.0f ms, warm-up done at %.0f ms after navigation)", w-r.Phases["goReady"], r.Phases["goReady"], w)
		}
		runs = append(runs, r)
	}
	var ms float64
	for _, r := range runs {
		ms += r.Result - r.Click
	}
	b.ReportMetric(ms/float64(len(runs)), "ms-click-to-result")
}

// BenchmarkBrowserWarmStart: per op, one fresh profile and three visits to
// the race lesson, each pressing Run at once: cold (as BenchmarkBrowserColdStart),
// then, after reading the result for 5 s, again in the same tab (a new document, same browser), and after closing
// the browser and starting it again on the same profile. Each reports the
// same figures as the cold start, prefixed cold-, again- and restart-;
// wasm-transfer-bytes is what the module cost the network on that visit
// (0: the HTTP cache served it), and the log shows the size of the
// profile's V8 wasm code cache after each visit.
func BenchmarkBrowserWarmStart(b *testing.B) {
	const reading = 5 * time.Second
	base, _ := site(b)
	url := base + racePage
	var cold, again, restart []startup
	for b.Loop() {
		profile := b.TempDir()
		ctx, _, stop := launchStop(b, profile)
		navigate(b, ctx, url)
		cold = append(cold, eval[startup](b, ctx, 150*time.Second, firstResult))
		// A reader reads the result for a few seconds: V8 writes its code
		// cache once tiered-up code has stopped changing for a while.
		time.Sleep(reading)
		c1 := codeCache(profile)
		navigate(b, ctx, url+"?again")
		again = append(again, eval[startup](b, ctx, 150*time.Second, firstResult))
		c2 := codeCache(profile)
		stop()
		ctx, _, stop = launchStop(b, profile)
		navigate(b, ctx, url)
		restart = append(restart, eval[startup](b, ctx, 150*time.Second, firstResult))
		stop()
		b.Logf("to first result: cold %.0f, again %.0f, after a restart %.0f ms; wasm bytes over the network %v, %v, %v; V8 wasm code cache after each visit %d, %d, %d bytes",
			cold[len(cold)-1].Result, again[len(again)-1].Result, restart[len(restart)-1].Result,
			cold[len(cold)-1].Phases["wasmTransfer"], again[len(again)-1].Phases["wasmTransfer"], restart[len(restart)-1].Phases["wasmTransfer"],
			c1, c2, codeCache(profile))
	}
	for _, v := range []struct {
		prefix string
		runs   []startup
	}{{"cold-", cold}, {"again-", again}, {"restart-", restart}} {
		reportStartup(b, v.runs, v.prefix)
		var bytes float64
		for _, r := range v.runs {
			bytes += r.Phases["wasmTransfer"]
		}
		b.ReportMetric(bytes/float64(len(v.runs)), v.prefix+"wasm-transfer-bytes")
	}
}

// codeCache returns the size of the V8 wasm code cache in a profile.
func codeCache(profile string) int64 {
	var n int64
	filepath.WalkDir(filepath.Join(profile, "Default", "Code Cache", "wasm"), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// startWorker opens a blank page of the site, starts the playground's own
// worker.js with the export's modules (the Go program's, and SQLite's when
// the export has one), and waits until it is ready.
func startWorker(b *testing.B, ctx context.Context, base, dir string) {
	b.Helper()
	asset := func(pattern string) string {
		m, _ := filepath.Glob(filepath.Join(dir, "assets", pattern))
		if len(m) > 1 || len(m) == 0 && !strings.HasPrefix(pattern, "sqlite3.") {
			b.Fatalf("want one assets/%s in %s, got %v", pattern, dir, m)
		}
		if len(m) == 0 {
			return ""
		}
		return base + "/assets/" + filepath.Base(m[0])
	}
	navigate(b, ctx, base+"/404.html")
	eval[bool](b, ctx, 150*time.Second, fmt.Sprintf(`new Promise((resolve, reject) => {
  const w = new Worker(%q);
  window.bw = { w, pending: null };
  w.onmessage = (e) => {
    const m = e.data;
    if (m.type === "ready") resolve(true);
    else if (m.type === "warmed") bw.warmed = true;
    else if (m.type === "fatal") reject(new Error(m.message));
    else if (m.type === "result" && bw.pending) { const p = bw.pending; bw.pending = null; p(m); }
    else if (m.type === "error") reject(new Error(m.message));
  };
  w.postMessage({ type: "init", wasmExec: %q, wasm: %q, sqlite: %q || undefined });
})`, asset("worker.*.js"), asset("wasm_exec.*.js"), asset("twice.*.wasm"), asset("sqlite3.*.wasm")))
}

// runInWorker runs src at seed in the worker and returns the worker's own
// timing of twiceRun (ms) and whether the Result had an error.
func runInWorker(b *testing.B, ctx context.Context, src string, seed int) float64 {
	b.Helper()
	return runInWorkerInfo(b, ctx, src, seed)[0]
}

// runInWorkerInfo is runInWorker that also returns the size of the Go
// module's linear memory after the run, in bytes, of the Result's JSON
// text, in characters, and of the SQLite module's memory (0 when SQLite
// is inside the Go module).
func runInWorkerInfo(b *testing.B, ctx context.Context, src string, seed int) [4]float64 {
	b.Helper()
	return eval[[4]float64](b, ctx, 120*time.Second, fmt.Sprintf(`new Promise((resolve, reject) => {
  bw.pending = (m) => {
    const res = JSON.parse(m.json);
    if (res.error) reject(new Error(JSON.stringify(res.error))); else resolve([m.ms, (m.info || {}).wasmMemory || 0, m.json.length, (m.info || {}).sqliteMemory || 0]);
  };
  bw.w.postMessage({ type: "run", id: 1, script: %q, seed: %q });
})`, src, strconv.Itoa(seed)))
}

const browserRaces = 1000

// BenchmarkBrowserRace runs `race CLAIM 1000` per op in the playground's
// Web Worker and reports races per second, timed in Go around the whole
// round trip (post, run, JSON back).
func BenchmarkBrowserRace(b *testing.B) {
	base, dir := site(b)
	ctx, _ := launch(b, b.TempDir())
	startWorker(b, ctx, base, dir)
	for _, claim := range []string{"read", "atomic"} {
		b.Run(claim, func(b *testing.B) {
			src := fmt.Sprintf("race %s %d", claim, browserRaces)
			runInWorker(b, ctx, src, 0) // warm up the tiers
			for i := 0; b.Loop(); i++ {
				runInWorker(b, ctx, src, i+1)
			}
			b.ReportMetric(float64(b.N*browserRaces)/b.Elapsed().Seconds(), "races/s")
		})
	}
}

// BenchmarkBrowserExplore checks every interleaving (`race CLAIM --all
// --workers N`) per op in the playground's Web Worker and reports the
// milliseconds per check, timed in Go around the round trip, as a reader
// waits for it after pressing Run on the Every ordering tab.
func BenchmarkBrowserExplore(b *testing.B) {
	base, dir := site(b)
	ctx, _ := launch(b, b.TempDir())
	startWorker(b, ctx, base, dir)
	for _, c := range []struct {
		claim   string
		workers int
	}{{"read", 2}, {"read", 8}, {"atomic", 8}} {
		b.Run(fmt.Sprintf("%s-%d", c.claim, c.workers), func(b *testing.B) {
			src := fmt.Sprintf("race %s --all --workers %d", c.claim, c.workers)
			runInWorker(b, ctx, src, 0) // warm up the tiers
			for i := 0; b.Loop(); i++ {
				runInWorker(b, ctx, src, i+1)
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/check")
		})
	}
}

// BenchmarkBrowserLoadDrag is a drag of lesson 8's p95 slider in the
// playground's Web Worker: per op, the sweep's script (200 jobs under each
// of five leases) or a load of 200 jobs under one lease, at the next p95,
// run and its chart drawn as the page asks (twiceRun). It reports the
// worker's own ms per run, the time a drag waits for the redrawn chart
// less the page's drawing of it.
func BenchmarkBrowserLoadDrag(b *testing.B) {
	base, dir := site(b)
	ctx, _ := launch(b, b.TempDir())
	startWorker(b, ctx, base, dir)
	for _, c := range []struct{ name, leases string }{{"sweep", "1,2,3,5,10"}, {"one-lease", "2"}} {
		b.Run(c.name, func(b *testing.B) {
			src := func(i int) string {
				return fmt.Sprintf("load 200 --processing lognormal:p50=800,p95=%d --lease %s --workers 2", 1000+100*(i%80), c.leases)
			}
			// As the page sends it: kept, so that the chart is drawn.
			drag := func(script string) float64 {
				return eval[float64](b, ctx, 120*time.Second, fmt.Sprintf(`new Promise((resolve, reject) => {
  bw.pending = (m) => { const res = JSON.parse(m.json); if (res.error || !res.chart) reject(new Error("no chart: " + JSON.stringify(res.error))); else resolve(m.ms); };
  bw.w.postMessage({ type: "run", id: 1, script: %q, seed: "1", keep: true });
})`, script))
			}
			drag(src(0)) // warm up the tiers
			var ms float64
			for i := 0; b.Loop(); i++ {
				ms += drag(src(i + 1))
			}
			b.ReportMetric(ms/float64(b.N), "worker-ms/run")
		})
	}
}

// BenchmarkBrowserMemory runs 10 x `race read 1000` (10,000 races) per op
// in one fresh browser and reports the tab's renderer process (the one
// that holds the page and its worker, the renderer with the largest peak):
// its peak resident memory (VmHWM), and how much its resident memory
// (VmRSS) grew from after 5,000 races to after 10,000 (the first thousands
// include start-up, after which the Go heap in the worker settles; the log
// line shows the RSS after every 1,000).
//
// With $TWICE_PERF_BEFORE each op measures that export the same way too,
// in a browser of its own, the order alternating from op to op; its
// figures are prefixed before-.
func BenchmarkBrowserMemory(b *testing.B) {
	srv := serve(b)
	type export struct{ prefix, base, dir string }
	all := []export{{"", srv.URL, srv.site}}
	if srv.before != "" {
		all = append(all, export{"before-", srv.URL + "/before", srv.before})
	}
	peak, growth := map[string]float64{}, map[string]float64{}
	for op := 0; b.Loop(); op++ {
		for i := range all {
			e := all[(op+i)%len(all)]
			ctx, pid, stop := launchStop(b, b.TempDir())
			startWorker(b, ctx, e.base, e.dir)
			p, g := memory(b, ctx, pid)
			stop()
			peak[e.prefix] += p
			growth[e.prefix] += g
		}
	}
	for _, e := range all {
		b.ReportMetric(peak[e.prefix]/float64(b.N), e.prefix+"MiB-peak")
		b.ReportMetric(growth[e.prefix]/float64(b.N), e.prefix+"MiB-growth")
	}
}

// BenchmarkBrowserMemoryWarm is BenchmarkBrowserMemory on a second visit:
// per op, a fresh profile first runs 2 x 1,000 races and idles 5 s, so that
// V8 writes its wasm code cache; then the browser is closed, started again
// on the same profile and measured as in BenchmarkBrowserMemory. V8 then
// takes the optimized code from its cache instead of compiling it.
func BenchmarkBrowserMemoryWarm(b *testing.B) {
	base, dir := site(b)
	var peak, growth float64
	for b.Loop() {
		profile := b.TempDir()
		ctx, _, stop := launchStop(b, profile)
		startWorker(b, ctx, base, dir)
		for i := range 2 {
			runInWorker(b, ctx, fmt.Sprintf("race read %d", browserRaces), i)
		}
		time.Sleep(5 * time.Second)
		stop()
		ctx, pid, stop := launchStop(b, profile)
		startWorker(b, ctx, base, dir)
		p, g := memory(b, ctx, pid)
		stop()
		peak += p
		growth += g
	}
	b.ReportMetric(peak/float64(b.N), "MiB-peak")
	b.ReportMetric(growth/float64(b.N), "MiB-growth")
}

// memory runs 10 x `race read 1000` in the worker and returns the tab's
// renderer peak RSS and its RSS growth from after race 5,000 to after race
// 10,000, in MiB; it logs the details.
func memory(b *testing.B, ctx context.Context, pid int) (peak, growth float64) {
	b.Helper()
	var after []map[int][2]float64
	var mem []string
	jsonLen := 0.0
	for i := range 10 {
		r := runInWorkerInfo(b, ctx, fmt.Sprintf("race read %d", browserRaces), i)
		mem = append(mem, fmt.Sprintf("%.0f+%.0f", r[1]/(1<<20), r[3]/(1<<20)))
		jsonLen = max(jsonLen, r[2])
		after = append(after, renderers(b, pid))
	}
	last := after[len(after)-1]
	tab := -1
	for p, m := range last {
		if tab < 0 || m[1] > last[tab][1] {
			tab = p
		}
	}
	var trail []string
	for _, a := range after {
		trail = append(trail, fmt.Sprintf("%.0f", a[tab][0]))
	}
	var all []string
	for p, m := range last {
		all = append(all, fmt.Sprintf("pid %d RSS %.0f peak %.0f", p, m[0], m[1]))
	}
	b.Logf("renderers after 10,000 races (MiB): %s; the tab is pid %d, its RSS after each 1,000 races: %s MiB; the linear memory of the Go module + the SQLite module after each 1,000 races: %s MiB; largest Result JSON %.0f characters",
		strings.Join(all, ", "), tab, strings.Join(trail, " "), strings.Join(mem, " "), jsonLen)
	return last[tab][1], last[tab][0] - after[4][tab][0]
}

// renderers returns VmRSS and VmHWM (MiB) of each renderer process
// descended from the browser process pid.
func renderers(b *testing.B, pid int) map[int][2]float64 {
	b.Helper()
	parent := map[int]int{}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp := status(p, "PPid"); pp >= 0 {
			parent[p] = int(pp)
		}
	}
	descends := func(p int) bool {
		for i := 0; i < 64 && p > 1; i++ {
			if p = parent[p]; p == pid {
				return true
			}
		}
		return false
	}
	out := map[int][2]float64{}
	for p := range parent {
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
		if !strings.Contains(string(cmd), "--type=renderer") || !descends(p) {
			continue
		}
		out[p] = [2]float64{float64(status(p, "VmRSS")) / 1024, float64(status(p, "VmHWM")) / 1024}
	}
	if len(out) == 0 {
		b.Fatalf("no renderer process under browser pid %d", pid)
	}
	return out
}

// status reads a numeric field (kB for memory) of /proc/PID/status, or -1.
func status(pid int, field string) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && k == field {
			n, err := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			if err == nil {
				return n
			}
		}
	}
	return -1
}
