package server

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// TestBrowserTimelineOnOpen: a Run with the Output view shown gets its
// result without the timeline's SVG, and opening the Timeline tab draws
// the picture of that same run from the runtime, without running the
// script again; once another block's run has replaced the one the
// runtime kept, opening that block's tab runs it again, with its timeline,
// and shows the same run.
func TestBrowserTimelineOnOpen(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	hs := httptest.NewServer(browserSite(t))
	defer hs.Close()
	navigate(t, ctx, hs.URL+"/lessons/claim-race/")
	js[bool](t, ctx, exploreHelpers)
	if n := js[int](t, ctx, `document.querySelectorAll("twice-playground").length`); n < 2 {
		t.Fatalf("the race lesson has %d blocks, want at least 2", n)
	}
	// sent lists the messages the page sends to the runtime's worker.
	js[bool](t, ctx, `(tp.sent = (n) => {
  const rt = tp.el(n).rt, log = [];
  const post = rt.worker.postMessage.bind(rt.worker);
  rt.worker.postMessage = (m) => { log.push(m.type + (m.timeline ? "+timeline" : "")); post(m); };
  return log;
}), true`)

	if s := js[string](t, ctx, `tp.run(0)`); s != "done" {
		t.Fatalf("block 1's run ended in %q", s)
	}
	if js[bool](t, ctx, `!!tp.el(0).result.timeline`) {
		t.Error("a Run with the Output view shown carried the timeline's SVG; it should be drawn when the tab opens")
	}
	transcript := js[string](t, ctx, `tp.transcript(0)`)
	js[bool](t, ctx, `(tp.log = tp.sent(0)), true`)
	js[bool](t, ctx, `tp.tab(0, "timeline")`)
	if sent := js[[]string](t, ctx, `tp.log`); strings.Join(sent, ",") != "timeline" {
		t.Errorf("opening the Timeline tab sent %q to the runtime, want one timeline message and no run", sent)
	}
	if !js[bool](t, ctx, `tp.el(0).result.timeline.svg.startsWith("<svg")`) {
		t.Error("after the tab opened, the result shown has no timeline")
	}
	if n := js[int](t, ctx, `tp.dups(0)`); n < 1 {
		t.Errorf("the drawn timeline of a read race has %d duplicates marked, want at least 1", n)
	}
	if got := js[string](t, ctx, `tp.transcript(0)`); got != transcript {
		t.Errorf("drawing the timeline changed the output:\n%s\nwas:\n%s", got, transcript)
	}

	// Block 1 runs again on the Output view, then block 2 runs: the
	// runtime keeps only the last run, so block 1's tab has to run it
	// again, with the timeline.
	js[bool](t, ctx, `tp.tab(0, "output")`)
	if s := js[string](t, ctx, `tp.run(0)`); s != "done" {
		t.Fatalf("block 1's second run ended in %q", s)
	}
	if s := js[string](t, ctx, `tp.run(1)`); s != "done" {
		t.Fatalf("block 2's run ended in %q", s)
	}
	js[bool](t, ctx, `(tp.log = tp.sent(0)), true`)
	js[bool](t, ctx, `tp.tab(0, "timeline")`)
	if sent := js[[]string](t, ctx, `tp.log`); strings.Join(sent, ",") != "timeline,run+timeline" {
		t.Errorf("opening block 1's Timeline tab after block 2 ran sent %q, want the timeline asked for, then the run made again with it", sent)
	}
	if !js[bool](t, ctx, `tp.el(0).result.timeline.svg.startsWith("<svg")`) {
		t.Error("after the run made again, block 1 shows no timeline")
	}
	if got := js[string](t, ctx, `tp.transcript(0)`); got != transcript {
		t.Errorf("the run made again for the timeline shows another output:\n%s\nwas:\n%s", got, transcript)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
