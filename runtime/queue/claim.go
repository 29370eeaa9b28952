package queue

import (
	"fmt"
	"strings"

	"github.com/twice-lab/twice/runtime/named"
)

// Adding a claim: a claim is a value of [Claim], declared once in claimList
// (runtime/queue/claim.go) with its name, its words and its steps: each a
// statement with the values it binds, what it reads, the condition that
// decides whether the claim goes on, what it does to the tables in the
// terms of the explorer's brute-force model, and its label in an
// ordering; or a clock read, or an await of a latency. The parser, the
// worker (interp's worker.claim runs the steps), the explorer and its model, the
// schedule, the views (Compare flips every claim), the docs and the
// browser (the server passes result.Choices to
// the page in twice.js's config) read the list; none has a case per claim.
//
//  1. runtime/queue/claim.go: a constant before numClaims and its entry in
//     claimList, built from the steps there or new ones beside them (a new
//     statement is a Step with its SQL; a new kind of effect on the
//     tables, a Model value and its case in the brute-force model of
//     runtime/explore's tests).
//  2. Tests: goldens for race CLAIM, race CLAIM --all and work --claim
//     CLAIM (go test ./runtime/script/interp -run Golden -update also
//     rewrites err-bad-claim, which lists the claims); go test
//     ./runtime/script/lang -run CommandReference -update rewrites
//     docs/COMMANDS.md, and go test ./cmd/twice -run README -update the
//     synopses of docs/MANUAL.md's command table.
//     TestCountsMatchBruteForce, TestEveryClaimRuns and the queue's
//     TestEveryClaimOnSQLite take every claim of the list as it is.
//  3. go generate ./runtime/explore adds the claim's rows to the states
//     table, runtime/explore/states.txt, by exploring its races, and
//     leaves the other claims' lines as they are (TestStatesTable fails
//     until they are there). Then RATIONALE.md's claim details, and a
//     lesson.

// Claim is how a worker takes a job: one of the values in [Claims], each
// declared once in claimList with its name, what it does in words, and
// its steps ([Claim.Steps]). Nothing else in twice lists the claims or
// knows what one does: the parser, the simulated worker, the explorer of
// interleavings and its model, the docs and the browser (through the
// server's config) all read this list and the steps.
type Claim uint8

// The claims, in the order of claimList.
const (
	ClaimRead Claim = iota
	ClaimLock
	ClaimAtomic
	ClaimAsyncLock
	numClaims
)

// StepKind says what a claim step is: a statement on the shared database,
// or something that touches nothing shared.
type StepKind uint8

const (
	// StepSQL runs one statement, in autocommit mode.
	StepSQL StepKind = iota
	// StepClock reads the worker's clock (the now the conditions and the
	// lease are computed from). It touches nothing shared and takes no
	// place in an ordering of steps.
	StepClock
	// StepAwait waits for a reply that touches nothing shared (a remote
	// read): a latency, during which other workers run. It is a step of
	// an ordering, so that a reader sees the window it opens.
	StepAwait
)

// Arg is a value a step's statement binds, in the order the statement
// takes them.
type Arg uint8

const (
	ArgJob   Arg = iota // the job's id
	ArgRun              // the worker's run id: the owner it writes
	ArgNow              // the instant the worker last read from its clock
	ArgUntil            // the lease's expiry: that instant plus the lease
)

// Reads is what a step's statement gives back.
type Reads uint8

const (
	ReadsChanges Reads = iota // a write: the rows it changed (changes())
	ReadsJob                  // the job row, as Conn.Read reads it
	ReadsLock                 // the job's lock row: its owner and until, or none
)

// Cond is the condition that decides whether the claim goes on after a
// step ("mine") or is lost there.
type Cond uint8

const (
	Always   Cond = iota // the step cannot lose: a clock read, an await, a write with no condition
	Changed              // the write changed one row: changes() = 1
	JobFree              // the job row read is claimable at now (Row.Claimable)
	LockFree             // the lock row read has no owner, or its until has passed
)

// Model is what a step does to the tables, in the terms of a model that
// runs no SQL (the brute-force count in package explore's tests, which
// holds the explorer's counts on real SQLite to it). Each value is one
// effect on a job row and a lock row, whatever claim uses it.
type Model uint8

const (
	ModelNone        Model = iota // touches nothing shared
	ModelReadJob                  // reads the job row
	ModelTakeJob                  // the job becomes running, held by the run, one more attempt: no condition
	ModelTakeUndone               // the same, only if the job is not done
	ModelClaimJob                 // the same, only if the job is claimable
	ModelReadLock                 // reads the lock row
	ModelSetLock                  // the lock's owner becomes the run: no condition
	ModelTryLock                  // the lock's owner becomes the run, only if it has no live owner
	ModelReleaseLock              // the lock row goes, if the run owns it
	ModelRenewLock                // the lock's until moves on, if the run owns it
)

// Step is one atomic step of a claim: a statement with the values it
// binds, or a step that touches nothing shared; the condition that decides
// whether the claim goes on after it; and how a transcript names it.
type Step struct {
	Kind  StepKind
	SQL   string // the statement (StepSQL)
	Args  []Arg  // what the statement binds, in order
	Reads Reads  // what the statement gives back
	Mine  Cond   // whether the claim goes on after this step
	Model Model  // what the step does, for a model with no SQL
	// Await bounds the latency of an await, in µs: drawn uniformly
	// between the two.
	Await [2]int64

	// Label names the step in an ordering (Every ordering, a schedule):
	// %[1]d is the job, %[2]s the run (always by index, so that a label
	// may leave either out). Took and Lost end the line after
	// what the step saw, when the claim goes on and when it is lost
	// there ("" for nothing more).
	Label, Took, Lost string
	// Trace names the step in the worker's trace, where it differs from
	// Label; Did is what the trace says of a write with no condition
	// (%[1]s the run) instead of the rows it changed.
	Trace, Did string
}

// Outcome is what one step gave back: the row or the lock row it read,
// or the rows it changed.
type Outcome struct {
	Row     Row    // ReadsJob
	Owner   string // ReadsLock: the lock's owner, "" when there is none
	Until   int64  // ReadsLock: the lock's expiry
	Changed int64  // ReadsChanges
}

// Decide reports whether the claim goes on after step s gave o, at now.
func (s Step) Decide(o Outcome, now int64) bool {
	switch s.Mine {
	case Changed:
		return o.Changed == 1
	case JobFree:
		return o.Row.Claimable(now)
	case LockFree:
		return o.Owner == "" || o.Until < now
	}
	return true
}

// Shared reports whether the step touches the database: only those are
// ordered against other workers' steps.
func (s Step) Shared() bool { return s.Kind == StepSQL }

// Writes reports whether the step's statement writes: a write waits while
// another connection's transaction is open.
func (s Step) Writes() bool { return s.Kind == StepSQL && s.Reads == ReadsChanges }

// Ordered reports whether the step is a step of an ordering: a statement
// or an await (a clock read is not, being instant and private).
func (s Step) Ordered() bool { return s.Kind != StepClock }

// Name is the step's label for job and run.
func (s Step) Name(job int64, run string) string { return label(s.Label, job, run) }

// label fills a label's job and run in, if it names them.
func label(l string, job int64, run string) string {
	if !strings.Contains(l, "%") {
		return l
	}
	return fmt.Sprintf(l, job, run)
}

// saw is what the step saw: the row's status, the lock's owner, or the
// rows it changed; "" for a step with nothing to say.
func (s Step) saw(o Outcome) string {
	switch {
	case s.Kind != StepSQL:
		return ""
	case s.Reads == ReadsJob:
		return "status=" + o.Row.Status
	case s.Reads == ReadsLock:
		if o.Owner == "" {
			return "owner=none"
		}
		return "owner=" + o.Owner
	case s.Mine == Always:
		return ""
	case o.Changed == 1:
		return "1 row changed"
	}
	return fmt.Sprintf("%d rows changed", o.Changed)
}

// Line is how an ordering prints the step: its label, what it saw, and
// whether the claim goes on (mine) or is lost there.
func (s Step) Line(job int64, run string, o Outcome, mine bool) string {
	parts := []string{}
	if saw := s.saw(o); saw != "" {
		parts = append(parts, saw)
	}
	end := s.Took
	if !mine {
		end = s.Lost
	}
	if end != "" {
		parts = append(parts, end)
	}
	if len(parts) == 0 {
		return s.Name(job, run)
	}
	return s.Name(job, run) + ": " + strings.Join(parts, ", ")
}

// TraceLine is how the worker's trace names the step.
func (s Step) TraceLine(job int64, run string, o Outcome) string {
	l := s.Trace
	if l == "" {
		l = s.Label
	}
	name := label(l, job, run)
	said := s.saw(o)
	switch {
	case strings.Contains(s.Did, "%"):
		said = fmt.Sprintf(s.Did, run)
	case s.Did != "":
		said = s.Did
	case said == "":
		said = s.Took
	}
	if said == "" {
		return name
	}
	return name + ": " + said
}

// The statements of the claims' steps. The read claim is stmtRead followed,
// as a separate statement, by stmtTake; the atomic claim is stmtClaim alone.
const (
	stmtRead = `SELECT status, attempts, lease, order_id, run, event FROM jobs WHERE id = ?`
	stmtTake = `UPDATE jobs SET status = 'running', run = ?, attempts = attempts + 1, lease = ? WHERE id = ?`
	// stmtClaim is the atomic claim: the WHERE states "claimable".
	stmtClaim = `UPDATE jobs SET status = 'running', run = ?, attempts = attempts + 1, lease = ? WHERE id = ? AND (status = 'queued' OR lease < ?)`
	// stmtTakeUndone is the take of a claim that holds a lock: no
	// condition but that the job is not done already (nor moved to the
	// dead-letter queue, which no claim takes).
	stmtTakeUndone = `UPDATE jobs SET status = 'running', run = ?, attempts = attempts + 1, lease = ? WHERE id = ? AND status NOT IN ('done', 'dead')`
	stmtLockOwner  = `SELECT owner, until FROM locks WHERE job = ?`
	// stmtLockSet sets the owner whatever the row holds; stmtLockTry only
	// where there is no row or its until has passed.
	stmtLockSet     = `INSERT INTO locks (job, owner, until) VALUES (?, ?, ?) ON CONFLICT (job) DO UPDATE SET owner = excluded.owner, until = excluded.until`
	stmtLockTry     = `INSERT INTO locks (job, owner, until) VALUES (?, ?, ?) ON CONFLICT (job) DO UPDATE SET owner = excluded.owner, until = excluded.until WHERE locks.until < ?`
	stmtLockRelease = `DELETE FROM locks WHERE job = ? AND owner = ?`
	// stmtLockRenew is a heartbeat's renewal of the lock the run owns.
	stmtLockRenew = `UPDATE locks SET until = ? WHERE job = ? AND owner = ?`
)

// The steps the claims are made of.
var (
	stepClock = Step{Kind: StepClock}
	stepRead  = Step{
		SQL: stmtRead, Args: []Arg{ArgJob}, Reads: ReadsJob, Mine: JobFree, Model: ModelReadJob,
		Label: "SELECT job %[1]d", Took: "free", Lost: "already claimed",
	}
	stepTake = Step{
		SQL: stmtTake, Args: []Arg{ArgRun, ArgUntil, ArgJob}, Model: ModelTakeJob,
		Label: "UPDATE job %[1]d", Took: "running (no condition), the job is mine",
		Did: "running, run %s (no condition)",
	}
	stepClaim = Step{
		SQL: stmtClaim, Args: []Arg{ArgRun, ArgUntil, ArgJob, ArgNow}, Mine: Changed, Model: ModelClaimJob,
		Label: "UPDATE job %[1]d WHERE queued", Took: "the job is mine", Lost: "already claimed",
		Trace: "UPDATE job %[1]d WHERE queued or lease passed",
	}
	stepTakeUndone = Step{
		SQL: stmtTakeUndone, Args: []Arg{ArgRun, ArgUntil, ArgJob}, Mine: Changed, Model: ModelTakeUndone,
		Label: "UPDATE job %[1]d WHERE not done", Took: "the job is mine", Lost: "already done",
	}
	stepLockOwner = Step{
		SQL: stmtLockOwner, Args: []Arg{ArgJob}, Reads: ReadsLock, Mine: LockFree, Model: ModelReadLock,
		Label: "SELECT owner FROM locks WHERE job = %[1]d", Lost: "already locked",
	}
	stepRemoteRead = Step{
		Kind: StepAwait, Await: [2]int64{1000, 3000},
		Label: "await the remote read", Took: "nothing shared, other workers run meanwhile",
	}
	stepLockSet = Step{
		SQL: stmtLockSet, Args: []Arg{ArgJob, ArgRun, ArgUntil}, Model: ModelSetLock,
		Label: "UPSERT locks SET owner = %[2]s WHERE job = %[1]d", Took: "the lock is mine (no condition)",
		Did: "the lock is mine (no condition)",
	}
	stepLockTry = Step{
		SQL: stmtLockTry, Args: []Arg{ArgJob, ArgRun, ArgUntil, ArgNow}, Mine: Changed, Model: ModelTryLock,
		Label: "INSERT INTO locks job %[1]d owner %[2]s, unless held", Took: "the lock is mine", Lost: "already locked",
	}
	stepLockRelease = Step{
		SQL: stmtLockRelease, Args: []Arg{ArgJob, ArgRun}, Mine: Changed, Model: ModelReleaseLock,
		Label: "DELETE FROM locks WHERE job = %[1]d AND owner = %[2]s", Took: "the lock is released",
		Lost: "another run owns the lock now",
	}
	stepLockRenew = Step{
		SQL: stmtLockRenew, Args: []Arg{ArgUntil, ArgJob, ArgRun}, Mine: Changed, Model: ModelRenewLock,
		Label: "UPDATE locks SET until WHERE job = %[1]d AND owner = %[2]s", Took: "the lock is renewed",
		Lost: "another run owns the lock now",
	}
)

// claimDef is one claim's declaration.
type claimDef struct {
	name, words string
	steps       []Step
	release     []Step
	renew       []Step
}

// claimList declares every claim: its name, what it does in words, its
// steps in order, the steps that follow a successful ack (release:
// whatever their conditions say, the worker is done after them), and
// what a heartbeat renews besides the job's lease (renew: what else the
// claim holds, each step's condition whether it still holds it).
var claimList = [numClaims]claimDef{
	ClaimRead: {"read", "read the row, then write it: two statements",
		[]Step{stepRead, stepClock, stepTake}, nil, nil},
	ClaimLock: {"lock", "own the job's lock in one INSERT that succeeds for one worker only, then take the job; the ack releases the lock",
		[]Step{stepClock, stepLockTry, stepTakeUndone}, []Step{stepLockRelease}, []Step{stepLockRenew}},
	ClaimAtomic: {"atomic", "one conditional UPDATE decided by changes() = 1",
		[]Step{stepClock, stepClaim}, nil, nil},
	ClaimAsyncLock: {"async-lock", "check the lock row, await a remote read, then set the owner with no condition",
		[]Step{stepLockOwner, stepClock, stepRemoteRead, stepLockSet, stepTakeUndone}, []Step{stepLockRelease}, []Step{stepLockRenew}},
}

// claims is the list's names and words, as every named list of the
// runtime keeps them.
var claims = named.Of[Claim]("claim", claimList[:], func(d claimDef) named.Entry {
	return named.Entry{Name: d.name, Words: d.words}
})

// Claims lists every claim, in the order docs and error messages give them.
func Claims() []Claim { return claims.All() }

// ParseClaim returns the claim named s.
func ParseClaim(s string) (Claim, bool) { return claims.Lookup(s) }

// ClaimNames returns the claims' names joined with sep ("read|lock|...").
func ClaimNames(sep string) string {
	var names []string
	for _, c := range Claims() {
		names = append(names, c.String())
	}
	return strings.Join(names, sep)
}

func (c Claim) String() string { return claims.Name(c) }

// Words says in a few words what the claim does.
func (c Claim) Words() string { return claims.Words(c) }

// Steps returns the claim's steps, in order; none for a claim outside the
// list.
func (c Claim) Steps() []Step {
	if !c.Valid() {
		return nil
	}
	return claimList[c].steps
}

// Release returns the steps a worker runs after its ack: a lock's
// release, for a claim that takes one.
func (c Claim) Release() []Step {
	if !c.Valid() {
		return nil
	}
	return claimList[c].release
}

// Renew returns the steps a heartbeat runs after it renews the job's
// lease: the renewal of the lock, for a claim that holds one. Each binds
// the new expiry as ArgUntil; a step whose condition fails says the run
// no longer holds what it claimed.
func (c Claim) Renew() []Step {
	if !c.Valid() {
		return nil
	}
	return claimList[c].renew
}

// Locks reports whether the claim uses the locks table.
func (c Claim) Locks() bool {
	for _, s := range c.Steps() {
		if s.Reads == ReadsLock || s.Model == ModelSetLock || s.Model == ModelTryLock || s.Model == ModelReleaseLock {
			return true
		}
	}
	return false
}

// Alias returns the claim c is another name for: every claim is its own
// now, and the page's lists still carry the field.
func (c Claim) Alias() Claim { return c }

// Valid reports whether c is one of Claims.
func (c Claim) Valid() bool { return claims.Valid(c) }
