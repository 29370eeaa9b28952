package interp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/twice-lab/twice/runtime/script/diagnosis"
	"github.com/twice-lab/twice/runtime/sim"
)

// TestGapAgrees: for one order's effects, the transcript's "over" and the
// span the playground shows (the JSON's span) are one string, the gap
// between the first and last effect by diagnosis.FormatGap; the diagnosis's "apart" is
// the same gap rounded for a reader by diagnosis.RoundGap.
func TestGapAgrees(t *testing.T) {
	scripts := []string{
		"race read 1\neffects\n",
		"reset && add order-77 && work --job 1 --worker W1 --lease 1 --crash-before-ack; sleep 2; work --job 1 --worker W2 && effects\n",
		"add order-77 && work --job 1 --trace --delay 400 --timeout 300 && effects\n",
		"add o && add o && work --job 1 && work --job 2 && effects\n",
	}
	checked := 0
	for _, src := range scripts {
		for seed := uint64(1); seed <= 20; seed++ {
			r := Run(src, Options{Seed: seed})
			if r.Error != nil || len(r.Summary) != 1 {
				t.Fatalf("%q at seed %d: %v, %d summaries", src, seed, r.Error, len(r.Summary))
			}
			s := r.Summary[0]
			if s.Effects < 2 {
				continue
			}
			var first, last sim.Time
			for i, e := range r.Effects {
				if i == 0 || e.AtUS < first {
					first = e.AtUS
				}
				last = max(last, e.AtUS)
			}
			want := diagnosis.FormatGap(last - first)
			var fromJSON struct {
				Summary []struct{ Span string } `json:"summary"`
			}
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &fromJSON); err != nil {
				t.Fatal(err)
			}
			text := r.Text()
			switch {
			case !strings.Contains(text, " over "+want+" ["):
				t.Errorf("%q at seed %d: the transcript does not say over %s:\n%s", src, seed, want, text)
			case s.Kind != diagnosis.ClientRetry && !strings.Contains(s.Diagnosis, " "+diagnosis.RoundGap(last-first)+" apart"):
				t.Errorf("%q at seed %d: the diagnosis does not say %s apart: %s", src, seed, diagnosis.RoundGap(last-first), s.Diagnosis)
			case fromJSON.Summary[0].Span != want:
				t.Errorf("%q at seed %d: the playground is given span %q, want %q", src, seed, fromJSON.Summary[0].Span, want)
			}
			checked++
		}
	}
	if checked < 40 {
		t.Errorf("only %d runs had two effects to compare", checked)
	}
}
