package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/twice-lab/twice/runtime/script/draw"
	"github.com/twice-lab/twice/runtime/script/interp"
	"github.com/twice-lab/twice/runtime/script/lang"
)

const runUsage = `usage: twice run [--seed N] [--json] [--timeline FILE] [--chart FILE] (-c SCRIPT | FILE | -)

Runs a script of twice commands and prints its transcript.
  -c SCRIPT   the script itself
  FILE        a file holding the script
  -           read the script from standard input
`

// cmdRun is `twice run`.
func cmdRun(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("run", runUsage, stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, runUsage)
		printShown(fs, stderr)
		fmt.Fprint(stderr, "\n"+lang.CommandHelp())
	}
	seed := fs.String("seed", strconv.FormatUint(interp.DefaultSeed, 10), "seed for every random draw (run ids, timings)")
	asJSON := fs.Bool("json", false, "print the structured Result as JSON")
	code := fs.String("c", "", "run this script")
	timeline := fs.String("timeline", "", "also draw the run's timeline as SVG into `FILE`")
	chart := fs.String("chart", "", "also draw the load runs as an SVG chart into `FILE`")
	// Hidden: run under the small budget a page gives a script nobody
	// asked it to run, as the browser's run(script, {auto: true}) does, so
	// that tests can hold the CLI, wazero and the browser to one another.
	auto := fs.Bool(hiddenAuto, false, "run under the auto budget")
	if code, done := parseFlags(fs, args, true, stderr); done {
		return code
	}
	n, err := strconv.ParseUint(*seed, 10, 64)
	if err != nil {
		fmt.Fprintf(stderr, "twice run: --seed wants a whole number from 0 to %d, got %q\n", uint64(1<<64-1), *seed)
		return 2
	}
	src, name, err := readScript(fs, *code, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "twice run: %v\n", err)
		return 2
	}
	opts := interp.Options{Seed: n}
	if *auto {
		opts.Budget = interp.AutoBudget
	}
	res := interp.Run(src, opts)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			fmt.Fprintf(stderr, "twice run: %v\n", err)
			return 1
		}
	} else {
		io.WriteString(stdout, res.Text())
	}
	if res.Error != nil {
		fmt.Fprintf(stderr, "twice run: %s: %v\n", name, res.Error)
	}
	// A script that failed has said so in one line; a picture it cannot
	// draw is not a second error.
	if *timeline != "" {
		tl := draw.Timeline(res)
		if tl == nil && res.Error != nil {
			return res.ExitCode
		}
		if tl == nil {
			fmt.Fprintf(stderr, "twice run: --timeline: no worker ran, so there is no timeline to draw\n")
			return max(res.ExitCode, 1)
		}
		if err := os.WriteFile(*timeline, []byte(tl.SVG), 0o644); err != nil {
			fmt.Fprintf(stderr, "twice run: --timeline: %v\n", err)
			return max(res.ExitCode, 1)
		}
	}
	if *chart != "" {
		ch := draw.LoadChart(res)
		if ch == nil && res.Error != nil {
			return res.ExitCode
		}
		if ch == nil {
			fmt.Fprintf(stderr, "twice run: --chart: the script ran no load, so there is no chart to draw\n")
			return max(res.ExitCode, 1)
		}
		if err := os.WriteFile(*chart, []byte(ch.SVG), 0o644); err != nil {
			fmt.Fprintf(stderr, "twice run: --chart: %v\n", err)
			return max(res.ExitCode, 1)
		}
	}
	return res.ExitCode
}

// hiddenAuto is the flag of twice run that --help does not list.
const hiddenAuto = "auto"

// printShown prints the defaults of every flag of fs but the hidden one.
func printShown(fs *flag.FlagSet, w io.Writer) {
	shown := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	shown.SetOutput(w)
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name != hiddenAuto {
			shown.Var(f.Value, f.Name, f.Usage)
		}
	})
	shown.PrintDefaults()
}

// readScript returns the script and a name for it in error messages.
func readScript(fs *flag.FlagSet, code string, stdin io.Reader) (src, name string, err error) {
	codeSet := false
	fs.Visit(func(f *flag.Flag) { codeSet = codeSet || f.Name == "c" })
	switch {
	case codeSet && fs.NArg() > 0:
		return "", "", errors.New("give either -c SCRIPT or a FILE, not both")
	case codeSet:
		return code, "-c", nil
	case fs.NArg() == 0:
		return "", "", errors.New("no script: give -c SCRIPT, a FILE, or - for standard input")
	case fs.NArg() > 1:
		return "", "", fmt.Errorf("one FILE at a time, got %d arguments", fs.NArg())
	}
	name = fs.Arg(0)
	b, err := readScriptFile(name, stdin)
	if err != nil {
		return "", "", err
	}
	if name == "-" {
		name = "stdin"
	}
	return string(b), name, nil
}
