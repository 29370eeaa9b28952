package diagnosis

import (
	"fmt"
	"slices"

	"github.com/twice-lab/twice/runtime/receipts"
)

// overLive reports whether r's claim took its job while the run that held
// it before still had a live lease and had not acked, as things stood at
// the instant of the claim: a claim race, not a redelivery. A job put back
// by redeliver was handed out by hand, whatever its lease said.
func (r *Record) overLive() bool { return r.prev != nil && r.prevLive && !r.redriven }

// was reports whether the run went through phase at any time so far.
func (r *Record) was(phase Phase) bool {
	for _, s := range r.phases {
		if s.phase == phase {
			return true
		}
	}
	return false
}

// nextClaim returns the claim of r's job right after r's, or nil.
func (h *History) nextClaim(r *Record) *Record {
	claims := h.claims[r.job]
	if i := slices.Index(claims, r); i >= 0 && i+1 < len(claims) {
		return claims[i+1]
	}
	return nil
}

// raced is one claim race of a job: b claimed it over a's live lease, and
// loser is the one of the two whose work left no effect (nil when both
// did).
type raced struct {
	a, b, loser *Record
}

// racesOf lists the claim races of the order's jobs, in claim order, with
// the run of each that left no effect that landed.
func (d *orderEvidence) racesOf() []raced {
	sent := map[string]bool{}
	var jobs []int64
	for _, ev := range d.evs {
		for _, e := range ev.landed {
			sent[e.Run] = true
		}
		for _, j := range ev.jobs {
			if !slices.Contains(jobs, j) {
				jobs = append(jobs, j)
			}
		}
	}
	var rs []raced
	for _, j := range jobs {
		for _, b := range d.h.claims[j] {
			if !b.overLive() {
				continue
			}
			r := raced{a: b.prev, b: b}
			switch {
			case !sent[r.a.run]:
				r.loser = r.a
			case !sent[r.b.run]:
				r.loser = r.b
			}
			rs = append(rs, r)
		}
	}
	return rs
}

// jobWord names job j as the diagnosis of this order does: "the job", or
// "job 2" when the order has several.
func (d *orderEvidence) jobWord(j int64) string {
	if d.multiJob {
		return fmt.Sprintf("job %d", j)
	}
	return "the job"
}

// raceWords says one claim race: "W2 claimed the job while W1's lease was
// still live (a claim race)".
func (d *orderEvidence) raceWords(r raced) string {
	a, b := r.a.worker, r.b.worker
	if a == b {
		a, b = a+" (run "+r.a.run+")", b+" (run "+r.b.run+")"
	}
	return fmt.Sprintf("%s claimed %s while %s's lease was still live (a claim race)", b, d.jobWord(r.b.job), a)
}

// fateKind is what kept a run that had claimed a job from an effect that
// landed, as its history and its requests show.
type fateKind uint8

const (
	fateNotYet   fateKind = iota // it had sent nothing yet
	fateReplayed                 // the service answered its request from a stored key
	fateRefused                  // the service refused its fencing token
	fateLost                     // a heartbeat found the lease (or the lock) taken
	fateKilled                   // it was killed before its effect
	fateEnded                    // it stopped without an effect that landed
	fateAcked                    // it acked with no effect of its own (a ledger key hit)
)

// fate reads, from r's history, what kept it from an effect that landed,
// and says it: "W1 was killed before its receipt".
func fate(r *Record) (fateKind, string) {
	w := r.worker
	switch {
	case r.Replayed:
		return fateReplayed, fmt.Sprintf("%s's request carried key %s, already stored, and got the first answer back", w, r.Key)
	case r.was(PhaseRefused):
		return fateRefused, fmt.Sprintf("%s's receipt carried the older fencing token and was refused", w)
	case r.was(PhaseLost):
		return fateLost, fmt.Sprintf("%s's heartbeat found the lease taken and stopped it before its receipt", w)
	case r.was(PhaseKilled):
		return fateKilled, fmt.Sprintf("%s was killed before its receipt", w)
	case r.was(PhaseEnded):
		return fateEnded, fmt.Sprintf("%s stopped with no effect of its own", w)
	case r.was(PhaseAcked):
		return fateAcked, fmt.Sprintf("%s acked with no effect of its own", w)
	}
	return fateNotYet, fmt.Sprintf("%s had sent no receipt yet", w)
}

// fateEnd ends a sentence about a race whose loser met f: what, in the
// end, kept the second effect out.
func fateEnd(f fateKind) string {
	switch f {
	case fateReplayed:
		return ": the service's dedupe held"
	case fateRefused:
		return ": fencing kept the race's second effect out"
	case fateKilled:
		return ", so the race left one effect"
	}
	return ""
}

// oneEffectRace says, for an order with one effect, the first claim race
// of its jobs whose loser met one of fates (any fate when none is given):
// the race, and what kept its loser from a second effect, as "W2 claimed
// the job while W1's lease was still live (a claim race); W1 was killed
// before its receipt, so the race left one effect". ok is false when
// there is none.
func (d *orderEvidence) oneEffectRace(fates ...fateKind) (text string, f fateKind, ok bool) {
	for _, r := range d.racesOf() {
		if r.loser == nil {
			continue
		}
		f, said := fate(r.loser)
		if len(fates) > 0 && !slices.Contains(fates, f) {
			continue
		}
		return fmt.Sprintf("%s; %s%s", d.raceWords(r), said, fateEnd(f)), f, true
	}
	return "", 0, false
}

// refusedRuns splits the runs whose requests were refused for their
// fencing token: those that had lost a claim race (another run claimed
// the job over their live lease) and those that were stale (their lease
// had run out, or the job was put back, when the next run claimed it).
func (d *orderEvidence) refusedRuns() (lost []raced, stale []receipts.Effect) {
	seen := map[string]bool{}
	for _, ev := range d.evs {
		for _, e := range ev.refused {
			r := d.h.runs[e.Run]
			var n *Record
			if r != nil {
				n = d.h.nextClaim(r)
			}
			switch {
			case n != nil && n.overLive() && n.prev == r:
				if !seen[e.Run] {
					seen[e.Run] = true
					lost = append(lost, raced{a: r, b: n, loser: r})
				}
			default:
				stale = append(stale, e)
			}
		}
	}
	return lost, stale
}

// staleWords says the refused requests of stale runs, as a note.
func staleWords(stale []receipts.Effect, d *orderEvidence) string {
	var jobs []string
	for _, r := range stale {
		if j := fmt.Sprint(r.Job); !slices.Contains(jobs, j) {
			jobs = append(jobs, j)
		}
	}
	if len(stale) == 1 {
		return fmt.Sprintf("a late request for %s carried an older fencing token and was refused: fencing kept a stale run out", jobsWord(jobs))
	}
	return fmt.Sprintf("%s late requests for %s carried older fencing tokens and were refused: fencing kept stale runs out", count(len(stale)), jobsWord(jobs))
}

// lostRaceWords says, as a note, a refused request whose run had lost a
// claim race.
func (d *orderEvidence) lostRaceWords(r raced) string {
	return fmt.Sprintf("%s's request for %s carried an older fencing token and was refused: %s, and fencing kept %s's effect out", r.a.worker, d.jobWord(r.a.job), d.raceWords(r), r.a.worker)
}
