package cases

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/twice-lab/twice/runtime/event"
	"github.com/twice-lab/twice/runtime/script/diagnosis"
	"github.com/twice-lab/twice/runtime/script/result"
	"github.com/twice-lab/twice/runtime/sim"
)

// A Condition is one thing a check may ask of its run, written in the
// check's info string as NAME=N (or NAME alone, when it takes no number).
// Its Judge reads the run's Result and says whether it holds, what the
// run showed, and what was wanted; a failing check's line adds the want.
// The list [Conditions] is the only place that knows a condition: the
// parser of checks, the judge, twice case check, the browser (through
// the runtime module) and the package documentation all read it.
type Condition struct {
	Name string
	// Number says whether the condition takes a number (NAME=N).
	Number bool
	// Words say what it counts, for docs and errors.
	Words string
	// Judge reports whether res meets the condition with n (0 for a
	// condition with no number), what res shows in words, and what was
	// wanted, in words.
	Judge func(res *result.Result, n int) (ok bool, saw, want string)
}

// Conditions lists what a check may ask of its run, in the order errors
// and docs give them. A new condition is one entry here.
var Conditions = []Condition{
	{"overlap", true, "orderings of the check's race --all in which two workers own the job at once, each between its claim and its ack; a check with no race --all fails it", judgeOverlap},
	{"duplicates", true, "orderings of race --all, and races of a timed race, with more than one effect; a check with no race fails it", judgeDuplicates},
	{"owners", true, "the most executions that held one job at one instant of virtual time, each from its claim until its ack or its end (killed, stopped, refused), over every worker the run traced", judgeOwners},
	{"lapses", true, "executions whose lease passed while they still worked: a step of theirs (a heartbeat's renewal, a send, the ack) came after the lease last written for them, from the claim or a heartbeat, had passed, so the queue could have handed the job to another worker then", judgeLapses},
	{"effects", true, "effects that landed: requests the service neither refused nor replayed, and ledger rows", judgeEffects},
	{"sent", true, "requests the service acted on: neither refused nor replayed; a ledger row in the queue's database is not one", judgeSent},
	{"deliveries", true, "deliveries of the jobs: the attempts of every job, summed", judgeDeliveries},
	{"once", false, "every event the producer published has exactly one effect", judgeOnce},
}

// condition returns the condition named name.
func condition(name string) (Condition, bool) {
	for _, c := range Conditions {
		if c.Name == name {
			return c, true
		}
	}
	return Condition{}, false
}

// conditionNames lists the conditions as the info string spells them.
func conditionNames() string {
	var names []string
	for _, c := range Conditions {
		if c.Number {
			names = append(names, c.Name+"=N")
		} else {
			names = append(names, c.Name)
		}
	}
	return strings.Join(names, ", ")
}

func wantN(n int) string { return fmt.Sprint(n) }

// count adds counts to a total that says whether it equals a number: the
// explorer writes its counts as decimal strings, which may pass what a
// uint64 holds; a count that does is more than any number wanted.
type count struct {
	sum  uint64
	huge bool
}

func (c *count) add(n uint64) {
	if c.sum+n < c.sum {
		c.huge = true
	}
	c.sum += n
}

func (c *count) addDecimal(s string) {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		c.huge = c.huge || s != "" && strings.Trim(s, "0123456789") == ""
		return
	}
	c.add(n)
}

func (c count) is(n int) bool { return !c.huge && n >= 0 && c.sum == uint64(n) }

func judgeOverlap(res *result.Result, n int) (bool, string, string) {
	var sum count
	var said []string
	for _, e := range res.Explorations {
		sum.addDecimal(e.Overlap)
		said = append(said, fmt.Sprintf("two owners at once in %s of %s orderings of %d workers", e.Overlap, e.Orderings, e.Workers))
	}
	if len(said) == 0 {
		return false, "no race --all ran", "a race --all"
	}
	return sum.is(n), strings.Join(said, ", "), wantN(n)
}

func judgeDuplicates(res *result.Result, n int) (bool, string, string) {
	var sum count
	var said []string
	for _, e := range res.Explorations {
		sum.addDecimal(e.Duplicating)
		said = append(said, fmt.Sprintf("two effects in %s of %s orderings of %d workers", e.Duplicating, e.Orderings, e.Workers))
	}
	for _, t := range res.Races {
		sum.add(uint64(t.Duplicates))
		said = append(said, fmt.Sprintf("two effects in %d of %d races", t.Duplicates, t.Races))
	}
	if len(said) == 0 {
		return false, "no race ran", "a race"
	}
	return sum.is(n), strings.Join(said, ", "), wantN(n)
}

// holding is one execution's hold on a job, in the order of the trace:
// from its claim to its last step.
type holding struct {
	worker, run string
	job         int64
	from, to    int   // indexes in the trace
	at          int64 // the claim's instant
	acked       bool
}

// ownStep reports whether e is a step a worker's execution took itself:
// on a worker's lane and of a run, but not the service's statements about
// the run's key (key-check, key-claim), which are drawn on the lane of the
// request they answer and may come after the worker has given it up.
func ownStep(e result.Event) bool {
	return e.Run != "" && e.Kind.Lane() == event.LaneWorker && e.Kind != event.KeyCheck && e.Kind != event.KeyClaim
}

// holdings returns every execution that claimed a job in res's trace,
// each held until its ack or, without one, its last step.
func holdings(res *result.Result) []holding {
	var hs []holding
	at := map[string]int{} // run -> index in hs
	for i, e := range res.Trace {
		if !ownStep(e) {
			continue
		}
		if k, ok := at[e.Run]; ok {
			if !hs[k].acked {
				hs[k].to = i
				hs[k].acked = e.Kind == event.Ack
			}
			continue
		}
		if e.Kind == event.Claim && e.Job != nil {
			at[e.Run] = len(hs)
			hs = append(hs, holding{worker: e.Proc, run: e.Run, job: e.Job.ID, from: i, to: i, at: e.AtUS})
		}
	}
	return hs
}

func judgeOwners(res *result.Result, n int) (bool, string, string) {
	hs := holdings(res)
	most, first, second := 0, -1, -1
	for j, b := range hs {
		held := 1
		for i, a := range hs[:j] {
			if a.job == b.job && a.to >= b.from {
				held++
				if held == 2 && first < 0 {
					first, second = i, j
				}
			}
		}
		most = max(most, held)
	}
	saw := fmt.Sprintf("at most %d %s held a job at once", most, plural(most, "execution", "executions"))
	if first >= 0 {
		a, b := hs[first], hs[second]
		saw += fmt.Sprintf(" (%s took job %d at %s while %s, which took it at %s, had neither acked nor stopped)", b.worker, b.job, FormatAt(b.at), a.worker, FormatAt(a.at))
	}
	return most == n, saw, wantN(n)
}

// judgeLapses counts the executions whose lease passed under them: for
// each hold, from its claim until its ack or its end, the lease its
// claim and heartbeats wrote, and the first step of the execution that
// came after it had passed (lease < now, as the queue's claim reads it).
func judgeLapses(res *result.Result, n int) (bool, string, string) {
	lapsed := 0
	first := ""
	for _, h := range holdings(res) {
		var lease *int64
		for _, e := range res.Trace[h.from : h.to+1] {
			if e.Run != h.run || !ownStep(e) {
				continue
			}
			if lease != nil && e.AtUS > *lease {
				lapsed++
				if first == "" {
					first = fmt.Sprintf(" (%s's lease on job %d passed at %s, and it still worked %s later: %s)", h.worker, h.job, FormatAt(*lease), diagnosis.FormatGap(sim.Time(e.AtUS-*lease)), e.Step)
				}
				break
			}
			if e.Job != nil && e.Job.LeaseUS != nil {
				l := *e.Job.LeaseUS
				lease = &l
			}
		}
	}
	saw := fmt.Sprintf("%d %s whose lease passed while %s worked%s", lapsed, plural(lapsed, "execution", "executions"), plural(lapsed, "it", "they"), first)
	return lapsed == n, saw, wantN(n)
}

func judgeEffects(res *result.Result, n int) (bool, string, string) {
	e := res.Outcome.Effects
	return e == n, fmt.Sprintf("%d %s landed", e, plural(e, "effect", "effects")), wantN(n)
}

func judgeSent(res *result.Result, n int) (bool, string, string) {
	sent := 0
	for _, e := range res.Effects {
		if !e.Refused && !e.Replayed && !e.Ledger {
			sent++
		}
	}
	saw := fmt.Sprintf("%d sent through the service", sent)
	if l := len(res.Ledger); l > 0 {
		saw += fmt.Sprintf(" (and %d %s in the queue's database, which %s not sent)", l, plural(l, "ledger row", "ledger rows"), plural(l, "is", "are"))
	}
	return sent == n, saw, wantN(n)
}

func judgeDeliveries(res *result.Result, n int) (bool, string, string) {
	d := 0
	for _, j := range res.Jobs {
		d += j.Attempts
	}
	return d == n, fmt.Sprintf("%d %s", d, plural(d, "delivery", "deliveries")), wantN(n)
}

// judgeOnce reports whether every event the producer published (the
// events of the jobs table) has exactly one effect: a request that
// landed, or a ledger row.
func judgeOnce(res *result.Result, _ int) (bool, string, string) {
	var events []string
	count := map[string]int{}
	eventOf := map[int64]string{}
	for _, j := range res.Jobs {
		eventOf[j.ID] = j.Event
		if _, ok := count[j.Event]; !ok {
			events = append(events, j.Event)
			count[j.Event] = 0
		}
	}
	for _, e := range res.Effects {
		if !e.Refused && !e.Replayed && !e.Ledger {
			count[e.Event]++
		}
	}
	for _, l := range res.Ledger {
		count[eventOf[l.Job]]++
	}
	if len(events) == 0 {
		return false, "the producer published no event", "1 effect for each"
	}
	ok := true
	var per []string
	for _, ev := range events {
		ok = ok && count[ev] == 1
		per = append(per, fmt.Sprintf("%s %d", ev, count[ev]))
	}
	return ok, "effects per published event: " + strings.Join(per, ", "), "1 each"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
