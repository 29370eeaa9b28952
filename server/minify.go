package server

import (
	"bytes"
	"path"

	"github.com/tdewolff/minify/v2"
	cssmin "github.com/tdewolff/minify/v2/css"
	jsmin "github.com/tdewolff/minify/v2/js"
)

// minifier shrinks the JavaScript and CSS the pages load: comments and
// white space go, and local names get shorter. Everything a reader
// downloads before the first live result counts against the 2.8 MB budget
// of docs/PERFORMANCE.md, and this takes about 7 kB (brotli) off it. The
// sources in site/static stay readable; what is served is what this
// returns, in serve and in build alike.
var minifier = func() *minify.M {
	m := minify.New()
	m.AddFunc("css", cssmin.Minify)
	m.AddFunc("js", jsmin.Minify)
	return m
}()

// minified returns body minified by its file name's extension (.js or
// .css), or body itself for other files. A file the minifier cannot parse
// (a future wasm_exec.js using syntax it does not know, say) is served as
// it is rather than failing the site: a larger file, never a broken one.
// TestMinifiedAssets checks that every file we ship does minify.
func minified(name string, body []byte) []byte {
	kind := path.Ext(name)
	if kind != ".js" && kind != ".css" {
		return body
	}
	var out bytes.Buffer
	if err := minifier.Minify(kind[1:], &out, bytes.NewReader(body)); err != nil {
		return body
	}
	return out.Bytes()
}
