package wasmbuild

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/twice-lab/twice/internal/oneline"
	"github.com/twice-lab/twice/lessons"
	"github.com/twice-lab/twice/runtime/bytesize"
	"github.com/twice-lab/twice/third_party/sqlitewasm"
)

// Module is the module path of twice; BuildRuntime compiles its wasm
// package.
const Module = "github.com/twice-lab/twice"

// WasmBuildFlags are the go build flags of the browser build, after
// GOOS=js GOARCH=wasm:
//
//   - -ldflags=-s -w drops the symbol table and debug information, which the
//     browser never reads.
//   - -gcflags=all=-l, then no flags again for Go's runtime (runtime/...
//     and internal/...), sync and the bridge to SQLite (runtime/sqldb),
//     compiles everything else without inlining: twice's own code, fmt,
//     strconv, reflect, time and the rest of the standard library. On
//     WebAssembly an inlined body costs more bytes than the call it
//     replaces, and none of these is where a race spends its time (SQLite,
//     in its own module, the bridge's calls into it, the allocator and
//     the coroutine switches). twice's packages alone saved 24 kB brotli,
//     the rest another 18 kB (docs/PERFORMANCE.md).
//
// SQLite is not in this module: the browser build's runtime/sqldb calls
// the SQLite module of third_party/sqlitewasm, which the worker loads
// beside it (RATIONALE.md, "What the browser downloads"). The build also
// compiles every Go file it links rewritten to one line per declaration
// (see lineOverlay).
var WasmBuildFlags = []string{
	"-trimpath",
	"-gcflags=all=-l", "-gcflags=runtime/...=", "-gcflags=internal/...=", "-gcflags=sync/...=", "-gcflags=" + Module + "/runtime/sqldb=",
	"-ldflags=-s -w",
}

// A Runtime is the browser build of the twice runtime: the Go program's
// wasm module, the wasm_exec.js support script of the Go toolchain that
// compiled it (the two must come from the same Go release), and the SQLite
// module the Go program imports.
type Runtime struct {
	Wasm     []byte
	WasmExec []byte
	// SQLite is the browser's SQLite module; nil means the one this
	// binary carries (third_party/sqlitewasm), which is the one the
	// source tree's Go module imports.
	SQLite []byte
	// From says where the module came from, for logs.
	From string
}

// BuildOptions configure BuildRuntime.
type BuildOptions struct {
	// Dir is a directory inside the twice module (the module root is found
	// from it); "" means the current directory.
	Dir string
	// Go is the go command to use; "" means "go" from PATH.
	Go string
	// Progress, when set, receives one line before and one after the build.
	Progress io.Writer
}

// BuildRuntime compiles the wasm package of the twice module found from
// opts.Dir with GOOS=js GOARCH=wasm, and reads wasm_exec.js from the same
// toolchain's GOROOT. The go command's own build cache makes repeated
// builds quick (a second or two); the first one takes about 40 s.
func BuildRuntime(ctx context.Context, opts BuildOptions) (*Runtime, error) {
	goCmd, root, err := opts.module(ctx)
	if err != nil {
		return nil, err
	}
	return buildRuntime(ctx, goCmd, root, opts.Progress)
}

// module returns the go command opts name and the root of the twice
// module around opts.Dir.
func (opts BuildOptions) module(ctx context.Context) (goCmd, root string, err error) {
	goCmd = opts.Go
	if goCmd == "" {
		goCmd = "go"
	}
	if _, err := exec.LookPath(goCmd); err != nil {
		return "", "", errors.New("cannot build the WebAssembly runtime: no Go toolchain found (install Go, or pass --wasm FILE with a prebuilt twice.wasm)")
	}
	root, err = moduleRoot(ctx, goCmd, opts.Dir)
	return goCmd, root, err
}

// buildRuntime is BuildRuntime in the module at root.
func buildRuntime(ctx context.Context, goCmd, root string, progress io.Writer) (*Runtime, error) {
	goroot, err := goEnv(ctx, goCmd, root, "GOROOT")
	if err != nil {
		return nil, err
	}
	wasmExec, err := readWasmExec(goroot)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "twice-wasm-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "twice.wasm")
	if progress != nil {
		fmt.Fprintf(progress, "building the WebAssembly runtime (GOOS=js GOARCH=wasm go build ./wasm; about 40 s the first time, a second or two after)...\n")
	}
	start := time.Now()
	build := func() error { return BuildWasm(ctx, goCmd, root, tmp, out, WasmBuildFlags) }
	if err := whileTicking(progress, buildTick, "still building the runtime", build); err != nil {
		return nil, err
	}
	wasm, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	if progress != nil {
		fmt.Fprintf(progress, "built the runtime in %.1fs: %.1f MB\n", time.Since(start).Seconds(), float64(len(wasm))/1e6)
	}
	return &Runtime{Wasm: wasm, WasmExec: wasmExec, SQLite: sqlitewasm.Wasm, From: "built from " + root}, nil
}

// sqlite is the SQLite module to serve beside the Go program's.
func (r *Runtime) SQLiteModule() []byte {
	if len(r.SQLite) > 0 {
		return r.SQLite
	}
	return sqlitewasm.Wasm
}

// WasmBuildEnv is the environment of the browser build, added to the
// process's own. (GOWASM=satconv,signext was tried: within brotli's noise,
// 1 kB either way, so the build keeps Go's defaults.)
var WasmBuildEnv = []string{"GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0"}

// buildWasm compiles ./wasm of the module at root into out, as the browser
// build does: with WasmBuildEnv, the given flags, and every Go file
// rewritten by package oneline (see lineOverlay), using dir for its files;
// then merges the module's data segments (see mergeData).
func BuildWasm(ctx context.Context, goCmd, root, dir, out string, flags []string) error {
	overlay, err := lineOverlay(ctx, goCmd, root, dir)
	if err != nil {
		return fmt.Errorf("building the WebAssembly runtime failed: %v", err)
	}
	args := append([]string{"build"}, flags...)
	cmd := exec.CommandContext(ctx, goCmd, append(args, "-overlay="+overlay, "-o", out, "./wasm")...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), WasmBuildEnv...)
	var stderr bytes.Buffer
	cmd.Stdout = &stderr
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building the WebAssembly runtime failed: %v\n%s", err, strings.TrimSpace(stderr.String()))
	}
	mod, err := os.ReadFile(out)
	if err == nil {
		mod, err = mergeData(mod, dataGap)
	}
	if err == nil {
		err = os.WriteFile(out, mod, 0o644)
	}
	if err != nil {
		return fmt.Errorf("building the WebAssembly runtime failed: %v", err)
	}
	return nil
}

// lineOverlay writes into dir every Go file that ./wasm links under
// WasmBuildEnv (the standard library's and twice's) with each declaration
// on one line at line 1 of its file, and a go build overlay that compiles
// them in place of the originals, and returns the overlay's path. The
// instructions are the same; the module loses most of its line table, the
// map from each instruction to a line that only a stack trace reads:
// 57 kB of brotli for the standard library, 7 kB for twice
// (docs/PERFORMANCE.md). A panic in the browser names file:1 for every
// frame; the CLI and the wasip1 build compile the files as they are. The
// go command's build cache keys on the files' content, so a rebuild from
// the same sources is a cache hit.
func lineOverlay(ctx context.Context, goCmd, root, dir string) (string, error) {
	cmd := exec.CommandContext(ctx, goCmd, "list", "-deps", "-f", "{{.Dir}}\t{{join .GoFiles \"\\t\"}}", "./wasm")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), WasmBuildEnv...)
	list, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%v: %s", err, strings.TrimSpace(string(ee.Stderr)))
		}
		return "", fmt.Errorf("go list -deps ./wasm: %v", err)
	}
	replace := map[string]string{}
	for line := range strings.SplitSeq(strings.TrimSpace(string(list)), "\n") {
		files := strings.Split(line, "\t")
		for _, name := range files[1:] {
			if name == "" {
				continue
			}
			src := filepath.Join(files[0], name)
			b, err := os.ReadFile(src)
			if err != nil {
				return "", err
			}
			flat, err := oneline.File(name, b)
			if err != nil {
				return "", fmt.Errorf("%s: %v", src, err)
			}
			dst := filepath.Join(dir, fmt.Sprintf("%d-%s", len(replace), name))
			if err := os.WriteFile(dst, flat, 0o644); err != nil {
				return "", err
			}
			replace[src] = dst
		}
	}
	overlay, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return "", err
	}
	file := filepath.Join(dir, "overlay.json")
	return file, os.WriteFile(file, overlay, 0o644)
}

// buildTick is how often a build that is still running says so.
var buildTick = 10 * time.Second

// whileTicking runs fn, and every tick until it returns writes what it is
// still doing and for how long to progress (when not nil), so that a long
// first build is never silent.
func whileTicking(progress io.Writer, tick time.Duration, what string, fn func() error) error {
	if progress == nil {
		return fn()
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(stopped)
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				fmt.Fprintf(progress, "%s (%s so far)...\n", what, time.Since(start).Round(time.Second))
			}
		}
	}()
	err := fn()
	close(done)
	<-stopped
	return err
}

// LoadRuntime reads a prebuilt wasm module. Its wasm_exec.js is taken from
// wasmExec when that is set; else from a file named wasm_exec.js, or the one
// file matching wasm_exec.*.js (as in an export), next to the module; else
// from the GOROOT of the go command, if there is one. It is up to the caller
// that the module and the script come from one Go release. The SQLite
// module is the file named sqlite3.wasm, or the one matching
// sqlite3.*.wasm, next to the module, else the one this binary carries.
//
// Each file is read as a lesson file is: a regular file (a symlink is
// followed) of at most [MaxPrebuiltBytes]; a device, a named pipe or a
// folder is refused by name before it is read, so that --wasm /dev/zero
// or a FIFO can neither fill the memory nor block.
func LoadRuntime(wasmFile, wasmExec string) (*Runtime, error) {
	wasm, err := readPrebuilt(wasmFile)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(wasm, []byte("\x00asm")) {
		return nil, fmt.Errorf("%s: not a WebAssembly module", wasmFile)
	}
	if wasmExec == "" {
		wasmExec = besides(wasmFile, "wasm_exec.js", "wasm_exec.*.js")
	}
	var js []byte
	if wasmExec != "" {
		js, err = readPrebuilt(wasmExec)
	} else if _, lerr := exec.LookPath("go"); lerr == nil {
		var goroot string
		goroot, err = goEnv(context.Background(), "go", "", "GOROOT")
		if err == nil {
			js, err = readWasmExec(goroot)
		}
	} else {
		err = fmt.Errorf("no wasm_exec.js next to %s and no Go toolchain to take one from; put the wasm_exec.js of the Go release that built the module next to it", wasmFile)
	}
	if err != nil {
		return nil, err
	}
	rt := &Runtime{Wasm: wasm, WasmExec: js, From: wasmFile}
	if sq := besides(wasmFile, "sqlite3.wasm", "sqlite3.*.wasm"); sq != "" {
		if rt.SQLite, err = readPrebuilt(sq); err != nil {
			return nil, err
		}
	}
	return rt, nil
}

// MaxPrebuiltBytes is the most bytes LoadRuntime reads of each file of a
// prebuilt runtime: the Go module is about 11 MB.
const MaxPrebuiltBytes = 64 << 20

// readPrebuilt reads one file of a prebuilt runtime, or says in one line
// why not: it is not a regular file, or it is larger than
// MaxPrebuiltBytes. The opened file is checked again, in case another
// was swapped in, and opened without blocking where the system can.
func readPrebuilt(name string) ([]byte, error) {
	f, err := lessons.OpenRegular(name, func(fi fs.FileInfo) error { return prebuiltFile(name, fi) })
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxPrebuiltBytes+1))
	if err == nil && len(b) > MaxPrebuiltBytes {
		err = fmt.Errorf("%s: refused: it has more than the %s a prebuilt runtime's file may have", name, bytesize.Words(MaxPrebuiltBytes))
	}
	return b, err
}

// prebuiltFile refuses a file readPrebuilt does not read.
func prebuiltFile(name string, fi fs.FileInfo) error {
	if kind := lessons.FileKind(fi.Mode()); kind != "" {
		return fmt.Errorf("%s: refused: it is %s, not a regular file; a prebuilt runtime is read from regular files", name, kind)
	}
	if fi.Size() > MaxPrebuiltBytes {
		return fmt.Errorf("%s: refused: it is %d bytes, more than the %s a prebuilt runtime's file may have", name, fi.Size(), bytesize.Words(MaxPrebuiltBytes))
	}
	return nil
}

// besides returns the file called name next to file, or the one file
// matching pattern there, or "".
func besides(file, name, pattern string) string {
	dir := filepath.Dir(file)
	if p := filepath.Join(dir, name); fileExists(p) {
		return p
	}
	if m, _ := filepath.Glob(filepath.Join(dir, pattern)); len(m) == 1 {
		return m[0]
	}
	return ""
}

// moduleRoot returns the root directory of the twice module that dir is in.
func moduleRoot(ctx context.Context, goCmd, dir string) (string, error) {
	gomod, err := goEnv(ctx, goCmd, dir, "GOMOD")
	if err != nil {
		return "", err
	}
	notFound := errors.New("cannot build the WebAssembly runtime: not inside the twice source tree (run twice serve from a clone of the repository, pass --wasm FILE with a prebuilt twice.wasm, or use a binary made by twice bundle)")
	if gomod == "" || gomod == os.DevNull {
		return "", notFound
	}
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" && strings.Trim(f[1], `"`) == Module {
			return filepath.Dir(gomod), nil
		}
	}
	return "", notFound
}

// goEnv returns one variable of go env, run in dir.
func goEnv(ctx context.Context, goCmd, dir, name string) (string, error) {
	cmd := exec.CommandContext(ctx, goCmd, "env", name)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("go env %s: %v: %s", name, err, strings.TrimSpace(string(ee.Stderr)))
		}
		return "", fmt.Errorf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// WasmExecPath returns where a Go installation keeps wasm_exec.js: lib/wasm
// since Go 1.24, misc/wasm before.
func WasmExecPath(goroot string) string {
	p := filepath.Join(goroot, "lib", "wasm", "wasm_exec.js")
	if _, err := os.Stat(p); err != nil {
		if old := filepath.Join(goroot, "misc", "wasm", "wasm_exec.js"); fileExists(old) {
			return old
		}
	}
	return p
}

func readWasmExec(goroot string) ([]byte, error) {
	b, err := os.ReadFile(WasmExecPath(goroot))
	if err != nil {
		return nil, fmt.Errorf("cannot read the toolchain's wasm_exec.js: %v", err)
	}
	return b, nil
}

func fileExists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

// CacheDir returns the directory where twice keeps compressed copies of the
// wasm module: the user cache directory's twice/compressed, or one under
// the temporary directory when there is no user cache.
func CacheDir() string {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "twice", "compressed")
}

// ObtainRuntime returns the runtime twice serve and twice build use: the
// prebuilt module wasmFile when it is set, else the one named by the
// TWICE_WASM environment variable, else the one bundled in this binary
// (see BuildBundle), else one built from the source tree around the
// current directory. Progress lines go to progress.
func ObtainRuntime(ctx context.Context, wasmFile string, progress io.Writer) (*Runtime, error) {
	if wasmFile == "" {
		wasmFile = os.Getenv("TWICE_WASM")
	}
	if wasmFile != "" {
		rt, err := LoadRuntime(wasmFile, "")
		if err == nil && progress != nil {
			fmt.Fprintf(progress, "using the prebuilt runtime %s (%.1f MB)\n", wasmFile, float64(len(rt.Wasm))/1e6)
		}
		return rt, err
	}
	if rt := Bundled(); rt != nil {
		if progress != nil {
			fmt.Fprintf(progress, "using the runtime bundled in this binary (%.1f MB)\n", float64(len(rt.Wasm))/1e6)
		}
		return rt, nil
	}
	return BuildRuntime(ctx, BuildOptions{Progress: progress})
}
