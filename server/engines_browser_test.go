package server

import (
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twice-lab/twice/internal/webdriver"
	"github.com/twice-lab/twice/lessons"
	"github.com/twice-lab/twice/runtime/script/interp"
)

// engineHelpers are the page-side helpers of the reader's path in
// Firefox and WebKit, as one expression (a page's CSP refuses eval).
const engineHelpers = `(window.tp = {
  el: (n) => document.querySelectorAll("twice-playground")[n],
  q: (n, sel) => tp.el(n).shadowRoot.querySelector(sel),
  state: (n) => tp.el(n).getAttribute("state"),
  transcript: (n) => tp.q(n, ".transcript").textContent,
  ready: () => document.readyState === "complete" && customElements.get("twice-playground") !== undefined &&
    (window.TwicePlayground === undefined || window.TwicePlayground.full === true),
  // settle resolves once block n is done or failed, after act (if any).
  settle: (n, act) => new Promise((resolve, reject) => {
    const el = tp.el(n);
    const start = performance.now();
    const runs = el.dataset.engineRuns = String(Number(el.dataset.engineRuns || 0) + 1);
    if (act) act();
    const check = () => {
      const s = el.getAttribute("state");
      if ((s === "done" || s === "error") && (!act || tp.q(n, ".out-heading").textContent.includes("browser"))) { resolve(s); return; }
      if (performance.now() - start > 180000) { reject(new Error("no result after 180 s; state " + s + ", run " + runs)); return; }
      setTimeout(check, 50);
    };
    setTimeout(check, act ? 100 : 0);
  }),
}, true)`

// engineGoto loads url in p and waits until its blocks are set up in
// full, then installs the helpers.
func engineGoto(t *testing.T, p webdriver.Page, url string) {
	t.Helper()
	if err := p.Goto(url); err != nil {
		t.Fatalf("go to %s: %v", url, err)
	}
	for i := 0; ; i++ {
		var ok bool
		if err := p.Eval(`document.readyState === "complete" && customElements.get("twice-playground") !== undefined && (window.TwicePlayground === undefined || window.TwicePlayground.full === true)`, &ok); err != nil {
			t.Fatal(err)
		}
		if ok {
			break
		}
		if i == 600 {
			t.Fatalf("%s: the blocks were not set up after 60 s", url)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := p.Eval(engineHelpers, nil); err != nil {
		t.Fatal(err)
	}
}

// engineEval evaluates js in p and returns its value as T.
func engineEval[T any](t *testing.T, p webdriver.Page, js string) T {
	t.Helper()
	var v T
	if err := p.Eval(js, &v); err != nil {
		t.Fatalf("%.80s: %v", js, err)
	}
	return v
}

// TestBrowserEnginesReaderPath walks the reader's path in Firefox (over
// WebDriver BiDi) and WebKitGTK (over WebDriver), as TestBrowser does in
// Chromium: lesson 4's race block run live at its seed prints the native
// CLI's bytes; the claim toggle to atomic gives no duplicate; a shared
// link to another seed replays that seed's result. Screenshots of the
// block after each, at a desktop's width and as near a phone's as the
// engine's window goes, are kept.
func TestBrowserEnginesReaderPath(t *testing.T) {
	ls, err := lessons.Load(lessons.FS)
	if err != nil {
		t.Fatal(err)
	}
	race := ls[3]
	src := race.Blocks[0].Script
	if !strings.Contains(src, "race read") {
		t.Fatalf("lesson 4 (%s) should start with a race read block", race.File)
	}
	for _, e := range webdriver.Engines {
		t.Run(e.Name, func(t *testing.T) {
			p := webdriver.Require(t, e)
			srv, err := NewServer(Options{Runtime: builtRuntime(t), Brotli: BrotliNever}, nil)
			if err != nil {
				t.Fatal(err)
			}
			site := newCuttable(srv)
			served := httptest.NewServer(site)
			defer served.Close()
			// Predict off: the test presses Run and reads the result at once.
			page := served.URL + "/lessons/" + race.Slug + "/?predict=off"
			shot := func(name string) {
				// Two frames, so that the screenshot shows what was just drawn.
				engineEval[bool](t, p, `new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`)
				png, err := p.Screenshot()
				if err != nil {
					t.Errorf("screenshot: %v", err)
					return
				}
				f := filepath.Join(artifactDir(t), "engine-"+e.Name+"-"+name+".png")
				if err := os.WriteFile(f, png, 0o644); err != nil {
					t.Error(err)
				}
				t.Logf("screenshot: %s", f)
			}
			if err := p.Resize(1280, 900); err != nil {
				t.Fatal(err)
			}

			// The race block, run at its seed: the native CLI's bytes.
			engineGoto(t, p, page)
			native := interp.Run(src, interp.Options{Seed: interp.DefaultSeed})
			start := time.Now()
			if s := engineEval[string](t, p, `tp.settle(0, () => tp.q(0, "button.run").click())`); s != "done" {
				t.Fatalf("Run ended in state %q: %s", s, engineEval[string](t, p, `tp.q(0, ".error").textContent`))
			}
			t.Logf("%s: the first Run (download, compile, run) took %v", e.Name, time.Since(start).Round(time.Millisecond))
			if got := engineEval[string](t, p, `tp.transcript(0)`); got != shownText(native) {
				t.Errorf("live transcript:\n%s\nwant (native):\n%s", got, shownText(native))
			}
			if d := engineEval[string](t, p, `tp.q(0, ".tally").dataset.duplicates`); d != strconv.Itoa(native.Races[0].Duplicates) {
				t.Errorf("tally duplicates = %s, native %d", d, native.Races[0].Duplicates)
			}
			engineEval[bool](t, p, `(tp.el(0).scrollIntoView(), true)`)
			shot("race-1280")

			// The claim toggle: atomic, no duplicate.
			if s := engineEval[string](t, p, `tp.settle(0, () => tp.q(0, "input[value=atomic]").click())`); s != "done" {
				t.Fatalf("atomic run ended in state %q", s)
			}
			if got := engineEval[string](t, p, `tp.q(0, "textarea").value`); !strings.Contains(got, "race atomic") {
				t.Errorf("the toggle did not rewrite the claim: %q", got)
			}
			if d := engineEval[string](t, p, `tp.q(0, ".tally").dataset.duplicates`); d != "0" {
				t.Errorf("with the atomic claim the tally shows %s duplicates, want 0", d)
			}

			// The board (lesson 4's "Why both win" block): a click on W1's
			// column takes W1's first step, the runtime's SELECT, and marks
			// W1's next line.
			board := engineEval[string](t, p, `(async () => {
  const n = Array.from(document.querySelectorAll("twice-playground")).findIndex((e) => e.getAttribute("view") === "scheduler");
  if (n < 0) return "no board block";
  tp.q(n, "#tab-scheduler").click();
  const panel = () => tp.q(n, ".seat-panel");
  const cols = () => tp.q(n, ".seat-workers").querySelectorAll(".board-col");
  const settled = async () => { for (let i = 0; i < 600 && (!panel() || panel().dataset.state !== "done" || cols().length < 2); i++) await new Promise((r) => setTimeout(r, 100)); };
  await settled();
  tp.el(n).scrollIntoView();
  tp.q(n, ".seat-panel").dataset.state = "";
  tp.q(n, '.board-col[data-worker="W1"]').click();
  await settled();
  const steps = tp.q(n, ".seat-steps").children.length;
  const cur = tp.q(n, '.board-col[data-worker="W1"] [aria-current="step"]');
  return n + ": " + steps + " | " + (tp.q(n, ".seat-steps").textContent) + " | " + (cur ? cur.textContent : "none");
})()`)
			if !strings.Contains(board, ": 1 | W1 SELECT") {
				t.Errorf("%s: a click on W1's column of the board did not take W1's SELECT: %s", e.Name, board)
			}
			shot("board-1280")

			// A shared link to seed 5 replays seed 5's result.
			link := "race read 5\n"
			engineGoto(t, p, page+"&"+e.Name+"#block-1?seed=5&script="+strings.ReplaceAll(strings.ReplaceAll(link, " ", "+"), "\n", "%0A"))
			if s := engineEval[string](t, p, `tp.settle(0)`); s != "done" {
				t.Fatalf("the link's run ended in state %q", s)
			}
			if got, want := engineEval[string](t, p, `tp.transcript(0)`), shownText(interp.Run(link, interp.Options{Seed: 5})); got != want {
				t.Errorf("the link's transcript:\n%s\nwant (native, seed 5):\n%s", got, want)
			}
			var narrow *webdriver.ErrTooNarrow
			if err := p.Resize(390, 844); errors.As(err, &narrow) {
				t.Logf("not yet at a phone's width in %s: %v", e.Name, err)
			} else if err != nil {
				t.Fatal(err)
			}
			engineEval[bool](t, p, `(tp.el(0).scrollIntoView(), true)`)
			shot(fmt.Sprintf("link-%d", engineEval[int](t, p, `window.innerWidth`)))

			// Offline: the service worker kept the lesson and the runtime
			// after the first visit; with the server cut off, the lesson
			// loads again and its block runs.
			engineGoto(t, p, page)
			kept := func(what string) string {
				return `(async () => { if (!window.caches) return false; for (const k of await caches.keys()) for (const r of await (await caches.open(k)).keys()) if (` + what + `) return true; return false; })()`
			}
			ready := `(async () => {
  for (let i = 0; i < 900; i++) {
    const ok = navigator.serviceWorker && navigator.serviceWorker.controller !== null &&
      await ` + kept(`r.url === location.origin + location.pathname`) + ` &&
      await ` + kept(`r.url.endsWith(".wasm") && r.url.includes("/assets/twice.")`) + ` &&
      await ` + kept(`r.url.endsWith(".wasm") && r.url.includes("/assets/sqlite3.")`) + `;
    if (ok) return "kept";
    await new Promise((r) => setTimeout(r, 100));
  }
  return "not kept: controller " + (navigator.serviceWorker ? String(navigator.serviceWorker.controller !== null) : "none");
})()`
			if got := engineEval[string](t, p, ready); got != "kept" {
				t.Fatalf("%s kept nothing for offline after 90 s: %s", e.Name, got)
			}
			site.cut.Store(true)
			engineGoto(t, p, page+"&offline")
			if s := engineEval[string](t, p, `tp.settle(0, () => tp.q(0, "button.run").click())`); s != "done" {
				t.Fatalf("offline, Run ended in state %q", s)
			}
			// The block keeps the reader's edit (the claim set to atomic)
			// across the reload: the run is of the script it shows.
			shownScript := engineEval[string](t, p, `tp.q(0, "textarea").value`)
			offline := interp.Run(shownScript, interp.Options{Seed: interp.DefaultSeed})
			if got := engineEval[string](t, p, `tp.transcript(0)`); got != shownText(offline) {
				t.Errorf("offline transcript of %q:\n%s\nwant (native):\n%s", shownScript, got, shownText(offline))
			}
			t.Logf("%s: offline, the lesson loaded and ran (%d requests reached the cut-off server)", e.Name, site.missed.Load())
		})
	}
}
