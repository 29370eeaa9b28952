package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"flag"
	"fmt"
	"html"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/andybalholm/brotli"

	"github.com/twice-lab/twice/internal/browsertest"
	"github.com/twice-lab/twice/runtime/script/diagnosis"
	"github.com/twice-lab/twice/runtime/script/result"
	"github.com/twice-lab/twice/server/wasmbuild"
)

// fakeRuntime is a stand-in for the wasm module where its content does not
// matter: rendering, HTTP and export tests. It is large enough to count as
// a big file for the compression policies, and compresses quickly.
func fakeRuntime() *wasmbuild.Runtime {
	wasm := append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte("twice fake module "), (bigFile/18)+100)...)
	return &wasmbuild.Runtime{Wasm: wasm, WasmExec: []byte("// fake wasm_exec.js for tests\n" + strings.Repeat("// padding\n", 60)), From: "test"}
}

var (
	realOnce  sync.Once
	realRT    *wasmbuild.Runtime
	realErr   error
	realTook  time.Duration
	realBuilt bool

	// handedAndSkipped names the tests that were given the real runtime
	// and then skipped: they built or rendered for nothing.
	handedAndSkipped struct {
		sync.Mutex
		names []string
	}
)

// TestMain builds the real wasm runtime before any test starts when the
// whole package runs in full (no -short, no -run): the build then takes
// the time it needs (about 40 s with an empty build cache, longer on a busy
// machine) outside the test binary's -timeout clock, which starts with the
// first test, and before any test's own timeouts. Under -run the build
// happens at the first test that needs it; under -short no test does.
//
// Brotli runs at its fastest quality: no test here measures how well it
// compresses, only that its forms decode and are served.
func TestMain(m *testing.M) {
	flag.Parse()
	BrotliQuality = brotli.BestSpeed
	GzipLevel = gzip.BestSpeed
	if run := flag.Lookup("test.run"); !testing.Short() && run != nil && run.Value.String() == "" {
		buildRealRuntime()
		if realErr != nil {
			fmt.Fprintf(os.Stderr, "building the wasm runtime: %v\n", realErr)
		}
	}
	code := m.Run()
	// The quick loop builds no wasm module.
	if testing.Short() && realBuilt {
		fmt.Fprintln(os.Stderr, "FAIL: a test built the wasm runtime under -short; call realRuntime or builtRuntime only where the test cannot run without it, and skip under -short before")
		code = 1
	}
	if names := handedAndSkipped.names; len(names) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: %s skipped after it was given the wasm runtime; a test skips before it asks for the module (realRuntime skips when there is no browser)\n", strings.Join(names, ", "))
		code = 1
	}
	// A skipped browser test or accessibility gate says so in one line
	// that go test ./... shows without -v.
	browsertest.Report(os.Stderr)
	os.Exit(code)
}

// buildRealRuntime builds the wasm module once per test binary. The go
// command's build cache makes this a second or two after the first build.
func buildRealRuntime() {
	realOnce.Do(func() {
		realBuilt = true
		start := time.Now()
		realRT, realErr = wasmbuild.BuildRuntime(context.Background(), wasmbuild.BuildOptions{})
		realTook = time.Since(start)
	})
}

// openWasmSources opens the files of ../wasm. go test caches results by
// the files the test process opens; a go build of ./wasm reads them in
// another process, so a test that builds it opens them too, so that an
// edit there reruns it. Opens before the first test are not recorded, so
// every test that uses the build calls it.
func openWasmSources() {
	if ents, err := os.ReadDir("../wasm"); err == nil {
		for _, e := range ents {
			os.ReadFile("../wasm/" + e.Name())
		}
	}
}

// realRuntime returns the real wasm runtime for a browser test, building
// it if TestMain did not. It skips t as [browsertest.Require] does (under
// -short, or with no browser installed) before building or rendering
// anything for it; a test that needs the module without a browser calls
// builtRuntime.
func realRuntime(t *testing.T) *wasmbuild.Runtime {
	t.Helper()
	browsertest.Require(t)
	return builtRuntime(t)
}

// builtRuntime returns the real wasm runtime, building it if TestMain did
// not. A test given it that then skips fails the package (see TestMain).
func builtRuntime(t *testing.T) *wasmbuild.Runtime {
	t.Helper()
	openWasmSources()
	buildRealRuntime()
	if realErr != nil {
		t.Fatalf("building the wasm runtime: %v", realErr)
	}
	t.Logf("the wasm runtime (%d bytes) took %v to build", len(realRT.Wasm), realTook.Round(time.Millisecond))
	t.Cleanup(func() {
		if t.Skipped() {
			handedAndSkipped.Lock()
			defer handedAndSkipped.Unlock()
			handedAndSkipped.names = append(handedAndSkipped.names, t.Name())
		}
	})
	return realRT
}

var (
	widgetRE = regexp.MustCompile(`(?s)<twice-playground id="block-(\d+)"[^>]*>(.*?)</twice-playground>`)
	scriptRE = regexp.MustCompile(`(?s)<pre class="twice-script"><code>(.*?)</code></pre>`)
	outRE    = regexp.MustCompile(`(?s)<pre class="twice-output"><code>(.*?)</code></pre>`)
)

// widget is a <twice-playground> element of a rendered page, read back.
type widget struct {
	Index  string
	Script string
	Output string
	Inner  string
}

// widgets finds the playgrounds of a page.
func widgets(page []byte) []widget {
	var ws []widget
	for _, m := range widgetRE.FindAllSubmatch(page, -1) {
		w := widget{Index: string(m[1]), Inner: string(m[2])}
		if s := scriptRE.FindSubmatch(m[2]); s != nil {
			w.Script = html.UnescapeString(string(s[1]))
		}
		if o := outRE.FindSubmatch(m[2]); o != nil {
			w.Output = html.UnescapeString(string(o[1]))
		}
		ws = append(ws, w)
	}
	return ws
}

// artifactDir is where tests keep files worth looking at: $TWICE_ARTIFACTS
// when set, else a temporary directory that outlives the test.
func artifactDir(t *testing.T) string {
	dir := os.Getenv("TWICE_ARTIFACTS")
	if dir == "" {
		dir = os.TempDir() + "/twice-artifacts"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// orderLine is a transcript line about one order, as render.js reads it.
var orderLine = regexp.MustCompile(`^([A-Za-z0-9_.:-]+): `)

// shownText is a Result's transcript as a block on the page shows it:
// the diagnosis line of each order that the diagnosis panel explains is
// left out, so that a diagnosis is said once per view (render.js,
// transcriptLines and diagnosisPlan: the first three orders, those with
// a duplicate first; under a load, only orders that did not run once).
func shownText(res *result.Result) string {
	var bad, good []diagnosis.Summary
	for _, s := range res.Summary {
		if s.Kind.Good() {
			good = append(good, s)
		} else {
			bad = append(bad, s)
		}
	}
	ordered := append(bad, good...)
	if len(res.Loads) > 0 {
		ordered = slices.DeleteFunc(ordered, func(s diagnosis.Summary) bool { return s.Kind == diagnosis.Once })
	}
	said := map[string]bool{}
	for i, s := range ordered {
		if i == 3 {
			break
		}
		said[s.Order+"\n"+s.Diagnosis] = true
	}
	var out []string
	order := ""
	for _, l := range strings.SplitAfter(res.Text(), "\n") {
		if d, ok := strings.CutPrefix(l, "  diagnosis: "); ok {
			if said[order+"\n"+strings.TrimSuffix(d, "\n")] {
				continue
			}
		} else if m := orderLine.FindStringSubmatch(l); m != nil {
			order = m[1]
		} else {
			order = ""
		}
		out = append(out, l)
	}
	return strings.Join(out, "")
}
