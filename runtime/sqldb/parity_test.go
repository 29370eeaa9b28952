//go:build !js

package sqldb_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/twice-lab/twice/internal/wasmsqlite"
	"github.com/twice-lab/twice/runtime/sqldb"
)

// module returns an engine on a fresh instance of the browser's SQLite
// module, run by wazero.
func module(t *testing.T) sqldb.Engine {
	t.Helper()
	e, closeIt, err := wasmsqlite.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeIt)
	return e
}

var seq atomic.Int64

// session runs statements on one engine and writes down everything a
// caller can observe of them: rows, changes(), the last rowid, the
// virtual-machine steps, and each error's code and text.
type session struct {
	t      *testing.T
	e      sqldb.Engine
	prefix string // makes the database names of this session its own
	conns  map[string]sqldb.Conn
	stmts  map[string]sqldb.Stmt
	out    strings.Builder
}

func newSession(t *testing.T, e sqldb.Engine) *session {
	return &session{t: t, e: e, prefix: fmt.Sprintf("/sqldb-test-%d-", seq.Add(1)), conns: map[string]sqldb.Conn{}, stmts: map[string]sqldb.Stmt{}}
}

func (s *session) printf(format string, args ...any) { fmt.Fprintf(&s.out, format, args...) }

func (s *session) errText(err error) string {
	if err == nil {
		return "ok"
	}
	var e *sqldb.Error
	if !errors.As(err, &e) {
		return "not an *sqldb.Error: " + err.Error()
	}
	return fmt.Sprintf("code %d busy=%v: %s", e.Code, errors.Is(err, sqldb.ErrBusy), err)
}

// open opens connection c on database db ("/x" shared, "x" private).
func (s *session) open(c, db string) {
	name := db
	if strings.HasPrefix(db, "/") {
		name = s.prefix + db[1:]
	}
	conn, err := s.e.Open(name)
	s.printf("open %s %s: %s\n", c, db, s.errText(err))
	if err == nil {
		s.conns[c] = conn
	}
}

func (s *session) delete(db string) {
	s.e.Delete(s.prefix + strings.TrimPrefix(db, "/"))
	s.printf("delete %s\n", db)
}

func (s *session) exec(c, sql string) {
	err := s.conns[c].Exec(sql)
	s.printf("%s exec %q: %s; changes %d\n", c, sql, s.errText(err), s.conns[c].Changes())
}

// stmt returns the statement of sql on connection c, prepared once.
func (s *session) stmt(c, sql string) sqldb.Stmt {
	if st, ok := s.stmts[c+"\x00"+sql]; ok {
		return st
	}
	st, err := s.conns[c].Prepare(sql)
	if err != nil {
		s.printf("%s prepare %q: %s\n", c, sql, s.errText(err))
		return nil
	}
	s.stmts[c+"\x00"+sql] = st
	return st
}

func (s *session) bind(st sqldb.Stmt, args []any) {
	for i, a := range args {
		var err error
		switch v := a.(type) {
		case nil:
			err = st.BindNull(i + 1)
		case int64:
			err = st.BindInt64(i+1, v)
		case int:
			err = st.BindInt64(i+1, int64(v))
		case string:
			err = st.BindText(i+1, v)
		}
		if err != nil {
			s.printf("  bind %d: %s\n", i+1, s.errText(err))
		}
	}
}

// row writes down the current row's first n columns.
func (s *session) row(st sqldb.Stmt, n int) {
	var cols []string
	for i := range n {
		if st.ColumnNull(i) {
			cols = append(cols, "NULL")
		} else {
			cols = append(cols, fmt.Sprintf("%d|%q", st.ColumnInt64(i), st.ColumnText(i)))
		}
	}
	s.printf("  row %s\n", strings.Join(cols, " "))
}

// query runs sql on c with args bound, reads every row's first n columns,
// resets the statement and clears its bindings.
func (s *session) query(c, sql string, n int, args ...any) {
	st := s.stmt(c, sql)
	if st == nil {
		return
	}
	s.bind(st, args)
	s.printf("%s query %q %v\n", c, sql, args)
	for st.Step() {
		s.row(st, n)
	}
	s.printf("  err %s; changes %d; last rowid %d; vm steps %d; autocommit %v\n",
		s.errText(st.Err()), s.conns[c].Changes(), s.conns[c].LastInsertRowID(), st.VMSteps(), s.conns[c].Autocommit())
	s.printf("  reset %s; clear %s\n", s.errText(st.Reset()), s.errText(st.ClearBindings()))
}

// run is query's Stmt.Exec: every step, then the reset's error.
func (s *session) run(c, sql string, args ...any) {
	st := s.stmt(c, sql)
	if st == nil {
		return
	}
	s.bind(st, args)
	err := st.Exec()
	s.printf("%s run %q %v: %s; changes %d; vm steps %d\n", c, sql, args, s.errText(err), s.conns[c].Changes(), st.VMSteps())
	st.ClearBindings()
}

// step takes one step of sql on c and leaves the statement where it is.
func (s *session) step(c, sql string, n int) {
	st := s.stmt(c, sql)
	if st == nil {
		return
	}
	if st.Step() {
		s.row(st, n)
	}
	s.printf("%s step %q: %s\n", c, sql, s.errText(st.Err()))
}

func (s *session) reset(c, sql string) {
	s.printf("%s reset %q: %s\n", c, sql, s.errText(s.stmt(c, sql).Reset()))
}

func (s *session) close() {
	for k, st := range s.stmts {
		if err := st.Close(); err != nil {
			s.t.Errorf("closing %q: %v", k, err)
		}
	}
	for c, conn := range s.conns {
		if err := conn.Close(); err != nil {
			s.t.Errorf("closing %s: %v", c, err)
		}
	}
}

// both runs script on the driver and on the browser's module and returns
// the two transcripts, after failing the test where they differ.
func both(t *testing.T, script func(s *session)) (driver, browser string) {
	t.Helper()
	var outs []string
	for _, e := range []sqldb.Engine{sqldb.Driver, module(t)} {
		s := newSession(t, e)
		script(s)
		s.close()
		outs = append(outs, s.out.String())
	}
	if outs[0] != outs[1] {
		t.Errorf("the driver and the browser's module differ\n--- driver\n%s--- module\n%s", outs[0], outs[1])
	}
	return outs[0], outs[1]
}

const jobs = `CREATE TABLE jobs (
	id       INTEGER PRIMARY KEY,
	order_id TEXT NOT NULL,
	status   TEXT NOT NULL DEFAULT 'queued',
	attempts INTEGER NOT NULL DEFAULT 0,
	run      TEXT,
	lease    INTEGER
)`

// TestSameRowsAndSteps runs the kinds of statement the runtime runs (and
// some it does not) through both implementations: every row, changes(),
// rowid, virtual-machine step count and error must be the same.
func TestSameRowsAndSteps(t *testing.T) {
	out, _ := both(t, func(s *session) {
		s.open("a", "/q")
		s.open("b", "/q")
		s.exec("a", jobs+"; CREATE TABLE keys (key TEXT PRIMARY KEY, run TEXT NOT NULL)")
		for i := range 3 {
			s.run("a", "INSERT INTO jobs (order_id) VALUES (?)", fmt.Sprintf("order-%d", i))
		}
		s.query("b", "SELECT id, order_id, status, attempts, run, lease FROM jobs ORDER BY id", 6)
		s.run("b", "UPDATE jobs SET status = 'running', run = ?, attempts = attempts + 1, lease = ? WHERE id = ? AND (status = 'queued' OR lease < ?)", "w1#1", int64(1_500_000), 2, int64(1_000_000))
		s.run("a", "UPDATE jobs SET status = 'running', run = ?, attempts = attempts + 1, lease = ? WHERE id = ? AND (status = 'queued' OR lease < ?)", "w2#1", int64(1_500_000), 2, int64(1_000_000))
		s.query("a", "SELECT status, attempts, lease, order_id, run FROM jobs WHERE id = ?", 5, 2)
		s.run("a", "INSERT INTO keys (key, run) VALUES (?, ?) ON CONFLICT (key) DO NOTHING", "k", "w1")
		s.run("b", "INSERT INTO keys (key, run) VALUES (?, ?) ON CONFLICT (key) DO NOTHING", "k", "w2")
		s.query("b", "UPDATE jobs SET lease = lease + 1 WHERE status = 'running' RETURNING id, lease", 2)
		s.query("a", "SELECT min(id) FROM (SELECT min(id) AS id FROM jobs WHERE status = 'queued' UNION ALL SELECT min(id) FROM jobs WHERE status = 'running' AND lease < ?)", 1, int64(2_000_000))
		s.exec("a", "CREATE INDEX jobs_status ON jobs (status, id)")
		s.query("b", "SELECT count(*), group_concat(order_id) FROM jobs WHERE status = 'queued'", 2)
		s.query("b", "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50) SELECT sum(i), max(i) FROM n", 2)
		s.query("a", "SELECT order_id, row_number() OVER (ORDER BY id DESC) FROM jobs ORDER BY 1", 2)
		s.query("a", "SELECT ? = 'x' COLLATE time, 'a' < 'b' COLLATE time", 2, "x")
		s.exec("b", "DROP INDEX jobs_status")
		s.run("b", "DELETE FROM jobs")
		s.run("a", "INSERT INTO jobs (order_id) VALUES (?)", "again")
		s.query("b", "SELECT id, order_id FROM jobs", 2)
	})
	for _, want := range []string{
		`row 0|"running" 1|"1" 1500000|"1500000" 0|"order-1" 0|"w1#1"`, // the first claim took job 2
		`[w2#1 1500000 2 1000000]: ok; changes 0`,                      // the second changed no row
		`row 2|"2" 0|"order-0,order-2"`,
		`row 1|"1" 0|"again"`, // an emptied table numbers from 1 again
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, out)
		}
	}
}

// TestIntegersAndText pins what crosses the bridge: every int64 (the
// limit is int64's own: the two modules pass 64-bit integers to each
// other directly, so values past 2^53, which a JavaScript number would
// round, arrive exact), text with any bytes and of every length the
// bridge treats apart, the empty string and NULL.
func TestIntegersAndText(t *testing.T) {
	ints := []int64{0, 1, -1, 1 << 53, 1<<53 + 1, -(1<<53 + 1), math.MaxInt64, math.MinInt64, math.MaxInt32 + 1}
	texts := []string{"", "a", "ümlaut ☃ 𝄞", "nul\x00inside", strings.Repeat("long ", 2000), "'quote\"", "\xff\xfe not UTF-8"}
	for _, n := range []int{7, 8, 9, 15, 16, 17, 31, 32, 33} { // the bridge's short-text lengths and around them
		texts = append(texts, strings.Repeat("0123456789", 4)[:n])
	}
	out, _ := both(t, func(s *session) {
		s.open("a", "/v")
		s.exec("a", "CREATE TABLE v (i INTEGER, t TEXT)")
		for _, i := range ints {
			s.run("a", "INSERT INTO v (i, t) VALUES (?, ?)", i, nil)
		}
		for _, x := range texts {
			s.run("a", "INSERT INTO v (i, t) VALUES (?, ?)", nil, x)
		}
		s.query("a", "SELECT i, t, length(t), hex(t) FROM v ORDER BY rowid", 4)
		s.query("a", "SELECT ? + 0, ? - 1", 2, int64(math.MaxInt64), int64(math.MinInt64))
	})
	for _, i := range ints {
		if !strings.Contains(out, fmt.Sprintf("row %d|%q NULL", i, fmt.Sprint(i))) {
			t.Errorf("%d did not come back exact:\n%s", i, out)
		}
	}
	for _, x := range texts[1:] {
		if !strings.Contains(out, fmt.Sprintf("|%q", x)) {
			t.Errorf("text %q did not come back exact", x)
		}
	}
}

// TestSameErrors: the same failures give the same code and the same text,
// byte for byte, on both.
func TestSameErrors(t *testing.T) {
	out, _ := both(t, func(s *session) {
		s.open("a", "/e")
		s.exec("a", jobs)
		s.stmt("a", "SELEC 1")
		s.stmt("a", "SELECT * FROM nowhere")
		s.stmt("a", "SELECT nosuch FROM jobs")
		s.stmt("a", "-- only a comment")
		s.exec("a", "INSERT INTO jobs (id, order_id) VALUES (1, 'a'); INSERT INTO jobs (id, order_id) VALUES (1, 'b')")
		s.run("a", "INSERT INTO jobs (order_id) VALUES (?)", nil)
		s.run("a", "INSERT INTO jobs (id, order_id) VALUES (?, 'x')", "not a number")
		s.query("a", "SELECT ?", 1, 1, 2) // a parameter out of range
		s.stmt("a", "PRAGMA user_version")
		s.stmt("a", "SELECT date('now')")
		s.stmt("a", "SELECT current_timestamp")
		s.stmt("a", "SELECT json('{}')")
		s.stmt("a", "CREATE VIEW v AS SELECT 1")
		s.stmt("a", "ALTER TABLE jobs ADD COLUMN x")
		s.exec("a", "COMMIT")
		s.exec("a", "BEGIN; BEGIN")
		s.exec("a", "ROLLBACK")
		s.query("a", "SELECT abs(?)", 1, int64(math.MinInt64))
	})
	for _, want := range []string{
		`sqlite3: SQL logic error: near "SELEC": syntax error`,
		"code 1555 busy=false: sqlite3: constraint failed: UNIQUE constraint failed: jobs.id",
		"sqlite3: constraint failed: NOT NULL constraint failed: jobs.order_id",
		"code 20 busy=false: sqlite3: datatype mismatch",
		"code 25 busy=false: sqlite3: column index out of range",
		"PRAGMA is not available in this build of SQLite",
		"no such function: current_timestamp",
		"sqlite3: no SQL statement to prepare",
		"integer overflow",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, out)
		}
	}
}

// TestSameLocks walks SQLite's locks between connections of one shared
// database through both: a writer's BEGIN IMMEDIATE makes every other
// write (to any table) fail at once with SQLITE_BUSY while reads go on;
// a COMMIT while another connection is in the middle of a read fails
// with SQLITE_BUSY and leaves the writer PENDING, which refuses new
// readers too, until the read is reset and the COMMIT is tried again.
// The driver's VFS waits a millisecond for the reader before it says
// busy; the module says it at once (nothing can run meanwhile): the
// answers are the same.
func TestSameLocks(t *testing.T) {
	out, _ := both(t, func(s *session) {
		for _, c := range []string{"a", "b", "c"} {
			s.open(c, "/l")
		}
		s.exec("a", jobs+"; CREATE TABLE other (x); INSERT INTO jobs (order_id) VALUES ('o1'), ('o2')")
		s.exec("a", "BEGIN IMMEDIATE")
		s.run("a", "UPDATE jobs SET status = 'running' WHERE id = 1")
		s.run("b", "UPDATE jobs SET status = 'running' WHERE id = 2")
		s.run("b", "INSERT INTO other VALUES (1)")
		s.exec("b", "BEGIN IMMEDIATE")
		s.query("b", "SELECT id, status FROM jobs ORDER BY id", 2)
		s.step("c", "SELECT id FROM jobs ORDER BY id", 1) // c holds a read open
		s.exec("a", "COMMIT")
		s.query("b", "SELECT count(*) FROM jobs", 1) // refused: a is PENDING
		s.reset("c", "SELECT id FROM jobs ORDER BY id")
		s.exec("a", "COMMIT")
		s.query("b", "SELECT id, status FROM jobs ORDER BY id", 2)
		s.run("b", "UPDATE jobs SET status = 'done' WHERE id = 2")
		s.exec("a", "BEGIN")
		s.query("a", "SELECT count(*) FROM jobs", 1) // a deferred transaction reads
		s.run("b", "UPDATE jobs SET status = 'queued'")
		s.run("a", "UPDATE jobs SET status = 'x'") // a reader that wants to write, after b wrote
		s.exec("a", "ROLLBACK")
	})
	// b's two writes and its BEGIN IMMEDIATE, a's first COMMIT, b's read
	// while a is PENDING (its step and its reset), and b's write while a's
	// deferred transaction holds a read lock.
	if n := strings.Count(out, "busy=true: sqlite3: database is locked"); n != 7 {
		t.Errorf("%d SQLITE_BUSY answers, want 7:\n%s", n, out)
	}
	if !strings.Contains(out, "row 1|\"1\" 0|\"queued\"\n  row 2") || !strings.Contains(out, "row 1|\"1\" 0|\"running\"\n  row 2") {
		t.Errorf("b saw the uncommitted write, or not the committed one:\n%s", out)
	}
}

// TestSameSharing: a name beginning with "/" is one database for every
// connection, until Delete forgets the name (connections open on it keep
// theirs); any other name is a database of one connection's own.
func TestSameSharing(t *testing.T) {
	out, _ := both(t, func(s *session) {
		s.open("a", "/s")
		s.exec("a", "CREATE TABLE t (x); INSERT INTO t VALUES (1)")
		s.open("b", "/s")
		s.query("b", "SELECT x FROM t", 1)
		s.delete("/s")
		s.open("c", "/s")
		s.stmt("c", "SELECT x FROM t")
		s.query("a", "SELECT x FROM t", 1)
		s.open("p", "private")
		s.exec("p", "CREATE TABLE t (y); INSERT INTO t VALUES (2)")
		s.open("q", "private")
		s.stmt("q", "SELECT y FROM t")
	})
	if strings.Count(out, "no such table: t") != 2 {
		t.Errorf("a deleted name or a private database was shared:\n%s", out)
	}
}

// TestWhereTheyDiffer says what the two implementations do differently,
// none of which the runtime reaches: the driver defines SQL functions of
// its own in Go (base64, uuid and the like), which the module lacks; and
// the driver seeds SQLite's random number generator from the host's
// randomness, the module from zeros, so random() differs between them and
// is the same in every fresh instance of the module.
func TestWhereTheyDiffer(t *testing.T) {
	texts := map[string]string{}
	for name, e := range map[string]sqldb.Engine{"driver": sqldb.Driver, "module": module(t)} {
		s := newSession(t, e)
		s.open("a", "/d")
		s.query("a", "SELECT base64(CAST('twice' AS BLOB))", 1)
		s.close()
		texts[name] = s.out.String()
	}
	if !strings.Contains(texts["driver"], `row 0|"dHdpY2U="`) {
		t.Errorf("the driver no longer defines base64():\n%s", texts["driver"])
	}
	if !strings.Contains(texts["module"], "no such function: base64") {
		t.Errorf("the module defines base64():\n%s", texts["module"])
	}
	random := func(e sqldb.Engine) string {
		s := newSession(t, e)
		s.open("a", "/r")
		s.query("a", "SELECT random(), hex(randomblob(8))", 2)
		s.close()
		return s.out.String()
	}
	if a, b := random(module(t)), random(module(t)); a != b {
		t.Errorf("two fresh modules gave different random():\n%s%s", a, b)
	}
}
