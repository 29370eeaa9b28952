package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/twice-lab/twice/runtime/bytesize"
	"github.com/twice-lab/twice/server"
	"github.com/twice-lab/twice/server/wasmbuild"
)

const buildUsage = `usage: twice build (-o DIR [--force] | --single-file FILE) [--lessons DIR] [--notes on|off] [--wasm FILE]

Writes the whole site (lessons, embed pages, assets and the WebAssembly
runtime, with .gz and .br forms beside the larger files) as static files
that any static host serves as they are. Fails, naming the file and line,
when a lesson is broken. DIR must be empty, new, or a folder twice build
wrote before (it leaves a .twice-build file there); --force writes into
any other folder, replacing files of the same names and leaving the rest.

--single-file writes the whole lab (every lesson, the cases and the
runtime) as one HTML file that opens from file:// with no server and no
network: to hand out on a USB stick, an LMS upload or an e-mail. It
writes over FILE only when FILE is one it wrote before.
`

// cmdBuild is `twice build`.
func cmdBuild(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("build", buildUsage, stderr)
	out := fs.String("o", "", "write the site into `DIR`")
	flags := addSiteFlags(fs, "build")
	force := fs.Bool("force", false, "write into DIR even if it is not empty and twice build did not write it")
	single := fs.String("single-file", "", "write the whole lab as one HTML `FILE` that opens from file://")
	if code, done := parseFlags(fs, args, false, stderr); done {
		return code
	}
	hide, code := flags.check("build", stderr)
	if code != 0 {
		return code
	}
	if *out == "" && *single == "" {
		fmt.Fprint(stderr, "twice build: -o DIR or --single-file FILE is required\n")
		return 2
	}
	if *single != "" {
		if err := singleFileWritable(*single); err != nil {
			fmt.Fprintf(stderr, "twice build: %v\n", err)
			return 1
		}
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
	if *single != "" {
		b, err := site.SingleFile()
		if err == nil {
			err = writeFileAtomic(*single, b)
		}
		if err != nil {
			fmt.Fprintf(stderr, "twice build: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "twice: wrote %s (%s): the whole lab in one file; open it in a browser\n", *single, bytesize.Words(len(b)))
		if *out == "" {
			return 0
		}
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

// singleFileWritable refuses a FILE that exists and is not a single file
// twice build wrote (its root element says data-twice-single): a typo must
// not replace a lesson or a script.
func singleFileWritable(name string) error {
	st, err := os.Stat(name)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("--single-file %s is not a regular file", name)
	}
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	if !bytes.Contains(head[:n], []byte("data-twice-single")) {
		return fmt.Errorf("--single-file %s exists and is not a file twice build wrote; remove it or name another", name)
	}
	return nil
}

// writeFileAtomic writes b to name through a temporary file beside it and
// a rename, so that a failure leaves no half-written file.
func writeFileAtomic(name string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), ".twice-single-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), name)
}
