package result

// Views says, for each view of a block beside its output, what that view
// shows for this script, or in a sentence why it does not apply. It is
// decided here, from the parsed script, so that the page renders what it
// is given and every view describes the block's own commands.
type Views struct {
	Explore   ExploreView   `json:"explore"`
	Compare   CompareView   `json:"compare"`
	Timeline  TimelineView  `json:"timeline"`
	Scheduler SchedulerView `json:"scheduler"`
	// Columns names the columns of the effects table this block is about,
	// most telling first, for the page to show right after the order
	// (the first, pinned column) where the screen is narrow: the key for
	// a block that sends keys, the send and attempt for fencing, the event
	// and job for a double publish; none for any other block, whose first
	// columns (order, job, event, run) are the telling ones.
	Columns []string `json:"columns"`
	// Numbers are the numbers of the script a slider can move (lang's
	// Script.Numbers), each with every place the script writes it, in
	// UTF-16 code units as the page's string counts them; the page puts a
	// new value there, so that it never reads the language.
	Numbers []NumberView `json:"numbers"`
}

// NumberView is one number of the script: its name (lease, processing, p95,
// heartbeat, stall, workers), its value (ms, or a count for workers),
// the least value the script allows there (0: none of its own), and the
// spans [start, end) where it is written.
type NumberView struct {
	Name  string     `json:"name"`
	Value int64      `json:"value"`
	Min   int64      `json:"min"`
	Spans []TextSpan `json:"spans"`
}

// TextSpan is a part of a script's text, [Start, End).
type TextSpan struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// ExploreView is what Every ordering checks: the block's own races made
// exhaustive (race ... --all with the same claim, workers, key, dedupe,
// heartbeat, fence and effect), or, for a block with no race, the race its
// work would run, offered but not the block's own.
type ExploreView struct {
	// Own is true when Script explores the block's own race commands.
	Own bool `json:"own"`
	// Note says in a sentence what is explored, or why the block's
	// commands have no race to explore.
	Note string `json:"note"`
	// Script is the script to run: service lines and one race --all line
	// per distinct race; "" when no race applies.
	Script string `json:"script"`
	// Workers is how many workers Script's first race has.
	Workers int `json:"workers"`
	// Refused, when not "", says why the explorer cannot check Script:
	// the runtime refuses this combination of flags.
	Refused string `json:"refused"`
	// ByWorkers has Script with every race at each number of workers
	// from MinWorkers to MaxWorkers, in order.
	ByWorkers []ExploreRun `json:"by_workers"`
}

// ExploreRun is an exploration script at one number of workers.
type ExploreRun struct {
	Workers int    `json:"workers"`
	Script  string `json:"script"`
	// Refused says why the runtime refuses Script ("" when it runs).
	Refused string `json:"refused"`
}

// CompareView is what Compare flips and what the claim toggle sets: the
// block's script once with each claim, as Compare's panes run it and as
// the toggle puts it in the script box, so that the page never reads the
// language itself.
type CompareView struct {
	// Claim is the claim of the block's script as the toggle shows it
	// (lang's Script.Claim).
	Claim string `json:"claim"`
	// Sides has one script per claim, in the order of queue.Claims, for
	// Compare's panes: every claim set, and a line the change made a
	// repeat of an earlier one left out; empty when nothing takes a claim.
	Sides []CompareSide `json:"sides"`
	// Note says why there is nothing to compare, or what differs.
	Note string `json:"note"`
	// Toggle has the block's own text per claim, in the same order, for
	// the claim toggle: the claim set where the script writes one (lang's
	// Script.WithClaim), comments, spacing and every line kept.
	Toggle []CompareSide `json:"toggle"`
}

// CompareSide is the block's script with one claim. Off, when it is set,
// says why that script cannot run (it passes a limit the block's own
// claim keeps under, as race --all explores more states with some
// claims): the claim toggle offers it disabled, with the reason.
type CompareSide struct {
	Claim  string `json:"claim"`
	Script string `json:"script"`
	Off    string `json:"off,omitempty"`
}

// SchedulerView is what "Be the scheduler" plays: the block's first race,
// one step at a time, the reader choosing which worker takes each. The
// page appends --schedule with the workers chosen so far to Script.
type SchedulerView struct {
	// Note says in a sentence which race is played, or why there is none.
	Note string `json:"note"`
	// Script is the service line in force (if any) and the race line with
	// its claim, workers and flags, and no count; "" when the block has no
	// race of its own.
	Script  string `json:"script"`
	Claim   string `json:"claim"`
	Workers int    `json:"workers"`
	// Refused, when not "", says why the runtime cannot play this race a
	// step at a time.
	Refused string `json:"refused"`
}

// TimelineView says what the Timeline tab can draw for the script.
type TimelineView struct {
	// Note is the sentence shown above the picture: what it draws, or why
	// there is none.
	Note string `json:"note"`
	// Chart is true when the tab shows the load chart (per lease: the
	// jobs, those with two effects, and the drawn p95 against the lease)
	// because load does not trace its jobs.
	Chart bool `json:"chart"`
	// Trace is true when a worker's steps are traced and drawn.
	Trace bool `json:"trace"`
}

// Outcome counts what a run ended with, the same way for every view:
// Duplicates are the races, load jobs, orderings of race --all (at most
// 2^53-1 in all) or (outside races, loads and explorations) events that
// ended with two or more effects; Effects are the effects that
// landed in the final tables (receipts neither refused nor replayed, and
// ledger rows).
type Outcome struct {
	Duplicates int `json:"duplicates"`
	Effects    int `json:"effects"`
	Refused    int `json:"refused"`
	Replayed   int `json:"replayed"`
	// Headline says the outcome in a few words.
	Headline string `json:"headline"`
}
