package lessons

import (
	"io/fs"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/twice-lab/twice/internal/article"
	"github.com/twice-lab/twice/runtime/script/interp"
)

// TestManifestListsEveryLesson checks that the embedded manifest and the
// embedded .md files are the same set, so no lesson is forgotten.
func TestManifestListsEveryLesson(t *testing.T) {
	data, err := fs.ReadFile(FS, Manifest)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := parseManifest(data)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, e := range entries {
		listed = append(listed, e.name)
	}
	present, err := fs.Glob(FS, "*.md")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(listed)
	slices.Sort(present)
	if !slices.Equal(listed, present) {
		t.Errorf("%s lists %q\nbut the folder holds %q", Manifest, listed, present)
	}
}

// TestEmbeddedLessons loads the built-in lessons: each has a title and a
// twice block that is not empty, and they come in the manifest's order, each
// under the slug of its file name.
func TestEmbeddedLessons(t *testing.T) {
	data, err := fs.ReadFile(FS, Manifest)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := parseManifest(data)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := LoadCases(FS)
	if err != nil {
		t.Fatal(err)
	}
	isCase := map[string]bool{}
	for _, c := range cs {
		isCase[c.File] = true
	}
	var want []string
	for _, e := range entries {
		if !isCase[e.name] {
			want = append(want, e.name+"="+Slug(e.name))
		}
	}
	ls, err := Load(FS)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range ls {
		got = append(got, l.File+"="+l.Slug)
		if l.Title == "" {
			t.Errorf("%s: no title", l.File)
		}
		if len(l.Blocks) == 0 {
			t.Errorf("%s: no twice block", l.File)
		}
		for _, b := range l.Blocks {
			if strings.TrimSpace(b.Script) == "" {
				t.Errorf("%s:%d: empty twice block", l.File, b.Line)
			}
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("lessons (file=slug) = %q\nwant, from %s, %q", got, Manifest, want)
	}
}

// TestLessonsRunTheArticleVerbatim requires lesson i to hold the source
// article's command line i verbatim in a twice block, so a reader can run
// exactly what the article ran. The command lines come from the runtime's
// golden transcripts, through internal/article.
func TestLessonsRunTheArticleVerbatim(t *testing.T) {
	steps := article.Steps(t)
	ls, err := Load(FS)
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) < len(steps) {
		t.Fatalf("%d lessons, want at least one per article step (%d)", len(ls), len(steps))
	}
	for i, l := range ls[:len(steps)] {
		want := strings.TrimSpace(steps[i].Script)
		found := false
		for _, b := range l.Blocks {
			if strings.TrimSpace(b.Script) == want {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no twice block holds article step %d (%s) verbatim:\n%s", l.File, i+1, steps[i].Name, want)
		}
	}
}

// TestDirFSMatchesEmbedded loads this folder from disk, as twice serve
// --lessons does, and expects the same lessons as the embedded copy.
func TestDirFSMatchesEmbedded(t *testing.T) {
	embedded, err := Load(FS)
	if err != nil {
		t.Fatal(err)
	}
	onDisk, err := Load(os.DirFS("."))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(embedded, onDisk) {
		t.Error("lessons loaded from os.DirFS differ from the embedded ones")
	}
}

const titled = "# A title\n\nSome text.\n\n```twice\nreset\n```\n"

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name string
		fsys fstest.MapFS
		want string // the error must start with this
	}{
		{
			name: "missing file",
			fsys: fstest.MapFS{
				"lessons.txt": {Data: []byte("# order\na.md\n\nb.md\n")},
				"a.md":        {Data: []byte(titled)},
			},
			want: "lessons.txt:4: b.md: file does not exist",
		},
		{
			name: "not markdown",
			fsys: fstest.MapFS{
				"lessons.txt": {Data: []byte("a.md\nnotes.txt\n")},
				"a.md":        {Data: []byte(titled)},
			},
			want: `lessons.txt:2: "notes.txt" is not a markdown file`,
		},
		{
			name: "escapes the folder",
			fsys: fstest.MapFS{
				"lessons.txt": {Data: []byte("../secret.md\n")},
			},
			want: `lessons.txt:1: "../secret.md" is not a file name inside the lesson folder`,
		},
		{
			name: "listed twice",
			fsys: fstest.MapFS{
				"lessons.txt": {Data: []byte("a.md\n  a.md  \n")},
				"a.md":        {Data: []byte(titled)},
			},
			want: "lessons.txt:2: a.md is already listed on line 1",
		},
		{
			name: "empty manifest",
			fsys: fstest.MapFS{
				"lessons.txt": {Data: []byte("# nothing yet\n\n")},
				"a.md":        {Data: []byte(titled)},
			},
			want: "lessons.txt: lists no lessons",
		},
		{
			name: "no title",
			fsys: fstest.MapFS{
				"lessons.txt": {Data: []byte("a.md\nb.md\n")},
				"a.md":        {Data: []byte(titled)},
				// The # lines inside the fence are comments, not a title.
				"b.md": {Data: []byte("Intro.\n\n## Only a subheading\n\n```twice\n# reset first\nreset\n```\n")},
			},
			want: "b.md:1: no title",
		},
		{
			name: "empty title",
			fsys: fstest.MapFS{
				"a.md": {Data: []byte("\n\n#\n\ntext\n")},
			},
			want: "a.md:3: the title heading is empty",
		},
		{
			name: "slug clash",
			fsys: fstest.MapFS{
				"lessons.txt": {Data: []byte("01-intro.md\nintro.md\n")},
				"01-intro.md": {Data: []byte(titled)},
				"intro.md":    {Data: []byte(titled)},
			},
			want: `intro.md: slug "intro" is already used by 01-intro.md`,
		},
		{
			name: "empty folder",
			fsys: fstest.MapFS{"README": {Data: []byte("hi")}},
			want: "no lessons",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ls, err := Load(tt.fsys)
			if err == nil {
				t.Fatalf("Load succeeded with %d lessons, want error %q", len(ls), tt.want)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error = %q\nwant prefix %q", err, tt.want)
			}
		})
	}
}

func TestLoadWithoutManifestSortsByName(t *testing.T) {
	fsys := fstest.MapFS{
		"b.md":        {Data: []byte("# B\n")},
		"10-c.md":     {Data: []byte("# C\n")},
		"a.md":        {Data: []byte("# A\n")},
		"02-d.md":     {Data: []byte("# D\n")},
		"notes.txt":   {Data: []byte("not a lesson")},
		"drafts/e.md": {Data: []byte("# E\n")},
	}
	ls, err := Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range ls {
		got = append(got, l.File+"="+l.Slug+"="+l.Title)
	}
	want := []string{"02-d.md=d=D", "10-c.md=c=C", "a.md=a=A", "b.md=b=B"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestLoadManifestOrder(t *testing.T) {
	fsys := fstest.MapFS{
		"lessons.txt":  {Data: []byte("\uFEFF# mine\nz.md\r\n\n  part2/a.md\n# a.md is a draft\n")},
		"z.md":         {Data: []byte("# Zed\n")},
		"a.md":         {Data: []byte("# Draft\n")},
		"part2/a.md":   {Data: []byte("Setext title\n============\n")},
		"unlisted.md":  {Data: []byte("no title at all, but nobody asked")},
		"part2/b.json": {Data: []byte("{}")},
	}
	ls, err := Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range ls {
		got = append(got, l.File+"="+l.Slug+"="+l.Title)
	}
	want := []string{"z.md=z=Zed", "part2/a.md=a=Setext title"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestBlocks(t *testing.T) {
	src := strings.Join([]string{
		"# Title", // 1
		"",
		"```sh", // 3
		"twice run -c reset",
		"```",
		"",
		"```twice", // 7
		"# a comment, not a heading",
		"reset",
		"```",
		"",
		"~~~~ twice controls=seed", // 12
		"race read 3",
		"~~~~",
		"",
		"```twicex", // 16: another language
		"nope",
		"```",
		"",
		"    ```twice", // 20: indented code, not a fence
		"",
		"> ```twice", // 22: a fence inside a quote still counts
		"> jobs",
		"> ```",
		"",
	}, "\n")
	ls, err := Load(fstest.MapFS{"x.md": {Data: []byte(src)}})
	if err != nil {
		t.Fatal(err)
	}
	got := ls[0].Blocks
	want := []Block{
		{Line: 7, Info: "twice", Script: "# a comment, not a heading\nreset\n"},
		{Line: 12, Info: "twice controls=seed", Script: "race read 3\n"},
		{Line: 22, Info: "twice", Script: "jobs\n"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("blocks = %+v\nwant %+v", got, want)
	}
	if ls[0].Title != "Title" {
		t.Errorf("title = %q", ls[0].Title)
	}
}

func TestSlug(t *testing.T) {
	for name, want := range map[string]string{
		"01-one-job.md":         "one-job",
		"2_lease.md":            "lease",
		"10. Claim Race!.md":    "claim-race",
		"part/03-redelivery.md": "redelivery",
		"2024.md":               "2024",
		"404-page.md":           "page",
		"3d-printing.md":        "3d-printing",
		"--.md":                 "",
		"Ünïcode lesson.md":     "unicode-lesson",
		"ünï cødé.md":           "uni-code",
		"u\u0308nï.md":          "uni", // decomposed, as macOS names files
		"Straße & Œuvre.md":     "strasse-oeuvre",
		"Урок 2.md":             "урок-2",
		"課程.md":                 "課程",
	} {
		if got := Slug(name); got != want {
			t.Errorf("Slug(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestBlocksRun runs every twice block of every lesson at its seed, as the
// page pre-renders it, and requires it to succeed, or to fail when its info
// string says fails.
func TestBlocksRun(t *testing.T) {
	ls, err := Load(FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		for _, b := range l.Blocks {
			opts, err := b.Options()
			if err != nil {
				t.Errorf("%s:%d: %v", l.File, b.Line, err)
				continue
			}
			wantFail := opts.Fails
			r := interp.Run(b.Script, interp.Options{Seed: opts.Seed})
			switch {
			case wantFail && r.ExitCode == 0:
				t.Errorf("%s:%d: block is marked fails but exits 0", l.File, b.Line)
			case !wantFail && r.ExitCode != 0:
				t.Errorf("%s:%d: block exits %d: %v\n%s", l.File, b.Line, r.ExitCode, r.Error, strings.Join(r.Transcript, "\n"))
			case !wantFail && len(r.Transcript) == 0:
				t.Errorf("%s:%d: block prints nothing", l.File, b.Line)
			}
		}
	}
}

// TestProseQuotesNoOutput keeps seed-dependent figures out of the prose:
// the page shows the real output under each block, and it changes with the
// seed.
func TestProseQuotesNoOutput(t *testing.T) {
	runID := regexp.MustCompile(`\b[0-9a-f]*[0-9][0-9a-f]*[a-f][0-9a-f]*\b|\b[0-9a-f]*[a-f][0-9a-f]*[0-9][0-9a-f]*\b`)
	tally := regexp.MustCompile(`\b\d+ of \d+\b`)
	span := regexp.MustCompile(`\bover \d+ ms\b|\b\d+ ms apart\b`)
	ls, err := Load(FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		for i, line := range strings.Split(string(l.Source), "\n") {
			for _, w := range runID.FindAllString(line, -1) {
				if len(w) == 8 {
					t.Errorf("%s:%d: looks like a run id: %s", l.File, i+1, w)
				}
			}
			for _, re := range []*regexp.Regexp{tally, span} {
				if m := re.FindString(line); m != "" {
					t.Errorf("%s:%d: quotes a seed-dependent figure: %q", l.File, i+1, m)
				}
			}
		}
	}
}

func TestParseBlockOptions(t *testing.T) {
	for _, tc := range []struct {
		info     string
		seed     uint64
		controls string
		fails    bool
		predict  bool
		view     string
		play     bool
		scale    string
		sliders  string
		err      string
	}{
		{info: "twice", seed: interp.DefaultSeed, controls: "claim,seed"},
		{info: "twice seed=42", seed: 42, controls: "claim,seed"},
		{info: "twice controls=seed", seed: interp.DefaultSeed, controls: "seed"},
		{info: "twice controls=none fails", seed: interp.DefaultSeed, controls: "", fails: true},
		{info: "twice seed=18446744073709551615", seed: 1<<64 - 1, controls: "claim,seed"},
		{info: "twice seed=-1", err: "seed=-1"},
		{info: "twice seed", err: "seed="},
		{info: "twice controls=foo", err: "controls=foo"},
		{info: "twice seed=1 seed=2", err: "given twice"},
		{info: "twice fails=yes", err: "takes no value"},
		{info: "twice what", err: "unknown block option"},
		{info: "twice predict seed=3", seed: 3, controls: "claim,seed", predict: true},
		{info: "twice view=scheduler play controls=none", seed: interp.DefaultSeed, view: "scheduler", play: true},
		{info: "twice view=scheduler", seed: interp.DefaultSeed, controls: "claim,seed", view: "scheduler"},
		{info: "twice play", err: "needs view=scheduler"},
		{info: "twice view=timeline play", err: "needs view=scheduler"},
		{info: "twice view=scheduler play=yes", err: "takes no value"},
		{info: "twice view=compare compare=read,atomic", seed: interp.DefaultSeed, controls: "claim,seed", view: "compare"},
		{info: "twice view=nowhere", err: "view=nowhere"},
		{info: "twice compare=read,read", err: "compare=read,read"},
		{info: "twice compare=read,foo", err: "compare=read,foo"},
		{info: "twice predict=yes", err: "predict=yes"},
		{info: "twice predict=0-20", seed: interp.DefaultSeed, controls: "claim,seed", predict: true, scale: "0-20"},
		{info: "twice predict=1,2", seed: interp.DefaultSeed, controls: "claim,seed", predict: true, scale: "1,2"},
		{info: "twice predict=5-5", err: "A < B"},
		{info: "twice predict=1", err: "two values"},
		{info: "twice predict=1,1", err: "different"},
		{info: "twice sliders=lease,p95", seed: interp.DefaultSeed, controls: "claim,seed", sliders: "lease,p95"},
		{info: "twice sliders=lease,lease", err: "sliders="},
		{info: "twice sliders=speed", err: "sliders=speed"},
	} {
		o, err := ParseBlockOptions(tc.info)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseBlockOptions(%q) error = %v, want one containing %q", tc.info, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseBlockOptions(%q): %v", tc.info, err)
			continue
		}
		if o.Seed != tc.seed || strings.Join(o.Controls, ",") != tc.controls || o.Fails != tc.fails || o.Predict != tc.predict || o.View != tc.view || o.Play != tc.play ||
			o.Scale != tc.scale || strings.Join(o.Sliders, ",") != tc.sliders {
			t.Errorf("ParseBlockOptions(%q) = %+v", tc.info, o)
		}
	}
}
