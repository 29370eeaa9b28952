package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fakeWasm writes a stand-in wasm module and a wasm_exec.js next to it, for
// tests of the commands that do not run it, and returns the module's path.
func fakeWasm(t *testing.T) string {
	dir := t.TempDir()
	wasm := filepath.Join(dir, "twice.wasm")
	if err := os.WriteFile(wasm, []byte("\x00asm\x01\x00\x00\x00fake module for tests"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "wasm_exec.js"), []byte("// fake wasm_exec.js\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return wasm
}

func TestBuildCommand(t *testing.T) {
	wasm := fakeWasm(t)
	out := t.TempDir()
	args := []string{"build", "-o", out, "--wasm", wasm}
	if testing.Short() {
		// One built-in lesson: server's and lessons' tests render them all.
		lessons := t.TempDir()
		src, err := os.ReadFile(filepath.Join("..", "..", "lessons", "04-claim-race.md"))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(lessons, "04-claim-race.md"), src, 0o644)
		args = append(args, "--lessons", lessons)
	}
	var stdout, stderr strings.Builder
	if code := run(args, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("twice build: exit %d\n%s", code, stderr.String())
	}
	for _, p := range []string{"index.html", "404.html", "lessons/claim-race/index.html", "embed/claim-race/1/index.html", "assets/twice.js"} {
		if _, err := os.Stat(filepath.Join(out, p)); err != nil {
			t.Errorf("export lacks %s: %v", p, err)
		}
	}
	// The count printed is the count of files on disk, compressed copies
	// included.
	var onDisk int
	filepath.WalkDir(out, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			onDisk++
		}
		return nil
	})
	if want := fmt.Sprintf("wrote %d files to %s", onDisk, out); !strings.Contains(stdout.String(), want) {
		t.Errorf("stdout %q does not say %q", stdout.String(), want)
	}
}

func TestBuildBrokenLesson(t *testing.T) {
	lessons := t.TempDir()
	os.WriteFile(filepath.Join(lessons, "one.md"), []byte("# One\n\n```twice\nreset\nadd order-1 extra\n```\n"), 0o644)
	var stdout, stderr strings.Builder
	code := run([]string{"build", "-o", t.TempDir(), "--lessons", lessons, "--wasm", fakeWasm(t)}, nil, &stdout, &stderr)
	if code != 1 {
		t.Errorf("twice build of a broken lesson: exit %d, want 1", code)
	}
	if want := filepath.Join(lessons, "one.md") + ":5:"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q does not name %s", stderr.String(), want)
	}
}

func TestServeBuildUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
		msg  string
	}{
		{[]string{"build"}, 2, "-o DIR or --single-file FILE is required"},
		{[]string{"build", "-o", t.TempDir(), "extra"}, 2, "unexpected argument"},
		{[]string{"build", "-o", t.TempDir(), "--lessons", "/does/not/exist"}, 2, "not a folder"},
		{[]string{"build", "-o", t.TempDir(), "--wasm", "/does/not/exist.wasm"}, 1, "exist.wasm"},
		{[]string{"build", "-h"}, 0, "usage: twice build"},
		{[]string{"serve", "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"serve", "extra"}, 2, "unexpected argument"},
		{[]string{"serve", "--lessons", "/does/not/exist"}, 2, "not a folder"},
		{[]string{"serve", "-h"}, 0, "usage: twice serve"},
		{[]string{"serve", "--notes", "maybe"}, 2, "--notes maybe: want on or off"},
		{[]string{"build", "-o", t.TempDir(), "--notes", "hidden"}, 2, "--notes hidden: want on or off"},
		{[]string{"serve", "--addr", "256.0.0.1:1", "--wasm", fakeWasm(t)}, 1, "--addr"},
	} {
		var stdout, stderr strings.Builder
		if code := run(tc.args, nil, &stdout, &stderr); code != tc.want || !strings.Contains(stderr.String(), tc.msg) {
			t.Errorf("twice %q: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr.String(), tc.want, tc.msg)
		}
	}
}

// served is twice serve run in the test's process, as a user starts it.
type served struct {
	url     string         // the URL it printed
	printed time.Time      // when it printed it
	before  []string       // the lines it printed before the URL
	stderr  *lockedBuilder // its log
	done    chan int       // its exit code
}

// startServe runs twice serve with args and returns once it has printed
// the URL it serves at; it fails the test if serve ends without one.
func startServe(t *testing.T, args ...string) *served {
	t.Helper()
	pr, pw := io.Pipe()
	s := &served{stderr: &lockedBuilder{}, done: make(chan int, 1)}
	go func() {
		s.done <- run(append([]string{"serve"}, args...), nil, pw, s.stderr)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		if _, rest, ok := strings.Cut(sc.Text(), "serving the lessons at "); ok {
			s.url, _, _ = strings.Cut(rest, " ")
			break
		}
		s.before = append(s.before, sc.Text())
	}
	s.printed = time.Now()
	go io.Copy(io.Discard, pr)
	if s.url == "" {
		t.Fatalf("twice serve %s printed no URL; stderr %q", strings.Join(args, " "), s.stderr.String())
	}
	return s
}

// stop interrupts serve, as Ctrl-C does, and returns its exit code; it
// fails the test if serve has not ended 10 s later.
func (s *served) stop(t *testing.T) int {
	t.Helper()
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	select {
	case code := <-s.done:
		return code
	case <-time.After(10 * time.Second):
		t.Fatal("twice serve did not stop on an interrupt")
		return -1
	}
}

// TestServeCommand starts twice serve, fetches a page from the URL it
// prints, and stops it with an interrupt, as a user does.
func TestServeCommand(t *testing.T) {
	for _, tc := range []struct {
		addr string
		warn bool
	}{
		{"127.0.0.1:0", false},
		{"0.0.0.0:0", true},
	} {
		s := startServe(t, "--addr", tc.addr, "--wasm", fakeWasm(t))
		url, before, stderr := s.url, s.before, s.stderr
		// On every interface, it names the addresses other machines can
		// open, each of them serving, and draws a QR code of the first.
		var lan []string
		for _, line := range before {
			if _, u, ok := strings.Cut(line, "on the network: "); ok {
				lan = append(lan, u)
			}
		}
		if !tc.warn && len(lan) > 0 {
			t.Errorf("--addr %s printed network URLs %q", tc.addr, lan)
		}
		if tc.warn {
			out := strings.Join(before, "\n")
			if len(lan) == 0 && !strings.Contains(out, "no network address") {
				t.Errorf("--addr %s printed neither network URLs nor why not:\n%s", tc.addr, out)
			}
			for _, u := range lan {
				if code := getUntilReady(t, u); code != 200 {
					t.Errorf("GET %s: %d", u, code)
				}
			}
			if len(lan) > 0 && (!strings.Contains(out, "scan to open "+lan[0]) || strings.Count(out, "█") < 100) {
				t.Errorf("no QR code of %s:\n%s", lan[0], out)
			}
		}
		// The server serves the index before the lessons are rendered,
		// and a lesson says so (503) until it is.
		if code := getUntilReady(t, url+"lessons/claim-race/"); code != 200 {
			t.Errorf("GET %s: %d", url, code)
		}
		if code := s.stop(t); code != 0 {
			t.Errorf("twice serve exited %d after an interrupt; stderr %q", code, stderr.String())
		}
		if got := strings.Contains(stderr.String(), "warning: listening on"); got != tc.warn {
			t.Errorf("--addr %s: warning printed = %v, want %v (stderr %q)", tc.addr, got, tc.warn, stderr.String())
		}
	}
}

// TestServeIndexFirst starts twice serve on a folder with a slow lesson,
// as a teacher does, and fetches the URL it prints at once: the index
// answers (200, listing both lessons) on the first request, before the
// slow lesson has rendered; the lessons follow, each once it has.
func TestServeIndexFirst(t *testing.T) {
	dir := t.TempDir()
	// Every block says when it was written, so that no result kept from
	// another test's render (the server keeps them per process) serves it.
	now := time.Now().UnixNano()
	slow := fmt.Sprintf("# Slow\n\n```twice\n# %d\nrace read 10000\n```\n\n```twice\n# %d\nrace atomic 10000\n```\n\n```twice\n# %d\nrace read 10000\n```\n", now, now, now)
	os.WriteFile(filepath.Join(dir, "a.md"), []byte(fmt.Sprintf("# Quick\n\n```twice\n# %d\nrace read 3\n```\n", now)), 0o644)
	os.WriteFile(filepath.Join(dir, "b.md"), []byte(slow), 0o644)
	s := startServe(t, "--addr", "127.0.0.1:0", "--lessons", dir, "--wasm", fakeWasm(t))
	url, printed := s.url, s.printed
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	t.Logf("the index answered %d, %v after the URL was printed", resp.StatusCode, time.Since(printed).Round(time.Millisecond))
	if resp.StatusCode != 200 || !strings.Contains(string(body), `href="lessons/a/"`) || !strings.Contains(string(body), `href="lessons/b/"`) || !strings.Contains(string(body), "3 runnable scripts") {
		t.Errorf("the first GET of %s, as the URL is printed, answered %d:\n%s", url, resp.StatusCode, body)
	}
	for _, page := range []string{"lessons/a/", "lessons/b/"} {
		if code := getUntilReady(t, url+page); code != 200 {
			t.Errorf("GET %s: %d", url+page, code)
		}
	}
	if code := s.stop(t); code != 0 {
		t.Errorf("twice serve exited %d after an interrupt; stderr %q", code, s.stderr.String())
	}
}

// getUntilReady fetches url until it is no longer the "rendering" page
// (status 503), for up to a minute, and returns the last status.
func getUntilReady(t *testing.T, url string) int {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || time.Now().After(deadline) {
			return resp.StatusCode
		}
		if !strings.Contains(string(body), "Rendering the lessons") {
			t.Errorf("503 without the rendering page: %q", body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// hostileFolder writes a lesson folder that once stalled serve and build:
// a named pipe called b.md, a 50 MB lesson (sparse) and a lesson of 10,000
// twice blocks, beside one good lesson.
func hostileFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var many strings.Builder
	many.WriteString("# Many\n\n")
	for range 10_000 {
		many.WriteString("```twice\nadd a\n```\n\n")
	}
	os.WriteFile(filepath.Join(dir, "a.md"), []byte("# Fine\n\n```twice\nrace read 3\n```\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "d.md"), []byte(many.String()), 0o644)
	if err := syscall.Mkfifo(filepath.Join(dir, "b.md"), 0o644); err != nil {
		t.Skip("cannot make a named pipe here:", err)
	}
	big, err := os.Create(filepath.Join(dir, "c.md"))
	if err != nil {
		t.Fatal(err)
	}
	big.WriteString("# Big\n\n")
	big.Truncate(50 << 20)
	big.Close()
	return dir
}

// twice serve of the hostile folder listens within seconds, serves the
// good lesson and names each refused file; twice build of it fails naming
// them.
func TestServeBuildHostileFolder(t *testing.T) {
	dir := hostileFolder(t)
	wasm := fakeWasm(t)
	start := time.Now()
	s := startServe(t, "--addr", "127.0.0.1:0", "--lessons", dir, "--wasm", wasm)
	stderr := s.stderr
	if took := s.printed.Sub(start); took > 5*time.Second {
		t.Errorf("twice serve listened after %v, want within 5 s", took)
	}
	if code := getUntilReady(t, s.url+"lessons/a/"); code != 200 {
		t.Errorf("the good lesson: %d", code)
	}
	s.stop(t)
	for _, name := range []string{"b.md: refused: it is a named pipe", "c.md: refused: 52428800 bytes", "d.md:", "10000 twice blocks"} {
		if !strings.Contains(stderr.String(), name) {
			t.Errorf("twice serve's log does not say %q:\n%s", name, stderr.String())
		}
	}

	var stdout, errb strings.Builder
	bdone := make(chan int, 1)
	go func() {
		bdone <- run([]string{"build", "-o", t.TempDir(), "--lessons", dir, "--wasm", wasm}, nil, &stdout, &errb)
	}()
	select {
	case code := <-bdone:
		if code == 0 {
			t.Error("twice build of the hostile folder exited 0")
		}
	case <-time.After(time.Minute):
		t.Fatal("twice build did not finish within a minute")
	}
	for _, name := range []string{"b.md", "c.md", "d.md"} {
		if !strings.Contains(errb.String(), filepath.Join(dir, name)) {
			t.Errorf("twice build does not name %s:\n%s", name, errb.String())
		}
	}
}

// lockedBuilder is a strings.Builder that a server's goroutines may write
// while the test reads it.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
