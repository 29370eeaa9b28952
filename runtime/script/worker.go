package script

import (
	"errors"
	"fmt"

	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/receipts"
	"github.com/twice-lab/twice/runtime/sim"
)

// worker is one execution of one job: a simulated process with its own
// database connection and its own run id.
type worker struct {
	in   *interp
	args WorkArgs
	conn *queue.Conn
	run  string
	gate sim.Time // if set, wait until this instant (a race's shared start)

	ok  bool  // finished its work and acked
	err error // a runtime error that stops the script
}

// workerData is the trace payload of a worker's event.
type workerData struct {
	run string
	job *Job
}

// step records one atomic step of the worker and yields for cost. A step
// that wrote the job row carries the row as it now stands.
func (w *worker) step(p *sim.Proc, cost sim.Time, kind string, wrote bool, format string, args ...any) {
	var job *Job
	if wrote {
		job = w.in.observe(w.args.Job)
	}
	p.Kernel().Record(w.args.Worker, kind, workerData{w.run, job}, format, args...)
	p.Sleep(cost)
}

// say prints one line of the worker to the transcript and the trace.
func (w *worker) say(kind, format string, args ...any) {
	w.in.print("%s run %s: %s", w.args.Worker, w.run, fmt.Sprintf(format, args...))
	w.in.k.Record(w.args.Worker, kind, workerData{run: w.run}, format, args...)
}

// body is the worker's process. Every SQL statement, clock read, log write
// and request is one atomic step; between steps other processes may run.
func (w *worker) body(p *sim.Proc) {
	k := p.Kernel()
	a := w.args
	stmt := func() sim.Time { return k.Between(stmtMin, stmtMax) }

	w.step(p, k.Between(startMin, startMax), "start", false, "start run %s", w.run)
	if w.gate != 0 {
		p.SleepUntil(w.gate + k.Between(0, skewMax))
	}

	// Claim.
	var claimed bool
	var row queue.Row
	switch a.Claim {
	case "read":
		var err error
		row, err = w.conn.Read(a.Job)
		if err != nil {
			w.fail(err)
			return
		}
		w.step(p, stmt(), "select", false, "SELECT job %d: status=%s", a.Job, row.Status)
		now := p.ReadClock(k.Between(clockMin, clockMax))
		if row.Claimable(now) {
			if err := w.conn.Take(a.Job, w.run, now+a.Lease); err != nil {
				w.fail(err)
				return
			}
			w.step(p, stmt(), "claim", true, "UPDATE job %d: running, run %s (no condition)", a.Job, w.run)
			claimed = true
		}
	default: // lock, atomic
		now := p.ReadClock(k.Between(clockMin, clockMax))
		ok, err := w.conn.Claim(a.Job, w.run, now, now+a.Lease)
		if err != nil {
			w.fail(err)
			return
		}
		claimed = ok
		if ok {
			w.step(p, stmt(), "claim", true, "UPDATE job %d WHERE queued or lease passed: 1 row changed", a.Job)
		} else {
			w.step(p, stmt(), "claim-failed", false, "UPDATE job %d WHERE queued or lease passed: 0 rows changed", a.Job)
			// Find out why: no such job, done, or held by another run.
			if row, err = w.conn.Read(a.Job); err != nil {
				w.fail(err)
				return
			}
			w.step(p, stmt(), "select", false, "SELECT job %d: status=%s", a.Job, row.Status)
		}
	}
	if !claimed {
		if row.Status == "done" {
			w.say("say", "job %d already done", a.Job)
		} else {
			w.say("say", "job %d already claimed", a.Job)
		}
		w.ok = true
		return
	}

	// Read back what the claim wrote: the attempt number and the order.
	got, err := w.conn.Read(a.Job)
	if err != nil {
		w.fail(err)
		return
	}
	w.step(p, stmt(), "select", false, "SELECT job %d: attempts=%d", a.Job, got.Attempts)

	if a.CrashBeforeEffect {
		w.say("kill", "killed before the receipt")
		return
	}
	for send := 1; ; send++ {
		line := "sending receipt for " + got.Order
		if a.Trace {
			line = fmt.Sprintf("[run %s attempt %d] %s", w.run, got.Attempts, line)
		}
		w.in.log = append(w.in.log, line)
		w.step(p, k.Between(logMin, logMax), "log", false, "append to worker.log: %s", line)
		delay := a.Delay
		if send > 1 {
			delay = 0 // the retry goes out without the injected delay
		}
		if w.in.svc.Post(p, receipts.Request{
			Order: got.Order, Run: w.run, Attempt: got.Attempts, Send: send,
			Worker: a.Worker, Delay: delay, Timeout: a.Timeout,
		}) {
			break
		}
		if send == 2 {
			w.say("say", "POST TimeoutError, giving up")
			return
		}
		w.say("say", "POST TimeoutError, retrying")
	}
	w.say("say", "receipt sent for %s", got.Order)

	if a.CrashBeforeAck {
		w.say("kill", "killed before the ack")
		return
	}
	if err := w.conn.Ack(a.Job); err != nil {
		w.fail(err)
		return
	}
	w.step(p, stmt(), "ack", true, "UPDATE job %d: done", a.Job)
	w.ok = true
}

func (w *worker) fail(err error) {
	if errors.Is(err, queue.ErrNoJob) {
		err = fmt.Errorf("work: job %d does not exist", w.args.Job)
	}
	w.err = err
}
