package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/twice-lab/twice/runtime/script/interp"
	"github.com/twice-lab/twice/runtime/script/result"
)

// toggleClaims is the claim control's list as the page builds it from the
// runtime's: every claim that is not another name for one, in its order.
func toggleClaims() []string {
	var names []string
	for _, c := range result.Choices().Claims {
		if c.Alias == c.Name {
			names = append(names, c.Name)
		}
	}
	return names
}

// fourClaims is the runtime's list of claims with lock a claim of its own
// and async-lock beside it: the four claims the page must show however
// many the runtime has today (three names, lock another name for atomic,
// or the four).
func fourClaims() []result.Choice {
	var cs []result.Choice
	have := map[string]bool{}
	for _, c := range result.Choices().Claims {
		have[c.Name] = true
	}
	for _, c := range result.Choices().Claims {
		if c.Name == "lock" && !have["async-lock"] {
			cs = append(cs, result.Choice{Name: "async-lock", Words: "check the lock row, await a remote read, then set the owner", Alias: "async-lock"})
		}
		if c.Name == "lock" {
			c.Alias = "lock"
		}
		cs = append(cs, c)
	}
	return cs
}

// withClaims serves h with the claims of twice.js's config replaced by
// claims (JSON), so that the page builds its controls from them.
type withClaims struct {
	h      http.Handler
	claims []byte
}

func (c withClaims) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	base := filepath.Base(r.URL.Path)
	if !strings.HasPrefix(base, "twice.") || !strings.HasSuffix(base, ".js") {
		c.h.ServeHTTP(w, r)
		return
	}
	r = r.Clone(r.Context())
	r.Header.Del("Accept-Encoding")
	r.Header.Del("If-None-Match")
	rec := httptest.NewRecorder()
	c.h.ServeHTTP(rec, r)
	body := rec.Body.Bytes()
	start, end := claimsList(body)
	if start < 0 {
		http.Error(w, "no claims in the config of "+r.URL.Path, http.StatusInternalServerError)
		return
	}
	out := slices.Concat(body[:start], c.claims, body[end:])
	for k, v := range rec.Header() {
		if k != "Content-Length" && k != "Etag" {
			w.Header()[k] = v
		}
	}
	w.WriteHeader(rec.Code)
	w.Write(out)
}

// claimsList finds the list of claims in the loader's config, a
// JavaScript object literal (minified: its keys unquoted): the bytes from
// the "[" after claims: to its matching "]", or -1.
func claimsList(js []byte) (start, end int) {
	m := regexp.MustCompile(`\bclaims"?:\s*\[`).FindIndex(js)
	if m == nil {
		return -1, -1
	}
	depth, quoted := 0, false
	for i := m[1] - 1; i < len(js); i++ {
		switch c := js[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '[':
			depth++
		case c == ']':
			if depth--; depth == 0 {
				return m[1] - 1, i + 1
			}
		}
	}
	return -1, -1
}

// TestBrowserClaimControl serves the page with four claims in its config
// (lock a claim of its own, async-lock beside it) and checks, at phone and
// desktop width, that the claim control lists them all in the bar without
// pushing anything past its edge, that picking one rewrites and runs the
// script, and that Compare shows the block's claim beside the atomic one
// and then any pair the reader picks out of those the runtime offers.
func TestBrowserClaimControl(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	four := fourClaims()
	claims, err := json.Marshal(four)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(withClaims{browserSite(t), claims})
	defer hs.Close()
	dir := artifactDir(t)
	var want []string
	for _, c := range four {
		want = append(want, c.Name)
	}
	offered := toggleClaims() // what the runtime itself compares
	for _, w := range []struct{ width, height int64 }{{390, 844}, {1280, 900}} {
		run(t, ctx, 10*time.Second, chromedp.EmulateViewport(w.width, w.height))
		navigate(t, ctx, fmt.Sprintf("%s/lessons/claim-race/?w%d", hs.URL, w.width))
		js[bool](t, ctx, exploreHelpers)
		at := fmt.Sprintf("at %d px", w.width)

		// The control: a radio per claim, in the config's order, each
		// inside the bar.
		if got := js[[]string](t, ctx, `Array.from(tp.el(0).shadowRoot.querySelectorAll("fieldset.claim input[type=radio]"), (r) => r.value)`); !slices.Equal(got, want) {
			t.Errorf("%s the claim control lists %v, want %v", at, got, want)
		}
		out := js[[]string](t, ctx, `(() => {
			const bar = tp.q(0, ".bar").getBoundingClientRect();
			return Array.from(tp.el(0).shadowRoot.querySelectorAll("fieldset.claim label"))
				.filter((l) => { const r = l.getBoundingClientRect(); return r.width === 0 || r.left < bar.left || r.right > bar.right + 0.5; })
				.map((l) => l.textContent.trim());
		})()`)
		if len(out) > 0 {
			t.Errorf("%s these claims are hidden or past the bar's edge: %v", at, out)
		}
		if over := js[float64](t, ctx, `document.documentElement.scrollWidth - innerWidth`); over > 0 {
			t.Errorf("%s the page scrolls sideways by %.0f px", at, over)
		}

		// Picking lock rewrites the script and runs it; lock, a claim of
		// its own in this config, stays the one checked.
		if s := js[string](t, ctx, `tp.run(0, () => tp.q(0, "input[value=lock]").click())`); s != "done" {
			t.Fatalf("%s the run with lock ended in %q", at, s)
		}
		if v := js[string](t, ctx, `tp.q(0, "textarea.script").value`); !strings.Contains(v, "race lock 20") {
			t.Errorf("%s picking lock left the script %q", at, v)
		}
		if c := js[string](t, ctx, `tp.el(0).shadowRoot.querySelector("fieldset.claim input:checked").value`); c != "lock" {
			t.Errorf("%s after the run %q is checked, want lock", at, c)
		}

		// Compare, by default: the block's claim beside the atomic one.
		js[bool](t, ctx, `const ta = tp.q(0, "textarea.script"); ta.value = "race read 20\n"; ta.dispatchEvent(new Event("input")); tp.q(0, ".seed input").value = "5"; true`)
		if s := js[string](t, ctx, `tp.panel(0, "#panel-compare", () => tp.tab(0, "compare"))`); s != "done" {
			t.Fatalf("%s compare ended in %q", at, s)
		}
		for _, menu := range []string{"select.cmp-claim:nth-of-type(1)", "select.cmp-claim:nth-of-type(2)"} {
			if got := js[[]string](t, ctx, `Array.from(tp.q(0, "`+menu+`").options, (o) => o.value)`); !slices.Equal(got, offered) {
				t.Errorf("%s Compare's menu offers %v, want the runtime's %v", at, got, offered)
			}
		}
		comparePanes(t, ctx, at, []string{"read", "atomic"})
		var pick, wantPanes []string
		if i := slices.IndexFunc(offered, func(c string) bool { return c != "read" && c != "atomic" }); i >= 0 {
			// Any pair: the second menu picks a third claim.
			pick, wantPanes = []string{"2", offered[i]}, []string{"read", offered[i]}
		} else {
			// Picking in the first menu the claim the second shows swaps them.
			pick, wantPanes = []string{"1", "atomic"}, []string{"atomic", "read"}
		}
		if s := js[string](t, ctx, fmt.Sprintf(`tp.panel(0, "#panel-compare", () => {
			const m = tp.q(0, "select.cmp-claim:nth-of-type(%s)");
			m.value = %q;
			m.dispatchEvent(new Event("change"));
		})`, pick[0], pick[1])); s != "done" {
			t.Fatalf("%s compare after a pick ended in %q", at, s)
		}
		comparePanes(t, ctx, at, wantPanes)
		// The link to this run keeps the pair, and opens Compare with it.
		link := js[string](t, ctx, `tp.q(0, "a.permalink").getAttribute("href")`)
		if !strings.Contains(link, "view=compare") || !strings.Contains(link, "pair="+strings.Join(wantPanes, "%2C")) {
			t.Errorf("%s the link to the run is %q; want Compare and the pair %v in it", at, link, wantPanes)
		}
		navigate(t, ctx, fmt.Sprintf("%s/lessons/claim-race/?again%d%s", hs.URL, w.width, link))
		js[bool](t, ctx, exploreHelpers)
		run(t, ctx, 60*time.Second, chromedp.Poll[bool](`tp.q(0, "#panel-compare").dataset.state === "done" && tp.q(0, ".panes").children.length === 2`))
		comparePanes(t, ctx, at+", from the link,", wantPanes)
		shot := run(t, ctx, 30*time.Second, chromedp.Screenshot(chromedp.CSS("twice-playground")))
		name := filepath.Join(dir, fmt.Sprintf("claims-compare-%d.png", w.width))
		if err := os.WriteFile(name, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", name)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// comparePanes checks that Compare shows one pane per claim of want, in
// that order, each the transcript of race CLAIM 20 at seed 5, and that
// its menus show the pair.
func comparePanes(t *testing.T, ctx context.Context, at string, want []string) {
	t.Helper()
	got := js[[]string](t, ctx, `Array.from(tp.q(0, ".panes").children, (p) => p.className.replace(/^pane pane-/, ""))`)
	if !slices.Equal(got, want) {
		t.Errorf("%s Compare shows %v, want %v", at, got, want)
		return
	}
	if menus := js[[]string](t, ctx, `Array.from(tp.el(0).shadowRoot.querySelectorAll("select.cmp-claim"), (m) => m.value)`); !slices.Equal(menus, want) {
		t.Errorf("%s Compare's menus show %v, want %v", at, menus, want)
	}
	for _, claim := range want {
		w := interp.Run("race "+claim+" 20\n", interp.Options{Seed: 5}).Text()
		if p := js[string](t, ctx, `tp.q(0, ".pane-`+claim+` pre").textContent`); p != w {
			t.Errorf("%s the %s pane:\n%s\nwant:\n%s", at, claim, p, w)
		}
	}
}

// TestBrowserClaimOff: a block whose race --all passes the explored
// states' limit with one claim offers that claim off, saying why, and
// picking it runs nothing; typing a script where every claim fits turns
// it back on.
func TestBrowserClaimOff(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	rt := realRuntime(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.md": "# Off\n\n```twice\nrace --all --workers 7\n```\n"})
	srv, err := NewServer(Options{LessonsDir: dir, Runtime: rt, Brotli: BrotliNever}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	navigate(t, ctx, hs.URL+"/lessons/a/")
	radio := func(c string) string { return `tp.q(0, "fieldset.claim input[value='` + c + `']")` }
	if !js[bool](t, ctx, radio("async-lock")+`.disabled && `+radio("async-lock")+`.parentElement.title.includes("states explored")`) {
		t.Fatalf("async-lock is offered for a race --all it cannot run: disabled %v, title %q", js[bool](t, ctx, radio("async-lock")+`.disabled`), js[string](t, ctx, radio("async-lock")+`.parentElement.title`))
	}
	if js[bool](t, ctx, radio("lock")+`.disabled`) {
		t.Error("lock is off, but its script runs")
	}
	shootFour(t, ctx, "claim-off", "tp.el(0)")
	// Picked anyway (a script's radio changed by hand): nothing runs, and
	// the block says why.
	js[bool](t, ctx, `(() => { const r = `+radio("async-lock")+`; r.disabled = false; r.click(); return true; })()`)
	if got := js[string](t, ctx, `tp.q(0, ".status").textContent + " | " + tp.q(0, "textarea.script").value`); !strings.Contains(got, "off for this script") || !strings.HasSuffix(got, "| race --all --workers 7\n") {
		t.Errorf("after picking the claim that is off: %q", got)
	}
	if !js[bool](t, ctx, radio("read")+`.checked`) {
		t.Error("the claim control does not keep the script's own claim")
	}
	// A script where every claim fits: typed, all are on.
	js[bool](t, ctx, `(() => { const ta = tp.q(0, "textarea.script"); ta.value = "race --all\n"; ta.dispatchEvent(new Event("input")); return true; })()`)
	run(t, ctx, 30*time.Second, chromedp.Poll[bool](`!`+radio("async-lock")+`.disabled`))
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
