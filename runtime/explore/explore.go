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
// worker limit rules out (see Count); it is there so that a future change
// of limits fails loudly instead of counting wrong.
var errTooMany = errors.New("too many orderings to count in 128 bits")

// Method names the reductions used, for the report.
const Method = "exact count: orderings that reach the same state share their continuations, and states that differ only by worker names are merged"

// Report is the outcome of exploring one claim with some workers.
type Report struct {
	Claim   queue.Claim
	Workers int
	Service Service
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

// worker program counters.
const (
	pcClaim    = iota // read: SELECT next; atomic: conditional UPDATE next
	pcTake            // read claim only: the unconditional UPDATE next
	pcReceipt         // send the receipt next (with a dedupe: the key's SELECT or claim)
	pcEffect          // with a dedupe, the key let it through: the effect next
	pcRemember        // dedupe check: INSERT the key next
	pcAck             // ack next
	pcDone            // finished (acked, or found the job taken)
)

// wstate is a worker's place in its protocol. What it read back before
// the receipt (the attempt number) only labels the effect, unless it makes
// the key (an attempt key a worker inserts after its effect): then it is
// kept in attempt until the insert, and is 0 otherwise.
type wstate struct {
	pc      uint8
	attempt uint8
}

// state is what the future of a race depends on. The row's run column is
// left out: no step's outcome depends on it.
type state struct {
	status   string
	attempts int
	effects  int // effects recorded, counted up to 2: beyond that nothing changes
	ws       []wstate
	keys     []string // the service's stored keys, sorted (see the package doc for run keys)
}

// key returns the state's canonical form: workers sorted, so that states
// equal up to renaming workers share one key.
func (s state) key() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%d/%d/%s/", s.status, s.attempts, s.effects, strings.Join(s.keys, ","))
	ws := slices.Clone(s.ws)
	slices.SortFunc(ws, cmpW)
	for _, w := range ws {
		b.WriteByte('0' + w.pc)
		if w.attempt > 0 {
			fmt.Fprintf(&b, "a%d", w.attempt)
		}
		b.WriteByte(' ')
	}
	return b.String()
}

func cmpW(a, b wstate) int {
	if a.pc != b.pc {
		return int(a.pc) - int(b.pc)
	}
	return int(a.attempt) - int(b.attempt)
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
	keys   *receipts.KeyStore
	db     *queue.DB
	shell  *queue.Conn
	conns  []*queue.Conn
	id     int64
	memo   map[string]result
	stmts  int
}

// Explore counts every ordering of a race between workers workers using
// claim, with a receipts service that does not deduplicate.
func Explore(claim queue.Claim, workers int) (*Report, error) {
	return ExploreService(claim, workers, Service{})
}

// ExploreService counts every ordering of a race between workers workers
// using claim, with the service's key steps (svc) as steps of their own.
func ExploreService(claim queue.Claim, workers int, svc Service) (*Report, error) {
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
	x := &explorer{claim: claim, atomic: atomic, svc: svc, db: db, memo: map[string]result{}}
	if svc.active() {
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
	if x.id, err = x.shell.Add(order, event); err != nil {
		return nil, err
	}
	start := state{status: "queued", ws: make([]wstate, workers)}
	r, err := x.count(start)
	if err != nil {
		return nil, err
	}
	rep := &Report{
		Claim: claim, Workers: workers, Service: svc,
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
		j := slices.Index(places, w)
		if j < 0 {
			places, first, many = append(places, w), append(first, i), append(many, 0)
			j = len(places) - 1
		}
		many[j]++
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

// step executes worker i's next step from state s on SQLite and returns the
// state after it and a description.
func (x *explorer) step(s state, i int) (state, string, error) {
	// Put the row back as s has it, then run the real statement.
	if err := x.shell.Set(x.id, s.status, s.attempts); err != nil {
		return s, "", err
	}
	x.stmts++
	if x.keys != nil {
		rows := make([]receipts.StoredKey, len(s.keys))
		for i, k := range s.keys {
			rows[i] = receipts.StoredKey{Key: k, FirstRun: "first"}
		}
		if err := x.keys.Restore(rows); err != nil {
			return s, "", err
		}
		x.stmts += 1 + len(rows)
	}
	next := s
	next.ws = slices.Clone(s.ws)
	w := &next.ws[i]
	conn := x.conns[i]
	var what string
	switch w.pc {
	case pcClaim:
		if x.atomic {
			ok, err := conn.Claim(x.id, "run", 0, 1)
			x.stmts++
			if err != nil {
				return s, "", err
			}
			if ok {
				w.pc = pcReceipt
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
		if err := conn.Take(x.id, "run", 1); err != nil {
			return s, "", err
		}
		x.stmts++
		w.pc = pcReceipt
		what = fmt.Sprintf("UPDATE job %d: running (no condition), the job is mine", x.id)
	case pcReceipt:
		row, err := conn.Read(x.id)
		x.stmts++
		if err != nil {
			return s, "", err
		}
		if x.keys != nil {
			return x.keyStep(next, i, row)
		}
		w.pc = pcAck
		next.effects = min(s.effects+1, 2)
		what = fmt.Sprintf("POST receipt (attempt %d): the service records effect %d", row.Attempts, next.effects)
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
		if err := conn.Ack(x.id); err != nil {
			return s, "", err
		}
		x.stmts++
		w.pc = pcDone
		what = fmt.Sprintf("UPDATE job %d: done (ack)", x.id)
	}
	row, err := x.shell.Read(x.id)
	x.stmts++
	if err != nil {
		return s, "", err
	}
	next.status, next.attempts = row.Status, row.Attempts
	return next, what, nil
}

// keyOf returns worker i's key for a receipt of attempt, and whether the
// state keeps it (a run key is the worker's own: see the package doc).
func (x *explorer) keyOf(i, attempt int) (string, bool) {
	key, _ := x.svc.Key.Of(receipts.Delivery{Event: event, Job: x.id, Order: order, Run: fmt.Sprintf("W%d", i+1), Attempt: attempt})
	return key, x.svc.Key != receipts.KeyRun
}

// keyStep is the service's first statement on worker i's key, at its
// receipt: the check's SELECT or the claim's INSERT.
func (x *explorer) keyStep(next state, i int, row queue.Row) (state, string, error) {
	w := &next.ws[i]
	key, store := x.keyOf(i, row.Attempts)
	head := fmt.Sprintf("POST receipt (attempt %d, key %s): ", row.Attempts, key)
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
		w.pc, w.attempt = pcEffect, uint8(row.Attempts)
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
