package interp

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/twice-lab/twice/runtime/event"
	"github.com/twice-lab/twice/runtime/receipts"
	"github.com/twice-lab/twice/runtime/script/diagnosis"
	"github.com/twice-lab/twice/runtime/script/result"
)

// traceCorpus runs every golden script, the scripts of the timeline
// goldens and a few more, with their timelines: together they record every
// kind of event.
func traceCorpus(t *testing.T) []*result.Result {
	t.Helper()
	var out []*result.Result
	for _, g := range goldenRuns(t) {
		out = append(out, g.res)
	}
	for _, src := range []string{
		"reset && add order-77 && work --job 1 --worker W1 --lease 1 --crash-before-ack; sleep 2; work --job 1 --worker W2 && effects",
		"add order-77\nwork --job 1 --lease 1 --processing 3000 --heartbeat 300 --stall 2500 --fence &\nsleep 4.5\nwork --job 1 --worker W2 --fence",
		"service --dedupe check\nadd order-77\nwork --job 1 --key event",
	} {
		out = append(out, Run(src, Options{Seed: DefaultSeed, Timeline: true}))
	}
	return out
}

// markDrawn reports whether svg draws, at x, what the list says an event
// of kind k draws. A mark or a bar the list can hold but this test cannot
// check fails the test, so a new one comes with its check.
func markDrawn(t *testing.T, svg string, k event.Kind, x int) bool {
	has := func(format string, args ...any) bool { return strings.Contains(svg, fmt.Sprintf(format, args...)) }
	drawn := true
	switch k.Mark() {
	case event.NoMark:
	case event.Tick, event.ShortTick:
		drawn = has(`<line class="tick" x1="%d" `, x)
	case event.Origin:
		drawn = has(`<path class="send" d="M%d `, x)
	case event.Dot:
		drawn = has(`<circle class="eff" cx="%d" `, x) || has(`<circle class="dup" cx="%d" `, x)
	case event.Ring:
		drawn = has(`<circle class="ref" cx="%d" `, x) && has(`text-anchor="middle">%s</text>`, k)
	case event.Cross:
		drawn = has(`<path class="kill" d="M%d `, x-5)
	case event.Label:
		drawn = regexp.MustCompile(fmt.Sprintf(`<text class="m" x="%d" y="\d+" font-size="\d+" text-anchor="middle">%s</text>`, x, k)).MatchString(svg)
	default:
		t.Fatalf("%s: no check for mark %d", k, k.Mark())
	}
	if !drawn {
		return false
	}
	leaseEnds := func() bool {
		for _, m := range regexp.MustCompile(`<rect class="lease" x="(\d+)" y="\d+" width="(\d+)"`).FindAllStringSubmatch(svg, -1) {
			a, _ := strconv.Atoi(m[1])
			w, _ := strconv.Atoi(m[2])
			if a+w == x {
				return true
			}
		}
		return false
	}
	switch k.Bar() {
	case event.NoBar:
	case event.LeaseFrom:
		drawn = has(`<rect class="lease" x="%d" `, x)
	case event.LeaseRenew:
		drawn = has(`<rect class="lease" `)
	case event.LeaseAck, event.LeaseKill:
		drawn = leaseEnds()
	case event.WorkFrom:
		drawn = has(`<rect class="work" x="%d" `, x)
	case event.StallFrom:
		drawn = has(`<rect class="stall" x="%d" `, x)
	default:
		t.Fatalf("%s: no check for bar %d", k, k.Bar())
	}
	return drawn
}

// TestEveryEventKindIsRecordedAndDrawn holds the trace to package event's
// list: every event recorded is a listed kind, recorded by the process its
// lane names; every listed kind is recorded by some script of the corpus
// (a kind nothing records is a dead entry); and for every kind the list says the
// timeline draws, some event of it is drawn, at its own x.
func TestEveryEventKindIsRecordedAndDrawn(t *testing.T) {
	t.Parallel()
	recorded := map[event.Kind]int{}
	drawn := map[event.Kind]bool{}
	for _, res := range traceCorpus(t) {
		var svg string
		if res.Timeline != nil {
			svg = res.Timeline.SVG
		}
		for i, e := range res.Trace {
			k := e.Kind
			if !k.Valid() {
				t.Fatalf("event %d (%q) has kind %d, which is not in event.Kinds", i, e.Step, k)
			}
			recorded[k]++
			var lane event.Lane
			switch e.Proc {
			case "shell":
				lane = event.LaneShell
			case receipts.Proc:
				lane = event.LaneReceipts
			default:
				lane = event.LaneWorker
			}
			if lane != k.Lane() {
				t.Errorf("%s (%q) recorded by %s, but the list puts it in lane %d, not %d", k, e.Step, e.Proc, k.Lane(), lane)
			}
			switch {
			case k.Mark() == event.NoMark && k.Bar() == event.NoBar:
				drawn[k] = true // the step-through's cursor is all it gets
			case svg != "" && !drawn[k] && markDrawn(t, svg, k, res.Timeline.EventX[i]):
				drawn[k] = true
			}
		}
	}
	for _, k := range event.Kinds() {
		switch {
		case recorded[k] == 0:
			t.Errorf("%s is listed but no script of traceCorpus records it: add one, or drop the kind", k)
		case !drawn[k]:
			t.Errorf("%s: the list says the timeline draws mark %d and bar %d for it, but no timeline does at its x", k, k.Mark(), k.Bar())
		}
	}
}

// TestEveryDiagnosisKindIsListed: every diagnosis.Kind constant has its
// entry, with a name, a title and its good flag, and the page's config
// carries the list. A constant added without an entry fails here.
func TestEveryDiagnosisKindIsListed(t *testing.T) {
	name := regexp.MustCompile(`^[a-z]+(-[a-z]+)*$`)
	seen := map[string]bool{}
	for _, k := range diagnosis.Kinds() {
		if !name.MatchString(k.String()) || seen[k.String()] {
			t.Errorf("diagnosis kind %d: name %q is empty, misspelt or taken", k, k)
		}
		seen[k.String()] = true
		if k.Title() == "" {
			t.Errorf("%s: no title", k)
		}
		if back, ok := diagnosis.ParseKind(k.String()); !ok || back != k {
			t.Errorf("diagnosis.ParseKind(%q) = %v, %v", k, back, ok)
		}
		var u diagnosis.Kind
		if b, _ := k.MarshalText(); u.UnmarshalText(b) != nil || u != k {
			t.Errorf("%s does not read back from its text", k)
		}
	}
	beyond := diagnosis.Kind(len(diagnosis.Kinds()))
	if beyond.Valid() || beyond.Good() || beyond.Title() != "" {
		t.Error("a diagnosis kind beyond the list is valid")
	}
	kinds := result.Choices().Kinds
	if len(kinds) != len(diagnosis.Kinds()) {
		t.Fatalf("Choices has %d diagnosis kinds, the list %d", len(kinds), len(diagnosis.Kinds()))
	}
	for i, k := range diagnosis.Kinds() {
		if c := kinds[i]; c.Name != k.String() || c.Title != k.Title() || c.Good != k.Good() {
			t.Errorf("Choices().Kinds[%d] = %+v, want %s", i, c, k)
		}
	}
}

// TestEveryDiagnosisKindIsReached: every listed diagnosis kind is what
// some script of the corpus is diagnosed with, and its good flag agrees
// with the effects: a good order had one effect, a bad one two or more
// (or, swallowed, one effect for two events).
func TestEveryDiagnosisKindIsReached(t *testing.T) {
	t.Parallel()
	reached := map[diagnosis.Kind]bool{}
	for _, res := range append(traceCorpus(t), diagnosisCorpus()...) {
		for _, s := range res.Summary {
			if !s.Kind.Valid() {
				t.Fatalf("%s: diagnosis kind %d is not in diagnosis.Kinds", s.Order, s.Kind)
			}
			reached[s.Kind] = true
			switch {
			case s.Kind.Good() && s.Effects != 1:
				t.Errorf("%s: %s is good, with %d effects", s.Order, s.Kind, s.Effects)
			case !s.Kind.Good() && s.Kind != diagnosis.Swallowed && s.Effects < 2:
				t.Errorf("%s: %s is bad, with %d effect(s)", s.Order, s.Kind, s.Effects)
			}
		}
	}
	for _, k := range diagnosis.Kinds() {
		switch {
		case !reached[k] && !unreached[k]:
			t.Errorf("%s is listed but no script diagnoses it: add one, or drop the kind", k)
		case reached[k] && unreached[k]:
			t.Errorf("%s is reached now: take it out of unreached, and keep the script in diagnosisCorpus", k)
		}
	}
}

// diagnosisCorpus runs scripts whose diagnoses the goldens lack.
func diagnosisCorpus() []*result.Result {
	var out []*result.Result
	for _, src := range []string{
		// A lease expiry, then a client retry: mixed.
		"add o && work --job 1 --lease 1 --crash-before-ack; sleep 2; work --job 1 --worker W2 --delay 400 --timeout 300",
	} {
		out = append(out, Run(src, Options{Seed: DefaultSeed}))
	}
	return out
}

// unreached are the diagnosis kinds no script can reach today, kept so
// that a diagnosis never names evidence it does not have: a claim after
// an ack needs a read claim whose SELECT and UPDATE straddle a whole other
// run, and every claim of a run whose effect is kept is recorded (reset
// forgets the runs and the effects together).
var unreached = map[diagnosis.Kind]bool{diagnosis.Redone: true, diagnosis.Unknown: true}
