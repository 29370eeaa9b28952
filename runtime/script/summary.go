package script

import (
	"fmt"
	"strings"

	"github.com/twice-lab/twice/runtime/sim"
)

// Diagnosis kinds, as in the reading table of DESIGN.md section 2.
const (
	KindOnce         = "once"          // one effect from one delivery
	KindLeaseExpired = "lease-expired" // two runs, seconds apart
	KindClaimRace    = "claim-race"    // two runs, milliseconds apart
	KindClientRetry  = "client-retry"  // one run sent twice
	KindRedelivery   = "redelivery"    // delivered again, one effect
)

// raceGap separates the two ways two runs can both do the work: a lease
// that expired under a live execution leaves a gap of at least the lease
// (seconds); two workers racing one claim leave milliseconds.
const raceGap = sim.Second

// summarize groups the recorded effects by order, in order of first
// arrival, and diagnoses each group.
func (in *interp) summarize() ([]Summary, error) {
	rows, err := in.shell.List()
	if err != nil {
		return nil, err
	}
	attempts := map[string]int{}
	for _, r := range rows {
		attempts[r.Order] = max(attempts[r.Order], r.Attempts)
	}
	var sums []Summary
	idx := map[string]int{}
	first := map[string]sim.Time{}
	last := map[string]sim.Time{}
	runs := map[string]map[string]bool{}
	for _, e := range in.svc.Effects() {
		i, ok := idx[e.Order]
		if !ok {
			i = len(sums)
			idx[e.Order] = i
			sums = append(sums, Summary{Order: e.Order})
			first[e.Order] = e.At
			runs[e.Order] = map[string]bool{}
		}
		s := &sums[i]
		s.Effects++
		last[e.Order] = e.At
		runs[e.Order][e.Run] = true
		s.Tags = append(s.Tags, fmt.Sprintf("%s a%d s%d", e.Run, e.Attempt, e.Send))
	}
	untraced := in.untracedDuplicateLog()
	for i := range sums {
		s := &sums[i]
		s.Runs = len(runs[s.Order])
		gap := last[s.Order] - first[s.Order]
		s.SpanMS = gap / sim.Millisecond
		s.Kind, s.Diagnosis = diagnose(s.Effects, s.Runs, attempts[s.Order], gap)
		if s.Effects > 1 && untraced {
			s.Diagnosis += "; worker.log alone could not tell: its lines carry no run id (add --trace)"
		}
	}
	return sums, nil
}

// diagnose reads one order's evidence the way DESIGN.md section 2 does.
func diagnose(effects, runs, attempts int, gap sim.Time) (kind, words string) {
	switch {
	case effects > 1 && runs == 1:
		return KindClientRetry, fmt.Sprintf("one run sent %d times: a client retry after a timeout, not the queue", effects)
	case effects > 1 && gap >= raceGap:
		return KindLeaseExpired, fmt.Sprintf("%d runs %s apart: the lease expired under a run that did the work but never acked", runs, fmtGap(gap))
	case effects > 1:
		return KindClaimRace, fmt.Sprintf("%d runs %s apart: two workers claimed the same delivery (a claim race)", runs, fmtGap(gap))
	case attempts > 1:
		return KindRedelivery, fmt.Sprintf("delivered %d times, one effect: at-least-once delivery doing its job, no duplicate effect", attempts)
	}
	return KindOnce, "one delivery, one effect"
}

// untracedDuplicateLog reports whether worker.log has two identical lines
// that carry no run id: evidence that cannot tell two sends apart.
func (in *interp) untracedDuplicateLog() bool {
	seen := map[string]bool{}
	for _, l := range in.log {
		if strings.HasPrefix(l, "[run ") {
			continue
		}
		if seen[l] {
			return true
		}
		seen[l] = true
	}
	return false
}

// fmtGap prints a gap in ms, with a tenth of a millisecond below 10 ms so
// that a claim race reads "0.6 ms", not "0 ms".
func fmtGap(d sim.Time) string {
	if d < 10*sim.Millisecond {
		return fmt.Sprintf("%d.%d ms", d/sim.Millisecond, d%sim.Millisecond/100)
	}
	return fmt.Sprintf("%d ms", d/sim.Millisecond)
}
