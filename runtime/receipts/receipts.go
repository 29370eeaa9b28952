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
// each job, the thing the token's lease guards, and refuses a lower one on
// arrival: a refused request is kept in the record, marked Refused, but it
// is not an effect. Tokens of two jobs are never compared: a second job for
// the same order is a second event, not a stale holder of the first.
//
// A request may carry an Idempotency-Key. What the service does with it is
// its [Dedupe] mode ([Service.SetDedupe]): nothing (off); check-then-act
// (check: SELECT the key, do the effect, INSERT the key, three steps); or
// claim-first (claim: INSERT ... ON CONFLICT DO NOTHING, and the effect
// only if it took). The keys live in a SQLite table of the service's own
// ([KeyStore]), each statement one atomic step of the request, so other
// requests interleave with them as they would in a real service. A
// request the service deduplicates is kept in the record, marked Replayed,
// and gets the first request's answer back: it is not an effect.
package receipts

import (
	"fmt"

	"github.com/twice-lab/twice/runtime/event"
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
	// Event is the producer's event id the job carried; Key the
	// Idempotency-Key the request sent, "" for none.
	Event string
	Key   string
	// Replayed marks a request whose key the service had already stored:
	// recorded, but no effect; it got back the answer of FirstRun.
	Replayed bool
	FirstRun string
	// KeyState says, for an effect whose request carried a key the service
	// deduplicates on, what the table held for it when the request passed:
	// "new" (no row) or "expired" (a row older than the key TTL).
	KeyState string
	// Dedupe is the service's dedupe mode when the request arrived: what
	// it did with the key then, whatever the mode is set to later.
	Dedupe Dedupe
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
	// Event is the producer's event id; Key the Idempotency-Key, or "".
	Event string
	Key   string
	// Await, when set, is how the client waits for the reply until
	// instant t: a worker whose heartbeat timer keeps renewing its lease
	// meanwhile. It must return at t, not before.
	Await func(p *sim.Proc, t sim.Time)
}

// Outcome is what the client saw of one request.
type Outcome int

const (
	Answered Outcome = iota // the service answered in time
	TimedOut                // the client gave up waiting (the request may have landed)
	Refused                 // the service refused a stale fencing token
	Replayed                // the service had the key: the first answer, again
)

// The network, in µs: opening a connection to the service (the client's
// timeout covers it), and one hop of a loopback HTTP request.
const (
	DialMin sim.Time = 300
	DialMax sim.Time = 2500
	HopMin  sim.Time = 200
	HopMax  sim.Time = 700
)

// One statement on the service's key table, in µs (as the queue's).
const (
	StmtMin sim.Time = 30
	StmtMax sim.Time = 120
)

// Proc is the name the service's events carry in a trace.
const Proc = "receipts"

// Service records effects.
type Service struct {
	effects []Effect
	fence   map[int64]int // job -> highest fencing token seen
	dedupe  Dedupe
	ttl     sim.Time
	keys    *KeyStore // opened when a dedupe mode is first set
	err     error     // the first error of the key table
	// ready holds, for each key claimed in claim mode, the instant its
	// first request's answer is ready: a request with the same key that
	// comes before then finds the key in progress and waits for it.
	ready map[string]sim.Time
}

// SetDedupe sets how the service treats the Idempotency-Key header from
// now on, and how long it remembers a key (0: for ever). The first mode
// other than off opens the key table.
func (s *Service) SetDedupe(d Dedupe, ttl sim.Time) error {
	if !d.Valid() {
		return fmt.Errorf("receipts: dedupe mode %d is not one of Dedupes", d)
	}
	if d != DedupeOff && s.keys == nil {
		ks, err := OpenKeys()
		if err != nil {
			return err
		}
		s.keys = ks
	}
	s.dedupe, s.ttl = d, ttl
	return nil
}

// Dedupe returns the dedupe mode and the key TTL.
func (s *Service) Dedupe() (Dedupe, sim.Time) { return s.dedupe, s.ttl }

// Keys returns the key table, or nil when no dedupe mode was ever set.
func (s *Service) Keys() *KeyStore { return s.keys }

// Err returns the first error the key table returned, if any.
func (s *Service) Err() error { return s.err }

// Close gives the key table back.
func (s *Service) Close() {
	if s.keys != nil {
		s.keys.Put()
		s.keys = nil
	}
}

// Effects returns the effects recorded since the last Reset, in order of
// arrival.
func (s *Service) Effects() []Effect { return s.effects }

// Reset forgets every recorded effect and every stored key; the dedupe
// mode stays.
func (s *Service) Reset() {
	s.effects = s.effects[:0]
	clear(s.fence)
	clear(s.ready)
	if s.keys != nil {
		if err := s.keys.Reset(); err != nil && s.err == nil {
			s.err = err
		}
	}
}

// Landed counts the recorded requests that were effects (neither refused
// nor replayed).
func (s *Service) Landed() int {
	n := 0
	for _, e := range s.effects {
		if e.Effect() {
			n++
		}
	}
	return n
}

// Effect reports whether the recorded request was an effect: neither
// refused nor replayed.
func (e Effect) Effect() bool { return !e.Refused && !e.Replayed }

// Highest returns the highest fencing token seen for job.
func (s *Service) Highest(job int64) int { return s.fence[job] }

// Post sends req from process p and reports what the client saw: the
// answer in time, a timeout, or a refusal. On a timeout it returns at
// exactly send time + req.Timeout; the effect may well have been recorded
// already.
// A timeout shorter than the dial and the hop still lets the request
// arrive: the client gives up on the answer, not on the bytes it sent.
// So does a client killed once the request has left ([sim.Kernel.Kill]):
// the service handles it, and the client dies waiting for the answer.
func (s *Service) Post(p *sim.Proc, req Request) Outcome {
	k := p.Kernel()
	sent := p.Now()
	p.Step(k.Between(DialMin, DialMax), event.Connect, "connect to receipts")
	p.Shield()
	p.Step(k.Between(HopMin, HopMax), event.Send, "POST receipt for %s (send %d)", req.Order, req.Send)
	// Arrival: the service records before anything else.
	e := Effect{
		Order: req.Order, Job: req.Job, Run: req.Run, Attempt: req.Attempt,
		Send: req.Send, Worker: req.Worker, At: p.Now(), Token: req.Token,
		Event: req.Event, Key: req.Key, Dedupe: s.dedupe,
	}
	outcome, status, delay := Answered, "200", req.Delay
	if req.Token > 0 {
		if high := s.fence[req.Job]; req.Token < high {
			e.Refused = true
			s.effects = append(s.effects, e)
			k.Record(Proc, event.Refused, e, "refused %s from run %s: fencing token %d is older than %d", req.Order, req.Run, req.Token, high)
			outcome, status, delay = Refused, "409 (stale fencing token)", 0
		} else {
			if s.fence == nil {
				s.fence = map[int64]int{}
			}
			s.fence[req.Job] = req.Token
		}
	}
	ready := p.Now() + delay // when the answer leaves the service
	if !e.Refused {
		if s.dedupe != DedupeOff && req.Key != "" {
			replayed, at := s.deduplicate(p, &e, delay)
			if replayed {
				outcome, status = Replayed, "200 (replayed)"
			}
			if at != 0 {
				ready = at
			}
		} else {
			s.land(k, e)
		}
	}
	answered := ready + k.Between(HopMin, HopMax)
	if deadline := sent + req.Timeout; answered > deadline {
		req.await(p, deadline)
		k.Record(p.Name(), event.Timeout, nil, "POST TimeoutError after %d ms", req.Timeout/sim.Millisecond)
		return TimedOut
	}
	req.await(p, answered)
	k.Record(p.Name(), event.Answer, nil, "POST answered %s", status)
	return outcome
}

// await waits for the reply until instant t, as the client does.
func (req Request) await(p *sim.Proc, t sim.Time) {
	p.Unshield()
	if req.Await != nil {
		req.Await(p, t)
	}
	p.SleepUntil(t)
}

// Arrived records e, a request that arrived by another way than Post (a
// step of a replayed ordering), at the kernel's instant, as Post records
// one: an effect, a refusal or a replay, as e's flags say. A fencing token
// it carried, unless refused, becomes the highest the service has seen
// for its job.
func (s *Service) Arrived(k *sim.Kernel, e Effect) {
	switch {
	case e.Refused:
		e.At = k.Now()
		s.effects = append(s.effects, e)
		k.Record(Proc, event.Refused, e, "refused %s from run %s: fencing token %d is older than %d", e.Order, e.Run, e.Token, s.fence[e.Job])
		return
	case e.Token > 0:
		if s.fence == nil {
			s.fence = map[int64]int{}
		}
		s.fence[e.Job] = max(s.fence[e.Job], e.Token)
	}
	if e.Replayed {
		s.replay(k, e, e.FirstRun)
		return
	}
	s.land(k, e)
}

// StoreKey stores key for run at the kernel's instant, as the dedupe's
// INSERT does: the requests that follow find it. It does nothing when no
// dedupe mode was ever set (no key table).
func (s *Service) StoreKey(k *sim.Kernel, key, run string) {
	if s.keys != nil {
		s.fail(s.keys.Insert(key, k.Now(), run))
	}
}

// land records e as an effect.
func (s *Service) land(k *sim.Kernel, e Effect) {
	e.At = k.Now()
	s.effects = append(s.effects, e)
	k.Record(Proc, event.Effect, e, "recorded %s from run %s a%d s%d", e.Order, e.Run, e.Attempt, e.Send)
}

// replay records e as a request the service deduplicated.
func (s *Service) replay(k *sim.Kernel, e Effect, first string) {
	e.At, e.Replayed, e.FirstRun = k.Now(), true, first
	s.effects = append(s.effects, e)
	k.Record(Proc, event.Replayed, e, "replayed %s to run %s: key %s was stored by run %s", e.Order, e.Run, e.Key, first)
}

// deduplicate plays the service's dedupe mode for a request with a key,
// each statement one step of the request's process, and reports whether
// the request was a replay. The effect, when there is one, is recorded in
// between, at its own instant. It also returns, when not zero, the instant
// the answer is ready, when the mode decides it.
//
// Check mode is check-then-act as real services have it: SELECT the key,
// do the effect, which takes the request's latency (delay), then INSERT
// the key. The effect and the INSERT run on a handler of their own, so a
// client that times out meanwhile and retries finds the key not yet
// stored: the latency is inside the window.
func (s *Service) deduplicate(p *sim.Proc, e *Effect, delay sim.Time) (bool, sim.Time) {
	k := p.Kernel()
	if s.keys == nil {
		s.fail(errNoStore)
		return false, 0
	}
	stmt := func() sim.Time { return k.Between(StmtMin, StmtMax) }
	// An observation for the evidence, not a step: was there a row at all?
	stored, err := s.keys.Stored(e.Key)
	s.fail(err)
	state := "new"
	if stored {
		state = "expired"
	}
	switch s.dedupe {
	case DedupeCheck:
		first, found, err := s.keys.Check(e.Key, p.Now(), s.ttl)
		s.fail(err)
		if found {
			p.Step(stmt(), event.KeyCheck, "SELECT key %s: stored by run %s", e.Key, first)
			s.replay(k, *e, first)
			return true, 0
		}
		p.Step(stmt(), event.KeyCheck, "SELECT key %s: %s", e.Key, absent(state))
		e.KeyState = state
		s.land(k, *e)
		work, ins := stmt()+delay, stmt()
		key, run := e.Key, e.Run
		k.Go(p.Name(), p.Now(), func(h *sim.Proc) {
			h.Sleep(work) // doing the effect
			s.fail(s.keys.Insert(key, h.Now(), run))
			h.Step(ins, event.KeyInsert, "INSERT key %s", key)
		})
		return false, p.Now() + work + ins
	case DedupeClaim:
		took, err := s.keys.Claim(e.Key, p.Now(), s.ttl, e.Run)
		s.fail(err)
		if took {
			p.Step(stmt(), event.KeyClaim, "INSERT key %s ON CONFLICT DO NOTHING: 1 row changed (%s), the effect is mine", e.Key, absent(state))
			e.KeyState = state
			s.land(k, *e)
			if s.ready == nil {
				s.ready = map[string]sim.Time{}
			}
			s.ready[e.Key] = p.Now() + delay
			return false, 0
		}
		p.Step(stmt(), event.KeyClaim, "INSERT key %s ON CONFLICT DO NOTHING: 0 rows changed", e.Key)
		first, _, err := s.keys.Check(e.Key, p.Now(), s.ttl)
		s.fail(err)
		if at := s.ready[e.Key]; at > p.Now() {
			// The first request with this key is still in flight: there
			// is no answer to replay yet. Real stores answer 409 (in
			// progress) or hold the request until the answer exists;
			// this one holds it, on a handler of its own, so that the
			// client waits for the answer as for any other: its timeout
			// runs, and so does its heartbeat.
			p.Step(stmt(), event.KeyCheck, "SELECT key %s: stored by run %s, still in progress: waiting for its answer", e.Key, first)
			held, check := *e, stmt()
			k.Go(p.Name(), p.Now(), func(h *sim.Proc) {
				h.SleepUntil(at)
				h.Step(check, event.KeyCheck, "SELECT key %s: stored by run %s", held.Key, first)
				s.replay(k, held, first)
			})
			return true, at + check
		}
		p.Step(stmt(), event.KeyCheck, "SELECT key %s: stored by run %s", e.Key, first)
		s.replay(k, *e, first)
		return true, 0
	}
	s.fail(fmt.Errorf("receipts: dedupe mode %s has no steps", s.dedupe))
	return false, 0
}

func absent(state string) string {
	if state == "expired" {
		return "expired (older than the key TTL), so absent"
	}
	return "absent"
}

func (s *Service) fail(err error) {
	if err != nil && s.err == nil {
		s.err = err
	}
}
