package server

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/twice-lab/twice/server/wasmbuild"
	"github.com/twice-lab/twice/site"
)

// TestMinifiedAssets checks that every script and style sheet we ship
// minifies (minified falls back to the original on a parse error, which
// would quietly cost bytes) and gets markedly smaller, and that minifying
// is stable: an export's wasm_exec.js, read back by twice serve --wasm,
// is minified again and must not change.
func TestMinifiedAssets(t *testing.T) {
	files := map[string][]byte{}
	err := fs.WalkDir(site.FS, "static", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".js") || strings.HasSuffix(p, ".css")) {
			files[p], err = fs.ReadFile(site.FS, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		if b, err := os.ReadFile(wasmbuild.WasmExecPath(strings.TrimSpace(string(out)))); err == nil {
			files["wasm_exec.js"] = b
		}
	}
	if len(files) < 5 {
		t.Fatalf("found only %d files to minify", len(files))
	}
	for name, src := range files {
		kind := name[strings.LastIndexByte(name, '.'):]
		var out bytes.Buffer
		if err := minifier.Minify(kind[1:], &out, bytes.NewReader(src)); err != nil {
			t.Errorf("%s does not minify: %v", name, err)
			continue
		}
		min := minified(name, src)
		if len(min) > len(src)*85/100 {
			t.Errorf("%s: minified to %d of %d bytes; want at least 15%% off", name, len(min), len(src))
		}
		if again := minified(name, min); !bytes.Equal(again, min) {
			t.Errorf("%s: minifying twice changes it (%d then %d bytes)", name, len(min), len(again))
		}
	}
	if got := minified("x.md", []byte("  keep  ")); string(got) != "  keep  " {
		t.Errorf("a markdown file was changed: %q", got)
	}
	if got := minified("broken.js", []byte("function (")); string(got) != "function (" {
		t.Errorf("a file that does not parse was not served as it is: %q", got)
	}
}

// The worker is served with the runtime's own wasm_exec.js in front of it,
// so that it defines Go without fetching another script.
func TestWorkerCarriesWasmExec(t *testing.T) {
	rt := fakeRuntime()
	rt.WasmExec = []byte(`"use strict";` + "\n" + `globalThis.Go = class { whose() { return "the test runtime's wasm_exec.js"; } };` + "\n")
	s, err := Render(Options{Runtime: rt, Brotli: BrotliNever})
	if err != nil {
		t.Fatal(err)
	}
	var worker []byte
	for p, f := range s.Files {
		if strings.HasPrefix(p, "assets/worker.") && strings.HasSuffix(p, ".js") {
			worker = f.Body
		}
	}
	w := string(worker)
	goAt, own := strings.Index(w, "the test runtime's wasm_exec.js"), strings.Index(w, "importScripts")
	if goAt < 0 || own < 0 || goAt > own || !strings.HasPrefix(w, `"use strict"`) {
		t.Errorf("the worker does not begin with the runtime's wasm_exec.js, under its use strict:\n%.300s", w)
	}
}
