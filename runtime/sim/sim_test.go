package sim

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/twice-lab/twice/runtime/event"
)

func TestProcessesInterleaveByTime(t *testing.T) {
	k := New(1)
	var got []string
	k.Go("A", 0, func(p *Proc) {
		got = append(got, fmt.Sprintf("A@%d", p.Now()))
		p.Sleep(10)
		got = append(got, fmt.Sprintf("A@%d", p.Now()))
		p.Sleep(10)
		got = append(got, fmt.Sprintf("A@%d", p.Now()))
	})
	k.Go("B", 5, func(p *Proc) {
		got = append(got, fmt.Sprintf("B@%d", p.Now()))
		p.Sleep(10)
		got = append(got, fmt.Sprintf("B@%d", p.Now()))
	})
	if err := k.Run(); err != nil {
		t.Fatal(err)
	}
	want := []string{"A@0", "B@5", "A@10", "B@15", "A@20"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if k.Now() != 20 {
		t.Errorf("now = %d, want 20", k.Now())
	}
}

// Processes due at the same instant are ordered by the seed: the same seed
// always picks the same order, and some seed picks each order.
func TestTiesFollowTheSeed(t *testing.T) {
	order := func(seed uint64) string {
		k := New(seed)
		s := ""
		for _, name := range []string{"A", "B"} {
			k.Go(name, 100, func(p *Proc) { s += p.Name() })
		}
		k.Run()
		return s
	}
	seen := map[string]bool{}
	for seed := range uint64(64) {
		a, b := order(seed), order(seed)
		if a != b {
			t.Fatalf("seed %d: %s then %s", seed, a, b)
		}
		seen[a] = true
	}
	if !seen["AB"] || !seen["BA"] {
		t.Errorf("orders seen over 64 seeds: %v; want both", seen)
	}
}

func TestBudgetStopsARunawayProcess(t *testing.T) {
	k := New(1)
	k.SetBudget(1000)
	cleaned := false
	k.Go("loop", 0, func(p *Proc) {
		defer func() { cleaned = true }()
		for {
			p.Step(1, event.Busy, "spin")
		}
	})
	if err := k.Run(); !errors.Is(err, ErrBudget) {
		t.Fatalf("err = %v, want ErrBudget", err)
	}
	if !cleaned {
		t.Error("the stopped process did not unwind")
	}
}

// A check set with SetCheck stops the run at the step where it first
// fails, with its error, and unwinds every process, the one waiting too.
func TestCheckStopsTheRun(t *testing.T) {
	k := New(1)
	k.SetTracing(true)
	tooMuch := errors.New("too much")
	k.SetCheck(func() error {
		if k.TraceBytes() > 1000 {
			return tooMuch
		}
		return nil
	})
	unwound := 0
	for _, name := range []string{"A", "B"} {
		k.Go(name, 0, func(p *Proc) {
			defer func() { unwound++ }()
			for {
				p.Step(1, event.Say, "a line of some length")
			}
		})
	}
	if err := k.Run(); err != tooMuch {
		t.Fatalf("err = %v, want the check's error", err)
	}
	if unwound != 2 || k.Pending() {
		t.Errorf("%d processes unwound, pending %v; want both unwound", unwound, k.Pending())
	}
	if n := k.TraceBytes(); n <= 1000 || n > 1000+200 {
		t.Errorf("stopped at %d bytes of trace; want just past 1000", n)
	}
	if k.Steps() != len(k.Trace())+1 {
		t.Errorf("%d steps for %d events: the failing step should be the one after the last event", k.Steps(), len(k.Trace()))
	}
}

func TestTraceRecordsSteps(t *testing.T) {
	k := New(1)
	k.SetTracing(true)
	k.Go("W", 7, func(p *Proc) {
		p.Step(3, event.Say, "first %d", 1)
		p.ReadClock(2)
	})
	k.Run()
	want := []Event{{7, "W", event.Say, "first 1", nil}, {10, "W", event.Clock, "read clock", nil}}
	if fmt.Sprint(k.Trace()) != fmt.Sprint(want) {
		t.Errorf("trace %v, want %v", k.Trace(), want)
	}
	k.SetTracing(false)
	k.Go("X", 0, func(p *Proc) { p.Step(1, event.Say, "quiet") })
	k.Run()
	if len(k.Trace()) != 2 {
		t.Errorf("tracing off still recorded: %v", k.Trace())
	}
}

func TestBetweenStaysInBounds(t *testing.T) {
	k := New(9)
	for range 10000 {
		if d := k.Between(30, 120); d < 30 || d > 120 {
			t.Fatalf("Between(30, 120) = %d", d)
		}
	}
	if k.Between(5, 5) != 5 || k.Between(7, 3) != 7 {
		t.Error("degenerate bounds")
	}
}

// RunUntil runs what is due up to an instant and leaves the rest pending,
// then sets the clock there: a shell's sleep with background work going on.
func TestRunUntilLeavesLaterStepsPending(t *testing.T) {
	k := New(1)
	var at []Time
	k.Go("bg", 0, func(p *Proc) {
		for range 3 {
			p.Sleep(100)
			at = append(at, p.Now())
		}
	})
	if err := k.RunUntil(250); err != nil {
		t.Fatal(err)
	}
	if len(at) != 2 || k.Now() != 250 || !k.Pending() {
		t.Fatalf("after RunUntil(250): steps at %v, now %d, pending %v", at, k.Now(), k.Pending())
	}
	if err := k.Run(); err != nil {
		t.Fatal(err)
	}
	if len(at) != 3 || at[2] != 300 || k.Pending() {
		t.Fatalf("after Run: steps at %v, pending %v", at, k.Pending())
	}
}

// RunUntilDone returns when one process has, with others still pending;
// Join wakes a waiting process at the instant the joined one returns.
func TestJoinAndRunUntilDone(t *testing.T) {
	k := New(2)
	var joinedAt Time = -1
	slow := k.Go("slow", 0, func(p *Proc) { p.Sleep(500) })
	k.Go("waiter", 0, func(p *Proc) {
		p.Join(slow)
		joinedAt = p.Now()
		p.Sleep(1000)
	})
	fast := k.Go("fast", 0, func(p *Proc) { p.Sleep(200) })
	if err := k.RunUntilDone(fast); err != nil {
		t.Fatal(err)
	}
	if !fast.Done() || slow.Done() || k.Now() != 200 {
		t.Fatalf("fast done %v, slow done %v, now %d", fast.Done(), slow.Done(), k.Now())
	}
	if err := k.Run(); err != nil {
		t.Fatal(err)
	}
	if joinedAt != 500 || k.Now() != 1500 || k.Pending() {
		t.Fatalf("joined at %d, now %d, pending %v", joinedAt, k.Now(), k.Pending())
	}
}

// Stop ends pending processes, and those waiting on them, without running
// them further.
func TestStopEndsPendingAndJoined(t *testing.T) {
	k := New(3)
	ran := false
	slow := k.Go("slow", 0, func(p *Proc) { p.Sleep(500); ran = true })
	k.Go("waiter", 0, func(p *Proc) { p.Join(slow); ran = true })
	if err := k.RunUntil(100); err != nil {
		t.Fatal(err)
	}
	k.Stop()
	if ran || k.Pending() {
		t.Fatalf("ran %v, pending %v after Stop", ran, k.Pending())
	}
}
