package lang

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// goldens are the interpreter's golden transcripts: scripts of every
// command, which the parser's tests read too.
const goldens = "../interp/testdata/*.txtar"

// section returns the named file of a txtar archive.
func section(ar *txtar.Archive, name string) (string, bool) {
	for _, f := range ar.Files {
		if f.Name == name {
			return string(f.Data), true
		}
	}
	return "", false
}

// FuzzParse checks that the parser never panics, that every error it
// returns is a one-line *Error, and the round-trip property: formatting a
// parsed script and parsing it again gives the same commands, and
// formatting is stable; and Script.WithClaim holds (checkWithClaim).
//
//	go test ./runtime/script/lang -run '^$' -fuzz FuzzParse -fuzztime 10m
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(goldens)
	for _, file := range files {
		if ar, err := txtar.ParseFile(file); err == nil {
			if src, ok := section(ar, "script"); ok {
				f.Add(src)
			}
		}
	}
	f.Add("work --job=1 --lease=0.25 --claim=lock --timeout 1 --delay 0")
	f.Add("service --dedupe check --key-ttl 0.5 && add o --event e-1 --times 3; redeliver --job 2; work --job 1 --key event; race read 3 --key job")
	f.Add("use --claim lock --key event --lease 5\nwork --job 1 --claim read --key none\nrace --all\nrace atomic 3 --key event\n( work --job 1 --worker W2 ) &")
	f.Add("use --effect ledger --key-txn separate && work --job 1 && use --trace --delay 0 && race 2 --delay 400")
	f.Fuzz(func(t *testing.T, src string) {
		s, err := Parse(src)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			if strings.Contains(e.Error(), "\n") {
				t.Fatalf("multi-line error %q", e.Error())
			}
			return
		}
		out := Format(s)
		s2, err := Parse(out)
		if err != nil {
			t.Fatalf("formatted script does not parse: %v\n%s", err, out)
		}
		if !sameCommands(s, s2) {
			t.Fatalf("round trip changed the script\nin:  %q\nout: %q", src, out)
		}
		if out2 := Format(s2); out2 != out {
			t.Fatalf("format is not stable:\n%q\n%q", out, out2)
		}
		checkWithClaim(t, s)
	})
}

func sameCommands(a, b *Script) bool {
	if len(a.Commands) != len(b.Commands) {
		return false
	}
	for i := range a.Commands {
		x, y := stripPos(a.Commands[i]), stripPos(b.Commands[i])
		if i == 0 {
			// The first command's operator has nothing to join.
			x.Op, y.Op = OpSeq, OpSeq
		}
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

// stripPos clears the positions of c (its line and column, and the byte
// offsets Script.WithClaim edits at, and the values as written, which
// Script.Numbers reads) and of the commands of its body.
func stripPos(c Command) Command {
	c.Pos = Pos{}
	c.claimAt, c.claimEnd, c.nameEnd, c.argsEnd = 0, 0, 0, 0
	c.values = nil
	if c.Body != nil {
		body := make([]Command, len(c.Body))
		for i, sub := range c.Body {
			body[i] = stripPos(sub)
		}
		c.Body = body
	}
	return c
}

func TestFormatRoundTripGoldens(t *testing.T) {
	files, _ := filepath.Glob(goldens)
	for _, file := range files {
		b, _ := os.ReadFile(file)
		ar := txtar.Parse(b)
		src, _ := section(ar, "script")
		s, err := Parse(src)
		if err != nil {
			continue
		}
		s2, err := Parse(Format(s))
		if err != nil || !sameCommands(s, s2) {
			t.Errorf("%s: round trip failed: %v\n%s", file, err, Format(s))
		}
	}
}
