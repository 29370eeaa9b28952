package script

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// FuzzRun runs (not only parses) any script, starting from every golden's
// script and the corpus in testdata/fuzz/FuzzRun, and checks what a reader
// relies on: no panic and no internal error; an error is one line with a
// line and a column, and names them in its text; the exit code is 0 when
// there is no error, 1 for a runtime error, 2 for any other; and two runs
// at the same seed give the same bytes, JSON and transcript. CI runs it
// for a short while (.ci/run); for longer:
//
//	go test ./runtime/script -run '^$' -fuzz '^FuzzRun$' -fuzztime 5m
func FuzzRun(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.txtar")
	for _, file := range files {
		if ar, err := txtar.ParseFile(file); err == nil {
			if src, ok := section(ar, "script"); ok && len(src) <= maxFuzzScript {
				f.Add(src, uint64(1))
			}
		}
	}
	f.Fuzz(func(t *testing.T, src string, seed uint64) {
		if len(src) > maxFuzzScript {
			return
		}
		if c, err := Estimate(src); err == nil && c.Heavy() {
			return // valid but slow: keep each run short (limits_test covers the budget)
		}
		a := Run(src, Options{Seed: seed})
		checkResult(t, src, a)
		b := Run(src, Options{Seed: seed})
		ja, _ := a.MarshalJSON()
		jb, _ := b.MarshalJSON()
		if !bytes.Equal(ja, jb) || a.Text() != b.Text() {
			t.Fatalf("same seed %d, different results for %q", seed, src)
		}
	})
}

const maxFuzzScript = 4000

// checkResult holds a Result to the promises of twice run's exit codes and
// errors.
func checkResult(t *testing.T, src string, r *Result) {
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
	if e.Line < 1 || e.Col < 1 || !strings.HasPrefix(msg, fmtPos(e.Line, e.Col)+": ") {
		t.Fatalf("error without a line and column: %q (for %q)", msg, src)
	}
	if len(msg) > 400 {
		t.Fatalf("error of %d bytes: %.100q...", len(msg), msg)
	}
	if strings.Contains(e.Msg, "internal error") {
		t.Fatalf("internal error: %q for %q", e.Msg, src)
	}
}
