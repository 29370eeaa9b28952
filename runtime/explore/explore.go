// Package explore checks every interleaving of a claim race, not a sample.
//
// A timed race (script's race command) draws one ordering of the workers'
// steps per race from the seed. This package instead considers every
// ordering of the workers' atomic steps, with timing ignored and order
// only, and counts how many of them end with two effects for one delivery.
//
// Each worker runs its claim's steps (queue.Claim.Steps), the same list
// the simulated worker runs, then the receipt and the ack, then the
// claim's release steps (a lock's DELETE) if its ack took:
//
//	claim:    each step a statement or an await, in order; a step whose
//	          condition fails (queue.Step.Decide: changes() = 1, the row
//	          read free, the lock read unowned) ends the worker there
//	receipt:  read the attempt count back and send: the effect is
//	          recorded on arrival
//	ack:      UPDATE the job done, then the release steps
//
// No claim has a case of its own here: a new claim in package queue's
// list is explored, counted and checked against the brute-force model of
// the tests (which reads each step's queue.Model) as it is. Steps that
// touch nothing shared are left out where moving them cannot change any
// outcome: reading the clock, appending to worker.log, connecting, and
// the atomic loser's follow-up SELECT, which only reads. An await is a
// step of an ordering all the same, though it touches nothing either:
// it is the window an async claim opens, and a schedule (RunSchedule)
// lets a reader take it step by step. With timing ignored no lease, and
// no lock, lapses during a race.
//
// Besides the orderings that duplicate, the report counts those in which
// two workers at some moment both own the job, each between a successful
// claim and its ack (Report.Overlap): what a lock promises never
// happens, whatever the effects. A state says whether two workers own the
// job, so the count is one more sum over the same states.
//
// Every step runs its real statement on real SQLite (the memdb database of
// package queue, one connection per worker). To count orderings without
// enumerating them one by one, the search remembers each state it has
// explored: the job row (status and attempts, as SQLite returned them),
// which worker owns the job's lock, each worker's place in its program
// and what it read, and whether two effects have been recorded. Orderings
// that reach the same state have the same continuations, so their counts
// are shared; and because the workers are identical, states that differ
// only by which worker is which are merged too (symmetry reduction). Both
// reductions are exact: the counts are the counts of every ordering,
// computed in 128-bit integers (see Count). Before executing a step from
// a remembered state the row is put back with queue.Conn.Set, and the
// lock with queue.Conn.SetLock.
//
// RunSchedule runs one ordering, as a schedule names it, step by step on
// the same steps, and returns the steps' lines, each worker's next step
// and the tables after the last; and, for each step, what a run's
// evidence keeps of it (Played.Did: a claim, a renewal, a request and
// what the service made of it, an ack), so that a caller can record the
// race as its own.
//
// With a service dedupe mode and a key ([Service]), the receipt is no
// longer one step: the service's statements on its key table (the
// receipts package's KeyStore, a database of its own) are steps of their
// own, as they are in a timed run:
//
//	dedupe check:  SELECT the key; if it is stored, the first answer is
//	               replayed (no effect); else the effect, then INSERT the
//	               key: three steps another worker can come between
//	dedupe claim:  INSERT the key ON CONFLICT DO NOTHING; the effect only
//	               if it took; else the first answer is replayed (the
//	               SELECT of that answer only reads, and is left out)
//
// The state then also holds the keys stored (put back, like the row,
// before each step) and, for each worker between its receipt and its
// insert, the attempt it read back (the attempt key is made from it). A
// run key is left out of the state: each worker's is its own and no other
// step ever reads it, so it cannot change an outcome.
//
// The worker flags of race ([Flags]) add steps of their own:
//
//	heartbeat:  after the claim (and the fence's read-back), one lease
//	            renewal, UPDATE ... WHERE id = ? AND run = ? AND status =
//	            'running', and in the same step the renewal of whatever
//	            else the claim holds (queue.Claim.Renew: a lock's until,
//	            WHERE owner = ?); if either changes no row another run
//	            holds the job or its lock, and the worker stops before its
//	            effect (lease lost)
//	fence:      the attempt read back after the claim is a step of its own
//	            (it is the fencing token); the service compares the token
//	            on the receipt's arrival, in the receipt's step, refuses one
//	            lower than the highest it has seen (no effect) and otherwise
//	            raises the highest; the ack is UPDATE ... WHERE run = ?, and
//	            changes no row for a worker whose job another run took
//	ledger:     the effect is no receipt: BEGIN IMMEDIATE; INSERT the event's
//	            key into processed_keys ON CONFLICT DO NOTHING; if it took,
//	            INSERT the ledger row; the ack (fenced with --fence: if it
//	            is refused, ROLLBACK); COMMIT, where the row, the key and
//	            the ack land together. Each is a step on the worker's own
//	            connection, inside one real transaction.
//	separate:   the ledger with --key-txn separate: first BEGIN IMMEDIATE,
//	            the key's INSERT and COMMIT alone; a worker whose insert
//	            changed no row acks (outside a transaction) and stops; then,
//	            with a heartbeat, the renewal, and the effect's transaction
//	            without the key.
//
// Why one renewal, there: timing is ignored, so a renewal can only fall
// between two steps, and the place that matters is between the claim and
// the effect, the worker's last check before it acts. More renewals there
// could not change which orderings of the other steps duplicate, only how
// many times each is counted: once a renewal's condition is false it stays
// false (the run never returns to a worker once another take has replaced
// it, and a job that an ack took out of running comes back to it only by
// another worker's take), so the last renewal alone decides whether the
// worker goes on. It is also what race --heartbeat does, with no
// processing time: one renewal between the read-back and the receipt,
// whatever the period. Without a fence the attempt is read at the receipt,
// as above, since it only labels the effect or makes an attempt key.
//
// While a worker's ledger transaction is open, BEGIN IMMEDIATE holds the
// database's write lock: a write from another worker's connection (a
// claim's UPDATE, a renewal, an ack, another BEGIN) would get SQLITE_BUSY
// and wait. Waiting changes nothing, so a blocked write is no step: the
// search moves only the workers that can move (reads still can), and a
// test checks on SQLite that each write the search holds back is one
// SQLite refuses. The state then also holds which worker's run the row
// carries (with a heartbeat or a fence, whose statements read it), the
// highest token, the ledger's committed keys and what the open
// transaction has written; the transaction is put back, before a step,
// by replaying its writes on its worker's connection.
//
// # Transactions and the busy timeout
//
// A race's claim may run in a transaction of its own ([Flags].Txn, the
// modes of queue.Txn), and its workers' connections may have no busy
// timeout ([Flags].NoBusy). The search then applies SQLite's rules in WAL
// mode:
//
//	immediate:  BEGIN IMMEDIATE is a step before the claim's first; it
//	            takes the write lock, so another worker's BEGIN waits
//	deferred:   the claim's first read takes a snapshot (no lock); its
//	            first write takes the write lock, on SQLite, as BEGIN
//	            IMMEDIATE would at that moment
//	both:       COMMIT is a step after the claim's last, won or lost; a
//	            claim holding the write lock is put back before a step, as
//	            the ledger's transaction is, by replaying its writes
//	busy:       a write that finds another worker's transaction holding
//	            the write lock waits (no step) with a busy timeout; fails
//	            without one; and fails from a read snapshot in any case,
//	            since SQLite calls no busy handler for that upgrade; a
//	            write from a snapshot that a commit has passed since fails
//	            too (SQLITE_BUSY_SNAPSHOT)
//
// A worker whose statement fails so dies of the error, as one that does
// not catch it does, and its transaction goes with its connection:
// [Report].Busy counts the orderings where one does. Where the failure is
// a lock another holds, the search asks SQLite to take the lock and
// requires SQLITE_BUSY. Autocommit statements are atomic steps here, so
// two never overlap and a busy timeout changes nothing for them: only a
// timed race, where statements take time, shows two autocommit writes
// meeting. The brute-force model of the tests applies the same rules with
// no SQL, and must agree on every count.
//
// # The states table
//
// [States] says how many states a race --all will explore before it
// runs, so that a script's budget is checked when it is parsed. The
// search is deterministic, so the counts are known: they are kept in
// runtime/explore/states.txt, embedded in the package, a block of lines
// per claim in the order of the claims' list. A line is a race, in words
// separated by one space:
//
//	# comment lines start with #
//	read off same - 18 58 148 323 631 1135 1915
//	read check attempt heartbeat,fence 91 1031 10172 93654 many many many
//
// the claim; the service's dedupe mode (off, check, claim); the kind of
// key the workers send (same: one value for every worker, as the event's,
// the job's and the order's keys are, which explore alike; run; attempt);
// the worker flags (-, or some of heartbeat, fence, ledger, separate-key,
// in that order, joined by commas); then the states explored with 2 to 8
// workers. A count is many (ManyStates) when the one before it passed
// StatesTabled: that search is not run. With the ledger, or without a
// dedupe mode and a key, the service takes no part, and the race is "off
// same". A test requires a line for every race of every claim, in the
// generator's order and form, and compares the counts to fresh searches:
// in the full run every row without flags, and the rows with flags up to
// four workers and 5,000 states, for every service; under -short, only
// those up to 1,000 states, with flags up to three workers of the read
// and atomic claims, and each row for one service.
//
// The lines are written by exploring: go generate ./runtime/explore adds
// those of a claim the file lacks (a new claim's, in a minute or two on
// two cores) and leaves every other line as it is; go run
// ./runtime/explore/genstates CLAIM explores that claim again, after its
// steps change, and -all every claim (about ten minutes). A claim with no
// lines is measured by exploring the first time States is asked about it.
package explore

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/receipts"
)

// Limits of the search.
const (
	MinWorkers = 2
	MaxWorkers = 8
)

// errTooMany is returned if a count would not fit in a Count, which the
// worker limit rules out for the claims of the article without flags, and
// the script's state budget otherwise (see Count); it is there so that a future change of limits
// fails loudly instead of counting wrong.
var errTooMany = errors.New("too many orderings to count in 128 bits")

// Method names the reductions used, for the report.
const Method = "exact count: orderings that reach the same state share their continuations, and states that differ only by worker names are merged"

// Report is the outcome of exploring one claim with some workers.
type Report struct {
	Claim   queue.Claim
	Workers int
	Service Service
	Flags   Flags
	// Orderings is the number of distinct complete orderings of the
	// workers' steps; Duplicating counts those that end with two or more
	// effects; Overlap counts those in which, at some moment, two workers
	// are each between a successful claim and their ack (both believe
	// they own the job), whatever the effects.
	Orderings   Count
	Duplicating Count
	Overlap     Count
	// Busy counts the orderings in which a worker's statement failed with
	// SQLITE_BUSY ("database is locked") and the worker died of it.
	Busy Count
	// States is how many distinct states the search executed steps from.
	States int
	// Statements counts the SQL statements the search ran.
	Statements int
	// Shortest is a shortest ordering that reaches a second effect: the
	// steps up to and including that effect, fewest first, and among those
	// the one that favours lower-numbered workers. Nil if none exists.
	Shortest []Step
}

// Step is one step of an ordering.
type Step struct {
	Worker string
	What   string
}

// Service is what the receipts service does with the workers' keys
// during the race: its dedupe mode, and which key the workers send. With
// the mode off or no key the receipt is one step, as without a service.
type Service struct {
	Dedupe receipts.Dedupe
	Key    receipts.Key
}

// active reports whether the service's key steps take part.
func (v Service) active() bool {
	return v.Dedupe != receipts.DedupeOff && v.Key != receipts.KeyNone
}

// Flags are the worker flags a race explores with, as race --heartbeat,
// --fence and --effect ledger set them (see the package doc for the steps
// each adds).
type Flags struct {
	// Heartbeat: one lease renewal, conditional on the run, between the
	// claim and the effect; a renewal that changes no row stops the worker.
	Heartbeat bool
	// Fence: the receipt carries the attempt the worker read back as a
	// fencing token, and the ack is conditional on the run.
	Fence bool
	// Ledger: the effect is a ledger row, written with the event's key
	// and the ack in one transaction on the worker's own connection.
	Ledger bool
	// SeparateKey, with Ledger: the key is claimed in a transaction of its
	// own, committed before the effect's (--key-txn separate).
	SeparateKey bool
	// Txn is the transaction the claim's steps run in (see "Transactions
	// and the busy timeout" in the package doc).
	Txn queue.Txn
	// NoBusy: the workers' connections have no busy timeout, so a write
	// that finds the write lock held fails at once (SQLITE_BUSY) and the
	// worker dies, instead of waiting.
	NoBusy bool
}

// worker program counters.
const (
	pcClaim     = iota // the claim's step number cs next
	pcReadBack         // fence with a receipt: read the attempt back (the token) next
	pcRenew            // heartbeat: the lease renewal next
	pcReceipt          // send the receipt next (with a dedupe: the key's SELECT or claim)
	pcEffect           // with a dedupe, the key let it through: the effect next
	pcRemember         // dedupe check: INSERT the key next
	pcAck              // ack next
	pcBegin            // ledger: BEGIN IMMEDIATE next
	pcKey              // ledger: INSERT the key in the transaction next
	pcRow              // ledger: INSERT the ledger row next
	pcAckTx            // ledger: the ack inside the transaction next
	pcCommit           // ledger: COMMIT next
	pcRollback         // ledger, fenced ack refused: ROLLBACK next
	pcKeyBegin         // ledger, separate key: BEGIN IMMEDIATE of the key's own transaction next
	pcKeyInsert        // ledger, separate key: INSERT the key next
	pcKeyCommit        // ledger, separate key: COMMIT the key alone next
	pcRelease          // after the ack, the claim's release step number cs next
	pcTxBegin          // claim in a transaction: BEGIN IMMEDIATE next
	pcTxEnd            // claim in a transaction: COMMIT next, after cs of its steps
	pcDone             // finished (acked, or found the job taken, or lost it, or died)
)

// inTx reports whether a worker at pc has a transaction open.
func inTx(pc uint8) bool {
	return pc >= pcKey && pc <= pcRollback || pc == pcKeyInsert || pc == pcKeyCommit
}

// wstate is a worker's place in its program: pc, and cs, the step of its
// claim (or of its release) it is at. What it read back before
// the receipt (the attempt number) only labels the effect, unless it makes
// the key (an attempt key a worker inserts after its effect) or the
// fencing token: then it is kept in attempt until the receipt or the
// insert, and is 0 otherwise. holds says the row's run is this worker's
// (kept only with a heartbeat or a fence, whose statements are conditional
// on it); lock says the job's lock row is this worker's (kept for a claim
// that takes a lock); keyIn and row say what the worker's open ledger
// transaction has written.
//
// A worker whose claim runs in a transaction (Flags.Txn) also keeps: snap,
// it holds a read snapshot and no lock (deferred, after its first read);
// stale, another connection has committed a write since that snapshot;
// wlock, its claim's transaction holds the write lock; won, at its
// COMMIT, its claim took the job.
type wstate struct {
	pc      uint8
	cs      uint8
	attempt uint8
	holds   bool
	keyIn   bool
	row     bool
	lock    bool
	snap    bool
	stale   bool
	wlock   bool
	won     bool
}

// flags are the worker's yes-or-no facts, in the order key prints them.
func (w wstate) flags() [8]bool {
	return [8]bool{w.holds, w.keyIn, w.row, w.lock, w.snap, w.stale, w.wlock, w.won}
}

// owns reports whether the worker is between a successful claim and its
// ack: it believes the job is its own.
func (w wstate) owns() bool {
	switch w.pc {
	case pcClaim, pcTxBegin, pcRelease, pcDone:
		return false
	case pcTxEnd:
		return w.won
	}
	return true
}

// state is what the future of a race depends on. The row's run column is
// kept as the workers' holds flags, and only when a step reads it.
type state struct {
	status   string
	attempts int
	effects  int  // effects recorded, counted up to 2: beyond that nothing changes
	busy     bool // a worker died of SQLITE_BUSY
	high     int  // fence: the highest token the service has seen
	ws       []wstate
	keys     []string // the stored keys, sorted: the service's (see the package doc for run keys), or the ledger's committed ones
}

// key returns the state's canonical form: workers sorted, so that states
// equal up to renaming workers share one key.
func (s state) key() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%d/%d/%s/", s.status, s.attempts, s.effects, strings.Join(s.keys, ","))
	if s.busy {
		b.WriteString("B/")
	}
	if s.high > 0 {
		fmt.Fprintf(&b, "h%d/", s.high)
	}
	ws := slices.Clone(s.ws)
	slices.SortFunc(ws, cmpW)
	for _, w := range ws {
		b.WriteByte('a' + w.pc)
		if w.cs > 0 {
			fmt.Fprintf(&b, "s%d", w.cs)
		}
		if w.attempt > 0 {
			fmt.Fprintf(&b, "a%d", w.attempt)
		}
		for j, on := range w.flags() {
			if on {
				b.WriteByte("HKRLSTWO"[j])
			}
		}
		b.WriteByte(' ')
	}
	return b.String()
}

func cmpW(a, b wstate) int {
	if a.pc != b.pc {
		return int(a.pc) - int(b.pc)
	}
	if a.cs != b.cs {
		return int(a.cs) - int(b.cs)
	}
	if a.attempt != b.attempt {
		return int(a.attempt) - int(b.attempt)
	}
	bit := func(w wstate) int {
		n := 0
		for i, f := range w.flags() {
			if f {
				n |= 1 << i
			}
		}
		return n
	}
	return bit(a) - bit(b)
}

func (s state) twice() bool { return s.effects >= 2 }

// overlapping reports whether two workers own the job at once.
func (s state) overlapping() bool {
	n := 0
	for _, w := range s.ws {
		if w.owns() {
			n++
		}
	}
	return n >= 2
}

func (s state) done() bool {
	for _, w := range s.ws {
		if w.pc != pcDone {
			return false
		}
	}
	return true
}

// holder returns the worker whose transaction holds the write lock: a
// ledger's, or a claim's; or -1.
func (s state) holder() int {
	for i, w := range s.ws {
		if inTx(w.pc) || w.wlock {
			return i
		}
	}
	return -1
}

type result struct {
	// total counts the complete orderings from a state, dup those that
	// end with two effects, overlap those that pass a state where two
	// workers own the job at once, busy those in which a worker dies of
	// SQLITE_BUSY.
	total, dup, overlap, busy Count
	// toTwice is the fewest steps from this state to a second effect, or
	// -1 when no ordering gets there.
	toTwice int
}

type explorer struct {
	claim queue.Claim
	// steps are the claim's steps of an ordering (its clock reads left
	// out), release those after the ack.
	steps, release []queue.Step
	svc            Service
	flags          Flags
	keys           *receipts.KeyStore
	db             *queue.DB
	shell          *queue.Conn
	conns          []*queue.Conn
	id             int64
	memo           map[string]result
	stmts          int
	// onEffect, when set, is told of each effect as a step records it,
	// with the worker's index (a schedule's table of effects).
	onEffect func(i int)
	// did is what the last step did, as a replay records it.
	did Played
	// lastRun, when set, is the run restore writes in the row where the
	// search keeps none (a replay's tables name the run that wrote it).
	lastRun string
	// busyChecked counts, when not nil, the blocked steps tried on
	// SQLite to check that it answers SQLITE_BUSY (a test's, not the
	// search's: the search never tries a blocked step).
	busyChecked *int
}

// Explore counts every ordering of a race between workers workers using
// claim, with a receipts service that does not deduplicate.
func Explore(claim queue.Claim, workers int) (*Report, error) {
	return ExploreService(claim, workers, Service{})
}

// ExploreService counts every ordering of a race between workers workers
// using claim, with the service's key steps (svc) as steps of their own.
func ExploreService(claim queue.Claim, workers int, svc Service) (*Report, error) {
	return ExploreRace(claim, workers, svc, Flags{})
}

// ExploreRace counts every ordering of a race between workers workers
// using claim, with the service's key steps (svc) and the steps the worker
// flags add. With the ledger the effect is no receipt, and svc takes no
// part.
func ExploreRace(claim queue.Claim, workers int, svc Service, flags Flags) (*Report, error) {
	return exploreRace(claim, workers, svc, flags, nil)
}

func exploreRace(claim queue.Claim, workers int, svc Service, flags Flags, busyChecked *int) (*Report, error) {
	var rep *Report
	err := withExplorer(claim, workers, svc, flags, busyChecked, func(x *explorer, start state) error {
		r, err := x.count(start)
		if err != nil {
			return err
		}
		rep = &Report{
			Claim: claim, Workers: workers, Service: svc, Flags: flags,
			Orderings: r.total, Duplicating: r.dup, Overlap: r.overlap, Busy: r.busy,
			States: len(x.memo),
		}
		if r.toTwice >= 0 {
			if rep.Shortest, err = x.shortest(start); err != nil {
				return err
			}
		}
		rep.Statements = x.stmts
		return nil
	})
	return rep, err
}

// withExplorer sets up the databases of a race between workers workers
// using claim (a database of its own with one job, a connection per
// worker, the service's key store when its steps take part) and calls f
// with the explorer and the state every ordering starts from.
func withExplorer(claim queue.Claim, workers int, svc Service, flags Flags, busyChecked *int, f func(x *explorer, start state) error) error {
	if !svc.Dedupe.Valid() || !svc.Key.Valid() {
		return fmt.Errorf("explore: dedupe %s with key %s is not one of the lists", svc.Dedupe, svc.Key)
	}
	if workers < MinWorkers || workers > MaxWorkers {
		return fmt.Errorf("explore: %d workers; want %d to %d", workers, MinWorkers, MaxWorkers)
	}
	var steps []queue.Step
	for _, st := range claim.Steps() {
		if st.Ordered() {
			steps = append(steps, st)
		}
	}
	if len(steps) == 0 {
		return fmt.Errorf("explore: claim %s has no steps", claim)
	}
	db, err := queue.Get()
	if err != nil {
		return err
	}
	defer db.Put()
	x := &explorer{claim: claim, steps: steps, release: claim.Release(), svc: svc, flags: flags, db: db, memo: map[string]result{}, busyChecked: busyChecked}
	if svc.active() && !flags.Ledger {
		if x.keys, err = receipts.OpenKeys(); err != nil {
			return err
		}
		defer x.keys.Put()
	}
	if x.shell, err = db.Conn(); err != nil {
		return err
	}
	for range workers {
		c, err := db.Conn()
		if err != nil {
			return err
		}
		x.conns = append(x.conns, c)
	}
	// A transaction left open would keep the database out of the pool.
	defer func() {
		for _, c := range x.conns {
			c.Rollback()
		}
	}()
	if x.id, err = x.shell.Add(order, eventID); err != nil {
		return err
	}
	start := state{status: "queued", ws: make([]wstate, workers)}
	if flags.Txn == queue.TxnImmediate {
		for i := range start.ws {
			start.ws[i].pc = pcTxBegin
		}
	}
	return f(x, start)
}

// blocked reports whether worker i cannot take its next step in s: it is a
// write, and another worker's ledger transaction holds the database
// (BEGIN IMMEDIATE took its write lock). SQLite would answer the write
// SQLITE_BUSY, and the worker waits; waiting changes nothing, so it is no
// step of an ordering.
func (x *explorer) blocked(s state, i int) bool {
	return x.locked(s, i) && x.busyFate(s, i) == ""
}

// locked reports whether worker i's next step is a write that needs the
// write lock another worker's transaction holds.
func (x *explorer) locked(s state, i int) bool {
	h := s.holder()
	return h >= 0 && h != i && x.writesNext(s.ws[i])
}

// writesNext reports whether the worker's next step writes, or takes the
// write lock, without holding it already.
func (x *explorer) writesNext(w wstate) bool {
	switch w.pc {
	case pcRenew, pcAck, pcBegin, pcKeyBegin, pcRelease, pcTxBegin:
		return true
	case pcClaim:
		return !w.wlock && x.steps[w.cs].Writes()
	}
	return false
}

// busyFate says why worker i's next step fails with SQLITE_BUSY, or ""
// when it does not: its write finds the lock held and it has no busy
// timeout, or holds a read snapshot (the busy handler is not called for
// the upgrade); or its snapshot is stale.
func (x *explorer) busyFate(s state, i int) string {
	w := s.ws[i]
	if !x.writesNext(w) {
		return ""
	}
	switch {
	case x.locked(s, i) && w.snap:
		return "another connection holds the write lock, and a read snapshot cannot wait for it"
	case x.locked(s, i) && x.flags.NoBusy:
		return "another connection holds the write lock, and there is no busy timeout"
	case w.snap && w.stale:
		return "another connection committed since this transaction's snapshot: SQLITE_BUSY_SNAPSHOT"
	}
	return ""
}

// count returns the number of complete orderings from s, and how many of
// them duplicate, remembering the answer for s's canonical form.
func (x *explorer) count(s state) (result, error) {
	if s.done() {
		r := result{total: CountOf(1), toTwice: -1}
		if s.twice() {
			r.dup = CountOf(1)
			r.toTwice = 0
		}
		if s.busy {
			r.busy = CountOf(1)
		}
		return r, nil
	}
	k := s.key()
	if r, ok := x.memo[k]; ok {
		return r, nil
	}
	r := result{toTwice: -1}
	if s.twice() {
		r.toTwice = 0
	}
	// Workers at the same place in their program (with what they read)
	// are interchangeable: step one of them and count its continuations
	// once per such worker.
	var places []wstate
	var first []int
	var many []uint64
	for i, w := range s.ws {
		if w.pc == pcDone {
			continue
		}
		if x.blocked(s, i) {
			if x.busyChecked != nil {
				if _, _, err := x.step(s, i); !errors.Is(err, queue.ErrBusy) {
					return r, fmt.Errorf("explore: W%d's step from %s is blocked, but SQLite answered %v", i+1, k, err)
				}
				*x.busyChecked++
			}
			continue
		}
		j := slices.Index(places, w)
		if j < 0 {
			places, first, many = append(places, w), append(first, i), append(many, 0)
			j = len(places) - 1
		}
		many[j]++
	}
	if len(places) == 0 {
		return r, fmt.Errorf("explore: every unfinished worker waits for another in state %s", k)
	}
	for j := range places {
		next, _, err := x.step(s, first[j])
		if err != nil {
			return r, err
		}
		c, err := x.count(next)
		if err != nil {
			return r, err
		}
		ok := true
		for _, f := range [...]struct{ sum, add *Count }{{&r.total, &c.total}, {&r.dup, &c.dup}, {&r.overlap, &c.overlap}, {&r.busy, &c.busy}} {
			n, ok1 := f.add.mul(many[j])
			var ok2 bool
			*f.sum, ok2 = f.sum.add(n)
			ok = ok && ok1 && ok2
		}
		if !ok {
			return r, errTooMany
		}
		if c.toTwice >= 0 && !s.twice() && (r.toTwice < 0 || c.toTwice+1 < r.toTwice) {
			r.toTwice = c.toTwice + 1
		}
	}
	if s.overlapping() {
		r.overlap = r.total
	}
	x.memo[k] = r
	return r, nil
}

// runOf names worker i's run: the run column holds it while the worker
// holds the job.
func runOf(i int) string { return fmt.Sprintf("W%d", i+1) }

// trackRun reports whether a step reads the row's run column: the
// renewal and the fenced ack do.
func (x *explorer) trackRun() bool { return x.flags.Heartbeat || x.flags.Fence }

// restore puts the databases back as s has them: the job row, the
// service's keys, and with the ledger the committed keys and the open
// transaction with what it has written, on its worker's own connection.
func (x *explorer) restore(s state) error {
	if x.flags.Ledger || x.flags.Txn.Open() {
		for _, c := range x.conns {
			if err := c.Rollback(); err != nil {
				return err
			}
		}
	}
	run := x.lastRun
	if x.trackRun() {
		run = ""
		for i, w := range s.ws {
			if w.holds {
				run = runOf(i)
			}
		}
	}
	if err := x.shell.Set(x.id, s.status, s.attempts, run); err != nil {
		return err
	}
	x.stmts++
	if x.claim.Locks() {
		owner := ""
		for i, w := range s.ws {
			if w.lock {
				owner = runOf(i)
			}
		}
		if err := x.shell.SetLock(x.id, owner, lockUntil); err != nil {
			return err
		}
		x.stmts += 2
	}
	if x.keys != nil {
		rows := make([]receipts.StoredKey, len(s.keys))
		for i, k := range s.keys {
			rows[i] = receipts.StoredKey{Key: k, FirstRun: "first"}
		}
		if err := x.keys.Restore(rows); err != nil {
			return err
		}
		x.stmts += 1 + len(rows)
	}
	if h := s.holder(); h >= 0 && s.ws[h].wlock {
		return x.replayClaim(h, s.ws[h])
	}
	if !x.flags.Ledger {
		return nil
	}
	return x.restoreLedger(s)
}

// restoreLedger puts back the ledger's committed keys, and the open
// ledger transaction with what it has written, on its worker's own
// connection.
func (x *explorer) restoreLedger(s state) error {
	if err := x.shell.SetKeys(s.keys); err != nil {
		return err
	}
	x.stmts += 2 + len(s.keys)
	h := s.holder()
	if h < 0 {
		return nil
	}
	w, c := s.ws[h], x.conns[h]
	if err := c.Begin(); err != nil {
		return err
	}
	x.stmts++
	if w.keyIn {
		if _, err := c.ClaimKey(eventID, runOf(h)); err != nil {
			return err
		}
		x.stmts++
	}
	if w.row {
		if err := c.AddLedger(queue.LedgerRow{Key: eventID, Order: order, Job: x.id, Run: runOf(h)}); err != nil {
			return err
		}
		x.stmts++
	}
	if w.pc == pcCommit {
		if _, err := c.Ack(x.id); err != nil {
			return err
		}
		x.stmts++
	}
	return nil
}

// replayClaim puts back worker h's open claim transaction: BEGIN
// IMMEDIATE on its connection, then the writes of the steps it has run.
func (x *explorer) replayClaim(h int, w wstate) error {
	c := x.conns[h]
	if err := c.Begin(); err != nil {
		return err
	}
	x.stmts++
	for _, st := range x.steps[:w.cs] {
		if !st.Writes() {
			continue
		}
		if _, err := c.RunStep(st, queue.Values{Job: x.id, Run: runOf(h), Until: lockUntil}); err != nil {
			return err
		}
		x.stmts++
	}
	return nil
}

// The job every explored race works.
const (
	order   = "order-77"
	eventID = "ev-1"
)

// shortest follows, from s, the steps that reach a second effect soonest.
func (x *explorer) shortest(s state) ([]Step, error) {
	var steps []Step
	for !s.twice() {
		best, bestLen := -1, -1
		var bestNext state
		var bestWhat string
		for i := range s.ws {
			if s.ws[i].pc == pcDone || x.blocked(s, i) {
				continue
			}
			next, what, err := x.step(s, i)
			if err != nil {
				return nil, err
			}
			c, err := x.count(next)
			if err != nil {
				return nil, err
			}
			if c.toTwice >= 0 && (best < 0 || c.toTwice < bestLen) {
				best, bestLen, bestNext, bestWhat = i, c.toTwice, next, what
			}
		}
		if best < 0 {
			return nil, fmt.Errorf("explore: no way to two effects from a state that promised one")
		}
		steps = append(steps, Step{Worker: fmt.Sprintf("W%d", best+1), What: bestWhat})
		s = bestNext
	}
	return steps, nil
}
