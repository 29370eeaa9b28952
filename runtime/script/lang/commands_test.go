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

// TestUseFormat: Format writes a script with use as it was written: the
// flags a work or race takes from a use stay in the use, a flag a work
// names at its default value stays on the work, and the script reads back
// the same.
func TestUseFormat(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{"use --claim lock --key event\nwork --job 1\nrace --all\n", "use --claim lock --key event\nwork --job 1\nrace --all\n"},
		{"use --key event --claim lock\nwork --job 1 --claim read --key none\nrace read 3\n", "use --claim lock --key event\nwork --job 1 --claim read --key none\nrace read 3\n"},
		{"work --job 1 --claim read\nrace read 3\n", "work --job 1\nrace read 3\n"},
		{"use --lease 5\nuse --fence\n( work --job 1 ) &\n", "use --lease 5\nuse --fence\n( work --job 1 ) &\n"},
	} {
		s, err := Parse(tt.src)
		if err != nil {
			t.Fatalf("%q: %v", tt.src, err)
		}
		if got := Format(s); got != tt.want {
			t.Errorf("Format(%q) = %q, want %q", tt.src, got, tt.want)
		}
	}
	s, err := Parse("use --claim atomic --key event --lease 5\nwork --job 1 --key none\n")
	if err != nil {
		t.Fatal(err)
	}
	w := s.Commands[1].Work
	if w.Claim.String() != "atomic" || w.Key.String() != "none" || w.Lease != 5*1_000_000 {
		t.Errorf("the work got claim %s, key %s, lease %d", w.Claim, w.Key, w.Lease)
	}
}
