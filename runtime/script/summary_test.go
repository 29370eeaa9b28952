package script

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/twice-lab/twice/runtime/sim"
)

// TestFmtGap pins the one rounding rule of a gap: whole milliseconds,
// one decimal below 10 ms, truncated, never rounded up.
func TestFmtGap(t *testing.T) {
	for _, c := range []struct {
		us   sim.Time
		want string
	}{
		{0, "0 ms"},
		{1, "0.0 ms"},
		{786, "0.7 ms"},
		{999, "0.9 ms"},
		{1000, "1.0 ms"},
		{9999, "9.9 ms"},
		{10_000, "10 ms"},
		{2_076_999, "2076 ms"},
	} {
		if got := fmtGap(c.us); got != c.want {
			t.Errorf("fmtGap(%d µs) = %q, want %q", c.us, got, c.want)
		}
	}
}

// TestGapAgrees: for one order's effects, the transcript's "over", the
// diagnosis's "apart" and the span the playground shows (the JSON's span)
// are one string, the gap between the first and last effect by fmtGap.
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
			want := fmtGap(last - first)
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
			case s.Kind != KindClientRetry && !strings.Contains(s.Diagnosis, " "+want+" apart"):
				t.Errorf("%q at seed %d: the diagnosis does not say %s apart: %s", src, seed, want, s.Diagnosis)
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
