// Package sqlitewasm holds the browser build's SQLite: the SQLite of
// third_party/sqlite (the same amalgamation, options and patches the CLI
// links as Go), compiled by clang into a WebAssembly module of its own,
// with an in-memory VFS in C and the entry points the Go program's bridge
// calls (package runtime/sqldb says how). third_party/sqlite/build/build.sh
// generates sqlite3.wasm and records its sha256; do not edit it.
//
// The server serves it beside the Go module, and the playground's worker
// instantiates it first and hands its exports to the Go program. The
// module imports nothing; it exports its memory ("memory"), _initialize,
// which must be called once before anything else, and the functions
// third_party/sqlite/build/browser_exports.txt lists.
package sqlitewasm

import _ "embed"

// Wasm is the module.
//
//go:embed sqlite3.wasm
var Wasm []byte
