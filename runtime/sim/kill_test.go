package sim

import (
	"fmt"
	"slices"
	"testing"
)

// A killed process takes no further step: asleep, it ends at the instant
// of the kill, its deferred calls run, and a process joined to it goes on
// from there.
func TestKillEndsASleepingProcessNow(t *testing.T) {
	k := New(1)
	var got []string
	victim := k.Go("W1", 0, func(p *Proc) {
		defer func() { got = append(got, fmt.Sprintf("W1 gone@%d", p.Now())) }()
		p.Sleep(10_000)
		got = append(got, "W1 woke") // never
	})
	k.Go("shell", 0, func(p *Proc) {
		p.Join(victim)
		got = append(got, fmt.Sprintf("joined@%d", p.Now()))
	})
	k.Go("deploy", 1000, func(p *Proc) { k.Kill(victim) })
	if err := k.Run(); err != nil {
		t.Fatal(err)
	}
	want := []string{"W1 gone@1000", "joined@1000"}
	if !slices.Equal(got, want) || !victim.Done() || !victim.Killed() || k.Now() != 1000 {
		t.Errorf("got %v at %d, done %v; want %v at 1000", got, k.Now(), victim.Done(), want)
	}
}

// A kill behind a shield waits for Unshield: the shielded stretch runs to
// its end, and the process ends where the shield is lifted.
func TestKillWaitsForTheShield(t *testing.T) {
	k := New(1)
	var got []string
	victim := k.Go("W1", 0, func(p *Proc) {
		p.Shield()
		p.Sleep(5000)
		got = append(got, fmt.Sprintf("shielded stretch done@%d", p.Now()))
		p.Unshield()
		got = append(got, "after the shield") // never
	})
	k.Go("deploy", 1000, func(p *Proc) { k.Kill(victim) })
	if err := k.Run(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"shielded stretch done@5000"}; !slices.Equal(got, want) || !victim.Done() {
		t.Errorf("got %v, want %v", got, want)
	}
}

// Killing a process that has returned changes nothing, and an unkilled
// process lifts its shield and goes on.
func TestKillAfterTheEnd(t *testing.T) {
	k := New(1)
	steps := 0
	done := k.Go("W1", 0, func(p *Proc) {
		p.Shield()
		p.Sleep(10)
		p.Unshield()
		steps++
	})
	k.Go("deploy", 100, func(p *Proc) { k.Kill(done) })
	if err := k.Run(); err != nil {
		t.Fatal(err)
	}
	if steps != 1 || done.Killed() || k.Now() != 100 {
		t.Errorf("steps %d, killed %v, now %d", steps, done.Killed(), k.Now())
	}
}

// A process killed before its first run never runs, and ends at the kill.
func TestKillBeforeTheStart(t *testing.T) {
	k := New(1)
	ran := false
	later := k.Go("killer", 5000, func(p *Proc) { ran = true })
	k.Go("W1", 10, func(p *Proc) { k.Kill(later) })
	if err := k.Run(); err != nil {
		t.Fatal(err)
	}
	if ran || !later.Done() || k.Now() != 10 {
		t.Errorf("ran %v, done %v, now %d; want a process that never ran, ended at 10", ran, later.Done(), k.Now())
	}
}
