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
package receipts

import (
	"github.com/twice-lab/twice/runtime/sim"
)

// Effect is one recorded request.
type Effect struct {
	Order   string
	Run     string
	Attempt int
	Send    int // 1 for the first send of a run, 2 for its retry, ...
	Worker  string
	At      sim.Time
}

// Request is what a worker sends.
type Request struct {
	Order   string
	Run     string
	Attempt int
	Send    int
	Worker  string
	// Delay is how long the service takes to answer this request.
	Delay sim.Time
	// Timeout is how long the client waits for the answer.
	Timeout sim.Time
}

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
}

// Effects returns the effects recorded since the last Reset, in order of
// arrival.
func (s *Service) Effects() []Effect { return s.effects }

// Reset forgets every recorded effect.
func (s *Service) Reset() { s.effects = s.effects[:0] }

// Post sends req from process p and reports whether the answer came back
// before the client's timeout. On a timeout it returns false at exactly
// send time + req.Timeout; the effect may well have been recorded already.
// A timeout shorter than the dial and the hop still lets the request
// arrive: the client gives up on the answer, not on the bytes it sent.
func (s *Service) Post(p *sim.Proc, req Request) bool {
	k := p.Kernel()
	sent := p.Now()
	p.Step(k.Between(DialMin, DialMax), "connect", "connect to receipts")
	p.Step(k.Between(HopMin, HopMax), "send", "POST receipt for %s (send %d)", req.Order, req.Send)
	// Arrival: the service records before anything else.
	e := Effect{
		Order: req.Order, Run: req.Run, Attempt: req.Attempt,
		Send: req.Send, Worker: req.Worker, At: p.Now(),
	}
	s.effects = append(s.effects, e)
	k.Record(Proc, "effect", e, "recorded %s from run %s a%d s%d", req.Order, req.Run, req.Attempt, req.Send)
	answered := p.Now() + req.Delay + k.Between(HopMin, HopMax)
	if deadline := sent + req.Timeout; answered > deadline {
		p.SleepUntil(deadline)
		k.Record(p.Name(), "timeout", nil, "POST TimeoutError after %d ms", req.Timeout/sim.Millisecond)
		return false
	}
	p.SleepUntil(answered)
	k.Record(p.Name(), "answer", nil, "POST answered 200")
	return true
}
