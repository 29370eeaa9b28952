package perf

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// The peer benchmarks put twice beside the build of SQLite most in-browser
// SQL playgrounds use: the official SQLite wasm from npm
// (@sqlite.org/sqlite-wasm), in a Web Worker of a small page of ours
// (docs/perf/peer), running the SQL of one `race read 20`. docs/perf/run.sh
// installs the package and assembles the page into a folder:
//
//	TWICE_PERF_SITE=DIR TWICE_PERF_PEER=PEERDIR go test ./internal/perf -run '^$' -bench '^BenchmarkPeer' -benchtime 1x -count 5
//
// Each op measures twice and then the peer, or the peer and then twice
// (the order alternates from op to op), each in a new Chromium with a
// fresh profile, both pages from the same static file server, so that
// every sample of twice has a sample of the peer taken seconds apart on
// the same machine; the report divides them pair by pair. With
// $TWICE_PERF_BEFORE set to an earlier export (docs/perf/run.sh's BEFORE),
// each op visits that one's race lesson too (reported as before-*), in a
// rotating order, so that a change is measured before and after in one
// run. Without $TWICE_PERF_PEER they skip, loudly.

// peerFirstResult is firstResult for the peer page: Run pressed as soon as
// the block's button exists, resolving with the press and the result in ms
// since navigation start, the phases (peerTimings) and the text shown.
const peerFirstResult = `new Promise((resolve, reject) => {
  const until = (cond, then) => {
    if (cond()) { then(); return; }
    if (performance.now() > 120000) { reject(new Error("timed out; state " + document.getElementById("peer")?.getAttribute("state"))); return; }
    setTimeout(() => until(cond, then), 2);
  };
  until(() => document.querySelector("#peer button.run"), () => {
    const el = document.getElementById("peer");
    const click = performance.now();
    el.querySelector("button.run").click();
    until(() => el.getAttribute("state") === "done" || el.getAttribute("state") === "error", () => {
      if (el.getAttribute("state") === "error") reject(new Error("the peer failed: " + el.textContent));
      else resolve({ click, result: performance.now(), phases: window.peerTimings() || {}, text: el.querySelector("pre").textContent });
    });
  });
})`

// peerResult is what peerFirstResult resolves with.
type peerResult struct {
	Click, Result float64
	Phases        map[string]float64
	Text          string
}

// contenders are the pages: twice's race lesson, and the peer; with an
// earlier export ($TWICE_PERF_BEFORE), its race lesson too, as "before".
func contenders(srv *server) []string {
	if srv.before != "" {
		return []string{"twice", "before", "peer"}
	}
	return []string{"twice", "peer"}
}

// turn alternates which contender goes first, across ops and benchmarks.
var turn int

// A visit is one contender's figures from one fresh browser.
type visit struct {
	startup
	// brotli is what the files the page fetched before its first result
	// (JavaScript, CSS and wasm; not the HTML page) weigh compressed with
	// brotli -q 11, in bytes; files lists them.
	brotli int64
	files  []string
}

// visitPage starts a new Chromium with a fresh profile, optionally slows
// its CPU by the factor slow (DevTools' CPU throttling), opens the
// contender's page, waits wait, presses Run and waits for the result.
func visitPage(b *testing.B, srv *server, who string, wait time.Duration, slow float64) visit {
	b.Helper()
	ctx, _, stop := launchStop(b, b.TempDir())
	defer stop()
	if slow > 1 {
		// Chromium applies this to the page's main thread only: asked for
		// a worker target, it answers "Operation is only supported for
		// pages, not workers". So it slows what both pages do on the main
		// thread (parsing, the element or block, showing the result), not
		// their workers.
		err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, emulation.SetCPUThrottlingRate, emulation.SetCPUThrottlingRateParams{Rate: slow})
			return err
		}))
		if err != nil {
			b.Fatalf("CPU throttling: %v", err)
		}
	}
	srv.requests()
	var v visit
	if who == "twice" || who == "before" {
		page := racePage
		if who == "before" {
			page = "/before" + page
		}
		navigate(b, ctx, srv.URL+page)
		if wait > 0 {
			sleepIn(b, ctx, wait)
		}
		v.startup = eval[startup](b, ctx, 150*time.Second, firstResult)
	} else {
		navigate(b, ctx, srv.URL+"/peer/")
		if wait > 0 {
			sleepIn(b, ctx, wait)
		}
		r := eval[peerResult](b, ctx, 150*time.Second, peerFirstResult)
		if !strings.Contains(r.Text, "two effects in 20 of 20 races") {
			b.Fatalf("the peer's race read 20 printed %q, want two effects in 20 of 20 races", r.Text)
		}
		v.startup = startup{Click: r.Click, Result: r.Result, Phases: r.Phases}
	}
	seen := map[string]bool{}
	for _, p := range srv.requests() {
		switch path.Ext(p) {
		case ".js", ".mjs", ".css", ".wasm":
		default:
			continue
		}
		if seen[p] {
			continue
		}
		seen[p] = true
		f := srv.file(p)
		if f == "" {
			b.Fatalf("%s fetched %s, which is not a file of the export or the peer", who, p)
		}
		n, err := brotliSize(f)
		if err != nil {
			b.Fatal(err)
		}
		v.brotli += n
		v.files = append(v.files, fmt.Sprintf("%s %d", path.Base(p), n))
	}
	sort.Strings(v.files)
	return v
}

// sleepIn waits d on the page's clock (a reader reading).
func sleepIn(b *testing.B, ctx context.Context, d time.Duration) {
	b.Helper()
	eval[bool](b, ctx, d+30*time.Second, fmt.Sprintf(`new Promise((resolve) => setTimeout(() => resolve(true), %d))`, d.Milliseconds()))
}

var (
	brMu    sync.Mutex
	brSizes = map[string]int64{}
)

// brotliSize is the size of file compressed with brotli at quality 11: the
// export's own .br beside it when there is one (twice build writes them at
// that quality), else computed (once per file per process).
func brotliSize(file string) (int64, error) {
	brMu.Lock()
	defer brMu.Unlock()
	if n, ok := brSizes[file]; ok {
		return n, nil
	}
	var n int64
	if fi, err := os.Stat(file + ".br"); err == nil {
		n = fi.Size()
	} else {
		f, err := os.Open(file)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		var c counter
		w := brotli.NewWriterLevel(&c, brotli.BestCompression)
		if _, err := io.Copy(w, f); err != nil {
			return 0, err
		}
		if err := w.Close(); err != nil {
			return 0, err
		}
		n = int64(c)
	}
	brSizes[file] = n
	return n, nil
}

type counter int64

func (c *counter) Write(p []byte) (int, error) { *c += counter(len(p)); return len(p), nil }

// peerServer is serve that skips without the peer.
func peerServer(b *testing.B) *server {
	b.Helper()
	srv := serve(b)
	if srv.peer == "" {
		b.Skip("SKIPPING PEER BENCHMARK: set TWICE_PERF_PEER to the peer page docs/perf/run.sh assembles (docs/perf/peer with @sqlite.org/sqlite-wasm)")
	}
	return srv
}

// versus runs each op: twice and the peer, in alternating order, and
// reports, per contender, ms from navigation start to the first result and
// from the press to it (prefixed twice- and peer-), with bytes when asked.
func versus(b *testing.B, wait time.Duration, slow float64, bytes bool) {
	srv := peerServer(b)
	runs := map[string][]visit{}
	all := contenders(srv)
	for b.Loop() {
		// Each op starts with the next contender in turn, so that each
		// goes first, second (and third) equally often.
		order := append(slices.Clone(all[turn%len(all):]), all[:turn%len(all)]...)
		turn++
		for _, who := range order {
			v := visitPage(b, srv, who, wait, slow)
			runs[who] = append(runs[who], v)
			b.Logf("%s: press %.0f, result %.0f ms after navigation; phases %v; fetched (brotli bytes) %v", who, v.Click, v.Result, v.Phases, v.files)
		}
	}
	for _, who := range all {
		var nav, press, br float64
		for _, v := range runs[who] {
			nav += v.Result
			press += v.Result - v.Click
			br += float64(v.brotli)
		}
		n := float64(len(runs[who]))
		b.ReportMetric(nav/n, who+"-ms-to-first-result")
		b.ReportMetric(press/n, who+"-ms-click-to-result")
		if bytes {
			b.ReportMetric(br/n, who+"-br-bytes")
		}
	}
}

// BenchmarkPeerColdStart: a fresh profile, the page, Run pressed as soon
// as the block exists; ms from navigation start and from the press to the
// first result, and the brotli bytes of what was fetched before it.
func BenchmarkPeerColdStart(b *testing.B) { versus(b, 0, 1, true) }

// BenchmarkPeerReadThenRun: the same, Run pressed 3 s after navigation.
func BenchmarkPeerReadThenRun(b *testing.B) { versus(b, 3*time.Second, 1, false) }

// BenchmarkPeerSlowCPU: BenchmarkPeerColdStart with DevTools' CPU
// throttling at 4x (the page's main thread; see visitPage).
func BenchmarkPeerSlowCPU(b *testing.B) { versus(b, 0, 4, false) }
