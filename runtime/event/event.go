// Package event lists the kinds of event a run records in its trace: one
// value of [Kind] per kind, and for each its name (the "kind" of the JSON
// trace), the lane it belongs to, what the timeline draws for it, and what
// it means in words. Nothing else in twice lists them: the recorders (the
// kernel's clock read, the receipts service, the script's shell and
// workers) name them by constant, so a misspelt kind does not compile, and
// the timeline and the step-through read this list.
//
// The list is a package of its own, below all of them, because three
// packages record events and one draws them: the receipts service cannot
// import the script that draws, and the kernel (package sim) should not
// carry a drawing's vocabulary. The kernel stores a Kind on every
// sim.Event and never looks at it; it imports this package only for the
// type, and for the kind of its own clock read.
package event

import "github.com/twice-lab/twice/runtime/named"

// Kind is what an event of the trace is: one of the values in [Kinds].
type Kind uint8

// The kinds, grouped by lane: the shell's commands, a worker's steps, the
// steps of a worker's request, and what the receipts service records.
const (
	// The shell (Proc "shell"). Reset empties every table: the timeline
	// and the step-through start their tables again from it.
	Reset Kind = iota
	Add
	Service
	Redeliver
	Sleep
	Wait
	Background
	Race
	Matrix
	Deploy

	// A worker's own steps.
	Start
	Select
	Claim
	ClaimFailed
	Clock
	Log
	Process
	Heartbeat
	LeaseLost
	Stall
	Ack
	AckRefused
	Say
	Kill
	Busy
	Begin
	Key
	KeyHit
	Ledger
	Commit
	Rollback
	Lock
	Await
	DeadLetter

	// A worker's request to the receipts service, in the worker's lane:
	// the service's key statements are steps of the request's process.
	Connect
	Send
	KeyCheck
	KeyInsert
	KeyClaim
	Answer
	Timeout

	// What the receipts service records on arrival (Proc "receipts").
	Effect
	Refused
	Replayed

	numKinds
)

// Lane is whose lane an event belongs to: which process records it.
type Lane uint8

const (
	// LaneShell: the shell's commands (Proc "shell"), drawn on no lane.
	LaneShell Lane = iota + 1
	// LaneWorker: a worker's steps, in its own lane.
	LaneWorker
	// LaneReceipts: the receipts service's records (Proc "receipts").
	LaneReceipts
)

// Mark is what the timeline draws at an event's instant, on its lane.
// Every event, drawn or not, also has an x for the step-through's cursor.
type Mark uint8

const (
	// NoMark: nothing at its instant.
	NoMark Mark = iota
	// Tick: a statement, a full-height tick. A commit that committed a
	// ledger row is drawn as an effect's dot instead.
	Tick
	// ShortTick: a lease renewal, a shorter tick.
	ShortTick
	// Origin: where a request leaves; the line to its arrival starts here.
	Origin
	// Dot: an effect landing, red when it duplicates.
	Dot
	// Ring: a request that arrived and was not an effect, with the kind's
	// name under it.
	Ring
	// Cross: a kill.
	Cross
	// Label: the kind's name above the lane.
	Label
)

// Bar is what an event does to the bars of its lane: a lease from claim to
// ack, kill or expiry; the job's own work; a stall.
type Bar uint8

const (
	// NoBar: nothing.
	NoBar Bar = iota
	// LeaseFrom starts a lease bar, to the lease the row now holds.
	LeaseFrom
	// LeaseRenew moves the open lease bar's end to the renewed lease.
	LeaseRenew
	// LeaseAck ends the open lease bar: acked.
	LeaseAck
	// LeaseKill ends the open lease bar: the lease outlives its worker.
	// (A say that gives up ends it the same way.)
	LeaseKill
	// WorkFrom starts the work bar, until the worker's next step that is
	// not a renewal or a clock read.
	WorkFrom
	// StallFrom starts the stall bar, until the worker's next step.
	StallFrom
)

// kindRow is what the list says of one kind.
type kindRow struct {
	name  string
	lane  Lane
	mark  Mark
	bar   Bar
	words string
}

// kindInfo is the list: each kind's name, lane, mark, bar and words, in
// the order of the constants.
var kindInfo = [numKinds]kindRow{
	Reset:      {"reset", LaneShell, NoMark, NoBar, "reset (or a race's own reset): every table emptied"},
	Add:        {"add", LaneShell, NoMark, NoBar, "a job enqueued (Job: the new row)"},
	Service:    {"service", LaneShell, NoMark, NoBar, "the service's dedupe mode set"},
	Redeliver:  {"redeliver", LaneShell, NoMark, NoBar, "a job put back to queued (Job: the row after)"},
	Sleep:      {"sleep", LaneShell, NoMark, NoBar, "virtual time advanced"},
	Wait:       {"wait", LaneShell, NoMark, NoBar, "waiting for every background worker, or for a worker's transaction to end (a shell write that found the database locked)"},
	Background: {"background", LaneShell, NoMark, NoBar, "a list of commands started in the background"},
	Race:       {"race", LaneShell, NoMark, NoBar, "race --all: how many interleavings duplicate"},
	Matrix:     {"matrix", LaneShell, NoMark, NoBar, "matrix: every scenario against every fix"},
	Deploy:     {"deploy", LaneShell, NoMark, NoBar, "deploy: SIGTERM to every background worker, or SIGKILL at the end of its grace"},

	Start:       {"start", LaneWorker, NoMark, NoBar, "a worker process started (Run is its run id; the lane's label)"},
	Select:      {"select", LaneWorker, Tick, NoBar, "a SELECT of the job row"},
	Claim:       {"claim", LaneWorker, Tick, LeaseFrom, "the UPDATE that took the job (Job: the row after, with its lease)"},
	ClaimFailed: {"claim-failed", LaneWorker, Tick, NoBar, "an atomic claim that changed no row"},
	Clock:       {"clock", LaneWorker, NoMark, NoBar, "reading the clock"},
	Log:         {"log", LaneWorker, NoMark, NoBar, "appending to worker.log"},
	Process:     {"process", LaneWorker, NoMark, WorkFrom, "the worker starts the job's own work (--processing)"},
	Heartbeat:   {"heartbeat", LaneWorker, ShortTick, LeaseRenew, "an UPDATE that renewed the lease (Job: the row after)"},
	LeaseLost:   {"lease-lost", LaneWorker, Tick, NoBar, "a renewal that changed no row: another run holds the job"},
	Stall:       {"stall", LaneWorker, NoMark, StallFrom, "the worker froze (--stall): no work, no heartbeats"},
	Ack:         {"ack", LaneWorker, Tick, LeaseAck, "the UPDATE that marked the job done (Job: the row after)"},
	AckRefused:  {"ack-refused", LaneWorker, Tick, NoBar, "an ack that changed no row: fenced, or of a job in the dead-letter queue"},
	Say:         {"say", LaneWorker, NoMark, NoBar, "a line the worker printed to the transcript"},
	Kill:        {"kill", LaneWorker, Cross, LeaseKill, "the worker was killed (it also printed a line)"},
	Busy:        {"busy", LaneWorker, NoMark, NoBar, "a write found another connection's transaction open and waits"},
	Begin:       {"begin", LaneWorker, Tick, NoBar, "BEGIN IMMEDIATE of the ledger's transaction"},
	Key:         {"key", LaneWorker, Tick, NoBar, "INSERT of the idempotency key ... ON CONFLICT DO NOTHING"},
	KeyHit:      {"key-hit", LaneWorker, Tick, NoBar, "the key was there already: the run that claimed it, read back"},
	Ledger:      {"ledger", LaneWorker, Tick, NoBar, "INSERT of the ledger row (the effect), not yet committed"},
	Commit:      {"commit", LaneWorker, Tick, NoBar, "COMMIT of the ledger's transaction (Job: the row as committed; Effect, with Ledger set, when it committed a ledger row)"},
	Rollback:    {"rollback", LaneWorker, Tick, NoBar, "the ledger's transaction rolled back"},
	Lock:        {"lock", LaneWorker, Tick, NoBar, "a write of the job's lock row: owned, or released after the ack"},
	Await:       {"await", LaneWorker, NoMark, NoBar, "an await that touches nothing shared (a lock claim's remote read)"},
	DeadLetter:  {"dead-letter", LaneWorker, Tick, LeaseAck, "the UPDATE that moved a job received too often to the dead-letter queue (Job: the row after)"},

	Connect:   {"connect", LaneWorker, NoMark, NoBar, "connecting to the receipts service"},
	Send:      {"send", LaneWorker, Origin, NoBar, "a request leaving the worker"},
	KeyCheck:  {"key-check", LaneWorker, Tick, NoBar, "the service's SELECT of an Idempotency-Key"},
	KeyInsert: {"key-insert", LaneWorker, Tick, NoBar, "the service's INSERT of a key after the effect (dedupe check)"},
	KeyClaim:  {"key-claim", LaneWorker, Tick, NoBar, "the service's INSERT ... ON CONFLICT DO NOTHING of a key (dedupe claim)"},
	Answer:    {"answer", LaneWorker, NoMark, NoBar, "the worker getting the answer"},
	Timeout:   {"timeout", LaneWorker, Label, NoBar, "the worker giving up waiting for the answer"},

	Effect:   {"effect", LaneReceipts, Dot, NoBar, "the service recording an arrival (Effect set)"},
	Refused:  {"refused", LaneReceipts, Ring, NoBar, "the service refused a stale fencing token (Effect set)"},
	Replayed: {"replayed", LaneReceipts, Ring, NoBar, "the service answered a stored key with the first answer (Effect set)"},
}

var kinds = named.Of[Kind]("event kind", kindInfo[:], func(k kindRow) named.Entry {
	return named.Entry{Name: k.name, Words: k.words}
})

// Kinds lists every kind, in the order of the constants.
func Kinds() []Kind { return kinds.All() }

// Parse returns the kind named s.
func Parse(s string) (Kind, bool) { return kinds.Lookup(s) }

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool { return kinds.Valid(k) }

// String returns the kind's name, as the JSON trace spells it.
func (k Kind) String() string { return kinds.Name(k) }

// Lane returns whose lane the kind belongs to (0 for a kind not listed).
func (k Kind) Lane() Lane {
	if !k.Valid() {
		return 0
	}
	return kindInfo[k].lane
}

// Mark returns what the timeline draws at the event's instant.
func (k Kind) Mark() Mark {
	if !k.Valid() {
		return NoMark
	}
	return kindInfo[k].mark
}

// Bar returns what the event does to its lane's bars.
func (k Kind) Bar() Bar {
	if !k.Valid() {
		return NoBar
	}
	return kindInfo[k].bar
}

// quiet are the kinds whose step reads and writes nothing another
// process shares: no row, lock or key of the database, nothing the
// receipts service records, no line of worker.log or of the transcript,
// and not the clock (a worker's decision rests on a clock read, and a
// sleep moves the clock every lease is measured by). Every other kind
// reads or writes some of that, even when it changes no table: a SELECT
// that finds the job queued, a claim that changed no row.
var quiet = [numKinds]bool{Background: true, Start: true, Process: true, Stall: true, Await: true, Connect: true}

// Quiet reports whether an event of the kind reads and writes nothing
// shared (see quiet): a step a step-through may skip without hiding any
// moment where one process could see another's work.
func (k Kind) Quiet() bool { return k.Valid() && quiet[k] }

// Words says what an event of the kind is.
func (k Kind) Words() string { return kinds.Words(k) }

// MarshalText returns the kind's name, so that encoding/json writes the
// name, as the runtime's own encoder does.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind back from its name.
func (k *Kind) UnmarshalText(b []byte) error {
	v, ok := Parse(string(b))
	if !ok {
		return &unknownError{string(b)}
	}
	*k = v
	return nil
}

type unknownError struct{ name string }

func (e *unknownError) Error() string { return "unknown event kind " + e.name }
