package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/twice-lab/twice/server/wasmbuild"
)

// TestBundle makes a bundled binary and runs it as a teacher would: in a
// folder of their own, with no Go toolchain on PATH and no source tree
// around. It must serve the lessons with exactly the runtime this tree
// builds.
func TestBundle(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a twice binary")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	// go test caches a result by the files its process opens; the builds
	// below read these in other processes, so open them here, so that an
	// edit to them runs this test again.
	for _, glob := range []string{"../../wasm/*", "../../server/wasmbuild/bundled.go"} {
		files, _ := filepath.Glob(glob)
		for _, f := range files {
			os.ReadFile(f)
		}
	}
	// The builds come first and have no deadline: with an empty build
	// cache on a busy machine they take minutes. The bundle builds the
	// runtime, so the second build below is a cache hit.
	start := time.Now()
	bin := filepath.Join(t.TempDir(), "twice-bundled")
	var stdout, stderr strings.Builder
	if code := run([]string{"bundle", "-o", bin}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("twice bundle: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "with the runtime inside") || !strings.Contains(stdout.String(), "wrote "+bin) {
		t.Errorf("twice bundle printed no progress:\n%s", stdout.String())
	}
	want, err := wasmbuild.BuildRuntime(context.Background(), wasmbuild.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("built the bundle and the runtime in %v", time.Since(start).Round(time.Millisecond))
	// docs/EMBED.md's size of the bundle is this one's, measured.
	if st, err := os.Stat(bin); err != nil {
		t.Error(err)
	} else if doc, err := os.ReadFile("../../docs/EMBED.md"); err != nil {
		t.Error(err)
	} else if want := fmt.Sprintf("WebAssembly runtime inside (about %d MB)", (st.Size()+500_000)/1_000_000); !strings.Contains(string(doc), want) {
		t.Errorf("docs/EMBED.md does not say %q: the bundle is %d bytes", want, st.Size())
	}

	// The clock for serving starts now.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	cmd := exec.CommandContext(ctx, bin, "serve", "--addr", "127.0.0.1:0")
	cmd.Dir = t.TempDir()
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "TWICE_WASM=") && !strings.HasPrefix(kv, "XDG_CACHE_HOME=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "PATH="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var serveErr bytes.Buffer
	cmd.Stderr = &serveErr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}()
	lines := bufio.NewScanner(out)
	var base string
	var said []string
	for base == "" && lines.Scan() {
		said = append(said, lines.Text())
		if _, after, ok := strings.Cut(lines.Text(), "serving the lessons at "); ok {
			base, _, _ = strings.Cut(after, " ")
		}
	}
	if base == "" {
		t.Fatalf("the bundled binary did not start serving:\n%s\n%s", strings.Join(said, "\n"), serveErr.String())
	}
	go io.Copy(io.Discard, out)
	if !strings.Contains(strings.Join(said, "\n"), "using the runtime bundled in this binary") {
		t.Errorf("the bundled binary did not say which runtime it uses:\n%s", strings.Join(said, "\n"))
	}

	// serve answers a lesson not rendered yet with 503 and a page saying
	// so: a page is asked for again until it is there.
	get := func(path string) []byte {
		t.Helper()
		for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
			req, _ := http.NewRequestWithContext(ctx, "GET", base+path, nil)
			req.Header.Set("Accept-Encoding", "identity")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode == http.StatusServiceUnavailable && time.Now().Before(deadline) {
				continue
			}
			if res.StatusCode != 200 {
				t.Fatalf("GET %s: %s", path, res.Status)
			}
			return body
		}
	}
	page := get("lessons/claim-race/")
	script := regexp.MustCompile(`assets/twice\.[0-9a-f]+\.js`).Find(page)
	if !bytes.Contains(page, []byte("<twice-playground")) || script == nil {
		t.Fatalf("the lesson page has no playground or no script:\n%.400s", page)
	}
	wasm := regexp.MustCompile(`twice\.[0-9a-f]+\.wasm`).Find(get(string(script)))
	if wasm == nil {
		t.Fatal("twice.js names no wasm module")
	}
	if got := get("assets/" + string(wasm)); !bytes.Equal(got, want.Wasm) {
		t.Errorf("the bundled binary serves a module of %d bytes that is not the one this tree builds (%d bytes)", len(got), len(want.Wasm))
	}
}

func TestBundleUsage(t *testing.T) {
	var stdout, stderr strings.Builder
	if code := run([]string{"bundle"}, nil, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "-o FILE is required") {
		t.Errorf("bundle without -o: exit %d, %q", code, stderr.String())
	}
	stderr.Reset()
	if code := run([]string{"bundle", "-h"}, nil, &stdout, &stderr); code != 0 || !strings.Contains(stderr.String(), "no Go") {
		t.Errorf("bundle -h: exit %d, %q", code, stderr.String())
	}
}
