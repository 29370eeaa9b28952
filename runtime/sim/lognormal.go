package sim

import (
	"math/bits"
)

// Lognormal times are drawn without floating point, so that a
// draw is the same integer on every platform: the normal deviate is the
// sum of twelve uniforms less six (Irwin-Hall, mean 0, variance 1, within
// ±6), and the lognormal sample p50·(p95/p50)^(z/1.6449) is computed with
// fixed-point base-2 logarithms and powers (30 fractional bits).

const (
	fixOne = 1 << 30 // 1.0 in Q30
	z95num = 10000   // 1/1.6449, the 95th percentile of the standard normal,
	z95den = 16449   // as a fraction
	zFrac  = 16      // fractional bits of the normal deviate
)

// exp2Roots[i] is 2^(2^-(i+1)) in Q30.
var exp2Roots = func() (r [30]uint64) {
	v := isqrt(2 << 60)
	for i := range r {
		r[i] = v
		v = isqrt(v << 30)
	}
	return r
}()

// isqrt returns the integer square root of n.
func isqrt(n uint64) uint64 {
	if n < 2 {
		return n
	}
	x := uint64(1) << ((bits.Len64(n) + 1) / 2)
	for {
		y := (x + n/x) / 2
		if y >= x {
			return x
		}
		x = y
	}
}

// log2Ratio returns log2(a/b) in Q30, for a >= b > 0 and a < 2^33.
func log2Ratio(a, b int64) int64 {
	r := uint64(a) << 30 / uint64(b)
	n := bits.Len64(r) - 31
	m := r >> n
	var frac int64
	for i := 1; i <= 30; i++ {
		m = m * m >> 30
		if m >= 2*fixOne {
			m >>= 1
			frac |= 1 << (30 - i)
		}
	}
	return int64(n)<<30 | frac
}

// exp2Frac returns 2^f in Q30 for 0 <= f < 1 in Q30.
func exp2Frac(f int64) uint64 {
	m := uint64(fixOne)
	for i := range 30 {
		if f&(1<<(29-i)) != 0 {
			m = m * exp2Roots[i] >> 30
		}
	}
	return m
}

// scaleExp2 returns x·2^e (e in Q30), clamped to [0, most].
func scaleExp2(x, e, most int64) int64 {
	neg := e < 0
	if neg {
		e = -e
	}
	n, m := e>>30, exp2Frac(e&(fixOne-1))
	if neg {
		if n >= 62 {
			return 0
		}
		return int64((uint64(x) << 30 / m) >> n)
	}
	if n >= 32 {
		return most
	}
	v := (uint64(x) * m >> 30) << n
	if v > uint64(most) {
		return most
	}
	return int64(v)
}

// Lognormal returns a time drawn from the lognormal distribution with
// median p50 and 95th percentile p95 (p95 >= p50), at least a millisecond
// and at most most, using the kernel's source: the same seed gives the
// same draws on every platform.
func (k *Kernel) Lognormal(p50, p95, most Time) Time {
	if p95 == p50 {
		return p50
	}
	var z int64 // Q16
	for range 12 {
		z += int64(k.Uint32() >> 16)
	}
	z -= 6 << zFrac
	e := z * log2Ratio(p95, p50) >> zFrac * z95num / z95den
	return max(scaleExp2(p50, e, most), Millisecond)
}
