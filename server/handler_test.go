package server

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
)

var (
	testSiteOnce sync.Once
	testSite     *Site
	testSiteErr  error
)

// fakeSite is the built-in lessons rendered with the fake runtime and every
// compressed form made, once per test binary: the tests that only read the
// site share it. A test that changes a Site renders its own.
func fakeSite(t *testing.T) *Site {
	t.Helper()
	testSiteOnce.Do(func() {
		testSite, testSiteErr = Render(Options{Runtime: fakeRuntime(), Brotli: BrotliNow})
	})
	if testSiteErr != nil {
		t.Fatalf("the built-in lessons are broken:\n%v", testSiteErr)
	}
	return testSite
}

func do(h http.Handler, method, target string, hdr ...string) *http.Response {
	req := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func body(t *testing.T, r *http.Response) []byte {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wasmPath returns the served path of the site's wasm module.
// wasmPath is the path of the Go program's module (the runtime's other
// module is SQLite's).
func wasmPath(t *testing.T, s *Site) string {
	for _, p := range s.Paths() {
		if strings.HasPrefix(p, "assets/twice.") && strings.HasSuffix(p, ".wasm") {
			return "/" + p
		}
	}
	t.Fatal("no wasm in site")
	return ""
}

func TestHandlerPages(t *testing.T) {
	s := fakeSite(t)
	h := s.Handler()
	for _, tc := range []struct {
		method, path string
		status       int
		typ          string
		location     string
	}{
		{"GET", "/", 200, "text/html; charset=utf-8", ""},
		{"GET", "/index.html", 200, "text/html; charset=utf-8", ""},
		{"GET", "/lessons/claim-race/", 200, "text/html; charset=utf-8", ""},
		{"GET", "/lessons/claim-race/index.html", 200, "text/html; charset=utf-8", ""},
		{"GET", "/lessons/claim-race", 301, "", "/lessons/claim-race/"},
		{"GET", "/lessons/claim-race?x=1", 301, "", "/lessons/claim-race/?x=1"},
		{"GET", "/embed/claim-race/1/", 200, "text/html; charset=utf-8", ""},
		{"GET", "/embed/claim-race/1", 301, "", "/embed/claim-race/1/"},
		{"HEAD", "/", 200, "text/html; charset=utf-8", ""},
		{"GET", "/assets/twice.js", 200, "text/javascript; charset=utf-8", ""},
		{"GET", "/nope", 404, "text/html; charset=utf-8", ""},
		{"GET", "/lessons/nope/", 404, "text/html; charset=utf-8", ""},
		{"GET", "/embed/claim-race/99/", 404, "text/html; charset=utf-8", ""},
		{"HEAD", "/nope", 404, "text/html; charset=utf-8", ""},
		{"GET", "/assets/", 404, "text/html; charset=utf-8", ""},
	} {
		r := do(h, tc.method, tc.path)
		b := body(t, r)
		if r.StatusCode != tc.status {
			t.Errorf("%s %s: status %d, want %d", tc.method, tc.path, r.StatusCode, tc.status)
			continue
		}
		if got := r.Header.Get("Content-Type"); tc.typ != "" && got != tc.typ {
			t.Errorf("%s %s: Content-Type %q, want %q", tc.method, tc.path, got, tc.typ)
		}
		if got := r.Header.Get("Location"); got != tc.location {
			t.Errorf("%s %s: Location %q, want %q", tc.method, tc.path, got, tc.location)
		}
		csp := r.Header.Get("Content-Security-Policy")
		if r.Header.Get("X-Content-Type-Options") != "nosniff" || !strings.HasPrefix(csp, CSP) {
			t.Errorf("%s %s: missing nosniff or CSP: %v", tc.method, tc.path, r.Header)
		}
		// Only embed pages may be framed by another site.
		embed := strings.HasPrefix(tc.path, "/embed/")
		if framable := !strings.Contains(csp, "frame-ancestors"); framable != embed {
			t.Errorf("%s %s: CSP %q: frame-ancestors present=%v, want %v", tc.method, tc.path, csp, !framable, !embed)
		}
		if tc.method == "HEAD" && len(b) != 0 {
			t.Errorf("HEAD %s: body of %d bytes", tc.path, len(b))
		}
		if tc.method == "HEAD" && r.Header.Get("Content-Length") == "" {
			t.Errorf("HEAD %s: no Content-Length", tc.path)
		}
		if tc.status == 404 && tc.method == "GET" && !bytes.Contains(b, []byte("<h1>Not found</h1>")) {
			t.Errorf("GET %s: 404 without the 404 page", tc.path)
		}
		if tc.status == 200 && tc.method == "GET" && r.Header.Get("Cache-Control") != "no-cache" {
			t.Errorf("GET %s: Cache-Control %q, want no-cache", tc.path, r.Header.Get("Cache-Control"))
		}
	}
	if !strings.Contains(CSP, "'wasm-unsafe-eval'") {
		t.Error("the CSP does not allow compiling wasm")
	}
	// The playground shows the timeline as <img src="data:image/svg+xml,...">
	// (see twice.js for why not inline SVG).
	if !strings.Contains(CSP, "img-src 'self' data:") {
		t.Error("the CSP does not allow data: images, which the timeline is")
	}
}

func TestHandlerMethods(t *testing.T) {
	h := fakeSite(t).Handler()
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "BREW"} {
		for _, p := range []string{"/", "/nope", "/assets/twice.js"} {
			r := do(h, m, p)
			if r.StatusCode != 405 || r.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("%s %s: %d Allow=%q, want 405 with Allow: GET, HEAD", m, p, r.StatusCode, r.Header.Get("Allow"))
			}
		}
	}
}

func TestHandlerTraversal(t *testing.T) {
	h := fakeSite(t).Handler()
	for _, target := range []string{
		"/../",
		"/../index.html",
		"/lessons/../index.html",
		"/lessons/claim-race/../../index.html",
		"/%2e%2e/index.html",
		"/lessons/%2e%2e/index.html",
		"/lessons/%2E%2E/%2E%2E/etc/passwd",
		"/assets/..%2findex.html",
		"/assets%2ftwice.js",
		"/assets%5ctwice.js",
		"/./index.html",
		"/lessons//claim-race/",
		"//index.html",
		"/assets/..\\index.html",
		"/%00",
		"/index.html%00",
		"/.git/config",
		"/../../../../etc/passwd",
	} {
		// As the server's request parser sees it: no dot-segment removal.
		u, err := url.ParseRequestURI(target)
		if err != nil {
			t.Errorf("%s: %v", target, err)
			continue
		}
		req := httptest.NewRequest("GET", "/", nil)
		req.URL, req.RequestURI = u, target
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 404 || !strings.Contains(rec.Body.String(), "Not found") {
			t.Errorf("GET %s (path %q): status %d, want the 404 page", target, u.Path, rec.Code)
		}
	}
}

func TestHandlerEncodings(t *testing.T) {
	s := fakeSite(t)
	h := s.Handler()
	wasm := wasmPath(t, s)
	raw := s.Files[wasm[1:]].Body
	for _, tc := range []struct {
		accept, enc string
	}{
		{"", ""},
		{"identity", ""},
		{"gzip", "gzip"},
		{"gzip, deflate, br", "br"},
		{"br;q=0.5, gzip", "gzip"},
		{"br;q=0, gzip;q=0", ""},
		{"*", "br"},
		{"deflate", ""},
		{"gzip;q=0.8, br;q=0.8", "br"},
	} {
		for _, p := range []string{wasm, "/", "/assets/twice.js"} {
			r := do(h, "GET", p, "Accept-Encoding", tc.accept)
			b := body(t, r)
			if got := r.Header.Get("Content-Encoding"); got != tc.enc {
				t.Errorf("GET %s, Accept-Encoding %q: Content-Encoding %q, want %q", p, tc.accept, got, tc.enc)
			}
			if r.Header.Get("Vary") != "Accept-Encoding" {
				t.Errorf("GET %s: no Vary: Accept-Encoding", p)
			}
			var dec []byte
			switch tc.enc {
			case "gzip":
				zr, err := gzip.NewReader(bytes.NewReader(b))
				if err != nil {
					t.Fatal(err)
				}
				dec, _ = io.ReadAll(zr)
			case "br":
				dec, _ = io.ReadAll(brotli.NewReader(bytes.NewReader(b)))
			default:
				dec = b
			}
			if want := s.Files[strings.TrimPrefix(strings.TrimSuffix(p, "/")+map[bool]string{true: "/index.html"}[p == "/"], "/")]; want != nil && !bytes.Equal(dec, want.Body) {
				t.Errorf("GET %s, %q: decoded body differs from the file", p, tc.accept)
			}
			if p == wasm && tc.enc == "" && !bytes.Equal(b, raw) {
				t.Errorf("identity wasm differs")
			}
		}
	}
	r := do(h, "GET", wasm, "Accept-Encoding", "br")
	if r.Header.Get("Content-Type") != "application/wasm" {
		t.Errorf("wasm Content-Type %q", r.Header.Get("Content-Type"))
	}
	if r.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
		t.Errorf("wasm Cache-Control %q", r.Header.Get("Cache-Control"))
	}
	if r.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("assets should allow other origins: %v", r.Header)
	}
	// A block pasted with the script tag reads its embed page's
	// pre-rendered output; the site's other pages stay its own.
	if r := do(h, "GET", "/embed/claim-race/1/"); r.StatusCode != 200 || r.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("an embed page: %d, %v", r.StatusCode, r.Header)
	}
	if r := do(h, "GET", "/lessons/claim-race/"); r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("a lesson page allows other origins to read it: %v", r.Header)
	}
	if !strings.Contains(wasm, "/assets/twice.") || len(wasm) != len("/assets/twice.0123456789.wasm") {
		t.Errorf("wasm not content-hashed: %s", wasm)
	}
}

func TestHandlerETag(t *testing.T) {
	s := fakeSite(t)
	h := s.Handler()
	for _, p := range []string{"/", "/lessons/claim-race/", wasmPath(t, s)} {
		for _, enc := range []string{"", "gzip", "br"} {
			r := do(h, "GET", p, "Accept-Encoding", enc)
			etag := r.Header.Get("ETag")
			if !strings.HasPrefix(etag, `"`) || !strings.HasSuffix(etag, `"`) || len(etag) < 10 {
				t.Errorf("GET %s (%s): ETag %q", p, enc, etag)
				continue
			}
			for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
				r2 := do(h, "GET", p, "Accept-Encoding", enc, "If-None-Match", inm)
				if b := body(t, r2); r2.StatusCode != 304 || len(b) != 0 || r2.Header.Get("ETag") != etag {
					t.Errorf("GET %s (%s) If-None-Match %s: %d, %d bytes, ETag %q", p, enc, inm, r2.StatusCode, len(b), r2.Header.Get("ETag"))
				}
			}
			if r3 := do(h, "GET", p, "Accept-Encoding", enc, "If-None-Match", `"stale"`); r3.StatusCode != 200 {
				t.Errorf("GET %s with a stale ETag: %d", p, r3.StatusCode)
			}
		}
		// Each encoding is its own representation, with its own ETag.
		a := do(h, "GET", p).Header.Get("ETag")
		b := do(h, "GET", p, "Accept-Encoding", "gzip").Header.Get("ETag")
		c := do(h, "GET", p, "Accept-Encoding", "br").Header.Get("ETag")
		if a == b || b == c || a == c {
			t.Errorf("GET %s: ETags %s %s %s should differ per encoding", p, a, b, c)
		}
	}
	if r := do(h, "GET", "/nope", "If-None-Match", "*"); r.StatusCode != 404 {
		t.Errorf("If-None-Match on a 404: %d", r.StatusCode)
	}
}

// TestExportMatchesServer checks the one render path: every file the
// export writes is byte for byte what the server answers for its path, in
// each encoding, and the export holds every path the server has.
func TestExportMatchesServer(t *testing.T) {
	t.Parallel()
	s := fakeSite(t)
	h := s.Handler()
	dir := t.TempDir()
	if err := s.Export(dir); err != nil {
		t.Fatal(err)
	}
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, dir+string(filepath.Separator)))
		if rel == BuildMarker {
			return nil // not a page: what lets twice build write here again
		}
		n++
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		target, enc := rel, "identity"
		switch {
		case strings.HasSuffix(rel, ".br") && s.Files[strings.TrimSuffix(rel, ".br")] != nil:
			target, enc = strings.TrimSuffix(rel, ".br"), "br"
		case strings.HasSuffix(rel, ".gz") && s.Files[strings.TrimSuffix(rel, ".gz")] != nil:
			target, enc = strings.TrimSuffix(rel, ".gz"), "gzip"
		}
		r := do(h, "GET", "/"+target, "Accept-Encoding", enc)
		got := body(t, r)
		if want := s.Files[target].Status; r.StatusCode != want {
			t.Errorf("%s: served with %d, want %d", rel, r.StatusCode, want)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%s: exported file differs from what the server serves (%s)", rel, enc)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, f := range s.Files {
		want++
		if f.Gzip != nil {
			want++
		}
		if f.Brotli != nil {
			want++
		}
	}
	if n != want {
		t.Errorf("export has %d files, the site %d", n, want)
	}
}

// TestBrotliLater checks that a server starts serving gzip for the big
// module and switches to brotli when the background compression is done.
func TestBrotliLater(t *testing.T) {
	t.Parallel()
	rt := fakeRuntime()
	rt.Wasm = append(rt.Wasm, []byte("different content, new hash")...)
	srv, err := NewServer(Options{Runtime: rt, Brotli: BrotliLater}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wasm := wasmPath(t, srv.Site())
	deadline := time.Now().Add(60 * time.Second)
	for {
		r := do(srv, "GET", wasm, "Accept-Encoding", "gzip, br")
		enc := r.Header.Get("Content-Encoding")
		if enc == "br" {
			break
		}
		if enc != "gzip" {
			t.Fatalf("before brotli is ready: Content-Encoding %q, want gzip", enc)
		}
		if time.Now().After(deadline) {
			t.Fatal("brotli form never became ready")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if r := do(srv, "GET", "/", "Accept-Encoding", "br"); r.Header.Get("Content-Encoding") != "br" {
		t.Error("small files should have brotli at once")
	}
}

func TestSitePath(t *testing.T) {
	for _, tc := range []struct{ path, key string }{
		{"/", "index.html"},
		{"/a/", "a/index.html"},
		{"/a/b.css", "a/b.css"},
	} {
		req := httptest.NewRequest("GET", tc.path, nil)
		if key, ok := sitePath(req); !ok || key != tc.key {
			t.Errorf("sitePath(%q) = %q, %v; want %q", tc.path, key, ok, tc.key)
		}
	}
}

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true,
		"localhost:80":   true,
		"[::1]:8080":     true,
		"127.1.2.3:1":    true,
		":8080":          false,
		"0.0.0.0:8080":   false,
		"[::]:8080":      false,
		"10.0.0.5:8080":  false,
		"example.com:80": false,
		"garbage":        false,
	} {
		if got := IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

func TestHTTPServerTimeouts(t *testing.T) {
	s := NewHTTPServer(http.NotFoundHandler())
	if s.ReadHeaderTimeout == 0 || s.ReadTimeout == 0 || s.WriteTimeout == 0 || s.IdleTimeout == 0 {
		t.Errorf("timeouts not all set: %+v", s)
	}
}

// TestLargeFromDisk: with a cache folder, the precompressed forms of a
// large file are sent from their copies on disk (sendfile on a TCP
// connection), byte for byte what memory holds; a copy on disk that does
// not have the right size is ignored.
func TestLargeFromDisk(t *testing.T) {
	t.Parallel()
	rt := fakeRuntime()
	rt.Wasm = append(rt.Wasm, []byte("from disk")...)
	dir := t.TempDir()
	srv, err := NewServer(Options{Runtime: rt, Brotli: BrotliLater, CacheDir: dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wasm := wasmPath(t, srv.Site())
	deadline := time.Now().Add(60 * time.Second)
	for srv.Site().Files[wasm[1:]].brotliPath == "" {
		if time.Now().After(deadline) {
			t.Fatal("brotli form never became ready")
		}
		time.Sleep(20 * time.Millisecond)
	}
	f := srv.Site().Files[wasm[1:]]
	if f.gzipPath == "" || filepath.Dir(f.gzipPath) != dir || filepath.Dir(f.brotliPath) != dir {
		t.Fatalf("disk copies: %q, %q; want both in %s", f.gzipPath, f.brotliPath, dir)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	get := func(enc string) ([]byte, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", hs.URL+wasm, nil)
		req.Header.Set("Accept-Encoding", enc)
		r, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		b := body(t, r)
		if r.ContentLength != int64(len(b)) {
			t.Errorf("%s: Content-Length %d, body %d bytes", enc, r.ContentLength, len(b))
		}
		return b, r.Header.Get("Content-Encoding")
	}
	for _, tc := range []struct {
		accept, enc string
		want        []byte
	}{{"gzip", "gzip", f.Gzip}, {"br", "br", f.Brotli}, {"identity", "", f.Body}} {
		if b, enc := get(tc.accept); enc != tc.enc || !bytes.Equal(b, tc.want) {
			t.Errorf("Accept-Encoding %s: got %d bytes as %q, want %d bytes as %q", tc.accept, len(b), enc, len(tc.want), tc.enc)
		}
	}
	// A damaged copy (here: cut short) is not sent.
	if err := os.WriteFile(f.gzipPath, f.Gzip[:len(f.Gzip)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := get("gzip"); !bytes.Equal(b, f.Gzip) {
		t.Errorf("with a short copy on disk: got %d bytes, want the %d in memory", len(b), len(f.Gzip))
	}
	if r := do(srv, "HEAD", wasm, "Accept-Encoding", "br"); r.ContentLength != int64(len(f.Brotli)) || len(body(t, r)) != 0 {
		t.Errorf("HEAD: Content-Length %d, want %d and no body", r.ContentLength, len(f.Brotli))
	}
}

// A small body gets a window just big enough for it, within brotli's
// bounds, and still decodes to itself; the compressed form is then shared
// by a second compressor (a re-render) instead of computed again.
func TestBrotliWindow(t *testing.T) {
	for _, tc := range []struct{ n, want int }{{0, 10}, {1000, 10}, {1025, 11}, {20_000, 15}, {1 << 20, 21}, {14 << 20, 24}, {1 << 30, 24}} {
		if got := brotliWindow(tc.n); got != tc.want {
			t.Errorf("brotliWindow(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
	body := bytes.Repeat([]byte("<p>two effects in 19 of 20 races</p>\n"), 600)
	f := newFile("page.html", body, 200, false)
	newCompressor("", BrotliNever).compress(f)
	dec, err := io.ReadAll(brotli.NewReader(bytes.NewReader(f.Brotli)))
	if err != nil || !bytes.Equal(dec, body) {
		t.Fatalf("the brotli form does not decode to the body (%v)", err)
	}
	g := newFile("page.html", body, 200, false)
	newCompressor("", BrotliNever).compress(g)
	if &g.Brotli[0] != &f.Brotli[0] {
		t.Errorf("a second compressor compressed the same small body again")
	}
}
