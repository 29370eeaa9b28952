package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// twice build --single-file writes over a file only when it wrote it
// before: a slip of the name must not replace a lesson or a script.
func TestSingleFileWritable(t *testing.T) {
	dir := t.TempDir()
	own := filepath.Join(dir, "lab.html")
	os.WriteFile(own, []byte("<!doctype html>\n<html lang=\"en\" data-twice-page=\"index\" data-twice-single=\"\">"), 0o644)
	lesson := filepath.Join(dir, "lesson.md")
	os.WriteFile(lesson, []byte("# A lesson\n"), 0o644)
	for _, c := range []struct {
		name, want string
	}{
		{filepath.Join(dir, "new.html"), ""},
		{own, ""},
		{lesson, "exists and is not a file twice build wrote"},
		{dir, "is not a regular file"},
	} {
		err := singleFileWritable(c.name)
		if (err == nil) != (c.want == "") || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
