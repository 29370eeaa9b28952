package explore

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

func toBig(c Count) *big.Int {
	b := new(big.Int).SetUint64(c.hi)
	b.Lsh(b, 64)
	return b.Or(b, new(big.Int).SetUint64(c.lo))
}

var max128 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 128), big.NewInt(1))

// randCount draws counts of every magnitude, with the edges 0 and 2^128-1
// and powers of ten near them over-represented.
func randCount(r *rand.Rand) Count {
	switch r.IntN(6) {
	case 0:
		return Count{}
	case 1:
		return Count{^uint64(0), ^uint64(0)}
	case 2:
		return CountOf(r.Uint64N(1000))
	case 3:
		return Count{lo: r.Uint64()}
	case 4:
		return Count{hi: r.Uint64N(3), lo: r.Uint64()}
	}
	return Count{r.Uint64() >> r.IntN(64), r.Uint64()}
}

func TestCountAgainstBig(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		a, b := randCount(r), randCount(r)
		m := r.Uint64() >> r.IntN(64)
		if got, want := a.String(), toBig(a).String(); got != want {
			t.Fatalf("String(%#v) = %s, want %s", a, got, want)
		}
		if got, want := a.Cmp(b), toBig(a).Cmp(toBig(b)); got != want {
			t.Fatalf("Cmp(%s, %s) = %d, want %d", a, b, got, want)
		}
		sum, ok := a.add(b)
		want := new(big.Int).Add(toBig(a), toBig(b))
		if fits := want.Cmp(max128) <= 0; ok != fits || ok && toBig(sum).Cmp(want) != 0 {
			t.Fatalf("%s + %s = %s, %v; want %s", a, b, sum, ok, want)
		}
		prod, ok := a.mul(m)
		want = new(big.Int).Mul(toBig(a), new(big.Int).SetUint64(m))
		if fits := want.Cmp(max128) <= 0; ok != fits || ok && toBig(prod).Cmp(want) != 0 {
			t.Fatalf("%s * %d = %s, %v; want %s", a, m, prod, ok, want)
		}
	}
	for _, s := range []string{"0", "9", "10", "18446744073709551615", "18446744073709551616", "10000000000000000000000000000000000000", "340282366920938463463374607431768211455"} {
		b, _ := new(big.Int).SetString(s, 10)
		c := Count{new(big.Int).Rsh(b, 64).Uint64(), b.Uint64()}
		if c.String() != s {
			t.Errorf("String of %s gave %s", s, c.String())
		}
	}
}

// The package comment and Count promise that MaxWorkers workers cannot
// overflow 128 bits: check the bound.
func TestCountBoundFits(t *testing.T) {
	steps := int64(4 * MaxWorkers)
	bound := new(big.Int).Div(fact(steps), new(big.Int).Exp(big.NewInt(24), big.NewInt(MaxWorkers), nil))
	if bound.Cmp(max128) > 0 {
		t.Fatalf("the unconstrained bound %s for %d workers does not fit in 128 bits", bound, MaxWorkers)
	}
	t.Logf("bound for %d workers: %s (%d bits)", MaxWorkers, bound, bound.BitLen())
}
