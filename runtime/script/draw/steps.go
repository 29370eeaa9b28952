package draw

import (
	"strings"

	"github.com/twice-lab/twice/runtime/event"
	"github.com/twice-lab/twice/runtime/script/result"
)

// steps lays the trace out on the step axis: one step per event of a
// worker, in the trace's order. A step is folded when it is not a step of
// an ordering as package explore counts them (and the scheduler board
// shows them): a process starting, a clock read, a log line, a connect,
// the answer, a line printed, and a worker's reads after its claim (they
// belong to its receipt). What the receipts service records is not a
// step: it marks the request it answers. A key statement the service runs
// on a request's arrival is part of that request's step.
func steps(r *result.Result, lanes []string) *result.Steps {
	out := &result.Steps{Lanes: lanes, BothFree: -1}
	claimed := map[string]bool{} // a worker past its claim, won or lost
	free := map[string]bool{}    // workers whose read found the job queued
	send := map[string]int{}     // the step of a run's last request
	open := map[string]int{}     // a worker's span, as its index in Spans
	seen := map[string]int{}     // effects per order and event
	timed := true
	for i, e := range r.Trace {
		switch e.Kind {
		case event.Sleep, event.Redeliver, event.Heartbeat, event.Process, event.Stall, event.Timeout, event.Kill, event.LeaseLost, event.Deploy:
			timed = false
		}
		switch e.Kind.Lane() {
		case event.LaneShell:
			if e.Kind == event.Reset {
				clear(claimed)
				clear(free)
				clear(seen)
			}
			continue
		case event.LaneReceipts:
			if e.Effect == nil {
				continue
			}
			mark := e.Kind.String()
			if e.Kind == event.Effect {
				key := e.Effect.Order + "\x00" + e.Effect.Event
				if seen[key]++; seen[key] > 1 {
					mark = "duplicate"
				}
			}
			if k, ok := send[e.Effect.Run]; ok && out.Steps[k].Mark == "" {
				out.Steps[k].Mark = mark
			}
			continue
		}
		if e.Kind == event.KeyCheck || e.Kind == event.KeyClaim {
			if k, ok := send[e.Run]; ok && k == len(out.Steps)-1 {
				continue // the request's own step
			}
		}
		st := result.Step{Event: i, Lane: e.Proc, Label: stepLabel(e), What: e.Step, Fold: folded(e, claimed[e.Proc])}
		if _, said, ok := strings.Cut(e.Step, ": "); ok {
			st.Said = said
		}
		k := len(out.Steps)
		switch e.Kind {
		case event.Select:
			if !claimed[e.Proc] && strings.Contains(e.Step, "status=queued") {
				free[e.Proc] = true
				if len(free) == 2 && out.BothFree < 0 {
					out.BothFree = k
				}
			}
		case event.Claim:
			claimed[e.Proc] = true
			open[e.Proc] = len(out.Spans)
			out.Spans = append(out.Spans, result.Span{Lane: e.Proc, From: k, To: k})
		case event.ClaimFailed:
			claimed[e.Proc] = true
			st.Mark = "lost"
		case event.Send:
			send[e.Run] = k
		case event.Commit:
			if e.Effect != nil { // a ledger row: the effect lands here
				st.Mark = "effect"
				key := e.Effect.Order + "\x00" + e.Effect.Event
				if seen[key]++; seen[key] > 1 {
					st.Mark = "duplicate"
				}
			}
		}
		if sp, ok := open[e.Proc]; ok && !st.Fold {
			switch e.Kind {
			case event.Ack, event.AckRefused, event.DeadLetter, event.Commit, event.Rollback, event.Kill, event.LeaseLost, event.Send:
				out.Spans[sp].To = k
			}
			if e.Kind == event.Lock && strings.HasPrefix(e.Step, "DELETE") {
				delete(open, e.Proc) // the release, after the ack
			}
		}
		out.Steps = append(out.Steps, st)
	}
	if len(out.Steps) == 0 {
		return nil
	}
	out.Scale = "time"
	if timed && len(lanes) > 1 {
		out.Scale = "steps"
	}
	return out
}

// folded reports whether a worker's event is folded on the step axis
// (see steps); claimed: the worker is past its claim.
func folded(e result.Event, claimed bool) bool {
	switch e.Kind {
	case event.Start, event.Clock, event.Log, event.Connect, event.Answer, event.Say, event.Busy, event.Process, event.Stall:
		return true
	case event.Select:
		return claimed
	}
	return false
}

// stepLabel is the step's short name on the axis: the statement's verb
// (SELECT, UPDATE, INSERT, DELETE, BEGIN, COMMIT), POST for a request,
// ack for the ack, else the kind's name.
func stepLabel(e result.Event) string {
	switch e.Kind {
	case event.Ack:
		return "ack"
	case event.AckRefused:
		return "ack refused"
	case event.Send:
		return "POST"
	}
	if folded(e, false) {
		return e.Kind.String()
	}
	verb, _, _ := strings.Cut(e.Step, " ")
	verb = strings.TrimRight(verb, ":")
	if len(verb) >= 3 && strings.ToUpper(verb) == verb && strings.ToLower(verb) != verb {
		return verb
	}
	return e.Kind.String()
}
