//go:build unix

package lessons

import "syscall"

// OpenNonblock is the flag that opens a file without blocking: a named
// pipe swapped in after the check that a file is regular ([FileKind])
// cannot stall the reader.
const OpenNonblock = syscall.O_NONBLOCK
