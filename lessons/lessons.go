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
//	view=NAME       open on that view (output, timeline, compare, interleavings, scheduler)
//	compare=A,B     the pair of claims Compare opens on
//	predict[=SCALE] ask for a guess before showing the output: on a slider
//	                from 0 to the count asked about, from A to B (A-B), or
//	                a choice among whole numbers (A,B,C)
//	sliders=LIST    a slider for each of lease, processing, p95,
//	                heartbeat, stall, workers the script has
//	picture         draw the block's run above it as a looping picture, and
//	                label its Run button Make it happen
//
// The prose after a predict block, down to a line <!-- /answer -->, is
// its answer in words: the page hides it with the output until the
// reader runs the block (server/markdown's Reveal).
//
// For example ```twice controls=seed hides the claim toggle, which is right
// for a block that compares both claims on purpose: the toggle rewrites the
// claim of every race and work command in the script. A block that fails
// when it is not marked fails, or a fails block that succeeds, is broken:
// the page shows the error in the block, with its file and line, and twice
// build refuses the folder.
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
// # A teacher's site
//
// A folder may also hold an index file, index.md (see [Site]): its first
// level-one heading is the site's title, the rest is the introduction the
// index page shows, and a list of links to the lesson files, one per line,
// is the reading order (instead of lessons.txt; a folder with both is an
// error):
//
//	# Queues, Tuesday's class
//
//	Guess each script's output before you press Run.
//
//	1. [Two workers, one job](04-claim-race.md)
//	2. [The atomic claim](05-atomic-claim.md)
//
// A lesson may start with front matter, between two --- lines, giving an
// estimated time and teacher notes (markdown; a value goes on over lines
// indented by two spaces):
//
//	---
//	time: 10 minutes
//	notes: Ask how many of 20 races give two effects before running.
//	  The answer is in the output: most of them.
//	---
//	# Two workers, one job
//
// The time shows on the index and the lesson; the notes show folded on
// the lesson's page, and twice serve --notes=off leaves them out. Lines
// keep their numbers: an error in a block names the line in the file.
//
// # Cases
//
// A file whose front matter says kind: case is a case, an incident for
// the reader to solve, not a lesson: [Load] leaves it out and
// [LoadCases] reads it, handing the file's front matter, title and twice
// blocks to package cases, which documents how to write one.
//
// # Errors
//
// [Load] reports problems as errors that start with the file name and,
// where there is one, the line. A broken manifest (a line naming a file
// twice, a name that is not a .md file inside the folder) fails the whole
// folder. A lesson file that is missing, has no title, shares its slug
// with another, or is refused is left out, and every such file is named:
//
//   - only regular files are read: a named pipe, socket or device is
//     refused by name without being opened for reading;
//   - a file larger than [MaxFileSize] (1 MiB) is refused;
//   - a lesson with more than [MaxBlocks] (100) twice blocks is refused;
//   - a lesson whose title, time or level has more than [MaxLabel] (200)
//     characters is refused, and so is a site whose index.md title has;
//   - a lesson whose markdown, or the markdown of its notes, passes the
//     bounds of a page (package internal/mdbound: 5 s, blockquotes and
//     lists nested 32 deep, 100,000 table cells, 200,000 elements) is
//     refused, naming the line;
//   - a folder's files past the first [MaxLessons] (200) in its order,
//     and from the one that brings the bytes read past [MaxFolderBytes]
//     (16 MiB), are left out, named in one line;
//   - the markdown of a folder's files together has [MaxReadTime] (10 s)
//     to be read; each file read after it has a tenth of a second, and
//     one slower than that is refused.
package lessons

import (
	"bufio"
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"

	"github.com/twice-lab/twice/cases"
	"github.com/twice-lab/twice/internal/mdbound"
	"github.com/twice-lab/twice/runtime/script/lang"
)

// lessonParser reads a lesson's title and blocks: CommonMark, bounded as
// a page's markdown is (mdbound.Page).
var lessonParser = mdbound.Parser()

// Manifest is the name of the file that lists a folder's lessons in order.
const Manifest = "lessons.txt"

// SiteFile is the name of a folder's optional index file, which sets the
// site's title and introduction (see [LoadSite]).
const SiteFile = "index.md"

// Files returns the names of the files a [Load] of fsys looks at: the
// manifest and the index file (whether or not they exist) and the lessons
// in order. It never walks the folder: a server watches these names for
// changes, and nothing else.
func Files(fsys fs.FS) []string {
	names := []string{Manifest, SiteFile}
	files, err := order(fsys)
	if err != nil {
		// A broken manifest: still watch what it names.
		if data, err := ReadFile(fsys, Manifest); err == nil {
			names = append(names, ManifestNames(data)...)
		}
		return names
	}
	files, _ = capLessons(files)
	for _, e := range files {
		names = append(names, e.name)
	}
	return names
}

// ManifestNames returns the file names a manifest lists, in order, without
// checking them.
func ManifestNames(data []byte) []string {
	var names []string
	for line := range strings.SplitSeq(string(data), "\n") {
		name := strings.TrimPrefix(strings.TrimSpace(line), "\uFEFF")
		if name != "" && !strings.HasPrefix(name, "#") && fs.ValidPath(name) {
			names = append(names, name)
		}
	}
	return names
}

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
	// Time is the front matter's estimated time ("15 minutes"), or "".
	Time string
	// Notes are the front matter's teacher notes, markdown, or "".
	Notes string
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
// when it has none, every top-level *.md file sorted by name. A manifest
// that cannot be read or has a bad line fails the whole folder. A lesson
// file that cannot be read or is refused (see [MaxFileSize], [MaxBlocks]
// and [ReadFile]) is left out and the others are returned, with an error
// that joins one line per file left out, each starting with the file's
// name and, where it can, the line.
func Load(fsys fs.FS) ([]Lesson, error) {
	ls, _, err := LoadAll(fsys)
	return ls, err
}

// LoadCases reads the cases of fsys: the files [Load] reads whose front
// matter says kind: case, in the same order, with the same errors.
func LoadCases(fsys fs.FS) ([]cases.Case, error) {
	_, cs, err := LoadAll(fsys)
	return cs, err
}

// LoadAll reads the lessons and the cases of fsys in one pass, as [Load]
// and [LoadCases] each do, with the errors of both.
func LoadAll(fsys fs.FS) ([]Lesson, []cases.Case, error) {
	files, err := order(fsys)
	if err != nil {
		return nil, nil, err
	}
	var errs []error
	files, err = capLessons(files)
	if err != nil {
		errs = append(errs, err)
	}
	var cs []cases.Case
	lessons := make([]Lesson, 0, len(files))
	bySlug := make(map[string]string, len(files))
	read := 0 // bytes of the files read so far
	deadline := time.Now().Add(readTime)
	for i, e := range files {
		src, err := ReadFile(fsys, e.name)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", e.where(), unwrapPath(err)))
			continue
		}
		if read += len(src); read > MaxFolderBytes {
			errs = append(errs, fmt.Errorf("%s: refused: with it the folder's files come to more than the %d MiB a lesson folder may have; this one and the %d after it are left out", e.where(), MaxFolderBytes>>20, len(files)-i-1))
			break
		}
		l, c, err := parse(e.name, src, readLimits(deadline))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if other, ok := bySlug[l.Slug]; ok {
			errs = append(errs, fmt.Errorf("%s: slug %q is already used by %s; rename one of them", e.name, l.Slug, other))
			continue
		}
		bySlug[l.Slug] = e.name
		if c != nil {
			cs = append(cs, *c)
			continue
		}
		lessons = append(lessons, l)
	}
	return lessons, cs, errors.Join(errs...)
}

// Limits of a lesson folder, so that a folder cannot stall a server or a
// build: the largest file read (a lesson or the manifest) and the most
// twice blocks in one lesson. The built-in lessons are under 8 KB with at
// most 5 blocks each.
const (
	MaxFileSize = 1 << 20
	MaxBlocks   = 100
	// MaxLessons bounds the files a folder's order names, lessons and
	// cases together: those after it are left out, with one line that
	// says so.
	MaxLessons = 200
	// MaxLabel bounds, in characters, what the index and every page
	// of the site repeat: a lesson's title, time and level, and the
	// site's title. The built-in ones are under 60.
	MaxLabel = 200
)

// longLabel refuses a label of more than MaxLabel characters, at
// where (file:line); what names it.
func longLabel(where, what, v string) error {
	if n := utf8.RuneCountInString(v); n > MaxLabel {
		return fmt.Errorf("%s: refused: %s is %d characters long; a title, time or level may have at most %d", where, what, n, MaxLabel)
	}
	return nil
}

// MaxFolderBytes bounds the bytes of a folder's files read, lessons and
// cases together (the built-in folder's are about 150 KB): the file that
// passes it and those after it are left out, with one line that says so.
// With MaxLessons and MaxFileSize it bounds the memory a folder's lessons
// hold and the scripts a render parses.
const MaxFolderBytes = 16 << 20

// MaxReadTime bounds the time a folder's markdown takes to read, its
// files together, each also held to the time of a page (mdbound.Page):
// once it has passed, each file left has lateReadTime, many times what a
// lesson takes (a millisecond for the built-in ones, some tens for a
// file of the most bytes), so that files that each take the most a page
// may, one after another, do not keep a server from listing its lessons
// for minutes.
const MaxReadTime = 10 * time.Second

// readTime is MaxReadTime (tests set less), and lateReadTime the time of
// each file read after it.
var readTime = MaxReadTime

const lateReadTime = 100 * time.Millisecond

// readLimits are the bounds of the markdown of a file read when the
// folder's time runs out at deadline.
func readLimits(deadline time.Time) mdbound.Limits {
	lim := mdbound.Page
	if left := time.Until(deadline); left < lim.Time {
		lim.Time = max(left, lateReadTime)
	}
	return lim
}

// where names the file as errors do: by the manifest's line that names
// it, if one does, then by its name.
func (e entry) where() string {
	if e.line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.list, e.line, e.name)
	}
	return e.name
}

// capLessons keeps the first MaxLessons files of an order, and says in
// one line, at the first one left out, that the rest are.
func capLessons(files []entry) ([]entry, error) {
	if len(files) <= MaxLessons {
		return files, nil
	}
	return files[:MaxLessons], fmt.Errorf("%s: refused: a lesson folder may have at most %d lessons and cases; this one and those after it are left out", files[MaxLessons].where(), MaxLessons)
}

// ReadFile reads the file name of fsys as a lesson folder's file: a regular
// file (a symlink is followed, within fsys) of at most MaxFileSize bytes.
// A named pipe, socket, device or folder is refused by name before it is
// opened, so that nothing can block on it; the opened file is checked
// again, in case it was swapped in between. On a folder on disk, fsys
// should also open files without blocking (the server's does).
func ReadFile(fsys fs.FS, name string) ([]byte, error) {
	fi, err := fs.Lstat(fsys, name)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		fi, err = fs.Stat(fsys, name)
	}
	if err != nil {
		return nil, err
	}
	if err := checkFile(name, fi); err != nil {
		return nil, err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := checkFile(name, fi); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	if len(b) > MaxFileSize {
		return nil, tooLarge(name, int64(len(b)))
	}
	return b, nil
}

// checkFile refuses what ReadFile does not read.
func checkFile(name string, fi fs.FileInfo) error {
	if kind := FileKind(fi.Mode()); kind != "" {
		return &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("refused: it is %s, not a regular file; only regular files are read", kind)}
	}
	if fi.Size() > MaxFileSize {
		return tooLarge(name, fi.Size())
	}
	return nil
}

// FileKind says what a file of mode m is when it is not a regular file
// ("a folder", "a named pipe (FIFO)", "a socket", "a device", "a special
// file"), as a refusal names it; "" for a regular file.
func FileKind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return ""
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&(fs.ModeDevice|fs.ModeCharDevice) != 0:
		return "a device"
	}
	return "a special file"
}

func tooLarge(name string, size int64) error {
	return &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("refused: %d bytes, larger than the %d (%d MiB) a lesson folder's file may have", size, MaxFileSize, MaxFileSize>>20)}
}

// entry is one lesson file to read, with its manifest line (0 when the
// order came from the file names).
type entry struct {
	name string
	line int
	list string // the file that lists it: Manifest or SiteFile
}

// order lists the lesson files of fsys in reading order.
func order(fsys fs.FS) ([]entry, error) {
	data, err := ReadFile(fsys, Manifest)
	site, serr := LoadSite(fsys)
	if serr != nil {
		return nil, serr
	}
	if site != nil && len(site.order) > 0 {
		if err == nil {
			return nil, fmt.Errorf("%s:%d: lists the lessons, and so does %s; keep one of the two", SiteFile, site.order[0].line, Manifest)
		}
		return site.order, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		names, err := fs.Glob(fsys, "*.md")
		if err != nil {
			return nil, err
		}
		slices.Sort(names)
		var files []entry
		for _, name := range names {
			if len(files) > MaxLessons {
				break // capLessons says so; the rest need no look
			}
			if name == SiteFile {
				continue // the site's index file, not a lesson
			}
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
			return nil, fmt.Errorf("%s:%d: %q is not a file name inside the lesson folder", Manifest, n, lang.Short(name))
		case path.Ext(name) != ".md":
			return nil, fmt.Errorf("%s:%d: %q is not a markdown file (want a name ending in .md)", Manifest, n, lang.Short(name))
		}
		if first, ok := seen[name]; ok {
			return nil, fmt.Errorf("%s:%d: %s is already listed on line %d", Manifest, n, name, first)
		}
		seen[name] = n
		files = append(files, entry{name: name, line: n, list: Manifest})
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

// parse reads one lesson: its title and its twice blocks; and when its
// front matter says kind: case, hands it to package cases to read the
// case it is.
func parse(name string, src []byte, lim mdbound.Limits) (Lesson, *cases.Case, error) {
	l, fm, err := parseLesson(name, src, lim)
	if err != nil || fm["kind"] != "case" {
		return l, nil, err
	}
	f := cases.File{
		Slug: l.Slug, File: l.File, Title: l.Title, Time: l.Time, Notes: l.Notes, Level: fm["level"], Source: l.Source,
		BlockOptions: func(info string) error {
			_, err := ParseBlockOptions(info)
			return err
		},
	}
	for _, b := range l.Blocks {
		f.Blocks = append(f.Blocks, cases.Block{Line: b.Line, Info: b.Info, Script: b.Script})
	}
	c, err := cases.Parse(f)
	if err != nil {
		return l, nil, err
	}
	return l, &c, nil
}

// parseLesson reads one lesson file: its front matter, title and twice
// blocks, its markdown held to lim.
func parseLesson(name string, src []byte, lim mdbound.Limits) (Lesson, map[string]string, error) {
	l := Lesson{File: name, Source: src, Slug: Slug(name)}
	if l.Slug == "" {
		return l, nil, fmt.Errorf("%s: cannot make a URL name from this file name; use letters or digits", name)
	}
	fm, src, err := frontMatter(name, src)
	if err != nil {
		return l, nil, err
	}
	l.Source, l.Time, l.Notes = src, fm["time"], fm["notes"]
	// The notes are markdown a page shows too: held to the same bounds.
	if l.Notes != "" {
		if _, err := mdbound.Parse(lessonParser, []byte(l.Notes), nil, lim); err != nil {
			return l, fm, refusedMarkdown(name, true, err, lim)
		}
	}
	doc, err := mdbound.Parse(lessonParser, src, nil, lim)
	if err != nil {
		return l, fm, refusedMarkdown(name, false, err, lim)
	}
	lines := &lineCounter{src: src}
	blocks := 0 // twice blocks, those past MaxBlocks counted, not kept
	err = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			if n.Level == 1 && l.Title == "" {
				l.Title = strings.TrimSpace(string(n.Lines().Value(src)))
				if l.Title == "" {
					return ast.WalkStop, fmt.Errorf("%s:%d: the title heading is empty", name, lines.at(n.Pos()))
				}
				if err := longLabel(fmt.Sprintf("%s:%d", name, lines.at(n.Pos())), "its title", l.Title); err != nil {
					return ast.WalkStop, err
				}
			}
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock:
			if string(n.Language(src)) != Language {
				return ast.WalkSkipChildren, nil
			}
			if blocks++; blocks <= MaxBlocks+1 {
				l.Blocks = append(l.Blocks, Block{
					Line:   lines.at(n.Pos()),
					Info:   strings.TrimSpace(string(n.Info.Segment.Value(src))),
					Script: string(n.Lines().Value(src)),
				})
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		return l, fm, err
	}
	if blocks > MaxBlocks {
		return l, fm, fmt.Errorf("%s:%d: refused: %d twice blocks, more than the %d a lesson may have; split it into several lessons", name, l.Blocks[MaxBlocks].Line, blocks, MaxBlocks)
	}
	if l.Title == "" {
		return l, fm, fmt.Errorf("%s:1: no title: start the lesson with a heading such as \"# One job, one worker\"", name)
	}
	return l, fm, nil
}

// refusedMarkdown is the error of file name whose markdown (its notes,
// when notes) passed a bound of lim.
func refusedMarkdown(name string, notes bool, err error, lim mdbound.Limits) error {
	var e *mdbound.Error
	if !errors.As(err, &e) {
		return fmt.Errorf("%s: refused: %v", name, err)
	}
	where, msg := fmt.Sprintf("%s:%d", name, max(e.Line, 1)), e.Msg
	if notes {
		where, msg = name, fmt.Sprintf("its notes (in the front matter), line %d of them: %s", max(e.Line, 1), e.Msg)
	}
	if e.Time && lim.Time < mdbound.Page.Time {
		what := "its markdown"
		if notes {
			what = "its notes (in the front matter)"
		}
		msg = fmt.Sprintf("%s took more than the %v left of the %v a folder's files may take to read together (the files before it took the rest)", what, lim.Time.Round(time.Millisecond), readTime)
	}
	return fmt.Errorf("%s: refused: %s", where, msg)
}

// lineCounter gives the 1-based lines of offsets in src, asked in the
// order of the source (as a walk of its document meets them): each asks
// only for the newlines since the one before, so a file of many blocks
// costs its length, not its length times its blocks.
type lineCounter struct {
	src  []byte
	off  int // the offset asked last
	line int // its line, less 1
}

func (c *lineCounter) at(off int) int {
	if off < 0 || off > len(c.src) {
		return 1
	}
	if off < c.off {
		c.off, c.line = 0, 0
	}
	c.line += bytes.Count(c.src[c.off:off], []byte("\n"))
	c.off = off
	return 1 + c.line
}

// Slug returns the URL name of the lesson file name: its base name without
// the .md extension and a leading ordering number, lower-cased, each
// accented Latin letter written as its plain ASCII letters (ü as u, ø as
// o, ß as ss, whether the name came composed or decomposed), letters and
// digits of other scripts kept as they are, and every run of other
// characters turned into one dash. It returns "" when nothing is left.
func Slug(name string) string {
	base := strings.TrimSuffix(path.Base(name), path.Ext(name))
	rest := strings.TrimLeft(base, "0123456789")
	if rest != base && rest != "" && (rest[0] == '-' || rest[0] == '_' || rest[0] == '.' || rest[0] == ' ') {
		base = rest
	}
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(base) {
		if unicode.Is(unicode.Mn, r) {
			continue // a combining accent of a decomposed letter
		}
		word := ""
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			word = string(r)
		case latin[r] != "":
			word = latin[r]
		case r > unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			word = string(r)
		default:
			dash = true
			continue
		}
		if dash && b.Len() > 0 {
			b.WriteByte('-')
		}
		dash = false
		b.WriteString(word)
	}
	return b.String()
}

// latin writes the lower-case letters of Latin-1 and Latin Extended-A in
// ASCII, for Slug: each entry of the list is the letter, then its ASCII.
var latin = func() map[rune]string {
	m := map[rune]string{}
	for _, e := range strings.Fields("ßss àa áa âa ãa äa åa æae çc èe ée êe ëe ìi íi îi ïi ðd ñn òo óo ôo õo öo øo ùu úu ûu üu ýy þth ÿy āa ăa ąa ćc ĉc ċc čc ďd đd ēe ĕe ėe ęe ěe ĝg ğg ġg ģg ĥh ħh ĩi īi ĭi įi ıi ĳij ĵj ķk ĸk ĺl ļl ľl ŀl łl ńn ņn ňn ŉn ŋn ōo ŏo őo œoe ŕr ŗr řr śs ŝs şs šs ţt ťt ŧt ũu ūu ŭu ůu űu ųu ŵw ŷy źz żz žz ſs") {
		r, n := utf8.DecodeRuneInString(e)
		m[r] = e[n:]
	}
	return m
}()
