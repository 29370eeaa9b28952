package lang

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twice-lab/twice/runtime/queue"
)

// The claim toggle rewrites the reader's text: only the tokens the parser
// read as claims change, and comments, spacing and wrappers stay.
func TestWithClaimKeepsTheText(t *testing.T) {
	for _, c := range []struct{ src, claim, want string }{
		// A word that starts with a claim's name is not a claim, nor is a
		// comment that names one.
		{"add read-conditional\n  race   read\t20   # race read, not race atomic\nwork --job 1 --claim=read   --trace # --claim read\n", "atomic",
			"add read-conditional\n  race   atomic\t20   # race read, not race atomic\nwork --job 1 --claim=atomic   --trace # --claim read\n"},
		{"race async-lock 3 && work --job 1 --claim lock", "atomic", "race atomic 3 && work --job 1 --claim atomic"},
		{"race lock 3;race read 3", "async-lock", "race async-lock 3;race async-lock 3"},
		// The article's wrappers.
		{"( node queue.mjs race read 20 && node queue.mjs effects ) 2>/dev/null\n", "atomic", "( node queue.mjs race atomic 20 && node queue.mjs effects ) 2>/dev/null\n"},
		{"(twice work --job 1 --worker W1) 2>/dev/null", "lock", "(twice work --job 1 --worker W1 --claim lock) 2>/dev/null"},
		{"work --job 1 2>/dev/null", "atomic", "work --job 1 --claim atomic 2>/dev/null"},
		// A command that names no claim gets one.
		{"add o\nwork --job 1", "atomic", "add o\nwork --job 1 --claim atomic"},
		{"race 20\nrace --all --workers 3\n", "atomic", "race atomic 20\nrace atomic --all --workers 3\n"},
		{"load 10 --processing fixed:100 --lease 1\n", "read", "load 10 --processing fixed:100 --lease 1 --claim read\n"},
		{"add o\nwork --job 1 --delay 5 & sleep 1\n", "atomic", "add o\nwork --job 1 --delay 5 --claim atomic & sleep 1\n"},
		{"add o\nwork --job 1 \\\n    --trace\r\n", "atomic", "add o\nwork --job 1 \\\n    --trace --claim atomic\r\n"},
		// A use's claim is set in the use; what takes it from there stays.
		{"use --claim lock --trace\nadd o\nwork --job 1\nrace 3\n", "read", "use --claim read --trace\nadd o\nwork --job 1\nrace 3\n"},
		{"use --claim=lock\nwork --job 1 --claim read --worker W2\n", "atomic", "use --claim=atomic\nwork --job 1 --claim atomic --worker W2\n"},
		// The claim it has already: nothing changes.
		{"race read 20 # read\nwork --job 1\n", "read", "race read 20 # read\nwork --job 1\n"},
		{"add o\njobs # race read\n", "atomic", "add o\njobs # race read\n"},
	} {
		s, err := Parse(c.src)
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		claim, _ := queue.ParseClaim(c.claim)
		if got := s.WithClaim(claim); got != c.want {
			t.Errorf("%q with claim %s:\n got %q\nwant %q", c.src, c.claim, got, c.want)
		}
		checkWithClaim(t, s)
	}
}

// TestClaimIsTheToggles checks the claim the toggle shows for a script.
func TestClaimIsTheToggles(t *testing.T) {
	for src, want := range map[string]string{
		"race read 20":                                        "read",
		"race lock 20":                                        "lock",
		"add race-atomic-order\nwork --job 1":                 "read",
		"race read 3; race atomic 3":                          "atomic",
		"use --claim async-lock\nwork --job 1":                "async-lock",
		"add o\nwork --job 1 --delay 5 --claim lock &":        "lock",
		"jobs # race atomic":                                  "read",
		"load 10 --processing fixed:1 --lease 1":              "atomic", // load's own default
		"load 10 --processing fixed:1 --lease 1 --claim read": "read",
	} {
		s, err := Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Claim().String(); got != want {
			t.Errorf("%q: claim %s, want %s", src, got, want)
		}
	}
}

// checkWithClaim checks WithClaim against the parser for every claim:
// the text it writes parses, runs every race, work and load with the
// claim, is otherwise the script's own commands, keeps every comment, and
// a script with the claim already comes back as it was.
func checkWithClaim(t *testing.T, s *Script) {
	t.Helper()
	for _, claim := range queue.Claims() {
		out := s.WithClaim(claim)
		got, err := Parse(out)
		var le *Error
		if errors.As(err, &le) && le.Kind == "limit" {
			// Some claims cost more than others (race --all explores
			// more states with async-lock): the script with this one
			// passes a limit, and the claim toggle offers it off, saying
			// so (package views).
			continue
		}
		if err != nil {
			t.Fatalf("with claim %s, %q does not parse: %v\nfrom %q", claim, out, err, s.src)
		}
		if f, want := Format(got), Format(&Script{Commands: setClaim(s.Commands, claim)}); f != want {
			t.Fatalf("with claim %s, %q reads as\n%q, want\n%q", claim, out, f, want)
		}
		walkClaims(got.Commands, func(c *Command) bool {
			if cl, ok := c.claim(); ok && cl != claim {
				t.Fatalf("with claim %s, %q has a %s claiming %s", claim, out, c.Kind, cl)
			}
			return true
		})
		for _, line := range strings.Split(s.src, "\n") {
			if i := strings.Index(line, "#"); i >= 0 && !strings.Contains(out, line[i:]) {
				t.Fatalf("with claim %s, the comment %q is gone from %q", claim, line[i:], out)
			}
		}
		if again := got.WithClaim(claim); again != out {
			t.Fatalf("with claim %s twice: %q, then %q", claim, out, again)
		}
	}
}

// TestWithClaimOfTheLessons checks WithClaim on every block of the
// built-in lessons (the goldens are checked in FuzzParse's corpus).
func TestWithClaimOfTheLessons(t *testing.T) {
	files, _ := filepath.Glob("../../../lessons/*.md")
	n := 0
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		parts := strings.Split(string(b), "```twice")
		for _, p := range parts[1:] {
			_, body, _ := strings.Cut(p, "\n")
			src, _, _ := strings.Cut(body, "```")
			if s, err := Parse(src); err == nil {
				checkWithClaim(t, s)
				n++
			}
		}
	}
	if n < 20 {
		t.Fatalf("checked %d blocks of the lessons; want them all", n)
	}
}
