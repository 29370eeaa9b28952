// Package bytesize writes a byte count as a reader says it: "64 MB",
// "512 KB", "300 bytes". A count that is a whole number of mebibytes or
// kibibytes is said in that unit; any other is said in bytes, so that a
// bound a message names is exact.
package bytesize

import "fmt"

// Words says n bytes in the largest unit that divides it: MB (2^20), KB
// (2^10) or bytes.
func Words(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
