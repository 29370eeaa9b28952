package interp

import (
	"errors"
	"fmt"

	"github.com/twice-lab/twice/runtime/event"
	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/receipts"
	"github.com/twice-lab/twice/runtime/script/diagnosis"
	"github.com/twice-lab/twice/runtime/script/lang"
	"github.com/twice-lab/twice/runtime/script/result"
	"github.com/twice-lab/twice/runtime/sim"
)

// worker is one execution of one job: a simulated process with its own
// database connection and its own run id.
type worker struct {
	in   *interp
	args lang.WorkArgs
	conn *queue.Conn
	run  string
	gate sim.Time // if set, wait until this instant (a race's shared start)
	proc *sim.Proc

	rec *diagnosis.Record // what this run did, once it has claimed the job
	// beat is the instant of the last renewal (or of the claim): the
	// heartbeat timer fires every WorkArgs.Heartbeat after it.
	beat sim.Time
	// claimedAt is the instant the run's claim was written.
	claimedAt sim.Time
	lost      bool  // a renewal found another run holding the job
	awaiting  bool  // its request has been handled and it waits for the answer
	ok        bool  // finished its work and acked
	err       error // a runtime error that stops the script
	died      bool  // a statement failed with SQLITE_BUSY and the worker died of it
	claimTx   bool  // the worker is inside its claim's transaction
	// waitFrom is when the write now waiting for the lock first found it
	// held (see busyWait).
	waitFrom sim.Time

	life lifecycle // a deploy's signals (lifecycle.go)
}

// workerData is the trace payload of a worker's event.
type workerData struct {
	run    string
	job    *result.Job
	effect *result.Effect // a ledger row committed by this step
}

// step records one atomic step of the worker and yields for cost. A step
// that wrote the job row carries the row as it now stands.
func (w *worker) step(p *sim.Proc, cost sim.Time, kind event.Kind, wrote bool, format string, args ...any) {
	var job *result.Job
	switch {
	case wrote && w.claimTx && w.conn.InTx() && w.in.k.Tracing():
		// The claim's own transaction: its write is visible to its
		// connection only, until COMMIT.
		if r, err := w.conn.Read(w.args.Job); err == nil {
			job = &result.Job{ID: w.args.Job, Order: r.Order, Event: r.Event, Status: r.Status, Attempts: r.Attempts, Run: r.Run, LeaseUS: r.Lease}
		}
	case wrote:
		job = w.in.observe(w.args.Job)
	}
	p.Kernel().Record(w.args.Worker, kind, workerData{run: w.run, job: job}, format, args...)
	p.Sleep(cost)
}

// say prints one line of the worker to the transcript and the trace.
func (w *worker) say(kind event.Kind, format string, args ...any) {
	w.in.print("%s run %s: %s", w.args.Worker, w.run, fmt.Sprintf(format, args...))
	w.in.k.Record(w.args.Worker, kind, workerData{run: w.run}, format, args...)
}

// stall freezes the worker for --stall, after its last lease check and
// before its effect: no heartbeats, no work.
func (w *worker) stall(p *sim.Proc) {
	if d := w.args.Stall; d > 0 {
		w.rec.Enter(w.in.k.Now(), diagnosis.PhaseStalled)
		w.step(p, d, event.Stall, false, "frozen for %d ms (a pause: no heartbeats, no work)", d/sim.Millisecond)
	}
}

func (w *worker) stmt() sim.Time { return w.in.k.Between(stmtMin, stmtMax) }

// body is the worker's process. Every SQL statement, clock read, log write
// and request is one atomic step; between steps other processes may run.
// Its stages: claim the job, read back the attempt, do the job's own work
// (processing, with heartbeats), send the receipt, ack.
func (w *worker) body(p *sim.Proc) {
	k := p.Kernel()
	a := w.args
	defer func() {
		delete(w.in.running, a.Worker)
		w.in.untrack(w)
	}()

	w.step(p, k.Between(startMin, startMax), event.Start, false, "start run %s", w.run)
	if w.gate != 0 {
		p.SleepUntil(w.gate + k.Between(0, skewMax))
	}
	w.execute(p)
}

// execute is one execution of the job, from the claim to the ack.
func (w *worker) execute(p *sim.Proc) {
	a := w.args
	w.conn.Wait = w.busyWait(p)
	if w.stopsOnTerm() {
		return
	}
	row, claimed := w.claimInTxn(p)
	if w.err != nil || w.died {
		return
	}
	if !claimed {
		w.say(event.Say, "%s", w.notMine(p, row))
		w.ok = true
		return
	}

	// Read back what the claim wrote: the attempt number and the order.
	got, err := w.conn.Read(a.Job)
	if err != nil {
		w.fail(err)
		return
	}
	w.step(p, w.stmt(), event.Select, false, "SELECT job %d: attempts=%d", a.Job, got.Attempts)
	if got.Attempts > 1 {
		w.in.m.poll() // a reclaim: some run claimed this job before
	}
	if w.deadLetter(p, got) {
		return
	}

	if a.Effect == lang.EffectLedger {
		w.ledger(p, got)
		w.release(p)
		return
	}
	if a.CrashBeforeEffect {
		w.rec.Enter(w.in.k.Now(), diagnosis.PhaseKilled)
		w.say(event.Kill, "killed before the receipt")
		return
	}
	if !w.process(p) {
		w.release(p)
		return
	}
	w.stall(p)
	answered, refused := w.send(p, got)
	if !answered && !refused {
		w.rec.Enter(w.in.k.Now(), diagnosis.PhaseEnded)
		w.release(p)
		return
	}
	if answered {
		if w.rec.Replayed {
			w.say(event.Say, "receipt sent for %s: the service replayed the first answer (key %s)", got.Order, w.rec.Key)
		} else {
			w.say(event.Say, "receipt sent for %s", got.Order)
		}
	}
	if w.lost {
		w.release(p) // the heartbeat found the lease gone during the call
		return
	}
	if a.CrashBeforeAck {
		w.rec.Enter(w.in.k.Now(), diagnosis.PhaseKilled)
		w.say(event.Kill, "killed before the ack")
		return
	}
	w.ack(p)
	w.release(p)
}

// release runs its claim's release steps (a lock's) as a lock helper's
// finally does: after the ack, or when the worker stops without one. A
// killed worker runs no finally: its lock lapses.
func (w *worker) release(p *sim.Proc) {
	if w.err != nil || w.died || w.rec == nil {
		return
	}
	for _, st := range w.releaseSteps() {
		o, err := w.conn.RunStep(st, queue.Values{Job: w.args.Job, Run: w.run})
		if err != nil {
			w.fail(err)
			return
		}
		w.step(p, w.stmt(), event.Lock, false, "%s", st.TraceLine(w.args.Job, w.run, o))
	}
}

// busyWait is the busy handler: a write that finds the lock held waits a
// statement's time and tries again, until the busy timeout has passed.
func (w *worker) busyWait(p *sim.Proc) func() error {
	if w.args.BusyTimeout == 0 {
		return nil
	}
	return func() error {
		if w.conn.Waits == 1 {
			w.waitFrom = p.Now()
		}
		if p.Now()-w.waitFrom >= w.args.BusyTimeout {
			return &queue.BusyError{Why: fmt.Sprintf("another connection's transaction held the write lock past the busy timeout of %d ms", w.args.BusyTimeout/sim.Millisecond)}
		}
		w.step(p, w.stmt(), event.Busy, false, "database is locked by another connection's transaction: waiting")
		return nil
	}
}

// claimInTxn takes the job as claim does, in the transaction --txn names
// (queue.ClaimTx), and COMMITs whether the claim took the job or not.
func (w *worker) claimInTxn(p *sim.Proc) (queue.Row, bool) {
	tx := w.conn.ClaimTx(w.args.Txn)
	if ran, err := tx.Open(); err != nil {
		w.failAt("BEGIN IMMEDIATE", err)
		return queue.Row{}, false
	} else if ran {
		w.step(p, w.stmt(), event.Begin, false, "BEGIN IMMEDIATE, for the claim: the database's write lock is mine")
	}
	w.claimTx = true
	row, ok := w.claim(p, tx)
	w.claimTx = false
	if w.err != nil || w.died {
		return row, ok
	}
	if ran, err := tx.Close(); err != nil {
		w.fail(err)
		return row, false
	} else if ran {
		w.step(p, w.stmt(), event.Commit, ok, "COMMIT, of the claim")
	}
	return row, ok
}

// claim takes the job by running its claim's steps in order, each one
// atomic step, and reports whether it did, with the job row as last read
// when it did not. A step's condition is decided at the worker's next step
// that is not a clock read (the read claim's SELECT is judged with the
// instant read after it), or after the last. A worker that lost at a step
// that did not read the job reads it once more, to say why.
func (w *worker) claim(p *sim.Proc, tx *queue.ClaimTx) (queue.Row, bool) {
	k := p.Kernel()
	a := w.args
	v := queue.Values{Job: a.Job, Run: w.run}
	var row queue.Row
	read := false // row holds what the last step read
	pending := -1 // the step whose condition is still to decide
	var out queue.Outcome
	steps := a.Claim.Steps()
	if len(steps) == 0 {
		// A claim outside the list must not run as another:
		// TestEveryClaimRuns reaches this line for one.
		w.fail(fmt.Errorf("work: claim %s has no steps in the worker", a.Claim))
		return row, false
	}
	lost := func() bool {
		if pending < 0 {
			return false
		}
		st := steps[pending]
		pending = -1
		return !st.Decide(out, v.Now)
	}
	for i, st := range steps {
		if st.Kind == queue.StepClock {
			v.Now = p.ReadClock(k.Between(clockMin, clockMax))
			v.Until = v.Now + a.Lease
			continue
		}
		if lost() {
			return w.whyLost(p, row, read)
		}
		if st.Kind == queue.StepAwait {
			p.Kernel().Record(a.Worker, event.Await, workerData{run: w.run}, "%s", st.TraceLine(a.Job, w.run, queue.Outcome{}))
			p.Sleep(k.Between(sim.Time(st.Await[0]), sim.Time(st.Await[1])))
			continue
		}
		err := tx.Before(st)
		if by := w.in.wBy; err == nil && a.BusyTimeout == 0 && st.Writes() && !w.conn.InTx() && by != a.Worker && w.in.wUntil > p.Now() {
			err = &queue.BusyError{Why: by + "'s write is in progress, and there is no busy timeout"}
		}
		var o queue.Outcome
		if err == nil {
			o, err = w.conn.RunStep(st, v)
		}
		if err != nil {
			w.failAt(st.Name(a.Job, w.run), err)
			return row, false
		}
		cost := w.stmt()
		if st.Writes() {
			w.in.wBy, w.in.wUntil = a.Worker, p.Now()+cost
		}
		out, pending = o, i
		if st.Reads == queue.ReadsJob {
			row, read = o.Row, true
		}
		mine := st.Decide(o, v.Now)
		last := i == len(steps)-1
		if last && mine {
			w.claimed(p, v.Until)
		}
		kind, wrote := stepEvent(st, mine)
		w.step(p, cost, kind, wrote, "%s", st.TraceLine(a.Job, w.run, o))
	}
	if lost() {
		return w.whyLost(p, row, read)
	}
	return row, true
}

// stepEvent is the trace's kind for a claim step, and whether it wrote
// the job row (a claim's step that took it, which the trace shows).
func stepEvent(st queue.Step, mine bool) (event.Kind, bool) {
	switch st.Model {
	case queue.ModelReadJob, queue.ModelReadLock:
		return event.Select, false
	case queue.ModelTakeJob, queue.ModelTakeUndone, queue.ModelClaimJob:
		if mine {
			return event.Claim, true
		}
		return event.ClaimFailed, false
	}
	if !mine {
		return event.ClaimFailed, false
	}
	return event.Lock, false
}

// whyLost returns the job row for a worker that lost its claim: the one
// its claim read last, or, when its last step did not read it, the row
// read once more (no such job, done, or held by another run).
func (w *worker) whyLost(p *sim.Proc, row queue.Row, read bool) (queue.Row, bool) {
	if read {
		return row, false
	}
	row, err := w.conn.Read(w.args.Job)
	if err != nil {
		w.fail(err)
		return row, false
	}
	w.step(p, w.stmt(), event.Select, false, "SELECT job %d: status=%s", w.args.Job, row.Status)
	return row, false
}

// notMine says why a claim that lost did not take the job, from the job
// row it read last: done, in the dead-letter queue, claimed by another
// run, or, for a job that was free to take, held by its lock row (a lock
// a killed holder or a late inserter left, until it lapses).
func (w *worker) notMine(p *sim.Proc, row queue.Row) string {
	job := w.args.Job
	switch {
	case row.Status == "done":
		return fmt.Sprintf("job %d already done", job)
	case row.Status == "dead":
		return fmt.Sprintf("job %d is in the dead-letter queue", job)
	case !row.Claimable(p.Now()) || !w.args.Claim.Locks():
		return fmt.Sprintf("job %d already claimed", job)
	}
	locks, err := w.conn.Locks()
	if err != nil {
		w.fail(err)
		return fmt.Sprintf("job %d already claimed", job)
	}
	for _, l := range locks {
		if l.Job == job {
			return fmt.Sprintf("job %d is free (status=%s), but its lock is held by run %s until %d ms", job, row.Status, l.Owner, l.Until/sim.Millisecond)
		}
	}
	return fmt.Sprintf("job %d already claimed", job)
}

// claimed notes, as evidence for the diagnosis, that this run took the job
// at the current instant with a lease to expire at lease, and what the run
// that held the job before was doing then.
func (w *worker) claimed(p *sim.Proc, lease sim.Time) {
	w.rec = w.in.hist.Claimed(w.run, w.args.Worker, w.args.Job, p.Now(), lease)
	w.rec.Heartbeat = w.args.Heartbeat > 0
	w.rec.Delay, w.rec.Processing = w.args.Delay, w.args.Processing
	w.rec.MaxAttempts = w.args.MaxAttempts
	w.beat, w.claimedAt = p.Now(), p.Now()
}

// process does the job's own work for WorkArgs.Processing, renewing the
// lease every WorkArgs.Heartbeat while it does. It reports false when a
// renewal found the lease gone: the worker then stops before the receipt.
// With heartbeats on, the last renewal is the worker's last lease check
// before it sends.
func (w *worker) process(p *sim.Proc) bool {
	a := w.args
	if a.Processing == 0 && a.Heartbeat == 0 {
		return true
	}
	if a.Processing > 0 {
		w.rec.Enter(w.in.k.Now(), diagnosis.PhaseProcessing)
		p.Kernel().Record(a.Worker, event.Process, workerData{run: w.run}, "working on job %d for %d ms", a.Job, a.Processing/sim.Millisecond)
	}
	left := a.Processing
	for {
		chunk := left
		if a.Heartbeat > 0 && a.Heartbeat < chunk {
			chunk = a.Heartbeat
		}
		if chunk > 0 {
			p.Sleep(chunk)
			left -= chunk
		}
		if a.Heartbeat > 0 && !w.renew(p, "stopping before the receipt") {
			return false
		}
		if left <= 0 {
			return w.err == nil
		}
	}
}

// renew is one heartbeat: an UPDATE of the lease conditional on this run
// still holding the job. When it finds the lease gone it says so, and
// next: what the worker does about it.
func (w *worker) renew(p *sim.Proc, next string) bool {
	k := p.Kernel()
	a := w.args
	now := p.ReadClock(k.Between(clockMin, clockMax))
	w.beat = now
	ok, err := w.conn.Renew(a.Job, w.run, now+a.Lease)
	if err != nil {
		w.fail(err)
		return false
	}
	if !ok {
		w.step(p, w.stmt(), event.LeaseLost, false, "UPDATE job %d SET lease WHERE run %s: 0 rows changed", a.Job, w.run)
		row, err := w.conn.Read(a.Job)
		if err != nil {
			w.fail(err)
			return false
		}
		w.step(p, w.stmt(), event.Select, false, "SELECT job %d: status=%s run=%s", a.Job, row.Status, row.Run)
		w.lose(fmt.Sprintf("lease lost: %s; %s", w.whereNow(row), next))
		return false
	}
	w.rec.SetLease(now, now+a.Lease)
	w.step(p, w.stmt(), event.Heartbeat, true, "UPDATE job %d SET lease WHERE run %s: 1 row changed", a.Job, w.run)
	// The rest of what the claim holds: a lock's until, renewed with the
	// lease, so that it cannot lapse under a run that is still beating.
	for _, st := range a.Claim.Renew() {
		o, err := w.conn.RunStep(st, queue.Values{Job: a.Job, Run: w.run, Now: now, Until: now + a.Lease})
		if err != nil {
			w.fail(err)
			return false
		}
		mine := st.Decide(o, now)
		kind := event.Heartbeat
		if !mine {
			kind = event.LeaseLost
		}
		w.step(p, w.stmt(), kind, false, "%s", st.Line(a.Job, w.run, o, mine))
		if !mine {
			locks, err := w.conn.Locks()
			if err != nil {
				w.fail(err)
				return false
			}
			owner := "no run"
			for _, l := range locks {
				if l.Job == a.Job {
					owner = "run " + l.Owner
				}
			}
			w.step(p, w.stmt(), event.Select, false, "SELECT owner FROM locks WHERE job = %d: %s", a.Job, owner)
			w.lose(fmt.Sprintf("lock lost: job %d's lock is owned by %s now; %s", a.Job, owner, next))
			return false
		}
	}
	return true
}

// whereNow says where the job is, for a worker whose renewal changed no
// row: held by another run, done or dead-lettered by one, or, when the
// row still names this run, what took the job from it (a re-drive put it
// back, another run's ack marked it done).
func (w *worker) whereNow(row queue.Row) string {
	job := w.args.Job
	switch {
	case row.Status == "running" && row.Run != w.run:
		return fmt.Sprintf("job %d is held by run %s now", job, row.Run)
	case row.Status == "queued":
		return fmt.Sprintf("job %d is back in the queue (status=queued), put back while this run held it", job)
	case row.Status == "done" && row.Run != w.run:
		return fmt.Sprintf("job %d was taken by run %s and is done now", job, row.Run)
	case row.Status == "done":
		return fmt.Sprintf("job %d is marked done already, by an ack that was not this run's", job)
	case row.Status == "dead" && row.Run != w.run:
		return fmt.Sprintf("job %d is in the dead-letter queue, moved there by run %s's claim", job, row.Run)
	case row.Status == "dead":
		return fmt.Sprintf("job %d is in the dead-letter queue", job)
	}
	return fmt.Sprintf("job %d is %s, run %s", job, row.Status, row.Run)
}

// lose stops the worker at a renewal that found what it claimed taken,
// and says so.
func (w *worker) lose(said string) {
	w.lost = true
	w.rec.Enter(w.in.k.Now(), diagnosis.PhaseLost)
	w.say(event.Say, "%s", said)
}

// await is how the worker waits for the service's reply until instant t:
// its heartbeat timer runs for the whole handler, so while the call is
// out it goes on renewing the lease every WorkArgs.Heartbeat. A renewal
// that finds the lease gone stops the timer; the worker will not ack.
func (w *worker) await(p *sim.Proc, t sim.Time) {
	a := w.args
	w.awaiting = true
	for a.Heartbeat > 0 && !w.lost && w.err == nil && w.beat+a.Heartbeat < t {
		p.SleepUntil(w.beat + a.Heartbeat)
		w.renew(p, "the receipt is already out; no ack")
	}
}

// send appends to worker.log and posts the receipt, retrying once on a
// client timeout. It reports whether an answer came back, and whether the
// service refused the request's fencing token.
func (w *worker) send(p *sim.Proc, got queue.Row) (answered, refused bool) {
	k := p.Kernel()
	a := w.args
	w.rec.Enter(w.in.k.Now(), diagnosis.PhaseSending)
	token := 0
	if a.Fence {
		token = got.Attempts
	}
	key, ok := a.Key.Of(receipts.Delivery{Event: got.Event, Job: a.Job, Order: got.Order, Run: w.run, Attempt: got.Attempts})
	if !ok {
		w.fail(fmt.Errorf("work: key %s has no value", a.Key))
		return false, false
	}
	for send := 1; ; send++ {
		line := "sending receipt for " + got.Order
		if a.Trace {
			line = fmt.Sprintf("[run %s attempt %d] %s", w.run, got.Attempts, line)
		}
		w.in.log = append(w.in.log, line)
		w.in.m.log += len(line) + 1
		w.step(p, k.Between(logMin, logMax), event.Log, false, "append to worker.log: %s", line)
		w.rec.Key = key
		delay := a.Delay
		if send > 1 {
			delay = 0 // the retry goes out without the injected delay
		}
		out := w.in.svc.Post(p, receipts.Request{
			Order: got.Order, Job: a.Job, Run: w.run, Attempt: got.Attempts, Send: send,
			Worker: a.Worker, Delay: delay, Timeout: a.Timeout, Token: token,
			Event: got.Event, Key: key, Await: w.await,
		})
		w.awaiting = false
		if err := w.in.svc.Err(); err != nil {
			w.fail(err)
			return false, false
		}
		switch out {
		case receipts.Answered:
			return true, false
		case receipts.Replayed:
			w.rec.Replayed = true
			return true, false
		case receipts.Refused:
			w.rec.Enter(w.in.k.Now(), diagnosis.PhaseRefused)
			w.say(event.Say, "receipt refused: fencing token %d is older than %d", token, w.in.svc.Highest(got.ID))
			return false, true
		}
		if send == 2 {
			w.say(event.Say, "POST TimeoutError, giving up")
			return false, false
		}
		w.say(event.Say, "POST TimeoutError, retrying")
	}
}

// ack marks the job done: unconditionally, or with --fence only if this
// run still holds it.
func (w *worker) ack(p *sim.Proc) {
	a := w.args
	if !a.Fence {
		ok, err := w.conn.Ack(a.Job)
		if err != nil {
			w.fail(err)
			return
		}
		if !ok {
			w.step(p, w.stmt(), event.AckRefused, false, "UPDATE job %d: done WHERE not dead: 0 rows changed", a.Job)
			w.rec.Enter(w.in.k.Now(), diagnosis.PhaseEnded)
			w.say(event.Say, "ack changed nothing: job %d is in the dead-letter queue", a.Job)
			return
		}
		w.rec.Enter(w.in.k.Now(), diagnosis.PhaseAcked)
		w.step(p, w.stmt(), event.Ack, true, "UPDATE job %d: done", a.Job)
		w.ok = true
		return
	}
	ok, err := w.conn.AckRun(a.Job, w.run)
	if err != nil {
		w.fail(err)
		return
	}
	if ok {
		w.rec.Enter(w.in.k.Now(), diagnosis.PhaseAcked)
		w.step(p, w.stmt(), event.Ack, true, "UPDATE job %d: done WHERE run %s: 1 row changed", a.Job, w.run)
		w.ok = true
		return
	}
	w.step(p, w.stmt(), event.AckRefused, false, "UPDATE job %d: done WHERE run %s: 0 rows changed", a.Job, w.run)
	row, err := w.conn.Read(a.Job)
	if err != nil {
		w.fail(err)
		return
	}
	w.step(p, w.stmt(), event.Select, false, "SELECT job %d: status=%s run=%s", a.Job, row.Status, row.Run)
	w.rec.Enter(w.in.k.Now(), diagnosis.PhaseEnded)
	w.say(event.Say, "ack refused: job %d belongs to run %s", a.Job, row.Run)
}

func (w *worker) fail(err error) { w.failAt("a write", err) }

// failAt is fail for statement what: SQLITE_BUSY kills the worker (its
// transaction goes with it, the job stays as it was); another stops the script.
func (w *worker) failAt(what string, err error) {
	if errors.Is(err, queue.ErrBusy) {
		why := "another connection's transaction holds the write lock, and there is no busy timeout"
		var b *queue.BusyError
		if errors.As(err, &b) {
			why = b.Why
		}
		w.died = true
		if err := w.conn.Rollback(); err != nil {
			w.err = err
			return
		}
		w.say(event.Kill, "%s: %s (%s): the worker dies of the error; job %d stays as it was, for another delivery", what, queue.BusyText, why, w.args.Job)
		return
	}
	if errors.Is(err, queue.ErrNoJob) {
		err = fmt.Errorf("work: job %d does not exist", w.args.Job)
	}
	w.err = err
}

// ledgerKey is the idempotency key a ledger write claims: the producer's
// event id, the one value every delivery of the job and every publish of
// the same event carry.
func ledgerKey(got queue.Row) string { return got.Event }

// ledger is the rest of an execution whose effect is a row in the queue's
// own database: the key's claim, the ledger row and the ack, in one real
// transaction on the worker's connection (or, with --key-txn separate, the
// key first in a transaction of its own). Every statement is one step, so
// other workers run between them; a kill inside the transaction rolls it
// back, as SQLite does when the connection that opened it dies.
func (w *worker) ledger(p *sim.Proc, got queue.Row) {
	a := w.args
	key := ledgerKey(got)
	if a.KeyTxn == lang.KeyTxnSeparate {
		if !w.begin(p) {
			return
		}
		took, ok := w.claimKey(p, key)
		if !ok || !w.commit(p, "the key alone") {
			return
		}
		if !took {
			w.keyHit(p, key, false)
			return
		}
	}
	if a.CrashBeforeEffect {
		w.rec.Enter(w.in.k.Now(), diagnosis.PhaseKilled)
		if a.KeyTxn == lang.KeyTxnSeparate {
			w.say(event.Kill, "killed before the effect: key %s is committed and no ledger row will follow (lost work)", key)
		} else {
			w.say(event.Kill, "killed before the ledger transaction began: nothing written")
		}
		return
	}
	if !w.process(p) {
		return
	}
	w.stall(p)
	w.rec.Enter(w.in.k.Now(), diagnosis.PhaseSending)
	if !w.begin(p) {
		return
	}
	if a.KeyTxn == lang.KeyTxnSame {
		took, ok := w.claimKey(p, key)
		if !ok {
			return
		}
		if !took {
			w.keyHit(p, key, true)
			return
		}
	}
	if err := w.conn.AddLedger(queue.LedgerRow{Key: key, Order: got.Order, Job: a.Job, Run: w.run, Attempt: got.Attempts}); err != nil {
		w.fail(err)
		return
	}
	w.step(p, w.stmt(), event.Ledger, false, "INSERT INTO ledger: %s, run %s, attempt %d (not yet committed)", got.Order, w.run, got.Attempts)
	if a.CrashBeforeAck {
		w.kill(p, "killed before the ack, inside the transaction")
		return
	}
	if !w.ackInTx(p) {
		return
	}
	if a.CrashBeforeCommit {
		w.kill(p, "killed before COMMIT")
		return
	}
	what := "the key, the ledger row and the ack"
	if a.KeyTxn == lang.KeyTxnSeparate {
		what = "the ledger row and the ack"
	}
	if !w.commitRow(p, what, &result.Effect{Order: got.Order, Job: a.Job, Run: w.run, Attempt: got.Attempts, Worker: a.Worker, Event: got.Event, Key: key, Ledger: true}) {
		return
	}
	w.rec.Enter(w.in.k.Now(), diagnosis.PhaseAcked)
	w.ok = true
	if a.KeyTxn == lang.KeyTxnSame {
		w.say(event.Say, "ledger row written for %s: key, row and ack in one COMMIT", got.Order)
	} else {
		w.say(event.Say, "ledger row written for %s: row and ack in one COMMIT, after the key's own", got.Order)
	}
}

// begin opens the worker's transaction.
func (w *worker) begin(p *sim.Proc) bool {
	if err := w.conn.Begin(); err != nil {
		w.fail(err)
		return false
	}
	w.step(p, w.stmt(), event.Begin, false, "BEGIN IMMEDIATE")
	return true
}

// commit commits the worker's transaction.
func (w *worker) commit(p *sim.Proc, what string) bool { return w.commitRow(p, what, nil) }

// commitRow commits the worker's transaction; row, when not nil, is the
// ledger row it makes visible: the effect, landing at this step.
func (w *worker) commitRow(p *sim.Proc, what string, row *result.Effect) bool {
	if err := w.conn.Commit(); err != nil {
		w.fail(err)
		return false
	}
	k := p.Kernel()
	if row != nil {
		row.AtUS = p.Now()
	}
	k.Record(w.args.Worker, event.Commit, workerData{run: w.run, job: w.in.observe(w.args.Job), effect: row}, "COMMIT: %s now visible", what)
	p.Sleep(w.stmt())
	return true
}

// rollback discards the worker's open transaction.
func (w *worker) rollback(p *sim.Proc, why string) bool {
	if err := w.conn.Rollback(); err != nil {
		w.fail(err)
		return false
	}
	w.step(p, w.stmt(), event.Rollback, true, "ROLLBACK: %s", why)
	return true
}

// claimKey inserts the key with ON CONFLICT DO NOTHING and reports whether
// the insert took; ok is false on an error.
func (w *worker) claimKey(p *sim.Proc, key string) (took, ok bool) {
	took, err := w.conn.ClaimKey(key, w.run)
	if err != nil {
		w.fail(err)
		return false, false
	}
	n := "0 rows changed: the key is taken"
	if took {
		n = "1 row changed (not yet committed)"
	}
	w.step(p, w.stmt(), event.Key, false, "INSERT INTO processed_keys %s ON CONFLICT DO NOTHING: %s", key, n)
	return took, true
}

// keyHit is a duplicate caught by the key: the work was done (or claimed)
// by another run, so this one writes no row and acks. inTx says whether
// the ack goes in the transaction still open.
func (w *worker) keyHit(p *sim.Proc, key string, inTx bool) {
	owner, err := w.conn.KeyOwner(key)
	if err != nil {
		w.fail(err)
		return
	}
	w.step(p, w.stmt(), event.KeyHit, false, "SELECT run FROM processed_keys: %s", owner)
	w.in.keyHits++
	w.say(event.Say, "key %s already processed by run %s: no ledger row (a duplicate-key hit)", key, owner)
	if !inTx {
		w.ack(p)
		return
	}
	if !w.ackInTx(p) || !w.commit(p, "the ack") {
		return
	}
	w.rec.Enter(w.in.k.Now(), diagnosis.PhaseAcked)
	w.ok = true
}

// ackInTx is the ack inside the ledger's transaction: unconditional, or
// with --fence only if this run still holds the job; a refused fenced ack
// rolls the whole transaction back, the ledger row with it.
func (w *worker) ackInTx(p *sim.Proc) bool {
	a := w.args
	if !a.Fence {
		ok, err := w.conn.Ack(a.Job)
		if err != nil {
			w.fail(err)
			return false
		}
		if !ok {
			// The job went to the dead-letter queue: the row and the
			// ack commit together or not at all, so neither does.
			w.step(p, w.stmt(), event.AckRefused, false, "UPDATE job %d: done WHERE not dead: 0 rows changed", a.Job)
			if !w.rollback(p, "the ack changed nothing") {
				return false
			}
			w.rec.Enter(w.in.k.Now(), diagnosis.PhaseEnded)
			w.say(event.Say, "ack changed nothing: job %d is in the dead-letter queue; rolled back, ledger row and all", a.Job)
			return false
		}
		w.step(p, w.stmt(), event.Ack, false, "UPDATE job %d: done (not yet committed)", a.Job)
		return true
	}
	ok, err := w.conn.AckRun(a.Job, w.run)
	if err != nil {
		w.fail(err)
		return false
	}
	if ok {
		w.step(p, w.stmt(), event.Ack, false, "UPDATE job %d: done WHERE run %s: 1 row changed (not yet committed)", a.Job, w.run)
		return true
	}
	w.step(p, w.stmt(), event.AckRefused, false, "UPDATE job %d: done WHERE run %s: 0 rows changed", a.Job, w.run)
	row, err := w.conn.Read(a.Job)
	if err != nil {
		w.fail(err)
		return false
	}
	w.step(p, w.stmt(), event.Select, false, "SELECT job %d: status=%s run=%s", a.Job, row.Status, row.Run)
	if !w.rollback(p, "the ack was refused") {
		return false
	}
	w.rec.Enter(w.in.k.Now(), diagnosis.PhaseEnded)
	w.say(event.Say, "ack refused: job %d belongs to run %s; rolled back, ledger row and all", a.Job, row.Run)
	return false
}

// kill ends the worker inside its open transaction. The process dies with
// its connection, and SQLite discards what the transaction wrote: here, a
// ROLLBACK on that connection.
func (w *worker) kill(p *sim.Proc, what string) {
	w.rec.Enter(w.in.k.Now(), diagnosis.PhaseKilled)
	if err := w.conn.Rollback(); err != nil {
		w.fail(err)
		return
	}
	w.in.k.Record(w.args.Worker, event.Rollback, workerData{run: w.run, job: w.in.observe(w.args.Job)}, "the connection dies with the process: SQLite rolls the open transaction back")
	if w.args.KeyTxn == lang.KeyTxnSeparate {
		w.say(event.Kill, "%s; SQLite rolls the transaction back: no ledger row, no ack, but the key, committed on its own, stays (lost work)", what)
		return
	}
	w.say(event.Kill, "%s; SQLite rolls the transaction back: no key, no ledger row, no ack", what)
}
