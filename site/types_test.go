package site

import (
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/twice-lab/twice/runtime/script/result"
)

// jsTypedef is one @typedef {object} of result-types.js: its properties'
// types, and which are optional ([name]).
type jsTypedef struct {
	types    map[string]string
	optional map[string]bool
}

var (
	typedefRe  = regexp.MustCompile(`@typedef \{object\} (\w+)`)
	propertyRe = regexp.MustCompile(`@property \{(.+?)\} (\[?)(\w+)\]?`)
	// literalsRe is a union of string literals, as a string field may say.
	literalsRe = regexp.MustCompile(`^"[^"]*"( \| "[^"]*")*$`)
)

// readTypedefs reads the object typedefs of a JSDoc file.
func readTypedefs(t *testing.T, path string) map[string]jsTypedef {
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defs := map[string]jsTypedef{}
	for _, block := range strings.Split(string(src), "/**")[1:] {
		m := typedefRe.FindStringSubmatch(block)
		if m == nil {
			continue
		}
		d := jsTypedef{types: map[string]string{}, optional: map[string]bool{}}
		for _, p := range propertyRe.FindAllStringSubmatch(block, -1) {
			d.types[p[3]] = p[1]
			d.optional[p[3]] = p[2] == "["
		}
		defs[m[1]] = d
	}
	return defs
}

// jsNames are the typedefs whose name is not the Go type's.
var jsNames = map[string]string{"Event": "TraceEvent", "Error": "ResultError"}

// TestResultTypes holds site/static/result-types.js, against which tsc
// checks the page's modules (see tsconfig.json), to package result's
// JSON: every struct a Result holds has a typedef with a property per
// json field and no other, optional exactly where the field is
// omitempty, of the JavaScript type the Go type encodes as. A field
// renamed, added or dropped in Go fails here until the types say so.
func TestResultTypes(t *testing.T) {
	defs := readTypedefs(t, "static/result-types.js")
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		if seen[typ] {
			return
		}
		seen[typ] = true
		name := typ.Name()
		if n, ok := jsNames[name]; ok {
			name = n
		}
		d, ok := defs[name]
		if !ok {
			t.Errorf("result-types.js has no @typedef {object} %s for %s", name, typ)
			return
		}
		fields := map[string]bool{}
		for _, f := range reflect.VisibleFields(typ) {
			key, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if key == "-" || !f.IsExported() {
				continue
			}
			fields[key] = true
			checkProperty(t, name, key, opts == "omitempty", f.Type, d)
			for _, inner := range structsIn(f.Type) {
				walk(inner)
			}
		}
		// The error's text is written by MarshalJSON, not by a field.
		if name == "ResultError" {
			fields["text"] = true
		}
		for p := range d.types {
			if !fields[p] {
				t.Errorf("result-types.js: %s.%s is no field of %s's JSON", name, p, typ)
			}
		}
	}
	walk(reflect.TypeFor[result.Result]())
}

// checkProperty checks one property of typedef d against a Go field.
func checkProperty(t *testing.T, def, key string, omitempty bool, typ reflect.Type, d jsTypedef) {
	t.Helper()
	got, ok := d.types[key]
	if !ok {
		t.Errorf("result-types.js: %s has no property %s (%s)", def, key, typ)
		return
	}
	if d.optional[key] != omitempty {
		t.Errorf("result-types.js: %s.%s optional=%v, but the field's omitempty is %v", def, key, d.optional[key], omitempty)
	}
	if typ.Kind() == reflect.String && literalsRe.MatchString(got) {
		return // the values the runtime writes, spelt out
	}
	if want := jsTypes(typ, omitempty); !slices.Contains(want, got) {
		t.Errorf("result-types.js: %s.%s is {%s}, want one of %q for %s", def, key, got, want, typ)
	}
}

// jsTypes are the types a property may say for a Go field of type typ:
// a list may be null unless the runtime always writes one, and a
// pointer is null unless omitempty leaves it out.
func jsTypes(typ reflect.Type, omitempty bool) []string {
	// A kind (diagnosis.Kind, event.Kind) is spelt by its name.
	if typ.Kind() != reflect.Struct && typ.Implements(reflect.TypeFor[fmt.Stringer]()) {
		return []string{"string"}
	}
	switch typ.Kind() {
	case reflect.String:
		return []string{"string"}
	case reflect.Bool:
		return []string{"boolean"}
	case reflect.Int, reflect.Int64, reflect.Uint64:
		return []string{"number"}
	case reflect.Slice:
		var out []string
		for _, e := range jsTypes(typ.Elem(), false) {
			out = append(out, e+"[]", e+"[] | null")
		}
		return out
	case reflect.Pointer:
		var out []string
		for _, e := range jsTypes(typ.Elem(), false) {
			if omitempty {
				out = append(out, e)
			} else {
				out = append(out, e+" | null")
			}
		}
		return out
	case reflect.Struct:
		if n, ok := jsNames[typ.Name()]; ok {
			return []string{n}
		}
		return []string{typ.Name()}
	}
	return nil
}

// structsIn are the struct types a field's type holds.
func structsIn(typ reflect.Type) []reflect.Type {
	for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
		typ = typ.Elem()
	}
	if typ.Kind() == reflect.Struct {
		return []reflect.Type{typ}
	}
	return nil
}
