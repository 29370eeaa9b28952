package markdown

import (
	"strings"
	"testing"
)

// TestPictureFromRun draws the index's race from its run: in each of the
// two drawings, a lane per worker and one for the receipts, a receipt
// per recorded request, each worker's claim, send and ack, and the
// caption that says it, worded from the same run.
func TestPictureFromRun(t *testing.T) {
	res := Prerender("race read 1\n", 1)
	pic := Picture(res, "p")
	for what, want := range map[string]int{
		`class="rp-lane"`:              4, // two workers, twice
		`class="rp-lane rp-service"`:   2,
		`<g class="rp-receipt`:         2 * len(res.Effects),
		`<g class="rp-step`:            2 * 6,
		`<g class="rp-both`:            2,
		`<rect class="rp-hold`:         4,
		`<svg class="rp rp-across"`:    1,
		`<svg class="rp rp-down"`:      1,
		`aria-labelledby="p-says"`:     2,
		`<figcaption id="p-says">`:     1,
		`style=`:                       0, // the CSP allows no style attribute
		`both at work on job 1</text>`: 2,
	} {
		if got := strings.Count(pic, what); got != want {
			t.Errorf("%s: %d times, want %d", what, got, want)
		}
	}
	if len(res.Effects) != 2 {
		t.Fatalf("race read 1 at seed 1 recorded %d effects, want 2", len(res.Effects))
	}
	if want := "Two workers claim the same job at once, and two receipts land for order-77."; !strings.Contains(pic, want) {
		t.Errorf("the caption is not %q:\n%s", want, pic)
	}
	if Picture(Prerender("reset\n", 1), "p") != "" {
		t.Errorf("a run with no worker step has a picture")
	}
}
