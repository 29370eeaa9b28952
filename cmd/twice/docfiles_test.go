package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// fileNameRE matches what reads as a file name in prose: a path of
// letters, digits, dots, dashes, underscores and * wildcards ending in an
// extension of the files this repository keeps.
var fileNameRE = regexp.MustCompile(`(?:[A-Za-z0-9_.*-]+/)*[A-Za-z0-9_*-][A-Za-z0-9_.*-]*\.(?:go|js|mjs|css|html|md|txtar|txt|json|sh|yml)\b`)

// notRepoFiles are the names package docs use for files that are not in
// the repository, each with where it is.
var notRepoFiles = map[string]string{
	"wasm_exec.js":             "the Go toolchain's, in $(go env GOROOT)/lib/wasm",
	"assets/wasm_exec.HASH.js": "the Go toolchain's wasm_exec.js, served content-hashed",
	"queue.mjs":                "the source article's command, accepted in front of a script",
	"404.html":                 "the rendered site's not-found page",
	"lessons/SLUG/index.html":  "a rendered lesson page",
	"embed/SLUG/N/index.html":  "a rendered embed page",
	"cases/SLUG/index.html":    "a rendered case page",
	"index.md":                 "a teacher's optional index file in a lessons folder",
}

// servedAs turns a path of the served site back into the file of
// site/static it serves: assets/NAME.HASH.EXT and assets/NAME.EXT are
// NAME.EXT, and a module's import "./NAME.js" is NAME.js.
func servedAs(name string) string {
	name = strings.TrimPrefix(name, "./")
	if rest, ok := strings.CutPrefix(name, "assets/"); ok {
		return "static/" + strings.Replace(rest, ".HASH.", ".", 1)
	}
	return name
}

// TestPackageDocsNameFilesThatExist reads the package comment of every Go
// package of the module and checks that every file it names exists: at
// the path given, from the package's folder or the module's root, or as a
// file of that name somewhere in the repository (a doc may say
// "playground.js" for site/static/playground.js); a path of the served
// site (assets/links.HASH.js) must have its file in site/static. A file
// renamed or removed without its doc then fails here.
func TestPackageDocsNameFilesThatExist(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var files []string          // slash paths from root
	docs := map[string]string{} // package folder -> package comments
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		files = append(files, rel)
		if strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go") && !strings.Contains(rel, "testdata/") {
			f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				return err
			}
			if f.Doc != nil {
				docs[filepath.Dir(p)] += f.Doc.Text()
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	exists := func(dir, name string) bool {
		for _, p := range []string{filepath.Join(dir, name), filepath.Join(root, name)} {
			if _, err := os.Stat(p); err == nil {
				return true
			}
		}
		for _, f := range files {
			if f == name || strings.HasSuffix(f, "/"+name) {
				return true
			}
			// A wildcard (jstest/*.test.mjs) must match a file.
			if strings.Contains(name, "*") {
				a, _ := path.Match(name, f)
				b, _ := path.Match("*/"+name, f)
				if a || b {
					return true
				}
			}
		}
		return false
	}
	var dirs []string
	for dir := range docs {
		dirs = append(dirs, dir)
	}
	sort.Strings(dirs)
	named := 0
	for _, dir := range dirs {
		rel, _ := filepath.Rel(root, dir)
		for _, name := range fileNameRE.FindAllString(docs[dir], -1) {
			named++
			if _, ok := notRepoFiles[name]; ok || exists(dir, servedAs(name)) {
				continue
			}
			t.Errorf("the package doc of %s names %s, which does not exist", filepath.ToSlash(rel), name)
		}
	}
	if named < 20 {
		t.Errorf("found only %d file names in package docs; is the pattern still right?", named)
	}
}
