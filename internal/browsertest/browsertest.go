// Package browsertest starts the headless Chromium that the browser tests
// and benchmarks drive, in one place, so that they all find the same
// browser, pass it the same flags, and skip or fail by the same rule.
//
// The browser is $TWICE_CHROMIUM, or the first of the usual names found on
// PATH (Debian's package installs /usr/bin/chromium). Without one, tests
// skip with a loud message; with TWICE_REQUIRE_BROWSER=1, as .ci/run sets
// it, a missing browser is a failure instead.
//
// Under go test -short every browser test skips, with a message that says
// so, whether or not a browser is installed and whatever
// TWICE_REQUIRE_BROWSER says: -short asks for the quick loop, and
// TWICE_REQUIRE_BROWSER=1 only decides what a missing browser means in a
// full run. CI runs the full suite, never -short.
//
// go test shows a passing package's test output only under -v, so a skip
// message alone goes unseen. A package's TestMain calls [Report] after
// its tests: when any test skipped here (or through [NoteSkip]), it prints
// one line saying what skipped and why, on the terminal when there is
// one (go test ./... shows it without -v), else on standard error.
package browsertest

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// Path returns the browser to run, or "" when there is none.
func Path() string {
	if p := os.Getenv("TWICE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Require returns the browser's path. Under -short it skips tb; when there
// is no browser it skips tb loudly, or fails it when
// TWICE_REQUIRE_BROWSER=1. Call it before any slow setup, so that a test
// that will not run builds nothing.
func Require(tb testing.TB) string {
	tb.Helper()
	if testing.Short() {
		NoteSkip("browser tests", "under -short; run go test without -short to drive Chromium")
		tb.Skip("SKIPPING BROWSER TEST under -short (the quick loop); run go test without -short to drive Chromium")
	}
	path := Path()
	if path == "" {
		msg := "no Chromium found (install Debian's chromium, or set TWICE_CHROMIUM)"
		if os.Getenv("TWICE_REQUIRE_BROWSER") == "1" {
			tb.Fatalf("TWICE_REQUIRE_BROWSER=1 but %s", msg)
		}
		NoteSkip("browser tests", msg)
		tb.Skipf("SKIPPING BROWSER TEST: %s; set TWICE_REQUIRE_BROWSER=1 to make this a failure", msg)
	}
	return path
}

// skipped counts the tests skipped, by what they are and why.
var skipped = struct {
	sync.Mutex
	n map[[2]string]int
}{n: map[[2]string]int{}}

// NoteSkip records that a test of the kind what (such as "browser tests"
// or "the accessibility gate") skipped, and why, for Report.
func NoteSkip(what, why string) {
	skipped.Lock()
	defer skipped.Unlock()
	skipped.n[[2]string{what, why}]++
}

// Summary returns one line saying what skipped and why, or "" when
// nothing did.
func Summary() string {
	skipped.Lock()
	defer skipped.Unlock()
	if len(skipped.n) == 0 {
		return ""
	}
	var parts []string
	for k, n := range skipped.n {
		parts = append(parts, fmt.Sprintf("%s skipped (%d, %s)", k[0], n, k[1]))
	}
	sort.Strings(parts)
	return "twice: " + strings.Join(parts, "; ") + "; see docs/MANUAL.md, \"Tests\", to run them"
}

// Report prints Summary, when there is one, where go test ./... shows it
// without -v: the terminal (/dev/tty) if the tests have one, else w
// (standard error, which go test shows under -v or when the package
// fails).
func Report(w io.Writer) {
	line := Summary()
	if line == "" {
		return
	}
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		w = tty
	}
	fmt.Fprintln(w, line)
}

// Options are the allocator options every run uses: headless, no sandbox
// (we run as root in CI), nothing that reaches the network on its own, no
// back/forward cache (it keeps old renderers alive and skews timings), and
// a profile directory of the caller's (a fresh one for a cold start).
func Options(path, profile string, width, height int) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-features", "BackForwardCache"),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(width, height),
	}
}

// Start launches the browser with opts and returns a context for its first
// tab and a func that closes it (also registered with tb.Cleanup).
func Start(tb testing.TB, path string, opts []chromedp.ExecAllocatorOption, ctxOpts ...chromedp.ContextOption) (context.Context, func()) {
	tb.Helper()
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx, ctxOpts...)
	stop := func() { cancel(); cancelAlloc() }
	tb.Cleanup(stop)
	if err := chromedp.Do(ctx); err != nil {
		tb.Fatalf("starting %s: %v", path, err)
	}
	return ctx, stop
}
