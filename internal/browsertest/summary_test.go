package browsertest

import (
	"strings"
	"testing"
)

// The summary line names each kind of test that skipped, how many and
// why, on one line, and is empty when nothing skipped.
func TestSummary(t *testing.T) {
	skipped.Lock()
	saved := skipped.n
	skipped.n = map[[2]string]int{}
	skipped.Unlock()
	defer func() { skipped.Lock(); skipped.n = saved; skipped.Unlock() }()
	if s := Summary(); s != "" {
		t.Errorf("nothing skipped, summary %q", s)
	}
	NoteSkip("browser tests", "no Chromium found")
	NoteSkip("browser tests", "no Chromium found")
	NoteSkip("the accessibility gate", "no axe-core at .tools")
	s := Summary()
	for _, want := range []string{"browser tests skipped (2, no Chromium found)", "the accessibility gate skipped (1, no axe-core at .tools)", "docs/MANUAL.md"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary %q does not say %q", s, want)
		}
	}
	if strings.Contains(s, "\n") {
		t.Errorf("summary is more than one line: %q", s)
	}
}
