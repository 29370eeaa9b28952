package server

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestExampleCaseRenders renders the teachers' example case of docs from
// a lesson folder of its own: the index links it, its page shows the
// evidence desk from its run before any script (the worker log, the
// counts, the architecture as boxes and as a list), its experiments as
// playgrounds, the fix, the checks and the hints; an export writes it.
func TestExampleCaseRenders(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "docs", "example-case", "receipt-sent-twice.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"01-first.md":           "# First\n\n```twice\nadd o && work --job 1\n```\n",
		"receipt-sent-twice.md": string(src),
	})
	site, err := Render(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever})
	if err != nil {
		t.Fatal(err)
	}
	index := string(site.Files["index.html"].Body)
	if !strings.Contains(index, `<a href="cases/receipt-sent-twice/">The receipt one run sent twice</a>`) {
		t.Errorf("the index does not link the case:\n%s", index)
	}
	if strings.Contains(index, `lessons/receipt-sent-twice/`) {
		t.Error("the index lists the case as a lesson")
	}
	f := site.Files["cases/receipt-sent-twice/index.html"]
	if f == nil {
		t.Fatalf("no case page; pages: %v", site.Paths())
	}
	page := string(f.Body)
	for _, want := range []string{
		"<h1>The receipt one run sent twice</h1>",
		`<h2 id="question-title">The question</h2>`, "Did the queue run the job twice",
		`<h2 id="investigation-title">How to work the case</h2>`, "<li>Read the worker's log:",
		"Case · easy · about 15 minutes",
		`<h3 id="desk-symptom-title">Symptom</h3>`,
		"A customer got two receipts for order-12",
		"<dt>Expected</dt>",
		`<text x="`, ">Receipts service</text>",
		"<li>Worker → Receipts service: POST with a timeout, retried once</li>",
		// The log, from the run: the worker's two lines with one attempt.
		"W1     [run a5b1f7f7 attempt 1] sending receipt for order-12",
		"<dt>deliveries</dt><dd>1</dd>", "<dt>effects</dt><dd>2</dd>", "<dt>producer publishes</dt><dd>1</dd>",
		"client timeout was cut to 300 ms.",
		`data-hypothesis="2"`, "<twice-playground", `id="block-2"`,
		`<textarea id="case-fix"`,
		`"name":"slow-answer"`,
		`<summary>Hint 3 of 3</summary>`,
		"twice case check receipt-sent-twice --fix FILE",
		"assets/case.",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the case page lacks %q", want)
		}
	}
	// Two hypotheses, each with its one block, in order.
	if got := regexp.MustCompile(`id="block-(\d)"`).FindAllStringSubmatch(page, -1); len(got) != 2 || got[0][1] != "1" || got[1][1] != "2" {
		t.Errorf("experiment blocks %v, want block-1 and block-2", got)
	}
	out := t.TempDir()
	if err := site.Export(out); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "cases", "receipt-sent-twice", "index.html")); err != nil {
		t.Errorf("the export has no case page: %v", err)
	}
}

// TestBrokenCaseNamesFileAndLine: a case whose evidence run fails renders
// with the error in its page and fails the site, naming file and line.
func TestBrokenCaseNamesFileAndLine(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.md":    "# A\n",
		"case.md": "---\nkind: case\n---\n# C\n\n## Evidence\n\n```twice\nadd o\nwork --job 2\n```\n\n## Fix\n\n```twice\n```\n\n## Checks\n\n```twice name=x effects=1\nadd o && work --job 1\n```\n",
	})
	site, err := Render(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever})
	if err == nil || !strings.Contains(err.Error(), "case.md:10: the evidence run fails: work: job 2 does not exist") {
		t.Fatalf("error %v", err)
	}
	if page := string(site.Files["cases/case/index.html"].Body); !strings.Contains(page, "This case is broken: case.md:10:") {
		t.Errorf("the page does not show the error")
	}
}

// TestCasePageEscapes: what a case file says is text on its page, in the
// title, the drawing, the arrows and the fix: the template escapes it.
func TestCasePageEscapes(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.md": "# A\n",
		"case.md": "---\nkind: case\nlevel: <i>hard</i>\n---\n# A <b>case</b>\n\n## Architecture\n\n- Queue<x> -> B&C: l<script>\n\n" +
			"## Evidence\n\n```twice\nadd o && work --job 1\n```\n\n## Fix\n\n```twice\n# </textarea><b>\n```\n\n## Checks\n\n```twice name=x sent=1\nadd o && work --job 1\n```\n",
	})
	site, err := Render(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever})
	if err != nil {
		t.Fatal(err)
	}
	page := string(site.Files["cases/case/index.html"].Body)
	index := string(site.Files["index.html"].Body)
	for _, want := range []string{"<h1>A &lt;b&gt;case&lt;/b&gt;</h1>", "Case · &lt;i&gt;hard&lt;/i&gt;", ">Queue&lt;x&gt;</text>", "<li>Queue&lt;x&gt; → B&amp;C: l&lt;script&gt;</li>", "# &lt;/textarea&gt;&lt;b&gt;\n</textarea>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the case page lacks %q", want)
		}
	}
	if !strings.Contains(index, "A &lt;b&gt;case&lt;/b&gt;</a> <span class=\"time\">· &lt;i&gt;hard&lt;/i&gt;</span>") {
		t.Errorf("the index lists the case as\n%s", index)
	}
	if strings.Contains(page, "<script>") || strings.Contains(page, "<b>case") {
		t.Error("the case page carries the file's markup")
	}
}
