package result

import (
	"strings"

	"github.com/twice-lab/twice/runtime/event"
	"github.com/twice-lab/twice/runtime/script/diagnosis"
	"github.com/twice-lab/twice/runtime/script/lang"
)

// Result is everything one run of a script produced. It is what `twice run
// --json` prints and what the browser playground renders: the transcript
// exactly as the CLI prints it, and the same facts as tables.
type Result struct {
	// Seed is the seed the run used; running again with it replays the run.
	Seed uint64 `json:"seed"`
	// Transcript holds the lines the CLI prints on standard output, in order.
	Transcript []string `json:"transcript"`
	// Effects lists every request the receipts service recorded, in order of
	// arrival (after the last reset).
	Effects []Effect `json:"effects"`
	// Summary groups Effects by order, with a diagnosis of any duplicate.
	Summary []diagnosis.Summary `json:"summary"`
	// Jobs is the jobs table as it stands at the end of the run.
	Jobs []Job `json:"jobs"`
	// Log is worker.log at the end of the run.
	Log []string `json:"log"`
	// Races has one tally for each timed race command, in order.
	Races []RaceTally `json:"races"`
	// Explorations has one report for each race --all command, in order.
	Explorations []Exploration `json:"explorations"`
	// Loads has one tally for each lease length of each load command, in
	// order.
	Loads []LoadTally `json:"loads"`
	// Ledger is the ledger table at the end of the run: the effects that
	// landed in the queue's own database (work --effect ledger), committed.
	Ledger []LedgerRow `json:"ledger"`
	// Keys is the processed_keys table at the end of the run.
	Keys []KeyRow `json:"keys"`
	// Locks is the locks table at the end of the run, which only the
	// claims that take a lock write; absent when it has no row.
	Locks []LockRow `json:"locks,omitempty"`
	// KeyHits counts ledger writes that found their key already processed
	// since the last reset: duplicates the key caught.
	KeyHits int `json:"key_hits"`
	// Matrices has one table for each matrix command, in order.
	Matrices []MatrixTable `json:"matrices"`
	// Schedule is the ordering the last race --schedule ran, step by step;
	// absent when the script has none. It is filled even when the
	// schedule stopped early (with an error): the steps it took, the
	// tables after them, and each worker's next step.
	Schedule *Schedule `json:"schedule,omitempty"`
	// Views says what each view of the block shows for this script, or
	// why it does not apply (see views.Of); empty when it did not parse.
	Views Views `json:"views"`
	// Outcome counts what the run ended with, as every view counts it.
	Outcome Outcome `json:"outcome"`
	// Race names the race of the last timed race command that the trace,
	// the tables and the diagnosis show ("race 20 of 20"), or "" when the
	// script runs no timed race. The transcript's worker lines are the
	// first race's: a reader is told where the two differ.
	Race string `json:"race,omitempty"`
	// Trace lists the atomic steps of the simulated processes. A race
	// command traces its last race only (the one its tables end on).
	Trace []Event `json:"trace"`
	// Timeline is the run drawn as SVG, when Options.Timeline asked for it
	// and a worker ran.
	Timeline *Timeline `json:"timeline,omitempty"`
	// Chart draws the load runs as SVG, when Options.Timeline asked for
	// pictures and the script ran a load.
	Chart *Chart `json:"chart,omitempty"`
	// Error is set when the script could not be parsed or a command failed
	// at run time; the transcript then holds what ran before the error.
	Error *lang.Error `json:"error,omitempty"`
	// ExitCode is what `twice run` exits with: 0, 1 for a runtime error,
	// 2 for a usage or parse error.
	ExitCode int `json:"exit_code"`
	// Cut is set when the run passed its budget (see Budget): it stopped
	// at once, Error names what ran out and where, and the transcript and
	// tables hold what ran before.
	Cut *Cut `json:"cut,omitempty"`
	// Heavy is true when the run passed AutoBudget: the script is one a
	// page should show with a Run button rather than run as it loads.
	Heavy bool `json:"heavy,omitempty"`

	// Spent is what the run spent, in the units of the interpreter's
	// budget: for tests and for a matrix's cells. The JSON leaves it out.
	Spent Spent `json:"-"`
}

// Effect is one request recorded by the receipts service on arrival.
type Effect struct {
	Order   string `json:"order"`
	Job     int64  `json:"job"`
	Run     string `json:"run"`
	Attempt int    `json:"attempt"`
	Send    int    `json:"send"`
	Worker  string `json:"worker"`
	// AtUS is the virtual instant of arrival in microseconds since the
	// start of the run.
	AtUS int64 `json:"at_us"`
	// Token is the fencing token the request carried, 0 for none.
	Token int `json:"token"`
	// Refused marks a request the service refused (a stale fencing
	// token): recorded, but not an effect.
	Refused bool `json:"refused"`
	// Event is the producer's event id of the job; Key the
	// Idempotency-Key the request carried ("" for none).
	Event string `json:"event"`
	Key   string `json:"key"`
	// Replayed marks a request the service deduplicated: recorded, not an
	// effect; it got the answer of run FirstRun back.
	Replayed bool   `json:"replayed"`
	FirstRun string `json:"first_run"`
	// KeyState is, for an effect the service let through on its key,
	// "new" (no row for the key) or "expired" (a row older than the TTL).
	KeyState string `json:"key_state"`
	// Ledger marks an effect that is a ledger row committed by a worker
	// (work --effect ledger), not a request: it appears only in the trace,
	// on the commit that made it visible; Result.Ledger lists the rows.
	Ledger bool `json:"ledger"`
}

// Job is one row of the jobs table.
type Job struct {
	ID    int64  `json:"id"`
	Order string `json:"order"`
	// Event is the producer's event id: two jobs with one event are one
	// event published twice.
	Event    string `json:"event"`
	Status   string `json:"status"`
	Attempts int    `json:"attempts"`
	// Run is the run id that last claimed the job, or "" when none has.
	Run string `json:"run"`
	// LeaseUS is the lease expiry in virtual microseconds, or nil.
	LeaseUS *int64 `json:"lease_us"`
}

// RaceTally counts the races of one race command that duplicated (ended
// with two or more effects).
type RaceTally struct {
	Claim      string `json:"claim"`
	Workers    int    `json:"workers"`
	Races      int    `json:"races"`
	Duplicates int    `json:"duplicates"`
	// Key is the workers' Idempotency-Key choice; Dedupe the service's
	// mode during the races.
	Key    string `json:"key"`
	Dedupe string `json:"dedupe"`
	// Effects counts the effects that landed over all the races
	// (receipts and ledger rows); one per race is right.
	Effects int `json:"effects"`
	// Txn is the claim's transaction mode, absent for autocommit;
	// NoBusy says the workers had no busy timeout; Busy counts the races
	// in which a worker died of SQLITE_BUSY (given with either).
	Txn    string `json:"txn,omitempty"`
	NoBusy bool   `json:"no_busy,omitempty"`
	Busy   int    `json:"busy,omitempty"`
}

// MatrixTable is what one matrix command found: every duplicate scenario run
// against every fix, each cell a live run of a script.
type MatrixTable struct {
	// Seed is the first of the Seeds seeds every cell ran at.
	Seed      uint64      `json:"seed"`
	Seeds     int         `json:"seeds"`
	Fixes     []MatrixFix `json:"fixes"`
	Scenarios []MatrixRow `json:"scenarios"`
}

// MatrixFix is one column of the matrix.
type MatrixFix struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Change says what the fix changes in each scenario's script.
	Change string `json:"change"`
	// Pending marks a fix the lab cannot run yet; its cells are empty.
	Pending bool `json:"pending"`
	// Closes counts the scenarios whose every event had one effect at
	// every seed.
	Closes int `json:"closes"`
}

// MatrixRow is one scenario of the matrix, with one cell per fix in the
// order of Matrix.Fixes.
type MatrixRow struct {
	ID     string       `json:"id"`
	Title  string       `json:"title"`
	Events int          `json:"events"`
	Cells  []MatrixCell `json:"cells"`
}

// MatrixCell is one live run: a scenario with one fix.
type MatrixCell struct {
	Fix string `json:"fix"`
	// Script is the script the cell ran ("" when pending): paste it into
	// the playground to see the run.
	Script string `json:"script"`
	// Events is how many effects would be right; Effects how many landed
	// (receipts not refused, and ledger rows), at the matrix's seed.
	Events  int `json:"events"`
	Effects int `json:"effects"`
	// Trials counts the races (or, for a one-run scenario, the runs) over
	// every seed, and Failed those that did not end with one effect per
	// event.
	Trials int `json:"trials"`
	Failed int `json:"failed"`
	// Verdict is "closed" (at every seed), "narrows" (fails, less often
	// than with no fix), "duplicate", "lost" or "pending".
	Verdict string `json:"verdict"`
	// Label is the cell as the text table prints it (MatrixCell.Text).
	Label string `json:"label"`
}

// LedgerRow is one committed row of the ledger.
type LedgerRow struct {
	ID      int64  `json:"id"`
	Key     string `json:"key"`
	Order   string `json:"order"`
	Job     int64  `json:"job"`
	Run     string `json:"run"`
	Attempt int    `json:"attempt"`
}

// LockRow is one row of the locks table: the job's lock, its owner (a
// run) and the instant it lapses.
type LockRow struct {
	Job     int64  `json:"job"`
	Owner   string `json:"owner"`
	UntilUS int64  `json:"until_us"`
}

// KeyRow is one committed row of processed_keys: a key and the run whose
// insert took.
type KeyRow struct {
	Key string `json:"key"`
	Run string `json:"run"`
}

// LoadTally is one load run: Jobs jobs worked by Workers workers under
// one lease length, and how many of the jobs had two or more effects.
type LoadTally struct {
	Jobs       int    `json:"jobs"`
	Workers    int    `json:"workers"`
	LeaseUS    int64  `json:"lease_us"`
	Processing string `json:"processing"` // the distribution, as written
	// P50US and P95US are the measured percentiles of the processing
	// times drawn in this run.
	P50US      int64 `json:"p50_us"`
	P95US      int64 `json:"p95_us"`
	Duplicates int   `json:"duplicates"`
	// Overran counts executions that took longer than the lease, from
	// their claim to their end: their work, a stall, the receipt's call
	// and the ack. A job with two effects had one at least.
	Overran int `json:"overran"`
	// The tables as this lease run left them, for the page to show the
	// lease a reader picks: the jobs that did not simply run once,
	// duplicates first (at most 30; More counts the rest), with their
	// diagnosis, effects and job rows; RanOnce counts the jobs that ran
	// once.
	Summary []diagnosis.Summary `json:"summary"`
	Effects []Effect            `json:"effects"`
	JobRows []Job               `json:"job_rows"`
	RanOnce int                 `json:"ran_once"`
	More    int                 `json:"more"`
	// KindCounts counts the jobs of this lease run by diagnosis, in order
	// of first appearance.
	KindCounts []KindCount `json:"kind_counts"`
}

// KindCount is how many orders one diagnosis names.
type KindCount struct {
	Kind diagnosis.Kind `json:"kind"`
	N    int            `json:"n"`
}

// Exploration is what race --all found: every interleaving of the
// workers' atomic steps, counted exactly (see package explore).
type Exploration struct {
	Claim   string `json:"claim"`
	Workers int    `json:"workers"`
	// Dedupe and Key are the service's dedupe mode and the workers' key
	// choice; with dedupe off or key none the receipt is one step.
	Dedupe string `json:"dedupe"`
	Key    string `json:"key"`
	// HeartbeatMS, Fence, Effect and KeyTxn are the race's worker flags,
	// absent when not given: a heartbeat's renewal, the fenced receipt and
	// ack, and the ledger's transactions are steps of their own.
	HeartbeatMS int    `json:"heartbeat_ms,omitempty"`
	Fence       bool   `json:"fence,omitempty"`
	Effect      string `json:"effect,omitempty"`
	KeyTxn      string `json:"key_txn,omitempty"` // "separate" when the ledger's key has a transaction of its own
	// Txn is the claim's transaction mode, absent for autocommit, and
	// NoBusy says the workers' connections have no busy timeout.
	Txn    string `json:"txn,omitempty"`
	NoBusy bool   `json:"no_busy,omitempty"`
	// Busy counts, as a decimal string, the orderings in which a worker
	// died of SQLITE_BUSY ("database is locked").
	Busy string `json:"busy,omitempty"`
	// Orderings and Duplicating are decimal strings: with many workers
	// they exceed what a JavaScript number holds exactly.
	Orderings   string `json:"orderings"`
	Duplicating string `json:"duplicating"`
	// Overlap counts, as a decimal string, the orderings in which two
	// workers own the job at once (each between a successful claim and
	// its ack), whatever the effects.
	Overlap string `json:"overlap"`
	// States is how many distinct states the search stepped from.
	States int `json:"states"`
	// Method says how the count was made exact.
	Method string `json:"method"`
	// Shortest is a shortest interleaving that reaches two effects, up to
	// the second effect; empty when none does.
	Shortest []ExploreStep `json:"shortest"`
}

// ExploreStep is one step of an interleaving.
type ExploreStep struct {
	Worker string `json:"worker"`
	What   string `json:"what"`
}

// Event is one atomic step of one simulated process, or a shell command.
//
// Kind is one of the kinds listed in package event, which says for each
// what it is, whose lane it belongs to and what the timeline draws for it;
// the JSON spells it by its name ("claim", "effect", "reset", ...).
//
// Replaying the events in order, applying Job (replace the row with that
// id), Effect (append) and reset (empty both), gives the tables as they
// stood after every step.
type Event struct {
	AtUS   int64      `json:"at_us"`
	Proc   string     `json:"proc"`
	Kind   event.Kind `json:"kind"`
	Step   string     `json:"step"`
	Run    string     `json:"run,omitempty"`
	Job    *Job       `json:"job,omitempty"`
	Effect *Effect    `json:"effect,omitempty"`
}

// Text returns the transcript as the CLI prints it.
func (r *Result) Text() string {
	if len(r.Transcript) == 0 {
		return ""
	}
	return strings.Join(r.Transcript, "\n") + "\n"
}
