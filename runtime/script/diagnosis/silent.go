package diagnosis

import (
	"fmt"
	"slices"
	"strings"
)

// A silent job is a copy of one of an order's events (the producer
// published it more than once) that was claimed and sent no request: its
// runs were killed, lost a claim race, moved it to the dead-letter queue,
// or are still at work. The order's requests do not show it, so it is
// read from the jobs table and the runs' history, and said after the
// rest: an order whose event was delivered through a second job is not
// "one delivery".
type silentJob struct {
	job   int64
	event string
}

// silentJobs returns the order's silent jobs, in id order: those of
// Evidence.Jobs for the order, carrying an event that has requests, with
// no request of their own (sent), that some run claimed.
func (in *Evidence) silentJobs(d *orderEvidence, sent map[int64]bool) []silentJob {
	var js []silentJob
	for _, j := range in.Jobs {
		if j.Order != d.order || sent[j.ID] || d.event(j.Event) == nil || len(d.h.claims[j.ID]) == 0 {
			continue
		}
		js = append(js, silentJob{j.ID, j.Event})
	}
	slices.SortFunc(js, func(a, b silentJob) int { return int(a.job - b.job) })
	return js
}

// copies returns the order's jobs that carry event, in id order: those
// that sent a request and the silent ones, every copy the producer
// published.
func (d *orderEvidence) copies(event string) []int64 {
	var ids []int64
	if ev := d.event(event); ev != nil {
		ids = slices.Clone(ev.jobs)
	}
	for _, sj := range d.silent {
		if sj.event == event && !slices.Contains(ids, sj.job) {
			ids = append(ids, sj.job)
		}
	}
	slices.Sort(ids)
	return ids
}

// sayTheSilent adds to s what the order's silent jobs show: that the
// producer published their event again, and what became of each claim of
// them. An order that was otherwise delivered once is then a redelivery
// (through another job), or a claim race that left one effect when one
// of those claims took a live lease.
func (d *orderEvidence) sayTheSilent(s *Summary) {
	if len(d.silent) == 0 {
		return
	}
	var parts []string
	race := false
	for _, sj := range d.silent {
		ev := d.event(sj.event)
		ids := d.copies(sj.event)
		published := fmt.Sprintf("the producer published event %s %s (%s), and job %d", sj.event, times(len(ids)), jobsWord(jobStrings(ids)), sj.job)
		if len(ev.jobs) >= 2 && len(ev.landed) > 0 {
			// The publish is said already, with every copy (causeWords, notes).
			published = fmt.Sprintf("job %d, a copy of event %s,", sj.job, sj.event)
		}
		var said []string
		for _, r := range d.h.claims[sj.job] {
			_, why := d.fate(r)
			switch {
			case r.overLive():
				race = true
				why = d.raceWords(raced{a: r.prev, b: r}) + ", and " + why
			case r.redriven && r.prev != nil:
				why = d.redriveWords(r) + ", and " + why
			}
			said = append(said, why)
		}
		parts = append(parts, fmt.Sprintf("%s was delivered %s and sent no request: %s",
			published, times(len(d.h.claims[sj.job])), strings.Join(said, "; ")))
	}
	switch {
	case s.Kind == Once && race:
		s.Kind, s.Diagnosis = RaceCaught, "one effect"
	case s.Kind == Once:
		s.Kind, s.Diagnosis = Redelivery, "one effect"
	case s.Kind == Redelivery && race:
		s.Kind = RaceCaught
	}
	s.Diagnosis += "; " + strings.Join(parts, "; ")
}
