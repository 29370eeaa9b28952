// Package explore checks every interleaving of a claim race, not a sample.
//
// A timed race (script's race command) draws one ordering of the workers'
// steps per race from the seed. This package instead considers every
// ordering of the workers' atomic steps, with timing ignored and order
// only, and counts how many of them end with two effects for one delivery.
//
// Each worker follows the protocol of the simulated worker, reduced to the
// steps that touch shared state:
//
//	read claim:    SELECT the row; if it is free, UPDATE it (no condition);
//	               send the receipt; ack
//	atomic claim:  one conditional UPDATE; if it changed a row, send the
//	               receipt; ack
//
// A worker that finds the job taken stops there. Steps that touch nothing
// shared (reading the clock, appending to worker.log, connecting) are left
// out, because moving them cannot change any outcome; so is the atomic
// loser's follow-up SELECT, which only reads. The receipt step reads the
// attempt count back and sends: the effect is recorded on arrival. With
// timing ignored no lease expires during a race.
//
// Every step runs its real statement on real SQLite (the memdb database of
// package queue, one connection per worker). To count orderings without
// enumerating them one by one, the search remembers each state it has
// explored: the job row (status and attempts, as SQLite returned them), each
// worker's place in its protocol and what it read, and whether two effects
// have been recorded. Orderings that reach the same state have the same
// continuations, so their counts are shared; and because the workers are
// identical, states that differ only by which worker is which are merged
// too (symmetry reduction). Both reductions are exact: the counts are the
// counts of every ordering, computed in 128-bit integers (see Count).
// Before executing a step from a remembered state the row is put back with
// queue.Conn.Set.
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
//	            'running'; if it changes no row another run holds the job,
//	            and the worker stops before its effect (lease lost)
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
// worker limit rules out without flags and the script's state budget
// with them (see Count); it is there so that a future change of limits
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
	// effects.
	Orderings   Count
	Duplicating Count
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
}

// worker program counters.
const (
	pcClaim     = iota // read: SELECT next; atomic: conditional UPDATE next
	pcTake             // read claim only: the unconditional UPDATE next
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
	pcDone             // finished (acked, or found the job taken, or lost it)
)

// inTx reports whether a worker at pc has a transaction open.
func inTx(pc uint8) bool {
	return pc >= pcKey && pc <= pcRollback || pc == pcKeyInsert || pc == pcKeyCommit
}

// wstate is a worker's place in its protocol. What it read back before
// the receipt (the attempt number) only labels the effect, unless it makes
// the key (an attempt key a worker inserts after its effect) or the
// fencing token: then it is kept in attempt until the receipt or the
// insert, and is 0 otherwise. holds says the row's run is this worker's
// (kept only with a heartbeat or a fence, whose statements are conditional
// on it); keyIn and row say what the worker's open ledger transaction has
// written.
type wstate struct {
	pc      uint8
	attempt uint8
	holds   bool
	keyIn   bool
	row     bool
}

// state is what the future of a race depends on. The row's run column is
// kept as the workers' holds flags, and only when a step reads it.
type state struct {
	status   string
	attempts int
	effects  int // effects recorded, counted up to 2: beyond that nothing changes
	high     int // fence: the highest token the service has seen
	ws       []wstate
	keys     []string // the stored keys, sorted: the service's (see the package doc for run keys), or the ledger's committed ones
}

// key returns the state's canonical form: workers sorted, so that states
// equal up to renaming workers share one key.
func (s state) key() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%d/%d/%s/", s.status, s.attempts, s.effects, strings.Join(s.keys, ","))
	if s.high > 0 {
		fmt.Fprintf(&b, "h%d/", s.high)
	}
	ws := slices.Clone(s.ws)
	slices.SortFunc(ws, cmpW)
	for _, w := range ws {
		b.WriteByte('a' + w.pc)
		if w.attempt > 0 {
			fmt.Fprintf(&b, "a%d", w.attempt)
		}
		for _, f := range [...]struct {
			on bool
			c  byte
		}{{w.holds, 'H'}, {w.keyIn, 'K'}, {w.row, 'R'}} {
			if f.on {
				b.WriteByte(f.c)
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
	if a.attempt != b.attempt {
		return int(a.attempt) - int(b.attempt)
	}
	bit := func(w wstate) int {
		n := 0
		for i, f := range [...]bool{w.holds, w.keyIn, w.row} {
			if f {
				n |= 1 << i
			}
		}
		return n
	}
	return bit(a) - bit(b)
}

func (s state) twice() bool { return s.effects >= 2 }

func (s state) done() bool {
	for _, w := range s.ws {
		if w.pc != pcDone {
			return false
		}
	}
	return true
}

// holder returns the worker with a transaction open, or -1.
func (s state) holder() int {
	for i, w := range s.ws {
		if inTx(w.pc) {
			return i
		}
	}
	return -1
}

type result struct {
	total, dup Count
	// toTwice is the fewest steps from this state to a second effect, or
	// -1 when no ordering gets there.
	toTwice int
}

type explorer struct {
	claim  queue.Claim
	atomic bool
	svc    Service
	flags  Flags
	keys   *receipts.KeyStore
	db     *queue.DB
	shell  *queue.Conn
	conns  []*queue.Conn
	id     int64
	memo   map[string]result
	stmts  int
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
	if !svc.Dedupe.Valid() || !svc.Key.Valid() {
		return nil, fmt.Errorf("explore: dedupe %s with key %s is not one of the lists", svc.Dedupe, svc.Key)
	}
	if workers < MinWorkers || workers > MaxWorkers {
		return nil, fmt.Errorf("explore: %d workers; want %d to %d", workers, MinWorkers, MaxWorkers)
	}
	var atomic bool
	switch claim.Protocol() {
	case queue.ReadThenWrite:
	case queue.Conditional:
		atomic = true
	default:
		return nil, fmt.Errorf("explore: claim %s has no protocol here", claim)
	}
	db, err := queue.Get()
	if err != nil {
		return nil, err
	}
	defer db.Put()
	x := &explorer{claim: claim, atomic: atomic, svc: svc, flags: flags, db: db, memo: map[string]result{}, busyChecked: busyChecked}
	if svc.active() && !flags.Ledger {
		if x.keys, err = receipts.OpenKeys(); err != nil {
			return nil, err
		}
		defer x.keys.Put()
	}
	if x.shell, err = db.Conn(); err != nil {
		return nil, err
	}
	for range workers {
		c, err := db.Conn()
		if err != nil {
			return nil, err
		}
		x.conns = append(x.conns, c)
	}
	// A transaction left open would keep the database out of the pool.
	defer func() {
		for _, c := range x.conns {
			c.Rollback()
		}
	}()
	if x.id, err = x.shell.Add(order, event); err != nil {
		return nil, err
	}
	start := state{status: "queued", ws: make([]wstate, workers)}
	r, err := x.count(start)
	if err != nil {
		return nil, err
	}
	rep := &Report{
		Claim: claim, Workers: workers, Service: svc, Flags: flags,
		Orderings: r.total, Duplicating: r.dup,
		States: len(x.memo),
	}
	if r.toTwice >= 0 {
		if rep.Shortest, err = x.shortest(start); err != nil {
			return nil, err
		}
	}
	rep.Statements = x.stmts
	return rep, nil
}

// blocked reports whether worker i cannot take its next step in s: it is a
// write, and another worker's ledger transaction holds the database
// (BEGIN IMMEDIATE took its write lock). SQLite would answer the write
// SQLITE_BUSY, and the worker waits; waiting changes nothing, so it is no
// step of an ordering.
func (x *explorer) blocked(s state, i int) bool {
	h := s.holder()
	if h < 0 || h == i {
		return false
	}
	switch s.ws[i].pc {
	case pcTake, pcRenew, pcAck, pcBegin, pcKeyBegin:
		return true
	case pcClaim:
		return x.atomic
	}
	return false
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
	// Workers at the same place in the protocol (with what they read)
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
		t, ok1 := c.total.mul(many[j])
		d, ok2 := c.dup.mul(many[j])
		var ok3, ok4 bool
		r.total, ok3 = r.total.add(t)
		r.dup, ok4 = r.dup.add(d)
		if !(ok1 && ok2 && ok3 && ok4) {
			return r, errTooMany
		}
		if c.toTwice >= 0 && !s.twice() && (r.toTwice < 0 || c.toTwice+1 < r.toTwice) {
			r.toTwice = c.toTwice + 1
		}
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
	if x.flags.Ledger {
		for _, c := range x.conns {
			if err := c.Rollback(); err != nil {
				return err
			}
		}
	}
	run := ""
	if x.trackRun() {
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
	if !x.flags.Ledger {
		return nil
	}
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
		if _, err := c.ClaimKey(event, runOf(h)); err != nil {
			return err
		}
		x.stmts++
	}
	if w.row {
		if err := c.AddLedger(queue.LedgerRow{Key: event, Order: order, Job: x.id, Run: runOf(h)}); err != nil {
			return err
		}
		x.stmts++
	}
	if w.pc == pcCommit {
		if err := c.Ack(x.id); err != nil {
			return err
		}
		x.stmts++
	}
	return nil
}

// afterClaim is where a worker goes once the job is its own.
func (x *explorer) afterClaim() uint8 {
	switch {
	case x.flags.Fence && !x.flags.Ledger:
		return pcReadBack
	case x.flags.Ledger && x.flags.SeparateKey:
		return pcKeyBegin
	}
	return x.toWork()
}

// toWork is where a worker goes before its effect: the renewal with a
// heartbeat, else the effect.
func (x *explorer) toWork() uint8 {
	if x.flags.Heartbeat {
		return pcRenew
	}
	return x.toEffect()
}

// toEffect is the first step of the effect: the receipt, or the ledger's
// transaction.
func (x *explorer) toEffect() uint8 {
	if x.flags.Ledger {
		return pcBegin
	}
	return pcReceipt
}

// step executes worker i's next step from state s on SQLite and returns the
// state after it and a description.
func (x *explorer) step(s state, i int) (state, string, error) {
	// Put the tables back as s has them, then run the real statement.
	if err := x.restore(s); err != nil {
		return s, "", err
	}
	next := s
	next.ws = slices.Clone(s.ws)
	w := &next.ws[i]
	conn := x.conns[i]
	run := runOf(i)
	var what string
	switch w.pc {
	case pcClaim:
		if x.atomic {
			ok, err := conn.Claim(x.id, run, 0, 1)
			x.stmts++
			if err != nil {
				return s, "", err
			}
			if ok {
				w.pc = x.afterClaim()
				what = fmt.Sprintf("UPDATE job %d WHERE queued: 1 row changed, the job is mine", x.id)
			} else {
				w.pc = pcDone
				what = fmt.Sprintf("UPDATE job %d WHERE queued: 0 rows changed, already claimed", x.id)
			}
		} else {
			row, err := conn.Read(x.id)
			x.stmts++
			if err != nil {
				return s, "", err
			}
			if row.Status == "queued" {
				w.pc = pcTake
				what = fmt.Sprintf("SELECT job %d: status=queued, free", x.id)
			} else {
				w.pc = pcDone
				what = fmt.Sprintf("SELECT job %d: status=%s, already claimed", x.id, row.Status)
			}
		}
	case pcTake:
		if err := conn.Take(x.id, run, 1); err != nil {
			return s, "", err
		}
		x.stmts++
		w.pc = x.afterClaim()
		what = fmt.Sprintf("UPDATE job %d: running (no condition), the job is mine", x.id)
	case pcReadBack:
		row, err := conn.Read(x.id)
		x.stmts++
		if err != nil {
			return s, "", err
		}
		w.attempt = uint8(row.Attempts)
		w.pc = pcReceipt
		if x.flags.Heartbeat {
			w.pc = pcRenew
		}
		what = fmt.Sprintf("SELECT job %d: attempts=%d, the fencing token", x.id, row.Attempts)
	case pcRenew:
		ok, err := conn.Renew(x.id, run, 1)
		x.stmts++
		if err != nil {
			return s, "", err
		}
		if ok {
			w.pc = x.toEffect()
			what = fmt.Sprintf("UPDATE job %d SET lease WHERE run %s: 1 row changed, the lease is renewed", x.id, run)
		} else {
			w.pc, w.attempt = pcDone, 0
			what = fmt.Sprintf("UPDATE job %d SET lease WHERE run %s: 0 rows changed, lease lost: stops before the effect", x.id, run)
		}
	case pcReceipt:
		attempt := int(w.attempt)
		if !x.flags.Fence {
			row, err := conn.Read(x.id)
			x.stmts++
			if err != nil {
				return s, "", err
			}
			attempt = row.Attempts
		}
		var head string
		if x.flags.Fence {
			// The service compares the token on arrival, before anything
			// else, in the same step as the key's first statement.
			if attempt < s.high {
				w.pc, w.attempt = pcAck, 0
				what = fmt.Sprintf("POST receipt (fencing token %d): refused, the service has seen token %d", attempt, s.high)
				break
			}
			next.high = attempt
			head = fmt.Sprintf("fencing token %d", attempt)
		}
		w.attempt = 0
		if x.keys != nil {
			return x.keyStep(next, i, attempt, head)
		}
		w.pc = pcAck
		next.effects = min(s.effects+1, 2)
		if head == "" {
			head = fmt.Sprintf("attempt %d", attempt)
		}
		what = fmt.Sprintf("POST receipt (%s): the service records effect %d", head, next.effects)
	case pcEffect:
		next.effects = min(s.effects+1, 2)
		what = fmt.Sprintf("receipt let through: the service records effect %d", next.effects)
		if x.svc.Dedupe == receipts.DedupeCheck {
			what += ", the key not stored yet"
		}
		w.pc = pcAck
		if x.svc.Dedupe == receipts.DedupeCheck {
			w.pc = pcRemember
		}
		if w.pc == pcAck {
			w.attempt = 0
		}
	case pcRemember:
		key, store := x.keyOf(i, int(w.attempt))
		if err := x.keys.Insert(key, 0, "first"); err != nil {
			return s, "", err
		}
		x.stmts++
		if store {
			next.keys = addKey(s.keys, key)
		}
		w.pc, w.attempt = pcAck, 0
		what = fmt.Sprintf("receipt done: the service INSERTs key %s", key)
	case pcAck:
		w.pc = pcDone
		ok, err := x.ack(conn, run)
		if err != nil {
			return s, "", err
		}
		what = x.ackSaid(run, ok, "ack")
	case pcBegin, pcKeyBegin:
		if err := conn.Begin(); err != nil {
			return s, "", err
		}
		x.stmts++
		switch {
		case w.pc == pcKeyBegin:
			w.pc = pcKeyInsert
			what = "BEGIN IMMEDIATE, for the key alone: the database's write lock is mine"
		case x.flags.SeparateKey:
			w.pc = pcRow
			what = "BEGIN IMMEDIATE, for the effect: the database's write lock is mine"
		default:
			w.pc = pcKey
			what = "BEGIN IMMEDIATE: the database's write lock is mine"
		}
	case pcKeyInsert:
		took, err := conn.ClaimKey(event, run)
		x.stmts++
		if err != nil {
			return s, "", err
		}
		w.pc, w.keyIn = pcKeyCommit, took
		if took {
			what = fmt.Sprintf("INSERT INTO processed_keys %s ON CONFLICT DO NOTHING: 1 row changed (not yet committed)", event)
		} else {
			what = fmt.Sprintf("INSERT INTO processed_keys %s ON CONFLICT DO NOTHING: 0 rows changed, the key is taken", event)
		}
	case pcKeyCommit:
		if err := conn.Commit(); err != nil {
			return s, "", err
		}
		x.stmts++
		if w.keyIn {
			next.keys = addKey(s.keys, event)
			w.pc, w.keyIn = x.toWork(), false
			what = "COMMIT: the key alone, the work is mine"
		} else {
			w.pc = pcAck
			what = "COMMIT: nothing written, the key was taken: no ledger row"
		}
	case pcKey:
		took, err := conn.ClaimKey(event, run)
		x.stmts++
		if err != nil {
			return s, "", err
		}
		if took {
			w.pc, w.keyIn = pcRow, true
			what = fmt.Sprintf("INSERT INTO processed_keys %s ON CONFLICT DO NOTHING: 1 row changed (not yet committed)", event)
		} else {
			w.pc = pcAckTx
			what = fmt.Sprintf("INSERT INTO processed_keys %s ON CONFLICT DO NOTHING: 0 rows changed, the key is taken: no ledger row", event)
		}
	case pcRow:
		// The worker's own connection sees its own claim: the attempt
		// only labels the row.
		row, err := conn.Read(x.id)
		x.stmts++
		if err != nil {
			return s, "", err
		}
		if err := conn.AddLedger(queue.LedgerRow{Key: event, Order: order, Job: x.id, Run: run, Attempt: row.Attempts}); err != nil {
			return s, "", err
		}
		x.stmts++
		w.pc, w.row = pcAckTx, true
		what = fmt.Sprintf("INSERT INTO ledger: %s, attempt %d (not yet committed)", order, row.Attempts)
	case pcAckTx:
		ok, err := x.ack(conn, run)
		if err != nil {
			return s, "", err
		}
		w.pc = pcCommit
		if !ok {
			w.pc = pcRollback
		}
		what = x.ackSaid(run, ok, "not yet committed")
	case pcCommit:
		if err := conn.Commit(); err != nil {
			return s, "", err
		}
		x.stmts++
		if w.keyIn {
			next.keys = addKey(s.keys, event)
		}
		switch {
		case w.row && x.flags.SeparateKey:
			next.effects = min(s.effects+1, 2)
			what = fmt.Sprintf("COMMIT: the ledger row and the ack land together, effect %d", next.effects)
		case w.row:
			next.effects = min(s.effects+1, 2)
			what = fmt.Sprintf("COMMIT: the key, the ledger row and the ack land together, effect %d", next.effects)
		default:
			what = "COMMIT: the ack alone"
		}
		w.pc, w.keyIn, w.row = pcDone, false, false
	case pcRollback:
		if err := conn.Rollback(); err != nil {
			return s, "", err
		}
		x.stmts++
		w.pc, w.keyIn, w.row = pcDone, false, false
		what = "ROLLBACK: the key and the ledger row go with the refused ack"
		if x.flags.SeparateKey {
			what = "ROLLBACK: the ledger row goes with the refused ack; the key, committed alone, stays"
		}
	}
	return x.observe(next, what)
}

// ack runs a worker's ack: plain, or, with a fence, conditional on the
// run; ok says whether it changed the job (a plain ack always does).
func (x *explorer) ack(conn *queue.Conn, run string) (ok bool, err error) {
	x.stmts++
	if !x.flags.Fence {
		return true, conn.Ack(x.id)
	}
	return conn.AckRun(x.id, run)
}

// ackSaid is the step line of an ack that ok says took or not; note
// ends a line that took ("ack", or "not yet committed" in a
// transaction).
func (x *explorer) ackSaid(run string, ok bool, note string) string {
	switch {
	case !x.flags.Fence:
		return fmt.Sprintf("UPDATE job %d: done (%s)", x.id, note)
	case ok:
		return fmt.Sprintf("UPDATE job %d: done WHERE run %s: 1 row changed (%s)", x.id, run, note)
	default:
		return fmt.Sprintf("UPDATE job %d: done WHERE run %s: 0 rows changed, the ack is refused", x.id, run)
	}
}

// observe reads the committed row back into next after a step: its status
// and attempts, and with a heartbeat or a fence which worker's run it holds.
func (x *explorer) observe(next state, what string) (state, string, error) {
	row, err := x.shell.Read(x.id)
	x.stmts++
	if err != nil {
		return next, "", err
	}
	next.status, next.attempts = row.Status, row.Attempts
	if x.trackRun() {
		for i := range next.ws {
			next.ws[i].holds = row.Run == runOf(i)
		}
	}
	return next, what, nil
}

// keyOf returns worker i's key for a receipt of attempt, and whether the
// state keeps it (a run key is the worker's own: see the package doc).
func (x *explorer) keyOf(i, attempt int) (string, bool) {
	key, _ := x.svc.Key.Of(receipts.Delivery{Event: event, Job: x.id, Order: order, Run: fmt.Sprintf("W%d", i+1), Attempt: attempt})
	return key, x.svc.Key != receipts.KeyRun
}

// keyStep is the service's first statement on worker i's key, at its
// receipt of attempt: the check's SELECT or the claim's INSERT. token,
// when not empty, names the fencing token the receipt carried.
func (x *explorer) keyStep(next state, i, attempt int, token string) (state, string, error) {
	w := &next.ws[i]
	key, store := x.keyOf(i, attempt)
	if token == "" {
		token = fmt.Sprintf("attempt %d", attempt)
	}
	head := fmt.Sprintf("POST receipt (%s, key %s): ", token, key)
	switch x.svc.Dedupe {
	case receipts.DedupeCheck:
		_, found, err := x.keys.Check(key, 0, 0)
		x.stmts++
		if err != nil {
			return next, "", err
		}
		if found {
			w.pc = pcAck
			return next, head + "the service SELECTs the key: stored, so it replays the first answer", nil
		}
		w.pc, w.attempt = pcEffect, uint8(attempt)
		return next, head + "the service SELECTs the key: absent", nil
	case receipts.DedupeClaim:
		took, err := x.keys.Claim(key, 0, 0, "first")
		x.stmts++
		if err != nil {
			return next, "", err
		}
		if !took {
			w.pc = pcAck
			return next, head + "the service INSERTs the key ON CONFLICT DO NOTHING: 0 rows changed, so it replays the first answer", nil
		}
		if store {
			next.keys = addKey(next.keys, key)
		}
		w.pc = pcEffect
		return next, head + "the service INSERTs the key ON CONFLICT DO NOTHING: 1 row changed", nil
	}
	return next, "", fmt.Errorf("explore: dedupe %s has no steps here", x.svc.Dedupe)
}

// addKey returns keys with key added, sorted.
func addKey(keys []string, key string) []string {
	if slices.Contains(keys, key) {
		return keys
	}
	out := append(slices.Clone(keys), key)
	slices.Sort(out)
	return out
}

// The job every explored race works.
const (
	order = "order-77"
	event = "ev-1"
)

// shortest follows, from s, the steps that reach a second effect soonest.
func (x *explorer) shortest(s state) ([]Step, error) {
	var steps []Step
	for !s.twice() {
		best, bestLen := -1, -1
		var bestNext state
		var bestWhat string
		for i := range s.ws {
			if s.ws[i].pc == pcDone {
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

// ManyStates is what States returns for a race whose search is known to
// pass StatesTabled states without being counted: the count before it
// (one worker fewer) is already above that, and the search only grows with
// workers.
const ManyStates = 1 << 30

// StatesTabled bounds what the table counts: a search with one worker more
// than a count above it is not run to be counted, and is ManyStates.
const StatesTabled = 12_000

// statesOf is how many states ExploreRace executes steps from, for
// MinWorkers up to MaxWorkers workers, by the claim's protocol, the
// service's dedupe mode, the kind of key the workers send and the worker
// flags. The search is deterministic, so these are known before it runs;
// a test holds the table to what ExploreRace reports. Keys that are the
// same for every worker of a race (the event's, the job's, the order's)
// explore alike; with the ledger the service takes no part. The table is
// written by exploring (about ten minutes on two cores):
//
//	go test ./runtime/explore -run PrintStates -states -v
var statesOf = map[statesKey][MaxWorkers - MinWorkers + 1]int{
	{queue.ReadThenWrite, receipts.DedupeOff, keySame, Flags{}}:                                                              {18, 58, 148, 323, 631, 1135, 1915},
	{queue.ReadThenWrite, receipts.DedupeCheck, keySame, Flags{}}:                                                            {45, 282, 1579, 8580, 46965, ManyStates, ManyStates},
	{queue.ReadThenWrite, receipts.DedupeCheck, keyRun, Flags{}}:                                                             {45, 278, 1595, 9027, 51470, ManyStates, ManyStates},
	{queue.ReadThenWrite, receipts.DedupeCheck, keyTry, Flags{}}:                                                             {55, 489, 4118, 34251, ManyStates, ManyStates, ManyStates},
	{queue.ReadThenWrite, receipts.DedupeClaim, keySame, Flags{}}:                                                            {24, 81, 215, 485, 974, 1793, 3085},
	{queue.ReadThenWrite, receipts.DedupeClaim, keyRun, Flags{}}:                                                             {26, 93, 260, 617, 1303, 2521, 4555},
	{queue.ReadThenWrite, receipts.DedupeClaim, keyTry, Flags{}}:                                                             {33, 181, 833, 3352, 12170, ManyStates, ManyStates},
	{queue.Conditional, receipts.DedupeOff, keySame, Flags{}}:                                                                {6, 9, 12, 15, 18, 21, 24},
	{queue.Conditional, receipts.DedupeCheck, keySame, Flags{}}:                                                              {10, 15, 20, 25, 30, 35, 40},
	{queue.Conditional, receipts.DedupeCheck, keyRun, Flags{}}:                                                               {10, 15, 20, 25, 30, 35, 40},
	{queue.Conditional, receipts.DedupeCheck, keyTry, Flags{}}:                                                               {10, 15, 20, 25, 30, 35, 40},
	{queue.Conditional, receipts.DedupeClaim, keySame, Flags{}}:                                                              {8, 12, 16, 20, 24, 28, 32},
	{queue.Conditional, receipts.DedupeClaim, keyRun, Flags{}}:                                                               {8, 12, 16, 20, 24, 28, 32},
	{queue.Conditional, receipts.DedupeClaim, keyTry, Flags{}}:                                                               {8, 12, 16, 20, 24, 28, 32},
	{queue.ReadThenWrite, receipts.DedupeOff, keySame, Flags{Heartbeat: true}}:                                               {35, 162, 538, 1439, 3314, 6841, 12990},
	{queue.ReadThenWrite, receipts.DedupeCheck, keySame, Flags{Heartbeat: true}}:                                             {77, 629, 4273, 26753, ManyStates, ManyStates, ManyStates},
	{queue.ReadThenWrite, receipts.DedupeCheck, keyRun, Flags{Heartbeat: true}}:                                              {77, 628, 4261, 26624, ManyStates, ManyStates, ManyStates},
	{queue.ReadThenWrite, receipts.DedupeCheck, keyTry, Flags{Heartbeat: true}}:                                              {91, 1031, 10172, 93654, ManyStates, ManyStates, ManyStates},
	{queue.ReadThenWrite, receipts.DedupeClaim, keySame, Flags{Heartbeat: true}}:                                             {46, 212, 708, 1919, 4495, 9451, 18283},
	{queue.ReadThenWrite, receipts.DedupeClaim, keyRun, Flags{Heartbeat: true}}:                                              {49, 255, 945, 2799, 7082, 15943, ManyStates},
	{queue.ReadThenWrite, receipts.DedupeClaim, keyTry, Flags{Heartbeat: true}}:                                              {62, 483, 2870, 14067, ManyStates, ManyStates, ManyStates},
	{queue.Conditional, receipts.DedupeOff, keySame, Flags{Heartbeat: true}}:                                                 {8, 12, 16, 20, 24, 28, 32},
	{queue.Conditional, receipts.DedupeCheck, keySame, Flags{Heartbeat: true}}:                                               {12, 18, 24, 30, 36, 42, 48},
	{queue.Conditional, receipts.DedupeCheck, keyRun, Flags{Heartbeat: true}}:                                                {12, 18, 24, 30, 36, 42, 48},
	{queue.Conditional, receipts.DedupeCheck, keyTry, Flags{Heartbeat: true}}:                                                {12, 18, 24, 30, 36, 42, 48},
	{queue.Conditional, receipts.DedupeClaim, keySame, Flags{Heartbeat: true}}:                                               {10, 15, 20, 25, 30, 35, 40},
	{queue.Conditional, receipts.DedupeClaim, keyRun, Flags{Heartbeat: true}}:                                                {10, 15, 20, 25, 30, 35, 40},
	{queue.Conditional, receipts.DedupeClaim, keyTry, Flags{Heartbeat: true}}:                                                {10, 15, 20, 25, 30, 35, 40},
	{queue.ReadThenWrite, receipts.DedupeOff, keySame, Flags{Fence: true}}:                                                   {40, 255, 1334, 6241, 27384, ManyStates, ManyStates},
	{queue.ReadThenWrite, receipts.DedupeCheck, keySame, Flags{Fence: true}}:                                                 {84, 826, 7172, 59354, ManyStates, ManyStates, ManyStates},
	{queue.ReadThenWrite, receipts.DedupeCheck, keyRun, Flags{Fence: true}}:                                                  {84, 820, 7010, 56775, ManyStates, ManyStates, ManyStates},
	{queue.ReadThenWrite, receipts.DedupeCheck, keyTry, Flags{Fence: true}}:                                                  {91, 1075, 11736, 125248, ManyStates, ManyStates, ManyStates},
	{queue.ReadThenWrite, receipts.DedupeClaim, keySame, Flags{Fence: true}}:                                                 {51, 312, 1576, 7178, 30857, ManyStates, ManyStates},
	{queue.ReadThenWrite, receipts.DedupeClaim, keyRun, Flags{Fence: true}}:                                                  {57, 406, 2315, 11593, 53682, ManyStates, ManyStates},
	{queue.ReadThenWrite, receipts.DedupeClaim, keyTry, Flags{Fence: true}}:                                                  {59, 486, 3515, 23643, ManyStates, ManyStates, ManyStates},
	{queue.Conditional, receipts.DedupeOff, keySame, Flags{Fence: true}}:                                                     {8, 12, 16, 20, 24, 28, 32},
	{queue.Conditional, receipts.DedupeCheck, keySame, Flags{Fence: true}}:                                                   {12, 18, 24, 30, 36, 42, 48},
	{queue.Conditional, receipts.DedupeCheck, keyRun, Flags{Fence: true}}:                                                    {12, 18, 24, 30, 36, 42, 48},
	{queue.Conditional, receipts.DedupeCheck, keyTry, Flags{Fence: true}}:                                                    {12, 18, 24, 30, 36, 42, 48},
	{queue.Conditional, receipts.DedupeClaim, keySame, Flags{Fence: true}}:                                                   {10, 15, 20, 25, 30, 35, 40},
	{queue.Conditional, receipts.DedupeClaim, keyRun, Flags{Fence: true}}:                                                    {10, 15, 20, 25, 30, 35, 40},
	{queue.Conditional, receipts.DedupeClaim, keyTry, Flags{Fence: true}}:                                                    {10, 15, 20, 25, 30, 35, 40},
	{queue.ReadThenWrite, receipts.DedupeOff, keySame, Flags{Heartbeat: true, Fence: true}}:                                  {52, 384, 2534, 15845, ManyStates, ManyStates, ManyStates},
	{queue.ReadThenWrite, receipts.DedupeCheck, keySame, Flags{Heartbeat: true, Fence: true}}:                                {88, 835, 7287, 61253, ManyStates, ManyStates, ManyStates},
	{queue.ReadThenWrite, receipts.DedupeCheck, keyRun, Flags{Heartbeat: true, Fence: true}}:                                 {88, 831, 7190, 59748, ManyStates, ManyStates, ManyStates},
	{queue.ReadThenWrite, receipts.DedupeCheck, keyTry, Flags{Heartbeat: true, Fence: true}}:                                 {88, 886, 8660, 84303, ManyStates, ManyStates, ManyStates},
	{queue.ReadThenWrite, receipts.DedupeClaim, keySame, Flags{Heartbeat: true, Fence: true}}:                                {63, 458, 2987, 18471, ManyStates, ManyStates, ManyStates},
	{queue.ReadThenWrite, receipts.DedupeClaim, keyRun, Flags{Heartbeat: true, Fence: true}}:                                 {69, 560, 3983, 26389, ManyStates, ManyStates, ManyStates},
	{queue.ReadThenWrite, receipts.DedupeClaim, keyTry, Flags{Heartbeat: true, Fence: true}}:                                 {69, 606, 4985, 39737, ManyStates, ManyStates, ManyStates},
	{queue.Conditional, receipts.DedupeOff, keySame, Flags{Heartbeat: true, Fence: true}}:                                    {10, 15, 20, 25, 30, 35, 40},
	{queue.Conditional, receipts.DedupeCheck, keySame, Flags{Heartbeat: true, Fence: true}}:                                  {14, 21, 28, 35, 42, 49, 56},
	{queue.Conditional, receipts.DedupeCheck, keyRun, Flags{Heartbeat: true, Fence: true}}:                                   {14, 21, 28, 35, 42, 49, 56},
	{queue.Conditional, receipts.DedupeCheck, keyTry, Flags{Heartbeat: true, Fence: true}}:                                   {14, 21, 28, 35, 42, 49, 56},
	{queue.Conditional, receipts.DedupeClaim, keySame, Flags{Heartbeat: true, Fence: true}}:                                  {12, 18, 24, 30, 36, 42, 48},
	{queue.Conditional, receipts.DedupeClaim, keyRun, Flags{Heartbeat: true, Fence: true}}:                                   {12, 18, 24, 30, 36, 42, 48},
	{queue.Conditional, receipts.DedupeClaim, keyTry, Flags{Heartbeat: true, Fence: true}}:                                   {12, 18, 24, 30, 36, 42, 48},
	{queue.ReadThenWrite, receipts.DedupeOff, keySame, Flags{Ledger: true}}:                                                  {33, 101, 241, 491, 897, 1513, 2401},
	{queue.Conditional, receipts.DedupeOff, keySame, Flags{Ledger: true}}:                                                    {12, 18, 24, 30, 36, 42, 48},
	{queue.ReadThenWrite, receipts.DedupeOff, keySame, Flags{Heartbeat: true, Ledger: true}}:                                 {64, 286, 906, 2311, 5083, 10039, 18271},
	{queue.Conditional, receipts.DedupeOff, keySame, Flags{Heartbeat: true, Ledger: true}}:                                   {14, 21, 28, 35, 42, 49, 56},
	{queue.ReadThenWrite, receipts.DedupeOff, keySame, Flags{Fence: true, Ledger: true}}:                                     {42, 149, 391, 851, 1632, 2857, 4669},
	{queue.Conditional, receipts.DedupeOff, keySame, Flags{Fence: true, Ledger: true}}:                                       {12, 18, 24, 30, 36, 42, 48},
	{queue.ReadThenWrite, receipts.DedupeOff, keySame, Flags{Heartbeat: true, Fence: true, Ledger: true}}:                    {59, 250, 765, 1905, 4117, 8023, 14449},
	{queue.Conditional, receipts.DedupeOff, keySame, Flags{Heartbeat: true, Fence: true, Ledger: true}}:                      {14, 21, 28, 35, 42, 49, 56},
	{queue.ReadThenWrite, receipts.DedupeOff, keySame, Flags{Ledger: true, SeparateKey: true}}:                               {51, 193, 559, 1349, 2857, 5489, 9781},
	{queue.Conditional, receipts.DedupeOff, keySame, Flags{Ledger: true, SeparateKey: true}}:                                 {16, 24, 32, 40, 48, 56, 64},
	{queue.ReadThenWrite, receipts.DedupeOff, keySame, Flags{Heartbeat: true, Ledger: true, SeparateKey: true}}:              {88, 435, 1488, 4022, 9250, 18923, ManyStates},
	{queue.Conditional, receipts.DedupeOff, keySame, Flags{Heartbeat: true, Ledger: true, SeparateKey: true}}:                {18, 27, 36, 45, 54, 63, 72},
	{queue.ReadThenWrite, receipts.DedupeOff, keySame, Flags{Fence: true, Ledger: true, SeparateKey: true}}:                  {71, 320, 1021, 2620, 5792, 11489, 20988},
	{queue.Conditional, receipts.DedupeOff, keySame, Flags{Fence: true, Ledger: true, SeparateKey: true}}:                    {16, 24, 32, 40, 48, 56, 64},
	{queue.ReadThenWrite, receipts.DedupeOff, keySame, Flags{Heartbeat: true, Fence: true, Ledger: true, SeparateKey: true}}: {84, 389, 1260, 3264, 7262, 14471, ManyStates},
	{queue.Conditional, receipts.DedupeOff, keySame, Flags{Heartbeat: true, Fence: true, Ledger: true, SeparateKey: true}}:   {18, 27, 36, 45, 54, 63, 72},
}

// statesKey indexes statesOf.
type statesKey struct {
	protocol queue.Protocol
	dedupe   receipts.Dedupe
	key      keyKind
	flags    Flags
}

// keyKind groups the key choices by how they shape the search.
type keyKind uint8

const (
	keySame keyKind = iota // one value for every worker of the race: event, job, order
	keyRun                 // each run its own: run
	keyTry                 // the job and the attempt the run claimed with: attempt
)

// statesKey is the row of statesOf for a race of protocol p with the
// service v and the worker flags: with the ledger or without the
// service's key steps, the service makes no difference.
func (v Service) statesKey(p queue.Protocol, flags Flags) statesKey {
	if !v.active() || flags.Ledger {
		return statesKey{p, receipts.DedupeOff, keySame, flags}
	}
	k := keySame
	switch v.Key {
	case receipts.KeyRun:
		k = keyRun
	case receipts.KeyAttempt:
		k = keyTry
	}
	return statesKey{p, v.Dedupe, k, flags}
}

// States returns how many states ExploreRace(claim, workers, svc, flags)
// explores, without exploring: what a caller can budget before running
// anything. It is ManyStates for a search known to pass StatesTabled, and 0
// for a race ExploreRace refuses.
func States(claim queue.Claim, workers int, svc Service, flags Flags) int {
	if workers < MinWorkers || workers > MaxWorkers || !svc.Dedupe.Valid() || !svc.Key.Valid() {
		return 0
	}
	row, ok := statesOf[svc.statesKey(claim.Protocol(), flags)]
	if !ok {
		return 0
	}
	return row[workers-MinWorkers]
}
