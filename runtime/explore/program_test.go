package explore

import (
	"errors"
	"strings"
	"testing"

	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/receipts"
)

// Each worker's program is the steps it runs alone, named as its next
// step is named: at the start every worker is at its first line, and each
// line is the next step's label when the worker gets there. A worker that
// loses the claim is stopped; one that runs to its ack is finished.
func TestProgramsFollowTheSchedule(t *testing.T) {
	cases := []struct {
		claim queue.Claim
		svc   Service
		flags Flags
	}{
		{queue.ClaimRead, Service{}, Flags{}},
		{queue.ClaimLock, Service{}, Flags{Heartbeat: true}},
		{queue.ClaimAtomic, Service{}, Flags{Fence: true}},
		{queue.ClaimAsyncLock, Service{Dedupe: receipts.DedupeCheck, Key: receipts.KeyJob}, Flags{}},
		{queue.ClaimRead, Service{}, Flags{Ledger: true}},
	}
	for _, c := range cases {
		rep, err := RunSchedule(c.claim, 2, c.svc, c.flags, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range rep.Programs {
			if p.At != 0 || len(p.Lines) < 3 || p.Lines[0] != rep.Next[i].Label || p.Ended != "" {
				t.Errorf("%s %+v: %s's program at the start: %+v, next %q", c.claim, c.flags, p.Worker, p, rep.Next[i].Label)
			}
		}
		// Play the round-robin ordering to its end, checking at each step
		// that a worker's mark is on its next step's line.
		var sched []int
		for _, w := range rep.Through {
			sched = append(sched, workerIndex(t, w))
			r, err := RunSchedule(c.claim, 2, c.svc, c.flags, sched)
			if err != nil {
				t.Fatalf("%s %+v, schedule %v: %v", c.claim, c.flags, sched, err)
			}
			for i, p := range r.Programs {
				if p.At >= 0 && p.At < len(p.Lines) && p.Lines[p.At] != r.Next[i].Label && !strings.Contains(r.Next[i].Label, "(waits") {
					t.Errorf("%s %+v after %v: %s at line %d %q, next %q", c.claim, c.flags, sched, p.Worker, p.At, p.Lines[p.At], r.Next[i].Label)
				}
			}
			if len(sched) == len(rep.Through) {
				if !r.Done {
					t.Errorf("%s %+v: the ordering %v does not end the race", c.claim, c.flags, rep.Through)
				}
				for _, p := range r.Programs {
					if p.At != len(p.Lines) || p.Ended == "" {
						t.Errorf("%s %+v: %s at the end: %+v", c.claim, c.flags, p.Worker, p)
					}
				}
			}
		}
	}
	// Under the atomic claim W1's UPDATE takes the job; W2's finds it
	// taken and stops there.
	rep, err := RunSchedule(queue.ClaimAtomic, 2, Service{}, Flags{}, []int{0, 1})
	if err != nil && !errors.As(err, new(*ScheduleError)) {
		t.Fatal(err)
	}
	if p := rep.Programs[1]; p.Ended != "stopped" || p.At != len(p.Lines) {
		t.Errorf("W2 lost the claim: %+v", p)
	}
	if p := rep.Programs[0]; p.Ended != "" || p.At != 1 {
		t.Errorf("W1 took the claim: %+v", p)
	}
}

// With a dedupe, the keys stored are the board's key table, with the
// step that stored each.
func TestScheduleKeys(t *testing.T) {
	rep, err := RunSchedule(queue.ClaimAtomic, 2, Service{Dedupe: receipts.DedupeClaim, Key: receipts.KeyJob}, Flags{}, []int{0, 0})
	if err != nil && !errors.As(err, new(*ScheduleError)) {
		t.Fatal(err)
	}
	if len(rep.Keys) != 1 || rep.Keys[0].Worker != "W1" || rep.Keys[0].Step != 2 {
		t.Errorf("keys after W1's claim and receipt: %+v", rep.Keys)
	}
}
