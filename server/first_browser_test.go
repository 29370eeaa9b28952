package server

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/twice-lab/twice/lessons"
)

// These tests look at what a reader meets on a first visit: the first
// screen of the index and of lesson 1, the words before the first thing
// to press, the page holding still as it loads, and the presenter view.

// shootFull saves the screen (name.png) and the whole page
// (name-full.png) in the artifacts folder.
func shootFull(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	shoot(t, ctx, name)
	png := run(t, ctx, 60*time.Second, chromedp.FullScreenshot(100))
	file := filepath.Join(artifactDir(t), name+"-full.png")
	if err := os.WriteFile(file, png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// settleFrames waits until the page has done its first work: the rest of the
// element loaded (navigate waits for it), the runtime's first work over
// when a block in view started it (data-twice-settled; the index's block
// waits for the reader), then n more frames.
func settleFrames(t *testing.T, ctx context.Context, n int) {
	t.Helper()
	run(t, ctx, 60*time.Second, chromedp.Poll[bool](`document.documentElement.dataset.twiceSettled !== undefined || document.documentElement.dataset.twicePage === "index" || !document.querySelector("twice-playground") || ![...document.querySelectorAll("twice-playground")].some((el) => el.getBoundingClientRect().top < innerHeight)`))
	js[bool](t, ctx, fmt.Sprintf(`new Promise((resolve) => { let n = %d; const f = () => (--n <= 0 ? resolve(true) : requestAnimationFrame(f)); requestAnimationFrame(f); })`, n))
}

// firstScreen is what a reader sees on the first screen: the race's
// picture, the first action's button, and where each sits.
type firstScreen struct {
	Picture, Drawn       bool
	PictureBottom        float64
	Button               string
	ButtonBottom, Height float64
	Sentence             string
}

const firstScreenJS = `(() => {
  const fig = document.querySelector("figure.race-picture");
  const svg = fig && [...fig.querySelectorAll("svg")].find((s) => s.checkVisibility());
  const el = document.querySelector("twice-playground");
  const run = el && el.shadowRoot && el.shadowRoot.querySelector("button.run");
  const r = run ? run.getBoundingClientRect() : { bottom: -1 };
  return {
    Picture: !!svg,
    Drawn: !!svg && svg.querySelectorAll(".rp-receipt").length === 2 && svg.querySelectorAll(".rp-lane").length >= 2,
    PictureBottom: svg ? svg.getBoundingClientRect().bottom : -1,
    Button: run ? run.textContent : "",
    ButtonBottom: r.bottom,
    Height: innerHeight,
    Sentence: fig && fig.querySelector("figcaption") ? fig.querySelector("figcaption").textContent.trim() : "",
  };
})()`

// TestBrowserFirstScreen opens the index and lesson 1 at 1280x800 and
// 390x844: the picture of a real race (two workers, two receipts) and
// the button that makes it happen are both above the fold, the picture
// is in the page as served (it plays before any WebAssembly), it stands
// still for a reader who asks for less motion, and pressing the button
// runs the race live. The index says where to start and how long each
// lesson takes; the teacher's switches are in a closed menu.
func TestBrowserFirstScreen(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 800)
	srv := browserSite(t)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	for _, p := range []string{"index.html", "lessons/one-job/index.html"} {
		f := srv.Site().Files[p]
		if f == nil || !strings.Contains(string(f.Body), `<figure class="race-picture"`) {
			t.Errorf("%s as served has no picture of the race", p)
		}
	}
	for _, size := range [][2]int64{{1280, 800}, {390, 844}} {
		run(t, ctx, 10*time.Second, chromedp.EmulateViewport(size[0], size[1]))
		for _, path := range []string{"/", "/lessons/one-job/"} {
			navigate(t, ctx, hs.URL+path)
			fs := js[firstScreen](t, ctx, firstScreenJS)
			where := fmt.Sprintf("%s at %dx%d", path, size[0], size[1])
			if !fs.Picture || !fs.Drawn {
				t.Errorf("%s: no picture of the race with two lanes and two receipts", where)
			} else if fs.PictureBottom > fs.Height {
				t.Errorf("%s: the picture ends at %.0f px, below the fold at %.0f", where, fs.PictureBottom, fs.Height)
			}
			if fs.Button != "Make it happen" {
				t.Errorf("%s: the first button says %q, want Make it happen", where, fs.Button)
			} else if fs.ButtonBottom > fs.Height || fs.ButtonBottom < 0 {
				t.Errorf("%s: Make it happen ends at %.0f px, outside the first screen (%.0f)", where, fs.ButtonBottom, fs.Height)
			}
			if fs.Sentence == "" || len(fs.Sentence) > 160 {
				t.Errorf("%s: the picture's sentence is %q, want one sentence", where, fs.Sentence)
			}
			if path != "/" && js[bool](t, ctx, `!document.querySelector("details.teacher-menu") || document.querySelector("details.teacher-menu").open || document.querySelector("#twice-predict-all").checkVisibility()`) {
				t.Errorf("%s: the teacher's switches are not in a closed For teachers menu", where)
			}
		}
	}
	// The index: where to start, and each lesson's time, from its words
	// and its blocks.
	navigate(t, ctx, hs.URL+"/")
	if href := js[string](t, ctx, `(document.querySelector("a.start") || {}).href || ""`); !strings.HasSuffix(href, "/lessons/one-job/") {
		t.Errorf("the index's start link goes to %q, want lesson 1", href)
	}
	ls, err := lessons.Load(lessons.FS)
	if err != nil {
		t.Fatal(err)
	}
	times := js[[]string](t, ctx, `[...document.querySelectorAll("ol.lessons li")].map((li) => (li.querySelector(".time") || {}).textContent || "")`)
	if len(times) != len(ls) {
		t.Fatalf("the index lists %d lessons, want %d", len(times), len(ls))
	}
	for i, l := range ls {
		if want := fmt.Sprintf("about %d min", lessons.Minutes(l)); !strings.Contains(times[i], want) {
			t.Errorf("lesson %d on the index: %q, want %q", i+1, times[i], want)
		}
	}
	// Less motion: a still picture.
	setMedia(t, ctx, "prefers-reduced-motion", "reduce")
	navigate(t, ctx, hs.URL+"/")
	if moving := js[int](t, ctx, `[...document.querySelectorAll("figure.race-picture svg *")].filter((e) => getComputedStyle(e).animationName !== "none").length`); moving > 0 {
		t.Errorf("with prefers-reduced-motion, %d parts of the picture still move", moving)
	}
	setMedia(t, ctx, "prefers-reduced-motion", "no-preference")
	if moving := js[int](t, ctx, `[...document.querySelectorAll("figure.race-picture svg *")].filter((e) => getComputedStyle(e).animationName !== "none").length`); moving == 0 {
		t.Errorf("the picture does not move")
	}
	// Make it happen runs the race live: two receipts for one order.
	if s := js[string](t, ctx, `tp.run(0)`); s != "done" {
		t.Fatalf("Make it happen: state %q", s)
	}
	if got := js[string](t, ctx, `tp.transcript(0)`); !strings.Contains(got, "two effects in 1 of 1 races") {
		t.Errorf("Make it happen ran, and printed:\n%s", got)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// wordsBefore counts the words a reader meets before the page's first
// action (the first block's Run button): the text shown, in page order,
// before the first block; text off screen to the side (the skip link)
// or folded away is not shown. It returns the count and the button's top.
const wordsBefore = `(() => {
  const first = document.querySelector("twice-playground");
  if (!first) return [-1, -1];
  let n = 0;
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let t = walk.nextNode(); t; t = walk.nextNode()) {
    if (first.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING) break;
    if (first.contains(t)) break;
    const el = t.parentElement;
    if (!el || el.closest("script, style") || !el.checkVisibility()) continue;
    const r = el.getBoundingClientRect();
    if (r.right <= 0 || r.width === 0) continue;
    n += t.textContent.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
  }
  const run = first.shadowRoot && first.shadowRoot.querySelector("button.run");
  return [n, run ? run.getBoundingClientRect().top + scrollY : -1];
})()`

// TestBrowserWordsBeforeAction counts the words before the first Run on
// every lesson page and the case page, at 1280x800: lessons 1, 17 and 21
// and the case must ask for fewer than 150; the others are reported.
func TestBrowserWordsBeforeAction(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 800)
	srv := browserSite(t)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	ls, err := lessons.Load(lessons.FS)
	if err != nil {
		t.Fatal(err)
	}
	held := map[string]bool{"/lessons/one-job/": true, "/lessons/lock-that-awaits/": true, "/lessons/outbox/": true, "/cases/two-workers-completed/": true}
	var pages []string
	for _, l := range ls {
		pages = append(pages, "/lessons/"+l.Slug+"/")
	}
	pages = append(pages, "/cases/two-workers-completed/")
	for _, p := range pages {
		navigate(t, ctx, hs.URL+p)
		got := js[[]float64](t, ctx, wordsBefore)
		t.Logf("%-36s %4.0f words before the first action, its top at %5.0f px", p, got[0], got[1])
		if held[p] && (got[0] < 0 || got[0] >= 150) {
			t.Errorf("%s: %.0f words before the first action, want under 150", p, got[0])
		}
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// watchShifts records every layout shift of a page from its start:
// window.twiceShift is the cumulative score (shifts right after input
// left out, as the metric does) and its sources.
const watchShifts = `window.twiceShift = { cls: 0, sources: [] };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    if (e.hadRecentInput) continue;
    window.twiceShift.cls += e.value;
    for (const s of e.sources || []) {
      const n = s.node;
      const name = !n ? "?" : n.nodeType === 1 ? n.tagName.toLowerCase() + (n.id ? "#" + n.id : "") + (n.className && typeof n.className === "string" ? "." + n.className.trim().split(/\s+/).join(".") : "") : "#text";
      window.twiceShift.sources.push(name + " " + Math.round(s.previousRect.y) + "->" + Math.round(s.currentRect.y) + " (" + e.value.toFixed(4) + ")");
    }
  }
}).observe({ type: "layout-shift", buffered: true });`

// TestBrowserNoLayoutShift loads the index and every lesson page at 1280x800 and
// 390x844 and adds up its layout shifts until the page has done its
// first work (the rest of the element loaded, the runtime ready when a
// block in view started it) and 30 frames more: under 0.01 on each.
func TestBrowserNoLayoutShift(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 800)
	srv := browserSite(t)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	ls, err := lessons.Load(lessons.FS)
	if err != nil {
		t.Fatal(err)
	}
	run(t, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: watchShifts})
		return err
	}))
	type shift struct {
		CLS     float64
		Sources []string
	}
	worst := 0.0
	for _, size := range [][2]int64{{1280, 800}, {390, 844}} {
		run(t, ctx, 10*time.Second, chromedp.EmulateViewport(size[0], size[1]))
		pages := []string{"/"}
		for _, l := range ls {
			pages = append(pages, "/lessons/"+l.Slug+"/")
		}
		for _, p := range pages {
			navigate(t, ctx, hs.URL+p)
			settleFrames(t, ctx, 30)
			s := js[shift](t, ctx, `({CLS: window.twiceShift.cls, Sources: window.twiceShift.sources})`)
			worst = max(worst, s.CLS)
			if s.CLS >= 0.01 {
				t.Errorf("%s at %dx%d shifts by %.4f as it loads: %s", p, size[0], size[1], s.CLS, strings.Join(s.Sources, "; "))
			}
		}
	}
	t.Logf("the worst layout shift of the index and %d lesson pages at two sizes: %.4f", len(ls), worst)
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestBrowserPresenterFits opens lesson 1 in the presenter view at
// 1280x720: no share or embed controls show, the slide's heading is on
// screen as its title, and the first block's output fits above the bar;
// on the Timeline tab, so does the picture.
func TestBrowserPresenterFits(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 720)
	hs := httptest.NewServer(browserSite(t))
	defer hs.Close()
	run(t, ctx, 10*time.Second, chromedp.EmulateViewport(1280, 720))
	navigate(t, ctx, hs.URL+"/lessons/one-job/?present")
	js[bool](t, ctx, stopHelpers)
	time.Sleep(300 * time.Millisecond) // the block's styles and views settle
	type fit struct {
		Chrome         []string
		Title          string
		TitleTop       float64
		OutBottom, Bar float64
	}
	const look = `(() => {
  const el = document.querySelector("twice-playground:not([hidden])");
  const root = el.shadowRoot;
  const chrome = [...root.querySelectorAll(".share, details.embed, .permalink, .copy-link")].filter((e) => e.checkVisibility()).map((e) => e.className);
  const title = document.querySelector(".present-title");
  const tab = root.querySelector(".panel:not([hidden]) .tl-img") || root.querySelector(".transcript");
  return {
    Chrome: chrome,
    Title: title && title.checkVisibility() ? title.textContent : "",
    TitleTop: title ? title.getBoundingClientRect().top : -1,
    OutBottom: tab ? tab.getBoundingClientRect().bottom : 1e9,
    Bar: document.querySelector(".present-bar").getBoundingClientRect().top,
  };
})()`
	check := func(what string) {
		t.Helper()
		f := js[fit](t, ctx, look)
		if len(f.Chrome) > 0 {
			t.Errorf("%s: the presenter view shows share or embed controls: %v", what, f.Chrome)
		}
		if f.Title == "" || f.TitleTop < 0 {
			t.Errorf("%s: no slide title on screen (%q at %.0f px)", what, f.Title, f.TitleTop)
		}
		if f.OutBottom > f.Bar {
			t.Errorf("%s: it ends at %.0f px, under the presenter's bar at %.0f px", what, f.OutBottom, f.Bar)
		}
	}
	check("the output")
	shoot(t, ctx, "present-fit-output-1280x720")
	js[bool](t, ctx, `tp.q(0, "#tab-timeline").click(), true`)
	run(t, ctx, 120*time.Second, chromedp.Poll[bool](`tp.state(0) === "done" && tp.q(0, ".tl-img").complete && tp.q(0, ".tl-img").naturalWidth > 0`))
	time.Sleep(300 * time.Millisecond)
	check("the timeline")
	shoot(t, ctx, "present-fit-timeline-1280x720")
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestBrowserFirstScreenShots keeps pictures of the pages a first visit
// opens: the index, lesson 1, lesson 17 and the case, above the fold and
// whole, at 1280x800 and 390x844, light and dark; and the presenter view
// at 1280x720.
func TestBrowserFirstScreenShots(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 800)
	hs := httptest.NewServer(browserSite(t))
	defer hs.Close()
	pages := []struct{ name, path string }{
		{"index", "/"},
		{"lesson-1", "/lessons/one-job/"},
		{"lesson-17", "/lessons/lock-that-awaits/"},
		{"case", "/cases/two-workers-completed/"},
	}
	// The picture's last frame, still, rather than wherever its loop is.
	for _, scheme := range []string{"light", "dark"} {
		run(t, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}, {Name: "prefers-reduced-motion", Value: "reduce"}},
			})
			return err
		}))
		for _, size := range [][2]int64{{1280, 800}, {390, 844}} {
			run(t, ctx, 10*time.Second, chromedp.EmulateViewport(size[0], size[1]))
			for _, p := range pages {
				navigate(t, ctx, hs.URL+p.path)
				settleFrames(t, ctx, 10)
				if over := js[float64](t, ctx, `document.documentElement.scrollWidth - innerWidth`); over > 0 {
					t.Errorf("%s at %d px scrolls sideways by %.0f px", p.name, size[0], over)
				}
				shootFull(t, ctx, fmt.Sprintf("first-%s-%dx%d-%s", p.name, size[0], size[1], scheme))
				if p.name == "lesson-1" {
					js[bool](t, ctx, `document.querySelector("details.teacher-menu").open = true, true`)
					shoot(t, ctx, fmt.Sprintf("first-teacher-menu-%dx%d-%s", size[0], size[1], scheme))
				}
			}
		}
		run(t, ctx, 10*time.Second, chromedp.EmulateViewport(1280, 720))
		navigate(t, ctx, hs.URL+"/lessons/one-job/?present")
		settleFrames(t, ctx, 10)
		shoot(t, ctx, "first-present-1280x720-"+scheme)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
