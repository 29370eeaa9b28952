// Package site holds the browser side of twice as embedded files: the page
// template, the style sheets, the <twice-playground> web component and the
// Web Worker that runs the WebAssembly build of the runtime. Package server
// renders pages with them and serves them; nothing here is Go logic.
//
// The files, under [FS]:
//
//	templates/page.html   the layout of every page (html/template)
//	static/style.css      page styles: index, lessons, embed and error pages
//	static/playground.css styles inside the component's shadow root
//	static/twice.js       the <twice-playground> element (a classic script)
//	static/worker.js      the Web Worker that loads and calls the wasm module
//
// twice.js carries a placeholder, the comment /*TWICE_CONFIG*/ followed by
// an object literal on the same line; the server replaces that object with
// the content-hashed names of the other assets and the size of the wasm
// module, so that the one stable URL assets/twice.js finds the rest.
//
// No framework or build step: the JavaScript is written for current
// browsers and shipped as is.
//
// The pure helpers of twice.js (the claim toggle's rewriting, share links,
// the formatting of figures, the step-through's replay) are exposed on
// window.TwicePlayground and unit-tested under Node's built-in runner:
// jstest/*.test.mjs load twice.js as a page would, with the few globals
// its top level touches stubbed. go test runs them (TestJavaScript; it
// skips loudly without node), and so does node --test site/jstest/. The
// element itself is covered by the browser tests of package server.
package site

import "embed"

// FS holds the templates and static assets described in the package comment.
//
//go:embed templates static
var FS embed.FS
