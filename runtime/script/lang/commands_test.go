package lang

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every Kind a script can type has an entry in the command table, and
// every entry's example parses to that Kind (the interpreter's tests run
// every example to the end).
func TestCommandTable(t *testing.T) {
	covered := map[Kind]bool{}
	names := map[string]bool{}
	for _, s := range commandTable {
		if names[s.name] {
			t.Errorf("command %q is in the table twice", s.name)
		}
		names[s.name] = true
		covered[s.kind] = true
		if s.summary == "" || s.example == "" {
			t.Errorf("command %q: summary and example are both needed", s.name)
		}
		if s.raw != nil && (len(s.flags) > 0 || s.finish != nil || s.start != nil) {
			t.Errorf("command %q: a command that reads its words raw has no flag table", s.name)
		}
		flags := map[string]bool{}
		for _, f := range s.flags {
			if flags[f.name] || f.name == "" || strings.HasPrefix(f.name, "-") || f.set == nil {
				t.Errorf("command %q: flag %q is repeated, unnamed or has no set", s.name, f.name)
			}
			flags[f.name] = true
			if !strings.Contains(s.synopsis(), "--"+f.name) {
				t.Errorf("command %q: the synopsis %q does not show --%s", s.name, s.synopsis(), f.name)
			}
		}

		sc, err := Parse(s.example)
		if err != nil {
			t.Errorf("command %q: example %q does not parse: %v", s.name, s.example, err)
			continue
		}
		if !usesKind(sc.Commands, s.kind) {
			t.Errorf("command %q: example %q has no %v command", s.name, s.example, s.kind)
		}
	}
	for _, k := range Kinds() {
		if k != CmdBackground && !covered[k] {
			t.Errorf("kind %v has no entry in the command table", k)
		}
	}
}

func usesKind(cmds []Command, k Kind) bool {
	for _, c := range cmds {
		if c.Kind == k || usesKind(c.Body, k) {
			return true
		}
	}
	return false
}

// The unknown-command error lists every command of the table.
func TestUnknownCommandListsTable(t *testing.T) {
	_, err := Parse("frob")
	if err == nil {
		t.Fatal("frob parsed")
	}
	for _, s := range commandTable {
		if !strings.Contains(err.Error(), s.name) {
			t.Errorf("the unknown-command error %q does not offer %q", err, s.name)
		}
	}
}

var update = flag.Bool("update", false, "rewrite docs/COMMANDS.md from the command table")

// docs/COMMANDS.md is the command table written out; -update rewrites it.
func TestCommandReference(t *testing.T) {
	path := filepath.Join("..", "..", "..", "docs", "COMMANDS.md")
	want := CommandReference()
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./runtime/script/lang -run CommandReference -update writes it)", err)
	}
	if string(got) != want {
		t.Errorf("docs/COMMANDS.md differs from the command table; run go test ./runtime/script/lang -run CommandReference -update and review the diff")
	}
	for _, s := range commandTable {
		if !strings.Contains(string(got), "\n## "+s.name+"\n") {
			t.Errorf("docs/COMMANDS.md has no section for %q", s.name)
		}
	}
}
