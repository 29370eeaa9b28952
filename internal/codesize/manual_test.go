package codesize

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The walk-throughs of docs/MANUAL.md name, hop by hop, the file and the
// function that does each part of a Run and of a page. TestManualWalkthrough
// holds them to the code: every name in backquotes in a hop must be
// defined (a Go func or method, a JavaScript function or method, or a
// name the Go code hands to JavaScript as a string) in a file or package
// that hop or the one before it names, so a rename or a move that leaves
// the manual behind fails here.
func TestManualWalkthrough(t *testing.T) {
	root := filepath.Join("..", "..")
	data, err := os.ReadFile(filepath.Join(root, "docs", "MANUAL.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, title := range []string{"### The life of a Run", "### The life of a page"} {
		hops := walkthroughHops(string(data), title)
		if len(hops) < 6 {
			t.Errorf("%s: %d hops; the manual lost its walk-through", title, len(hops))
			continue
		}
		var before []string
		for i, hop := range hops {
			places := namedPlaces(root, hop)
			if len(places) == 0 {
				t.Errorf("%s, hop %d: names no file or package", title, i+1)
			}
			scope := append(places, before...)
			for _, name := range namedFuncs(hop) {
				if !definedIn(t, root, scope, name) {
					t.Errorf("%s, hop %d: `%s` is defined in none of %s", title, i+1, name, strings.Join(scope, ", "))
				}
			}
			before = places
		}
	}
}

// walkthroughHops returns the numbered items under title, each as one
// string.
func walkthroughHops(doc, title string) []string {
	_, rest, ok := strings.Cut(doc, title+"\n")
	if !ok {
		return nil
	}
	if end := strings.Index(rest, "\n#"); end >= 0 {
		rest = rest[:end]
	}
	var hops []string
	for _, line := range strings.Split(rest, "\n") {
		switch {
		case hopStart.MatchString(line):
			hops = append(hops, line)
		case len(hops) > 0 && strings.HasPrefix(line, "   "):
			hops[len(hops)-1] += " " + strings.TrimSpace(line)
		case strings.TrimSpace(line) != "" && len(hops) > 0:
			return hops // the prose after the list
		}
	}
	return hops
}

var (
	hopStart = regexp.MustCompile(`^\d+\. `)
	quoted   = regexp.MustCompile("`([^`]+)`")
	ident    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// namedPlaces returns the files and folders in backquotes in hop that
// exist under root.
func namedPlaces(root, hop string) []string {
	var out []string
	for _, m := range quoted.FindAllStringSubmatch(hop, -1) {
		p := m[1]
		if !strings.Contains(p, "/") && !strings.HasSuffix(p, ".go") {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// namedFuncs returns the bare names in backquotes in hop.
func namedFuncs(hop string) []string {
	var out []string
	for _, m := range quoted.FindAllStringSubmatch(hop, -1) {
		if ident.MatchString(m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// definedIn reports whether name is defined in one of places: for a Go
// file, anywhere in its package (the folder's non-test files); for a
// folder, in its files; for a JavaScript file, in it.
func definedIn(t *testing.T, root string, places []string, name string) bool {
	goDef := regexp.MustCompile(`(?m)^func (\([^)]*\) )?` + name + `[\[(]`)
	jsDef := regexp.MustCompile(`(?m)(function\*? ` + name + `\(|^\s+(async |static )?` + name + `\([^)]*\) \{|export (const|let) ` + name + `\b)`)
	asString := `"` + name + `"`
	for _, p := range places {
		full := filepath.Join(root, filepath.FromSlash(p))
		var files []string
		if st, err := os.Stat(full); err == nil && st.IsDir() {
			files, _ = filepath.Glob(filepath.Join(full, "*"))
		} else if strings.HasSuffix(p, ".go") {
			files, _ = filepath.Glob(filepath.Join(filepath.Dir(full), "*.go"))
		} else {
			files = []string{full}
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") || !(strings.HasSuffix(f, ".go") || strings.HasSuffix(f, ".js")) {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			s := string(src)
			if goDef.MatchString(s) || jsDef.MatchString(s) || strings.Contains(s, asString) {
				return true
			}
		}
	}
	return false
}
