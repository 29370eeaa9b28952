package result

import "strings"

// Verdicts of a matrix cell.
const (
	VerdictClosed    = "closed"    // every event had exactly one effect, at every seed
	VerdictNarrows   = "narrows"   // duplicates remain, but fewer than with no fix
	VerdictDuplicate = "duplicate" // some event had two or more
	VerdictLost      = "lost"      // some event had none
	VerdictPending   = "pending"   // the fix cannot run yet
)

// Timeline is the run drawn as an SVG: one lane per worker plus the
// receipts service, each lease a bar from claim to ack or expiry, each SQL
// statement a tick, each effect a dot (duplicates highlighted), kills
// marked. Time runs left to right; stretches with nothing happening
// (a sleep, a process starting, a client waiting) are cut out and shown as
// a break labelled with how long they lasted, so milliseconds and seconds
// both stay readable.
type Timeline struct {
	SVG    string `json:"svg"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	// EventX is the x coordinate, in SVG units, of each event of
	// Result.Trace, for drawing a cursor while stepping through it.
	EventX []int `json:"event_x"`
	// FirstDuplicate is the index in Result.Trace of the first effect
	// drawn as a duplicate (a second effect for one event), or -1: where
	// a narrow screen starts the picture.
	FirstDuplicate int `json:"first_duplicate"`
}

// Chart is a picture of the load runs: for each lease length, the share of
// jobs that ended with two effects, beside the measured 95th percentile of
// processing time. It is SVG, drawn like the timeline (escaped text only).
type Chart struct {
	SVG    string `json:"svg"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
}

// The budgets a run can run out of, as Cut.Budget names them.
const (
	BudgetSteps  = "steps"
	BudgetWork   = "sqlite"
	BudgetPolls  = "polls"
	BudgetOutput = "output"
)

// Cut says that a run stopped because it passed its budget, and which.
type Cut struct {
	// Budget is BudgetSteps, BudgetWork, BudgetPolls or BudgetOutput.
	Budget string `json:"budget"`
	// Limit is that field of the budget.
	Limit int64 `json:"limit"`
	// Auto is true when the budget was AutoBudget.
	Auto bool `json:"auto"`
}

// Spent is what a run spent, in the units of Budget.
type Spent struct {
	Steps  int
	Work   int64
	Polls  int
	Output int
}

// Text returns the transcript as the CLI prints it.
func (r *Result) Text() string {
	if len(r.Transcript) == 0 {
		return ""
	}
	return strings.Join(r.Transcript, "\n") + "\n"
}
