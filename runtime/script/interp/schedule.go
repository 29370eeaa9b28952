package interp

import (
	"errors"
	"fmt"

	"github.com/twice-lab/twice/runtime/event"
	"github.com/twice-lab/twice/runtime/explore"
	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/receipts"
	"github.com/twice-lab/twice/runtime/script/diagnosis"
	"github.com/twice-lab/twice/runtime/script/lang"
	"github.com/twice-lab/twice/runtime/script/result"
	"github.com/twice-lab/twice/runtime/script/views"
	"github.com/twice-lab/twice/runtime/sim"
)

// schedule runs race --schedule: the ordering it names of the steps race
// --all explores, on a database of its own, printed as Every ordering
// prints its steps, then the outcome: the effects once every worker has
// finished, or, for a schedule that stops early, the effects so far and
// each worker's next step (the race as it stands). A step that cannot run
// is a usage error naming its place; Result.Schedule holds what ran either
// way. The race is then the script's last race, as a timed race's is: its
// tables, the service's record and the runs' evidence are what the steps
// left (recordSchedule), so that effects, jobs and the diagnosis after it
// describe it.
func (in *interp) schedule(c lang.Command) error {
	r := c.Race
	if err := in.quiet0("race"); err != nil {
		return err
	}
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
		Tables:    result.ScheduleTables{Jobs: []result.Job{}, Locks: []result.LockRow{}, Effects: []result.ScheduleEffect{}, Keys: []result.ScheduleKey{}},
		Orderings: all.Orderings.String(), Duplicating: all.Duplicating.String(), Shortest: len(all.Shortest),
		Programs: []result.ScheduleProgram{}, Ordering: []string{},
		Shared: explore.Shared(r.Claim, svc, flags),
	}
	for _, p := range play.Programs {
		sc.Programs = append(sc.Programs, result.ScheduleProgram{Worker: p.Worker, Lines: append([]string{}, p.Lines...), At: p.At, Ended: p.Ended})
	}
	for _, st := range all.Shortest {
		sc.Ordering = append(sc.Ordering, st.Worker)
	}
	if len(sc.Ordering) == 0 {
		sc.Ordering = append(sc.Ordering, play.Through...)
	}
	for _, k := range play.Keys {
		sc.Tables.Keys = append(sc.Tables.Keys, result.ScheduleKey{Key: k.Key, Worker: k.Worker, Step: k.Step})
	}
	for _, st := range play.Steps {
		sc.Steps = append(sc.Steps, result.ScheduleStep{Worker: st.Worker, Label: st.Label, Said: st.Said, Line: st.Line})
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
		sc.Outcome = views.EffectsWords(len(play.Effects))
	}
	in.res.Schedule = sc

	for i, st := range sc.Steps {
		what := st.Label
		if st.Said != "" {
			what += ": " + st.Said
		}
		in.print("  %d. %s %s", i+1, st.Worker, what)
	}
	label := views.RaceLabel(r.Claim, dedupe, r.Key) + views.FlagsLabel(r)
	if stop != nil {
		return usageAt(c.Pos, "race: schedule %s", stop)
	}
	if err := in.recordSchedule(r, play); err != nil {
		return err
	}
	in.k.Record("shell", event.Race, nil, "race %s --schedule %s%s: %s", r.Claim, r.ScheduleText(","), views.FlagsLabel(r), views.ScheduleOutcome(play))
	in.print("%s, schedule %s: %s", label, r.ScheduleText(" "), views.ScheduleOutcome(play))
	return nil
}

// usageAt is a usage error at p, found while running: exit 2, as the
// parser's are.
func usageAt(p lang.Pos, format string, args ...any) *lang.Error {
	return &lang.Error{Kind: "usage", Line: p.Line, Col: p.Col, Msg: fmt.Sprintf(format, args...)}
}

// scheduled is what recordSchedule keeps while it records a schedule's
// steps: each worker's run record and lease, the request each worker has
// on its way, and the run that stored each key.
type scheduled struct {
	r      lang.RaceArgs
	job    int64
	event  string
	mode   receipts.Dedupe
	recs   map[string]*diagnosis.Record
	leases map[string]sim.Time
	sent   map[string]receipts.Effect
	rowAt  map[string]int // the attempt of the ledger row each worker has written
	first  map[string]string
}

// recordSchedule makes the script's state what the schedule's race left,
// as a timed race leaves its own: the tables emptied and one job added,
// then each step at an instant of its own, one step's time after the one
// before (drawn from the seed as the timed race draws it: a statement, a
// request's network, an await's latency), each recorded in the trace, in
// the runs' evidence, in the service's record and in the tables. With
// timing ignored no lease lapses, and none does here: each is the race's
// default lease, from the step that wrote it.
func (in *interp) recordSchedule(r lang.RaceArgs, play *explore.Replay) error {
	in.k.Record("shell", event.Reset, nil, "race --schedule: reset")
	if err := in.reset(); err != nil {
		return err
	}
	in.ledger = in.ledger || r.Effect == lang.EffectLedger
	mode, _ := in.svc.Dedupe()
	sc := &scheduled{
		r: r, event: in.newEvent(), mode: mode,
		recs: map[string]*diagnosis.Record{}, leases: map[string]sim.Time{},
		sent: map[string]receipts.Effect{}, rowAt: map[string]int{}, first: map[string]string{},
	}
	id, err := in.shell.Add(RaceOrder, sc.event)
	if err != nil {
		return err
	}
	sc.job = id
	in.k.Record("shell", event.Add, in.observe(id), "race --schedule: add %s (event %s): job %d", RaceOrder, sc.event, id)
	at := in.k.Now() + raceGate
	for _, st := range play.Steps {
		at += in.scheduleCost(r.Claim, st)
		if err := in.runUntil(at); err != nil {
			return err
		}
		if err := in.scheduleStep(sc, st); err != nil {
			return err
		}
	}
	owner := ""
	for _, l := range play.Locks {
		owner = l.Owner
	}
	if err := in.shell.SetLock(id, owner, sc.leases[owner]); err != nil {
		return err
	}
	return in.svc.Err()
}

// scheduleCost is the time one step of a schedule takes: a request's
// network for a receipt, the claim's latency for an await, a statement's
// time for the rest.
func (in *interp) scheduleCost(claim queue.Claim, st explore.Played) sim.Time {
	k := in.k
	switch st.Kind {
	case event.Send:
		return k.Between(receipts.DialMin, receipts.DialMax) + k.Between(receipts.HopMin, receipts.HopMax)
	case event.Await:
		for _, cs := range claim.Steps() {
			if cs.Kind == queue.StepAwait {
				return k.Between(sim.Time(cs.Await[0]), sim.Time(cs.Await[1]))
			}
		}
	}
	return k.Between(stmtMin, stmtMax)
}

// scheduleStep records one step of a schedule at the kernel's instant.
func (in *interp) scheduleStep(sc *scheduled, st explore.Played) error {
	now := in.k.Now()
	w := st.Worker
	if st.Did == explore.DidClaim {
		sc.leases[w] = now + lang.DefaultLease
		rec := in.hist.Claimed(w, w, sc.job, now, sc.leases[w])
		rec.Heartbeat = sc.r.Heartbeat > 0
		sc.recs[w] = rec
	}
	if st.Did == explore.DidRenew {
		sc.leases[w] = now + lang.DefaultLease
		sc.recs[w].SetLease(now, sc.leases[w])
	}
	row := st.Row
	if err := in.shell.Set(sc.job, row.Status, row.Attempts, row.Run); err != nil {
		return err
	}
	if row.Status == "running" && row.Run != "" {
		if _, err := in.shell.Renew(sc.job, row.Run, sc.leases[row.Run]); err != nil {
			return err
		}
	}
	if st.Kind != event.Effect {
		// A let-through receipt's effect is the service's step alone.
		var job *result.Job
		switch st.Kind {
		case event.Claim, event.Heartbeat, event.Ack, event.Commit:
			job = in.observe(sc.job)
		}
		line := st.Label
		if st.Said != "" {
			line += ": " + st.Said
		}
		in.k.Record(w, st.Kind, workerData{run: w, job: job}, "%s", line)
	}
	return in.scheduleEvidence(sc, st)
}

// scheduleEvidence records what a step of a schedule did in the run's
// evidence, the service's record and the ledger.
func (in *interp) scheduleEvidence(sc *scheduled, st explore.Played) error {
	now := in.k.Now()
	w := st.Worker
	rec := sc.recs[w]
	request := func() receipts.Effect {
		e := receipts.Effect{Order: RaceOrder, Job: sc.job, Run: w, Attempt: st.Attempt, Send: 1, Worker: w, Event: sc.event, Key: st.Key, Dedupe: sc.mode}
		if sc.r.Fence {
			e.Token = st.Attempt
		}
		if e.Key != "" && sc.mode != receipts.DedupeOff {
			e.KeyState = "new"
		}
		rec.Enter(now, diagnosis.PhaseSending)
		rec.Key = e.Key
		return e
	}
	switch st.Did {
	case explore.DidSend:
		sc.sent[w] = request()
	case explore.DidEffect:
		e, ok := sc.sent[w]
		if !ok {
			e = request()
		}
		delete(sc.sent, w)
		in.svc.Arrived(in.k, e)
	case explore.DidRefused:
		e := request()
		e.Refused = true
		in.svc.Arrived(in.k, e)
		rec.Enter(now, diagnosis.PhaseRefused)
	case explore.DidReplayed:
		e := request()
		e.Replayed, e.FirstRun, e.KeyState = true, sc.first[e.Key], ""
		rec.Replayed = true
		in.svc.Arrived(in.k, e)
	case explore.DidLeaseLost:
		rec.Enter(now, diagnosis.PhaseLost)
	case explore.DidAck:
		rec.Enter(now, diagnosis.PhaseAcked)
	case explore.DidAckRefused:
		rec.Enter(now, diagnosis.PhaseEnded)
	case explore.DidKeyHit:
		in.keyHits++
	case explore.DidLedger:
		rec.Enter(now, diagnosis.PhaseAcked)
		if err := in.shell.AddLedger(queue.LedgerRow{Key: st.Key, Order: RaceOrder, Job: sc.job, Run: w, Attempt: sc.rowAt[w]}); err != nil {
			return err
		}
	}
	if st.Kind == event.Ledger {
		sc.rowAt[w] = st.Attempt
	}
	if st.Stored {
		if sc.r.Effect == lang.EffectLedger {
			if _, err := in.shell.ClaimKey(st.Key, w); err != nil {
				return err
			}
		} else {
			in.svc.StoreKey(in.k, st.Key, w)
			sc.first[st.Key] = w
		}
	}
	return nil
}
