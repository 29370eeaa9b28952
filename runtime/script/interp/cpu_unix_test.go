//go:build unix

package interp

import "syscall"

// cpuTime is the CPU time this process has used, user and system, in
// seconds; a benchmark on a busy machine reports it beside the wall time,
// which waits for other processes too.
func cpuTime() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
