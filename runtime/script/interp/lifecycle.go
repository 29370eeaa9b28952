package interp

import (
	"fmt"
	"slices"

	"github.com/twice-lab/twice/runtime/event"
	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/script/diagnosis"
	"github.com/twice-lab/twice/runtime/script/lang"
	"github.com/twice-lab/twice/runtime/sim"
)

// What happens to a worker from outside its own code: a deploy that stops
// it (deploy), the queue's retry limit that takes its job away to the
// dead-letter queue (work --max-attempts), and how it lets go of a lock
// (work --release).

// lifecycle is what a worker carries for them.
type lifecycle struct {
	begun  bool      // the worker has started on its job (execute)
	term   bool      // a deploy sent it SIGTERM: it claims nothing more
	killer *sim.Proc // the process that sends SIGKILL when the grace ends
}

// track notes w as a live worker, by name, until it returns (untrack).
func (in *interp) track(w *worker) {
	if in.live == nil {
		in.live = map[string]*worker{}
	}
	in.live[w.args.Worker] = w
}

// untrack forgets w once its process has returned (killed or not), and
// calls off its SIGKILL if one is waiting.
func (in *interp) untrack(w *worker) {
	delete(in.live, w.args.Worker)
	if w.life.killer != nil {
		in.k.Kill(w.life.killer)
	}
}

// deploy stops every background worker, in name order, as a deploy stops
// the pod they run in: with no grace, SIGKILL now, wherever each worker
// is; with a grace, SIGTERM now (a worker that has not started on its job
// stops before claiming it; one that has goes on) and SIGKILL at the end
// of the grace for any worker still running then.
func (in *interp) deploy(d lang.DeployArgs) error {
	names := make([]string, 0, len(in.live))
	for name := range in.live {
		names = append(names, name)
	}
	slices.Sort(names)
	if d.Grace == 0 {
		in.k.Record("shell", event.Deploy, nil, "deploy: SIGKILL to %d background worker(s)", len(names))
	} else {
		in.k.Record("shell", event.Deploy, nil, "deploy: SIGTERM to %d background worker(s), SIGKILL in %s s", len(names), lang.FormatSeconds(d.Grace))
	}
	for _, name := range names {
		w := in.live[name]
		if d.Grace == 0 {
			w.sigkill("SIGKILL")
			continue
		}
		w.life.term = true
		if w.life.begun {
			w.say(event.Say, "SIGTERM: finishing job %d first (SIGKILL in %s s if it has not)", w.args.Job, lang.FormatSeconds(d.Grace))
		}
		w.life.killer = in.k.Go("shell", in.k.Now()+d.Grace, func(p *sim.Proc) {
			w.sigkill("SIGKILL at the end of the grace")
		})
	}
	// The killed workers end now, before the next command.
	return in.runUntil(in.k.Now())
}

// sigkill ends the worker where it is, as SIGKILL does: it says where that
// was, its open transaction dies with its connection, and its lock and its
// lease are left to lapse. A request already on its way is still handled
// by the service (see sim.Proc.Shield).
func (w *worker) sigkill(why string) {
	if w.proc.Done() || w.proc.Killed() {
		return
	}
	now := w.in.k.Now()
	where := w.where()
	if w.conn.InTx() {
		if err := w.conn.Rollback(); err != nil {
			w.fail(err)
		}
		w.in.k.Record(w.args.Worker, event.Rollback, workerData{run: w.run, job: w.in.observe(w.args.Job)}, "the connection dies with the process: SQLite rolls the open transaction back")
	}
	if w.rec != nil {
		w.rec.InFlight = w.proc.Shielded()
		w.rec.Enter(now, diagnosis.PhaseKilled)
	}
	w.say(event.Kill, "killed by the deploy (%s) %s", why, where)
	w.in.k.Kill(w.proc)
}

// where says where a worker is, for the line of its kill.
func (w *worker) where() string {
	job := w.args.Job
	switch {
	case w.rec == nil:
		return fmt.Sprintf("before it had claimed job %d", job)
	case w.conn.InTx():
		return "inside its ledger transaction: no key, no ledger row, no ack"
	case w.proc.Shielded():
		return "with its receipt request on its way: the service still handles it"
	case w.awaiting:
		return "while it waited for the receipt's answer: no ack"
	}
	before := "before the receipt"
	if w.args.Effect == lang.EffectLedger {
		before = "before its ledger transaction"
	}
	switch w.rec.Phase() {
	case diagnosis.PhaseClaimed:
		return fmt.Sprintf("after claiming job %d, %s", job, before)
	case diagnosis.PhaseProcessing:
		return fmt.Sprintf("in the middle of its work on job %d, %s", job, before)
	case diagnosis.PhaseStalled:
		return "while frozen, " + before
	case diagnosis.PhaseSending:
		// Writing its log line or opening the connection: a request
		// that had left would be on its way or answered by now.
		if w.requests() == 0 {
			return "before the receipt had left: nothing was sent"
		}
		return "after its request timed out, before the retry had left: no ack"
	case diagnosis.PhaseAcked:
		return "after its ack"
	}
	return fmt.Sprintf("after claiming job %d, before its ack", job)
}

// requests counts the requests of the worker's run the service has
// recorded.
func (w *worker) requests() int {
	n := 0
	for _, e := range w.in.svc.Effects() {
		if e.Run == w.run {
			n++
		}
	}
	return n
}

// stopsOnTerm reports whether the worker, at the start of its job, has
// had SIGTERM: then it claims nothing and stops, as a draining consumer
// stops taking messages.
func (w *worker) stopsOnTerm() bool {
	w.life.begun = true
	if !w.life.term {
		return false
	}
	w.say(event.Say, "SIGTERM came before it claimed job %d: it stops without claiming", w.args.Job)
	w.ok = true
	return true
}

// noteRedrive remembers the attempts job had when it was re-driven: the
// retry limit counts the receives after that, as a broker counts those of
// a message moved back from its dead-letter queue.
func (in *interp) noteRedrive(job int64) {
	row, err := in.shell.Read(job)
	if err != nil {
		return
	}
	if in.redriveBase == nil {
		in.redriveBase = map[int64]int{}
	}
	in.redriveBase[job] = row.Attempts
}

// deadLetter applies the retry limit to a claim that took the job at
// attempt got.Attempts: past --max-attempts receives since the job's last
// re-drive, the job goes to the dead-letter queue and this run does none
// of its work. It reports whether it did that.
func (w *worker) deadLetter(p *sim.Proc, got queue.Row) bool {
	a := w.args
	n := got.Attempts - w.in.redriveBase[a.Job]
	if a.MaxAttempts == 0 || n <= a.MaxAttempts {
		return false
	}
	moved, err := w.conn.DeadLetter(a.Job, w.run)
	if err != nil {
		w.fail(err)
		return true
	}
	if !moved {
		// Another run took the job between the claim and this step.
		w.step(p, w.stmt(), event.Select, false, "UPDATE job %d SET status = 'dead' WHERE run %s: 0 rows changed", a.Job, w.run)
		w.rec.Enter(w.in.k.Now(), diagnosis.PhaseEnded)
		w.say(event.Say, "job %d is held by another run now; not moved to the dead-letter queue", a.Job)
		return true
	}
	w.rec.Enter(w.in.k.Now(), diagnosis.PhaseDead)
	w.step(p, w.stmt(), event.DeadLetter, true, "UPDATE job %d SET status = 'dead' WHERE run %s: 1 row changed", a.Job, w.run)
	w.say(event.Say, "job %d received %d times, more than --max-attempts %d: moved to the dead-letter queue", a.Job, n, a.MaxAttempts)
	w.ok = true
	return true
}

// releaseSteps are the steps of the worker's release after its ack: its
// claim's own, or with --release any the DELETE that does not check the
// owner.
func (w *worker) releaseSteps() []queue.Step {
	if w.args.Release == lang.ReleaseAny {
		return w.args.Claim.ReleaseAny()
	}
	return w.args.Claim.Release()
}
