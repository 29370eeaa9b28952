package script

import (
	"encoding/json"
	"slices"
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

// TestGapAgrees: for one order's effects, the transcript's "over" and the
// span the playground shows (the JSON's span) are one string, the gap
// between the first and last effect by fmtGap; the diagnosis's "apart" is
// the same gap rounded for a reader by roundGap.
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
			case s.Kind != KindClientRetry && !strings.Contains(s.Diagnosis, " "+roundGap(last-first)+" apart"):
				t.Errorf("%q at seed %d: the diagnosis does not say %s apart: %s", src, seed, roundGap(last-first), s.Diagnosis)
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

// TestRoundGap pins how a diagnosis rounds a gap: as fmtGap below a
// second, then a tenth of a second below 10 s, then whole seconds.
func TestRoundGap(t *testing.T) {
	for _, c := range []struct {
		us   sim.Time
		want string
	}{
		{786, "0.7 ms"},
		{494_321, "494 ms"},
		{999_999, "999 ms"},
		{1_000_000, "1 s"},
		{1_433_000, "1.4 s"},
		{2_076_000, "2.1 s"},
		{9_960_000, "10 s"},
		{120_077_000, "120 s"},
	} {
		if got := roundGap(c.us); got != c.want {
			t.Errorf("roundGap(%d µs) = %q, want %q", c.us, got, c.want)
		}
	}
}

// TestProse pins how the diagnosis writes a list: as a reader does, and
// past a handful the first few and how many more, never silently cut.
func TestProse(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"1"}, "1"},
		{[]string{"1", "2"}, "1 and 2"},
		{[]string{"1", "2", "3"}, "1, 2 and 3"},
		{[]string{"1", "2", "3", "4", "5"}, "1, 2, 3, 4 and 5"},
		{[]string{"1", "2", "3", "4", "5", "6"}, "1, 2, 3, 4 and 2 more"},
		{[]string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}, "1, 2, 3, 4 and 5 more"},
	} {
		in := slices.Clone(c.in)
		if got := prose(c.in); got != c.want {
			t.Errorf("prose(%q) = %q, want %q", c.in, got, c.want)
		}
		if !slices.Equal(in, c.in) {
			t.Errorf("prose changed its argument: %q", c.in)
		}
	}
}

// TestDiagnoseSwallowedBesideTwoEvents: two events landed on one key and
// a third event's request got one of their answers back. A timed script
// does not reach this ordering (the service stores a key before the next
// request checks it), so the evidence is built by hand: the diagnosis
// counts the two events as right and names the third as swallowed.
func TestDiagnoseSwallowedBesideTwoEvents(t *testing.T) {
	in := &interp{runs: map[string]*runRec{}, holder: map[int64]*runRec{}}
	reqs := []Effect{
		{Order: "order-77", Job: 1, Run: "r1", Attempt: 1, Send: 1, Event: "ev-1", Key: "order-77", AtUS: 1000},
		{Order: "order-77", Job: 2, Run: "r2", Attempt: 1, Send: 1, Event: "ev-2", Key: "order-77", AtUS: 1500},
		{Order: "order-77", Job: 3, Run: "r3", Attempt: 1, Send: 1, Event: "ev-3", Key: "order-77", AtUS: 9000, Replayed: true, FirstRun: "r1"},
	}
	answers := map[string]Effect{"r1": reqs[0], "r2": reqs[1]}
	var s Summary
	in.diagnose(&s, reqs, map[int64]int{1: 1, 2: 1, 3: 1}, answers)
	want := "3 runs 0.5 ms apart: two events for the order (ev-1 and ev-2, jobs 1 and 2), each delivered and done once: two effects may be right; if they are one event, the producer should have sent one event id; a request for another event, ev-3, carried the same key order-77 and got the first answer back: the key is too coarse, and a legitimate event was swallowed"
	if s.Kind != KindSwallowed || s.Diagnosis != want || s.Effects != 2 || s.Replayed != 1 {
		t.Errorf("got %s, %d effect(s), %d replayed: %s\nwant swallowed, 2 effects, 1 replayed: %s", s.Kind, s.Effects, s.Replayed, s.Diagnosis, want)
	}
}
