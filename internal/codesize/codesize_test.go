package codesize

import (
	"cmp"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const (
	// warnPackageLines is where the report starts to warn: a package
	// this size likely holds more than one job, and review should look
	// for the seam between them.
	warnPackageLines = 2500
	// maxPackageLines fails the test: far past the warning, for a
	// package nobody split in time.
	maxPackageLines = 4000
)

// TestCodeSize reads every non-test Go file of the module and reports
// each package's lines, largest first, warning from warnPackageLines and
// failing from maxPackageLines (go test -v ./internal/codesize shows the
// report; a warning is logged, so it shows without -v only beside a
// failure).
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
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) < 10 {
		t.Fatalf("measured %d packages; the walk missed the module", len(lines))
	}
	pkgs := slices.Collect(maps.Keys(lines))
	slices.SortFunc(pkgs, func(a, b string) int { return cmp.Or(lines[b]-lines[a], strings.Compare(a, b)) })
	for _, pkg := range pkgs {
		n := lines[pkg]
		switch {
		case n >= maxPackageLines:
			t.Errorf("%-28s %5d lines of non-test Go: over the limit of %d; move a part with a job of its own into its own package",
				pkg, n, maxPackageLines)
		case n >= warnPackageLines:
			t.Logf("%-28s %5d lines: WARNING, past %d; look for the seam where its jobs part", pkg, n, warnPackageLines)
		default:
			t.Logf("%-28s %5d lines", pkg, n)
		}
	}
}
