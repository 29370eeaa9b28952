//go:build unix

package server

import "syscall"

// openNonblock opens a lesson file without blocking: a named pipe swapped
// in after the check that a file is regular cannot stall a render.
const openNonblock = syscall.O_NONBLOCK
