package sim

import (
	"math"
	"slices"
	"testing"
)

// testMost is the largest draw the tests allow: 600 s.
const testMost = 600 * Second

// The fixed-point helpers agree with floating point to within a few parts
// in a million (the model itself never uses floating point).
func TestFixedPointLog2Exp2(t *testing.T) {
	for _, c := range [][2]int64{{1, 1}, {3000, 800}, {600_000_000, 1000}, {5, 4}, {2, 1}} {
		got := float64(log2Ratio(c[0], c[1])) / fixOne
		want := math.Log2(float64(c[0]) / float64(c[1]))
		if math.Abs(got-want) > 1e-6 {
			t.Errorf("log2(%d/%d) = %.7f, want %.7f", c[0], c[1], got, want)
		}
	}
	for _, e := range []float64{0, 0.5, -0.5, 1.9, -3.25, 9.1} {
		x := int64(1_000_000)
		got := float64(scaleExp2(x, int64(e*fixOne), testMost))
		want := float64(x) * math.Exp2(e)
		if math.Abs(got-want)/want > 1e-5 {
			t.Errorf("%d·2^%v = %v, want %v", x, e, got, want)
		}
	}
	if got := scaleExp2(1_000_000, 11*fixOne, testMost); got != testMost {
		t.Errorf("2^11 s = %d µs, want it clamped to %d", got, testMost)
	}
}

// Draws from lognormal:p50=800,p95=3000 have about that median and 95th
// percentile, are the same for the same seed, and stay within bounds.
func TestLognormalDraws(t *testing.T) {
	draw := func(seed uint64) []Time {
		k := New(seed)
		xs := make([]Time, 20000)
		for i := range xs {
			xs[i] = k.Lognormal(800*Millisecond, 3000*Millisecond, testMost)
			if xs[i] < Millisecond || xs[i] > testMost {
				t.Fatalf("draw %d out of bounds", xs[i])
			}
		}
		return xs
	}
	a, b := draw(7), draw(7)
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("same seed, different draws")
		}
	}
	slices.Sort(a)
	p50, p95 := a[len(a)/2], a[len(a)*95/100]
	if p50 < 760*Millisecond || p50 > 840*Millisecond {
		t.Errorf("p50 %d µs, want about 800 ms", p50)
	}
	if p95 < 2800*Millisecond || p95 > 3200*Millisecond {
		t.Errorf("p95 %d µs, want about 3000 ms", p95)
	}
	if New(1).Lognormal(5, 5, testMost) != 5 {
		t.Error("a draw with p95 = p50 is not p50")
	}
}
