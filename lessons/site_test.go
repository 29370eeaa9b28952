package lessons

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// A teacher's index.md sets the title, the introduction and the order;
// lines keep their numbers in the introduction.
func TestSiteFile(t *testing.T) {
	fsys := fstest.MapFS{
		"index.md":  {Data: []byte("# Tuesday's class\n\nRead, guess, then Run.\n\n1. [Second first](b.md)\n2. [Then](part/a.md)\n\nA closing word.\n\n- [not the order](c.md)\n")},
		"a.md":      {Data: []byte("# Not listed\n")},
		"b.md":      {Data: []byte("# B\n")},
		"c.md":      {Data: []byte("# C\n")},
		"part/a.md": {Data: []byte("---\ntime: 15 minutes\nnotes: Ask who has seen a job run twice.\n  Then show the race.\n---\n# A\n\n```twice\nbogus\n```\n")},
	}
	site, err := LoadSite(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if site.Title != "Tuesday's class" {
		t.Errorf("title %q", site.Title)
	}
	intro := string(site.Intro)
	if !strings.Contains(intro, "Read, guess, then Run.") || !strings.Contains(intro, "A closing word.") || strings.Contains(intro, "b.md") ||
		!strings.Contains(intro, "[not the order](c.md)") || strings.Count(intro, "\n") != 10 {
		t.Errorf("intro %q", intro)
	}
	ls, err := Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range ls {
		got = append(got, l.File)
	}
	if !slices.Equal(got, []string{"b.md", "part/a.md"}) {
		t.Errorf("order %q", got)
	}
	a := ls[1]
	if a.Time != "15 minutes" || a.Notes != "Ask who has seen a job run twice.\nThen show the race." || a.Title != "A" {
		t.Errorf("front matter: time %q, notes %q, title %q", a.Time, a.Notes, a.Title)
	}
	if len(a.Blocks) != 1 || a.Blocks[0].Line != 8 {
		t.Errorf("blocks %+v: want one on line 8, as in the file", a.Blocks)
	}
}

func TestSiteFileErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		fsys fstest.MapFS
		want string
	}{
		{"both", fstest.MapFS{"index.md": {Data: []byte("# T\n\n- [a](a.md)\n")}, "lessons.txt": {Data: []byte("a.md\n")}, "a.md": {Data: []byte("# A\n")}},
			"index.md:3: lists the lessons, and so does lessons.txt"},
		{"twice", fstest.MapFS{"index.md": {Data: []byte("- [a](a.md)\n- [again](a.md)\n")}, "a.md": {Data: []byte("# A\n")}},
			"index.md:2: a.md is already listed on line 1"},
		{"outside", fstest.MapFS{"index.md": {Data: []byte("- [a](../a.md)\n")}},
			`index.md:1: "../a.md" is not a file name inside the lesson folder`},
		{"missing", fstest.MapFS{"index.md": {Data: []byte("# T\n\n- [a](a.md)\n- [b](b.md)\n")}, "b.md": {Data: []byte("# B\n")}},
			"index.md:3: a.md:"},
		{"unclosed", fstest.MapFS{"a.md": {Data: []byte("---\ntime: 5 minutes\n# A\n")}},
			"a.md:1: the front matter (from this ---) has no closing --- line"},
		{"unknown key", fstest.MapFS{"a.md": {Data: []byte("---\ntitle: X\n---\n# A\n")}},
			`a.md:2: unknown front matter key "title"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(tc.fsys)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}
