package script

import (
	"errors"
	"fmt"
	"strings"

	"github.com/twice-lab/twice/runtime/receipts"
	"github.com/twice-lab/twice/runtime/sim"
)

// DiagnosisKind names what the evidence says one order's effects came
// from: one of the values in [DiagnosisKinds], each with its name (the
// JSON's "kind" of a [Summary]), its title for a reader, and whether it is
// good (every event had its one effect: nothing duplicated, nothing
// swallowed). The diagnosis, the docs and the browser (the server passes
// [Choices] to the page in twice.js's config) read this list.
type DiagnosisKind uint8

const (
	KindOnce       DiagnosisKind = iota // one effect from one delivery
	KindRedelivery                      // delivered again, one effect
	KindFenced                          // a stale run's receipt refused by its fencing token, one effect
	KindDeduped                         // a request replayed on its key, one effect
	KindSwallowed                       // one effect, but a different event was replayed on its key
	// Duplicates, each named from the evidence:
	KindClientRetry  // one run sent twice
	KindClaimRace    // a claim overwrote a lease that was still live
	KindLeaseExpired // the lease ran out after the run was killed or ended without an ack
	KindSlow         // the lease ran out while the run was still working
	KindStall        // the lease ran out while the run was frozen after its last heartbeat
	KindRedone       // the job was claimed again after it was done
	KindRedriven     // redeliver put the job back, and it ran again
	KindTwoJobs      // two events for the order: two jobs
	KindPublishTwice // the producer published one event twice: two jobs, one event
	KindMixed        // more than one of the above
	KindUnknown      // the evidence cannot tell
	numDiagnosisKinds
)

var diagnosisInfo = [numDiagnosisKinds]struct {
	name, title string
	good        bool
}{
	KindOnce:         {"once", "Ran once", true},
	KindRedelivery:   {"redelivery", "Redelivered, with no second effect", true},
	KindFenced:       {"fenced", "Fenced: a stale run's receipt was refused", true},
	KindDeduped:      {"deduped", "Deduplicated: the service replayed the first answer", true},
	KindSwallowed:    {"swallowed", "Swallowed: a second event got the first one's answer", false},
	KindClientRetry:  {"client-retry", "Client retry: one execution sent twice", false},
	KindClaimRace:    {"claim-race", "Claim race: two workers took one delivery", false},
	KindLeaseExpired: {"lease-expired", "Lease expired under finished work", false},
	KindSlow:         {"slow-processing", "Processing outlived the lease", false},
	KindStall:        {"stall", "A stall outlived the lease", false},
	KindRedone:       {"redone", "Claimed again after it was done", false},
	KindRedriven:     {"redriven", "Redelivered by hand after it was done", false},
	KindTwoJobs:      {"two-jobs", "Two events for one order: two jobs", false},
	KindPublishTwice: {"publish-twice", "The producer published one event twice", false},
	KindMixed:        {"mixed", "More than one cause", false},
	KindUnknown:      {"unknown", "The evidence cannot tell", false},
}

// DiagnosisKinds lists every diagnosis kind, in the order of the constants.
func DiagnosisKinds() []DiagnosisKind {
	ks := make([]DiagnosisKind, numDiagnosisKinds)
	for i := range ks {
		ks[i] = DiagnosisKind(i)
	}
	return ks
}

// ParseDiagnosisKind returns the diagnosis kind named s.
func ParseDiagnosisKind(s string) (DiagnosisKind, bool) {
	for _, k := range DiagnosisKinds() {
		if diagnosisInfo[k].name == s {
			return k, true
		}
	}
	return 0, false
}

// Valid reports whether k is one of DiagnosisKinds.
func (k DiagnosisKind) Valid() bool { return k < numDiagnosisKinds }

// String returns the kind's name, as the JSON spells it.
func (k DiagnosisKind) String() string {
	if !k.Valid() {
		return "diagnosis(?)"
	}
	return diagnosisInfo[k].name
}

// Title says the kind in plain words, for a reader: what the playground
// shows as a verdict.
func (k DiagnosisKind) Title() string {
	if !k.Valid() {
		return ""
	}
	return diagnosisInfo[k].title
}

// Good reports whether the kind is a right outcome: every event had its
// one effect. A swallowed event is not good, though nothing duplicated.
func (k DiagnosisKind) Good() bool { return k.Valid() && diagnosisInfo[k].good }

// MarshalText returns the kind's name, so that encoding/json writes the
// name, as the runtime's own encoder does.
func (k DiagnosisKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind back from its name.
func (k *DiagnosisKind) UnmarshalText(b []byte) error {
	v, ok := ParseDiagnosisKind(string(b))
	if !ok {
		return errors.New("unknown diagnosis kind " + string(b))
	}
	*k = v
	return nil
}

// The phases of a run, as evidence: what a run was doing when another run
// took its job.
const (
	phaseClaimed    = "claimed"
	phaseProcessing = "processing"
	phaseStalled    = "stalled"
	phaseSending    = "sending"
	phaseKilled     = "killed"
	phaseLost       = "lost"
	phaseRefused    = "refused"
	phaseAcked      = "acked"
	phaseEnded      = "ended" // stopped without an ack (gave up, or its ack was refused)
)

// runRec is the evidence the lab keeps about one run that claimed a job:
// when it claimed, its lease as last written, what it is doing, and the run
// that held the job before it, with that run's lease and phase at the
// moment of the claim.
type runRec struct {
	run, worker string
	job         int64
	claimedAt   sim.Time
	lease       sim.Time // expiry as last written (claim or heartbeat)
	heartbeat   bool
	phase       string
	acked       bool
	replayed    bool   // the service answered its receipt with the first answer
	key         string // the Idempotency-Key it sent
	redriven    bool   // it claimed a job that redeliver had put back

	prev      *runRec // the run that held the job when this one claimed it
	prevLive  bool    // prev's lease had not yet passed at the claim
	prevPhase string  // prev's phase at the claim
}

// claimedBy records that run took job at instant now with a lease to
// expire at lease.
func (in *interp) claimedBy(run, worker string, job int64, now, lease sim.Time) *runRec {
	rec := &runRec{run: run, worker: worker, job: job, claimedAt: now, lease: lease, phase: phaseClaimed, redriven: in.redriven[job]}
	delete(in.redriven, job)
	if h := in.holder[job]; h != nil {
		rec.prev, rec.prevPhase = h, h.phase
		rec.prevLive = !h.acked && now <= h.lease
	}
	in.holder[job] = rec
	in.runs[run] = rec
	return rec
}

// summarize groups the recorded requests by order, in order of first
// arrival, and diagnoses each group.
func (in *interp) summarize() ([]Summary, error) {
	rows, err := in.shell.List()
	if err != nil {
		return nil, err
	}
	attempts := map[string]int{}
	for _, r := range rows {
		attempts[r.Order] = max(attempts[r.Order], r.Attempts)
	}
	var sums []Summary
	idx := map[string]int{}
	groups := map[string][]Effect{}
	for _, e := range in.svc.Effects() {
		i, ok := idx[e.Order]
		if !ok {
			i = len(sums)
			idx[e.Order] = i
			sums = append(sums, Summary{Order: e.Order})
		}
		s := &sums[i]
		tag := fmt.Sprintf("%s j%d a%d s%d", e.Run, e.Job, e.Attempt, e.Send)
		if e.Refused {
			tag += " refused"
		}
		if e.Replayed {
			tag += " replayed"
		}
		s.Tags = append(s.Tags, tag)
		groups[e.Order] = append(groups[e.Order], effectOf(e))
	}
	untraced := in.untracedDuplicateLog()
	for i := range sums {
		s := &sums[i]
		in.diagnose(s, groups[s.Order], attempts[s.Order])
		if s.Effects > 1 && untraced {
			s.Diagnosis += "; worker.log alone could not tell: its lines carry no run id (add --trace)"
		}
	}
	return sums, nil
}

// diagnose fills in the counts of s from the order's recorded requests, and
// names what the evidence shows: for every effect after the first, why a
// second one could happen, from the job and run ids, the attempts, the
// claim times and the lease history. It never guesses from the gap alone.
func (in *interp) diagnose(s *Summary, reqs []Effect, attempts int) {
	runs := map[string]bool{}
	var landed []Effect
	var replayed []Effect
	for _, e := range reqs {
		runs[e.Run] = true
		switch {
		case e.Refused:
			s.Refused++
		case e.Replayed:
			s.Replayed++
			replayed = append(replayed, e)
		default:
			landed = append(landed, e)
		}
	}
	s.Runs = len(runs)
	s.Effects = len(landed)
	var gap sim.Time
	if len(landed) > 1 {
		gap = landed[len(landed)-1].AtUS - landed[0].AtUS
	}
	s.SpanMS = gap / sim.Millisecond
	s.Span = fmtGap(gap)

	if len(landed) <= 1 {
		switch {
		case len(replayed) > 0 && len(landed) == 1 && swallowed(landed[0], replayed) != "":
			s.Kind = KindSwallowed
			s.Diagnosis = fmt.Sprintf("one effect, for event %s; a request for another event, %s, carried the same key %s and got the first answer back: the key is too coarse, and a legitimate second event was swallowed", landed[0].Event, swallowed(landed[0], replayed), landed[0].Key)
		case len(replayed) > 0:
			s.Kind = KindDeduped
			s.Diagnosis = fmt.Sprintf("one effect; %d request(s) carried key %s, already stored, and got the first answer back: the service's dedupe held", len(replayed), replayed[0].Key)
		case s.Refused > 0:
			s.Kind = KindFenced
			s.Diagnosis = fmt.Sprintf("one effect; %d late request(s) carried an older fencing token and were refused: fencing kept a stale run out", s.Refused)
		case attempts > 1:
			s.Kind = KindRedelivery
			s.Diagnosis = fmt.Sprintf("delivered %d times, one effect: at-least-once delivery doing its job, no duplicate effect", attempts)
		default:
			s.Kind = KindOnce
			s.Diagnosis = "one delivery, one effect"
		}
		return
	}

	// Why each effect after the first could happen.
	var kinds []DiagnosisKind
	seen := map[DiagnosisKind]bool{}
	note := func(kind DiagnosisKind) {
		if !seen[kind] {
			seen[kind] = true
			kinds = append(kinds, kind)
		}
	}
	jobs := map[int64]bool{}
	for i, e := range landed {
		if i == 0 {
			jobs[e.Job] = true
			continue
		}
		sameRun, sameJob, sameEvent := false, jobs[e.Job], false
		other := "" // an earlier run that did the same job
		for _, f := range landed[:i] {
			sameRun = sameRun || f.Run == e.Run
			sameEvent = sameEvent || f.Event == e.Event && f.Job != e.Job
			if f.Job == e.Job && f.Run != e.Run && other == "" {
				other = f.Run
			}
		}
		jobs[e.Job] = true
		switch {
		case sameRun:
			note(KindClientRetry)
		case !sameJob && sameEvent:
			note(KindPublishTwice)
		case !sameJob:
			note(KindTwoJobs)
		default:
			note(in.claimCause(e.Run, other))
		}
	}
	var jobList, eventList []string
	for _, e := range landed {
		if j := fmt.Sprintf("%d", e.Job); !contains(jobList, j) {
			jobList = append(jobList, j)
		}
		if !contains(eventList, e.Event) {
			eventList = append(eventList, e.Event)
		}
	}

	what := func(kind DiagnosisKind) string {
		switch kind {
		case KindClientRetry:
			return "one run sent twice: a client retry after a timeout, not the queue"
		case KindTwoJobs:
			return fmt.Sprintf("two events for the order (%s, jobs %s), each delivered and done once: two effects may be right; if they are one event, the producer should have sent one event id", strings.Join(eventList, " and "), strings.Join(jobList, " and "))
		case KindPublishTwice:
			return fmt.Sprintf("the producer published event %s twice (jobs %s): an upstream retry, not the queue; only a key from the event id can see it", landed[0].Event, strings.Join(jobList, " and "))
		case KindRedriven:
			return "redeliver put the job back in the queue (a dead-letter re-drive or a manual replay), and it ran again after a run that had already sent its receipt"
		case KindClaimRace:
			return "two workers claimed the same delivery (a claim race): a claim overwrote a lease that had not run out"
		case KindLeaseExpired:
			return "the lease expired under a run that did the work but never acked"
		case KindSlow:
			return "the lease ran out while the first run was still working, and another worker took the job: processing outlived the lease"
		case KindStall:
			return "the first run froze after its last heartbeat and past its lease, and another worker took the job: a stall past the lease"
		case KindRedone:
			return "the job was claimed again after it was done"
		}
		return "the evidence cannot tell why: no claim by these runs was recorded"
	}
	s.Kind = kinds[0]
	if len(kinds) > 1 {
		s.Kind = KindMixed
	}
	var parts []string
	for _, k := range kinds {
		parts = append(parts, what(k))
	}
	if len(kinds) == 1 && kinds[0] == KindClientRetry {
		s.Diagnosis = fmt.Sprintf("one run sent %d times: a client retry after a timeout, not the queue", s.Effects)
		return
	}
	s.Diagnosis = fmt.Sprintf("%d runs %s apart: %s", s.Runs, s.Span, strings.Join(parts, "; and "))
	if why := in.keyMissed(landed); why != "" {
		s.Diagnosis += "; " + why
	}
}

// swallowed returns the event of a replayed request that differs from the
// event of the effect it was answered with, or "".
func swallowed(first Effect, replayed []Effect) string {
	for _, r := range replayed {
		if r.Event != first.Event {
			return r.Event
		}
	}
	return ""
}

// keyMissed says, for effects that carried Idempotency-Keys, why the
// service's dedupe let a second one through for the same event: it was
// off, the keys differed, the key had expired, or both requests checked
// before either stored it. It says nothing when no request had a key.
func (in *interp) keyMissed(landed []Effect) string {
	mode, _ := in.svc.Dedupe()
	for i, e := range landed {
		for _, f := range landed[:i] {
			if f.Event != e.Event || e.Key == "" && f.Key == "" {
				continue
			}
			switch {
			case mode == receipts.DedupeOff:
				return fmt.Sprintf("the requests carried keys (%s), but the service's dedupe is off", keyPair(f.Key, e.Key))
			case f.Key != e.Key:
				return fmt.Sprintf("the service deduplicates, but the requests for one event carried different keys (%s): the key is not the event's, so the service saw two requests; only the event id is the same on every copy", keyPair(f.Key, e.Key))
			case e.KeyState == "expired":
				return fmt.Sprintf("the service had stored key %s, but it had expired (older than the key TTL) when the request came again: the key was forgotten before the redelivery", e.Key)
			case mode == receipts.DedupeCheck:
				return fmt.Sprintf("both requests checked key %s before either stored it: check-then-act let both through", e.Key)
			}
		}
	}
	return ""
}

func keyPair(a, b string) string {
	if a == "" {
		a = "none"
	}
	if b == "" {
		b = "none"
	}
	if a == b {
		return a + " twice"
	}
	return a + " and " + b
}

// claimCause names, from the lease history, why two runs a and b both
// did the same job: the reason the one that claimed later could claim it.
// Their effects may land in either order, so the later claim is found from
// the claim times, not from the order of the effects.
func (in *interp) claimCause(a, b string) DiagnosisKind {
	r := in.runs[a]
	if o := in.runs[b]; r == nil || o != nil && o.claimedAt > r.claimedAt {
		r = o
	}
	if r == nil || r.prev == nil {
		return KindUnknown
	}
	switch {
	case r.redriven:
		// Put back by hand: whatever the earlier run was doing, the
		// queue did not hand the job out again on its own.
		return KindRedriven
	case r.prevPhase == phaseAcked:
		return KindRedone
	case r.prevLive:
		return KindClaimRace
	case r.prevPhase == phaseProcessing || r.prevPhase == phaseSending || r.prevPhase == phaseClaimed:
		return KindSlow
	case r.prevPhase == phaseStalled:
		return KindStall
	}
	return KindLeaseExpired // killed, or ended without an ack
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// untracedDuplicateLog reports whether worker.log has two identical lines
// that carry no run id: evidence that cannot tell two sends apart.
func (in *interp) untracedDuplicateLog() bool {
	seen := map[string]bool{}
	for _, l := range in.log {
		if strings.HasPrefix(l, "[run ") {
			continue
		}
		if seen[l] {
			return true
		}
		seen[l] = true
	}
	return false
}

// fmtGap prints a gap in ms, with a tenth of a millisecond below 10 ms so
// that a claim race reads "0.6 ms", not "0 ms". The transcript, the
// diagnosis and the playground all print a gap with it, so the three agree.
func fmtGap(d sim.Time) string {
	if d == 0 {
		return "0 ms"
	}
	if d < 10*sim.Millisecond {
		return fmt.Sprintf("%d.%d ms", d/sim.Millisecond, d%sim.Millisecond/100)
	}
	return fmt.Sprintf("%d ms", d/sim.Millisecond)
}
