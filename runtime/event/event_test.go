package event

import (
	"regexp"
	"strconv"
	"testing"
)

// TestEveryKindIsListed: every constant has its entry, with a name the JSON
// can carry, a lane and words, and its name reads back as the same kind.
// A constant added without an entry has no name and fails here.
func TestEveryKindIsListed(t *testing.T) {
	name := regexp.MustCompile(`^[a-z]+(-[a-z]+)*$`)
	seen := map[string]Kind{}
	for _, k := range Kinds() {
		e := kindInfo[k]
		if !name.MatchString(e.name) {
			t.Errorf("kind %d: name %q is not a lower-case word or words joined by '-'", k, e.name)
		}
		if prev, ok := seen[e.name]; ok {
			t.Errorf("kinds %d and %d are both named %q", prev, k, e.name)
		}
		seen[e.name] = k
		if k.Lane() < LaneShell || k.Lane() > LaneReceipts {
			t.Errorf("%s: no lane", k)
		}
		if k.Lane() == LaneShell && (k.Mark() != NoMark || k.Bar() != NoBar) {
			t.Errorf("%s: a shell event has no lane to draw on", k)
		}
		if e.words == "" {
			t.Errorf("%s: no words", k)
		}
		if back, ok := Parse(k.String()); !ok || back != k {
			t.Errorf("Parse(%q) = %v, %v", k, back, ok)
		}
		var u Kind
		if b, _ := k.MarshalText(); u.UnmarshalText(b) != nil || u != k {
			t.Errorf("%s does not read back from its text", k)
		}
	}
	var u Kind
	if u.UnmarshalText([]byte("comit")) == nil {
		t.Error("an unknown name reads as a kind")
	}
	if numKinds.Valid() || numKinds.String() != "event kind "+strconv.Itoa(int(numKinds))+"?" || numKinds.Lane() != 0 {
		t.Error("a kind beyond the list is valid")
	}
}

// TestQuietKindsTouchNothingShared: no kind that the timeline draws as a
// statement, a request or an arrival, no kind that carries a row or an
// effect, and no shell command but starting a background list is quiet;
// the clock read and the SELECT of the row, which change no table, are
// not quiet either.
func TestQuietKindsTouchNothingShared(t *testing.T) {
	for _, k := range Kinds() {
		if !k.Quiet() {
			continue
		}
		switch {
		case k.Mark() != NoMark:
			t.Errorf("%s is quiet but the timeline marks it (a statement, a request, an effect)", k)
		case k.Lane() == LaneReceipts:
			t.Errorf("%s is quiet but the receipts service records it", k)
		case k.Lane() == LaneShell && k != Background:
			t.Errorf("%s is quiet but is a shell command that reads or writes the tables or the clock", k)
		}
	}
	for _, k := range []Kind{Select, Clock, ClaimFailed, LeaseLost, Sleep, Log, Say, Answer, Timeout, Busy, Wait} {
		if k.Quiet() {
			t.Errorf("%s is quiet, but it reads or writes shared state", k)
		}
	}
	if Kind(numKinds).Quiet() {
		t.Error("a kind not listed is quiet")
	}
}
