package lessons

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

// exampleCase is the teachers' example case that ships in docs.
const exampleCase = "../docs/example-case/receipt-sent-twice.md"

func loadExample(t *testing.T) Case {
	t.Helper()
	src, err := os.ReadFile(exampleCase)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := LoadCases(fstest.MapFS{"receipt-sent-twice.md": {Data: src}})
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
// and pass with the claim-first one.
func TestExampleCase(t *testing.T) {
	c := loadExample(t)
	if c.Title != "The receipt one run sent twice" || c.Slug != "receipt-sent-twice" || c.Level != "easy" {
		t.Errorf("title %q slug %q level %q", c.Title, c.Slug, c.Level)
	}
	if len(c.Architecture) != 3 || strings.Join(c.Parts, ",") != "Queue,Worker,Receipts service,Key table" {
		t.Errorf("architecture %+v parts %q", c.Architecture, c.Parts)
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
		{"", []string{"fail slow-answer: 2 effects landed (want 1)", "pass quick-answer: 1 effect landed"}},
		{"service --dedupe check", []string{"fail slow-answer: 2 effects landed (want 1)", "pass quick-answer: 1 effect landed"}},
		{"service --dedupe claim\n", []string{"pass slow-answer: 1 effect landed", "pass quick-answer: 1 effect landed"}},
		{"frob", []string{"fail slow-answer: the fix stops with an error: line 1: unknown command \"frob\"...", ""}},
	} {
		rs := c.RunChecks(tt.fix)
		for i, r := range rs {
			got := r.String()
			if strings.HasSuffix(tt.want[i], "...") {
				got, _, _ = strings.Cut(got, " (want")
				got += "..."
			}
			if tt.want[i] != "" && got != tt.want[i] {
				t.Errorf("fix %q: check %d says %q, want %q", tt.fix, i, r, tt.want[i])
			}
		}
	}
}
