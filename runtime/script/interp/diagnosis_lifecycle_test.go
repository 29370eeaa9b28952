package interp

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/twice-lab/twice/runtime/event"
	"github.com/twice-lab/twice/runtime/explore"
	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/receipts"
	"github.com/twice-lab/twice/runtime/script/diagnosis"
	"github.com/twice-lab/twice/runtime/script/lang"
	"github.com/twice-lab/twice/runtime/script/result"
)

// lifecycleScript writes a script of what happens to workers from outside
// their own code, mixed with what timedScript mixes: a deploy (SIGKILL at
// once, or SIGTERM and a grace) at an instant anywhere in the runs, the
// request's flight included; the queue's retry limit (--max-attempts)
// with re-drives; a lock released whoever owns it (--release any); a
// producer that published one event twice, as an outbox relay does, with
// workers on both jobs; leases from none at all to very long; and, now
// and then, a foreground worker after the deploy, as a new pod's.
func lifecycleScript(r *rand.Rand) string {
	var s strings.Builder
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	mode := func() string { return pick("off", "check", "claim") }
	if r.IntN(2) == 0 {
		fmt.Fprintf(&s, "service --dedupe %s\n", mode())
	}
	jobs := 1
	switch r.IntN(3) {
	case 0:
		s.WriteString("add order-77 --times 2\n")
		jobs = 2
	case 1:
		s.WriteString("add order-77 --event ev-7\nadd order-77 --event ev-7\n")
		jobs = 2
	default:
		s.WriteString("add order-77\n")
	}
	workers := 2 + r.IntN(3)
	for i := range workers {
		fmt.Fprintf(&s, "work --job %d --worker W%d %s &\n", 1+r.IntN(jobs), i+1, lifecycleFlags(r))
		if i < workers-1 {
			s.WriteString(lifecycleBetween(r))
		}
	}
	if r.IntN(2) == 0 {
		s.WriteString(lifecycleDeploy(r))
	}
	s.WriteString("wait\n")
	if r.IntN(3) == 0 {
		fmt.Fprintf(&s, "sleep %s\nwork --job 1 --worker W9 --key %s\n", pick("1", "3", "31"), pick("none", "event", "job"))
	}
	if r.IntN(2) == 0 {
		fmt.Fprintf(&s, "service --dedupe %s\n", mode())
	}
	s.WriteString("effects\njobs\n")
	return s.String()
}

// lifecycleFlags are one background worker's flags.
func lifecycleFlags(r *rand.Rand) string {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	claims := queue.Claims()
	flags := []string{"--claim " + claims[r.IntN(len(claims))].String(), "--lease " + pick("0", "1", "2", "30", "3600")}
	for _, f := range []string{"--fence", "--heartbeat 300", "--crash-before-effect", "--crash-before-ack", "--release any"} {
		if r.IntN(5) == 0 {
			flags = append(flags, f)
		}
	}
	if r.IntN(3) == 0 {
		flags = append(flags, "--key "+pick("event", "job", "none"))
	}
	if r.IntN(3) == 0 {
		flags = append(flags, fmt.Sprintf("--max-attempts %d", 1+r.IntN(2)))
	}
	if r.IntN(3) == 0 {
		flags = append(flags, fmt.Sprintf("--processing %d", 200+r.IntN(3000)))
	}
	switch r.IntN(5) {
	case 0:
		flags = append(flags, "--delay 400 --timeout 300")
	case 1:
		flags = append(flags, fmt.Sprintf("--delay %d --timeout 9000", 500+r.IntN(3000)))
	}
	if r.IntN(6) == 0 {
		flags = append(flags, fmt.Sprintf("--stall %d", 1200+r.IntN(2000)))
	}
	return strings.Join(flags, " ")
}

// lifecycleBetween is what the shell does between two background starts.
func lifecycleBetween(r *rand.Rand) string {
	var s strings.Builder
	// Often no sleep at all; now and then one that ends inside the first
	// worker's claim, request or call.
	switch r.IntN(4) {
	case 0:
	case 1:
		fmt.Fprintf(&s, "sleep 0.0%04d\n", 3500+r.IntN(4500))
	default:
		fmt.Fprintf(&s, "sleep %s\n", []string{"0.5", "1.2", "2.5", "3.5"}[r.IntN(4)])
	}
	if r.IntN(4) == 0 {
		fmt.Fprintf(&s, "service --dedupe %s\n", []string{"off", "check", "claim"}[r.IntN(3)])
	}
	if r.IntN(5) == 0 {
		s.WriteString("redeliver --job 1\n")
	}
	if r.IntN(5) == 0 {
		s.WriteString(lifecycleDeploy(r))
	}
	return s.String()
}

// lifecycleDeploy is a deploy: SIGKILL at once, or SIGTERM and a grace,
// after a sleep that may end inside a worker's request.
func lifecycleDeploy(r *rand.Rand) string {
	at := fmt.Sprintf("sleep 0.0%04d\n", 3500+r.IntN(4500))
	if r.IntN(2) == 0 {
		at = fmt.Sprintf("sleep %d.%d\n", r.IntN(3), r.IntN(10))
	}
	if r.IntN(2) == 0 {
		return at + "deploy\n"
	}
	return at + fmt.Sprintf("deploy --grace %s\n", []string{"0.5", "1", "5", "30"}[r.IntN(4)])
}

// scheduleScript writes race --schedule with an ordering drawn step by
// step from the explorer (a prefix, as the scheduler's seat leaves it, or
// the whole race), any claim, its flags, and a dedupe mode that may change
// after it.
func scheduleScript(r *rand.Rand) string {
	claims := queue.Claims()
	claim := claims[r.IntN(len(claims))]
	workers := 2 + r.IntN(2)
	var flags []string
	var ef explore.Flags
	svc := explore.Service{}
	var s strings.Builder
	if r.IntN(2) == 0 {
		svc.Dedupe = []receipts.Dedupe{receipts.DedupeCheck, receipts.DedupeClaim}[r.IntN(2)]
		fmt.Fprintf(&s, "service --dedupe %s\n", svc.Dedupe)
	}
	if r.IntN(2) == 0 {
		svc.Key = []receipts.Key{receipts.KeyEvent, receipts.KeyJob}[r.IntN(2)]
		flags = append(flags, "--key "+svc.Key.String())
	}
	if r.IntN(3) == 0 {
		ef.Fence = true
		flags = append(flags, "--fence")
	}
	if r.IntN(3) == 0 {
		ef.Heartbeat = true
		flags = append(flags, "--heartbeat 300")
	}
	var order []int
	for len(order) < 40 && r.IntN(12) != 0 {
		play, err := explore.RunSchedule(claim, workers, svc, ef, order)
		if err != nil || play.Done {
			break
		}
		var can []int
		for i, n := range play.Next {
			if n.Label != "" {
				if _, err := explore.RunSchedule(claim, workers, svc, ef, append(slices.Clone(order), i)); err == nil {
					can = append(can, i)
				}
			}
		}
		if len(can) == 0 {
			break
		}
		order = append(order, can[r.IntN(len(can))])
	}
	sched := "-"
	if len(order) > 0 {
		sched = (lang.RaceArgs{Schedule: order}).ScheduleText(",")
	}
	fmt.Fprintf(&s, "race %s --schedule %s --workers %d %s\n", claim, sched, workers, strings.Join(flags, " "))
	if r.IntN(2) == 0 {
		fmt.Fprintf(&s, "service --dedupe %s\n", []string{"off", "check", "claim"}[r.IntN(3)])
	}
	s.WriteString("effects\njobs\n")
	return s.String()
}

// TestDiagnosisReadsTheTimeOfEvidenceOfALifecycle holds the diagnoses of
// lifecycleScript's and scheduleScript's scripts to the run's own trace,
// as TestDiagnosisReadsTheTimeOfEvidence does timedScript's, and holds
// the workers' own words to it too (checkLifecycleWords).
func TestDiagnosisReadsTheTimeOfEvidenceOfALifecycle(t *testing.T) {
	n := 1500
	if testing.Short() {
		n = 100
	}
	r := rand.New(rand.NewPCG(11, 2028))
	kinds := map[diagnosis.Kind]int{}
	seen := map[string]int{}
	for i := range n {
		src := lifecycleScript(r)
		if i%4 == 3 {
			src = scheduleScript(r)
		}
		seed := uint64(i + 1)
		res := Run(src, Options{Seed: seed})
		if res.Error != nil {
			t.Fatalf("seed %d: %v\n%s", seed, res.Error, src)
		}
		report := func(what, format string, args ...any) {
			t.Helper()
			t.Errorf("seed %d: %s\n%s\n%s\n%s", seed, fmt.Sprintf(format, args...), src, res.Text(), what)
		}
		checkLifecycleWords(res, seen, func(format string, args ...any) { report("", format, args...) })
		runs, order, reqs := fromTrace(res)
		for _, s := range res.Summary {
			kinds[s.Kind]++
			fail := func(format string, args ...any) { report("diagnosis: "+s.Diagnosis, format, args...) }
			checkTimedSummary(s, runs, order, reqs, fail)
			checkLifecycleSummary(s, res, order, fail)
			if strings.Contains(s.Diagnosis, "and sent no request") {
				seen["silent-copy"]++
			}
		}
	}
	t.Logf("kinds: %v; workers' lines: %v", kinds, seen)
	for _, w := range []string{"deploy-kill", "dead-letter", "release-any", "schedule", "sigterm", "silent-copy"} {
		if seen[w] == 0 {
			t.Errorf("no generated script had a %s: the generator misses what it is about (%v)", w, seen)
		}
	}
}

// checkLifecycleWords holds what the workers say of themselves to the
// trace: a deploy's kill says whether the run's request had left, as the
// service's record shows; a renewal that found the lease gone names
// another run that holds the job, or says the job is not held; an ack is
// a row that is done. It counts, in seen, what the script reached.
func checkLifecycleWords(res *result.Result, seen map[string]int, fail func(string, ...any)) {
	sent := map[string]bool{} // runs with a request the service recorded
	for _, e := range res.Effects {
		sent[e.Run] = true
	}
	held := regexp.MustCompile(`lease lost: job \d+ is held by run (\w+) now`)
	for _, e := range res.Trace {
		switch e.Kind {
		case event.Kill:
			if !strings.Contains(e.Step, "by the deploy") {
				continue
			}
			seen["deploy-kill"]++
			left := strings.Contains(e.Step, "receipt request on its way") || strings.Contains(e.Step, "waited for the receipt's answer")
			if left && !sent[e.Run] {
				fail("%s's kill says its request had left (%q), and the service recorded none from run %s", e.Proc, e.Step, e.Run)
			}
			if strings.Contains(e.Step, "before the receipt") && sent[e.Run] {
				fail("%s's kill says it came before the receipt (%q), and the service recorded a request from run %s", e.Proc, e.Step, e.Run)
			}
		case event.Say:
			if m := held.FindStringSubmatch(e.Step); m != nil && m[1] == e.Run {
				fail("%s says the job is held by run %s now: its own run (%q)", e.Proc, m[1], e.Step)
			}
			if strings.Contains(e.Step, "SIGTERM") {
				seen["sigterm"]++
			}
		case event.Ack:
			if e.Job != nil && e.Job.Status != "done" {
				fail("%s's ack %q left job %d %s, not done", e.Proc, e.Step, e.Job.ID, e.Job.Status)
			}
		case event.DeadLetter:
			seen["dead-letter"]++
		case event.Lock:
			if strings.Contains(e.Step, "whoever owns it") {
				seen["release-any"]++
			}
		case event.Race:
			if strings.Contains(e.Step, "--schedule") {
				seen["schedule"]++
			}
		}
	}
}

// checkLifecycleSummary holds one order's diagnosis to what the trace
// shows of a run's end from outside: a run whose claim moved the job to
// the dead-letter queue is named as that, not as a delivery that did
// nothing or a run that stopped; a run said to have been killed before
// its receipt sent no request; a run said to be at work when another
// took its job was not killed before; a job redeliver took from a run and
// handed to another is named so.
func checkLifecycleSummary(s diagnosis.Summary, res *result.Result, order []*traced, fail func(string, ...any)) {
	d := s.Diagnosis
	sent := map[string]bool{}
	for _, e := range res.Effects {
		if e.Order == s.Order {
			sent[e.Worker] = true
		}
	}
	for _, m := range regexp.MustCompile(`(W\d) was killed before its receipt`).FindAllStringSubmatch(d, -1) {
		if sent[m[1]] {
			fail("%s is said to have been killed before its receipt, and the service recorded its request", m[1])
		}
	}
	// A run said to be still at work when another took its job was not
	// killed before that claim.
	killedAt := map[string]int64{}
	for _, e := range res.Trace {
		if _, ok := killedAt[e.Run]; e.Kind == event.Kill && !ok {
			killedAt[e.Run] = e.AtUS
		}
	}
	for _, m := range regexp.MustCompile(`(W\d) took (?:the job|job \d+) while (W\d) was`).FindAllStringSubmatch(d, -1) {
		for i, c := range order {
			if c.worker != m[1] || c.prev == nil || c.prev.worker != m[2] {
				continue
			}
			if at, ok := killedAt[c.prev.run]; ok && at < c.claimedAt {
				fail("%s is said to be at work when %s took the job (claim %d at %d µs), and it was killed at %d µs", m[2], m[1], i, c.claimedAt, at)
			}
		}
	}
	// A claim of a job its holder had acked, with no re-drive between, is
	// no delivery of the queue's.
	for _, c := range order {
		if s.Kind == diagnosis.Redelivery && c.prev != nil && !c.redriven && c.prev.ackedAt >= 0 && c.prev.ackedAt <= c.claimedAt {
			fail("%s claimed the job after %s had acked it, and the diagnosis calls it a redelivery", c.worker, c.prev.worker)
		}
	}
	dead := false
	for _, e := range res.Trace {
		dead = (dead || e.Kind == event.DeadLetter) && e.Kind != event.Reset
	}
	// A re-drive that took the job from a run (one that held it, or had
	// acked it), not one of a job nobody had claimed yet.
	redriven := slices.ContainsFunc(order, func(c *traced) bool { return c.redriven && c.prev != nil })
	if dead && (strings.Contains(d, "delivered") || strings.Contains(d, "stopped with no effect")) && !strings.Contains(d, "dead-letter queue") {
		fail("a claim moved the job to the dead-letter queue, and the diagnosis counts it as a delivery or a run that stopped without saying so")
	}
	if redriven && s.Kind == diagnosis.Redelivery && !strings.Contains(d, "redeliver") {
		fail("redeliver put the job back, and the diagnosis calls the second delivery the queue's own")
	}
}
