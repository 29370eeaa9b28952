// Package wasmbuild makes the browser build of the twice runtime, which
// package server serves.
//
// [BuildRuntime] compiles the module's wasm package with [WasmBuildEnv]
// (GOOS=js GOARCH=wasm) and the flags in [WasmBuildFlags], through a go
// build overlay that puts every Go file it links on one line per
// declaration (package internal/oneline: the module then carries almost
// no line table), and reads wasm_exec.js from the GOROOT of the same go
// command, so the two always match; the linked module's data segments
// are then merged where a few zero bytes separate them (a few hundred
// segments instead of Go's tens of thousands, each with a header of its
// own). The runtime's SQLite is a module of its own,
// third_party/sqlitewasm, compiled from C and committed; package server
// serves it beside the Go module, which imports its functions. The go
// command's build cache makes rebuilds take a second or two; the first
// build takes about 40 s. [LoadRuntime] reads a prebuilt module instead
// (twice serve --wasm FILE, or $TWICE_WASM), with the wasm_exec.js found
// next to it, each a regular file of at most [MaxPrebuiltBytes].
// [BuildBundle] (twice bundle) writes a twice binary that carries the
// runtime, compiled in with a build tag and a go build overlay, so it needs
// neither Go nor the source tree; [ObtainRuntime] prefers a --wasm FILE,
// then the bundled runtime, then a build.
package wasmbuild
