package interp

import (
	"strings"
	"testing"

	"github.com/twice-lab/twice/internal/article"
)

// TestArticleStepsKeepTheArticleShapes runs the article's six command
// lines and checks every line they print against the shapes the article
// printed: no event id in the jobs table, no job in an effect tag, since
// each step has one job that is its own event. Only the diagnosis line
// is the lab's own.
func TestArticleStepsKeepTheArticleShapes(t *testing.T) {
	for _, st := range article.Steps(t) {
		res := Run(st.Script, Options{Seed: DefaultSeed})
		if res.Error != nil {
			t.Fatalf("%s: %v", st.Name, res.Error)
		}
	lines:
		for _, l := range strings.Split(strings.TrimSuffix(res.Text(), "\n"), "\n") {
			if strings.HasPrefix(l, article.DiagnosisPrefix) {
				continue
			}
			for _, re := range article.Shapes {
				if re.MatchString(l) {
					continue lines
				}
			}
			t.Errorf("%s prints a line the article never did: %q", st.Name, l)
		}
	}
}

// TestFieldsShownWhenTheyTell: the jobs table shows event= once an event
// was named, published twice or an order has jobs of two events, and a
// tag shows its job once an order's effects come from two jobs.
func TestFieldsShownWhenTheyTell(t *testing.T) {
	for _, c := range []struct {
		src         string
		event, jtag bool
	}{
		{"add order-77\nwork --job 1\njobs\neffects\n", false, false},
		{"add order-77 --event ev-9\nwork --job 1\njobs\neffects\n", true, false},
		{"add order-77 --times 2\nwork --job 1\nwork --job 2\njobs\neffects\n", true, true},
		{"add order-77\nadd order-77\nwork --job 1\nwork --job 2\njobs\neffects\n", true, true},
		{"add order-1\nadd order-2\nwork --job 1\nwork --job 2\njobs\neffects\n", false, false},
	} {
		text := Run(c.src, Options{Seed: DefaultSeed}).Text()
		if got := strings.Contains(text, " event="); got != c.event {
			t.Errorf("%q: event= shown %v, want %v:\n%s", c.src, got, c.event, text)
		}
		if got := strings.Contains(text, " j1 a1"); got != c.jtag {
			t.Errorf("%q: job in the tag %v, want %v:\n%s", c.src, got, c.jtag, text)
		}
	}
}
