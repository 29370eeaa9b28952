package thirdparty

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"

	"github.com/twice-lab/twice/internal/wasmsqlite"
	"github.com/twice-lab/twice/runtime/sqldb"
	"github.com/twice-lab/twice/third_party/sqlitewasm"
)

// TestSQLiteChecksums holds the committed translation to what
// sqlite/build/build.sh recorded when it made it: CI has no C toolchain, so
// this is what stops a hand edit, or a file from another build, from
// passing as the script's output. Rerunning the script and diffing is the
// full check (sqlite/README.md).
func TestSQLiteChecksums(t *testing.T) {
	f, err := os.Open("sqlite/build/SHA256SUMS")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		want, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("SHA256SUMS: malformed line %q", sc.Text())
		}
		names = append(names, name)
		b, err := os.ReadFile(filepath.Join("sqlite", name))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != want {
			t.Errorf("sqlite/%s: sha256 %s, but build.sh recorded %s: regenerate it with sqlite/build/build.sh, do not edit it", name, got, want)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"sqlite3.go", "sqlite3.dat", "libc.go", "../sqlitewasm/sqlite3.wasm"}; !slices.Equal(names, want) {
		t.Errorf("SHA256SUMS lists %v, want %v", names, want)
	}
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(mod), "replace github.com/ncruces/go-sqlite3-wasm/v6 => ./third_party/sqlite\n") {
		t.Error("go.mod does not replace the driver's SQLite module with third_party/sqlite")
	}
}

// sqliteImports is what the translated SQLite asks of its host (the
// methods of its generated Xenv interface): the Go driver provides each.
// When a feature is omitted without a stub for the functions that still
// call into it, the linker turns each missing function into one more
// import here instead of failing; so the list must not grow.
var sqliteImports = []string{
	"Xgo_access", "Xgo_autovacuum_pages", "Xgo_busy_handler", "Xgo_busy_timeout",
	"Xgo_check_reserved_lock", "Xgo_close", "Xgo_collation_needed", "Xgo_commit_hook",
	"Xgo_compare", "Xgo_cur_close", "Xgo_cur_column", "Xgo_cur_eof", "Xgo_cur_filter",
	"Xgo_cur_next", "Xgo_cur_open", "Xgo_cur_rowid", "Xgo_current_time_64", "Xgo_delete",
	"Xgo_destroy", "Xgo_device_characteristics", "Xgo_fetch", "Xgo_file_control",
	"Xgo_file_size", "Xgo_full_pathname", "Xgo_func", "Xgo_inverse", "Xgo_lock", "Xgo_log",
	"Xgo_open", "Xgo_randomness", "Xgo_read", "Xgo_rollback_hook", "Xgo_sector_size",
	"Xgo_shm_barrier", "Xgo_shm_lock", "Xgo_shm_map", "Xgo_shm_unmap", "Xgo_sleep",
	"Xgo_step", "Xgo_sync", "Xgo_truncate", "Xgo_unfetch", "Xgo_unlock", "Xgo_update_hook",
	"Xgo_value", "Xgo_vfs_find", "Xgo_vtab_begin", "Xgo_vtab_best_index", "Xgo_vtab_commit",
	"Xgo_vtab_connect", "Xgo_vtab_create", "Xgo_vtab_destroy", "Xgo_vtab_disconnect",
	"Xgo_vtab_find_function", "Xgo_vtab_integrity", "Xgo_vtab_release", "Xgo_vtab_rename",
	"Xgo_vtab_rollback", "Xgo_vtab_rollback_to", "Xgo_vtab_savepoint", "Xgo_vtab_sync",
	"Xgo_vtab_update", "Xgo_write", "Xmemory",
}

func TestSQLiteImportsDoNotGrow(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "sqlite/sqlite3.go", nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || ts.Name.Name != "Xenv" {
			return true
		}
		for _, m := range ts.Type.(*ast.InterfaceType).Methods.List {
			for _, name := range m.Names {
				got = append(got, name.Name)
			}
		}
		return false
	})
	if len(got) == 0 {
		t.Fatal("no Xenv interface in sqlite/sqlite3.go: has wasm2go changed what it generates?")
	}
	for _, name := range got {
		if !slices.Contains(sqliteImports, name) {
			t.Errorf("the translated SQLite imports %s: a function the build omits is still called (add a stub in sqlite/build/stubs.c)", name)
		}
	}
	for _, name := range sqliteImports {
		if !slices.Contains(got, name) {
			t.Errorf("the translated SQLite no longer imports %s: take it off sqliteImports", name)
		}
	}
}

// runtimeSQL returns the SQL constants of the runtime's packages: the
// schemas (named *chema) and the statements (named stmt*), read from the
// source so that a statement added there is checked here without a change.
func runtimeSQL(t *testing.T) (schemas, stmts []string) {
	t.Helper()
	fset := token.NewFileSet()
	err := filepath.WalkDir("../runtime", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					s, err := strconv.Unquote(lit.Value)
					if err != nil {
						return err
					}
					switch {
					case strings.HasSuffix(name.Name, "chema"):
						schemas = append(schemas, s)
					case strings.HasPrefix(name.Name, "stmt"):
						stmts = append(stmts, s)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return schemas, stmts
}

// onBoth runs test on a fresh database of each build of SQLite: the
// driver's translation (the CLI's), and the browser's module under wazero.
func onBoth(t *testing.T, test func(t *testing.T, c sqldb.Conn)) {
	module, closeIt, err := wasmsqlite.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer closeIt()
	for _, e := range []struct {
		name   string
		engine sqldb.Engine
	}{{"driver", sqldb.Driver}, {"module", module}} {
		t.Run(e.name, func(t *testing.T) {
			c, err := e.engine.Open("/" + t.Name())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			test(t, c)
		})
	}
}

// TestBrowserModuleImportsNothing: the browser's SQLite module asks its
// host for no function and no memory (it grows its own), so that the
// worker needs no JavaScript glue to run it.
func TestBrowserModuleImportsNothing(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter().WithCoreFeatures(wasmsqlite.Features))
	defer rt.Close(ctx)
	m, err := rt.CompileModule(ctx, sqlitewasm.Wasm)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range m.ImportedFunctions() {
		mod, name, _ := f.Import()
		t.Errorf("the module imports %s.%s", mod, name)
	}
	for _, mem := range m.ImportedMemories() {
		mod, name, _ := mem.Import()
		t.Errorf("the module imports its memory %s.%s", mod, name)
	}
	if len(m.ExportedMemories()) != 1 {
		t.Errorf("the module exports %d memories, want 1", len(m.ExportedMemories()))
	}
}

// TestRuntimeStatements prepares every statement the runtime runs, on
// its own schemas, against this build: an omission that took away
// something they use fails here by the statement's text.
func TestRuntimeStatements(t *testing.T) {
	schemas, stmts := runtimeSQL(t)
	if len(schemas) < 2 || len(stmts) < 30 {
		t.Fatalf("found %d schemas and %d statements under runtime/: the constants were renamed?", len(schemas), len(stmts))
	}
	onBoth(t, func(t *testing.T, c sqldb.Conn) {
		for _, s := range schemas {
			if err := c.Exec(s); err != nil {
				t.Fatalf("schema: %v\n%s", err, s)
			}
		}
		for _, s := range stmts {
			st, err := c.Prepare(s)
			if err != nil {
				t.Errorf("%v\n\t%s", err, s)
				continue
			}
			st.Close()
		}
	})
}

// query runs sql with args bound in order (int64 or string) and returns
// its rows, columns joined by "|", NULL as "NULL".
func query(c sqldb.Conn, sql string, args ...any) ([]string, error) {
	st, err := c.Prepare(sql)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	for i, a := range args {
		switch a := a.(type) {
		case int:
			st.BindInt64(i+1, int64(a))
		case string:
			st.BindText(i+1, a)
		}
	}
	var rows []string
	for st.Step() {
		cols := make([]string, st.ColumnCount())
		for i := range cols {
			if st.ColumnNull(i) {
				cols[i] = "NULL"
			} else {
				cols[i] = st.ColumnText(i)
			}
		}
		rows = append(rows, strings.Join(cols, "|"))
	}
	return rows, st.Err()
}

// readerClaims are statements a reader might write for a claim, an
// acknowledgement or a check, against the lab's jobs table; each runs in
// order on three queued jobs, and its rows must be exactly these. The
// list is what the build promises to keep: RETURNING, upserts, subqueries,
// CTEs, UPDATE ... FROM, windows, compound SELECTs and the core scalar and
// aggregate functions.
var readerClaims = []struct {
	sql  string
	args []any
	rows []string
}{
	{`UPDATE jobs SET status = 'running', run = ?, attempts = attempts + 1, lease = ?
	  WHERE id = (SELECT id FROM jobs WHERE status = 'queued' ORDER BY id LIMIT 1)
	  RETURNING id, status, attempts`, []any{"r1", 100}, []string{"1|running|1"}},
	{`WITH next AS (SELECT id FROM jobs WHERE status = 'queued' OR (status = 'running' AND lease < ?) ORDER BY id LIMIT 1)
	  UPDATE jobs SET status = 'running', run = ?, attempts = attempts + 1, lease = ?
	  WHERE id IN (SELECT id FROM next) RETURNING id, run`, []any{50, "r2", 200}, []string{"2|r2"}},
	{`UPDATE jobs SET status = 'running', run = 'r3', lease = 300
	  FROM (SELECT id FROM jobs WHERE status = 'queued' LIMIT 1) AS next
	  WHERE jobs.id = next.id RETURNING jobs.id`, nil, []string{"3"}},
	{`UPDATE jobs SET status = 'done', lease = NULL WHERE id = ? AND run = ? AND status = 'running'
	  RETURNING id, status`, []any{1, "r1"}, []string{"1|done"}},
	{`SELECT changes(), total_changes() > 0, last_insert_rowid()`, nil, []string{"1|1|3"}},
	{`INSERT INTO processed_keys (key, run) VALUES (?, ?) ON CONFLICT (key) DO NOTHING RETURNING key`,
		[]any{"k1", "r1"}, []string{"k1"}},
	{`INSERT INTO processed_keys (key, run) VALUES (?, ?) ON CONFLICT (key) DO NOTHING RETURNING key`,
		[]any{"k1", "r2"}, nil},
	{`INSERT INTO processed_keys (key, run) VALUES (?, ?)
	  ON CONFLICT (key) DO UPDATE SET run = excluded.run WHERE processed_keys.run <> excluded.run
	  RETURNING key, run`, []any{"k1", "r2"}, []string{"k1|r2"}},
	{`INSERT OR IGNORE INTO processed_keys (key, run) VALUES ('k1', 'r3')`, nil, nil},
	{`SELECT id FROM jobs j WHERE EXISTS (SELECT 1 FROM processed_keys k WHERE k.run = j.run) ORDER BY id`,
		nil, []string{"2"}},
	{`SELECT status, count(*), sum(attempts), max(lease), min(id), group_concat(id, ',')
	  FROM jobs GROUP BY status HAVING count(*) > 0 ORDER BY status`, nil,
		[]string{"done|1|1|NULL|1|1", "running|2|1|300|2|2,3"}},
	{`SELECT id, CASE WHEN lease IS NULL THEN 'free' WHEN lease < 250 THEN 'expired' ELSE 'held' END,
	  coalesce(run, '-'), ifnull(lease, 0), iif(attempts > 0, 'tried', 'new'), nullif(status, 'done')
	  FROM jobs ORDER BY id`, nil,
		[]string{"1|free|r1|0|tried|NULL", "2|expired|r2|200|tried|running", "3|held|r3|300|new|running"}},
	{`SELECT id, row_number() OVER (ORDER BY id DESC), sum(attempts) OVER (ORDER BY id) FROM jobs ORDER BY id`,
		nil, []string{"1|3|1", "2|2|2", "3|1|2"}},
	{`SELECT id FROM jobs WHERE status = 'done' UNION ALL SELECT id FROM jobs WHERE lease > 250`,
		nil, []string{"1", "3"}},
	{`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3) SELECT group_concat(i) FROM n`,
		nil, []string{"1,2,3"}},
	{`SELECT abs(-2), round(2.5), length(order_id), upper(event), lower('AB'), substr(order_id, 2),
	  replace(order_id, 'o', 'x'), trim('  a '), instr(event, '2'), typeof(lease), printf('%05d', id),
	  format('%s-%d', run, attempts), hex('a'), quote(run), CAST(lease AS TEXT), id || ':' || status,
	  event LIKE 'e%', event GLOB 'e[0-9]', max(1, id), min(1, id), unicode('a'), char(98), concat('a', id)
	  FROM jobs WHERE id = 2`, nil,
		[]string{"2|3.0|2|E2|ab|2|x2|a|2|integer|00002|r2-1|61|'r2'|200|2:running|1|1|2|1|97|b|a2"}},
	{`BEGIN IMMEDIATE`, nil, nil},
	{`SAVEPOINT claim`, nil, nil},
	{`DELETE FROM jobs WHERE status = 'done' RETURNING id`, nil, []string{"1"}},
	{`ROLLBACK TO claim`, nil, nil},
	{`COMMIT`, nil, nil},
	{`SELECT count(*) FROM jobs`, nil, []string{"3"}},
	{`REPLACE INTO processed_keys (key, run) VALUES ('k1', 'r9') RETURNING run`, nil, []string{"r9"}},
}

func TestReaderClaims(t *testing.T) {
	schemas, _ := runtimeSQL(t)
	onBoth(t, func(t *testing.T, c sqldb.Conn) {
		for _, s := range schemas {
			if err := c.Exec(s); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Exec(`INSERT INTO jobs (order_id, event) VALUES ('o1', 'e1'), ('o2', 'e2'), ('o3', 'e3')`); err != nil {
			t.Fatal(err)
		}
		for _, claim := range readerClaims {
			rows, err := query(c, claim.sql, claim.args...)
			if err != nil {
				t.Fatalf("%v\n\t%s", err, claim.sql)
			}
			if !slices.Equal(rows, claim.rows) {
				t.Errorf("%s\n\tgot rows %q, want %q", claim.sql, rows, claim.rows)
			}
		}
	})
}

// omitted are statements this build cannot run, one per omission a reader
// could run into, each with the start of the error it must give: a
// reader's claim that uses one fails at once and says why, rather than
// doing something else.
var omitted = []struct{ sql, err string }{
	{`SELECT json_extract('{"a":1}', '$.a')`, "no such function: json_extract"},
	{`SELECT pow(2, 3)`, "no such function: pow"},
	{`SELECT soundex('x')`, "no such function: soundex"},
	{`PRAGMA table_info(jobs)`, "PRAGMA is not available in this build of SQLite"},
	{`CREATE VIEW v AS SELECT 1`, "CREATE VIEW is not available in this build of SQLite"},
	{`ALTER TABLE jobs ADD COLUMN x`, "ALTER TABLE is not available in this build of SQLite"},
	{`CREATE VIRTUAL TABLE v USING x`, "CREATE VIRTUAL TABLE is not available in this build of SQLite"},
	{`SELECT * FROM json_each('[1]')`, "no such table: json_each"},
	{`ANALYZE`, "ANALYZE is not available in this build of SQLite"},
	{`REINDEX`, "REINDEX is not available in this build of SQLite"},
	{`CREATE TABLE g (x, y AS (x + 1))`, "generated columns not supported"},
	{`SELECT date('2026-01-31', '+1 day')`, "no such function: date"},
	{`SELECT unixepoch()`, "no such function: unixepoch"},
	{`SELECT CURRENT_TIMESTAMP`, "no such function: CURRENT_TIMESTAMP"},
	{`ATTACH 'file:/other?vfs=memdb' AS other`, "ATTACH is not available in this build of SQLite"},
	{`DETACH other`, "DETACH is not available in this build of SQLite"},
	{`VACUUM`, "VACUUM is not available in this build of SQLite"},
}

func TestOmittedFeaturesFail(t *testing.T) {
	schemas, _ := runtimeSQL(t)
	onBoth(t, func(t *testing.T, c sqldb.Conn) {
		for _, s := range schemas {
			if err := c.Exec(s); err != nil {
				t.Fatal(err)
			}
		}
		for _, o := range omitted {
			_, err := query(c, o.sql)
			if err == nil {
				t.Errorf("%s: ran, but this build omits it (update the list and RATIONALE.md if it is kept now)", o.sql)
			} else if !strings.Contains(err.Error(), o.err) {
				t.Errorf("%s: %v, want an error containing %q", o.sql, err, o.err)
			} else {
				t.Logf("%s: %v", o.sql, err)
			}
		}
	})
}

// TestOmissionsThatDoNotFail pins the omissions that change what a
// statement does without an error, so that RATIONALE.md's account of them
// stays true: EXPLAIN runs the statement it names, a CHECK constraint is
// accepted and not enforced, and a TEMP table is an ordinary table of the
// main database. None is SQL the lab runs or a claim needs.
func TestOmissionsThatDoNotFail(t *testing.T) {
	onBoth(t, func(t *testing.T, c sqldb.Conn) { omissionsThatDoNotFail(t, c) })
}

func omissionsThatDoNotFail(t *testing.T, c sqldb.Conn) {
	for _, step := range []struct {
		sql  string
		rows []string
	}{
		{`EXPLAIN SELECT 7`, []string{"7|0.0|0.0|0.0|0.0|0.0|0.0|0.0"}},
		{`CREATE TABLE c (x CHECK (x > 0))`, nil},
		{`INSERT INTO c VALUES (-1)`, nil},
		{`SELECT x FROM c`, []string{"-1"}},
		{`CREATE TEMP TABLE t (x)`, nil},
		{`SELECT name FROM main.sqlite_schema ORDER BY name`, []string{"c", "t"}},
	} {
		rows, err := query(c, step.sql)
		if err != nil {
			t.Fatalf("%s: %v", step.sql, err)
		}
		if !slices.Equal(rows, step.rows) {
			t.Errorf("%s: rows %q, want %q (has the build changed? update RATIONALE.md)", step.sql, rows, step.rows)
		}
	}
}
