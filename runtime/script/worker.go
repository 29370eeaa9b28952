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

func (w *worker) say(format string, args ...any) {
	w.in.print("%s run %s: %s", w.args.Worker, w.run, fmt.Sprintf(format, args...))
	w.in.k.Record(w.args.Worker, format, args...)
}

// body is the worker's process. Every SQL statement, clock read, log write
// and request is one atomic step; between steps other processes may run.
func (w *worker) body(p *sim.Proc) {
	k := p.Kernel()
	a := w.args
	stmt := func() sim.Time { return k.Between(stmtMin, stmtMax) }

	p.Step(k.Between(startMin, startMax), "start run %s", w.run)
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
		p.Step(stmt(), "SELECT job %d: status=%s lease=%s", a.Job, row.Status, fmtLease(row.Lease))
		now := p.ReadClock(k.Between(clockMin, clockMax))
		if row.Claimable(now) {
			if err := w.conn.Take(a.Job, w.run, now+a.Lease); err != nil {
				w.fail(err)
				return
			}
			p.Step(stmt(), "UPDATE job %d: running, run %s (unconditional)", a.Job, w.run)
			claimed = true
		}
	default: // lock, atomic
		now := p.ReadClock(k.Between(clockMin, clockMax))
		ok, err := w.conn.Claim(a.Job, w.run, now, now+a.Lease)
		if err != nil {
			w.fail(err)
			return
		}
		p.Step(stmt(), "UPDATE job %d WHERE claimable: %d row changed", a.Job, btoi(ok))
		claimed = ok
		if !ok {
			// Find out why: no such job, done, or held by another run.
			if row, err = w.conn.Read(a.Job); err != nil {
				w.fail(err)
				return
			}
			p.Step(stmt(), "SELECT job %d: status=%s", a.Job, row.Status)
		}
	}
	if !claimed {
		if row.Status == "done" {
			w.say("job %d already done", a.Job)
		} else {
			w.say("job %d already claimed", a.Job)
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
	p.Step(stmt(), "SELECT job %d: attempts=%d", a.Job, got.Attempts)

	if a.CrashBeforeEffect {
		w.say("killed before the receipt")
		return
	}
	for send := 1; ; send++ {
		line := "sending receipt for " + got.Order
		if a.Trace {
			line = fmt.Sprintf("[run %s attempt %d] %s", w.run, got.Attempts, line)
		}
		w.in.log = append(w.in.log, line)
		p.Step(k.Between(logMin, logMax), "append worker.log")
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
			w.say("POST TimeoutError, giving up")
			return
		}
		w.say("POST TimeoutError, retrying")
	}
	w.say("receipt sent for %s", got.Order)

	if a.CrashBeforeAck {
		w.say("killed before the ack")
		return
	}
	if err := w.conn.Ack(a.Job); err != nil {
		w.fail(err)
		return
	}
	p.Step(stmt(), "UPDATE job %d: done", a.Job)
	w.ok = true
}

func (w *worker) fail(err error) {
	if errors.Is(err, queue.ErrNoJob) {
		err = fmt.Errorf("work: job %d does not exist", w.args.Job)
	}
	w.err = err
}

func fmtLease(l *int64) string {
	if l == nil {
		return "-"
	}
	return fmt.Sprintf("%dus", *l)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
