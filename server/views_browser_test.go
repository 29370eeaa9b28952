package server

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserWideViewsFit opens every lesson with a wide view at a phone's
// width (390 px) and a desktop's (1280 px) and asserts that the part the
// lesson is about is on the screen without scrolling sideways: the key
// column of the effects table, the load chart with its p95 marker, every
// fix of the matrix, and the timeline's first duplicate; and that no page
// scrolls sideways.
func TestBrowserWideViewsFit(t *testing.T) {
	hs := httptest.NewServer(browserSite(t))
	defer hs.Close()
	for _, width := range []int{390, 1280} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			ctx, consoleErrors := browser(t, width, 900)
			block := func(prefix string) int {
				t.Helper()
				i := js[int](t, ctx, fmt.Sprintf(`[...document.querySelectorAll("twice-playground")].findIndex((el) => el.shadowRoot.querySelector("textarea.script").value.includes(%q))`, prefix))
				if i < 0 {
					t.Fatalf("no block holds %q", prefix)
				}
				return i
			}
			// inView says whether the element sel of block n is on the
			// screen sideways: within the window and within every box
			// around it that clips it.
			inView := func(n int, sel string) string {
				return js[string](t, ctx, fmt.Sprintf(`(() => {
					const el = tp.q(%d, %q);
					if (!el) return "missing";
					el.scrollIntoView({ block: "center", inline: "nearest" });
					const r = el.getBoundingClientRect();
					if (r.width === 0) return "not shown";
					if (r.left < 0 || r.right > innerWidth + 0.5) return "off the window: " + r.left + ".." + r.right + " of " + innerWidth;
					for (let p = el.parentElement || el.getRootNode().host; p; p = p.parentElement || (p.getRootNode() !== document ? p.getRootNode().host : null)) {
						const cs = getComputedStyle(p);
						if (!/auto|scroll|hidden/.test(cs.overflowX)) continue;
						const b = p.getBoundingClientRect();
						if (r.left < b.left - 0.5 || r.right > b.right + 0.5) return "clipped by " + p.className + ": " + r.left + ".." + r.right + " in " + b.left + ".." + b.right;
					}
					return "";
				})()`, n, sel))
			}
			noSideScroll := func(page string) {
				t.Helper()
				if over := js[float64](t, ctx, `document.documentElement.scrollWidth - innerWidth`); over > 0 {
					t.Errorf("%s at %d px: the page scrolls sideways by %.0f px", page, width, over)
				}
			}

			// The key column of lessons 11, 12, 13 and 15.
			for _, c := range []struct{ page, block string }{
				{"idempotency-keys", "--key run"},
				{"check-or-claim", "race read 20 --key job\neffects"},
				{"producer-publishes-twice", "--key event\nwork --job 2 --key event\neffects"},
				{"keys-that-expire", "--key-ttl 0.5"},
			} {
				navigate(t, ctx, hs.URL+"/lessons/"+c.page+"/")
				n := block(c.block)
				if why := inView(n, `table.effects thead th:nth-child(2)`); why != "" {
					t.Errorf("%s at %d px: the effects table's second column: %s", c.page, width, why)
				}
				if h := js[string](t, ctx, fmt.Sprintf(`tp.q(%d, "table.effects thead th:nth-child(2)").textContent`, n)); h != "key" {
					t.Errorf("%s at %d px: the column after the order is %q, want key", c.page, width, h)
				}
				noSideScroll(c.page)
			}

			// The load chart and its p95 marker (lessons 8 and 9).
			for _, page := range []string{"outlives-its-lease", "heartbeats"} {
				navigate(t, ctx, hs.URL+"/lessons/"+page+"/")
				n := block("load 200")
				if why := inView(n, ".load-chart img"); why != "" {
					t.Errorf("%s at %d px: the load chart: %s", page, width, why)
				}
				if !js[bool](t, ctx, fmt.Sprintf(`decodeURIComponent(tp.q(%d, ".load-chart img").getAttribute("src")).includes('class="p95"')`, n)) {
					t.Errorf("%s at %d px: the chart draws no p95 marker", page, width)
				}
				px := js[float64](t, ctx, fmt.Sprintf(`(() => { const img = tp.q(%d, ".load-chart img"); const svg = decodeURIComponent(img.getAttribute("src").split(",")[1]); return img.getBoundingClientRect().width / Number(img.getAttribute("width")) * TwicePlayground.minFontSize(svg); })()`, n))
				if px < 11 {
					t.Errorf("%s at %d px: the chart's smallest text is %.1f CSS px", page, width, px)
				}
				noSideScroll(page)
			}

			// Every fix of the matrix (lesson 16): the column headers at
			// 1280, every line of the first scenario's card on a phone.
			navigate(t, ctx, hs.URL+"/lessons/which-fix/")
			n := block("matrix")
			fixes := js[[]string](t, ctx, fmt.Sprintf(`[...tp.q(%d, "table.matrix tbody tr").querySelectorAll("td[data-fix]")].map((td) => td.dataset.fix)`, n))
			if len(fixes) < 7 {
				t.Fatalf("the matrix has %d fix cells in its first row", len(fixes))
			}
			for _, f := range fixes {
				if why := inView(n, fmt.Sprintf(`table.matrix tbody tr td[data-fix=%q]`, f)); why != "" {
					t.Errorf("which-fix at %d px: the %s cell of the first scenario: %s", width, f, why)
				}
			}
			if width < 560 {
				if cards := js[string](t, ctx, fmt.Sprintf(`getComputedStyle(tp.q(%d, "table.matrix tbody tr")).display`, n)); cards != "block" {
					t.Errorf("on a phone the matrix's rows are not cards (display %s)", cards)
				}
			}
			noSideScroll("which-fix")

			// The timeline of lesson 9's stall starts with its duplicate
			// in view.
			navigate(t, ctx, hs.URL+"/lessons/heartbeats/")
			n = block("--stall 2500")
			if s := js[string](t, ctx, fmt.Sprintf(`tp.run(%d)`, n)); s != "done" {
				t.Fatalf("the stall block ended in %q", s)
			}
			js[bool](t, ctx, fmt.Sprintf(`tp.q(%d, "#tab-timeline").click(), true`, n))
			run(t, ctx, 10*time.Second, chromedp.Poll[bool](fmt.Sprintf(`tp.q(%d, ".tl-img").complete && tp.q(%d, ".tl-img").naturalWidth > 0`, n, n)))
			why := js[string](t, ctx, fmt.Sprintf(`(() => {
				const el = tp.el(%d), tl = el.result.timeline, sc = tp.q(%d, ".tl-scroll"), inner = tp.q(%d, ".tl-inner");
				if (!(tl.first_duplicate >= 0)) return "the run has no duplicate";
				const x = tl.event_x[tl.first_duplicate] / tl.width * inner.clientWidth;
				return x >= sc.scrollLeft && x <= sc.scrollLeft + sc.clientWidth ? "" : "the duplicate at " + Math.round(x) + " px, the box shows " + sc.scrollLeft + ".." + (sc.scrollLeft + sc.clientWidth);
			})()`, n, n, n))
			if why != "" {
				t.Errorf("heartbeats at %d px: %s", width, why)
			}
			noSideScroll("heartbeats")
			if errs := consoleErrors(); len(errs) > 0 {
				t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
			}
		})
	}
}
