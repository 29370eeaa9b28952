package interp

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/twice-lab/twice/runtime/event"
	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/script/diagnosis"
	"github.com/twice-lab/twice/runtime/script/result"
)

// timedScript writes a script of one job and two or three workers, mixing
// what makes a diagnosis easy to get wrong by reading the wrong moment:
// workers started with & at the same instant or a little apart, with any
// claim; crashes, fencing, heartbeats, slow work and client retries on
// top of the race, a re-drive now and then; the service's dedupe mode
// set before, changed while the workers run, and changed again after the
// last request. Or a race command with its flags, and the mode changed
// after it.
func timedScript(r *rand.Rand) string {
	var s strings.Builder
	modes := []string{"off", "check", "claim"}
	mode := func() string { return modes[r.IntN(len(modes))] }
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	claims := queue.Claims()
	claim := func() string { return claims[r.IntN(len(claims))].String() }
	if r.IntN(2) == 0 {
		fmt.Fprintf(&s, "service --dedupe %s\n", mode())
	}
	if r.IntN(4) == 0 {
		flags := ""
		for _, f := range []string{" --fence", " --heartbeat 300", pick(" --key event", " --key job"), " --delay 400"} {
			if r.IntN(3) == 0 {
				flags += f
			}
		}
		fmt.Fprintf(&s, "race %s 1%s\n", claim(), flags)
	} else {
		s.WriteString("add order-77\n")
		workers := 2 + r.IntN(2)
		for i := range workers {
			var flags []string
			flags = append(flags, "--claim "+claim(), "--lease "+pick("1", "2", "30"))
			for _, f := range []string{"--fence", "--heartbeat 300", "--crash-before-effect", "--crash-before-ack", "--key event", "--delay 400 --timeout 300"} {
				if r.IntN(4) == 0 {
					flags = append(flags, f)
				}
			}
			if r.IntN(3) == 0 {
				flags = append(flags, fmt.Sprintf("--processing %d", 200+r.IntN(3000)))
			}
			if r.IntN(6) == 0 {
				flags = append(flags, fmt.Sprintf("--stall %d", 1200+r.IntN(2000)))
			}
			fmt.Fprintf(&s, "work --job 1 --worker W%d %s &\n", i+1, strings.Join(flags, " "))
			if i < workers-1 {
				// Often no sleep at all: the workers start at one instant.
				if gap := pick("", "", "0.001", "0.05", "0.5", "1.5", "2.5"); gap != "" {
					fmt.Fprintf(&s, "sleep %s\n", gap)
				}
				if r.IntN(4) == 0 {
					fmt.Fprintf(&s, "service --dedupe %s\n", mode())
				}
				if r.IntN(8) == 0 {
					s.WriteString("redeliver --job 1\n")
				}
			}
		}
		s.WriteString("wait\n")
	}
	// The mode a later moment has: no request arrives under it.
	if r.IntN(2) == 0 {
		fmt.Fprintf(&s, "service --dedupe %s\n", mode())
	}
	s.WriteString("effects\n")
	return s.String()
}

// traced is what a run's own trace says of it, step by step: its claim
// and the lease it wrote (and each renewal's), whether and when it acked,
// and what happened to it.
type traced struct {
	run, worker string
	job         int64
	claimedAt   int64
	leases      [][2]int64 // {instant, expiry} as written
	ackedAt     int64      // -1: never acked
	prev        *traced    // the run that held the job when this one claimed it
	race        bool       // it claimed over prev's live lease
	redriven    bool       // it claimed a job redeliver had put back
	killedRecv  bool       // killed before its receipt
	lost        bool       // a renewal found the lease (or lock) taken
	processing  bool
	stalled     bool
}

// leaseAt is the run's lease expiry as written at or before t.
func (t *traced) leaseAt(at int64) int64 {
	l := int64(-1)
	for _, x := range t.leases {
		if x[0] <= at {
			l = x[1]
		}
	}
	return l
}

// arrived is one request the trace shows the service recording, with the
// dedupe mode the trace shows in force when it arrived.
type arrived struct {
	e    result.Effect
	mode string
}

// fromTrace reads, from a Result's trace alone, every run since the last
// reset and every request with the mode it arrived under. A claim is a
// race when the run before it had written a lease that had not passed at
// the claim's instant, had not acked, and no redeliver came between.
func fromTrace(res *result.Result) (runs map[string]*traced, order []*traced, reqs []arrived) {
	mode := "off"
	modeOf := regexp.MustCompile(`--dedupe (\w+)`)
	holder := map[int64]*traced{}
	redriven := map[int64]bool{}
	runs = map[string]*traced{}
	for _, e := range res.Trace {
		t := runs[e.Run]
		switch e.Kind {
		case event.Reset:
			runs, order, reqs = map[string]*traced{}, nil, nil
			clear(holder)
			clear(redriven)
		case event.Service:
			if m := modeOf.FindStringSubmatch(e.Step); m != nil {
				mode = m[1]
			}
		case event.Redeliver:
			if e.Job != nil {
				redriven[e.Job.ID] = true
			}
		case event.Claim:
			if e.Job == nil || e.Job.LeaseUS == nil {
				continue
			}
			n := &traced{run: e.Run, worker: e.Proc, job: e.Job.ID, claimedAt: e.AtUS, ackedAt: -1}
			n.leases = append(n.leases, [2]int64{e.AtUS, *e.Job.LeaseUS})
			if p := holder[n.job]; p != nil {
				n.prev = p
				n.race = !redriven[n.job] && (p.ackedAt < 0 || p.ackedAt > e.AtUS) && e.AtUS <= p.leaseAt(e.AtUS)
			}
			n.redriven = redriven[n.job]
			delete(redriven, n.job)
			holder[n.job] = n
			runs[n.run] = n
			order = append(order, n)
		case event.Heartbeat:
			if t != nil && e.Job != nil && e.Job.LeaseUS != nil {
				t.leases = append(t.leases, [2]int64{e.AtUS, *e.Job.LeaseUS})
			}
		case event.Ack:
			if t != nil && t.ackedAt < 0 {
				t.ackedAt = e.AtUS
			}
		case event.Kill:
			if t != nil && strings.Contains(e.Step, "before the receipt") {
				t.killedRecv = true
			}
		case event.LeaseLost:
			if t != nil {
				t.lost = true
			}
		case event.Process:
			if t != nil {
				t.processing = true
			}
		case event.Stall:
			if t != nil {
				t.stalled = true
			}
		case event.Effect, event.Refused, event.Replayed:
			if e.Effect != nil {
				reqs = append(reqs, arrived{*e.Effect, mode})
			}
		}
	}
	return runs, order, reqs
}

// TestDiagnosisReadsTheTimeOfEvidence generates scripts of the kinds that
// mislead a diagnosis which reads the state at the end instead of the
// state when each piece of evidence happened (see timedScript), and holds
// every diagnosis to what the run's own trace shows: a claim over a live
// lease is named a claim race, and nothing else is; an order with one
// effect after such a claim is no redelivery, and fencing that refused
// the race's loser kept no "stale run" out; a run said to have frozen,
// processed, been killed, lost its lease or never acked did so in the
// trace; and what the dedupe did is read from the mode each request
// arrived under, not from a mode set later.
func TestDiagnosisReadsTheTimeOfEvidence(t *testing.T) {
	n := 1500
	if testing.Short() {
		n = 300
	}
	r := rand.New(rand.NewPCG(7, 2027))
	kinds := map[diagnosis.Kind]int{}
	raceOne, modeChanged := 0, 0
	for i := range n {
		src := timedScript(r)
		seed := uint64(i + 1)
		res := Run(src, Options{Seed: seed})
		if res.Error != nil {
			t.Fatalf("seed %d: %v\n%s", seed, res.Error, src)
		}
		runs, order, reqs := fromTrace(res)
		for _, s := range res.Summary {
			kinds[s.Kind]++
			fail := func(format string, args ...any) {
				t.Helper()
				t.Errorf("seed %d: %s\n%s\n%s\ndiagnosis: %s", seed, fmt.Sprintf(format, args...), src, res.Text(), s.Diagnosis)
			}
			checkTimedSummary(s, runs, order, reqs, fail)
			if s.Effects == 1 && slices.ContainsFunc(order, func(t *traced) bool { return t.race }) {
				raceOne++
			}
			if strings.Count(src, "service --dedupe") > 1 {
				modeChanged++
			}
		}
	}
	t.Logf("kinds: %v; one-effect orders after a claim race: %d; orders with the mode changed in the script: %d", kinds, raceOne, modeChanged)
	for _, k := range []diagnosis.Kind{diagnosis.RaceCaught, diagnosis.Fenced, diagnosis.Deduped, diagnosis.ClaimRace, diagnosis.Redelivery} {
		if kinds[k] == 0 {
			t.Errorf("no generated script was diagnosed %s: the generator misses a kind it is about (%v)", k, kinds)
		}
	}
}

// checkTimedSummary holds one order's diagnosis to the trace's evidence.
func checkTimedSummary(s diagnosis.Summary, runs map[string]*traced, order []*traced, reqs []arrived, fail func(string, ...any)) {
	d := s.Diagnosis
	var races []*traced
	for _, c := range order {
		if c.race {
			races = append(races, c)
		}
	}
	var landed []arrived
	for _, q := range reqs {
		if q.e.Order == s.Order && !q.e.Refused && !q.e.Replayed {
			landed = append(landed, q)
		}
	}
	if s.Kind == diagnosis.Unknown || strings.Contains(d, "cannot tell why") {
		fail("an extra effect has no cause, though every run's claim is in the trace")
	}
	// Claim races: named when there was one, and only then.
	named := strings.Contains(d, "(a claim race)") || strings.Contains(d, "lease was still live")
	switch {
	case named && len(races) == 0:
		fail("a claim race named, but no claim in the trace took the job over a live lease")
	case s.Effects <= 1 && len(races) > 0 && !named:
		fail("a claim over a live lease (%s over %s at %d µs) left one effect, and the diagnosis does not name the race", races[0].worker, races[0].prev.worker, races[0].claimedAt)
	case s.Effects <= 1 && len(races) > 0 && (s.Kind == diagnosis.Redelivery || s.Kind == diagnosis.Once):
		fail("diagnosed %s after a claim race", s.Kind)
	}
	for _, w := range regexp.MustCompile(`(W\d)(?: \(run \w+\))? claimed the job while (W\d)(?: \(run \w+\))?'s lease was still live`).FindAllStringSubmatch(d, -1) {
		if !slices.ContainsFunc(races, func(c *traced) bool { return c.worker == w[1] && c.prev.worker == w[2] }) {
			fail("%s is said to have claimed over %s's live lease; the trace has no such claim", w[1], w[2])
		}
	}
	// Each pair of runs whose effects landed, in claim order: the claim
	// after the first one's decides whether the second was a race.
	var senders []*traced
	for _, q := range landed {
		if c := runs[q.e.Run]; c != nil && !slices.Contains(senders, c) {
			senders = append(senders, c)
		}
	}
	slices.SortFunc(senders, func(a, b *traced) int { return int(a.claimedAt - b.claimedAt) })
	for i := 1; i < len(senders); i++ {
		a := senders[i-1]
		j := slices.Index(order, a)
		if j < 0 || j+1 >= len(order) || order[j+1].job != a.job {
			continue
		}
		if order[j+1].race && !named {
			fail("%s's effect came after %s claimed over %s's live lease, and the diagnosis names no claim race", senders[i].worker, order[j+1].worker, a.worker)
		}
	}
	checkTimedRuns(d, order, fail)
	checkTimedFence(s, d, named, runs, order, reqs, fail)
	checkTimedDedupe(s, landed, reqs, fail)
}

// checkTimedRuns holds what the diagnosis says runs did to what the
// trace shows they did.
func checkTimedRuns(d string, order []*traced, fail func(string, ...any)) {
	said := regexp.MustCompile(`(W\d)(?: \(run (\w+)\))?(?:'s)? (sent its receipt but never acked|was still processing|froze|was killed before its receipt|heartbeat found the lease taken|receipt carried the older fencing token)`)
	for _, m := range said.FindAllStringSubmatch(d, -1) {
		var c *traced
		for _, x := range order {
			if x.worker == m[1] && (m[2] == "" || x.run == m[2]) {
				c = x
			}
		}
		if c == nil {
			fail("%s is named, but it claimed nothing in the trace", m[1])
			continue
		}
		switch m[3] {
		case "sent its receipt but never acked":
			if c.ackedAt >= 0 {
				fail("%s is said never to have acked; it acked at %d µs", c.worker, c.ackedAt)
			}
		case "was still processing":
			if !c.processing {
				fail("%s is said to be processing; it never was", c.worker)
			}
		case "froze":
			if !c.stalled {
				fail("%s is said to have frozen; it never did", c.worker)
			}
		case "was killed before its receipt":
			if !c.killedRecv {
				fail("%s is said to have been killed before its receipt; it was not", c.worker)
			}
		case "heartbeat found the lease taken":
			if !c.lost {
				fail("%s's heartbeat is said to have found the lease taken; no renewal of it failed", c.worker)
			}
		}
	}
}

// checkTimedFence holds what the diagnosis says of fencing to the trace:
// a refused run whose job the next run took over its live lease lost a
// race; it was no stale run.
func checkTimedFence(s diagnosis.Summary, d string, named bool, runs map[string]*traced, order []*traced, reqs []arrived, fail func(string, ...any)) {
	var raceRefused, staleRefused bool
	for _, q := range reqs {
		if q.e.Order != s.Order || !q.e.Refused {
			continue
		}
		c := runs[q.e.Run]
		j := slices.Index(order, c)
		if c != nil && j >= 0 && j+1 < len(order) && order[j+1].job == c.job && order[j+1].race {
			raceRefused = true
		} else {
			staleRefused = true
		}
	}
	if strings.Contains(d, "stale run") && !staleRefused {
		fail("a stale run named, but every refused request came from a run that lost a claim race")
	}
	if raceRefused && !named {
		fail("a refused request came from a run that lost a claim race, and the diagnosis names no race")
	}
}

// checkTimedDedupe holds what the diagnosis says of the dedupe to the
// mode each request arrived under.
func checkTimedDedupe(s diagnosis.Summary, landed, reqs []arrived, fail func(string, ...any)) {
	d := s.Diagnosis
	under := map[string]bool{}
	for _, q := range landed {
		under[q.mode] = true
	}
	if strings.Contains(d, "dedupe is off") {
		fail("the dedupe is said to be off now: a diagnosis says what the requests met")
	}
	if strings.Contains(d, "dedupe was off when") && !under["off"] {
		fail("the dedupe is said to have been off, but every effect arrived under %v", under)
	}
	if strings.Contains(d, "check-then-act") && !under["check"] {
		fail("check-then-act named, but no effect arrived in check mode (%v)", under)
	}
	if strings.Contains(d, "deduplicated on keys") && !under["check"] && !under["claim"] {
		fail("the service is said to have deduplicated, but every effect arrived with the dedupe off")
	}
	replayed := slices.ContainsFunc(reqs, func(q arrived) bool { return q.e.Order == s.Order && q.e.Replayed })
	if strings.Contains(d, "dedupe held") && !replayed {
		fail("the dedupe is said to have held, but no request was replayed")
	}
	// Two effects with one key, the later under a mode that stores keys,
	// the first under check too: check-then-act let both through.
	if len(landed) == 2 && landed[0].e.Key != "" && landed[0].e.Key == landed[1].e.Key {
		a, b := landed[0], landed[1]
		switch {
		case b.mode == "off" && !strings.Contains(d, "dedupe was off when"):
			fail("the later request with key %s arrived with the dedupe off, and the diagnosis does not say so", b.e.Key)
		case a.mode == "check" && b.mode == "check" && !strings.Contains(d, "check-then-act"):
			fail("both requests with key %s arrived in check mode, and the diagnosis does not name check-then-act", a.e.Key)
		case a.mode == "off" && b.mode != "off" && !strings.Contains(d, "never stored"):
			fail("the first request with key %s arrived with the dedupe off, so its key was never stored, and the diagnosis does not say so", a.e.Key)
		}
	}
}
