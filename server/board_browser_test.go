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

	"github.com/chromedp/chromedp"
)

// boardHelpers are the page-side helpers of the board's tests.
const boardHelpers = `
Object.assign(window.tp, {
  // cols are the board's columns: each worker's name, its program's
  // lines as shown, the index of the line marked current, and its state.
  cols: (n) => [...tp.q(n, ".seat-workers").querySelectorAll(".board-col")].map((c) => {
    const lines = [...c.querySelectorAll(".board-program > li")];
    return {
      worker: c.dataset.worker,
      state: c.dataset.state,
      lines: lines.map((li) => li.querySelector("code").textContent),
      at: lines.findIndex((li) => li.getAttribute("aria-current") === "step"),
      ran: lines.map((li, i) => li.classList.contains("ran") ? i : -1).filter((i) => i >= 0),
    };
  }),
  // settle resolves once the scheduler view of block n is done.
  settle: (n) => new Promise((resolve) => {
    const check = () => (tp.q(n, ".seat-panel").dataset.state === "done" ? resolve("done") : setTimeout(check, 20));
    check();
  }),
});
true`

// boardShots keeps a screenshot of block n at the page's width and
// scheme, under name.
func boardShot(t *testing.T, ctx context.Context, n int, name string) {
	t.Helper()
	shot := run(t, ctx, 30*time.Second, chromedp.Screenshot(chromedp.CSS(fmt.Sprintf("twice-playground:nth-of-type(%d)", n+1))))
	path := filepath.Join(artifactDir(t), name+".png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// TestBrowserBoardScreenshots keeps pictures of the board at a desktop's
// and a phone's width, light and dark: lesson 4's board after it played
// its ordering, and the lock lesson's board half-way through a game.
func TestBrowserBoardScreenshots(t *testing.T) {
	if testing.Short() {
		t.Skip("screenshots in -short mode")
	}
	hs := httptest.NewServer(browserSite(t))
	defer hs.Close()
	for _, w := range []struct {
		name          string
		width, height int
	}{{"desktop", 1280, 900}, {"phone", 390, 844}} {
		ctx, consoleErrors := browser(t, w.width, w.height)
		for _, scheme := range []string{"light", "dark"} {
			setMedia(t, ctx, "prefers-color-scheme", scheme)
			navigate(t, ctx, hs.URL+"/lessons/claim-race/?"+scheme)
			js[bool](t, ctx, exploreHelpers+";"+boardHelpers)
			n := js[int](t, ctx, `[...document.querySelectorAll("twice-playground")].findIndex((el) => el.getAttribute("view") === "scheduler")`)
			if n < 0 {
				t.Fatal("lesson 4 has no block that opens on the board")
			}
			js[bool](t, ctx, fmt.Sprintf(`tp.el(%d).scrollIntoView(), true`, n))
			run(t, ctx, 90*time.Second, chromedp.Poll[bool](fmt.Sprintf(`tp.q(%d, ".seat-steps").children.length === 6 && tp.q(%d, ".seat-panel").dataset.state === "done"`, n, n)))
			noSideScroll(t, ctx, w.width)
			boardShot(t, ctx, n, fmt.Sprintf("board-claim-race-%s-%s", w.name, scheme))

			navigate(t, ctx, hs.URL+"/lessons/lock-that-awaits/?"+scheme)
			js[bool](t, ctx, exploreHelpers+";"+boardHelpers)
			m := seatBlock(t, ctx, "race async-lock 1\n")
			if s := js[string](t, ctx, fmt.Sprintf(`tp.panel(%d, ".seat-panel", () => tp.tab(%d, "scheduler"))`, m, m)); s != "done" {
				t.Fatalf("the board ended in %q", s)
			}
			js[bool](t, ctx, fmt.Sprintf(`tp.q(%d, ".seat-play").focus(), true`, m))
			for _, k := range []string{"1", "2", "1"} {
				seatKey(t, ctx, m, k)
			}
			js[bool](t, ctx, fmt.Sprintf(`tp.el(%d).scrollIntoView(), true`, m))
			noSideScroll(t, ctx, w.width)
			boardShot(t, ctx, m, fmt.Sprintf("board-async-lock-%s-%s", w.name, scheme))
		}
		setMedia(t, ctx, "prefers-color-scheme", "")
		if errs := consoleErrors(); len(errs) > 0 {
			t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
		}
	}
}
