//go:build !unix

package main

// openNonblock is zero where the system has no non-blocking open
// (Windows, wasip1); there the check that a script file is regular, made
// before it is opened, keeps a named pipe out.
const openNonblock = 0
