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
package explore

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/twice-lab/twice/runtime/queue"
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
	Claim   string
	Workers int
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

// worker program counters.
const (
	pcClaim   = iota // read: SELECT next; atomic: conditional UPDATE next
	pcTake           // read claim only: the unconditional UPDATE next
	pcReceipt        // send the receipt next
	pcAck            // ack next
	pcDone           // finished (acked, or found the job taken)
)

// wstate is a worker's place in its protocol. What it read back before
// the receipt (the attempt number) only labels the effect, so it is not
// part of the state.
type wstate struct {
	pc uint8
}

// state is what the future of a race depends on. The row's run column is
// left out: no step's outcome depends on it.
type state struct {
	status   string
	attempts int
	effects  int // effects recorded, counted up to 2: beyond that nothing changes
	ws       []wstate
}

// key returns the state's canonical form: workers sorted, so that states
// equal up to renaming workers share one key.
func (s state) key() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%d/%d/", s.status, s.attempts, s.effects)
	// The workers' places in ascending order: a counting sort, since a
	// place is one of a handful of values.
	for pc := uint8(0); pc <= pcDone; pc++ {
		for _, w := range s.ws {
			if w.pc == pc {
				b.WriteByte('0' + pc)
			}
		}
	}
	return b.String()
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
	claim  string
	atomic bool
	db     *queue.DB
	shell  *queue.Conn
	conns  []*queue.Conn
	id     int64
	memo   map[string]result
	stmts  int
}

// Explore counts every ordering of a race between workers workers using
// claim ("read", "lock" or "atomic").
func Explore(claim string, workers int) (*Report, error) {
	if workers < MinWorkers || workers > MaxWorkers {
		return nil, fmt.Errorf("explore: %d workers; want %d to %d", workers, MinWorkers, MaxWorkers)
	}
	var atomic bool
	switch claim {
	case "read":
	case "lock", "atomic":
		atomic = true
	default:
		return nil, fmt.Errorf("explore: unknown claim %q", claim)
	}
	db, err := queue.Get()
	if err != nil {
		return nil, err
	}
	defer db.Put()
	x := &explorer{claim: claim, atomic: atomic, db: db, memo: map[string]result{}}
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
	if x.id, err = x.shell.Add("order-77"); err != nil {
		return nil, err
	}
	start := state{status: "queued", ws: make([]wstate, workers)}
	r, err := x.count(start)
	if err != nil {
		return nil, err
	}
	rep := &Report{
		Claim: claim, Workers: workers,
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
	// Workers at the same place in the protocol are interchangeable:
	// step one of them and count its continuations once per such worker.
	var first [pcDone]int
	var many [pcDone]uint64
	for i, w := range s.ws {
		if w.pc != pcDone {
			if many[w.pc] == 0 {
				first[w.pc] = i
			}
			many[w.pc]++
		}
	}
	for pc := range first {
		if many[pc] == 0 {
			continue
		}
		next, _, err := x.step(s, first[pc])
		if err != nil {
			return r, err
		}
		c, err := x.count(next)
		if err != nil {
			return r, err
		}
		t, ok1 := c.total.mul(many[pc])
		d, ok2 := c.dup.mul(many[pc])
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
		w.pc = pcAck
		next.effects = min(s.effects+1, 2)
		what = fmt.Sprintf("POST receipt (attempt %d): the service records effect %d", row.Attempts, next.effects)
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

// statesOf is how many states Explore executes steps from, by claim kind
// (read; lock and atomic) and workers, from MinWorkers up. The search is
// deterministic, so these are known before it runs; a test holds the table
// to what Explore reports.
var statesOf = [2][MaxWorkers - MinWorkers + 1]int{
	{18, 58, 148, 323, 631, 1135, 1915},
	{6, 9, 12, 15, 18, 21, 24},
}

// States returns how many states Explore(claim, workers) explores, without
// exploring: what a caller can budget before running anything. It returns 0
// for a claim or a worker count Explore refuses.
func States(claim string, workers int) int {
	if workers < MinWorkers || workers > MaxWorkers {
		return 0
	}
	switch claim {
	case "read":
		return statesOf[0][workers-MinWorkers]
	case "lock", "atomic":
		return statesOf[1][workers-MinWorkers]
	}
	return 0
}
