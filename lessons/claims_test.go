package lessons

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/twice-lab/twice/internal/article"
	"github.com/twice-lab/twice/runtime/script"
)

// This file holds the lessons to what they claim: a sentence that was
// wrong stays out, and a claim that can be run is run.

// lesson returns the built-in lesson in file, or fails t.
func lesson(t *testing.T, file string) Lesson {
	t.Helper()
	ls, err := Load(FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		if l.File == file {
			return l
		}
	}
	t.Fatalf("no lesson %s", file)
	return Lesson{}
}

// prose is the lesson's source with every run of white space turned into
// one space, so that a phrase is found across a line break.
func prose(l Lesson) string {
	return strings.Join(strings.Fields(string(l.Source)), " ")
}

// blockWith returns the one twice block of l whose script contains every
// one of words, and its result at its seed; it fails t unless exactly one
// block matches.
func blockWith(t *testing.T, l Lesson, words ...string) (Block, *script.Result) {
	t.Helper()
	var found []Block
	for _, b := range l.Blocks {
		all := true
		for _, w := range words {
			all = all && strings.Contains(b.Script, w)
		}
		if all {
			found = append(found, b)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s: %d twice blocks contain %q, want 1", l.File, len(found), words)
	}
	opts, err := found[0].Options()
	if err != nil {
		t.Fatal(err)
	}
	r := script.Run(found[0].Script, script.Options{Seed: opts.Seed})
	if r.Error != nil {
		t.Fatalf("%s:%d: %v", l.File, found[0].Line, r.Error)
	}
	return found[0], r
}

// TestCorrectedClaimsStayOut lists sentences the lessons once said that
// were wrong, with what was wrong; none may come back.
func TestCorrectedClaimsStayOut(t *testing.T) {
	for _, c := range []struct{ file, phrase, why string }{
		{"01-one-job.md", "Nothing here is mocked", "the receipts service, the network, time, crashes and scheduling are simulated"},
		{"02-lease-expiry.md", "long lease prevents", "a longer lease only moves the goalposts: a worker that arrives after it has run out duplicates again"},
		{"03-client-retry.md", "like many clients, retries", "standard HTTP clients do not resend a POST after a timeout; the retry is the worker's own code"},
		{"05-atomic-claim.md", "write to the table while", "SQLite locks the whole database for a write, not a table"},
		{"06-redelivery.md", "such as the job id or the order id", "the key is the producer's event id, claimed atomically by the service"},
		{"07-every-interleaving.md", "each one run against the table", "the search merges states: each state runs on SQLite once, the orderings are counted"},
		{"07-every-interleaving.md", "astronomical", "the atomic claim has about a million and a half orderings for eight workers"},
		{"07-every-interleaving.md", "one seed in ten", "about one seed in thirty gives a race that does not duplicate"},
		{"08-outlives-its-lease.md", "a trickle of duplicates", "a p95 above the timeout means more than one job in twenty outlasts it"},
		{"09-heartbeats.md", "one second further ahead", "a renewal sets the lease to a full lease from the beat, not one lease past the old expiry"},
		{"11-idempotency-keys.md", "A timestamp or a hash of the payload fails the same way", "a send-time timestamp changes on every retry, like the run id; only the payload hash collides like the order id"},
		{"12-check-or-claim.md", "last four lines", "the duplicating ordering starts at step 4, W1's SELECT of the key; the last four lines skip it"},
		{"13-producer-publishes-twice.md", "the same as in lesson 6", "lesson 6's run id and attempt cannot find a double publish: each job ran once, at attempt 1"},
		{"15-keys-that-expire.md", "cannot even cover the queue's own redelivery", "a key stored late in the lease can outlive a TTL shorter than the lease until the first redelivery"},
	} {
		if strings.Contains(strings.ToLower(prose(lesson(t, c.file))), strings.ToLower(c.phrase)) {
			t.Errorf("%s says %q again; it is wrong: %s", c.file, c.phrase, c.why)
		}
	}
}

// TestCorrectionsStayIn lists what the corrected lessons say instead, in
// the words the tests of this package check; rewording one of them means
// checking the new sentence against what the lab does.
func TestCorrectionsStayIn(t *testing.T) {
	for _, c := range []struct{ file, phrase string }{
		{"01-one-job.md", "Everything around the database is simulated: the receipts service and the network between it and the workers, the clock, the crashes, and the scheduler"},
		{"02-lease-expiry.md", "Lesson 8 runs exactly that"},
		{"03-client-retry.md", "That second try is the worker's own code"},
		{"03-client-retry.md", "does not resend a POST after a timeout by itself"},
		{"06-redelivery.md", "The right key is the id the producer gave the event"},
		{"06-redelivery.md", "must also *claim* the key atomically"},
		{"06-redelivery.md", "The lessons on idempotency that follow"},
		{"07-every-interleaving.md", "the orderings are not run one by one"},
		{"10-fencing.md", "The lessons on idempotency that follow"},
		{"16-which-fix.md", "That narrows the race, from most races to a handful in a thousand; it does not close it"},
		{"16-which-fix.md", "at every one of the twenty seeds"},
	} {
		if !strings.Contains(prose(lesson(t, c.file)), c.phrase) {
			t.Errorf("%s no longer says %q", c.file, c.phrase)
		}
	}
}

// TestWhichFixAgreesWithItsMatrix holds lesson 16's prose to the matrix
// its block prints: each fix closes the rows the prose says it closes and
// no other, and the heartbeat and fencing narrow the claim race without
// closing it, as the race block beside it shows.
func TestWhichFixAgreesWithItsMatrix(t *testing.T) {
	l := lesson(t, "16-which-fix.md")
	_, r := blockWith(t, l, "matrix")
	if len(r.Matrices) != 1 {
		t.Fatalf("%d matrices", len(r.Matrices))
	}
	m := r.Matrices[0]
	closes := map[string][]string{ // as the prose says, row by row
		"none":      nil,
		"atomic":    {"claim-race"},
		"heartbeat": {"slow"},
		"fence":     {"slow", "stall"},
		"check":     {"lost-ack", "slow", "stall", "client-retry", "double-publish"},
		"claim":     {"claim-race", "lost-ack", "slow", "stall", "client-retry", "double-publish"},
		"ledger":    {"claim-race", "lost-ack", "slow", "stall", "client-retry", "double-publish"},
	}
	for fi, f := range m.Fixes {
		want, ok := closes[f.ID]
		if !ok {
			t.Errorf("the matrix has a fix %q the lesson does not discuss", f.ID)
			continue
		}
		var got []string
		for _, row := range m.Scenarios {
			if row.Cells[fi].Verdict == script.VerdictClosed {
				got = append(got, row.ID)
			}
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("the %s column closes %v; the lesson says %v", f.ID, got, want)
		}
	}
	for fi, f := range m.Fixes {
		c := m.Scenarios[0].Cells[fi]
		if (f.ID == "heartbeat" || f.ID == "fence" || f.ID == "check") && (c.Verdict != script.VerdictNarrows || c.Failed == 0) {
			t.Errorf("the claim race with %s: %s %d/%d; the lesson says it narrows the race", f.ID, c.Verdict, c.Failed, c.Trials)
		}
	}
	_, race := blockWith(t, l, "--heartbeat 300")
	if len(race.Races) != 1 || race.Races[0].Duplicates == 0 {
		t.Errorf("the heartbeat race block shows no duplicate: %v", race.Races)
	}
}

// TestLongerLeaseStillDuplicates: lesson 2 says a longer lease moves the
// goalposts, and shows it with a block whose five-second lease turns one
// worker away and still lets a later one run the job again.
func TestLongerLeaseStillDuplicates(t *testing.T) {
	l := lesson(t, "02-lease-expiry.md")
	if !strings.Contains(prose(l), "moves the goalposts") {
		t.Errorf("%s no longer says that a longer lease moves the goalposts", l.File)
	}
	want := strings.TrimSpace(article.Golden(t, "long-lease-still-duplicates"))
	b, r := blockWith(t, l, "--lease 5")
	if got := strings.TrimSpace(b.Script); got != want {
		t.Errorf("%s: the long-lease block is not the golden long-lease-still-duplicates:\n%s\nwant:\n%s", l.File, got, want)
	}
	if len(r.Summary) != 1 || r.Summary[0].Effects != 2 || r.Summary[0].Kind != script.KindLeaseExpired {
		t.Fatalf("%s: the five-second lease block gives %+v, want two effects from a lease that expired", l.File, r.Summary)
	}
	if !strings.Contains(r.Text(), "W2 run") || !strings.Contains(r.Text(), "already claimed") {
		t.Errorf("%s: the longer lease should turn W2 away first:\n%s", l.File, r.Text())
	}
}

// TestScenariosAreLessonBlocks requires each of the four scenarios of a
// job that outlives its lease to be a block of its lesson, verbatim, and
// to show there what the lesson says it shows.
func TestScenariosAreLessonBlocks(t *testing.T) {
	where := map[string]string{
		"bg-processing-outlives-lease": "08-outlives-its-lease.md",
		"bg-heartbeat-keeps-lease":     "09-heartbeats.md",
		"bg-stall-beats-heartbeat":     "09-heartbeats.md",
		"bg-fence-refuses-stale":       "10-fencing.md",
	}
	for _, sc := range article.Scenarios(t) {
		l := lesson(t, where[sc.Name])
		var r *script.Result
		for _, b := range l.Blocks {
			if strings.TrimSpace(b.Script) == strings.TrimSpace(sc.Script) {
				r = script.Run(b.Script, script.Options{Seed: script.DefaultSeed})
			}
		}
		if r == nil {
			t.Errorf("%s: no twice block holds scenario %s verbatim:\n%s", l.File, sc.Name, sc.Script)
			continue
		}
		if len(r.Summary) != 1 {
			t.Fatalf("%s: %d summaries", sc.Name, len(r.Summary))
		}
		s, out := r.Summary[0], r.Text()
		switch sc.Name {
		case "bg-processing-outlives-lease":
			if s.Effects != 2 || s.Runs != 2 || s.Kind != script.KindSlow {
				t.Errorf("%s: %+v, want 2 effects from 2 runs, processing outlived the lease", sc.Name, s)
			}
			// The runs overlap: W2's receipt lands while W1 is still working.
			if strings.Index(out, "W2 run") > strings.Index(out, "W1 run") {
				t.Errorf("%s: W2 should send before the still-working W1:\n%s", sc.Name, out)
			}
		case "bg-heartbeat-keeps-lease":
			if s.Effects != 1 || !strings.Contains(out, "W2 run") || !strings.Contains(out, "already claimed") {
				t.Errorf("%s: want W2 to find the job claimed and one effect:\n%s", sc.Name, out)
			}
		case "bg-stall-beats-heartbeat":
			if s.Effects != 2 || s.Kind != script.KindStall {
				t.Errorf("%s: %+v, want 2 effects from a stall past the lease", sc.Name, s)
			}
		case "bg-fence-refuses-stale":
			if s.Effects != 1 || s.Refused != 1 || s.Kind != script.KindFenced ||
				!strings.Contains(out, "W1 run") || !strings.Contains(out, "receipt refused") || !strings.Contains(out, "ack refused") {
				t.Errorf("%s: %+v, want one effect, W1's receipt and ack refused:\n%s", sc.Name, s, out)
			}
		}
	}
}

// TestLessonsTenClaims runs the other claims of lessons 8 to 10.
func TestLessonsTenClaims(t *testing.T) {
	// Lesson 8: duplicates fall as the lease passes the p95, and come back
	// when the latency moves.
	l8 := lesson(t, "08-outlives-its-lease.md")
	_, r := blockWith(t, l8, "p95=3000 --lease")
	before := r.Loads
	_, r = blockWith(t, l8, "p95=6000 --lease")
	after := r.Loads
	if len(before) != 5 || len(after) != 5 {
		t.Fatalf("lesson 8 sweeps: %d and %d leases, want 5 each", len(before), len(after))
	}
	if before[0].Duplicates <= before[2].Duplicates || before[2].Duplicates < before[4].Duplicates {
		t.Errorf("lesson 8: duplicates do not fall as the lease grows: %+v", before)
	}
	if before[0].LeaseUS >= before[0].P95US || before[3].LeaseUS <= before[0].P95US {
		t.Errorf("lesson 8: the sweep should have leases on both sides of the drawn p95 (%d µs)", before[0].P95US)
	}
	if after[3].Duplicates <= before[3].Duplicates || after[3].LeaseUS >= after[0].P95US {
		t.Errorf("lesson 8: when the latency moves, the 5 s lease should fall below the p95 and duplicate more: before %+v, after %+v", before[3], after[3])
	}

	// Lesson 9: a renewal that changes no row stops the worker; under
	// load, heartbeats stop the slow jobs' duplicates and stalls longer
	// than the lease bring them back at every lease.
	l9 := lesson(t, "09-heartbeats.md")
	_, lost := blockWith(t, l9, "--heartbeat 1500")
	if !strings.Contains(lost.Text(), "lease lost") || lost.Summary[0].Effects != 1 {
		t.Errorf("lesson 9: the rare heartbeat should lose its lease and leave one effect:\n%s", lost.Text())
	}
	_, beats := blockWith(t, l9, "load", "--heartbeat 300\n")
	_, stalls := blockWith(t, l9, "load", "--stall 12000")
	if len(beats.Loads) != 4 || len(stalls.Loads) != 4 {
		t.Fatalf("lesson 9: %d and %d load tallies, want 4 each", len(beats.Loads), len(stalls.Loads))
	}
	for _, tl := range beats.Loads {
		if tl.Duplicates != 0 || tl.LeaseUS < 5*1000*1000 && tl.Overran == 0 {
			t.Errorf("lesson 9: with heartbeats, lease %d µs should have executions longer than the lease and no duplicate: %+v", tl.LeaseUS, tl)
		}
	}
	for _, tl := range stalls.Loads {
		if tl.Duplicates == 0 {
			t.Errorf("lesson 9: stalls longer than the lease give no duplicate at lease %d µs: %+v", tl.LeaseUS, tl)
		}
	}

	// Lesson 10: a stale receipt that arrives first is not refused.
	_, first := blockWith(t, lesson(t, "10-fencing.md"), "--worker W2 --processing 3000 --fence")
	if s := first.Summary[0]; s.Effects != 2 || s.Refused != 0 || !strings.Contains(first.Text(), "ack refused") {
		t.Errorf("lesson 10: the stale receipt that arrives first should count, and only its ack be refused: %+v\n%s", s, first.Text())
	}
	if p := prose(lesson(t, "10-fencing.md")); !strings.Contains(p, "only protects a resource that checks the token") {
		t.Errorf("lesson 10 no longer says that fencing needs the resource to check the token")
	}
}

// TestLessonSevenFigures measures what lesson 7 says about its figures.
func TestLessonSevenFigures(t *testing.T) {
	l := lesson(t, "07-every-interleaving.md")
	p := prose(l)

	// "about one seed in thirty" of the step-through block's race does
	// not duplicate, measured as twice run --seed N -c 'race read 1'
	// would for seeds 1 to 300; the seeds it names are among them.
	if !strings.Contains(p, "about one seed in thirty does not") {
		t.Fatalf("%s no longer gives the share of seeds that do not duplicate", l.File)
	}
	clean := map[uint64]bool{}
	for seed := uint64(1); seed <= 300; seed++ {
		r := script.Run("race read 1\n", script.Options{Seed: seed})
		if r.Races[0].Duplicates == 0 {
			clean[seed] = true
		}
	}
	t.Logf("race read 1 does not duplicate at %d of seeds 1 to 300", len(clean))
	if n := len(clean); n < 300/45 || n > 300/20 {
		t.Errorf("%d of 300 seeds give a race read 1 without a duplicate: not about one in thirty; correct %s", n, l.File)
	}
	named := regexp.MustCompile(`seeds (\d+) and (\d+) are two`).FindStringSubmatch(p)
	if named == nil {
		t.Fatalf("%s no longer names two seeds that do not duplicate", l.File)
	}
	for _, s := range named[1:] {
		var seed uint64
		fmt.Sscan(s, &seed)
		if !clean[seed] {
			t.Errorf("%s names seed %d as one that does not duplicate, but it does", l.File, seed)
		}
	}

	// The orderings: a few dozen for the atomic claim with three workers,
	// about a million and a half with eight, and a 23-digit count for the
	// read claim with eight.
	count := func(src string) string {
		r := script.Run(src, script.Options{Seed: script.DefaultSeed})
		if r.Error != nil || len(r.Explorations) != 1 {
			t.Fatalf("%s: %v", src, r.Error)
		}
		return r.Explorations[0].Orderings
	}
	var n3, n8 int
	fmt.Sscan(count("race atomic --all --workers 3"), &n3)
	fmt.Sscan(count("race atomic --all --workers 8"), &n8)
	if n3 < 24 || n3 > 99 || !strings.Contains(p, "a few dozen for three workers") {
		t.Errorf("the atomic claim has %d orderings with three workers; the lesson says a few dozen", n3)
	}
	if n8 < 1_400_000 || n8 > 1_600_000 || !strings.Contains(p, "about a million and a half for eight") {
		t.Errorf("the atomic claim has %d orderings with eight workers; the lesson says about a million and a half", n8)
	}
	if c := count("race read --all --workers 8"); len(c) != 23 || !strings.Contains(p, "twenty-three-digit count") {
		t.Errorf("the read claim has %s orderings with eight workers (%d digits); the lesson says twenty-three", c, len(c))
	}
}

// TestLessonsExploreFlags holds lessons 9, 10 and 14 to the counts they
// quote from race --all with a heartbeat, a fence and the ledger.
func TestLessonsExploreFlags(t *testing.T) {
	for _, tc := range []struct {
		file, flag, says string
		dup, total       string
	}{
		{"09-heartbeats.md", "--heartbeat 300", "52 of the 84 interleavings still give two effects", "52", "84"},
		{"10-fencing.md", "--fence", "128 of the 148 interleavings still give two effects", "128", "148"},
		{"14-effect-in-the-transaction.md", "--effect ledger", "None of the interleavings writes two rows", "0", "24"},
	} {
		l := lesson(t, tc.file)
		_, r := blockWith(t, l, "--all", tc.flag)
		if len(r.Explorations) != 1 {
			t.Fatalf("%s: %d explorations: %v", tc.file, len(r.Explorations), r.Error)
		}
		x := r.Explorations[0]
		if x.Duplicating != tc.dup || x.Orderings != tc.total || !strings.Contains(prose(l), tc.says) {
			t.Errorf("%s: the block explores %s of %s; the lesson says %q", tc.file, x.Duplicating, x.Orderings, tc.says)
		}
	}
	// Lesson 10's shortest ordering: token 1 accepted, then token 2.
	_, r := blockWith(t, lesson(t, "10-fencing.md"), "--all", "--fence")
	steps := r.Explorations[0].Shortest
	var posts []string
	for _, s := range steps {
		if strings.Contains(s.What, "POST receipt") {
			posts = append(posts, s.What)
		}
	}
	if len(posts) != 2 || !strings.Contains(posts[0], "fencing token 1): the service records effect 1") || !strings.Contains(posts[1], "fencing token 2): the service records effect 2") {
		t.Errorf("lesson 10: the shortest duplicating ordering is not token 1 then token 2: %+v", steps)
	}
}
