package server

import (
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
