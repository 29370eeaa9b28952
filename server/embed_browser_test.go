package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/twice-lab/twice/internal/browsertest"
	"github.com/twice-lab/twice/lessons"
	"github.com/twice-lab/twice/runtime/script/interp"
)

// These tests look at the playground as readers and embedders meet it: in
// a frame on another origin, pasted into a blog with one script tag, at
// phone and desktop widths with visible scrollbars, and by keyboard alone.

// visibleBrowser starts Chromium with visible scrollbars (as on most
// desktops) and with every frame in the page's process, so that the test
// can reach into a cross-origin frame (the frame keeps its own origin and
// permissions; only the process model changes).
func visibleBrowser(t *testing.T) context.Context {
	t.Helper()
	path := browsertest.Require(t)
	opts := append(browsertest.Options(path, t.TempDir(), 1280, 900),
		chromedp.Flag("disable-site-isolation-trials", true),
		chromedp.Flag("disable-features", "BackForwardCache,IsolateOrigins,site-per-process"))
	ctx, _ := browsertest.Start(t, path, opts, chromedp.WithLogf(t.Logf))
	return ctx
}

// inFrame evaluates expr (awaiting a promise) in the first iframe of the
// page, in an isolated world: it shares the frame's DOM (shadow roots
// included), not its script globals.
// frameFull waits until the frame's page has loaded the rest of the
// element (boot.js's second stage), as navigate does for a page.
func frameFull(t *testing.T, ctx context.Context) {
	t.Helper()
	for range 300 {
		// (The frame's script runs in an isolated world: it sees the
		// page's DOM, not its globals; the full block has its tabs.)
		if inFrame[bool](t, ctx, `!!document.querySelector("twice-playground")?.shadowRoot?.querySelector("[role=tablist]")`) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("the frame's page never loaded the rest of the element")
}

func inFrame[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	return inFrameN[T](t, ctx, 0, expr)
}

// inFrameN evaluates expr in an isolated world of the page's frame n (its
// DOM, not its scripts' globals).
func inFrameN[T any](t *testing.T, ctx context.Context, n int, expr string) T {
	t.Helper()
	var v T
	run(t, ctx, 30*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		tree, err := cdp.Call(ctx, tg, page.GetFrameTree, cdp.Empty{})
		if err != nil {
			return err
		}
		if tree.FrameTree == nil || len(tree.FrameTree.ChildFrames) <= n {
			return fmt.Errorf("the page has no frame %d", n)
		}
		world, err := cdp.Call(ctx, tg, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: tree.FrameTree.ChildFrames[n].Frame.ID, WorldName: "test"})
		if err != nil {
			return err
		}
		yes := true
		// A user gesture: the frame is refused the clipboard for want of
		// permission, not for want of a click.
		res, err := cdp.Call(ctx, tg, cdpruntime.Evaluate, cdpruntime.EvaluateParams{Expression: expr, ContextID: world.ExecutionContextID, AwaitPromise: &yes, ReturnByValue: &yes, UserGesture: &yes})
		if err != nil {
			return err
		}
		if res.ExceptionDetails != nil {
			return fmt.Errorf("in the frame: %s %+v", res.ExceptionDetails.Text, res.ExceptionDetails.Exception)
		}
		return json.Unmarshal(res.Result.Value, &v)
	}))
	return v
}

// deepActive is a page-side helper: the focused element, through shadow
// roots.
const deepActive = `window.deepActive = () => { let a = document.activeElement; while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement; return a; }; true`

func TestBrowserEmbedAndLayout(t *testing.T) {
	ctx := visibleBrowser(t)
	srv := browserSite(t)
	site := httptest.NewServer(srv) // http://127.0.0.1:PORT
	defer site.Close()
	ls, err := lessons.Load(lessons.FS)
	if err != nil {
		t.Fatal(err)
	}
	nav := func(url string) {
		t.Helper()
		navigate(t, ctx, url)
		js[bool](t, ctx, exploreHelpers)
		js[bool](t, ctx, deepActive)
	}
	// A blog on another origin: the same loopback address by another name.
	var blogPage string
	blog := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(blogPage))
	}))
	defer blog.Close()
	blogURL := strings.Replace(blog.URL, "127.0.0.1", "localhost", 1) + "/"
	post := func(body string) {
		blogPage = `<!doctype html><html lang="en"><meta charset="utf-8"><title>A blog post</title><link rel="icon" href="data:,"><h1>A blog post</h1>` + body
	}

	t.Run("iframe", func(t *testing.T) {
		run(t, ctx, 10*time.Second, chromedp.EmulateViewport(390, 844))
		defer run(t, ctx, 10*time.Second, chromedp.EmulateViewport(1280, 900))
		// The lesson page's own iframe snippet, pasted as it is.
		// (Lesson 1's second block, its happy path, has a script of
		// several lines; its first is the race of its first screen.)
		nav(site.URL + "/lessons/one-job/")
		snippet := js[string](t, ctx, `tp.q(1, "pre.snippet").textContent`)
		if !strings.Contains(snippet, `addEventListener("message"`) || !strings.Contains(snippet, "/embed/one-job/2/") {
			t.Fatalf("iframe snippet: %s", snippet)
		}
		if !strings.Contains(snippet, `style="border:0;width:100%"`) || !strings.Contains(snippet, ` title="twice: `) {
			t.Errorf("the iframe snippet has a border, or no full width or title: %s", snippet)
		}
		// This site is served on loopback: the snippets say they need the
		// published address.
		if note := js[string](t, ctx, `(tp.q(0, ".embed-local") || {}).textContent || ""`); !strings.Contains(note, "published") {
			t.Errorf("a snippet from a loopback page does not say it needs the published URL: %q", note)
		}
		post("<p>The lease:</p>\n" + snippet)
		nav(blogURL)
		// The frame takes the height its page posts, which is all of it.
		run(t, ctx, 60*time.Second, chromedp.Poll[bool](`document.querySelector("iframe").height !== "640"`))
		fit := func(when string) {
			t.Helper()
			// The page's height changes as its runtime loads (the
			// loading line comes and goes): the three figures are read
			// again until they agree, which they must within 5 s.
			var inner, scrolls int
			var outer string
			for range 50 {
				inner = inFrame[int](t, ctx, `Math.ceil(document.documentElement.getBoundingClientRect().height)`)
				outer = js[string](t, ctx, `document.querySelector("iframe").height`)
				scrolls = inFrame[int](t, ctx, `document.documentElement.scrollHeight - innerHeight`)
				if outer == fmt.Sprint(inner) && scrolls <= 0 {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if outer != fmt.Sprint(inner) || scrolls > 0 {
				t.Errorf("%s: the frame is %s px high for a page of %d px (it scrolls by %d px)", when, outer, inner, scrolls)
			}
		}
		fit("loaded")
		frameFull(t, ctx)

		// Copy as command inside the frame: the frame has no clipboard
		// permission, so the fallback shows, and it keeps every line.
		ran := inFrame[string](t, ctx, `(async () => {
  const root = document.querySelector("twice-playground").shadowRoot;
  root.querySelector(".copy-cmd").click();
  for (let i = 0; i < 100 && root.querySelector(".copy-box").hidden; i++) await new Promise((r) => setTimeout(r, 50));
  return root.querySelector(".copy-box").hidden ? "no fallback shown" : root.querySelector(".copy-field").value;
})()`)
		want := "twice run --seed 1 -c '" + strings.TrimRight(ls[0].Blocks[1].Script, "\n") + "'"
		if ran != want {
			t.Errorf("copy fallback in a cross-origin frame gave:\n%s\nwant:\n%s", ran, want)
		}
		if n := strings.Count(ran, "\n"); n == 0 {
			t.Errorf("the copied command lost its newlines: %q", ran)
		}
		if sel := inFrame[string](t, ctx, `(() => { const f = document.querySelector("twice-playground").shadowRoot.querySelector(".copy-field"); return f.value.slice(f.selectionStart, f.selectionEnd); })()`); sel != want {
			t.Errorf("the fallback field does not have the whole command selected: %q", sel)
		}
		fit("with the copy box open")
		// A run grows the page (the timeline's text, tables): the frame
		// follows. This world sees the frame's DOM, not the element's
		// script properties: the picture's src says it is drawn.
		inFrame[bool](t, ctx, `(async () => {
  const el = document.querySelector("twice-playground");
  el.shadowRoot.querySelector("#tab-timeline").click();
  const drawn = () => !!el.shadowRoot.querySelector(".tl-img").getAttribute("src");
  for (let i = 0; i < 600 && (el.getAttribute("state") !== "done" || !drawn()); i++) await new Promise((r) => setTimeout(r, 100));
  return el.getAttribute("state") === "done";
})()`)
		fit("after a run, on the timeline")
	})

	t.Run("no clipboard", func(t *testing.T) {
		// Plain http from a LAN address is not a secure context: there is
		// no navigator.clipboard at all. The fallback keeps every line too.
		nav(site.URL + "/lessons/one-job/")
		got := js[string](t, ctx, `(async () => {
  Object.defineProperty(navigator, "clipboard", { value: undefined, configurable: true });
  tp.q(1, ".copy-cmd").click();
  for (let i = 0; i < 100 && tp.q(1, ".copy-box").hidden; i++) await new Promise((r) => setTimeout(r, 20));
  return tp.q(1, ".copy-field").value;
})()`)
		if want := "twice run --seed 1 -c '" + strings.TrimRight(ls[0].Blocks[1].Script, "\n") + "'"; got != want {
			t.Errorf("without a clipboard the fallback holds:\n%s\nwant:\n%s", got, want)
		}
	})

	t.Run("script tag keeps the block", func(t *testing.T) {
		// Lesson 5's two-claim block has controls=seed: pasted elsewhere it
		// must not grow a claim toggle, and keeps its label; its id names
		// the lesson, so that blocks of two lessons pasted into one post
		// never share one.
		nav(site.URL + "/lessons/atomic-claim/")
		n := js[int](t, ctx, `document.querySelectorAll("twice-playground").length`)
		titles := map[string]bool{}
		for i := range n {
			s := js[string](t, ctx, fmt.Sprintf(`tp.q(%d, "pre.snippet").textContent`, i))
			title := s[strings.Index(s, `title="`):]
			title = title[:strings.Index(title[7:], `"`)+8]
			if titles[title] {
				t.Errorf("two iframe snippets share %s", title)
			}
			titles[title] = true
		}
		tag := js[string](t, ctx, `tp.q(1, "pre.snippet:nth-of-type(1)") && tp.el(1).shadowRoot.querySelectorAll("pre.snippet")[1].textContent`)
		for _, want := range []string{`id="twice-atomic-claim-2"`, `controls="seed"`, `label="`, "race read 20 --txn deferred"} {
			if !strings.Contains(tag, want) {
				t.Errorf("script-tag snippet lacks %s:\n%s", want, tag)
			}
		}
		label := js[string](t, ctx, `tp.el(1).getAttribute("label")`)
		post("<p>Both claims:</p>\n" + tag)
		nav(blogURL)
		js[bool](t, ctx, stopHelpers)
		// The output the server rendered shows before Run, read from the
		// embed page the snippet names; nothing is run for it.
		run(t, ctx, 30*time.Second, chromedp.Poll[bool](`tp.state(0) === "prerendered"`))
		opts, _ := ls[4].Blocks[1].Options()
		if got, want := js[string](t, ctx, `tp.transcript(0)`), shownText(interp.Run(ls[4].Blocks[1].Script, interp.Options{Seed: opts.Seed})); got != want {
			t.Errorf("the pasted block before Run shows:\n%s\nwant the server's output:\n%s", got, want)
		}
		if n := js[float64](t, ctx, `tpRuns`); n != 0 {
			t.Errorf("showing the pasted block's output sent %v run(s) to the runtime", n)
		}
		if js[bool](t, ctx, `tp.q(0, "fieldset.claim") !== null`) {
			t.Errorf("the pasted block has a claim toggle; its controls are seed only")
		}
		// The component never registers the site's service worker on a page
		// that is not the site's.
		if n := js[int](t, ctx, `navigator.serviceWorker.getRegistrations().then((r) => r.length)`); n != 0 {
			t.Errorf("the blog page has %d service worker registration(s)", n)
		}
		if js[bool](t, ctx, `!!document.querySelector("script[src*='offline.']")`) {
			t.Errorf("the script-tag snippet loads offline.js")
		}
		if id := js[string](t, ctx, `tp.el(0).id`); id != "twice-atomic-claim-2" {
			t.Errorf("pasted block id %q", id)
		}
		if l := js[string](t, ctx, `tp.q(0, "textarea.script").getAttribute("aria-label")`); !strings.HasPrefix(l, label) {
			t.Errorf("pasted block's editor is labelled %q, want %q...", l, label)
		}
	})

	t.Run("script tag of a shell line", func(t *testing.T) {
		// Lesson 4's first block is the article's shell line; its snippet
		// carries the plain commands, and the pasted block still shows
		// the output the server rendered, before Run.
		nav(site.URL + "/lessons/claim-race/")
		tag := js[string](t, ctx, `tp.el(0).shadowRoot.querySelectorAll("pre.snippet")[1].textContent`)
		if strings.Contains(tag, "node queue.mjs") {
			t.Fatalf("the snippet carries the shell line:\n%s", tag)
		}
		post("<p>The race:</p>\n" + tag)
		nav(blogURL)
		js[bool](t, ctx, stopHelpers)
		run(t, ctx, 30*time.Second, chromedp.Poll[bool](`tp.state(0) === "prerendered" || tp.q(0, ".out-heading").textContent.includes("Press Run")`))
		if s := js[string](t, ctx, `tp.state(0)`); s != "prerendered" {
			t.Errorf("the pasted shell-line block shows %q (%s), want the server's output", s, js[string](t, ctx, `tp.q(0, ".out-heading").textContent`))
		}
		if got, want := js[string](t, ctx, `tp.transcript(0)`), shownText(interp.Run(ls[3].Blocks[0].Script, interp.Options{Seed: interp.DefaultSeed})); got != want {
			t.Errorf("the pasted shell-line block before Run shows:\n%s\nwant the server's output:\n%s", got, want)
		}
	})

	t.Run("script tag on a host with no CORS header", func(t *testing.T) {
		// The export on a plain static host, which sends no
		// Access-Control-Allow-Origin header (Go's file server, as python3
		// -m http.server), and the post on another origin.
		dir := t.TempDir()
		if err := srv.Site().Export(dir); err != nil {
			t.Fatal(err)
		}
		static := httptest.NewServer(http.FileServer(http.Dir(dir)))
		defer static.Close()
		res, err := http.Get(static.URL + "/assets/twice.js")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if h := res.Header.Get("Access-Control-Allow-Origin"); h != "" {
			t.Fatalf("the static host sends Access-Control-Allow-Origin: %s", h)
		}
		nav(static.URL + "/lessons/claim-race/")
		tag := js[string](t, ctx, `tp.el(0).shadowRoot.querySelectorAll("pre.snippet")[1].textContent`)
		if note := js[string](t, ctx, `tp.q(0, ".embed-note").textContent`); !strings.Contains(note, "Access-Control-Allow-Origin") || !strings.Contains(note, "frame") {
			t.Errorf("Embed this block does not say what the script tag needs: %q", note)
		}
		// One block pasted with its snippet, one written by hand with no
		// embed page to name.
		post(strings.Repeat("<p>A paragraph of the post.</p>\n", 6) + "<p>The race:</p>\n" + tag + "\n<p>By hand:</p>\n<twice-playground id=\"mine\" label=\"My own race\"><pre>race read 3</pre></twice-playground>")
		nav(blogURL)
		run(t, ctx, 30*time.Second, chromedp.Poll[bool](`document.querySelectorAll("twice-playground")[1].shadowRoot !== null`))
		els := `document.querySelectorAll("twice-playground")`
		src := js[string](t, ctx, els+`[0].shadowRoot.querySelector("iframe") ? `+els+`[0].shadowRoot.querySelector("iframe").src : ""`)
		if !strings.HasPrefix(src, static.URL+"/embed/claim-race/1/?label=Two+workers%2C+one+job%2C+script+1#block-1?") {
			t.Fatalf("the pasted block is not a frame of its embed page: %q", src)
		}
		// In the frame: the server's output at once, and Run works.
		run(t, ctx, 30*time.Second, chromedp.Poll[bool](`(() => { const f = document.querySelector("twice-playground").shadowRoot.querySelector("iframe"); return f.height !== "640"; })()`))
		for range 100 {
			if inFrame[string](t, ctx, `document.querySelector("twice-playground") && document.querySelector("twice-playground").getAttribute("state") || ""`) == "prerendered" {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if st := inFrame[string](t, ctx, `document.querySelector("twice-playground").getAttribute("state")`); st != "prerendered" {
			t.Errorf("the framed block shows %q, want the server's output", st)
		}
		frameFull(t, ctx)
		want := shownText(interp.Run(ls[3].Blocks[0].Script, interp.Options{Seed: interp.DefaultSeed}))
		if got := inFrame[string](t, ctx, `document.querySelector("twice-playground").shadowRoot.querySelector(".transcript").textContent`); got != want {
			t.Errorf("the framed block shows:\n%s\nwant the server's output:\n%s", got, want)
		}
		shoot(t, ctx, "embed-no-cors-1280")
		ran := inFrame[string](t, ctx, `(async () => {
  const el = document.querySelector("twice-playground");
  el.shadowRoot.querySelector("button.run").click();
  for (let i = 0; i < 1200 && el.getAttribute("state") !== "done" && el.getAttribute("state") !== "error"; i++) await new Promise((r) => setTimeout(r, 100));
  return el.getAttribute("state") + ": " + el.shadowRoot.querySelector(".transcript").textContent;
})()`)
		if ran != "done: "+want {
			t.Errorf("Run in the framed block gave %q, want done: %q", ran, want)
		}
		// The frame takes its page's height: nothing scrolls inside it.
		var outer string
		var inner int
		for range 50 {
			inner = inFrame[int](t, ctx, `Math.ceil(document.documentElement.getBoundingClientRect().height)`)
			if outer = js[string](t, ctx, els+`[0].shadowRoot.querySelector("iframe").height`); outer == fmt.Sprint(inner) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if outer != fmt.Sprint(inner) {
			t.Errorf("the frame is %s px high for a page of %d px", outer, inner)
		}
		// The framed block replays its script and seed as a link, and
		// scrolls nothing of the post: its reader stays at the top.
		if y := js[float64](t, ctx, `scrollY`); y != 0 {
			t.Errorf("the post scrolled to %.0f px as its framed block loaded, want 0", y)
		}
		// The block written by hand, which names no embed page, runs in a
		// frame of the site's play page under its author's label: no
		// alert for the post's readers (what the header would fix goes to
		// the console), and the script's own output once Run.
		if n := js[int](t, ctx, `document.querySelectorAll("twice-playground").length === 2 ? Array.from(document.querySelectorAll("twice-playground"), (e) => e.shadowRoot.querySelectorAll("[role=alert]").length).reduce((a, b) => a + b) : -1`); n != 0 {
			t.Errorf("the post shows its readers %d alert(s)", n)
		}
		mine := js[string](t, ctx, els+`[1].shadowRoot.querySelector("iframe") ? `+els+`[1].shadowRoot.querySelector("iframe").src : ""`)
		if !strings.HasPrefix(mine, static.URL+"/embed/play/?label=My+own+race#block-1?") || !strings.Contains(mine, "script=race+read+3") {
			t.Fatalf("the hand-written block is not a frame of the play page with its label and script: %q", mine)
		}
		ranMine := inFrameN[string](t, ctx, 1, `(async () => {
  const el = document.querySelector("twice-playground");
  for (let i = 0; i < 1200 && el.getAttribute("state") !== "done" && el.getAttribute("state") !== "error"; i++) await new Promise((r) => setTimeout(r, 100));
  if (el.getAttribute("state") !== "done") { el.shadowRoot.querySelector("button.run").click(); await new Promise((r) => setTimeout(r, 200)); }
  for (let i = 0; i < 1200 && el.getAttribute("state") !== "done" && el.getAttribute("state") !== "error"; i++) await new Promise((r) => setTimeout(r, 100));
  return document.querySelector(".embed-title").textContent + "|" + document.title + "|" + el.getAttribute("label") + "|" + el.getAttribute("state") + ": " + el.shadowRoot.querySelector(".transcript").textContent;
})()`)
		wantMine := "My own race|My own race · twice|My own race|done: " + shownText(interp.Run("race read 3", interp.Options{Seed: interp.DefaultSeed}))
		if ranMine != wantMine {
			t.Errorf("the play page's frame of the hand-written block shows:\n%s\nwant:\n%s", ranMine, wantMine)
		}
		js[bool](t, ctx, els+`[1].scrollIntoView(), true`)
		shoot(t, ctx, "embed-no-cors-play-page-1280")
		run(t, ctx, 10*time.Second, chromedp.EmulateViewport(390, 844))
		defer run(t, ctx, 10*time.Second, chromedp.EmulateViewport(1280, 900))
		nav(blogURL)
		run(t, ctx, 30*time.Second, chromedp.Poll[bool](els+`[0].shadowRoot !== null && `+els+`[0].shadowRoot.querySelector("iframe").height !== "640"`))
		shoot(t, ctx, "embed-no-cors-390")
		if over := js[float64](t, ctx, `document.documentElement.scrollWidth - innerWidth`); over > 0 {
			t.Errorf("on a phone the post with a framed block scrolls sideways by %.0f px", over)
		}
	})

	t.Run("no shell wrapper", func(t *testing.T) {
		// Lesson 4's block is the article's shell line; what a post gets
		// is the plain commands, and the command to copy has both forms.
		nav(site.URL + "/lessons/claim-race/")
		for i, sel := range []string{"pre.snippet"} {
			for _, s := range js[[]string](t, ctx, `Array.from(tp.el(0).shadowRoot.querySelectorAll("`+sel+`"), (p) => p.textContent)`) {
				if strings.Contains(s, "node queue.mjs") || strings.Contains(s, "2>/dev/null") {
					t.Errorf("snippet %d carries the shell wrapper:\n%s", i, s)
				}
			}
		}
		if got := js[string](t, ctx, `tp.el(0).getAttribute("plain")`); got != "race read 20\neffects\n" {
			t.Errorf("lesson 4's plain form: %q", got)
		}
		got := js[string](t, ctx, `(async () => {
  Object.defineProperty(navigator, "clipboard", { value: undefined, configurable: true });
  tp.q(0, ".copy-go").click();
  for (let i = 0; i < 100 && tp.q(0, ".copy-box").hidden; i++) await new Promise((r) => setTimeout(r, 20));
  return tp.q(0, ".copy-field").value;
})()`)
		if !strings.HasPrefix(got, "go run ./cmd/twice run --seed ") {
			t.Errorf("Copy as go run gave %q", got)
		}
	})

	t.Run("layout", func(t *testing.T) {
		for _, w := range []int64{390, 1280} {
			run(t, ctx, 10*time.Second, chromedp.EmulateViewport(w, 900))
			for _, l := range ls {
				nav(site.URL + "/lessons/" + l.Slug + "/")
				// Open the Share menu and its embed snippets too: they are
				// boxes that wrap.
				js[bool](t, ctx, `document.querySelectorAll("twice-playground").forEach((el) => { el.output.openShare(true); el.shadowRoot.querySelector("details.embed").open = true; }); true`)
				bad := js[[]string](t, ctx, `(async () => {
  // Two frames: what a reader sees once the page has settled.
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const out = [];
  const els = [...document.querySelectorAll("pre, table")];
  document.querySelectorAll("twice-playground").forEach((el, i) => els.push(...[...el.shadowRoot.querySelectorAll("*")].map((e) => (e.dataset.block = i, e))));
  for (const e of els) {
    const cs = getComputedStyle(e);
    if (e.offsetParent === null) continue;
    const name = (e.dataset.block !== undefined ? "block " + (Number(e.dataset.block) + 1) + " " : "") + e.tagName.toLowerCase() + "." + e.className;
    const y = /auto|scroll/.test(cs.overflowY) ? e.scrollHeight - e.clientHeight : 0;
    const x = /auto|scroll/.test(cs.overflowX) ? e.scrollWidth - e.clientWidth : 0;
    if (e.matches("textarea.script") && e.scrollHeight > e.clientHeight) out.push(name + ": the script box hides " + (e.scrollHeight - e.clientHeight) + " px of its script");
    else if (y > 0 && y <= 2) out.push(name + ": scrolls " + y + " px vertically without need");
    if (x > 0 && x <= 2) out.push(name + ": scrolls " + x + " px sideways without need");
    if (e.matches("[role=tablist]") && e.scrollWidth > e.clientWidth) out.push(name + ": the tabs do not fit, they scroll by " + (e.scrollWidth - e.clientWidth) + " px");
  }
  // A flag in the prose (--fence in a sentence or a table) is not broken
  // after its dashes: no line that ends in "--" and one that starts "fence".
  for (const code of document.querySelectorAll("main code")) {
    if (code.closest("pre")) continue;
    const walk = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    for (let text = walk.nextNode(); text; text = walk.nextNode()) {
      for (const m of text.data.matchAll(/(?<=^|\s)-+[^\s-][^\s]*/g)) {
        if (m[0].length > 32) continue;
        const r = document.createRange();
        r.setStart(text, m.index);
        r.setEnd(text, m.index + m[0].length);
        const tops = new Set([...r.getClientRects()].filter((q) => q.width > 0).map((q) => Math.round(q.top)));
        if (tops.size > 1) out.push("the flag " + JSON.stringify(m[0]) + " breaks across lines");
      }
    }
  }
  // Snippets break between words, not inside them.
  for (const el of document.querySelectorAll("twice-playground")) {
    for (const pre of el.shadowRoot.querySelectorAll("pre.snippet")) {
      const text = pre.firstChild;
      for (const m of text.data.matchAll(/[A-Za-z]+/g)) {
        const r = document.createRange();
        r.setStart(text, m.index);
        r.setEnd(text, m.index + m[0].length);
        const tops = new Set([...r.getClientRects()].map((q) => Math.round(q.top)));
        if (tops.size > 1) { out.push("snippet breaks inside " + JSON.stringify(m[0])); break; }
      }
    }
  }
  return out;
})()`)
				for _, b := range bad {
					t.Errorf("%s at %d px: %s", l.Slug, w, b)
				}
			}
		}
		// The timeline's smallest text is at least 12 CSS px, readable on
		// a projector: on a desktop page, where the picture fits the
		// block, and on a phone, where it scrolls sideways.
		timelineText := func(w, h int64) {
			t.Helper()
			run(t, ctx, 10*time.Second, chromedp.EmulateViewport(w, h))
			nav(site.URL + "/lessons/claim-race/")
			if s := js[string](t, ctx, `tp.run(0)`); s != "done" {
				t.Fatalf("run: %s", s)
			}
			js[bool](t, ctx, `tp.tab(0, "timeline")`)
			// The race opens on its step axis, drawn at its own size.
			if px := js[float64](t, ctx, `Math.min(...Array.from(tp.el(0).shadowRoot.querySelectorAll(".sx-fig text")).map((e) => parseFloat(getComputedStyle(e).fontSize)))`); px < 12 {
				t.Errorf("at %d px the step axis's smallest text is %.1f CSS px, want at least 12", w, px)
			}
			js[bool](t, ctx, timeScale(0))
			px := js[float64](t, ctx, `(() => { const img = tp.q(0, ".tl-img"); const svg = decodeURIComponent(img.getAttribute("src").split(",")[1]); return img.getBoundingClientRect().width / Number(img.getAttribute("width")) * TwicePlayground.minFontSize(svg); })()`)
			if px < 12 {
				t.Errorf("at %d px the timeline's smallest text is %.1f CSS px, want at least 12", w, px)
			}
			js[bool](t, ctx, `tp.q(0, ".tl-scroll").scrollIntoView(), true`)
			shoot(t, ctx, fmt.Sprintf("timeline-%d", w))
			if w >= 1280 {
				if over := js[float64](t, ctx, `tp.q(0, ".tl-scroll").scrollWidth - tp.q(0, ".tl-scroll").clientWidth`); over > 0 {
					t.Errorf("at %d px the timeline scrolls sideways by %.0f px; it should fit the block", w, over)
				}
			}
		}
		timelineText(1280, 900)
		defer run(t, ctx, 10*time.Second, chromedp.EmulateViewport(1280, 900))
		timelineText(390, 844)
		var px float64
		// The load chart too, in a box of its own that scrolls sideways
		// (the page does not).
		nav(site.URL + "/lessons/outlives-its-lease/")
		i := js[int](t, ctx, `[...document.querySelectorAll("twice-playground")].findIndex((el) => el.shadowRoot.querySelector("textarea.script").value.startsWith("load 200"))`)
		if i < 0 {
			t.Fatal("no load block in outlives-its-lease")
		}
		if s := js[string](t, ctx, fmt.Sprintf(`tp.run(%d)`, i)); s != "done" {
			t.Fatalf("run the load: %s", s)
		}
		// The chart fits the phone's width, drawn at full size (no text
		// under 11 CSS px), its p95 marker inside the screen.
		px = js[float64](t, ctx, fmt.Sprintf(`(() => { const img = tp.q(%d, ".load-chart img"); const svg = decodeURIComponent(img.getAttribute("src").split(",")[1]); return img.getBoundingClientRect().width / Number(img.getAttribute("width")) * TwicePlayground.minFontSize(svg); })()`, i))
		if px < 11 {
			t.Errorf("on a phone the load chart's smallest text is %.1f CSS px, want at least 11", px)
		}
		if r := js[[]float64](t, ctx, fmt.Sprintf(`(() => { const b = tp.q(%d, ".load-chart img").getBoundingClientRect(); return [b.left, b.right]; })()`, i)); r[0] < 0 || r[1] > 390 {
			t.Errorf("on a phone the load chart spans %v px, not within the screen", r)
		}
		if over := js[float64](t, ctx, `document.documentElement.scrollWidth - innerWidth`); over > 0 {
			t.Errorf("with the load chart shown the phone's page scrolls sideways by %.0f px", over)
		}
		// The tables and the diagnosis are of the shortest lease with
		// duplicates (1 s): its duplicates are listed, the jobs that ran
		// once counted, not listed.
		native := interp.Run(js[string](t, ctx, fmt.Sprintf(`tp.q(%d, "textarea").value`, i)), interp.Options{Seed: interp.DefaultSeed})
		first := native.Loads[0]
		diag := js[string](t, ctx, fmt.Sprintf(`tp.q(%d, ".diagnosis").textContent`, i))
		if n := js[int](t, ctx, fmt.Sprintf(`tp.el(%d).shadowRoot.querySelectorAll(".verdict.kind-once").length`, i)); n > 0 {
			t.Errorf("the load's diagnosis lists %d orders that ran once: %s", n, diag)
		}
		if !strings.Contains(diag, "Ran once: ") || !strings.Contains(diag, "(lease 1 s, 200 jobs)") {
			t.Errorf("the load's diagnosis does not count its orders per kind for lease 1 s: %s", diag)
		}
		if first.Duplicates == 0 || !strings.Contains(diag, fmt.Sprintf(": %d orders", first.Duplicates)) {
			t.Errorf("the load's diagnosis does not count the %d duplicates of lease 1 s: %s", first.Duplicates, diag)
		}
		if rows := js[int](t, ctx, fmt.Sprintf(`tp.q(%d, "table.jobs").tBodies[0].rows.length`, i)); rows != len(first.JobRows) {
			t.Errorf("the jobs table lists %d rows, want the %d jobs of lease 1 s that did not simply run once", rows, len(first.JobRows))
		}
		if c := js[string](t, ctx, fmt.Sprintf(`tp.q(%d, "table.jobs caption").textContent`, i)); !strings.Contains(c, fmt.Sprintf(" %d that ran once", first.RanOnce)) {
			t.Errorf("the jobs table's caption does not fold the jobs that ran once: %q", c)
		}
		// The status region says the diagnosis of the lease shown (1 s),
		// not of the last lease run.
		status := func() string { return js[string](t, ctx, fmt.Sprintf(`tp.q(%d, "[role=status]").textContent`, i)) }
		if want := "Diagnosis for " + first.Summary[0].Order + " at lease 1 s: "; !strings.Contains(status(), want) {
			t.Errorf("the status says %q; want %q in it", status(), want)
		}
		// On a phone a long caption wraps in its box, and stays in view
		// while its table scrolls sideways.
		captions := func() []string {
			return js[[]string](t, ctx, fmt.Sprintf(`[...tp.el(%d).shadowRoot.querySelectorAll(".table-wrap:not([hidden]) caption")].filter((c) => {
				const w = c.closest(".table-wrap");
				w.scrollLeft = w.scrollWidth;
				const r = c.getBoundingClientRect(), b = w.getBoundingClientRect();
				// The box's inside, a vertical scrollbar left out.
				const out = r.left < b.left - 1 || r.right > b.left + w.clientLeft + w.clientWidth + 1 || c.scrollWidth > c.clientWidth + 1;
				w.scrollLeft = 0;
				return out;
			}).map((c) => c.textContent)`, i))
		}
		if c := captions(); len(c) > 0 {
			t.Errorf("on a phone these captions are clipped: %q", c)
		}
		// Picking another lease shows its tables, and the status says its
		// diagnosis.
		js[bool](t, ctx, fmt.Sprintf(`tp.q(%d, ".lease-pick:nth-child(2) input").click(), true`, i))
		if c := js[string](t, ctx, fmt.Sprintf(`tp.q(%d, "table.jobs caption").textContent`, i)); !strings.Contains(c, "lease 2 s") {
			t.Errorf("after picking lease 2 s the jobs table says %q", c)
		}
		second := native.Loads[1]
		if want := "The tables show lease 2 s. Diagnosis for " + second.Summary[0].Order + " at lease 2 s: "; second.Duplicates == 0 || !strings.Contains(status(), want) {
			t.Errorf("after picking lease 2 s (%d duplicates) the status says %q; want %q in it", second.Duplicates, status(), want)
		}
		if w := js[[]float64](t, ctx, fmt.Sprintf(`[...tp.q(%d, ".tally").querySelectorAll(".lease-pick")].map((e) => e.getBoundingClientRect().top)`, i)); len(w) != len(native.Loads) || !slices.IsSorted(w) || len(slices.Compact(slices.Clone(w))) != len(w) {
			t.Errorf("the tally has %d lines at %v for %d leases: want one line per lease", len(w), w, len(native.Loads))
		}
		for _, tab := range []string{"effects", "jobs"} {
			rows := js[int](t, ctx, fmt.Sprintf(`tp.q(%d, "table.%s").tBodies[0].rows.length`, i, tab))
			high := js[float64](t, ctx, fmt.Sprintf(`tp.q(%d, "table.%s").parentElement.getBoundingClientRect().height / parseFloat(getComputedStyle(document.documentElement).fontSize)`, i, tab))
			if rows == 0 || high > 23 {
				t.Errorf("the load's %s table: %d rows in a box %.1f rem high, want some in at most 23", tab, rows, high)
			}
			// Scrolled to its end, the box still shows the column names.
			gap := js[float64](t, ctx, fmt.Sprintf(`(() => { const wrap = tp.q(%d, "table.%s").parentElement; wrap.scrollTop = wrap.scrollHeight; const th = wrap.querySelector("th"); return Math.abs(th.getBoundingClientRect().top - wrap.getBoundingClientRect().top); })()`, i, tab))
			if gap > 1 {
				t.Errorf("scrolled to the end of the load's %s table, its header is %.0f px off the top of the box", tab, gap)
			}
		}
	})

	t.Run("status and both claims", func(t *testing.T) {
		nav(site.URL + "/lessons/atomic-claim/?predict=off")
		if s := js[string](t, ctx, `tp.run(2)`); s != "done" {
			t.Fatalf("run: %s", s)
		}
		status := js[string](t, ctx, `tp.q(2, "[role=status]").textContent`)
		for _, want := range []string{"Done in", "claim=read: duplicate effects in", "claim=atomic: duplicate effects in 0 of 50", "Diagnosis for order-"} {
			if !strings.Contains(status, want) {
				t.Errorf("status %q does not say %q", status, want)
			}
		}
		if s := js[string](t, ctx, `tp.panel(2, ".exp-panel", () => tp.q(2, ".explore-btn").click())`); s != "done" {
			t.Fatalf("check every interleaving: %s", s)
		}
		head := js[string](t, ctx, `tp.q(2, ".exp-head").textContent`)
		if !strings.Contains(head, "with claim=read") || !strings.Contains(head, "with claim=atomic") {
			t.Errorf("on a block that races both claims the check says %q; it should count both", head)
		}
		if f := js[string](t, ctx, `tp.q(2, ".exp-time").textContent`); !strings.HasPrefix(f, "Both races checked in ") {
			t.Errorf("Every ordering's footer says %q", f)
		}
	})

	t.Run("keyboard only", func(t *testing.T) {
		nav(site.URL + "/lessons/claim-race/?predict=off") // a Run that runs, not a question first
		tabTo := func(what, pred string, back ...bool) {
			t.Helper()
			for range 120 {
				if js[bool](t, ctx, `(() => { const a = deepActive(); return !!a && (`+pred+`); })()`) {
					return
				}
				if len(back) > 0 {
					run(t, ctx, 5*time.Second, chromedp.KeyEvent(kb.Tab, chromedp.KeyModifiers(chromedp.ModifierShift)))
				} else {
					run(t, ctx, 5*time.Second, chromedp.KeyEvent(kb.Tab))
				}
			}
			t.Fatalf("Tab never reached %s", what)
		}
		press := func(key string) { run(t, ctx, 5*time.Second, chromedp.KeyEvent(key)) }
		// Run the first block: Tab to Run, Enter.
		tabTo("Run", `a.matches("button.run")`)
		js[bool](t, ctx, `tp.el(0).setAttribute("state", "idle"), true`)
		press(kb.Enter)
		run(t, ctx, 120*time.Second, chromedp.Poll[bool](`tp.state(0) === "done"`))
		// Change the claim: Tab to the checked radio, arrow to the next
		// one of the runtime's claims.
		tabTo("the claim", `a.matches("input[type=radio]")`)
		js[bool](t, ctx, `tp.el(0).setAttribute("state", "idle"), true`)
		press(kb.ArrowRight)
		run(t, ctx, 60*time.Second, chromedp.Poll[bool](`tp.state(0) === "done"`))
		next := toggleClaims()[1]
		if v := js[string](t, ctx, `tp.q(0, "textarea.script").value`); !strings.Contains(v, "race "+next) {
			t.Errorf("the arrow key did not change the claim to %s: %q", next, v)
		}
		// Step through: the tabs by arrow keys, then the step area.
		tabTo("the tabs", `a.matches("[role=tab]")`)
		press(kb.ArrowRight)
		run(t, ctx, 60*time.Second, chromedp.Poll[bool](`!tp.q(0, ".stepper").hidden`))
		tabTo("the step area", `a.matches(".step-area")`)
		press(kb.ArrowRight)
		press(kb.ArrowRight)
		if c := js[string](t, ctx, `tp.q(0, ".step-count").textContent`); !strings.HasPrefix(c, "Step 3 of") {
			t.Errorf("two Right arrows in the step area show %q", c)
		}
		press(kb.End)
		if c := js[string](t, ctx, `tp.q(0, ".step-count").textContent`); !strings.HasPrefix(c, "Step ") || !strings.HasSuffix(c, c[strings.LastIndex(c, " ")+1:]) {
			t.Errorf("End shows %q", c)
		}
		// Copy a link: Shift+Tab back to the tabs, Left to the output, Tab
		// to Share, Enter opens it, Tab to Copy link, Enter; whatever the
		// clipboard says, the link of the run is handed over.
		tabTo("the tabs", `a.matches("[role=tab]")`, true)
		press(kb.ArrowLeft)
		tabTo("Share", `a.matches("button.share-btn")`)
		press(kb.Enter)
		tabTo("Copy link", `a.matches("button.copy-link")`)
		press(kb.Enter)
		run(t, ctx, 10*time.Second, chromedp.Poll[bool](`tp.q(0, ".copy-link").dataset.copied !== undefined`))
		link := js[string](t, ctx, `tp.q(0, ".copy-link").dataset.copied`)
		if !strings.Contains(link, "#block-1?") || !strings.Contains(link, "race+"+next) {
			t.Errorf("Copy link by keyboard gave %q", link)
		}
		if !js[bool](t, ctx, `tp.q(0, ".copy-box").hidden || deepActive().matches(".copy-field")`) {
			t.Errorf("the copy fallback is shown but does not have the focus")
		}
	})
}
