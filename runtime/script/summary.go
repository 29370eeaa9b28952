package script

import (
	"errors"
	"fmt"
	"slices"
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
	KindRaceCaught                      // claimed twice in one delivery; the heartbeat stopped the loser
	KindFenced                          // a stale run's receipt refused by its fencing token, one effect
	KindDeduped                         // a request replayed on its key, one effect
	KindSwallowed                       // one effect, but a different event was replayed on its key
	// Duplicates, each named from the evidence:
	KindClientRetry  // one run sent twice
	KindClaimRace    // a claim overwrote a lease that was still live
	KindLeaseExpired // the lease ran out after the run was killed or ended without an ack
	KindSlow         // the lease ran out while the run was still working
	KindSlowCall     // the lease ran out while the run waited on the service's reply
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
	KindRaceCaught:   {"race-caught", "A claim race, stopped by the heartbeat before a second effect", true},
	KindFenced:       {"fenced", "Fenced: a stale run's receipt was refused", true},
	KindDeduped:      {"deduped", "Deduplicated: the service replayed the first answer", true},
	KindSwallowed:    {"swallowed", "Swallowed: a second event got the first one's answer", false},
	KindClientRetry:  {"client-retry", "Client retry: one execution sent twice", false},
	KindClaimRace:    {"claim-race", "Claim race: two workers took one delivery", false},
	KindLeaseExpired: {"lease-expired", "Lease expired under finished work", false},
	KindSlow:         {"slow-processing", "Processing outlived the lease", false},
	KindSlowCall:     {"slow-call", "A slow downstream call outlived the lease", false},
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
// when it claimed, every lease it wrote and every phase it went through,
// with their instants, whether it had a heartbeat, and what the service
// made of its receipt. The diagnosis pairs two runs whose effects landed
// and reads, from this history, why the later one could claim the job:
// what the earlier one was doing when its lease ran out.
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
	delay       sim.Time
	processing  sim.Time

	phases []stamp // every phase, from the claim on
	leases []stamp // every lease expiry written, from the claim on

	prev      *runRec // the run that held the job when this one claimed it
	prevLive  bool    // prev's lease had not yet passed at the claim
	prevPhase string  // prev's phase at the claim
}

// stamp is one entry of a run's history: a phase, or a lease expiry
// written, from instant at on.
type stamp struct {
	at    sim.Time
	phase string
	lease sim.Time
}

// setPhase records that the run entered phase at instant now.
func (r *runRec) setPhase(now sim.Time, phase string) {
	r.phase = phase
	r.phases = append(r.phases, stamp{at: now, phase: phase})
	if phase == phaseAcked {
		r.acked = true
	}
}

// setLease records that the run wrote a lease to expire at lease, at
// instant now.
func (r *runRec) setLease(now, lease sim.Time) {
	r.lease = lease
	r.leases = append(r.leases, stamp{at: now, lease: lease})
}

// phaseAt returns the run's phase at instant t: the last entered at or
// before t.
func (r *runRec) phaseAt(t sim.Time) string {
	ph := ""
	for _, s := range r.phases {
		if s.at > t {
			break
		}
		ph = s.phase
	}
	return ph
}

// leaseAt returns the run's lease expiry as written at or before instant t.
func (r *runRec) leaseAt(t sim.Time) sim.Time {
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
func (r *runRec) ackedBy(t sim.Time) bool {
	for _, s := range r.phases {
		if s.at > t {
			break
		}
		if s.phase == phaseAcked {
			return true
		}
	}
	return false
}

// claimedBy records that run took job at instant now with a lease to
// expire at lease.
func (in *interp) claimedBy(run, worker string, job int64, now, lease sim.Time) *runRec {
	rec := &runRec{run: run, worker: worker, job: job, claimedAt: now, redriven: in.redriven[job]}
	rec.setPhase(now, phaseClaimed)
	rec.setLease(now, lease)
	delete(in.redriven, job)
	if h := in.holder[job]; h != nil {
		rec.prev, rec.prevPhase = h, h.phase
		rec.prevLive = !h.acked && now <= h.lease
	}
	in.holder[job] = rec
	in.runs[run] = rec
	in.claims[job] = append(in.claims[job], rec)
	return rec
}

// summarize groups the recorded requests by order, in order of first
// arrival, and diagnoses each group.
func (in *interp) summarize() ([]Summary, error) {
	rows, err := in.shell.List()
	if err != nil {
		return nil, err
	}
	attempts := map[int64]int{}
	for _, r := range rows {
		attempts[r.ID] = r.Attempts
	}
	var sums []Summary
	idx := map[string]int{}
	groups := map[string][]Effect{}
	answers := map[string]Effect{} // run -> its first request that landed
	// A tag names the job only when an order's requests come from more
	// than one job: otherwise the job is the same in every tag.
	jobsOf := map[string]map[int64]bool{}
	for _, e := range in.svc.Effects() {
		if jobsOf[e.Order] == nil {
			jobsOf[e.Order] = map[int64]bool{}
		}
		jobsOf[e.Order][e.Job] = true
	}
	for _, e := range in.svc.Effects() {
		i, ok := idx[e.Order]
		if !ok {
			i = len(sums)
			idx[e.Order] = i
			sums = append(sums, Summary{Order: e.Order})
		}
		s := &sums[i]
		tag := fmt.Sprintf("%s a%d s%d", e.Run, e.Attempt, e.Send)
		if len(jobsOf[e.Order]) > 1 {
			tag = fmt.Sprintf("%s j%d a%d s%d", e.Run, e.Job, e.Attempt, e.Send)
		}
		if e.Refused {
			tag += " refused"
		}
		if e.Replayed {
			tag += " replayed"
		}
		s.Tags = append(s.Tags, tag)
		groups[e.Order] = append(groups[e.Order], effectOf(e))
		if _, ok := answers[e.Run]; !ok && !e.Refused && !e.Replayed {
			answers[e.Run] = effectOf(e)
		}
	}
	untraced := in.shownLog && in.untracedDuplicateLog()
	for i := range sums {
		s := &sums[i]
		in.diagnose(s, groups[s.Order], attempts, answers)
		if s.Effects > 1 && untraced {
			s.Diagnosis += "; worker.log could not tell these runs apart: its lines carry no run id (add --trace)"
		}
	}
	return sums, nil
}

// eventEvidence is what one order's requests show about one of its
// events: the jobs that carry it and its requests, by what became of them.
type eventEvidence struct {
	event    string
	jobs     []int64 // in order of their first request
	hasJob   map[int64]bool
	landed   []Effect
	replayed []Effect // deduplicated: answered with the first answer of FirstRun
	refused  []Effect
}

// byEvent groups an order's requests by event, in order of first request.
func byEvent(reqs []Effect) []*eventEvidence {
	var evs []*eventEvidence
	idx := map[string]*eventEvidence{}
	for _, e := range reqs {
		ev := idx[e.Event]
		if ev == nil {
			ev = &eventEvidence{event: e.Event, hasJob: map[int64]bool{}}
			idx[e.Event] = ev
			evs = append(evs, ev)
		}
		if !ev.hasJob[e.Job] {
			ev.hasJob[e.Job] = true
			ev.jobs = append(ev.jobs, e.Job)
		}
		switch {
		case e.Refused:
			ev.refused = append(ev.refused, e)
		case e.Replayed:
			ev.replayed = append(ev.replayed, e)
		default:
			ev.landed = append(ev.landed, e)
		}
	}
	return evs
}

// dupCause is one reason an event got more than one effect: its kind, the
// event, the job it concerns (0 for a cause across jobs: a publish), the
// run that sent again (a client retry), and how many effects it explains.
// For a second run of one job, a is the run that claimed first and b the
// one that claimed later, the two runs whose effects are paired, and
// sentFirst says whether a's effect had landed before b claimed.
type dupCause struct {
	kind      DiagnosisKind
	event     string
	job       int64
	run       string
	n         int
	a, b      *runRec
	between   []*runRec // runs that claimed the job between a and b
	sentFirst bool
}

// diagnose fills in the counts of s from the order's recorded requests, and
// names what the evidence shows. The evidence is grouped by event: one
// effect per event is right, and every further effect of an event is a
// duplicate, named from the job and run ids, the attempts, the claim times
// and the lease history. It never guesses from the gap alone.
func (in *interp) diagnose(s *Summary, reqs []Effect, attempts map[int64]int, answers map[string]Effect) {
	runs := map[string]bool{}
	jobs := map[int64]bool{}
	var landed []Effect
	for _, e := range reqs {
		runs[e.Run] = true
		jobs[e.Job] = true
		switch {
		case e.Refused:
			s.Refused++
		case e.Replayed:
			s.Replayed++
		default:
			landed = append(landed, e)
		}
	}
	s.Runs = len(runs)
	s.Effects = len(landed)
	s.Count = countPhrase(s.Effects, s.Refused, s.Replayed)
	var gap sim.Time
	if len(landed) > 1 {
		gap = landed[len(landed)-1].AtUS - landed[0].AtUS
	}
	s.SpanMS = gap / sim.Millisecond
	s.Span = fmtGap(gap)

	d := &diagnosis{in: in, order: s.Order, evs: byEvent(reqs), multiJob: len(jobs) > 1, attempts: attempts, answers: answers, gap: gap}
	if len(landed) <= 1 {
		s.Kind, s.Diagnosis = d.single(landed, s.Refused)
		return
	}
	s.Kind, s.Diagnosis = d.several(s, landed)
}

// diagnosis is the evidence of one order while it is put into words.
type diagnosis struct {
	in       *interp
	order    string
	evs      []*eventEvidence
	multiJob bool // the order's requests come from more than one job
	attempts map[int64]int
	answers  map[string]Effect
	gap      sim.Time                  // first to last effect
	byName   map[string]*eventEvidence // evs by event id, made on first use
}

// answerOf returns the request whose answer a replayed request got back.
func (d *diagnosis) answerOf(r Effect) (Effect, bool) {
	a, ok := d.answers[r.FirstRun]
	return a, ok
}

// sorted splits the replayed requests of the order: those answered with
// the answer of their own event (the dedupe held), those answered with
// another event's of this order (swallowed), and those answered with
// another order's (the key is shared across orders).
func (d *diagnosis) sorted() (held, swallowed, foreign []Effect) {
	for _, ev := range d.evs {
		for _, r := range ev.replayed {
			a, ok := d.answerOf(r)
			switch {
			case ok && a.Order != r.Order:
				foreign = append(foreign, r)
			case ok && a.Event != r.Event:
				swallowed = append(swallowed, r)
			default:
				held = append(held, r)
			}
		}
	}
	return held, swallowed, foreign
}

// single names what happened to an order with at most one effect.
func (d *diagnosis) single(landed []Effect, refused int) (DiagnosisKind, string) {
	held, swallowed, foreign := d.sorted()
	switch {
	case len(landed) == 0 && len(foreign) > 0:
		a, _ := d.answerOf(foreign[0])
		return KindSwallowed, fmt.Sprintf("no effect for this order: %s carried %s, which a request for %s (run %s) had stored, and got that request's answer back: if the two orders' events are different, a key shared across orders swallowed this order's effect; the evidence cannot tell whether they are one event", countNoun(len(foreign), "its request", "its "+count(len(foreign))+" requests"), keysOf(foreign), a.Order, a.Run)
	case len(landed) == 1 && len(swallowed) > 0:
		first := landed[0]
		text := fmt.Sprintf("one effect, for event %s; %s: the key is too coarse, and %s", first.Event, d.swallowedWhat(swallowed), swallowedCount(swallowed, 1))
		if len(held) > 0 {
			text += fmt.Sprintf("; %s got the first answer back too, as %s should", d.laterRequests(held), pronoun(len(held)))
		}
		if len(foreign) > 0 {
			text += "; " + d.foreignWhat(foreign)
		}
		return KindSwallowed, text
	case len(held) > 0:
		text := fmt.Sprintf("one effect; %s carried %s, already stored, and got the first answer back: the service's dedupe held", countNoun(len(held), "a later request", count(len(held))+" later requests"), keysOf(held))
		if len(foreign) > 0 {
			text += "; " + d.foreignWhat(foreign)
		}
		return KindDeduped, text
	case refused > 0:
		return KindFenced, fmt.Sprintf("one effect; %s: fencing kept a stale run out", countNoun(refused, "a late request carried an older fencing token and was refused", count(refused)+" late requests carried older fencing tokens and were refused"))
	}
	if text, ok := d.raceCaught(); ok {
		return KindRaceCaught, text
	}
	most := 0
	for _, ev := range d.evs {
		for _, j := range ev.jobs {
			most = max(most, d.attempts[j])
		}
	}
	if most > 1 {
		return KindRedelivery, fmt.Sprintf("delivered %s, one effect: at-least-once delivery doing its job, no duplicate effect", times(most))
	}
	return KindOnce, "one delivery, one effect"
}

// raceCaught says, for an order with one effect, whether a job of it was
// claimed twice in one delivery (a claim over a lease still live) and the
// run that lost the lease found it out at a heartbeat and stopped: the
// extra attempt is a claim race caught, not a redelivery.
func (d *diagnosis) raceCaught() (string, bool) {
	for _, ev := range d.evs {
		for _, j := range ev.jobs {
			runs := d.in.claims[j]
			for i, b := range runs {
				if i == 0 {
					continue
				}
				a := runs[i-1]
				if a.ackedBy(b.claimedAt) || b.claimedAt > a.leaseAt(b.claimedAt) || a.phase != phaseLost {
					continue
				}
				job := "the job"
				if d.multiJob {
					job = fmt.Sprintf("job %d", j)
				}
				return fmt.Sprintf("one effect: %s claimed %s while %s's lease was still live (a claim race); %s's heartbeat found the lease taken and stopped it before its receipt", b.worker, job, a.worker, a.worker), true
			}
		}
	}
	return "", false
}

// swallowedWhat says which requests of other events got an earlier
// event's answer back on their key.
func (d *diagnosis) swallowedWhat(sw []Effect) string {
	evs, phrases := d.eventsOf(sw)
	if len(sw) == 1 {
		return fmt.Sprintf("a request for another event, %s, carried the same key %s and got the first answer back", sw[0].Event, sw[0].Key)
	}
	other := "another event"
	if len(evs) > 1 {
		other = "other events"
	}
	return fmt.Sprintf("%s requests for %s, %s, carried the same key %s and got the first answer back", count(len(sw)), other, prose(phrases), prose(distinctKeys(sw)))
}

// swallowedCount says how many legitimate events were swallowed, beside
// the one event (or several) whose effect landed.
func swallowedCount(sw []Effect, landedEvents int) string {
	var evs []string
	for _, r := range sw {
		if !slices.Contains(evs, r.Event) {
			evs = append(evs, r.Event)
		}
	}
	switch {
	case len(evs) == 1 && landedEvents == 1:
		return "a legitimate second event was swallowed"
	case len(evs) == 1:
		return "a legitimate event was swallowed"
	}
	return count(len(evs)) + " legitimate events were swallowed"
}

// foreignWhat says which requests got another order's answer back.
func (d *diagnosis) foreignWhat(fr []Effect) string {
	a, _ := d.answerOf(fr[0])
	return fmt.Sprintf("%s carried %s, which a request for %s (run %s) had stored, and got that answer back: the evidence cannot tell whether the producer meant one event for two orders", d.laterRequests(fr), keysOf(fr), a.Order, a.Run)
}

// eventsOf lists the events of rs in order, and for each "ev-2 (job 3)".
func (d *diagnosis) eventsOf(rs []Effect) ([]string, []string) {
	var evs []string
	jobs := map[string][]string{}
	for _, r := range rs {
		if !slices.Contains(evs, r.Event) {
			evs = append(evs, r.Event)
		}
		if j := fmt.Sprint(r.Job); !slices.Contains(jobs[r.Event], j) {
			jobs[r.Event] = append(jobs[r.Event], j)
		}
	}
	var phrases []string
	for _, ev := range evs {
		phrases = append(phrases, fmt.Sprintf("%s (%s)", ev, jobsWord(jobs[ev])))
	}
	return evs, phrases
}

// laterRequests names requests by event and job: "the later request for
// ev-1 (job 2)", "the two later requests for ev-1 (jobs 2 and 3)".
func (d *diagnosis) laterRequests(rs []Effect) string {
	_, phrases := d.eventsOf(rs)
	if len(rs) == 1 {
		return "the later request for " + phrases[0]
	}
	return fmt.Sprintf("the %s later requests for %s", count(len(rs)), prose(phrases))
}

// several names what happened to an order with two effects or more.
func (d *diagnosis) several(s *Summary, landed []Effect) (DiagnosisKind, string) {
	causes := d.causes()
	held, swallowed, foreign := d.sorted()

	var kinds []DiagnosisKind
	for _, c := range causes {
		if !slices.Contains(kinds, c.kind) {
			kinds = append(kinds, c.kind)
		}
	}
	if len(swallowed) > 0 {
		kinds = append(kinds, KindSwallowed)
	}
	kind := KindTwoJobs
	switch {
	case len(kinds) == 1:
		kind = kinds[0]
	case len(kinds) > 1:
		kind = KindMixed
	}

	// The events that landed, those with one effect and those with more.
	var landedEvents, right, dup []*eventEvidence
	for _, ev := range d.evs {
		switch {
		case len(ev.landed) == 1:
			right = append(right, ev)
		case len(ev.landed) > 1:
			dup = append(dup, ev)
		}
		if len(ev.landed) > 0 {
			landedEvents = append(landedEvents, ev)
		}
	}
	if len(causes) == 1 && causes[0].kind == KindClientRetry && len(d.evs) == 1 && !d.multiJob && len(held)+len(foreign) == 0 && s.Refused == 0 && d.keyMissed(landed) == "" {
		// One run and nothing else: the whole story is its retry.
		only := true
		for _, e := range landed {
			only = only && e.Run == landed[0].Run
		}
		if only {
			return kind, fmt.Sprintf("one run sent %s: a client retry after a timeout, not the queue", times(s.Effects))
		}
	}

	var parts []string
	names := func(evs []*eventEvidence) []string {
		var xs []string
		for _, ev := range evs {
			xs = append(xs, ev.event)
		}
		return xs
	}
	caveat := ""
	if len(landedEvents) == 2 {
		caveat = fmt.Sprintf("if %s are one event, the producer should have sent one event id", prose(names(landedEvents)))
	} else if len(landedEvents) > 2 {
		caveat = fmt.Sprintf("if two of %s are one event, the producer should have sent one event id", prose(names(landedEvents)))
	}
	switch {
	case len(dup) == 0:
		// Every event that landed landed once.
		evjobs := prose(names(landedEvents))
		if d.oneJobEach(landedEvents) {
			var js []string
			for _, ev := range landedEvents {
				js = append(js, fmt.Sprint(ev.jobs[0]))
			}
			evjobs += ", " + jobsWord(js)
		}
		them := "they are one event"
		if len(landedEvents) > 2 {
			them = "two of them are one event"
		}
		parts = append(parts, fmt.Sprintf("%s events for the order (%s), each %s: %s effects may be right; if %s, the producer should have sent one event id", count(len(landedEvents)), evjobs, d.doneOnce(landedEvents), count(len(landedEvents)), them))
	case len(landedEvents) == 1:
		// One event: every effect after the first is a duplicate.
		parts = append(parts, d.causeWords(causes))
	default:
		extra := len(landed) - len(landedEvents)
		var of []string
		for _, ev := range dup {
			of = append(of, fmt.Sprintf("%s of %s", count(len(ev.landed)-1), ev.event))
		}
		attribution := " of " + dup[0].event
		if len(dup) > 1 {
			attribution = ", " + prose(of)
		}
		isAre := "is a duplicate"
		if extra > 1 {
			isAre = "are duplicates"
		}
		parts = append(parts, fmt.Sprintf("%s effects for %s events: one per event is right and %s %s%s: %s", count(len(landed)), count(len(landedEvents)), count(extra), isAre, attribution, d.causeWords(causes)))
		if len(right) > 0 {
			var rs []string
			for _, ev := range right {
				rs = append(rs, fmt.Sprintf("%s (%s)", ev.event, jobsWord(jobStrings(ev.jobs))))
			}
			was := "was " + d.doneOnce(right)
			if len(right) > 1 {
				was = "were each " + d.doneOnce(right)
			}
			parts = append(parts, fmt.Sprintf("%s %s", prose(rs), was))
		}
		parts = append(parts, caveat)
	}
	if len(swallowed) > 0 {
		parts = append(parts, d.swallowedWhat(swallowed)+": the key is too coarse, and "+swallowedCount(swallowed, len(landedEvents)))
	}
	if why := d.keyMissed(landed); why != "" {
		parts = append(parts, why)
	}
	parts = append(parts, d.notes(causes, held, foreign)...)
	if s.Runs == 1 {
		return kind, fmt.Sprintf("one run, its sends %s apart: %s", roundGap(d.gap), strings.Join(parts, "; "))
	}
	return kind, fmt.Sprintf("%d runs %s apart: %s", s.Runs, roundGap(d.gap), strings.Join(parts, "; "))
}

// causes names, for every effect of an event after its first, why it
// could happen. An event's effects come from its jobs, each job's from
// its runs, each run's from its sends: a run that sent again is a client
// retry; a second job that carries the event is a publish; and a second
// run of one job is paired with the run of that job that did the work
// before it, in claim order, and pairCause reads the two runs' histories.
// So every extra effect gets one cause. Causes of one kind, event, job and
// run are counted together.
func (d *diagnosis) causes() []*dupCause {
	type causeKey struct {
		kind  DiagnosisKind
		event string
		job   int64
		run   string
	}
	var cs []*dupCause
	found := map[causeKey]*dupCause{}
	add := func(c dupCause) {
		k := causeKey{c.kind, c.event, c.job, c.run}
		if o := found[k]; o != nil {
			o.n++
			return
		}
		c.n = 1
		cs = append(cs, &c)
		found[k] = &c
	}
	for _, ev := range d.evs {
		var jobs []int64
		runs := map[int64][]string{}
		sends := map[string]int{}
		firstAt := map[string]sim.Time{}
		for _, e := range ev.landed {
			if !slices.Contains(jobs, e.Job) {
				jobs = append(jobs, e.Job)
			}
			if sends[e.Run] == 0 {
				runs[e.Job] = append(runs[e.Job], e.Run)
				firstAt[e.Run] = e.AtUS
			}
			sends[e.Run]++
		}
		for i, j := range jobs {
			if i > 0 {
				add(dupCause{kind: KindPublishTwice, event: ev.event})
			}
			rs := runs[j]
			slices.SortStableFunc(rs, func(a, b string) int {
				return cmpTime(d.in.claimedAt(a), d.in.claimedAt(b))
			})
			for k, r := range rs {
				for range sends[r] - 1 {
					add(dupCause{kind: KindClientRetry, event: ev.event, job: j, run: r})
				}
				if k > 0 {
					c := d.in.pairCause(rs[k-1], r, firstAt[rs[k-1]])
					c.event, c.job = ev.event, j
					add(c)
				}
			}
		}
	}
	return cs
}

func cmpTime(a, b sim.Time) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// claimedAt returns when run claimed its job, or -1 if no claim of it was
// recorded.
func (in *interp) claimedAt(run string) sim.Time {
	if r := in.runs[run]; r != nil {
		return r.claimedAt
	}
	return -1
}

// causeWords says the causes in the order they were found, a kind that
// spans events (a publish, a client retry) once.
func (d *diagnosis) causeWords(cs []*dupCause) string {
	var parts []string
	said := map[DiagnosisKind]bool{}
	for _, c := range cs {
		switch c.kind {
		case KindPublishTwice:
			if said[c.kind] {
				continue
			}
			said[c.kind] = true
			var phrases []string
			for _, o := range cs {
				if o.kind == KindPublishTwice {
					ev := d.event(o.event)
					phrases = append(phrases, fmt.Sprintf("event %s %s (%s)", o.event, times(len(ev.jobs)), jobsWord(jobStrings(ev.jobs))))
				}
			}
			parts = append(parts, fmt.Sprintf("the producer published %s: an upstream retry, not the queue; only a key from the event id can see it", prose(phrases)))
		case KindClientRetry:
			if said[c.kind] {
				continue
			}
			said[c.kind] = true
			var phrases []string
			for _, o := range cs {
				if o.kind == KindClientRetry {
					switch {
					case d.multiJob:
						phrases = append(phrases, fmt.Sprintf("one run of job %d sent %s", o.job, times(o.n+1)))
					default:
						phrases = append(phrases, fmt.Sprintf("one run sent %s", times(o.n+1)))
					}
				}
			}
			if len(phrases) > 1 {
				phrases = nil
				for _, o := range cs {
					if o.kind == KindClientRetry {
						phrases = append(phrases, fmt.Sprintf("run %s of job %d sent %s", o.run, o.job, times(o.n+1)))
					}
				}
			}
			parts = append(parts, prose(phrases)+": a client retry after a timeout, not the queue")
		default:
			parts = append(parts, d.claimWords(c))
		}
	}
	return strings.Join(parts, "; and ")
}

// claimWords says why another run of one job could claim it, naming the
// two runs whose effects are paired when there is one pair.
func (d *diagnosis) claimWords(c *dupCause) string {
	job, ofJob := "the job", ""
	if d.multiJob {
		job = fmt.Sprintf("job %d", c.job)
		ofJob = " of " + job
	}
	if c.n == 1 && c.a != nil {
		a, b := c.a.worker, c.b.worker
		if a == b {
			a, b = a+" (run "+c.a.run+")", b+" (run "+c.b.run+")"
		}
		took := fmt.Sprintf("%s took %s", b, job)
		if len(c.between) > 0 {
			var ws []string
			for _, r := range c.between {
				ws = append(ws, r.worker)
			}
			took = fmt.Sprintf("%s took %s, then %s", prose(ws), job, b)
		}
		switch c.kind {
		case KindRedriven:
			if c.sentFirst {
				return fmt.Sprintf("redeliver put %s back after %s had sent its receipt, and %s ran it again: a re-drive or manual replay", job, a, b)
			}
			return fmt.Sprintf("redeliver put %s back while %s was still working on it, and %s ran it again: a re-drive or manual replay", job, a, b)
		case KindClaimRace:
			if len(c.between) > 0 {
				return fmt.Sprintf("%s claimed %s while %s's lease was still live, and %s did the work again: two workers claimed one delivery (a claim race)", c.between[0].worker, job, a, b)
			}
			return fmt.Sprintf("%s claimed %s while %s's lease was still live: two workers claimed one delivery (a claim race)", b, job, a)
		case KindLeaseExpired:
			return fmt.Sprintf("%s sent its receipt but never acked; its lease expired and %s: the lease expired under a run that did the work", a, took)
		case KindSlow:
			if c.a.processing == 0 {
				return fmt.Sprintf("%s's lease ran out before it sent its receipt, and %s: the lease was shorter than the work", a, took)
			}
			return fmt.Sprintf("%s was still processing when its lease ran out, and %s: processing outlived the lease", a, took)
		case KindSlowCall:
			return fmt.Sprintf("%s was waiting on the service's reply when its lease ran out, and %s: a slow downstream call outlived the lease", a, took)
		case KindStall:
			if c.a.heartbeat {
				return fmt.Sprintf("%s froze after its last heartbeat, past its lease, and %s: a stall past the lease", a, took)
			}
			return fmt.Sprintf("%s froze past its lease, and %s: a stall past the lease", a, took)
		case KindRedone:
			return fmt.Sprintf("%s claimed %s after %s had acked it", b, job, a)
		}
	}
	lease := "the lease" + ofJob
	switch c.kind {
	case KindRedriven:
		return fmt.Sprintf("redeliver put %s back in the queue %s (a re-drive or manual replay), and each time it ran again", job, times(c.n))
	case KindClaimRace:
		return fmt.Sprintf("%s workers claimed the same delivery%s (a claim race): claims overwrote a lease that had not run out", count(c.n+1), ofJob)
	case KindLeaseExpired:
		return fmt.Sprintf("%s expired %s under a run that sent its receipt but never acked", lease, times(c.n))
	case KindSlow:
		return fmt.Sprintf("%s ran out %s while a run was still working, and each time another worker took the job: processing outlived the lease", lease, times(c.n))
	case KindSlowCall:
		return fmt.Sprintf("%s ran out %s while a run waited on the service's reply, and each time another worker took the job: a slow downstream call outlived the lease", lease, times(c.n))
	case KindStall:
		return fmt.Sprintf("a run%s froze past its lease %s, and each time another worker took the job: a stall past the lease", ofJob, times(c.n))
	case KindRedone:
		return fmt.Sprintf("%s was claimed again after it was done, %s", job, times(c.n))
	}
	if d.multiJob {
		return fmt.Sprintf("the evidence cannot tell why %s ran again: no claim by these runs was recorded", job)
	}
	return "the evidence cannot tell why: no claim by these runs was recorded"
}

// doneOnce says how events that landed once were delivered: "delivered and
// done once" when each is one job delivered once with no other request,
// else "done once" (the notes say what else happened).
func (d *diagnosis) doneOnce(evs []*eventEvidence) string {
	for _, ev := range evs {
		if len(ev.jobs) != 1 || len(ev.replayed)+len(ev.refused) > 0 || d.attempts[ev.jobs[0]] > 1 {
			return "done once"
		}
	}
	return "delivered and done once"
}

// oneJobEach reports whether every event of evs is carried by one job.
func (d *diagnosis) oneJobEach(evs []*eventEvidence) bool {
	for _, ev := range evs {
		if len(ev.jobs) != 1 {
			return false
		}
	}
	return true
}

func (d *diagnosis) event(name string) *eventEvidence {
	if d.byName == nil {
		d.byName = make(map[string]*eventEvidence, len(d.evs))
		for _, ev := range d.evs {
			d.byName[ev.event] = ev
		}
	}
	return d.byName[name]
}

// notes says what else the evidence shows beside the duplicates: events
// published more than once whose copies did not land, requests the
// service answered from its keys, requests fencing refused, and jobs
// delivered more often than they sent.
func (d *diagnosis) notes(causes []*dupCause, held, foreign []Effect) []string {
	var notes []string
	var published []string
	saidPublish := map[string]bool{}
	for _, c := range causes {
		if c.kind == KindPublishTwice {
			saidPublish[c.event] = true
		}
	}
	for _, ev := range d.evs {
		if len(ev.jobs) < 2 || len(ev.landed) == 0 {
			continue
		}
		if !saidPublish[ev.event] {
			published = append(published, fmt.Sprintf("event %s %s (%s)", ev.event, times(len(ev.jobs)), jobsWord(jobStrings(ev.jobs))))
		}
	}
	if len(published) > 0 {
		notes = append(notes, "the producer published "+prose(published))
	}
	if len(held) > 0 {
		notes = append(notes, fmt.Sprintf("%s carried %s, already stored, and got the first answer back: the service's dedupe held", d.laterRequests(held), keysOf(held)))
	}
	if len(foreign) > 0 {
		notes = append(notes, d.foreignWhat(foreign))
	}
	var refused []string
	n := 0
	for _, ev := range d.evs {
		n += len(ev.refused)
		for _, r := range ev.refused {
			if j := fmt.Sprint(r.Job); !slices.Contains(refused, j) {
				refused = append(refused, j)
			}
		}
	}
	switch {
	case n == 1:
		notes = append(notes, fmt.Sprintf("a late request for %s carried an older fencing token and was refused: fencing kept a stale run out", jobsWord(refused)))
	case n > 1:
		notes = append(notes, fmt.Sprintf("%s late requests for %s carried older fencing tokens and were refused: fencing kept stale runs out", count(n), jobsWord(refused)))
	}
	for _, ev := range d.evs {
		runs := map[int64]map[string]bool{} // each job's runs that sent a request
		for _, rs := range [][]Effect{ev.landed, ev.replayed, ev.refused} {
			for _, r := range rs {
				if runs[r.Job] == nil {
					runs[r.Job] = map[string]bool{}
				}
				runs[r.Job][r.Run] = true
			}
		}
		for _, j := range ev.jobs {
			if a := d.attempts[j]; a > len(runs[j]) {
				notes = append(notes, fmt.Sprintf("job %d was delivered %s and only %s of its runs sent a request: at-least-once delivery, no further effect", j, times(a), count(len(runs[j]))))
			}
		}
	}
	return notes
}

// keyMissed says, for an event with more than one effect whose requests
// carried Idempotency-Keys, why the service's dedupe let the second one
// through: it was off, the keys differed, the key had expired, or the
// requests checked before either stored it. It says nothing when no
// request of such an event had a key.
func (d *diagnosis) keyMissed(landed []Effect) string {
	mode, _ := d.in.svc.Dedupe()
	var differ, differEvents, whys []string
	said := map[string]bool{} // each reason once
	why := func(w string) {
		if !said[w] {
			said[w] = true
			whys = append(whys, w)
		}
	}
	off := false
	// Each effect after an event's first is set against the earlier ones,
	// and the first that tells something decides for the event. What that
	// needs of the earlier effects (whether one carried a key, how many
	// carried each key) is counted as it goes, so each effect is looked at
	// once.
	for _, ev := range d.evs {
		keyed := false              // an earlier effect carried a key
		earlier := map[string]int{} // the earlier effects, by key
		all := map[string]int{}     // every effect of the event, by key
		for _, g := range ev.landed {
			all[g.Key]++
		}
		differs := false
	effects:
		for i, e := range ev.landed {
			if i > 0 && (e.Key != "" || keyed) {
				first := ev.landed[0]
				switch {
				case mode == receipts.DedupeOff:
					off = true
				case e.Key == "" || first.Key != e.Key:
					differs = true
				case e.KeyState == "expired":
					why(fmt.Sprintf("the service had stored key %s, but it had expired (older than the key TTL) when the request came again: the key was forgotten before the redelivery", e.Key))
				case mode == receipts.DedupeCheck:
					if n := all[e.Key]; n == 2 {
						why(fmt.Sprintf("both requests checked key %s before either stored it: check-then-act let both through", e.Key))
					} else {
						why(fmt.Sprintf("%s requests checked key %s before any of them stored it: check-then-act let them all through", count(n), e.Key))
					}
				case i > earlier[e.Key]:
					// The first request's key was this one, and the
					// dedupe held it; a later one carried another.
					differs = true
				default:
					// The dedupe held this one: the next effect decides.
					keyed = true
					earlier[e.Key]++
					continue
				}
				break effects // the first effect that tells decides for the event
			}
			keyed = keyed || e.Key != ""
			earlier[e.Key]++
		}
		if differs {
			differ = append(differ, fmt.Sprintf("%s (%s)", ev.event, keyCounts(ev.landed)))
			differEvents = append(differEvents, ev.event)
		}
	}
	if off {
		return fmt.Sprintf("the requests carried keys (%s), but the service's dedupe is off", keyCounts(landed))
	}
	switch {
	case len(differ) == 1:
		ev := d.event(differEvents[0])
		which := "one event"
		if len(d.evs) > 1 {
			which = "event " + ev.event
		}
		whys = append([]string{fmt.Sprintf("the service deduplicates, but the requests for %s carried different keys (%s): the key is not the event's, so the service saw %s requests; only the event id is the same on every copy", which, keyCounts(ev.landed), count(len(ev.landed)))}, whys...)
	case len(differ) > 1:
		whys = append([]string{fmt.Sprintf("the service deduplicates, but the requests for each of these events carried different keys, %s: the key is not the event's, so the service saw each copy as a new request; only the event id is the same on every copy", prose(differ))}, whys...)
	}
	return strings.Join(whys, "; ")
}

// keyCounts lists the keys of rs in order of first use, each once, with
// how many requests carried it: "job-1 and job-2", "ev-1 twice", "none".
func keyCounts(rs []Effect) string {
	var keys []string
	n := map[string]int{}
	for _, r := range rs {
		k := r.Key
		if k == "" {
			k = "none"
		}
		if n[k] == 0 {
			keys = append(keys, k)
		}
		n[k]++
	}
	var xs []string
	for _, k := range keys {
		if n[k] > 1 {
			k += " " + times(n[k])
		}
		xs = append(xs, k)
	}
	return prose(xs)
}

// distinctKeys lists the distinct keys of rs, in order of first use.
func distinctKeys(rs []Effect) []string {
	var keys []string
	for _, r := range rs {
		if !slices.Contains(keys, r.Key) {
			keys = append(keys, r.Key)
		}
	}
	return keys
}

// keysOf says the distinct keys of rs: "key ev-1", "keys ev-1 and ev-2".
func keysOf(rs []Effect) string {
	keys := distinctKeys(rs)
	if len(keys) == 1 {
		return "key " + keys[0]
	}
	return "keys " + prose(keys)
}

// prose writes a list as a reader does: "a", "a and b", "a, b and c". Past
// a handful it writes the first few and how many more: "a, b, c, d and 3
// more"; it never drops an item silently.
func prose(xs []string) string {
	const handful = 5
	if len(xs) > handful {
		xs = append(xs[:handful-1:handful-1], fmt.Sprintf("%d more", len(xs)-(handful-1)))
	}
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

// jobsWord writes job ids as "job 3" or "jobs 1, 2 and 3".
func jobsWord(js []string) string {
	if len(js) == 1 {
		return "job " + js[0]
	}
	return "jobs " + prose(js)
}

func jobStrings(js []int64) []string {
	var xs []string
	for _, j := range js {
		xs = append(xs, fmt.Sprint(j))
	}
	return xs
}

var countWords = [...]string{"no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}

// count writes n in words up to ten, in digits past it.
func count(n int) string {
	if n >= 0 && n < len(countWords) {
		return countWords[n]
	}
	return fmt.Sprint(n)
}

// times writes how often: "once", "twice", "three times".
func times(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return count(n) + " times"
}

// countNoun picks the singular phrase for one, the plural for more.
func countNoun(n int, one, more string) string {
	if n == 1 {
		return one
	}
	return more
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "they"
}

// pairCause names, from the histories of runs a and b of one job, both of
// which did the work (a claimed first, and its effect landed at sentAt),
// why b could do it again: why the job was taken from a. That is read
// from a's own history at the next claim of the job after a's: whether a
// redeliver put the job back in between, whether a had acked, whether a's
// lease was still live, and else what a was doing when its lease ran out:
// processing, frozen, waiting on the service's reply, or stopped without
// an ack. Runs in between that did no work play no part but to be named.
func (in *interp) pairCause(ra, rb string, sentAt sim.Time) dupCause {
	a, b := in.runs[ra], in.runs[rb]
	if a == nil || b == nil {
		return dupCause{kind: KindUnknown}
	}
	c := dupCause{a: a, b: b, sentFirst: sentAt <= b.claimedAt}
	claims := in.claims[a.job]
	i := slices.Index(claims, a)
	j := slices.Index(claims, b)
	if i < 0 || j <= i {
		c.kind = KindUnknown
		return c
	}
	next := claims[i+1]
	c.between = claims[i+1 : j]
	for _, r := range claims[i+1 : j+1] {
		if r.redriven {
			// Put back by hand: whatever a was doing, the queue did
			// not hand the job out again on its own.
			c.kind = KindRedriven
			return c
		}
	}
	t := next.claimedAt
	expiry := a.leaseAt(t)
	switch {
	case a.ackedBy(t):
		c.kind = KindRedone
	case t <= expiry:
		c.kind = KindClaimRace
	default:
		switch a.phaseAt(expiry) {
		case phaseClaimed, phaseProcessing:
			c.kind = KindSlow
		case phaseStalled:
			c.kind = KindStall
		case phaseSending:
			c.kind = KindSlowCall
		default: // killed, or stopped without an ack, before the lease ran out
			c.kind = KindLeaseExpired
		}
	}
	return c
}

// untracedDuplicateLog reports whether worker.log has two identical lines
// that carry no run id: evidence that cannot tell two sends apart. The
// diagnosis says so only when the script printed worker.log.
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

// countPhrase says how many of an order's requests were effects, refused
// and replayed, each named: "1 effect, 1 refused". The one rule for the
// transcript, the panel and the tables (render.js's countPhrase says it
// the same way).
func countPhrase(effects, refused, replayed int) string {
	s := fmt.Sprintf("%d effect", effects)
	if effects != 1 {
		s += "s"
	}
	if refused > 0 {
		s += fmt.Sprintf(", %d refused", refused)
	}
	if replayed > 0 {
		s += fmt.Sprintf(", %d replayed", replayed)
	}
	return s
}

// roundGap prints a gap as a reader of a diagnosis needs it: below 10 ms
// as fmtGap does, then whole milliseconds, then seconds with a tenth
// below 10 s ("2.1 s") and whole seconds above ("120 s").
func roundGap(d sim.Time) string {
	switch {
	case d < sim.Second:
		return fmtGap(d)
	case d < 10*sim.Second:
		t := (d + 50*sim.Millisecond) / (100 * sim.Millisecond)
		if t%10 == 0 {
			return fmt.Sprintf("%d s", t/10)
		}
		return fmt.Sprintf("%d.%d s", t/10, t%10)
	}
	return fmt.Sprintf("%d s", (d+sim.Second/2)/sim.Second)
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
