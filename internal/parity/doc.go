// Package parity checks that twice prints the same bytes on every platform
// it runs on: its tests build cmd/twice natively and for GOOS=wasip1, run
// the wasm under wazero, and compare stdout, stderr and the exit code of
// the two for the article's command lines, races and errors at several
// seeds. Its benchmarks measure races per second under wazero for
// docs/PERFORMANCE.md.
//
// The package has no API; everything is in its tests:
//
//	go test ./internal/parity
//	go test ./internal/parity -run '^$' -bench Wazero
package parity
