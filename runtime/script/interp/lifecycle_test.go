package interp

import (
	"strings"
	"testing"

	"github.com/twice-lab/twice/runtime/event"
	"github.com/twice-lab/twice/runtime/sim"
)

// A SIGKILL takes effect at the instant of the deploy: the killed worker
// records nothing after it, even though its call was to last three
// seconds, and the service, which had the request, still answers nobody.
func TestDeployKillsAtItsInstant(t *testing.T) {
	res := Run("add order-77\nwork --job 1 --lease 5 --delay 3000 &\nsleep 1\ndeploy\nwait\njobs\n", Options{Seed: DefaultSeed})
	if res.Error != nil {
		t.Fatal(res.Error)
	}
	var killAt sim.Time = -1
	for _, e := range res.Trace {
		if e.Proc != "W1" {
			continue
		}
		switch {
		case e.Kind == event.Kill:
			killAt = e.AtUS
		case killAt >= 0:
			t.Errorf("W1 took a step after its kill: %+v", e)
		}
	}
	if killAt != sim.Second {
		t.Errorf("the kill is at %d µs, want the deploy's instant, 1 s", killAt)
	}
	if len(res.Effects) != 1 || len(res.Jobs) != 1 || res.Jobs[0].Status != "running" {
		t.Errorf("the request sent before the kill should have landed once, the job stay running: %+v %+v", res.Effects, res.Jobs)
	}
}

// A grace longer than what is left of the job lets the worker ack, and
// the waiting SIGKILL is called off: wait ends when the worker does, not
// when the grace would have.
func TestDeployGraceEndsWithTheWorker(t *testing.T) {
	res := Run("add order-77\nwork --job 1 --lease 5 --delay 3000 &\nsleep 1\ndeploy --grace 30\nwait\njobs\n", Options{Seed: DefaultSeed})
	if res.Error != nil {
		t.Fatal(res.Error)
	}
	last := res.Trace[len(res.Trace)-1].AtUS
	if last > 4*sim.Second {
		t.Errorf("the run goes on to %d µs: wait waited for the grace, not for the worker", last)
	}
	if len(res.Jobs) != 1 || res.Jobs[0].Status != "done" || strings.Contains(res.Text(), "killed") {
		t.Errorf("the drained worker should ack and live:\n%s", res.Text())
	}
}

// The deploy's line in the trace gives the grace with its unit, as the
// worker's SIGTERM line does: "SIGKILL in 30 s", not "SIGKILL in 30".
func TestDeployTraceSaysTheGraceInSeconds(t *testing.T) {
	res := Run("add order-77\nwork --job 1 --delay 3000 &\nsleep 1\ndeploy --grace 1.5\nwait\n", Options{Seed: DefaultSeed})
	for _, e := range res.Trace {
		if e.Kind == event.Deploy && !strings.HasSuffix(e.Step, "SIGKILL in 1.5 s") {
			t.Errorf("the deploy's step %q does not end with the grace in seconds", e.Step)
		}
	}
}

// A lock's release checks its owner unless told not to: W1, whose lock
// lapsed, deletes W2's lock with --release any and leaves it with the
// default, and W3 takes the lock only in the first case.
func TestReleaseAnyDeletesTheNewHoldersLock(t *testing.T) {
	src := func(release string) string {
		return "add order-77\n" +
			"work --job 1 --worker W1 --claim lock --lease 1 --delay 3000" + release + " &\n" +
			"sleep 1.5\nwork --job 1 --worker W2 --claim lock --lease 10 --delay 3000 &\n" +
			"sleep 2\nwork --job 1 --worker W3 --claim lock --lease 10\njobs\nwait\n"
	}
	owner := func(out, worker string) string {
		for _, line := range strings.Split(out, "\n") {
			if run, ok := strings.CutPrefix(line, worker+" run "); ok {
				return run[:8]
			}
		}
		t.Fatalf("no line of %s in\n%s", worker, out)
		return ""
	}
	for _, tc := range []struct{ release, holder string }{{"", "W2"}, {" --release any", "W3"}} {
		res := Run(src(tc.release), Options{Seed: DefaultSeed})
		if res.Error != nil {
			t.Fatal(res.Error)
		}
		out := res.Text()
		if want := "lock job 1 owner=" + owner(out, tc.holder); !strings.Contains(out, want) {
			t.Errorf("release%q: the lock should be %s's while W2 works (%s):\n%s", tc.release, tc.holder, want, out)
		}
	}
}

// The retry limit counts receives from the last re-drive: a job
// dead-lettered at its second receive runs again after redeliver, and is
// refused by every claim before that.
func TestDeadLetterCountsFromTheRedrive(t *testing.T) {
	res := Run("add order-77\nuse --max-attempts 1\nwork --job 1 --lease 1 --crash-before-effect; sleep 2\nwork --job 1 --worker W2\nwork --job 1 --worker W3 --claim atomic\njobs\nredeliver --job 1\nwork --job 1 --worker W4\neffects\n", Options{Seed: DefaultSeed})
	if res.Error != nil {
		t.Fatal(res.Error)
	}
	out := res.Text()
	for _, want := range []string{
		"received 2 times, more than --max-attempts 1: moved to the dead-letter queue",
		"W3 run", "job 1 is in the dead-letter queue",
		"status=dead attempts=2",
		"1 effect(s) from 1 run(s)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}
