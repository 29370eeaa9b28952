package interp

import (
	"bytes"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/twice-lab/twice/runtime/script/lang"
	"github.com/twice-lab/twice/runtime/script/result"
)

// FuzzRun runs (not only parses) any script, starting from every golden's
// script and the corpus in testdata/fuzz/FuzzRun, and checks what a reader
// relies on: no panic and no internal error; an error is one line with a
// line and a column, and names them in its text; the exit code is 0 when
// there is no error, 1 for a runtime error, 2 for any other; and two runs
// at the same seed give the same bytes, JSON and transcript. CI runs it
// for a short while (.ci/run); for longer:
//
//	go test ./runtime/script/interp -run '^$' -fuzz '^FuzzRun$' -fuzztime 5m
func FuzzRun(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.txtar")
	for _, file := range files {
		if ar, err := txtar.ParseFile(file); err == nil {
			if src, ok := section(ar, "script"); ok && len(src) <= maxFuzzScript {
				f.Add(src, goldenSeed(ar))
			}
		}
	}
	f.Fuzz(func(t *testing.T, src string, seed uint64) {
		if len(src) > maxFuzzScript {
			return
		}
		// A script the estimate calls heavy runs as a page runs a link it
		// was not asked to: under the auto budget, which keeps each run
		// short. Either way, the cost oracle holds it to its budget.
		var budget Budget
		if c, err := lang.Estimate(src); err == nil && c.Heavy() {
			budget = AutoBudget
		}
		a := Run(src, Options{Seed: seed, Budget: budget})
		checkResult(t, src, a)
		checkSpent(t, src, a, budget)
		b := againOf(t, src, seed, budget)
		if b == nil {
			return
		}
		ja, _ := a.MarshalJSON()
		jb, _ := b.MarshalJSON()
		if !bytes.Equal(ja, jb) || a.Text() != b.Text() {
			t.Fatalf("same seed %d, different results for %q", seed, src)
		}
	})
}

const maxFuzzScript = 4000

// fuzzing says whether this is a fuzzing run (go test -fuzz: the
// coordinator and its workers). A worker gives each input 10 s, and
// running every golden (goldenRuns) inside its first input took longer
// than that with the fuzzer's coverage counters in SQLite's code on a
// slower 2-core machine; there, againOf runs the script again instead.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// againOf runs src a second time, to hold a run to the same bytes: for a
// golden's own script at its own seed it is the golden's run (made once
// for every test that reads the goldens, on another goroutine and other
// connections), its pictures left out, for any other a new run. Under
// -short it is nil for any other: the corpus's scripts that run to a
// budget are the slow ones, and the full run runs each of them twice.
func againOf(t *testing.T, src string, seed uint64, budget Budget) *result.Result {
	if budget == (Budget{}) && !fuzzing() {
		for _, g := range goldenRuns(t) {
			if g.src == src && g.res.Seed == seed {
				again := *g.res
				again.Timeline, again.Chart = nil, nil
				return &again
			}
		}
	}
	if testing.Short() && !fuzzing() {
		return nil
	}
	return Run(src, Options{Seed: seed, Budget: budget})
}

// How far past its budget a run may go before it stops: the meter looks
// between steps and between commands, so one statement's SQLite work and
// one printed line (or recorded event) may pass the limit before it stops.
const (
	slackWork   = 1_000_000
	slackOutput = 64 << 10
)

// checkSpent is the cost oracle: a run spends no more than its budget
// allows, and one that passed it stopped at once, said so in an error, and
// was marked cut (and heavy, under the auto budget).
func checkSpent(t *testing.T, src string, r *result.Result, budget Budget) {
	t.Helper()
	b, s := budget.orFull(), r.Spent
	if s.Steps > b.Steps+1 || s.Polls > b.Polls+1 || s.Work > b.Work+slackWork || s.Output > b.Output+slackOutput {
		t.Fatalf("spent %+v, past the budget %+v, for %q", s, b, src)
	}
	if r.Cut == nil {
		if s.Steps > b.Steps || s.Polls > b.Polls || s.Work > b.Work || s.Output > b.Output {
			t.Fatalf("spent %+v, past the budget %+v, and not cut, for %q", s, b, src)
		}
		return
	}
	if r.ExitCode != 1 || r.Error == nil || !strings.HasSuffix(r.Error.Msg, "; stopped") || r.Heavy != budget.Auto {
		t.Fatalf("a cut run: exit %d, error %v, heavy %v, for %q", r.ExitCode, r.Error, r.Heavy, src)
	}
}

// checkResult holds a Result to the promises of twice run's exit codes and
// errors.
func checkResult(t *testing.T, src string, r *result.Result) {
	t.Helper()
	e := r.Error
	switch {
	case e == nil && r.ExitCode != 0:
		t.Fatalf("exit %d without an error for %q", r.ExitCode, src)
	case e == nil:
		return
	case e.Kind == "runtime" && r.ExitCode != 1, e.Kind != "runtime" && r.ExitCode != 2:
		t.Fatalf("%s error with exit %d: %v", e.Kind, r.ExitCode, e)
	}
	msg := e.Error()
	if strings.ContainsAny(msg, "\n\r") {
		t.Fatalf("multi-line error %q", msg)
	}
	if e.Line < 1 || e.Col < 1 || !strings.HasPrefix(msg, fmt.Sprintf("line %d, col %d", e.Line, e.Col)+": ") {
		t.Fatalf("error without a line and column: %q (for %q)", msg, src)
	}
	if len(msg) > 400 {
		t.Fatalf("error of %d bytes: %.100q...", len(msg), msg)
	}
	if strings.Contains(e.Msg, "internal error") {
		t.Fatalf("internal error: %q for %q", e.Msg, src)
	}
}
