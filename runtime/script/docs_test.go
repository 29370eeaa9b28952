package script

import (
	"os"
	"strings"
	"testing"

	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/receipts"
)

// The README's command table reads its claims, dedupe modes and key
// choices from the runtime's lists: a value added to a list and not to
// the docs fails here.
func TestReadmeNamesEveryChoice(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	want := []string{
		"race " + queue.ClaimNames(`\|`) + " [N]",
		"race " + queue.ClaimNames(`\|`) + " --all",
		"service --dedupe " + receipts.DedupeNames(`\|`),
	}
	for _, k := range receipts.Keys() {
		want = append(want, "`"+k.String()+"`")
	}
	for _, d := range receipts.Dedupes() {
		want = append(want, "`"+d.String()+"`")
	}
	for _, w := range want {
		if !strings.Contains(readme, w) {
			t.Errorf("README.md does not mention %s", w)
		}
	}
}
