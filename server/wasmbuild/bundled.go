//go:build twice_bundle

package wasmbuild

import _ "embed"

// This file is compiled only into binaries made by BuildBundle (twice
// bundle), which supplies the two files below through a go build overlay;
// they do not exist in the source tree.

//go:embed bundled/twice.wasm
var bundledWasm []byte

//go:embed bundled/wasm_exec.js
var bundledWasmExec []byte

func init() {
	bundled = &Runtime{Wasm: bundledWasm, WasmExec: bundledWasmExec, From: "bundled in this binary"}
}
