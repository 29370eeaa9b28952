package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/twice-lab/twice/runtime/script/lang"
)

// TestREADMEExamples runs every example of twice run in docs/MANUAL.md that
// shows its output (a "$ go run ./cmd/twice run -c '...'" line in a sh
// block, followed by what it prints) and requires the output shown to be
// what twice prints, byte for byte.
func TestREADMEExamples(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "MANUAL.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := regexp.MustCompile(`^\$ go run \./cmd/twice run (.*)-c '([^']*)'$`)
	examples := 0
	for _, block := range shBlocks(string(data)) {
		lines := strings.Split(block, "\n")
		for i := 0; i < len(lines); i++ {
			m := cmd.FindStringSubmatch(lines[i])
			if m == nil {
				continue
			}
			var want []string
			for i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "$ ") {
				i++
				want = append(want, lines[i])
			}
			args := append(append([]string{"run"}, strings.Fields(m[1])...), "-c", m[2])
			var stdout, stderr bytes.Buffer
			if code := run(args, strings.NewReader(""), &stdout, &stderr); code != 0 {
				t.Errorf("docs/MANUAL.md: twice %q exits %d: %s", args, code, stderr.String())
				continue
			}
			examples++
			if got := strings.TrimRight(stdout.String(), "\n"); got != strings.Join(want, "\n") {
				t.Errorf("docs/MANUAL.md shows for twice run -c %q:\n%s\nbut twice prints:\n%s", m[2], strings.Join(want, "\n"), got)
			}
		}
	}
	if examples == 0 {
		t.Fatal("docs/MANUAL.md has no example of twice run with its output")
	}
}

// TestREADMEFrontDoor runs the two scripts README.md's front door shows
// and requires the last line of each to be the one it says it ends with
// ("The first ends `...`; the second, `...`.").
func TestREADMEFrontDoor(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	scripts := regexp.MustCompile(`(?m)^go run \./cmd/twice run -c '([^']*)'$`).FindAllStringSubmatch(string(data), -1)
	ends := regexp.MustCompile("The first ends `([^`]*)`;\\s+the\\s+second,\\s+`([^`]*)`").FindStringSubmatch(string(data))
	if len(scripts) != 2 || ends == nil {
		t.Fatalf("README.md shows %d scripts to run and says what they end with: %v; want 2 and the sentence", len(scripts), ends != nil)
	}
	for i, m := range scripts {
		var stdout, stderr bytes.Buffer
		if code := run([]string{"run", "-c", m[1]}, strings.NewReader(""), &stdout, &stderr); code != 0 {
			t.Fatalf("README.md: twice run -c %q exits %d: %s", m[1], code, stderr.String())
		}
		out := strings.Split(strings.TrimRight(stdout.String(), "\n"), "\n")
		if last := out[len(out)-1]; last != ends[i+1] {
			t.Errorf("README.md says twice run -c %q ends %q; it ends %q", m[1], ends[i+1], last)
		}
	}
}

// shBlocks returns the contents of the markdown's ```sh fenced blocks.
func shBlocks(md string) []string {
	var blocks []string
	for _, part := range strings.Split(md, "```sh\n")[1:] {
		if end := strings.Index(part, "```"); end >= 0 {
			blocks = append(blocks, strings.TrimRight(part[:end], "\n"))
		}
	}
	return blocks
}

// The parts of docs/MANUAL.md that are written from the code, each between
// two markers: a test fails when one differs from what the code says,
// and go test ./cmd/twice -run README -update writes it again.
const (
	usageBegin = "<!-- twice's usage (cmd/twice/main.go), written by go test ./cmd/twice -run README -update -->\n"
	usageEnd   = "<!-- end of twice's usage -->\n"
	tableBegin = "<!-- the first column: the synopses of the command table (runtime/script/lang/commands.go), written by go test ./cmd/twice -run README -update -->\n"
	tableEnd   = "<!-- end of the command table -->\n"
)

// readREADME returns docs/MANUAL.md, the manual.
func readREADME(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "MANUAL.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// between returns the text of md between the markers begin and end, and
// md with want there instead; ok is false when md lacks a marker.
func between(md, begin, end, want string) (got, updated string, ok bool) {
	i := strings.Index(md, begin)
	if i < 0 {
		return "", md, false
	}
	i += len(begin)
	j := strings.Index(md[i:], end)
	if j < 0 {
		return "", md, false
	}
	return md[i : i+j], md[:i] + want + md[i+j:], true
}

// checkGenerated holds the part of docs/MANUAL.md between begin and end to
// want, or with -update writes want there.
func checkGenerated(t *testing.T, what, begin, end, want string) {
	t.Helper()
	md := readREADME(t)
	got, updated, ok := between(md, begin, end, want)
	if !ok {
		t.Fatalf("docs/MANUAL.md lacks the markers of %s: %q and %q", what, begin, end)
	}
	if *updateScripts && got != want {
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "MANUAL.md"), []byte(updated), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != want {
		t.Errorf("docs/MANUAL.md's %s is not what the code says; go test ./cmd/twice -run README -update writes it:\n%s\nwant:\n%s", what, got, want)
	}
}

// usageBlock is docs/MANUAL.md's command-line block: twice's usage, without
// its first and last lines, as a fenced block.
func usageBlock() string {
	lines := strings.Split(strings.TrimSuffix(usage, "\n"), "\n")
	var b strings.Builder
	b.WriteString("```\n")
	for _, l := range lines[1 : len(lines)-1] {
		b.WriteString(strings.TrimPrefix(l, "  ") + "\n")
	}
	b.WriteString("```\n")
	return b.String()
}

// TestREADMESynopsis: docs/MANUAL.md's command-line block is twice's usage;
// the package doc gives every subcommand's synopsis as the usage does,
// and the usage names every flag the subcommand's flag set defines, and
// is the first line of the subcommand's own -h.
func TestREADMESynopsis(t *testing.T) {
	checkGenerated(t, "command-line block", usageBegin, usageEnd, usageBlock())
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	synopsis := regexp.MustCompile(`(?m)^\s*(twice (run|serve|build|bundle|case list|case check) .*)$`)
	lines := func(text string) map[string]string {
		out := map[string]string{}
		for _, m := range synopsis.FindAllStringSubmatch(text, -1) {
			if _, ok := out[m[2]]; !ok {
				out[m[2]] = strings.TrimSpace(m[1])
			}
		}
		return out
	}
	doc, help := lines(strings.ReplaceAll(string(src)[:strings.Index(string(src), "package main")], "//", "")), lines(usage)
	for _, sub := range []string{"run", "serve", "build", "bundle", "case list", "case check"} {
		if help[sub] == "" || help[sub] != doc[sub] {
			t.Errorf("twice %s: the package doc says %q, the usage %q", sub, doc[sub], help[sub])
		}
		var stderr bytes.Buffer
		run(append(strings.Fields(sub), "-h"), strings.NewReader(""), &bytes.Buffer{}, &stderr)
		if !strings.Contains(stderr.String(), "usage: "+help[sub]+"\n") && !strings.Contains(stderr.String(), "       "+help[sub]+"\n") {
			t.Errorf("twice %s -h does not give the synopsis of the usage, %q:\n%s", sub, help[sub], stderr.String())
		}
		for _, m := range regexp.MustCompile(`(?m)^  -([a-z][a-z-]*)`).FindAllStringSubmatch(stderr.String(), -1) {
			f := m[1]
			if f == "c" || f == "o" {
				f = "-" + f
			} else {
				f = "--" + f
			}
			if !strings.Contains(help[sub], f+" ") && !strings.Contains(help[sub], f+"]") {
				t.Errorf("twice %s takes %s, but its synopsis %q does not name it", sub, f, help[sub])
			}
		}
	}
}

// commandTable is docs/MANUAL.md's command table with the first cell of each
// row written from the command table: each code span of the cell (the
// commands the row is about) becomes the synopsis of the command its
// first word names. A command with no row gets one at the end, its
// summary as what it does. It returns the table, and the cells' words
// that name no command.
func commandTable(table string) (string, []string) {
	synopses := map[string]string{}
	var order []string
	for _, c := range lang.Commands() {
		synopses[c.Name] = c.Usage
		order = append(order, c.Name)
	}
	cell := func(s string) string { return "`" + strings.ReplaceAll(s, "|", `\|`) + "`" }
	span := regexp.MustCompile("`([^`]*)`")
	var out, unknown []string
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSuffix(table, "\n"), "\n") {
		first, rest, ok := strings.Cut(strings.TrimPrefix(line, "| "), " | ")
		if !strings.HasPrefix(line, "| `") || !ok {
			out = append(out, line)
			continue
		}
		var spans []string
		for _, m := range span.FindAllStringSubmatch(first, -1) {
			name := strings.Fields(m[1] + " ?")[0]
			if _, ok := synopses[name]; !ok || seen[name] {
				unknown = append(unknown, m[1])
				spans = append(spans, m[0])
				continue
			}
			seen[name] = true
			spans = append(spans, cell(synopses[name]))
		}
		out = append(out, "| "+strings.Join(spans, ", ")+" | "+rest)
	}
	for _, name := range order {
		if !seen[name] {
			var summary string
			for _, c := range lang.Commands() {
				if c.Name == name {
					summary = c.Summary
				}
			}
			out = append(out, "| "+cell(synopses[name])+" | "+summary+" | |")
		}
	}
	return strings.Join(out, "\n") + "\n", unknown
}

// TestREADMECommandTable: docs/MANUAL.md's command table has a row for every
// command of the command table, whose first cell is its synopsis, and
// none for a command it lacks or twice for one; the list of work's flags
// below it names none that work lacks.
func TestREADMECommandTable(t *testing.T) {
	md := readREADME(t)
	table, _, ok := between(md, tableBegin, tableEnd, "")
	if !ok {
		t.Fatalf("docs/MANUAL.md lacks the markers of the command table: %q and %q", tableBegin, tableEnd)
	}
	want, unknown := commandTable(table)
	for _, u := range unknown {
		t.Errorf("the manual's command table has a row for %q, which is no command, or a command's second row", u)
	}
	checkGenerated(t, "command table", tableBegin, tableEnd, want)
	// The flags' section of work, from "Flags of `work`" to the next
	// heading, names no flag work does not have.
	start := strings.Index(md, "Flags of `work`")
	if start < 0 {
		t.Fatal("docs/MANUAL.md has no section \"Flags of `work`\"")
	}
	section := md[start:]
	if end := strings.Index(section, "\n#"); end >= 0 {
		section = section[:end]
	}
	var usage string
	for _, c := range lang.Commands() {
		if c.Name == "work" {
			usage = c.Usage
		}
	}
	for _, m := range regexp.MustCompile("`(--[a-z][a-z-]*)").FindAllStringSubmatch(section, -1) {
		if m[1] == "--flag" {
			continue // `--flag value`: how any flag is written
		}
		if !regexp.MustCompile(regexp.QuoteMeta(m[1]) + `\b`).MatchString(usage) {
			t.Errorf("the manual's flags of work name %s, which work does not have (its synopsis: %s)", m[1], usage)
		}
	}
}
