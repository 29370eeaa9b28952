package lang

import (
	"strconv"
	"strings"
	"unicode/utf16"
)

// The numbers of a script a reader may drag: a page shows a slider for a
// number the script writes, and moves it by rewriting the script where
// the parser read that number, as the claim toggle does (WithClaim), so
// the page itself never reads the language.

// NumberNames are the numbers Numbers finds, in the order it lists them:
// the lease (one length, not a list), the processing time (a plain or
// fixed one), the p95 of a lognormal processing time, the heartbeat, the
// stall, and the workers of a load or race.
var NumberNames = []string{"lease", "processing", "p95", "heartbeat", "stall", "workers"}

// Number is one number of a script, as a slider shows it.
type Number struct {
	Name string
	// Value is where the first place it is written sets it: in ms for the
	// times (the lease too), a count for workers.
	Value int64
	// Min is the least value the script allows there: above the p50 for
	// a p95; 0 when the number has no floor of its own.
	Min int64
	// Spans are the byte offsets [start, end) of every place the script
	// writes it, in order.
	Spans [][2]int
}

// Numbers returns the script's numbers that a slider can move, in the
// order of NumberNames; a name the script does not write is left out.
func (s *Script) Numbers() []Number {
	found := map[string]*Number{}
	var walk func(cs []Command)
	walk = func(cs []Command) {
		for i := range cs {
			c := &cs[i]
			if c.Kind == CmdBackground {
				walk(c.Body)
				continue
			}
			for _, v := range c.values {
				name, value, floor, at, text, ok := numberOf(v)
				if !ok {
					continue
				}
				n := found[name]
				if n == nil {
					n = &Number{Name: name, Value: value, Min: floor}
					found[name] = n
				}
				n.Spans = append(n.Spans, [2]int{at, at + len(text)})
			}
		}
	}
	walk(s.Commands)
	var out []Number
	for _, name := range NumberNames {
		if n := found[name]; n != nil {
			out = append(out, *n)
		}
	}
	return out
}

// numberOf reads one flag value as a slider's number: its name, value,
// floor, and where its digits are (byte offset and text).
func numberOf(v flagValue) (name string, value, floor int64, at int, text string, ok bool) {
	digits := func(s string) (int64, bool) {
		if s == "" || strings.Trim(s, "0123456789") != "" {
			return 0, false
		}
		n, err := strconv.ParseInt(s, 10, 64)
		return n, err == nil
	}
	switch v.name {
	case "lease":
		d, err := parseSeconds(token{tWord, v.text, Pos{}, v.off}, "--lease", MaxLease)
		if err != nil || strings.Contains(v.text, ",") || d%1000 != 0 {
			return
		}
		return "lease", d / 1000, 0, v.off, v.text, true
	case "heartbeat", "stall", "workers":
		n, ok := digits(v.text)
		return v.name, n, 0, v.off, v.text, ok
	case "processing":
		if n, ok := digits(v.text); ok {
			return "processing", n, 0, v.off, v.text, true
		}
		if rest, found := strings.CutPrefix(v.text, "fixed:"); found {
			n, ok := digits(rest)
			return "processing", n, 0, v.off + len("fixed:"), rest, ok
		}
		rest, found := strings.CutPrefix(v.text, "lognormal:")
		if !found {
			return
		}
		var p50 int64
		off := v.off + len("lognormal:")
		for kv := range strings.SplitSeq(rest, ",") {
			k, val, _ := strings.Cut(kv, "=")
			n, good := digits(val)
			switch {
			case !good:
				return
			case k == "p50":
				p50 = n
			case k == "p95":
				name, value, at, text = "p95", n, off+len("p95="), val
			}
			off += len(kv) + 1
		}
		return name, value, p50 + 1, at, text, name != ""
	}
	return
}

// WithNumber returns the source of s with every place that writes the
// number name set to value (ms, or a count; see Number), the rest kept
// byte for byte; the source as it is when s does not write it.
func (s *Script) WithNumber(name string, value int64) string {
	text := strconv.FormatInt(value, 10)
	if name == "lease" {
		text = FormatSeconds(value * 1000)
	}
	var b strings.Builder
	from := 0
	for _, n := range s.Numbers() {
		if n.Name != name {
			continue
		}
		for _, sp := range n.Spans {
			b.WriteString(s.src[from:sp[0]])
			b.WriteString(text)
			from = sp[1]
		}
	}
	b.WriteString(s.src[from:])
	return b.String()
}

// UTF16 is byte offset off of the script's source counted in UTF-16 code
// units, as a JavaScript string indexes the same text.
func (s *Script) UTF16(off int) int {
	if off > len(s.src) {
		off = len(s.src)
	}
	return len(utf16.Encode([]rune(s.src[:off])))
}
