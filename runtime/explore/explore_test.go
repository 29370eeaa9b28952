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
// each of the service's dedupe modes and keys, and with every combination
// of the worker flags, against a count by brute-force enumeration of the
// workers' programs.
func TestCountsMatchBruteForce(t *testing.T) {
	for _, workers := range []int{2, 3} {
		for _, claim := range queue.Claims() {
			for _, svc := range services() {
				for _, flags := range flagSets() {
					// Three workers with the service's steps or the
					// flags' are millions of orderings for the brute
					// force: not under -short, and the service's steps
					// only with the job key and no flags.
					if workers == 3 && (svc != (Service{}) || flags != (Flags{})) && (testing.Short() || svc != (Service{}) && (svc.Key != receipts.KeyJob || flags != (Flags{}))) {
						continue
					}
					// Under -short, the claims beyond the article's two
					// are checked with a service or with flags, not both.
					if testing.Short() && claim != queue.ClaimRead && claim != queue.ClaimAtomic && svc != (Service{}) && flags != (Flags{}) {
						continue
					}
					r, err := ExploreRace(claim, workers, svc, flags)
					if err != nil {
						t.Fatal(err)
					}
					// The brute force visits every ordering: beyond some tens
					// of millions (the async lock's three workers are 137
					// million) it would run for hours.
					if r.Orderings.Cmp(CountOf(bruteMax)) > 0 {
						t.Logf("%s with %d workers, dedupe %s key %s, %+v: %s orderings, too many for the brute force", claim, workers, svc.Dedupe, svc.Key, flags, r.Orderings)
						continue
					}
					total, dup, over := brute(claim, workers, svc, flags)
					if r.Orderings != CountOf(uint64(total)) || r.Duplicating != CountOf(uint64(dup)) || r.Overlap != CountOf(uint64(over)) {
						t.Errorf("%s with %d workers, dedupe %s key %s, %+v: explorer %s of %s (overlap %s), brute force %d of %d (overlap %d)", claim, workers, svc.Dedupe, svc.Key, flags, r.Duplicating, r.Orderings, r.Overlap, dup, total, over)
					}
				}
			}
		}
	}
}

// bruteMax bounds the orderings TestCountsMatchBruteForce enumerates one
// by one.
const bruteMax = 40_000_000

// brute enumerates every ordering of an abstract model of the workers'
// programs in plain Go, independent of SQLite and of the explorer's state
// merging: it keeps every key, run keys included, by worker, the row's
// run, the lock's owner, and the open transaction's writes. A claim's
// steps are read from the claim, each by what its Model says it does to
// the tables, so that every claim of the list is modelled with no case
// of its own. It returns the orderings, those that end with two effects,
// and those that pass a moment where two workers own the job at once.
func brute(claim queue.Claim, workers int, svc Service, flags Flags) (total, dup, overlap int64) {
	total, dup, overlap, _ = bruteBusy(claim, workers, svc, flags)
	return total, dup, overlap
}

// bruteBusy is brute, and also counts the orderings in which a worker
// dies of SQLITE_BUSY. With the claim in a transaction (flags.Txn) it
// keeps, apart from the committed row and lock, the claim transaction's
// own view of them, which only its worker sees until COMMIT; a count of
// committed writes, and for each worker the count its read snapshot was
// taken at; and it applies SQLite's rules in WAL mode: a write that finds
// the write lock held waits with a busy timeout, fails without one, and
// fails from a read snapshot in any case; a write from a snapshot that a
// commit has passed fails too.
func bruteBusy(claim queue.Claim, workers int, svc Service, flags Flags) (total, dup, overlap, busy int64) {
	type w struct {
		pc, cs, attempt int
		keyIn, row      bool
		snap            int  // the committed-writes count its snapshot was taken at, -1 for none
		wlock, won      bool // its claim's transaction holds the write lock; its claim took
		wrote           bool // its claim's transaction changed a row
	}
	type st struct {
		status        string
		attempts, run int // run: the worker whose run the row holds, -1 for none
		lock          int // the worker that owns the job's lock, -1 for none
		high, effects int
		keys          map[string]bool // the service's stored keys
		ledgerKey     bool            // the event's key committed in processed_keys
		holder        int             // the worker with a ledger transaction open, -1 for none
		writer        int             // the worker whose claim transaction holds the write lock, -1 for none
		// the writer's uncommitted view of the row and the lock
		pstatus              string
		pattempts, prun, plk int
		ver                  int  // committed writes so far
		died                 bool // a worker died of SQLITE_BUSY
	}
	var steps []queue.Step
	for _, s := range claim.Steps() {
		if s.Ordered() {
			steps = append(steps, s)
		}
	}
	release := claim.Release()
	// model runs a claim or release step of worker i: what it does to n,
	// and whether the claim goes on after it.
	// model runs a claim or release step of worker i: what it does to n,
	// whether the claim goes on after it, and whether it changed a row.
	model := func(s queue.Step, n *st, i int) (goOn, changed bool) {
		take := func() { n.status, n.attempts, n.run = "running", n.attempts+1, i }
		switch s.Model {
		case queue.ModelNone:
		case queue.ModelReadJob:
			return n.status == "queued", false
		case queue.ModelTakeJob:
			take()
			return true, true
		case queue.ModelTakeUndone:
			if n.status == "done" {
				return false, false
			}
			take()
			return true, true
		case queue.ModelClaimJob:
			if n.status != "queued" {
				return false, false
			}
			take()
			return true, true
		case queue.ModelReadLock:
			return n.lock < 0, false
		case queue.ModelSetLock:
			n.lock = i
			return true, true
		case queue.ModelTryLock:
			if n.lock >= 0 {
				return false, false
			}
			n.lock = i
			return true, true
		case queue.ModelReleaseLock:
			if n.lock == i {
				n.lock = -1
				return true, true
			}
		case queue.ModelReleaseAnyLock:
			if n.lock >= 0 {
				n.lock = -1
				return true, true
			}
		case queue.ModelRenewLock:
			return n.lock == i, n.lock == i
		default:
			panic(fmt.Sprintf("brute: no model for step %q", s.Label))
		}
		return true, false
	}
	acked := func(me *w) {
		me.pc, me.cs = pcDone, 0
		if len(release) > 0 {
			me.pc = pcRelease
		}
	}
	keyed := svc.Dedupe != receipts.DedupeOff && svc.Key != receipts.KeyNone && !flags.Ledger
	keyOf := func(i, attempt int) string {
		switch svc.Key {
		case receipts.KeyRun:
			return fmt.Sprint("run", i)
		case receipts.KeyAttempt:
			return fmt.Sprint("attempt", attempt)
		}
		return "shared"
	}
	effect := pcReceipt
	if flags.Ledger {
		effect = pcBegin
	}
	work := func(me *w) {
		me.pc = effect
		if flags.Heartbeat {
			me.pc = pcRenew
		}
	}
	claimed := func(me *w) {
		switch {
		case flags.Fence && !flags.Ledger:
			me.pc = pcReadBack
		case flags.Ledger && flags.SeparateKey:
			me.pc = pcKeyBegin
		default:
			work(me)
		}
	}
	writes := func(me w) bool {
		return me.pc == pcRenew || me.pc == pcAck || me.pc == pcBegin || me.pc == pcKeyBegin || me.pc == pcRelease || me.pc == pcTxBegin || me.pc == pcClaim && !me.wlock && steps[me.cs].Writes()
	}
	owns := func(me w) bool {
		if me.pc == pcTxEnd {
			return me.won
		}
		return me.pc != pcClaim && me.pc != pcTxBegin && me.pc != pcRelease && me.pc != pcDone
	}
	var rec func(s st, ws []w, over bool)
	rec = func(s st, ws []w, over bool) {
		owners := 0
		for _, me := range ws {
			if owns(me) {
				owners++
			}
		}
		over = over || owners >= 2
		moved := false
		for i := range ws {
			if ws[i].pc == pcDone {
				continue
			}
			locked := s.holder >= 0 && s.holder != i || s.writer >= 0 && s.writer != i
			snap := ws[i].snap >= 0
			die := false
			if writes(ws[i]) {
				switch {
				case locked && (snap || flags.NoBusy):
					die = true
				case locked:
					continue // it waits for the lock: no step
				case snap && ws[i].snap != s.ver:
					die = true
				}
			}
			moved = true
			n := s
			n.keys = maps.Clone(s.keys)
			next := append([]w(nil), ws...)
			me := &next[i]
			if die {
				*me = w{pc: pcDone, snap: -1}
				n.died = true
				rec(n, next, over)
				continue
			}
			// commit counts a write committed outside a transaction.
			commit := func(changed bool) {
				if changed {
					n.ver++
				}
			}
			switch me.pc {
			case pcTxBegin:
				me.wlock, me.pc = true, pcClaim
				n.writer = i
				n.pstatus, n.pattempts, n.prun, n.plk = n.status, n.attempts, n.run, n.lock
			case pcClaim:
				st := steps[me.cs]
				if flags.Txn == queue.TxnDeferred && !me.wlock {
					switch {
					case st.Writes():
						me.wlock, me.snap = true, -1
						n.writer = i
						n.pstatus, n.pattempts, n.prun, n.plk = n.status, n.attempts, n.run, n.lock
					case st.Shared() && me.snap < 0:
						me.snap = n.ver
					}
				}
				var goOn, changed bool
				if me.wlock {
					// The transaction's own view of the row and the lock.
					v := n
					v.status, v.attempts, v.run, v.lock = n.pstatus, n.pattempts, n.prun, n.plk
					goOn, changed = model(st, &v, i)
					n.pstatus, n.pattempts, n.prun, n.plk = v.status, v.attempts, v.run, v.lock
					me.wrote = me.wrote || changed
				} else {
					goOn, changed = model(st, &n, i)
					commit(changed)
				}
				switch {
				case !goOn && flags.Txn.Open():
					me.pc = pcTxEnd
				case !goOn:
					me.pc, me.cs = pcDone, 0
				case me.cs+1 < len(steps):
					me.cs++
				case flags.Txn.Open():
					me.pc, me.won = pcTxEnd, true
				default:
					me.cs = 0
					claimed(me)
				}
			case pcTxEnd:
				if me.wlock {
					n.status, n.attempts, n.run, n.lock = n.pstatus, n.pattempts, n.prun, n.plk
					n.writer = -1
					commit(me.wrote)
				}
				won := me.won
				*me = w{pc: pcDone, snap: -1}
				if won {
					claimed(me)
				}
			case pcRelease:
				_, changed := model(release[me.cs], &n, i)
				commit(changed)
				if me.cs++; me.cs == len(release) {
					me.pc, me.cs = pcDone, 0
				}
			case pcReadBack:
				me.attempt = s.attempts
				me.pc = pcReceipt
				if flags.Heartbeat {
					me.pc = pcRenew
				}
			case pcRenew:
				renewed := s.run == i && s.status == "running"
				commit(renewed)
				holds := true
				for _, st := range claim.Renew() {
					goOn, changed := model(st, &n, i)
					holds = holds && goOn
					commit(changed)
				}
				if renewed && holds {
					me.pc = effect
				} else {
					me.pc, me.attempt = pcDone, 0
				}
			case pcReceipt:
				att := s.attempts
				if flags.Fence {
					att = me.attempt
					if att < s.high {
						me.pc, me.attempt = pcAck, 0
						break
					}
					n.high = att
				}
				me.attempt = 0
				if !keyed {
					n.effects++
					me.pc = pcAck
					break
				}
				k := keyOf(i, att)
				switch svc.Dedupe {
				case receipts.DedupeCheck:
					if s.keys[k] {
						me.pc = pcAck
					} else {
						me.pc, me.attempt = pcEffect, att
					}
				case receipts.DedupeClaim:
					if s.keys[k] {
						me.pc = pcAck
					} else {
						n.keys[k] = true
						me.pc = pcEffect
					}
				default:
					panic("no model for dedupe " + svc.Dedupe.String())
				}
			case pcEffect:
				n.effects++
				me.pc = pcAck
				if svc.Dedupe == receipts.DedupeCheck {
					me.pc = pcRemember
				}
			case pcRemember:
				n.keys[keyOf(i, me.attempt)] = true
				me.pc, me.attempt = pcAck, 0
			case pcAck:
				me.pc = pcDone
				if !flags.Fence || s.run == i {
					n.status = "done"
					commit(true)
					acked(me)
				}
			case pcBegin:
				n.holder = i
				me.pc = pcKey
				if flags.SeparateKey {
					me.pc = pcRow
				}
			case pcKeyBegin:
				n.holder = i
				me.pc = pcKeyInsert
			case pcKeyInsert:
				me.keyIn = !s.ledgerKey
				me.pc = pcKeyCommit
			case pcKeyCommit:
				n.holder = -1
				commit(me.keyIn)
				if me.keyIn {
					n.ledgerKey, me.keyIn = true, false
					work(me)
				} else {
					me.pc = pcAck // the key was taken: ack outside a transaction
				}
			case pcKey:
				if s.ledgerKey {
					me.pc = pcAckTx
				} else {
					me.keyIn, me.pc = true, pcRow
				}
			case pcRow:
				me.row, me.pc = true, pcAckTx
			case pcAckTx:
				me.pc = pcCommit
				if flags.Fence && s.run != i {
					me.pc = pcRollback
				}
			case pcCommit:
				// The ack, the key and the row become visible together.
				n.status = "done"
				n.ledgerKey = s.ledgerKey || me.keyIn
				if me.row {
					n.effects++
				}
				n.holder = -1
				commit(true)
				*me = w{snap: -1}
				acked(me)
			case pcRollback:
				n.holder = -1
				*me = w{pc: pcDone, snap: -1}
			}
			rec(n, next, over)
		}
		if !moved {
			for _, x := range ws {
				if x.pc != pcDone {
					panic("brute: a worker waits for ever")
				}
			}
			total++
			if s.effects >= 2 {
				dup++
			}
			if over {
				overlap++
			}
			if s.died {
				busy++
			}
		}
	}
	start := make([]w, workers)
	for i := range start {
		start[i].snap = -1
		if flags.Txn == queue.TxnImmediate {
			start[i].pc = pcTxBegin
		}
	}
	rec(st{status: "queued", run: -1, lock: -1, holder: -1, writer: -1, keys: map[string]bool{}}, start, false)
	return total, dup, overlap, busy
}

// BEGIN IMMEDIATE serialises: the search takes a write by a worker while
// another's ledger transaction is open for no step, and SQLite must agree
// that the write would wait (SQLITE_BUSY), for every such state. And with
// the event's key claimed in the effect's transaction, no ordering writes
// two ledger rows.
func TestLedgerWritesWaitAndNeverDuplicate(t *testing.T) {
	for _, claim := range queue.Claims() {
		for _, flags := range flagSets() {
			if !flags.Ledger {
				continue
			}
			n := 0
			r, err := exploreRace(claim, 3, Service{}, flags, &n)
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				t.Errorf("%s, %+v: no write ever waited for a transaction", claim, flags)
			}
			if !r.Duplicating.IsZero() || r.Orderings.IsZero() {
				t.Errorf("%s, %+v: %s of %s orderings write two ledger rows", claim, flags, r.Duplicating, r.Orderings)
			}
		}
	}
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
		flags   Flags
		name    string
	}{
		{queue.ClaimRead, 2, Flags{}, ""}, {queue.ClaimAtomic, 2, Flags{}, ""}, {queue.ClaimRead, 3, Flags{}, ""},
		{queue.ClaimRead, 8, Flags{}, ""}, {queue.ClaimAtomic, 8, Flags{}, ""},
		{queue.ClaimRead, 2, Flags{Heartbeat: true, Fence: true}, "/heartbeat+fence"},
		{queue.ClaimRead, 7, Flags{Heartbeat: true}, "/heartbeat"},
		{queue.ClaimRead, 8, Flags{Ledger: true}, "/ledger"},
		{queue.ClaimRead, 6, Flags{Heartbeat: true, Ledger: true}, "/heartbeat+ledger"},
	} {
		b.Run(fmt.Sprintf("%s/%d%s", tc.claim, tc.workers, tc.name), func(b *testing.B) {
			var states int
			for b.Loop() {
				r, err := ExploreRace(tc.claim, tc.workers, Service{}, tc.flags)
				if err != nil {
					b.Fatal(err)
				}
				states = r.States
			}
			b.ReportMetric(float64(states), "states")
		})
	}
}

// States must say, before exploring, what ExploreRace then reports: the
// script's budget of explored states is checked with it at parse time.
// Without worker flags every entry of the table is checked; with flags, a
// grid of up to four workers, entries up to 5,000 states. Under -short,
// only entries up to 1,000 states, and with flags only up to three
// workers and the two claims of the article, read and atomic; and each
// row of the table once, for the first service that reads it (the full
// run explores every service, so that the keys a row groups are held to
// exploring alike).
//
// Each claim, service and set of flags is a subtest of its own, run in
// parallel with the others.
func TestStatesKnownBeforehand(t *testing.T) {
	seen := map[statesKey]bool{}
	for _, flags := range flagSets() {
		for _, claim := range queue.Claims() {
			for _, d := range receipts.Dedupes() {
				for _, k := range receipts.Keys() {
					svc := Service{d, k}
					row := svc.statesKey(claim, flags)
					if testing.Short() && seen[row] {
						continue
					}
					seen[row] = true
					t.Run(fmt.Sprintf("%s/%v/%+v", claim, svc, flags), func(t *testing.T) {
						t.Parallel()
						prev := 0
						for w := MinWorkers; w <= MaxWorkers; w++ {
							want := States(claim, w, svc, flags)
							if want == 0 {
								t.Fatalf("States(%s, %d, %v, %+v) has no entry", claim, w, svc, flags)
							}
							if want == ManyStates {
								// Not counted: the search with one worker fewer
								// must already be past the table's reach.
								if prev <= StatesTabled {
									t.Errorf("States(%s, %d, %v, %+v) = ManyStates, but %d workers explore only %d", claim, w, svc, flags, w-1, prev)
								}
								prev = ManyStates
								continue
							}
							prev = want
							article := claim == queue.ClaimRead || claim == queue.ClaimAtomic
							switch {
							case testing.Short() && want > 1000:
								continue // -short samples the small rows; the full suite counts the rest
							case flags != (Flags{}) && (w > 4 || want > 5000 || testing.Short() && (w > 3 || !article)):
								continue
							}
							r, err := ExploreRace(claim, w, svc, flags)
							if err != nil {
								t.Fatal(err)
							}
							if r.States != want {
								t.Errorf("States(%s, %d, %v, %+v) = %d; ExploreRace explored %d", claim, w, svc, flags, want, r.States)
							}
						}
					})
				}
			}
		}
	}
	if States(queue.ClaimRead, MaxWorkers+1, Service{}, Flags{}) != 0 {
		t.Error("States of a refused race is not 0")
	}
}
