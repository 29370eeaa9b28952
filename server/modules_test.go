package server

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

func TestLinkImports(t *testing.T) {
	hashed := map[string]string{"config.js": "config.0123456789.js", "links.js": "links.abcdefabcd.js"}
	for _, tc := range []struct{ name, src, want string }{
		{"source", "// links.js\nimport { CONFIG } from \"./config.js\";\nimport {\n  a,\n  b as c,\n} from './links.js';\nexport { d } from \"./links.js\";\nimport \"./config.js\";\nconst x = 1;\n",
			"// links.js\nimport { CONFIG } from \"./config.0123456789.js\";\nimport {\n  a,\n  b as c,\n} from './links.abcdefabcd.js';\nexport { d } from \"./links.abcdefabcd.js\";\nimport \"./config.0123456789.js\";\nconst x = 1;\n"},
		{"minified", `import{CONFIG as e}from"./config.js";import"./links.js";export*from"./links.js";export const y=e`,
			`import{CONFIG as e}from"./config.0123456789.js";import"./links.abcdefabcd.js";export*from"./links.abcdefabcd.js";export const y=e`},
		// Strings that look like imports are text, not imports.
		{"strings", `import{a}from"./links.js";export const s=" effect(s) from "+a+" run(s)",t="; import \"./x.js\"";export function f(){return import.meta.url}`,
			`import{a}from"./links.abcdefabcd.js";export const s=" effect(s) from "+a+" run(s)",t="; import \"./x.js\"";export function f(){return import.meta.url}`},
		{"none", "export const VIEWS=[\"output\",\"timeline\"];export{VIEWS as V}", "export const VIEWS=[\"output\",\"timeline\"];export{VIEWS as V}"},
	} {
		got, err := linkImports("x.js", []byte(tc.src), hashed)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: linkImports =\n%s, %v\nwant\n%s", tc.name, got, err, tc.want)
		}
	}
	// A name the server does not know, or knows only later (a module
	// listed before what it imports), is an error that names it.
	for _, src := range []string{
		`import{a}from"./render.js"`,
		`import{a}from"links.js"`,
		`import{a}from"../links.js"`,
		`import{a}from"https://example.com/links.js"`,
		`import{a}from"./config.js";export*from"./nope.js"`,
	} {
		if got, err := linkImports("x.js", []byte(src), hashed); err == nil || !strings.Contains(err.Error(), "x.js imports") {
			t.Errorf("linkImports(%s) = %s, %v; want an error naming the import", src, got, err)
		}
	}
	if _, err := linkImports("x.js", []byte("import{a from"), hashed); err == nil {
		t.Errorf("a module that does not parse was linked")
	}
	// A change in a leaf is a change in its importer.
	other := map[string]string{"config.js": "config.9999999999.js", "links.js": hashed["links.js"]}
	src := []byte(`import{CONFIG}from"./config.js";export const a=CONFIG`)
	a, _ := linkImports("x.js", src, hashed)
	b, _ := linkImports("x.js", src, other)
	if hashedName("x.js", a) == hashedName("x.js", b) {
		t.Errorf("the importer's name does not change with its import's")
	}
}

// TestModules checks the modules as served: each imports only hashed
// modules the site serves, the loader (twice.js, at both names) names
// the entry module and the rest, the service worker keeps every module,
// and a page with a block preloads the entry module and its imports only.
func TestModules(t *testing.T) {
	s := fakeSite(t)
	var served []string
	for _, p := range s.Paths() {
		if m := regexp.MustCompile(`^assets/([a-z-]+)\.[0-9a-f]{10}\.js$`).FindStringSubmatch(p); m != nil {
			served = append(served, m[1])
		}
	}
	for _, m := range modules {
		if !strings.Contains(strings.Join(served, " "), strings.TrimSuffix(m, ".js")) {
			t.Errorf("module %s is not served under a hashed name (served: %v)", m, served)
		}
	}
	sw := string(s.Files["sw.js"].Body)
	lesson := string(s.Files["lessons/claim-race/index.html"].Body)
	entry, full := "", ""
	for _, p := range s.Paths() {
		name := strings.TrimPrefix(p, "assets/")
		base, _, _ := strings.Cut(name, ".")
		if !strings.HasPrefix(p, "assets/") || !strings.HasSuffix(p, ".js") || !strings.Contains(strings.Join(modules, " "), base+".js") {
			continue
		}
		body := s.Files[p].Body
		specs, err := moduleSpecifiers(body)
		if err != nil {
			t.Errorf("%s does not parse as a module: %v", p, err)
		}
		for _, spec := range specs {
			if !strings.HasPrefix(spec, "./") || s.Files["assets/"+strings.TrimPrefix(spec, "./")] == nil {
				t.Errorf("%s imports %q, which the site does not serve", p, spec)
			}
		}
		if bytes.Contains(body, []byte("/*")) || bytes.Contains(body, []byte("\n// ")) {
			t.Errorf("%s is served with its comments: not minified", p)
		}
		if !strings.Contains(sw, `"`+p+`"`) {
			t.Errorf("sw.js does not keep %s", p)
		}
		// The first stage (boot.js and its imports) is preloaded; the
		// rest is not: it loads after the first result.
		first := base == "boot" || base == "config" || base == "runtime-client"
		if preloads := strings.Contains(lesson, `<link rel="modulepreload" href="../../`+p+`">`); preloads != first {
			t.Errorf("a lesson page preloads %s: %v, want %v", p, preloads, first)
		}
		switch base {
		case "boot":
			entry = name
		case "playground":
			full = name
		}
	}
	loader := s.Files["assets/twice.js"]
	if entry == "" || loader == nil || !regexp.MustCompile(`\bentry"?:"`+regexp.QuoteMeta(entry)+`"`).Match(loader.Body) {
		t.Fatalf("assets/twice.js does not name the entry module %q:\n%s", entry, loader.Body)
	}
	if full == "" || !regexp.MustCompile(`\bfull"?:"`+regexp.QuoteMeta(full)+`"`).Match(loader.Body) {
		t.Fatalf("assets/twice.js does not name the rest of the element %q:\n%s", full, loader.Body)
	}
	hashedLoader := regexp.MustCompile(`assets/twice\.[0-9a-f]{10}\.js`).FindString(lesson)
	if f := s.Files[hashedLoader]; f == nil || !bytes.Equal(f.Body, loader.Body) {
		t.Errorf("the lesson page's %s is not the stable twice.js", hashedLoader)
	}
	if bytes.Contains(loader.Body, []byte("export ")) || bytes.Contains(loader.Body, []byte("import{")) {
		t.Errorf("twice.js must stay a classic script (a page elsewhere loads it without type=module):\n%s", loader.Body)
	}
	if !strings.Contains(string(s.Files["index.html"].Body), "modulepreload") {
		t.Errorf("the index, whose first screen is a block, does not preload the modules")
	}
	if strings.Contains(string(s.Files["404.html"].Body), "modulepreload") {
		t.Errorf("the not-found page, which has no block, preloads the modules")
	}
}
