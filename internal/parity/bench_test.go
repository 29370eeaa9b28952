package parity

import (
	"fmt"
	"strconv"
	"testing"
)

// racesPerRun is how many races one process runs in the CLI benchmarks:
// enough that start-up is a small part of each op (BenchmarkCLIStart
// measures that part on its own).
const racesPerRun = 1000

// BenchmarkCLIRace runs `twice run --seed N -c "race CLAIM 1000"` as a
// whole process per op, natively (a subprocess) and as the wasip1 build in
// wazero (a fresh module instance), and reports races per second. One run
// of
//
//	go test ./internal/parity -run '^$' -bench CLI -count 6
//
// gives the native and wazero figures side by side.
func BenchmarkCLIRace(b *testing.B) {
	for _, platform := range []string{"native", "wasip1"} {
		for _, claim := range []string{"read", "atomic"} {
			b.Run(platform+"/"+claim, func(b *testing.B) {
				run := runner(b, platform)
				src := fmt.Sprintf("race %s %d", claim, racesPerRun)
				for i := 0; b.Loop(); i++ {
					out := run("run", "--seed", strconv.Itoa(i), "-c", src)
					if out.code != 0 {
						b.Fatalf("%v", out)
					}
				}
				b.ReportMetric(float64(b.N*racesPerRun)/b.Elapsed().Seconds(), "races/s")
			})
		}
	}
}

// BenchmarkCLIStart runs the smallest script, to show what a process (or
// a module instance) costs before any race.
func BenchmarkCLIStart(b *testing.B) {
	for _, platform := range []string{"native", "wasip1"} {
		b.Run(platform, func(b *testing.B) {
			run := runner(b, platform)
			for b.Loop() {
				if out := run("run", "-c", "reset"); out.code != 0 {
					b.Fatalf("%v", out)
				}
			}
		})
	}
}

func runner(b *testing.B, platform string) func(args ...string) output {
	buildBoth(b)
	if platform == "native" {
		return func(args ...string) output { return runNative(b, "", "", args...) }
	}
	h := getHost(b)
	return func(args ...string) output { return h.run(b, "", "", args...) }
}
