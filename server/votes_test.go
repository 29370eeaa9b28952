package server

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestClassPages: only a served class's pages say they may send votes
// and load the class's module; an export's and a server's without a class
// do not, and answer nothing under /class/. A served class knows each
// block's scale.
func TestClassPages(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"lessons.txt": "p.md\n",
		"p.md":        "# P\n\n```twice predict\nrace read 20\neffects\n```\n\n```twice\nadd order-1\nwork --job 1\n```\n",
	})
	marks := func(page string) bool {
		return strings.Contains(page, "data-twice-class") || strings.Contains(page, `src="../../assets/pulse.`)
	}
	export, err := Render(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever})
	if err != nil {
		t.Fatal(err)
	}
	if marks(string(export.Files["lessons/p/index.html"].Body)) {
		t.Errorf("an export's lesson page may send votes")
	}
	answered := false
	class := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { answered = true })
	for _, tc := range []struct {
		name  string
		class http.Handler
		want  bool
	}{{"without a class", nil, false}, {"with a class", class, true}} {
		srv, err := NewServer(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever, Live: true, Class: tc.class}, nil)
		if err != nil {
			t.Fatal(err)
		}
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, httptest.NewRequest("GET", "/lessons/p/", nil))
		if marks(w.Body.String()) != tc.want {
			t.Errorf("%s: the lesson page may send votes: %v", tc.name, !tc.want)
		}
		answered = false
		w = httptest.NewRecorder()
		srv.ServeHTTP(w, httptest.NewRequest("POST", "/class/votes", strings.NewReader("{}")))
		if answered != tc.want {
			t.Errorf("%s: /class/ reached the class: %v", tc.name, answered)
		}
		if sc, ok := srv.BlockScale("/lessons/p/#block-1"); !ok || sc.Min != 0 || sc.Max != 20 {
			t.Errorf("%s: block 1's scale %+v %v, want 0 to 20", tc.name, sc, ok)
		}
		if sc, ok := srv.BlockScale("/lessons/p/#block-2"); !ok || sc.Max != 10 {
			t.Errorf("%s: block 2 (effects) scale %+v %v, want 0 to 10", tc.name, sc, ok)
		}
		if _, ok := srv.BlockScale("/lessons/p/#block-3"); ok {
			t.Errorf("%s: a block 3", tc.name)
		}
		srv.Close()
	}
}

// TestScaleOf: a scale a block names, or the count's own.
func TestScaleOf(t *testing.T) {
	for _, tc := range []struct {
		attr string
		of   int
		want string
	}{
		{"", 20, "{0 20 []}"},
		{"", 0, "{0 10 []}"},
		{"5-15", 20, "{5 15 []}"},
		{"0,1,5", 20, "{0 5 [0 1 5]}"},
		{"15-5", 20, "{0 20 []}"},
		{"x", 20, "{0 20 []}"},
		{"1,x", 20, "{0 20 []}"},
		{"0-99999999", 20, "{0 20 []}"},
	} {
		if got := fmt.Sprint(scaleOf(tc.attr, tc.of)); got != tc.want {
			t.Errorf("scaleOf(%q, %d) = %s, want %s", tc.attr, tc.of, got, tc.want)
		}
	}
}
