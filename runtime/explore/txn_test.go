package explore

import (
	"testing"

	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/receipts"
)

// The claim in a transaction, with and without a busy timeout: every
// claim's counts (orderings, duplicates, overlaps, deaths of
// SQLITE_BUSY) agree with the brute-force model's enumeration, which
// applies SQLite's locking rules with no SQL and no state merging.
func TestTxnCountsMatchBruteForce(t *testing.T) {
	type race struct {
		workers int
		svc     Service
		flags   Flags
	}
	var races []race
	for _, f := range []Flags{{}, {Heartbeat: true}, {Fence: true}, {Ledger: true}} {
		races = append(races, race{2, Service{}, f})
	}
	races = append(races, race{2, Service{Dedupe: receipts.DedupeCheck, Key: receipts.KeyJob}, Flags{}})
	races = append(races, race{3, Service{}, Flags{}})
	for _, claim := range queue.Claims() {
		for _, txn := range queue.Txns() {
			for _, noBusy := range []bool{false, true} {
				for _, rc := range races {
					flags := rc.flags
					flags.Txn, flags.NoBusy = txn, noBusy
					r, err := ExploreRace(claim, rc.workers, rc.svc, flags)
					if err != nil {
						t.Fatalf("%s %d workers %+v: %v", claim, rc.workers, flags, err)
					}
					if r.Orderings.Cmp(CountOf(bruteMax)) > 0 {
						continue
					}
					total, dup, over, busy := bruteBusy(claim, rc.workers, rc.svc, flags)
					if r.Orderings != CountOf(uint64(total)) || r.Duplicating != CountOf(uint64(dup)) || r.Overlap != CountOf(uint64(over)) || r.Busy != CountOf(uint64(busy)) {
						t.Errorf("%s with %d workers, %+v, %+v: explorer %s dup, %s busy of %s (overlap %s); brute force %d dup, %d busy of %d (overlap %d)",
							claim, rc.workers, rc.svc, flags, r.Duplicating, r.Busy, r.Orderings, r.Overlap, dup, busy, total, over)
					}
				}
			}
		}
	}
}

// What SQLite does to the read claim, by transaction and busy timeout:
// in autocommit two workers both take the job; in a deferred transaction
// none does, but the loser dies of SQLITE_BUSY whether there is a busy
// timeout or not; BEGIN IMMEDIATE with a busy timeout gives neither
// duplicates nor errors, and without one the loser dies at its BEGIN.
func TestReadClaimByTxn(t *testing.T) {
	for _, c := range []struct {
		txn       queue.Txn
		noBusy    bool
		dup, busy bool
	}{
		{queue.TxnAutocommit, false, true, false},
		{queue.TxnAutocommit, true, true, false},
		{queue.TxnDeferred, false, false, true},
		{queue.TxnDeferred, true, false, true},
		{queue.TxnImmediate, false, false, false},
		{queue.TxnImmediate, true, false, true},
	} {
		r, err := ExploreRace(queue.ClaimRead, 2, Service{}, Flags{Txn: c.txn, NoBusy: c.noBusy})
		if err != nil {
			t.Fatal(err)
		}
		if dup, busy := !r.Duplicating.IsZero(), !r.Busy.IsZero(); dup != c.dup || busy != c.busy {
			t.Errorf("read claim, %s, no busy timeout %v: %s duplicate and %s busy of %s orderings; want duplicates %v, errors %v",
				c.txn, c.noBusy, r.Duplicating, r.Busy, r.Orderings, c.dup, c.busy)
		}
	}
}
