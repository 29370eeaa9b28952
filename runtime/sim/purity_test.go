package sim

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRuntimeIsPure keeps the simulation deterministic and portable to the
// browser by enforcing its import rules over every non-test file under
// runtime/: no wall clock, no real sleeping, no global random source, no
// HTTP, no goldmark, no syscall/js.
func TestRuntimeIsPure(t *testing.T) {
	bannedImports := map[string]string{
		"math/rand":                "the global random source",
		"net/http":                 "the network",
		"syscall/js":               "the browser",
		"github.com/yuin/goldmark": "rendering",
		"crypto/rand":              "unseeded randomness",
	}
	bannedCalls := map[string]bool{
		"time.Now": true, "time.Sleep": true, "time.Since": true, "time.After": true,
		"time.Tick": true, "time.NewTimer": true, "time.NewTicker": true, "time.Until": true,
	}
	// Package-level functions of math/rand/v2 use the global source.
	randV2Allowed := map[string]bool{"New": true, "NewPCG": true, "NewChaCha8": true, "Rand": true, "Source": true, "PCG": true}

	root := ".."
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		checked++
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		names := map[string]string{} // local name -> import path
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			for banned, why := range bannedImports {
				if p == banned {
					t.Errorf("%s imports %s (%s)", path, p, why)
				}
			}
			name := p[strings.LastIndex(p, "/")+1:]
			if p == "math/rand/v2" {
				name = "rand"
			}
			if imp.Name != nil {
				name = imp.Name.Name
			}
			names[name] = p
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			switch names[id.Name] {
			case "time":
				if bannedCalls["time."+sel.Sel.Name] {
					t.Errorf("%s uses time.%s: time is virtual", path, sel.Sel.Name)
				}
			case "math/rand/v2":
				if !randV2Allowed[sel.Sel.Name] {
					t.Errorf("%s uses rand.%s: draw from the kernel's seeded source", path, sel.Sel.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 8 {
		t.Fatalf("checked only %d files under runtime/; is the walk rooted right?", checked)
	}
}
