package explore

import (
	"fmt"
	"slices"

	"github.com/twice-lab/twice/runtime/queue"
)

// Program is one worker's program as a board draws it: the lines of the
// steps it takes when it runs alone from the start (its claim's steps,
// the receipt or the ledger's transaction, the ack, the release), each
// named as nextLabel names a next step. A step a race can take off this
// path (a lost claim ends the worker; a refused fenced ack rolls back)
// is a branch: the worker's At is then -1 and its next step's label says
// what it is.
type Program struct {
	Worker string
	Lines  []string
	// At is the index in Lines of the worker's next step, len(Lines) once
	// it has finished, -1 when its next step is a branch off the program.
	At int
	// Ended is "" while the worker has steps left, "finished" once it ran
	// its program to the end, "stopped" when it ended before (it lost the
	// claim, its lease or its ack, or its key was taken).
	Ended string
}

// KeyRow is a key a replayed ordering stored: the receipts service's key
// table or, with the ledger, processed_keys (committed), with the worker
// and the step (from 1) that stored it.
type KeyRow struct {
	Key    string
	Worker string
	Step   int
}

// place is a worker's place in its program: its pc and claim step.
type place struct{ pc, cs uint8 }

func placeOf(w wstate) place { return place{w.pc, w.cs} }

// maxProgram bounds a program's lines: no claim comes near it.
const maxProgram = 64

// program runs worker i alone from s to its end and returns the label of
// each step it takes, and the place each is taken from.
func (x *explorer) program(s state, i int) ([]string, []place, error) {
	var lines []string
	var at []place
	for s.ws[i].pc != pcDone && !x.blocked(s, i) {
		if len(lines) == maxProgram {
			return nil, nil, fmt.Errorf("explore: %s's program has more than %d steps", runOf(i), maxProgram)
		}
		lines = append(lines, x.nextLabel(s, i))
		at = append(at, placeOf(s.ws[i]))
		next, _, err := x.step(s, i)
		if err != nil {
			return nil, nil, err
		}
		s = next
	}
	return lines, at, nil
}

// programs returns every worker's program from the start state.
func (x *explorer) programs(start state) ([]Program, [][]place, error) {
	var progs []Program
	var places [][]place
	for i := range start.ws {
		lines, at, err := x.program(start, i)
		if err != nil {
			return nil, nil, err
		}
		progs = append(progs, Program{Worker: runOf(i), Lines: lines})
		places = append(places, at)
	}
	return progs, places, nil
}

// through returns an ordering from start that runs every worker to its
// end: each worker that can move takes one step in turn.
func (x *explorer) through(start state) ([]string, error) {
	var order []string
	s := start
	for turn := 0; !s.done(); turn++ {
		if len(order) > maxProgram*MaxWorkers {
			return nil, fmt.Errorf("explore: an ordering of more than %d steps", len(order))
		}
		i := turn % len(s.ws)
		if s.ws[i].pc == pcDone || x.blocked(s, i) {
			continue
		}
		next, _, err := x.step(s, i)
		if err != nil {
			return nil, err
		}
		order = append(order, runOf(i))
		s = next
	}
	return order, nil
}

// stops reports whether a step that did did ends a worker before its
// program's end.
func stops(did Did) bool {
	return did == DidLose || did == DidLeaseLost || did == DidAckRefused || did == DidKeyHit
}

// placeAll fills each program's At and Ended from the state s a schedule
// left; last is the index in its program of each worker's last step
// (-1 for none, or a branch), and lost whether one of its steps stopped it.
func placeAll(progs []Program, places [][]place, s state, last []int, lost []bool) {
	for i := range progs {
		p := &progs[i]
		w := s.ws[i]
		switch {
		case w.pc == pcDone:
			p.At = len(p.Lines)
			p.Ended = "finished"
			if lost[i] || last[i] != len(p.Lines)-1 {
				p.Ended = "stopped"
			}
		default:
			p.At = slices.Index(places[i], placeOf(w))
		}
	}
}

// Shared names the tables the workers of a race share, as a board draws
// them: the job's row always, the locks table for a claim that takes a
// lock, the service's key table where its key steps take part, and the
// ledger's processed_keys.
func Shared(claim queue.Claim, svc Service, flags Flags) []string {
	tables := []string{"jobs"}
	if claim.Locks() {
		tables = append(tables, "locks")
	}
	switch {
	case flags.Ledger:
		tables = append(tables, "processed_keys")
	case svc.active():
		tables = append(tables, "keys")
	}
	return tables
}
