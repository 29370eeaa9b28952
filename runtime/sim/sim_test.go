package sim

import (
	"errors"
	"fmt"
	"slices"
	"testing"
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
			p.Step(1, "spin", "spin")
		}
	})
	if err := k.Run(); !errors.Is(err, ErrBudget) {
		t.Fatalf("err = %v, want ErrBudget", err)
	}
	if !cleaned {
		t.Error("the stopped process did not unwind")
	}
}

func TestTraceRecordsSteps(t *testing.T) {
	k := New(1)
	k.SetTracing(true)
	k.Go("W", 7, func(p *Proc) {
		p.Step(3, "test", "first %d", 1)
		p.ReadClock(2)
	})
	k.Run()
	want := []Event{{7, "W", "test", "first 1", nil}, {10, "W", "clock", "read clock", nil}}
	if fmt.Sprint(k.Trace()) != fmt.Sprint(want) {
		t.Errorf("trace %v, want %v", k.Trace(), want)
	}
	k.SetTracing(false)
	k.Go("X", 0, func(p *Proc) { p.Step(1, "test", "quiet") })
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
