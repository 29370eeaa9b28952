package interp

import (
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/twice-lab/twice/runtime/script/draw"
)

func TestTimelineGolden(t *testing.T) {
	tests := []struct{ file, src string }{
		{"testdata/timeline-lease-expiry.svg", "reset && add order-77 && work --job 1 --worker W1 --lease 1 --crash-before-ack; sleep 2; work --job 1 --worker W2 && effects"},
		{"testdata/timeline-race.svg", "race read 1"},
		{"testdata/timeline-ledger-crash.svg", "add order-77\nwork --job 1 --lease 1 --effect ledger --crash-before-commit\nsleep 2\nwork --job 1 --worker W2 --effect ledger"},
		{"testdata/timeline-stall-fenced.svg", "add order-77\nwork --job 1 --lease 1 --processing 3000 --heartbeat 300 --stall 2500 --fence &\nsleep 4.5\nwork --job 1 --worker W2 --fence"},
	}
	for _, tt := range tests {
		tl := draw.Timeline(Run(tt.src, Options{Seed: DefaultSeed}))
		if tl == nil {
			t.Fatalf("%s: no timeline", tt.file)
		}
		if *update {
			if err := os.WriteFile(tt.file, []byte(tl.SVG), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		if tl.SVG != string(want) {
			t.Errorf("%s differs from what the runtime draws now (go test -run TimelineGolden -update, then look at it)", tt.file)
		}
	}
}

// What a reader must be able to see: a lane per worker and one for the
// witness, every duplicate effect highlighted, the dead worker's lease
// drawn to its expiry, and a cursor position for every trace event.
func TestTimelineShowsTheStory(t *testing.T) {
	res := Run("add o && work --job 1 --lease 1 --crash-before-ack; sleep 2; work --job 1 --worker W2", Options{Seed: 4})
	tl := draw.Timeline(res)
	svg := tl.SVG
	for _, want := range []string{">W1<", ">W2<", ">receipts<", `class="kill"`, `class="held"`, "lease expires", `class="dup"`, "duplicate effect", `role="img"`} {
		if !strings.Contains(svg, want) {
			t.Errorf("timeline lacks %q", want)
		}
	}
	if n := strings.Count(svg, `<circle class="dup"`); n != 1 {
		t.Errorf("%d duplicate dots, want 1", n)
	}
	if n := strings.Count(svg, `<circle class="eff"`); n != 1 {
		t.Errorf("%d first-effect dots, want 1", n)
	}
	if len(tl.EventX) != len(res.Trace) {
		t.Fatalf("%d cursor positions for %d events", len(tl.EventX), len(res.Trace))
	}
	for i := 1; i < len(tl.EventX); i++ {
		if tl.EventX[i] < tl.EventX[i-1] || tl.EventX[i] > tl.Width {
			t.Fatalf("cursor positions go backwards or off the drawing at %d: %v", i, tl.EventX)
		}
	}
	// The atomic race draws no duplicate.
	if svg := draw.Timeline(Run("race atomic 1", Options{Seed: 4})).SVG; strings.Contains(svg, `class="dup"`) {
		t.Error("atomic race timeline shows a duplicate")
	}
	// Nothing to draw without a worker.
	if draw.Timeline(Run("add o && jobs", Options{})) != nil {
		t.Error("timeline drawn for a run with no worker")
	}
}

// The SVG is inserted into pages and written to files: it must be
// well-formed XML for every kind of run.
func TestTimelineIsWellFormedXML(t *testing.T) {
	for _, src := range []string{
		"race read 1 --workers 8",
		"add o:1.x_y && work --job 1 --worker W_1 --delay 400 --timeout 300",
		"add o && work --job 1 --delay 500 --timeout 1",
		"add o && work --job 1 --lease 0.5 --crash-before-effect; sleep 1; work --job 1 --worker W2 --claim atomic",
	} {
		tl := draw.Timeline(Run(src, Options{Seed: 9}))
		d := xml.NewDecoder(strings.NewReader(tl.SVG))
		for {
			_, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%q: %v", src, err)
			}
		}
	}
}

// A worker whose processing outlives its lease is drawn busy after its
// lease ran out, beside the second worker's lease; heartbeats do not cut
// the axis into pieces, a stall shows as such, and a refused receipt is
// drawn as refused, not as an effect.
func TestTimelineShowsBackgroundWork(t *testing.T) {
	res := Run("add o\nwork --job 1 --lease 1 --processing 3000 --heartbeat 300 --stall 2500 --fence &\nsleep 4.5\nwork --job 1 --worker W2 --fence", Options{Seed: DefaultSeed})
	tl := draw.Timeline(res)
	for _, want := range []string{`class="work"`, `class="stall"`, `class="ref"`, ">refused<"} {
		if !strings.Contains(tl.SVG, want) {
			t.Errorf("timeline lacks %q", want)
		}
	}
	if n := strings.Count(tl.SVG, `class="brk"`); n >= 8 {
		t.Errorf("%d breaks, want fewer than 8 (the axis draws at most 8 bursts)", n)
	}
	if strings.Contains(tl.SVG, `class="dup"`) {
		t.Error("a refused request is drawn as a duplicate effect")
	}
	for _, x := range tl.EventX {
		if x < 0 || x > tl.Width {
			t.Fatalf("cursor off the drawing: %v", tl.EventX)
		}
	}
}

// The load chart has a bar per lease with its tally, marks the drawn p95,
// and is absent when no load ran.
func TestLoadChart(t *testing.T) {
	res := Run("load 50 --processing lognormal:p50=800,p95=3000 --lease 1,2,5,10", Options{Seed: DefaultSeed, Timeline: true})
	if res.Chart == nil {
		t.Fatal("no chart for a load")
	}
	svg := res.Chart.SVG
	for _, l := range res.Loads {
		if want := fmt.Sprintf("%d of %d", l.Duplicates, l.Jobs); !strings.Contains(svg, want) {
			t.Errorf("chart lacks the tally %q", want)
		}
	}
	if !strings.Contains(svg, `class="p95"`) || !strings.Contains(svg, "p95 of processing") {
		t.Error("chart does not mark the p95")
	}
	if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil {
		t.Errorf("chart is not well-formed XML: %v", err)
	}
	if Run("add o", Options{Timeline: true}).Chart != nil {
		t.Error("a chart without a load")
	}
}
