package server

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// shootFour saves the page's screenshots as name-WIDTH-SCHEME.png, at
// 1280 and 390 px wide, light and dark, the element sel scrolled into
// view; the viewport and scheme are put back after.
func shootFour(t *testing.T, ctx context.Context, name, sel string) {
	t.Helper()
	for _, scheme := range []string{"light", "dark"} {
		run(t, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
			})
			return err
		}))
		for _, w := range []int64{1280, 390} {
			run(t, ctx, 10*time.Second, chromedp.EmulateViewport(w, 900))
			js[bool](t, ctx, `(() => { const e = `+sel+`; if (e) e.scrollIntoView({block: "center"}); return true; })()`)
			time.Sleep(200 * time.Millisecond) // a frame for the layout
			shoot(t, ctx, fmt.Sprintf("%s-%d-%s", name, w, scheme))
		}
	}
	run(t, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{})
		return err
	}))
	run(t, ctx, 10*time.Second, chromedp.EmulateViewport(1280, 900))
}

// draftLesson is a lesson of two blocks, for the tests of the reader's
// edits kept across reloads.
const draftLesson = "# Drafts\n\nThe first block.\n\n```twice seed=1\nrace read 3\n```\n\nThe second.\n\n```twice seed=2\nrace read 5\n```\n"

// typeScript types script into block n's box as a reader does: the
// value, then the input event.
func typeScript(t *testing.T, ctx context.Context, n int, script string) {
	t.Helper()
	js[bool](t, ctx, `(() => { const ta = tp.q(`+strconv.Itoa(n)+`, "textarea.script"); ta.focus(); ta.value = `+strconv.Quote(script)+`; ta.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`)
}

// boxOf is block n's script box and its note about the reader's edit.
func boxOf(t *testing.T, ctx context.Context, n int) (script, note string) {
	t.Helper()
	got := js[[]string](t, ctx, `[tp.q(`+strconv.Itoa(n)+`, "textarea.script").value, (() => { const d = tp.q(`+strconv.Itoa(n)+`, ".draft"); return d && !d.hidden ? d.textContent : ""; })()]`)
	return got[0], got[1]
}

// waitReload waits until the tab of ctx has loaded a new document (the
// old one was marked) and set its blocks up.
func waitReload(t *testing.T, ctx context.Context, within time.Duration) {
	t.Helper()
	start := time.Now()
	for {
		if time.Since(start) > within {
			t.Fatalf("the tab did not reload within %v", within)
		}
		done, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.readyState === "complete" && window.marked === undefined && window.TwicePlayground !== undefined && window.TwicePlayground.full === true`))
		if done {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	js[bool](t, ctx, helpers)
}

// front brings the tab of ctx to the front: a tab behind another gets
// no animation frames, and a page is set up in full when it is idle.
func front(t *testing.T, ctx context.Context) {
	t.Helper()
	run(t, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.BringToFront, cdp.Empty{})
		return err
	}))
}

// A teacher's save reloads every open tab of the lesson (twice serve):
// each reader's edited script comes back in its block, in both tabs, and
// so after a plain reload; Reset puts an edit aside, offered back after a
// reload, and only "Drop my edit" drops it.
func TestBrowserDraftsSurviveReloads(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	rt := realRuntime(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.md": draftLesson})
	srv, err := NewServer(Options{LessonsDir: dir, Runtime: rt, Brotli: BrotliNever, Live: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	url := hs.URL + "/lessons/a/"

	tabB, cancelB := chromedp.NewContext(ctx)
	defer cancelB()
	// The tab opens on a Run of its own context: one under a timeout would
	// close it when the timeout's context ends.
	if err := chromedp.Do(tabB); err != nil {
		t.Fatal(err)
	}
	navigate(t, tabB, url)
	typeScript(t, tabB, 1, "race read 6 --workers 3\n")
	front(t, ctx)
	navigate(t, ctx, url)
	typeScript(t, ctx, 0, "race read 4\n")

	// The teacher appends a line of prose: both tabs reload by themselves.
	js[bool](t, ctx, `window.marked = true`)
	js[bool](t, tabB, `window.marked = true`)
	f, err := os.OpenFile(filepath.Join(dir, "a.md"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\nOne more line.\n")
	f.Close()
	waitReload(t, ctx, 15*time.Second)
	front(t, tabB)
	waitReload(t, tabB, 15*time.Second)
	for _, tab := range []struct {
		name string
		ctx  context.Context
	}{{"A", ctx}, {"B", tabB}} {
		if s, note := boxOf(t, tab.ctx, 0); s != "race read 4\n" || !strings.Contains(note, "Your edit of this script is back") {
			t.Errorf("tab %s, block 1 after the teacher's save: %q, note %q", tab.name, s, note)
		}
		if s, _ := boxOf(t, tab.ctx, 1); s != "race read 6 --workers 3\n" {
			t.Errorf("tab %s, block 2 after the teacher's save: %q", tab.name, s)
		}
	}

	// A plain reload keeps it too.
	front(t, ctx)
	navigate(t, ctx, url)
	if s, _ := boxOf(t, ctx, 0); s != "race read 4\n" {
		t.Errorf("block 1 after a reload: %q", s)
	}
	shootFour(t, ctx, "drafts-back", "tp.el(0)")

	// Reset puts the edit aside; after a reload it is offered, and put back.
	js[bool](t, ctx, `tp.q(0, "button.reset").click(), true`)
	if s, note := boxOf(t, ctx, 0); s != "race read 3\n" || !strings.Contains(note, "put aside") {
		t.Errorf("after Reset: %q, note %q", s, note)
	}
	navigate(t, ctx, url)
	if s, note := boxOf(t, ctx, 0); s != "race read 3\n" || !strings.Contains(note, "put aside") {
		t.Errorf("after Reset and a reload: %q, note %q", s, note)
	}
	shootFour(t, ctx, "drafts-aside", "tp.el(0)")
	js[bool](t, ctx, `tp.q(0, "button.draft-back").click(), true`)
	if s, _ := boxOf(t, ctx, 0); s != "race read 4\n" {
		t.Errorf("after Put back my edit: %q", s)
	}
	// Dropped on the reader's word only.
	js[bool](t, ctx, `tp.q(0, "button.reset").click(), tp.q(0, "button.draft-drop").click(), true`)
	navigate(t, ctx, url)
	if s, note := boxOf(t, ctx, 0); s != "race read 3\n" || note != "" {
		t.Errorf("after Drop my edit and a reload: %q, note %q", s, note)
	}
	if s, _ := boxOf(t, ctx, 1); s != "race read 6 --workers 3\n" {
		t.Errorf("block 2 lost its edit when block 1's was dropped: %q", s)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
