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

// TestREADMEExamples runs every example of twice run in README.md that
// shows its output (a "$ go run ./cmd/twice run -c '...'" line in a sh
// block, followed by what it prints) and requires the output shown to be
// what twice prints, byte for byte.
func TestREADMEExamples(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
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
				t.Errorf("README: twice %q exits %d: %s", args, code, stderr.String())
				continue
			}
			examples++
			if got := strings.TrimRight(stdout.String(), "\n"); got != strings.Join(want, "\n") {
				t.Errorf("README shows for twice run -c %q:\n%s\nbut twice prints:\n%s", m[2], strings.Join(want, "\n"), got)
			}
		}
	}
	if examples == 0 {
		t.Fatal("README.md has no example of twice run with its output")
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

// readmeTable returns the rows of README.md's command table: for each
// row, the commands its first cell names (the first word of each code
// span) and the whole row.
func readmeTable(t *testing.T, md string) [][2]string {
	t.Helper()
	const head = "| command | what it does | what it prints |"
	i := strings.Index(md, head)
	if i < 0 {
		t.Fatal("README.md has no command table")
	}
	var rows [][2]string
	span := regexp.MustCompile("`([^`]*)`")
	for _, line := range strings.Split(md[i:], "\n")[2:] {
		if !strings.HasPrefix(line, "| ") {
			break
		}
		cell := strings.SplitN(line[2:], " | ", 2)[0]
		for _, m := range span.FindAllStringSubmatch(cell, -1) {
			rows = append(rows, [2]string{strings.Fields(m[1])[0], line})
		}
	}
	return rows
}

// TestREADMECommandTable: README.md's command table has a row for every
// command of the command list and none for a command it lacks; each row
// names every flag of its command's synopsis (work's flags are listed
// below the table, each as `--flag`) and its synopsis cell none that the
// command lacks; and that list of work's flags names none that work
// lacks. The synopses come from the command table's flag tables.
func TestREADMECommandTable(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(data)
	rows := map[string][]string{}
	for _, r := range readmeTable(t, md) {
		rows[r[0]] = append(rows[r[0]], r[1])
	}
	flag := regexp.MustCompile(`--[a-z][a-z-]*`)
	known := map[string]bool{}
	for _, c := range lang.Commands() {
		known[c.Name] = true
		rs, ok := rows[c.Name]
		if !ok {
			t.Errorf("README's command table has no row for %s", c.Name)
			continue
		}
		// The row's synopsis names no flag the command lacks.
		for _, r := range rs {
			cell := strings.SplitN(r[2:], " | ", 2)[0]
			for _, m := range regexp.MustCompile("`([^`]*)`").FindAllStringSubmatch(cell, -1) {
				if strings.Fields(m[1])[0] != c.Name {
					continue
				}
				for _, f := range flag.FindAllString(m[1], -1) {
					if !regexp.MustCompile(regexp.QuoteMeta(f) + `\b`).MatchString(c.Usage) {
						t.Errorf("README's row for %s names %s, which %s does not take (its synopsis: %s)", c.Name, f, c.Name, c.Usage)
					}
				}
			}
		}
		for _, f := range flag.FindAllString(c.Usage, -1) {
			in := strings.Contains(strings.Join(rs, "\n"), f)
			if c.Name == "work" {
				in = in || strings.Contains(md, "`"+f)
			}
			if !in {
				t.Errorf("README's row for %s does not name its flag %s", c.Name, f)
			}
		}
	}
	for name := range rows {
		if !known[name] {
			t.Errorf("README's command table has a row for %s, which is no command", name)
		}
	}
	// And the other way for work: its flags' section, from "Flags of
	// `work`" to the next heading, names no flag work does not have.
	start := strings.Index(md, "Flags of `work`")
	if start < 0 {
		t.Fatal("README has no section \"Flags of `work`\"")
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
			t.Errorf("README's flags of work name %s, which work does not have (its synopsis: %s)", m[1], usage)
		}
	}
}

// TestREADMESynopsis: the synopsis of every subcommand in README.md's
// command-line block, in the package doc and in twice's usage is the
// same line, and names every flag the subcommand's flag set defines.
func TestREADMESynopsis(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
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
	md := string(data)
	i := strings.Index(md, "## The command line")
	if i < 0 {
		t.Fatal("README.md has no command-line section")
	}
	readme, doc, help := lines(md[i:]), lines(strings.ReplaceAll(string(src)[:strings.Index(string(src), "package main")], "//", "")), lines(usage)
	for _, sub := range []string{"run", "serve", "build", "bundle", "case list", "case check"} {
		if readme[sub] == "" || readme[sub] != doc[sub] || readme[sub] != help[sub] {
			t.Errorf("twice %s: README says %q, the package doc %q, the usage %q", sub, readme[sub], doc[sub], help[sub])
		}
		var stderr bytes.Buffer
		run(append(strings.Fields(sub), "-h"), strings.NewReader(""), &bytes.Buffer{}, &stderr)
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
