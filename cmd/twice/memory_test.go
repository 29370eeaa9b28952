package main

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestServeMemory starts twice serve, as a process of its own, on a
// folder inside every documented bound that is costly to render: 16
// lessons of 760 KB of "# a" lines (a heading each, so many elements per
// byte). Once every lesson is rendered and compressed (each page served
// with its brotli form, or as an error), the process's peak resident
// memory (VmHWM) is under 512 MB, what a classroom VM can give it, and
// what it holds then, idle, is under 256 MB. (How many of the pages
// render depends on the machine: a page's markdown has a time limit.)
func TestServeMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("renders 12 MB of lessons")
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil || !strings.Contains(string(status), "VmHWM:") {
		t.Skip("no /proc/PID/status with VmHWM here")
	}
	bin := twiceBinary(t)
	dir := t.TempDir()
	const n = 16
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("l%02d.md", i)), []byte(strings.Repeat("# a\n", 760<<10/4)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "serve", "--lessons", dir, "--addr", "127.0.0.1:0", "--wasm", fakeWasm(t))
	// A cache of compressed forms from an earlier run would spare the
	// compressions this measures.
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir(), "HOME="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	url := ""
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if _, rest, ok := strings.Cut(sc.Text(), "serving the lessons at "); ok {
			url, _, _ = strings.Cut(rest, " ")
			break
		}
	}
	if url == "" {
		t.Fatal("twice serve printed no URL")
	}
	go sc.Scan()
	rendered := make(chan bool)
	go func() {
		es := bufio.NewScanner(stderr)
		es.Buffer(nil, 1<<20)
		for es.Scan() {
			if strings.Contains(es.Text(), " rendered in ") {
				close(rendered)
				break
			}
		}
		for es.Scan() {
		}
	}()
	<-rendered
	// Each page, once compressed, is served in brotli.
	for i := range n {
		page := fmt.Sprintf("%s/lessons/l%02d/", strings.TrimSuffix(url, "/"), i)
		for {
			req, _ := http.NewRequest("GET", page, nil)
			req.Header.Set("Accept-Encoding", "br")
			res, err := http.DefaultTransport.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != 200 || res.Header.Get("Content-Encoding") == "br" {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	status, err = os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	peak, now := procKB(string(status), "VmHWM:"), procKB(string(status), "VmRSS:")
	t.Logf("twice serve's peak resident memory: %d MB (now %d MB)", peak>>10, now>>10)
	if peak > 512<<10 {
		t.Errorf("twice serve reached %d MB rendering a folder inside the bounds; want under 512 MB", peak>>10)
	}
	if now > 256<<10 {
		t.Errorf("twice serve holds %d MB, idle, once the folder is rendered and compressed; want under 256 MB", now>>10)
	}
}

// procKB is a field of /proc/PID/status, in kB.
func procKB(status, field string) int {
	_, rest, _ := strings.Cut(status, field)
	v, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
	k, _ := strconv.Atoi(v)
	return k
}

// twiceBinary is a path that runs this test binary as twice (see
// TestMain), for tests that need it as a process of its own.
func twiceBinary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "twice")
	if err := os.Symlink(exe, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestRunUnderAddressLimit runs a script of 8 workers (a SQLite
// connection each, and the queue's) under a 4 GiB limit of address space
// (ulimit -v), as some shared machines set: it runs.
func TestRunUnderAddressLimit(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	bin := twiceBinary(t)
	out, err := exec.Command("sh", "-c", "ulimit -v 4194304 && exec \"$0\" run -c 'race read 1 --workers 8'", bin).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "8 workers: two or more effects in 1 of 1 races") {
		t.Errorf("under ulimit -v 4194304: %v\n%s", err, out)
	}
}
