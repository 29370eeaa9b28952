package explore

import (
	"fmt"
	"maps"
	"math/big"
	"strings"
	"testing"

	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/receipts"
)

func TestTwoWorkersReadClaim(t *testing.T) {
	r, err := Explore(queue.ClaimRead, 2)
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

// The orderings are counted exactly: check every claim, with and without
// each of the service's dedupe modes and keys, against a count by
// brute-force enumeration of the workers' programs.
func TestCountsMatchBruteForce(t *testing.T) {
	services := []Service{{}}
	for _, d := range receipts.Dedupes() {
		for _, k := range receipts.Keys() {
			if d != receipts.DedupeOff && k != receipts.KeyNone {
				services = append(services, Service{d, k})
			}
		}
	}
	for _, workers := range []int{2, 3} {
		for _, claim := range queue.Claims() {
			for _, svc := range services {
				// Three workers with the service's steps are millions of
				// orderings for the brute force: only the job key, and
				// not under -short.
				if workers == 3 && svc != (Service{}) && (testing.Short() || svc.Key != receipts.KeyJob) {
					continue
				}
				r, err := ExploreService(claim, workers, svc)
				if err != nil {
					t.Fatal(err)
				}
				total, dup := brute(claim, workers, svc)
				if r.Orderings != CountOf(uint64(total)) || r.Duplicating != CountOf(uint64(dup)) {
					t.Errorf("%s with %d workers, dedupe %s key %s: explorer %s of %s, brute force %d of %d", claim, workers, svc.Dedupe, svc.Key, r.Duplicating, r.Orderings, dup, total)
				}
			}
		}
	}
}

// brute enumerates every ordering of an abstract model of the protocol in
// plain Go, independent of SQLite and of the explorer's state merging: it
// keeps every key, run keys included, by worker.
func brute(claim queue.Claim, workers int, svc Service) (total, dup int64) {
	type w struct{ pc, attempt int }
	keyed := svc.Dedupe != receipts.DedupeOff && svc.Key != receipts.KeyNone
	keyOf := func(i, attempt int) string {
		switch svc.Key {
		case receipts.KeyRun:
			return fmt.Sprint("run", i)
		case receipts.KeyAttempt:
			return fmt.Sprint("attempt", attempt)
		}
		return "shared"
	}
	var rec func(status string, attempts, effects int, keys map[string]bool, ws []w)
	rec = func(status string, attempts, effects int, keys map[string]bool, ws []w) {
		moved := false
		for i := range ws {
			if ws[i].pc == pcDone {
				continue
			}
			moved = true
			st, att, eff := status, attempts, effects
			ks := maps.Clone(keys)
			next := append([]w(nil), ws...)
			me := &next[i]
			switch me.pc {
			case pcClaim:
				switch {
				case status != "queued":
					me.pc = pcDone
				case claim.Protocol() == queue.ReadThenWrite:
					me.pc = pcTake
				case claim.Protocol() == queue.Conditional:
					st, att = "running", att+1
					me.pc = pcReceipt
				default:
					panic("no model for claim " + claim.String())
				}
			case pcTake:
				st, att = "running", att+1
				me.pc = pcReceipt
			case pcReceipt:
				if !keyed {
					eff++
					me.pc = pcAck
					break
				}
				k := keyOf(i, attempts)
				switch svc.Dedupe {
				case receipts.DedupeCheck:
					if keys[k] {
						me.pc = pcAck
					} else {
						me.pc, me.attempt = pcEffect, attempts
					}
				case receipts.DedupeClaim:
					if keys[k] {
						me.pc = pcAck
					} else {
						ks[k] = true
						me.pc = pcEffect
					}
				default:
					panic("no model for dedupe " + svc.Dedupe.String())
				}
			case pcEffect:
				eff++
				me.pc = pcAck
				if svc.Dedupe == receipts.DedupeCheck {
					me.pc = pcRemember
				}
			case pcRemember:
				ks[keyOf(i, me.attempt)] = true
				me.pc = pcAck
			case pcAck:
				st = "done"
				me.pc = pcDone
			}
			rec(st, att, eff, ks, next)
		}
		if !moved {
			total++
			if effects >= 2 {
				dup++
			}
		}
	}
	rec("queued", 0, 0, map[string]bool{}, make([]w, workers))
	return total, dup
}

// The service's check-then-act has the read claim's race: with the job
// id as key, some orderings of two workers still give two effects, and the
// shortest ends with both SELECTs of the key before either effect. Claim
// first gives none.
func TestDedupeCheckRacesClaimDoesNot(t *testing.T) {
	r, err := ExploreService(queue.ClaimRead, 2, Service{receipts.DedupeCheck, receipts.KeyJob})
	if err != nil {
		t.Fatal(err)
	}
	if r.Duplicating.IsZero() {
		t.Fatalf("dedupe check: no ordering duplicates (%s orderings)", r.Orderings)
	}
	// Check-then-act's signature: both requests find the key absent, and
	// no INSERT of it comes before the second effect.
	var absent, inserts int
	for _, st := range r.Shortest {
		if strings.Contains(st.What, "SELECTs the key: absent") {
			absent++
		}
		if strings.Contains(st.What, "INSERTs key") {
			inserts++
		}
	}
	if last := r.Shortest[len(r.Shortest)-1].What; absent != 2 || inserts != 0 || !strings.Contains(last, "records effect 2") {
		t.Errorf("the shortest duplicating ordering is not check-then-act (%d absent SELECTs, %d INSERTs):\n%+v", absent, inserts, r.Shortest)
	}
	for workers := MinWorkers; workers <= 4; workers++ {
		for _, claim := range queue.Claims() {
			r, err := ExploreService(claim, workers, Service{receipts.DedupeClaim, receipts.KeyJob})
			if err != nil {
				t.Fatal(err)
			}
			if !r.Duplicating.IsZero() || r.Orderings.IsZero() {
				t.Errorf("dedupe claim, claim %s, %d workers: %s of %s duplicate", claim, workers, r.Duplicating, r.Orderings)
			}
		}
	}
}

func TestAtomicNeverDuplicates(t *testing.T) {
	for workers := MinWorkers; workers <= MaxWorkers; workers++ {
		r, err := Explore(queue.ClaimAtomic, workers)
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
	r, err := Explore(queue.ClaimRead, 8)
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
	if _, err := Explore(queue.ClaimRead, 1); err == nil {
		t.Error("1 worker accepted")
	}
	if _, err := Explore(queue.ClaimRead, 9); err == nil {
		t.Error("9 workers accepted")
	}
	if _, err := Explore(queue.Claim(200), 2); err == nil {
		t.Error("unknown claim accepted")
	}
}

// BenchmarkExplore times a whole check of every interleaving:
//
//	go test ./runtime/explore -run '^$' -bench Explore
func BenchmarkExplore(b *testing.B) {
	for _, tc := range []struct {
		claim   queue.Claim
		workers int
	}{{queue.ClaimRead, 2}, {queue.ClaimAtomic, 2}, {queue.ClaimRead, 3}, {queue.ClaimRead, 8}, {queue.ClaimAtomic, 8}} {
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
