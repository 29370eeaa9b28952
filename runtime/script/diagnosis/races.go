package diagnosis

import (
	"fmt"
	"iter"
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
	for _, ev := range d.evs {
		for _, e := range ev.landed {
			sent[e.Run] = true
		}
	}
	var rs []raced
	for _, j := range d.jobs() {
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
	fateInFlight                 // it was killed with its request on its way, not yet recorded
	fateEnded                    // it stopped without an effect that landed
	fateDead                     // its claim moved the job to the dead-letter queue
	fateAcked                    // it acked with no effect of its own (a ledger key hit)
)

// fate reads what kept r from an effect that landed, and says it: "W1
// was killed before its receipt". The service's record of r's requests
// comes first: a run killed while its request was on its way never heard
// the answer, and never went through the phase, but the service handled
// the request. Then r's own history.
func (d *orderEvidence) fate(r *Record) (fateKind, string) {
	w := r.worker
	for _, ev := range d.evs {
		for _, e := range ev.replayed {
			if e.Run == r.run {
				return fateReplayed, fmt.Sprintf("%s's request carried key %s, already stored, and got the first answer back", w, e.Key)
			}
		}
		for _, e := range ev.refused {
			if e.Run == r.run {
				return fateRefused, fmt.Sprintf("%s's receipt carried the older fencing token and was refused", w)
			}
		}
	}
	switch {
	case r.was(PhaseLost):
		return fateLost, fmt.Sprintf("%s's heartbeat found the lease taken and stopped it before its receipt", w)
	case r.was(PhaseKilled):
		if r.InFlight {
			return fateInFlight, fmt.Sprintf("%s was killed with its request on its way, which the service had not recorded yet", w)
		}
		return fateKilled, fmt.Sprintf("%s was killed before its receipt", w)
	case r.was(PhaseDead):
		return fateDead, fmt.Sprintf("%s's claim went past the retry limit (--max-attempts %d) and moved the job to the dead-letter queue, doing none of its work", w, r.MaxAttempts)
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
		f, said := d.fate(r.loser)
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

// staleLanded says, one note each, the requests that carried a fencing
// token after another run had claimed their job, and landed all the
// same because a newer token of the job reached the service only later:
// the service refuses a token only once it has seen a newer one, so a
// stale run that writes before its successor gets through.
func (d *orderEvidence) staleLanded() []string {
	var notes []string
	for e, r := range d.fencedLanded() {
		n := d.h.nextClaim(r)
		if n == nil || n.claimedAt > e.At {
			continue
		}
		if f, ok := d.firstNewerToken(e); ok {
			notes = append(notes, fmt.Sprintf("%s's request for job %d carried fencing token %d after %s had claimed the job, and landed: the service refuses a token only once a newer one has reached it, and the first, %s's token %d, came %s later",
				e.Worker, e.Job, e.Token, n.worker, f.Worker, f.Token, RoundGap(f.At-e.At)))
		}
	}
	return notes
}

// fencedLanded yields, in the order of the evidence, each request that
// landed carrying a fencing token, with the run that sent it.
func (d *orderEvidence) fencedLanded() iter.Seq2[receipts.Effect, *Record] {
	return func(yield func(receipts.Effect, *Record) bool) {
		for _, ev := range d.evs {
			for _, e := range ev.landed {
				r := d.h.runs[e.Run]
				if e.Token == 0 || r == nil {
					continue
				}
				if !yield(e, r) {
					return
				}
			}
		}
	}
}

// sharedTokens says, one note per job and token, the requests that
// landed carrying one fencing token from two or more runs. A run's token
// is the attempts it read back after its claim; a run that read it back
// after a later claim had raised it carries that claim's number, not its
// own, and the service, which refuses only a token older than one it has
// seen, lets every holder of the one token through. Of the runs that
// share a token, all but the last to claim read back a later claim's
// number (attempts only rise, one per claim).
func (d *orderEvidence) sharedTokens() []string {
	type jobToken struct {
		job   int64
		token int
	}
	holders := map[jobToken][]*Record{}
	var order []jobToken
	for e, r := range d.fencedLanded() {
		k := jobToken{e.Job, e.Token}
		if slices.Contains(holders[k], r) {
			continue
		}
		if holders[k] == nil {
			order = append(order, k)
		}
		holders[k] = append(holders[k], r)
	}
	var notes []string
	for _, k := range order {
		rs := holders[k]
		if len(rs) < 2 {
			continue
		}
		slices.SortStableFunc(rs, func(a, b *Record) int { return d.h.claimOrder(a.run) - d.h.claimOrder(b.run) })
		var all, early []string
		for i, r := range rs {
			all = append(all, r.worker)
			if i < len(rs)-1 {
				early = append(early, r.worker)
			}
		}
		both := "both"
		if len(all) > 2 {
			both = "all"
		}
		notes = append(notes, fmt.Sprintf("%s %s carried fencing token %d for %s and landed: a token is the attempts a run reads back after its claim, and %s read it back after a later claim had raised it, so %s runs held one token, and the service refuses only an older one",
			prose(all), both, k.token, d.jobWord(k.job), prose(early), count(len(all))))
	}
	return notes
}

// firstNewerToken returns the first request of e's job, after e, that
// carried a higher fencing token than e's.
func (d *orderEvidence) firstNewerToken(e receipts.Effect) (receipts.Effect, bool) {
	var first receipts.Effect
	found := false
	for _, ev := range d.evs {
		for _, rs := range [][]receipts.Effect{ev.landed, ev.replayed, ev.refused} {
			for _, f := range rs {
				if f.Job == e.Job && f.Token > e.Token && f.At > e.At && (!found || f.At < first.At) {
					first, found = f, true
				}
			}
		}
	}
	return first, found
}

// lostRaceWords says, as a note, a refused request whose run had lost a
// claim race.
func (d *orderEvidence) lostRaceWords(r raced) string {
	return fmt.Sprintf("%s's request for %s carried an older fencing token and was refused: %s, and fencing kept %s's effect out", r.a.worker, d.jobWord(r.a.job), d.raceWords(r), r.a.worker)
}

// handedOut says the claims of the order's jobs that the queue did not
// simply hand out again: a re-drive that put a job back (from the
// dead-letter queue, after a run had acked it, or while one held it),
// and a claim that moved its job to the dead-letter queue. own counts
// the claims after a job's first that were the queue's own.
func (d *orderEvidence) handedOut() (says []string, own int) {
	for _, j := range d.jobs() {
		for i, r := range d.h.claims[j] {
			if i > 0 && !(r.redriven && r.prev != nil) {
				own++
			}
			switch {
			case r.redriven && r.prev != nil:
				says = append(says, d.redriveWords(r))
			case r.was(PhaseDead):
				_, why := d.fate(r)
				says = append(says, why)
			}
		}
	}
	return says, own
}

// redriveWords says the re-drive that handed r its job, taken from the
// run before it: from the dead-letter queue, after that run had acked, or
// while it still held the job.
func (d *orderEvidence) redriveWords(r *Record) string {
	job := d.jobWord(r.job)
	switch {
	case r.prev.was(PhaseDead):
		return fmt.Sprintf("redeliver put %s back from the dead-letter queue, and %s took it (a re-drive)", job, r.worker)
	case r.prev.ackedBy(r.claimedAt):
		return fmt.Sprintf("redeliver put %s back after %s had acked it, and %s took it again (a re-drive or manual replay)", job, r.prev.worker, r.worker)
	}
	return fmt.Sprintf("redeliver put %s back while %s still held it, and %s took it (a re-drive or manual replay)", job, r.prev.worker, r.worker)
}

// jobs lists the order's jobs, in order of their first request.
func (d *orderEvidence) jobs() []int64 {
	var js []int64
	for _, ev := range d.evs {
		for _, j := range ev.jobs {
			if !slices.Contains(js, j) {
				js = append(js, j)
			}
		}
	}
	return js
}

// replayedRaces says each claim race of the order whose loser's request
// the service replayed on its key: the race, and the dedupe that kept its
// second effect out. It returns the replayed requests of held that were
// not those losers'.
func (d *orderEvidence) replayedRaces(held []receipts.Effect) (says []string, rest []receipts.Effect) {
	losers := map[string]bool{}
	for _, r := range d.racesOf() {
		if r.loser == nil || losers[r.loser.run] {
			continue
		}
		if f, why := d.fate(r.loser); f == fateReplayed {
			losers[r.loser.run] = true
			says = append(says, fmt.Sprintf("%s; %s%s", d.raceWords(r), why, fateEnd(f)))
		}
	}
	for _, e := range held {
		if !losers[e.Run] {
			rest = append(rest, e)
		}
	}
	return says, rest
}

// claimedAfterAck says, for an order with one effect, the first claim of
// its jobs that took a job the run before had acked, with no re-drive in
// between: a claim that read the job before the ack and wrote it with no
// condition (lesson 4's race, lost by the ack's side), not a delivery the
// queue made; and what became of that claim's run. ok is false when there
// is none.
func (d *orderEvidence) claimedAfterAck() (text string, ok bool) {
	for _, j := range d.jobs() {
		for _, r := range d.h.claims[j] {
			if r.redriven || r.prev == nil || !r.prev.ackedBy(r.claimedAt) {
				continue
			}
			_, why := d.fate(r)
			return fmt.Sprintf("%s claimed %s after %s had acked it (its claim read the job before the ack and wrote it with no condition); %s", r.worker, d.jobWord(j), r.prev.worker, why), true
		}
	}
	return "", false
}
