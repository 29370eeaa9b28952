// Command twice runs the twice lab: a leased job queue on real SQLite with
// simulated workers, and the lessons that explain why a job runs twice.
//
// Usage:
//
//	twice run [--seed N] [--json] [--timeline FILE] [--chart FILE] [--force] (-c SCRIPT | FILE | -)
//	twice serve [--addr HOST:PORT] [--lessons DIR] [--notes on|off] [--wasm FILE] [--class [--class-db FILE]]
//	twice build (-o DIR [--force] | --single-file FILE) [--lessons DIR] [--notes on|off] [--wasm FILE]
//	twice bundle -o FILE [--goos OS] [--goarch ARCH]
//	twice case list [--lessons DIR]
//	twice case show [--lessons DIR] NAME
//	twice case check [--lessons DIR] NAME --fix FILE
//
// Exit codes: 0 success, 1 runtime error, 2 usage or parse error.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `usage:
  twice run [--seed N] [--json] [--timeline FILE] [--chart FILE] [--force] (-c SCRIPT | FILE | -)
                                         run a script, print its transcript
  twice serve [--addr HOST:PORT] [--lessons DIR] [--notes on|off] [--wasm FILE] [--class [--class-db FILE]]
                                         serve the lessons and the playground
  twice build (-o DIR [--force] | --single-file FILE) [--lessons DIR] [--notes on|off] [--wasm FILE]
                                         write the site as static files, or as one HTML file
  twice bundle -o FILE [--goos OS] [--goarch ARCH]
                                         write one binary with the runtime inside
  twice case list [--lessons DIR]
                                         list the cases to solve
  twice case show [--lessons DIR] NAME
                                         print a case: its question, how to work it
  twice case check [--lessons DIR] NAME --fix FILE
                                         run a case's checks against a fix
Run 'twice COMMAND -h' for a command's flags.
`

// run dispatches to a subcommand and returns the process exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "run":
		return cmdRun(args[1:], stdin, stdout, stderr)
	case "serve":
		return cmdServe(args[1:], stdout, stderr)
	case "build":
		return cmdBuild(args[1:], stdout, stderr)
	case "bundle":
		return cmdBundle(args[1:], stdout, stderr)
	case "case":
		return cmdCase(args[1:], stdin, stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "twice: unknown command %q\n%s", args[0], usage)
	return 2
}

// newFlagSet returns the flag set of a subcommand: errors and -h go to
// stderr, -h prints usage and then the flags.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	return fs
}

// parseFlags parses a subcommand's flags. It returns done=true with the
// exit code when the command should stop here: 0 after -h, 2 after a bad
// flag (the flag package has printed why), or 2 after a positional
// argument when the command takes none.
func parseFlags(fs *flag.FlagSet, args []string, takesArgs bool, stderr io.Writer) (code int, done bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, true
		}
		return 2, true
	}
	if !takesArgs && fs.NArg() > 0 {
		fmt.Fprintf(stderr, "twice %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return 2, true
	}
	return 0, false
}
