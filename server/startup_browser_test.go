package server

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/twice-lab/twice/lessons"
	"github.com/twice-lab/twice/runtime/script/interp"
)

// startWatch is installed in every document before its own scripts run. It
// records, on the page's clock (ms since navigation start), each Web Worker
// the page creates, when the element is defined (playground.js has been
// evaluated, and start called), when a block's connectedCallback first
// runs (its setup), and when the page registers a service worker.
const startWatch = `(() => {
  const now = () => performance.now();
  const w = (window.tpStart = { workers: [], defined: 0, connected: 0, registered: 0 });
  const W = window.Worker;
  window.Worker = class extends W {
    constructor(url, opts) {
      super(url, opts);
      w.workers.push({ url: String(url), at: now() });
    }
  };
  const define = customElements.define.bind(customElements);
  customElements.define = (name, cls, opts) => {
    if (name === "twice-playground") {
      w.defined = now();
      const connected = cls.prototype.connectedCallback;
      cls.prototype.connectedCallback = function () {
        if (!w.connected) w.connected = now();
        return connected.apply(this, arguments);
      };
    }
    return define(name, cls, opts);
  };
  if (window.ServiceWorkerContainer) {
    const register = ServiceWorkerContainer.prototype.register;
    ServiceWorkerContainer.prototype.register = function () {
      if (!w.registered) w.registered = now();
      return register.apply(this, arguments);
    };
  }
})();`

// watchStart installs startWatch in the tab's next documents.
func watchStart(t *testing.T, ctx context.Context) {
	t.Helper()
	run(t, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: startWatch})
		return err
	}))
}

// pressAtOnce presses Run on the page's first block as soon as its button
// exists, as BenchmarkBrowserColdStart does, and resolves with the press's
// time once the block shows the result.
const pressAtOnce = `new Promise((resolve, reject) => {
  const until = (cond, then) => {
    if (cond()) { then(); return; }
    if (performance.now() > 120000) { reject(new Error("timed out; state " + document.querySelector("twice-playground")?.getAttribute("state"))); return; }
    setTimeout(() => until(cond, then), 2);
  };
  until(() => document.querySelector("twice-playground")?.shadowRoot?.querySelector("button.run"), () => {
    const el = document.querySelector("twice-playground");
    const press = performance.now();
    el.shadowRoot.querySelector("button.run").click();
    until(() => el.getAttribute("state") === "done" || el.getAttribute("state") === "error", () => resolve(press));
  });
})`

// startedWorker is a Web Worker the page created, and when.
type startedWorker struct {
	URL string
	At  float64
}

// startMarks is what the page recorded, from startWatch and the runtime's
// timings.
type startMarks struct {
	Workers                        []startedWorker
	Defined, Connected, Registered float64
	Created, Received, Warmed      float64
	Settled                        string
}

// TestBrowserEarlyStart checks the start of the runtime on a cold visit to
// the race lesson, whose first block is in view as it loads: twice.js
// starts the one worker before the element's modules have been evaluated,
// the runtime counts that as its creation, and the module is fetched once.
// Run exists and is pressed before the rest of the element (playground.js)
// is fetched, which comes after the first result and draws it in full.
// The site's service worker is registered only once the first Run has its
// result, and the index's offline control registers it at once when
// pressed, before the page's load event.
func TestBrowserEarlyStart(t *testing.T) {
	srv := browserSite(t)
	ls, err := lessons.Load(lessons.FS)
	if err != nil {
		t.Fatal(err)
	}
	race := ls[3]

	t.Run("cold", func(t *testing.T) {
		ctx, consoleErrors := browser(t, 1280, 900)
		count := &counting{h: srv}
		hs := httptest.NewServer(count)
		defer hs.Close()
		watchStart(t, ctx)
		// The first block asks for a guess before it runs: this visit
		// turns that off, to press a Run that runs.
		run(t, ctx, 30*time.Second, chromedp.Navigate(hs.URL+"/lessons/"+race.Slug+"/?predict=off"))
		press := js[float64](t, ctx, pressAtOnce)
		js[bool](t, ctx, helpers)
		if s := js[string](t, ctx, `tp.state(0)`); s != "done" {
			t.Fatalf("the first Run ended in %q: %s", s, js[string](t, ctx, `tp.q(0, ".error").textContent`))
		}
		// A service worker is registered after the result (or the warm-up,
		// should the worker have finished that before the press).
		run(t, ctx, 60*time.Second, chromedp.Poll[bool](`navigator.serviceWorker.getRegistrations().then((r) => r.length === 1)`))
		m := js[startMarks](t, ctx, `(() => { const t = TwicePlayground.timings(); return Object.assign({}, tpStart, {
  created: t.created, received: t.received || 0, warmed: t.warm2 || 0, settled: document.documentElement.dataset.twiceSettled || "" }); })()`)
		t.Logf("ms after navigation start: worker created %.0f (runtime's created mark %.0f), element defined %.0f, first block set up %.0f, Run pressed %.0f, result reached the page %.0f, service worker registered %.0f (%s)",
			firstAt(m.Workers), m.Created, m.Defined, m.Connected, press, m.Received, m.Registered, m.Settled)

		if len(m.Workers) != 1 {
			t.Fatalf("the page created %d Web Workers, want exactly 1: %+v", len(m.Workers), m.Workers)
		}
		if !strings.Contains(m.Workers[0].URL, "/assets/worker.") {
			t.Errorf("the page's worker is %s, want the site's worker.HASH.js", m.Workers[0].URL)
		}
		// Once the service worker has kept the runtime (from the HTTP
		// cache), the module has still been fetched from the server once.
		run(t, ctx, 60*time.Second, chromedp.Poll[bool](`(async () => { for (const k of await caches.keys()) for (const r of await (await caches.open(k)).keys()) if (r.url.endsWith(".wasm")) return true; return false; })()`))
		if n := count.take(t); n != 1 {
			t.Errorf("the wasm module was requested %d times, want once", n)
		}
		// The worker carries wasm_exec.js: no second script blocks it.
		count.mu.Lock()
		if n := count.execScripts; n != 0 {
			t.Errorf("the worker loaded wasm_exec.js as a script %d time(s); it is served inside worker.js", n)
		}
		count.mu.Unlock()
		// The old way started the worker from the block's setup, after the
		// modules were loaded and evaluated and the element defined.
		if w := m.Workers[0].At; w >= m.Defined || w >= m.Connected {
			t.Errorf("the worker was created at %.0f ms, after the element was defined (%.0f ms) or the first block set up (%.0f ms); twice.js should start it before the modules load", w, m.Defined, m.Connected)
		}
		if m.Created < m.Workers[0].At-1 || m.Created >= m.Defined { // (the runtime's mark goes through epoch ms: allow rounding)
			t.Errorf("the runtime's created mark is %.0f ms; want the early worker's creation, at %.0f ms, before the element was defined at %.0f ms", m.Created, m.Workers[0].At, m.Defined)
		}

		// The service worker waited for the first Run's work.
		settledAt := m.Received
		if m.Warmed > 0 && m.Warmed < settledAt {
			settledAt = m.Warmed
		}
		switch {
		case m.Registered == 0:
			t.Errorf("no service worker registration was recorded")
		case m.Received == 0:
			t.Errorf("the runtime's timings have no received mark")
		case m.Registered < settledAt:
			t.Errorf("the service worker was registered at %.0f ms, before the first result reached the page (%.0f ms) and before any warm-up ended", m.Registered, m.Received)
		}
		if m.Settled != "ran" && m.Settled != "warmed" {
			t.Errorf("data-twice-settled = %q, want ran (or warmed)", m.Settled)
		}

		// Run was there, and pressed, before the rest of the element
		// (playground.js and the views) was even asked for; the rest came
		// after the first result and drew that run in full.
		run(t, ctx, 60*time.Second, chromedp.Poll[bool](`TwicePlayground.full === true`))
		rest := js[float64](t, ctx, `(() => { const e = performance.getEntriesByType("resource").find((r) => /\/assets\/playground\.[0-9a-f]{10}\.js$/.test(r.name)); return e ? e.startTime : -1; })()`)
		if rest < press || rest < m.Received {
			t.Errorf("the rest of the element was fetched at %.0f ms; want it after the press (%.0f ms) and the first result (%.0f ms)", rest, press, m.Received)
		}
		want := shownText(interp.Run(race.Blocks[0].Script, interp.Options{Seed: interp.DefaultSeed}))
		if got := js[string](t, ctx, `tp.state(0) + ": " + tp.q(0, ".out-heading").textContent + "\n" + tp.transcript(0)`); got != "done: Output at seed 1, run in your browser.\n"+want {
			t.Errorf("after the rest loaded, the block shows\n%s\nwant the first run, live, in full:\n%s", got, want)
		}
		if errs := consoleErrors(); len(errs) > 0 {
			t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
		}
	})

	// The index registers its service worker after its load event; the
	// offline control does not wait for that. The index here holds an
	// image that the server answers only when the test says, so that the
	// load event waits.
	t.Run("offline control before load", func(t *testing.T) {
		ctx, consoleErrors := browser(t, 1280, 900)
		release := make(chan struct{})
		released := false
		defer func() {
			if !released {
				close(release)
			}
		}()
		index := strings.Replace(string(srv.Site().Files["index.html"].Body), "</main>", `<img src="slow.gif" alt="" width="1" height="1"></main>`, 1)
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/":
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				w.Header().Set("Cache-Control", "no-cache")
				w.Write([]byte(index))
			case "/slow.gif":
				select {
				case <-release:
				case <-r.Context().Done():
				case <-time.After(3 * time.Minute):
				}
				w.Header().Set("Content-Type", "image/gif")
				w.Write(gif1x1)
			default:
				srv.ServeHTTP(w, r)
			}
		}))
		defer hs.Close()
		watchStart(t, ctx)
		js[bool](t, ctx, fmt.Sprintf(`location.href = %q, true`, hs.URL+"/"))
		shown := `location.origin === %q && document.readyState === "interactive" && document.querySelector(".offline") !== null && !document.querySelector(".offline").hidden`
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			ok, err := chromedp.Run(tctx, chromedp.Evaluate[bool](fmt.Sprintf(shown, hs.URL)))
			cancel()
			if err == nil && ok {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the index's offline control did not show within 30 s (%v)", err)
			}
		}
		if ms := js[float64](t, ctx, `tpStart.registered`); ms != 0 {
			t.Errorf("the index registered its service worker at %.0f ms, before its load event; it should wait for it", ms)
		}
		js[bool](t, ctx, `document.querySelector(".offline button").click(), true`)
		if js[float64](t, ctx, `tpStart.registered`) == 0 {
			t.Errorf("pressing the offline control did not register the service worker at once")
		}
		run(t, ctx, 3*time.Minute, chromedp.Poll[bool](`!document.querySelector(".offline button").disabled && !/^Fetching/.test(document.querySelector(".offline-status").textContent)`))
		if said := js[string](t, ctx, `document.querySelector(".offline-status").textContent`); !regexp.MustCompile(fmt.Sprintf(`^All %d lessons are available offline\.$`, len(ls))).MatchString(said) {
			t.Errorf("the offline control, pressed before the load event, says %q", said)
		}
		if s := js[string](t, ctx, `document.readyState`); s == "complete" {
			t.Errorf("the page loaded before the control was done; the test wants the press before the load event")
		}
		close(release)
		released = true
		run(t, ctx, 30*time.Second, chromedp.Poll[bool](`document.readyState === "complete"`))
		if errs := consoleErrors(); len(errs) > 0 {
			t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
		}
	})
}

// gif1x1 is a transparent GIF of one pixel.
var gif1x1, _ = base64.StdEncoding.DecodeString("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7")

// firstAt returns the creation time of the first worker, or -1.
func firstAt(workers []startedWorker) float64 {
	if len(workers) == 0 {
		return -1
	}
	return workers[0].At
}
