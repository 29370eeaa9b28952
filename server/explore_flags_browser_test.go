package server

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Every ordering lists the steps of an exploration with the worker flags
// as the runtime names them: the runtime in the page runs race --all with
// a heartbeat and a fence, and with the ledger, and render.js draws the
// Every ordering panel from the JSON it returns.
func TestBrowserExploreFlags(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	srv := browserSite(t)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	navigate(t, ctx, hs.URL+"/lessons/every-interleaving/")
	js[bool](t, ctx, exploreHelpers)
	// Keep the explorations of the last result the page parsed.
	js[bool](t, ctx, `(() => {
		const parse = JSON.parse;
		JSON.parse = function (...a) {
			const v = parse.apply(this, a);
			if (v && Array.isArray(v.explorations) && v.explorations.length) window.lastExplorations = v.explorations;
			return v;
		};
		return true;
	})()`)
	src := "race read --all --heartbeat 300 --fence\nrace read --all --effect ledger --key event\n"
	if s := js[string](t, ctx, fmt.Sprintf(`tp.run(0, () => { tp.q(0, "textarea").value = %q; tp.q(0, "button.run").click(); })`, src)); s != "done" {
		t.Fatalf("run: %s: %s", s, js[string](t, ctx, `tp.transcript(0)`))
	}
	if n := js[int](t, ctx, `(window.flagged = window.lastExplorations).length`); n != 2 {
		t.Fatalf("the run returned %d explorations, want 2", n)
	}
	// The tab checks the page's own race first; the flags' explorations
	// are drawn over it once that is done.
	if s := js[string](t, ctx, `tp.panel(0, "#panel-interleavings", () => tp.tab(0, "interleavings"))`); s != "done" {
		t.Fatalf("Every ordering: %s", s)
	}
	js[bool](t, ctx, `(TwicePlayground.renderExplorations(tp.el(0).explore.ui, window.flagged, 1), true)`)
	head := js[string](t, ctx, `tp.q(0, ".exp-head").textContent`)
	for _, want := range []string{
		"72 of 174 interleavings of 2 workers give two effects with claim=read, a heartbeat (one lease renewal each), a fencing token and a fenced ack.",
		"0 of 24 interleavings of 2 workers give two effects with claim=read, the effect a ledger row in one transaction.",
	} {
		if !strings.Contains(head, want) {
			t.Errorf("Every ordering says %q; want %q in it", head, want)
		}
	}
	if titles := js[[]string](t, ctx, `Array.from(tp.q(0, "#panel-interleavings").querySelectorAll(".exp-claim-title")).map((p) => p.textContent)`); strings.Join(titles, "|") != "claim=read, heartbeat=300ms, fence|claim=read, effect=ledger" {
		t.Errorf("the explorations are titled %q", titles)
	}
	// Two races with one claim: the footer speaks of the races.
	if f := js[string](t, ctx, `tp.q(0, ".exp-time").textContent`); !strings.HasPrefix(f, "Both races checked in 1.0 ms") {
		t.Errorf("Every ordering's footer says %q", f)
	}
	steps := js[[]string](t, ctx, `Array.from(tp.q(0, "ol.shortest").children).map((li) => li.textContent)`)
	for i, want := range map[int]string{
		3: "W1 SELECT job 1: attempts=1, the fencing token",
		4: "W1 UPDATE job 1 SET lease WHERE run W1: 1 row changed, the lease is renewed",
		9: "W2 POST receipt (fencing token 2): the service records effect 2",
	} {
		if i >= len(steps) || steps[i] != want {
			t.Errorf("step %d of %q; want %q", i+1, steps, want)
		}
	}
	if len(steps) != 10 {
		t.Errorf("%d steps in the shortest ordering, want 10: %q", len(steps), steps)
	}
	if p := js[string](t, ctx, `tp.q(0, ".proof") ? tp.q(0, ".proof").textContent : ""`); !strings.Contains(p, "Every ordering was checked, none duplicates") {
		t.Errorf("the ledger's exploration shows no proof: %q", p)
	}
	if !testing.Short() {
		shot := run(t, ctx, 30*time.Second, chromedp.Screenshot(chromedp.CSS("twice-playground")))
		name := filepath.Join(artifactDir(t), "explore-flags-desktop.png")
		if err := os.WriteFile(name, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", name)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
