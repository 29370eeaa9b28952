package lessons

import "testing"

// TestMinutes checks a lesson's time against its words and blocks: 400
// words of prose and two blocks take 2 + 3 minutes; a block's script is
// not prose.
func TestMinutes(t *testing.T) {
	prose := "# T\n\n" + repeatWords(398) + "\n"
	l := Lesson{Source: []byte(prose + "```twice\nadd order-1\nwork --job 1\n```\n\n```twice\njobs\n```\n"), Blocks: []Block{{Script: "add order-1\nwork --job 1\n"}, {Script: "jobs\n"}}}
	if got := Minutes(l); got != 5 {
		t.Errorf("400 words and two blocks: %d minutes, want 5", got)
	}
	if got := Minutes(Lesson{}); got != 1 {
		t.Errorf("an empty lesson: %d minutes, want 1", got)
	}
}

func repeatWords(n int) string {
	b := make([]byte, 0, n*5)
	for range n {
		b = append(b, "word "...)
	}
	return string(b)
}
