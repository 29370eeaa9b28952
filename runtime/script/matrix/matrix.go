// Package matrix is the matrix command's table: every duplicate scenario
// the lab knows, as a script, and every fix, as a change written into a
// script (CellScript). Each cell of the matrix is a live run of its
// scenario's script with the fix written in, run like any other script
// (package interp runs the cells), its effects counted from the Result.
// The parser reads the table too, to count what a matrix will run.
//
// # Adding a scenario or a fix
//
// One entry in Scenarios (a script that duplicates without a fix, and
// how many events it carries: one effect each is right) or in Fixes (a
// claim to use instead of read, flags for every work and race line,
// service lines to run first). The scripts must parse with the fix
// written in: interp's TestMatrixCellsAreLiveRuns runs every cell again
// from its script and requires every scenario to duplicate without a
// fix. Then go test ./runtime/script/interp -run Golden -update rewrites
// matrix.txtar; review the diff, and the prose of the which-fix lesson.
package matrix

import (
	"strconv"
	"strings"
)

// Scenario is one way a job ends up with two effects, as a script.
type Scenario struct {
	ID, Title string
	// Events is how many effects the scenario should end with: one per
	// event (a race scenario runs one event per race).
	Events int
	Script string
}

// Fix is one fix: what it changes in a scenario's script.
type Fix struct {
	ID    string // also the column header
	Title string
	// Claim, when set, replaces the read claim: race CLAIM, work --claim.
	Claim string
	// Flags are added to every work and race line that lacks them.
	Flags []string
	// Service lines run before the scenario.
	Service string
	// Pending marks a fix whose commands the lab does not run yet.
	Pending bool
}

// RaceN is how many races the claim-race scenario runs at each
// seed.
const RaceN = 50

// Seeds is how many seeds every cell is run at, from the matrix's
// own seed on: a fix closes a scenario only if it closes it at each of
// them.
const Seeds = 20

// Scenarios are the matrix's rows, in order.
var Scenarios = []Scenario{
	{ID: "claim-race", Title: "claim race", Events: RaceN,
		Script: "race read " + strconv.Itoa(RaceN) + "\n"},
	{ID: "lost-ack", Title: "lost ack, lease expires", Events: 1,
		Script: "reset\nadd order-77\nwork --job 1 --worker W1 --lease 1 --crash-before-ack\nsleep 2\nwork --job 1 --worker W2\n"},
	{ID: "slow", Title: "slow processing", Events: 1,
		Script: "reset\nadd order-77\nwork --job 1 --worker W1 --lease 1 --processing 3000 &\nsleep 1.5\nwork --job 1 --worker W2\nwait\n"},
	{ID: "stall", Title: "stall past heartbeat", Events: 1,
		Script: "reset\nadd order-77\nwork --job 1 --worker W1 --lease 1 --processing 3000 --heartbeat 300 --stall 2500 &\nsleep 4.5\nwork --job 1 --worker W2\nwait\n"},
	// The stall again, with a second holder slow enough that the stale
	// run's receipt lands first: the row where a fencing token, which
	// refuses a stale request only after a newer one, lets both through.
	{ID: "stale-first", Title: "stall, stale receipt first", Events: 1,
		Script: "reset\nadd order-77\nwork --job 1 --worker W1 --lease 1 --processing 3000 --heartbeat 300 --stall 2500 &\nsleep 4.5\nwork --job 1 --worker W2 --processing 3000\nwait\n"},
	{ID: "client-retry", Title: "client retry", Events: 1,
		Script: "reset\nadd order-77\nwork --job 1 --worker W1 --delay 400 --timeout 300\n"},
	{ID: "double-publish", Title: "double publish", Events: 1,
		Script: "reset\nadd order-77 --times 2\nwork --job 1 --worker W1\nwork --job 2 --worker W2\n"},
}

// Fixes are the matrix's columns, in order; the first is no fix.
var Fixes = []Fix{
	{ID: "none", Title: "no fix"},
	{ID: "atomic", Title: "atomic claim", Claim: "atomic"},
	{ID: "heartbeat", Title: "heartbeat every 300 ms", Flags: []string{"--heartbeat", "300"}},
	{ID: "fence", Title: "fencing token", Flags: []string{"--fence"}},
	{ID: "check", Title: "service dedupe check, event key", Service: "service --dedupe check", Flags: []string{"--key", "event"}},
	{ID: "claim", Title: "service dedupe claim, event key", Service: "service --dedupe claim", Flags: []string{"--key", "event"}},
	{ID: "ledger", Title: "key and effect in one transaction", Flags: []string{"--effect", "ledger"}},
}

// Races is how many races one matrix command runs, for the limit on
// races per script.
func Races() int { return RaceN * Seeds * len(Fixes) }

// CellScript writes fix f into scenario s's script.
func CellScript(s Scenario, f Fix) string {
	var b strings.Builder
	if f.Service != "" {
		b.WriteString(f.Service + "\n")
	}
	for _, line := range strings.SplitAfter(s.Script, "\n") {
		body, nl := strings.CutSuffix(line, "\n")
		body, bg := strings.CutSuffix(body, " &")
		words := strings.Fields(body)
		if len(words) > 0 && (words[0] == "work" || words[0] == "race") {
			if f.Claim != "" {
				if words[0] == "race" {
					words[1] = f.Claim
				} else {
					words = append(words, "--claim", f.Claim)
				}
			}
			for i := 0; i < len(f.Flags); i++ {
				flag := f.Flags[i]
				hasValue := i+1 < len(f.Flags) && !strings.HasPrefix(f.Flags[i+1], "--")
				present := false
				for _, w := range words {
					present = present || w == flag
				}
				if !present {
					words = append(words, flag)
					if hasValue {
						words = append(words, f.Flags[i+1])
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

// FixChange says in script terms what a fix changes.
func FixChange(f Fix) string {
	var parts []string
	if f.Service != "" {
		parts = append(parts, f.Service)
	}
	if f.Claim != "" {
		parts = append(parts, "race "+f.Claim+", work --claim "+f.Claim)
	}
	if len(f.Flags) > 0 {
		parts = append(parts, "work and race "+strings.Join(f.Flags, " "))
	}
	if len(parts) == 0 {
		return "the scenario's script as it is"
	}
	return strings.Join(parts, "; ")
}
