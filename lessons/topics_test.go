package lessons

import (
	"strings"
	"testing"

	"github.com/twice-lab/twice/runtime/event"
	"github.com/twice-lab/twice/runtime/script/diagnosis"
	"github.com/twice-lab/twice/runtime/script/interp"
	"github.com/twice-lab/twice/runtime/script/result"
	"github.com/twice-lab/twice/runtime/sim"
)

// This file holds lessons 18 to 21 to what their blocks print.

// says fails t unless l's prose holds every phrase.
func says(t *testing.T, l Lesson, phrases ...string) {
	t.Helper()
	p := prose(l)
	for _, ph := range phrases {
		if !strings.Contains(p, ph) {
			t.Errorf("%s no longer says %q", l.File, ph)
		}
	}
}

// runOf returns the 8-hex run id on worker's first transcript line.
func runOf(t *testing.T, r *result.Result, worker string) string {
	t.Helper()
	for _, line := range r.Transcript {
		if run, ok := strings.CutPrefix(line, worker+" run "); ok && len(run) >= 8 {
			return run[:8]
		}
	}
	t.Fatalf("no line of %s in\n%s", worker, r.Text())
	return ""
}

// variant runs b's script with old replaced by new, at b's seed.
func variant(t *testing.T, b Block, old, new string) *result.Result {
	t.Helper()
	if !strings.Contains(b.Script, old) {
		t.Fatalf("block at line %d has no %q", b.Line, old)
	}
	opts, _ := b.Options()
	r := interp.Run(strings.Replace(b.Script, old, new, 1), interp.Options{Seed: opts.Seed})
	if r.Error != nil {
		t.Fatalf("%v", r.Error)
	}
	return r
}

// TestLockThatLapsesFigures: lesson 18's lock lapses during W1's call and
// W2 sends again; the event's key closes it; the heartbeat does not renew
// the lock; the release that does not check the owner deletes W2's lock,
// W3 takes it and keeps it, and the checked release leaves it W2's.
func TestLockThatLapsesFigures(t *testing.T) {
	l := lesson(t, "18-lock-that-lapses.md")

	lapse, r := blockWith(t, l, "--claim lock --lease 1 --delay 3000 &", "work --job 1 --worker W2 --claim lock\n", "jobs")
	if s := r.Summary[0]; s.Effects != 2 || s.Runs != 2 || s.Kind != diagnosis.SlowCall {
		t.Errorf("the lapse block: %+v; the lesson says two effects from two runs, W1 waiting on the reply", s)
	}
	says(t, l, "Two effects from two runs.", "W1 was waiting on the service's reply when its lease ran out")
	beat := variant(t, lapse, "--delay 3000 &", "--delay 3000 --heartbeat 300 &")
	if beat.Summary[0].Effects != 1 || !strings.Contains(beat.Text(), "W2 run") || !strings.Contains(beat.Text(), "already claimed") {
		t.Errorf("with --heartbeat the lock is renewed and W2 finds it held, the lesson says:\n%s", beat.Text())
	}
	says(t, l, "each beat renews the job's lease and then the lock's `until`", "W2 finds the lock held")
	frozen := variant(t, lapse, "--delay 3000 &\nsleep 1.5", "--processing 3000 --stall 2500 --heartbeat 300 &\nsleep 4.5")
	if frozen.Summary[0].Effects != 2 || frozen.Summary[0].Kind != diagnosis.Stall {
		t.Errorf("a pause past the lock's time to live should beat the heartbeat: %+v", frozen.Summary[0])
	}
	says(t, l, "Lesson 9's pause beats it all the same")

	_, r = blockWith(t, l, "service --dedupe claim", "--claim lock")
	if s := r.Summary[0]; s.Effects != 1 || s.Replayed != 1 {
		t.Errorf("the keyed block: %+v; the lesson says one effect, one replay", s)
	}
	says(t, l, "One effect, one replay.")

	// The third worker's duplicate: W1's fenced ack is refused, and its
	// release, run as a finally, deletes W2's lock.
	third, r3 := blockWith(t, l, "--release any", "--fence")
	if s := r3.Summary[0]; s.Effects != 3 {
		t.Errorf("the fenced release block: %d effects; the lesson says three receipts", s.Effects)
	}
	if s := variant(t, third, " --release any", "").Summary[0]; s.Effects != 2 {
		t.Errorf("the fenced release block without --release any: %d effects; the lesson says W3 finds the lock held", s.Effects)
	}
	says(t, l, "Three receipts, and W3's exists only because of the plain delete")

	rel, r := blockWith(t, l, "--release any", "jobs")
	lockLine := func(r *result.Result) string {
		for _, line := range r.Transcript {
			if strings.HasPrefix(line, "lock job 1 owner=") {
				return line
			}
		}
		t.Fatalf("no lock line in\n%s", r.Text())
		return ""
	}
	if got := lockLine(r); !strings.Contains(got, runOf(t, r, "W3")) {
		t.Errorf("with --release any the lock line is %q; the lesson says it names W3's run", got)
	}
	if len(r.Locks) != 1 || r.Locks[0].Owner != runOf(t, r, "W3") {
		t.Errorf("after the wait the lock should still be W3's (never released): %+v", r.Locks)
	}
	// The block prints no lock line after its wait: the lesson asks for
	// a jobs line there, which then names W3's run.
	after := variant(t, rel, "wait\n", "wait\njobs\n")
	last := ""
	for _, line := range after.Transcript {
		if strings.HasPrefix(line, "lock job 1 owner=") {
			last = line
		}
	}
	if !strings.Contains(last, runOf(t, after, "W3")) {
		t.Errorf("a jobs line after the wait should show W3's lock, got %q:\n%s", last, after.Text())
	}
	says(t, l, "Add a `jobs` line after the `wait` of the `--release any` run")
	if !strings.Contains(r.Text(), "already done") {
		t.Errorf("W3 should stop at the job row:\n%s", r.Text())
	}
	checked := variant(t, rel, " --release any", "")
	if got := lockLine(checked); !strings.Contains(got, runOf(t, checked, "W2")) {
		t.Errorf("with the checked release the lock line is %q; the lesson says it names W2's run", got)
	}
	says(t, l, "the lock belongs to W3's run", "the `lock` line names W2's run", "W3 never releases the lock it took")
}

// TestDeadLettersFigures: lesson 19's slow job reaches the dead-letter
// queue at its third receive while two runs still work, the re-drive
// makes three effects, the event's key makes one, and a heartbeat keeps
// the job out of the dead-letter queue.
func TestDeadLettersFigures(t *testing.T) {
	l := lesson(t, "19-dead-letters.md")
	b, r := blockWith(t, l, "use --max-attempts 2\n", "redeliver")
	out := r.Text()
	if !strings.Contains(out, "job 1 order-77 status=dead attempts=3") || !strings.Contains(out, "received 3 times, more than --max-attempts 2") {
		t.Errorf("the first block should dead-letter the job at its third receive:\n%s", out)
	}
	if s := r.Summary[0]; s.Effects != 3 || s.Runs != 3 {
		t.Errorf("the first block: %+v; the lesson says three receipts for one event", s)
	}
	says(t, l, "Three receipts for one event.", "the first `jobs` line says `status=dead`")

	_, r = blockWith(t, l, "use --max-attempts 2 --key event")
	if s := r.Summary[0]; s.Effects != 1 || s.Replayed != 2 {
		t.Errorf("the keyed block: %+v; the lesson says one effect, two replays", s)
	}
	says(t, l, "One effect, two replays")

	beat := variant(t, b, "use --max-attempts 2\n", "use --max-attempts 2 --heartbeat 500\n")
	if strings.Contains(beat.Text(), "moved to the dead-letter queue") || strings.Contains(beat.Text(), "status=dead") || beat.Summary[0].Effects != 1 {
		t.Errorf("with a heartbeat the job should never reach the dead-letter queue:\n%s", beat.Text())
	}
	says(t, l, "A heartbeat (lesson 9) keeps its lease, so the queue sees no failed receive at all")

	// Without the re-drive the dead job stays dead: a stale ack cannot
	// take it back out, and the jobs line still says so after two receipts.
	noRedrive := variant(t, b, "redeliver --job 1\nwork --job 1 --worker W4 --lease 2 --processing 10000 &\n", "")
	if len(noRedrive.Jobs) != 1 || noRedrive.Jobs[0].Status != "dead" || noRedrive.Summary[0].Effects != 2 {
		t.Errorf("without the re-drive: jobs %+v, %+v; want a dead job with two effects", noRedrive.Jobs, noRedrive.Summary[0])
	}
}

// TestDeployDrainFigures: lesson 20's deploy with no grace kills W1 in its
// call and the lease's redelivery sends again; a grace that covers the
// call drains it in about three seconds; SIGTERM before a claim leaves the
// job queued; a grace shorter than the call duplicates again.
func TestDeployDrainFigures(t *testing.T) {
	l := lesson(t, "20-deploy-drain.md")

	_, r := blockWith(t, l, "deploy\n")
	if s := r.Summary[0]; s.Effects != 2 || s.Runs != 2 || s.Kind != diagnosis.LeaseExpired ||
		!strings.Contains(r.Text(), "killed by the deploy (SIGKILL) while it waited for the receipt's answer") {
		t.Errorf("the SIGKILL block: %+v\n%s", s, r.Text())
	}
	says(t, l, "Two effects from two runs, and the diagnosis of lesson 2: W1 sent its receipt and never acked")

	_, r = blockWith(t, l, "deploy --grace 30")
	if s := r.Summary[0]; s.Effects != 1 || !strings.Contains(r.Text(), "already done") || strings.Contains(r.Text(), "killed") {
		t.Errorf("the drain block: %+v\n%s", s, r.Text())
	}
	var w1End, term sim.Time
	for _, e := range r.Trace {
		if e.Proc == "W1" {
			w1End = e.AtUS
		}
		if e.Kind == event.Deploy {
			term = e.AtUS
		}
	}
	if d := w1End - term; d < 1500*sim.Millisecond || d > 2500*sim.Millisecond {
		t.Errorf("W1 ends %d µs after the SIGTERM; the lesson says about two seconds", d)
	}
	says(t, l, "the pod was gone about two seconds after the `SIGTERM`, not thirty")

	_, r = blockWith(t, l, "deploy --grace 5")
	if len(r.Jobs) != 2 || r.Jobs[1].Status != "queued" || r.Jobs[1].Attempts != 0 || r.Jobs[0].Status != "done" ||
		!strings.Contains(r.Text(), "stops without claiming") {
		t.Errorf("the SIGTERM block: jobs %+v\n%s", r.Jobs, r.Text())
	}
	says(t, l, "so it leaves it `queued`, with no attempt spent")

	_, r = blockWith(t, l, "deploy --grace 1")
	if s := r.Summary[0]; s.Effects != 2 || !strings.Contains(r.Text(), "SIGKILL at the end of the grace) while it waited for the receipt's answer") {
		t.Errorf("the short-grace block: %+v\n%s", s, r.Text())
	}
	says(t, l, "Two effects again: the `SIGKILL` came a second later")
}

// TestOutboxFigures: lesson 21's relay publishes two rows twice: four
// jobs, two events, two receipts each, diagnosed as a double publish; the
// event key makes one effect and one replay per order.
func TestOutboxFigures(t *testing.T) {
	l := lesson(t, "21-outbox.md")
	_, r := blockWith(t, l, "add order-77 --event ev-7", "jobs")
	if len(r.Jobs) != 4 || len(r.Summary) != 2 {
		t.Fatalf("the relay block: %d jobs, %d orders", len(r.Jobs), len(r.Summary))
	}
	for _, s := range r.Summary {
		if s.Effects != 2 || s.Kind != diagnosis.PublishTwice {
			t.Errorf("the relay block, %s: %+v; the lesson says two receipts, the producer named", s.Order, s)
		}
	}
	says(t, l, "Four jobs for two events, and two receipts for each order")

	_, r = blockWith(t, l, "use --key event")
	for _, s := range r.Summary {
		if s.Effects != 1 || s.Replayed != 1 {
			t.Errorf("the keyed block, %s: %+v; the lesson says one effect and one replay per order", s.Order, s)
		}
	}
	says(t, l, "One effect per order, one replay each")
}
