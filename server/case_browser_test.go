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

	"github.com/twice-lab/twice/cases"
	"github.com/twice-lab/twice/lessons"
	"github.com/twice-lab/twice/runtime/script/interp"
)

// caseHelpers drive a case page.
const caseHelpers = `
window.cp = {
  lines: () => Array.from(document.querySelectorAll(".case-check-results li")).map((li) => li.textContent),
  stages: () => Array.from(document.querySelectorAll(".case-progress li.done")).map((li) => li.dataset.stage).join(","),
  setFix: (s) => { const f = document.getElementById("case-fix"); f.value = s; f.dispatchEvent(new Event("input")); return true; },
  checked: () => new Promise((resolve, reject) => {
    const start = performance.now();
    const wait = () => {
      const ol = document.querySelector(".case-check-results");
      if (ol.getAttribute("aria-busy") === "false" && ol.children.length > 0) { resolve(cp.lines()); return; }
      if (performance.now() - start > 120000) { reject(new Error("no check lines after 120 s: " + document.querySelector(".case-checks-status").textContent)); return; }
      setTimeout(wait, 50);
    };
    setTimeout(wait, 0);
  }),
  runChecks: () => { document.querySelector(".case-run-checks").click(); return cp.checked(); },
};
true`

// TestBrowserCase works a case end to end at 390 and 1280 px, light and
// dark: the evidence desk is there before any script, each experiment
// runs (in the light views; the dark ones run the first), a verdict is recorded, a hint opens and is counted, a fix that
// falls short fails the checks with the lines twice case check prints, a
// fix that holds passes them, Submit gives a link, and the link replays
// the fix and its passing checks; the progress is kept across loads.
func TestBrowserCase(t *testing.T) {
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
	hs := httptest.NewServer(srv)
	defer hs.Close()
	cs, err := lessons.LoadCases(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	workCase(t, hs.URL, cs[0], "service --dedupe check\n", "service --dedupe claim\n")
}

// TestBrowserBuiltInCase works the built-in case on the built-in site: the
// dedupe alone fails the ownership checks, the lock taken in one step with
// the dedupe passes them all.
func TestBrowserBuiltInCase(t *testing.T) {
	hs := httptest.NewServer(browserSite(t))
	defer hs.Close()
	cs, err := lessons.LoadCases(lessons.FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Slug == "two-workers-completed" {
			workCase(t, hs.URL, c, "service --dedupe claim\nuse --key event\n", "service --dedupe claim\nuse --claim lock --key event\n")
			return
		}
	}
	t.Fatal("no built-in case two-workers-completed")
}

// workCase works case c served at base, with a fix that fails and one
// that passes, at every width and scheme.
func workCase(t *testing.T, base string, c cases.Case, failing, passing string) {
	ctx, consoleErrors := browser(t, 1280, 900)
	url := base + "/cases/" + c.Slug + "/"
	lines := func(fix string) []string {
		f, err := cases.ParseFix(fix)
		if err != nil {
			t.Fatalf("fix %q: %v", fix, err)
		}
		var out []string
		for _, r := range c.RunChecks(f, cases.Options{}) {
			out = append(out, r.String())
		}
		return out
	}
	wantFail, wantPass := lines(failing), lines(passing)
	if !strings.Contains(strings.Join(wantFail, "\n"), "fail ") || strings.Contains(strings.Join(wantPass, "\n"), "fail ") {
		t.Fatalf("the fixes do not fail and pass:\n%s\n%s", wantFail, wantPass)
	}
	opts, _ := lessons.ParseBlockOptions(c.Evidence.Info)
	ev := cases.EvidenceOf(interp.Run(c.Evidence.Script, interp.Options{Seed: opts.Seed}))
	firstLog := ev.Log[0].Text
	dirShots := artifactDir(t)
	for _, view := range []struct {
		width  int64
		scheme string
	}{{390, "light"}, {1280, "dark"}, {1280, "light"}, {390, "dark"}} {
		setView(t, ctx, view.width, view.scheme)
		navigate(t, ctx, url)
		js[bool](t, ctx, `localStorage.clear(), true`)
		navigate(t, ctx, url)
		js[bool](t, ctx, caseHelpers)
		where := fmt.Sprintf("%d %s", view.width, view.scheme)
		if got := js[string](t, ctx, `document.querySelector(".desk-log pre").textContent`); !strings.Contains(got, firstLog) {
			t.Errorf("%s: the worker log shows\n%s\nwithout the run's line %q", where, got, firstLog)
		}
		if s := js[string](t, ctx, `cp.stages()`); s != "" {
			t.Errorf("%s: a fresh page has stages %q done", where, s)
		}
		// Each experiment.
		n := js[int](t, ctx, `document.querySelectorAll("section.hypothesis twice-playground").length`)
		if n != len(c.Hypotheses) {
			t.Fatalf("%s: %d experiments, want %d", where, n, len(c.Hypotheses))
		}
		if view.scheme == "dark" {
			// The experiments run in the light views, at both widths;
			// the dark ones record the reproduction by one Run.
			n = 1
		}
		for i := range n {
			// Wait as long as tp.run does, not js's 30 s: on a machine
			// shared by several browsers a run may take longer.
			if s := run(t, ctx, 130*time.Second, chromedp.Evaluate[string](fmt.Sprintf(`tp.run(%d)`, i), chromedp.EvalAwaitPromise)); s != "done" {
				t.Errorf("%s: experiment %d ended in %q", where, i+1, s)
			}
		}
		if s := js[string](t, ctx, `cp.stages()`); s != "reproduce" {
			t.Errorf("%s: after the experiments, stages %q done, want reproduce", where, s)
		}
		// A verdict on the first hypothesis, resting on a line of its output.
		rec := js[string](t, ctx, `(() => { const s = document.querySelector("section.hypothesis"); s.querySelector("input[value='ruled out']").click(); const sel = s.querySelector("select"); sel.selectedIndex = 1; sel.dispatchEvent(new Event("change")); return s.querySelector(".verdict-record").textContent; })()`)
		if !strings.HasPrefix(rec, "You recorded: ruled out, on the line “") {
			t.Errorf("%s: the verdict says %q", where, rec)
		}
		// A hint, counted.
		js[bool](t, ctx, `document.querySelector("details.hint summary").click(), true`)
		run(t, ctx, 5*time.Second, chromedp.Poll[bool](`document.querySelector(".case-hints-count").textContent.startsWith("1 of ")`))
		// A fix that falls short, then one that holds.
		js[bool](t, ctx, fmt.Sprintf(`cp.setFix(%s)`, jsQuote(failing)))
		got := js[[]string](t, ctx, `cp.runChecks()`)
		if strings.Join(got, "\n") != strings.Join(wantFail, "\n") {
			t.Errorf("%s: the failing fix's checks say\n%s\nwant\n%s", where, strings.Join(got, "\n"), strings.Join(wantFail, "\n"))
		}
		if js[bool](t, ctx, `!document.querySelector(".case-submit-button").disabled`) {
			t.Errorf("%s: Submit is enabled after a check failed", where)
		}
		js[bool](t, ctx, fmt.Sprintf(`cp.setFix(%s)`, jsQuote(passing)))
		got = js[[]string](t, ctx, `cp.runChecks()`)
		if strings.Join(got, "\n") != strings.Join(wantPass, "\n") {
			t.Errorf("%s: the passing fix's checks say\n%s\nwant\n%s", where, strings.Join(got, "\n"), strings.Join(wantPass, "\n"))
		}
		js[bool](t, ctx, `document.querySelector(".case-submit-button").click(), true`)
		link := js[string](t, ctx, `(document.querySelector(".case-submit-link a") || {}).href || ""`)
		if !strings.Contains(link, "?fix=") {
			t.Fatalf("%s: Submit gave no link: %q", where, js[string](t, ctx, `document.querySelector(".case-submit-link").textContent`))
		}
		if s := js[string](t, ctx, `cp.stages()`); s != "reproduce,edit,pass,submit" {
			t.Errorf("%s: after Submit, stages %q done", where, s)
		}
		if over := js[float64](t, ctx, `document.documentElement.scrollWidth - innerWidth`); over > 0 {
			wide := js[string](t, ctx, `Array.from(document.querySelectorAll("main *")).filter((e) => e.getBoundingClientRect().right > innerWidth + 1).slice(-3).map((e) => e.tagName + "." + e.className).join(", ")`)
			t.Errorf("%s: the case page scrolls sideways by %.0f px (past the edge: %s)", where, over, wide)
		}
		shot := run(t, ctx, 30*time.Second, chromedp.FullScreenshot(100))
		name := filepath.Join(dirShots, fmt.Sprintf("case-%s-%d-%s.png", c.Slug, view.width, view.scheme))
		if err := os.WriteFile(name, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", name)
		// The link replays the fix and its checks.
		navigate(t, ctx, link)
		js[bool](t, ctx, caseHelpers)
		got = js[[]string](t, ctx, `cp.checked()`)
		if strings.Join(got, "\n") != strings.Join(wantPass, "\n") {
			t.Errorf("%s: the replay's checks say\n%s\nwant\n%s", where, strings.Join(got, "\n"), strings.Join(wantPass, "\n"))
		}
		if fix := js[string](t, ctx, `document.getElementById("case-fix").value`); fix != passing {
			t.Errorf("%s: the replay's fix is %q, want %q", where, fix, passing)
		}
		// The progress is kept.
		navigate(t, ctx, url)
		js[bool](t, ctx, caseHelpers)
		run(t, ctx, 10*time.Second, chromedp.Poll[bool](`document.documentElement.classList.contains("case-live")`))
		if s := js[string](t, ctx, `cp.stages()`); s != "reproduce,edit,pass,submit" {
			t.Errorf("%s: after a reload, stages %q done", where, s)
		}
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// heavyCase is a case with a check that passes the small budget a page
// gives a run nobody asked for, and one that does not.
const heavyCase = `---
kind: case
---
# A heavy check

## Evidence

` + "```twice\nadd o && work --job 1\n```" + `

## Fix

` + "```twice\nuse --claim read\n```" + `

## Checks

` + "```twice name=many duplicates=0\nrace 2000 --workers 8\n```" + `

` + "```twice name=one sent=1\nadd o && work --job 1\n```\n"

// TestBrowserCaseReplayBudget: a submitted fix's link runs its checks as
// the page loads on the small budget of a run nobody asked for, so a
// check that needs more waits, said so, for Run checks, which runs it in
// full; a fix that is not one is refused on the page with the line and
// the rule twice case check gives.
func TestBrowserCaseReplayBudget(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"heavy.md": heavyCase})
	srv, err := NewServer(Options{LessonsDir: dir, Runtime: realRuntime(t), Brotli: BrotliNever}, nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	cs, err := lessons.LoadCases(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	fix, err := cases.ParseFix("use --claim atomic\n")
	if err != nil {
		t.Fatal(err)
	}
	var full, wantLoad []string
	for _, v := range cs[0].RunChecks(fix, cases.Options{}) {
		full = append(full, v.String())
	}
	for _, v := range cs[0].RunChecks(fix, cases.Options{Budget: interp.AutoBudget}) {
		wantLoad = append(wantLoad, v.String())
	}
	if !strings.HasPrefix(wantLoad[0], "wait many: ") || !strings.HasPrefix(full[0], "pass many: ") || !strings.HasPrefix(wantLoad[1], "pass one: ") {
		t.Fatalf("the heavy case's checks are not heavy on the small budget only:\n%s\n%s", wantLoad, full)
	}
	ctx, consoleErrors := browser(t, 1280, 900)
	// base64url of "use --claim atomic\n", as Submit writes it.
	navigate(t, ctx, hs.URL+"/cases/heavy/?fix=dXNlIC0tY2xhaW0gYXRvbWljCg")
	js[bool](t, ctx, caseHelpers)
	if got := js[[]string](t, ctx, `cp.checked()`); strings.Join(got, "\n") != strings.Join(wantLoad, "\n") {
		t.Errorf("as the link's page loads, the checks say\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantLoad, "\n"))
	}
	if s := js[string](t, ctx, `document.querySelector(".case-checks-status").textContent`); !strings.Contains(s, "press Run checks") {
		t.Errorf("the status says %q", s)
	}
	if got := js[[]string](t, ctx, `cp.runChecks()`); strings.Join(got, "\n") != strings.Join(full, "\n") {
		t.Errorf("Run checks says\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(full, "\n"))
	}
	// A fix that adds a job is refused, as twice case check refuses it.
	_, ferr := cases.ParseFix("use --claim atomic\nadd o\n")
	js[bool](t, ctx, `cp.setFix("use --claim atomic\nadd o\n")`)
	js[bool](t, ctx, `document.querySelector(".case-run-checks").click(), true`)
	run(t, ctx, 30*time.Second, chromedp.Poll[bool](`document.querySelector(".case-checks-status").textContent.startsWith("The fix is refused")`))
	if s := js[string](t, ctx, `document.querySelector(".case-checks-status").textContent`); ferr == nil || s != "The fix is refused: "+ferr.Error() {
		t.Errorf("a refused fix: the status says %q, want %q", s, "The fix is refused: "+fmt.Sprint(ferr))
	}
	if n := js[int](t, ctx, `document.querySelectorAll(".case-check-results li").length`); n != 0 {
		t.Errorf("a refused fix shows %d check lines", n)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// jsQuote is s as a JavaScript string literal.
func jsQuote(s string) string {
	return fmt.Sprintf("%q", s)
}
