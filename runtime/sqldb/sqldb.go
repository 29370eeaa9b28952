// Package sqldb is the connection to SQLite that the runtime's queue and
// receipts talk to: a small interface, [Conn] and [Stmt], over two
// implementations of the same SQLite.
//
//   - Natively and under GOOS=wasip1 (the CLI, the server's pre-render, the
//     parity tests) a connection is github.com/ncruces/go-sqlite3 with its
//     memdb VFS: SQLite machine-translated to Go, one SQLite instance per
//     connection.
//   - Under GOOS=js (the browser build) it is the SQLite module that
//     third_party/sqlite/build/build.sh compiles with clang, a WebAssembly
//     module of its own beside the Go one in the same Web Worker, with an
//     in-memory VFS in C that behaves as memdb does. Go calls its exports
//     synchronously ([Exports]): statements stay prepared on the module's
//     side, named by integer handles; integers cross as themselves (all of
//     int64: the two modules call each other directly, not through
//     JavaScript numbers), and text is copied once each way.
//
// Both are the same amalgamation, built with the same options
// (third_party/sqlite/build/sqlite_opt.h) and the same patches that change
// what SQLite does, so the same statements give the same rows, the same
// changes(), the same virtual-machine step counts ([Stmt.VMSteps], which
// the interpreter's work meter adds up) and the same error texts. Where
// the two could differ (a busy database, error messages, what lies outside
// the lab: the driver's Go-defined SQL functions, its OS VFS) the package's
// tests run the same statements through both and say what each does.
//
// A database is named: [Open] of a name that begins with "/" shares the
// database with every other connection open on that name, as separate
// processes share a file, until the last one closes it; [Delete] forgets
// the name. A write while another connection holds the write lock fails
// at once with an error that matches [ErrBusy] (there is no busy handler).
//
// A Conn and its statements are used by one goroutine at a time; the
// module implementation serializes every call into its SQLite instance.
package sqldb

import (
	"errors"
	"sync"
)

// Conn is one connection to a database.
type Conn interface {
	// Exec runs every statement of sql, which binds nothing.
	Exec(sql string) error
	// Prepare compiles the first statement of sql; it stays prepared, on
	// SQLite's side, until Stmt.Close.
	Prepare(sql string) (Stmt, error)
	// Changes is the rows the last INSERT, UPDATE or DELETE changed.
	Changes() int64
	// LastInsertRowID is the rowid of the last row inserted.
	LastInsertRowID() int64
	// Autocommit reports whether no transaction is open.
	Autocommit() bool
	// Close closes the connection; its statements must be closed first.
	Close() error
}

// Stmt is a prepared statement. Parameters count from 1, columns from 0.
type Stmt interface {
	BindInt64(param int, v int64) error
	BindText(param int, v string) error
	BindNull(param int) error
	// Step runs the statement to its next row: true when there is one;
	// false when it is done or failed (Err says which).
	Step() bool
	// Err is the error of the last Step, or nil.
	Err() error
	// Exec steps the statement until it is done, resets it and returns
	// the first error.
	Exec() error
	Reset() error
	ClearBindings() error
	ColumnCount() int
	ColumnNull(col int) bool
	ColumnInt64(col int) int64
	ColumnInt(col int) int
	ColumnText(col int) string
	// VMSteps returns the virtual-machine steps the statement has run
	// since the last call (SQLITE_STMTSTATUS_VM_STEP), and starts counting
	// again.
	VMSteps() int64
	Close() error
}

// An Engine opens connections to named in-memory databases. The package's
// default is the driver natively and the browser's SQLite module under
// GOOS=js; [NewModule] makes one from any instance of that module.
type Engine interface {
	Open(name string) (Conn, error)
	Delete(name string)
}

var (
	engineMu sync.RWMutex
	engine   Engine = defaultEngine()
)

func current() Engine {
	engineMu.RLock()
	defer engineMu.RUnlock()
	return engine
}

// Open opens a connection to the in-memory database called name (shared
// when name begins with "/"), creating it if need be.
func Open(name string) (Conn, error) { return current().Open(name) }

// Delete forgets the shared database called name: connections open on it
// keep it until they close, and the next Open of the name gets a new,
// empty one.
func Delete(name string) { current().Delete(name) }

// Use makes e the engine of Open and Delete until restore is called: for
// tests that run the runtime on the other implementation.
func Use(e Engine) (restore func()) {
	engineMu.Lock()
	defer engineMu.Unlock()
	old := engine
	engine = e
	return func() {
		engineMu.Lock()
		defer engineMu.Unlock()
		engine = old
	}
}

// Error is an error SQLite returned: its extended result code, and the
// text the driver gives it ("sqlite3: " and SQLite's words for the code,
// then SQLite's message when it says more).
type Error struct {
	Code int // the extended result code
	text string
}

func (e *Error) Error() string { return e.text }

// Is makes errors.Is(err, ErrBusy) true for every error whose primary
// code is SQLITE_BUSY.
func (e *Error) Is(target error) bool {
	p, ok := target.(primary)
	return ok && uint8(e.Code) == uint8(p)
}

// primary is a primary result code, as a value to match errors with.
type primary uint8

const codeBusy = 5 // SQLITE_BUSY

func (p primary) Error() string {
	if p == codeBusy {
		return "sqlite3: database is locked"
	}
	return "sqlite3: error"
}

// ErrBusy matches, with errors.Is, what a statement returns when another
// connection holds the lock it needs (SQLITE_BUSY).
var ErrBusy error = primary(codeBusy)

// errNoStatement is what Prepare returns for SQL that holds no statement
// (empty, or only a comment), where the driver gives no statement and no
// error.
var errNoStatement = errors.New("sqlite3: no SQL statement to prepare")

// uri is the name SQLite opens for the database called name.
func uri(name string) string { return "file:" + name + "?vfs=memdb" }
