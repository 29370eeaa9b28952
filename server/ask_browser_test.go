package server

import (
	"context"
	"fmt"
	"math"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/twice-lab/twice/lessons"
)

// askHelpers are the page-side helpers of the ask-then-show tests.
const askHelpers = `
tp.shown = (el) => !!el && el.getClientRects().length > 0;
tp.reveal = (n) => document.querySelector('.twice-reveal[data-for="' + tp.el(n).id + '"]');
// box is an element's box in the page, as [left, top, right, bottom].
tp.box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
// slide sets a range input to v as a drag would.
tp.slide = (el, v) => { el.value = String(v); el.dispatchEvent(new Event("input", { bubbles: true })); return true; };
true`

// lessonNamed returns the built-in lesson whose file starts with prefix.
func lessonNamed(t *testing.T, prefix string) lessons.Lesson {
	t.Helper()
	ls, err := lessons.Load(lessons.FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		if strings.HasPrefix(l.File, prefix) {
			return l
		}
	}
	t.Fatalf("no lesson %s", prefix)
	return lessons.Lesson{}
}

// TestBrowserAsk reads lesson 4 as a new reader: its race block hides its
// output and the prose that gives the answer until Run, and asks with a
// slider from 0 to the 20 races; a guess of 5 and Predict and run show
// the output, the prose, and the guess against the run's count on one
// axis, their labels apart. With predicting turned off, the block and the
// prose show at once, across a reload.
func TestBrowserAsk(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	hs := httptest.NewServer(browserSite(t))
	defer hs.Close()
	l := lessonNamed(t, "04-")
	page := hs.URL + "/lessons/" + l.Slug + "/"
	navigate(t, ctx, page)
	js[bool](t, ctx, askHelpers)
	const answer = "Most races went wrong"
	if !js[bool](t, ctx, `!!tp.reveal(0) && tp.reveal(0).textContent.includes("`+answer+`")`) {
		t.Fatal("lesson 4's answer in words is not marked as block 1's")
	}
	asking := func() bool {
		return js[bool](t, ctx, `!tp.shown(tp.q(0, ".out")) && !tp.shown(tp.q(0, ".tabs")) && !tp.shown(tp.reveal(0)) && !document.body.innerText.includes("`+answer+`")`)
	}
	if !asking() {
		t.Fatal("before Run, lesson 4's block shows its output or the prose that gives the answer")
	}
	if got := js[[]string](t, ctx, `[tp.q(0, ".predict-range").min, tp.q(0, ".predict-range").max, tp.q(0, ".predict-q").textContent]`); got[0] != "0" || got[1] != "20" || !strings.Contains(got[2], "20 races") {
		t.Errorf("the question and its slider: %q, want a slider from 0 to 20 about the 20 races", got)
	}
	// A guess of 5, and run.
	js[bool](t, ctx, `tp.slide(tp.q(0, ".predict-range"), 5)`)
	js[bool](t, ctx, `tp.q(0, ".predict-run").click(), true`)
	run(t, ctx, 120*time.Second, chromedp.Poll[bool](`tp.state(0) === "done"`))
	if !js[bool](t, ctx, `tp.shown(tp.q(0, ".out")) && tp.shown(tp.reveal(0)) && document.body.innerText.includes("`+answer+`")`) {
		t.Fatal("after the run, the output or the prose that explains it is still hidden")
	}
	dups := js[float64](t, ctx, `JSON.parse(tp.q(0, ".tally").dataset.duplicates)`)
	g := js[[]float64](t, ctx, `(() => {
  const axis = tp.q(0, ".guess-axis").getBoundingClientRect(), mark = tp.q(0, ".guess-mark").getBoundingClientRect(), got = tp.q(0, ".guess-got").getBoundingClientRect();
  return [(mark.left + mark.width / 2 - axis.left) / axis.width, (got.right - axis.left) / axis.width, got.left - axis.left];
})()`)
	if math.Abs(g[0]-5.0/20) > 0.02 {
		t.Errorf("the guess mark is at %.3f of the axis, want 5 of 20 (0.25)", g[0])
	}
	if math.Abs(g[1]-dups/20) > 0.02 || g[2] > 2 {
		t.Errorf("the run's bar ends at %.3f of the axis (starts %.1f px in), want %v of 20 (%.3f) from its start", g[1], g[2], dups, dups/20)
	}
	if !js[bool](t, ctx, `tp.shown(tp.q(0, ".guess-you")) && tp.shown(tp.q(0, ".guess-run"))`) {
		t.Error("the guess or the run's count is not labelled")
	}
	if b := js[[]float64](t, ctx, `[...tp.box(tp.q(0, ".guess-you")), ...tp.box(tp.q(0, ".guess-run"))]`); b[0] < b[6] && b[4] < b[2] && b[1] < b[7] && b[5] < b[3] {
		t.Errorf("the labels of the guess and of the run overlap: %v", b)
	}
	if s := js[string](t, ctx, `tp.q(0, ".prediction-text").textContent`); !strings.HasPrefix(s, fmt.Sprintf("You predicted 5; the run gave %v of 20", dups)) {
		t.Errorf("the guess in words: %q", s)
	}

	// Predict off: everything shows at once, kept across a reload.
	navigate(t, ctx, page)
	js[bool](t, ctx, askHelpers)
	if !asking() {
		t.Error("after a reload the block shows its answer: it asks again")
	}
	if !js[bool](t, ctx, `document.querySelector("#twice-predict-all").checked`) {
		t.Error("the predict switch is unchecked on a lesson whose blocks ask")
	}
	js[bool](t, ctx, `document.querySelector("#twice-predict-all").click(), true`)
	shows := func(when string) {
		t.Helper()
		if !js[bool](t, ctx, `tp.shown(tp.q(0, ".out")) && tp.shown(tp.q(0, ".tabs")) && tp.shown(tp.reveal(0)) && !tp.shown(tp.q(0, "form.predict")) && document.body.innerText.includes("`+answer+`")`) {
			t.Errorf("%s: with predicting off, the output or the answer's prose is hidden, or the block asks", when)
		}
	}
	shows("switched off")
	navigate(t, ctx, page)
	js[bool](t, ctx, askHelpers)
	shows("after a reload")
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// chartChecks is a page-side function: the chart of block n's Result
// drawn inline (as the runtime wrote it) and measured: the pairs of text
// labels whose boxes intersect, the lease ticks as [lease µs, x], and the
// p95 line as [p95 µs, x].
const chartChecks = `tp.chart = (n) => {
  const res = tp.el(n).result;
  const holder = document.createElement("div");
  // The chart's own style element is not applied here (the page's
  // policy allows no inline style); its sizes are attributes.
  holder.innerHTML = res.chart.svg.replace(/<style>[\s\S]*?<\/style>/, "");
  document.body.append(holder);
  const svg = holder.querySelector("svg");
  const texts = [...svg.querySelectorAll("text")].filter((e) => e.textContent.trim() !== "");
  const boxes = texts.map((e) => e.getBBox());
  const overlaps = [];
  for (let i = 0; i < texts.length; i++) for (let j = 0; j < i; j++) {
    const a = boxes[i], b = boxes[j];
    if (a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height) overlaps.push(texts[j].textContent + " / " + texts[i].textContent);
  }
  const ticks = [...svg.querySelectorAll("text.tick")].map((e) => [Number(e.dataset.leaseUs), e.getBBox().x + e.getBBox().width / 2]);
  const line = svg.querySelector("line.p95");
  const p95 = line ? [Number(line.dataset.p95Us), Number(line.getAttribute("x1"))] : [];
  const inside = texts.every((e) => { const b = e.getBBox(); return b.x >= 0 && b.x + b.width <= svg.viewBox.baseVal.width; });
  holder.remove();
  return { overlaps, ticks, p95, inside };
};
true`

type chartShape struct {
	Overlaps []string
	Ticks    [][2]float64
	P95      []float64
	Inside   bool
}

// checkChart checks block n's load chart: no label overlaps another, all
// inside the chart, and the p95 stands on the same continuous lease axis
// as the bars: its x is where the line through the lease ticks puts it.
func checkChart(t *testing.T, ctx context.Context, n int, what string) {
	t.Helper()
	c := js[chartShape](t, ctx, fmt.Sprintf(`tp.chart(%d)`, n))
	if len(c.Overlaps) > 0 {
		t.Errorf("%s: chart labels overlap: %q", what, c.Overlaps)
	}
	if !c.Inside {
		t.Errorf("%s: a chart label runs past the chart's edge", what)
	}
	if len(c.Ticks) < 2 || len(c.P95) != 2 {
		t.Errorf("%s: the chart has %d lease ticks and p95 %v: no lease axis with the p95 on it", what, len(c.Ticks), c.P95)
		return
	}
	a, b := c.Ticks[0], c.Ticks[len(c.Ticks)-1]
	slope := (b[1] - a[1]) / (b[0] - a[0])
	for _, tk := range c.Ticks {
		if want := a[1] + (tk[0]-a[0])*slope; math.Abs(tk[1]-want) > 1.5 {
			t.Errorf("%s: the tick of lease %v µs is at x=%.1f, off the axis's line (%.1f)", what, tk[0], tk[1], want)
		}
	}
	if want := a[1] + (c.P95[0]-a[0])*slope; math.Abs(c.P95[1]-want) > 1.5 {
		t.Errorf("%s: the p95 (%v µs) is drawn at x=%.1f; on the lease axis it is at %.1f", what, c.P95[0], c.P95[1], want)
	}
}

// TestBrowserSliders drags lesson 8's sweep: its sliders (p95 of
// processing, workers) start at the script's numbers; dragging p95 to 6 s
// rewrites the script in the editor and runs it, and the chart is
// redrawn for the new distribution. Every load chart of lessons 8 and 9,
// and the one redrawn, has no label over another and the p95 on the
// lease axis.
func TestBrowserSliders(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	hs := httptest.NewServer(browserSite(t))
	defer hs.Close()
	for _, prefix := range []string{"08-", "09-"} {
		l := lessonNamed(t, prefix)
		navigate(t, ctx, hs.URL+"/lessons/"+l.Slug+"/")
		js[bool](t, ctx, askHelpers+";"+chartChecks)
		loads := js[[]int](t, ctx, `[...document.querySelectorAll("twice-playground")].map((el, i) => el.result && el.result.chart ? i : -1).filter((i) => i >= 0)`)
		if len(loads) == 0 {
			t.Fatalf("lesson %s has no load chart", l.Slug)
		}
		for _, n := range loads {
			checkChart(t, ctx, n, fmt.Sprintf("%s block %d", l.Slug, n+1))
		}
	}

	l := lessonNamed(t, "08-")
	navigate(t, ctx, hs.URL+"/lessons/"+l.Slug+"/")
	js[bool](t, ctx, askHelpers+";"+chartChecks)
	n := js[int](t, ctx, `[...document.querySelectorAll("twice-playground")].findIndex((el) => (el.getAttribute("sliders") || "").includes("p95"))`)
	if n < 0 {
		t.Fatal("lesson 8 has no block with a p95 slider")
	}
	p95 := fmt.Sprintf(`tp.q(%d, ".slider-p95")`, n)
	if got := js[[]string](t, ctx, fmt.Sprintf(`[%s.value, tp.q(%d, ".slider-workers").value, String(tp.shown(%s))]`, p95, n, p95)); got[0] != "3000" || got[1] != "2" || got[2] != "true" {
		t.Fatalf("the sliders start at p95 %s, workers %s (shown: %s), want the script's 3000 and 2", got[0], got[1], got[2])
	}
	before := js[string](t, ctx, fmt.Sprintf(`tp.q(%d, ".load-chart img").getAttribute("src")`, n))
	js[bool](t, ctx, fmt.Sprintf(`tp.slide(%s, 6000)`, p95))
	if s := js[string](t, ctx, fmt.Sprintf(`tp.q(%d, "textarea").value`, n)); !strings.Contains(s, "lognormal:p50=800,p95=6000 ") {
		t.Errorf("after dragging p95 to 6 s, the script says:\n%s", s)
	}
	run(t, ctx, 120*time.Second, chromedp.Poll[bool](fmt.Sprintf(`tp.state(%d) === "done" && tp.el(%d).result.loads[0].processing.includes("p95=6000")`, n, n)))
	if after := js[string](t, ctx, fmt.Sprintf(`tp.q(%d, ".load-chart img").getAttribute("src")`, n)); after == before {
		t.Error("the chart was not redrawn after the drag")
	}
	if got := js[string](t, ctx, fmt.Sprintf(`tp.q(%d, ".slider-p95 + .slider-value").textContent`, n)); got != "6 s" {
		t.Errorf("the p95 slider says %q, want 6 s", got)
	}
	checkChart(t, ctx, n, "lesson 8's sweep at p95 6 s")
	// Workers too.
	js[bool](t, ctx, fmt.Sprintf(`tp.slide(tp.q(%d, ".slider-workers"), 4)`, n))
	run(t, ctx, 120*time.Second, chromedp.Poll[bool](fmt.Sprintf(`tp.state(%d) === "done" && tp.el(%d).result.loads[0].workers === 4`, n, n)))
	if s := js[string](t, ctx, fmt.Sprintf(`tp.q(%d, "textarea").value`, n)); !strings.Contains(s, "--workers 4") || !strings.Contains(s, "p95=6000") {
		t.Errorf("after dragging workers to 4, the script says:\n%s", s)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestBrowserAskScreenshots takes lessons 4 and 8 before and after Run
// (the block asking, then the guess against the result and the answer's
// prose), and lesson 8's sweep with its sliders, at 1280 and 390 px,
// light and dark, into the artifacts folder; a page that scrolls
// sideways fails it.
func TestBrowserAskScreenshots(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	hs := httptest.NewServer(browserSite(t))
	defer hs.Close()
	l4, l8 := lessonNamed(t, "04-"), lessonNamed(t, "08-")
	sideways := func(name string) {
		t.Helper()
		if over := js[float64](t, ctx, `document.documentElement.scrollWidth - innerWidth`); over > 0 {
			t.Errorf("%s scrolls sideways by %.0f px", name, over)
		}
		shoot(t, ctx, name)
	}
	for _, scheme := range []string{"light", "dark"} {
		for _, w := range []int64{1280, 390} {
			setView(t, ctx, w, scheme)
			for _, c := range []struct {
				name  string
				l     lessons.Lesson
				guess string // a page-side statement that gives the guess
			}{
				{"lesson4", l4, `tp.slide(tp.q(0, ".predict-range"), 5)`},
				{"lesson8", l8, `tp.q(0, ".predict-choice").click()`},
			} {
				navigate(t, ctx, hs.URL+"/lessons/"+c.l.Slug+"/")
				js[bool](t, ctx, `localStorage.clear(), true`)
				navigate(t, ctx, hs.URL+"/lessons/"+c.l.Slug+"/")
				js[bool](t, ctx, askHelpers)
				js[bool](t, ctx, `tp.el(0).scrollIntoView(), true`)
				sideways(fmt.Sprintf("ask-%s-before-run-%d-%s", c.name, w, scheme))
				js[bool](t, ctx, c.guess+`; tp.q(0, ".predict-run").click(), true`)
				run(t, ctx, 120*time.Second, chromedp.Poll[bool](`tp.state(0) === "done"`))
				js[bool](t, ctx, `tp.el(0).scrollIntoView(), true`)
				sideways(fmt.Sprintf("ask-%s-after-run-%d-%s", c.name, w, scheme))
			}
			// Lesson 8's sweep, its p95 dragged to 6 s.
			n := js[int](t, ctx, `[...document.querySelectorAll("twice-playground")].findIndex((el) => (el.getAttribute("sliders") || "").includes("p95"))`)
			js[bool](t, ctx, fmt.Sprintf(`tp.slide(tp.q(%d, ".slider-p95"), 6000)`, n))
			run(t, ctx, 120*time.Second, chromedp.Poll[bool](fmt.Sprintf(`tp.state(%d) === "done" && tp.el(%d).result.loads[0].processing.includes("p95=6000")`, n, n)))
			js[bool](t, ctx, fmt.Sprintf(`tp.el(%d).scrollIntoView(), true`, n))
			sideways(fmt.Sprintf("sliders-lesson8-%d-%s", w, scheme))
			js[bool](t, ctx, fmt.Sprintf(`tp.q(%d, ".load-chart").scrollIntoView(), true`, n))
			sideways(fmt.Sprintf("sliders-lesson8-chart-%d-%s", w, scheme))
		}
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
