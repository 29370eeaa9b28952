package markdown

import (
	"strings"
	"testing"
	"time"

	"github.com/twice-lab/twice/lessons"
)

func renderSource(t *testing.T, src string) (string, *Doc) {
	t.Helper()
	l := lessons.Lesson{Slug: "r", File: "r.md", Title: "R", Source: []byte(src)}
	out, st := RenderLesson(New(), l, "r.md", "r.md", "../../", time.Time{})
	return string(out), st
}

// The prose between a block marked predict and the answer's end marker is
// the answer: it is wrapped in a div that names the block, the marker
// goes, and what comes after the marker is outside it.
func TestReveal(t *testing.T) {
	src := "# R\n\nBefore.\n\n```twice predict=0-20\nrace read 20\n```\n\nMost races **went wrong**.\n\n## Why\n\nBoth read first.\n\n" + RevealMarker + "\n\nAfter.\n"
	out, st := renderSource(t, src)
	if len(st.Errs) > 0 {
		t.Fatalf("errors: %v", st.Errs)
	}
	if !strings.Contains(out, `predict="0-20"`) {
		t.Errorf("the block does not carry its scale:\n%s", out)
	}
	_, after, ok := strings.Cut(out, "</twice-playground>\n")
	if !ok || !strings.HasPrefix(after, `<div class="twice-reveal" data-for="block-1">`) {
		t.Fatalf("no answer right after the block:\n%s", after)
	}
	answer, rest, _ := strings.Cut(after, "</div>")
	for _, w := range []string{"<strong>went wrong</strong>", "<h2", "Both read first."} {
		if !strings.Contains(answer, w) {
			t.Errorf("the answer lacks %q:\n%s", w, answer)
		}
	}
	if strings.Contains(answer, "After.") || !strings.Contains(rest, "After.") {
		t.Errorf("the prose after the marker is inside the answer:\n%s", out)
	}
	if strings.Contains(out, "<!--") || strings.Contains(out, "raw HTML") {
		t.Errorf("the marker shows in the page:\n%s", out)
	}
}

// A marker with no predict block before it is an error naming its line,
// and a predict block without a marker hides no prose.
func TestRevealStray(t *testing.T) {
	src := "# R\n\n```twice predict\nrace read 2\n```\n\n```twice\nrace read 2\n```\n\nText.\n\n" + RevealMarker + "\n"
	out, st := renderSource(t, src)
	if len(st.Errs) != 1 || !strings.Contains(st.Errs[0].Error(), "r.md:13:") || !strings.Contains(st.Errs[0].Error(), "predict") {
		t.Errorf("errors: %v, want one at r.md:13 about predict", st.Errs)
	}
	if strings.Contains(out, "twice-reveal") {
		t.Errorf("prose hidden without a marker after its block:\n%s", out)
	}
}
