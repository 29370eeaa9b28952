//go:build !unix

package interp

// cpuTime is unknown here: benchmarks report 0 CPU time.
func cpuTime() float64 { return 0 }
