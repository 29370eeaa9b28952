package interp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/twice-lab/twice/runtime/script/result"
)

// columns are the steps a step axis shows unfolded, each as lane, label
// and mark.
func columns(s *result.Steps) (cols []string, workers []string) {
	for _, st := range s.Steps {
		if !st.Fold {
			cols = append(cols, st.Lane+" "+st.Label+" "+st.Mark)
			workers = append(workers, st.Lane)
		}
	}
	return cols, workers
}

// TestStepAxisIsTheSchedulersSteps: the timeline's step axis of a timed
// race shows the steps race --schedule takes (the scheduler board's, the
// explorer's) in the same order: running the schedule that names the
// workers column by column gives the same columns, with the same effects
// and lost claims.
func TestStepAxisIsTheSchedulersSteps(t *testing.T) {
	for _, claim := range []string{"read", "atomic", "lock", "async-lock"} {
		for seed := uint64(1); seed <= 6; seed++ {
			timed := Run("race "+claim+" 1", Options{Seed: seed, Timeline: true})
			if timed.Timeline == nil || timed.Timeline.Steps == nil {
				t.Fatalf("race %s 1 at seed %d: no step axis", claim, seed)
			}
			if got := timed.Timeline.Steps.Scale; got != "steps" {
				t.Errorf("race %s 1 opens on the %q scale, want steps", claim, got)
			}
			cols, workers := columns(timed.Timeline.Steps)
			src := "race " + claim + " --schedule " + strings.Join(workers, ",")
			sched := Run(src, Options{Seed: seed, Timeline: true})
			if sched.Error != nil {
				t.Fatalf("%s: %v", src, sched.Error)
			}
			want, _ := columns(sched.Timeline.Steps)
			if fmt.Sprint(cols) != fmt.Sprint(want) {
				t.Errorf("race %s at seed %d: the step axis shows\n%q\nwhere %s takes\n%q", claim, seed, cols, src, want)
			}
			if len(sched.Schedule.Steps) != len(cols) {
				t.Errorf("race %s at seed %d: %d columns, the schedule took %d steps", claim, seed, len(cols), len(sched.Schedule.Steps))
			}
		}
	}
}

// TestRaceShowsItsLastRace: a race command's trace, tables and diagnosis
// are of one race, its last, which the Result names.
func TestRaceShowsItsLastRace(t *testing.T) {
	r := Run("race read 20 && effects", Options{Seed: DefaultSeed, Timeline: true})
	if r.Race != "race 20 of 20" {
		t.Errorf("Race = %q, want race 20 of 20", r.Race)
	}
	if len(r.Trace) == 0 || !strings.HasPrefix(r.Trace[0].Step, "race 20 of 20") {
		t.Fatalf("the trace starts %q, want race 20 of 20's reset", r.Trace[0].Step)
	}
	runs := map[string]bool{}
	for _, e := range r.Trace {
		if e.Effect != nil {
			runs[e.Effect.Run] = true
		}
	}
	for _, f := range r.Effects {
		if !runs[f.Run] {
			t.Errorf("the effects table shows run %s, which the trace never sends", f.Run)
		}
	}
}
