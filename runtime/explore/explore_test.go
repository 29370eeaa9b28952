package explore

import (
	"fmt"
	"math/big"
	"testing"
)

func TestTwoWorkersReadClaim(t *testing.T) {
	r, err := Explore("read", 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("read, 2 workers: %s of %s, %d states, %d statements", r.Duplicating, r.Orderings, r.States, r.Statements)
	if r.Duplicating.IsZero() || r.Duplicating.Cmp(r.Orderings) >= 0 {
		t.Errorf("read claim: %s of %s duplicate; want some but not all", r.Duplicating, r.Orderings)
	}
	// Shortest duplicating ordering: both SELECTs before either UPDATE,
	// then both UPDATEs and both receipts: six steps.
	if len(r.Shortest) != 6 {
		t.Fatalf("shortest has %d steps: %+v", len(r.Shortest), r.Shortest)
	}
}

// The orderings are counted exactly: check the read claim against a
// count by brute-force enumeration of the two programs.
func TestCountsMatchBruteForce(t *testing.T) {
	for _, workers := range []int{2, 3} {
		for _, claim := range []string{"read", "atomic"} {
			r, err := Explore(claim, workers)
			if err != nil {
				t.Fatal(err)
			}
			total, dup := brute(claim, workers)
			if r.Orderings != CountOf(uint64(total)) || r.Duplicating != CountOf(uint64(dup)) {
				t.Errorf("%s with %d workers: explorer %s of %s, brute force %d of %d", claim, workers, r.Duplicating, r.Orderings, dup, total)
			}
		}
	}
}

// brute enumerates every ordering of an abstract model of the protocol in
// plain Go, independent of SQLite and of the explorer's state merging.
func brute(claim string, workers int) (total, dup int64) {
	type w struct{ pc int }
	var rec func(status string, effects int, ws []w)
	rec = func(status string, effects int, ws []w) {
		moved := false
		for i := range ws {
			if ws[i].pc == pcDone {
				continue
			}
			moved = true
			st, eff := status, effects
			next := append([]w(nil), ws...)
			switch next[i].pc {
			case pcClaim:
				if status != "queued" {
					next[i].pc = pcDone
				} else if claim == "read" {
					next[i].pc = pcTake
				} else {
					st = "running"
					next[i].pc = pcReceipt
				}
			case pcTake:
				st = "running"
				next[i].pc = pcReceipt
			case pcReceipt:
				eff++
				next[i].pc = pcAck
			case pcAck:
				st = "done"
				next[i].pc = pcDone
			}
			rec(st, eff, next)
		}
		if !moved {
			total++
			if effects >= 2 {
				dup++
			}
		}
	}
	rec("queued", 0, make([]w, workers))
	return total, dup
}

func TestAtomicNeverDuplicates(t *testing.T) {
	for workers := MinWorkers; workers <= MaxWorkers; workers++ {
		r, err := Explore("atomic", workers)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Duplicating.IsZero() || r.Shortest != nil {
			t.Errorf("atomic, %d workers: %s of %s duplicate", workers, r.Duplicating, r.Orderings)
		}
		if r.Orderings.IsZero() {
			t.Errorf("atomic, %d workers: no orderings", workers)
		}
	}
}

func TestEightWorkersReadIsExactAndQuick(t *testing.T) {
	r, err := Explore("read", 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("read, 8 workers: %s of %s orderings, %d states, %d statements", r.Duplicating, r.Orderings, r.States, r.Statements)
	// Without any claim, 8 workers of 4 steps each would have
	// (32)!/(4!)^8 orderings; early exits make the real number smaller.
	// Pinned from the big-integer implementation this one replaced.
	if got, want := fmt.Sprintf("%s of %s", r.Duplicating, r.Orderings), "15049651113413820288000 of 15049651113413821739520"; got != want {
		t.Errorf("read, 8 workers: %s orderings duplicate, want %s", got, want)
	}
	if upper := new(big.Int).Div(fact(32), new(big.Int).Exp(big.NewInt(24), big.NewInt(8), nil)); toBig(r.Orderings).Cmp(upper) >= 0 {
		t.Errorf("more orderings (%s) than the unconstrained bound %s", r.Orderings, upper)
	}
}

func fact(n int64) *big.Int { return new(big.Int).MulRange(1, n) }

func TestBadArguments(t *testing.T) {
	if _, err := Explore("read", 1); err == nil {
		t.Error("1 worker accepted")
	}
	if _, err := Explore("read", 9); err == nil {
		t.Error("9 workers accepted")
	}
	if _, err := Explore("optimistic", 2); err == nil {
		t.Error("unknown claim accepted")
	}
}

// BenchmarkExplore times a whole check of every interleaving:
//
//	go test ./runtime/explore -run '^$' -bench Explore
func BenchmarkExplore(b *testing.B) {
	for _, tc := range []struct {
		claim   string
		workers int
	}{{"read", 2}, {"atomic", 2}, {"read", 3}, {"read", 8}, {"atomic", 8}} {
		b.Run(fmt.Sprintf("%s/%d", tc.claim, tc.workers), func(b *testing.B) {
			var states int
			for b.Loop() {
				r, err := Explore(tc.claim, tc.workers)
				if err != nil {
					b.Fatal(err)
				}
				states = r.States
			}
			b.ReportMetric(float64(states), "states")
		})
	}
}

// States must say, before exploring, what Explore then reports: the
// script's budget of explored states is checked with it at parse time.
func TestStatesKnownBeforehand(t *testing.T) {
	for _, claim := range []string{"read", "lock", "atomic"} {
		for w := MinWorkers; w <= MaxWorkers; w++ {
			r, err := Explore(claim, w)
			if err != nil {
				t.Fatal(err)
			}
			if got := States(claim, w); got != r.States {
				t.Errorf("States(%s, %d) = %d; Explore explored %d", claim, w, got, r.States)
			}
		}
	}
	if States("read", MaxWorkers+1) != 0 || States("optimistic", 2) != 0 {
		t.Error("States of a refused race is not 0")
	}
}
