package script

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/twice-lab/twice/runtime/event"
	"github.com/twice-lab/twice/runtime/receipts"
	"golang.org/x/tools/txtar"
)

// traceCorpus runs every golden script, the scripts of the timeline
// goldens and a few more, with their timelines: together they record every
// kind of event.
func traceCorpus(t *testing.T) []*Result {
	t.Helper()
	files, _ := filepath.Glob("testdata/*.txtar")
	if len(files) == 0 {
		t.Fatal("no golden files")
	}
	var out []*Result
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		src, _ := section(ar, "script")
		out = append(out, Run(src, Options{Seed: DefaultSeed, Timeline: true}))
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
		drawn = regexp.MustCompile(fmt.Sprintf(`<text class="m" x="%d" y="\d+" font-size="10" text-anchor="middle">%s</text>`, x, k)).MatchString(svg)
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
