// Package server renders the twice lessons into a site and serves it: the
// lesson pages with their runnable blocks, an embed page per block, the
// web component and the WebAssembly build of the runtime. The same
// rendered bytes are served by twice serve and written by twice build.
//
// # One render path
//
// [Render] (and [NewServer], which calls the same code) turns a lesson
// folder and a [Runtime] into a [Site]: a map from slash-separated path to
// [File], holding every byte the site consists of, with each file's type,
// status, ETag and precompressed forms. [Site.Handler] and [Server] serve
// that map; [Site.Export] writes it to a directory. Nothing is rendered per
// request, so an export is by construction what the server serves, and a
// test checks it byte for byte.
//
// The layout of a site:
//
//	index.html                    the lessons in manifest order
//	lessons/SLUG/index.html       one lesson
//	embed/SLUG/N/index.html       block N of a lesson alone, for an iframe
//	cases/SLUG/index.html         one case: its evidence desk, made at render time (case.go, site/templates/case.html)
//	404.html                      the not-found page (root-absolute links)
//	sw.js                         the service worker: stable name, no-cache
//	assets/twice.js               the component's loader, at a stable URL for embedders
//	assets/twice.HASH.js          the same bytes, content-hashed, for our pages
//	assets/playground.HASH.js     the element: the entry module the loader imports
//	assets/runtime-client.HASH.js its Web Worker client (module)
//	assets/links.HASH.js          links to a run, commands, the claim toggle's pick (module)
//	assets/render.HASH.js         a run's Result drawn into the DOM (module)
//	assets/classroom.HASH.js      predict-then-run, the presenter view (module)
//	assets/predict.HASH.js        a block's ask-then-show form and guess figure (module)
//	assets/sliders.HASH.js        a block's sliders for its script's numbers (module)
//	assets/scheduler.HASH.js      Be the scheduler (module)
//	assets/config.HASH.js         the config the loader hands the modules
//	assets/case.HASH.js           a case page's verdicts, hints, progress and replay link, and the check lines the runtime judges (module)
//	assets/style.HASH.css         page styles
//	assets/playground.HASH.css    the component's styles (shadow root)
//	assets/worker.HASH.js         the Web Worker glue
//	assets/offline.HASH.js        registers sw.js on the site's own pages
//	assets/wasm_exec.HASH.js      the Go toolchain's wasm_exec.js
//	assets/twice.HASH.wasm        the runtime, GOOS=js GOARCH=wasm
//	assets/sqlite3.HASH.wasm      the SQLite the runtime imports (third_party/sqlitewasm)
//
// Pages link to each other and to assets by relative URLs, so an export
// works from any directory of any static host. Directory URLs end in a
// slash; the server redirects /lessons/x to /lessons/x/ as static hosts do.
//
// # Lessons and twice blocks
//
// Lessons are read with package lessons (see its documentation for the
// folder format: a lessons.txt manifest, or every *.md file by name).
// Markdown is rendered by goldmark, configured once in package markdown
// (CommonMark, GitHub tables, strikethrough, heading ids; raw HTML is not
// passed through). An AST transformer replaces each fenced block whose
// language is twice with a [markdown.Playground] node, a node kind of its
// own with its own renderer; other fenced blocks keep goldmark's rendering.
//
// The transformer runs each block's script natively with interp.Run at the
// block's seed. The rendered element holds the script and that output as
// text, so a reader sees real output before any wasm loads, and a reader
// without JavaScript sees both as plain <pre> blocks:
//
//	<twice-playground id="block-1" seed="1" controls="claim seed" ...>
//	<pre class="twice-script"><code>race read 20</code></pre>
//	<pre class="twice-output"><code>W1 run ...</code></pre>
//	<script type="application/json" class="twice-result">{...}</script>
//	</twice-playground>
//
// The JSON is the pre-rendered Result without its trace, from which the
// component draws its tables at once. Options go in the info string after
// the word twice; see [lessons.BlockOptions]. A block marked predict
// carries a predict attribute and its output inside a <details> element,
// folded until the reader opens it; a block written as the article's shell
// line carries its plain commands in a plain attribute, for embed
// snippets. A block whose options are
// wrong, or whose script fails at its seed (unless marked fails), is
// broken: the block shows the error, naming the file, line and column,
// and the rest of its page renders as usual; [Render] returns the error,
// and twice build fails with it.
//
// A render is bounded: package lessons refuses files that are not regular,
// files over 1 MiB, lessons with over 100 blocks, the files of a folder
// past its first 200 lessons or its first 16 MiB, and markdown past the
// bounds of a page (package internal/mdbound: time, nesting, table cells,
// elements) or past the folder's time to read (each by name, the others
// still render); a render reads the folder once. Markdown is converted
// under the same bounds and a page's bytes (8 MB); a lesson past one is
// not shown, its page an error page, and an introduction, notes or a
// case's prose past one show their text, escaped. A block whose markup
// passes [MaxBlockBytes] is broken; once the site's pages pass
// [MaxSiteBytes] the lessons left are not rendered; once a render has run
// blocks for [MaxRenderTime] the blocks left fail in their blocks, and
// the markdown left has a fraction of a second per lesson. The results kept between renders and the compressed forms kept
// in memory are bounded in bytes.
//
// # The runtime
//
// The [Options.Runtime] a render serves is package wasmbuild's: the Go
// module compiled for the browser, its wasm_exec.js and the SQLite module.
//
// # HTTP
//
// The handler answers GET and HEAD (405 with Allow otherwise). Paths with
// . or .. segments, empty segments, backslashes, NUL or encoded slashes get
// the 404 page; nothing is read from disk at request time, so no path can
// escape the site. Every response carries [CSP] and X-Content-Type-Options:
// nosniff; every response outside embed/ also carries [FrameAncestors] in
// the CSP header and X-Frame-Options: SAMEORIGIN, so only embed pages can
// be framed by another site.
//
// A teacher's lesson folder is read through an [os.Root]: a lesson that is
// a symlink to a file outside it, or a .. in lessons.txt, is refused by
// name. A [Server] learns of changes from file notifications (fsnotify),
// watching only the folders of the files it reads (and the one holding
// the lesson folder, so that a folder replaced whole is watched again),
// or where those are unavailable looks at those files at most every [CheckEvery]; it never
// walks the folder. It renders in the background while the last site is
// served; [StartServer] returns once the index can be served, before any
// block has run, and serves each lesson as soon as the first render has
// reached it, a "rendering" page for it until then (see [Server]). Under
// [Options.Live] (twice serve, never an export) the index and lesson
// pages carry a version and load assets/reload.HASH.js, which asks
// [VersionPath] for the page's current version every 1.5 s and reloads
// the tab when it differs: an edit shows in every open tab of its lesson.
// Under Live, a page with teacher notes has them only for the teacher
// ([Options.Teacher]: by default a browser on the serving machine; the
// notes alone at [NotesPath]); with [Options.Class] (twice serve --class),
// requests under /class/ go to the class's votes (package server/class)
// and the pages load pulse.js, which sends them. Error pages name files relative to
// the folder, never by an absolute path. [Site.ExportWith] writes only
// into an empty folder or one it wrote (a [BuildMarker] file), through an
// os.Root, each file to a temporary name then renamed, never through a
// symlinked folder. Content-hashed assets are served with Cache-Control: public,
// max-age=31536000, immutable; everything else with no-cache and a strong
// ETag, answering If-None-Match with 304. Files of 512 bytes or more are
// precompressed with gzip -9 and brotli -q 11 and chosen by
// Accept-Encoding (brotli first on ties), with Vary: Accept-Encoding and a
// distinct ETag per encoding. Assets carry Access-Control-Allow-Origin: *
// so that pages elsewhere can embed the component: browsers fetch its
// modules, like the runtime, with CORS. So do embed pages, from which a
// block pasted with the script tag reads its pre-rendered output.
//
// Brotli at quality 11 takes about 40 s for the 5 MB Go module, so the
// compressed forms of large files are cached on disk by content hash
// ([CacheDir]), and [BrotliPolicy] decides what happens on a cache miss:
// twice build waits; twice serve starts at once, serves gzip, and switches
// to brotli when the background compression is done. Those cached copies
// are also what the server sends for large files, from disk, so that
// net/http can use sendfile(2) instead of copying megabytes per response
// through the process (docs/PERFORMANCE.md, "Server").
//
// [NewHTTPServer] sets read, write and idle timeouts; twice serve listens
// on [DefaultAddr], loopback only, and warns when told to listen elsewhere;
// then it prints [LANURLs] and a [QRText] of the first (a small QR module,
// github.com/piglig/go-qr, draws it), and its index shows that URL with a
// [QRSVG] of it ([Options.RoomURL]).
//
// # The browser side
//
// The component, the worker and the styles are package site's embedded
// files; see its documentation and site/static/playground.js.
//
// The component is ES modules, served under content-hashed names like
// every asset, so an import must name the hashed file. The server renders
// them in the order of modules (leaves first) and, before hashing each,
// rewrites its import specifiers ("./links.js") to the hashed names of
// those already rendered (see linkImports): a change in a module changes
// the name of every module that imports it, and an import of a name the
// server does not serve fails the render. The stable assets/twice.js is a
// classic script, since pages elsewhere load it with a plain script tag:
// it carries the config (the hashed names of the other assets and the
// runtime's lists; see configure) and imports the hashed entry module,
// resolved against its own address (boot.js, which loads the rest,
// playground.js, after the first result or when the page is idle). The
// site's pages load the same loader and preload the entry module and its
// imports (link rel=modulepreload); the service worker keeps every module.
//
// In short: the component loads the runtime into one Web Worker per page
// when a block is in view (not on the index, whose block is its first
// screen's race), the pointer or the focus reaches a Run button, or on
// the first Run; shows the download's progress and size, runs
// scripts there (the page never blocks), and inserts every result as
// text. When a block is in view as the page loads, the loader itself
// starts the worker, before the modules have loaded, and the component
// takes it over (twice.js, runtime-client.js): waiting for the module
// graph's round trips and the element's setup delayed the download, and
// all that follows it, by a few hundred ms. A page on another origin
// starts it from the component, as a blob: worker; one whose twice host
// sends no CORS header cannot import the modules at all, and twice.js
// loads frame.js instead, which shows each block in a frame of its embed
// page. Beside the output it offers the timeline
// (the runtime's SVG, shown as a data: image, which the CSP's img-src
// allows), a step-through of the event trace, both claims side by side,
// "Check every interleaving" (race CLAIM --all), and links that replay a
// run from the fragment alone (#block-N?seed=..&script=..&claim=..), so
// they work on an export as well.
//
// # Offline
//
// sw.js is rendered with the site: the server writes into it the shell
// (the index and the assets every page loads), the runtime, the list of
// pages, and a version that is a hash of them. Because every asset name
// carries a content hash, a change anywhere is a new version; the worker
// keeps one cache per version and deletes the old one once the new one has
// taken over, so a page is never served with another version's assets.
// Pages are fetched from the network first and kept; assets come from the
// cache; the runtime is kept once a page has loaded it. The page a first
// visit starts on loaded before the worker existed, so offline.js asks
// the worker to keep it. Only the index,
// lesson and embed pages load offline.js, which registers the worker; a
// page elsewhere that embeds a block by script tag never does. It
// registers it once the page's first Run work is done (the runtime's
// first result, its warm-up, or its failure; 10 s after the load event
// at the latest), or after the load event on a page without blocks and
// on the index, so
// that the worker's install does not compete with the first Run for the
// CPU and the network; the index's "Make all lessons available offline"
// registers it at once.
package server
