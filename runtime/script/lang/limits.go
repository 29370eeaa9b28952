package lang

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/twice-lab/twice/runtime/explore"
	"github.com/twice-lab/twice/runtime/receipts"
	"github.com/twice-lab/twice/runtime/script/matrix"
	"github.com/twice-lab/twice/runtime/sim"
)

// The limits of one script. They bound what a script can cost, so that no
// share link or embed can take a reader's tab, and they are the same in
// every build (native, wasip1, the browser), so a script either runs the
// same everywhere or is refused the same everywhere.
//
// Every limit here is checked by Parse, before anything runs: a script over
// one fails with a limit error (exit 2) whose line and column are those of
// the command, or the byte, that went over, and whose message names the
// limit. What no parser can know (how many steps, how much SQLite work,
// how many polls and reclaims, how many bytes of output) is counted while
// the script runs, by one meter against a Budget (meter.go): a run that
// passes its budget stops at once with a runtime error (exit 1) at the
// command that was running, naming what ran out, and the transcript keeps
// what ran before. MaxSteps is the full budget's steps. docs/MANUAL.md
// ("Limits") lists the same limits for readers.
const (
	MaxScriptBytes = 64 << 10 // bytes of script text
	MaxCommands    = 10_000   // commands in one script
	MaxRaces       = 10_000   // timed races over the whole script
	MaxSleep       = 86_400   // seconds in one sleep
	MaxLease       = 86_400   // seconds of one lease
	// MaxKeyTTL bounds service --key-ttl, in seconds: 90 days, so that a
	// key can outlive a dead-letter queue's retention (days, or two
	// weeks) and the redeliveries it allows.
	MaxKeyTTL = 90 * 86_400
	MaxMillis = 600_000 // ms of --delay, --timeout, --processing, --heartbeat or --stall
	// MaxWorkerNames bounds the distinct worker names of a script (the
	// --worker names of work, and the W1, W2, ... of race and load): each
	// one opens a SQLite connection of its own for the whole run.
	MaxWorkerNames = 16
	// MaxExploreStates bounds the states race --all explores over the
	// whole script (explore.States says how many one race --all takes:
	// 1,915 for race read --all --workers 8, 24 for the atomic claim).
	MaxExploreStates = 10_000
	// MaxRenewals bounds the lease renewals the heartbeats of a script
	// plan: --processing divided by --heartbeat for each work, and for each
	// load job its distribution's p95 divided by --heartbeat.
	MaxRenewals = 20_000
	// MaxSteps bounds the atomic steps of one run, every worker's and
	// every race's together: the Steps of FullBudget.
	MaxSteps    = 2_000_000
	MaxTimes    = 100 // jobs one add enqueues (--times)
	maxOrderLen = 64
	// MaxJobID is the highest job id a script can make (every command an
	// add of MaxTimes jobs; emptying the table starts the ids at 1 again):
	// --job takes nothing higher.
	MaxJobID = MaxCommands * MaxTimes
)

// Limits of load.
const (
	MaxLoadJobs    = 1000                  // jobs in one load run
	MaxLoadWorkers = 8                     // workers of one load run
	MaxLoadLeases  = 8                     // lease lengths one load sweeps
	MaxLoadTotal   = 10_000                // jobs over every load of a script, each lease counted
	LoadPoll       = 100 * sim.Millisecond // how long a load consumer waits when it found no job
)

func limitErr(p Pos, format string, args ...any) *Error {
	return &Error{Kind: "limit", Line: p.Line, Col: p.Col, Msg: fmt.Sprintf(format, args...)}
}

// checkSize refuses a script longer than MaxScriptBytes, at the place where
// it goes over.
func checkSize(src string) *Error {
	if len(src) <= MaxScriptBytes {
		return nil
	}
	head := src[:MaxScriptBytes]
	line := strings.Count(head, "\n") + 1
	col := utf8.RuneCountInString(head[strings.LastIndexByte(head, '\n')+1:]) + 1
	return limitErr(Pos{line, col}, "the script is %d bytes; the limit is %d bytes per script", len(src), MaxScriptBytes)
}

// Cost is the parser's estimate of what running a script takes, known
// before anything runs.
type Cost struct {
	Commands int // commands, a background list's counted one by one
	Races    int // timed races
	Workers  int // distinct worker names: SQLite connections
	States   int // states explored by race --all
	LoadJobs int // jobs of load, each lease counted
	Renewals int // lease renewals the heartbeats plan
	// Polls estimates the polls and reclaims of load's consumers: one
	// poll per job, and where an execution can outlive its lease with no
	// heartbeat short enough to renew it, a reclaim by every other
	// consumer for each lease length the processing spans.
	Polls int
	// Steps estimates the atomic steps of the run: a few per worker
	// execution, and one per heartbeat of a long processing time.
	Steps int
}

// Heavy thresholds: a script above any of them is one a page should not
// run without a reader asking (see Cost.Heavy). Each is well under its
// limit and well above what a lesson block needs.
const (
	heavyRaceWorkers = 2_000 // races times their workers
	heavyStates      = 2_000
	heavyLoadJobs    = 2_000
	heavySteps       = 50_000
	heavyPolls       = 10_000
)

// Heavy reports whether the script is expensive enough that a page should
// show it and wait for a click rather than run it as it loads. It is an
// estimate from the script's shape; what decides is the meter: a page runs
// a script it was not asked to run under AutoBudget, and a script that
// passes it is heavy whatever the estimate said (Result.Heavy).
func (c Cost) Heavy() bool {
	return c.Steps > heavySteps || c.States > heavyStates || c.LoadJobs > heavyLoadJobs || c.Polls > heavyPolls
}

// Estimate parses src and returns its cost. A script that does not parse
// has no cost; the error is Parse's.
func Estimate(src string) (Cost, error) {
	s, err := Parse(src)
	if err != nil {
		return Cost{}, err
	}
	c, _ := s.cost()
	return c, nil
}

// stepsPerRun is about how many atomic steps one worker execution takes
// (start, claim, clock, log, receipt, ack, and their reads).
const stepsPerRun = 12

// cost adds up the script's cost in order and refuses it at the first
// command that goes over a limit.
func (s *Script) cost() (Cost, *Error) {
	k := &costing{names: map[string]bool{}, modes: map[receipts.Dedupe]bool{receipts.DedupeOff: true}}
	err := k.walk(s.Commands)
	return k.c, err
}

// costing is Script.cost's count as it walks the commands.
type costing struct {
	c     Cost
	names map[string]bool // the worker names seen
	// modes are the dedupe modes that may be in force when a race --all
	// runs: a service command that always runs (after ';' or a new line)
	// sets the one mode in force; one after '&&' may be skipped, which
	// leaves an earlier mode in force, so it adds its mode to those that
	// may be, and the budget takes the dearest of them.
	modes map[receipts.Dedupe]bool
}

// walk counts cmds, a background list's commands as the script's own.
func (k *costing) walk(cmds []Command) *Error {
	for _, cmd := range cmds {
		k.c.Commands++
		var err *Error
		switch cmd.Kind {
		case CmdService:
			if cmd.Op != OpAnd {
				clear(k.modes)
			}
			k.modes[cmd.Service.Dedupe] = true
		case CmdBackground:
			k.c.Commands--
			err = k.walk(cmd.Body)
		case CmdWork:
			err = k.work(cmd)
		case CmdMatrix:
			err = k.matrix(cmd)
		case CmdRace:
			err = k.race(cmd)
		case CmdLoad:
			err = k.load(cmd)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// name counts a worker name, once.
func (k *costing) name(p Pos, w string) *Error {
	if k.names[w] {
		return nil
	}
	k.names[w] = true
	k.c.Workers = len(k.names)
	if k.c.Workers > MaxWorkerNames {
		return limitErr(p, "worker %s is the script's %dth worker name; the limit is %d worker names per script (each opens a SQLite connection): reuse a name", w, k.c.Workers, MaxWorkerNames)
	}
	return nil
}

// workers counts the names W1 to Wn.
func (k *costing) workers(p Pos, n int) *Error {
	for i := range n {
		if err := k.name(p, fmt.Sprintf("W%d", i+1)); err != nil {
			return err
		}
	}
	return nil
}

// renew counts n lease renewals, two steps each.
func (k *costing) renew(p Pos, n int) *Error {
	k.c.Renewals += n
	k.c.Steps += 2 * n
	if k.c.Renewals > MaxRenewals {
		return limitErr(p, "the heartbeats here bring the script's planned lease renewals to %d; the limit is %d renewals per script: give --heartbeat a longer period", k.c.Renewals, MaxRenewals)
	}
	return nil
}

// work counts one worker's run and its renewals.
func (k *costing) work(cmd Command) *Error {
	if err := k.name(cmd.Pos, cmd.Work.Worker); err != nil {
		return err
	}
	k.c.Steps += stepsPerRun
	if hb := cmd.Work.Heartbeat; hb > 0 {
		return k.renew(cmd.Pos, int(cmd.Work.Processing/hb))
	}
	return nil
}

// matrix counts a matrix: each cell is a run of its own (its own workers
// and databases); the claim race's cells are most of the work.
func (k *costing) matrix(cmd Command) *Error {
	k.c.Races += matrix.Races()
	if k.c.Races > MaxRaces {
		return limitErr(cmd.Pos, "this matrix brings the script to %d races (a matrix runs %d); the limit is %d races per script", k.c.Races, matrix.Races(), MaxRaces)
	}
	k.c.Steps += matrix.Races()*2*stepsPerRun + len(matrix.Scenarios)*len(matrix.Fixes)*matrix.Seeds*3*stepsPerRun
	return nil
}

// race counts a race's workers and its races, or with --all or
// --schedule the states of its explorer.
func (k *costing) race(cmd Command) *Error {
	if err := k.workers(cmd.Pos, cmd.Race.Workers); err != nil {
		return err
	}
	if cmd.Race.All || cmd.Race.Schedule != nil {
		return k.explore(cmd)
	}
	k.c.Races += cmd.Race.N
	if k.c.Races > MaxRaces {
		return limitErr(cmd.Pos, "this race brings the script to %d races; the limit is %d races per script", k.c.Races, MaxRaces)
	}
	k.c.Steps += cmd.Race.N * cmd.Race.Workers * stepsPerRun
	return nil
}

// explore counts the states a race --all (or a race --schedule, which
// steps through the explorer) explores, with the dearest dedupe mode that
// may be in force.
func (k *costing) explore(cmd Command) *Error {
	n := 0
	flags := cmd.Race.ExploreFlags()
	for _, d := range receipts.Dedupes() {
		if k.modes[d] {
			n = max(n, explore.States(cmd.Race.Claim, cmd.Race.Workers, explore.Service{Dedupe: d, Key: cmd.Race.Key}, flags))
		}
	}
	if n == explore.ManyStates {
		why := "the service's dedupe steps multiply them"
		if flags != (explore.Flags{}) {
			why = "the steps of the service's dedupe and of the worker flags multiply them"
		}
		return limitErr(cmd.Pos, "this race --all would explore more than %d states (%s); the limit is %d states explored by race --all per script: use fewer workers", explore.StatesTabled, why, MaxExploreStates)
	}
	k.c.States += n
	if k.c.States > MaxExploreStates {
		return limitErr(cmd.Pos, "race --all here brings the states explored to %d; the limit is %d states explored by race --all per script", k.c.States, MaxExploreStates)
	}
	return nil
}

// load counts a load's workers, jobs (each lease counted), polls and
// renewals.
func (k *costing) load(cmd Command) *Error {
	if err := k.workers(cmd.Pos, cmd.Load.Workers); err != nil {
		return err
	}
	jobs := cmd.Load.Jobs * len(cmd.Load.Leases)
	k.c.LoadJobs += jobs
	if k.c.LoadJobs > MaxLoadTotal {
		return limitErr(cmd.Pos, "this load brings the script's load jobs to %d; the limit is %d load jobs per script, each lease counted", k.c.LoadJobs, MaxLoadTotal)
	}
	k.c.Steps += jobs * stepsPerRun
	k.c.Polls += loadPolls(cmd.Load)
	if hb := cmd.Load.Heartbeat; hb > 0 {
		return k.renew(cmd.Pos, jobs*int(cmd.Load.Processing.P95/hb))
	}
	return nil
}

// loadPolls estimates the polls and reclaims of one load (see Cost.Polls).
func loadPolls(l LoadArgs) int {
	n := 0
	for _, lease := range l.Leases {
		n += l.Jobs
		renewed := l.Heartbeat > 0 && l.Heartbeat < lease
		if l.Processing.P95 > lease && !renewed {
			n += l.Jobs * l.Workers * int(l.Processing.P95/lease+1)
		}
	}
	return n
}

// String says in words what makes the script cost what it does, for a page
// that asks a reader before running it: "2000 races of 8 workers, 3830
// states explored by race --all".
func (c Cost) String() string {
	var parts []string
	if c.Races > 0 {
		parts = append(parts, fmt.Sprintf("%d timed races", c.Races))
	}
	if c.States > 0 {
		parts = append(parts, fmt.Sprintf("%d states explored by race --all", c.States))
	}
	if c.LoadJobs > 0 {
		parts = append(parts, fmt.Sprintf("%d load jobs", c.LoadJobs))
	}
	if c.Renewals > 0 {
		parts = append(parts, fmt.Sprintf("%d lease renewals", c.Renewals))
	}
	if c.Polls > 0 {
		parts = append(parts, fmt.Sprintf("about %d polls and reclaims", c.Polls))
	}
	parts = append(parts, fmt.Sprintf("about %d steps", c.Steps))
	return strings.Join(parts, ", ")
}

// CostJSON returns the cost of src as the browser's worker reports it:
// {"heavy":true,"what":"..."}, or {"heavy":false,"what":""} for a script
// that does not parse (running it only shows its error). Written by hand,
// like Result's JSON, so that the browser build links no encoding/json.
func CostJSON(src string) string {
	c, err := Estimate(src)
	if err != nil {
		return `{"heavy":false,"what":""}`
	}
	return fmt.Sprintf(`{"heavy":%t,"what":%s}`, c.Heavy(), strconv.Quote(c.String()))
}

// MaxAttemptsLimit is the highest retry limit work --max-attempts takes
// (SQS's maxReceiveCount goes to 1000).
const MaxAttemptsLimit = 1000
