package server

import (
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"
)

var versionMeta = regexp.MustCompile(`<meta name="twice-version" content="([0-9a-f]+)" data-endpoint="([^"]+)">`)

// Under twice serve (Options.Live) the index and lesson pages carry their
// version and the reload client; the server answers each page's current
// version, which changes when its lesson is edited and not when another
// lesson is. An export has none of it.
func TestLiveVersions(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.md": "# A\n\ntext a\n", "b.md": "# B\n\ntext b\n"})
	srv, err := NewServer(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever, Live: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	get := func(p string) (int, string) {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest("GET", p, nil))
		return rec.Code, rec.Body.String()
	}
	meta := func(p string) (version, endpoint string) {
		_, body := get(p)
		m := versionMeta.FindStringSubmatch(body)
		if m == nil || !strings.Contains(body, "assets/reload.") {
			t.Fatalf("%s has no version or no reload client:\n%s", p, body)
		}
		return m[1], m[2]
	}
	va, ea := meta("/lessons/a/")
	vb, eb := meta("/lessons/b/")
	if ea != "../../__twice/version?page=lessons/a/index.html" {
		t.Errorf("endpoint %q", ea)
	}
	version := func(page string) string {
		code, body := get(VersionPath + "?page=" + page)
		if code != 200 {
			t.Fatalf("version of %s: %d", page, code)
		}
		return strings.TrimSpace(body)
	}
	if v := version("lessons/a/index.html"); v != va {
		t.Errorf("server says %s for a, the page %s", v, va)
	}
	writeFiles(t, dir, map[string]string{"a.md": "# A\n\ntext a, edited\n"})
	if !srv.watching.Load() {
		t.Skip("no file notifications here")
	}
	deadline := time.Now().Add(5 * time.Second)
	for version("lessons/a/index.html") == va && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if version("lessons/a/index.html") == va {
		t.Fatal("the edited lesson's version did not change")
	}
	if v := version("lessons/b/index.html"); v != vb {
		t.Errorf("the other lesson's version changed: %s, was %s (%s)", v, vb, eb)
	}
	if v := version("lessons/gone/index.html"); v != "gone" {
		t.Errorf("a page the site does not have: %q", v)
	}

	// Not under Live, as twice build renders: no client, no version, no
	// endpoint.
	site, err := Render(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever})
	if err != nil {
		t.Fatal(err)
	}
	for p, f := range site.Files {
		if strings.Contains(string(f.Body), "twice-version") || strings.Contains(p, "reload") {
			t.Errorf("export has %s with the reload client", p)
		}
	}
	plain, _ := NewServer(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever}, nil)
	defer plain.Close()
	rec := httptest.NewRecorder()
	plain.ServeHTTP(rec, httptest.NewRequest("GET", VersionPath+"?page=index.html", nil))
	if rec.Code != 404 {
		t.Errorf("a server without Live answers %s with %d", VersionPath, rec.Code)
	}
}
