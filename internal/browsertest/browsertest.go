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
package browsertest

import (
	"context"
	"os"
	"os/exec"
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
		tb.Skip("SKIPPING BROWSER TEST under -short (the quick loop); run go test without -short to drive Chromium")
	}
	path := Path()
	if path == "" {
		msg := "no Chromium found (install Debian's chromium, or set TWICE_CHROMIUM)"
		if os.Getenv("TWICE_REQUIRE_BROWSER") == "1" {
			tb.Fatalf("TWICE_REQUIRE_BROWSER=1 but %s", msg)
		}
		tb.Skipf("SKIPPING BROWSER TEST: %s; set TWICE_REQUIRE_BROWSER=1 to make this a failure", msg)
	}
	return path
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
