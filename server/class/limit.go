package class

import (
	"sync"
	"time"
)

// A limiter allows each key (a voter, an address) so many requests a
// second with a burst of so many, as a token bucket: a key starts with
// burst tokens, each request takes one, and tokens come back at rate per
// second up to burst. It keeps at most max keys: when full, it forgets
// the keys whose bucket has filled again (they would start afresh
// anyway), and refuses a new key if none has.
type limiter struct {
	rate, burst float64
	max         int
	now         func() time.Time

	mu sync.Mutex
	m  map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newLimiter(rate, burst float64, max int, now func() time.Time) *limiter {
	return &limiter{rate: rate, burst: burst, max: max, now: now, m: map[string]*bucket{}}
}

// allow takes a token of key's bucket, reporting whether there was one.
func (l *limiter) allow(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b := l.m[key]
	if b == nil {
		if len(l.m) >= l.max && !l.sweep(now) {
			return false
		}
		b = &bucket{tokens: l.burst, at: now}
		l.m[key] = b
	}
	b.fill(now, l.rate, l.burst)
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

func (b *bucket) fill(now time.Time, rate, burst float64) {
	if d := now.Sub(b.at); d > 0 {
		b.tokens = min(burst, b.tokens+d.Seconds()*rate)
		b.at = now
	}
}

// sweep forgets the keys whose bucket is full at now, reporting whether
// it forgot any; l.mu is held.
func (l *limiter) sweep(now time.Time) bool {
	n := len(l.m)
	for k, b := range l.m {
		b.fill(now, l.rate, l.burst)
		if b.tokens >= l.burst {
			delete(l.m, k)
		}
	}
	return len(l.m) < n
}
