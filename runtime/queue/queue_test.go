package queue

import (
	"errors"
	"fmt"
	"testing"
)

func open(t *testing.T) (*DB, *Conn, *Conn, *Conn) {
	t.Helper()
	db, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var cs [3]*Conn
	for i := range cs {
		if cs[i], err = db.Conn(); err != nil {
			t.Fatal(err)
		}
	}
	return db, cs[0], cs[1], cs[2]
}

// Two connections that both read before either writes both take the job:
// the read claim's gap is real, in SQLite, across connections.
func TestReadThenWriteBothTake(t *testing.T) {
	_, shell, w1, w2 := open(t)
	id, err := shell.Add("order-77", "ev-1")
	if err != nil || id != 1 {
		t.Fatalf("Add = %d, %v", id, err)
	}
	r1, _ := w1.Read(id)
	r2, _ := w2.Read(id)
	if !r1.Claimable(0) || !r2.Claimable(0) {
		t.Fatal("a queued job must read as claimable")
	}
	if err := w1.Take(id, "run1", 100); err != nil {
		t.Fatal(err)
	}
	if err := w2.Take(id, "run2", 100); err != nil {
		t.Fatal(err)
	}
	rows, _ := shell.List()
	if rows[0].Attempts != 2 || rows[0].Run != "run2" {
		t.Errorf("after two takes: %+v", rows[0])
	}
}

// The conditional UPDATE lets exactly one connection in, and lets the next
// one in only after the lease has passed.
func TestAtomicClaimOnce(t *testing.T) {
	_, shell, w1, w2 := open(t)
	id, _ := shell.Add("order-77", "ev-1")
	ok1, err1 := w1.ClaimAtomically(id, "run1", 0, 1000)
	ok2, err2 := w2.ClaimAtomically(id, "run2", 0, 1000)
	if err1 != nil || err2 != nil || !ok1 || ok2 {
		t.Fatalf("claims: %v %v %v %v", ok1, err1, ok2, err2)
	}
	if ok, _ := w2.ClaimAtomically(id, "run2", 1000, 2000); ok {
		t.Error("claimed at the instant the lease ends; the lease must have passed")
	}
	if ok, _ := w2.ClaimAtomically(id, "run2", 1001, 2000); !ok {
		t.Error("could not claim after the lease passed")
	}
	if _, err := w2.Ack(id); err != nil {
		t.Fatal(err)
	}
	r, _ := shell.Read(id)
	if r.Status != "done" || r.Lease != nil || r.Attempts != 2 {
		t.Errorf("after ack: %+v", r)
	}
	if ok, _ := w1.ClaimAtomically(id, "run3", 1<<40, 1<<41); ok {
		t.Error("a done job was claimed again")
	}
}

func TestNoSuchJob(t *testing.T) {
	_, shell, w1, _ := open(t)
	if _, err := w1.Read(3); err == nil {
		t.Error("Read of a missing job succeeded")
	}
	if err := w1.Take(3, "r", 1); err == nil {
		t.Error("Take of a missing job succeeded")
	}
	shell.Add("a", "ev-1")
	shell.Reset()
	if id, _ := shell.Add("b", "ev-1"); id != 1 {
		t.Errorf("after Reset the next id is %d, want 1", id)
	}
}

// Databases are separate: two open at once do not see each other's rows.
func TestDatabasesAreSeparate(t *testing.T) {
	_, a, _, _ := open(t)
	_, b, _, _ := open(t)
	a.Add("x", "ev-1")
	rows, _ := b.List()
	if len(rows) != 0 {
		t.Errorf("second database sees %d rows", len(rows))
	}
}

// A database back from the pool is empty, numbers jobs from 1 again, and
// hands out its connections again.
func TestPoolReuse(t *testing.T) {
	db, err := Get()
	if err != nil {
		t.Fatal(err)
	}
	c, _ := db.Conn()
	c.Add("a", "ev-1")
	c.Add("b", "ev-1")
	db.Put()
	db2, err := Get()
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Put()
	c2, _ := db2.Conn()
	if rows, _ := c2.List(); len(rows) != 0 {
		t.Errorf("pooled database has %d rows", len(rows))
	}
	if id, _ := c2.Add("c", "ev-1"); id != 1 {
		t.Errorf("first id after reuse is %d", id)
	}
	w, _ := db2.Conn()
	if w == c2 {
		t.Error("the same connection was handed out twice")
	}
}

// The ledger's transaction is SQLite's: while it is open the other
// connections see none of it and cannot write; a rollback leaves nothing;
// after a commit a second claim of the key conflicts and changes no row.
func TestLedgerTransaction(t *testing.T) {
	_, shell, w1, w2 := open(t)
	id, _ := shell.Add("order-77", "ev-1")
	if err := w1.Begin(); err != nil {
		t.Fatal(err)
	}
	if took, err := w1.ClaimKey("ev-1", "run1"); !took || err != nil {
		t.Fatalf("first ClaimKey = %v, %v", took, err)
	}
	if err := w1.AddLedger(LedgerRow{Key: "ev-1", Order: "order-77", Job: id, Run: "run1", Attempt: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := w1.Ack(id); err != nil {
		t.Fatal(err)
	}
	// Uncommitted: the shell sees no row, no key, a job not done.
	if n, _ := shell.LedgerLen(); n != 0 {
		t.Errorf("another connection sees %d uncommitted ledger rows", n)
	}
	if r, _ := shell.Read(id); r.Status == "done" {
		t.Error("another connection sees the uncommitted ack")
	}
	// A write from another connection finds the database locked...
	if _, err := w2.ClaimKey("ev-1", "run2"); !errors.Is(err, ErrBusy) {
		t.Errorf("a write during another's transaction: %v, want SQLITE_BUSY", err)
	}
	// ...and with Wait set, waits until the transaction ends.
	waits := 0
	w2.Wait = func() error {
		waits++
		if waits == 3 {
			if err := w1.Rollback(); err != nil {
				t.Fatal(err)
			}
		}
		return nil
	}
	took, err := w2.ClaimKey("ev-1", "run2")
	if err != nil || !took || waits != 3 {
		t.Fatalf("ClaimKey after a rollback = %v, %v after %d waits; want the key taken after 3", took, err, waits)
	}
	// The rollback left nothing: no row, no ack, and the key was free.
	if n, _ := shell.LedgerLen(); n != 0 {
		t.Errorf("%d ledger rows after a rollback", n)
	}
	if r, _ := shell.Read(id); r.Status != "queued" {
		t.Errorf("job %s after a rolled-back ack, want queued", r.Status)
	}
	// Committed, the key conflicts for everyone.
	if took, err := w1.ClaimKey("ev-1", "run3"); took || err != nil {
		t.Errorf("a second claim of a committed key = %v, %v; want no row changed", took, err)
	}
	if owner, _ := shell.KeyOwner("ev-1"); owner != "run2" {
		t.Errorf("key owner %q, want run2", owner)
	}
	if err := shell.Reset(); err != nil {
		t.Fatal(err)
	}
	if keys, _ := shell.Keys(); len(keys) != 0 {
		t.Errorf("Reset left keys %v", keys)
	}
}

// Requeue puts a done job back to queued, keeping its attempts, run and
// event; a job that does not exist is ErrNoJob.
func TestRequeueKeepsTheEvent(t *testing.T) {
	db, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c, err := db.Conn()
	if err != nil {
		t.Fatal(err)
	}
	id, _ := c.Add("order-77", "ev-9")
	if ok, err := c.ClaimAtomically(id, "r1", 0, 10); !ok || err != nil {
		t.Fatalf("claim: %v %v", ok, err)
	}
	if _, err := c.Ack(id); err != nil {
		t.Fatal(err)
	}
	if err := c.Requeue(id); err != nil {
		t.Fatal(err)
	}
	r, err := c.Read(id)
	if err != nil || r.Status != "queued" || r.Attempts != 1 || r.Run != "r1" || r.Event != "ev-9" || r.Lease != nil {
		t.Errorf("after requeue: %+v, %v", r, err)
	}
	if ok, _ := c.ClaimAtomically(id, "r2", 20, 30); !ok {
		t.Error("a requeued job cannot be claimed")
	}
	if err := c.Requeue(99); !errors.Is(err, ErrNoJob) {
		t.Errorf("requeue of a missing job: %v", err)
	}
}

// A run that opened many connections does not leave them open in the pool:
// Put keeps at most MaxPooledConns, and the rest are closed.
func TestPoolClosesExtraConns(t *testing.T) {
	db, err := Get()
	if err != nil {
		t.Fatal(err)
	}
	var opened []*Conn
	for range 3 * MaxPooledConns {
		c, err := db.Conn()
		if err != nil {
			t.Fatal(err)
		}
		opened = append(opened, c)
	}
	db.Put()
	if n := len(db.conns); n > MaxPooledConns {
		t.Errorf("the pooled database keeps %d connections; want at most %d", n, MaxPooledConns)
	}
	for i, c := range opened {
		if c.closed != (i >= MaxPooledConns) {
			t.Errorf("connection %d: closed=%v after Put", i, c.closed)
		}
	}
	db2, err := Get()
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Put()
	for range 2 * MaxPooledConns {
		c, err := db2.Conn()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.List(); err != nil {
			t.Fatalf("a connection of the reused database fails: %v", err)
		}
	}
}

// A poll returns the lowest id that is claimable at the instant given:
// queued, or running with its lease passed, whichever is lower; none when
// every job is done or held.
func TestNextIsTheLowestClaimable(t *testing.T) {
	for _, indexed := range []bool{false, true} {
		t.Run(fmt.Sprintf("indexed=%v", indexed), func(t *testing.T) { testNext(t, indexed) })
	}
}

func testNext(t *testing.T, indexed bool) {
	db, shell, w1, _ := open(t)
	if indexed {
		if err := shell.IndexForPolls(); err != nil {
			t.Fatal(err)
		}
	}
	for range 5 {
		if _, err := shell.Add("o", "ev"); err != nil {
			t.Fatal(err)
		}
	}
	next := func(now int64) (int64, bool) {
		t.Helper()
		id, ok, err := w1.Next(now)
		if err != nil {
			t.Fatal(err)
		}
		return id, ok
	}
	if id, ok := next(0); !ok || id != 1 {
		t.Fatalf("Next on a fresh table = %d, %v; want 1", id, ok)
	}
	// Jobs 1 and 2 held until 100 and 50, job 3 done.
	for _, c := range []struct {
		id    int64
		lease int64
	}{{1, 100}, {2, 50}, {3, 10}} {
		if ok, err := w1.ClaimAtomically(c.id, "r", 0, c.lease); err != nil || !ok {
			t.Fatal(ok, err)
		}
	}
	if _, err := w1.Ack(3); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		now  int64
		want int64
	}{{10, 4}, {60, 2}, {200, 1}} {
		if id, ok := next(tt.now); !ok || id != tt.want {
			t.Errorf("Next(%d) = %d, %v; want %d", tt.now, id, ok, tt.want)
		}
	}
	for _, id := range []int64{1, 2, 4, 5} {
		if _, err := w1.Ack(id); err != nil {
			t.Fatal(err)
		}
	}
	if id, ok := next(1000); ok {
		t.Errorf("Next with every job done = %d; want none", id)
	}
	if n, err := w1.Unfinished(); err != nil || n != 0 {
		t.Errorf("Unfinished = %d, %v; want 0", n, err)
	}
	// Every statement counted its SQLite work into the database's total.
	if db.Work() <= 0 {
		t.Errorf("Work() = %d after a dozen statements", db.Work())
	}
}
