// Package interp runs a twice script: it parses it (package lang), runs
// it on a simulated job queue, and returns everything the run produced
// (package result), diagnosed (package diagnosis) and, when asked, drawn
// (package draw), for the CLI to print and the browser to draw.
//
// # The packages of runtime/script, from the bottom up
//
//	lang       the command language: Parse, Format, the command table, limits, Estimate
//	diagnosis  why an order got more effects than events: evidence in, Summary out
//	result     the Result of a run and its JSON
//	draw       the run as SVG: draw.Timeline, draw.LoadChart
//	views      what each view beside a block shows, from the script alone: views.Of
//	interp     this package: Run
//
// Each imports only those above it in this list (TestScriptLayers). What a
// newcomer meets first here:
//
//	Run(src, Options)      → *result.Result  parses, then interprets every command
//	Options{Seed, Timeline, Budget}          what a run may draw from and spend
//
// [Run] always returns a Result. It parses (lang.Parse), then runs the
// commands in order: a command after && is skipped when the one before it
// failed (a worker killed on purpose fails in that sense), and a command
// whose execution returns an error stops the script. The Result then
// holds the transcript, the effects the receipts service recorded, a
// per-order diagnosis.Summary, the jobs table, worker.log, one RaceTally
// per timed race, one Exploration per race --all, and the Event trace of
// every atomic step. A lang.Error says what went wrong and where: parse,
// usage and limit errors exit 2, runtime errors exit 1
// (Result.ExitCode), as twice run does.
//
// What the parser cannot know is metered while the script runs
// (meter.go): steps, SQLite work, polls and reclaims, and bytes of output,
// against the [Budget] of [Options]; the zero Budget is [FullBudget], and
// [AutoBudget] is for a run nobody asked for. A run that passes its budget
// stops at once, with one line naming what ran out (Result.Cut, and
// Result.Heavy under the auto budget).
//
// Run also fills Result.Views from the parsed script (package views), so
// that every view of a block beside its output describes the block's own
// commands, and charges their bytes to the output budget before the first
// command runs: a script whose views alone pass the budget runs nothing.
// Result.Outcome (views.Outcome) counts duplicates and effects one way for
// every view. With Options.Timeline,
// Run draws the timeline and the load chart (package draw) from the
// finished Result.
//
// # The simulation
//
// Nothing here reads the wall clock or the global random source. A run
// owns one [sim.Kernel]: a virtual clock in integer microseconds, one PCG
// seeded from Options.Seed, and processes that run as coroutines, one at a
// time, each step at its own virtual instant. The shell's commands (reset,
// add, jobs, effects, cat worker.log) take no virtual time; sleep advances
// the clock, and lapse advances it until a job may be claimed again (its
// lease, and its lock's until, passed), while background workers run.
//
// work starts one worker process and runs the kernel until every process
// is done. A worker is the article's worker: start up, claim the job, read
// back the attempt number, append a line to worker.log, POST the receipt
// (retrying once on a client timeout), ack. Every SQL statement, clock
// read, log append and request is one atomic step whose cost is drawn
// uniformly from the bounds at the top of run.go; between two steps any
// other process may run, which is where races come from. The SQL is real:
// each worker has its own connection to one in-memory SQLite database
// (package queue), and the receipts service (package receipts) records each
// request the moment it arrives, then waits --delay before answering: a
// worker whose --timeout passes first retries, and both sends count. With
// service --dedupe check or claim, a request's Idempotency-Key (work
// --key) goes through the service's own SQLite table of keys first, one
// statement per step; a request the service deduplicates is recorded as
// replayed, not as an effect.
//
// With work --effect ledger the effect is not a request but a row in the
// queue's own database (worker.ledger): BEGIN IMMEDIATE, the event id
// INSERTed into processed_keys ON CONFLICT DO NOTHING, the ledger row only
// if that insert changed a row, the ack, COMMIT, each a step on the
// worker's own connection, in one real SQLite transaction. A kill inside it
// is a ROLLBACK on that connection, as SQLite does for a connection that
// dies. While a transaction is open, a write from another connection gets
// SQLITE_BUSY; queue.Conn.Wait makes the worker spend a step and try again
// (a "busy" event), so the lock shows in the trace. The shell's own writes
// (add, redeliver, reset) wait the same way: a statement's time of virtual
// time while the workers run, then again (a "wait" event on the shell's
// lane), so a background transaction never makes them fail. --key-txn separate
// commits the key alone first: the lost-work mirror image.
//
// A worker's life from outside its own code is in lifecycle.go. deploy
// sends every background worker SIGTERM (one that has not started on its
// job stops before claiming it) and, --grace later, SIGKILL through
// sim.Kernel.Kill; with no grace, SIGKILL at once. A request already on its
// way is still handled, since receipts.Service.Post shields the worker
// from the send to the service's answer; an open ledger transaction is
// rolled back. work --max-attempts is the queue's retry limit: a claim
// that makes the receive count since the job's last re-drive pass it
// moves the job to status dead, the dead-letter queue, which no claim
// takes until redeliver. work --release any makes a lock claim's release
// delete the lock row whoever owns it.
//
// race N repeats N times: empty the tables, enqueue one job for RaceOrder,
// start the workers and release them all at one instant (plus a small
// drawn skew), run to the end, count a duplicate if more than one effect
// landed (receipts not refused or replayed, and ledger rows). Only the
// first race prints its lines; only the last is traced (Result.Race
// names it), the race the tables end on. race --all does not sample:
// package explore counts every ordering of the workers' steps on a
// database of its own, with the steps its worker flags add (a heartbeat's
// renewal, the fence's token and fenced ack, the ledger's transactions);
// its states are budgeted at parse time with the dedupe mode in force
// where it runs. It prints its shortest duplicating ordering step by
// step and as a race --schedule line that replays it. race --schedule
// plays one ordering there, step by step (it may stop before the
// workers finish: the race as it stands), then records what the steps
// did in the script's own state as a timed race would have: the tables
// emptied, the job row, the lock, the receipts, the runs' evidence and a
// trace, each step one step's time after the last. effects, jobs and the
// diagnosis after it describe that race.
//
// matrix runs every scenario of package matrix against every fix (the
// parser counts a matrix's races from the same table). A cell is a live
// run: matrix.CellScript writes the fix into the scenario's script (a
// claim, flags added to every work and race line that lacks them, service
// lines first), Run runs it like any other script at each of matrix.Seeds
// seeds, and runCell (matrix.go) counts the
// trials (races, or runs) that did not end with one effect per event: a
// cell is closed only when none did, and narrows when it fails less often
// than the scenario's no-fix cell.
// The table goes into Result.Matrices with each cell's script, and prints
// as fixed-width text (MatrixTable.Lines).
//
// The same seed gives the same bytes natively, under wazero (wasip1) and
// in the browser (js/wasm); the parity tests check all three.
//
// # Adding a command
//
//  1. Package lang: its Kind, its entry in the command table, its parse
//     function, its limits and its printing (see that package's doc).
//  2. run.go: a case in interp.exec. It returns (ok, err): ok false fails
//     the command for a following &&; a non-nil err stops the script with
//     a runtime error. Print with in.print, record a trace event with
//     in.k.Record and a kind from package event (a new kind: see below),
//     and spend virtual time or draw numbers only through the kernel. A
//     case missing from exec compiles, and fails at run time with
//     "command ... not implemented" (TestEveryCommandExampleRuns runs
//     every command's example).
//     If it starts workers or sets a claim, package views needs its
//     case too (see that package's doc).
//  3. testdata: a golden (a txtar with a script section) for what it
//     prints, and one for each usage error; go test
//     ./runtime/script/interp -run Golden -update fills in their stdout
//     and error sections from what the runtime prints now: review the
//     diff.
//  4. go test ./runtime/script/lang -run CommandReference -update rewrites
//     docs/COMMANDS.md; go test ./cmd/twice -run README -update adds the
//     command's row to docs/MANUAL.md's command table, its synopsis and its
//     summary (say there what it prints); and a lesson if readers should
//     meet it. The browser shows the transcript as is and
//     needs nothing, unless the command adds a field to result.Result.
//
// # Adding a scenario or a fix to the matrix
//
// See package matrix.
//
// # Adding an event kind or a diagnosis
//
// An event kind is a constant of event.Kind and its entry in that
// package's list: its name (the JSON's "kind"), its lane, and what the
// timeline draws for it (a mark at its instant, a bar it starts or ends).
// draw.Timeline draws from the list, so a kind with an existing mark
// needs no code there; a new mark or bar needs its case in package draw
// and its check in markDrawn (kinds_test.go). Record it by its constant (in.k.Record,
// w.step, w.say, p.Step), and add a script that records it to a golden or
// to traceCorpus: TestEveryEventKindIsRecordedAndDrawn fails for a listed
// kind nothing records or draws, or one recorded in another lane.
//
// A diagnosis: see package diagnosis. TestEveryDiagnosisKindIsReached
// (kinds_test.go) needs a script that is diagnosed with it
// (diagnosisCorpus).
//
// # Adding a claim
//
// See package queue: a claim is declared once, in its list, and every
// package reads it from there.
package interp
