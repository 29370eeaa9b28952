package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/twice-lab/twice/cases"
	"github.com/twice-lab/twice/lessons"
	"github.com/twice-lab/twice/server"
)

var caseUsage = `usage: twice case list [--lessons DIR]
       twice case show [--lessons DIR] NAME
       twice case check [--lessons DIR] NAME --fix FILE

list prints the cases of the lesson folder (the built-in one unless
--lessons names another), one a line. show prints case NAME as a
reader works it: the symptom, the question to answer, how to
investigate, the run that reproduces it, each hypothesis's experiment,
the system a fix starts from and the checks. check runs case NAME's checks
after the fix in FILE (- for standard input; a regular file of at most
64 KiB, as twice run reads) and prints one line per check, "pass NAME:
evidence" or "fail NAME: evidence". A fix changes the system only, and
anything else is refused, naming its line:
  ` + cases.FixRule() + `.
It exits 0 when every check passes, 1 when one fails, 2 on a usage
error, a refused fix or a case that cannot be read.
`

// cmdCase is `twice case`.
func cmdCase(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, caseUsage)
		return 2
	}
	switch args[0] {
	case "list", "show", "check":
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, caseUsage)
		return 0
	default:
		fmt.Fprintf(stderr, "twice case: unknown subcommand %q (want list, show or check)\n%s", args[0], caseUsage)
		return 2
	}
	sub := args[0]
	fset := newFlagSet("case "+sub, caseUsage, stderr)
	dir := fset.String("lessons", "", "read the cases of the lesson folder `DIR` instead of the built-in ones")
	var fix *string
	if sub == "check" {
		fix = fset.String("fix", "", "the fix prelude to check, a script `FILE` (- for standard input)")
	}
	pos, code, done := parseCaseArgs(fset, args[1:], stderr)
	if done {
		return code
	}
	if code := checkDir(*dir, "case", stderr); code != 0 {
		return code
	}
	fsys, where, closeFolder, err := caseFolder(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "twice case: %v\n", err)
		return 2
	}
	defer closeFolder()
	all, lerr := lessons.LoadCases(fsys)
	switch sub {
	case "list":
		return listCases(all, lerr, pos, where, stdout, stderr)
	case "show":
		return showCase(all, lerr, pos, where, stdout, stderr)
	}
	return checkCase(all, lerr, pos, where, *fix, stdin, stdout, stderr)
}

// parseCaseArgs reads the flags, which may come before and after NAME,
// and returns the words that are not flags; done says the command ends
// here with code.
func parseCaseArgs(fset *flag.FlagSet, rest []string, stderr io.Writer) (pos []string, code int, done bool) {
	for {
		if code, done := parseFlags(fset, rest, true, stderr); done {
			return nil, code, true
		}
		if fset.NArg() == 0 {
			return pos, 0, false
		}
		pos = append(pos, fset.Arg(0))
		rest = fset.Args()[1:]
	}
}

// listCases prints one line per case: its name and what it is.
func listCases(all []cases.Case, lerr error, pos []string, where string, stdout, stderr io.Writer) int {
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "twice case list: unexpected argument %q\n", pos[0])
		return 2
	}
	for _, c := range all {
		fmt.Fprintf(stdout, "%s\t%s\n", c.Slug, describe(c))
	}
	if lerr != nil {
		fmt.Fprintf(stderr, "twice case list: %s: %v\n", where, lerr)
		return 1
	}
	return 0
}

// showCase prints the case named in pos for a reader at a terminal: what
// the page shows before its evidence desk, the focus question, the
// investigation's steps, the scripts to run and the checks.
func showCase(all []cases.Case, lerr error, pos []string, where string, stdout, stderr io.Writer) int {
	c, code := oneCase(all, lerr, pos, where, "show", stderr)
	if c == nil {
		return code
	}
	fmt.Fprintf(stdout, "%s (%s)\n", c.Title, strings.TrimSuffix(strings.TrimPrefix(describe(*c), c.Title+" ("), ")"))
	for _, sec := range []struct {
		name string
		p    cases.Prose
	}{{"Symptom", c.Symptom}, {"Expected", c.Expected}, {"Actual", c.Actual}, {"Question", c.Question}, {"Investigation", c.Investigation}} {
		if t := strings.TrimSpace(sec.p.Text); t != "" {
			fmt.Fprintf(stdout, "\n%s\n%s\n", sec.name, indentLines(t))
		}
	}
	fmt.Fprintf(stdout, "\nReproduce (the evidence's run; twice run FILE)\n%s\n", indentLines(c.Evidence.Script))
	for _, h := range c.Hypotheses {
		fmt.Fprintf(stdout, "\nHypothesis: %s\n%s\n", h.Title, indentLines(h.Experiment.Script))
	}
	fmt.Fprintf(stdout, "\nThe system a fix starts from (twice case check %s --fix FILE)\n%s\n", c.Slug, indentLines(c.Fix.Script))
	fmt.Fprintf(stdout, "  (%s)\n\nChecks\n", cases.FixRule())
	for _, ck := range c.Checks {
		fmt.Fprintf(stdout, "  %s\n", ck.Name)
	}
	return 0
}

// indentLines indents each line of s by two spaces, and says (none) for
// nothing.
func indentLines(s string) string {
	s = strings.TrimRight(s, "\n")
	if strings.TrimSpace(s) == "" {
		return "  (none)"
	}
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

// oneCase returns the case named by pos, the one argument of sub, or
// nil and the exit code, having said why.
func oneCase(all []cases.Case, lerr error, pos []string, where, sub string, stderr io.Writer) (*cases.Case, int) {
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "twice case %s: want one case NAME\n", sub)
		return nil, 2
	}
	c, names := findCase(all, pos[0])
	if c == nil {
		if lerr != nil {
			fmt.Fprintf(stderr, "twice case %s: %s: %v\n", sub, where, lerr)
		}
		fmt.Fprintf(stderr, "twice case %s: no case %q in %s (cases: %s)\n", sub, pos[0], where, strings.Join(names, ", "))
		return nil, 2
	}
	return c, 0
}

// checkCase runs the checks of the case named in pos against the fix in
// the file fix and prints one line per check; it exits 1 when one fails.
func checkCase(all []cases.Case, lerr error, pos []string, where, fix string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(pos) == 1 && fix == "" {
		fmt.Fprint(stderr, "twice case check: --fix FILE is required (an empty file checks the case with no fix)\n")
		return 2
	}
	c, code := oneCase(all, lerr, pos, where, "check", stderr)
	if c == nil {
		return code
	}
	f, ok := readFix(fix, stdin, stderr)
	if !ok {
		return 2
	}
	code = 0
	for _, r := range c.RunChecks(f, cases.Options{}) {
		fmt.Fprintln(stdout, r)
		if !r.Pass {
			code = 1
		}
	}
	return code
}

// findCase returns the case named slug, or nil, and the names of all.
func findCase(all []cases.Case, slug string) (*cases.Case, []string) {
	var c *cases.Case
	var names []string
	for i := range all {
		names = append(names, all[i].Slug)
		if all[i].Slug == slug {
			c = &all[i]
		}
	}
	return c, names
}

// readFix reads and parses the fix prelude in the file fix (- for stdin);
// a refused fix is said on stderr with its file and line.
func readFix(fix string, stdin io.Reader, stderr io.Writer) (*cases.Fix, bool) {
	src, err := readScriptFile(fix, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "twice case check: --fix: %v\n", err)
		return nil, false
	}
	f, err := cases.ParseFix(string(src))
	if err != nil {
		name := fix
		if name == "-" {
			name = "stdin"
		}
		var fe *cases.FixError
		if errors.As(err, &fe) && fe.Line > 0 {
			name = fmt.Sprintf("%s:%d", name, fe.Line)
			err = errors.New(fe.Msg)
		}
		fmt.Fprintf(stderr, "twice case check: the fix is refused: %s: %v\n", name, err)
		return nil, false
	}
	return f, true
}

// describe says a case in one line: its title, level, time and checks.
func describe(c cases.Case) string {
	s := c.Title + " ("
	if c.Level != "" {
		s += c.Level + ", "
	}
	if c.Time != "" {
		s += "about " + c.Time + ", "
	}
	n := len(c.Checks)
	if n == 1 {
		return s + "1 check)"
	}
	return s + fmt.Sprintf("%d checks)", n)
}

// caseFolder opens the lesson folder dir, or the built-in one, as twice
// serve and twice build do (server.LessonFolder): nothing outside it is
// read, and nothing in it can block.
func caseFolder(dir string) (fs.FS, string, func(), error) {
	if dir == "" {
		return lessons.FS, "the built-in lessons", func() {}, nil
	}
	fsys, done, err := server.LessonFolder(dir)
	if err != nil {
		return nil, "", nil, err
	}
	return fsys, dir, done, nil
}
