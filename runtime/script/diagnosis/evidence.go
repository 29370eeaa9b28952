package diagnosis

import "github.com/twice-lab/twice/runtime/sim"

// Phase is what a run was doing, as evidence: what a run was doing when
// another run took its job.
type Phase string

// The phases a run goes through, from its claim on.
const (
	PhaseClaimed    Phase = "claimed"
	PhaseProcessing Phase = "processing"
	PhaseStalled    Phase = "stalled"
	PhaseSending    Phase = "sending"
	PhaseKilled     Phase = "killed"
	PhaseLost       Phase = "lost"
	PhaseRefused    Phase = "refused"
	PhaseAcked      Phase = "acked"
	PhaseEnded      Phase = "ended" // stopped without an ack (gave up, or its ack was refused)
	PhaseDead       Phase = "dead"  // its claim went past the retry limit and moved the job to the dead-letter queue
)

// Record is the evidence the lab keeps about one run that claimed a job:
// when it claimed, every lease it wrote and every phase it went through,
// with their instants, whether it had a heartbeat, and what the service
// made of its receipt. The diagnosis pairs two runs whose effects landed
// and reads, from this history, why the later one could claim the job:
// what the earlier one was doing when its lease ran out.
type Record struct {
	run, worker string
	job         int64
	claimedAt   sim.Time
	lease       sim.Time // expiry as last written (claim or heartbeat)
	phase       Phase
	acked       bool
	redriven    bool // it claimed a job that redeliver had put back

	// What the worker knows of its run, set as it goes: whether it keeps
	// a heartbeat, the service's delay and its processing time as its
	// flags say, the Idempotency-Key it sent, whether the service
	// answered its receipt with the first answer, and whether a kill
	// found its request on its way.
	Heartbeat  bool
	Delay      sim.Time
	Processing sim.Time
	Key        string
	Replayed   bool
	// InFlight says the run was killed while its request was on its way
	// to the service, which handles it all the same.
	InFlight bool
	// MaxAttempts is the retry limit the run's claim was made under (0:
	// none), which a claim past it (PhaseDead) went over.
	MaxAttempts int

	phases []stamp // every phase, from the claim on
	leases []stamp // every lease expiry written, from the claim on

	prev      *Record // the run that held the job when this one claimed it
	prevLive  bool    // prev's lease had not yet passed at the claim
	prevPhase Phase   // prev's phase at the claim
}

// stamp is one entry of a run's history: a phase, or a lease expiry
// written, from instant at on.
type stamp struct {
	at    sim.Time
	phase Phase
	lease sim.Time
}

// Enter records that the run entered phase at instant now.
func (r *Record) Enter(now sim.Time, phase Phase) {
	r.phase = phase
	r.phases = append(r.phases, stamp{at: now, phase: phase})
	if phase == PhaseAcked {
		r.acked = true
	}
}

// SetLease records that the run wrote a lease to expire at lease, at
// instant now.
func (r *Record) SetLease(now, lease sim.Time) {
	r.lease = lease
	r.leases = append(r.leases, stamp{at: now, lease: lease})
}

// phaseAt returns the run's phase at instant t: the last entered at or
// before t. Before its claim was written (a lease that ran out while the
// claim was being made: one computed from the clock read before the
// UPDATE, with no time to spare), the run was claiming.
func (r *Record) phaseAt(t sim.Time) Phase {
	ph := PhaseClaimed
	for _, s := range r.phases {
		if s.at > t {
			break
		}
		ph = s.phase
	}
	return ph
}

// leaseAt returns the run's lease expiry as written at or before instant t.
func (r *Record) leaseAt(t sim.Time) sim.Time {
	var l sim.Time
	for _, s := range r.leases {
		if s.at > t {
			break
		}
		l = s.lease
	}
	return l
}

// ackedBy reports whether the run had acked at or before instant t.
func (r *Record) ackedBy(t sim.Time) bool {
	for _, s := range r.phases {
		if s.at > t {
			break
		}
		if s.phase == PhaseAcked {
			return true
		}
	}
	return false
}

// History is the evidence of one script's runs since the last reset:
// every run that claimed a job, by run id, the runs that claimed each
// job, in order, and the jobs redeliver put back. The interpreter records
// into it as the workers step (Claimed, then the Record's Enter and
// SetLease); Summarize reads it.
type History struct {
	runs     map[string]*Record  // every run that claimed a job, by run id
	holder   map[int64]*Record   // the run that last claimed each job
	claims   map[int64][]*Record // every run that claimed each job, in order
	redriven map[int64]bool      // jobs put back by redeliver and not claimed since
}

// NewHistory returns an empty history.
func NewHistory() *History {
	return &History{runs: map[string]*Record{}, holder: map[int64]*Record{}, claims: map[int64][]*Record{}, redriven: map[int64]bool{}}
}

// Reset forgets every run, as a reset of the tables does.
func (h *History) Reset() {
	clear(h.runs)
	clear(h.holder)
	clear(h.claims)
	clear(h.redriven)
}

// Redriven records that redeliver put job back: the next run to claim it
// was handed it by hand, not by the queue.
func (h *History) Redriven(job int64) { h.redriven[job] = true }

// Claimed records that run took job at instant now with a lease to
// expire at lease, and returns the run's record.
func (h *History) Claimed(run, worker string, job int64, now, lease sim.Time) *Record {
	rec := &Record{run: run, worker: worker, job: job, claimedAt: now, redriven: h.redriven[job]}
	rec.Enter(now, PhaseClaimed)
	rec.SetLease(now, lease)
	delete(h.redriven, job)
	if prev := h.holder[job]; prev != nil {
		rec.prev, rec.prevPhase = prev, prev.phase
		rec.prevLive = !prev.acked && now <= prev.lease
	}
	h.holder[job] = rec
	h.runs[run] = rec
	h.claims[job] = append(h.claims[job], rec)
	return rec
}
