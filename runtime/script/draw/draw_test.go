package draw

import (
	"html"
	"slices"
	"strings"
	"testing"
)

func TestEscapeXMLMatchesHTML(t *testing.T) {
	for _, s := range []string{"", "plain", `<a href="x">&'</a>`, "&&&", "é<日>\xff", strings.Repeat("<>", 100)} {
		if got, want := escapeXML(s), html.EscapeString(s); got != want {
			t.Errorf("escapeXML(%q) = %q, want %q", s, got, want)
		}
	}
}

func TestSortInsertion(t *testing.T) {
	xs := []int{5, 3, 9, 1, 3, 0, -2, 9}
	sortInsertion(xs, func(a, b int) bool { return a < b })
	if !slices.IsSorted(xs) {
		t.Errorf("not sorted: %v", xs)
	}
}
