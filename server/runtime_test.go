package server

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/twice-lab/twice/server/wasmbuild"
	"github.com/twice-lab/twice/third_party/sqlitewasm"
)

// TestWasmExecFromToolchain checks that the served wasm_exec.js is the one
// of the Go toolchain that built the module (minified, byte for byte), and
// that the served module is the one built.
func TestWasmExecFromToolchain(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the wasm module")
	}
	rt := builtRuntime(t)
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(wasmbuild.WasmExecPath(strings.TrimSpace(string(out))))
	if err != nil {
		t.Fatal(err)
	}
	site, err := Render(Options{Runtime: rt, Brotli: BrotliNever})
	if err != nil {
		t.Fatal(err)
	}
	var served, wasm, sqlite []byte
	for p, f := range site.Files {
		switch {
		case strings.HasPrefix(p, "assets/wasm_exec.") && strings.HasSuffix(p, ".js"):
			served = f.Body
		case strings.HasPrefix(p, "assets/twice.") && strings.HasSuffix(p, ".wasm"):
			wasm = f.Body
		case strings.HasPrefix(p, "assets/sqlite3.") && strings.HasSuffix(p, ".wasm"):
			sqlite = f.Body
		}
	}
	if !bytes.Equal(sqlite, sqlitewasm.Wasm) {
		t.Errorf("served SQLite module (%d bytes) is not third_party/sqlitewasm's (%d bytes)", len(sqlite), len(sqlitewasm.Wasm))
	}
	if want = minified("wasm_exec.js", want); !bytes.Equal(served, want) {
		t.Errorf("served wasm_exec.js (%d bytes) differs from the toolchain's (%d bytes)", len(served), len(want))
	}
	if !bytes.Equal(wasm, rt.Wasm) || !bytes.HasPrefix(wasm, []byte("\x00asm")) {
		t.Errorf("served wasm module is not the built one")
	}
}
