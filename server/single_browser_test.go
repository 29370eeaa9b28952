package server

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/twice-lab/twice/internal/webdriver"
	"github.com/twice-lab/twice/lessons"
	"github.com/twice-lab/twice/runtime/script/interp"
)

// singleFile writes the one-file build of the built-in lessons with the
// real runtime, and returns its file:// URL and its size.
func singleFile(t *testing.T) (string, int) {
	t.Helper()
	srv, err := NewServer(Options{Runtime: builtRuntime(t), Brotli: BrotliNever}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := srv.Site().SingleFile()
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "twice lab.html")
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return "file://" + strings.ReplaceAll(name, " ", "%20"), len(b)
}

// TestBrowserSingleFile opens the one-file build from file:// in Chromium:
// the index and lesson 4 by their routes, lesson 4's race block run at its
// seed gives the native CLI's bytes, a link to a run on a lesson's route
// replays it, and the page asks the network for nothing.
func TestBrowserSingleFile(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	url, size := singleFile(t)
	t.Logf("the single file: %d bytes (%.2f MB)", size, float64(size)/1e6)
	if size > MaxSingleFile {
		t.Errorf("the single file is %d bytes, more than %d", size, MaxSingleFile)
	}
	if doc, err := os.ReadFile("../docs/EMBED.md"); err != nil {
		t.Error(err)
	} else if want := "HTML file of about " + megabytes(size) + " MB"; !strings.Contains(string(doc), want) {
		t.Errorf("docs/EMBED.md does not say %q", want)
	}
	var mu sync.Mutex
	var requests []string
	chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			requests = append(requests, e.Request.URL)
			mu.Unlock()
		}
	})
	run(t, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{})
		return err
	}))
	singlePath(t, func(u string) { navigate(t, ctx, u) }, func(js string) string { return jsAny[string](t, ctx, js) }, url)
	mu.Lock()
	for _, r := range requests {
		if !strings.HasPrefix(r, "file:") && !strings.HasPrefix(r, "data:") && !strings.HasPrefix(r, "blob:") {
			t.Errorf("the single file asked the network for %.120s", r)
		}
	}
	t.Logf("%d requests, all file:, data: or blob:", len(requests))
	mu.Unlock()
	shoot(t, ctx, "single-file-lesson-4-1280")
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// jsAny is js with the long timeout a first run from a file needs.
func jsAny[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	return run(t, ctx, 3*time.Minute, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
}

// singlePath is the reader's path through the single file, in any engine:
// go loads a URL and waits for the page's blocks; eval returns a string.
func singlePath(t *testing.T, goTo func(string), eval func(string) string, url string) {
	t.Helper()
	ls, err := lessons.Load(lessons.FS)
	if err != nil {
		t.Fatal(err)
	}
	race := ls[3]
	// Predict off: the path presses Run and reads the result at once.
	url += "?predict=off"
	// open goes to a route and waits until the file shows it, with its
	// blocks set up in full.
	open := func(route string) {
		t.Helper()
		goTo(url + route)
		want := strings.TrimPrefix(route, "#")
		if want == "" {
			want = "/"
		}
		shown := eval(`(async () => {
  for (let i = 0; i < 600; i++) {
    const els = document.querySelectorAll("twice-playground");
    const ready = document.documentElement.dataset.twiceShown === ` + strconv.Quote(want) + ` &&
      Array.from(els).every((e) => e.shadowRoot && e.shadowRoot.querySelector(".transcript") && e.getAttribute("state") !== null);
    if (ready && (els.length === 0 || (window.TwicePlayground && window.TwicePlayground.full))) return "ok";
    await new Promise((r) => setTimeout(r, 100));
  }
  return "not shown: " + document.documentElement.dataset.twiceShown;
})()`)
		if shown != "ok" {
			t.Fatalf("%s%s: %s", url, route, shown)
		}
		eval(engineHelpers + ` && "ok"`)
	}
	open("")
	if got := eval(`(document.querySelectorAll("ol.lessons a").length + " " + document.querySelector("ol.lessons a").getAttribute("href"))`); got != "21 #/lessons/one-job/" {
		t.Errorf("the index lists %q; want 21 lessons, linked by route", got)
	}
	open("#/lessons/" + race.Slug + "/")
	if got := eval(`document.querySelector("h1").textContent`); got != race.Title {
		t.Errorf("#/lessons/%s/ shows %q, want %q", race.Slug, got, race.Title)
	}
	native := interp.Run(race.Blocks[0].Script, interp.Options{Seed: interp.DefaultSeed})
	start := time.Now()
	if s := eval(`tp.settle(0, () => tp.q(0, "button.run").click())`); s != "done" {
		t.Fatalf("Run from the file ended in %q: %s", s, eval(`tp.q(0, ".error") ? tp.q(0, ".error").textContent : ""`))
	}
	t.Logf("the first live result from the file, from Run pressed (unpacking, compiling, running): %v", time.Since(start).Round(time.Millisecond))
	if got := eval(`tp.transcript(0)`); got != shownText(native) {
		t.Errorf("from the file, the race block printed:\n%s\nwant (native):\n%s", got, shownText(native))
	}
	// A link to a run keeps the lesson's route in front of the block's.
	link := eval(`new URL(tp.el(0).linkTo("output"), location.href).href`)
	if !strings.Contains(link, "#/lessons/"+race.Slug+"/#block-1?") {
		t.Errorf("a link to a run from the file is %q; want the lesson's route, then the block's", link)
	}
	open("#/lessons/" + race.Slug + "/#block-1?seed=5&script=race+read+5%0A")
	if s := eval(`tp.settle(0)`); s != "done" {
		t.Fatalf("the link's run ended in %q", s)
	}
	if got, want := eval(`tp.transcript(0)`), shownText(interp.Run("race read 5\n", interp.Options{Seed: 5})); got != want {
		t.Errorf("the link's run printed:\n%s\nwant (native, seed 5):\n%s", got, want)
	}
}

// TestBrowserEnginesSingleFile opens the single file from file:// in
// Firefox and WebKitGTK and walks the same path.
func TestBrowserEnginesSingleFile(t *testing.T) {
	for _, e := range webdriver.Engines {
		t.Run(e.Name, func(t *testing.T) {
			p := webdriver.Require(t, e)
			url, _ := singleFile(t)
			if err := p.Resize(1280, 900); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			singlePath(t, func(u string) { engineGoto(t, p, u) }, func(js string) string {
				var v any
				if err := p.Eval(js, &v); err != nil {
					t.Fatalf("%.80s: %v", js, err)
				}
				if s, ok := v.(string); ok {
					return s
				}
				b, _ := jsonText(v)
				return b
			}, url)
			t.Logf("%s: the path through the single file took %v", e.Name, time.Since(start).Round(time.Millisecond))
		})
	}
}

// jsonText writes v as JSON text.
func jsonText(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}
