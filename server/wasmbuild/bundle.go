package wasmbuild

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// bundled is the runtime compiled into this binary by BuildBundle (see
// bundled.go, built only with the twice_bundle tag), or nil.
var bundled *Runtime

// Bundled returns the runtime compiled into this binary, or nil when the
// binary was built the ordinary way (go build, go run).
func Bundled() *Runtime { return bundled }

// bundleTag is the build tag under which bundled.go embeds the runtime.
const bundleTag = "twice_bundle"

// BundleOptions configure BuildBundle.
type BundleOptions struct {
	// BuildOptions find the module and the go command, and take progress
	// lines, as for BuildRuntime.
	BuildOptions
	// Out is the binary to write.
	Out string
	// GOOS and GOARCH are the platform of the binary; "" means the go
	// command's default (this machine's, unless the environment says
	// otherwise).
	GOOS, GOARCH string
}

// bundleTarget returns the file a bundle written to out lands in, as an
// absolute path and as the user named it: out itself, or, as go build -o
// does with a folder, twice (twice.exe for Windows) inside it.
func bundleTarget(out, goos string) (abs, shown string, err error) {
	abs, err = filepath.Abs(out)
	if err != nil {
		return "", "", err
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		if goos == "" {
			goos = cmp.Or(os.Getenv("GOOS"), runtime.GOOS)
		}
		name := "twice"
		if goos == "windows" {
			name += ".exe"
		}
		return filepath.Join(abs, name), filepath.Join(out, name), nil
	}
	return abs, out, nil
}

// BuildBundle writes a twice binary that carries its WebAssembly runtime:
// one file that serves and exports the lessons with no Go toolchain and no
// source tree, for a teacher to keep or hand on. It builds the runtime
// (BuildRuntime), then builds cmd/twice with the twice_bundle tag and an
// overlay that puts the module and its wasm_exec.js where bundled.go embeds
// them; nothing is written into the source tree.
func BuildBundle(ctx context.Context, opts BundleOptions) error {
	if opts.Out == "" {
		return errors.New("no output file")
	}
	out, shown, err := bundleTarget(opts.Out, opts.GOOS)
	if err != nil {
		return err
	}
	goCmd, root, err := opts.module(ctx)
	if err != nil {
		return err
	}
	rt, err := buildRuntime(ctx, goCmd, root, opts.Progress)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "twice-bundle-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	replace := map[string]string{}
	for name, body := range map[string][]byte{"twice.wasm": rt.Wasm, "wasm_exec.js": rt.WasmExec} {
		file := filepath.Join(tmp, name)
		if err := os.WriteFile(file, body, 0o644); err != nil {
			return err
		}
		replace[filepath.Join(root, "server", "wasmbuild", "bundled", name)] = file
	}
	overlay, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return err
	}
	overlayFile := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(overlayFile, overlay, 0o644); err != nil {
		return err
	}
	platform := strings.Trim(opts.GOOS+"/"+opts.GOARCH, "/")
	if opts.Progress != nil {
		if platform == "" {
			platform = "this machine"
		}
		fmt.Fprintf(opts.Progress, "building twice for %s with the runtime inside...\n", platform)
	}
	start := time.Now()
	cmd := exec.CommandContext(ctx, goCmd, "build", "-trimpath", "-tags", bundleTag, "-overlay", overlayFile, "-o", out, "./cmd/twice")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if opts.GOOS != "" {
		cmd.Env = append(cmd.Env, "GOOS="+opts.GOOS)
	}
	if opts.GOARCH != "" {
		cmd.Env = append(cmd.Env, "GOARCH="+opts.GOARCH)
	}
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building the bundled binary failed: %v\n%s", err, strings.TrimSpace(string(b)))
	}
	if opts.Progress != nil {
		if fi, err := os.Stat(out); err == nil {
			fmt.Fprintf(opts.Progress, "wrote %s in %.1fs: %.1f MB, of which the runtime is %.1f MB\n", shown, time.Since(start).Seconds(), float64(fi.Size())/1e6, float64(len(rt.Wasm)+len(rt.WasmExec))/1e6)
		}
	}
	return nil
}
