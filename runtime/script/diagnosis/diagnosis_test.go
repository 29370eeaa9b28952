package diagnosis

import (
	"slices"
	"strings"
	"testing"

	"github.com/twice-lab/twice/runtime/receipts"
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
		{1, "1 µs"},
		{99, "99 µs"},
		{100, "0.1 ms"},
		{786, "0.7 ms"},
		{999, "0.9 ms"},
		{1000, "1.0 ms"},
		{9999, "9.9 ms"},
		{10_000, "10 ms"},
		{2_076_999, "2076 ms"},
	} {
		if got := FormatGap(c.us); got != c.want {
			t.Errorf("FormatGap(%d µs) = %q, want %q", c.us, got, c.want)
		}
	}
}

// TestRoundGap pins how a diagnosis rounds a gap: as FormatGap below a
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
		if got := RoundGap(c.us); got != c.want {
			t.Errorf("RoundGap(%d µs) = %q, want %q", c.us, got, c.want)
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
	reqs := []receipts.Effect{
		{Order: "order-77", Job: 1, Run: "r1", Attempt: 1, Send: 1, Event: "ev-1", Key: "order-77", At: 1000},
		{Order: "order-77", Job: 2, Run: "r2", Attempt: 1, Send: 1, Event: "ev-2", Key: "order-77", At: 1500},
		{Order: "order-77", Job: 3, Run: "r3", Attempt: 1, Send: 1, Event: "ev-3", Key: "order-77", At: 9000, Replayed: true, FirstRun: "r1"},
	}
	sums := Summarize(Evidence{Effects: reqs, Attempts: map[int64]int{1: 1, 2: 1, 3: 1}, History: NewHistory()})
	if len(sums) != 1 {
		t.Fatalf("%d summaries, want 1", len(sums))
	}
	s := sums[0]
	want := "3 runs 8.0 ms apart: two events for the order (ev-1 and ev-2, jobs 1 and 2), each delivered and done once: two effects may be right; if they are one event, the producer should have sent one event id; a request for another event, ev-3, carried the same key order-77 and got the first answer back: the key is too coarse, and a legitimate event was swallowed"
	if s.Kind != Swallowed || s.Diagnosis != want || s.Effects != 2 || s.Replayed != 1 {
		t.Errorf("got %s, %d effect(s), %d replayed: %s\nwant swallowed, 2 effects, 1 replayed: %s", s.Kind, s.Effects, s.Replayed, s.Diagnosis, want)
	}
}

// TestKeyMissedSaysEachReasonOnce: three requests of one event that all
// passed a check-then-act dedupe are one reason, said once, and three
// requests with three keys are one event whose keys differ, named once.
func TestKeyMissedSaysEachReasonOnce(t *testing.T) {
	same := []receipts.Effect{
		{Order: "o", Event: "e", Job: 1, Run: "r1", Key: "e", KeyState: "new", Dedupe: receipts.DedupeCheck},
		{Order: "o", Event: "e", Job: 1, Run: "r2", Key: "e", KeyState: "new", Dedupe: receipts.DedupeCheck},
		{Order: "o", Event: "e", Job: 1, Run: "r3", Key: "e", KeyState: "new", Dedupe: receipts.DedupeCheck},
	}
	d := &orderEvidence{order: "o", evs: byEvent(same)}
	got := d.keyMissed(same)
	if want := "three requests checked key e before any of them stored it: check-then-act let them all through"; got != want {
		t.Errorf("keyMissed = %q\nwant %q", got, want)
	}
	differ := []receipts.Effect{
		{Order: "o", Event: "e", Job: 1, Run: "r1", Key: "run-r1", Dedupe: receipts.DedupeCheck},
		{Order: "o", Event: "e", Job: 1, Run: "r2", Key: "run-r2", Dedupe: receipts.DedupeCheck},
		{Order: "o", Event: "e", Job: 1, Run: "r3", Key: "run-r3", Dedupe: receipts.DedupeCheck},
	}
	d = &orderEvidence{order: "o", evs: byEvent(differ)}
	if got := d.keyMissed(differ); strings.Count(got, "carried different keys") != 1 || strings.Count(got, "run-r3") != 1 {
		t.Errorf("keyMissed = %q; want the differing keys named once", got)
	}
}

// A claim race's heading holds for any number of workers: a race of
// three is headed as one of two would be, and must not say "two".
func TestClaimRaceTitleFitsAnyCount(t *testing.T) {
	if title := ClaimRace.Title(); strings.Contains(title, "two") {
		t.Errorf("the claim race's title %q says two workers; a race of three is one too", title)
	}
}
