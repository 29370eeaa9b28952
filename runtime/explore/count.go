package explore

import (
	"math/bits"
	"strconv"
)

// Count is an exact count of orderings: an unsigned 128-bit integer.
//
// The counts of the races a script may explore stay far below 2^128 (a
// worker that loses the claim stops, an open transaction holds the
// others' writes back); the arithmetic checks for overflow, so a count is
// never silently wrong. A fixed-size integer keeps math/big, about 50 kB
// of brotli, out of the browser's download.
type Count struct{ hi, lo uint64 }

// CountOf returns n as a Count.
func CountOf(n uint64) Count { return Count{lo: n} }

// IsZero reports whether c is 0.
func (c Count) IsZero() bool { return c.hi == 0 && c.lo == 0 }

// Cmp returns -1, 0 or +1 as c is less than, equal to or greater than d.
func (c Count) Cmp(d Count) int {
	switch {
	case c.hi < d.hi || c.hi == d.hi && c.lo < d.lo:
		return -1
	case c == d:
		return 0
	}
	return 1
}

// add returns c+d, and false if that overflows.
func (c Count) add(d Count) (Count, bool) {
	lo, carry := bits.Add64(c.lo, d.lo, 0)
	hi, over := bits.Add64(c.hi, d.hi, carry)
	return Count{hi, lo}, over == 0
}

// mul returns c*m, and false if that overflows.
func (c Count) mul(m uint64) (Count, bool) {
	carry, lo := bits.Mul64(c.lo, m)
	over, hi := bits.Mul64(c.hi, m)
	hi, c2 := bits.Add64(hi, carry, 0)
	return Count{hi, lo}, over == 0 && c2 == 0
}

// String returns c in decimal.
func (c Count) String() string {
	if c.hi == 0 {
		return strconv.FormatUint(c.lo, 10)
	}
	// Split into base-1e19 digits, least significant first: at most
	// three of them, since 2^128 < 1e57.
	const base = 1e19
	var parts [3]uint64
	n := 0
	for c.hi != 0 {
		var r uint64
		c.hi, r = bits.Div64(0, c.hi, base)
		c.lo, r = bits.Div64(r, c.lo, base)
		parts[n] = r
		n++
	}
	b := strconv.AppendUint(nil, c.lo, 10)
	for i := n - 1; i >= 0; i-- {
		d := strconv.FormatUint(parts[i], 10)
		b = append(append(b, "0000000000000000000"[len(d):]...), d...)
	}
	return string(b)
}
