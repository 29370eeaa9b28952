package main

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/twice-lab/twice/internal/browsertest"
	"github.com/twice-lab/twice/lessons"
)

// A reader who starts twice serve and opens the URL it prints, in a
// browser, gets the index with every built-in lesson listed within 2 s,
// while the lessons still render: the warm start that once answered
// "Rendering the lessons" for up to 19 s.
func TestBrowserServeIndexWithin2s(t *testing.T) {
	path := browsertest.Require(t)
	ls, err := lessons.Load(lessons.FS)
	if err != nil {
		t.Fatal(err)
	}
	// The browser is up before serve starts: its own start is not counted.
	ctx, _ := browsertest.Start(t, path, browsertest.Options(path, t.TempDir(), 1280, 900))

	s := startServe(t, "--addr", "127.0.0.1:0", "--wasm", fakeWasm(t))
	url, printed := s.url, s.printed
	defer s.stop(t)

	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	resp, err := chromedp.Run(tctx, chromedp.NavigateResponse(url))
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := chromedp.Run(tctx, chromedp.Poll[bool](`document.readyState === "complete"`))
	if err != nil || !loaded {
		t.Fatalf("the index did not finish loading: %v", err)
	}
	took := time.Since(printed)
	links, err := chromedp.Run(tctx, chromedp.Evaluate[int](`document.querySelectorAll("ol.lessons li a").length`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the index answered %d and loaded %v after the URL was printed, with %d lessons linked", resp.Status, took.Round(time.Millisecond), links)
	if resp.Status != 200 || links != len(ls) {
		t.Errorf("the URL, opened as it is printed, answered %d with %d lessons linked, want 200 and %d", resp.Status, links, len(ls))
	}
	if took > 2*time.Second {
		t.Errorf("the index loaded %v after the URL was printed, want under 2 s", took.Round(time.Millisecond))
	}
}
