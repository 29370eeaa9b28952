// Package draw draws a run as SVG: [Timeline] lays the trace out with one
// lane per worker and one for the receipts service, and [LoadChart] the
// load runs as bars on a lease axis, the p95 of processing on it. It
// reads a finished result.Result and nothing else, lays everything out
// with integer arithmetic (the same bytes natively, under wazero and in
// the browser), and escapes every text it draws.
//
// # Adding what the timeline draws
//
// The timeline draws from the list of event kinds in package event: a
// kind with an existing mark needs no code here. A new mark or bar needs
// its case in Timeline and its check in markDrawn (package interp's
// kinds_test.go): TestEveryEventKindIsRecordedAndDrawn fails for a listed
// kind nothing draws.
package draw
