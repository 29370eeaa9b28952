// Package named is the one way twice declares a closed list of named
// values: the claims' dedupe modes, key choices, event kinds, diagnosis
// kinds and commands are each a small integer type whose values are
// 0, 1, 2, ... in the order of its constants, and one [List] that gives
// each value its name and its words.
//
// A list is declared once, as an array indexed by the constants, so the
// order of the names is the order of the constants and nothing is kept in
// step by hand:
//
//	type Dedupe uint8
//
//	const (
//		DedupeOff Dedupe = iota
//		DedupeCheck
//		numDedupes
//	)
//
//	var dedupes = named.New("dedupe mode", [numDedupes]named.Entry{
//		DedupeOff:   {Name: "off", Words: "every request is an effect"},
//		DedupeCheck: {Name: "check", Words: "check-then-act"},
//	})
//
// (or, for a table that says more of each value, [Of]), and the type's
// methods are one line each: String is dedupes.Name(d),
// Valid is dedupes.Valid(d), and so on. [New] panics on an entry with no
// name or a name given twice, so a constant added without its entry fails
// the first test that loads the package.
//
// Nothing here imports anything of twice: every list of the runtime sits
// on it.
package named

import (
	"fmt"
	"strings"
)

// Entry is what a list says of one value: its name, as scripts, the JSON
// and the docs spell it, and a few words on what it is.
type Entry struct {
	Name  string
	Words string
}

// Value is the type of a list's values: a small integer type whose
// constants count from 0.
type Value interface {
	~uint8 | ~int
}

// List is the values of V from 0 up, each with its Entry, in order.
type List[V Value] struct {
	what    string  // what one value is, for errors: "dedupe mode"
	entries []Entry // entries[v] is value v's
}

// New declares the list of the n values of V, 0 to n-1, value v named by
// entries[v]. What says what one value is ("dedupe mode", "claim"), as an
// error names it. New panics if a value below n has no entry or no name,
// if an entry is for a value outside the list, or if two share a name:
// a list that is wrong fails as its package loads.
func New[V Value](what string, n V, entries map[V]Entry) List[V] {
	l := List[V]{what: what, entries: make([]Entry, n)}
	for v, e := range entries {
		if v < 0 || v >= n {
			panic(fmt.Sprintf("named: %s %d is outside the list of %d", what, v, n))
		}
		l.entries[v] = e
	}
	seen := map[string]bool{}
	for i, e := range l.entries {
		if e.Name == "" {
			panic(fmt.Sprintf("named: %s %d has no name", what, i))
		}
		if seen[e.Name] {
			panic(fmt.Sprintf("named: two %ss are named %q", what, e.Name))
		}
		seen[e.Name] = true
	}
	return l
}

// Of declares the list of V from a table whose row i says more of value
// i than its name and words (an event kind's lane, a diagnosis kind's
// verdict): entry picks the name and words out of a row. Rows is usually
// an array indexed by V's constants, sliced; Of panics as New does.
func Of[V Value, R any](what string, rows []R, entry func(R) Entry) List[V] {
	m := make(map[V]Entry, len(rows))
	for i, r := range rows {
		m[V(i)] = entry(r)
	}
	return New(what, V(len(rows)), m)
}

// All returns every value, in order.
func (l List[V]) All() []V {
	vs := make([]V, len(l.entries))
	for i := range vs {
		vs[i] = V(i)
	}
	return vs
}

// Len returns how many values the list has.
func (l List[V]) Len() int { return len(l.entries) }

// Valid reports whether v is on the list.
func (l List[V]) Valid(v V) bool { return v >= 0 && int(v) < len(l.entries) }

// Name returns v's name; a value off the list is named by what the list
// holds and its number, "dedupe mode 7?", which no list spells.
func (l List[V]) Name(v V) string {
	if !l.Valid(v) {
		return fmt.Sprintf("%s %d?", l.what, v)
	}
	return l.entries[v].Name
}

// Words says what v is in a few words ("" for a value off the list).
func (l List[V]) Words(v V) string {
	if !l.Valid(v) {
		return ""
	}
	return l.entries[v].Words
}

// Lookup returns the value named s.
func (l List[V]) Lookup(s string) (V, bool) {
	for i, e := range l.entries {
		if e.Name == s {
			return V(i), true
		}
	}
	return 0, false
}

// Parse returns the value named s, or an error that names what was
// wanted: `unknown dedupe mode "x" (want off, check or claim)`.
func (l List[V]) Parse(s string) (V, error) {
	if v, ok := l.Lookup(s); ok {
		return v, nil
	}
	return 0, fmt.Errorf("unknown %s %q (want %s)", l.what, s, l.Sentence())
}

// Names returns the names joined with sep: "off|check|claim".
func (l List[V]) Names(sep string) string { return strings.Join(l.names(), sep) }

// Sentence lists the names as a reader would: "read, lock or atomic".
func (l List[V]) Sentence() string { return Sentence(l.names()) }

// Sentence lists words as a reader would: "a", "a or b", "a, b or c".
// Every list of choices twice prints is written by it.
func Sentence(words []string) string {
	switch n := len(words); n {
	case 0:
		return ""
	case 1:
		return words[0]
	default:
		return strings.Join(words[:n-1], ", ") + " or " + words[n-1]
	}
}

// names returns the names, in order.
func (l List[V]) names() []string {
	names := make([]string, len(l.entries))
	for i, e := range l.entries {
		names[i] = e.Name
	}
	return names
}
