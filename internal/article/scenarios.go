package article

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// ScenarioNames are the goldens of the four scenarios of a job that
// outlives its lease, in the order the lessons teach them: processing
// that outlives the lease, heartbeats that keep it, a stall after the
// last heartbeat that beats them, and fencing tokens that refuse the
// stalled worker's late receipt and ack.
var ScenarioNames = []string{
	"bg-processing-outlives-lease",
	"bg-heartbeat-keeps-lease",
	"bg-stall-beats-heartbeat",
	"bg-fence-refuses-stale",
}

// Scenarios returns the four scenarios' scripts, read from their goldens,
// so that the goldens, the lessons and the parity tests run one text.
func Scenarios(tb testing.TB) []Step {
	tb.Helper()
	var steps []Step
	for _, name := range ScenarioNames {
		steps = append(steps, Step{name, Golden(tb, name)})
	}
	return steps
}

// Golden returns the script section of the golden
// runtime/script/interp/testdata/NAME.txtar, or fails tb.
func Golden(tb testing.TB, name string) string {
	tb.Helper()
	a, err := txtar.ParseFile(filepath.Join(testdata(tb), name+".txtar"))
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range a.Files {
		if f.Name == "script" {
			return string(f.Data)
		}
	}
	tb.Fatalf("golden %s has no script section", name)
	return ""
}

// testdata is the directory of the runtime's goldens.
func testdata(tb testing.TB) string {
	tb.Helper()
	_, here, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("article: cannot find the source directory")
	}
	return filepath.Join(filepath.Dir(here), "..", "..", "runtime", "script", "interp", "testdata")
}
