// Package receipts is the downstream service that witnesses side effects.
//
// Every worker sends one receipt per job: that request is the side effect
// the lab counts. The service records a request the moment it arrives,
// before it does anything else, and only then waits out its configured
// delay and answers. It is the only honest witness: a client that gave up
// waiting still caused an effect if its request arrived.
//
// [Service.Post] plays one request from inside a simulated process: the hop
// to the service, the recording on arrival (one atomic step, so arrivals of
// concurrent workers interleave), the delay, the hop back, and the client's
// timeout. It never reads the wall clock; all time is the kernel's.
//
// A request may carry a fencing token (the attempt number its run claimed
// the job with). The service remembers the highest token it has seen for
// each order and refuses a lower one on arrival: a refused request is kept
// in the record, marked Refused, but it is not an effect.
package receipts

import (
	"github.com/twice-lab/twice/runtime/sim"
)

// Effect is one recorded request.
type Effect struct {
	Order   string
	Job     int64
	Run     string
	Attempt int
	Send    int // 1 for the first send of a run, 2 for its retry, ...
	Worker  string
	At      sim.Time
	// Token is the fencing token the request carried, 0 for none.
	Token int
	// Refused marks a request whose token was lower than one the service
	// had already seen for the order: recorded, but no effect.
	Refused bool
}

// Request is what a worker sends.
type Request struct {
	Order   string
	Job     int64
	Run     string
	Attempt int
	Send    int
	Worker  string
	// Delay is how long the service takes to answer this request.
	Delay sim.Time
	// Timeout is how long the client waits for the answer.
	Timeout sim.Time
	// Token is a fencing token, or 0 to send none.
	Token int
}

// Outcome is what the client saw of one request.
type Outcome int

const (
	Answered Outcome = iota // the service answered in time
	TimedOut                // the client gave up waiting (the request may have landed)
	Refused                 // the service refused a stale fencing token
)

// The network, in µs: opening a connection to the service (the client's
// timeout covers it), and one hop of a loopback HTTP request.
const (
	DialMin sim.Time = 300
	DialMax sim.Time = 2500
	HopMin  sim.Time = 200
	HopMax  sim.Time = 700
)

// Proc is the name the service's events carry in a trace.
const Proc = "receipts"

// Service records effects.
type Service struct {
	effects []Effect
	fence   map[string]int // order -> highest fencing token seen
}

// Effects returns the effects recorded since the last Reset, in order of
// arrival.
func (s *Service) Effects() []Effect { return s.effects }

// Reset forgets every recorded effect.
func (s *Service) Reset() {
	s.effects = s.effects[:0]
	clear(s.fence)
}

// Landed counts the recorded requests that were effects (not refused).
func (s *Service) Landed() int {
	n := 0
	for _, e := range s.effects {
		if !e.Refused {
			n++
		}
	}
	return n
}

// Highest returns the highest fencing token seen for order.
func (s *Service) Highest(order string) int { return s.fence[order] }

// Post sends req from process p and reports what the client saw: the
// answer in time, a timeout, or a refusal. On a timeout it returns at
// exactly send time + req.Timeout; the effect may well have been recorded
// already.
// A timeout shorter than the dial and the hop still lets the request
// arrive: the client gives up on the answer, not on the bytes it sent.
func (s *Service) Post(p *sim.Proc, req Request) Outcome {
	k := p.Kernel()
	sent := p.Now()
	p.Step(k.Between(DialMin, DialMax), "connect", "connect to receipts")
	p.Step(k.Between(HopMin, HopMax), "send", "POST receipt for %s (send %d)", req.Order, req.Send)
	// Arrival: the service records before anything else.
	e := Effect{
		Order: req.Order, Job: req.Job, Run: req.Run, Attempt: req.Attempt,
		Send: req.Send, Worker: req.Worker, At: p.Now(), Token: req.Token,
	}
	outcome, status, delay := Answered, "200", req.Delay
	if req.Token > 0 {
		if high := s.fence[req.Order]; req.Token < high {
			e.Refused = true
			s.effects = append(s.effects, e)
			k.Record(Proc, "refused", e, "refused %s from run %s: fencing token %d is older than %d", req.Order, req.Run, req.Token, high)
			outcome, status, delay = Refused, "409 (stale fencing token)", 0
		} else {
			if s.fence == nil {
				s.fence = map[string]int{}
			}
			s.fence[req.Order] = req.Token
		}
	}
	if !e.Refused {
		s.effects = append(s.effects, e)
		k.Record(Proc, "effect", e, "recorded %s from run %s a%d s%d", req.Order, req.Run, req.Attempt, req.Send)
	}
	answered := p.Now() + delay + k.Between(HopMin, HopMax)
	if deadline := sent + req.Timeout; answered > deadline {
		p.SleepUntil(deadline)
		k.Record(p.Name(), "timeout", nil, "POST TimeoutError after %d ms", req.Timeout/sim.Millisecond)
		return TimedOut
	}
	p.SleepUntil(answered)
	k.Record(p.Name(), "answer", nil, "POST answered %s", status)
	return outcome
}
