package server

import (
	"fmt"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/twice-lab/twice/runtime/event"
	"github.com/twice-lab/twice/runtime/script/interp"
)

// TestBrowserMatrix runs a matrix block in the live widget and reads the
// HTML table it draws: a caption, a column header per fix and a row header
// per scenario (scope col and row), and in every cell the count and
// verdict of the native run of the same cell. Clicking a cell runs that
// cell's script, whose transcript must be the native one.
func TestBrowserMatrix(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	hs := httptest.NewServer(browserSite(t))
	defer hs.Close()
	navigate(t, ctx, hs.URL+"/lessons/claim-race/")

	const seed = 5
	want := interp.Run("matrix\n", interp.Options{Seed: seed})
	m := want.Matrices[0]
	// Every cell runs at twenty seeds: on a busy machine the matrix takes
	// longer than js's 30 s, so it gets the page helper's own 120 s.
	s := run(t, ctx, 150*time.Second, chromedp.Evaluate[string](fmt.Sprintf(`tp.run(0, () => { tp.q(0, "textarea").value = "matrix\n"; tp.q(0, ".seed input").value = "%d"; tp.q(0, "button.run").click(); })`, seed), chromedp.EvalAwaitPromise))
	if s != "done" {
		t.Fatalf("matrix run ended in state %q: %s", s, js[string](t, ctx, `tp.q(0, ".error").textContent`))
	}
	t.Logf("the matrix in the browser: %s", js[string](t, ctx, `tp.q(0, ".status").textContent`))
	if got := js[string](t, ctx, `tp.transcript(0)`); got != want.Text() {
		t.Errorf("transcript differs from native:\n%s\nwant:\n%s", got, want.Text())
	}
	// The text copy is folded, not shown a second time beside the table.
	if open := js[bool](t, ctx, `(() => { const d = tp.q(0, "details.text-copy"); return !d || d.hidden || d.open || !d.contains(tp.q(0, "pre.transcript")); })()`); open {
		t.Error("the matrix's text copy is not folded in its own closed details")
	}
	if c := js[string](t, ctx, `tp.q(0, "table.matrix caption").textContent`); !strings.Contains(c, fmt.Sprintf("Which fix closes which duplicate, at seeds %d-%d", seed, seed+m.Seeds-1)) {
		t.Errorf("caption %q", c)
	}
	heads := js[[]string](t, ctx, `Array.from(tp.q(0, "table.matrix thead tr").cells).map((c) => c.getAttribute("scope") + ":" + c.textContent)`)
	wantHeads := []string{"col:scenario", "col:events"}
	for _, f := range m.Fixes {
		wantHeads = append(wantHeads, "col:"+f.ID)
	}
	if strings.Join(heads, "|") != strings.Join(wantHeads, "|") {
		t.Errorf("column headers %v, want %v", heads, wantHeads)
	}
	rows := js[[][]string](t, ctx, `Array.from(tp.q(0, "table.matrix tbody").rows).map((r) => Array.from(r.cells).map((c) => (c.getAttribute("scope") || "") + ":" + c.textContent))`)
	if len(rows) != len(m.Scenarios) {
		t.Fatalf("%d rows, want %d", len(rows), len(m.Scenarios))
	}
	for i, r := range m.Scenarios {
		w := []string{"row:" + r.Title, ":" + strconv.Itoa(r.Events)}
		for _, c := range r.Cells {
			w = append(w, ":"+c.Text())
		}
		if strings.Join(rows[i], "|") != strings.Join(w, "|") {
			t.Errorf("row %d: %v, want (native) %v", i, rows[i], w)
		}
	}
	foot := js[[]string](t, ctx, `Array.from(tp.q(0, "table.matrix tfoot tr").cells).map((c) => c.textContent)`)
	for i, f := range m.Fixes {
		if foot[i+2] != f.ClosesText(len(m.Scenarios)) {
			t.Errorf("closes of %s: %q, want %q", f.ID, foot[i+2], f.ClosesText(len(m.Scenarios)))
		}
	}

	// A cell is a button that opens its own script in a block under the
	// matrix and runs it there; the matrix and the editor stay as they are.
	cell := m.Scenarios[2].Cells[0]
	cellRun := `(() => { const b = tp.q(0, ".cell-box twice-playground"); return b && b.shadowRoot && b.getAttribute("state"); })()`
	openCell := func() {
		t.Helper()
		js[bool](t, ctx, `tp.q(0, 'table.matrix td[data-scenario="`+m.Scenarios[2].ID+`"][data-fix="none"] button').click(), true`)
		run(t, ctx, 60*time.Second, chromedp.Poll[bool](cellRun+` === "done"`))
	}
	openCell()
	if got := js[string](t, ctx, `tp.q(0, ".cell-box twice-playground").shadowRoot.querySelector("textarea").value`); got != cell.Script {
		t.Errorf("the cell's block holds %q, want %q", got, cell.Script)
	}
	if got, w := js[string](t, ctx, `tp.q(0, ".cell-box twice-playground").shadowRoot.querySelector("pre.transcript").textContent`), shownText(interp.Run(cell.Script, interp.Options{Seed: seed})); got != w {
		t.Errorf("cell transcript:\n%s\nwant:\n%s", got, w)
	}
	if got := js[string](t, ctx, `tp.q(0, "textarea").value`); got != "matrix\n" {
		t.Errorf("opening a cell changed the matrix's editor to %q", got)
	}
	if n := js[int](t, ctx, `tp.q(0, "table.matrix tbody").rows.length`); n != len(m.Scenarios) {
		t.Errorf("with a cell open the matrix has %d rows", n)
	}
	// Back closes the cell, Forward opens it again, Close closes it.
	js[bool](t, ctx, `history.back(), true`)
	run(t, ctx, 10*time.Second, chromedp.Poll[bool](`tp.q(0, ".cell-box").hidden`))
	js[bool](t, ctx, `history.forward(), true`)
	run(t, ctx, 60*time.Second, chromedp.Poll[bool](cellRun+` === "done"`))
	js[bool](t, ctx, `tp.q(0, ".cell-close").click(), true`)
	run(t, ctx, 10*time.Second, chromedp.Poll[bool](`tp.q(0, ".cell-box").hidden`))
	if n := js[int](t, ctx, `tp.q(0, "table.matrix tbody").rows.length`); n != len(m.Scenarios) {
		t.Errorf("after the cell closed the matrix has %d rows", n)
	}
	// The step-through of a ledger race: the row lands at its COMMIT, and
	// the step names it as a committed ledger row.
	const ledger = "race read 1 --effect ledger\n"
	native := interp.Run(ledger, interp.Options{Seed: seed, Timeline: true})
	commit := -1
	for k, ev := range native.Trace {
		if ev.Kind == event.Commit && ev.Effect != nil {
			commit = k
			break
		}
	}
	if commit < 0 {
		t.Fatal("the native trace of a ledger race has no commit with an effect")
	}
	s = js[string](t, ctx, fmt.Sprintf(`tp.run(0, () => { tp.q(0, "textarea").value = %q; tp.q(0, "button.run").click(); })`, ledger))
	if s != "done" {
		t.Fatalf("ledger race ended in state %q", s)
	}
	js[bool](t, ctx, fmt.Sprintf(`tp.el(0).select("timeline"), tp.el(0).timeline.goStep(%d), true`, commit))
	if c := js[string](t, ctx, `tp.q(0, ".step-change").textContent`); !strings.Contains(c, "committed: a ledger row for order-77") {
		t.Errorf("the commit step reads %q", c)
	}
	if cells := js[[]string](t, ctx, `Array.from(tp.q(0, ".step-effects tbody tr").cells).map((c) => c.textContent)`); len(cells) < 4 || cells[3] != "ledger row" {
		t.Errorf("the step's effects table shows %q", cells)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
