package lessons

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"

	"github.com/twice-lab/twice/runtime/script/lang"
)

// A Site is what a folder's optional index file (SiteFile, index.md) says
// about the whole site:
//
//	# Queues, Tuesday's class
//
//	Forty-five minutes on why a job runs twice. Read each lesson's
//	script, guess its output, then press Run.
//
//	1. [Two workers](04-claim-race.md)
//	2. [The atomic claim](05-atomic-claim.md)
//
// Its first level-one heading is the site's title; the rest is the
// introduction the index page shows above the list of lessons, as
// markdown. A list of links to .md files, one per line, is the lessons'
// order, as lessons.txt would give it (a folder has one or the other, not
// both); the index page shows its own list of the lessons in its place.
type Site struct {
	// Title is the site's title, or "" when the file has none.
	Title string
	// Intro is the introduction's markdown, the title and the order list
	// left out (their lines blank, so that lines keep their numbers).
	Intro []byte
	// order lists the lessons of the order list, with their lines.
	order []entry
}

// orderLine matches a line of the order list: a list item that is a link
// to a .md file, and nothing else.
var orderLine = regexp.MustCompile(`^\s{0,3}(?:[-*+]|\d{1,9}[.)])\s+\[[^\]]*\]\(\s*<?([^)<>\s]+\.md)>?\s*\)\s*$`)

// titleLine matches an ATX level-one heading.
var titleLine = regexp.MustCompile(`^\s{0,3}#\s+(.*?)(?:\s+#+)?\s*$`)

// LoadSite reads the folder's index file. It returns nil and no error when
// there is none.
func LoadSite(fsys fs.FS) (*Site, error) {
	data, err := ReadFile(fsys, SiteFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", SiteFile, unwrapPath(err))
	}
	return parseSite(data)
}

func parseSite(data []byte) (*Site, error) {
	s := &Site{}
	lines := strings.Split(strings.TrimPrefix(string(data), "\uFEFF"), "\n")
	inFence, listed := false, false
	seen := map[string]int{}
	for i, line := range lines {
		n := i + 1
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
		}
		if inFence {
			continue
		}
		if m := titleLine.FindStringSubmatch(line); m != nil && s.Title == "" {
			s.Title = m[1]
			if err := longLabel(fmt.Sprintf("%s:%d", SiteFile, n), "the site's title", s.Title); err != nil {
				return nil, err
			}
			lines[i] = ""
			continue
		}
		m := orderLine.FindStringSubmatch(line)
		if m == nil {
			if len(s.order) > 0 && strings.TrimSpace(line) != "" {
				listed = true // the order list is over: later lists are prose
			}
			continue
		}
		if listed {
			continue
		}
		name := path.Clean(m[1])
		if !fs.ValidPath(name) || strings.HasPrefix(m[1], "/") {
			return nil, fmt.Errorf("%s:%d: %q is not a file name inside the lesson folder", SiteFile, n, lang.Short(m[1]))
		}
		if first, ok := seen[name]; ok {
			return nil, fmt.Errorf("%s:%d: %s is already listed on line %d", SiteFile, n, name, first)
		}
		seen[name] = n
		s.order = append(s.order, entry{name: name, line: n, list: SiteFile})
		lines[i] = ""
	}
	s.Intro = []byte(strings.Join(lines, "\n"))
	return s, nil
}

// frontMatter reads a lesson's front matter: lines between a first line
// "---" and the next "---", each "key: value", where a value may go on over
// the following lines indented by two spaces or more. It returns the
// values by key, each with the line it starts on, and the source with the
// front matter's lines left blank (so that lines keep their numbers), or
// the source as it is when it has none.
func frontMatter(name string, src []byte) (map[string]string, []byte, error) {
	text := string(src)
	if !strings.HasPrefix(text, "---\n") && !strings.HasPrefix(text, "---\r\n") {
		return nil, src, nil
	}
	lines := strings.SplitAfter(text, "\n")
	end := -1
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], "\r\n") == "---" {
			end = i
			break
		}
	}
	if end < 0 {
		return nil, src, fmt.Errorf("%s:1: the front matter (from this ---) has no closing --- line", name)
	}
	// Each value is built, not added to: a value of many lines costs its
	// length, not its length squared.
	vals := map[string]*strings.Builder{}
	starts := map[string]int{} // the line each key is on
	key := ""
	for i := 1; i < end; i++ {
		line := strings.TrimRight(lines[i], "\r\n")
		switch {
		case strings.TrimSpace(line) == "" && key != "":
			vals[key].WriteString("\n")
		case strings.HasPrefix(line, "  ") && key != "":
			if vals[key].Len() > 0 {
				vals[key].WriteString("\n")
			}
			vals[key].WriteString(strings.TrimPrefix(line, "  "))
		default:
			k, v, ok := strings.Cut(line, ":")
			k = strings.TrimSpace(k)
			if !ok || k == "" || strings.ContainsAny(k, " \t") {
				return nil, src, fmt.Errorf("%s:%d: want key: value in the front matter, got %q", name, i+1, lang.Short(line))
			}
			if _, dup := vals[k]; dup {
				return nil, src, fmt.Errorf("%s:%d: %s is given twice in the front matter", name, i+1, k)
			}
			if k != "time" && k != "notes" && k != "kind" && k != "level" {
				return nil, src, fmt.Errorf("%s:%d: unknown front matter key %q (known: time, notes, kind, level)", name, i+1, lang.Short(k))
			}
			if k == "kind" && strings.TrimSpace(v) != "lesson" && strings.TrimSpace(v) != "case" {
				return nil, src, fmt.Errorf("%s:%d: kind: %s: want lesson or case", name, i+1, lang.Short(strings.TrimSpace(v)))
			}
			key = k
			starts[k] = i + 1
			vals[k] = &strings.Builder{}
			vals[k].WriteString(strings.TrimSpace(v))
		}
	}
	var b strings.Builder
	for i, l := range lines {
		if i <= end {
			b.WriteString("\n")
		} else {
			b.WriteString(l)
		}
	}
	out := make(map[string]string, len(vals))
	for k, v := range vals {
		out[k] = strings.TrimSpace(v.String())
	}
	for _, k := range []string{"time", "level"} {
		if err := longLabel(fmt.Sprintf("%s:%d", name, starts[k]), "its "+k, out[k]); err != nil {
			return nil, src, err
		}
	}
	return out, []byte(b.String()), nil
}
