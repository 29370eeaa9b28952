package explore

import (
	"strings"
	"testing"

	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/receipts"
)

// TestStatesTable: states.txt has a row for every race the generator
// counts, of every claim, in its order and written as it writes them,
// and no other line, so that go generate rewrites no line of a claim it
// reproduces. Whether the counts are the searches' is
// TestStatesKnownBeforehand's.
func TestStatesTable(t *testing.T) {
	rows := map[statesKey]statesRow{}
	if bad := parseStates(statesText, rows); bad != 0 {
		t.Fatalf("states.txt, line %d: not a row of the states table", bad)
	}
	want := statesHead
	n := 0
	for _, c := range queue.Claims() {
		var lines []string
		for _, r := range tableRaces(c) {
			row, ok := rows[r.key]
			if !ok {
				words := strings.Fields(formatRow(r.key, row))
				t.Errorf("states.txt has no row %q: run go generate ./runtime/explore", strings.Join(words[:4], " "))
			}
			lines = append(lines, formatRow(r.key, row))
			n++
		}
		want += "\n" + strings.Join(lines, "\n") + "\n"
	}
	if n != len(rows) {
		t.Errorf("states.txt has %d rows of the list's claims; the generator writes %d", len(rows), n)
	}
	if want != statesText {
		t.Errorf("states.txt is not as the generator writes it (a claim no longer in the list, the order, a comment): run go run ./runtime/explore/genstates CLAIM for the claims that changed")
	}
}

// TestUpdateStatesKeepsOtherClaims: the generator explores only the
// claims it is asked for and those the file lacks, and copies every
// other line as it is. Under -short, with nothing to explore.
func TestUpdateStatesKeepsOtherClaims(t *testing.T) {
	// Counts no search gives: they must come back as they are.
	file := strings.ReplaceAll(statesText, " 18 58 148 ", " 1 2 3 ")
	if out, err := UpdateStates([]byte(file), nil, 2); err != nil || string(out) != file {
		t.Fatalf("UpdateStates with every claim in the file wrote:\n%s\n%v", out, err)
	}
	if testing.Short() {
		return
	}
	// atomic's rows left out come back; lock's, named, are explored again.
	var lines []string
	for _, line := range strings.Split(file, "\n") {
		if !strings.HasPrefix(line, "atomic ") {
			lines = append(lines, strings.Replace(line, "lock off same - 11 18 ", "lock off same - 1 1 ", 1))
		}
	}
	out, err := UpdateStates([]byte(strings.Join(lines, "\n")), []queue.Claim{queue.ClaimLock}, 2)
	if err != nil || string(out) != file {
		t.Errorf("UpdateStates(lock) wrote:\n%s\n%v", out, err)
	}
}

// TestStatesFileErrors: a line the table cannot hold is refused, by its
// number.
func TestStatesFileErrors(t *testing.T) {
	for _, line := range []string{
		"read off same - 18 58 148 323 631 1135",
		"read of same - 18 58 148 323 631 1135 1915",
		"read off once - 18 58 148 323 631 1135 1915",
		"read off same - 18 58 148 323 631 1135 lots",
		"read off same - 18 58 148 323 631 1135 0",
		"read off same frob 18 58 148 323 631 1135 1915",
		"read off  same - 18 58 148 323 631 1135 1915",
	} {
		if bad := parseStates("# comment\n"+line+"\n", map[statesKey]statesRow{}); bad != 2 {
			t.Errorf("%q: bad line %d, want 2", line, bad)
		}
	}
	rows := map[statesKey]statesRow{}
	bad := parseStates("read check attempt heartbeat,fence,ledger,separate-key 1 2 3 4 5 many many\ngone off same - 1 2 3 4 5 6 7\n", rows)
	k := statesKey{"read", receipts.DedupeCheck, keyTry, Flags{Heartbeat: true, Fence: true, Ledger: true, SeparateKey: true}}
	if bad != 0 || len(rows) != 1 || rows[k] != (statesRow{1, 2, 3, 4, 5, ManyStates, ManyStates}) {
		t.Errorf("parse: %v, line %d", rows, bad)
	}
}
