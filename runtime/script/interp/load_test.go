package interp

import (
	"regexp"
	"strconv"
	"testing"
)

// TestLoadLineAgrees holds each lease line of load to itself: a job with
// two effects had an execution that was still running when its lease ran
// out, so it took longer than the lease, and the bracket counts it. The
// sweeps are lesson 8's and lesson 9's, with heartbeats and with stalls
// (a stall is no processing time, and still makes an execution long).
func TestLoadLineAgrees(t *testing.T) {
	line := regexp.MustCompile(`^lease=(\S+)s: two effects in (\d+) of \d+ jobs \((\d+) execution\(s\) took longer than the lease\)$`)
	for _, src := range []string{
		"load 200 --processing lognormal:p50=800,p95=3000 --lease 1,2,3,5,10",
		"load 200 --processing lognormal:p50=800,p95=3000 --lease 1,2,5,10 --heartbeat 300",
		"load 200 --processing lognormal:p50=800,p95=3000 --lease 1,2,5,10 --heartbeat 300 --stall 12000",
		"load 100 --processing fixed:200 --lease 1,5 --stall 6000",
	} {
		seeds := []uint64{DefaultSeed, 7, 2026}
		if testing.Short() {
			seeds = seeds[:1]
		}
		for _, seed := range seeds {
			res := Run(src+"\n", Options{Seed: seed})
			if res.Error != nil {
				t.Fatalf("%s: %v", src, res.Error)
			}
			lines := 0
			for _, l := range res.Transcript[1:] {
				m := line.FindStringSubmatch(l)
				if m == nil {
					t.Fatalf("%s at seed %d: line %q is not a lease line", src, seed, l)
				}
				lines++
				dup, _ := strconv.Atoi(m[2])
				long, _ := strconv.Atoi(m[3])
				if dup > long {
					t.Errorf("%s at seed %d: %q counts %d jobs with two effects but only %d executions longer than the lease", src, seed, l, dup, long)
				}
			}
			if want := len(res.Loads); lines != want {
				t.Errorf("%s: %d lease lines, %d tallies", src, lines, want)
			}
		}
	}
}
