package cases

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/twice-lab/twice/runtime/script/lang"
)

// A Fix is the reader's change to a case's system: lines of use and
// service commands that every check runs first. [ParseFix] reads one.
type Fix struct {
	// Source is the fix as written.
	Source string
	// Lines are its commands in canonical form, one a line, in order:
	// what a check runs before its own lines.
	Lines []string
}

// FixUseFlags are the flags of use a fix may set: how a worker claims a
// job (and in which transaction, with what busy timeout), how long it
// holds it and how it lets go of its lock, which key its
// request carries, where its effect lands, and how many deliveries the
// queue makes before it gives a job up. The other flags of use (--delay, --timeout,
// --processing, --stall, --trace, the --crash-before flags) set up what a
// check runs, not the system under test, and a check sets them itself.
var FixUseFlags = []string{"claim", "lease", "heartbeat", "fence", "key", "effect", "key-txn", "release", "max-attempts", "txn", "busy-timeout"}

// FixRule says in words what a fix may hold, as a refused fix's error
// ends.
func FixRule() string {
	flags := make([]string, len(FixUseFlags))
	for i, f := range FixUseFlags {
		flags[i] = "--" + f
	}
	return "a fix is use lines (with " + strings.Join(flags, ", ") + ") and service lines (--dedupe MODE, --key-ttl S), nothing else"
}

// A FixError is why a fix is refused: its line (from 1; 0 for the whole
// fix) and what is wrong.
type FixError struct {
	Line int
	Msg  string
}

func (e *FixError) Error() string {
	if e.Line == 0 {
		return e.Msg
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// ParseFix reads a fix. It refuses, naming the line and saying what a
// fix may hold, a fix that does not parse, any command but use and
// service (a fix changes the system; a check alone sets up its jobs,
// workers, timings and failures), and a use flag outside [FixUseFlags].
// A fix is parsed on its own, never joined to a check's lines as text, so
// that nothing of it (a trailing &&, say) reaches into a check.
func ParseFix(src string) (*Fix, error) {
	s, err := lang.Parse(src)
	if err != nil {
		var le *lang.Error
		if errors.As(err, &le) {
			return nil, &FixError{Line: le.Line, Msg: le.Msg}
		}
		return nil, &FixError{Msg: err.Error()}
	}
	f := &Fix{Source: src}
	for _, c := range s.Commands {
		switch c.Kind {
		case lang.CmdService:
		case lang.CmdUse:
			for _, name := range c.Use.Given {
				if !slices.Contains(FixUseFlags, name) {
					return nil, &FixError{Line: c.Pos.Line, Msg: fmt.Sprintf("use --%s is part of what a check sets up, not of the system; %s", name, FixRule())}
				}
			}
		case lang.CmdBackground:
			return nil, &FixError{Line: c.Pos.Line, Msg: "a fix runs nothing in the background; " + FixRule()}
		default:
			return nil, &FixError{Line: c.Pos.Line, Msg: fmt.Sprintf("%s is a command a check runs, not a change to the system; %s", c.Kind, FixRule())}
		}
		f.Lines = append(f.Lines, c.String())
	}
	return f, nil
}

// script is the script a check runs: the fix's lines, then the check's,
// and how many lines come before the check's first.
func (f *Fix) script(check string) (string, int) {
	if f == nil || len(f.Lines) == 0 {
		return check, 0
	}
	return strings.Join(f.Lines, "\n") + "\n" + check, len(f.Lines)
}
