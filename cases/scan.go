package cases

import "strings"

// The line shapes a case's markdown is read by: headings, fences, list
// items and arrows. They are written out here rather than as regular
// expressions, so that the browser's runtime, which links this package
// for the checks, carries no regexp engine.

// isSpace reports whether c is blank in the sense of markdown's lines.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\f' || c == '\r' || c == '\n' }

// indent returns line without at most three leading spaces, and false
// when it has more.
func indent(line string) (string, bool) {
	n := 0
	for n < len(line) && line[n] == ' ' {
		n++
	}
	if n > 3 {
		return line, false
	}
	return line[n:], true
}

// heading reads an ATX heading: its level (1 to 6) and its text, without
// a closing run of #s; ok is false for any other line.
func heading(line string) (level int, text string, ok bool) {
	rest, ok := indent(line)
	if !ok {
		return 0, "", false
	}
	for level < len(rest) && rest[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || level == len(rest) || !isSpace(rest[level]) {
		return 0, "", false
	}
	text = strings.TrimRight(rest[level:], " \t\f\r\n")
	// A closing sequence: #s after a blank, at the end.
	if t := strings.TrimRight(text, "#"); len(t) < len(text) && (t == "" || isSpace(t[len(t)-1])) {
		text = t
	}
	return level, strings.TrimSpace(text), true
}

// fence returns the run of ``` or ~~~ (three or more) that opens line as
// a code fence, or "".
func fence(line string) string {
	rest, ok := indent(line)
	if !ok || len(rest) < 3 || (rest[0] != '`' && rest[0] != '~') {
		return ""
	}
	n := 0
	for n < len(rest) && rest[n] == rest[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	return rest[:n]
}

// closesFence reports whether line closes a fence opened with the
// character c: the same character, three or more, and nothing after.
func closesFence(line string, c byte) bool {
	t := strings.TrimSpace(line)
	return len(t) >= 3 && strings.Trim(t, string(c)) == ""
}

// item returns the text of a list item ("- text", "1. text", "2) text"),
// and false for any other line.
func item(line string) (string, bool) {
	n := 0
	for n < 3 && n < len(line) && isSpace(line[n]) {
		n++
	}
	rest := line[n:]
	switch {
	case rest != "" && strings.ContainsRune("-*+", rune(rest[0])):
		rest = rest[1:]
	default:
		d := 0
		for d < len(rest) && d < 10 && rest[d] >= '0' && rest[d] <= '9' {
			d++
		}
		if d == 0 || d > 9 || d == len(rest) || (rest[d] != '.' && rest[d] != ')') {
			return "", false
		}
		rest = rest[d+1:]
	}
	if rest == "" || !isSpace(rest[0]) {
		return "", false
	}
	return strings.TrimLeft(rest, " \t\f\r\n"), true
}

// arrow reads a bulleted "- From -> To: label" (the label optional).
func arrow(line string) (from, to, label string, ok bool) {
	text, ok := item(line)
	if !ok || strings.IndexAny(strings.TrimLeft(line, " \t"), "-*+") != 0 {
		return "", "", "", false
	}
	from, rest, found := strings.Cut(text, "->")
	from = strings.TrimSpace(from)
	if !found || from == "" {
		return "", "", "", false
	}
	to, label, _ = strings.Cut(rest, ":")
	to, label = strings.TrimSpace(to), strings.TrimSpace(label)
	if to == "" {
		return "", "", "", false
	}
	return from, to, label, true
}

// validName reports whether s is a check's name: lower-case letters,
// digits and dashes, not starting with a dash.
func validName(s string) bool {
	if s == "" || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
