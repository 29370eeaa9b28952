package script

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/twice-lab/twice/runtime/event"
)

// The matrix: every duplicate scenario the lab knows, run against every
// fix. Each cell is a live run: the scenario's script with the fix's
// change written into it, run by Run like any other script, its effects
// counted from the Result. A new scenario or a new fix is one entry in
// one of the two tables below.

// matrixScenario is one way a job ends up with two effects, as a script.
// Every work and race line of the script gets the fix's flags; service
// lines come first.
type matrixScenario struct {
	id, title string
	// events is how many effects the scenario should end with: one per
	// event (a race scenario runs one event per race).
	events int
	script string
}

// matrixFix is one fix: what it changes in a scenario's script.
type matrixFix struct {
	id    string // also the column header
	title string
	// claim, when set, replaces the read claim: race CLAIM, work --claim.
	claim string
	// flags are added to every work and race line that lacks them.
	flags []string
	// service lines run before the scenario.
	service string
	// pending marks a fix whose commands the lab does not run yet.
	pending bool
}

// matrixRaceN is how many races the claim-race scenario runs at each
// seed.
const matrixRaceN = 50

// matrixSeeds is how many seeds every cell is run at, from the matrix's
// own seed on: a fix closes a scenario only if it closes it at each of
// them.
const matrixSeeds = 20

var matrixScenarios = []matrixScenario{
	{id: "claim-race", title: "claim race", events: matrixRaceN,
		script: "race read " + strconv.Itoa(matrixRaceN) + "\n"},
	{id: "lost-ack", title: "lost ack, lease expires", events: 1,
		script: "reset\nadd order-77\nwork --job 1 --worker W1 --lease 1 --crash-before-ack\nsleep 2\nwork --job 1 --worker W2\n"},
	{id: "slow", title: "slow processing", events: 1,
		script: "reset\nadd order-77\nwork --job 1 --worker W1 --lease 1 --processing 3000 &\nsleep 1.5\nwork --job 1 --worker W2\nwait\n"},
	{id: "stall", title: "stall past heartbeat", events: 1,
		script: "reset\nadd order-77\nwork --job 1 --worker W1 --lease 1 --processing 3000 --heartbeat 300 --stall 2500 &\nsleep 4.5\nwork --job 1 --worker W2\nwait\n"},
	{id: "client-retry", title: "client retry", events: 1,
		script: "reset\nadd order-77\nwork --job 1 --worker W1 --delay 400 --timeout 300\n"},
	{id: "double-publish", title: "double publish", events: 1,
		script: "reset\nadd order-77 --times 2\nwork --job 1 --worker W1\nwork --job 2 --worker W2\n"},
}

var matrixFixes = []matrixFix{
	{id: "none", title: "no fix"},
	{id: "atomic", title: "atomic claim", claim: "atomic"},
	{id: "heartbeat", title: "heartbeat every 300 ms", flags: []string{"--heartbeat", "300"}},
	{id: "fence", title: "fencing token", flags: []string{"--fence"}},
	{id: "check", title: "service dedupe check, event key", service: "service --dedupe check", flags: []string{"--key", "event"}},
	{id: "claim", title: "service dedupe claim, event key", service: "service --dedupe claim", flags: []string{"--key", "event"}},
	{id: "ledger", title: "key and effect in one transaction", flags: []string{"--effect", "ledger"}},
}

// matrixRaces is how many races one matrix command runs, for the limit on
// races per script.
func matrixRaces() int { return matrixRaceN * matrixSeeds * len(matrixFixes) }

// Verdicts of a matrix cell.
const (
	VerdictClosed    = "closed"    // every event had exactly one effect, at every seed
	VerdictNarrows   = "narrows"   // duplicates remain, but fewer than with no fix
	VerdictDuplicate = "duplicate" // some event had two or more
	VerdictLost      = "lost"      // some event had none
	VerdictPending   = "pending"   // the fix cannot run yet
)

// cellScript writes fix f into scenario s's script.
func cellScript(s matrixScenario, f matrixFix) string {
	var b strings.Builder
	if f.service != "" {
		b.WriteString(f.service + "\n")
	}
	for _, line := range strings.SplitAfter(s.script, "\n") {
		body, nl := strings.CutSuffix(line, "\n")
		body, bg := strings.CutSuffix(body, " &")
		words := strings.Fields(body)
		if len(words) > 0 && (words[0] == "work" || words[0] == "race") {
			if f.claim != "" {
				if words[0] == "race" {
					words[1] = f.claim
				} else {
					words = append(words, "--claim", f.claim)
				}
			}
			for i := 0; i < len(f.flags); i++ {
				flag := f.flags[i]
				hasValue := i+1 < len(f.flags) && !strings.HasPrefix(f.flags[i+1], "--")
				present := false
				for _, w := range words {
					present = present || w == flag
				}
				if !present {
					words = append(words, flag)
					if hasValue {
						words = append(words, f.flags[i+1])
					}
				}
				if hasValue {
					i++
				}
			}
			body = strings.Join(words, " ")
		}
		b.WriteString(body)
		if bg {
			b.WriteString(" &")
		}
		if nl {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// runCell runs one cell at matrixSeeds seeds from seed on and counts
// what it produced: the effects and verdict at the first seed, and over
// all the seeds how many trials (races, or runs of a one-run scenario)
// did not end with one effect per event. Its verdict is closed only when
// none did. Every run spends from what is left of the budget of the run
// that made the matrix (m); a nil meter runs each alone, with the full
// budget.
func runCell(s matrixScenario, f matrixFix, seed uint64, m *meter) (MatrixCell, error) {
	c := MatrixCell{Fix: f.id, Events: s.events}
	if f.pending {
		c.Verdict = VerdictPending
		return c, nil
	}
	c.Script = cellScript(s, f)
	worst := ""
	for i := range uint64(matrixSeeds) {
		effects, verdict, trials, failed, err := runCellOnce(s, c.Script, seed+i, m)
		if err != nil {
			return c, fmt.Errorf("matrix cell %s × %s at seed %d: %v", s.id, f.id, seed+i, err)
		}
		if i == 0 {
			c.Effects = effects
		}
		c.Trials += trials
		c.Failed += failed
		if worst == "" && verdict != VerdictClosed {
			worst = verdict
		}
	}
	c.Verdict = VerdictClosed
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
func runCellOnce(s matrixScenario, src string, seed uint64, m *meter) (effects int, verdict string, trials, failed int, err error) {
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
		m.extra.Steps += res.spent.Steps
		m.extra.Work += res.spent.Work
		m.extra.Polls += res.spent.Polls
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
		dup = effects > s.events
		trials = 1
	}
	switch {
	case dup:
		verdict = VerdictDuplicate
	case effects < s.events:
		verdict = VerdictLost
		if len(res.Races) > 0 {
			failed += s.events - effects
		}
	default:
		verdict = VerdictClosed
	}
	if trials == 1 && verdict != VerdictClosed {
		failed = 1
	}
	return effects, verdict, trials, failed, nil
}

// matrix runs every scenario against every fix at seed, records the table
// in the Result and prints it.
func (in *interp) matrix(seed uint64) error {
	m := MatrixTable{Seed: seed, Seeds: matrixSeeds}
	for _, f := range matrixFixes {
		m.Fixes = append(m.Fixes, MatrixFix{ID: f.id, Title: f.title, Change: fixChange(f), Pending: f.pending})
	}
	for _, s := range matrixScenarios {
		row := MatrixRow{ID: s.id, Title: s.title, Events: s.events}
		for i, f := range matrixFixes {
			c, err := runCell(s, f, seed, in.m)
			if err != nil {
				return err
			}
			// A fix that still duplicates, but less often than the
			// scenario with no fix, narrows it.
			if i > 0 && c.Verdict == VerdictDuplicate && c.Failed < row.Cells[0].Failed {
				c.Verdict = VerdictNarrows
			}
			if c.Verdict == VerdictClosed {
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

// fixChange says in script terms what a fix changes.
func fixChange(f matrixFix) string {
	var parts []string
	if f.service != "" {
		parts = append(parts, f.service)
	}
	if f.claim != "" {
		parts = append(parts, "race "+f.claim+", work --claim "+f.claim)
	}
	if len(f.flags) > 0 {
		parts = append(parts, "work and race "+strings.Join(f.flags, " "))
	}
	if len(parts) == 0 {
		return "the scenario's script as it is"
	}
	return strings.Join(parts, "; ")
}

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
