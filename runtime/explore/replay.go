package explore

import (
	"fmt"
	"slices"
	"strings"

	"github.com/twice-lab/twice/runtime/event"
	"github.com/twice-lab/twice/runtime/queue"
)

// Played is one step of a replayed ordering: the worker, the step's label
// and what it saw ("" for a step not yet taken). For a step taken it also
// says what a run's evidence keeps of it, so that a script can record the
// race as a timed race records its own: what the step did (Did), how a
// trace names it (Kind), the attempt and key of the request or row it
// concerns, whether a key was stored at it (the service's, or the
// ledger's, committed), and the job row after it.
type Played struct {
	Worker string
	Label  string
	Said   string

	Did     Did
	Kind    event.Kind
	Attempt int    // the attempt the request or the ledger row carried (with a fence, the token), when this step knows it
	Key     string // the key the request carried, or the ledger's
	Stored  bool   // the key was stored at this step
	Row     queue.Row
	// Line is the index, in the worker's Program, of the line this step
	// ran: -1 for a step off the program (a branch).
	Line int
}

// Did is what a replayed step did that a run's evidence keeps.
type Did uint8

const (
	DidStep       Did = iota // nothing the evidence keeps: a read, a lock's statement, an await, a transaction's statement
	DidClaim                 // the claim took: the job is the worker's
	DidLose                  // the claim was lost at this step
	DidRenew                 // the heartbeat renewed what the claim holds
	DidLeaseLost             // the renewal found the lease, or the lock, taken
	DidSend                  // the receipt arrived and the service's key step let it on: its effect is the next step
	DidEffect                // the service recorded an effect
	DidRefused               // the service refused the receipt's fencing token
	DidReplayed              // the service had the key: the first answer again
	DidAck                   // the ack took
	DidAckRefused            // the fenced ack changed no row
	DidLedger                // COMMIT made a ledger row visible: the effect
	DidKeyHit                // the ledger's key was taken: no row
	DidBusy                  // the statement failed with SQLITE_BUSY: the worker died
)

// Landed is one effect of a replayed ordering: the worker whose step
// recorded it, and that step's place in the ordering (1-based).
type Landed struct {
	Worker string
	Step   int
}

// Replay is an ordering run step by step, as a schedule gives it: the
// steps taken, each worker's next step, and the tables after the last.
type Replay struct {
	Steps []Played
	// Next has each worker's next step, in worker order, with an empty
	// Label for a worker that has finished. A worker whose next step waits
	// for another's open transaction says so in its label.
	Next    []Played
	Jobs    []queue.Row
	Locks   []queue.LockRow
	Effects []Landed
	// Left counts, for each worker, the steps it still has if it ran
	// alone from here (0 once it has finished).
	Left []int
	// Done says every worker has finished.
	Done bool
	// Programs has each worker's program, in worker order, with the line
	// it runs next and how it ended (see Program).
	Programs []Program
	// Keys are the keys stored so far, in the order they were.
	Keys []KeyRow
	// Through is an ordering that runs every worker to its end from the
	// start, one step each in turn: a whole race to play where none
	// duplicates.
	Through []string
}

// ScheduleError is a schedule's step that cannot run: At is its place in
// the schedule, from 1.
type ScheduleError struct {
	At  int
	Msg string
}

func (e *ScheduleError) Error() string { return fmt.Sprintf("step %d: %s", e.At, e.Msg) }

// RunSchedule runs the workers' steps (those ExploreRace orders) in the
// order schedule gives them, each entry a worker's index from 0. It stops
// at the first entry that names no worker of the race, or a worker that
// has finished or whose next step waits for another's transaction, and
// returns a *ScheduleError for it with the Replay up to there; a
// schedule that ends while workers still have steps is no error (the
// Replay says it is not Done).
func RunSchedule(claim queue.Claim, workers int, svc Service, flags Flags, schedule []int) (*Replay, error) {
	rep := &Replay{}
	err := withExplorer(claim, workers, svc, flags, nil, func(x *explorer, start state) error {
		progs, places, err := x.programs(start)
		if err != nil {
			return err
		}
		if rep.Through, err = x.through(start); err != nil {
			return err
		}
		last, lost := make([]int, workers), make([]bool, workers)
		x.onEffect = func(i int) {
			rep.Effects = append(rep.Effects, Landed{Worker: runOf(i), Step: len(rep.Steps) + 1})
		}
		s := start
		var stop error
		lastRun := ""
		for at, i := range schedule {
			if stop = x.playable(s, i, at+1); stop != nil {
				break
			}
			last[i] = slices.Index(places[i], placeOf(s.ws[i]))
			next, what, err := x.step(s, i)
			if err != nil {
				return err
			}
			label, said, _ := strings.Cut(what, ": ")
			p := x.did
			lost[i] = lost[i] || stops(p.Did)
			if p.Stored && p.Key != "" {
				rep.Keys = append(rep.Keys, KeyRow{Key: p.Key, Worker: runOf(i), Step: len(rep.Steps) + 1})
			}
			p.Worker, p.Label, p.Said, p.Line = runOf(i), label, said, last[i]
			s = next
			// The search keeps the row's run only where a step reads it
			// back; the reader's tables show it always: the run that
			// wrote it last.
			row, err := x.shell.Read(x.id)
			if err != nil {
				return err
			}
			if row.Run != "" {
				lastRun = row.Run
			}
			row.Run = lastRun
			p.Row = row
			rep.Steps = append(rep.Steps, p)
		}
		x.onEffect = nil
		placeAll(progs, places, s, last, lost)
		rep.Programs = progs
		// The row names the run that wrote it last, written before an
		// open ledger transaction is begun again (a write after it would
		// wait for that transaction).
		x.lastRun = lastRun
		if err := x.restore(s); err != nil {
			return err
		}
		if rep.Jobs, err = x.shell.List(); err != nil {
			return err
		}
		if rep.Locks, err = x.shell.Locks(); err != nil {
			return err
		}
		rep.Done = s.done()
		for i := range s.ws {
			rep.Next = append(rep.Next, Played{Worker: runOf(i), Label: x.nextLabel(s, i)})
			n, err := x.alone(s, i)
			if err != nil {
				return err
			}
			rep.Left = append(rep.Left, n)
		}
		return stop
	})
	return rep, err
}

// playable says why worker i cannot take the step at of a schedule from
// s, or nil when it can.
func (x *explorer) playable(s state, i, at int) error {
	switch {
	case i < 0 || i >= len(s.ws):
		return &ScheduleError{at, fmt.Sprintf("the race has no worker W%d (it has W1 to W%d)", i+1, len(s.ws))}
	case s.ws[i].pc == pcDone:
		return &ScheduleError{at, fmt.Sprintf("%s has no step left", runOf(i))}
	case x.blocked(s, i):
		return &ScheduleError{at, fmt.Sprintf("%s's next step is a write, and %s's transaction holds the database: it waits", runOf(i), runOf(s.holder()))}
	}
	return nil
}

// alone counts the steps worker i would take from s if it ran alone.
func (x *explorer) alone(s state, i int) (int, error) {
	n := 0
	for s.ws[i].pc != pcDone && !x.blocked(s, i) {
		next, _, err := x.step(s, i)
		if err != nil {
			return n, err
		}
		s, n = next, n+1
	}
	return n, nil
}

// nextLabel names worker i's next step from s, or "" when it has none.
func (x *explorer) nextLabel(s state, i int) string {
	w := s.ws[i]
	run := runOf(i)
	var l string
	switch w.pc {
	case pcDone:
		return ""
	case pcClaim:
		l = x.steps[w.cs].Name(x.id, run)
	case pcRelease:
		l = x.release[w.cs].Name(x.id, run)
	case pcReadBack:
		l = fmt.Sprintf("SELECT job %d: read the attempt back (the fencing token)", x.id)
	case pcRenew:
		l = fmt.Sprintf("UPDATE job %d SET lease WHERE run %s", x.id, run)
	case pcReceipt:
		l = "POST the receipt"
	case pcEffect:
		l = "the service records the effect"
	case pcRemember:
		l = "the service INSERTs the key"
	case pcAck:
		l = fmt.Sprintf("ack: UPDATE job %d SET status = 'done'", x.id)
	case pcBegin, pcKeyBegin, pcTxBegin:
		l = "BEGIN IMMEDIATE"
	case pcTxEnd:
		l = "COMMIT, of the claim"
	case pcKey, pcKeyInsert:
		l = fmt.Sprintf("INSERT INTO processed_keys %s ON CONFLICT DO NOTHING", eventID)
	case pcRow:
		l = "INSERT INTO ledger"
	case pcAckTx:
		l = fmt.Sprintf("ack: UPDATE job %d SET status = 'done', in the transaction", x.id)
	case pcCommit, pcKeyCommit:
		l = "COMMIT"
	case pcRollback:
		l = "ROLLBACK"
	}
	if x.blocked(s, i) {
		l += fmt.Sprintf(" (waits: %s's transaction is open)", runOf(s.holder()))
	}
	return l
}
