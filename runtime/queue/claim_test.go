package queue

import (
	"fmt"
	"strings"
	"testing"
)

func TestClaimList(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Claims() {
		name := c.String()
		if name == "" || seen[name] {
			t.Errorf("claim %d: name %q empty or repeated", c, name)
		}
		seen[name] = true
		if got, ok := ParseClaim(name); !ok || got != c {
			t.Errorf("ParseClaim(%q) = %v, %v", name, got, ok)
		}
		if c.Words() == "" {
			t.Errorf("claim %s has no words", c)
		}
		steps := c.Steps()
		if len(steps) == 0 {
			t.Errorf("claim %s has no steps", c)
		}
		for i, s := range append(steps, c.Release()...) {
			if s.Ordered() && (s.Label == "" || strings.Contains(s.Name(1, "W1"), "%!")) {
				t.Errorf("claim %s, step %d: label %q does not print", c, i+1, s.Label)
			}
			if (s.Kind == StepSQL) != (s.SQL != "") || (s.Kind == StepAwait) != (s.Await[1] > 0) {
				t.Errorf("claim %s, step %d: kind %d with SQL %q and await %v", c, i+1, s.Kind, s.SQL, s.Await)
			}
		}
	}
	if _, ok := ParseClaim("optimistic"); ok {
		t.Error("an unknown claim parsed")
	}
	if got := strings.Split(ClaimNames("|"), "|"); len(got) != len(Claims()) || got[0] != "read" {
		t.Errorf("ClaimNames = %q: want every claim's name once, read (the default) first", got)
	}
}

// run runs every step of claim on conn, as a worker with run id run would
// at now, and reports whether the claim got through them all.
func run(t *testing.T, conn *Conn, claim Claim, job int64, run string, now, until int64) bool {
	t.Helper()
	for _, s := range claim.Steps() {
		o, err := conn.RunStep(s, Values{Job: job, Run: run, Now: now, Until: until})
		if err != nil {
			t.Fatalf("%s, %s: %v", claim, s.Label, err)
		}
		if !s.Decide(o, now) {
			return false
		}
	}
	return true
}

// lockstep runs claim on two connections, one step each in turn, and
// reports whether each got through every step.
func lockstep(t *testing.T, w1, w2 *Conn, claim Claim, job int64, now, until int64) (ok1, ok2 bool) {
	t.Helper()
	ok1, ok2 = true, true
	for _, s := range claim.Steps() {
		for i, w := range []*Conn{w1, w2} {
			ok := &ok1
			if i == 1 {
				ok = &ok2
			}
			if !*ok {
				continue
			}
			o, err := w.RunStep(s, Values{Job: job, Run: fmt.Sprintf("run%d", i+1), Now: now, Until: until})
			if err != nil {
				t.Fatalf("%s, %s: %v", claim, s.Label, err)
			}
			*ok = s.Decide(o, now)
		}
	}
	return ok1, ok2
}

// Every claim takes a queued job on real SQLite. Two connections taking
// turns step by step both take it with the claims that decide on what
// they read earlier (read, async-lock), and one only with atomic and lock
// (a claim added to the list is held to the rest). Once the lease (and
// the lock) has lapsed, a claim takes it again; after the ack and the
// release, no claim takes a done job.
func TestEveryClaimOnSQLite(t *testing.T) {
	for _, c := range Claims() {
		t.Run(c.String(), func(t *testing.T) {
			_, shell, w1, w2 := open(t)
			id, _ := shell.Add("order-77", "ev-1")
			ok1, ok2 := lockstep(t, w1, w2, c, id, 10, 1000)
			twice := map[Claim]bool{ClaimRead: true, ClaimAsyncLock: true, ClaimAtomic: false, ClaimLock: false}
			if want, known := twice[c]; !ok1 || known && ok2 != want {
				t.Errorf("two claims step by step: %v and %v, want true and %v", ok1, ok2, want)
			}
			if !run(t, w2, c, id, "run2", 1001, 2000) {
				t.Error("no claim once the lease (and the lock) had lapsed")
			}
			if _, err := w2.Ack(id); err != nil {
				t.Fatal(err)
			}
			for _, s := range c.Release() {
				o, err := w2.RunStep(s, Values{Job: id, Run: "run2"})
				if err != nil || o.Changed != 1 {
					t.Fatalf("release: %v, %d rows", err, o.Changed)
				}
			}
			if locks, _ := shell.Locks(); len(locks) != 0 {
				t.Errorf("locks after the release: %+v", locks)
			}
			if run(t, w1, c, id, "run3", 5000, 6000) {
				t.Error("a done job was claimed again")
			}
		})
	}
}
