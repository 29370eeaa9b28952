// Package wasmsqlite runs the browser build's SQLite module
// (third_party/sqlitewasm) under wazero, natively, behind the same
// [sqldb.Exports] the browser build imports, so that a native test can run
// the runtime on the browser's SQLite: the same bridge code, the same
// module, with wazero in place of V8 and Go copying bytes in place of the
// worker's two JavaScript copies. Nothing but tests uses it.
package wasmsqlite

import (
	"context"
	"fmt"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/twice-lab/twice/runtime/sqldb"
	"github.com/twice-lab/twice/third_party/sqlitewasm"
)

// Features are the WebAssembly features the module is compiled with
// (third_party/sqlite/build/build.sh): those of WebAssembly 2.0, tail calls
// and extended constant expressions.
const Features = api.CoreFeaturesV2 | experimental.CoreFeaturesTailCall | experimental.CoreFeaturesExtendedConst

// cache keeps the module compiled for every runtime New makes.
var cache = wazero.NewCompilationCache()

// New instantiates the module in a wazero runtime of its own and returns
// an engine on that instance, and a func that closes the runtime.
func New(ctx context.Context) (sqldb.Engine, func(), error) {
	cfg := wazero.NewRuntimeConfig().
		WithCoreFeatures(Features).
		WithCompilationCache(cache)
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	mod, err := rt.InstantiateWithConfig(ctx, sqlitewasm.Wasm, wazero.NewModuleConfig().WithStartFunctions("_initialize"))
	if err != nil {
		rt.Close(ctx)
		return nil, nil, fmt.Errorf("instantiating the browser's SQLite module: %w", err)
	}
	x := &exports{ctx: ctx, mod: mod, mem: mod.Memory(), fns: map[string]api.Function{}}
	for _, name := range mod.ExportedFunctionDefinitions() {
		x.fns[name.ExportNames()[0]] = mod.ExportedFunction(name.ExportNames()[0])
	}
	for _, name := range names {
		if x.fns[name] == nil {
			rt.Close(ctx)
			return nil, nil, fmt.Errorf("the browser's SQLite module does not export %s", name)
		}
	}
	return sqldb.NewModule(x), func() { rt.Close(ctx) }, nil
}

// names are the exports the bridge calls.
var names = []string{
	"twice_scratch", "twice_rc", "twice_open", "twice_exec", "twice_prepare", "twice_step_all",
	"twice_bind_text", "twice_bind_text16", "twice_column_text", "twice_load", "twice_errmsg", "twice_errstr", "twice_delete",
	"sqlite3_close", "sqlite3_finalize", "sqlite3_step", "sqlite3_reset", "sqlite3_clear_bindings",
	"sqlite3_bind_int64", "sqlite3_bind_null", "sqlite3_column_int64", "sqlite3_column_type", "sqlite3_column_count",
	"sqlite3_stmt_status", "sqlite3_changes64", "sqlite3_last_insert_rowid", "sqlite3_get_autocommit",
	"sqlite3_extended_errcode",
}

type exports struct {
	ctx   context.Context
	mod   api.Module
	mem   api.Memory
	fns   map[string]api.Function
	stack [5]uint64
}

// call calls export name with the arguments (i32 as their bits, i64 as
// themselves) and returns its result's bits. The sqldb engine serializes
// the calls, so one stack serves them all.
func (x *exports) call(name string, args ...uint64) uint64 {
	st := x.stack[:max(len(args), 1)]
	copy(st, args)
	if err := x.fns[name].CallWithStack(x.ctx, st); err != nil {
		panic(fmt.Sprintf("the browser's SQLite module: %s: %v", name, err))
	}
	return st[0]
}

func u(v int32) uint64 { return uint64(uint32(v)) }

func (x *exports) i32(name string, args ...uint64) int32 { return int32(uint32(x.call(name, args...))) }
func (x *exports) i64(name string, args ...uint64) int64 { return int64(x.call(name, args...)) }

func (x *exports) Write(p int32, s string) {
	if !x.mem.WriteString(uint32(p), s) {
		panic("the browser's SQLite module: write out of range")
	}
}

func (x *exports) Read(p, n int32) string {
	b, ok := x.mem.Read(uint32(p), uint32(n))
	if !ok {
		panic("the browser's SQLite module: read out of range")
	}
	return string(b)
}

func (x *exports) Scratch(n int32) int32        { return x.i32("twice_scratch", u(n)) }
func (x *exports) RC() int32                    { return x.i32("twice_rc") }
func (x *exports) Open(n int32) int32           { return x.i32("twice_open", u(n)) }
func (x *exports) Exec(db, n int32) int32       { return x.i32("twice_exec", u(db), u(n)) }
func (x *exports) Prepare(db, n int32) int32    { return x.i32("twice_prepare", u(db), u(n)) }
func (x *exports) StepAll(stmt int32) int32     { return x.i32("twice_step_all", u(stmt)) }
func (x *exports) BindText(s, i, n int32) int64 { return x.i64("twice_bind_text", u(s), u(i), u(n)) }
func (x *exports) BindText16(s, i, n int32, lo, hi int64) int32 {
	return x.i32("twice_bind_text16", u(s), u(i), u(n), uint64(lo), uint64(hi))
}
func (x *exports) Load(p, n int32) int64       { return x.i64("twice_load", u(p), u(n)) }
func (x *exports) ColumnText(s, i int32) int64 { return x.i64("twice_column_text", u(s), u(i)) }
func (x *exports) Errmsg(db int32) int64       { return x.i64("twice_errmsg", u(db)) }
func (x *exports) Errstr(rc int32) int64       { return x.i64("twice_errstr", u(rc)) }
func (x *exports) Delete(n int32) int32        { return x.i32("twice_delete", u(n)) }
func (x *exports) Close(db int32) int32        { return x.i32("sqlite3_close", u(db)) }
func (x *exports) Finalize(s int32) int32      { return x.i32("sqlite3_finalize", u(s)) }
func (x *exports) Step(s int32) int32          { return x.i32("sqlite3_step", u(s)) }
func (x *exports) Reset(s int32) int32         { return x.i32("sqlite3_reset", u(s)) }
func (x *exports) ClearBindings(s int32) int32 { return x.i32("sqlite3_clear_bindings", u(s)) }
func (x *exports) BindInt64(s, i int32, v int64) int32 {
	return x.i32("sqlite3_bind_int64", u(s), u(i), uint64(v))
}
func (x *exports) BindNull(s, i int32) int32    { return x.i32("sqlite3_bind_null", u(s), u(i)) }
func (x *exports) ColumnInt64(s, i int32) int64 { return x.i64("sqlite3_column_int64", u(s), u(i)) }
func (x *exports) ColumnType(s, i int32) int32 {
	return x.i32("sqlite3_column_type", u(s), u(i))
}
func (x *exports) ColumnCount(s int32) int32 { return x.i32("sqlite3_column_count", u(s)) }
func (x *exports) StmtStatus(s, op, r int32) int32 {
	return x.i32("sqlite3_stmt_status", u(s), u(op), u(r))
}
func (x *exports) Changes64(db int32) int64       { return x.i64("sqlite3_changes64", u(db)) }
func (x *exports) LastInsertRowid(db int32) int64 { return x.i64("sqlite3_last_insert_rowid", u(db)) }
func (x *exports) GetAutocommit(db int32) int32   { return x.i32("sqlite3_get_autocommit", u(db)) }
func (x *exports) ExtendedErrcode(db int32) int32 { return x.i32("sqlite3_extended_errcode", u(db)) }
