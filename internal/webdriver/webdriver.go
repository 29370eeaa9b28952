// Package webdriver drives the browsers other than Chromium that readers
// use, through the W3C's own protocols, so that the reader's path is
// tested in every engine a classroom has: Firefox over WebDriver BiDi (a
// WebSocket the browser opens itself, with no driver binary), and
// WebKitGTK over classic WebDriver (Debian's WebKitWebDriver, which runs
// MiniBrowser under an X display, Xvfb when there is none). Chromium
// stays with chromedp (package browsertest).
//
// Each engine gives a [Page]: go to a URL, evaluate JavaScript (an
// expression whose value, awaited, comes back as JSON), resize, take a
// screenshot. [Require] starts one for a test, and skips loudly when the
// engine is not installed, or fails when TWICE_REQUIRE_BROWSER=1 (as
// .ci/run sets it); under -short it skips, as every browser test does.
package webdriver

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/twice-lab/twice/internal/browsertest"
)

// Page is one browser tab under test.
type Page interface {
	// Goto loads url and returns once its load event has fired.
	Goto(url string) error
	// Eval evaluates the JavaScript expression js in the page, awaits it
	// if it is a promise, and decodes its value, as JSON, into out (which
	// may be nil). A thrown error comes back as an error.
	Eval(js string, out any) error
	// Resize sets the size of the page's viewport in CSS pixels.
	Resize(width, height int) error
	// Screenshot returns a PNG of the viewport.
	Screenshot() ([]byte, error)
	// Close ends the browser and everything it started.
	Close() error
}

// ErrTooNarrow is a Resize the browser's window cannot make: its viewport
// stays Got pixels wide where Want were asked for.
type ErrTooNarrow struct{ Want, Got int }

func (e *ErrTooNarrow) Error() string {
	return fmt.Sprintf("the window cannot be made %d px wide: its viewport stays %d px", e.Want, e.Got)
}

// Engine is a browser engine this package drives.
type Engine struct {
	Name string // "firefox", "webkit"
	// find returns the programs the engine needs, or why it cannot run.
	find  func() (string, error)
	start func(tb testing.TB, bin string) (Page, error)
}

// Engines are the engines beside Chromium, in the order tests run them.
var Engines = []Engine{
	{Name: "firefox", find: findFirefox, start: startFirefox},
	{Name: "webkit", find: findWebKit, start: startWebKit},
}

// Require starts engine e for tb and closes it when tb ends. Without the
// engine it skips tb with a loud message naming the Debian package to
// install, or fails tb under TWICE_REQUIRE_BROWSER=1; under -short it
// skips.
func Require(tb testing.TB, e Engine) Page {
	tb.Helper()
	if testing.Short() {
		browsertest.NoteSkip("browser tests", "under -short; run go test without -short to drive the browsers")
		tb.Skip("SKIPPING BROWSER TEST under -short (the quick loop)")
	}
	bin, err := e.find()
	if err != nil {
		msg := fmt.Sprintf("%s: %v", e.Name, err)
		if os.Getenv("TWICE_REQUIRE_BROWSER") == "1" {
			tb.Fatalf("TWICE_REQUIRE_BROWSER=1 and %s", msg)
		}
		browsertest.NoteSkip(e.Name+" tests", err.Error())
		tb.Skipf("SKIPPING %s BROWSER TEST: %s", e.Name, msg)
	}
	p, err := e.start(tb, bin)
	if err != nil {
		tb.Fatalf("%s: %v", e.Name, err)
	}
	tb.Cleanup(func() { p.Close() })
	return p
}

// lookPath returns the first of names found on PATH or as a path.
func lookPath(names ...string) string {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// wrap is the expression a page evaluates for Eval: js's value, awaited
// and written as JSON text, so that every engine returns a string.
func wrap(js string) string {
	return "(async () => JSON.stringify(await (" + js + ")) ?? 'null')()"
}

// decode puts the JSON text a page returned into out.
func decode(text string, out any) error {
	if out == nil {
		return nil
	}
	return json.Unmarshal([]byte(text), out)
}
