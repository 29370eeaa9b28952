package server

import (
	"fmt"
	"net/http/httptest"
	"regexp"
	"strconv"
	"testing"
)

// TestBrowserLoadCaptions opens lesson 8 as a reader does, on a phone and
// on a desktop, and reads the captions of its two load sweeps' tables
// before anything runs: the effects table counts its rows as effects and
// names the jobs they are of, as many as the jobs table lists, and no
// caption runs past the box that holds its table, where it would be cut.
func TestBrowserLoadCaptions(t *testing.T) {
	srv, err := NewServer(Options{Runtime: fakeRuntime(), Brotli: BrotliNever}, nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	counted := regexp.MustCompile(`^Effects at lease \S+ s: (\d+) effects? of the (\d+) jobs? that did not simply run once`)
	for _, width := range []int64{390, 1280} {
		ctx, _ := browser(t, int(width), 900)
		setView(t, ctx, width, "light")
		navigate(t, ctx, hs.URL+"/lessons/outlives-its-lease/")
		for _, n := range []int{1, 2} {
			caption := js[string](t, ctx, fmt.Sprintf(`tp.q(%d, "table.effects caption").textContent`, n))
			effects := js[int](t, ctx, fmt.Sprintf(`tp.rows(%d, "effects").length`, n))
			jobs := js[int](t, ctx, fmt.Sprintf(`new Set(tp.rows(%d, "jobs").map((r) => r[0])).size`, n))
			m := counted.FindStringSubmatch(caption)
			if m == nil {
				t.Errorf("%d px, block %d: effects caption %q does not count effects of jobs", width, n, caption)
				continue
			}
			if e, _ := strconv.Atoi(m[1]); e != effects {
				t.Errorf("%d px, block %d: caption %q counts %d effects; the table has %d rows", width, n, caption, e, effects)
			}
			if j, _ := strconv.Atoi(m[2]); j != jobs {
				t.Errorf("%d px, block %d: caption %q names %d jobs; the jobs table lists %d", width, n, caption, j, jobs)
			}
			for _, table := range []string{"effects", "jobs"} {
				over := js[int](t, ctx, fmt.Sprintf(`(() => { const c = tp.q(%d, "table.%s caption"), box = c.closest(".table-wrap"); return Math.round(c.getBoundingClientRect().right - box.getBoundingClientRect().right); })()`, n, table))
				if over > 1 {
					t.Errorf("%d px, block %d: the %s caption runs %d px past its box: cut off", width, n, table, over)
				}
			}
		}
	}
}
