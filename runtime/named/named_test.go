package named

import (
	"strings"
	"testing"
)

type color uint8

const (
	red color = iota
	green
	blue
	numColors
)

var colors = New("color", numColors, map[color]Entry{
	red:   {Name: "red", Words: "the first"},
	green: {Name: "green", Words: "the second"},
	blue:  {Name: "blue", Words: "the third"},
})

func TestList(t *testing.T) {
	if got := colors.All(); len(got) != 3 || got[0] != red || got[2] != blue {
		t.Errorf("All = %v", got)
	}
	if colors.Name(green) != "green" || colors.Words(blue) != "the third" {
		t.Errorf("green is %q, blue %q", colors.Name(green), colors.Words(blue))
	}
	if colors.Valid(numColors) || !colors.Valid(blue) {
		t.Error("validity is wrong at the end of the list")
	}
	if got := colors.Name(numColors); got != "color 3?" {
		t.Errorf("a value off the list is named %q", got)
	}
	if v, ok := colors.Lookup("blue"); !ok || v != blue {
		t.Errorf("Lookup(blue) = %v, %v", v, ok)
	}
	if _, err := colors.Parse("pink"); err == nil || err.Error() != `unknown color "pink" (want red, green or blue)` {
		t.Errorf("Parse(pink) = %v", err)
	}
	if got := colors.Names("|"); got != "red|green|blue" {
		t.Errorf("Names = %q", got)
	}
	if got := colors.Sentence(); got != "red, green or blue" {
		t.Errorf("Sentence = %q", got)
	}
	one := New("shape", 1, map[uint8]Entry{0: {Name: "square"}})
	if one.Sentence() != "square" {
		t.Errorf("a list of one says %q", one.Sentence())
	}
}

// A list declared wrong fails as it is declared, naming what is wrong.
func TestNewRefusesAWrongList(t *testing.T) {
	for _, c := range []struct {
		entries map[color]Entry
		want    string
	}{
		{map[color]Entry{red: {Name: "red"}, green: {Name: "green"}}, "color 2 has no name"},
		{map[color]Entry{red: {Name: "red"}, green: {Name: "red"}, blue: {Name: "blue"}}, `two colors are named "red"`},
		{map[color]Entry{red: {Name: "red"}, green: {Name: "green"}, blue: {Name: "blue"}, numColors: {Name: "x"}}, "color 3 is outside the list of 3"},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), c.want) {
					t.Errorf("New panicked with %v, want %q", r, c.want)
				}
			}()
			New("color", numColors, c.entries)
		}()
	}
}

// A table with more to say of each value gives its names and words.
func TestOf(t *testing.T) {
	rows := [numColors]struct {
		name string
		warm bool
	}{red: {"red", true}, green: {"green", false}, blue: {"blue", false}}
	l := Of[color]("color", rows[:], func(r struct {
		name string
		warm bool
	}) Entry {
		return Entry{Name: r.name}
	})
	if l.Len() != 3 || l.Name(blue) != "blue" {
		t.Errorf("Of gave %d values, blue named %q", l.Len(), l.Name(blue))
	}
}

// The sentence rule every list of choices is written with.
func TestSentence(t *testing.T) {
	for _, c := range []struct {
		words []string
		want  string
	}{
		{nil, ""},
		{[]string{"a"}, "a"},
		{[]string{"a", "b"}, "a or b"},
		{[]string{"a", "b", "c"}, "a, b or c"},
	} {
		if got := Sentence(c.words); got != c.want {
			t.Errorf("Sentence(%q) = %q, want %q", c.words, got, c.want)
		}
	}
}
