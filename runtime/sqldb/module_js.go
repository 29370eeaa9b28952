//go:build js

package sqldb

import "unsafe"

// Under GOOS=js the engine is the browser's SQLite module, instantiated by
// the playground's worker (site/static/worker.js) before the Go program
// and handed to it as two import modules: "sqlite3", the SQLite
// instance's exports themselves, so that each call goes from one module to
// the other with no JavaScript in between and 64-bit integers cross as
// they are; and "sqlite3_copy", two JavaScript functions that copy bytes
// between the two memories.
func defaultEngine() Engine { return &module{} }

// imported is the module's exports, as the Go module imports them.
type imported struct{}

var _ Exports = imported{}

type exportsT = imported

// lock locks nothing: see module.
type lock struct{}

func (lock) Lock()   {}
func (lock) Unlock() {}

//go:wasmimport sqlite3_copy write
func wWrite(dst int32, s string)

//go:wasmimport sqlite3_copy read
func wRead(dst unsafe.Pointer, src, n int32)

func (imported) Write(p int32, s string) { wWrite(p, s) }

func (imported) Read(p, n int32) string {
	b := make([]byte, n)
	wRead(unsafe.Pointer(unsafe.SliceData(b)), p, n)
	return unsafe.String(unsafe.SliceData(b), n)
}

//go:wasmimport sqlite3 twice_scratch
func wScratch(n int32) int32

//go:wasmimport sqlite3 twice_rc
func wRC() int32

//go:wasmimport sqlite3 twice_open
func wOpen(n int32) int32

//go:wasmimport sqlite3 twice_exec
func wExec(db, n int32) int32

//go:wasmimport sqlite3 twice_prepare
func wPrepare(db, n int32) int32

//go:wasmimport sqlite3 twice_step_all
func wStepAll(stmt int32) int32

//go:wasmimport sqlite3 twice_bind_text
func wBindText(stmt, i, n int32) int64

//go:wasmimport sqlite3 twice_column_text
func wColumnText(stmt, i int32) int64

//go:wasmimport sqlite3 twice_bind_text16
func wBindText16(stmt, i, n int32, lo, hi int64) int32

//go:wasmimport sqlite3 twice_load
func wLoad(p, n int32) int64

//go:wasmimport sqlite3 twice_errmsg
func wErrmsg(db int32) int64

//go:wasmimport sqlite3 twice_errstr
func wErrstr(rc int32) int64

//go:wasmimport sqlite3 twice_delete
func wDelete(n int32) int32

//go:wasmimport sqlite3 sqlite3_close
func wClose(db int32) int32

//go:wasmimport sqlite3 sqlite3_finalize
func wFinalize(stmt int32) int32

//go:wasmimport sqlite3 sqlite3_step
func wStep(stmt int32) int32

//go:wasmimport sqlite3 sqlite3_reset
func wReset(stmt int32) int32

//go:wasmimport sqlite3 sqlite3_clear_bindings
func wClearBindings(stmt int32) int32

//go:wasmimport sqlite3 sqlite3_bind_int64
func wBindInt64(stmt, i int32, v int64) int32

//go:wasmimport sqlite3 sqlite3_bind_null
func wBindNull(stmt, i int32) int32

//go:wasmimport sqlite3 sqlite3_column_int64
func wColumnInt64(stmt, i int32) int64

//go:wasmimport sqlite3 sqlite3_column_type
func wColumnType(stmt, i int32) int32

//go:wasmimport sqlite3 sqlite3_column_count
func wColumnCount(stmt int32) int32

//go:wasmimport sqlite3 sqlite3_stmt_status
func wStmtStatus(stmt, op, reset int32) int32

//go:wasmimport sqlite3 sqlite3_changes64
func wChanges64(db int32) int64

//go:wasmimport sqlite3 sqlite3_last_insert_rowid
func wLastInsertRowid(db int32) int64

//go:wasmimport sqlite3 sqlite3_get_autocommit
func wGetAutocommit(db int32) int32

//go:wasmimport sqlite3 sqlite3_extended_errcode
func wExtendedErrcode(db int32) int32

func (imported) Scratch(n int32) int32           { return wScratch(n) }
func (imported) RC() int32                       { return wRC() }
func (imported) Open(n int32) int32              { return wOpen(n) }
func (imported) Exec(db, n int32) int32          { return wExec(db, n) }
func (imported) Prepare(db, n int32) int32       { return wPrepare(db, n) }
func (imported) StepAll(stmt int32) int32        { return wStepAll(stmt) }
func (imported) BindText(stmt, i, n int32) int64 { return wBindText(stmt, i, n) }
func (imported) ColumnText(stmt, i int32) int64  { return wColumnText(stmt, i) }
func (imported) BindText16(stmt, i, n int32, lo, hi int64) int32 {
	return wBindText16(stmt, i, n, lo, hi)
}
func (imported) Load(p, n int32) int64                  { return wLoad(p, n) }
func (imported) Errmsg(db int32) int64                  { return wErrmsg(db) }
func (imported) Errstr(rc int32) int64                  { return wErrstr(rc) }
func (imported) Delete(n int32) int32                   { return wDelete(n) }
func (imported) Close(db int32) int32                   { return wClose(db) }
func (imported) Finalize(stmt int32) int32              { return wFinalize(stmt) }
func (imported) Step(stmt int32) int32                  { return wStep(stmt) }
func (imported) Reset(stmt int32) int32                 { return wReset(stmt) }
func (imported) ClearBindings(stmt int32) int32         { return wClearBindings(stmt) }
func (imported) BindInt64(stmt, i int32, v int64) int32 { return wBindInt64(stmt, i, v) }
func (imported) BindNull(stmt, i int32) int32           { return wBindNull(stmt, i) }
func (imported) ColumnInt64(stmt, i int32) int64        { return wColumnInt64(stmt, i) }
func (imported) ColumnType(stmt, i int32) int32         { return wColumnType(stmt, i) }
func (imported) ColumnCount(stmt int32) int32           { return wColumnCount(stmt) }
func (imported) StmtStatus(stmt, op, reset int32) int32 { return wStmtStatus(stmt, op, reset) }
func (imported) Changes64(db int32) int64               { return wChanges64(db) }
func (imported) LastInsertRowid(db int32) int64         { return wLastInsertRowid(db) }
func (imported) GetAutocommit(db int32) int32           { return wGetAutocommit(db) }
func (imported) ExtendedErrcode(db int32) int32         { return wExtendedErrcode(db) }
