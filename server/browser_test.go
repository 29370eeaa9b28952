package server

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	neturl "net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/twice-lab/twice/internal/browsertest"
	"github.com/twice-lab/twice/lessons"
	"github.com/twice-lab/twice/runtime/script/interp"
)

// These tests drive headless Chromium against the served site and against
// its export on a plain file server. Without a browser they skip, loudly;
// with TWICE_REQUIRE_BROWSER=1 (as in CI) a missing browser fails them.

// browser starts a headless Chromium with a fresh profile and returns a
// chromedp context for one tab, and a func that returns the console
// messages of type error (and uncaught exceptions) seen so far.
func browser(t *testing.T, width, height int) (context.Context, func() []string) {
	t.Helper()
	path := browsertest.Require(t)
	opts := append(browsertest.Options(path, t.TempDir(), width, height), chromedp.Flag("hide-scrollbars", true))
	ctx, _ := browsertest.Start(t, path, opts, chromedp.WithLogf(t.Logf))
	var mu sync.Mutex
	var errs []string
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				mu.Lock()
				errs = append(errs, fmt.Sprintf("%s (%s:%d)", m, m.URL, m.Line+1))
				mu.Unlock()
			}
		}
	}()
	return ctx, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(errs)
	}
}

// browserSite is the site as the browser tests serve it: the built-in
// lessons and the real wasm runtime, without waiting for brotli.
func browserSite(t *testing.T) *Server {
	t.Helper()
	srv, err := NewServer(Options{Runtime: realRuntime(t), Brotli: BrotliNever}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// run runs one action with a timeout.
func run[T any](t *testing.T, ctx context.Context, timeout time.Duration, a chromedp.Action[T]) T {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		v, err := chromedp.Run(tctx, a)
		if err == nil {
			return v
		}
		// A page that has just loaded can be asked through the execution
		// context of the document it replaced, before the browser has
		// announced the new one: Chromium then refuses the call without
		// running any of it, so asking again a moment later is safe.
		if strings.Contains(err.Error(), "Cannot find context with specified id") && tctx.Err() == nil {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		t.Fatalf("browser: %v", err)
	}
}

// js evaluates a JavaScript expression, awaiting it if it is a promise.
func js[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	return run(t, ctx, 30*time.Second, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
}

// The page-side helpers the tests call, installed after each navigation.
const helpers = `
window.tp = {
  el: (n) => document.querySelectorAll("twice-playground")[n],
  q: (n, sel) => tp.el(n).shadowRoot.querySelector(sel),
  state: (n) => tp.el(n).getAttribute("state"),
  transcript: (n) => tp.q(n, ".transcript").textContent,
  // fullText is the runtime's whole transcript of the result shown,
  // diagnosis lines included (the page leaves out those its panel says).
  fullText: (n) => { const r = tp.el(n).result; return r && r.transcript ? r.transcript.map((l) => l + "\n").join("") : ""; },
  rows: (n, table) => Array.from(tp.q(n, "table." + table + " tbody").rows)
    .filter((r) => !r.querySelector("td.none"))
    .map((r) => Array.from(r.cells).map((c) => c.textContent)),
  heads: (n, table) => Array.from(tp.q(n, "table." + table + " thead th")?.parentNode.cells || []).map((c) => c.textContent),
  // run clicks Run (or calls act) and resolves once a new result is shown.
  run: (n, act) => new Promise((resolve, reject) => {
    const el = tp.el(n);
    const before = tp.q(n, ".out-heading").textContent + "|" + (el.runs || 0);
    const start = performance.now();
    el.runs = (el.runs || 0) + 1;
    // A block that asks for a prediction first runs without one.
    if (el.predicting && !el.revealed && el.predicted === undefined) el.predicted = "";
    (act || (() => tp.q(n, "button.run").click()))();
    const check = () => {
      const s = el.getAttribute("state");
      if (s === "done" || s === "error") { resolve(s); return; }
      if (performance.now() - start > 120000) { reject(new Error("no result after 120 s; state " + s)); return; }
      setTimeout(check, 50);
    };
    setTimeout(check, 0);
  }),
};
true`

// counting counts the requests for the runtime's two wasm modules (the Go
// program's and SQLite's) that h answers.
type counting struct {
	h      http.Handler
	mu     sync.Mutex
	wasm   int
	sqlite int
	// execScripts counts wasm_exec.js loaded as a script (importScripts
	// sends Sec-Fetch-Dest: script; the service worker's copy, empty).
	execScripts int
}

func (c *counting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	if strings.HasSuffix(r.URL.Path, ".wasm") {
		if strings.Contains(r.URL.Path, "/sqlite3.") {
			c.sqlite++
		} else {
			c.wasm++
		}
	}
	if strings.Contains(r.URL.Path, "/wasm_exec.") && r.Header.Get("Sec-Fetch-Dest") == "script" {
		c.execScripts++
	}
	c.mu.Unlock()
	c.h.ServeHTTP(w, r)
}

// take returns how many times the runtime was requested since the last
// take, and fails t when its two modules were not requested alike (the
// worker fetches both, or neither).
func (c *counting) take(t *testing.T) int {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	n, sq := c.wasm, c.sqlite
	c.wasm, c.sqlite = 0, 0
	if n != sq {
		t.Errorf("the Go module was requested %d times and the SQLite module %d", n, sq)
	}
	return n
}

// navigate opens url and waits until the page has loaded, and its blocks
// are set up in full: boot.js defines the element with a Run button
// first and loads the rest after (TwicePlayground.full); frame.js, its
// fallback, defines no TwicePlayground.
func navigate(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	run(t, ctx, 30*time.Second, chromedp.Navigate(url))
	run(t, ctx, 30*time.Second, chromedp.Poll[bool](`document.readyState === "complete" && (document.querySelector("twice-playground") === null || (customElements.get("twice-playground") !== undefined && (window.TwicePlayground === undefined || window.TwicePlayground.full === true)))`))
	js[bool](t, ctx, helpers)
}

// TestBrowser is the end-to-end test: the race lesson, run live in the
// browser, served by the server and from an export on a plain file server.
func TestBrowser(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	srv := browserSite(t)
	servedCount := &counting{h: srv}
	served := httptest.NewServer(servedCount)
	defer served.Close()

	dir := t.TempDir()
	if err := srv.Site().Export(dir); err != nil {
		t.Fatal(err)
	}
	exportedCount := &counting{h: http.FileServer(http.Dir(dir))}
	exported := httptest.NewServer(exportedCount)
	defer exported.Close()

	ls, err := lessons.Load(lessons.FS)
	if err != nil {
		t.Fatal(err)
	}
	race := ls[3]
	if len(race.Blocks) == 0 || !strings.Contains(race.Blocks[0].Script, "race read") {
		t.Fatalf("lesson 4 (%s) should start with a race read block", race.File)
	}

	for _, tc := range []struct {
		name  string
		base  string
		count *counting
	}{
		{"served", served.URL, servedCount},
		{"export", exported.URL, exportedCount},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.count.take(t)
			lazyLoad(t, ctx, tc.base, race, tc.count)
			focusLoads(t, ctx, tc.base, race)
			tc.count.take(t) // focusLoads' page loaded the module; raceLesson counts its own page's
			raceLesson(t, ctx, tc.base+"/lessons/"+race.Slug+"/", race, tc.count)
			if tc.name == "served" {
				claimRewrites(t, ctx)
				keyboard(t, ctx)
				noFreeze(t, ctx)
				foreignPage(t, ctx, tc.base)
			}
			if errs := consoleErrors(); len(errs) > 0 {
				t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
			}
		})
	}
}

func raceLesson(t *testing.T, ctx context.Context, url string, race lessons.Lesson, count *counting) {
	// Several runs on one page, one module: at most one request (none when
	// the browser's cache answers).
	onePage := func() {
		if n := count.take(t); n > 1 {
			t.Errorf("the wasm module was requested %d times for one page, want at most once", n)
		}
	}
	defer onePage()
	navigate(t, ctx, url)
	src := race.Blocks[0].Script

	// Before any run: the pre-rendered output, in the component.
	if s := js[string](t, ctx, `tp.state(0)`); s != "prerendered" {
		t.Errorf("state before Run = %q, want prerendered", s)
	}
	native := interp.Run(src, interp.Options{Seed: interp.DefaultSeed})
	if got := js[string](t, ctx, `tp.transcript(0)`); got != shownText(native) {
		t.Errorf("pre-rendered transcript in the component:\n%s\nwant:\n%s", got, shownText(native))
	}

	// Run: the live result equals the native one, tables included.
	start := time.Now()
	if s := js[string](t, ctx, `tp.run(0)`); s != "done" {
		t.Fatalf("first run ended in state %q: %s", s, js[string](t, ctx, `tp.q(0, ".error").textContent`))
	}
	t.Logf("first Run (download, compile, run) took %v", time.Since(start).Round(time.Millisecond))
	if got := js[string](t, ctx, `tp.transcript(0)`); got != shownText(native) {
		t.Errorf("live transcript:\n%s\nwant (native):\n%s", got, shownText(native))
	}
	if h := js[[]string](t, ctx, `tp.heads(0, "effects")`); !slices.Equal(h, []string{"order", "job", "event", "run", "attempt", "send", "key", "worker", "arrival (ms)"}) {
		t.Errorf("effects columns: %q", h)
	}
	if h := js[[]string](t, ctx, `tp.heads(0, "jobs")`); !slices.Equal(h, []string{"id", "order", "event", "status", "attempts", "run", "lease (ms)"}) {
		t.Errorf("jobs columns: %q", h)
	}
	effects := js[[][]string](t, ctx, `tp.rows(0, "effects")`)
	if len(effects) != len(native.Effects) {
		t.Errorf("effects table has %d rows, native run has %d effects", len(effects), len(native.Effects))
	}
	for i, e := range native.Effects {
		if i >= len(effects) {
			break
		}
		key := e.Key
		if key == "" {
			key = "-"
		}
		want := []string{e.Order, strconv.FormatInt(e.Job, 10), e.Event, e.Run, strconv.Itoa(e.Attempt), "s" + strconv.Itoa(e.Send), key, e.Worker, fmt.Sprintf("%d.%03d", e.AtUS/1000, e.AtUS%1000)}
		if !slices.Equal(effects[i], want) {
			t.Errorf("effects row %d = %q, want %q", i, effects[i], want)
		}
	}
	jobs := js[[][]string](t, ctx, `tp.rows(0, "jobs")`)
	if len(jobs) != len(native.Jobs) {
		t.Errorf("jobs table has %d rows, native run has %d jobs", len(jobs), len(native.Jobs))
	}
	for i, j := range native.Jobs {
		if i < len(jobs) && (jobs[i][0] != strconv.FormatInt(j.ID, 10) || jobs[i][3] != j.Status || jobs[i][4] != strconv.Itoa(j.Attempts)) {
			t.Errorf("jobs row %d = %q, want %+v", i, jobs[i], j)
		}
	}
	if len(native.Races) == 0 || native.Races[0].Duplicates == 0 {
		t.Fatalf("native run of %q shows no duplicates; the lesson expects some", src)
	}
	if d := js[string](t, ctx, `tp.q(0, ".tally").dataset.duplicates`); d != strconv.Itoa(native.Races[0].Duplicates) {
		t.Errorf("tally duplicates = %s, native %d", d, native.Races[0].Duplicates)
	}
	// The panel writes the diagnosis as sentences; each clause of the
	// transcript's line is in it.
	if diag := strings.ToLower(js[string](t, ctx, `tp.q(0, ".diagnosis").textContent`)); native.Summary[0].Diagnosis != "" {
		for _, clause := range strings.Split(native.Summary[0].Diagnosis, "; ") {
			if !strings.Contains(diag, strings.ToLower(clause)) {
				t.Errorf("diagnosis panel %q does not say %q", diag, clause)
			}
		}
	}

	// The claim toggle: atomic rewrites the script, reruns, no duplicates.
	if s := js[string](t, ctx, `tp.run(0, () => tp.q(0, "input[value=atomic]").click())`); s != "done" {
		t.Fatalf("atomic run ended in state %q", s)
	}
	edited := js[string](t, ctx, `tp.q(0, "textarea").value`)
	if !strings.Contains(edited, "race atomic 20") {
		t.Errorf("toggle did not rewrite the claim: %q", edited)
	}
	if d := js[string](t, ctx, `tp.q(0, ".tally").dataset.duplicates`); d != "0" {
		t.Errorf("with the atomic claim the tally shows %s duplicates, want 0", d)
	}
	if got, want := js[string](t, ctx, `tp.transcript(0)`), shownText(interp.Run(edited, interp.Options{Seed: interp.DefaultSeed})); got != want {
		t.Errorf("atomic transcript:\n%s\nwant:\n%s", got, want)
	}

	// Back to read, then a seed: replays what twice run --seed prints.
	js[string](t, ctx, `tp.run(0, () => tp.q(0, "input[value=read]").click())`)
	const seed = 424242
	if s := js[string](t, ctx, `tp.run(0, () => { tp.q(0, ".seed input").value = "`+strconv.Itoa(seed)+`"; tp.q(0, "button.run").click(); })`); s != "done" {
		t.Fatalf("seeded run ended in state %q", s)
	}
	edited = js[string](t, ctx, `tp.q(0, "textarea").value`)
	want := shownText(interp.Run(edited, interp.Options{Seed: seed}))
	if got := js[string](t, ctx, `tp.transcript(0)`); got != want {
		t.Errorf("transcript at seed %d:\n%s\nwant (native, same seed):\n%s", seed, got, want)
	}

	// The link to this run replays it in a fresh page.
	link := js[string](t, ctx, `tp.q(0, ".permalink").href`)
	if !strings.Contains(link, "#block-1?seed="+strconv.Itoa(seed)+"&script=") {
		t.Errorf("link to the run: %q", link)
	}
	onePage()
	u, err := neturl.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	u.RawQuery = "replay" // a new document, not a jump within this one
	navigate(t, ctx, u.String())
	run(t, ctx, 60*time.Second, chromedp.Poll[bool](`tp.state(0) === "done"`))
	if got := js[string](t, ctx, `tp.transcript(0)`); got != want {
		t.Errorf("the link replayed:\n%s\nwant:\n%s", got, want)
	}
	if got := js[string](t, ctx, `tp.q(0, ".seed input").value`); got != strconv.Itoa(seed) {
		t.Errorf("the link set the seed to %q", got)
	}

	// A failing run shows its error; the next run works.
	if s := js[string](t, ctx, `tp.run(1, () => { tp.q(1, "textarea").value = "race sideways 3\n"; tp.q(1, "button.run").click(); })`); s != "error" {
		t.Errorf("bad script ended in state %q, want error", s)
	}
	if e := js[string](t, ctx, `tp.q(1, ".error").textContent`); !strings.Contains(e, "line 1") {
		t.Errorf("error shown: %q", e)
	}
	if s := js[string](t, ctx, `tp.run(1, () => { tp.q(1, "textarea").value = "race lock 2\njobs\n"; tp.q(1, "button.run").click(); })`); s != "done" {
		t.Errorf("run after an error ended in state %q", s)
	}
	if js[bool](t, ctx, `!tp.q(1, ".error").hidden`) {
		t.Errorf("error still shown after a good run")
	}
	shot := run(t, ctx, 30*time.Second, chromedp.FullScreenshot(100))
	name := filepath.Join(artifactDir(t), strings.ReplaceAll(t.Name(), "/", "-")+".png")
	if err := os.WriteFile(name, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", name)
}

// lazyLoad checks that nothing of the wasm module is fetched before a block
// scrolls into view, that scrolling one into view starts the download
// (before any Run), and that the loading state shows the download size.
func lazyLoad(t *testing.T, ctx context.Context, base string, race lessons.Lesson, count *counting) {
	run(t, ctx, 10*time.Second, chromedp.EmulateViewport(1280, 300))
	defer run(t, ctx, 10*time.Second, chromedp.EmulateViewport(1280, 900))
	navigate(t, ctx, base+"/")
	navigate(t, ctx, base+"/lessons/"+race.Slug+"/")
	if js[bool](t, ctx, `tp.el(0).getBoundingClientRect().top < innerHeight`) {
		t.Fatal("the first block is in view at 300 px height; the test needs it below the fold")
	}
	time.Sleep(500 * time.Millisecond)
	if n := count.take(t); n != 0 {
		t.Errorf("the wasm module was requested %d times before any block was in view", n)
	}
	js[bool](t, ctx, `window.loadingTexts = []; new MutationObserver(() => loadingTexts.push(tp.q(0, ".loading-text").textContent)).observe(tp.q(0, ".loading"), {subtree: true, childList: true, characterData: true, attributes: true}); tp.el(0).scrollIntoView(); true`)
	run(t, ctx, 60*time.Second, chromedp.Poll[bool](`tp.q(0, ".loading").hidden && window.loadingTexts.length > 0`))
	if n := count.take(t); n != 1 {
		t.Errorf("scrolling a block into view requested the wasm module %d times, want 1", n)
	}
	texts := js[[]string](t, ctx, `loadingTexts`)
	mb := fmt.Sprintf("%.1f MB", float64(js[int](t, ctx, `TwicePlayground.config.wasmSize`))/1e6)
	if !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, "of "+mb) }) {
		t.Errorf("the loading state never showed the download size %s: %q", mb, texts)
	}
	if s := js[string](t, ctx, `tp.state(0)`); s != "prerendered" {
		t.Errorf("loading the runtime changed the block's state to %q; it should wait for Run", s)
	}
}

// focusLoads checks that the focus reaching a block's Run button starts
// loading the runtime, with the block still out of view.
func focusLoads(t *testing.T, ctx context.Context, base string, race lessons.Lesson) {
	run(t, ctx, 10*time.Second, chromedp.EmulateViewport(1280, 300))
	defer run(t, ctx, 10*time.Second, chromedp.EmulateViewport(1280, 900))
	navigate(t, ctx, base+"/lessons/"+race.Slug+"/")
	time.Sleep(300 * time.Millisecond)
	if js[bool](t, ctx, `TwicePlayground.timings() !== null || !tp.q(0, ".loading").hidden`) {
		t.Fatal("the runtime loads before a block is in view or its Run has the focus")
	}
	// A headless page has no focus of its own, and an element of a page
	// without focus gets no focus events.
	setFocus := func(on bool) {
		run(t, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: on})
			return err
		}))
	}
	setFocus(true)
	defer setFocus(false)
	js[bool](t, ctx, `tp.q(0, "button.run").focus({ preventScroll: true }), true`)
	if js[bool](t, ctx, `tp.el(0).getBoundingClientRect().top < innerHeight`) {
		t.Fatal("focusing Run scrolled the block into view; the test needs it below the fold")
	}
	run(t, ctx, 60*time.Second, chromedp.Poll[bool](`TwicePlayground.timings() !== null`))
}

// noFreeze runs race read 10000 and measures the longest gap of a 10 ms
// timer on the page meanwhile: the run happens in the worker, so the page
// stays responsive.
func noFreeze(t *testing.T, ctx context.Context) {
	js[bool](t, ctx, `window.gap = 0; window.last = performance.now(); window.ticker = setInterval(() => { const n = performance.now(); gap = Math.max(gap, n - last); last = n; }, 10); true`)
	start := time.Now()
	s := js[string](t, ctx, `tp.run(1, () => { tp.q(1, "textarea").value = "race read 10000\n"; tp.q(1, "button.run").click(); })`)
	took := time.Since(start)
	gap := js[float64](t, ctx, `clearInterval(ticker), gap`)
	t.Logf("race read 10000: %v in the browser; longest main-thread gap meanwhile %.0f ms", took.Round(time.Millisecond), gap)
	if s != "done" {
		t.Fatalf("race read 10000 ended in state %q", s)
	}
	if tally := js[string](t, ctx, `tp.q(1, ".tally").textContent`); !strings.Contains(tally, "of 10000") {
		t.Errorf("tally %q", tally)
	}
	if rows := js[int](t, ctx, `tp.q(1, "table.effects tbody").rows.length`); rows > 200 {
		t.Errorf("effects table has %d rows; it should stop at 200", rows)
	}
	if gap > 1000 && gap > took.Seconds()*1000/2 {
		t.Errorf("the page froze for %.0f ms during a %v run", gap, took)
	}
}

// TestBrowserScreenshots keeps screenshots of the index, a lesson and an
// embed page at desktop and phone widths, light and dark, as artifacts,
// and checks that a phone-width lesson does not scroll sideways.
func TestBrowserScreenshots(t *testing.T) {
	if testing.Short() {
		t.Skip("screenshots in -short mode")
	}
	ctx, consoleErrors := browser(t, 1280, 900)
	srv := browserSite(t)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	dir := artifactDir(t)
	for _, scheme := range []string{"light", "dark"} {
		run(t, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
			})
			return err
		}))
		for _, w := range []struct {
			name          string
			width, height int64
		}{{"desktop", 1280, 900}, {"phone", 390, 844}} {
			run(t, ctx, 10*time.Second, chromedp.EmulateViewport(w.width, w.height))
			for _, p := range []struct{ name, path string }{
				{"index", "/"}, {"lesson", "/lessons/claim-race/"}, {"embed", "/embed/claim-race/1/"},
			} {
				navigate(t, ctx, hs.URL+p.path)
				if p.name != "index" {
					if s := js[string](t, ctx, `tp.run(0)`); s != "done" {
						t.Errorf("%s %s: run ended in %q", p.name, w.name, s)
					}
				}
				if over := js[float64](t, ctx, `document.documentElement.scrollWidth - innerWidth`); over > 0 {
					t.Errorf("%s at %s width scrolls sideways by %.0f px", p.path, w.name, over)
				}
				shot := run(t, ctx, 30*time.Second, chromedp.FullScreenshot(100))
				name := filepath.Join(dir, fmt.Sprintf("%s-%s-%s.png", p.name, w.name, scheme))
				if err := os.WriteFile(name, shot, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("screenshot: %s", name)
			}
		}
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// keyboard runs a block with Ctrl+Enter from its script editor.
func keyboard(t *testing.T, ctx context.Context) {
	js[bool](t, ctx, `tp.q(1, "textarea").value = "race atomic 3\n"; tp.q(1, "textarea").focus(); tp.el(1).setAttribute("state", "idle"); true`)
	run(t, ctx, 10*time.Second, chromedp.KeyEvent("\r", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
	run(t, ctx, 60*time.Second, chromedp.Poll[bool](`tp.state(1) === "done"`))
	if got, want := js[string](t, ctx, `tp.transcript(1)`), shownText(interp.Run("race atomic 3\n", interp.Options{Seed: interp.DefaultSeed})); got != want {
		t.Errorf("Ctrl+Enter run:\n%s\nwant:\n%s", got, want)
	}
	if v := js[string](t, ctx, `tp.q(1, "textarea").value`); v != "race atomic 3\n" {
		t.Errorf("Ctrl+Enter changed the script to %q", v)
	}
}

// foreignPage embeds the component with one script tag in a page of
// another origin, as a blog would, and runs it.
func foreignPage(t *testing.T, ctx context.Context, site string) {
	page := `<!doctype html><meta charset="utf-8"><title>A blog post</title><link rel="icon" href="data:,">
<p>Here is the race:</p>
<script src="` + site + `/assets/twice.js" defer></script>
<twice-playground seed="3">
<pre>race read 5
jobs</pre>
</twice-playground>
`
	blog := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(page))
	}))
	defer blog.Close()
	navigate(t, ctx, blog.URL+"/")
	if s := js[string](t, ctx, `tp.state(0)`); s != "idle" {
		t.Errorf("embedded block without pre-rendered output: state %q, want idle", s)
	}
	if s := js[string](t, ctx, `tp.run(0)`); s != "done" {
		t.Fatalf("run on another origin ended in %q: %s", s, js[string](t, ctx, `tp.q(0, ".error").textContent`))
	}
	if got, want := js[string](t, ctx, `tp.transcript(0)`), shownText(interp.Run("race read 5\njobs\n", interp.Options{Seed: 3})); got != want {
		t.Errorf("embedded run at seed 3:\n%s\nwant:\n%s", got, want)
	}
}

// claimRewrites checks the claim toggle on scripts the reader typed: the
// runtime in the page sets the claim where the script writes one (never
// inside another word, never in a comment), keeps the rest of the text,
// and the script runs. A script that does not parse is run as it is, and
// says why.
func claimRewrites(t *testing.T, ctx context.Context) {
	for _, tc := range []struct{ src, claim, want string }{
		{"add o\nwork --job 1\n", "atomic", "add o\nwork --job 1 --claim atomic\n"},
		{"add o && work --job 1 --claim read && jobs\n", "atomic", "add o && work --job 1 --claim atomic && jobs\n"},
		{"add read-conditional\nwork --job 1 --claim=read   --trace # --claim read\n", "atomic", "add read-conditional\nwork --job 1 --claim=atomic   --trace # --claim read\n"},
		{"reset; add order-1; work --job 1; jobs\n", "atomic", "reset; add order-1; work --job 1 --claim atomic; jobs\n"},
		{"( node queue.mjs reset && node queue.mjs add o && node queue.mjs work --job 1 --worker W1 ) 2>/dev/null\n", "atomic",
			"( node queue.mjs reset && node queue.mjs add o && node queue.mjs work --job 1 --worker W1 --claim atomic ) 2>/dev/null\n"},
		{"twice add o\ntwice work --job 1 2>/dev/null\n", "atomic", "twice add o\ntwice work --job 1 --claim atomic 2>/dev/null\n"},
		{"race   read\t20 # not race read\n", "atomic", "race   atomic\t20 # not race read\n"},
		{"race lock 2\nrace atomic 5\n", "read", "race read 2\nrace read 5\n"},
		{"# work --job 1\njobs\n", "atomic", "# work --job 1\njobs\n"},
		{"race read 20\nbogus\n", "atomic", "race read 20\nbogus\n"},
		// A race that names no claim, a claim from use, and load's claim.
		{"race 2\n", "atomic", "race atomic 2\n"},
		{"use --claim lock\nadd o\nwork --job 1\n", "read", "use --claim read\nadd o\nwork --job 1\n"},
		{"load 5 --processing fixed:100 --lease 1\n", "read", "load 5 --processing fixed:100 --lease 1 --claim read\n"},
	} {
		js[bool](t, ctx, fmt.Sprintf(`(() => {
			const ta = tp.q(0, "textarea.script");
			ta.value = %q;
			ta.dispatchEvent(new Event("input"));
			// Another claim checked, without an event, so that a click on
			// this one is a change.
			tp.q(0, "fieldset.claim input:not([value=%s])").checked = true;
			return true;
		})()`, tc.src, tc.claim))
		s := js[string](t, ctx, fmt.Sprintf(`tp.run(0, () => tp.q(0, "input[value=%s]").click())`, tc.claim))
		if got := js[string](t, ctx, `tp.q(0, "textarea.script").value`); got != tc.want {
			t.Errorf("%q with %s picked: the script reads %q, want %q", tc.src, tc.claim, got, tc.want)
		}
		if (s == "error") != strings.Contains(tc.src, "bogus") {
			t.Errorf("%q with %s picked: the run ended in %s: %s", tc.src, tc.claim, s, js[string](t, ctx, `tp.q(0, ".error").textContent`))
		}
	}
}
