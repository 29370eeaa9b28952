// Package site holds the browser side of twice as embedded files: the page
// template, the style sheets, the <twice-playground> web component and the
// Web Worker that runs the WebAssembly build of the runtime. Package server
// renders pages with them and serves them; nothing here is Go logic.
//
// The files, under [FS]:
//
//	templates/page.html      the layout of every page (html/template)
//	templates/case.html      a case's page and the index's list of cases
//	static/style.css         page styles: index, lessons, embed and error pages
//	static/playground.css    styles inside the component's shadow root
//	static/twice.js          the loader: a classic script that imports the element
//	                         (and starts the worker, when a block is in view)
//	static/boot.js           the entry module: defines the <twice-playground> element
//	                         with its Run button (a first stage), loads the rest later
//	static/playground.js     the rest of the element, which upgrades each block: the
//	                         block's bar, runs and links, coordinating its views
//	static/output.js         the Output view: transcript, tables, diagnosis, matrix cells
//	static/timeline.js       the Timeline view: the picture and the step-through
//	static/compare.js        the Compare view: the script with two claims, side by side
//	static/explore.js        the Every ordering view: the races with --all
//	static/embed.js          the "Embed this block" snippets, and a pasted block's page
//	static/controls.js       the block's bar and script box
//	static/controls.js       the block's bar, script box and predict-then-run form, built
//	static/drafts.js         the reader's edits of a block, kept in the browser across reloads
//	static/runtime-client.js the Web Worker client: loads the runtime, queues runs
//	static/links.js          the claim toggle's pick of a script, links, commands
//	static/render.js         a run's Result drawn into the DOM, and its wording
//	static/classroom.js      predict-then-run's logic and the presenter view
//	static/predict.js        a block's ask-then-show: the form, the guess figure, the answer prose
//	static/sliders.js        a block's sliders: drag a number of the script, rewrite it, run
//	static/classroom.js      predict-then-run and the presenter view
//	static/pulse.js          under twice serve --class: votes, and the teacher's tallies
//	static/scheduler.js      the Be the scheduler view: the reader picks each worker's next step
//	static/player.js         a play control: Play / Pause, speed and a slider over n steps
//	static/stepaxis.js       a run drawn on its step axis (inline SVG), for Timeline and Compare
//	static/config.js         the config the loader hands the modules
//	static/worker.js         the Web Worker that loads and calls the wasm module
//	static/reload.js         under twice serve only: reloads a page its server rendered anew
//	static/offline.js        registers the service worker on the site's pages,
//	                         after their first Run's work
//	static/sw.js             the service worker
//	static/result-types.js   the Result's JSON as JSDoc types, for tsc only:
//	                         no code, never served
//
// twice.js carries a placeholder, the comment /*TWICE_CONFIG*/ followed by
// an object literal on the same line; the server replaces that object with
// the content-hashed names of the other assets (the entry module's among
// them) and the size of the wasm module, so that the one stable URL
// assets/twice.js finds the rest. It stays a classic script, for pages
// elsewhere that load it with a plain script tag, and passes that config
// (and the runtime's worker, when it started one) to boot.js's
// start. The modules import each other by their
// source names ("./links.js"); the server rewrites those to the hashed
// names it serves.
//
// No framework or build step: the JavaScript is written for current
// browsers and shipped as is (minified).
//
// The pure helpers (the claim toggle's pick, share links, the
// formatting of figures, the step-through's replay) live in links.js and
// render.js, which touch no browser global when imported, and are
// unit-tested under Node's built-in runner: jstest/*.test.mjs import them
// directly (package.json marks the folder's .js files as ES modules for
// node). go test runs them (TestJavaScript; it skips loudly without node),
// and so does node --test site/jstest/. The element itself is covered by
// the browser tests of package server, which also reach the helpers
// through window.TwicePlayground.
//
// eslint.config.mjs, beside this file and not embedded, is ESLint's
// configuration for static: which files are modules and which classic
// scripts, and the globals each has. tsconfig.json, beside it, is tsc's:
// the files that start with // @ts-check are type-checked (nothing is
// compiled) against result-types.js, the types of the runtime's Result
// JSON, which TestResultTypes holds to package result's json tags. CI
// runs both (see .ci/run).
package site

import "embed"

// FS holds the templates and static assets described in the package comment.
//
//go:embed templates static
var FS embed.FS
