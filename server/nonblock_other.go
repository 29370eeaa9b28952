//go:build !unix

package server

// openNonblock is zero where the system has no non-blocking open (Windows,
// wasip1); there the check that a lesson file is regular, made before it
// is opened, is what keeps a named pipe out.
const openNonblock = 0
