package diagnosis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/twice-lab/twice/runtime/receipts"
	"github.com/twice-lab/twice/runtime/sim"
)

// Evidence is what the diagnosis reads: the requests the receipts service
// recorded (each with the dedupe mode it arrived under), the jobs'
// attempts, the runs' history, and worker.log. Nothing in it is the state
// of a later moment than the evidence itself: a mode set after a request
// arrived does not change what that request met.
type Evidence struct {
	// Effects is every request the service recorded, in order of arrival.
	Effects []receipts.Effect
	// Attempts is each job's attempts, as the jobs table has them.
	Attempts map[int64]int
	// History is what every run did, from its claim on.
	History *History
	// Log is worker.log; ShownLog says the script printed it since the
	// last reset (a duplicate its lines cannot tell apart is then named).
	Log      []string
	ShownLog bool
	// Jobs is each job's order and event, as the jobs table has them: a
	// job that sent no request belongs to an order all the same.
	Jobs []JobOf
}

// JobOf is one job's order and event.
type JobOf struct {
	ID           int64
	Order, Event string
}

// Summarize groups the recorded requests by order, in order of first
// arrival, and diagnoses each group: one Summary per order.
func Summarize(ev Evidence) []Summary {
	in := &ev
	attempts := ev.Attempts
	var sums []Summary
	idx := map[string]int{}
	groups := map[string][]receipts.Effect{}
	answers := map[string]receipts.Effect{} // run -> its first request that landed
	// A tag names the job only when an order's requests come from more
	// than one job: otherwise the job is the same in every tag.
	jobsOf := map[string]map[int64]bool{}
	for _, e := range ev.Effects {
		if jobsOf[e.Order] == nil {
			jobsOf[e.Order] = map[int64]bool{}
		}
		jobsOf[e.Order][e.Job] = true
	}
	for _, e := range ev.Effects {
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
		groups[e.Order] = append(groups[e.Order], e)
		if _, ok := answers[e.Run]; !ok && !e.Refused && !e.Replayed {
			answers[e.Run] = e
		}
	}
	untraced := ev.ShownLog && untracedDuplicateLog(ev.Log)
	for i := range sums {
		s := &sums[i]
		in.diagnose(s, groups[s.Order], attempts, answers)
		if s.Effects > 1 && untraced {
			s.Diagnosis += "; worker.log could not tell these runs apart: its lines carry no run id (add --trace)"
		}
	}
	return sums
}

// eventEvidence is what one order's requests show about one of its
// events: the jobs that carry it and its requests, by what became of them.
type eventEvidence struct {
	event    string
	jobs     []int64 // in order of their first request
	hasJob   map[int64]bool
	landed   []receipts.Effect
	replayed []receipts.Effect // deduplicated: answered with the first answer of FirstRun
	refused  []receipts.Effect
}

// byEvent groups an order's requests by event, in order of first request.
func byEvent(reqs []receipts.Effect) []*eventEvidence {
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
	kind      Kind
	event     string
	job       int64
	run       string
	n         int
	a, b      *Record
	between   []*Record // runs that claimed the job between a and b
	sentFirst bool
	// early says a's lease had run out by the time its claim was written
	// (a lease shorter than the claim's own statements).
	early bool
	// gap, for a client retry, is from the run's first effect to its last.
	gap sim.Time
	// before, for a re-drive, is why the job had left a before it: the
	// cause at the claim right after a's, when that claim was no re-drive.
	before *dupCause
}

// diagnose fills in the counts of s from the order's recorded requests, and
// names what the evidence shows. The evidence is grouped by event: one
// effect per event is right, and every further effect of an event is a
// duplicate, named from the job and run ids, the attempts, the claim times
// and the lease history. It never guesses from the gap alone.
func (in *Evidence) diagnose(s *Summary, reqs []receipts.Effect, attempts map[int64]int, answers map[string]receipts.Effect) {
	runs := map[string]bool{}
	jobs := map[int64]bool{}
	var landed []receipts.Effect
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
		gap = landed[len(landed)-1].At - landed[0].At
	}
	s.SpanMS = gap / sim.Millisecond
	s.Span = FormatGap(gap)

	d := &orderEvidence{h: in.History, order: s.Order, evs: byEvent(reqs), attempts: attempts, answers: answers, gap: gap}
	// The runs' spread is every request's, replayed and refused ones
	// included: a run whose request the service answered from its key
	// ran all the same.
	if len(reqs) > 1 {
		d.spread = reqs[len(reqs)-1].At - reqs[0].At
	}
	d.silent = in.silentJobs(d, jobs)
	d.multiJob = len(jobs)+len(d.silent) > 1
	if len(landed) <= 1 {
		s.Kind, s.Diagnosis = d.single(landed, s.Refused)
	} else {
		s.Kind, s.Diagnosis = d.several(s, landed)
	}
	d.sayTheSilent(s)
}

// orderEvidence is the evidence of one order while it is put into words.
type orderEvidence struct {
	h        *History
	order    string
	evs      []*eventEvidence
	multiJob bool // the order's requests come from more than one job (its silent jobs counted)
	// silent are the order's jobs that carry one of its events, were
	// claimed, and sent no request (silent.go).
	silent   []silentJob
	attempts map[int64]int
	answers  map[string]receipts.Effect
	gap      sim.Time                  // first to last effect
	spread   sim.Time                  // first to last request, effect or not
	byName   map[string]*eventEvidence // evs by event id, made on first use
}

// answerOf returns the request whose answer a replayed request got back.
func (d *orderEvidence) answerOf(r receipts.Effect) (receipts.Effect, bool) {
	a, ok := d.answers[r.FirstRun]
	return a, ok
}

// sorted splits the replayed requests of the order: those answered with
// the answer of their own event (the dedupe held), those answered with
// another event's of this order (swallowed), and those answered with
// another order's (the key is shared across orders).
func (d *orderEvidence) sorted() (held, swallowed, foreign []receipts.Effect) {
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
func (d *orderEvidence) single(landed []receipts.Effect, refused int) (Kind, string) {
	held, swallowed, foreign := d.sorted()
	switch {
	case len(landed) == 0 && len(foreign) > 0:
		a, _ := d.answerOf(foreign[0])
		return Swallowed, fmt.Sprintf("no effect for this order: %s carried %s, which a request for %s (run %s) had stored, and got that request's answer back: if the two orders' events are different, a key shared across orders swallowed this order's effect; the evidence cannot tell whether they are one event", countNoun(len(foreign), "its request", "its "+count(len(foreign))+" requests"), keysOf(foreign), a.Order, a.Run)
	case len(landed) == 1 && len(swallowed) > 0:
		first := landed[0]
		text := fmt.Sprintf("one effect, for event %s; %s: the key is too coarse, and %s", first.Event, d.swallowedWhat(swallowed), swallowedCount(swallowed, 1))
		if len(held) > 0 {
			text += fmt.Sprintf("; %s got the first answer back too, as %s should", d.laterRequests(held), pronoun(len(held)))
		}
		if len(foreign) > 0 {
			text += "; " + d.foreignWhat(foreign)
		}
		return Swallowed, text
	case len(held) > 0:
		text := fmt.Sprintf("one effect; %s carried %s, already stored, and got the first answer back: the service's dedupe held", countNoun(len(held), "a later request", count(len(held))+" later requests"), keysOf(held))
		if race, _, ok := d.oneEffectRace(fateReplayed); ok {
			text = "one effect: " + race
		} else if race, _, ok := d.oneEffectRace(); ok {
			text += "; and " + race
		}
		if len(foreign) > 0 {
			text += "; " + d.foreignWhat(foreign)
		}
		return Deduped, text
	case refused > 0:
		lost, stale := d.refusedRuns()
		if len(lost) == 0 {
			text := fmt.Sprintf("one effect; %s: fencing kept a stale run out", countNoun(refused, "a late request carried an older fencing token and was refused", count(refused)+" late requests carried older fencing tokens and were refused"))
			if race, _, ok := d.oneEffectRace(); ok {
				text += "; and " + race
			}
			return Fenced, text
		}
		_, said := d.fate(lost[0].loser)
		text := fmt.Sprintf("one effect: %s; %s%s", d.raceWords(lost[0]), said, fateEnd(fateRefused))
		for _, r := range lost[1:] {
			text += "; " + d.lostRaceWords(r)
		}
		if len(stale) > 0 {
			text += "; " + staleWords(stale, d)
		}
		return Fenced, text
	}
	// A claim race with one effect: the run that lost it stopped, was
	// killed or had not sent yet. It is no redelivery, whatever the
	// attempts say.
	if text, _, ok := d.oneEffectRace(); ok {
		return RaceCaught, "one effect: " + text
	}
	if text, ok := d.claimedAfterAck(); ok {
		return RaceCaught, "one effect: " + text
	}
	most := 0
	for _, ev := range d.evs {
		for _, j := range ev.jobs {
			most = max(most, d.attempts[j])
		}
	}
	if most > 1 {
		more, own := d.handedOut()
		if own == 0 {
			// Every delivery after the first was a re-drive.
			return Redelivery, fmt.Sprintf("delivered %s, one effect: %s; no duplicate effect", times(most), strings.Join(more, "; "))
		}
		text := fmt.Sprintf("delivered %s, one effect: at-least-once delivery doing its job, no duplicate effect", times(most))
		if len(more) > 0 {
			text += "; " + strings.Join(more, "; ")
		}
		return Redelivery, text
	}
	return Once, "one delivery, one effect"
}

// swallowedWhat says which requests of other events got an earlier
// event's answer back on their key.
func (d *orderEvidence) swallowedWhat(sw []receipts.Effect) string {
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
func swallowedCount(sw []receipts.Effect, landedEvents int) string {
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
func (d *orderEvidence) foreignWhat(fr []receipts.Effect) string {
	a, _ := d.answerOf(fr[0])
	return fmt.Sprintf("%s carried %s, which a request for %s (run %s) had stored, and got that answer back: the evidence cannot tell whether the producer meant one event for two orders", d.laterRequests(fr), keysOf(fr), a.Order, a.Run)
}

// eventsOf lists the events of rs in order, and for each "ev-2 (job 3)".
func (d *orderEvidence) eventsOf(rs []receipts.Effect) ([]string, []string) {
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
func (d *orderEvidence) laterRequests(rs []receipts.Effect) string {
	_, phrases := d.eventsOf(rs)
	if len(rs) == 1 {
		return "the later request for " + phrases[0]
	}
	return fmt.Sprintf("the %s later requests for %s", count(len(rs)), prose(phrases))
}

// several names what happened to an order with two effects or more.
func (d *orderEvidence) several(s *Summary, landed []receipts.Effect) (Kind, string) {
	causes := d.causes()
	held, swallowed, foreign := d.sorted()
	kind := kindOf(causes, len(swallowed) > 0)
	landedEvents, right, dup := d.byLanded()
	if d.onlyRetry(causes, held, foreign, s, landed) {
		return kind, fmt.Sprintf("one run sent %s: a client retry after a timeout, not the queue", times(s.Effects))
	}
	var parts []string
	switch {
	case len(dup) == 0:
		parts = append(parts, d.eachOnce(landedEvents))
	case len(landedEvents) == 1:
		// One event: every effect after the first is a duplicate.
		parts = append(parts, d.causeWords(causes))
	default:
		parts = append(parts, d.someTwice(landed, landedEvents, right, dup, causes)...)
	}
	if len(swallowed) > 0 {
		parts = append(parts, d.swallowedWhat(swallowed)+": the key is too coarse, and "+swallowedCount(swallowed, len(landedEvents)))
	}
	if why := d.keyMissed(landed); why != "" {
		parts = append(parts, why)
	}
	parts = append(parts, d.notes(causes, held, foreign)...)
	if s.Runs == 1 {
		return kind, fmt.Sprintf("one run, its sends %s apart: %s", RoundGap(d.gap), strings.Join(parts, "; "))
	}
	return kind, fmt.Sprintf("%d runs %s apart: %s", s.Runs, RoundGap(max(d.gap, d.spread)), strings.Join(parts, "; "))
}

// kindOf is the kind of an order with two effects or more: the one kind
// its causes (and a swallowed event) have, mixed for more than one, two
// jobs for none.
func kindOf(causes []*dupCause, swallowed bool) Kind {
	var kinds []Kind
	for _, c := range causes {
		if !slices.Contains(kinds, c.kind) {
			kinds = append(kinds, c.kind)
		}
	}
	if swallowed {
		kinds = append(kinds, Swallowed)
	}
	switch {
	case len(kinds) == 1:
		return kinds[0]
	case len(kinds) > 1:
		return Mixed
	}
	return TwoJobs
}

// byLanded returns the events that landed, and among them those with one
// effect and those with more.
func (d *orderEvidence) byLanded() (landed, right, dup []*eventEvidence) {
	for _, ev := range d.evs {
		switch {
		case len(ev.landed) == 1:
			right = append(right, ev)
		case len(ev.landed) > 1:
			dup = append(dup, ev)
		}
		if len(ev.landed) > 0 {
			landed = append(landed, ev)
		}
	}
	return landed, right, dup
}

// onlyRetry reports whether one run and its retry are the whole story:
// one event, one job, every effect from one run, and nothing else to say.
func (d *orderEvidence) onlyRetry(causes []*dupCause, held, foreign []receipts.Effect, s *Summary, landed []receipts.Effect) bool {
	if len(causes) != 1 || causes[0].kind != ClientRetry || len(d.evs) != 1 || d.multiJob || len(held)+len(foreign) > 0 || s.Refused > 0 || d.keyMissed(landed) != "" {
		return false
	}
	for _, e := range landed {
		if e.Run != landed[0].Run {
			return false
		}
	}
	return true
}

// eventNames lists the events' ids.
func eventNames(evs []*eventEvidence) []string {
	var xs []string
	for _, ev := range evs {
		xs = append(xs, ev.event)
	}
	return xs
}

// eachOnce says an order whose every event landed once: two effects may
// be right, unless two events are one.
func (d *orderEvidence) eachOnce(landedEvents []*eventEvidence) string {
	evjobs := prose(eventNames(landedEvents))
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
	return fmt.Sprintf("%s events for the order (%s), each %s: %s effects may be right; if %s, the producer should have sent one event id", count(len(landedEvents)), evjobs, d.doneOnce(landedEvents), count(len(landedEvents)), them)
}

// someTwice says an order of several events of which some landed more
// than once: how many effects are duplicates and of which events, their
// causes, the events that were right, and the caveat that two events
// may be one.
func (d *orderEvidence) someTwice(landed []receipts.Effect, landedEvents, right, dup []*eventEvidence, causes []*dupCause) []string {
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
	parts := []string{fmt.Sprintf("%s effects for %s events: one per event is right and %s %s%s: %s", count(len(landed)), count(len(landedEvents)), count(extra), isAre, attribution, d.causeWords(causes))}
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
	caveat := ""
	if len(landedEvents) == 2 {
		caveat = fmt.Sprintf("if %s are one event, the producer should have sent one event id", prose(eventNames(landedEvents)))
	} else if len(landedEvents) > 2 {
		caveat = fmt.Sprintf("if two of %s are one event, the producer should have sent one event id", prose(eventNames(landedEvents)))
	}
	return append(parts, caveat)
}

// causes names, for every effect of an event after its first, why it
// could happen. An event's effects come from its jobs, each job's from
// its runs, each run's from its sends: a run that sent again is a client
// retry; a second job that carries the event is a publish; and a second
// run of one job is paired with the run of that job that did the work
// before it, in claim order (the order the claims were written, not
// their instants, which two claims may share), and pairCause reads the
// two runs' histories. So every extra effect gets one cause. Causes of
// one kind, event, job and run are counted together.
func (d *orderEvidence) causes() []*dupCause {
	type causeKey struct {
		kind  Kind
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
		firstAt, lastAt := map[string]sim.Time{}, map[string]sim.Time{}
		for _, e := range ev.landed {
			lastAt[e.Run] = e.At
			if !slices.Contains(jobs, e.Job) {
				jobs = append(jobs, e.Job)
			}
			if sends[e.Run] == 0 {
				runs[e.Job] = append(runs[e.Job], e.Run)
				firstAt[e.Run] = e.At
			}
			sends[e.Run]++
		}
		for i, j := range jobs {
			if i > 0 {
				add(dupCause{kind: PublishTwice, event: ev.event})
			}
			rs := runs[j]
			slices.SortStableFunc(rs, func(a, b string) int {
				return d.h.claimOrder(a) - d.h.claimOrder(b)
			})
			for k, r := range rs {
				for range sends[r] - 1 {
					add(dupCause{kind: ClientRetry, event: ev.event, job: j, run: r, gap: lastAt[r] - firstAt[r]})
				}
				if k > 0 {
					c := d.h.pairCause(rs[k-1], r, firstAt[rs[k-1]])
					c.event, c.job = ev.event, j
					if b := c.before; b != nil {
						b.event, b.job = ev.event, j
						add(*b)
					}
					add(c)
				}
			}
		}
	}
	return cs
}

// claimOrder returns the place of run's claim among its job's claims, in
// the order they were written (two claims at one instant keep the order
// SQLite ran them in), or -1 if no claim of it was recorded.
func (h *History) claimOrder(run string) int {
	if r := h.runs[run]; r != nil {
		return slices.Index(h.claims[r.job], r)
	}
	return -1
}

// causeWords says the causes in the order they were found, a kind that
// spans events (a publish, a client retry) once.
func (d *orderEvidence) causeWords(cs []*dupCause) string {
	var parts []string
	said := map[Kind]bool{}
	for _, c := range cs {
		switch c.kind {
		case PublishTwice:
			if said[c.kind] {
				continue
			}
			said[c.kind] = true
			var phrases []string
			for _, o := range cs {
				if o.kind == PublishTwice {
					copies := d.copies(o.event)
					phrases = append(phrases, fmt.Sprintf("event %s %s (%s)", o.event, times(len(copies)), jobsWord(jobStrings(copies))))
				}
			}
			parts = append(parts, fmt.Sprintf("the producer published %s: an upstream retry, not the queue; only a key from the event id can see it", prose(phrases)))
		case ClientRetry:
			if said[c.kind] {
				continue
			}
			said[c.kind] = true
			var phrases []string
			for _, o := range cs {
				if o.kind == ClientRetry {
					apart := ""
					if o.gap != max(d.gap, d.spread) {
						apart = ", " + RoundGap(o.gap) + " apart"
					}
					switch {
					case d.multiJob:
						phrases = append(phrases, fmt.Sprintf("one run of job %d sent %s%s", o.job, times(o.n+1), apart))
					default:
						phrases = append(phrases, fmt.Sprintf("one run sent %s%s", times(o.n+1), apart))
					}
				}
			}
			if len(phrases) > 1 {
				phrases = nil
				for _, o := range cs {
					if o.kind == ClientRetry {
						phrases = append(phrases, fmt.Sprintf("run %s of job %d sent %s, %s apart", o.run, o.job, times(o.n+1), RoundGap(o.gap)))
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
func (d *orderEvidence) claimWords(c *dupCause) string {
	job, ofJob := "the job", ""
	if d.multiJob {
		job = fmt.Sprintf("job %d", c.job)
		ofJob = " of " + job
	}
	if c.n == 1 && c.a != nil {
		if w := pairWords(c, job); w != "" {
			return w
		}
	}
	lease := "the lease" + ofJob
	switch c.kind {
	case Redriven:
		return fmt.Sprintf("redeliver put %s back in the queue %s (a re-drive or manual replay), and each time it ran again", job, times(c.n))
	case ClaimRace:
		return fmt.Sprintf("%s workers claimed the same delivery%s (a claim race): claims overwrote a lease that had not run out", count(c.n+1), ofJob)
	case LeaseExpired:
		return fmt.Sprintf("%s expired %s under a run that sent its receipt but never acked", lease, times(c.n))
	case Slow:
		return fmt.Sprintf("%s ran out %s while a run was still working, and each time another worker took the job: processing outlived the lease", lease, times(c.n))
	case SlowCall:
		return fmt.Sprintf("%s ran out %s while a run waited on the service's reply, and each time another worker took the job: a slow downstream call outlived the lease", lease, times(c.n))
	case Stall:
		return fmt.Sprintf("a run%s froze past its lease %s, and each time another worker took the job: a stall past the lease", ofJob, times(c.n))
	case Redone:
		return fmt.Sprintf("%s was claimed again after it was done, %s", job, times(c.n))
	}
	if d.multiJob {
		return fmt.Sprintf("the evidence cannot tell why %s ran again: no claim by these runs was recorded", job)
	}
	return "the evidence cannot tell why: no claim by these runs was recorded"
}

// pairWords says why run c.b could do the work of job (its words) again
// after run c.a, for a cause of one pair; "" for a kind with no such
// words.
func pairWords(c *dupCause, job string) string {
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
	case Redriven:
		if c.sentFirst {
			return fmt.Sprintf("redeliver put %s back after %s had sent its receipt, and %s ran it again: a re-drive or manual replay", job, a, b)
		}
		return fmt.Sprintf("redeliver put %s back while %s was still working on it, and %s ran it again: a re-drive or manual replay", job, a, b)
	case ClaimRace:
		if c.sentFirst && c.a.was(PhaseKilled) && len(c.between) == 0 {
			// a's claim was not raced: it did its work and died, and b
			// took the job over a lease that was still live.
			return fmt.Sprintf("%s sent its receipt and was killed before its ack, and %s claimed %s while %s's lease was still live: a claim that ignores a live lease (a claim race)", a, b, job, a)
		}
		if len(c.between) > 0 {
			return fmt.Sprintf("%s claimed %s while %s's lease was still live, and %s did the work again: two workers claimed one delivery (a claim race)", c.between[0].worker, job, a, b)
		}
		return fmt.Sprintf("%s claimed %s while %s's lease was still live: two workers claimed one delivery (a claim race)", b, job, a)
	case LeaseExpired:
		if c.early {
			return fmt.Sprintf("%s's lease had run out by the time its claim was written; %s sent its receipt but never acked, and %s: the lease expired under a run that did the work", a, c.a.worker, took)
		}
		return fmt.Sprintf("%s sent its receipt but never acked; its lease expired and %s: the lease expired under a run that did the work", a, took)
	case Slow:
		if c.early {
			what := "working"
			if c.a.Processing > 0 {
				what = "processing"
			}
			return fmt.Sprintf("%s's lease had run out by the time its claim was written, and %s while %s was still %s: the lease was shorter than the work", a, took, c.a.worker, what)
		}
		if c.a.Processing == 0 {
			return fmt.Sprintf("%s's lease ran out before it sent its receipt, and %s: the lease was shorter than the work", a, took)
		}
		return fmt.Sprintf("%s was still processing when its lease ran out, and %s: processing outlived the lease", a, took)
	case SlowCall:
		if c.early {
			return fmt.Sprintf("%s's lease had run out by the time its claim was written, and %s while %s was waiting on the service's reply: the lease was shorter than the call", a, took, c.a.worker)
		}
		return fmt.Sprintf("%s was waiting on the service's reply when its lease ran out, and %s: a slow downstream call outlived the lease", a, took)
	case Stall:
		if c.early {
			return fmt.Sprintf("%s's lease had run out by the time its claim was written, and %s while %s was frozen: a stall past the lease", a, took, c.a.worker)
		}
		if c.a.Heartbeat {
			return fmt.Sprintf("%s froze after its last heartbeat, past its lease, and %s: a stall past the lease", a, took)
		}
		return fmt.Sprintf("%s froze past its lease, and %s: a stall past the lease", a, took)
	case Redone:
		return fmt.Sprintf("%s claimed %s after %s had acked it", b, job, a)
	}
	return ""
}

// doneOnce says how events that landed once were delivered: "delivered and
// done once" when each is one job delivered once with no other request,
// else "done once" (the notes say what else happened).
func (d *orderEvidence) doneOnce(evs []*eventEvidence) string {
	for _, ev := range evs {
		if len(ev.jobs) != 1 || len(ev.replayed)+len(ev.refused) > 0 || d.attempts[ev.jobs[0]] > 1 {
			return "done once"
		}
	}
	return "delivered and done once"
}

// oneJobEach reports whether every event of evs is carried by one job.
func (d *orderEvidence) oneJobEach(evs []*eventEvidence) bool {
	for _, ev := range evs {
		if len(ev.jobs) != 1 {
			return false
		}
	}
	return true
}

func (d *orderEvidence) event(name string) *eventEvidence {
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
func (d *orderEvidence) notes(causes []*dupCause, held, foreign []receipts.Effect) []string {
	var notes []string
	var published []string
	saidPublish := map[string]bool{}
	for _, c := range causes {
		if c.kind == PublishTwice {
			saidPublish[c.event] = true
		}
	}
	for _, ev := range d.evs {
		if len(ev.jobs) < 2 || len(ev.landed) == 0 {
			continue
		}
		if !saidPublish[ev.event] {
			copies := d.copies(ev.event)
			published = append(published, fmt.Sprintf("event %s %s (%s)", ev.event, times(len(copies)), jobsWord(jobStrings(copies))))
		}
	}
	if len(published) > 0 {
		notes = append(notes, "the producer published "+prose(published))
	}
	// A replayed request whose run lost a claim race is said with the
	// race; the rest of the replays together.
	races, held := d.replayedRaces(held)
	if len(held) > 0 {
		notes = append(notes, d.whyRan(held)...)
		notes = append(notes, fmt.Sprintf("%s carried %s, already stored, and got the first answer back: the service's dedupe held", d.laterRequests(held), keysOf(held)))
	}
	notes = append(notes, races...)
	if len(foreign) > 0 {
		notes = append(notes, d.foreignWhat(foreign))
	}
	lost, stale := d.refusedRuns()
	for _, r := range lost {
		notes = append(notes, d.lostRaceWords(r))
	}
	if len(stale) > 0 {
		notes = append(notes, staleWords(stale, d))
	}
	notes = append(notes, d.staleLanded()...)
	notes = append(notes, d.sharedTokens()...)
	for _, ev := range d.evs {
		runs := map[int64]map[string]bool{} // each job's runs that sent a request
		for _, rs := range [][]receipts.Effect{ev.landed, ev.replayed, ev.refused} {
			for _, r := range rs {
				if runs[r.Job] == nil {
					runs[r.Job] = map[string]bool{}
				}
				runs[r.Job][r.Run] = true
			}
		}
		for _, j := range ev.jobs {
			if a := d.attempts[j]; a > len(runs[j]) {
				notes = append(notes, fmt.Sprintf("job %d was delivered %s and only %s of its runs sent a request: %s", j, times(a), count(len(runs[j])), d.noRequest(j, runs[j])))
			}
		}
	}
	return notes
}

// noRequest says why runs of job j sent no request, when some did not:
// the first claim race of the job with a run that sent nothing (its
// claim, or the one over its live lease, was a race) and what stopped
// it; each run whose claim moved the job to the dead-letter queue, and
// each that a re-drive handed the job; and at-least-once delivery for
// any other.
func (d *orderEvidence) noRequest(j int64, sent map[string]bool) string {
	var parts []string
	said := map[string]bool{}
	for _, r := range d.racesOf() {
		if r.b.job != j || len(parts) > 0 {
			continue
		}
		for _, l := range []*Record{r.a, r.b} {
			if !sent[l.run] {
				_, why := d.fate(l)
				parts = append(parts, d.raceWords(r)+", and "+why)
				said[l.run] = true
				break
			}
		}
	}
	silent := 0
	for _, r := range d.h.claims[j] {
		if sent[r.run] {
			continue
		}
		silent++
		switch {
		case said[r.run]:
		case r.was(PhaseDead):
			_, why := d.fate(r)
			parts = append(parts, why)
			said[r.run] = true
		case r.redriven && r.prev != nil:
			_, why := d.fate(r)
			parts = append(parts, d.redriveWords(r)+", and "+why)
			said[r.run] = true
		case d.h.nextClaim(r) != nil && d.h.nextClaim(r).redriven:
			// A re-drive took the job from r while r held it: the
			// re-drive, and what it left r to do, are its story.
			_, why := d.fate(r)
			parts = append(parts, d.redriveWords(d.h.nextClaim(r))+", and "+why)
			said[r.run] = true
		}
	}
	switch {
	case len(parts) == 0:
		return "at-least-once delivery, no further effect"
	case len(said) < silent:
		parts = append(parts, "at-least-once delivery for the rest, no further effect")
	}
	return strings.Join(parts, "; ")
}

// keyMissed says, for an event with more than one effect whose requests
// carried Idempotency-Keys, why the service's dedupe let the second one
// through: it was off when the request arrived, the key was never stored
// (the first request came while it was off), the keys differed, the key
// had expired, or the requests checked before either stored it. Each
// request is judged by the mode it arrived under (receipts.Effect.Dedupe),
// not by the mode set later. It says nothing when no request of such an
// event had a key.
func (d *orderEvidence) keyMissed(landed []receipts.Effect) string {
	var differ, differEvents, whys []string
	said := map[string]bool{} // each reason once
	why := func(w string) {
		if !said[w] {
			said[w] = true
			whys = append(whys, w)
		}
	}
	off := 0 // later effects that arrived while the dedupe was off
	for _, ev := range d.evs {
		n, differs := eventKeyMissed(ev, why)
		off += n
		if differs {
			differ = append(differ, fmt.Sprintf("%s (%s)", ev.event, keyCounts(ev.landed)))
			differEvents = append(differEvents, ev.event)
		}
	}
	switch {
	case len(differ) == 1:
		ev := d.event(differEvents[0])
		which := "one event"
		if len(d.evs) > 1 {
			which = "event " + ev.event
		}
		whys = append([]string{fmt.Sprintf("the service deduplicated on keys, but the requests for %s carried different keys (%s): the key is not the event's, so the service saw %s requests; only the event id is the same on every copy", which, keyCounts(ev.landed), count(len(ev.landed)))}, whys...)
	case len(differ) > 1:
		whys = append([]string{fmt.Sprintf("the service deduplicated on keys, but the requests for each of these events carried different keys, %s: the key is not the event's, so the service saw each copy as a new request; only the event id is the same on every copy", prose(differ))}, whys...)
	}
	if off > 0 {
		when := "they"
		for _, e := range landed {
			if e.Dedupe != receipts.DedupeOff {
				when = countNoun(off, "the later one", count(off)+" later ones")
			}
		}
		whys = append([]string{fmt.Sprintf("the requests carried keys (%s), but the service's dedupe was off when %s arrived", keyCounts(landed), when)}, whys...)
	}
	return strings.Join(whys, "; ")
}

// eventKeyMissed sets each effect of ev after its first against the
// earlier ones, and each that tells something is told: it returns how many later effects arrived with the dedupe off,
// whether the keys differed, and says any other reason through why. What
// that needs of the earlier effects (whether one carried a key, how many
// carried each key, whether one was stored) is counted as it goes, so
// each effect is looked at once.
func eventKeyMissed(ev *eventEvidence, why func(string)) (off int, differs bool) {
	keyed := false                      // an earlier effect carried a key
	earlier := map[string]int{}         // the earlier effects, by key
	stored := map[string]bool{}         // an earlier effect with this key arrived while the dedupe was on
	checked := map[string]int{}         // the event's effects, by key, that arrived in check mode
	checkedEarlier := map[string]bool{} // an earlier effect with this key arrived in check mode
	for _, g := range ev.landed {
		if g.Dedupe == receipts.DedupeCheck {
			checked[g.Key]++
		}
	}
	for i, e := range ev.landed {
		if i > 0 && (e.Key != "" || keyed) {
			first := ev.landed[0]
			switch {
			case e.Dedupe == receipts.DedupeOff:
				off++
			case e.Key == "" || first.Key != e.Key:
				differs = true
			case !stored[e.Key]:
				why(fmt.Sprintf("the earlier request with key %s arrived while the service's dedupe was off, so the key was never stored and the later one found nothing", e.Key))
			case e.KeyState == "expired":
				why(fmt.Sprintf("the service had stored key %s, but it had expired (older than the key TTL) when the request came again: the key was forgotten before the redelivery", e.Key))
			case e.Dedupe == receipts.DedupeClaim && checkedEarlier[e.Key]:
				// It landed in claim mode, so its INSERT took: the key
				// was absent, the earlier check-mode request not done.
				why(fmt.Sprintf("the earlier request with key %s arrived while the service's dedupe was check, which stores a key only once its effect is done; it had not stored it yet when the later one arrived, with the dedupe now claim, and claimed it as new", e.Key))
			case e.Dedupe == receipts.DedupeCheck:
				if n := checked[e.Key]; n == 2 {
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
			// Every later effect is told, not only the first: an event
			// may have a retry that check-then-act let through and a
			// redelivery whose key differs.
		}
		keyed = keyed || e.Key != ""
		earlier[e.Key]++
		stored[e.Key] = stored[e.Key] || e.Dedupe != receipts.DedupeOff
		checkedEarlier[e.Key] = checkedEarlier[e.Key] || e.Dedupe == receipts.DedupeCheck
	}
	return off, differs
}

// keyCounts lists the keys of rs in order of first use, each once, with
// how many requests carried it: "job-1 and job-2", "ev-1 twice", "none".
func keyCounts(rs []receipts.Effect) string {
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
func distinctKeys(rs []receipts.Effect) []string {
	var keys []string
	for _, r := range rs {
		if !slices.Contains(keys, r.Key) {
			keys = append(keys, r.Key)
		}
	}
	return keys
}

// keysOf says the distinct keys of rs: "key ev-1", "keys ev-1 and ev-2".
func keysOf(rs []receipts.Effect) string {
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
func (h *History) pairCause(ra, rb string, sentAt sim.Time) dupCause {
	a, b := h.runs[ra], h.runs[rb]
	if a == nil || b == nil {
		return dupCause{kind: Unknown}
	}
	c := dupCause{a: a, b: b, sentFirst: sentAt <= b.claimedAt}
	claims := h.claims[a.job]
	i := slices.Index(claims, a)
	j := slices.Index(claims, b)
	if i < 0 || j <= i {
		c.kind = Unknown
		return c
	}
	next := claims[i+1]
	c.between = claims[i+1 : j]
	for _, r := range claims[i+1 : j+1] {
		if r.redriven {
			// Put back by hand: whatever a was doing, the queue did
			// not hand the job out again on its own.
			c.kind = Redriven
			if !next.redriven {
				// The job had left a before the re-drive, for a
				// reason of its own: that is a cause too (a claim
				// race is said with its loser's fate).
				if first := h.pairCause(ra, next.run, sentAt); first.kind != ClaimRace {
					first.run = "before " + ra // its own cause, never counted with another
					c.before = &first
				}
			}
			return c
		}
	}
	t := next.claimedAt
	expiry := a.leaseAt(t)
	switch {
	case a.ackedBy(t):
		c.kind = Redone
	case t <= expiry:
		c.kind = ClaimRace
	default:
		// What a was doing when its lease ran out; for a lease that ran
		// out before its claim was even written, what it was doing when
		// the next claim took the job.
		c.early = expiry <= a.claimedAt
		at := expiry
		if c.early {
			at = t
		}
		switch a.phaseAt(at) {
		case PhaseClaimed, PhaseProcessing:
			c.kind = Slow
		case PhaseStalled:
			c.kind = Stall
		case PhaseSending:
			c.kind = SlowCall
		default: // killed, or stopped without an ack, before the lease ran out
			c.kind = LeaseExpired
		}
	}
	return c
}

// untracedDuplicateLog reports whether worker.log has two identical lines
// that carry no run id: evidence that cannot tell two sends apart. The
// diagnosis says so only when the script printed worker.log.
func untracedDuplicateLog(log []string) bool {
	seen := map[string]bool{}
	for _, l := range log {
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

// RoundGap prints a gap as a reader of a diagnosis needs it: below 10 ms
// as FormatGap does, then whole milliseconds, then seconds with a tenth
// below 10 s ("2.1 s") and whole seconds above ("120 s").
func RoundGap(d sim.Time) string {
	switch {
	case d < sim.Second:
		return FormatGap(d)
	case d < 10*sim.Second:
		t := (d + 50*sim.Millisecond) / (100 * sim.Millisecond)
		if t%10 == 0 {
			return fmt.Sprintf("%d s", t/10)
		}
		return fmt.Sprintf("%d.%d s", t/10, t%10)
	}
	return fmt.Sprintf("%d s", (d+sim.Second/2)/sim.Second)
}

// FormatGap prints a gap in ms, with a tenth of a millisecond below 10 ms so
// that a claim race reads "0.6 ms", not "0 ms", and in µs below a tenth
// ("40 µs", not "0.0 ms"). The transcript, the diagnosis and the
// playground all print a gap with it, so the three agree.
func FormatGap(d sim.Time) string {
	if d == 0 {
		return "0 ms"
	}
	if d < sim.Millisecond/10 {
		return fmt.Sprintf("%d µs", d)
	}
	if d < 10*sim.Millisecond {
		return fmt.Sprintf("%d.%d ms", d/sim.Millisecond, d%sim.Millisecond/100)
	}
	return fmt.Sprintf("%d ms", d/sim.Millisecond)
}

// whyRan says, for each run whose requests the service answered from a
// stored key, why it held the job at all, when the run before it on the
// job sent a request: the cause pairCause reads, with the gap from that
// run's first request to this run's.
func (d *orderEvidence) whyRan(held []receipts.Effect) []string {
	var says []string
	seen := map[string]bool{}
	for _, e := range held {
		r := d.h.runs[e.Run]
		if r == nil || seen[e.Run] || r.prev == nil || r.prev.job != r.job {
			continue
		}
		seen[e.Run] = true
		var sent *receipts.Effect
		for _, ev := range d.evs {
			for i, l := range ev.landed {
				if l.Run == r.prev.run && sent == nil {
					sent = &ev.landed[i]
				}
			}
		}
		if sent == nil {
			continue
		}
		c := d.h.pairCause(r.prev.run, r.run, sent.At)
		if c.a == nil || c.kind == Unknown || c.kind == ClaimRace {
			continue // a race is said with the replayed races
		}
		if w := pairWords(&c, d.jobWord(r.job)); w != "" {
			says = append(says, fmt.Sprintf("%s (its request came %s after %s's first)", w, RoundGap(e.At-sent.At), r.prev.worker))
		}
	}
	return says
}
