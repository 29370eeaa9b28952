package site

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/twice-lab/twice/runtime/script/interp"
	"github.com/twice-lab/twice/runtime/script/result"
)

// TestJavaScript runs the unit tests of the component's pure helpers
// (jstest/*.test.mjs) under Node's built-in test runner, so that go test
// ./... covers them. Without node it skips loudly; with
// TWICE_REQUIRE_NODE=1 (as .ci/run sets it) a missing node is a failure.
// It runs under -short too: it takes about a second.
func TestJavaScript(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		msg := "no node on PATH (install Debian's nodejs)"
		if os.Getenv("TWICE_REQUIRE_NODE") == "1" {
			t.Fatalf("TWICE_REQUIRE_NODE=1 but %s", msg)
		}
		t.Skipf("SKIPPING JAVASCRIPT UNIT TESTS: %s; set TWICE_REQUIRE_NODE=1 to make this a failure", msg)
	}
	tests, err := filepath.Glob(filepath.Join("jstest", "*.test.mjs"))
	if err != nil || len(tests) == 0 {
		t.Fatalf("no JavaScript tests in jstest (%v)", err)
	}
	// go test caches a result by the files its process opens; node reads
	// these in another process, so open them here, so that an edit to a
	// module (the tests import links.js, render.js, config.js and, through
	// playground.js, all the others), to package.json or to a test runs
	// this again.
	modules, err := filepath.Glob(filepath.Join("static", "*.js"))
	if err != nil || len(modules) == 0 {
		t.Fatalf("no modules in static (%v)", err)
	}
	for _, f := range append(append(modules, "package.json"), tests...) {
		if _, err := os.ReadFile(f); err != nil {
			t.Fatal(err)
		}
	}
	// The page takes its lists of claims, dedupe modes and keys from the
	// server's config; the tests get the same lists, from the runtime.
	choices, err := json.Marshal(result.Choices())
	if err != nil {
		t.Fatal(err)
	}
	// A script that fails, as the runtime returns it to the page, and the
	// line the command line prints for it (after its "twice run: -c: "):
	// the page must say the error the same way.
	bad := interp.Run("race read --wat\n", interp.Options{Seed: interp.DefaultSeed})
	failed, err := json.Marshal(map[string]any{"result": bad, "cli": bad.Error.Error()})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, append([]string{"--test", "--test-reporter=spec"}, tests...)...)
	cmd.Env = append(os.Environ(), "TWICE_CHOICES="+string(choices), "TWICE_FAILED="+string(failed))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test %v: %v\n%s", tests, err, out)
	}
	t.Logf("node --test:\n%s", out)
}
