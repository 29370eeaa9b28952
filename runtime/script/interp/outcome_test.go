package interp

import (
	"strconv"
	"strings"
	"testing"
)

// The outcome counts ledger rows as effects, load jobs and races as
// duplicates, and a refused receipt as refused, not as an effect.
func TestOutcomeCountsEveryEffect(t *testing.T) {
	for _, c := range []struct {
		src                 string
		effects, duplicates int
		refused             int
	}{
		{"race read 20 --effect ledger\n", 1, 0, 0},
		{"reset\nadd order-77\nwork --job 1 --worker W1 --lease 1 --processing 3000 --heartbeat 300 --stall 2500 --fence &\nsleep 4.5\nwork --job 1 --worker W2 --fence\nwait\n", 1, 0, 1},
		{"add o --times 2\nwork --job 1\nwork --job 2\n", 2, 1, 0},
		{"add o --event e1\nadd o --event e2\nwork --job 1\nwork --job 2\n", 2, 0, 0},
	} {
		o := Run(c.src, Options{Seed: DefaultSeed}).Outcome
		if o.Effects != c.effects || o.Duplicates != c.duplicates || o.Refused != c.refused || o.Headline == "" {
			t.Errorf("%q: %+v, want %d effect(s), %d duplicate(s), %d refused", c.src, o, c.effects, c.duplicates, c.refused)
		}
	}
	// A block that only explores still says what its orderings found.
	x := Run("race read --all\nrace atomic --all\n", Options{Seed: DefaultSeed})
	if x.Error != nil || len(x.Explorations) != 2 {
		t.Fatalf("race --all: %v, %d explorations", x.Error, len(x.Explorations))
	}
	want, _ := strconv.Atoi(x.Explorations[0].Duplicating)
	if o := x.Outcome; want == 0 || x.Explorations[1].Duplicating != "0" || o.Duplicates != want || o.Effects != 0 ||
		!strings.Contains(o.Headline, "claim=read, every ordering of 2 workers: two effects in "+x.Explorations[0].Duplicating+" of ") ||
		strings.Contains(o.Headline, "no effect landed") {
		t.Errorf("race --all: outcome %+v; the orderings: %+v", o, x.Explorations)
	}
	r := Run("load 50 --processing lognormal:p50=800,p95=3000 --lease 1,10\n", Options{Seed: DefaultSeed})
	if want := r.Loads[0].Duplicates + r.Loads[1].Duplicates; r.Outcome.Duplicates != want || want == 0 {
		t.Errorf("load: outcome counts %d duplicates, the tallies %d", r.Outcome.Duplicates, want)
	}
}
