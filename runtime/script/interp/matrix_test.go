package interp

import (
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/twice-lab/twice/runtime/script/lang"
	"github.com/twice-lab/twice/runtime/script/matrix"
	"github.com/twice-lab/twice/runtime/script/result"
)

// Every cell of the matrix is a live run of the script it names: running
// that script again gives the same count, and the script is the
// scenario's with the fix's change written in.
func TestMatrixCellsAreLiveRuns(t *testing.T) {
	t.Parallel()
	res := matrixRun(t)
	if len(res.Matrices) != 1 {
		t.Fatalf("%d matrices, want 1", len(res.Matrices))
	}
	m := res.Matrices[0]
	if m.Seed != 3 || len(m.Scenarios) != len(matrix.Scenarios) || len(m.Fixes) != len(matrix.Fixes) {
		t.Fatalf("matrix seed %d, %d scenarios, %d fixes", m.Seed, len(m.Scenarios), len(m.Fixes))
	}
	for si, row := range m.Scenarios {
		for fi, c := range row.Cells {
			f := matrix.Fixes[fi]
			if f.Pending {
				if c.Verdict != result.VerdictPending || c.Script != "" {
					t.Errorf("%s × %s: pending fix has verdict %q, script %q", row.ID, f.ID, c.Verdict, c.Script)
				}
				continue
			}
			if want := matrix.CellScript(matrix.Scenarios[si], f); c.Script != want {
				t.Errorf("%s × %s: script %q, want %q", row.ID, f.ID, c.Script, want)
			}
			// -short runs a third of the cells again, every row and
			// column among them; the full run every cell.
			if !testing.Short() || (si+fi)%3 == 0 {
				checkCellAgain(t, si, fi, c)
			}
			if want := matrix.Seeds * max(1, strings.Count(c.Script, "race ")*matrix.RaceN); c.Trials != want {
				t.Errorf("%s × %s: %d trials, want %d over %d seeds", row.ID, f.ID, c.Trials, want, matrix.Seeds)
			}
			if (c.Verdict == result.VerdictClosed) != (c.Failed == 0) || c.Label != c.Text() {
				t.Errorf("%s × %s: verdict %s with %d failed trials, label %q", row.ID, f.ID, c.Verdict, c.Failed, c.Label)
			}
			for _, w := range f.Flags {
				if strings.HasPrefix(w, "--") && !strings.Contains(c.Script, w) {
					t.Errorf("%s × %s: script lacks %s:\n%s", row.ID, f.ID, w, c.Script)
				}
			}
		}
	}
	// The baseline duplicates in every scenario: each scenario is one the
	// lab knows how to make duplicate.
	for _, row := range m.Scenarios {
		if row.Cells[0].Verdict != result.VerdictDuplicate {
			t.Errorf("scenario %s does not duplicate without a fix: %+v", row.ID, row.Cells[0])
		}
	}
}

// matrixRun returns the run of "matrix --seed 3" at the default seed,
// run once per test binary: a whole matrix is the slowest command there
// is, and the tests that read one read the same.
func matrixRun(t *testing.T) *result.Result {
	t.Helper()
	matrixOnce.Do(func() { matrixRes = Run("matrix --seed 3", Options{Seed: DefaultSeed}) })
	if matrixRes.Error != nil {
		t.Fatal(matrixRes.Error)
	}
	return matrixRes
}

var (
	matrixOnce sync.Once
	matrixRes  *result.Result
)

// checkCellAgain runs a matrix cell's script again and requires the
// count the matrix gave.
func checkCellAgain(t *testing.T, si, fi int, c result.MatrixCell) {
	t.Helper()
	row, f := matrix.Scenarios[si], matrix.Fixes[fi]
	again, err := runCell(row, f, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	verdict := c.Verdict
	if verdict == result.VerdictNarrows {
		verdict = result.VerdictDuplicate // narrows is said of a row, beside its no-fix cell
	}
	if again.Effects != c.Effects || again.Verdict != verdict || again.Failed != c.Failed || again.Trials != c.Trials {
		t.Errorf("%s × %s: the matrix says %d (%s, %d/%d), running its script says %d (%s, %d/%d)", row.ID, f.ID, c.Effects, c.Verdict, c.Failed, c.Trials, again.Effects, again.Verdict, again.Failed, again.Trials)
	}
}

func TestCellScript(t *testing.T) {
	stall := matrix.Scenarios[3]
	hb := matrix.Fixes[2]
	got := matrix.CellScript(stall, hb)
	if strings.Count(got, "--heartbeat") != 2 {
		t.Errorf("heartbeat added twice to a line that had it, or not at all:\n%s", got)
	}
	if !strings.Contains(got, "--stall 2500 &\n") {
		t.Errorf("the background '&' must stay at the end of its line:\n%s", got)
	}
	atomic := matrix.CellScript(matrix.Scenarios[0], matrix.Fixes[1])
	if atomic != "race atomic "+strconv.Itoa(matrix.RaceN)+"\n" {
		t.Errorf("atomic claim race = %q", atomic)
	}
	if _, err := lang.Parse(matrix.CellScript(matrix.Scenarios[1], matrix.Fixes[1])); err != nil {
		t.Error(err)
	}
}

// The ledger closes the lost ack because the ack is inside the effect's
// transaction, and loses the work when the key is committed on its own.
func TestLedgerCrashLeavesNothingHalfDone(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		for _, crash := range []string{"--crash-before-ack", "--crash-before-commit"} {
			res := Run("add o1\nwork --job 1 --lease 1 --effect ledger "+crash+"\nsleep 2\nwork --job 1 --worker W2 --effect ledger", Options{Seed: seed})
			if res.Error != nil {
				t.Fatal(res.Error)
			}
			if len(res.Ledger) != 1 || len(res.Keys) != 1 || res.Ledger[0].Attempt != 2 || res.Jobs[0].Status != "done" {
				t.Fatalf("seed %d %s: ledger %v keys %v jobs %v; want one row from attempt 2", seed, crash, res.Ledger, res.Keys, res.Jobs)
			}
		}
		res := Run("add o1\nwork --job 1 --lease 1 --effect ledger --key-txn separate --crash-before-effect\nsleep 2\nwork --job 1 --worker W2 --effect ledger --key-txn separate", Options{Seed: seed})
		if len(res.Ledger) != 0 || len(res.Keys) != 1 || res.Jobs[0].Status != "done" || res.KeyHits != 1 {
			t.Fatalf("seed %d: separate key transaction: ledger %v keys %v hits %d; want lost work", seed, res.Ledger, res.Keys, res.KeyHits)
		}
	}
}

// Racing workers with the ledger never write two rows, over many seeds.
func TestLedgerRaceOneRow(t *testing.T) {
	res := Run("race read 300 --effect ledger\nrace read 100 --effect ledger --workers 4", Options{Seed: 5})
	if res.Error != nil {
		t.Fatal(res.Error)
	}
	for _, r := range res.Races {
		if r.Duplicates != 0 || r.Effects != r.Races {
			t.Errorf("%+v: want one ledger row per race", r)
		}
	}
}

// The fixes that hold, hold at every seed: the ledger and the service's
// claim with the event key close every scenario, and the atomic claim
// always closes the claim race, at seeds 1 to 40 (a cell runs 20 seeds).
// The fixes that do not hold fail somewhere: the check at the service and
// the heartbeat each duplicate some claim races.
func TestMatrixFixesThatHold(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every cell at 40 seeds")
	}
	failed := map[string]int{}
	for _, seed := range []uint64{1, 1 + matrix.Seeds} {
		for si, s := range matrix.Scenarios {
			for _, f := range matrix.Fixes {
				if f.Pending {
					continue
				}
				c, err := runCell(s, f, seed, nil)
				if err != nil {
					t.Fatal(err)
				}
				holds := f.ID == "ledger" || f.ID == "claim" || f.ID == "atomic" && si == 0
				if holds && c.Verdict != result.VerdictClosed {
					t.Errorf("seeds from %d: %s does not close %s: %d of %d trials failed", seed, f.ID, s.ID, c.Failed, c.Trials)
				}
				if s.ID == "claim-race" {
					failed[f.ID] += c.Failed
				}
			}
		}
	}
	if failed["check"] == 0 || failed["heartbeat"] == 0 {
		t.Errorf("claim races that duplicated: %v; the check at the service and the heartbeat must each fail some: the matrix cannot show that they narrow the race", failed)
	}
}
