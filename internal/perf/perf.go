// Package perf turns the raw output of the performance harness
// (docs/perf/run.sh: go test benchmark output, wrk reports and a list of
// sizes) into the table of docs/PERFORMANCE.md: each figure a median with
// its spread, ratios paired run by run, and its budget beside each
// measured value.
package perf

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Bench is one benchmark's samples: unit (ns/op, races/s, ...) to the
// values of each -count run, in the order they ran.
type Bench map[string][]float64

// ParseBench reads `go test -bench` output. Names lose their -GOMAXPROCS
// suffix, so BenchmarkRace/read-2 is "BenchmarkRace/read".
func ParseBench(r io.Reader) (map[string]Bench, error) {
	out := map[string]Bench{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue // a log line that starts with a benchmark's name
		}
		name := procSuffix.ReplaceAllString(f[0], "")
		b := out[name]
		if b == nil {
			b = Bench{}
			out[name] = b
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%q: %v", sc.Text(), err)
			}
			b[f[i+1]] = append(b[f[i+1]], v)
		}
	}
	return out, sc.Err()
}

var procSuffix = regexp.MustCompile(`-\d+$`)

// Stat is a median with its spread.
type Stat struct {
	Median, Min, Max float64
	N                int
}

// Summarize returns the median, minimum and maximum of v.
func Summarize(v []float64) Stat {
	if len(v) == 0 {
		return Stat{}
	}
	s := slices.Clone(v)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Stat{Median: m, Min: s[0], Max: s[len(s)-1], N: len(s)}
}

// Ratios pairs a[i] with b[i]: with -count N, the i-th runs of two
// benchmarks ran close together in one invocation, so their ratio sees the
// same machine.
func Ratios(a, b []float64) []float64 {
	n := min(len(a), len(b))
	r := make([]float64, 0, n)
	for i := range n {
		if b[i] != 0 {
			r = append(r, a[i]/b[i])
		}
	}
	return r
}

// Wrk is what one wrk run reported.
type Wrk struct {
	RequestsPerSec float64
	Requests       int
	Errors         int // socket errors plus non-2xx/3xx responses
	TransferPerSec string
}

// ParseWrk reads wrk's report.
func ParseWrk(r io.Reader) (Wrk, error) {
	var w Wrk
	seen := false
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		f := strings.Fields(line)
		switch {
		case strings.HasPrefix(line, "Requests/sec:") && len(f) == 2:
			v, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				return w, err
			}
			w.RequestsPerSec, seen = v, true
		case strings.HasPrefix(line, "Transfer/sec:") && len(f) == 2:
			w.TransferPerSec = f[1]
		case strings.Contains(line, "requests in") && len(f) > 0:
			w.Requests, _ = strconv.Atoi(f[0])
		case strings.HasPrefix(line, "Socket errors:"):
			// Socket errors: connect 0, read 0, write 0, timeout 0
			for _, part := range strings.Split(strings.TrimPrefix(line, "Socket errors:"), ",") {
				p := strings.Fields(part)
				if len(p) == 2 {
					n, _ := strconv.Atoi(p[1])
					w.Errors += n
				}
			}
		case strings.HasPrefix(line, "Non-2xx or 3xx responses:") && len(f) == 5:
			n, _ := strconv.Atoi(f[4])
			w.Errors += n
		}
	}
	if err := sc.Err(); err != nil {
		return w, err
	}
	if !seen {
		return w, fmt.Errorf("no Requests/sec line: not a wrk report")
	}
	return w, nil
}

// ParseSizes reads lines of "name bytes".
func ParseSizes(r io.Reader) (map[string]int64, error) {
	out := map[string]int64{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) != 2 {
			return nil, fmt.Errorf("sizes: want \"name bytes\", got %q", sc.Text())
		}
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("sizes: %q: %v", sc.Text(), err)
		}
		out[f[0]] = n
	}
	return out, sc.Err()
}
