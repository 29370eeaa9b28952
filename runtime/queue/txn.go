package queue

import (
	"errors"
	"strings"

	"github.com/twice-lab/twice/runtime/named"
)

// Txn is the transaction a claim's steps run in, one of [Txns]. SQLite
// (in WAL mode, as a queue on a file runs it) answers each differently
// when two workers claim at once:
//
//   - TxnAutocommit: each statement is a transaction of its own. The read
//     claim's SELECT and UPDATE are two, and another worker's UPDATE can
//     come between them: two owners.
//   - TxnDeferred: BEGIN, the steps, COMMIT. The first read takes a
//     snapshot and no lock; the first write must take the write lock. If
//     another connection holds it, or committed since the snapshot was
//     taken, the write fails at once with SQLITE_BUSY ("database is
//     locked"): the busy handler is not called, since waiting could not
//     make the snapshot current. The loser's worker dies on the error.
//   - TxnImmediate: BEGIN IMMEDIATE takes the write lock before the first
//     read. A second worker's BEGIN IMMEDIATE waits for the lock (with a
//     busy timeout), then reads the job already claimed; with no busy
//     timeout it fails at once with SQLITE_BUSY.
//
// The busy timeout is the other half (see [BusyError]): with none, any
// write that finds the write lock held fails at once.
type Txn uint8

// The transaction modes, in the order of their list.
const (
	TxnAutocommit Txn = iota
	TxnDeferred
	TxnImmediate
	numTxns
)

var txns = named.New("transaction mode", numTxns, map[Txn]named.Entry{
	TxnAutocommit: {Name: "autocommit", Words: "each statement its own transaction"},
	TxnDeferred:   {Name: "deferred", Words: "BEGIN, the claim's statements, COMMIT: the lock is taken at the first write"},
	TxnImmediate:  {Name: "immediate", Words: "BEGIN IMMEDIATE, the claim's statements, COMMIT: the lock is taken before the first read"},
})

// Txns lists the transaction modes.
func Txns() []Txn { return txns.All() }

// ParseTxn returns the transaction mode named s.
func ParseTxn(s string) (Txn, bool) { return txns.Lookup(s) }

// TxnNames returns the modes' names joined with sep.
func TxnNames(sep string) string {
	var names []string
	for _, t := range Txns() {
		names = append(names, t.String())
	}
	return strings.Join(names, sep)
}

func (t Txn) String() string { return txns.Name(t) }

// Words says in a few words what the mode does.
func (t Txn) Words() string { return txns.Words(t) }

// Valid reports whether t is one of Txns.
func (t Txn) Valid() bool { return txns.Valid(t) }

// Open reports whether the claim runs inside a transaction of its own
// (BEGIN ... COMMIT).
func (t Txn) Open() bool { return t == TxnDeferred || t == TxnImmediate }

// BusyText is what SQLite says when a statement finds the database locked
// (SQLITE_BUSY, and SQLITE_BUSY_SNAPSHOT, its stale-snapshot variant, say
// the same words), as the driver prints it.
const BusyText = "sqlite3: database is locked"

// Version counts the writes committed to the database by any of its
// connections: a statement in autocommit that changed a row, or a COMMIT
// of a transaction that did. A connection whose read snapshot was taken at
// one version and that tries to write at another has a stale snapshot:
// SQLite refuses the write (SQLITE_BUSY_SNAPSHOT).
func (db *DB) Version() uint64 { return db.version }

// Version is the database's [DB.Version].
func (c *Conn) Version() uint64 { return c.db.version }

// noteWrite counts a statement's changes into the version: at once in
// autocommit, at COMMIT in a transaction.
func (c *Conn) noteWrite(sql string, changed int64) {
	switch sql {
	case stmtBegin:
		c.txWrote = false
	case stmtCommit:
		if c.txWrote {
			c.db.version++
		}
		c.txWrote = false
	case stmtRollback:
		c.txWrote = false
	default:
		switch {
		case changed == 0:
		case c.c.Autocommit():
			c.db.version++
		default:
			c.txWrote = true
		}
	}
}

// Wrote reports whether the connection's open transaction has changed a
// row.
func (c *Conn) Wrote() bool { return c.txWrote }

// BusyError is SQLITE_BUSY with the reason SQLite refused the statement:
// errors.Is(err, ErrBusy) holds for it, and it prints as SQLite does.
type BusyError struct{ Why string }

func (e *BusyError) Error() string { return BusyText }

// Is makes a BusyError match ErrBusy.
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// ClaimTx is one worker's transaction around its claim's steps, in mode
// Txn, on its connection: what SQLite does before each statement
// (Before), BEGIN IMMEDIATE (Open) and COMMIT (Close).
type ClaimTx struct {
	Txn  Txn
	conn *Conn
	snap int64 // the version the deferred transaction's snapshot was taken at, or -1
}

// ClaimTx starts a claim's transaction in mode t on the connection.
func (c *Conn) ClaimTx(t Txn) *ClaimTx { return &ClaimTx{Txn: t, conn: c, snap: -1} }

// Open takes the write lock of an immediate transaction (BEGIN
// IMMEDIATE; the connection's Wait is its busy handler); for another mode
// it does nothing. It reports whether it ran a statement.
func (t *ClaimTx) Open() (bool, error) {
	if t.Txn != TxnImmediate {
		return false, nil
	}
	return true, busyWhy(t.conn.Begin(), t.conn.lockedWhy())
}

// lockedWhy says why a write that found the lock held failed: with a busy
// handler, the handler says why it gave up instead.
func (c *Conn) lockedWhy() string {
	why := "another connection's transaction holds the write lock"
	if c.Wait == nil {
		why += ", and there is no busy timeout"
	}
	return why
}

// Before does what SQLite does before the claim's step st in a deferred
// transaction: the first read takes a snapshot; the first write takes
// the write lock, which fails at once from a snapshot (SQLite calls no
// busy handler for that upgrade, since waiting cannot make the snapshot
// current) or from one a commit has passed (SQLITE_BUSY_SNAPSHOT). The
// error, if any, is a *BusyError.
func (t *ClaimTx) Before(st Step) error {
	c := t.conn
	if t.Txn != TxnDeferred || c.InTx() || !st.Shared() {
		return nil
	}
	if !st.Writes() {
		if t.snap < 0 {
			t.snap = int64(c.Version())
		}
		return nil
	}
	if t.snap < 0 {
		return busyWhy(c.Begin(), c.lockedWhy())
	}
	if uint64(t.snap) != c.Version() {
		return &BusyError{"another connection committed since this transaction's snapshot: SQLITE_BUSY_SNAPSHOT"}
	}
	wait := c.Wait
	c.Wait = nil // no busy handler for the upgrade
	err := c.Begin()
	c.Wait = wait
	return busyWhy(err, "another connection holds the write lock, and a read snapshot cannot wait for it")
}

// Close commits the transaction, if the mode opened one; it reports
// whether it ran a statement.
func (t *ClaimTx) Close() (bool, error) {
	if !t.conn.InTx() {
		return t.Txn.Open(), nil // a deferred transaction that only read
	}
	return true, t.conn.Commit()
}

// busyWhy gives an SQLITE_BUSY error its reason.
func busyWhy(err error, why string) error {
	if errors.Is(err, ErrBusy) {
		if _, ok := err.(*BusyError); !ok {
			return &BusyError{why}
		}
	}
	return err
}
