package lessons

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/twice-lab/twice/internal/article"
	"github.com/twice-lab/twice/runtime/script/diagnosis"
	"github.com/twice-lab/twice/runtime/script/interp"
	"github.com/twice-lab/twice/runtime/script/result"
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
func blockWith(t *testing.T, l Lesson, words ...string) (Block, *result.Result) {
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
	r := interp.Run(found[0].Script, interp.Options{Seed: opts.Seed})
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
		{"03-client-retry.md", "like many clients, retries", "a bare HTTP client does not resend a POST after a timeout; the lab's retry is the worker's own code"},
		{"01-one-job.md", "the value of `attempts` that run's claim wrote", "the tag's attempt is what the run read back after its claim; two racing runs can read back the same value"},
		{"03-client-retry.md", "a standard HTTP client does not resend a POST", "SDKs and service meshes do resend POSTs; only a bare client does not"},
		{"08-outlives-its-lease.md", "Kafka has no lease per message", "Kafka's share groups lock each record for a while, like a lease"},
		{"08-outlives-its-lease.md", "every record the slow consumer was still working on is processed a second time", "reprocessing starts at the last committed offset: finished but uncommitted records run again too"},
		{"09-heartbeats.md", "alive for ever", "SQS caps a message's visibility at 12 hours from its receive; Pub/Sub's clients stop extending after a maximum"},
		{"09-heartbeats.md", "a different fix (a shorter timeout", "a shorter client timeout retries a request the service recorded: lesson 3's duplicate, not a fix"},
		{"09-heartbeats.md", "it only has to cover the time between two heartbeats", "the lease also has to cover the time a renewal takes to land, and its retries"},
		{"12-check-or-claim.md", "One or two of twenty", "over seeds the check-then-act race duplicates in one to five of twenty"},
		{"16-which-fix.md", "closes the rows where its own kind of gap was the cause, and nothing else", "fencing closes a stale run only where its request arrives second"},
		{"16-which-fix.md", "That closes the rows where a stale run turns up late", "a stale request that arrives before the new holder's is not refused"},
		{"17-lock-that-awaits.md", "Nothing could run between the look and the write, so it was a lock.", "two processes share no in-process table: it was a lock only inside one process"},
		{"17-lock-that-awaits.md", "whoever inserts second is done", "a late inserter, after the release, takes the lock and never releases it"},
		{"06-redelivery.md", "it means that its own side is deduplicated", "each broker's exactly-once covers something specific (FIFO dedupe window, Kafka transactions, Pub/Sub acks)"},
		{"06-redelivery.md", "the order was enqueued twice: look at the producer", "two jobs can be one event published twice or two real events: the event ids tell"},
		{"05-atomic-claim.md", "write to the table while", "SQLite locks the whole database for a write, not a table"},
		{"05-atomic-claim.md", "`atomic` is the same thing", "lock is a claim of its own: a lock row owned in one INSERT, then the job taken"},
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
		{"18-lock-that-lapses.md", "a counter beside it (`INCR`) can", "an INCR sent after the SET NX can give a holder that paused between the two a higher token than its successor's"},
		{"21-outbox.md", "a republish after a longer outage", "Kafka's idempotent producer drops only its client's resends within one session; a restarted relay's republish is a new session"},
		{"19-dead-letters.md", "re-drive days later", "lesson 15's re-drive comes two minutes after the work was done"},
		{"16-which-fix.md", "In the claim race it only narrows: when both", "fencing in the claim race also lets through an older token that reaches the service first"},
		{"10-fencing.md", "turn away a holder that has been replaced.", "a replaced holder is turned away only when its request comes after its successor's"},
		{"11-idempotency-keys.md", "so a producer that sends again gets a new one", "Kafka's idempotent producer and SQS FIFO drop some resends; only a resend by the producer's own code is always new"},
		{"08-outlives-its-lease.md", "is handed to another consumer, its delivery count", "a share group's released record goes to whichever consumer fetches it, perhaps the same one"},
		{"20-deploy-drain.md", "Each deploy kills every worker that is mid-job", "a deploy the workers drain kills none of them"},
		{"20-deploy-drain.md", "lesson 2 with no grace at all", "a process that swallowed SIGTERM had a grace and did not use it"},
		{"01-one-job.md", "A field appears only when it tells something", "the run id, attempt and send number are in every tag"},
		{"06-redelivery.md", "A queue delivers at least once;", "a queue that acks on hand-out (RabbitMQ's automatic ack, Celery's default) delivers at most once"},
		{"16-which-fix.md", "cell of the stall row", "the matrix has two stall rows"},
		{"12-check-or-claim.md", "one level up); and it makes every request", "a lock with a time to live closes the check's race only while it outlasts the effect"},
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
		{"03-client-retry.md", "it does not ask whether the method was a POST"},
		{"01-one-job.md", "the value of `attempts` that the run read back from the row right after its claim"},
		{"08-outlives-its-lease.md", "every record it had already finished but not yet committed"},
		{"08-outlives-its-lease.md", "Kafka's newer share groups (its queues) work like the lease here"},
		{"09-heartbeats.md", "SQS will not keep a message invisible for more than 12 hours"},
		{"09-heartbeats.md", "A shorter client timeout is not a cure"},
		{"09-heartbeats.md", "plus the time a renewal takes to land"},
		{"16-which-fix.md", "so it closes a row only where the stale run's request reaches the resource second"},
		{"17-lock-that-awaits.md", "Two processes share no in-process table"},
		{"17-lock-that-awaits.md", "and nothing ever deletes the lock row it wrote"},
		{"06-redelivery.md", "read what the promise covers"},
		{"05-atomic-claim.md", "with one `INSERT` that succeeds for one worker only"},
		{"06-redelivery.md", "The right key is the id the producer gave the event"},
		{"06-redelivery.md", "must also *claim* the key atomically"},
		{"06-redelivery.md", "The lessons on idempotency that follow"},
		{"07-every-interleaving.md", "the orderings are not run one by one"},
		{"10-fencing.md", "The lessons on idempotency that follow"},
		{"16-which-fix.md", "That narrows the race, from most races to a handful in a thousand; it does not close it"},
		{"16-which-fix.md", "at every one of the twenty seeds"},
		{"18-lock-that-lapses.md", "if it is raised in the same server-side script as the `SET`"},
		{"21-outbox.md", "Kafka: every republish by a restarted relay, which is a new session"},
		{"16-which-fix.md", "the older token often reaches the service before the newer one"},
		{"10-fencing.md", "a replaced holder whose request comes after its successor's"},
		{"06-redelivery.md", "A queue that never loses a job delivers at least once"},
		{"12-check-or-claim.md", "and only while the lock outlasts the effect"},
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
		"check":     {"lost-ack", "slow", "stall", "stale-first", "double-publish"},
		"claim":     {"claim-race", "lost-ack", "slow", "stall", "stale-first", "client-retry", "double-publish"},
		"ledger":    {"claim-race", "lost-ack", "slow", "stall", "stale-first", "client-retry", "double-publish"},
	}
	for fi, f := range m.Fixes {
		want, ok := closes[f.ID]
		if !ok {
			t.Errorf("the matrix has a fix %q the lesson does not discuss", f.ID)
			continue
		}
		var got []string
		for _, row := range m.Scenarios {
			if row.Cells[fi].Verdict == result.VerdictClosed {
				got = append(got, row.ID)
			}
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("the %s column closes %v; the lesson says %v", f.ID, got, want)
		}
	}
	for fi, f := range m.Fixes {
		c := m.Scenarios[0].Cells[fi]
		if (f.ID == "heartbeat" || f.ID == "fence" || f.ID == "check") && (c.Verdict != result.VerdictNarrows || c.Failed == 0) {
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
	if len(r.Summary) != 1 || r.Summary[0].Effects != 2 || r.Summary[0].Kind != diagnosis.LeaseExpired {
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
		var r *result.Result
		for _, b := range l.Blocks {
			if strings.TrimSpace(b.Script) == strings.TrimSpace(sc.Script) {
				r = interp.Run(b.Script, interp.Options{Seed: interp.DefaultSeed})
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
			if s.Effects != 2 || s.Runs != 2 || s.Kind != diagnosis.Slow {
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
			if s.Effects != 2 || s.Kind != diagnosis.Stall {
				t.Errorf("%s: %+v, want 2 effects from a stall past the lease", sc.Name, s)
			}
		case "bg-fence-refuses-stale":
			if s.Effects != 1 || s.Refused != 1 || s.Kind != diagnosis.Fenced ||
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

	// Lesson 9: the heartbeat timer renews during the receipt call too.
	_, call := blockWith(t, l9, "--delay 3000 --heartbeat 300")
	if !strings.Contains(call.Text(), "already claimed") || call.Summary[0].Effects != 1 {
		t.Errorf("lesson 9: a heartbeat should keep the lease through a 3 s call:\n%s", call.Text())
	}
	if p := prose(l9); !strings.Contains(p, "renewing while the worker waits for a slow downstream call") {
		t.Errorf("lesson 9 no longer says the heartbeat renews during the downstream call")
	}

	// Lesson 10: a stale receipt that arrives first is not refused.
	_, first := blockWith(t, lesson(t, "10-fencing.md"), "--worker W2 --processing 3000 --fence")
	if s := first.Summary[0]; s.Effects != 2 || s.Refused != 0 || !strings.Contains(first.Text(), "ack refused") {
		t.Errorf("lesson 10: the stale receipt that arrives first should count, and only its ack be refused: %+v\n%s", s, first.Text())
	}
	if p := prose(lesson(t, "10-fencing.md")); strings.Contains(p, "seen 2 for this order") {
		t.Errorf("lesson 10 says the token was seen for the order; it is kept per job")
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
		r := interp.Run("race read 1\n", interp.Options{Seed: seed})
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
		r := interp.Run(src, interp.Options{Seed: interp.DefaultSeed})
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

// TestCheckWindowHoldsTheEffect: lesson 12's check-then-act window holds
// the effect's latency, so --delay raises the duplicates; and a retry
// that arrives while a claimed key is still in progress waits for the
// first answer instead of getting one that does not exist yet.
func TestCheckWindowHoldsTheEffect(t *testing.T) {
	l12 := lesson(t, "12-check-or-claim.md")
	_, slow := blockWith(t, l12, "--dedupe check", "--delay 2")
	fast := interp.Run("service --dedupe check\nrace read 1000 --key job\n", interp.Options{Seed: interp.DefaultSeed})
	if len(slow.Races) != 1 || len(fast.Races) != 1 || slow.Races[0].Duplicates <= 2*fast.Races[0].Duplicates {
		t.Errorf("lesson 12: a 2 ms effect should more than double check-then-act's duplicates: %+v against %+v", slow.Races, fast.Races)
	}
	_, wait := blockWith(t, l12, "--dedupe claim", "--delay 400 --timeout 300")
	if s := wait.Summary[0]; s.Effects != 1 || s.Replayed != 1 {
		t.Errorf("lesson 12: the retry in flight should be replayed once, after waiting: %+v", s)
	}
	waited := false
	for _, e := range wait.Trace {
		waited = waited || strings.Contains(e.Step, "still in progress")
	}
	if !waited {
		t.Errorf("lesson 12: the retry did not wait for the first request in progress")
	}
	b, _ := blockWith(t, l12, "--dedupe claim", "--delay 400 --timeout 300")
	again := interp.Run(strings.Replace(b.Script, "--dedupe claim", "--dedupe check", 1), interp.Options{Seed: interp.DefaultSeed})
	if s := again.Summary[0]; s.Effects != 2 {
		t.Errorf("lesson 12: with check, the retry inside the window should land a second effect: %+v", s)
	}
}

// TestSentencesAnExpertSigns pins corrections of sentences that were
// false or misleading: each entry says a lesson must not say a phrase,
// or must say one, in its prose (whitespace folded).
func TestSentencesAnExpertSigns(t *testing.T) {
	for _, c := range []struct {
		file, phrase string
		want         bool
		why          string
	}{
		{"01-one-job.md", "each statement commits as its own transaction", false, "lesson 14 runs a transaction of several statements"},
		{"01-one-job.md", "the first field is the run id", true, "lesson 1 explains each field of the tag"},
		{"04-claim-race.md", "two runs of a slow job can land milliseconds apart too", true, "a gap of milliseconds is a clue, not a proof"},
		{"06-redelivery.md", "a slow job's second run can land just as close", true, "the table's milliseconds row has the same caveat"},
		{"06-redelivery.md", "The last experiment", false, "lesson 6 is not the last of sixteen"},
		{"06-redelivery.md", "\"exactly once\" is not a setting", true, "exactly-once is made at the effect"},
		{"06-redelivery.md", "its message id and its receive count", true, "diagnosing in production needs the broker's delivery id and count"},
		{"06-redelivery.md", "count the duplicate-key hits at the effect", true, "a dedupe's hit rate is a signal"},
		{"12-check-or-claim.md", "the window is as long as the effect", true, "check-then-act's window holds the effect's latency"},
		{"12-check-or-claim.md", "a few hundred microseconds. They rarely overlap", false, "the window is not a constant few hundred microseconds"},
		{"12-check-or-claim.md", "answer at once with \"in progress\" (HTTP 409", true, "a request with a key still in progress"},
		{"10-fencing.md", "seen 2 for this job", true, "fencing tokens are kept per job"},
		{"12-check-or-claim.md", "only if taking the lock is itself one atomic step", true, "a lock that checks then sets is the same race"},
		{"12-check-or-claim.md", "ON CONFLICT (key) DO UPDATE", true, "the lab's claim statement is named as it runs"},
		{"13-producer-publishes-twice.md", "Every duplicate so far was made between the queue and the effect", false, "lesson 11 already showed a double publish"},
		{"14-effect-in-the-transaction.md", "Every duplicate so far had the same anatomy", false, "false for lessons 3, 4 and 13"},
		{"14-effect-in-the-transaction.md", "is the key, a unique row per event", true, "the key, not the shared commit, closes lessons 4 and 13"},
		{"16-which-fix.md", "seven ways to respond", false, "the matrix has six fixes beside the column with none"},
		{"16-which-fix.md", "perfectly valid claim. (The client retry has no second holder", true, "not every row is a second holder"},
		{"16-which-fix.md", "the order to work in is the order of the columns", false, "the columns include a trap"},
		{"16-which-fix.md", "dies between storing the key and the effect loses the work", true, "the claim-first hole"},
	} {
		p := strings.ToLower(prose(lesson(t, c.file)))
		if got := strings.Contains(p, strings.ToLower(strings.Join(strings.Fields(c.phrase), " "))); got != c.want {
			t.Errorf("%s: says %q = %v, want %v (%s)", c.file, c.phrase, got, c.want, c.why)
		}
	}
}

// TestFirstLessonStartsPlain: lesson 1's blocks are plain commands, one
// per line, and it keeps the article's shell line as an aside after the
// happy path's block, which it runs and prints the same as, as its prose
// says.
func TestFirstLessonStartsPlain(t *testing.T) {
	l := lesson(t, "01-one-job.md")
	if len(l.Blocks) < 3 {
		t.Fatalf("lesson 1 has %d blocks", len(l.Blocks))
	}
	for _, b := range l.Blocks[:2] {
		if strings.Contains(b.Script, "node queue.mjs") || strings.Contains(b.Script, "&&") || strings.Contains(b.Script, "(") {
			t.Errorf("lesson 1's block at line %d is not plain commands:\n%s", b.Line, b.Script)
		}
	}
	shell, res := blockWith(t, l, "node queue.mjs")
	happy := l.Blocks[1]
	if shell.Line < happy.Line {
		t.Errorf("the shell line comes before the plain commands")
	}
	opts, _ := happy.Options()
	if plain := interp.Run(happy.Script, interp.Options{Seed: opts.Seed}); plain.Text() != res.Text() || res.Error != nil {
		t.Errorf("the aside says it prints the same; the plain block prints\n%s\nthe shell line\n%s", plain.Text(), res.Text())
	}
	if p := prose(l); !strings.Contains(p, "this one is the block above, and prints the same thing") {
		t.Errorf("lesson 1's aside no longer says what the test checks")
	}
}

// TestLessonSeventeenFigures holds lesson 17 to what its blocks print: the
// lock that checks, awaits and sets duplicates in every timed race and in
// the explorer's count, the clue that rules out the producer, the lock
// taken in one statement that no ordering breaks, and the redelivery that
// only the event's key holds.
func TestLessonSeventeenFigures(t *testing.T) {
	l := lesson(t, "17-lock-that-awaits.md")
	p := prose(l)
	says := func(phrase string) {
		t.Helper()
		if !strings.Contains(p, phrase) {
			t.Errorf("%s no longer says %q", l.File, phrase)
		}
	}

	_, r := blockWith(t, l, "race async-lock 20")
	if len(r.Races) != 1 || r.Races[0].Races != 20 || r.Races[0].Duplicates != 20 {
		t.Errorf("race async-lock 20: %+v; the lesson says every one of the twenty races duplicates", r.Races)
	}
	says("Every one of the twenty races sends two receipts")

	// One job (one publish), delivered twice, two effects.
	_, r = blockWith(t, l, "race async-lock 1", "jobs")
	if len(r.Jobs) != 1 || r.Jobs[0].Attempts != 2 || len(r.Summary) != 1 || r.Summary[0].Effects != 2 || r.Summary[0].Kind != diagnosis.ClaimRace {
		t.Errorf("the clue block: jobs %+v, summary %+v; the lesson says one job, attempts=2, two effects from a claim race", r.Jobs, r.Summary)
	}
	says("One job, so the producer published once; `attempts=2`")
	says("Deliveries 2 against publishes 1")

	// The explorer's count and its shortest ordering, as the lesson tells it.
	_, r = blockWith(t, l, "race async-lock --all")
	x := r.Explorations[0]
	if x.Duplicating != "2100" || x.Orderings != "2404" || len(x.Shortest) != 10 {
		t.Errorf("race async-lock --all: %s of %s, shortest %d steps", x.Duplicating, x.Orderings, len(x.Shortest))
	}
	says("2,100 of the 2,404 orderings")
	says("The shortest takes ten steps")
	if len(x.Shortest) >= 3 {
		first := []string{x.Shortest[0].Worker + " " + x.Shortest[0].What, x.Shortest[1].Worker + " " + x.Shortest[1].What, x.Shortest[2].Worker + " " + x.Shortest[2].What}
		if !strings.HasPrefix(first[0], "W1 SELECT owner") || !strings.HasPrefix(first[1], "W1 await") || !strings.HasPrefix(first[2], "W2 SELECT owner") {
			t.Errorf("the shortest ordering starts %q; the lesson says W1 checks and awaits, then W2 checks", first)
		}
	}
	says("W1 checks and starts its await, W2 checks before W1 has written")

	// The lock taken in one statement: no timed race and no ordering.
	_, r = blockWith(t, l, "race lock 20")
	if r.Races[0].Duplicates != 0 {
		t.Errorf("race lock 20 duplicates %d times", r.Races[0].Duplicates)
	}
	_, r = blockWith(t, l, "race lock --all")
	if x := r.Explorations[0]; x.Duplicating != "0" || x.Orderings != "10" {
		t.Errorf("race lock --all: %s of %s; the lesson says none of ten", x.Duplicating, x.Orderings)
	}
	says("None of the ten orderings sends two receipts")

	// A worker killed after its effect: the lock and the lease lapse, the
	// job runs again, and only the event's key holds.
	_, r = blockWith(t, l, "--claim lock --lease 1 --crash-before-ack")
	if s := r.Summary[0]; s.Effects != 2 || s.Kind != diagnosis.LeaseExpired {
		t.Errorf("the killed worker's block: %+v; the lesson says two effects after the lease ran out", s)
	}
	_, r = blockWith(t, l, "--claim lock --lease 1 --key event --crash-before-ack")
	if s := r.Summary[0]; s.Effects != 1 || s.Replayed != 1 {
		t.Errorf("the keyed block: %+v; the lesson says one effect, the retry replayed", s)
	}
}

// TestFencingClosesOnlyTheStaleRequestThatComesSecond holds lesson 16's
// fencing paragraph to the two stall rows of its matrix: the same pause
// with the same tokens, where the fence column closes the row whose stale
// receipt lands after the new holder's and not the row whose stale
// receipt lands first; and each cell's own run shows which came first.
func TestFencingClosesOnlyTheStaleRequestThatComesSecond(t *testing.T) {
	l := lesson(t, "16-which-fix.md")
	_, r := blockWith(t, l, "matrix")
	m := r.Matrices[0]
	fence := -1
	for i, f := range m.Fixes {
		if f.ID == "fence" {
			fence = i
		}
	}
	if fence < 0 {
		t.Fatal("the matrix has no fence column")
	}
	for _, tc := range []struct {
		row    string
		closed bool
		first  int // the attempt whose receipt reaches the service first
	}{
		{"stall", true, 2},
		{"stale-first", false, 1},
	} {
		var cell *result.MatrixCell
		for _, row := range m.Scenarios {
			if row.ID == tc.row {
				cell = &row.Cells[fence]
			}
		}
		if cell == nil {
			t.Fatalf("the matrix has no row %s", tc.row)
		}
		if got := cell.Verdict == result.VerdictClosed; got != tc.closed {
			t.Errorf("fence × %s: %s; the lesson says closed = %v", tc.row, cell.Verdict, tc.closed)
		}
		run := interp.Run(cell.Script, interp.Options{Seed: m.Seed})
		if run.Error != nil || len(run.Effects) != 2 {
			t.Fatalf("fence × %s: %v, %d requests recorded", tc.row, run.Error, len(run.Effects))
		}
		if e := run.Effects[0]; e.Attempt != tc.first || e.Refused {
			t.Errorf("fence × %s: the first request to arrive is attempt %d (refused %v); the lesson says attempt %d, accepted", tc.row, e.Attempt, e.Refused, tc.first)
		}
	}
	if p := prose(l); !strings.Contains(p, "**stall, stale receipt first**") {
		t.Errorf("%s does not name the matrix row stall, stale receipt first", l.File)
	}
}

// TestCheckThenActFigures measures lesson 12's figures for the check
// that races: one to five of twenty at the seeds a reader tries, and the
// counts in a thousand races it quotes for seed 1.
func TestCheckThenActFigures(t *testing.T) {
	l := lesson(t, "12-check-or-claim.md")
	p := prose(l)
	if !strings.Contains(p, "Between one and five of twenty, depending on the seed") {
		t.Fatalf("%s no longer gives the range of the sampled check race", l.File)
	}
	seeds := 40
	if testing.Short() {
		seeds = 10
	}
	lo, hi := 20, 0
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		r := interp.Run("service --dedupe check\nrace read 20 --key job\n", interp.Options{Seed: seed})
		d := r.Races[0].Duplicates
		lo, hi = min(lo, d), max(hi, d)
	}
	if lo < 1 || hi > 5 {
		t.Errorf("over seeds 1 to %d the check race duplicates in %d to %d of twenty; the lesson says one to five", seeds, lo, hi)
	}
	for _, tc := range []struct {
		delay, says string
		want        int
	}{
		{"", "were 127 with no delay", 127},
		{" --delay 1", "744 with 1 ms", 744},
		{" --delay 2", "943 with 2 ms", 943},
		{" --delay 5", "stays at 949", 949},
	} {
		r := interp.Run("service --dedupe check\nrace read 1000 --key job"+tc.delay+"\n", interp.Options{Seed: 1})
		if got := r.Races[0].Duplicates; got != tc.want || !strings.Contains(p, tc.says) {
			t.Errorf("seed 1, race read 1000 --key job%s: %d duplicates; the lesson says %q", tc.delay, got, tc.says)
		}
	}
}

// TestLateInserterKeepsTheLock runs the ordering lesson 17 describes: W2's
// INSERT after W1 has released takes the lock, W2 finds the job done, and
// nothing releases W2's lock.
func TestLateInserterKeepsTheLock(t *testing.T) {
	r := interp.Run("race lock --schedule W1,W1,W1,W1,W1,W2,W2\n", interp.Options{Seed: interp.DefaultSeed})
	if r.Error != nil || r.Schedule == nil {
		t.Fatalf("%v", r.Error)
	}
	out := r.Text()
	if !strings.Contains(out, "W2 INSERT INTO locks job 1 owner W2, unless held: 1 row changed, the lock is mine") ||
		!strings.Contains(out, "W2 UPDATE job 1 WHERE not done: 0 rows changed, already done") ||
		strings.Contains(out, "owner = W2") {
		t.Errorf("the late inserter should take the lock, find the job done and release nothing:\n%s", out)
	}
	if !strings.Contains(prose(lesson(t, "17-lock-that-awaits.md")), "*takes* the lock, then finds the job done and stops") {
		t.Errorf("lesson 17 no longer says what the late inserter does")
	}
}

// TestLessonOneNamesEveryStatus: lesson 1's cast lists the statuses a job
// row can have; every status a script can leave in the jobs table is
// among them (the retry limit's dead letter included).
func TestLessonOneNamesEveryStatus(t *testing.T) {
	l := lesson(t, "01-one-job.md")
	p := prose(l)
	src := "use --max-attempts 1\nadd order-1\nadd order-2\nadd order-3\nadd order-4\n" +
		"work --job 2 --lease 1 --crash-before-effect\nwork --job 3\n" +
		"work --job 4 --lease 1 --crash-before-effect\nsleep 2\nwork --job 4\njobs\n"
	r := interp.Run(src, interp.Options{Seed: 1})
	if r.Error != nil || len(r.Jobs) != 4 {
		t.Fatalf("%v\n%s", r.Error, r.Text())
	}
	for _, j := range r.Jobs {
		if !strings.Contains(p, "`"+j.Status+"`") {
			t.Errorf("a job can be %s (job %d here), and %s does not name that status", j.Status, j.ID, l.File)
		}
	}
}

// TestLessonTwoDeploys: lesson 2 says a deploy's kill is its experiment
// only when it lands between the receipt and the ack, and lesson 6's
// redelivery when it lands before the receipt: measured with a SIGKILL in
// the middle of the work and one during the call, W2 coming once the
// lease has run out.
func TestLessonTwoDeploys(t *testing.T) {
	l := lesson(t, "02-lease-expiry.md")
	if !strings.Contains(prose(l), "a deploy that kills a worker after its receipt has left and before its ack is this experiment") ||
		!strings.Contains(prose(l), "one that kills it before the receipt is lesson 6's redelivery") {
		t.Fatalf("%s no longer says which deploys are its experiment", l.File)
	}
	run := func(flags string) diagnosis.Summary {
		r := interp.Run("add order-77\nwork --job 1 --worker W1 --lease 2 "+flags+" &\nsleep 1\ndeploy\nsleep 2\nwork --job 1 --worker W2\neffects\n", interp.Options{Seed: 1})
		if r.Error != nil || len(r.Summary) != 1 {
			t.Fatalf("%v\n%s", r.Error, r.Text())
		}
		return r.Summary[0]
	}
	if s := run("--processing 3000"); s.Effects != 1 || s.Kind != diagnosis.Redelivery {
		t.Errorf("a kill mid-work: %+v; the lesson says lesson 6, one effect", s)
	}
	if s := run("--delay 3000"); s.Effects != 2 || s.Kind != diagnosis.LeaseExpired {
		t.Errorf("a kill during the call: %+v; the lesson says this lesson's duplicate", s)
	}
}
