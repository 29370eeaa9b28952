// Package lessons holds the lessons of the twice lab and reads lesson
// folders: the built-in lessons (the source article's six steps, then
// what lies past them, from the exhaustive check of every interleaving to
// choosing a fix; one markdown file each, numbered in reading order) are
// embedded in the binary, and a teacher's own folder (twice serve --lessons DIR) is
// read the same way, through [Load] on any [fs.FS].
//
// # Writing a lesson
//
// A lesson is one markdown file (CommonMark with GitHub tables). Its title is
// its first level-one heading:
//
//	# Two workers, one job
//
// A fenced code block whose info string starts with the word twice is a live
// playground: the page shows the script, the output the runtime printed for
// it at its seed (see seed= below), and a Run button that runs it again in
// the reader's browser. Each line of the block is a line of the twice command
// language; # starts a comment, and the source article's own command lines
// (node queue.mjs ..., wrapped in ( ... ) 2>/dev/null) are accepted verbatim:
//
//	```twice
//	# one job, one worker
//	reset && add order-77
//	work --job 1 --worker W1
//	jobs
//	effects
//	```
//
// Every other fenced block (```sh, ```sql, or no language at all) is shown
// as plain code and never run. Keep each twice block short enough to read
// at a glance, and do not quote run ids or millisecond figures in the prose
// around it: they come from the seed, and the reader sees the real ones
// right under the block.
//
// After the word twice, the info string may carry options, separated by
// spaces ([ParseBlockOptions] reads them; [BlockOptions] is the reference):
//
//	seed=N          pre-render the block at seed N, and start its seed field
//	                at N; the default is script.DefaultSeed
//	controls=LIST   the controls beside Run: claim, seed, both as claim,seed
//	                (the default), or none
//	fails           the script is meant to stop with an error, to show one
//
// For example ```twice controls=seed hides the claim toggle, which is right
// for a block that compares both claims on purpose: the toggle rewrites the
// claim of every race and work command in the script. A block that fails
// when it is not marked fails, or a fails block that succeeds, is reported
// as a broken lesson with its file and line, and twice build refuses it.
//
// # Order and file names
//
// A folder may hold a manifest named lessons.txt that lists the lesson files
// in reading order, one file name per line; blank lines and lines starting
// with # are ignored:
//
//	# Why a queued job runs twice
//	01-one-job.md
//	02-lease-expiry.md
//
// Names are slash-separated paths inside the folder and must end in .md.
// Files that the manifest does not list are not lessons (keep drafts there
// freely). Without a manifest, every *.md file at the top of the folder is a
// lesson, in order of file name.
//
// A lesson's slug, the name in its URL, comes from its file name: the .md
// extension and any leading ordering number ("01-", "2_") are dropped, and
// the rest is lower-cased with every run of other characters turned into one
// dash, so 01-one-job.md is served as one-job. Renumbering files to reorder
// them therefore keeps their URLs. Two lessons with the same slug are an
// error.
//
// # Errors
//
// [Load] reports the first problem it finds as an error that starts with
// the file name and, where there is one, the line: a manifest entry that
// names a missing file, a file listed twice, a lesson with no title.
package lessons

import (
	"bufio"
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// Manifest is the name of the file that lists a folder's lessons in order.
const Manifest = "lessons.txt"

// Language is the info-string word that makes a fenced block a playground.
const Language = "twice"

//go:embed lessons.txt *.md
var embedded embed.FS

// FS holds the built-in lessons and their manifest, at its root.
var FS fs.FS = embedded

// A Lesson is one markdown file of a lesson folder.
type Lesson struct {
	// Slug is the lesson's name in URLs, derived from File.
	Slug string
	// File is the file's path in the folder, as the manifest names it.
	File string
	// Title is the text of the first level-one heading, as written.
	Title string
	// Source is the markdown source.
	Source []byte
	// Blocks are the lesson's twice blocks in order of appearance.
	Blocks []Block
}

// A Block is one fenced twice block of a lesson.
type Block struct {
	// Line is the 1-based line of the opening fence in the lesson.
	Line int
	// Info is the whole info string, starting with "twice".
	Info string
	// Script is the block's content, the script the playground runs.
	Script string
}

// Load reads the lessons of fsys in order: as listed by its lessons.txt, or
// when it has none, every top-level *.md file sorted by name. It fails on
// the first broken manifest line or lesson, with an error that names the
// file and, where it can, the line.
func Load(fsys fs.FS) ([]Lesson, error) {
	files, err := order(fsys)
	if err != nil {
		return nil, err
	}
	lessons := make([]Lesson, 0, len(files))
	bySlug := make(map[string]string, len(files))
	for _, e := range files {
		src, err := fs.ReadFile(fsys, e.name)
		if err != nil {
			if e.line > 0 {
				return nil, fmt.Errorf("%s:%d: %s: %w", Manifest, e.line, e.name, unwrapPath(err))
			}
			return nil, fmt.Errorf("%s: %w", e.name, unwrapPath(err))
		}
		l, err := parse(e.name, src)
		if err != nil {
			return nil, err
		}
		if other, ok := bySlug[l.Slug]; ok {
			return nil, fmt.Errorf("%s: slug %q is already used by %s; rename one of them", e.name, l.Slug, other)
		}
		bySlug[l.Slug] = e.name
		lessons = append(lessons, l)
	}
	return lessons, nil
}

// entry is one lesson file to read, with its manifest line (0 when the
// order came from the file names).
type entry struct {
	name string
	line int
}

// order lists the lesson files of fsys in reading order.
func order(fsys fs.FS) ([]entry, error) {
	data, err := fs.ReadFile(fsys, Manifest)
	if errors.Is(err, fs.ErrNotExist) {
		names, err := fs.Glob(fsys, "*.md")
		if err != nil {
			return nil, err
		}
		slices.Sort(names)
		var files []entry
		for _, name := range names {
			if fi, err := fs.Stat(fsys, name); err == nil && fi.IsDir() {
				continue
			}
			files = append(files, entry{name: name})
		}
		if len(files) == 0 {
			return nil, errors.New("no lessons: the folder has neither " + Manifest + " nor any .md file")
		}
		return files, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Manifest, unwrapPath(err))
	}
	return parseManifest(data)
}

// parseManifest reads the file names of a manifest, checking each one.
func parseManifest(data []byte) ([]entry, error) {
	var files []entry
	seen := make(map[string]int)
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		name := strings.TrimSpace(sc.Text())
		if n == 1 {
			name = strings.TrimPrefix(name, "\uFEFF")
		}
		if name == "" || strings.HasPrefix(name, "#") {
			continue
		}
		switch {
		case !fs.ValidPath(name) || name == ".":
			return nil, fmt.Errorf("%s:%d: %q is not a file name inside the lesson folder", Manifest, n, name)
		case path.Ext(name) != ".md":
			return nil, fmt.Errorf("%s:%d: %q is not a markdown file (want a name ending in .md)", Manifest, n, name)
		}
		if first, ok := seen[name]; ok {
			return nil, fmt.Errorf("%s:%d: %s is already listed on line %d", Manifest, n, name, first)
		}
		seen[name] = n
		files = append(files, entry{name: name, line: n})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", Manifest, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: lists no lessons", Manifest)
	}
	return files, nil
}

// unwrapPath drops the *fs.PathError wrapper, whose path would repeat the
// file name the caller already puts first.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// parse reads one lesson: its title and its twice blocks.
func parse(name string, src []byte) (Lesson, error) {
	l := Lesson{File: name, Source: src, Slug: Slug(name)}
	if l.Slug == "" {
		return l, fmt.Errorf("%s: cannot make a URL name from this file name; use letters or digits", name)
	}
	doc := goldmark.DefaultParser().Parse(text.NewReader(src))
	err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			if n.Level == 1 && l.Title == "" {
				l.Title = strings.TrimSpace(string(n.Lines().Value(src)))
				if l.Title == "" {
					return ast.WalkStop, fmt.Errorf("%s:%d: the title heading is empty", name, lineOf(src, n.Pos()))
				}
			}
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock:
			if string(n.Language(src)) == Language {
				l.Blocks = append(l.Blocks, Block{
					Line:   lineOf(src, n.Pos()),
					Info:   strings.TrimSpace(string(n.Info.Segment.Value(src))),
					Script: string(n.Lines().Value(src)),
				})
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		return l, err
	}
	if l.Title == "" {
		return l, fmt.Errorf("%s:1: no title: start the lesson with a heading such as \"# One job, one worker\"", name)
	}
	return l, nil
}

// lineOf returns the 1-based line of byte offset off in src.
func lineOf(src []byte, off int) int {
	if off < 0 || off > len(src) {
		return 1
	}
	return 1 + bytes.Count(src[:off], []byte("\n"))
}

// Slug returns the URL name of the lesson file name: its base name without
// the .md extension and a leading ordering number, lower-cased, with every
// run of characters other than ASCII letters and digits turned into one dash.
// It returns "" when nothing is left.
func Slug(name string) string {
	base := strings.TrimSuffix(path.Base(name), path.Ext(name))
	rest := strings.TrimLeft(base, "0123456789")
	if rest != base && rest != "" && (rest[0] == '-' || rest[0] == '_' || rest[0] == '.' || rest[0] == ' ') {
		base = rest
	}
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(base) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	return b.String()
}
