package parity

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/twice-lab/twice/internal/wasmsqlite"
	"github.com/twice-lab/twice/lessons"
	"github.com/twice-lab/twice/runtime/script/interp"
	"github.com/twice-lab/twice/runtime/sqldb"
)

// moduleEnv, when set in a test process's environment, names the file
// where TestBrowserSQLiteRuns writes its results, and makes every run of
// that process use the browser's SQLite module (under wazero) instead of
// the driver: the engine is chosen before any database is opened or
// pooled, which only a process of its own guarantees.
const moduleEnv = "TWICE_PARITY_MODULE_OUT"

// sqliteCase is one script at one seed: a golden of the interpreter, or a
// block of a built-in lesson at its own seed.
type sqliteCase struct {
	Name, Script string
	Seed         uint64
}

// sqliteCases lists every golden and every lesson block; with -short every
// seventh of them.
func sqliteCases(t testing.TB) []sqliteCase {
	t.Helper()
	var cases []sqliteCase
	files, err := filepath.Glob("../../runtime/script/interp/testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no goldens: %v", err)
	}
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c := sqliteCase{Name: "golden " + filepath.Base(f), Seed: interp.DefaultSeed}
		for _, line := range strings.Split(string(ar.Comment), "\n") {
			if v, ok := strings.CutPrefix(line, "seed: "); ok {
				c.Seed, _ = strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			}
		}
		for _, sec := range ar.Files {
			if sec.Name == "script" {
				c.Script = string(sec.Data)
			}
		}
		cases = append(cases, c)
	}
	ls, err := lessons.Load(lessons.FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		for _, b := range l.Blocks {
			o, err := b.Options()
			if err != nil {
				t.Fatalf("%s:%d: %v", l.File, b.Line, err)
			}
			cases = append(cases, sqliteCase{Name: fmt.Sprintf("%s:%d", l.File, b.Line), Script: b.Script, Seed: o.Seed})
		}
	}
	if testing.Short() {
		var some []sqliteCase
		for i := 0; i < len(cases); i += 7 {
			some = append(some, cases[i])
		}
		cases = some
	}
	return cases
}

// runCases runs each case and returns, per case, its Result as JSON and
// what it spent (the work meter's SQLite steps among them).
func runCases(cases []sqliteCase) []string {
	out := make([]string, len(cases))
	for i, c := range cases {
		res := interp.Run(c.Script, interp.Options{Seed: c.Seed})
		b, _ := res.MarshalJSON()
		out[i] = fmt.Sprintf("%s\nspent %+v", b, res.Spent)
	}
	return out
}

// TestBrowserSQLiteRuns runs every golden and every lesson block on the
// driver, in this process, and on the browser's SQLite module under
// wazero, in a process of its own, and requires the same Result, byte for
// byte, and the same steps and SQLite work spent. The browser parity test
// (server's TestBrowserParity) holds the browser to the CLI for the
// article's runs in Chromium; this one covers everything the lab runs,
// with the browser's own SQLite and bridge.
func TestBrowserSQLiteRuns(t *testing.T) {
	cases := sqliteCases(t)
	if out := os.Getenv(moduleEnv); out != "" {
		e, closeIt, err := wasmsqlite.New(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer closeIt()
		defer sqldb.Use(e)()
		if c, err := sqldb.Open("/parity-engine"); err != nil || c.Exec("SELECT base64(x'00')") == nil {
			t.Fatalf("the runs would not be on the module (open: %v): the driver's base64() is defined", err)
		} else {
			c.Close()
		}
		b, _ := json.Marshal(runCases(cases))
		if err := os.WriteFile(out, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	file := filepath.Join(t.TempDir(), "module.json")
	args := []string{"-test.run=^TestBrowserSQLiteRuns$"}
	if testing.Short() {
		args = append(args, "-test.short")
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), moduleEnv+"="+file)
	done := make(chan error, 1)
	var childOut []byte
	go func() {
		var err error
		childOut, err = cmd.CombinedOutput()
		done <- err
	}()
	want := runCases(cases)
	if err := <-done; err != nil {
		t.Fatalf("the module's process: %v\n%s", err, childOut)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := json.Unmarshal(b, &got); err != nil || len(got) != len(want) {
		t.Fatalf("the module's process wrote %d results (%v), want %d", len(got), err, len(want))
	}
	failed := 0
	for i, c := range cases {
		if got[i] != want[i] && failed < 5 {
			failed++
			t.Errorf("%s at seed %d: the browser's SQLite differs\n--- driver\n%s\n--- module\n%s", c.Name, c.Seed, around(want[i], got[i]), around(got[i], want[i]))
		}
	}
	t.Logf("%d runs the same on both", len(cases))
}

// around is a's text around its first difference from b.
func around(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return "..." + a[max(0, i-300):min(len(a), i+300)] + "..."
}
