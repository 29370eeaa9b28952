package server

import (
	"context"
	"encoding/base64"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// caseSite serves the example case and returns its page's URL.
func caseSite(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "docs", "example-case", "receipt-sent-twice.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"receipt-sent-twice.md": string(src)})
	srv, err := NewServer(Options{LessonsDir: dir, Runtime: realRuntime(t), Brotli: BrotliNever}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs.URL + "/cases/receipt-sent-twice/"
}

// openCase opens the case page in the tab of ctx, with its helpers.
func openCase(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	navigate(t, ctx, url)
	run(t, ctx, 30e9, chromedp.Poll[bool](`document.documentElement.classList.contains("case-live")`))
	js[bool](t, ctx, caseHelpers)
}

// caseStored is the case's progress as this browser stores it.
const caseStored = `JSON.parse(localStorage.getItem("twice:case:receipt-sent-twice") || "{}")`

// Two tabs of a case page: tab B, opened first, edits the fix after tab A
// opened a hint and recorded a verdict; all three are kept, and each tab
// shows what the other did, live and after a reload.
func TestBrowserCaseTwoTabs(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	url := caseSite(t)
	tabB, cancelB := chromedp.NewContext(ctx)
	defer cancelB()
	if err := chromedp.Do(tabB); err != nil {
		t.Fatal(err)
	}
	openCase(t, tabB, url)
	front(t, ctx)
	openCase(t, ctx, url)
	js[bool](t, ctx, `document.querySelector("details.hint summary").click(), true`)
	run(t, ctx, 5e9, chromedp.Poll[bool](`document.querySelector(".case-hints-count").textContent.startsWith("1 of ")`))
	js[bool](t, ctx, `document.querySelector("section.hypothesis input[value='ruled out']").click(), true`)

	front(t, tabB)
	js[bool](t, tabB, `cp.setFix("service --dedupe claim\n")`)
	if got := js[string](t, tabB, `(() => { const s = `+caseStored+`; return (s.hints || []).length + " hints, verdict " + ((s.verdicts || {})[0] || (s.verdicts || {})["1"] || {}).verdict + ", fix " + JSON.stringify(s.fix); })()`); got != `1 hints, verdict ruled out, fix "service --dedupe claim\n"` {
		t.Errorf("stored after both tabs' changes: %s", got)
	}
	// Tab B shows tab A's hint and verdict without a reload.
	if got := js[string](t, tabB, `document.querySelector(".case-hints-count").textContent + " | " + document.querySelector("section.hypothesis .verdict-record").textContent`); !strings.HasPrefix(got, "1 of ") || !strings.Contains(got, "You recorded: ruled out") {
		t.Errorf("tab B shows: %s", got)
	}
	// Tab A, reloaded, shows all three.
	front(t, ctx)
	openCase(t, ctx, url)
	if got := js[string](t, ctx, `document.querySelector(".case-hints-count").textContent + " | " + document.querySelector("section.hypothesis .verdict-record").textContent + " | " + document.getElementById("case-fix").value`); !strings.HasPrefix(got, "1 of ") || !strings.Contains(got, "You recorded: ruled out") || !strings.HasSuffix(got, "service --dedupe claim\n") {
		t.Errorf("tab A after a reload shows: %q", got)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// A submitted fix's link shows the link's fix as the link's: typing in it
// keeps the reader's own saved fix and stages, and it replaces theirs
// only when they say so, asked first.
func TestBrowserCaseLinkKeepsOwnFix(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	url := caseSite(t)
	openCase(t, ctx, url)
	mine := "service --dedupe claim\nuse --claim lock\n"
	js[bool](t, ctx, `localStorage.setItem("twice:case:receipt-sent-twice", JSON.stringify({stages: {edit: true, pass: true}, hints: [], verdicts: {}, fix: `+jsQuote(mine)+`})), true`)
	theirs := "service --dedupe check\n"
	openCase(t, ctx, url+"?fix="+base64.RawURLEncoding.EncodeToString([]byte(theirs)))
	if got := js[string](t, ctx, `document.getElementById("case-fix").value`); got != theirs {
		t.Fatalf("the link's page shows the fix %q", got)
	}
	js[bool](t, ctx, `cp.setFix(`+jsQuote(theirs+"#")+`)`)
	kept := func(where, want string, pass bool) {
		t.Helper()
		got := js[string](t, ctx, `(() => { const s = `+caseStored+`; return JSON.stringify(s.fix) + " pass=" + !!s.stages.pass; })()`)
		if w := jsQuote(want) + " pass=" + map[bool]string{true: "true", false: "false"}[pass]; got != w {
			t.Errorf("%s: stored %s, want %s", where, got, w)
		}
	}
	kept("after typing in the link's fix", mine, true)
	shootFour(t, ctx, "case-link-fix", `document.querySelector(".case-replay")`)
	js[bool](t, ctx, `document.querySelector(".case-adopt").click(), true`)
	if !js[bool](t, ctx, `!document.querySelector(".case-adopt-ask").hidden`) {
		t.Fatal("Make it my fix did not ask before replacing the reader's own")
	}
	shootFour(t, ctx, "case-link-fix-ask", `document.querySelector(".case-replay")`)
	js[bool](t, ctx, `document.querySelector(".case-adopt-no").click(), true`)
	kept("after Keep mine", mine, true)
	js[bool](t, ctx, `document.querySelector(".case-adopt").click(), document.querySelector(".case-adopt-yes").click(), true`)
	kept("after Replace my fix", theirs+"#", false)
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
