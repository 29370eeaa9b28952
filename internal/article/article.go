// Package article gives tests the six command lines of the article twice
// re-creates, read from the runtime's golden transcripts
// (runtime/script/interp/testdata/step*.txtar), so that every test that runs them
// (the goldens, the wazero parity test, the browser parity test) runs the
// same text and none can drift from the others. It gives them the four
// scenarios of a job that outlives its lease (Scenarios) the same way.
package article

import (
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
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
	dir := filepath.Join(filepath.Dir(here), "..", "..", "runtime", "script", "interp", "testdata")
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

// Shapes are the shapes of the lines the article's six steps printed, with
// run ids, counts and times left free: a worker's line, a worker.log line
// with or without its run, a row of the jobs table (no event id: in the
// article every job is its own event), a race's tally, and the effects
// line, whose tags are run, attempt and send only (one job per order).
// The runtime's own diagnosis line comes on top of them.
var Shapes = []*regexp.Regexp{
	regexp.MustCompile(`^W\d run [0-9a-f]{8}: (receipt sent for order-77|killed before the (ack|receipt)|POST TimeoutError, retrying|job 1 already claimed)$`),
	regexp.MustCompile(`^(\[run [0-9a-f]{8} attempt \d+\] )?sending receipt for order-77$`),
	regexp.MustCompile(`^job 1 order-77 status=(queued|running|done) attempts=\d+ run=([0-9a-f]{8}|-)$`),
	regexp.MustCompile(`^claim=(read|lock): two effects in \d+ of \d+ races$`),
	regexp.MustCompile(`^order-77: \d+ effect\(s\) from \d+ run\(s\) over [0-9.]+ ms \[[0-9a-f]{8} a\d+ s\d+(, [0-9a-f]{8} a\d+ s\d+)*\]$`),
}

// DiagnosisPrefix starts the line the runtime adds after an effects line
// that is not one clean effect; the article printed none.
const DiagnosisPrefix = "  diagnosis: "
