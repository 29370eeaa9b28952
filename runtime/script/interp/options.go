package interp

// Options configure one run.
type Options struct {
	// Seed drives every random draw, run ids included. Callers that have
	// no seed of their own pass DefaultSeed.
	Seed uint64
	// Timeline asks for Result.Timeline.
	Timeline bool
	// Budget bounds what the run may spend; the zero Budget is
	// FullBudget. A page that runs a script nobody asked it to run passes
	// AutoBudget.
	Budget Budget
	// Progress, when set, hears how far a long command has got: after
	// each race of a race command (what is "races") and after each lease
	// run of a load ("lease runs"), how many are done of how many. It
	// changes nothing in the run; the browser, which cannot stop a run
	// halfway and ask, says from it how far a run it stopped had got.
	Progress func(done, of int, what string)
	// noViews leaves Result.Views empty: a matrix cell's run shows none.
	noViews bool
}

// DefaultSeed is the seed used when none is given, so that a lesson's
// printed output is stable.
const DefaultSeed uint64 = 1
