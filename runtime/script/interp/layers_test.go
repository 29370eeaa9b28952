package interp

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// scriptLayers is the order of the packages of runtime/script, from the
// bottom up: each may import only those before it, so no two import each
// other and there is no cycle. The lists of kinds (diagnosis's) are at the
// bottom; the interpreter, which runs everything, at the top.
var scriptLayers = []string{"lang", "diagnosis", "result", "draw", "views", "interp"}

// TestScriptLayers reads the imports of every non-test file of
// runtime/script's packages and of the runtime's own packages, and fails
// for an import that runs up a layer: a package of runtime/script that
// imports one above it, or a runtime package below runtime/script
// (event, explore, queue, receipts, sim) that imports any of them, or
// runtime/named, under every list, importing anything of twice.
func TestScriptLayers(t *testing.T) {
	const mod = "github.com/twice-lab/twice/runtime/"
	level := map[string]int{}
	for i, p := range scriptLayers {
		level["script/"+p] = i
	}
	runtime := mustAbs(t, filepath.Join("..", ".."))
	dirs, err := filepath.Glob(filepath.Join(runtime, "*"))
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob(filepath.Join(runtime, "script", "*"))
	dirs = append(dirs, more...)
	checked := 0
	for _, dir := range dirs {
		rel, err := filepath.Rel(runtime, dir)
		if err != nil {
			t.Fatal(err)
		}
		rel = filepath.ToSlash(rel)
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || rel == "script" {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			checked++
			for _, im := range ast.Imports {
				path, _ := strconv.Unquote(im.Path.Value)
				dep, ok := strings.CutPrefix(path, mod)
				if !ok {
					continue
				}
				if rel == "named" {
					t.Errorf("%s: runtime/named imports runtime/%s; it sits below every list", f, dep)
				}
				from, inScript := level[rel]
				to, toScript := level[dep]
				switch {
				case toScript && !inScript:
					t.Errorf("%s: runtime/%s imports runtime/%s, which sits above it", f, rel, dep)
				case toScript && to >= from:
					t.Errorf("%s: runtime/%s imports runtime/%s, which is not below it in %v", f, rel, dep, scriptLayers)
				}
			}
		}
	}
	if checked < 20 {
		t.Errorf("read only %d files; are the paths still right?", checked)
	}
	for _, p := range scriptLayers {
		if _, err := os.Stat(filepath.Join("..", p)); err != nil {
			t.Errorf("layer %s: %v", p, err)
		}
	}
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
