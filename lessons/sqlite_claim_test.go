package lessons

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"
	_ "github.com/ncruces/go-sqlite3/vfs/memdb"
)

// The claim UPDATE of lesson 5, with the instant "now" written in.
const claimSQL = `UPDATE jobs SET status = 'running', run = ?, attempts = attempts + 1, lease = 100
 WHERE id = 1 AND (status = 'queued' OR lease < 50)`

// openPair opens two connections to one fresh in-memory database holding
// one queued job, as two workers would.
func openPair(t *testing.T, name string) (a, b *sqlite3.Conn) {
	t.Helper()
	open := func() *sqlite3.Conn {
		c, err := sqlite3.Open("file:/" + name + "?vfs=memdb")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	a, b = open(), open()
	if err := a.Exec(`CREATE TABLE jobs (id INTEGER PRIMARY KEY, status TEXT, run TEXT, attempts INTEGER, lease INTEGER);
		INSERT INTO jobs VALUES (1, 'queued', NULL, 0, NULL)`); err != nil {
		t.Fatal(err)
	}
	return a, b
}

func claim(c *sqlite3.Conn, run string) (int64, error) {
	s, _, err := c.Prepare(claimSQL)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	if err := s.BindText(1, run); err != nil {
		return 0, err
	}
	if err := s.Exec(); err != nil {
		return 0, err
	}
	return c.Changes(), nil
}

// TestSQLiteLocksTheDatabase pins what lesson 5 says about SQLite: while
// one connection has written and not yet committed, another connection's
// write is refused with SQLITE_BUSY at once when it has no busy timeout
// (SQLite locks the whole database for a write, not a table or a row:
// even a write to another table is refused).
func TestSQLiteLocksTheDatabase(t *testing.T) {
	p := prose(lesson(t, "05-atomic-claim.md"))
	for _, claim := range []string{
		"the lock covers the whole database, not a table or a row",
		"without a busy timeout gets `SQLITE_BUSY` back at once",
		"with a busy timeout it waits for the lock, then runs and changes 0 rows",
	} {
		if !strings.Contains(p, claim) {
			t.Errorf("05-atomic-claim.md no longer says %q, which this test checks", claim)
		}
	}
	a, b := openPair(t, "lesson5-busy")
	if err := a.Exec(`CREATE TABLE other (x); BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	if n, err := claim(a, "w1"); err != nil || n != 1 {
		t.Fatalf("first claim: %d rows, %v", n, err)
	}
	_, err := claim(b, "w2")
	if !errors.Is(err, sqlite3.BUSY) {
		t.Errorf("second claim while the first is uncommitted: %v, want SQLITE_BUSY", err)
	}
	if err := b.Exec(`INSERT INTO other VALUES (1)`); !errors.Is(err, sqlite3.BUSY) {
		t.Errorf("a write to another table meanwhile: %v, want SQLITE_BUSY (the lock is on the database)", err)
	}
	if err := a.Exec(`COMMIT`); err != nil {
		t.Fatal(err)
	}
	// Once the first write is committed, the same statement runs, finds
	// the row taken, and changes nothing: changes() tells the loser.
	if n, err := claim(b, "w2"); err != nil || n != 0 {
		t.Errorf("second claim after the commit: %d rows, %v; want 0 rows", n, err)
	}
}

// TestSQLiteBusyTimeoutWaits pins the other half: with a busy timeout the
// loser's UPDATE waits for the winner's commit instead of failing, then
// runs against the committed row and changes 0 rows.
func TestSQLiteBusyTimeoutWaits(t *testing.T) {
	a, b := openPair(t, "lesson5-wait")
	if err := b.BusyTimeout(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := a.Exec(`BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	if n, err := claim(a, "w1"); err != nil || n != 1 {
		t.Fatalf("first claim: %d rows, %v", n, err)
	}
	type result struct {
		n   int64
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := claim(b, "w2")
		done <- result{n, err}
	}()
	select {
	case r := <-done:
		t.Fatalf("the second claim returned (%d rows, %v) while the first was uncommitted; want it to wait", r.n, r.err)
	case <-time.After(200 * time.Millisecond):
	}
	if err := a.Exec(`COMMIT`); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || r.n != 0 {
		t.Errorf("second claim after waiting: %d rows, %v; want 0 rows and no error", r.n, r.err)
	}
}
