package main

import (
	"bytes"
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

const runUsage = `usage: twice run [--seed N] [--json] [--timeline FILE] [--chart FILE] [--force] (-c SCRIPT | FILE | -)

Runs a script of twice commands and prints its transcript.
  -c SCRIPT   the script itself
  FILE        a file holding the script
  -           read the script from standard input

--timeline and --chart write a new file, or over a picture twice run drew
before; --force writes over any other file but the script.
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
	force := fs.Bool("force", false, "let --timeline and --chart write over a file twice run did not draw")
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
	// draw is not a second error. Each picture asked for is written if it
	// can be, whatever became of the other, and each one that is not is
	// said.
	exit := res.ExitCode
	pics := []struct {
		flag, file string
		svg        func() string
		none       string
	}{
		{"--timeline", *timeline, func() string {
			if tl := draw.Timeline(res); tl != nil {
				return tl.SVG
			}
			return ""
		}, "no worker ran, so there is no timeline to draw"},
		{"--chart", *chart, func() string {
			if ch := draw.LoadChart(res); ch != nil {
				return ch.SVG
			}
			return ""
		}, "the script ran no load, so there is no chart to draw"},
	}
	if *timeline != "" && *chart != "" && sameFile(*timeline, *chart) {
		fmt.Fprintf(stderr, "twice run: --timeline and --chart name the same file, %s: give each its own\n", *chart)
		return max(exit, 2)
	}
	for _, p := range pics {
		if p.file == "" {
			continue
		}
		svg := p.svg()
		if svg == "" {
			if res.Error == nil {
				fmt.Fprintf(stderr, "twice run: %s: %s; %s not written\n", p.flag, p.none, p.file)
				exit = max(exit, 1)
			}
			continue
		}
		if err := writePicture(p.file, svg, name, *force); err != nil {
			fmt.Fprintf(stderr, "twice run: %s: %v\n", p.flag, err)
			exit = max(exit, 1)
		}
	}
	return exit
}

// writePicture writes svg to file, unless file is the script (named
// script), or a file that is not empty and not a picture twice run drew,
// unless force.
func writePicture(file, svg, script string, force bool) error {
	if script != "-c" && script != "-" && sameFile(file, script) {
		return fmt.Errorf("%s is the script: not written over", file)
	}
	if !force {
		if info, err := os.Stat(file); err == nil && info.Mode().IsRegular() && info.Size() > 0 && !drawnBefore(file) {
			return fmt.Errorf("%s exists and is not a picture twice run drew: not written over (--force writes over it)", file)
		}
	}
	return os.WriteFile(file, []byte(svg), 0o644)
}

// sameFile reports whether a and b name one existing file.
func sameFile(a, b string) bool {
	ia, err := os.Stat(a)
	if err != nil {
		return false
	}
	ib, err := os.Stat(b)
	return err == nil && os.SameFile(ia, ib)
}

// drawnBefore reports whether file holds a picture twice run drew: an
// SVG whose root is a twice timeline or chart.
func drawnBefore(file string) bool {
	f, err := os.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	root, _, ok := bytes.Cut(head, []byte(">"))
	return ok && bytes.HasPrefix(root, []byte("<svg ")) && (bytes.Contains(root, []byte(`class="twice-timeline"`)) || bytes.Contains(root, []byte(`class="twice-chart"`)))
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
