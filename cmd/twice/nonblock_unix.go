//go:build unix

package main

import "syscall"

// openNonblock opens a script file without blocking: a named pipe
// swapped in after the check that the file is regular cannot hang the
// command.
const openNonblock = syscall.O_NONBLOCK
