package parity

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"
)

const cmdPkg = "github.com/twice-lab/twice/cmd/twice"

// binDir holds this test binary's builds of cmd/twice; TestMain removes it.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "twice-parity-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	// A full run (no -short, no -run) builds both binaries before the first
	// test, so the builds, minutes with an empty build cache on a busy
	// machine, are not counted by the test binary's -timeout clock.
	flag.Parse()
	if run := flag.Lookup("test.run"); !testing.Short() && run != nil && run.Value.String() == "" {
		buildAll(func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) })
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// output is what one run of the CLI printed and how it exited.
type output struct {
	stdout, stderr string
	code           int
}

func (o output) String() string {
	return fmt.Sprintf("exit %d\n--- stdout (%d bytes)\n%s--- stderr (%d bytes)\n%s", o.code, len(o.stdout), o.stdout, len(o.stderr), o.stderr)
}

// goBuild builds cmd/twice into binDir/name for goos/goarch, once per test
// binary; later calls return the first call's result.
type goBuild struct {
	once       sync.Once
	goos, arch string
	name       string
	path       string
	err        error
}

var (
	nativeBuild = &goBuild{name: "twice"}
	wasiBuild   = &goBuild{goos: "wasip1", arch: "wasm", name: "twice.wasm"}
)

func (b *goBuild) get(tb testing.TB) string {
	tb.Helper()
	b.do(tb.Logf)
	if b.err != nil {
		tb.Fatal(b.err)
	}
	return b.path
}

// do builds, once; logf must be safe to call from any goroutine.
func (b *goBuild) do(logf func(string, ...any)) {
	b.once.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(binDir, b.name)
		cmd := exec.Command(goTool, "build", "-trimpath", "-o", b.path, cmdPkg)
		cmd.Env = os.Environ()
		if b.goos != "" {
			cmd.Env = append(cmd.Env, "GOOS="+b.goos, "GOARCH="+b.arch)
		}
		start := time.Now()
		note := ""
		if b.arch == "wasm" {
			note = " (about 40 s with an empty build cache)"
		}
		logf("building %s for %s/%s%s", cmdPkg, orHost(b.goos), orHost(b.arch), note)
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("go build for %s/%s: %v\n%s", orHost(b.goos), orHost(b.arch), err, out)
			return
		}
		logf("built %s in %v", b.name, time.Since(start).Round(time.Millisecond))
	})
}

// buildBoth builds the native and the wasip1 binaries side by side, so
// both come from the same state of a working tree that may be changing.
func buildBoth(tb testing.TB) {
	tb.Helper()
	buildAll(tb.Logf)
	nativeBuild.get(tb)
	wasiBuild.get(tb)
}

// buildAll starts both builds at once and waits for them.
func buildAll(logf func(string, ...any)) {
	var wg sync.WaitGroup
	for _, b := range []*goBuild{nativeBuild, wasiBuild} {
		wg.Go(func() { b.do(logf) })
	}
	wg.Wait()
}

func orHost(s string) string {
	if s == "" {
		return "host"
	}
	return s
}

// runNative runs the native build with args and stdin in dir.
func runNative(tb testing.TB, dir string, stdin string, args ...string) output {
	tb.Helper()
	cmd := exec.Command(nativeBuild.get(tb), args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		code = ee.ExitCode()
	} else if err != nil {
		tb.Fatalf("native twice %q: %v", args, err)
	}
	return output{stdout.String(), stderr.String(), code}
}

// wasiHost is one wazero runtime with the wasip1 build compiled in it.
type wasiHost struct {
	rt       wazero.Runtime
	compiled wazero.CompiledModule
}

var (
	hostOnce sync.Once
	host     *wasiHost
	hostErr  error
)

// cacheDir is where wazero keeps compiled code between test runs, so only
// the first run after a change of the wasm pays for compiling it.
func cacheDir() (string, bool) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", false
	}
	dir = filepath.Join(dir, "twice", "wazero")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", false
	}
	return dir, true
}

// getHost compiles the wasip1 build under wazero once per test binary.
// The runtime lives until the test binary exits.
func getHost(tb testing.TB) *wasiHost {
	tb.Helper()
	path := wasiBuild.get(tb)
	hostOnce.Do(func() {
		ctx := context.Background()
		var cache wazero.CompilationCache
		if dir, ok := cacheDir(); ok {
			c, err := wazero.NewCompilationCacheWithDir(dir)
			if err == nil {
				cache = c
				tb.Logf("wazero compilation cache: %s", dir)
			}
		}
		if cache == nil {
			cache = wazero.NewCompilationCache()
			tb.Logf("wazero compilation cache: in memory")
		}
		rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCompilationCache(cache))
		wasi_snapshot_preview1.MustInstantiate(ctx, rt)
		bin, err := os.ReadFile(path)
		if err != nil {
			hostErr = err
			return
		}
		// The module is tens of megabytes of code, minutes to compile on
		// one core: every processor compiles functions of it at once.
		start := time.Now()
		compiled, err := rt.CompileModule(experimental.WithCompilationWorkers(ctx, runtime.GOMAXPROCS(0)), bin)
		if err != nil {
			hostErr = fmt.Errorf("wazero: compiling %s: %v", path, err)
			return
		}
		tb.Logf("wazero compiled %d bytes in %v with %d workers", len(bin), time.Since(start).Round(time.Millisecond), runtime.GOMAXPROCS(0))
		host = &wasiHost{rt: rt, compiled: compiled}
	})
	if hostErr != nil {
		tb.Fatal(hostErr)
	}
	return host
}

// run instantiates a fresh module (a fresh process) with args, stdin, and
// dir mounted as the guest's root and working directory.
func (h *wasiHost) run(tb testing.TB, dir string, stdin string, args ...string) output {
	tb.Helper()
	var stdout, stderr bytes.Buffer
	cfg := wazero.NewModuleConfig().
		WithName(""). // anonymous, so many instances may live at once
		WithArgs(append([]string{"twice"}, args...)...).
		WithStdin(strings.NewReader(stdin)).
		WithStdout(&stdout).
		WithStderr(&stderr).
		WithSysWalltime().
		WithSysNanotime().
		WithSysNanosleep()
	if dir != "" {
		cfg = cfg.WithFSConfig(wazero.NewFSConfig().WithDirMount(dir, "/"))
	}
	mod, err := h.rt.InstantiateModule(context.Background(), h.compiled, cfg)
	if mod != nil {
		mod.Close(context.Background())
	}
	code := 0
	if ee, ok := errors.AsType[*sys.ExitError](err); ok {
		code = int(ee.ExitCode())
	} else if err != nil {
		tb.Fatalf("wasip1 twice %q: %v", args, err)
	}
	return output{stdout.String(), stderr.String(), code}
}
