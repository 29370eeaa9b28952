package server

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/twice-lab/twice/lessons"
)

// A Server serves a rendered site over HTTP. With a lesson folder of a
// teacher's own (Options.LessonsDir) it renders the pages again when a
// lesson file changes, so edits show on reload.
//
// It learns of changes from the operating system's file notifications
// (fsnotify), watching only the folder itself, the one that holds it
// (which tells when the folder is replaced whole), and the folders of the
// files lessons.txt names: never a subfolder it does not need, and never
// a walk.
// Where notification is unavailable it falls back to looking at those same
// files at most once every CheckEvery, in one request while the others go
// on. Either way, what it looks at is the manifest, the files it names (or,
// without one, the folder's top-level .md files) and the site file
// (SiteFile): a stat each.
//
// A render runs in the background and every request meanwhile gets the
// last site rendered, so no request waits behind a heavy lesson (the one
// that found a change by looking waits for it up to RenderWait). The
// first render is served as it goes: [StartServer] returns once the index
// can be served (before any block has run), each lesson is served as soon
// as it is rendered, and the pages not rendered yet answer a short
// "rendering" page that reloads itself.
type Server struct {
	r    *siteRenderer
	site atomic.Pointer[Site]
	opts Options
	log  io.Writer

	mu   sync.Mutex // serializes renders and patches
	seen string     // fingerprint of the lesson folder at the last render

	every    time.Duration // CheckEvery; tests set it to 0
	next     atomic.Int64  // unix ns before which no check starts
	checking atomic.Bool   // a check (and maybe a render) is under way
	walks    atomic.Int64  // looks at the lesson folder, for tests
	renders  atomic.Int64  // renders done, for tests
	ready    chan struct{} // closed when the first render is done

	watcher  *fsnotify.Watcher      // nil: look on requests instead
	watching atomic.Bool            // the watcher works; false: look on requests
	watched  map[string]os.FileInfo // folders the watcher watches, as they were when it began
	recheck  atomic.Bool            // a folder began to be watched: look again
	stop     chan struct{}
	once     sync.Once
}

// CheckEvery is how often at most a server without file notifications
// looks for changes in its lesson folder, and RenderWait how long the
// request that found one waits for the new pages before it is served the
// old ones.
const (
	CheckEvery = time.Second
	RenderWait = 2 * time.Second
)

// settle is how long a watching server waits after a notification for
// more of them before it looks: an editor's save is often several writes.
const settle = 100 * time.Millisecond

// noWatch makes servers look on requests instead of watching (tests of the
// fallback).
var noWatch = false

// NewServer renders the site and returns a server for it. Broken lessons
// do not stop it: their blocks show their errors, and they are reported to
// log (which may be nil).
func NewServer(opts Options, log io.Writer) (*Server, error) {
	s, err := StartServer(opts, log)
	if err != nil {
		return nil, err
	}
	<-s.ready
	return s, nil
}

// StartServer returns a server as soon as it can serve the index (the
// lesson folder read, no block run yet), rendering the rest of the site
// in the background: each lesson is served once it has rendered, and
// until then its pages are a short page saying it is being rendered,
// which reloads itself; the assets are served from the start. A lesson
// folder that is slow to render does not keep the server from listening,
// nor the index from being served.
func StartServer(opts Options, log io.Writer) (*Server, error) {
	if log == nil {
		log = io.Discard
	}
	s := &Server{opts: opts, log: log, every: CheckEvery, ready: make(chan struct{}), stop: make(chan struct{})}
	// The renderer may start compressing an asset in the background at
	// once; brotliReady, which installs the result, takes s.mu, so it
	// waits here until s.r is set.
	s.mu.Lock()
	r, err := newRenderer(opts, s.brotliReady)
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	s.r = r
	s.site.Store(r.renderingSite())
	s.mu.Unlock()
	s.next.Store(time.Now().Add(s.every).UnixNano())
	if opts.LessonsDir != "" && !noWatch {
		if w, err := fsnotify.NewWatcher(); err == nil {
			s.watcher = w
			s.watching.Store(true)
			s.watched = map[string]os.FileInfo{}
		} else {
			fmt.Fprintf(log, "twice: no file notifications (%v); looking for changes at most once a second instead\n", err)
		}
	}
	first := make(chan struct{})
	var once sync.Once
	go func() {
		s.mu.Lock()
		s.render(func(site *Site) {
			s.site.Store(site)
			once.Do(func() { close(first) })
		})
		s.mu.Unlock()
		once.Do(func() { close(first) })
		close(s.ready)
		if s.watcher != nil {
			s.watch()
		}
	}()
	<-first
	return s, nil
}

// Ready is closed when the first render is done.
func (s *Server) Ready() <-chan struct{} { return s.ready }

// Close stops watching the lesson folder.
func (s *Server) Close() error {
	s.once.Do(func() { close(s.stop) })
	if s.watcher != nil {
		return s.watcher.Close()
	}
	return nil
}

// Site returns the site as currently rendered.
func (s *Server) Site() *Site { return s.site.Load() }

// fingerprint looks at the lesson folder; s.checking or s.mu is held.
func (s *Server) fingerprint() string {
	fsys, _, done := lessonSource(s.opts)
	defer done()
	s.walks.Add(1)
	return fingerprint(fsys)
}

// rerender renders the pages again; s.mu is held. Requests get the last
// site rendered until the new one is done.
func (s *Server) rerender() { s.render(nil) }

// render renders the pages, passing the site as it stands meanwhile to
// publish if that is not nil (see siteRenderer.render); s.mu is held.
func (s *Server) render(publish func(*Site)) {
	if s.opts.LessonsDir != "" {
		s.seen = s.fingerprint()
	}
	fsys, name, done := lessonSource(s.opts)
	defer done()
	start := time.Now()
	site := s.r.render(fsys, name, publish)
	s.site.Store(site)
	s.renders.Add(1)
	if site.Err != nil {
		fmt.Fprintf(s.log, "twice: lesson folder problems (shown in their blocks and on the index):\n%v\n", site.Err)
	}
	if s.opts.LessonsDir != "" {
		fmt.Fprintf(s.log, "twice: %s rendered in %.1fs\n", s.opts.LessonsDir, time.Since(start).Seconds())
	}
	// A render of a large folder leaves hundreds of megabytes it no
	// longer uses; hand them back to the system now rather than over the
	// next minutes, on a classroom machine that has little.
	debug.FreeOSMemory()
	if s.watching.Load() {
		s.watchFolders(fsys)
	}
}

// watchFolders watches the folders of the files a render looks at, each
// folder between them and the lesson folder, and the folder that holds
// the lesson folder, and stops watching the others; s.mu is held. A
// folder replaced whole (removed and copied back, or moved away and back,
// as an editor's save or a git checkout can) is watched again: each
// folder is checked to be the one watched, and the parent's watch tells
// of a lesson folder that comes back after it went away. A lesson folder
// (or its parent) that exists and cannot be watched makes the server fall
// back to looking on requests.
func (s *Server) watchFolders(fsys fs.FS) {
	root := s.root()
	want := map[string]bool{filepath.Dir(root): true, root: true}
	for _, name := range watchList(fsys) {
		for dir := path.Dir(name); dir != "." && dir != "/"; dir = path.Dir(dir) {
			want[filepath.Join(root, filepath.FromSlash(dir))] = true
		}
	}
	live := map[string]bool{}
	for _, p := range s.watcher.WatchList() {
		live[p] = true
	}
	// A folder before the folders in it: one that appears after its
	// parent is watched is told by the parent's watch.
	dirs := slices.Collect(maps.Keys(want))
	slices.SortFunc(dirs, func(a, b string) int {
		return cmp.Or(cmp.Compare(strings.Count(a, string(filepath.Separator)), strings.Count(b, string(filepath.Separator))), cmp.Compare(a, b))
	})
	for _, dir := range dirs {
		info, err := os.Stat(dir)
		if err != nil {
			// Gone, or not there yet: the watch of the folder above
			// tells when it comes.
			if live[dir] {
				s.watcher.Remove(dir)
			}
			delete(s.watched, dir)
			continue
		}
		if old, ok := s.watched[dir]; ok && live[dir] && os.SameFile(old, info) {
			continue
		}
		if live[dir] {
			s.watcher.Remove(dir)
		}
		if err := s.watcher.Add(dir); err != nil {
			delete(s.watched, dir)
			if dir == root || dir == filepath.Dir(root) {
				fmt.Fprintf(s.log, "twice: cannot watch %s (%v); looking for changes at most once a second instead\n", dir, err)
				s.watching.Store(false)
				s.watcher.Close()
				return
			}
			continue
		}
		s.watched[dir] = info
		// A file may have changed in it before the watch began: look
		// again once the notifications settle.
		s.recheck.Store(true)
	}
	for dir := range s.watched {
		if !want[dir] {
			s.watcher.Remove(dir)
			delete(s.watched, dir)
		}
	}
}

// root is the lesson folder's absolute path, as the watcher names it.
func (s *Server) root() string {
	root, err := filepath.Abs(s.opts.LessonsDir)
	if err != nil {
		return filepath.Clean(s.opts.LessonsDir)
	}
	return root
}

// watch renders again after notifications of a change, once they have
// settled, when the files a render reads did change. Of the folder that
// holds the lesson folder, only news of the lesson folder itself counts.
// Whether it renders or not, it then checks that the folders watched are
// still the ones in place (see watchFolders).
func (s *Server) watch() {
	w := s.watcher
	root := s.root()
	parent := filepath.Dir(root)
	var timer <-chan time.Time
	for {
		select {
		case <-s.stop:
			return
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if filepath.Dir(ev.Name) == parent && ev.Name != root && parent != root {
				continue // another entry of the parent folder
			}
			timer = time.After(settle)
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			fmt.Fprintf(s.log, "twice: watching %s: %v\n", s.opts.LessonsDir, err)
			timer = time.After(settle) // events may have been lost: look
		case <-timer:
			timer = nil
			s.mu.Lock()
			if s.fingerprint() != s.seen {
				s.rerender()
				fmt.Fprintf(s.log, "twice: %s changed, pages rendered again\n", s.opts.LessonsDir)
			} else if s.watching.Load() {
				fsys, _, done := lessonSource(s.opts)
				s.watchFolders(fsys)
				done()
			}
			watching := s.watching.Load()
			s.mu.Unlock()
			if !watching {
				return
			}
			if s.recheck.Swap(false) {
				timer = time.After(settle)
			}
		}
	}
}

// brotliReady installs a brotli form computed in the background.
func (s *Server) brotliReady(etag string, br []byte, path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for p, f := range s.r.assets {
		if f.ETag == etag {
			g := *f
			g.Brotli = br
			g.brotliPath = path
			s.r.assets[p] = &g
		}
	}
	old := s.site.Load()
	if old == nil {
		return
	}
	site := *old
	site.Files = maps.Clone(old.Files)
	var names []string
	for p, f := range site.Files {
		if f.ETag == etag {
			g := *f
			g.Brotli = br
			g.brotliPath = path
			site.Files[p] = &g
			names = append(names, p)
		}
	}
	s.site.Store(&site)
	slices.Sort(names)
	if len(names) == 1 && strings.HasSuffix(names[0], ".wasm") {
		fmt.Fprintf(s.log, "twice: brotli form of the runtime ready (%.1f MB)\n", float64(len(br))/1e6)
	}
}

// refresh looks for a change in the lesson folder, when the server does
// not watch it, one is due and no other request is looking, and renders
// again in the background if it finds one, waiting up to RenderWait for
// the new pages.
func (s *Server) refresh() {
	if s.opts.LessonsDir == "" || s.watching.Load() {
		return
	}
	select {
	case <-s.ready:
	default:
		return // the first render is under way
	}
	now := time.Now()
	if now.UnixNano() < s.next.Load() || !s.checking.CompareAndSwap(false, true) {
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			s.next.Store(time.Now().Add(s.every).UnixNano())
			s.checking.Store(false)
		}()
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.fingerprint() == s.seen {
			return
		}
		s.rerender()
		fmt.Fprintf(s.log, "twice: %s changed, pages rendered again\n", s.opts.LessonsDir)
	}()
	select {
	case <-done:
	case <-time.After(RenderWait):
	}
}

// watchList returns the files of the lesson folder fsys that a render
// reads or looks for (see lessons.Files): the manifest, the index file,
// and the lessons they name or, without either, the folder's top-level
// .md files. Nothing else in the folder is looked at.
func watchList(fsys fs.FS) []string { return lessons.Files(fsys) }

// fingerprint summarizes the names, kinds, sizes and modification times
// of the files of fsys that a render reads (see watchList), without
// opening any and without walking the folder.
func fingerprint(fsys fs.FS) string {
	h := sha256.New()
	for _, name := range watchList(fsys) {
		info, err := fs.Lstat(fsys, name)
		if err == nil && info.Mode()&fs.ModeSymlink != 0 {
			info, err = fs.Stat(fsys, name)
		}
		if err != nil {
			fmt.Fprintf(h, "%s error %v\n", name, err)
			continue
		}
		fmt.Fprintf(h, "%s %v %d %d\n", name, info.Mode(), info.Size(), info.ModTime().UnixNano())
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ServeHTTP serves the current site (see Handler) and, with
// Options.Class, the class's requests under /class/.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.opts.Class != nil && strings.HasPrefix(r.URL.Path, "/class/") {
		s.opts.Class.ServeHTTP(w, r)
		return
	}
	if r.URL.Path == VersionPath {
		s.refresh()
		s.serveVersion(w, r)
		return
	}
	if !strings.HasPrefix(r.URL.Path, "/assets/") {
		s.refresh()
	}
	if r.URL.Path == NotesPath {
		s.serveNotes(w, r)
		return
	}
	site := s.site.Load()
	if key, ok := sitePath(r); ok && site.Teacher[key] != nil && s.teacher(r) {
		site = &Site{Files: map[string]*File{key: site.Teacher[key]}}
	}
	serveSite(w, r, site)
}

// NotesPath is where a server with Options.Live answers the teacher
// notes of the page named by the query's page parameter (as VersionPath
// takes it), as an HTML fragment, to the teacher only (Options.Teacher):
// a teacher's browser on another machine, which has the class's key,
// shows them in the page it was served without them. A page without
// notes answers 204.
const NotesPath = "/__twice/notes"

func (s *Server) serveNotes(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Type", "text/plain; charset=utf-8")
	if r.Method != http.MethodGet {
		h.Set("Allow", "GET")
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	if !s.teacher(r) {
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, "403 forbidden: the teacher notes are for the teacher\n")
		return
	}
	notes, ok := s.site.Load().Notes[r.URL.Query().Get("page")]
	if !ok {
		w.WriteHeader(http.StatusNoContent) // a page without notes
		return
	}
	h.Set("Content-Type", "text/html; charset=utf-8")
	w.Write(notes)
}

// teacher reports whether r comes from the teacher: Options.Teacher, or
// by default a request from this machine.
func (s *Server) teacher(r *http.Request) bool {
	if s.opts.Teacher != nil {
		return s.opts.Teacher(r)
	}
	return FromLoopback(r)
}

// FromLoopback reports whether r came from this machine: a loopback
// address.
func FromLoopback(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// VersionPath is where a server with Options.Live answers the current
// version of the page named by the query's page parameter (index.html,
// lessons/SLUG/index.html), as text; the pages' reload client compares it
// with its own and reloads when they differ. A page the site no longer
// has answers 404, and the client reloads onto the site's answer.
const VersionPath = "/__twice/version"

func (s *Server) serveVersion(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	if !s.opts.Live {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	select {
	case <-s.ready:
	default:
		w.WriteHeader(http.StatusServiceUnavailable) // still rendering: ask again
		return
	}
	v, ok := s.site.Load().Versions[r.URL.Query().Get("page")]
	if !ok {
		v = "gone" // no such page any more: reload onto the site's answer
	}
	io.WriteString(w, v+"\n")
}

// Handler returns a handler that serves the fixed site s. It answers GET
// and HEAD only (405 otherwise), maps / and every path ending in / to its
// index.html, redirects a directory path without its slash as a static
// host does, and answers 404 with the site's 404.html for anything else,
// including every path with . or .. segments, backslashes or encoded
// slashes. Content-hashed assets are cached for a year; every other file
// is revalidated by its ETag. Precompressed forms are chosen by
// Accept-Encoding (brotli, then gzip).
func (s *Site) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { serveSite(w, r, s) })
}

func serveSite(w http.ResponseWriter, r *http.Request, s *Site) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
	if strings.HasPrefix(r.URL.Path, "/embed/") {
		h.Set("Content-Security-Policy", CSP) // framed by pages anywhere
	} else {
		h.Set("Content-Security-Policy", CSP+"; "+FrameAncestors)
		h.Set("X-Frame-Options", "SAMEORIGIN")
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		h.Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusMethodNotAllowed)
		io.WriteString(w, "405 method not allowed: use GET or HEAD\n")
		return
	}
	key, ok := sitePath(r)
	if !ok {
		notFound(w, r, s)
		return
	}
	f := s.Files[key]
	if f == nil {
		if !strings.HasSuffix(key, "index.html") && s.Files[key+"/index.html"] != nil {
			target := r.URL.Path + "/"
			if r.URL.RawQuery != "" {
				target += "?" + r.URL.RawQuery
			}
			h.Set("Location", target)
			w.WriteHeader(http.StatusMovedPermanently)
			return
		}
		notFound(w, r, s)
		return
	}
	// Pages on other origins may load the component and its runtime, and
	// read an embed page's pre-rendered output (a block pasted with the
	// script tag shows it before Run).
	serveFile(w, r, f, strings.HasPrefix(key, "assets/") || strings.HasPrefix(key, "embed/"))
}

// sitePath maps a request path to a key of Site.Files, refusing anything
// that is not a plain path.
func sitePath(r *http.Request) (string, bool) {
	p := r.URL.Path
	if !strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\\\x00") {
		return "", false
	}
	if raw := strings.ToLower(r.URL.RawPath); strings.Contains(raw, "%2f") || strings.Contains(raw, "%5c") {
		return "", false
	}
	key := p[1:]
	segs := strings.Split(key, "/")
	for i, seg := range segs {
		if seg == "." || seg == ".." || (seg == "" && i < len(segs)-1) {
			return "", false
		}
	}
	if key == "" || strings.HasSuffix(key, "/") {
		key += "index.html"
	}
	if filepath.IsAbs(key) {
		return "", false
	}
	return key, true
}

func notFound(w http.ResponseWriter, r *http.Request, s *Site) {
	f := s.Broken
	if f == nil {
		f = s.Files["404.html"]
	}
	if f == nil {
		http.NotFound(w, r)
		return
	}
	serveFile(w, r, f, false)
}

// serveFile writes f with its headers, picking an encoding.
// With cors, any origin may read it (Access-Control-Allow-Origin: *).
func serveFile(w http.ResponseWriter, r *http.Request, f *File, cors bool) {
	h := w.Header()
	if f.Immutable {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	if cors {
		h.Set("Access-Control-Allow-Origin", "*")
	}
	body, etag, disk := f.Body, f.ETag, ""
	if f.Gzip != nil || f.Brotli != nil {
		h.Set("Vary", "Accept-Encoding")
		switch negotiate(r.Header.Get("Accept-Encoding"), f.Brotli != nil, f.Gzip != nil) {
		case "br":
			body, etag, disk = f.Brotli, strings.TrimSuffix(f.ETag, `"`)+`-br"`, f.brotliPath
			h.Set("Content-Encoding", "br")
		case "gzip":
			body, etag, disk = f.Gzip, strings.TrimSuffix(f.ETag, `"`)+`-gz"`, f.gzipPath
			h.Set("Content-Encoding", "gzip")
		}
	}
	h.Set("Content-Type", f.Type)
	h.Set("ETag", etag)
	if f.Status == http.StatusOK && etagMatch(r.Header.Get("If-None-Match"), etag) {
		h.Del("Content-Type")
		h.Del("Content-Encoding")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method == http.MethodHead {
		w.WriteHeader(f.Status)
		return
	}
	// A large body that has a copy on disk is sent from there: on a TCP
	// connection net/http hands an *os.File to sendfile(2), so the kernel
	// moves the bytes without copying them through this process. Copying
	// 4 MB per request from memory cost enough CPU on a small machine that
	// under load some responses waited over 2 s (docs/PERFORMANCE.md). The
	// copy must still have the body's size; otherwise memory serves.
	if disk != "" {
		if file, err := os.Open(disk); err == nil {
			defer file.Close()
			if st, err := file.Stat(); err == nil && st.Mode().IsRegular() && st.Size() == int64(len(body)) {
				w.WriteHeader(f.Status)
				io.Copy(w, file)
				return
			}
		}
	}
	w.WriteHeader(f.Status)
	w.Write(body)
}

// etagMatch reports whether an If-None-Match header matches etag, by the
// weak comparison RFC 9110 prescribes for it.
func etagMatch(header, etag string) bool {
	if header == "" {
		return false
	}
	for t := range strings.SplitSeq(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}

// negotiate picks "br", "gzip" or "" (identity) from an Accept-Encoding
// header and the forms available, by q-value, preferring brotli on ties.
func negotiate(header string, br, gz bool) string {
	qBr, qGz, qStar := -1.0, -1.0, -1.0
	for part := range strings.SplitSeq(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		for p := range strings.SplitSeq(params, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(k, "q") {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					q = f
				}
			}
		}
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "br":
			qBr = q
		case "gzip", "x-gzip":
			qGz = q
		case "*":
			qStar = q
		}
	}
	if qBr < 0 {
		qBr = qStar
	}
	if qGz < 0 {
		qGz = qStar
	}
	if !br {
		qBr = -1
	}
	if !gz {
		qGz = -1
	}
	switch {
	case qBr > 0 && qBr >= qGz:
		return "br"
	case qGz > 0:
		return "gzip"
	}
	return ""
}
