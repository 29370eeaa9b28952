package markdown

import (
	"strings"
	"testing"

	"github.com/twice-lab/twice/lessons"
	"github.com/twice-lab/twice/runtime/script/interp"
)

// TestPlainScript checks what an embed snippet carries for every lesson
// block written as the article's shell line: no wrapper left in it, and
// the same output at the block's seed as the line itself.
func TestPlainScript(t *testing.T) {
	ls, err := lessons.Load(lessons.FS)
	if err != nil {
		t.Fatal(err)
	}
	wrapped := 0
	for _, l := range ls {
		for i, b := range l.Blocks {
			plain := plainScript(b.Script)
			if plain == b.Script {
				if strings.Contains(b.Script, "node queue.mjs") {
					t.Errorf("%s block %d: the wrapper is kept: %q", l.Slug, i+1, b.Script)
				}
				continue
			}
			wrapped++
			for _, w := range []string{"node", "queue.mjs", "(", ")", "2>/dev/null", "&&"} {
				if strings.Contains(plain, w) {
					t.Errorf("%s block %d: the plain form still has %q:\n%s", l.Slug, i+1, w, plain)
				}
			}
			opts, _ := b.Options()
			want := interp.Run(b.Script, interp.Options{Seed: opts.Seed}).Text()
			if got := interp.Run(plain, interp.Options{Seed: opts.Seed}).Text(); got != want {
				t.Errorf("%s block %d: the plain form prints\n%s\nwant, as the shell line does,\n%s", l.Slug, i+1, got, want)
			}
		}
	}
	if wrapped == 0 {
		t.Fatal("no lesson block is written as a shell line; the test shows nothing")
	}
	if got := plainScript("# a note\nrace read 20\n"); got != "# a note\nrace read 20\n" {
		t.Errorf("a plain script was rewritten: %q", got)
	}
}
