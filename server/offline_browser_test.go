package server

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/twice-lab/twice/internal/browsertest"
	"github.com/twice-lab/twice/lessons"
	"github.com/twice-lab/twice/runtime/script/interp"
)

// cuttable serves h until cut is set; then it drops every connection, as a
// network that is gone would, and counts the requests that still came.
type cuttable struct {
	h      atomic.Pointer[http.Handler]
	cut    atomic.Bool
	missed atomic.Int64
	wasm   atomic.Int64 // requests for the Go module served
	sqlite atomic.Int64 // requests for the SQLite module served
}

func newCuttable(h http.Handler) *cuttable {
	c := &cuttable{}
	c.h.Store(&h)
	return c
}

func (c *cuttable) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if c.cut.Load() {
		c.missed.Add(1)
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
		http.Error(w, "offline", http.StatusServiceUnavailable)
		return
	}
	if strings.HasSuffix(r.URL.Path, ".wasm") && strings.Contains(r.URL.Path, "/sqlite3.") {
		c.sqlite.Add(1)
	} else if strings.HasSuffix(r.URL.Path, ".wasm") {
		c.wasm.Add(1)
	}
	(*c.h.Load()).ServeHTTP(w, r)
}

// goOffline turns on DevTools' offline emulation for the page and for its
// service worker.
func goOffline(t *testing.T, ctx context.Context) {
	t.Helper()
	run(t, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		yes := true
		if _, err := cdp.Call(ctx, tg, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
			EmulateOfflineServiceWorker: &yes,
			MatchedNetworkConditions:    []*network.Conditions{{Offline: true, DownloadThroughput: -1, UploadThroughput: -1}},
		}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tg, network.OverrideNetworkState, network.OverrideNetworkStateParams{Offline: true, DownloadThroughput: -1, UploadThroughput: -1})
		return err
	}))
}

// online ends the emulation of goOffline.
func online(t *testing.T, ctx context.Context) {
	t.Helper()
	run(t, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		no := false
		_, err := cdp.Call(ctx, tg, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
			EmulateOfflineServiceWorker: &no,
			MatchedNetworkConditions:    []*network.Conditions{{DownloadThroughput: -1, UploadThroughput: -1}},
		})
		if err == nil {
			_, err = cdp.Call(ctx, tg, network.OverrideNetworkState, network.OverrideNetworkStateParams{DownloadThroughput: -1, UploadThroughput: -1})
		}
		return err
	}))
}

// goTo loads url ("reload": the page again) from the page itself, and
// waits until a page of the site is ready or the browser shows its error
// page; then it installs the test helpers.
func goTo(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	before := js[float64](t, ctx, `performance.timeOrigin`)
	if url == "reload" {
		js[bool](t, ctx, `location.reload(), true`)
	} else {
		js[bool](t, ctx, fmt.Sprintf(`location.href = %q, true`, url))
	}
	ready := fmt.Sprintf(`performance.timeOrigin !== %v && document.readyState === "complete" && (location.protocol === "chrome-error:" || document.querySelector("twice-playground") === null || (customElements.get("twice-playground") !== undefined && (window.TwicePlayground === undefined || window.TwicePlayground.full === true)))`, before)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		// Evaluations fail while the page is being replaced: try again.
		tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		ok, err := chromedp.Run(tctx, chromedp.Evaluate[bool](ready))
		cancel()
		if err == nil && ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("loading %s: not ready after 30 s (%v)", url, err)
		}
	}
	js[bool](t, ctx, helpers)
}

// unkept checks that the page shown is the site's offline page for path,
// not the browser's error page: it names path, links the kept lesson and
// says the unkept one is not kept, with no link to it.
func unkept(t *testing.T, ctx context.Context, path, keptSlug, unkeptSlug string) {
	t.Helper()
	if js[bool](t, ctx, `location.protocol === "chrome-error:"`) {
		t.Fatalf("offline, %s shows the browser's error page", path)
	}
	if page := js[string](t, ctx, `document.documentElement.dataset.twicePage || ""`); page != "offline" {
		t.Fatalf("offline, %s shows a page of kind %q, want the offline page", path, page)
	}
	run(t, ctx, 30*time.Second, chromedp.Poll[bool](`!/^Looking/.test(document.querySelector(".offline-status").textContent)`))
	if asked := js[string](t, ctx, `document.querySelector(".offline-asked").textContent`); asked != path {
		t.Errorf("the offline page names %q, want %q", asked, path)
	}
	if status := js[string](t, ctx, `document.querySelector(".offline-status").textContent`); !strings.Contains(status, "1 of ") {
		t.Errorf("the offline page's status says %q, want one lesson kept", status)
	}
	kept := js[[]string](t, ctx, `[...document.querySelectorAll("ol.offline-lessons li.kept a")].map((a) => new URL(a.href).pathname)`)
	if len(kept) != 1 || kept[0] != "/lessons/"+keptSlug+"/" {
		t.Errorf("the offline page links %q as kept, want /lessons/%s/", kept, keptSlug)
	}
	li := fmt.Sprintf(`document.querySelector('ol.offline-lessons li[data-page="lessons/%s/"]')`, unkeptSlug)
	if js[bool](t, ctx, li+`.querySelector("a") !== null`) || !strings.Contains(js[string](t, ctx, li+`.textContent`), "not kept") {
		t.Errorf("the offline page lists the unkept lesson as %q, linked or not said to be unkept", js[string](t, ctx, li+`.innerHTML`))
	}
	if n := js[int](t, ctx, `document.styleSheets.length && document.styleSheets[0].cssRules.length`); n == 0 {
		t.Errorf("the offline page has no styles")
	}
	// Styled as the site's other pages: the page is not drawn inside the
	// box of the index's offline control.
	if box := js[string](t, ctx, `(() => { const s = getComputedStyle(document.body); return s.borderTopWidth + " " + s.marginTop; })()`); box != "0px 0px" {
		t.Errorf("the offline page's body has a border and top margin of %s, want none (the index's offline box)", box)
	}
}

// shoot saves a screenshot of the page as name.png in the artifacts
// folder and names it in the log.
func shoot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png := run(t, ctx, 30*time.Second, chromedp.CaptureScreenshot())
	file := filepath.Join(artifactDir(t), name+".png")
	if err := os.WriteFile(file, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", file)
}

// TestBrowserOffline visits the site, goes offline through DevTools'
// network emulation (and cuts the server off too, so that nothing can
// reach it), reloads, and runs a block: on the server and on the export.
// It also checks the index's "Make all lessons available offline" control
// and that a new version of the site replaces the old one on the next
// visit, with no cache of the old one left.
func TestBrowserOffline(t *testing.T) {
	path := browsertest.Require(t)
	srv := browserSite(t)
	dir := t.TempDir()
	if err := srv.Site().Export(dir); err != nil {
		t.Fatal(err)
	}
	ls, err := lessons.Load(lessons.FS)
	if err != nil {
		t.Fatal(err)
	}
	race, first := ls[3], ls[0]
	// kept says whether any of the site's caches holds a request for
	// which what is true (r is the request).
	kept := func(what string) string {
		return `(async () => { for (const k of await caches.keys()) for (const r of await (await caches.open(k)).keys()) if (` + what + `) return true; return false; })()`
	}
	for _, tc := range []struct {
		name string
		h    http.Handler
	}{
		{"served", srv},
		{"export", http.FileServer(http.Dir(dir))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, stop := browsertest.Start(t, path, browsertest.Options(path, t.TempDir(), 1280, 900), chromedp.WithLogf(t.Logf))
			defer stop()
			site := newCuttable(tc.h)
			hs := httptest.NewServer(site)
			defer hs.Close()

			// First visit: the index registers the worker, which keeps the
			// shell and the runtime; the lesson opened is kept too.
			navigate(t, ctx, hs.URL+"/")
			run(t, ctx, 60*time.Second, chromedp.Poll[bool](`navigator.serviceWorker.controller !== null`))
			if js[bool](t, ctx, `document.querySelector(".offline").hidden`) {
				t.Errorf("the index hides its offline control")
			}
			// The index's block starts the runtime only when the reader
			// reaches for it: the worker must not fetch the runtime for a
			// reader who has not needed it yet.
			time.Sleep(500 * time.Millisecond)
			if n, sq := site.wasm.Load(), site.sqlite.Load(); n != 0 || sq != 0 {
				t.Errorf("visiting the index fetched the runtime's modules %d and %d time(s)", n, sq)
			}
			navigate(t, ctx, hs.URL+"/lessons/"+race.Slug+"/")
			// The block in view loads the runtime; the page asks the worker
			// to keep it.
			run(t, ctx, 60*time.Second, chromedp.Poll[bool](kept(`r.url === location.origin + "/lessons/`+race.Slug+`/"`)))
			run(t, ctx, 60*time.Second, chromedp.Poll[bool](kept(`r.url.endsWith(".wasm") && r.url.includes("/assets/twice.")`)))
			run(t, ctx, 60*time.Second, chromedp.Poll[bool](kept(`r.url.endsWith(".wasm") && r.url.includes("/assets/sqlite3.")`)))
			if n, sq := site.wasm.Load(), site.sqlite.Load(); n > 1 || sq > 1 {
				t.Errorf("the runtime's modules were fetched %d and %d times from the server; the worker should keep them from the HTTP cache", n, sq)
			}

			goOffline(t, ctx)
			site.cut.Store(true)
			// (location.reload rather than chromedp.Reload: chromedp takes the
			// worker's failed network attempt for the page's own failure.)
			goTo(t, ctx, "reload")
			if s := js[string](t, ctx, `tp.run(0)`); s != "done" {
				t.Fatalf("offline, the reloaded lesson's Run ended in %q: %s", s, js[string](t, ctx, `tp.q(0, ".error").textContent`))
			}
			if got, want := js[string](t, ctx, `tp.transcript(0)`), shownText(interp.Run(race.Blocks[0].Script, interp.Options{Seed: interp.DefaultSeed})); got != want {
				t.Errorf("offline run:\n%s\nwant:\n%s", got, want)
			}
			// A lesson never opened is not there offline: the site's own
			// offline page says so, and lists the lessons kept, linked.
			goTo(t, ctx, hs.URL+"/lessons/"+first.Slug+"/")
			if js[bool](t, ctx, `document.querySelector("twice-playground") !== null`) {
				t.Errorf("a lesson never opened showed offline before Make all lessons available offline")
			}
			unkept(t, ctx, "/lessons/"+first.Slug+"/", race.Slug, first.Slug)
			shoot(t, ctx, "offline-unvisited-"+tc.name)
			// Its link to a kept lesson opens that lesson, offline.
			goTo(t, ctx, js[string](t, ctx, `document.querySelector("li.kept a").href`))
			if s := js[string](t, ctx, `tp.run(0)`); s != "done" || !strings.HasSuffix(js[string](t, ctx, `location.pathname`), "/lessons/"+race.Slug+"/") {
				t.Errorf("the offline page's link to the kept lesson led to %s (Run: %s)", js[string](t, ctx, `location.href`), s)
			}
			// A mistyped address, offline, gets the same page.
			goTo(t, ctx, hs.URL+"/lessons/no-such-lesson/")
			if page := js[string](t, ctx, `document.documentElement.dataset.twicePage || location.protocol`); page != "offline" {
				t.Errorf("offline, an address the site does not have shows %q, want the offline page", page)
			}
			// The index marks the lessons kept.
			goTo(t, ctx, hs.URL+"/")
			run(t, ctx, 30*time.Second, chromedp.Poll[bool](`document.querySelectorAll("ol.lessons li.kept").length > 0`))
			if got := js[[]string](t, ctx, `[...document.querySelectorAll("ol.lessons li.kept a")].map((a) => new URL(a.href).pathname)`); len(got) != 1 || got[0] != "/lessons/"+race.Slug+"/" {
				t.Errorf("offline, the index marks %q as kept, want only the race lesson", got)
			}
			if mark := js[string](t, ctx, `document.querySelector("ol.lessons li.kept .kept-mark").textContent`); !strings.Contains(mark, "kept offline") {
				t.Errorf("the index's mark of a kept lesson says %q", mark)
			}
			shoot(t, ctx, "offline-index-"+tc.name)
			t.Logf("requests that reached the cut-off server while offline: %d", site.missed.Load())

			// ...until the index's control keeps every page.
			online(t, ctx)
			site.cut.Store(false)
			navigate(t, ctx, hs.URL+"/")
			js[bool](t, ctx, `document.querySelector(".offline button").click(), true`)
			// Every page and the runtime: a second or two here, longer on a
			// loaded runner. The control says when it is done (the button
			// comes back) and what it kept; the count the index asked for as
			// it loaded must not overwrite that (it used to, when it arrived
			// late, and the control then said "29 of 61" for good).
			keepStart := time.Now()
			run(t, ctx, 3*time.Minute, chromedp.Poll[bool](`!document.querySelector(".offline button").disabled && !/^Fetching/.test(document.querySelector(".offline-status").textContent)`))
			if said := js[string](t, ctx, `document.querySelector(".offline-status").textContent`); !regexp.MustCompile(fmt.Sprintf(`^All %d lessons are available offline\.$`, len(ls))).MatchString(said) {
				t.Fatalf("after Make all lessons available offline, the control says %q", said)
			}
			t.Logf("keeping every page took %v", time.Since(keepStart).Round(time.Millisecond))
			goOffline(t, ctx)
			site.cut.Store(true)
			goTo(t, ctx, hs.URL+"/lessons/"+first.Slug+"/")
			if s := js[string](t, ctx, `tp.run(0)`); s != "done" {
				t.Errorf("offline, a lesson kept by the index's control: Run ended in %q", s)
			}
		})
	}

	// A reader who opens a lesson directly, on a fresh profile, has it
	// offline once the runtime is ready: the page was loaded before the
	// service worker existed, so it asks the worker to keep it.
	t.Run("direct", func(t *testing.T) {
		ctx, stop := browsertest.Start(t, path, browsertest.Options(path, t.TempDir(), 1280, 900), chromedp.WithLogf(t.Logf))
		defer stop()
		site := newCuttable(srv)
		hs := httptest.NewServer(site)
		defer hs.Close()
		lesson := ls[len(ls)/2]
		navigate(t, ctx, hs.URL+"/lessons/"+lesson.Slug+"/")
		// The runtime is ready in the page, and the worker has it.
		run(t, ctx, 90*time.Second, chromedp.Poll[bool](`window.TwicePlayground && TwicePlayground.timings() !== null`))
		run(t, ctx, 60*time.Second, chromedp.Poll[bool](kept(`r.url.endsWith(".wasm") && r.url.includes("/assets/sqlite3.")`)))
		run(t, ctx, 60*time.Second, chromedp.Poll[bool](kept(`r.url.endsWith(".wasm") && r.url.includes("/assets/twice.")`)))
		run(t, ctx, 60*time.Second, chromedp.Poll[bool](kept(`r.url === location.href`)))
		goOffline(t, ctx)
		site.cut.Store(true)
		goTo(t, ctx, "reload")
		if js[bool](t, ctx, `location.protocol === "chrome-error:"`) {
			t.Fatalf("offline, the lesson opened directly did not load")
		}
		if s := js[string](t, ctx, `tp.run(0)`); s != "done" {
			t.Fatalf("offline, the lesson opened directly: Run ended in %q", s)
		}
		if got, want := js[string](t, ctx, `tp.transcript(0)`), shownText(interp.Run(lesson.Blocks[0].Script, interp.Options{Seed: interp.DefaultSeed})); got != want {
			t.Errorf("offline run of the lesson opened directly:\n%s\nwant:\n%s", got, want)
		}
	})

	// A new version of the site (here: a folder with one lesson, so other
	// pages) is picked up on the next visit: its worker takes over, keeps
	// the pages of its own version, and no cache of the old one is left.
	// This runs in a browser of its own that has not been through the
	// offline emulation above: in one that had, Chromium 156 now and then
	// (about one run in ten, more under load) left the new worker waiting
	// behind an old one that no longer answered a navigation, with nothing
	// in flight in either worker's handlers; a reader's browser is never
	// switched off and on by DevTools.
	t.Run("update", func(t *testing.T) {
		ctx, stop := browsertest.Start(t, path, browsertest.Options(path, t.TempDir(), 1280, 900), chromedp.WithLogf(t.Logf))
		defer stop()
		site := newCuttable(srv)
		hs := httptest.NewServer(site)
		defer hs.Close()
		navigate(t, ctx, hs.URL+"/")
		run(t, ctx, 60*time.Second, chromedp.Poll[bool](`navigator.serviceWorker.controller !== null`))
		// The race lesson's first block is in view, so it loads (and the
		// worker keeps) the runtime; the first lesson is the page that the
		// new version keeps too.
		navigate(t, ctx, hs.URL+"/lessons/"+race.Slug+"/")
		run(t, ctx, 60*time.Second, chromedp.Poll[bool](kept(`r.url.endsWith(".wasm") && r.url.includes("/assets/sqlite3.")`)))
		run(t, ctx, 60*time.Second, chromedp.Poll[bool](kept(`r.url.endsWith(".wasm") && r.url.includes("/assets/twice.")`)))
		navigate(t, ctx, hs.URL+"/lessons/"+first.Slug+"/")
		run(t, ctx, 60*time.Second, chromedp.Poll[bool](kept(`r.url === location.origin + "/lessons/`+first.Slug+`/"`)))

		folder := t.TempDir()
		src, err := lessons.FS.Open(first.File)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(src)
		src.Close()
		if err := os.WriteFile(filepath.Join(folder, first.File), b, 0o644); err != nil {
			t.Fatal(err)
		}
		next, err := NewServer(Options{Runtime: realRuntime(t), Brotli: BrotliNever, LessonsDir: folder}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var h http.Handler = next
		site.h.Store(&h)
		version := regexp.MustCompile(`version:"([0-9a-f]{12})"`).FindStringSubmatch(string(next.Site().Files["sw.js"].Body))[1]
		caches := `(async () => (await caches.keys()).join(" | "))()`
		if before := js[string](t, ctx, caches); strings.HasSuffix(before, version) {
			t.Fatalf("the new version %s is cached before the visit: %s", version, before)
		}
		goTo(t, ctx, hs.URL+"/")
		// On failure, say where the new worker stopped: still installing,
		// left waiting behind the old one, or active with a cache left.
		swState := `(async () => { const r = await navigator.serviceWorker.getRegistration(); const f = (w) => w ? w.state : "none"; return "caches [" + (await caches.keys()).join(", ") + "], installing " + f(r && r.installing) + ", waiting " + f(r && r.waiting) + ", active " + f(r && r.active); })()`
		updated := fmt.Sprintf(`(async () => { const k = await caches.keys(); return k.length === 1 && k[0].endsWith(" %s"); })()`, version)
		for deadline := time.Now().Add(90 * time.Second); !js[bool](t, ctx, updated); time.Sleep(200 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the new version %s did not take over within 90 s: %s", version, js[string](t, ctx, swState))
			}
		}
		goOffline(t, ctx)
		site.cut.Store(true)
		goTo(t, ctx, "reload")
		if n := js[int](t, ctx, `document.querySelectorAll("ol.lessons li").length`); n != 1 {
			t.Errorf("offline after the update the index lists %d lessons, want the new version's 1", n)
		}
		goTo(t, ctx, hs.URL+"/lessons/"+first.Slug+"/")
		if s := js[string](t, ctx, `tp.run(0)`); s != "done" {
			t.Errorf("offline after the update, the kept lesson: Run ended in %q", s)
		}
	})
}

// TestServiceWorkerVersions checks what the service worker is told: every
// page, the shell with the hashed assets, and a version that changes when
// an asset or the list of pages does.
func TestServiceWorkerVersions(t *testing.T) {
	a := fakeSite(t)
	sw := a.Files["sw.js"]
	if sw == nil || sw.Immutable || sw.Type != "text/javascript; charset=utf-8" {
		t.Fatalf("sw.js: %+v", sw)
	}
	body := string(sw.Body)
	for _, p := range a.Paths() {
		if strings.HasPrefix(p, "assets/") && !strings.HasSuffix(p, "/twice.js") && p != "assets/twice.js" && !strings.Contains(body, `"`+p+`"`) {
			t.Errorf("sw.js does not keep %s", p)
		}
		if (strings.HasPrefix(p, "lessons/") || strings.HasPrefix(p, "cases/") || strings.HasPrefix(p, "embed/")) && !strings.Contains(body, `"`+strings.TrimSuffix(p, "index.html")+`"`) {
			t.Errorf("sw.js does not list the page %s", p)
		}
	}
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/sw.js", nil))
	if cc := rec.Header().Get("Cache-Control"); cc != "no-cache" {
		t.Errorf("sw.js is served with Cache-Control %q; it must be revalidated on every visit", cc)
	}
	rt := fakeRuntime()
	rt.Wasm = append(rt.Wasm, "another build"...)
	b, err := Render(Options{Runtime: rt, Brotli: BrotliNever})
	if err != nil {
		t.Fatal(err)
	}
	version := func(s *Site) string {
		m := regexp.MustCompile(`version:"([0-9a-f]{12})"`).FindStringSubmatch(string(s.Files["sw.js"].Body))
		if m == nil {
			t.Fatalf("no version in sw.js: %s", s.Files["sw.js"].Body)
		}
		return m[1]
	}
	if version(a) == version(b) {
		t.Errorf("a new runtime keeps the service worker's version %s", version(a))
	}
	for _, k := range []string{"index.html", "lessons/claim-race/index.html", "embed/claim-race/1/index.html"} {
		if !strings.Contains(string(a.Files[k].Body), "offline.") {
			t.Errorf("%s does not load offline.js", k)
		}
	}
	if strings.Contains(string(a.Files["404.html"].Body), "offline.") {
		t.Errorf("the not-found page registers the service worker")
	}
}
