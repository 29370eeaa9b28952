package server

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math/bits"
	"mime"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/andybalholm/brotli"

	"github.com/twice-lab/twice/server/class"
)

// A File is one file of the rendered site: its bytes, the headers it is
// served with, and its precompressed forms.
type File struct {
	// Body is the file's content: what a plain static host serves and what
	// Export writes.
	Body []byte
	// Type is the Content-Type.
	Type string
	// Status is the HTTP status the server answers with: 200, or 404 for the
	// not-found page. Pages of broken lessons have 500; Export refuses them.
	Status int
	// Immutable marks content-hashed names, cached for a year.
	Immutable bool
	// ETag is a strong validator of Body, quoted.
	ETag string
	// Gzip and Brotli hold Body compressed, or nil when it is not worth
	// compressing (or, for Brotli of a large file, not ready yet).
	Gzip, Brotli []byte

	// gzipPath and brotliPath name copies of Gzip and Brotli on disk (the
	// compressor's cache), for large files only: the server sends those
	// with sendfile(2) rather than copying them from memory. See serveFile.
	gzipPath, brotliPath string
}

// newFile makes a File of body, with the type its name implies.
func newFile(name string, body []byte, status int, immutable bool) *File {
	typ := mime.TypeByExtension(path.Ext(name))
	switch path.Ext(name) {
	case ".html":
		typ = "text/html; charset=utf-8"
	case ".css":
		typ = "text/css; charset=utf-8"
	case ".js":
		typ = "text/javascript; charset=utf-8"
	case ".wasm":
		typ = "application/wasm"
	case ".json":
		typ = "application/json"
	case "":
		typ = "application/octet-stream"
	}
	return &File{Body: body, Type: typ, Status: status, Immutable: immutable, ETag: `"` + hashHex(body, 20) + `"`}
}

// hashHex returns the first n hex digits of the SHA-256 of b.
func hashHex(b []byte, n int) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:n]
}

// hashedName puts a short content hash into a file name: style.css becomes
// style.0123456789.css.
func hashedName(name string, body []byte) string {
	ext := path.Ext(name)
	return strings.TrimSuffix(name, ext) + "." + hashHex(body, 10) + ext
}

// minCompress is the size below which files are not precompressed.
const minCompress = 512

// bigFile is the size from which a file's brotli form is computed under the
// compressor's BrotliBig policy (in practice: the wasm module).
const bigFile = 1 << 20

// BrotliPolicy says when the brotli form of a large file (the Go wasm
// module, about 5 MB) is made. Brotli at quality 11 takes about 40 s for it on a
// small machine; the result is cached on disk by content hash, so this
// matters only the first time a given module is compressed.
type BrotliPolicy int

const (
	// BrotliNow compresses before returning: twice build uses it, so an
	// export always has its .br files.
	BrotliNow BrotliPolicy = iota
	// BrotliLater serves gzip until brotli is ready, computing it in the
	// background: twice serve uses it, so the server starts at once.
	BrotliLater
	// BrotliNever skips brotli for large files (tests that do not need it).
	BrotliNever
)

// BrotliQuality is the brotli quality the compressor uses: the best (11)
// for what is served and exported. Tests that do not test compression set
// it low before they render, since quality 11 takes most of a render's
// time; the forms remembered across renders do not record the quality,
// so set it only before the first render.
var BrotliQuality = brotli.BestCompression

// GzipLevel is the gzip level the compressor uses: the best (9) for what
// is served and exported. Tests that do not test compression set it low,
// as they do BrotliQuality, and for the same reason.
var GzipLevel = gzip.BestCompression

// compressor makes and remembers gzip (GzipLevel) and brotli (BrotliQuality)
// forms of bodies, in memory and, when dir is set, on disk under
// dir/SHA256.gz and dir/SHA256.br.
type compressor struct {
	dir    string
	policy BrotliPolicy
	// ready is called when a background brotli compression has finished,
	// with the path of its copy on disk ("" if none).
	ready func(etag string, br []byte, path string)

	mu      sync.Mutex
	mem     map[string][]byte // key: sha256 + "." + encoding
	memSize int               // the bytes of the forms in mem
	maxMem  int               // the bound of memSize: maxMem (tests set less)
	pending map[string]bool
}

// maxMem bounds the forms a compressor keeps in memory (the runtime's two
// are about 8 MB): a server that renders a teacher's edits for hours, or
// a site of large pages, starts over rather than keep every form it made.
const maxMem = 128 << 20

// remember keeps form b under name in memory. c.mu must be held.
func (c *compressor) remember(name string, b []byte) {
	if c.memSize+len(b) > c.maxMem {
		clear(c.mem)
		c.memSize = 0
	}
	c.mem[name] = b
	c.memSize += len(b)
}

func newCompressor(dir string, policy BrotliPolicy) *compressor {
	return &compressor{dir: dir, policy: policy, mem: map[string][]byte{}, maxMem: maxMem, pending: map[string]bool{}}
}

// compress fills in f.Gzip and f.Brotli.
func (c *compressor) compress(f *File) {
	if len(f.Body) < minCompress || !compressible(f.Type) {
		return
	}
	sum := sha256.Sum256(f.Body)
	key := hex.EncodeToString(sum[:])
	f.Gzip = c.get(key, "gz", f.Body)
	f.gzipPath = c.path(key, "gz", len(f.Body))
	if len(f.Body) < bigFile || c.policy == BrotliNow {
		f.Brotli = c.get(key, "br", f.Body)
		f.brotliPath = c.path(key, "br", len(f.Body))
		return
	}
	if c.policy == BrotliNever {
		return
	}
	if b := c.lookup(key, "br"); b != nil {
		f.Brotli = b
		f.brotliPath = c.path(key, "br", len(f.Body))
		return
	}
	c.mu.Lock()
	started := c.pending[key]
	c.pending[key] = true
	c.mu.Unlock()
	if !started {
		etag := f.ETag
		body := f.Body
		go func() {
			br := c.get(key, "br", body)
			if c.ready != nil {
				c.ready(etag, br, c.path(key, "br", len(body)))
			}
		}()
	}
}

func compressible(typ string) bool {
	return strings.HasPrefix(typ, "text/") || typ == "application/wasm" || typ == "application/json" || strings.HasPrefix(typ, "image/svg")
}

// path returns where the enc form of a body of size n is kept on disk, or
// "" when it is not (small bodies, no cache folder).
func (c *compressor) path(key, enc string, n int) string {
	if c.dir == "" || n < bigFile {
		return ""
	}
	return filepath.Join(c.dir, key+"."+enc)
}

// lookup returns a cached form, from memory or disk, or nil.
func (c *compressor) lookup(key, enc string) []byte {
	c.mu.Lock()
	b, ok := c.mem[key+"."+enc]
	c.mu.Unlock()
	if ok {
		return b
	}
	if c.dir == "" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(c.dir, key+"."+enc))
	if err != nil {
		return nil
	}
	c.mu.Lock()
	c.remember(key+"."+enc, b)
	c.mu.Unlock()
	return b
}

// brotliWindow returns the base-2 log of the smallest brotli window that
// holds n bytes, within brotli's bounds (10 to 24).
func brotliWindow(n int) int {
	return min(24, max(10, bits.Len(uint(n))))
}

// smallForms remembers the compressed forms of small bodies (pages,
// scripts, styles) across every compressor of the process, so a re-render
// after a teacher's edit, or each of a test binary's many renders,
// compresses only the bodies that changed. It is emptied when it would
// grow past smallFormsMax.
var smallForms = struct {
	sync.Mutex
	m    map[string][]byte
	size int
}{m: map[string][]byte{}}

const smallFormsMax = 64 << 20

// compressions counts the bodies compressed (a form found cached is not),
// for the tests that hold a render's work to a count rather than a time.
var compressions atomic.Int64

// bigCompressions holds a place for each compression of a large body
// under way, in every server and build of the process: one at a time.
var bigCompressions = make(chan struct{}, 1)

// get returns the enc form of body, computing and caching it if needed.
func (c *compressor) get(key, enc string, body []byte) []byte {
	if b := c.lookup(key, enc); b != nil {
		return b
	}
	if len(body) < bigFile {
		smallForms.Lock()
		b, ok := smallForms.m[key+"."+enc]
		smallForms.Unlock()
		if ok {
			return b
		}
	}
	// A large body is compressed by one compression at a time: brotli's
	// encoder takes several times its body in memory, and a render of a
	// large folder would start one for every page at once.
	if len(body) >= bigFile {
		bigCompressions <- struct{}{}
		defer func() { <-bigCompressions }()
		if b := c.lookup(key, enc); b != nil {
			return b // another compression of the same body was ahead
		}
	}
	compressions.Add(1)
	var buf bytes.Buffer
	var w io.WriteCloser
	if enc == "br" {
		// The window need not be larger than the body: a 16 MiB window
		// (LGWin 24) for a 20 kB page costs tens of milliseconds of
		// clearing per page and compresses no better.
		w = brotli.NewWriterOptions(&buf, brotli.WriterOptions{Quality: BrotliQuality, LGWin: brotliWindow(len(body))})
	} else {
		w, _ = gzip.NewWriterLevel(&buf, GzipLevel)
	}
	w.Write(body)
	w.Close()
	b := buf.Bytes()
	c.mu.Lock()
	c.remember(key+"."+enc, b)
	c.mu.Unlock()
	if len(body) < bigFile {
		smallForms.Lock()
		if smallForms.size+len(b) > smallFormsMax {
			clear(smallForms.m)
			smallForms.size = 0
		}
		smallForms.m[key+"."+enc] = b
		smallForms.size += len(b)
		smallForms.Unlock()
	}
	if c.dir != "" && len(body) >= bigFile {
		writeAtomic(filepath.Join(c.dir, key+"."+enc), b) // a cache: failure only costs time
	}
	return b
}

// writeAtomic writes data to name through a temporary file and a rename, so
// that concurrent readers never see a partial file.
func writeAtomic(name string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), name)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// A Site is the whole rendered site: every file by its slash-separated path
// (index.html, lessons/one-job/index.html, assets/twice.0123456789.wasm).
// The server serves it and Export writes it; both use the same bytes.
type Site struct {
	Files map[string]*File
	// Err lists what is broken (lessons that failed to render), or is nil.
	Err error
	// Broken, when the lesson folder itself cannot be read, is the error
	// page served for every page that is not found.
	Broken *File
	// Versions, under Options.Live, holds the version of each index and
	// lesson page by its path; not part of an export.
	Versions map[string]string
	// Blocks holds the scale of each block's prediction, by its page's
	// path and its id (/lessons/SLUG/#block-1): the blocks a class may
	// vote on (see BlockScale).
	Blocks map[string]class.Scale
	// Teacher holds, under Options.Live, the pages that carry teacher
	// notes as the teacher gets them, by their key in Files (whose page
	// has none), and Notes those notes' HTML.
	Teacher map[string]*File
	Notes   map[string][]byte
	// names are the served names of the site's assets, and config the
	// component's config (SingleFile reads them).
	names  assetNames
	config []byte
}

// Paths returns the site's paths in sorted order.
func (s *Site) Paths() []string {
	paths := make([]string, 0, len(s.Files))
	for p := range s.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}

// Counts returns how many files an export of s writes: its pages and
// assets, and their compressed copies (.gz and .br). The BuildMarker file
// comes on top.
func (s *Site) Counts() (files, compressed int) {
	for _, f := range s.Files {
		files++
		if f.Gzip != nil {
			compressed++
		}
		if f.Brotli != nil {
			compressed++
		}
	}
	return files, compressed
}

// BuildMarker is the file Export leaves in a folder it wrote. A folder
// with it may be written again; any other folder that is not empty is
// refused unless ExportOptions.Force says otherwise, so that -o of the
// wrong folder (a home directory) scatters nothing into it.
const BuildMarker = ".twice-build"

// ExportOptions configure ExportWith.
type ExportOptions struct {
	// Force writes into a folder that is not empty and has no BuildMarker.
	Force bool
}

// Export writes the site under dir with the default options; see
// ExportWith.
func (s *Site) Export(dir string) error { return s.ExportWith(dir, ExportOptions{}) }

// ExportWith writes the site under dir, creating it if needed: each file at
// its path, and next to each precompressed file its .gz and .br forms
// (which a plain static host ignores and hosts with precompressed-file
// support serve). It refuses a site with broken lessons, and a folder that
// is not empty and that it did not write (see BuildMarker), unless
// o.Force; it then writes the marker last, so that a build into such a
// folder that fails leaves it unmarked. It writes through an os.Root of
// dir, each file to a temporary name that is then renamed over the old
// one: a symlink to a file is replaced, never written through, a folder
// on the way that is a symlink is refused by name, and no path leads
// outside dir. The marker lists the files it wrote; a later export into
// the folder removes those of them it no longer writes (a deleted
// lesson's pages), and nothing else that is there.
func (s *Site) ExportWith(dir string, o ExportOptions) error {
	if s.Err != nil {
		return s.Err
	}
	for _, p := range s.Paths() {
		if f := s.Files[p]; f.Status >= 500 {
			return fmt.Errorf("%s: page has status %d", p, f.Status)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return outDirErr(dir, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	foreign := checkOutDir(root, dir)
	if foreign != nil && !o.Force {
		return foreign
	}
	w := &exportWriter{root: root, dir: dir, real: map[string]bool{".": true}}
	var names []string
	for _, p := range s.Paths() {
		f := s.Files[p]
		names = append(names, p)
		if f.Gzip != nil {
			names = append(names, p+".gz")
		}
		if f.Brotli != nil {
			names = append(names, p+".br")
		}
	}
	var before []string
	if foreign == nil {
		before = writtenBefore(root)
		// Until the stale files are gone, the marker lists them too: an
		// export cut short still knows them next time.
		if err := w.write(BuildMarker, markerOf(append(slices.Clone(names), before...))); err != nil {
			return err
		}
	}
	for _, p := range s.Paths() {
		f := s.Files[p]
		if err := w.write(p, f.Body); err != nil {
			return err
		}
		if f.Gzip != nil {
			if err := w.write(p+".gz", f.Gzip); err != nil {
				return err
			}
		}
		if f.Brotli != nil {
			if err := w.write(p+".br", f.Brotli); err != nil {
				return err
			}
		}
	}
	w.removeStale(before, names)
	return w.write(BuildMarker, markerOf(names))
}

// markerHead is the BuildMarker's first line; the files the export wrote
// follow, one a line.
const markerHead = "This folder was written by twice build; it may write here again. The files it wrote:\n"

// markerOf is the BuildMarker's content for an export that wrote names.
func markerOf(names []string) []byte {
	slices.Sort(names)
	names = slices.Compact(names)
	return []byte(markerHead + strings.Join(names, "\n") + "\n")
}

// writtenBefore is the files the BuildMarker in root says an export
// wrote: none for a marker without the list (an older twice's).
func writtenBefore(root *os.Root) []string {
	f, err := root.Open(BuildMarker)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 64<<20))
	if err != nil {
		return nil
	}
	body, ok := strings.CutPrefix(string(b), markerHead)
	if !ok {
		return nil
	}
	var names []string
	for line := range strings.SplitSeq(body, "\n") {
		if line != "" && line != BuildMarker && fs.ValidPath(line) {
			names = append(names, line)
		}
	}
	return names
}

// removeStale removes the files of before that are not in now: regular
// files only, through the root, and then each folder they leave empty.
func (w *exportWriter) removeStale(before, now []string) {
	keep := map[string]bool{}
	for _, p := range now {
		keep[p] = true
	}
	dirs := map[string]bool{}
	for _, p := range before {
		if keep[p] {
			continue
		}
		if fi, err := w.root.Lstat(p); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if w.root.Remove(p) == nil {
			for d := path.Dir(p); d != "."; d = path.Dir(d) {
				dirs[d] = true
			}
		}
	}
	// Deepest first; a folder with anything left in it stays.
	ds := slices.Collect(maps.Keys(dirs))
	slices.SortFunc(ds, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	for _, d := range ds {
		if fi, err := w.root.Lstat(d); err == nil && fi.IsDir() {
			w.root.Remove(d)
		}
	}
}

// outDirErr says in words why the output folder dir could not be made
// (err, from os.MkdirAll): a symlink to nothing, or a file.
func outDirErr(dir string, err error) error {
	fi, lerr := os.Lstat(dir)
	switch {
	case lerr != nil:
		return err
	case fi.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(dir)
		return fmt.Errorf("%s is a symlink to %s, which does not exist: create that folder, or choose another", dir, target)
	case !fi.IsDir():
		return fmt.Errorf("%s is a file, not a folder: choose a folder to write the site into", dir)
	}
	return err
}

// exportWriter writes the files of an export through its folder's root.
type exportWriter struct {
	root *os.Root
	dir  string
	// real are the folders on the way to a file already seen to be
	// folders, not symlinks (or made by MkdirAll).
	real map[string]bool
}

// write writes body at p: to a temporary name, then renamed over p.
func (w *exportWriter) write(p string, body []byte) error {
	if err := w.folders(path.Dir(p)); err != nil {
		return err
	}
	if fi, err := w.root.Lstat(p); err == nil && fi.IsDir() {
		return fmt.Errorf("%s: refused: it is a folder where the site has a file: remove it, or choose another folder", filepath.Join(w.dir, p))
	}
	tmp := p + ".twice-tmp"
	w.root.Remove(tmp) // left by an export that was interrupted
	f, err := w.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	_, err = f.Write(body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = w.root.Rename(tmp, p)
	}
	if err != nil {
		w.root.Remove(tmp)
		return fmt.Errorf("%s: %w", p, err)
	}
	return nil
}

// folders makes the folder d and those above it, refusing one that is a
// symlink (a folder written through would put the site's files
// elsewhere, in dir or out of it) or not a folder.
func (w *exportWriter) folders(d string) error {
	if w.real[d] {
		return nil
	}
	if err := w.folders(path.Dir(d)); err != nil {
		return err
	}
	fi, err := w.root.Lstat(d)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := w.root.Mkdir(d, 0o755); err != nil {
			return fmt.Errorf("%s: %w", d, err)
		}
	case err != nil:
		return fmt.Errorf("%s: %w", d, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s: refused: it is a symlink, and twice build does not write through one: remove it, or choose another folder", filepath.Join(w.dir, d))
	case !fi.IsDir():
		return fmt.Errorf("%s: refused: it is a file where the site has a folder: remove it, or choose another folder", filepath.Join(w.dir, d))
	}
	w.real[d] = true
	return nil
}

// checkOutDir refuses a folder that has files in it and no BuildMarker.
func checkOutDir(root *os.Root, dir string) error {
	if fi, err := root.Lstat(BuildMarker); err == nil && fi.Mode().IsRegular() {
		return nil
	}
	d, err := root.Open(".")
	if err != nil {
		return err
	}
	defer d.Close()
	names, err := d.Readdirnames(1)
	if err != nil && err != io.EOF {
		return err
	}
	if len(names) > 0 {
		return fmt.Errorf("%s is not empty and twice build did not write it (it has no %s file): choose an empty or new folder, or pass --force to write into it anyway", dir, BuildMarker)
	}
	return nil
}
