package perf

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/twice-lab/twice/runtime/script/interp"
)

// heavyBlocks are the heaviest runs a reader starts from a lesson: lesson
// 16's matrix (every fix against every way to duplicate, twenty seeds a
// cell) and ten thousand races of eight workers.
var heavyBlocks = []struct{ name, script string }{
	{"matrix", "matrix\n"},
	{"race10000", "race read 10000 --workers 8\n"},
}

// blockSeed is the seed of every heavy block's run.
const blockSeed = 1

// BenchmarkBrowserBlocks: per op, each heavy block natively (interp.Run
// in this process, on the driver's SQLite) and in the playground's worker
// of a fresh Chromium (the run the reader presses for, timed by the worker
// around twiceRun; the worker has done its warm-up, as a page's has when
// the reader gets to the block), and, with $TWICE_PERF_BEFORE, in a fresh
// Chromium on that export too; the contenders' order rotates from op to
// op. It reports ms per block per contender (native-, twice-, before-),
// which the report divides op by op. It logs each block's second run in
// the same worker, once V8 has optimized what the first one ran.
func BenchmarkBrowserBlocks(b *testing.B) {
	srv := serve(b)
	who := []string{"native", "twice"}
	if srv.before != "" {
		who = append(who, "before")
	}
	ms := map[string][]float64{}
	for op := 0; b.Loop(); op++ {
		order := append(slices.Clone(who[op%len(who):]), who[:op%len(who)]...)
		for _, w := range order {
			for name, t := range runBlocks(b, srv, w) {
				ms[w+"-ms-"+name] = append(ms[w+"-ms-"+name], t)
			}
		}
	}
	for unit, v := range ms {
		var sum float64
		for _, x := range v {
			sum += x
		}
		b.ReportMetric(sum/float64(len(v)), unit)
	}
}

// runBlocks runs each heavy block once for contender who and returns its
// ms by block name.
func runBlocks(b *testing.B, srv *server, who string) map[string]float64 {
	b.Helper()
	out := map[string]float64{}
	if who == "native" {
		for _, h := range heavyBlocks {
			start := time.Now()
			res := interp.Run(h.script, interp.Options{Seed: blockSeed})
			out[h.name] = float64(time.Since(start).Microseconds()) / 1e3
			if res.Error != nil {
				b.Fatalf("native %s: %v", h.name, res.Error)
			}
		}
		return out
	}
	dir, base := srv.site, srv.URL
	if who == "before" {
		dir, base = srv.before, srv.URL+"/before"
	}
	ctx, _, stop := launchStop(b, b.TempDir())
	defer stop()
	startWorker(b, ctx, base, dir)
	warmedUp(b, ctx)
	for _, h := range heavyBlocks {
		out[h.name] = runInWorker(b, ctx, h.script, blockSeed)
		again := runInWorker(b, ctx, h.script, blockSeed)
		b.Logf("%s: %s %.0f ms, again %.0f ms", who, h.name, out[h.name], again)
	}
	return out
}

// warmedUp waits until the worker startWorker started says its warm-up is
// over (or 30 s).
func warmedUp(b *testing.B, ctx context.Context) {
	b.Helper()
	eval[bool](b, ctx, 60*time.Second, `new Promise((resolve) => {
  if (bw.warmed) { resolve(true); return; }
  const t = setTimeout(() => resolve(false), 30000);
  bw.w.addEventListener("message", (e) => { if (e.data.type === "warmed") { clearTimeout(t); resolve(true); } });
})`)
}
