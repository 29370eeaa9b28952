package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/twice-lab/twice/server/wasmbuild"
)

const bundleUsage = `usage: twice bundle -o FILE [--goos OS] [--goarch ARCH]

Writes one twice binary with the WebAssembly runtime inside, which serves
and exports the lessons (yours too, with --lessons) on a machine with no Go
toolchain and no copy of the source. Needs both here: run it from a clone.
--goos and --goarch build it for another platform, for example
--goos windows --goarch amd64 (name the file twice.exe).
`

// cmdBundle is `twice bundle`.
func cmdBundle(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("bundle", bundleUsage, stderr)
	out := fs.String("o", "", "write the binary to `FILE`")
	goos := fs.String("goos", "", "build for this operating system (default: this machine's)")
	goarch := fs.String("goarch", "", "build for this architecture (default: this machine's)")
	if code, done := parseFlags(fs, args, false, stderr); done {
		return code
	}
	if *out == "" {
		fmt.Fprint(stderr, "twice bundle: -o FILE is required\n")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := wasmbuild.BuildBundle(ctx, wasmbuild.BundleOptions{BuildOptions: wasmbuild.BuildOptions{Progress: prefixed{stdout}}, Out: *out, GOOS: *goos, GOARCH: *goarch}); err != nil {
		fmt.Fprintf(stderr, "twice bundle: %v\n", err)
		return 1
	}
	return 0
}
