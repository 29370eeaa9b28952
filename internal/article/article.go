// Package article gives tests the six command lines of the article twice
// re-creates, read from the runtime's golden transcripts
// (runtime/script/testdata/step*.txtar), so that every test that runs them
// (the goldens, the wazero parity test, the browser parity test) runs the
// same text and none can drift from the others. It gives them the four
// scenarios of a job that outlives its lease (Scenarios) the same way.
package article

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// Step is one article command line.
type Step struct {
	Name   string // the golden's name, like "step2-lease-expiry"
	Script string // the command line as the golden holds it, newline included
}

// Steps returns the six steps in order, or fails tb.
func Steps(tb testing.TB) []Step {
	tb.Helper()
	_, here, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("article: cannot find the source directory")
	}
	dir := filepath.Join(filepath.Dir(here), "..", "..", "runtime", "script", "testdata")
	paths, err := filepath.Glob(filepath.Join(dir, "step*.txtar"))
	if err != nil || len(paths) != 6 {
		tb.Fatalf("want the six article steps in %s, got %d (%v)", dir, len(paths), err)
	}
	var steps []Step
	for _, p := range paths {
		a, err := txtar.ParseFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		for _, f := range a.Files {
			if f.Name == "script" {
				steps = append(steps, Step{strings.TrimSuffix(filepath.Base(p), ".txtar"), string(f.Data)})
			}
		}
	}
	if len(steps) != 6 {
		tb.Fatalf("found %d article scripts, want 6", len(steps))
	}
	return steps
}
