package server

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/twice-lab/twice/server/wasmbuild"
	"github.com/twice-lab/twice/third_party/sqlitewasm"
)

// TestBrowserBuildLinks checks what the browser build links, by the
// function names in the module's name section (kept by building without
// -ldflags=-s -w, otherwise with WasmBuildFlags): the cuts that keep the
// download small must stay made. A package merely imported somewhere in
// the graph does not count; only code the linker kept does.
func TestBrowserBuildLinks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the wasm module")
	}
	openWasmSources()
	out := filepath.Join(t.TempDir(), "named.wasm")
	var flags []string
	for _, f := range wasmbuild.WasmBuildFlags {
		if !strings.HasPrefix(f, "-ldflags=") {
			flags = append(flags, f)
		}
	}
	if err := wasmbuild.BuildWasm(context.Background(), "go", "..", t.TempDir(), out, flags); err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	funcs, err := wasmFuncs(mod)
	if err != nil {
		t.Fatal(err)
	}
	// The parser must see what is surely there, or the checks below
	// would pass on nothing.
	for _, want := range []string{"github.com_twice_lab_twice_runtime_script_interp.Run", "main.main"} {
		if _, ok := funcs[want]; !ok {
			t.Fatalf("no function %s among the %d names read; the name section parser is wrong", want, len(funcs))
		}
	}
	banned := map[string]string{
		"encoding_json.typeFields": "the Result has its own MarshalJSON", // the heart of reflection-driven encoding
		"math_big.":                "exploration counts are 128-bit integers",
		"github.com_yuin_goldmark": "lessons are rendered by the server",
		"net_http.":                "the wasm does no HTTP",
		"strings.__Replacer_":      "the timeline escapes text with a loop",
		"fmt.__ss_.":               "numbers are read with strconv: fmt's scanner is 27 kB of brotli",
	}
	for name := range funcs {
		if strings.HasSuffix(name, ".init") {
			// A package's initializer is linked when anything imports the
			// package (crypto/rand, in the driver, imports math/big), and
			// without inlining it is no longer empty; it is not a use.
			continue
		}
		for prefix, why := range banned {
			if strings.HasPrefix(name, prefix) {
				t.Errorf("the browser build links %s, but should not: %s", name, why)
				delete(banned, prefix) // once per package is enough
			}
		}
	}
	// SQLite is a module of its own (third_party/sqlitewasm): the Go
	// module carries neither the driver nor its translation of SQLite, and
	// every function it imports from the SQLite module is one that module
	// exports.
	for name := range funcs {
		if strings.HasPrefix(name, "github.com_ncruces_") {
			t.Errorf("the browser build links %s: SQLite and its driver should come from the SQLite module", name)
			break
		}
	}
	imports, _, err := wasmNames(mod)
	if err != nil {
		t.Fatal(err)
	}
	_, exports, err := wasmNames(sqlitewasm.Wasm)
	if err != nil {
		t.Fatal(err)
	}
	fromSQLite := 0
	for _, imp := range imports {
		switch mod, name, _ := strings.Cut(imp, "."); mod {
		case "gojs":
		case "sqlite3":
			fromSQLite++
			if !slices.Contains(exports, name) {
				t.Errorf("the Go module imports %s, which the SQLite module does not export", imp)
			}
		case "sqlite3_copy":
			if name != "read" && name != "write" {
				t.Errorf("the Go module imports %s, which worker.js does not provide", imp)
			}
		default:
			t.Errorf("the Go module imports %s, from a module worker.js does not provide", imp)
		}
	}
	if fromSQLite < 20 {
		t.Errorf("the Go module imports %d functions of the SQLite module, want the bridge's (over 20): %v", fromSQLite, imports)
	}
	t.Logf("%d functions; %d imported from the SQLite module", len(funcs), fromSQLite)
}

// wasmNames returns a wasm module's imported functions (as module.name)
// and its exports.
func wasmNames(mod []byte) (imports, exports []string, err error) {
	bad := errors.New("not a wasm module this parser understands")
	if len(mod) < 8 || string(mod[:4]) != "\x00asm" {
		return nil, nil, bad
	}
	i := 8
	uleb := func() int {
		v, shift := 0, 0
		for i < len(mod) {
			c := mod[i]
			i++
			v |= int(c&0x7f) << shift
			if c < 0x80 {
				return v
			}
			shift += 7
		}
		return 0
	}
	str := func() string {
		n := uleb()
		s := string(mod[i : i+n])
		i += n
		return s
	}
	limits := func() {
		if flags := uleb(); flags&1 != 0 {
			uleb()
		}
		uleb()
	}
	for i < len(mod) {
		id := mod[i]
		i++
		end := uleb()
		end += i
		if end > len(mod) {
			return nil, nil, bad
		}
		switch id {
		case 2:
			for n := uleb(); n > 0; n-- {
				m, name := str(), str()
				kind := mod[i]
				i++
				switch kind {
				case 0:
					uleb()
					imports = append(imports, m+"."+name)
				case 1:
					i++
					limits()
				case 2:
					limits()
				case 3:
					i += 2
				default:
					return nil, nil, bad
				}
			}
		case 7:
			for n := uleb(); n > 0; n-- {
				exports = append(exports, str())
				i++ // kind
				uleb()
			}
		}
		i = end
	}
	return imports, exports, nil
}

// wasmFuncs returns the size of the body of each function of a wasm
// module, by the name its name section gives it.
func wasmFuncs(mod []byte) (map[string]int, error) {
	bad := errors.New("not a wasm module this parser understands")
	if len(mod) < 8 || string(mod[:4]) != "\x00asm" {
		return nil, bad
	}
	i := 8
	uleb := func() int {
		v, shift := 0, 0
		for i < len(mod) {
			c := mod[i]
			i++
			v |= int(c&0x7f) << shift
			if c < 0x80 {
				return v
			}
			shift += 7
		}
		return 0
	}
	limits := func() {
		flags := uleb()
		uleb() // minimum
		if flags&1 != 0 {
			uleb() // maximum
		}
	}
	imports := 0
	var bodies []int
	names := map[int]string{}
	for i < len(mod) {
		id := mod[i]
		i++
		end := uleb()
		end += i
		if end > len(mod) {
			return nil, bad
		}
		switch id {
		case 2: // imports: count the imported functions, which come first
			for n := uleb(); n > 0; n-- {
				i += uleb() // module
				i += uleb() // name
				kind := mod[i]
				i++
				switch kind {
				case 0: // function: type index
					uleb()
					imports++
				case 1: // table: element type, limits
					i++
					limits()
				case 2: // memory: limits
					limits()
				case 3: // global: type, mutability
					i += 2
				default:
					return nil, bad
				}
			}
		case 10: // code
			for n := uleb(); n > 0; n-- {
				size := uleb()
				bodies = append(bodies, size)
				i += size
			}
		case 0: // custom: the name section's function names
			name := string(mod[i+1 : i+1+int(mod[i])])
			if name == "name" && mod[i] < 0x80 {
				i += 1 + len(name)
				for i < end {
					sub := mod[i]
					i++
					subEnd := uleb()
					subEnd += i
					if sub == 1 {
						for n := uleb(); n > 0; n-- {
							idx := uleb()
							l := uleb()
							names[idx] = string(mod[i : i+l])
							i += l
						}
					}
					i = subEnd
				}
			}
		}
		i = end
	}
	funcs := make(map[string]int, len(bodies))
	for k, size := range bodies {
		if name, ok := names[imports+k]; ok {
			funcs[name] = size
		}
	}
	if len(funcs) == 0 {
		return nil, errors.New("the module has no function names (built with -s?)")
	}
	return funcs, nil
}
