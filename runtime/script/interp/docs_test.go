package interp

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/twice-lab/twice/runtime/bytesize"
	"github.com/twice-lab/twice/runtime/receipts"
)

// The the manual's prose names every dedupe mode and key choice of the
// runtime's lists (its command table's synopses are written from the
// lists: cmd/twice's TestREADMECommandTable): a value added to a list
// and not to the docs fails here.
func TestReadmeNamesEveryChoice(t *testing.T) {
	b, err := os.ReadFile("../../../docs/MANUAL.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	var want []string
	for _, k := range receipts.Keys() {
		want = append(want, "`"+k.String()+"`")
	}
	for _, d := range receipts.Dedupes() {
		want = append(want, "`"+d.String()+"`")
	}
	for _, w := range want {
		if !strings.Contains(readme, w) {
			t.Errorf("docs/MANUAL.md does not mention %s", w)
		}
	}
}

// The the manual's table of what is counted while a script runs gives the
// budgets the meter uses, full and auto.
func TestReadmeGivesTheBudgets(t *testing.T) {
	b, err := os.ReadFile("../../../docs/MANUAL.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	commas := func(n int64) string {
		s := fmt.Sprint(n)
		for i := len(s) - 3; i > 0; i -= 3 {
			s = s[:i] + "," + s[i:]
		}
		return s
	}
	full, auto := FullBudget, AutoBudget
	for _, row := range []string{
		"| " + commas(int64(full.Steps)) + " | " + commas(int64(auto.Steps)) + " |",
		fmt.Sprintf("| %d million | %d million |", full.Work/1_000_000, auto.Work/1_000_000),
		"| " + commas(int64(full.Polls)) + " | " + commas(int64(auto.Polls)) + " |",
		"| " + bytesize.Words(full.Output) + " | " + bytesize.Words(auto.Output) + " |",
		"output passed " + bytesize.Words(full.Output) + "; stopped",
	} {
		if !strings.Contains(readme, row) {
			t.Errorf("docs/MANUAL.md does not give the budget %q", row)
		}
	}
}
