package markdown

import (
	"strings"
	"testing"
)

// The results kept from earlier renders are bounded in bytes: a folder of
// blocks that each print a lot is not kept whole in memory. The bound is
// lowered to 1 MB here, so that a few results pass it.
func TestPrerenderedBytesBounded(t *testing.T) {
	prerendered.Lock()
	prerendered.bytes = 1 << 20
	prerendered.Unlock()
	defer func() {
		prerendered.Lock()
		prerendered.bytes = maxPrerenderedBytes
		prerendered.Unlock()
	}()
	script := strings.Repeat("add a --times 100\n", 2) + strings.Repeat("jobs\n", 5) // about 60 KB of transcript
	for seed := uint64(1000); seed < 1040; seed++ {
		Prerender(script, seed)
		prerendered.Lock()
		size, n := prerendered.size, 0
		for _, r := range prerendered.m {
			n += r.Spent.Output
		}
		prerendered.Unlock()
		if size > 1<<20 || n > 1<<20 {
			t.Fatalf("after %d results, the cache holds %d bytes of them (counted %d); the bound is 1 MB", seed-999, n, size)
		}
		if n == 0 {
			t.Fatalf("after %d results, the cache holds none", seed-999)
		}
	}
}
