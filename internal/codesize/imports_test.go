package codesize

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/twice-lab/twice/"

var update = flag.Bool("update", false, "rewrite docs/MANUAL.md's picture of the imports")

// TestManualImports holds the picture of who imports whom in
// docs/MANUAL.md ("How it is built") to the code: each package of the
// module, and the module's packages its non-test files import, under any
// build tag. On a change, go test ./internal/codesize -run Imports -update
// rewrites the block.
func TestManualImports(t *testing.T) {
	root := filepath.Join("..", "..")
	want := importsBlock(t, root)
	data, err := os.ReadFile(filepath.Join(root, "docs", "MANUAL.md"))
	if err != nil {
		t.Fatal(err)
	}
	const open, end = "<!-- imports: TestManualImports -->\n```\n", "```\n<!-- end imports -->"
	_, rest, ok := strings.Cut(string(data), open)
	got, _, ok2 := strings.Cut(rest, end)
	if !ok || !ok2 {
		t.Fatalf("docs/MANUAL.md has no block between %q and %q", open, end)
	}
	if got != want && *update {
		fixed := strings.Replace(string(data), open+got+end, open+want+end, 1)
		if err := os.WriteFile(filepath.Join(root, "docs", "MANUAL.md"), []byte(fixed), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != want {
		t.Errorf("docs/MANUAL.md's picture of the imports is stale (go test ./internal/codesize -run Imports -update); the code's is:\n%s", want)
	}
}

// importsBlock lists each package (its path in the module) and the
// module's packages it imports, one package a line.
func importsBlock(t *testing.T, root string) string {
	imports := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		if ignored(f.Comments) {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		pkg := filepath.ToSlash(rel)
		list := imports[pkg]
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			if dep, ok := strings.CutPrefix(path, module); ok && !slices.Contains(list, dep) {
				list = append(list, dep)
			}
		}
		imports[pkg] = list
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	pkgs := make([]string, 0, len(imports))
	for p := range imports {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	var b strings.Builder
	for _, p := range pkgs {
		deps := imports[p]
		slices.Sort(deps)
		b.WriteString(p)
		if len(deps) > 0 {
			b.WriteString(" -> " + strings.Join(deps, ", "))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// ignored reports whether a file is kept out of every build: a
// generator run by go run, under //go:build ignore.
func ignored(groups []*ast.CommentGroup) bool {
	for _, g := range groups {
		for _, c := range g.List {
			if strings.TrimSpace(c.Text) == "//go:build ignore" {
				return true
			}
		}
	}
	return false
}
