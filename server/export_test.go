package server

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// smallSite is a site of one lesson with one block: what the export
// tests of the output folder write, in a few files.
func smallSite(t *testing.T) *Site {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.md": "# A\n\n```twice\nadd order-77 && work --job 1\n```\n"})
	site, err := Render(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNow})
	if err != nil {
		t.Fatal(err)
	}
	return site
}

// Building into a folder of unrelated files is refused and leaves them as
// they were; --force writes the site beside them, deleting nothing; and a
// folder twice wrote can be written again without --force.
func TestExportRefusesForeignFolder(t *testing.T) {
	t.Parallel()
	site := smallSite(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"notes.txt": "mine", "index.html": "my own page"})
	err := site.Export(dir)
	if err == nil || !strings.Contains(err.Error(), "not empty") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("Export into a folder of other files: %v; want a refusal that mentions --force", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("the refused export left %d entries; want the 2 that were there", len(entries))
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "index.html")); string(b) != "my own page" {
		t.Errorf("index.html was changed to %.40q", b)
	}
	if err := site.ExportWith(dir, ExportOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(b) != "mine" {
		t.Errorf("notes.txt is %q after a forced export", b)
	}
	if err := site.Export(dir); err != nil {
		t.Errorf("exporting again into a folder twice wrote: %v", err)
	}
	fresh := filepath.Join(t.TempDir(), "new", "site")
	if err := site.Export(fresh); err != nil {
		t.Errorf("export into a new folder: %v", err)
	}
}

// A symlink in the output folder is replaced, not written through: the
// file it pointed to elsewhere keeps its bytes. A symlinked subfolder that
// leads outside is refused.
func TestExportDoesNotFollowSymlinks(t *testing.T) {
	t.Parallel()
	site := smallSite(t)
	outside := t.TempDir()
	victim := filepath.Join(outside, "victim.html")
	os.WriteFile(victim, []byte("precious"), 0o644)
	dir := t.TempDir()
	if err := os.Symlink(victim, filepath.Join(dir, "404.html")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	os.WriteFile(filepath.Join(dir, BuildMarker), nil, 0o644)
	if err := site.Export(dir); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("the file the symlink pointed to was overwritten: %.40q", b)
	}
	fi, err := os.Lstat(filepath.Join(dir, "404.html"))
	if err != nil || !fi.Mode().IsRegular() {
		t.Errorf("404.html is not a regular file after export: %v %v", fi, err)
	}

	dir2 := t.TempDir()
	os.WriteFile(filepath.Join(dir2, BuildMarker), nil, 0o644)
	if err := os.Symlink(outside, filepath.Join(dir2, "lessons")); err != nil {
		t.Fatal(err)
	}
	if err := site.Export(dir2); err == nil {
		t.Error("export wrote through a symlinked folder that leads outside")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Errorf("the outside folder has %d entries; want only victim.html", len(entries))
	}
}

// A folder on the way to the site's files that is a symlink is refused by
// name, wherever it leads (a folder inside, the folder itself, its
// parent, nowhere), and nothing is written through it.
func TestExportRefusesSymlinkedFolders(t *testing.T) {
	t.Parallel()
	site := fakeSite(t)
	for _, target := range []string{"inner", ".", "..", "missing"} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, BuildMarker), nil, 0o644)
		os.Mkdir(filepath.Join(dir, "inner"), 0o755)
		if err := os.Symlink(target, filepath.Join(dir, "lessons")); err != nil {
			t.Skip("no symlinks here:", err)
		}
		err := site.Export(dir)
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "lessons")+": refused: it is a symlink") || strings.Contains(err.Error(), "\n") {
			t.Errorf("lessons -> %s: export gave %v; want one line naming the symlink", target, err)
		}
		for _, p := range site.Paths() {
			rest, ok := strings.CutPrefix(p, "lessons/")
			if !ok {
				continue
			}
			for _, through := range []string{filepath.Join(dir, "inner", rest), filepath.Join(dir, rest), filepath.Join(filepath.Dir(dir), rest)} {
				if _, err := os.Stat(through); err == nil {
					t.Errorf("lessons -> %s: %s was written through it", target, through)
				}
			}
		}
	}
}

// A forced build into a folder of other files that fails leaves no
// marker: the folder is still not one twice wrote, and the next build
// without --force is refused as the first was.
func TestFailedForcedExportLeavesNoMarker(t *testing.T) {
	t.Parallel()
	site := fakeSite(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"notes.txt": "mine"})
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, "lessons")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if err := site.ExportWith(dir, ExportOptions{Force: true}); err == nil {
		t.Fatal("a forced export through a symlinked folder succeeded")
	}
	if _, err := os.Lstat(filepath.Join(dir, BuildMarker)); err == nil {
		t.Errorf("the failed forced export left %s", BuildMarker)
	}
	if err := site.Export(dir); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("export after a failed forced one: %v; want the refusal of a folder twice did not write", err)
	}
	os.Remove(filepath.Join(dir, "lessons"))
	if err := site.ExportWith(dir, ExportOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(filepath.Join(dir, BuildMarker)); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("a forced export that succeeded left no marker: %v", err)
	}
}

// A folder deeper on the way that is a symlink is refused as the first
// one is: a block's embed folder leading up (to its lesson's, to embed,
// to the output, to the folder above it) or across, to the lessons'.
func TestExportRefusesDeepSymlinks(t *testing.T) {
	t.Parallel()
	site := fakeSite(t)
	var page string
	for _, p := range site.Paths() {
		if strings.HasPrefix(p, "embed/") && strings.HasSuffix(p, "/index.html") {
			page = p
			break
		}
	}
	link := path.Dir(page) // embed/SLUG/N
	for _, target := range []string{"..", "../..", "../../..", "../../lessons"} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, BuildMarker), nil, 0o644)
		os.MkdirAll(filepath.Join(dir, filepath.FromSlash(path.Dir(link))), 0o755)
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(link))); err != nil {
			t.Skip("no symlinks here:", err)
		}
		err := site.Export(dir)
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, filepath.FromSlash(link))+": refused: it is a symlink") {
			t.Errorf("%s -> %s: export gave %v; want the symlink named", link, target, err)
		}
		// Written through, the page would be index.html where the link
		// leads.
		through := filepath.Join(filepath.Dir(filepath.Join(dir, filepath.FromSlash(link))), target, "index.html")
		if _, err := os.Lstat(through); err == nil {
			t.Errorf("%s -> %s: the page was written through it (%s)", link, target, through)
		}
	}
}
