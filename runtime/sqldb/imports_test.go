//go:build !js

package sqldb_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOnlySqldbImportsTheDriver: the runtime reaches SQLite only through
// this package's interface, so that the browser build, which links no
// driver, runs the same code as the CLI. A file under runtime/ that
// imports the driver itself would not build for the browser, or would
// quietly talk to another SQLite.
func TestOnlySqldbImportsTheDriver(t *testing.T) {
	checked := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		checked++
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, "github.com/ncruces/") && filepath.Dir(path) != filepath.Join("..", "sqldb") {
				t.Errorf("%s imports %s: use package sqldb", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("checked %d files under runtime/: the walk is wrong", checked)
	}
}
