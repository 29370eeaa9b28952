// Package codesize holds no code. Its test reports the size of each
// package of the module's own Go, so that a package growing toward a size
// a reader cannot take in is seen well before it gets there: the report
// warns for a package of 2,500 lines of non-test Go or more, and fails
// only at 4,000, a limit no package should be near. Where a package
// parts into jobs is a matter for review, not a count, and so is the
// length of a function. Files the Go convention marks generated, and
// third_party, are not counted.
package codesize
