package cases_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/twice-lab/twice/cases"
	"github.com/twice-lab/twice/lessons"
	"github.com/twice-lab/twice/runtime/script/interp"
)

// builtIn returns the built-in case two-workers-completed.
func builtIn(t *testing.T) cases.Case {
	t.Helper()
	cs, err := lessons.LoadCases(lessons.FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Slug == "two-workers-completed" {
			return c
		}
	}
	t.Fatal("no built-in case two-workers-completed")
	return cases.Case{}
}

// failing runs the case's checks after fix and returns the names of
// those that fail, joined by commas, and every line.
func failing(t *testing.T, c cases.Case, fix string) (string, string) {
	t.Helper()
	f, err := cases.ParseFix(fix)
	if err != nil {
		t.Fatalf("fix %q refused: %v", fix, err)
	}
	var names, lines []string
	for _, v := range c.RunChecks(f, cases.Options{}) {
		if !v.Pass {
			names = append(names, v.Name)
		}
		lines = append(lines, v.String())
	}
	return strings.Join(names, ","), strings.Join(lines, "\n")
}

// TestCaseFixes holds the built-in case's checks to the incident: the
// right fix is ownership taken in one step before any wait (the atomic
// claim, or the lock taken atomically) held for as long as the worker
// works, and a receipt kept idempotent by a key that names the
// event, claimed by the service before it sends and never forgotten; a
// fix that lacks any of it fails, and the check that fails names what it
// lacks.
func TestCaseFixes(t *testing.T) {
	c := builtIn(t)
	const right = "service --dedupe claim\nuse --claim atomic --key event\n"
	for _, tt := range []struct{ why, fix, fails string }{
		{"the system of the incident: the lock checks, awaits, then sets; the store looks the key up, sends, then stores it",
			"service --dedupe check\nuse --claim async-lock --key event", "two-workers,three-workers,client-retry"},
		{"a key per job: the producer's second publish of one event is another job, another key",
			"service --dedupe claim\nuse --claim lock --key job", "publishes"},
		{"a key per job, with the atomic claim", "service --dedupe claim\nuse --claim atomic --key job", "publishes"},
		{"a key per order: a second event of the order is taken for a copy", "service --dedupe claim\nuse --claim atomic --key order", "publishes"},
		{"a key per run: every delivery sends again", "service --dedupe claim\nuse --claim atomic --key run", "killed-before-ack,publishes,re-drive"},
		{"a key per attempt", "service --dedupe claim\nuse --claim atomic --key attempt", "killed-before-ack,publishes,re-drive"},
		{"no key", "service --dedupe claim\nuse --claim atomic --key none", "killed-before-ack,client-retry,publishes,re-drive"},
		{"no dedupe", "use --claim atomic --key event", "killed-before-ack,client-retry,publishes,re-drive"},
		{"the atomic claim alone, the store still looking before it stores", "service --dedupe check\nuse --claim atomic --key event", "client-retry"},
		{"a lease of 0: the lock lapses as it is taken", "service --dedupe claim\nuse --claim lock --lease 0 --key event", "slow-receipt"},
		{"a lease of 0, atomic", "service --dedupe claim\nuse --claim atomic --lease 0 --key event", "slow-receipt"},
		{"a lease shorter than the worker's call", "service --dedupe claim\nuse --claim atomic --lease 1 --key event", "slow-receipt"},
		{"a lease a little shorter than the longest call", "service --dedupe claim\nuse --claim atomic --lease 5 --key event --fence", "slow-receipt"},
		{"a lease that lapses after the last of the offers a second apart, before the call is given up", "service --dedupe claim\nuse --claim atomic --lease 5.5 --key event", "slow-receipt"},
		{"a lease just past the first try's timeout, with the lock", "service --dedupe claim\nuse --claim lock --lease 5.9 --key event", "slow-receipt"},
		{"a lease that outlasts a 6 s answer but not a call given up after two timeouts: it fits one delay only", "service --dedupe claim\nuse --claim atomic --lease 7 --key event", "slow-receipt"},
		{"a lease as long as the two timeouts, but not the worker's own steps around them", "service --dedupe claim\nuse --claim atomic --lease 10 --key event", "slow-receipt"},
		{"a lease as long as the two timeouts, with the lock", "service --dedupe claim\nuse --claim lock --lease 10 --key event", "slow-receipt"},
		{"a heartbeat exactly as slow as a half-second lease", "service --dedupe claim\nuse --claim atomic --lease 0.5 --heartbeat 500 --key event", "slow-receipt"},
		{"a heartbeat on a lock whose lease is 0: the lock lapses before the first beat", "service --dedupe claim\nuse --claim lock --lease 0 --heartbeat 300 --key event", "slow-receipt"},
		{"fencing with a short lease: the stale worker's request goes out first and is accepted", "service --dedupe claim\nuse --claim atomic --lease 1 --fence --key event", "slow-receipt"},
		{"a lock released by whoever holds it, with a lease that lapses mid-call", "service --dedupe claim\nuse --claim lock --lease 1 --release any --key event", "slow-receipt"},
		{"a key per order, with the lock and a long lease", "service --dedupe claim\nuse --claim lock --lease 900 --key order", "publishes"},
		{"the asynchronous lock held long and beating: the race is before the lease starts", "service --dedupe claim\nuse --claim async-lock --lease 900 --heartbeat 300 --key event", "two-workers,three-workers"},
		{"the lock with a long lease, the store still looking before it stores", "service --dedupe check\nuse --claim lock --lease 900 --key event", "client-retry"},
		{"fencing instead of a dedupe: a token orders workers, not a producer's copies or a resend", "service --dedupe off\nuse --claim atomic --key event --fence --lease 900", "killed-before-ack,client-retry,publishes,re-drive"},
		{"the ledger in the queue's transaction, keyed and claimed", "service --dedupe claim\nuse --claim atomic --key event --effect ledger --key-txn same --lease 900", "killed-before-ack,killed-before-send,client-retry,re-drive"},
		{"one delivery only, with a long lease and a heartbeat", "service --dedupe claim\nuse --claim lock --key event --lease 900 --heartbeat 300 --max-attempts 1", "killed-before-send"},
		{"a key kept a day behind a lease of a day: a crash's redelivery comes as the key is forgotten", "service --dedupe claim --key-ttl 86400\nuse --claim lock --key event --lease 86400 --heartbeat 1000 --fence", "killed-before-ack,re-drive"},
		{"a heartbeat as slow as the lease: each renewal lands just after the lease passed", "service --dedupe claim\nuse --claim atomic --lease 1 --heartbeat 1000 --key event", "slow-receipt"},
		{"a heartbeat as slow as the lock's lease", "service --dedupe claim\nuse --claim lock --lease 2 --heartbeat 2000 --key event", "slow-receipt"},
		{"a heartbeat slower than the lease", "service --dedupe claim\nuse --claim atomic --lease 1 --heartbeat 3000 --key event", "slow-receipt"},
		{"the notification as a ledger row: it cannot share the queue's transaction", "use --claim lock --effect ledger", "killed-before-ack,killed-before-send,client-retry,re-drive"},
		{"a ledger row, its key apart", "service --dedupe claim\nuse --claim atomic --key event --effect ledger --key-txn separate", "killed-before-ack,killed-before-send,client-retry,re-drive"},
		{"a key forgotten after a minute", "service --dedupe claim --key-ttl 60\nuse --claim atomic --key event", "re-drive"},
		{"a key forgotten after a day", "service --dedupe claim --key-ttl 86400\nuse --claim atomic --key event", "re-drive"},
		{"a key forgotten before the lease lapses", "service --dedupe claim --key-ttl 10\nuse --claim atomic --key event", "killed-before-ack,re-drive"},
		{"the read claim", "service --dedupe claim\nuse --claim read --key event", "two-workers,three-workers"},
		{"the read claim in autocommit with no busy timeout: the loser usually dies, but not in every ordering", "service --dedupe claim\nuse --claim read --key event --busy-timeout 0", "two-workers,three-workers"},
		{"the asynchronous lock, deduplicated", "service --dedupe claim\nuse --claim async-lock --key event", "two-workers,three-workers"},
		{"the asynchronous lock, fenced", "service --dedupe claim\nuse --claim async-lock --key event --fence", "two-workers,three-workers"},
		{"no fix at all", "", "two-workers,three-workers,killed-before-ack,client-retry,publishes,re-drive"},
		{"one delivery only: a worker killed before it sends leaves no notification", "service --dedupe claim\nuse --claim atomic --key event --max-attempts 1", "killed-before-send"},
	} {
		if got, lines := failing(t, c, tt.fix); got != tt.fails {
			t.Errorf("%s:\n%s\nfails %q, want %q:\n%s", tt.why, tt.fix, got, tt.fails, lines)
		}
	}
	for _, fix := range []string{
		right,
		"service --dedupe claim\nuse --claim lock --key event\n",
		"service --dedupe claim\nuse --claim atomic --key event --lease 900\n",
		"service --dedupe claim\nuse --claim lock --key event --lease 86400\n",
		"service --dedupe claim\nuse --claim atomic --key event --lease 1 --heartbeat 999\n",
		"service --dedupe claim\nuse --claim atomic --key event --fence\n",
		"service --dedupe claim\nuse --claim atomic --key event --heartbeat 1000\n",
		"service --dedupe claim\nuse --claim atomic --key event --lease 1 --heartbeat 300\n",
		"service --dedupe claim\nuse --claim lock --key event --lease 900 --heartbeat 3000 --fence\n",
		"# two lines of use add up\nservice --dedupe claim\nuse --claim atomic\nuse --key event\n",
		"service --dedupe claim && use --claim atomic --key event\n",
		"service --dedupe claim\nuse --claim atomic --key event --max-attempts 2\n",
		"service --dedupe claim\nuse --claim atomic --key event --lease 11\n",
		"service --dedupe claim\nuse --claim lock --key event --lease 0.5 --heartbeat 400\n",
		"service --dedupe claim\nuse --claim atomic --key event --lease 86400 --heartbeat 60000 --fence\n",
		"service --dedupe claim\nuse --claim lock --key event --lease 2 --heartbeat 1999 --max-attempts 3\n",
		"service --dedupe claim\nuse --claim atomic --key event --effect receipt --lease 900 --heartbeat 10000\n",
		// The read claim's two statements made one transaction: BEGIN
		// IMMEDIATE serialises them, and so does a deferred BEGIN, whose
		// loser dies of SQLITE_BUSY and leaves the job to the winner.
		"service --dedupe claim\nuse --claim read --key event --txn immediate\n",
		// A key kept three days outlives the dead-letter queue's two.
		"service --dedupe claim --key-ttl 259200\nuse --claim atomic --key event\n",
		"service --dedupe claim\nuse --claim read --key event --txn deferred\n",
		"service --dedupe claim\nuse --claim async-lock --key event --txn immediate\n",
	} {
		if got, lines := failing(t, c, fix); got != "" {
			t.Errorf("a right fix fails %s:\n%s\n%s", got, fix, lines)
		}
	}
}

// A reader's fix, by its parts: what fixSpace varies.
type fixParts struct {
	claim, key, dedupe, extra string
	lease, hb, ttl            int // lease -1: the default; hb and ttl 0: none
}

func (p fixParts) String() string {
	fix := "service --dedupe " + p.dedupe
	if p.ttl > 0 {
		fix += fmt.Sprintf(" --key-ttl %d", p.ttl)
	}
	fix += "\nuse --claim " + p.claim + " --key " + p.key + p.extra
	if p.lease >= 0 {
		fix += fmt.Sprintf(" --lease %d", p.lease)
	}
	if p.hb > 0 {
		fix += fmt.Sprintf(" --heartbeat %d", p.hb)
	}
	return fix
}

// fixSpace is the space of fixes a reader might write: every claim, key
// and dedupe mode with the rest at its default; and, for the two claims
// that take ownership in one step (and the two that do not), every
// lease, heartbeat, fence, effect and key TTL with the event's key
// claimed by the service.
func fixSpace() []fixParts {
	var ps []fixParts
	for _, claim := range []string{"atomic", "lock", "read", "async-lock"} {
		for _, key := range []string{"event", "job", "order", "run", "attempt", "none"} {
			for _, dedupe := range []string{"claim", "check", "off"} {
				ps = append(ps, fixParts{claim: claim, key: key, dedupe: dedupe, lease: -1})
			}
		}
	}
	extras := []string{"", " --fence", " --effect ledger", " --effect ledger --key-txn separate", " --max-attempts 1", " --max-attempts 2", " --release any"}
	for _, claim := range []string{"atomic", "lock"} {
		for _, lease := range []int{-1, 0, 1, 5, 6, 7, 10, 11, 900, 86400} {
			for _, hb := range []int{0, 300, 1000, 3000} {
				for _, extra := range extras {
					for _, ttl := range []int{0, 60, 86400} {
						ps = append(ps, fixParts{claim, "event", "claim", extra, lease, hb, ttl})
					}
				}
			}
		}
	}
	for _, claim := range []string{"read", "async-lock"} {
		for _, extra := range extras {
			ps = append(ps, fixParts{claim, "event", "claim", extra, -1, 300, 0})
		}
	}
	return ps
}

// TestCaseFixSpace tries every fix of fixSpace (the -short run samples
// it) and requires the checks to pass exactly the fixes that are right by
// the incident's facts (see rightFix).
func TestCaseFixSpace(t *testing.T) {
	c := builtIn(t)
	renews := heartbeatRenewsLock()
	for i, p := range fixSpace() {
		if testing.Short() && i%10 != 0 {
			continue
		}
		want := rightFix(p, renews)
		if got, lines := failing(t, c, p.String()); (got == "") != want {
			t.Errorf("right=%v, but the checks fail %q:\n%s\n%s", want, got, p, lines)
		}
	}
}

// rightFix says, from the incident's facts, whether a fix is right:
// ownership taken in one step that one worker wins, before any wait
// (atomic, or lock), and held while the worker works: its slowest call
// is given up after two tries of 5 s each (the client's timeout; the
// retry is held by the service until the first answer, which may never
// come in time), so a lease longer than those 10 s and the worker's steps
// around them (11 s or more; a lease that only outlasts the check's
// delay is a guess about the service's latency), or a
// heartbeat more often than the lease that renews what the claim holds,
// so that the lease never passes while the worker works;
// the notification sent through the service (a ledger row is not a
// notification), keyed by the event, the key claimed before the send
// and kept longer than the dead-letter queue's two days; and a job
// delivered again after a crash (no limit of one delivery, which would
// leave a worker killed before it sent with no notification at all).
func rightFix(p fixParts, heartbeatRenewsLock bool) bool {
	lease := p.lease
	if lease < 0 {
		lease = 30
	}
	held := lease >= 11 || p.hb > 0 && p.hb < lease*1000 && (p.claim == "atomic" || heartbeatRenewsLock)
	return (p.claim == "atomic" || p.claim == "lock") && held && p.key == "event" && p.dedupe == "claim" && p.ttl == 0 &&
		!strings.Contains(p.extra, "ledger") && !strings.Contains(p.extra, "--max-attempts 1")
}

// heartbeatRenewsLock reports whether a lock claim's heartbeat renews its
// lock row, so that a second worker cannot take the lock while the
// first still renews its lease.
func heartbeatRenewsLock() bool {
	res := interp.Run("add o\nwork --job 1 --claim lock --lease 1 --heartbeat 300 --delay 3000 &\nsleep 1.5\nwork --job 1 --worker W2 --claim lock\nwait\n", interp.Options{Seed: 1})
	return res.Error == nil && strings.Contains(res.Text(), "W2 run") && strings.Contains(res.Text(), "already claimed")
}
