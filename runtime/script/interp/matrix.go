package interp

import (
	"fmt"

	"github.com/twice-lab/twice/runtime/event"
	"github.com/twice-lab/twice/runtime/script/matrix"
	"github.com/twice-lab/twice/runtime/script/result"
)

// runCell runs one cell at matrix.Seeds seeds from seed on and counts
// what it produced: the effects and verdict at the first seed, and over
// all the seeds how many trials (races, or runs of a one-run scenario)
// did not end with one effect per event. Its verdict is closed only when
// none did. Every run spends from what is left of the budget of the run
// that made the matrix (m); a nil meter runs each alone, with the full
// budget.
func runCell(s matrix.Scenario, f matrix.Fix, seed uint64, m *meter) (result.MatrixCell, error) {
	c := result.MatrixCell{Fix: f.ID, Events: s.Events}
	if f.Pending {
		c.Verdict = result.VerdictPending
		return c, nil
	}
	c.Script = matrix.CellScript(s, f)
	worst := ""
	for i := range uint64(matrix.Seeds) {
		effects, verdict, trials, failed, err := runCellOnce(s, c.Script, seed+i, m)
		if err != nil {
			return c, fmt.Errorf("matrix cell %s × %s at seed %d: %v", s.ID, f.ID, seed+i, err)
		}
		if i == 0 {
			c.Effects = effects
		}
		c.Trials += trials
		c.Failed += failed
		if worst == "" && verdict != result.VerdictClosed {
			worst = verdict
		}
	}
	c.Verdict = result.VerdictClosed
	if c.Failed > 0 {
		c.Verdict = worst
	}
	return c, nil
}

// runCellOnce runs a cell's script at one seed: the effects that landed
// (receipts neither refused nor replayed, and ledger rows; over all the
// races of a race scenario), its verdict, and how many trials it made and
// how many of them failed. The run spends from m's budget, as runCell
// says; its output is its own (the cell keeps none of it).
func runCellOnce(s matrix.Scenario, src string, seed uint64, m *meter) (effects int, verdict string, trials, failed int, err error) {
	var b Budget
	if m != nil {
		left := m.spent()
		b = m.b
		b.Steps = max(1, b.Steps-left.Steps)
		b.Work = max(1, b.Work-left.Work)
		b.Polls = max(1, b.Polls-left.Polls)
	}
	res := Run(src, Options{Seed: seed, Budget: b, noViews: true})
	if m != nil {
		m.extra.Steps += res.Spent.Steps
		m.extra.Work += res.Spent.Work
		m.extra.Polls += res.Spent.Polls
		if err := m.check(); err != nil {
			return 0, "", 0, 0, err
		}
	}
	if res.Error != nil {
		return 0, "", 0, 0, res.Error
	}
	dup := false
	if len(res.Races) > 0 {
		for _, t := range res.Races {
			effects += t.Effects
			trials += t.Races
			failed += t.Duplicates
			dup = dup || t.Duplicates > 0
		}
	} else {
		for _, e := range res.Effects {
			if !e.Refused && !e.Replayed {
				effects++
			}
		}
		effects += len(res.Ledger)
		dup = effects > s.Events
		trials = 1
	}
	switch {
	case dup:
		verdict = result.VerdictDuplicate
	case effects < s.Events:
		verdict = result.VerdictLost
		if len(res.Races) > 0 {
			failed += s.Events - effects
		}
	default:
		verdict = result.VerdictClosed
	}
	if trials == 1 && verdict != result.VerdictClosed {
		failed = 1
	}
	return effects, verdict, trials, failed, nil
}

// matrix runs every scenario against every fix at seed, records the table
// in the Result and prints it.
func (in *interp) matrix(seed uint64) error {
	m := result.MatrixTable{Seed: seed, Seeds: matrix.Seeds}
	for _, f := range matrix.Fixes {
		m.Fixes = append(m.Fixes, result.MatrixFix{ID: f.ID, Title: f.Title, Change: matrix.FixChange(f), Pending: f.Pending})
	}
	for _, s := range matrix.Scenarios {
		row := result.MatrixRow{ID: s.ID, Title: s.Title, Events: s.Events}
		for i, f := range matrix.Fixes {
			c, err := runCell(s, f, seed, in.m)
			if err != nil {
				return err
			}
			// A fix that still duplicates, but less often than the
			// scenario with no fix, narrows it.
			if i > 0 && c.Verdict == result.VerdictDuplicate && c.Failed < row.Cells[0].Failed {
				c.Verdict = result.VerdictNarrows
			}
			if c.Verdict == result.VerdictClosed {
				m.Fixes[i].Closes++
			}
			c.Label = c.Text()
			row.Cells = append(row.Cells, c)
		}
		m.Scenarios = append(m.Scenarios, row)
	}
	in.res.Matrices = append(in.res.Matrices, m)
	in.k.Record("shell", event.Matrix, nil, "matrix --seed %d: %d scenarios × %d fixes, each a live run", seed, len(m.Scenarios), len(m.Fixes))
	for _, line := range m.Lines() {
		in.print("%s", line)
	}
	return nil
}
