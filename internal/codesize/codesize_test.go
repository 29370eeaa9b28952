package codesize

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

const (
	maxPackageLines  = 3000
	maxFunctionLines = 80
)

// TestCodeSize reads every non-test Go file of the module and fails for a
// package of 3,000 lines or more, or a function (declared or literal)
// over 80 lines.
func TestCodeSize(t *testing.T) {
	root := filepath.Join("..", "..")
	lines := map[string]int{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "third_party" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		src := fset.File(f.Pos())
		if ast.IsGenerated(f) {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		lines[filepath.ToSlash(rel)] += src.LineCount()
		ast.Inspect(f, func(n ast.Node) bool {
			var what string
			switch n := n.(type) {
			case *ast.FuncDecl:
				what = n.Name.Name
			case *ast.FuncLit:
				what = "a function literal"
			default:
				return true
			}
			if l := fset.Position(n.End()).Line - fset.Position(n.Pos()).Line + 1; l > maxFunctionLines {
				t.Errorf("%s: %s is %d lines; split it by what each part does (at most %d)", fset.Position(n.Pos()), what, l, maxFunctionLines)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) < 10 {
		t.Fatalf("measured %d packages; the walk missed the module", len(lines))
	}
	for pkg, n := range lines {
		if n >= maxPackageLines {
			t.Errorf("package %s has %d lines of non-test Go; move a part that stands alone into a package of its own (under %d)", pkg, n, maxPackageLines)
		}
	}
}
