package server

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/twice-lab/twice/runtime/bytesize"
)

// MaxSingleFile bounds the one-file build: a file a teacher can hand out
// on a USB stick, an LMS upload or an e-mail attachment.
const MaxSingleFile = 3 << 20

// SingleFile writes the whole site (the index, every lesson, the cases and
// the runtime) as one HTML file that opens from file:// with no server and
// no network. Nothing in it is fetched: the stylesheet is inline; the ES
// modules are data: URLs under an import map, each importing the others by
// a bare name the map resolves; the two WebAssembly modules and each page's
// body are gzipped and base64 in the file, and the loader (site/static/
// single.js) decompresses them in the page (DecompressionStream). The
// worker starts from a blob: URL and is handed the modules' bytes. Each
// page is at FILE.html#/PATH, the path it is served at (#/lessons/SLUG/);
// a link to a run keeps its page's route in front of the block's
// fragment. The site's embed pages and its service worker are left out:
// a file has no origin to embed from and no offline to add.
func (s *Site) SingleFile() ([]byte, error) {
	n := s.names
	if n.Worker == "" || len(n.Modules) == 0 {
		return nil, errors.New("single file: the site has no assets")
	}
	asset := func(name string) ([]byte, error) {
		f := s.Files["assets/"+name]
		if f == nil {
			return nil, fmt.Errorf("single file: the site has no assets/%s", name)
		}
		return f.Body, nil
	}

	// The modules, each as a data: URL whose imports name the others
	// bare ("twice/NAME"), which the import map resolves.
	mods := slices.Clone(n.Modules)
	if n.Case != "" {
		mods = append(mods, n.Case)
	}
	imports := map[string]string{}
	dataURL := map[string]string{}
	for _, name := range mods {
		body, err := asset(name)
		if err != nil {
			return nil, err
		}
		for _, other := range mods {
			body = bytes.ReplaceAll(body, []byte(`"./`+other+`"`), []byte(`"twice/`+other+`"`))
		}
		u := "data:text/javascript;base64," + base64.StdEncoding.EncodeToString(body)
		imports["twice/"+name] = u
		dataURL[name] = u
	}
	importMap, err := json.Marshal(map[string]any{"imports": imports})
	if err != nil {
		return nil, err
	}
	css, err := asset(n.Playground)
	if err != nil {
		return nil, err
	}
	config, err := s.singleConfig(dataURL, "data:text/css;base64,"+base64.StdEncoding.EncodeToString(css))
	if err != nil {
		return nil, err
	}

	// The pages, each its body's HTML with its links made routes.
	type page struct {
		Title string `json:"title"`
		Kind  string `json:"kind"`
		Body  string `json:"body"`
	}
	pages := map[string]page{}
	for _, p := range s.Paths() {
		if !singlePage(p) {
			continue
		}
		f := s.Files[p]
		if f.Status != 200 {
			continue
		}
		title, kind, body, err := pageParts(f.Body)
		if err != nil {
			return nil, fmt.Errorf("single file: %s: %w", p, err)
		}
		packed, err := gzipped([]byte(routeLinks(body, p)))
		if err != nil {
			return nil, err
		}
		pages[routeOf(p)] = page{Title: title, Kind: kind, Body: base64.StdEncoding.EncodeToString(packed)}
	}
	data, err := json.Marshal(map[string]any{"config": config, "pages": pages})
	if err != nil {
		return nil, err
	}
	style, err := asset(n.Style)
	if err != nil {
		return nil, err
	}
	worker, err := asset(n.Worker)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.WriteString(`<!doctype html>
<html lang="en" data-twice-page="index" data-twice-single="">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<title>twice</title>
<style>`)
	out.Write(style)
	out.WriteString("</style>\n<script type=\"importmap\">")
	out.Write(jsonInScript(importMap))
	out.WriteString("</script>\n<script type=\"application/json\" id=\"twice-single\">")
	out.Write(jsonInScript(data))
	out.WriteString("</script>\n")
	for _, part := range []struct {
		id   string
		body []byte
		zip  bool
	}{{"twice-worker", worker, false}, {"twice-wasm", s.Files["assets/"+n.Wasm].Body, true}, {"twice-sqlite", s.Files["assets/"+n.SQLite].Body, true}} {
		b := part.body
		if part.zip {
			if b, err = gzipped(b); err != nil {
				return nil, err
			}
		}
		fmt.Fprintf(&out, "<script type=\"application/octet-stream\" id=%q>%s</script>\n", part.id, base64.StdEncoding.EncodeToString(b))
	}
	out.WriteString("<script>")
	out.Write(minified("single.js", singleJS()))
	out.WriteString(`</script>
</head>
<body class="index">
<main id="main"><p class="single-loading">Opening the lab…</p></main>
<noscript><p>This file is the twice lab: it needs JavaScript to show its lessons.</p></noscript>
</body>
</html>
`)
	if out.Len() > MaxSingleFile {
		return nil, fmt.Errorf("single file: %s, more than the %s a file to hand out may have", bytesize.Words(out.Len()), bytesize.Words(MaxSingleFile))
	}
	return out.Bytes(), nil
}

// singleJS is the one-file build's loader.
func singleJS() []byte { return static("single.js") }

// singleConfig is the component's config for the one-file build: the
// served config's lists, with the modules, the stylesheet as data: URLs.
// The worker's address is the loader's to make (a blob: URL).
func (s *Site) singleConfig(dataURL map[string]string, css string) (map[string]any, error) {
	var config map[string]any
	if err := json.Unmarshal(s.config, &config); err != nil {
		return nil, fmt.Errorf("single file: the component's config: %w", err)
	}
	n := s.names
	config["entry"] = dataURL[hashedOf(n.Modules, "boot.")]
	config["full"] = dataURL[n.Modules[len(n.Modules)-1]]
	config["css"] = css
	config["case"] = dataURL[n.Case]
	for _, k := range []string{"frame", "worker", "wasmExec", "wasm", "sqlite"} {
		delete(config, k)
	}
	return config, nil
}

// hashedOf returns the name in names that starts with prefix.
func hashedOf(names []string, prefix string) string {
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			return n
		}
	}
	return ""
}

// singlePage reports whether the site's path p is a page of the one-file
// build: the index, a lesson, a case.
func singlePage(p string) bool {
	return p == "index.html" || (strings.HasSuffix(p, "/index.html") && (strings.HasPrefix(p, "lessons/") || strings.HasPrefix(p, "cases/")))
}

// routeOf is a page's route: its served path without index.html.
func routeOf(p string) string { return "/" + strings.TrimSuffix(p, "index.html") }

var (
	titleRe = regexp.MustCompile(`(?s)<title>(.*?)</title>`)
	bodyRe  = regexp.MustCompile(`(?s)<body class="([a-z]*)">\n?(.*)</body>`)
	hrefRe  = regexp.MustCompile(`\bhref="([^"]*)"`)
	embedRe = regexp.MustCompile(` embed="[^"]*"`)
)

// pageParts reads a rendered page's title, kind and body.
func pageParts(page []byte) (title, kind, body string, err error) {
	t := titleRe.FindSubmatch(page)
	b := bodyRe.FindSubmatch(page)
	if t == nil || b == nil {
		return "", "", "", errors.New("not a page of the site's template")
	}
	return html.UnescapeString(string(t[1])), string(b[1]), string(b[2]), nil
}

// routeLinks makes the links of the body of page p routes of the one-file
// build: a link to another page goes to its route (#/lessons/SLUG/), an
// anchor in the page keeps the page's route in front of it, and other
// links (another site) stay. A block's embed page is left out.
func routeLinks(body, p string) string {
	base, _ := url.Parse("http://twice.invalid/" + p)
	here := routeOf(p)
	body = embedRe.ReplaceAllString(body, "")
	return hrefRe.ReplaceAllStringFunc(body, func(m string) string {
		href := html.UnescapeString(hrefRe.FindStringSubmatch(m)[1])
		if strings.HasPrefix(href, "#") {
			return `href="` + html.EscapeString("#"+here+href) + `"`
		}
		u, err := base.Parse(href)
		if err != nil || u.Host != "twice.invalid" {
			return m
		}
		target := strings.TrimPrefix(path.Clean(u.Path), "/")
		if strings.HasSuffix(u.Path, "/") || target == "" || target == "." {
			target = strings.TrimPrefix(strings.TrimSuffix(target, "/")+"/index.html", "/")
			if target == "./index.html" || target == "/index.html" {
				target = "index.html"
			}
		}
		if !singlePage(target) {
			return m
		}
		route := "#" + routeOf(target)
		if u.Fragment != "" {
			route += "#" + u.Fragment
		}
		return `href="` + html.EscapeString(route) + `"`
	})
}

// gzipped is b gzipped at the best compression.
func gzipped(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// jsonInScript makes JSON safe inside a script element: no "</" closes it.
func jsonInScript(b []byte) []byte {
	return bytes.ReplaceAll(b, []byte("</"), []byte(`<\/`))
}
