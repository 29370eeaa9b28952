// Package queue is the jobs table of a leased job queue, on real SQLite.
//
// The table lives in one shared in-memory database (package sqldb: an
// in-memory VFS, shared by name among connections, which needs no file
// system and behaves the same natively, under wasip1 and in the browser).
// Every worker talks to it through a
// connection of its own ([DB.Conn]), as separate worker processes would, and
// every method a worker calls is exactly one SQL statement, in autocommit
// mode. That is the point of the package: a claim made of two statements
// leaves a gap between them that another connection can use, and a claim
// made of one conditional UPDATE does not. Only the methods that put the
// tables back, which no worker calls, run several: [Conn.Reset] empties
// four tables with one statement each, [Conn.SetKeys] empties two and
// then claims each key, and [Conn.SetLock] empties the locks and puts one
// back.
//
// The table:
//
//	CREATE TABLE jobs (
//		id       INTEGER PRIMARY KEY,
//		order_id TEXT NOT NULL,
//		event    TEXT NOT NULL,                  -- the producer's event id
//		status   TEXT NOT NULL DEFAULT 'queued', -- queued | running | done
//		attempts INTEGER NOT NULL DEFAULT 0,
//		run      TEXT,                           -- the run that holds or last held it
//		lease    INTEGER                         -- expiry instant, virtual µs; NULL once done
//	)
//
// A job is claimable when status = 'queued' or its lease has passed. The
// package knows nothing of virtual time: callers pass instants in.
//
// The claims (claim.go) are data: each a list of steps, every step a
// statement with the values it binds and the condition that decides
// whether the claim goes on ([Step]), or a clock read, or an await that
// touches nothing shared. [Conn.RunStep] runs one step. The claims that
// take a lock own a row of a table of their own, whose until is the
// job's lease, so that a lock left by a worker that died lapses with the
// lease; the ack's release step deletes it:
//
//	CREATE TABLE locks (
//		job   INTEGER PRIMARY KEY,
//		owner TEXT NOT NULL,     -- the run that owns the job's lock
//		until INTEGER NOT NULL   -- the lock lapses after this instant, virtual µs
//	)
//
// The same database holds the ledger, an effect that lands in the queue's
// own database instead of a remote service, and the keys already
// processed:
//
//	CREATE TABLE processed_keys (
//		key TEXT PRIMARY KEY,  -- the idempotency key: a second insert of it conflicts
//		run TEXT NOT NULL      -- the run whose insert took
//	)
//	CREATE TABLE ledger (
//		id       INTEGER PRIMARY KEY,
//		key      TEXT NOT NULL,
//		order_id TEXT NOT NULL,
//		job      INTEGER NOT NULL,
//		run      TEXT NOT NULL,
//		attempt  INTEGER NOT NULL
//	)
//
// A worker that writes the ledger opens a real transaction on its own
// connection ([Conn.Begin], [Conn.Commit], [Conn.Rollback]) and claims the
// key in it with INSERT ... ON CONFLICT DO NOTHING ([Conn.ClaimKey]). While
// that transaction is open, a write from another connection finds the
// database locked (SQLITE_BUSY); [Conn.Wait] says what to do then.
package queue

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/twice-lab/twice/runtime/sqldb"
)

const schema = `CREATE TABLE jobs (
	id       INTEGER PRIMARY KEY,
	order_id TEXT NOT NULL,
	event    TEXT NOT NULL,
	status   TEXT NOT NULL DEFAULT 'queued',
	attempts INTEGER NOT NULL DEFAULT 0,
	run      TEXT,
	lease    INTEGER
);
CREATE TABLE processed_keys (
	key TEXT PRIMARY KEY,
	run TEXT NOT NULL
);
CREATE TABLE ledger (
	id       INTEGER PRIMARY KEY,
	key      TEXT NOT NULL,
	order_id TEXT NOT NULL,
	job      INTEGER NOT NULL,
	run      TEXT NOT NULL,
	attempt  INTEGER NOT NULL
);
CREATE TABLE locks (
	job   INTEGER PRIMARY KEY,
	owner TEXT NOT NULL,
	until INTEGER NOT NULL
)`

// The indexes a consumer's poll reads (see Next), made only while polling
// runs: every write of a job's status would pay for them otherwise, and a
// race, which writes and never polls, would run about half again slower.
const (
	stmtPollIndexes   = `CREATE INDEX IF NOT EXISTS jobs_status ON jobs (status, id); CREATE INDEX IF NOT EXISTS jobs_lease ON jobs (status, lease)`
	stmtNoPollIndexes = `DROP INDEX IF EXISTS jobs_status; DROP INDEX IF EXISTS jobs_lease`
)

// IndexForPolls makes the indexes that let Next and Unfinished read a few
// index entries instead of the whole table; DropPollIndexes removes them.
// Polling works without them, scanning the table.
func (c *Conn) IndexForPolls() error { return c.c.Exec(stmtPollIndexes) }

// DropPollIndexes removes the indexes IndexForPolls made, if any.
func (c *Conn) DropPollIndexes() error { return c.c.Exec(stmtNoPollIndexes) }

// The statements, one per method (the claims' own are in claim.go).
const (
	stmtInsert = `INSERT INTO jobs (order_id, event) VALUES (?, ?)`
	stmtAck    = `UPDATE jobs SET status = 'done', lease = NULL WHERE id = ? AND status <> 'dead'`
	stmtAckRun = `UPDATE jobs SET status = 'done', lease = NULL WHERE id = ? AND run = ?`
	stmtRenew  = `UPDATE jobs SET lease = ? WHERE id = ? AND run = ? AND status = 'running'`
	// A poll looks up the lowest queued id and the lowest expired lease,
	// through the indexes IndexForPolls makes, so it reads a few index
	// entries, not the table.
	stmtNext  = `SELECT min(id) FROM (SELECT min(id) AS id FROM jobs WHERE status = 'queued' UNION ALL SELECT min(id) FROM jobs WHERE status = 'running' AND lease < ?)`
	stmtLeft  = `SELECT count(*) FROM jobs WHERE status IN ('queued', 'running')`
	stmtList  = `SELECT id, order_id, status, attempts, run, lease, event FROM jobs ORDER BY id`
	stmtQueue = `UPDATE jobs SET status = 'queued', lease = NULL WHERE id = ?`
	stmtReset = `DELETE FROM jobs`
	// The ledger's statements.
	stmtBegin      = `BEGIN IMMEDIATE`
	stmtCommit     = `COMMIT`
	stmtRollback   = `ROLLBACK`
	stmtClaimKey   = `INSERT INTO processed_keys (key, run) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`
	stmtKeyOwner   = `SELECT run FROM processed_keys WHERE key = ?`
	stmtLedgerAdd  = `INSERT INTO ledger (key, order_id, job, run, attempt) VALUES (?, ?, ?, ?, ?)`
	stmtLedgerList = `SELECT id, key, order_id, job, run, attempt FROM ledger ORDER BY id`
	stmtKeyList    = `SELECT key, run FROM processed_keys ORDER BY rowid`
	stmtLedgerLen  = `SELECT count(*) FROM ledger`
	stmtResetKeys  = `DELETE FROM processed_keys`
	stmtResetLedg  = `DELETE FROM ledger`
	stmtSet        = `UPDATE jobs SET status = ?, attempts = ?, run = ?, lease = NULL WHERE id = ?`
	stmtLockList   = `SELECT job, owner, until FROM locks ORDER BY job`
	stmtResetLocks = `DELETE FROM locks`
	stmtLockPut    = `INSERT INTO locks (job, owner, until) VALUES (?, ?, ?)`
)

// ErrNoJob is returned when a job id names no row.
var ErrNoJob = errors.New("no such job")

// Row is one row of the jobs table.
type Row struct {
	ID       int64
	Order    string
	Event    string // the producer's event id
	Status   string
	Attempts int
	Run      string // "" when no run has claimed it
	Lease    *int64 // expiry instant in µs, or nil
}

// Claimable reports whether the row may be claimed at instant now: it is
// queued, or its lease has passed. It is the same condition the atomic
// claim's WHERE clause states.
func (r Row) Claimable(now int64) bool {
	return r.Status == "queued" || (r.Lease != nil && *r.Lease < now)
}

// DB is one shared in-memory database and the connections open on it.
type DB struct {
	name  string
	conns []*Conn
	used  int // conns handed out since Get or Open
	work  int64
	// locked says a claim step may have written the locks table since it
	// was last emptied.
	locked bool
	// version counts committed writes (see DB.Version).
	version uint64
}

// Work returns the SQLite work done on the database since Get or Open: the
// virtual-machine steps of every statement any of its connections ran (the
// counter SQLite keeps per statement, SQLITE_STMTSTATUS_VM_STEP). It is a
// count of instructions, not of time, so it is the same in every build.
func (db *DB) Work() int64 { return db.work }

var dbSeq atomic.Uint64

// Open creates a fresh, empty, shared in-memory database with the jobs
// table. Close it to free its memory.
func Open() (*DB, error) {
	// A leading slash makes memdb share the database among connections.
	name := fmt.Sprintf("/twice-%d", dbSeq.Add(1))
	db := &DB{name: name}
	c, err := db.Conn()
	if err != nil {
		return nil, err
	}
	if err := c.c.Exec(schema); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// Close closes every connection and deletes the database.
func (db *DB) Close() error {
	var errs []error
	for _, c := range db.conns {
		errs = append(errs, c.close())
	}
	db.conns = nil
	sqldb.Delete(db.name)
	return errors.Join(errs...)
}

// Conn returns a connection to the database that nobody else holds: one
// kept from an earlier use of the database (see Get), or a new one.
func (db *DB) Conn() (*Conn, error) {
	if db.used < len(db.conns) {
		db.used++
		return db.conns[db.used-1], nil
	}
	c, err := sqldb.Open(db.name)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", db.name, err)
	}
	conn := &Conn{c: c, db: db, stmts: map[string]sqldb.Stmt{}}
	db.conns = append(db.conns, conn)
	db.used++
	return conn, nil
}

// Opening a connection is the most expensive thing a short run does
// natively (each one instantiates the driver's SQLite afresh: about
// 0.3 ms), and preparing its statements the next, so finished databases
// are kept, emptied, with their connections and prepared statements, for
// the next run.
var (
	poolMu sync.Mutex
	pool   []*DB
)

// maxPooled bounds the databases kept for reuse, and MaxPooledConns the
// connections each one keeps: a shell and one per worker of the largest
// race (explore.MaxWorkers), with one to spare. Put closes the rest, so a
// run that opened many connections does not keep them after it.
const (
	maxPooled      = 4
	MaxPooledConns = 10
)

// Get returns an empty database: a pooled one if there is one, or a new
// one. Hand it back with Put when done.
func Get() (*DB, error) {
	poolMu.Lock()
	if n := len(pool); n > 0 {
		db := pool[n-1]
		pool = pool[:n-1]
		poolMu.Unlock()
		db.work = 0
		return db, nil
	}
	poolMu.Unlock()
	return Open()
}

// Put empties db and keeps it for the next Get, or closes it when the pool
// is full or emptying fails. The jobs table of a database from Get is
// indistinguishable from a new one's: ids start again at 1.
func (db *DB) Put() {
	if len(db.conns) == 0 {
		db.Close()
		return
	}
	for _, c := range db.conns {
		c.Wait = nil
		if c.InTx() {
			// A run stopped inside a transaction: do not keep it.
			db.Close()
			return
		}
	}
	if err := db.conns[0].Reset(); err != nil {
		db.Close()
		return
	}
	if err := db.conns[0].DropPollIndexes(); err != nil {
		db.Close()
		return
	}
	if len(db.conns) > MaxPooledConns {
		for _, c := range db.conns[MaxPooledConns:] {
			c.close()
		}
		clear(db.conns[MaxPooledConns:])
		db.conns = db.conns[:MaxPooledConns:MaxPooledConns]
	}
	db.used = 0
	poolMu.Lock()
	defer poolMu.Unlock()
	if len(pool) >= maxPooled {
		db.Close()
		return
	}
	pool = append(pool, db)
}

// Conn is one connection; it caches its prepared statements.
type Conn struct {
	c      sqldb.Conn
	db     *DB
	stmts  map[string]sqldb.Stmt
	closed bool
	// Wait, when set, is called when a write finds the database locked by
	// another connection's open transaction; the write is then tried
	// again, unless Wait returned an error, which the write then returns.
	// A simulated worker sets it to spend a step of virtual time, as
	// SQLite's busy handler would sleep. When it is nil, the write returns
	// the error (SQLITE_BUSY).
	Wait func() error
	// txWrote says the open transaction has changed a row.
	txWrote bool
	// Waits counts the times the statement now running has called Wait.
	Waits int
}

// done counts the work of statement s into the database's total and
// resets it for its next use.
func (c *Conn) done(s sqldb.Stmt) {
	c.db.work += s.VMSteps()
	s.Reset()
}

// ErrBusy is what a write returns when another connection's transaction
// holds the database and the connection has no Wait.
var ErrBusy = sqldb.ErrBusy

func (c *Conn) close() error {
	c.closed = true
	for _, s := range c.stmts {
		s.Close()
	}
	return c.c.Close()
}

// prepare returns the cached statement for sql, reset and ready to bind.
func (c *Conn) prepare(sql string) (sqldb.Stmt, error) {
	if s, ok := c.stmts[sql]; ok {
		return s, nil
	}
	s, err := c.c.Prepare(sql)
	if err != nil {
		return nil, err
	}
	c.stmts[sql] = s
	return s, nil
}

// exec runs a statement that returns no rows and reports the rows changed.
func (c *Conn) exec(sql string, bind func(sqldb.Stmt)) (int64, error) {
	s, err := c.prepare(sql)
	if err != nil {
		return 0, err
	}
	if bind != nil {
		bind(s)
	}
	err = s.Exec()
	c.Waits = 0
	for err != nil && c.Wait != nil && errors.Is(err, sqldb.ErrBusy) {
		c.Waits++
		if werr := c.Wait(); werr != nil {
			err = werr
			break
		}
		err = s.Exec()
	}
	c.done(s)
	s.ClearBindings()
	if err != nil {
		return 0, err
	}
	n := c.c.Changes()
	c.noteWrite(sql, n)
	return n, nil
}

// query runs a statement that returns rows: bind, when not nil, binds its
// values, and scan is called for each row until it returns false. The
// statement's work is counted and it is reset for its next use.
func (c *Conn) query(sql string, bind func(sqldb.Stmt), scan func(sqldb.Stmt) bool) error {
	s, err := c.prepare(sql)
	if err != nil {
		return err
	}
	defer c.done(s)
	defer s.ClearBindings()
	if bind != nil {
		bind(s)
	}
	for s.Step() {
		if !scan(s) {
			break
		}
	}
	return s.Err()
}

// ResetJobs deletes every job, and every lock if a claim has written
// one, and leaves the ledger alone: a cheaper Reset for a database whose
// ledger nobody has written.
func (c *Conn) ResetJobs() error {
	if _, err := c.exec(stmtReset, nil); err != nil {
		return err
	}
	if !c.db.locked {
		return nil
	}
	c.db.locked = false
	_, err := c.exec(stmtResetLocks, nil)
	return err
}

// Reset deletes every job, every lock, every ledger row and every
// processed key; the next job added gets id 1.
func (c *Conn) Reset() error {
	for _, q := range []string{stmtReset, stmtResetLedg, stmtResetKeys, stmtResetLocks} {
		if _, err := c.exec(q, nil); err != nil {
			return err
		}
	}
	c.db.locked = false
	return nil
}

// Add enqueues a job for order, published by the producer as event, and
// returns its id.
func (c *Conn) Add(order, event string) (int64, error) {
	_, err := c.exec(stmtInsert, func(s sqldb.Stmt) {
		s.BindText(1, order)
		s.BindText(2, event)
	})
	if err != nil {
		return 0, err
	}
	return c.c.LastInsertRowID(), nil
}

// Read is the first half of the read-then-write claim, and how a worker
// reads back what it wrote: one SELECT of the row. It returns ErrNoJob when
// there is no such row.
func (c *Conn) Read(id int64) (Row, error) {
	return c.readRow(stmtRead, id, func(s sqldb.Stmt) { s.BindInt64(1, id) })
}

// readRow runs sql, a SELECT of job id's columns in stmtRead's order.
func (c *Conn) readRow(sql string, id int64, bind func(sqldb.Stmt)) (Row, error) {
	var r Row
	found := false
	err := c.query(sql, bind, func(s sqldb.Stmt) bool {
		r = Row{ID: id, Status: s.ColumnText(0), Attempts: s.ColumnInt(1), Order: s.ColumnText(3), Run: s.ColumnText(4), Event: s.ColumnText(5), Lease: nullable(s, 2)}
		found = true
		return false
	})
	if err == nil && !found {
		err = fmt.Errorf("job %d: %w", id, ErrNoJob)
	}
	return r, err
}

// nullable returns column i of the current row, or nil when it is NULL.
func nullable(s sqldb.Stmt, i int) *int64 {
	if s.ColumnNull(i) {
		return nil
	}
	v := s.ColumnInt64(i)
	return &v
}

// Take is the second half of the read-then-write claim: an unconditional
// UPDATE that marks the job running under run, counts an attempt and sets
// the lease to expire at lease. It trusts an earlier Read.
func (c *Conn) Take(id int64, run string, lease int64) error {
	n, err := c.exec(stmtTake, func(s sqldb.Stmt) {
		s.BindText(1, run)
		s.BindInt64(2, lease)
		s.BindInt64(3, id)
	})
	if err == nil && n == 0 {
		err = fmt.Errorf("job %d: %w", id, ErrNoJob)
	}
	return err
}

// ClaimAtomically is the atomic claim: one conditional UPDATE that takes
// the job only if it is claimable at now, decided by the number of rows it
// changed.
func (c *Conn) ClaimAtomically(id int64, run string, now, lease int64) (bool, error) {
	n, err := c.exec(stmtClaim, func(s sqldb.Stmt) {
		s.BindText(1, run)
		s.BindInt64(2, lease)
		s.BindInt64(3, id)
		s.BindInt64(4, now)
	})
	return n == 1, err
}

// Ack marks the job done and clears its lease, unless the job has gone
// to the dead-letter queue: a stale run's ack cannot take a job back out
// of it. It reports whether the row changed (false: the job is dead).
func (c *Conn) Ack(id int64) (bool, error) {
	n, err := c.exec(stmtAck, func(s sqldb.Stmt) { s.BindInt64(1, id) })
	return n == 1, err
}

// AckRun is the fenced ack: it marks the job done only if run still holds
// it, and reports whether it did. A worker whose lease was taken over
// changes nothing.
func (c *Conn) AckRun(id int64, run string) (bool, error) {
	n, err := c.exec(stmtAckRun, func(s sqldb.Stmt) {
		s.BindInt64(1, id)
		s.BindText(2, run)
	})
	return n == 1, err
}

// Renew is a heartbeat: it moves the lease of a running job to expire at
// lease, only if run still holds the job, and reports whether it did. A
// renewal that changes no row means the lease is gone.
func (c *Conn) Renew(id int64, run string, lease int64) (bool, error) {
	n, err := c.exec(stmtRenew, func(s sqldb.Stmt) {
		s.BindInt64(1, lease)
		s.BindInt64(2, id)
		s.BindText(3, run)
	})
	return n == 1, err
}

// Next returns the lowest id of a job claimable at now (queued, or its
// lease passed), and false when there is none: how a consumer polls.
func (c *Conn) Next(now int64) (int64, bool, error) {
	var id *int64 // min() of no rows is NULL
	err := c.query(stmtNext, func(s sqldb.Stmt) { s.BindInt64(1, now) }, func(s sqldb.Stmt) bool {
		id = nullable(s, 0)
		return false
	})
	if err != nil || id == nil {
		return 0, false, err
	}
	return *id, true, nil
}

// count runs a statement that returns one number.
func (c *Conn) count(sql string) (int, error) {
	n := 0
	err := c.query(sql, nil, func(s sqldb.Stmt) bool {
		n = s.ColumnInt(0)
		return false
	})
	return n, err
}

// Unfinished counts the jobs that are not done.
func (c *Conn) Unfinished() (int, error) { return c.count(stmtLeft) }

// Set puts the job row into a given status and attempt count, held by run
// ("" for none, a NULL run), with no lease. It is not part of any worker's
// protocol: the explorer of interleavings uses it to return the table to a
// state it saw before.
func (c *Conn) Set(id int64, status string, attempts int, run string) error {
	_, err := c.exec(stmtSet, func(s sqldb.Stmt) {
		s.BindText(1, status)
		s.BindInt64(2, int64(attempts))
		if run == "" {
			s.BindNull(3)
		} else {
			s.BindText(3, run)
		}
		s.BindInt64(4, id)
	})
	return err
}

// SetKeys empties the ledger and processed_keys, then stores keys as
// committed processed keys, each claimed by a run named "first". Like Set,
// it is the explorer's, to put the tables back as a state it saw had them.
func (c *Conn) SetKeys(keys []string) error {
	if _, err := c.exec(stmtResetLedg, nil); err != nil {
		return err
	}
	if _, err := c.exec(stmtResetKeys, nil); err != nil {
		return err
	}
	for _, k := range keys {
		if _, err := c.ClaimKey(k, "first"); err != nil {
			return err
		}
	}
	return nil
}

// Requeue puts a job back to queued with no lease, keeping its attempts
// and its last run: a dead-letter re-drive, or a manual replay. The next
// claim delivers it again. It returns ErrNoJob when there is no such row.
func (c *Conn) Requeue(id int64) error {
	n, err := c.exec(stmtQueue, func(s sqldb.Stmt) { s.BindInt64(1, id) })
	if err == nil && n == 0 {
		err = fmt.Errorf("job %d: %w", id, ErrNoJob)
	}
	return err
}

// List returns every job in id order.
func (c *Conn) List() ([]Row, error) {
	var rows []Row
	err := c.query(stmtList, nil, func(s sqldb.Stmt) bool {
		rows = append(rows, Row{
			ID:       s.ColumnInt64(0),
			Order:    s.ColumnText(1),
			Status:   s.ColumnText(2),
			Attempts: s.ColumnInt(3),
			Run:      s.ColumnText(4),
			Lease:    nullable(s, 5),
			Event:    s.ColumnText(6),
		})
		return true
	})
	return rows, err
}

// Begin opens a write transaction on this connection (BEGIN IMMEDIATE: it
// takes the database's write lock at once, so that two transactions never
// both read and then both try to write). Until Commit or Rollback, writes
// from other connections find the database locked.
func (c *Conn) Begin() error {
	_, err := c.exec(stmtBegin, nil)
	return err
}

// Commit makes the open transaction's writes visible to every connection,
// all at once.
func (c *Conn) Commit() error {
	_, err := c.exec(stmtCommit, nil)
	return err
}

// Rollback discards the open transaction's writes, as SQLite does when the
// connection that opened it dies before COMMIT.
func (c *Conn) Rollback() error {
	if c.c.Autocommit() {
		return nil // nothing open
	}
	_, err := c.exec(stmtRollback, nil)
	return err
}

// InTx reports whether the connection has a transaction open.
func (c *Conn) InTx() bool { return !c.c.Autocommit() }

// ClaimKey inserts key into processed_keys with ON CONFLICT DO NOTHING and
// reports whether the insert took (changes() = 1). A key already there,
// committed by any run, makes it change no row.
func (c *Conn) ClaimKey(key, run string) (bool, error) {
	n, err := c.exec(stmtClaimKey, func(s sqldb.Stmt) {
		s.BindText(1, key)
		s.BindText(2, run)
	})
	return n == 1, err
}

// KeyOwner returns the run that claimed key, or "" when nobody has.
func (c *Conn) KeyOwner(key string) (string, error) {
	owner := ""
	err := c.query(stmtKeyOwner, func(s sqldb.Stmt) { s.BindText(1, key) }, func(s sqldb.Stmt) bool {
		owner = s.ColumnText(0)
		return false
	})
	return owner, err
}

// LedgerRow is one row of the ledger: one effect.
type LedgerRow struct {
	ID      int64
	Key     string
	Order   string
	Job     int64
	Run     string
	Attempt int
}

// AddLedger inserts one ledger row: the effect.
func (c *Conn) AddLedger(r LedgerRow) error {
	_, err := c.exec(stmtLedgerAdd, func(s sqldb.Stmt) {
		s.BindText(1, r.Key)
		s.BindText(2, r.Order)
		s.BindInt64(3, r.Job)
		s.BindText(4, r.Run)
		s.BindInt64(5, int64(r.Attempt))
	})
	return err
}

// Ledger returns every committed ledger row in id order.
func (c *Conn) Ledger() ([]LedgerRow, error) {
	var rows []LedgerRow
	err := c.query(stmtLedgerList, nil, func(s sqldb.Stmt) bool {
		rows = append(rows, LedgerRow{
			ID: s.ColumnInt64(0), Key: s.ColumnText(1), Order: s.ColumnText(2),
			Job: s.ColumnInt64(3), Run: s.ColumnText(4), Attempt: s.ColumnInt(5),
		})
		return true
	})
	return rows, err
}

// LedgerLen counts the committed ledger rows.
func (c *Conn) LedgerLen() (int, error) { return c.count(stmtLedgerLen) }

// KeyRow is one row of processed_keys.
type KeyRow struct {
	Key string
	Run string
}

// Keys returns every committed processed key in the order they were
// inserted.
func (c *Conn) Keys() ([]KeyRow, error) {
	var rows []KeyRow
	err := c.query(stmtKeyList, nil, func(s sqldb.Stmt) bool {
		rows = append(rows, KeyRow{Key: s.ColumnText(0), Run: s.ColumnText(1)})
		return true
	})
	return rows, err
}

// LockRow is one row of the locks table: who owns a job's lock, until
// when.
type LockRow struct {
	Job   int64
	Owner string
	Until int64 // virtual µs: the lock lapses after it
}

// Locks returns every lock row in job order.
func (c *Conn) Locks() ([]LockRow, error) {
	var rows []LockRow
	err := c.query(stmtLockList, nil, func(s sqldb.Stmt) bool {
		rows = append(rows, LockRow{Job: s.ColumnInt64(0), Owner: s.ColumnText(1), Until: s.ColumnInt64(2)})
		return true
	})
	return rows, err
}

// SetLock empties the locks table, then, when owner is not "", puts back
// one lock of job owned by owner until until. Like Set, it is the
// explorer's, to put the tables back as a state it saw had them.
func (c *Conn) SetLock(job int64, owner string, until int64) error {
	if _, err := c.exec(stmtResetLocks, nil); err != nil {
		return err
	}
	if owner == "" {
		return nil
	}
	_, err := c.exec(stmtLockPut, func(s sqldb.Stmt) {
		s.BindInt64(1, job)
		s.BindText(2, owner)
		s.BindInt64(3, until)
	})
	return err
}

// Values are what a claim step may bind (see Arg).
type Values struct {
	Job        int64
	Run        string
	Now, Until int64
}

// RunStep runs one step of a claim on the connection and returns what it
// gave back. A step that touches nothing shared runs nothing. A SELECT of
// a job that does not exist returns ErrNoJob.
func (c *Conn) RunStep(st Step, v Values) (Outcome, error) {
	var o Outcome
	if st.Kind != StepSQL {
		return o, nil
	}
	if st.Model != ModelReadJob && st.Model != ModelTakeJob && st.Model != ModelTakeUndone && st.Model != ModelClaimJob {
		c.db.locked = true
	}
	bind := func(s sqldb.Stmt) {
		for i, a := range st.Args {
			switch a {
			case ArgJob:
				s.BindInt64(i+1, v.Job)
			case ArgRun:
				s.BindText(i+1, v.Run)
			case ArgNow:
				s.BindInt64(i+1, v.Now)
			case ArgUntil:
				s.BindInt64(i+1, v.Until)
			}
		}
	}
	var err error
	switch st.Reads {
	case ReadsJob:
		o.Row, err = c.readRow(st.SQL, v.Job, bind)
	case ReadsLock:
		err = c.query(st.SQL, bind, func(s sqldb.Stmt) bool {
			o.Owner, o.Until = s.ColumnText(0), s.ColumnInt64(1)
			return false
		})
	default:
		o.Changed, err = c.exec(st.SQL, bind)
		if err == nil && st.Model == ModelTakeJob && o.Changed == 0 {
			err = fmt.Errorf("job %d: %w", v.Job, ErrNoJob)
		}
	}
	return o, err
}
