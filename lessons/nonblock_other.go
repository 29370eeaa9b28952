//go:build !unix

package lessons

// OpenNonblock is zero where the system has no non-blocking open (Windows,
// wasip1); there the check that a file is regular ([FileKind]), made
// before it is opened, is what keeps a named pipe out.
const OpenNonblock = 0
