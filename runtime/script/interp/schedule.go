package interp

import (
	"errors"
	"fmt"
	"strings"

	"github.com/twice-lab/twice/runtime/event"
	"github.com/twice-lab/twice/runtime/explore"
	"github.com/twice-lab/twice/runtime/script/lang"
	"github.com/twice-lab/twice/runtime/script/result"
)

// schedule runs race --schedule: the ordering it names of the steps race
// --all explores, on a database of its own, printed as Every ordering
// prints its steps, then the outcome. A step that cannot run, or a
// schedule that ends while a worker still has steps, is a usage error
// naming its place; Result.Schedule holds what ran either way.
func (in *interp) schedule(c lang.Command) error {
	r := c.Race
	dedupe, _ := in.svc.Dedupe()
	svc := explore.Service{Dedupe: dedupe, Key: r.Key}
	flags := r.ExploreFlags()
	all, err := explore.ExploreRace(r.Claim, r.Workers, svc, flags)
	if err != nil {
		return err
	}
	play, err := explore.RunSchedule(r.Claim, r.Workers, svc, flags, r.Schedule)
	var stop *explore.ScheduleError
	if err != nil && !errors.As(err, &stop) {
		return err
	}
	sc := &result.Schedule{
		Claim: r.Claim.String(), Workers: r.Workers,
		Steps: []result.ScheduleStep{}, Next: []result.ScheduleNext{},
		Tables:    result.ScheduleTables{Jobs: []result.Job{}, Locks: []result.LockRow{}, Effects: []result.ScheduleEffect{}},
		Orderings: all.Orderings.String(), Duplicating: all.Duplicating.String(), Shortest: len(all.Shortest),
	}
	for _, st := range play.Steps {
		sc.Steps = append(sc.Steps, result.ScheduleStep{Worker: st.Worker, Label: st.Label, Said: st.Said})
	}
	for _, n := range play.Next {
		sc.Next = append(sc.Next, result.ScheduleNext{Worker: n.Worker, Label: n.Label})
	}
	for _, j := range play.Jobs {
		sc.Tables.Jobs = append(sc.Tables.Jobs, result.Job{ID: j.ID, Order: j.Order, Event: j.Event, Status: j.Status, Attempts: j.Attempts, Run: j.Run, LeaseUS: j.Lease})
	}
	for _, l := range play.Locks {
		sc.Tables.Locks = append(sc.Tables.Locks, result.LockRow{Job: l.Job, Owner: l.Owner, UntilUS: l.Until})
	}
	for _, f := range play.Effects {
		sc.Tables.Effects = append(sc.Tables.Effects, result.ScheduleEffect{Worker: f.Worker, Step: f.Step})
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
		return usageAt(c.Pos, "race: schedule %s", stop)
	}
	if !play.Done {
		var left []string
		for i, n := range play.Next {
			if n.Label != "" {
				left = append(left, fmt.Sprintf("%s still has %s (next: %s)", n.Worker, plural(play.Left[i], "1 step", fmt.Sprintf("%d steps", play.Left[i])), n.Label))
			}
		}
		return usageAt(c.Pos, "race: schedule stops at step %d: %s", len(r.Schedule)+1, strings.Join(left, "; "))
	}
	in.k.Record("shell", event.Race, nil, "race %s --schedule %s%s: %s", r.Claim, r.ScheduleText(","), flagsLabel(r), sc.Outcome)
	in.print("%s, schedule %s: %s", label, r.ScheduleText(" "), sc.Outcome)
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

// usageAt is a usage error at p, found while running: exit 2, as the
// parser's are.
func usageAt(p lang.Pos, format string, args ...any) *lang.Error {
	return &lang.Error{Kind: "usage", Line: p.Line, Col: p.Col, Msg: fmt.Sprintf(format, args...)}
}
