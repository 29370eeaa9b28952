//go:build !js

package sqldb

import (
	"context"
	"errors"
	"strings"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/vfs/memdb"
)

func defaultEngine() Engine { return Driver }

// Driver is the engine of github.com/ncruces/go-sqlite3 and its memdb VFS:
// the default natively and under GOOS=wasip1.
var Driver Engine = driver{}

type driver struct{}

// ConnMemory is the most memory one connection's SQLite may use. The
// driver reserves that much address space per connection as it opens
// it (256 MB unless told): a script of 8 workers opens 9 or more, which
// under a 4 GiB address-space limit (ulimit -v) failed with "cannot
// allocate memory". The databases live in Go's memory (memdb); SQLite's
// own, its page cache and statements, stays in the low megabytes.
const ConnMemory = 32 << 20

// connCtx configures every connection the driver opens; it is never
// cancelled.
var connCtx = sqlite3.WithMaxMemory(context.Background(), ConnMemory)

func (driver) Open(name string) (Conn, error) {
	c, err := sqlite3.OpenContext(connCtx, uri(name))
	if err != nil {
		return nil, driverErr(err)
	}
	return driverConn{c}, nil
}

func (driver) Delete(name string) { memdb.Delete(strings.TrimPrefix(name, "/")) }

// driverErr turns the driver's errors into *Error, keeping their text.
func driverErr(err error) error {
	if err == nil {
		return nil
	}
	var code sqlite3.ExtendedErrorCode
	if errors.As(err, &code) {
		return &Error{Code: int(code), text: err.Error()}
	}
	return err
}

type driverConn struct{ c *sqlite3.Conn }

func (c driverConn) Exec(sql string) error { return driverErr(c.c.Exec(sql)) }

func (c driverConn) Prepare(sql string) (Stmt, error) {
	s, _, err := c.c.Prepare(sql)
	if err != nil {
		return nil, driverErr(err)
	}
	if s == nil {
		return nil, errNoStatement
	}
	return driverStmt{s}, nil
}

func (c driverConn) Changes() int64         { return c.c.Changes() }
func (c driverConn) LastInsertRowID() int64 { return c.c.LastInsertRowID() }
func (c driverConn) Autocommit() bool       { return c.c.GetAutocommit() }
func (c driverConn) Close() error           { return driverErr(c.c.Close()) }

type driverStmt struct{ s *sqlite3.Stmt }

func (s driverStmt) BindInt64(i int, v int64) error { return driverErr(s.s.BindInt64(i, v)) }
func (s driverStmt) BindText(i int, v string) error { return driverErr(s.s.BindText(i, v)) }
func (s driverStmt) BindNull(i int) error           { return driverErr(s.s.BindNull(i)) }
func (s driverStmt) Step() bool                     { return s.s.Step() }
func (s driverStmt) Err() error                     { return driverErr(s.s.Err()) }
func (s driverStmt) Exec() error                    { return driverErr(s.s.Exec()) }
func (s driverStmt) Reset() error                   { return driverErr(s.s.Reset()) }
func (s driverStmt) ClearBindings() error           { return driverErr(s.s.ClearBindings()) }
func (s driverStmt) ColumnCount() int               { return s.s.ColumnCount() }
func (s driverStmt) ColumnNull(i int) bool          { return s.s.ColumnType(i) == sqlite3.NULL }
func (s driverStmt) ColumnInt64(i int) int64        { return s.s.ColumnInt64(i) }
func (s driverStmt) ColumnInt(i int) int            { return s.s.ColumnInt(i) }
func (s driverStmt) ColumnText(i int) string        { return s.s.ColumnText(i) }
func (s driverStmt) VMSteps() int64                 { return int64(s.s.Status(sqlite3.STMTSTATUS_VM_STEP, true)) }
func (s driverStmt) Close() error                   { return driverErr(s.s.Close()) }
