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
		"| total before the first live result, brotli | ≤ 2.8 MB | not measured: no sizes.txt | not measured |",
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
