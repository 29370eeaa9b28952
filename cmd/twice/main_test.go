package main

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/twice-lab/twice/runtime/script/lang"
	"github.com/twice-lab/twice/server"
)

// TestMain lets testscript run this package's main as the "twice" command.
// The site's brotli forms are made at the fastest quality: these tests
// check what twice build writes and says, not how small it is.
func TestMain(m *testing.M) {
	server.BrotliQuality = brotli.BestSpeed
	server.GzipLevel = gzip.BestSpeed
	testscript.Main(m, map[string]func(){
		"twice": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs testdata/script/*.txtar: the CLI as a user types it.
// Run with -testwork to keep the work directories; `go test ./cmd/twice
// -run Scripts -update` rewrites the expected output in place.
func TestScripts(t *testing.T) {
	example, err := filepath.Abs(filepath.Join("..", "..", "docs", "example-case"))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *updateScripts,
		// $EXAMPLE_CASE is the teachers' example case folder of docs.
		// $FAKE_WASM is a stand-in runtime for twice build --wasm.
		Setup: func(e *testscript.Env) error {
			e.Setenv("EXAMPLE_CASE", example)
			dir := filepath.Join(e.WorkDir, ".fakewasm")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, "twice.wasm"), []byte("\x00asm\x01\x00\x00\x00fake module for tests"), 0o644); err != nil {
				return err
			}
			e.Setenv("FAKE_WASM", filepath.Join(dir, "twice.wasm"))
			return os.WriteFile(filepath.Join(dir, "wasm_exec.js"), []byte("// fake wasm_exec.js\n"), 0o644)
		},
	})
}

// testscript's "! exec" only says "non-zero"; the exit codes are part of
// the contract, so check them exactly.
func TestExitCodes(t *testing.T) {
	tests := []struct {
		args  []string
		want  int
		stdin string
	}{
		{args: []string{"run", "-c", "add o && work --job 1"}, want: 0},
		{args: []string{"run", "-c", "add o && work --job 1 --crash-before-ack"}, want: 0}, // a killed worker is the story, not an error
		{args: []string{"run", "-c", "work --job 1"}, want: 1},
		{args: []string{"run", "-c", "frob"}, want: 2},
		{args: []string{"run", "--auto", "-c", "race read 10000 --workers 8"}, want: 1}, // heavy: the auto budget ran out
		{args: []string{"run", "--json", "-c", "frob"}, want: 2},
		{args: []string{"run", "--bogus"}, want: 2},
		{args: []string{"run"}, want: 2},
		{args: []string{"run", "-h"}, want: 0},
		{args: []string{}, want: 2},
		{args: []string{"nope"}, want: 2},
		{args: []string{"case", "list"}, want: 0},
		{args: []string{"case", "list", "--lessons", "../../docs/example-case"}, want: 0},
		{args: []string{"case", "check", "--lessons", "../../docs/example-case", "receipt-sent-twice", "--fix", "-"}, want: 1}, // an empty fix fails a check
		{args: []string{"case", "check", "--lessons", "../../docs/example-case", "nope", "--fix", "-"}, want: 2},
		{args: []string{"case", "check", "--lessons", "../../docs/example-case", "receipt-sent-twice"}, want: 2},
		{args: []string{"case"}, want: 2},
		{args: []string{"case", "check", "two-workers-completed", "--fix", "-"}, want: 0, stdin: "service --dedupe claim\nuse --claim atomic --key event\n"},
		{args: []string{"case", "check", "two-workers-completed", "--fix", "-"}, want: 2, stdin: "add o\n"}, // refused: not a change to the system
		{args: []string{"case", "check", "two-workers-completed", "--fix", "/dev/zero"}, want: 2},
	}
	for _, tt := range tests {
		var out, errb strings.Builder
		if got := run(tt.args, strings.NewReader(tt.stdin), &out, &errb); got != tt.want {
			t.Errorf("twice %v: exit %d, want %d (stderr %q)", tt.args, got, tt.want, errb.String())
		}
	}
}

// twice run --help lists every command of the script language, each with
// its example.
func TestRunHelpListsCommands(t *testing.T) {
	var out, errb strings.Builder
	if code := run([]string{"run", "--help"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("twice run --help: exit %d", code)
	}
	help := out.String() + errb.String()
	for _, c := range lang.Commands() {
		if !strings.Contains(help, "\n  "+c.Usage+"\n") || !strings.Contains(help, "e.g. "+c.Example+"\n") {
			t.Errorf("twice run --help does not list %q with its example", c.Name)
		}
	}
}
