package server

import (
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twice-lab/twice/lessons"
	"github.com/twice-lab/twice/runtime/script/interp"
	"github.com/twice-lab/twice/runtime/script/result"
	"github.com/twice-lab/twice/server/markdown"
)

// TestLessonBlocksPrerendered runs every twice block of every built-in
// lesson at its seed (under -short, every third) and checks that the page
// shows exactly what the runtime prints, both as the <pre> fallback and in the JSON the component
// renders from, and that each block has its embed page.
func TestLessonBlocksPrerendered(t *testing.T) {
	t.Parallel()
	site := fakeSite(t)
	ls, err := lessons.Load(lessons.FS)
	if err != nil {
		t.Fatal(err)
	}
	blocks := 0
	for _, l := range ls {
		page := site.Files["lessons/"+l.Slug+"/index.html"]
		if page == nil {
			t.Fatalf("no page for lesson %s", l.File)
		}
		ws := widgets(page.Body)
		if len(ws) != len(l.Blocks) {
			t.Fatalf("%s: page has %d playgrounds, lesson has %d twice blocks", l.File, len(ws), len(l.Blocks))
		}
		for i, b := range l.Blocks {
			blocks++
			where := l.File + ":" + strconv.Itoa(b.Line)
			opts, err := b.Options()
			if err != nil {
				t.Errorf("%s: %v", where, err)
				continue
			}
			w := ws[i]
			if w.Script != b.Script {
				t.Errorf("%s: page holds script %q, lesson has %q", where, w.Script, b.Script)
			}
			// Every block is run again, and under -short every third (the
			// lessons package's tests run each block too); the others are
			// held to the page's own output.
			want := w.Output
			if !testing.Short() || blocks%3 == 1 {
				res := interp.Run(b.Script, interp.Options{Seed: opts.Seed})
				if res.Error != nil && !opts.Fails {
					t.Errorf("%s: block fails at seed %d: %v", where, opts.Seed, res.Error)
				}
				if want = res.Text(); w.Output != want {
					t.Errorf("%s: pre-rendered output differs from interp.Run at seed %d\n--- page\n%s--- runtime\n%s", where, opts.Seed, w.Output, want)
				}
			}
			var pre result.Result
			js := w.Inner[strings.Index(w.Inner, `class="twice-result">`)+len(`class="twice-result">`):]
			js = js[:strings.Index(js, "</script>")]
			if err := json.Unmarshal([]byte(js), &pre); err != nil {
				t.Errorf("%s: embedded result: %v", where, err)
			} else if got := strings.Join(pre.Transcript, "\n") + "\n"; len(pre.Transcript) > 0 && got != want {
				t.Errorf("%s: embedded result transcript differs:\n%s", where, got)
			}
			embed := site.Files["embed/"+l.Slug+"/"+w.Index+"/index.html"]
			if embed == nil {
				t.Errorf("%s: no embed page embed/%s/%s/", where, l.Slug, w.Index)
				continue
			}
			if ew := widgets(embed.Body); len(ew) != 1 || ew[0].Output != w.Output || ew[0].Script != w.Script {
				t.Errorf("%s: embed page does not show the same block", where)
			}
		}
	}
	if blocks < 6 {
		t.Errorf("only %d twice blocks in %d lessons", blocks, len(ls))
	}
	index := string(site.Files["index.html"].Body)
	last := -1
	for _, l := range ls {
		i := strings.Index(index, `href="lessons/`+l.Slug+`/"`)
		if i < 0 || i < last {
			t.Errorf("index does not list %s in manifest order", l.Slug)
		}
		last = i
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBrokenLesson checks that a block whose script does not parse is
// reported with the file and the line in the script's own numbering of the
// lesson file, on the lesson's page and by Render (so twice build fails).
func TestBrokenLesson(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"lessons.txt": "good.md\nbad.md\n",
		"good.md":     "# Good\n\n```twice\nreset && add order-1\nwork --job 1\n```\n",
		"bad.md":      "# Bad\n\nSome text.\n\n```twice\nreset\nwrk --job 1\n```\n",
	})
	site, err := Render(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever})
	if err == nil {
		t.Fatal("Render of a broken lesson succeeded")
	}
	want := filepath.Join(dir, "bad.md") + ":7:1: twice block: unknown command"
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not contain %q", err, want)
	}
	// The page renders, with its prose; the broken block says what is
	// wrong in the block itself.
	bad := site.Files["lessons/bad/index.html"]
	if bad == nil || bad.Status != 200 || !strings.Contains(string(bad.Body), "Some text.") ||
		!regexp.MustCompile(`(?s)<twice-playground id="block-1".*This block is broken: bad.md:7:1: twice block: unknown command.*</twice-playground>`).Match(bad.Body) {
		t.Errorf("broken lesson page: %+v", bad)
	}
	// The component draws the block from its JSON: the error there names
	// the file and line too.
	if bad != nil && !strings.Contains(string(bad.Body), `"error":{"kind":"usage","line":0,"col":0,"msg":"This block is broken: bad.md:7:1: twice block: unknown command`) {
		t.Errorf("the block's JSON does not carry the message:\n%s", bad.Body)
	}
	if index := string(site.Files["index.html"].Body); !strings.Contains(index, "(1 broken block)") {
		t.Errorf("the index does not mark the broken block:\n%s", index)
	}
	if bad != nil && strings.Contains(string(bad.Body), dir) {
		t.Errorf("the error page shows the absolute path %s:\n%s", dir, bad.Body)
	}
	if good := site.Files["lessons/good/index.html"]; good == nil || good.Status != 200 {
		t.Errorf("the good lesson should still render")
	}
	if err := site.Export(t.TempDir()); err == nil {
		t.Error("Export of a site with a broken lesson succeeded")
	}
}

func TestBrokenBlockOptions(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.md": "# A\n\n```twice colour=red\njobs\n```\n\n```twice fails\njobs\n```\n\n```twice fails\nwork --job 9\n```\n",
	})
	_, err := Render(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		"a.md:3: unknown block option \"colour=red\"",
		"a.md:7: twice block is marked fails but runs without an error",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "a.md:11") {
		t.Errorf("a fails block that fails was reported: %v", err)
	}
}

func TestBrokenFolder(t *testing.T) {
	fallback(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"lessons.txt": "missing.md\n"})
	srv, err := NewServer(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/", "/lessons/missing/"} {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest("GET", p, nil))
		if rec.Code != 500 || !strings.Contains(rec.Body.String(), "lessons.txt:1: missing.md") {
			t.Errorf("GET %s: %d %q", p, rec.Code, rec.Body.String())
		}
	}
}

// TestReload checks that a server of a teacher's folder shows edits on the
// next request, and without a manifest lists *.md files by name.
func TestReload(t *testing.T) {
	fallback(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"b.md": "# Second\n\ntext\n",
		"a.md": "# First\n\n```twice\nreset && add order-1\njobs\n```\n",
	})
	srv, err := NewServer(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv.every = 0 // look for changes on every request
	srv.next.Store(0)
	get := func(p string) (int, string) {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest("GET", p, nil))
		return rec.Code, rec.Body.String()
	}
	_, index := get("/")
	if a, b := strings.Index(index, "First"), strings.Index(index, "Second"); a < 0 || b < a {
		t.Errorf("index without manifest not in file-name order:\n%s", index)
	}
	code, body := get("/lessons/a/")
	if code != 200 || !strings.Contains(body, "job 1 order-1 status=queued") {
		t.Fatalf("lesson a: %d\n%s", code, body)
	}
	writeFiles(t, dir, map[string]string{"a.md": "# First, edited\n\n```twice\nreset && add order-2\njobs\n```\n"})
	future := time.Now().Add(2 * time.Second)
	os.Chtimes(filepath.Join(dir, "a.md"), future, future)
	code, body = get("/lessons/a/")
	if code != 200 || !strings.Contains(body, "First, edited") || !strings.Contains(body, "order-2") {
		t.Errorf("edit not shown: %d\n%s", code, body)
	}
	writeFiles(t, dir, map[string]string{"a.md": "# First\n\n```twice\njobz\n```\n"})
	os.Chtimes(filepath.Join(dir, "a.md"), future.Add(time.Second), future.Add(time.Second))
	code, body = get("/lessons/a/")
	if code != http.StatusOK || !strings.Contains(body, "This block is broken: a.md:4:1: twice block: unknown command") {
		t.Errorf("broken edit: %d\n%s", code, body)
	}
}

// A block's pre-rendered run is kept for the next render of the same
// script and seed, so an edit reruns only the blocks it changed.
func TestPrerenderKept(t *testing.T) {
	a := markdown.Prerender("race read 3\neffects\n", 7)
	if b := markdown.Prerender("race read 3\neffects\n", 7); b != a {
		t.Error("the same script and seed ran again")
	}
	if c := markdown.Prerender("race read 3\neffects\n", 8); c == a || c.Seed == a.Seed {
		t.Error("another seed reused the first run")
	}
	if d := markdown.Prerender("race read 4\neffects\n", 7); d == a {
		t.Error("an edited script reused the old run")
	}
	if got, want := a.Text(), interp.Run("race read 3\neffects\n", interp.Options{Seed: 7}).Text(); got != want {
		t.Errorf("kept run prints %q, a fresh one %q", got, want)
	}
}

// TestMatrixPrerendered: a matrix block's page carries the matrix as an
// HTML table (for a reader whose browser runs no script) whose cells are
// the live runs' counts, and the same matrix in the JSON the component
// draws from.
func TestMatrixPrerendered(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"m.md": "# Matrix\n\n```twice\nmatrix\n```\n"})
	site, err := Render(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever})
	if err != nil {
		t.Fatal(err)
	}
	page := string(site.Files["lessons/m/index.html"].Body)
	res := interp.Run("matrix\n", interp.Options{Seed: interp.DefaultSeed})
	m := res.Matrices[0]
	start := strings.Index(page, `<table class="twice-matrix">`)
	end := strings.Index(page, "</table>")
	if start < 0 || end < start {
		t.Fatalf("no matrix table on the page")
	}
	table := page[start:end]
	if !strings.Contains(table, "<caption>Which fix closes which duplicate, at seed 1") {
		t.Error("the table has no caption")
	}
	for _, f := range m.Fixes {
		if !strings.Contains(table, `">`+f.ID+"</th>") {
			t.Errorf("no column for fix %s", f.ID)
		}
	}
	for _, r := range m.Scenarios {
		row := `<tr><th scope="row">` + r.Title + "</th><td>" + strconv.Itoa(r.Events) + "</td>"
		for _, c := range r.Cells {
			row += `<td class="` + c.Verdict + `">` + c.Text() + "</td>"
		}
		if !strings.Contains(table, row) {
			t.Errorf("no row %s", row)
		}
	}
	w := widgets([]byte(page))[0]
	if !strings.Contains(w.Inner, `"matrices":[{"seed":1,`) {
		t.Error("the embedded result has no matrix")
	}
}

// TestInlineCodeKeepsFlags checks that a flag in inline code is marked to
// stay on one line (style.css: code .flag), and that the code around it is
// escaped and still free to wrap at its spaces.
func TestInlineCodeKeepsFlags(t *testing.T) {
	src := "# Flags\n\nAdd `--fence`, or `load 200 --lease 1,2 -c x<y`, not `a-b`, `--` or `--" + strings.Repeat("x", 40) + "`;\n`work\n--heartbeat 300`.\n"
	page, st := markdown.RenderLesson(markdown.New(), lessons.Lesson{Slug: "flags", File: "flags.md", Source: []byte(src)}, "flags.md", "flags.md", "/", time.Time{})
	if len(st.Errs) > 0 {
		t.Fatal(st.Errs)
	}
	for _, want := range []string{
		`<code><span class="flag">--fence</span></code>`,
		`<code>load 200 <span class="flag">--lease</span> 1,2 <span class="flag">-c</span> x&lt;y</code>`,
		`<code>a-b</code>`,
		"<code>--</code>",
		"<code>--" + strings.Repeat("x", 40) + "</code>",
		`<code>work <span class="flag">--heartbeat</span> 300</code>`,
	} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page lacks %s:\n%s", want, page)
		}
	}
}

// TestPredictBlock checks what a block marked predict renders: the
// attribute the component reads, and the output folded behind a
// disclosure for a reader without JavaScript, still there in full.
func TestPredictBlock(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"lessons.txt": "p.md\n",
		"p.md":        "# P\n\n```twice predict seed=3\nrace read 20\n```\n\n```twice\nrace read 20\n```\n",
	})
	site, err := Render(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever})
	if err != nil {
		t.Fatal(err)
	}
	page := string(site.Files["lessons/p/index.html"].Body)
	first, _, _ := strings.Cut(page, `id="block-2"`)
	if !strings.Contains(first, ` predict=""`) || !strings.Contains(first, `<details class="twice-answer"><summary>Output at seed 3: predict first, then open</summary>`) {
		t.Errorf("the predict block:\n%s", first)
	}
	out := interp.Run("race read 20\n", interp.Options{Seed: 3}).Text()
	if i := strings.Index(first, `<details class="twice-answer">`); i < 0 || !strings.Contains(first[i:], html.EscapeString(out)) {
		t.Errorf("the predict block's output is not inside its disclosure")
	}
	if blocks := strings.Split(page, "<twice-playground"); len(blocks) != 3 || strings.Contains(blocks[2], "predict") || strings.Contains(blocks[2], "details") {
		t.Errorf("a block without predict is folded or marked too")
	}
}

// TestIndexBeforeBlocksRun: a render hands out the site as it goes, the
// first time before any block has run, with the index a reader gets at
// the end (for lessons whose blocks all run) and the rendering page for
// every lesson; then after each lesson, with that lesson's pages. A block
// whose script does not parse is counted as broken from the first.
func TestIndexBeforeBlocksRun(t *testing.T) {
	r, err := newRenderer(Options{Runtime: fakeRuntime(), Brotli: BrotliNever}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ls, err := lessons.Load(lessons.FS)
	if err != nil {
		t.Fatal(err)
	}
	var published []*Site
	final := r.render(lessons.FS, "lessons", func(s *Site) { published = append(published, s) })
	if final.Err != nil {
		t.Fatal(final.Err)
	}
	if len(published) != len(ls) {
		t.Fatalf("the render published %d sites for %d lessons, want one before any block and one after each lesson but the last", len(published), len(ls))
	}
	first := published[0]
	if got, want := string(first.Files["index.html"].Body), string(final.Files["index.html"].Body); got != want {
		t.Errorf("the index served before the blocks ran differs from the index after:\n%s\nwant:\n%s", got, want)
	}
	if first.Files["sw.js"] == nil {
		t.Error("the first site has no service worker")
	}
	for i, s := range published {
		for j, l := range ls {
			page := s.Files["lessons/"+l.Slug+"/index.html"]
			if (page != nil) != (j < i) {
				t.Errorf("site %d published has lesson %d's page: %v, want %v", i, j+1, page != nil, j < i)
			}
		}
		if s.Broken == nil || s.Broken.Status != http.StatusServiceUnavailable || !strings.Contains(string(s.Broken.Body), "Rendering the lessons") {
			t.Errorf("site %d published answers a page not rendered yet with %+v, want the rendering page", i, s.Broken)
		}
	}

	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.md": "# A\n\n```twice\nadd order-1 extra\n```\n\n```twice\nreset\n```\n"})
	first = nil
	r.render(os.DirFS(dir), dir, func(s *Site) {
		if first == nil {
			first = s
		}
	})
	if idx := string(first.Files["index.html"].Body); !strings.Contains(idx, "2 runnable scripts") || !strings.Contains(idx, "(1 broken block)") {
		t.Errorf("the first index of a lesson with a block that does not parse:\n%s", idx)
	}
}
