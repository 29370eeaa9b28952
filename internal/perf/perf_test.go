package perf

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const benchOut = `goos: linux
BenchmarkRace/read-2 	     198	   6000000 ns/op	     16758 races/s	  436141 B/op	   14334 allocs/op
BenchmarkRace/read-2 	     195	   5000000 ns/op	     16546 races/s	  436465 B/op	   14335 allocs/op
BenchmarkRace/read-2 	     206	   7000000 ns/op	     17543 races/s	  436464 B/op	   14335 allocs/op
--- BENCH: BenchmarkRace/read-2
BenchmarkRace/read-2 log line that is not a result
BenchmarkRaceSQL/read-2        	     307	   4000000 ns/op	     24764 races/s
BenchmarkRaceSQL/read-2        	     307	   2500000 ns/op	     24764 races/s
BenchmarkRaceSQL/read-2        	     307	   3500000 ns/op	     24764 races/s
PASS
`

func TestParseBenchAndRatios(t *testing.T) {
	b, err := ParseBench(strings.NewReader(benchOut))
	if err != nil {
		t.Fatal(err)
	}
	sim := b["BenchmarkRace/read"]
	if got := len(sim["ns/op"]); got != 3 {
		t.Fatalf("got %d ns/op samples, want 3: %v", got, b)
	}
	if s := Summarize(sim["ns/op"]); s.Median != 6e6 || s.Min != 5e6 || s.Max != 7e6 || s.N != 3 {
		t.Errorf("Summarize = %+v", s)
	}
	r := Ratios(sim["ns/op"], b["BenchmarkRaceSQL/read"]["ns/op"])
	want := []float64{1.5, 2, 2}
	for i := range want {
		if r[i] != want[i] {
			t.Errorf("Ratios = %v, want %v", r, want)
			break
		}
	}
	if s := Summarize([]float64{4, 1, 3, 2}); s.Median != 2.5 {
		t.Errorf("even median = %v, want 2.5", s.Median)
	}
}

const wrkOut = `Running 30s test @ http://127.0.0.1:8080/
  2 threads and 100 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     5.01ms    2.10ms  40.00ms   80.00%
    Req/Sec    10.00k     1.00k   12.00k    70.00%
  600000 requests in 30.00s, 1.00GB read
  Socket errors: connect 0, read 2, write 0, timeout 3
  Non-2xx or 3xx responses: 4
Requests/sec:  20000.50
Transfer/sec:     34.00MB
`

func TestParseWrk(t *testing.T) {
	w, err := ParseWrk(strings.NewReader(wrkOut))
	if err != nil {
		t.Fatal(err)
	}
	if w.RequestsPerSec != 20000.5 || w.Requests != 600000 || w.Errors != 9 || w.TransferPerSec != "34.00MB" {
		t.Errorf("ParseWrk = %+v", w)
	}
	if _, err := ParseWrk(strings.NewReader("connection refused\n")); err == nil {
		t.Error("ParseWrk accepted a report without Requests/sec")
	}
}

// TestReportSaysWhatIsMissing: a figure without its input is reported as
// not measured, never as a number.
func TestReportSaysWhatIsMissing(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, NativeFile), []byte(benchOut), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Report(dir, &b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"| native: simulated / bare SQL time per race, claim=read | ≤ 2x | **2.00x** (1.50x–2.00x, n=3) | met |",
		"| wasip1 under wazero: races/s (race read 1000) | – | not measured: no wazero.txt | – |",
		"| total before the first live result, brotli | ≤ 1.0 MB | not measured: no sizes.txt | not measured |",
		"| Run pressed after 3 s of reading: press to first result (ms) | not measured: no peer.txt | not measured: no peer.txt | not measured: no peer.txt | no slower than the peer (≤ 1.0x) | not measured |",
		"| twice: requests/s, page (wrk, 100 connections) | 0 errors | not measured: no wrk reports in wrk | not measured |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q\n%s", want, out)
		}
	}
}

func TestVerdict(t *testing.T) {
	for _, tc := range []struct {
		ok       check
		s        Stat
		measured bool
		want     string
	}{
		{atMost(1500), Stat{Median: 1000, Min: 900, Max: 1400, N: 5}, true, "met"},
		{atMost(1500), Stat{Median: 1000, Min: 900, Max: 1600, N: 5}, true, "met by the median, not by every run"},
		{atMost(1500), Stat{Median: 1600, Min: 900, Max: 1700, N: 5}, true, "**not met**"},
		{atLeast(2000), Stat{Median: 2500, Min: 1900, Max: 2600, N: 5}, true, "met by the median, not by every run"},
		{below(300), Stat{Median: 300, Min: 300, Max: 300, N: 1}, true, "**not met**"},
		{below(300), Stat{}, false, "not measured"},
		{nil, Stat{Median: 1}, true, ""},
	} {
		if got := verdict(tc.ok, tc.s, tc.measured); got != tc.want {
			t.Errorf("verdict(%+v) = %q, want %q", tc.s, got, tc.want)
		}
	}
}

const peerOut = `BenchmarkPeerColdStart-2   	       1	15355880424 ns/op	    500000 peer-br-bytes	       250 peer-ms-click-to-result	       400 peer-ms-to-first-result	   2200000 twice-br-bytes	      1800 twice-ms-click-to-result	      2000 twice-ms-to-first-result
BenchmarkPeerColdStart-2   	       1	15355880424 ns/op	    500000 peer-br-bytes	       300 peer-ms-click-to-result	       500 peer-ms-to-first-result	   2200000 twice-br-bytes	       600 twice-ms-click-to-result	       800 twice-ms-to-first-result
BenchmarkPeerColdStart-2   	       1	15355880424 ns/op	    500000 peer-br-bytes	       200 peer-ms-click-to-result	       300 peer-ms-to-first-result	   2200000 twice-br-bytes	       400 twice-ms-click-to-result	       500 twice-ms-to-first-result
BenchmarkPeerReadThenRun-2 	       1	12301170876 ns/op	       100 peer-ms-click-to-result	      3300 peer-ms-to-first-result	        50 twice-ms-click-to-result	      3200 twice-ms-to-first-result
BenchmarkPeerReadThenRun-2 	       1	12301170876 ns/op	       100 peer-ms-click-to-result	      3300 peer-ms-to-first-result	        80 twice-ms-click-to-result	      3200 twice-ms-to-first-result
BenchmarkPeerReadThenRun-2 	       1	12301170876 ns/op	       100 peer-ms-click-to-result	      3300 peer-ms-to-first-result	       120 twice-ms-click-to-result	      3200 twice-ms-to-first-result
`

// TestReportPeer: the peer table pairs twice's and the peer's samples op
// by op and judges each budget on the ratio, or on twice's bytes.
func TestReportPeer(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, PeerFile), []byte(peerOut), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Report(dir, &b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		// 2000/400, 800/500, 500/300: 5, 1.6, 1.67; the median of the
		// ratios is 1.67, not 1,500 over 400.
		"| cold navigation, Run pressed as soon as the block exists: navigation start to first result (ms) | **800** (500–2,000, n=3) | **400** (300–500, n=3) | **1.67x** (1.60x–5.00x, n=3) | ≤ 1.5x the peer's | **not met** |",
		"| … press to first result in that case (ms) | **600** (400–1,800, n=3) | **250** (200–300, n=3) | **2.00x** (2.00x–7.20x, n=3) | – | – |",
		"| Run pressed after 3 s of reading: press to first result (ms) | **80** (50–120, n=3) | **100** (100–100, n=3) | **0.80x** (0.50x–1.20x, n=3) | no slower than the peer (≤ 1.0x) | met by the median, not by every run |",
		"| bytes before the first result: the JS, CSS and wasm fetched, brotli -q 11 | **2.20 MB** (2.20 MB–2.20 MB, n=3) | **0.50 MB** (0.50 MB–0.50 MB, n=3) | **4.40x** (4.40x–4.40x, n=3) | twice ≤ 1.0 MB | **not met** |",
		"4x CPU slowdown (DevTools, the page's main thread), Run pressed at once: navigation start to first result (ms) | not measured: no samples |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q\n%s", want, out)
		}
	}
}

// TestReportBefore: with an earlier export measured in the same ops
// (before-*), the report adds a table that pairs before, after and the
// peer op by op; without it, it adds none (TestReportPeer's output).
func TestReportBefore(t *testing.T) {
	dir := t.TempDir()
	out := `BenchmarkPeerColdStart-2 1 1 ns/op 1900000 before-br-bytes 900 before-ms-click-to-result 1200 before-ms-to-first-result 500000 peer-br-bytes 250 peer-ms-click-to-result 400 peer-ms-to-first-result 1700000 twice-br-bytes 500 twice-ms-click-to-result 800 twice-ms-to-first-result
BenchmarkPeerColdStart-2 1 1 ns/op 1900000 before-br-bytes 1500 before-ms-click-to-result 2000 before-ms-to-first-result 500000 peer-br-bytes 300 peer-ms-click-to-result 500 peer-ms-to-first-result 1700000 twice-br-bytes 900 twice-ms-click-to-result 1000 twice-ms-to-first-result
`
	if err := os.WriteFile(filepath.Join(dir, PeerFile), []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Report(dir, &b); err != nil {
		t.Fatal(err)
	}
	// Cold: before 1200 and 2000, after 800 and 1000, peer 400 and 500;
	// after/before per op 0.67 and 0.5, median 0.58.
	want := "| cold navigation, Run at once: navigation start to first result (ms) | **1,600** (1,200–2,000, n=2) | **900** (800–1,000, n=2) | **3.50x** (3.00x–4.00x, n=2) | **2.00x** (2.00x–2.00x, n=2) | **0.58x** (0.50x–0.67x, n=2) |"
	if !strings.Contains(b.String(), want) {
		t.Errorf("report lacks %q\n%s", want, b.String())
	}
	b.Reset()
	if err := os.WriteFile(filepath.Join(dir, PeerFile), []byte(peerOut), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Report(dir, &b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "after / before") {
		t.Errorf("a run without an earlier export reports one:\n%s", b.String())
	}
}

// TestBytesCounted: the peer benchmarks count a fetched path as the file
// the server sent (the export's, or the peer's under /peer/), at the size
// of the export's own .br beside it, or compressed when there is none.
func TestBytesCounted(t *testing.T) {
	site, peer := t.TempDir(), t.TempDir()
	for _, f := range []struct{ path, body string }{
		{filepath.Join(site, "assets", "twice.js"), strings.Repeat("twice ", 1000)},
		{filepath.Join(site, "assets", "twice.js.br"), "12345"},
		{filepath.Join(peer, "sqlite-wasm", "sqlite3.wasm"), strings.Repeat("sqlite ", 1000)},
	} {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f.path, []byte(f.body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := &server{site: site, peer: peer}
	if got, want := s.file("/assets/twice.js"), filepath.Join(site, "assets", "twice.js"); got != want {
		t.Errorf("file(/assets/twice.js) = %q, want %q", got, want)
	}
	wasm := s.file("/peer/sqlite-wasm/sqlite3.wasm")
	if want := filepath.Join(peer, "sqlite-wasm", "sqlite3.wasm"); wasm != want {
		t.Errorf("file(/peer/sqlite-wasm/sqlite3.wasm) = %q, want %q", wasm, want)
	}
	for _, p := range []string{"/peer/../assets/twice.js", "/assets/", "/assets/none.js", "/peer/sqlite3.wasm"} {
		if got := s.file(p); got != "" {
			t.Errorf("file(%q) = %q, want none", p, got)
		}
	}
	if n, err := brotliSize(s.file("/assets/twice.js")); err != nil || n != 5 {
		t.Errorf("brotliSize with a .br beside = %d, %v; want the .br's 5 bytes", n, err)
	}
	if n, err := brotliSize(wasm); err != nil || n <= 0 || n >= 7000 {
		t.Errorf("brotliSize of 7,000 repetitive bytes = %d, %v; want a few dozen", n, err)
	}
}

// TestReportBlocks: the heavy blocks' table divides the browser's time by
// the native one op by op, and says the earlier export's when there is one.
func TestReportBlocks(t *testing.T) {
	dir := t.TempDir()
	out := `BenchmarkBrowserBlocks-2 1 1 ns/op 1000 native-ms-matrix 2500 twice-ms-matrix 5000 before-ms-matrix 3000 native-ms-race10000 5000 twice-ms-race10000 9000 before-ms-race10000
BenchmarkBrowserBlocks-2 1 1 ns/op 2000 native-ms-matrix 3000 twice-ms-matrix 8000 before-ms-matrix 4000 native-ms-race10000 6000 twice-ms-race10000 8000 before-ms-race10000
`
	if err := os.WriteFile(filepath.Join(dir, BrowserFile), []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Report(dir, &b); err != nil {
		t.Fatal(err)
	}
	// matrix: 2.5x and 1.5x (median 2.00x), before 5x and 4x; the race:
	// 1.67x and 1.5x.
	for _, want := range []string{
		"| `matrix` (lesson 16) | **1,500** (1,000–2,000, n=2) | **2,750** (2,500–3,000, n=2) | **2.00x** (1.50x–2.50x, n=2) | ≤ 2x | met by the median, not by every run | **6,500** (5,000–8,000, n=2) | **4.50x** (4.00x–5.00x, n=2) |",
		"| `race read 10000 --workers 8` | **3,500** (3,000–4,000, n=2) | **5,500** (5,000–6,000, n=2) | **1.58x** (1.50x–1.67x, n=2) | ≤ 2x | met |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}
