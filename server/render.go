package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"html/template"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tdewolff/parse/v2"
	jsparse "github.com/tdewolff/parse/v2/js"
	"github.com/yuin/goldmark"

	"github.com/twice-lab/twice/cases"
	"github.com/twice-lab/twice/lessons"
	"github.com/twice-lab/twice/runtime/bytesize"
	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/script/lang"
	"github.com/twice-lab/twice/runtime/script/result"
	"github.com/twice-lab/twice/server/class"
	"github.com/twice-lab/twice/server/markdown"
	"github.com/twice-lab/twice/server/wasmbuild"
	"github.com/twice-lab/twice/site"
)

// CSP is the Content-Security-Policy of every response, also written into
// each page as a meta element so that an export keeps it on a host that
// sends no headers. Scripts, styles, workers and fetches come from the
// site itself only; 'wasm-unsafe-eval' lets the worker compile the wasm
// module; blob: workers serve pages on other origins that embed the
// component (see twice.js).
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:; " +
	"connect-src 'self'; img-src 'self' data:; style-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'"

// FrameAncestors is added to the CSP header of every response but the
// embed pages (/embed/...), which blog posts anywhere frame: no other page
// can be framed by another site (clickjacking). Browsers ignore
// frame-ancestors in a meta element, so an export on a static host needs
// the host to send it (docs/EMBED.md).
const FrameAncestors = "frame-ancestors 'self'"

// Options configure how a site is rendered and served.
type Options struct {
	// LessonsDir is a teacher's lesson folder; "" means the built-in
	// lessons. A server re-reads the folder when its files change.
	LessonsDir string
	// Runtime is the wasm module and its wasm_exec.js. Required.
	Runtime *wasmbuild.Runtime
	// CacheDir keeps compressed forms of large files between runs; ""
	// keeps them in memory only.
	CacheDir string
	// Brotli says when the wasm module's brotli form is made.
	Brotli BrotliPolicy
	// RoomURL, under Live, is the URL other machines open (twice serve
	// on a network address): the index shows it with a QR code.
	RoomURL string
	// HideNotes leaves the lessons' teacher notes out of every page
	// (twice serve --notes=off); otherwise they are shown folded.
	HideNotes bool
	// Live makes the index and lesson pages reload themselves when the
	// server renders them anew (assets/reload.HASH.js asks the server's
	// __twice/version). twice serve sets it; an export never has it.
	Live bool
	// Teacher, under Live, reports whether a request comes from the
	// teacher: a page's teacher notes are served to the teacher only. nil
	// means a request from this machine (a loopback address).
	Teacher func(*http.Request) bool
	// Class, under Live, collects the class's predictions (twice serve
	// --class): the server answers its requests under /class/, and the
	// pages say they may send votes (data-twice-class). nil: no page
	// sends anything.
	Class http.Handler
}

// assetNames are the served names (under assets/) of the site's assets.
type assetNames struct {
	Style, Script, Playground, Worker, WasmExec, Wasm, SQLite, Offline string
	// Frame is what twice.js loads instead of the modules when it cannot
	// import them (frame.js).
	Frame string
	// Reload is the reload client, under Options.Live only.
	Reload string
	// Case is the case page's module, case.js, linked to the modules it
	// imports.
	Case string
	// Pulse is the class's module (pulse.js), which every page loads
	// under twice serve --class.
	Pulse string
	// Modules are the component's ES modules (see modules), in that
	// order. The service worker keeps them all.
	Modules []string
	// Preload are the entry module (boot.js), which Script imports, and
	// the modules it imports: what a page with a block preloads. The rest
	// (playground.js and its imports) loads later (see boot.js).
	Preload []string
}

// modules are the component's ES modules in site/static, each after every
// module it imports. The entry module, boot.js, defines the element and
// its Run button; it loads the rest, playground.js (the last), by the
// hashed name the page's CONFIG gives it (full), not by an import. Each
// is served under a content-hashed name; before it is hashed, its import
// specifiers are rewritten to the hashed names of the modules before it
// (see linkImports), so a change in a module changes the name of every
// module that imports it, directly or not. twice.js is not among them: it
// is the classic script that loads the entry module (see newRenderer).
var modules = []string{"config.js", "links.js", "render.js", "runtime-client.js", "boot.js", "pulse.js", "classroom.js", "predict.js", "sliders.js", "player.js", "stepaxis.js", "scheduler.js", "output.js", "timeline.js", "compare.js", "explore.js", "embed.js", "controls.js", "drafts.js", "playground.js"}

// siteRenderer renders sites: the assets once, the pages on each render.
type siteRenderer struct {
	md    goldmark.Markdown
	plain goldmark.Markdown // for the introduction and notes: no twice blocks run
	tmpl  *template.Template
	// caseTmpl is site/templates/case.html: a case's page and the index's
	// list of cases.
	caseTmpl *template.Template
	comp     *compressor
	assets   map[string]*File
	names    assetNames
	// configJSON is the component's config as twice.js carries it.
	configJSON []byte
	// dir is the lesson folder as errors name it; error pages show only
	// its last element when it is absolute.
	dir string
	sw  []byte // site/static/sw.js, configured per render
	// budget is the time a render may spend on blocks: MaxRenderTime
	// (tests set less).
	budget time.Duration
	// maxPages bounds the bytes of a site's lesson and embed pages:
	// MaxSiteBytes (tests set less).
	maxPages int
	// hideNotes is Options.HideNotes.
	hideNotes bool
	// live is Options.Live: a page's teacher notes go to the teacher only
	// (see addPage).
	live bool
	// class is whether pages may send votes (Options.Class under Live).
	class bool
	// room is the index's section with Options.RoomURL and its QR code,
	// or "".
	room string
	// rendering is the rendering page (see renderingPage).
	rendering *File
}

// newRenderer renders the assets. ready, when not nil, is called when a
// brotli form computed in the background (BrotliLater) is done.
func newRenderer(opts Options, ready func(etag string, br []byte, path string)) (*siteRenderer, error) {
	if opts.Runtime == nil || len(opts.Runtime.Wasm) == 0 || len(opts.Runtime.WasmExec) == 0 {
		return nil, errors.New("server: no runtime (wasm module and wasm_exec.js)")
	}
	r := &siteRenderer{md: markdown.New(), plain: markdown.NewPlain(), comp: newCompressor(opts.CacheDir, opts.Brotli), assets: map[string]*File{}, budget: MaxRenderTime, maxPages: MaxSiteBytes, hideNotes: opts.HideNotes,
		class: opts.Live && opts.Class != nil, live: opts.Live}
	r.comp.ready = ready
	if opts.LessonsDir != "" {
		r.dir = filepath.Clean(opts.LessonsDir)
	}
	tmpl, err := template.ParseFS(site.FS, "templates/page.html")
	if err != nil {
		return nil, err
	}
	r.tmpl = tmpl
	if r.caseTmpl, err = template.New("case.html").Funcs(template.FuncMap{"inc": func(i int) int { return i + 1 }}).ParseFS(site.FS, "templates/case.html"); err != nil {
		return nil, err
	}
	addMinified := func(name string, body []byte) string {
		hn := hashedName(name, body)
		f := newFile(hn, body, 200, true)
		r.comp.compress(f)
		r.assets["assets/"+hn] = f
		return hn
	}
	add := func(name string, body []byte) string { return addMinified(name, minified(name, body)) }
	r.names.Style = add("style.css", static("style.css"))
	r.names.Playground = add("playground.css", static("playground.css"))
	// The worker carries wasm_exec.js in front of its own code (see load
	// in worker.js): one request less before the module compiles.
	r.names.Worker = add("worker.js", workerScript(opts.Runtime.WasmExec, static("worker.js")))
	r.names.Offline = add("offline.js", static("offline.js"))
	r.names.Frame = add("frame.js", static("frame.js"))
	if opts.Live {
		r.names.Reload = add("reload.js", static("reload.js"))
		r.room = roomSection(opts.RoomURL)
	}
	r.sw = static("sw.js")
	r.names.WasmExec = add("wasm_exec.js", opts.Runtime.WasmExec)
	r.names.Wasm = add("twice.wasm", opts.Runtime.Wasm)
	r.names.SQLite = add("sqlite3.wasm", opts.Runtime.SQLiteModule())
	// The modules, leaves first, each minified, then linked to the hashed
	// names of those it imports, then hashed.
	hashed := map[string]string{}
	for _, name := range modules {
		body, err := linkImports(name, minified(name, static(name)), hashed)
		if err != nil {
			return nil, err
		}
		hashed[name] = addMinified(name, body)
		r.names.Modules = append(r.names.Modules, hashed[name])
	}
	r.names.Pulse = hashed["pulse.js"]
	// A case page's module is not the component's: it imports what it
	// needs of the component's modules.
	caseJS, err := linkImports("case.js", minified("case.js", static("case.js")), hashed)
	if err != nil {
		return nil, err
	}
	r.names.Case = addMinified("case.js", caseJS)
	config, err := r.config(len(opts.Runtime.Wasm)+len(opts.Runtime.SQLiteModule()), hashed["boot.js"], hashed[modules[len(modules)-1]])
	if err != nil {
		return nil, err
	}
	if r.names.Preload, err = r.importedBy(hashed["boot.js"]); err != nil {
		return nil, err
	}
	r.configJSON = config
	js, err := configure(static("twice.js"), config)
	if err != nil {
		return nil, err
	}
	r.names.Script = add("twice.js", js)
	// The stable name, for pages elsewhere that embed the component: the
	// same (minified) body as the hashed name. It is revalidated on every
	// use (no-cache), the modules it imports are cached for good.
	stable := newFile("twice.js", r.assets["assets/"+r.names.Script].Body, 200, false)
	r.comp.compress(stable)
	r.assets["assets/twice.js"] = stable
	r.rendering = r.renderingPage()
	return r, nil
}

// static is the embedded file site/static/name.
func static(name string) []byte {
	b, err := fs.ReadFile(site.FS, "static/"+name)
	if err != nil {
		panic("site: missing embedded file: " + err.Error())
	}
	return b
}

// roomSection is the index's section that gives the address of a live
// server to open on another machine, with its QR code; none without one.
func roomSection(url string) string {
	if url == "" {
		return ""
	}
	svg, err := QRSVG(url)
	if err != nil {
		return ""
	}
	u := html.EscapeString(url)
	return `<section class="room" aria-labelledby="room-title"><h2 id="room-title">Open on another machine</h2>
<p>On this network, open <a href="` + u + `">` + u + `</a>, or scan the code with a phone's camera:</p>
` + svg + "\n</section>\n"
}

// importedBy is the module served as assets/name and every module it
// imports, directly or not, each after those it imports.
func (r *siteRenderer) importedBy(name string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	var visit func(string) error
	visit = func(name string) error {
		if seen[name] {
			return nil
		}
		seen[name] = true
		f := r.assets["assets/"+name]
		if f == nil {
			return fmt.Errorf("site: no module %s", name)
		}
		specs, err := moduleSpecifiers(f.Body)
		if err != nil {
			return err
		}
		for _, spec := range specs {
			if err := visit(strings.TrimPrefix(spec, "./")); err != nil {
				return err
			}
		}
		out = append(out, name)
		return nil
	}
	return out, visit(name)
}

// config is the page's CONFIG, as JSON: the assets' hashed names (entry
// the module that starts the component, full the rest of it, wasmSize the bytes of the two
// wasm modules together, the Go program and SQLite) and
// the claims, dedupe modes, key choices and diagnosis kinds of the
// runtime's lists: the page keeps no copy of its own.
func (r *siteRenderer) config(wasmSize int, entry, full string) ([]byte, error) {
	choices := result.Choices()
	return json.Marshal(map[string]any{
		"entry":    entry,
		"full":     full,
		"frame":    r.names.Frame,
		"worker":   r.names.Worker,
		"wasmExec": r.names.WasmExec,
		"wasm":     r.names.Wasm,
		"sqlite":   r.names.SQLite,
		"wasmSize": wasmSize,
		"css":      r.names.Playground,
		"claims":   choices.Claims,
		"dedupes":  choices.Dedupes,
		"keys":     choices.Keys,
		"kinds":    choices.Kinds,
		// The most bytes a script may have: a link to a longer one is
		// refused before the page reads it.
		"maxScript": choices.MaxScript,
		"quiet":     choices.Quiet,

		// The claim Compare sets beside the block's own until the reader
		// picks another pair: the atomic claim, the fix the lessons teach.
		"compareTo": queue.ClaimAtomic.String(),
	})
}

// importRe matches the module specifier of an import or export statement,
// minified or not (import "./x.js"; import {a} from "./x.js"; export * from
// "./x.js"): a statement at the start of a line or after a semicolon,
// with no quote before its from. Group 2 is the quoted specifier. It is
// only the means of rewriting: linkImports checks what it found against
// the parser's list of the module's imports.
var importRe = regexp.MustCompile(`(?m)((?:^|;)\s*(?:import|export)\b(?:[^;"'\x60]*?\bfrom)?\s*)("[^"\n]*"|'[^'\n]*')`)

// linkImports rewrites the import specifiers of module name, "./x.js", to
// the hashed names in hashed ("./x.0123456789.js"). A specifier that is
// not "./" and a name in hashed is an error: a module the server does not
// serve, or one listed after its importer in modules. So is an import it
// could not rewrite. Only static import and export statements are linked
// (the modules use no dynamic import()).
func linkImports(name string, js []byte, hashed map[string]string) ([]byte, error) {
	specs, err := moduleSpecifiers(js)
	if err != nil {
		return nil, fmt.Errorf("site: %s: %w", name, err)
	}
	known := slices.Sorted(maps.Keys(hashed))
	for _, spec := range specs {
		if _, ok := hashed[strings.TrimPrefix(spec, "./")]; !ok || !strings.HasPrefix(spec, "./") {
			return nil, fmt.Errorf("site: %s imports %q, which is not one of the modules before it (%s)", name, spec, strings.Join(known, ", "))
		}
	}
	out := importRe.ReplaceAllFunc(js, func(m []byte) []byte {
		sub := importRe.FindSubmatch(m)
		quoted := string(sub[2])
		hn, ok := hashed[strings.TrimPrefix(quoted[1:len(quoted)-1], "./")]
		if !ok {
			return m // a string the parser does not call an import: checked below
		}
		return []byte(string(sub[1]) + quoted[:1] + "./" + hn + quoted[:1])
	})
	linked, err := moduleSpecifiers(out)
	want := make([]string, len(specs))
	for i, spec := range specs {
		want[i] = "./" + hashed[strings.TrimPrefix(spec, "./")]
	}
	if err != nil || !slices.Equal(linked, want) {
		return nil, fmt.Errorf("site: %s: its imports %q were rewritten to %q, want %q (%v)", name, specs, linked, want, err)
	}
	return out, nil
}

// moduleSpecifiers returns the specifiers, unquoted, of the import and
// export statements of a module, in order, as the minifier's parser reads
// them.
func moduleSpecifiers(js []byte) ([]string, error) {
	ast, err := jsparse.Parse(parse.NewInputBytes(js), jsparse.Options{})
	if err != nil {
		return nil, err
	}
	var specs []string
	for _, st := range ast.BlockStmt.List {
		var m []byte
		switch st := st.(type) {
		case *jsparse.ImportStmt:
			m = st.Module
		case *jsparse.ExportStmt:
			m = st.Module
		}
		if len(m) >= 2 {
			specs = append(specs, string(m[1:len(m)-1]))
		}
	}
	return specs, nil
}

// configure replaces the object after the /*TWICE_CONFIG*/ marker of
// twice.js, up to the end of its line, with config.
func configure(js, config []byte) ([]byte, error) {
	return configureAt(js, "/*TWICE_CONFIG*/", config)
}

// configureAt replaces the object after marker in js, up to the end of its
// line, with config.
func configureAt(js []byte, marker string, config []byte) ([]byte, error) {
	i := bytes.Index(js, []byte(marker))
	if i < 0 {
		return nil, errors.New("site: no " + marker + " line")
	}
	j := i + bytes.IndexByte(js[i:], '\n')
	if j < i {
		j = len(js)
	}
	var b bytes.Buffer
	b.Write(js[:i])
	b.WriteString(marker + " ")
	b.Write(config)
	b.WriteString(";")
	b.Write(js[j:])
	return b.Bytes(), nil
}

// pageData is what the page template receives.
type pageData struct {
	Kind    string // index, lesson, case, embed, offline, error, notfound
	Title   string
	Root    string // from the page to the site root: "", "../../", "/"
	CSP     string
	Assets  assetNames
	Script  bool // whether the page loads twice.js
	Offline bool // whether the page registers the service worker (offline.js)
	Content template.HTML
	Lesson  *lessonRef
	Prev    *lessonRef
	Next    *lessonRef
	// Refresh, when not 0, reloads the page after that many seconds.
	Refresh int
	// Time is the lesson's estimated time, or "".
	Time string
	// SiteTitle is the teacher's title of the site, or "".
	SiteTitle string
	// Version, under Options.Live, is the page's version, and Page its
	// path, which the reload client sends to the server.
	Version, Page string
	// Class says the page may send its readers' predictions to the
	// server (twice serve --class).
	Class bool
}

type lessonRef struct {
	Slug, Title string
	Number, Of  int
}

// livePage is page for the page at key (index.html, lessons/SLUG/index.html)
// of site s: under Options.Live it carries its version, recorded in
// s.Versions for the server's __twice/version.
func (r *siteRenderer) livePage(s *Site, key string, d pageData) []byte {
	if r.names.Reload != "" {
		// The version is a hash of what the page shows, taken before it
		// is written into the page.
		d.Page = key
		d.Version = hashHex(fmt.Appendf(nil, "%s\x00%s\x00%v\x00%v\x00%v", d.Title, d.Content, d.Lesson, d.Prev, d.Next), 16)
		s.Versions[key] = d.Version
	}
	return r.page(d)
}

func (r *siteRenderer) page(d pageData) []byte {
	d.CSP = CSP
	// The service worker serves the site's own pages; never the error
	// and not-found pages, whose addresses are not the site's.
	d.Offline = d.Kind == "index" || d.Kind == "lesson" || d.Kind == "case" || d.Kind == "embed" || d.Kind == "offline"
	d.Assets = r.names
	d.Class = r.class
	var b bytes.Buffer
	if err := r.tmpl.Execute(&b, d); err != nil {
		panic("site: page template: " + err.Error()) // the template is ours and tested
	}
	return b.Bytes()
}

// render renders the site from the lesson folder fsys; name is how errors
// name the folder ("lessons" for the built-in one). A broken lesson gets an
// error page (status 500) and is listed in Site.Err; a folder that cannot
// be read at all gives a site whose every page is that error.
//
// publish, when not nil, is given the site as it stands while the render
// goes on, so that a server has something to serve before every block has
// run: first, before any block runs, the assets and the index (counting
// each lesson's blocks, and as broken those whose options or script do
// not parse), then again after each lesson, with its pages; every other
// page is the rendering page meanwhile (see renderingSite). The site it
// returns has the index of the whole render.
func (r *siteRenderer) render(fsys fs.FS, name string, publish func(*Site)) *Site {
	s := &Site{Files: maps.Clone(r.assets), Versions: map[string]string{}, names: r.names, config: r.configJSON,
		Blocks: map[string]class.Scale{}, Teacher: map[string]*File{}, Notes: map[string][]byte{}}
	add := func(p string, body []byte, status int) *File {
		f := newFile(p, body, status, false)
		r.comp.compress(f)
		s.Files[p] = f
		return f
	}
	add("404.html", r.page(pageData{
		Kind: "notfound", Title: "Not found", Root: "/",
		Content: template.HTML(`<h1>Not found</h1>
<p>There is no page at this address. The lessons start at the <a href="/">index</a>.</p>`),
	}), 404)
	add(PlayPage, r.playPage(), 200)
	p, err := r.plan(fsys, name)
	if err != nil {
		s.Err = err
		s.Broken = add("index.html", r.errorPage("The lesson folder cannot be read", err, "/"), 500)
		return s
	}
	if publish != nil {
		publish(r.partial(s, p))
	}
	deadline := time.Now().Add(r.budget)
	counts := make([]lessonCount, len(p.ls))
	pages := 0 // bytes of the lesson and embed pages so far
	for i := range p.ls {
		counts[i] = r.renderLessonPages(s, p, i, deadline, pages, add)
		pages += counts[i].bytes
		if publish != nil && i+1 < len(p.ls) {
			publish(r.partial(s, p))
		}
	}
	caseErrs, casesBroken := r.renderCases(s, p, deadline, add)
	p.errs = append(p.errs, caseErrs...)
	add("index.html", r.livePage(s, "index.html", pageData{Kind: "index", Title: p.siteTitle, Script: p.hero, Content: template.HTML(r.index(p, counts, casesBroken))}), 200)
	add("sw.js", r.serviceWorker(s, r.offlinePage(p.refs, p.siteTitle)), 200)
	s.Err = errors.Join(p.errs...)
	return s
}

// PlayPage is the embed page of no lesson: one block that runs the
// script and seed its link carries (#block-1?seed=N&script=...), under
// the label its ?label= gives. A <twice-playground> on a page of another
// origin, whose site's host sends no CORS header, is shown in a frame of
// it when it names no embed page of its own (frame.js).
const PlayPage = "embed/play/index.html"

// playScript is what the play page's block holds before a link fills it.
const playScript = "race read 20\n"

// playPage renders PlayPage: its block pre-rendered at the default seed,
// claim and seed controls, and no lesson to link to.
func (r *siteRenderer) playPage() []byte {
	var buf bytes.Buffer
	opts, _ := lessons.ParseBlockOptions("twice") // the defaults
	markdown.WritePlayground(&buf, &markdown.Playground{Index: 1, Script: playScript, Options: opts,
		Result: markdown.Prerender(playScript, opts.Seed), Label: "a twice playground"})
	return r.page(pageData{Kind: "embed", Title: "A twice playground", Root: "../../", Script: true, Content: template.HTML(buf.String())})
}

// A plan is what a render knows before it runs any block: the folder's
// lessons and cases, the site's title, the index's head (that title and
// the introduction), the files left out, and the errors found so far.
type plan struct {
	name      string
	ls        []lessons.Lesson
	cases     []cases.Case
	refs      []*lessonRef
	siteTitle string
	head      string
	skipped   []string
	errs      []error
	// hero says the head holds the race's picture and its block;
	// after is what the index says after where to start.
	hero  bool
	after string
	// planned are the index's counts as the plan alone tells them
	// (partial), made once.
	planned []lessonCount
}

// lessonCount is what the index says of a lesson's blocks: how many, and
// how many are broken; or that the lesson cannot be shown at all. bytes
// are those of its pages.
type lessonCount struct {
	blocks, broken int
	unshown        bool
	bytes          int
}

// plan reads the lesson folder fsys, named name in errors, and runs
// nothing. The error is for a folder that cannot be read at all.
func (r *siteRenderer) plan(fsys fs.FS, name string) (*plan, error) {
	// One read of the folder gives its lessons and its cases.
	ls, cs, err := lessons.LoadAll(fsys)
	if err != nil && len(ls) == 0 {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p := &plan{name: name, ls: ls, cases: cs}
	// Files left out of the folder (refused, unreadable, untitled) are
	// named in the error and on the index; the other lessons render.
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			p.skipped = append(p.skipped, line)
			p.errs = append(p.errs, errors.New(prefixFile(name, line)))
		}
	}
	var head strings.Builder
	site, err := lessons.LoadSite(fsys)
	switch {
	case err != nil:
		p.errs = append(p.errs, errors.New(prefixFile(name, err.Error())))
		fallthrough
	case site == nil:
		// The first screen: what a reader will see (the race, drawn from
		// a real run) and the one thing to do (make it happen), then
		// where to start.
		head.WriteString(`<h1>Why a queued job runs twice</h1>
<p class="lede">A queue promises to run each job at least once. Here is how it runs one twice.</p>
`)
		head.Write(r.hero())
		p.hero = true
		p.after = `<p>These lessons show it by running it: a real SQLite jobs table, workers that hold leases, and a receipts service that records every request it gets. Every script runs in your browser; change it and press Run.</p>
`
	default:
		// A teacher's index file: its title and introduction.
		p.siteTitle = site.Title
		if p.siteTitle != "" {
			head.WriteString("<h1>" + html.EscapeString(p.siteTitle) + "</h1>\n")
		}
		intro, err := r.plainHTML(site.Intro)
		if err != nil {
			p.errs = append(p.errs, fmt.Errorf("%s: %v", prefixFile(name, lessons.SiteFile), err))
		}
		head.Write(intro)
	}
	p.head = head.String()
	p.refs = make([]*lessonRef, len(ls))
	for i, l := range ls {
		p.refs[i] = &lessonRef{Slug: l.Slug, Title: l.Title, Number: i + 1, Of: len(ls)}
	}
	return p, nil
}

// partial is the site s as it stands during a render of p (see render):
// its pages so far, the index as the plan alone tells it (no block run:
// a block counts as broken only when its options or its script do not
// parse), a service worker for those pages, and the rendering page for
// every page not rendered yet.
func (r *siteRenderer) partial(s *Site, p *plan) *Site {
	snap := &Site{Files: maps.Clone(s.Files), Versions: maps.Clone(s.Versions), Blocks: maps.Clone(s.Blocks), Teacher: maps.Clone(s.Teacher), Notes: maps.Clone(s.Notes), Broken: r.rendering}
	if p.planned == nil {
		// Once per render, not once per publish: a folder of many
		// lessons and blocks parses each block once.
		p.planned = make([]lessonCount, len(p.ls))
		for i, l := range p.ls {
			p.planned[i].blocks = len(l.Blocks)
			for _, b := range l.Blocks {
				if _, err := b.Options(); err != nil {
					p.planned[i].broken++
				} else if _, err := lang.Parse(b.Script); err != nil {
					p.planned[i].broken++
				}
			}
		}
	}
	// The index and the service worker change with every lesson
	// rendered: they are served as they are, not compressed, so that a
	// folder of n lessons compresses them once, not n times (200
	// lessons took 46 s to render, most of it compressing these).
	snap.Files["index.html"] = newFile("index.html", r.livePage(snap, "index.html", pageData{Kind: "index", Title: p.siteTitle, Script: p.hero,
		Content: template.HTML(r.index(p, p.planned, nil))}), 200, false)
	snap.Files["sw.js"] = newFile("sw.js", r.serviceWorker(snap, r.offlinePage(p.refs, p.siteTitle)), 200, false)
	return snap
}

// renderLessonPages renders lesson i of p, running its blocks, into s
// (with add): its page and an embed page per block. Its errors join p's.
// A lesson whose markdown passes a page's bounds, or that comes once the
// site's pages (pages bytes so far) have passed r.maxPages, gets an error
// page instead.
func (r *siteRenderer) renderLessonPages(s *Site, p *plan, i int, deadline time.Time, pages int, add func(string, []byte, int) *File) lessonCount {
	l := p.ls[i]
	file := path.Join(p.name, l.File)
	if p.name != "lessons" {
		file = filepath.Join(p.name, filepath.FromSlash(l.File))
	}
	page := "lessons/" + l.Slug + "/index.html"
	if pages > r.maxPages {
		err := fmt.Errorf("%s: not rendered: the site's pages passed %s; a site may have at most %s of pages: make its lessons or their blocks' output smaller, or fewer", file, bytesize.Words(r.maxPages), bytesize.Words(r.maxPages))
		p.errs = append(p.errs, err)
		add(page, r.errorPage("This lesson cannot be shown", err, "../../"), 500)
		return lessonCount{unshown: true}
	}
	body, st := markdown.RenderLesson(r.md, l, file, l.File, "../../", deadline)
	// A broken block fails in its block, with its message; the rest of
	// the page renders. The error still fails twice build.
	p.errs = append(p.errs, st.Errs...)
	if st.Fatal != nil {
		add(page, r.errorPage("This lesson cannot be shown", st.Fatal, "../../"), 500)
		return lessonCount{unshown: true}
	}
	var notes []byte
	if l.Notes != "" && !r.hideNotes {
		// Folded under the lesson's title.
		notes = r.notes(l.Notes)
		at := bytes.Index(body, []byte("</h1>\n"))
		if at < 0 {
			at = 0
		} else {
			at += len("</h1>\n")
		}
		body = slices.Concat(body[:at], notes, body[at:])
	}
	d := pageData{Kind: "lesson", Title: l.Title, Root: "../../", Script: len(st.Blocks) > 0,
		Content: template.HTML(body), Lesson: p.refs[i], Time: lessonTime(l), SiteTitle: p.siteTitle}
	if i > 0 {
		d.Prev = p.refs[i-1]
	}
	if i+1 < len(p.ls) {
		d.Next = p.refs[i+1]
	}
	n := len(r.addPage(s, add, page, r.livePage(s, page, d), notes).Body)
	for _, b := range st.Blocks {
		if sc, ok := blockScale(b); ok {
			s.Blocks["/lessons/"+l.Slug+"/#block-"+strconv.Itoa(b.Index)] = sc
		}
		var buf bytes.Buffer
		q := *b
		q.Embed = ""
		// A block shown alone, in a frame on another page, has no
		// lesson's prose around it to hold back: it does not ask first.
		q.Options.Predict = false
		markdown.WritePlayground(&buf, &q)
		n += len(add(fmt.Sprintf("embed/%s/%d/index.html", l.Slug, b.Index), r.page(pageData{
			Kind: "embed", Title: fmt.Sprintf("%s, script %d", l.Title, b.Index), Root: "../../../",
			Script: true, Content: template.HTML(buf.String()), Lesson: p.refs[i],
		}), 200).Body)
	}
	return lessonCount{blocks: len(st.Blocks), broken: broken(st.Blocks), bytes: n}
}

// index is the index page's content for plan p: the head, a line per
// lesson with its time and counts, the cases (casesBroken, when not nil,
// says which are broken), the room, the files left out and the offline
// control.
func (r *siteRenderer) index(p *plan, counts []lessonCount, casesBroken []bool) string {
	var index strings.Builder
	start := ""
	if len(p.ls) > 0 {
		l := p.ls[0]
		start = fmt.Sprintf(`<p class="start-here"><a class="start" href="lessons/%s/">Start with lesson 1 →</a> <span class="time">%s · about %s</span></p>
`, l.Slug, html.EscapeString(l.Title), html.EscapeString(lessonTime(l)))
	}
	if p.hero {
		// Where to start, in the first screen: under the sentence that
		// says what the picture shows, above the picture.
		head, rest, _ := strings.Cut(p.head, "</p>\n")
		index.WriteString(head + "</p>\n" + start + rest)
	} else {
		index.WriteString(p.head + start)
	}
	index.WriteString(p.after)
	if p.hero {
		index.WriteString(`<h2 id="lessons-title">The lessons</h2>
`)
	}
	index.WriteString(`<ol class="lessons">
`)
	for i, l := range p.ls {
		fmt.Fprintf(&index, `<li><a href="lessons/%s/">%s</a>`, l.Slug, html.EscapeString(l.Title))
		if counts[i].unshown {
			index.WriteString(` <span class="broken">(cannot be shown)</span></li>` + "\n")
			continue
		}
		fmt.Fprintf(&index, ` <span class="time">· about %s</span>`, html.EscapeString(lessonTime(l)))
		if n := counts[i].blocks; n > 0 {
			fmt.Fprintf(&index, ` <span class="blocks">· %d runnable %s</span>`, n, plural(n, "script", "scripts"))
		}
		if n := counts[i].broken; n > 0 {
			fmt.Fprintf(&index, ` <span class="broken">(%d broken %s)</span>`, n, plural(n, "block", "blocks"))
		}
		index.WriteString("</li>\n")
	}
	index.WriteString("</ol>\n")
	r.writeCaseList(&index, p.cases, casesBroken)
	index.WriteString(r.room)
	if len(p.skipped) > 0 {
		index.WriteString(`<section class="skipped" aria-labelledby="skipped-title"><h2 id="skipped-title">Files left out</h2>
<p>These files of the lesson folder were not read as lessons:</p>
<ul>
`)
		for _, line := range p.skipped {
			index.WriteString("<li><code>" + html.EscapeString(r.hideDir(line)) + "</code></li>\n")
		}
		index.WriteString("</ul>\n</section>\n")
	}
	index.WriteString(`<section class="offline" aria-labelledby="offline-title" hidden>
<h2 id="offline-title">Offline</h2>
<p>Every page you open here stays available without a network, with the runtime that runs its scripts. To take all of them along, on a train or into a classroom with a poor connection:</p>
<p><button type="button">Make all lessons available offline</button></p>
<p class="offline-status" role="status"></p>
</section>
`)
	return index.String()
}

// renderingSite is what a server serves before its first render has
// published anything (see render): the assets, and for every other path
// the rendering page.
func (r *siteRenderer) renderingSite() *Site {
	return &Site{Files: maps.Clone(r.assets), Broken: r.rendering}
}

// renderingPage is a short page (status 503) that says the lessons are
// being rendered and reloads itself every two seconds: what a server
// answers for a page its first render has not reached yet.
func (r *siteRenderer) renderingPage() *File {
	body := r.page(pageData{Kind: "rendering", Title: "Rendering", Root: "/", Refresh: 2,
		Content: template.HTML(`<h1>Rendering the lessons</h1>
<p role="status">twice is running this lesson's scripts to show their output. This page reloads by itself when it is ready.</p>`)})
	return newFile("rendering.html", body, http.StatusServiceUnavailable, false)
}

// swRoot stands for the site's root in the offline page that sw.js
// carries: the worker puts its scope there, so that the page's links and
// assets resolve wherever the page is answered.
const swRoot = "twice-sw-root/"

// offlinePage is the page the service worker answers, with no network, for
// a page of the site it has not kept: it says so and lists every lesson,
// each marked by offline.js as kept on this device or not (the worker
// says which), linking to those that are. Its links start with swRoot.
func (r *siteRenderer) offlinePage(refs []*lessonRef, siteTitle string) []byte {
	var b strings.Builder
	b.WriteString(`<h1>This page is not kept on this device</h1>
<p>The network does not answer, and <code class="offline-asked"></code> was never opened here, so there is no copy of it to show. The lessons you opened before are kept, with the runtime that runs their scripts:</p>
<p class="offline-status" role="status">Looking for the lessons kept on this device…</p>
<ol class="lessons offline-lessons">
`)
	for _, l := range refs {
		fmt.Fprintf(&b, `<li data-page="lessons/%s/"><a href="%slessons/%s/">%s</a> <span class="kept-mark"></span></li>`+"\n", l.Slug, swRoot, l.Slug, html.EscapeString(l.Title))
	}
	b.WriteString(`</ol>
<p>The <a href="` + swRoot + `">index</a> is kept too. Once the network is back, its button "Make all lessons available offline" keeps every lesson for the next time.</p>
`)
	return r.page(pageData{Kind: "offline", Title: "Not kept offline", Root: swRoot, SiteTitle: siteTitle, Content: template.HTML(b.String())})
}

// serviceWorker returns sw.js configured for site s: its shell (the index
// and the assets every page loads), its runtime (kept once a page has
// loaded it), its pages (the index, the
// lessons, the cases and the embed pages that rendered), a version that is a hash
// of both, so that any change of an asset's content (hence of its name) or
// of the list of pages is a new version, and the offline page (see
// offlinePage).
func (r *siteRenderer) serviceWorker(s *Site, offline []byte) []byte {
	n := r.names
	shell := []string{"", "assets/" + n.Style, "assets/" + n.Offline, "assets/" + n.Script, "assets/" + n.Playground, "assets/" + n.Worker}
	for _, m := range n.Modules {
		shell = append(shell, "assets/"+m)
	}
	shell = append(shell, "assets/"+n.Case, "assets/"+n.Frame)
	runtime := []string{"assets/" + n.WasmExec, "assets/" + n.Wasm, "assets/" + n.SQLite}
	var pages []string
	for _, p := range s.Paths() {
		f := s.Files[p]
		if f.Status != 200 || !strings.HasSuffix(p, "index.html") {
			continue
		}
		if p == "index.html" || strings.HasPrefix(p, "lessons/") || strings.HasPrefix(p, "cases/") || strings.HasPrefix(p, "embed/") {
			pages = append(pages, strings.TrimSuffix(p, "index.html"))
		}
	}
	list, _ := json.Marshal(map[string]any{"shell": shell, "runtime": runtime, "pages": pages})
	config, _ := json.Marshal(map[string]any{"version": hashHex(list, 12), "shell": shell, "runtime": runtime, "pages": pages,
		"offline": string(offline), "root": swRoot})
	js, err := configureAt(r.sw, "/*TWICE_SW*/", config)
	if err != nil {
		panic("site: sw.js: " + err.Error()) // the file is ours and tested
	}
	return minified("sw.js", js)
}

// addPage adds the page at key, whose body carries the teacher notes
// notes (or none), to s with add. Under Live, the page with its notes goes
// to the teacher only (Site.Teacher, Site.Notes), and the page everyone
// else gets has none; an export keeps them in the page.
func (r *siteRenderer) addPage(s *Site, add func(string, []byte, int) *File, key string, body, notes []byte) *File {
	if !r.live || len(notes) == 0 || !bytes.Contains(body, notes) {
		return add(key, body, 200)
	}
	f := newFile(key, body, 200, false)
	r.comp.compress(f)
	s.Teacher[key] = f
	s.Notes[key] = notes
	return add(key, bytes.Replace(body, notes, nil, 1), 200)
}

// notes renders a lesson's teacher notes, folded: a details element the
// teacher opens, which students' pages leave out under Options.HideNotes.
func (r *siteRenderer) notes(md string) []byte {
	body, _ := r.plainHTML([]byte(md))
	return slices.Concat([]byte(`<details class="teacher-notes"><summary>Teacher notes</summary>`+"\n"), body, []byte("</details>\n"))
}

// heroScript is the run the index's first screen draws and makes happen:
// two workers released at once on one job, claiming it with a read then
// an update.
const heroScript = "race read 1\n"

// hero renders the index's picture of heroScript's run and its block,
// "Make it happen" (the block option picture).
func (r *siteRenderer) hero() []byte {
	src := "```twice picture controls=none\n" + heroScript + "```\n"
	body, _ := markdown.RenderLesson(r.md, lessons.Lesson{Title: "The race", Source: []byte(src)}, "index", "index", "", time.Time{})
	return body
}

// lessonTime is about how long lesson l takes: its front matter's time
// when it gives one, else worked out from its words and blocks.
func lessonTime(l lessons.Lesson) string {
	if l.Time != "" {
		return l.Time
	}
	return fmt.Sprintf("%d min", lessons.Minutes(l))
}

// plainHTML converts md with the plain configuration (an introduction,
// notes, a case's prose). Markdown past a bound of a page gives its
// text, escaped, in one paragraph, and the error: what was converted of
// it is a part (tags left open), never written into a page.
func (r *siteRenderer) plainHTML(md []byte) ([]byte, error) {
	var b bytes.Buffer
	if err := r.plain.Convert(md, &b); err != nil {
		return []byte("<p>" + html.EscapeString(string(md)) + "</p>\n"), err
	}
	return b.Bytes(), nil
}

// MaxSiteBytes bounds the pages of a site, lessons' and embed pages
// together (the built-in site's are under 3 MB): once a render has written
// more, the lessons left are not rendered, each with an error page and a
// line that says why. With the bounds of a page (mdbound.Page: 8 MB),
// MaxBlockBytes and lessons.MaxLessons it bounds what a render holds.
const MaxSiteBytes = 64 << 20

// ServeMemory is the soft limit of twice serve's heap (see
// runtime/debug.SetMemoryLimit): the garbage collector keeps the heap
// under it while what is live fits, so that the process stays under
// 512 MB on any folder inside the bounds.
const ServeMemory = 320 << 20

// MaxRenderTime bounds the time a render spends running a lesson
// folder's blocks (see markdown.MaxRenderTime).
const MaxRenderTime = markdown.MaxRenderTime

// MaxBlockBytes bounds the markup of one block in a page (see
// markdown.MaxBlockBytes).
const MaxBlockBytes = markdown.MaxBlockBytes

// broken counts the broken blocks of a lesson.
func broken(blocks []*markdown.Playground) int {
	n := 0
	for _, p := range blocks {
		if p.Broken != "" {
			n++
		}
	}
	return n
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// prefixFile puts the folder's name before a message that starts with a
// file name relative to it, as errors of a render name files.
func prefixFile(dir, msg string) string {
	if dir == "lessons" {
		return dir + "/" + msg
	}
	return dir + string(filepath.Separator) + msg
}

// hideDir replaces the absolute path of the lesson folder in msg with its
// last element: pages never say where the site lives on the server.
func (r *siteRenderer) hideDir(msg string) string {
	if r.dir != "" && filepath.IsAbs(r.dir) {
		msg = strings.ReplaceAll(msg, r.dir, shownName(r.dir))
	}
	return msg
}

// errorPage renders an error page that quotes err.
func (r *siteRenderer) errorPage(title string, err error, root string) []byte {
	msg := r.hideDir(err.Error())
	content := `<div class="error-page"><h1>` + html.EscapeString(title) + `</h1>
<p>twice could not render it:</p>
<pre>` + html.EscapeString(msg) + `</pre>
<p>Fix the file and reload this page.</p></div>`
	return r.page(pageData{Kind: "error", Title: title, Root: root, Content: template.HTML(content)})
}

// lessonSource returns the lesson folder of opts, the name errors give it,
// and a function that closes the folder when done. A teacher's folder is
// read through an os.Root: no name, .. or symlink in it can reach a file
// outside the folder, and a file that tries is refused with an error that
// names it.
func lessonSource(opts Options) (fs.FS, string, func()) {
	if opts.LessonsDir == "" {
		return lessons.FS, "lessons", func() {}
	}
	name := filepath.Clean(opts.LessonsDir)
	root, err := os.OpenRoot(name)
	if err != nil {
		return errFS{err: unwrapPathErr(err)}, name, func() {}
	}
	return rootFS{root}, name, func() { root.Close() }
}

// LessonFolder opens the lesson folder dir on disk as twice serve and
// twice build read it (see lessonSource), for twice case: no file outside
// it is read, one that tries is refused in words, and no file is opened
// in a way that can block.
func LessonFolder(dir string) (fs.FS, func(), error) {
	root, err := os.OpenRoot(filepath.Clean(dir))
	if err != nil {
		return nil, nil, err
	}
	return rootFS{root}, func() { root.Close() }, nil
}

// rootFS is an os.Root's file system whose errors say, in words, that a
// file reaching outside the folder was refused. It opens every file with
// O_NONBLOCK, so that a named pipe swapped in after lessons.ReadFile's
// check cannot block the render, and stats without opening.
type rootFS struct{ root *os.Root }

func (r rootFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	f, err := r.root.OpenFile(name, os.O_RDONLY|lessons.OpenNonblock, 0)
	if err != nil {
		return nil, refused(name, err)
	}
	return f, nil
}

func (r rootFS) ReadFile(name string) ([]byte, error) { return lessons.ReadFile(r, name) }

func (r rootFS) ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := r.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, ok := f.(fs.ReadDirFile)
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a folder")}
	}
	ents, err := d.ReadDir(-1)
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, err
}

func (r rootFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	fi, err := r.root.Stat(name)
	return fi, refused(name, err)
}

func (r rootFS) Lstat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "lstat", Path: name, Err: fs.ErrInvalid}
	}
	fi, err := r.root.Lstat(name)
	return fi, refused(name, err)
}

func (r rootFS) ReadLink(name string) (string, error) {
	if !fs.ValidPath(name) {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	s, err := r.root.Readlink(name)
	return s, refused(name, err)
}

// refused rewords os.Root's escape error, which says only "path escapes
// from parent".
func refused(name string, err error) error {
	if err != nil && strings.Contains(err.Error(), "escapes") {
		return &fs.PathError{Op: "open", Path: name, Err: errors.New("refused: it leads outside the lesson folder (a symlink or .. to a file elsewhere)")}
	}
	return err
}

// errFS is a lesson folder that cannot be opened at all.
type errFS struct{ err error }

func (e errFS) Open(string) (fs.File, error) { return nil, e.err }

func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// shownName is how pages name the lesson folder: never an absolute path,
// which would tell every reader where the site lives on the server.
func shownName(dir string) string {
	if filepath.IsAbs(dir) {
		return filepath.Base(dir)
	}
	return dir
}

// Render renders the whole site once. Its error, when not nil, names every
// broken lesson by file and line; the returned Site is complete either way,
// with error pages in place of broken lessons.
func Render(opts Options) (*Site, error) {
	r, err := newRenderer(opts, nil)
	if err != nil {
		return nil, err
	}
	fsys, name, done := lessonSource(opts)
	defer done()
	s := r.render(fsys, name, nil)
	return s, s.Err
}

// workerScript is worker.js with the Go toolchain's wasm_exec.js (which
// defines Go, the module's host) in front of it, as one classic script:
// wasm_exec.js begins with "use strict", which then covers both.
func workerScript(wasmExec, worker []byte) []byte {
	b := make([]byte, 0, len(wasmExec)+len(worker)+2)
	b = append(b, wasmExec...)
	b = append(b, "\n;\n"...)
	return append(b, worker...)
}
