package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
