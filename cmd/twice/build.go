package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/twice-lab/twice/server"
	"github.com/twice-lab/twice/server/wasmbuild"
)

const buildUsage = `usage: twice build -o DIR [--force] [--lessons DIR] [--notes on|off] [--wasm FILE]

Writes the whole site (lessons, embed pages, assets and the WebAssembly
runtime, with .gz and .br forms beside the larger files) as static files
that any static host serves as they are. Fails, naming the file and line,
when a lesson is broken. DIR must be empty, new, or a folder twice build
wrote before (it leaves a .twice-build file there); --force writes into
any other folder, replacing files of the same names and leaving the rest.
`

// cmdBuild is `twice build`.
func cmdBuild(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("build", buildUsage, stderr)
	out := fs.String("o", "", "write the site into `DIR`")
	flags := addSiteFlags(fs, "build")
	force := fs.Bool("force", false, "write into DIR even if it is not empty and twice build did not write it")
	if code, done := parseFlags(fs, args, false, stderr); done {
		return code
	}
	hide, code := flags.check("build", stderr)
	if code != 0 {
		return code
	}
	if *out == "" {
		fmt.Fprint(stderr, "twice build: -o DIR is required\n")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	rt, err := wasmbuild.ObtainRuntime(ctx, *flags.wasm, prefixed{stdout})
	if err != nil {
		fmt.Fprintf(stderr, "twice build: %v\n", err)
		return 1
	}
	start := time.Now()
	fmt.Fprintf(stdout, "twice: rendering the site and compressing it (brotli of a new runtime takes about 40 s; it is cached)...\n")
	site, err := server.Render(server.Options{LessonsDir: *flags.dir, Runtime: rt, CacheDir: wasmbuild.CacheDir(), Brotli: server.BrotliNow, HideNotes: hide})
	if err != nil {
		fmt.Fprintf(stderr, "twice build: %v\n", err)
		return 1
	}
	if err := site.ExportWith(*out, server.ExportOptions{Force: *force}); err != nil {
		fmt.Fprintf(stderr, "twice build: %v\n", err)
		return 1
	}
	files, compressed := site.Counts()
	fmt.Fprintf(stdout, "twice: wrote %d files to %s in %.1fs: %d pages and assets, %d compressed copies of them (.gz, .br) and %s\n",
		files+compressed+1, *out, time.Since(start).Seconds(), files, compressed, server.BuildMarker)
	return 0
}
