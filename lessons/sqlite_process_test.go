package lessons

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/twice-lab/twice/runtime/explore"
	"github.com/twice-lab/twice/runtime/queue"
)

// claimerScript is the script a claimer process runs in the sqlite3 shell
// on a real database file: the read claim (read the job, then UPDATE it on
// what was read) in transaction mode txn, as role 1 or 2. The read is kept
// in a TEMP table, the process's own memory: the UPDATE's condition is
// that earlier read, not the row as it now stands, as a worker's code that
// tests the status it SELECTed. The signal files in dir order the two so
// that the outcome does not depend on the machine's speed: in autocommit
// and deferred mode both read before either writes, then 1 writes and
// commits before 2 writes; in immediate mode 1 holds the write lock from
// its BEGIN until 2 has tried its own (2's exit, which the test signals,
// when 2 has no busy timeout).
func claimerScript(dir, role string, txn queue.Txn, busy bool) string {
	wait := func(name string) string {
		return fmt.Sprintf(".shell while [ ! -e '%s' ]; do sleep 0.005; done\n", filepath.Join(dir, name))
	}
	touch := func(name string) string { return fmt.Sprintf(".shell touch '%s'\n", filepath.Join(dir, name)) }
	var b strings.Builder
	b.WriteString(".bail on\n")
	if busy {
		b.WriteString(".timeout 10000\n")
	}
	read := "CREATE TEMP TABLE seen AS SELECT status FROM jobs WHERE id = 1;\n"
	take := "UPDATE jobs SET status = 'running', run = 'w" + role + "', attempts = attempts + 1 WHERE id = 1 AND (SELECT status FROM temp.seen) = 'queued';\nSELECT 'claimed=' || changes();\n"
	switch txn {
	case queue.TxnImmediate:
		if role == "2" {
			b.WriteString(wait("locked1"))
		}
		b.WriteString("BEGIN IMMEDIATE;\n")
		if role == "1" {
			b.WriteString(touch("locked1"))
			if !busy {
				b.WriteString(wait("exit2"))
			}
		}
		b.WriteString(read + take + "COMMIT;\n")
	default:
		if txn == queue.TxnDeferred {
			b.WriteString("BEGIN;\n")
		}
		other := map[string]string{"1": "2", "2": "1"}[role]
		b.WriteString(read + touch("read"+role) + wait("read"+other))
		if role == "2" {
			b.WriteString(wait("wrote1"))
		}
		b.WriteString(take)
		if txn == queue.TxnDeferred {
			b.WriteString("COMMIT;\n")
		}
		b.WriteString(touch("wrote" + role))
	}
	return b.String()
}

// Two real processes claim one job in one SQLite file in WAL mode, in each
// transaction mode, with and without a busy timeout, in the ordering that
// duplicates if any does. What they do (two claims, or a process dead of
// "database is locked", or neither) is what the lab says of the mode:
// duplicates where the explorer counts some, errors where it counts some,
// and neither where it counts none.
//
// The processes are the sqlite3 shell: the SQLite twice is built with
// leaves WAL out (RATIONALE.md, "A SQLite built for the lab"), so the
// system's SQLite plays the queue's database; without one the test skips.
func TestRealProcessesAgreeWithTheLab(t *testing.T) {
	p := prose(lesson(t, "05-atomic-claim.md"))
	for _, claim := range []string{
		"`BEGIN IMMEDIATE` takes the write lock before the `SELECT`",
		"SQLite refuses with `database is locked` at once, busy timeout or not",
	} {
		if !strings.Contains(p, claim) {
			t.Errorf("05-atomic-claim.md no longer says %q, which this test checks", claim)
		}
	}
	if testing.Short() {
		t.Skip("starts 12 processes")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the claimers' scripts wait on files with a POSIX shell")
	}
	shell, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Skip("SKIP: no sqlite3 shell on PATH: real processes not raced")
	}
	for _, txn := range queue.Txns() {
		for _, busy := range []bool{true, false} {
			name := fmt.Sprintf("%s, busy timeout %v", txn, busy)
			dir := t.TempDir()
			db := filepath.Join(dir, "queue.db")
			setup := exec.Command(shell, db)
			setup.Stdin = strings.NewReader(`PRAGMA journal_mode = WAL;
CREATE TABLE jobs (id INTEGER PRIMARY KEY, status TEXT, run TEXT, attempts INTEGER);
INSERT INTO jobs VALUES (1, 'queued', NULL, 0);
`)
			if out, err := setup.CombinedOutput(); err != nil || !strings.Contains(string(out), "wal") {
				t.Fatalf("%s: setting up the file: %v: %s", name, err, out)
			}
			var cmds [2]*exec.Cmd
			var outs [2]bytes.Buffer
			for i := range cmds {
				role := fmt.Sprint(i + 1)
				cmds[i] = exec.Command(shell, db)
				cmds[i].Stdin = strings.NewReader(claimerScript(dir, role, txn, busy))
				cmds[i].Stdout, cmds[i].Stderr = &outs[i], &outs[i]
				if err := cmds[i].Start(); err != nil {
					t.Fatal(err)
				}
			}
			claimed, died := 0, 0
			// 2 first: 1 may wait for its exit.
			for _, i := range []int{1, 0} {
				err := cmds[i].Wait()
				if i == 1 {
					os.WriteFile(filepath.Join(dir, "exit2"), nil, 0o600)
				}
				out := outs[i].String()
				switch {
				case err != nil && strings.Contains(out, "database is locked"):
					died++
				case err != nil:
					t.Fatalf("%s: process %d: %v: %s", name, i+1, err, out)
				case strings.Contains(out, "claimed=1"):
					claimed++
				case !strings.Contains(out, "claimed=0"):
					t.Fatalf("%s: process %d said %q", name, i+1, out)
				}
			}
			r, err := explore.ExploreRace(queue.ClaimRead, 2, explore.Service{}, explore.Flags{Txn: txn, NoBusy: !busy})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d claimed, %d died of SQLITE_BUSY; the lab: %s duplicating, %s busy of %s orderings", name, claimed, died, r.Duplicating, r.Busy, r.Orderings)
			if dup := claimed == 2; dup != !r.Duplicating.IsZero() {
				t.Errorf("%s: real processes claimed %d times; the lab counts %s of %s orderings duplicating", name, claimed, r.Duplicating, r.Orderings)
			}
			if errs := died > 0; errs != !r.Busy.IsZero() {
				t.Errorf("%s: %d real processes died of SQLITE_BUSY; the lab counts %s of %s orderings with one", name, died, r.Busy, r.Orderings)
			}
			if claimed+died == 0 {
				t.Errorf("%s: neither process claimed the job", name)
			}
		}
	}
}

// Lesson 9 says that the lab's leases are set and judged by each
// worker's own clock, which clock skew breaks, and what avoids it. The
// lab's atomic claim does bind the worker's now and its lease's end,
// read from its clock, rather than ask the database for the time.
func TestLeaseClockIsTheWorkers(t *testing.T) {
	says(t, lesson(t, "09-heartbeats.md"),
		"Here each worker writes its own now plus a second, and the claim compares the lease with the claimer's clock.",
		"so that every lease is set and judged by one clock")
	var args []queue.Arg
	clock := false
	for _, st := range queue.ClaimAtomic.Steps() {
		clock = clock || st.Kind == queue.StepClock
		args = append(args, st.Args...)
	}
	if !clock || !slices.Contains(args, queue.ArgNow) || !slices.Contains(args, queue.ArgUntil) {
		t.Errorf("the atomic claim no longer binds the worker's clock (clock read %v, args %v): lesson 9's paragraph on clock skew is out of date", clock, args)
	}
}

// Sentences once wrong, pinned: what SIGTERM does to a process that does
// nothing about it, which queues hear of a failure, and that an acked
// message never reaches a dead-letter queue.
func TestCorrectedSentences(t *testing.T) {
	says(t, lesson(t, "20-deploy-drain.md"),
		"A process that does nothing about `SIGTERM` dies at once: the signal's default action is to end it.")
	says(t, lesson(t, "19-dead-letters.md"),
		"An SQS queue never sees a job fail.",
		"a RabbitMQ nack or reject, a Pub/Sub nack, a job that raised in Sidekiq, Celery or River")
	c, err := os.ReadFile("two-workers-completed.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(c), "(an acked message is deleted: it never reaches the dead-letter queue)") || strings.Contains(string(c), "re-driven from the dead-letter queue") {
		t.Error("the case's last check should be a manual replay of a done job, which never reaches the dead-letter queue")
	}
}
