package script

import (
	"errors"
	"fmt"
	"strings"

	"github.com/twice-lab/twice/runtime/event"
	"github.com/twice-lab/twice/runtime/explore"
)

// Schedule is one ordering of a race's steps, run as race --schedule
// named it: the steps taken, each worker's next step, the tables after
// the last step, the outcome once every worker has finished, and the
// explorer's counts for the same claim and workers.
type Schedule struct {
	Claim   string         `json:"claim"`
	Workers int            `json:"workers"`
	Steps   []ScheduleStep `json:"steps"`
	// Next has one entry per worker, in order: the label of its next
	// step, "" once it has finished.
	Next   []ScheduleNext `json:"next"`
	Tables ScheduleTables `json:"tables"`
	// Outcome is "one effect", "two effects" (or "no effect", "3
	// effects") once every worker has finished, and "" before.
	Outcome string `json:"outcome"`
	// Orderings and Duplicating are the explorer's counts for this claim
	// and number of workers, as decimal strings (see Exploration);
	// Shortest is the number of steps of its shortest duplicating
	// ordering, 0 when none duplicates.
	Orderings   string `json:"orderings"`
	Duplicating string `json:"duplicating"`
	Shortest    int    `json:"shortest"`
}

// ScheduleStep is one step a schedule took: the worker, the step's label
// (its SQL, an await, the receipt, the ack) and what it saw.
type ScheduleStep struct {
	Worker string `json:"worker"`
	Label  string `json:"label"`
	Said   string `json:"said"`
}

// ScheduleNext is a worker's next step: its label, "" when it has none.
type ScheduleNext struct {
	Worker string `json:"worker"`
	Label  string `json:"label"`
}

// ScheduleTables are the tables after a schedule's last step: the job,
// the locks table, and the effects recorded, each with the worker and the
// step (from 1) that recorded it.
type ScheduleTables struct {
	Jobs    []Job            `json:"jobs"`
	Locks   []LockRow        `json:"locks"`
	Effects []ScheduleEffect `json:"effects"`
}

// ScheduleEffect is one effect a schedule recorded.
type ScheduleEffect struct {
	Worker string `json:"worker"`
	Step   int    `json:"step"`
}

// schedule runs race --schedule: the ordering it names of the steps race
// --all explores, on a database of its own, printed as Every ordering
// prints its steps, then the outcome. A step that cannot run, or a
// schedule that ends while a worker still has steps, is a usage error
// naming its place; Result.Schedule holds what ran either way.
func (in *interp) schedule(c Command) error {
	r := c.Race
	dedupe, _ := in.svc.Dedupe()
	svc := explore.Service{Dedupe: dedupe, Key: r.Key}
	flags := exploreFlags(r)
	all, err := explore.ExploreRace(r.Claim, r.Workers, svc, flags)
	if err != nil {
		return err
	}
	play, err := explore.RunSchedule(r.Claim, r.Workers, svc, flags, r.Schedule)
	var stop *explore.ScheduleError
	if err != nil && !errors.As(err, &stop) {
		return err
	}
	sc := &Schedule{
		Claim: r.Claim.String(), Workers: r.Workers,
		Steps: []ScheduleStep{}, Next: []ScheduleNext{},
		Tables:    ScheduleTables{Jobs: []Job{}, Locks: []LockRow{}, Effects: []ScheduleEffect{}},
		Orderings: all.Orderings.String(), Duplicating: all.Duplicating.String(), Shortest: len(all.Shortest),
	}
	for _, st := range play.Steps {
		sc.Steps = append(sc.Steps, ScheduleStep{Worker: st.Worker, Label: st.Label, Said: st.Said})
	}
	for _, n := range play.Next {
		sc.Next = append(sc.Next, ScheduleNext{Worker: n.Worker, Label: n.Label})
	}
	for _, j := range play.Jobs {
		sc.Tables.Jobs = append(sc.Tables.Jobs, Job{ID: j.ID, Order: j.Order, Event: j.Event, Status: j.Status, Attempts: j.Attempts, Run: j.Run, LeaseUS: j.Lease})
	}
	for _, l := range play.Locks {
		sc.Tables.Locks = append(sc.Tables.Locks, LockRow{Job: l.Job, Owner: l.Owner, UntilUS: l.Until})
	}
	for _, f := range play.Effects {
		sc.Tables.Effects = append(sc.Tables.Effects, ScheduleEffect{Worker: f.Worker, Step: f.Step})
	}
	if play.Done && stop == nil {
		sc.Outcome = effectsWords(len(play.Effects))
	}
	in.res.Schedule = sc

	for i, st := range sc.Steps {
		what := st.Label
		if st.Said != "" {
			what += ": " + st.Said
		}
		in.print("  %d. %s %s", i+1, st.Worker, what)
	}
	label := raceLabel(r.Claim, dedupe, r.Key) + flagsLabel(r)
	if stop != nil {
		return usageErr(c.Pos, "race: schedule %s", stop)
	}
	if !play.Done {
		var left []string
		for i, n := range play.Next {
			if n.Label != "" {
				left = append(left, fmt.Sprintf("%s still has %s (next: %s)", n.Worker, plural(play.Left[i], "1 step", fmt.Sprintf("%d steps", play.Left[i])), n.Label))
			}
		}
		return usageErr(c.Pos, "race: schedule stops at step %d: %s", len(r.Schedule)+1, strings.Join(left, "; "))
	}
	in.k.Record("shell", event.Race, nil, "race %s --schedule %s%s: %s", r.Claim, scheduleText(r.Schedule, ","), flagsLabel(r), sc.Outcome)
	in.print("%s, schedule %s: %s", label, scheduleText(r.Schedule, " "), sc.Outcome)
	return nil
}

// effectsWords says how many effects landed, as a schedule's outcome.
func effectsWords(n int) string {
	switch n {
	case 0:
		return "no effect"
	case 1:
		return "one effect"
	case 2:
		return "two effects"
	}
	return fmt.Sprintf("%d effects", n)
}

func (e *jsonEnc) schedule(s *Schedule) {
	e.byte('{')
	e.strField("claim", s.Claim)
	e.intField("workers", s.Workers)
	e.key("steps")
	jsonList(e, s.Steps, func(e *jsonEnc, st ScheduleStep) {
		e.byte('{')
		e.strField("worker", st.Worker)
		e.strField("label", st.Label)
		e.strField("said", st.Said)
		e.byte('}')
	})
	e.key("next")
	jsonList(e, s.Next, func(e *jsonEnc, n ScheduleNext) {
		e.byte('{')
		e.strField("worker", n.Worker)
		e.strField("label", n.Label)
		e.byte('}')
	})
	e.key("tables")
	e.byte('{')
	e.key("jobs")
	jsonList(e, s.Tables.Jobs, func(e *jsonEnc, j Job) { e.job(&j) })
	e.key("locks")
	jsonList(e, s.Tables.Locks, (*jsonEnc).lockRow)
	e.key("effects")
	jsonList(e, s.Tables.Effects, func(e *jsonEnc, f ScheduleEffect) {
		e.byte('{')
		e.strField("worker", f.Worker)
		e.intField("step", f.Step)
		e.byte('}')
	})
	e.byte('}')
	e.strField("outcome", s.Outcome)
	e.strField("orderings", s.Orderings)
	e.strField("duplicating", s.Duplicating)
	e.intField("shortest", s.Shortest)
	e.byte('}')
}
