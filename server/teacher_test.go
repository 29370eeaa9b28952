package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A teacher's folder with an index.md and a lesson's front matter: the
// index shows the teacher's title and introduction and the lessons in the
// file's order, with their times; the lesson shows its time and its notes
// folded, and with HideNotes no page has the notes.
func TestTeacherSite(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"index.md": "# Queues, Tuesday\n\nGuess *first*, then press Run.\n\n1. [Atomic](b.md)\n2. [Race](a.md)\n",
		"a.md":     "# The race\n\ntext\n",
		"b.md":     "---\ntime: 10 minutes\nnotes: The answer is **zero**.\n  Ask before running.\n---\n# The atomic claim\n\n```twice\nrace atomic 5\n```\n",
	})
	site, err := Render(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever})
	if err != nil {
		t.Fatal(err)
	}
	index := string(site.Files["index.html"].Body)
	for _, want := range []string{"<title>Queues, Tuesday · twice</title>", "<h1>Queues, Tuesday</h1>", "<p>Guess <em>first</em>, then press Run.</p>", `<span class="time">· about 10 minutes</span>`} {
		if !strings.Contains(index, want) {
			t.Errorf("index lacks %q", want)
		}
	}
	if strings.Contains(index, "Why a queued job runs twice") || strings.Contains(index, "b.md") {
		t.Error("index shows the built-in introduction or the order list itself")
	}
	if a, b := strings.Index(index, "The race"), strings.Index(index, "The atomic claim"); a < 0 || b < 0 || b > a {
		t.Error("index not in the index file's order")
	}
	page := string(site.Files["lessons/b/index.html"].Body)
	for _, want := range []string{"Lesson 1 of 2 · about 10 minutes", `<details class="teacher-notes"><summary>Teacher notes</summary>`, "The answer is <strong>zero</strong>.", "<title>The atomic claim · Queues, Tuesday · twice</title>"} {
		if !strings.Contains(page, want) {
			t.Errorf("lesson page lacks %q", want)
		}
	}
	if h, n := strings.Index(page, "<h1"), strings.Index(page, "teacher-notes"); h < 0 || n < h {
		t.Error("the notes come before the lesson's title")
	}
	if !strings.Contains(page, `id="block-1"`) || strings.Contains(page, "This block is broken") {
		t.Error("the block after the front matter did not render")
	}

	hidden, err := Render(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever, HideNotes: true})
	if err != nil {
		t.Fatal(err)
	}
	for p, f := range hidden.Files {
		if strings.Contains(string(f.Body), "Teacher notes") || strings.Contains(string(f.Body), "The answer is") {
			t.Errorf("%s shows the notes with HideNotes", p)
		}
	}
	if !strings.Contains(string(hidden.Files["lessons/b/index.html"].Body), "about 10 minutes") {
		t.Error("HideNotes hid the time too")
	}
}

// TestTeacherNotesServedToTheTeacher: twice serve gives a lesson's and a
// case's teacher notes to the teacher only (this machine by default, or
// Options.Teacher), never to a student's phone; the notes alone answer
// at NotesPath for the teacher and 403 for anyone else.
func TestTeacherNotesServedToTheTeacher(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"lessons.txt": "b.md\n",
		"b.md":        "---\nnotes: The answer is **zero**.\n---\n# The atomic claim\n\n```twice\nrace atomic 5\n```\n",
	})
	for _, tc := range []struct {
		name    string
		teacher func(*http.Request) bool
		addr    string
		want    bool
	}{
		{"this machine", nil, "127.0.0.1", true},
		{"this machine over IPv6", nil, "[::1]", true},
		{"a phone", nil, "192.168.1.23", false},
		{"a phone the server calls the teacher's", func(r *http.Request) bool { return r.Header.Get("Authorization") == "Bearer k" }, "192.168.1.23", true},
	} {
		srv, err := NewServer(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever, Live: true, Teacher: tc.teacher}, nil)
		if err != nil {
			t.Fatal(err)
		}
		get := func(path string) (int, string) {
			r := httptest.NewRequest("GET", path, nil)
			r.RemoteAddr = tc.addr + ":5555"
			r.Header.Set("Authorization", "Bearer k")
			w := httptest.NewRecorder()
			srv.ServeHTTP(w, r)
			return w.Code, w.Body.String()
		}
		code, page := get("/lessons/b/")
		if code != 200 || strings.Contains(page, "The answer is") != tc.want {
			t.Errorf("%s: the lesson page (%d) shows the notes: %v, want %v", tc.name, code, !tc.want, tc.want)
		}
		code, notes := get(NotesPath + "?page=lessons/b/index.html")
		if want := map[bool]int{true: 200, false: 403}[tc.want]; code != want || strings.Contains(notes, "The answer is") != tc.want {
			t.Errorf("%s: %s: %d %q, want %d", tc.name, NotesPath, code, notes, want)
		}
		srv.Close()
	}
	// The built-in lessons' and case's notes, too.
	builtin, err := NewServer(Options{Runtime: fakeRuntime(), Brotli: BrotliNever, Live: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer builtin.Close()
	n := 0
	for key, f := range builtin.Site().Teacher {
		n++
		if strings.Contains(string(builtin.Site().Files[key].Body), `class="teacher-notes"`) {
			t.Errorf("%s: a student's page has the teacher notes", key)
		}
		if !strings.Contains(string(f.Body), `class="teacher-notes"`) {
			t.Errorf("%s: the teacher's page lacks the teacher notes", key)
		}
	}
	if n == 0 {
		t.Errorf("no built-in page has teacher notes for the teacher")
	}
}
