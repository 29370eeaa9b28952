package bytesize

import "testing"

// A bound is said in the unit that divides it, exactly.
func TestWords(t *testing.T) {
	for n, want := range map[int]string{64 << 20: "64 MB", 150 << 10: "150 KB", 1536 << 10: "1536 KB", 300: "300 bytes", 1<<20 + 1: "1048577 bytes"} {
		if got := Words(n); got != want {
			t.Errorf("Words(%d) = %q, want %q", n, got, want)
		}
	}
}
