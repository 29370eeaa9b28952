package result

import (
	"fmt"
	"strconv"
	"strings"
)

// Verdicts of a matrix cell.
const (
	VerdictClosed    = "closed"    // every event had exactly one effect, at every seed
	VerdictNarrows   = "narrows"   // duplicates remain, but fewer than with no fix
	VerdictDuplicate = "duplicate" // some event had two or more
	VerdictLost      = "lost"      // some event had none
	VerdictPending   = "pending"   // the fix cannot run yet
)

// Text is a cell as the text table prints it: "ok" for closed at every
// seed, else the verdict and how many trials of how many failed ("dup
// 20/20", "narrows 3/400").
func (c MatrixCell) Text() string {
	switch c.Verdict {
	case VerdictPending:
		return "pending"
	case VerdictClosed:
		return "ok"
	case VerdictDuplicate:
		return fmt.Sprintf("dup %d/%d", c.Failed, c.Trials)
	}
	return fmt.Sprintf("%s %d/%d", c.Verdict, c.Failed, c.Trials)
}

// Lines prints the matrix as a fixed-width table, with a key to the
// columns under it.
func (m MatrixTable) Lines() []string {
	cols := make([]int, len(m.Fixes))
	for i, f := range m.Fixes {
		cols[i] = len(f.ID)
		for _, r := range m.Scenarios {
			cols[i] = max(cols[i], len(r.Cells[i].Text()))
		}
		cols[i] = max(cols[i], len(f.ClosesText(len(m.Scenarios))))
	}
	first := len("scenario")
	for _, r := range m.Scenarios {
		first = max(first, len(r.Title))
	}
	pad := func(s string, n int) string { return s + strings.Repeat(" ", n-len(s)) }
	lpad := func(s string, n int) string { return strings.Repeat(" ", n-len(s)) + s }
	line := func(name, events string, cells func(i int) string) string {
		var b strings.Builder
		b.WriteString(pad(name, first))
		b.WriteString("  " + lpad(events, 6))
		for i := range m.Fixes {
			b.WriteString("  " + pad(cells(i), cols[i]))
		}
		return strings.TrimRight(b.String(), " ")
	}
	out := []string{fmt.Sprintf("matrix (seeds %s): each cell a live run at every seed; one effect per event is right", m.SeedRange())}
	out = append(out, line("scenario", "events", func(i int) string { return m.Fixes[i].ID }))
	for _, r := range m.Scenarios {
		out = append(out, line(r.Title, strconv.Itoa(r.Events), func(i int) string { return r.Cells[i].Text() }))
	}
	out = append(out, line("closes", "", func(i int) string { return m.Fixes[i].ClosesText(len(m.Scenarios)) }))
	out = append(out, "ok: one effect per event at every seed; dup: failed trials of all (races, or runs of a one-run scenario); narrows: still fails, less often than with no fix; lost: an event with no effect")
	for _, f := range m.Fixes {
		s := fmt.Sprintf("  %s: %s (%s)", f.ID, f.Title, f.Change)
		if f.Pending {
			s += ": pending, the lab cannot run it yet"
		}
		out = append(out, s)
	}
	return out
}

// SeedRange is the seeds every cell ran at, as "1-20".
func (m MatrixTable) SeedRange() string {
	return fmt.Sprintf("%d-%d", m.Seed, m.Seed+uint64(max(m.Seeds, 1))-1)
}

// ClosesText is the matrix's last line for a fix: how many of n
// scenarios it closed, or "-" when it is pending.
func (f MatrixFix) ClosesText(n int) string {
	if f.Pending {
		return "-"
	}
	return fmt.Sprintf("%d of %d", f.Closes, n)
}
