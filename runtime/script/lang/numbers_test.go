package lang

import (
	"reflect"
	"testing"
)

// Numbers finds the numbers a slider moves where the script writes them,
// in the background and in a distribution too, and WithNumber rewrites
// only those places.
func TestNumbers(t *testing.T) {
	src := "reset\nadd order-77 # --lease 9\nwork --job 1 --worker W1 --lease 1.5 --processing 3000 --heartbeat=300 &\nwork --job 1 --worker W2 --lease 1.5\nload 20 --processing lognormal:p50=800,p95=3000 --lease 1,2 --workers 2\n"
	s, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Number{}
	var names []string
	for _, n := range s.Numbers() {
		got[n.Name] = n
		names = append(names, n.Name)
		for _, sp := range n.Spans {
			if w := src[sp[0]:sp[1]]; w == "" || w[0] < '0' || w[0] > '9' {
				t.Errorf("%s: span %v is %q, not a number", n.Name, sp, w)
			}
		}
	}
	if want := []string{"lease", "processing", "p95", "heartbeat", "workers"}; !reflect.DeepEqual(names, want) {
		t.Errorf("numbers %v, want %v", names, want)
	}
	if n := got["lease"]; n.Value != 1500 || len(n.Spans) != 2 {
		t.Errorf("lease: %+v, want 1500 ms written twice (the list of the load is not one)", n)
	}
	if n := got["p95"]; n.Value != 3000 || n.Min != 801 || src[n.Spans[0][0]:n.Spans[0][1]] != "3000" {
		t.Errorf("p95: %+v", n)
	}
	want := "reset\nadd order-77 # --lease 9\nwork --job 1 --worker W1 --lease 4 --processing 3000 --heartbeat=300 &\nwork --job 1 --worker W2 --lease 4\nload 20 --processing lognormal:p50=800,p95=3000 --lease 1,2 --workers 2\n"
	if w := s.WithNumber("lease", 4000); w != want {
		t.Errorf("WithNumber(lease, 4 s):\n%s\nwant\n%s", w, want)
	}
	if w := s.WithNumber("p95", 6000); w != src[:len(src)-len("3000 --lease 1,2 --workers 2\n")]+"6000 --lease 1,2 --workers 2\n" {
		t.Errorf("WithNumber(p95, 6000):\n%s", w)
	}
	if w := s.WithNumber("stall", 5); w != src {
		t.Errorf("a number the script does not write changed it:\n%s", w)
	}
}
