// Package views decides, from a parsed script alone, what each view
// beside a block's output shows, and counts a finished run one way for
// every view.
//
// A view never runs the script: it reads the commands (package lang) and
// returns data (package result) that the page renders as it is given.
//
//	Of(*lang.Script)        → result.Views    each view's script and sentence, or why it does not apply
//	Outcome(*result.Result) → result.Outcome  effects, refused, replayed and duplicates, and a headline
//	ClaimsJSON(src)         → JSON            the claim toggle for a script the reader edited
//
// The labels the transcript and the views share for a race are here too:
// RaceLabel and FlagsLabel (claim=read, dedupe=..., fence), ReplayLine
// (the race --schedule command that replays an ordering) and
// ScheduleOutcome (where a schedule left its race).
//
// What each view gets:
//
//   - Every ordering: the block's races made exhaustive (race CLAIM
//     --all) with their claim, workers, key, dedupe mode, heartbeat,
//     fence and effect; a block with no race gets a sentence and the race
//     its work would run, marked as not its own; a combination the
//     explorer refuses carries the parser's reason.
//   - Compare: the script with each claim of race, work and load set, and
//     the claim toggle: the block's own text with each claim, set where
//     it writes one.
//   - Timeline: the sentence for what it can draw (the load chart for a
//     load, which traces nothing).
//   - Be the scheduler: the block's first race with its flags and no
//     count, to which the page appends the workers the reader picks.
//   - Columns: the effects table's telling columns (keys, fencing, or
//     events), or none for the table's own order.
//
// Of costs time in proportion to the script's length (TestViewsAreLinear);
// package interp calls it before the first command runs and charges the
// views' bytes to the run's output budget, so that a script whose views
// alone pass the budget runs nothing. Outcome counts races, load jobs, or
// events with two landed effects as duplicates, and ledger rows as
// effects; a count of orderings too large for a page saturates at 2^53-1.
//
// # Adding a command
//
// A command that starts workers or sets a claim is seen here through
// walk: add its case to columnsOf (the flags that make a column telling),
// to claimsOf (the claims Compare reads from the block),
// to withClaim (where Compare sets its claim) and, if it races, to
// exploreView. A command that only prints needs nothing here.
package views
