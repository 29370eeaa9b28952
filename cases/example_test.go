package cases_test

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/twice-lab/twice/cases"
	"github.com/twice-lab/twice/lessons"
)

// exampleCase is the teachers' example case that ships in docs.
const exampleCase = "../docs/example-case/receipt-sent-twice.md"

func loadExample(t *testing.T) cases.Case {
	t.Helper()
	src, err := os.ReadFile(exampleCase)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := lessons.LoadCases(fstest.MapFS{"receipt-sent-twice.md": {Data: src}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 {
		t.Fatalf("got %d cases, want 1", len(cs))
	}
	return cs[0]
}

// TestExampleCase reads the teachers' example: every section in place,
// and its checks fail without a fix, fail with a check-then-act dedupe
// and with a ledger row instead of a receipt, and pass with the
// claim-first dedupe.
func TestExampleCase(t *testing.T) {
	c := loadExample(t)
	if c.Title != "The receipt one run sent twice" || c.Slug != "receipt-sent-twice" || c.Level != "easy" {
		t.Errorf("title %q slug %q level %q", c.Title, c.Slug, c.Level)
	}
	if len(c.Architecture) != 3 || strings.Join(c.Parts, ",") != "Queue,Worker,Receipts service,Key table" {
		t.Errorf("architecture %+v parts %q", c.Architecture, c.Parts)
	}
	if !strings.Contains(c.Question.Text, "one run send twice") || !strings.Contains(c.Investigation.Text, "1. Run each") {
		t.Errorf("question %q investigation %q", c.Question.Text, c.Investigation.Text)
	}
	if len(c.Hypotheses) != 2 || len(c.Checks) != 2 || len(c.Hints) != 2 || len(c.Hints[1].Hints) != 3 {
		t.Errorf("hypotheses %d checks %d hints %+v", len(c.Hypotheses), len(c.Checks), c.Hints)
	}
	if strings.Contains(c.EvidenceProse.Text, "--trace") || strings.Contains(c.ChecksProse.Text, "name=") {
		t.Errorf("the evidence or checks prose keeps its blocks:\n%s\n%s", c.EvidenceProse.Text, c.ChecksProse.Text)
	}
	for _, tt := range []struct {
		fix  string
		want []string
	}{
		{"", []string{"fail slow-answer: 2 sent through the service (want 1)", "pass quick-answer: 1 sent through the service"}},
		{"service --dedupe check", []string{"fail slow-answer: 2 sent through the service (want 1)", "pass quick-answer: 1 sent through the service"}},
		{"service --dedupe claim\n", []string{"pass slow-answer: 1 sent through the service", "pass quick-answer: 1 sent through the service"}},
		{"use --effect ledger\n", []string{"fail slow-answer: 0 sent through the service (and 1 ledger row in the queue's database, which is not sent) (want 1)", "fail quick-answer: 0 sent through the service (and 1 ledger row in the queue's database, which is not sent) (want 1)"}},
	} {
		fix, err := cases.ParseFix(tt.fix)
		if err != nil {
			t.Fatalf("fix %q: %v", tt.fix, err)
		}
		for i, r := range c.RunChecks(fix, cases.Options{}) {
			if got := r.String(); got != tt.want[i] {
				t.Errorf("fix %q: check %d says %q, want %q", tt.fix, i, got, tt.want[i])
			}
		}
	}
}
