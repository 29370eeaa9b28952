package explore

import (
	"errors"
	"fmt"
	"testing"

	"github.com/twice-lab/twice/runtime/queue"
)

// workerIndex turns "W2" into 1.
func workerIndex(t *testing.T, name string) int {
	var n int
	if _, err := fmt.Sscanf(name, "W%d", &n); err != nil {
		t.Fatalf("worker %q: %v", name, err)
	}
	return n - 1
}

// The shortest duplicating ordering the explorer reports, played as a
// schedule, records two effects at its last step; the explorer's own
// lines are the schedule's. Finished by each worker alone in turn, the
// race ends done, its jobs table holding the job done.
func TestScheduleReplaysShortest(t *testing.T) {
	for _, claim := range []queue.Claim{queue.ClaimRead, queue.ClaimAsyncLock} {
		r, err := Explore(claim, 2)
		if err != nil {
			t.Fatal(err)
		}
		var sched []int
		for _, st := range r.Shortest {
			sched = append(sched, workerIndex(t, st.Worker))
		}
		rep, err := RunSchedule(claim, 2, Service{}, Flags{}, sched)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Effects) != 2 || rep.Effects[1].Step != len(sched) || rep.Done {
			t.Fatalf("%s: %+v after the shortest ordering", claim, rep)
		}
		for i, st := range rep.Steps {
			if got := st.Label + ": " + st.Said; st.Worker != r.Shortest[i].Worker || got != r.Shortest[i].What {
				t.Errorf("%s, step %d: %s %q, the explorer said %s %q", claim, i+1, st.Worker, got, r.Shortest[i].Worker, r.Shortest[i].What)
			}
		}
		for i, n := range rep.Left {
			for range n {
				sched = append(sched, i)
			}
		}
		rep, err = RunSchedule(claim, 2, Service{}, Flags{}, sched)
		if err != nil || !rep.Done || rep.Jobs[0].Status != "done" || rep.Next[0].Label != "" {
			t.Fatalf("%s finished alone: %v, %+v", claim, err, rep)
		}
	}
}

// A schedule that names a worker that has finished, or one the race does
// not have, stops there with the steps before it kept.
func TestScheduleErrors(t *testing.T) {
	// Under the atomic claim the loser's one step is its claim's UPDATE.
	rep, err := RunSchedule(queue.ClaimAtomic, 2, Service{}, Flags{}, []int{0, 1, 1})
	var se *ScheduleError
	if !errors.As(err, &se) || se.At != 3 || len(rep.Steps) != 2 {
		t.Errorf("a finished worker named: %v, %d steps kept", err, len(rep.Steps))
	}
	rep, err = RunSchedule(queue.ClaimAtomic, 2, Service{}, Flags{}, []int{0, 2})
	if !errors.As(err, &se) || se.At != 2 || len(rep.Steps) != 1 || rep.Next[0].Label == "" {
		t.Errorf("a worker the race lacks: %v, %+v", err, rep)
	}
}
