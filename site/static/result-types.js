// result-types.js is the shape of a run's Result as the runtime writes it
// in JSON (package result: the json tags of Result and the types it holds,
// written by Result.MarshalJSON), as types for the type checker, tsc. It
// holds no code and is not served: the modules name its types in their
// comments (import("./result-types.js").Result), and the minifier drops
// those. A field the Go side leaves out when empty (omitempty) is
// optional here; a list is null when the run had none of it (a nil slice),
// so each list may be null.
//
// tsc --noEmit -p site (site/tsconfig.json) checks the modules that say
// // @ts-check against these types: a misspelt field, or one the runtime
// no longer writes, is an error there.
//
// site's TestResultTypes (go test ./site) holds these types to package
// result's json tags, so that a field added, renamed or dropped in Go fails
// there until this file says so.

/**
 * Result is everything one run of a script produced (result.Result).
 *
 * @typedef {object} Result
 * @property {number} seed the seed the run used (a uint64: above 2^53 it is not exact here; seedOf reads it from the JSON's text)
 * @property {string[] | null} transcript the lines the command line prints, in order
 * @property {Effect[] | null} effects every request the receipts service recorded, in order of arrival
 * @property {Summary[] | null} summary the effects grouped by order, with a diagnosis of any duplicate
 * @property {Job[] | null} jobs the jobs table at the end of the run
 * @property {string[] | null} log worker.log at the end of the run
 * @property {RaceTally[] | null} races one tally per timed race command
 * @property {Exploration[] | null} explorations one report per race --all command
 * @property {LoadTally[] | null} loads one tally per lease length of each load command
 * @property {LedgerRow[] | null} ledger the ledger table at the end of the run
 * @property {KeyRow[] | null} keys the processed_keys table at the end of the run
 * @property {LockRow[]} [locks] the locks table, absent when it has no row
 * @property {number} key_hits ledger writes that found their key already processed
 * @property {MatrixTable[] | null} matrices one table per matrix command
 * @property {Schedule} [schedule] the ordering the last race --schedule ran
 * @property {Views} views what each view of the block shows for this script
 * @property {Outcome} outcome what the run ended with, counted one way for every view
 * @property {string} [race] the race the trace, the tables and the diagnosis show ("race 20 of 20"), absent with no timed race
 * @property {TraceEvent[] | null} trace the atomic steps of the simulated processes
 * @property {Timeline} [timeline] the run drawn as SVG, when asked for and a worker ran
 * @property {Chart} [chart] the load runs drawn as SVG
 * @property {ResultError} [error] why the script did not parse or a command failed
 * @property {number} exit_code what twice run exits with: 0, 1 (runtime error) or 2 (usage or parse error)
 * @property {Cut} [cut] set when the run passed its budget
 * @property {boolean} [heavy] true when the run passed the budget for runs nobody asked for
 */

/**
 * A Result as the page keeps it: seedText is the seed as the JSON wrote it
 * (exact, unlike seed), set by the page when it reads a Result.
 *
 * @typedef {Result & { seedText?: string }} ShownResult
 */

/**
 * Effect is one request the receipts service recorded on arrival, or a
 * ledger row a worker committed (ledger: true).
 *
 * @typedef {object} Effect
 * @property {string} order
 * @property {number} job
 * @property {string} run
 * @property {number} attempt
 * @property {number} send
 * @property {string} worker
 * @property {number} at_us virtual instant of arrival, in microseconds
 * @property {number} token the fencing token carried, 0 for none
 * @property {boolean} refused a stale fencing token: recorded, not an effect
 * @property {string} event the producer's event id of the job
 * @property {string} key the Idempotency-Key carried, "" for none
 * @property {boolean} replayed deduplicated by the service: recorded, not an effect
 * @property {string} first_run the run whose answer a replayed request got back
 * @property {"" | "new" | "expired"} key_state how a request let through on its key found it
 * @property {boolean} ledger a ledger row, not a request
 */

/**
 * Summary is one order's effects and their diagnosis (diagnosis.Summary).
 *
 * @typedef {object} Summary
 * @property {string} order
 * @property {number} effects
 * @property {number} refused
 * @property {number} replayed
 * @property {string} count the three counts in words ("1 effect, 1 refused")
 * @property {number} runs distinct runs that sent a request
 * @property {number} span_ms
 * @property {string} span the time from the first effect to the last, as printed
 * @property {string[] | null} tags
 * @property {string} kind the diagnosis's name, one of CONFIG.kinds ("once", "claim-race", ...)
 * @property {string} diagnosis what the evidence shows, in words
 */

/**
 * Job is one row of the jobs table.
 *
 * @typedef {object} Job
 * @property {number} id
 * @property {string} order
 * @property {string} event
 * @property {string} status
 * @property {number} attempts
 * @property {string} run the run that last claimed the job, "" when none has
 * @property {number | null} lease_us the lease's expiry in virtual microseconds, or null
 */

/**
 * RaceTally counts the races of one race command that duplicated.
 *
 * @typedef {object} RaceTally
 * @property {string} claim
 * @property {number} workers
 * @property {number} races
 * @property {number} duplicates
 * @property {string} key the workers' Idempotency-Key choice
 * @property {string} dedupe the service's dedupe mode
 * @property {number} effects effects landed over all the races
 * @property {string} [txn] the claim's transaction mode, absent for autocommit
 * @property {boolean} [no_busy] the workers had no busy timeout
 * @property {number} [busy] races in which a worker died of SQLITE_BUSY
 */

/**
 * Exploration is what race --all found: every interleaving, counted.
 *
 * @typedef {object} Exploration
 * @property {string} claim
 * @property {number} workers
 * @property {string} dedupe
 * @property {string} key
 * @property {number} [heartbeat_ms]
 * @property {boolean} [fence]
 * @property {string} [effect] "ledger" for work --effect ledger
 * @property {string} [key_txn] "separate" when the ledger's key has a transaction of its own
 * @property {string} [txn] the claim's transaction mode, absent for autocommit
 * @property {boolean} [no_busy] the workers had no busy timeout
 * @property {string} [busy] orderings in which a worker died of SQLITE_BUSY, a decimal string
 * @property {string} orderings a decimal string: it outgrows a number
 * @property {string} duplicating a decimal string
 * @property {string} overlap a decimal string
 * @property {number} states
 * @property {string} method how the count was made exact
 * @property {ExploreStep[] | null} shortest a shortest interleaving that reaches two effects
 */

/**
 * @typedef {object} ExploreStep
 * @property {string} worker
 * @property {string} what
 */

/**
 * LoadTally is one lease run of a load, with its tables.
 *
 * @typedef {object} LoadTally
 * @property {number} jobs
 * @property {number} workers
 * @property {number} lease_us
 * @property {string} processing the distribution, as written
 * @property {number} p50_us
 * @property {number} p95_us
 * @property {number} duplicates
 * @property {number} overran
 * @property {Summary[] | null} summary
 * @property {Effect[] | null} effects
 * @property {Job[] | null} job_rows
 * @property {number} ran_once
 * @property {number} more
 * @property {KindCount[] | null} kind_counts
 */

/**
 * @typedef {object} KindCount
 * @property {string} kind
 * @property {number} n
 */

/**
 * @typedef {object} LedgerRow
 * @property {number} id
 * @property {string} key
 * @property {string} order
 * @property {number} job
 * @property {string} run
 * @property {number} attempt
 */

/**
 * @typedef {object} KeyRow
 * @property {string} key
 * @property {string} run
 */

/**
 * @typedef {object} LockRow
 * @property {number} job
 * @property {string} owner
 * @property {number} until_us
 */

/**
 * MatrixTable is what one matrix command found.
 *
 * @typedef {object} MatrixTable
 * @property {number} seed
 * @property {number} seeds
 * @property {MatrixFix[]} fixes the lab's fixes, never none
 * @property {MatrixRow[]} scenarios the lab's scenarios, never none
 */

/**
 * @typedef {object} MatrixFix
 * @property {string} id
 * @property {string} title
 * @property {string} change
 * @property {boolean} pending
 * @property {number} closes
 */

/**
 * @typedef {object} MatrixRow
 * @property {string} id
 * @property {string} title
 * @property {number} events
 * @property {MatrixCell[]} cells one per fix
 */

/**
 * @typedef {object} MatrixCell
 * @property {string} fix
 * @property {string} script "" when pending
 * @property {number} events
 * @property {number} effects
 * @property {number} trials
 * @property {number} failed
 * @property {"closed" | "narrows" | "duplicate" | "lost" | "pending"} verdict
 * @property {string} label the cell as the text table prints it
 */

/**
 * Schedule is the ordering the last race --schedule ran, step by step;
 * its lists are [] when empty, never null.
 *
 * @typedef {object} Schedule
 * @property {string} claim
 * @property {number} workers
 * @property {ScheduleStep[]} steps [] before the first
 * @property {ScheduleNext[]} next one per worker: its next step's label, "" once done
 * @property {ScheduleTables} tables
 * @property {string} outcome "" until every worker has finished
 * @property {string} orderings a decimal string
 * @property {string} duplicating a decimal string
 * @property {number} shortest steps of the shortest duplicating ordering, 0 for none
 * @property {ScheduleProgram[]} programs one per worker: its whole program and the line it runs next
 * @property {string[]} ordering workers' names: the shortest duplicating ordering, or where none
 *   duplicates one that runs every worker to its end
 * @property {string[]} shared the tables the workers share: "jobs", and "locks", "keys" (the
 *   receipts service's) or "processed_keys" where the race has them
 */

/**
 * ScheduleProgram is one worker's program: the lines of the steps it runs
 * alone (the explorer's own steps), the index of its next line
 * (lines.length once it has finished, -1 when its next step is a branch
 * off the program, which next names), and how it ended.
 *
 * @typedef {object} ScheduleProgram
 * @property {string} worker
 * @property {string[]} lines
 * @property {number} at
 * @property {"" | "finished" | "stopped"} ended
 */

/**
 * @typedef {object} ScheduleStep
 * @property {string} worker
 * @property {string} label
 * @property {string} said
 * @property {number} line the index of the line of the worker's program it ran, -1 off it
 */

/**
 * @typedef {object} ScheduleNext
 * @property {string} worker
 * @property {string} label
 */

/**
 * @typedef {object} ScheduleTables
 * @property {Job[]} jobs
 * @property {LockRow[]} locks
 * @property {ScheduleEffect[]} effects the effects that landed
 * @property {ScheduleKey[]} keys the keys stored: the service's, or with the ledger processed_keys
 */

/**
 * @typedef {object} ScheduleKey
 * @property {string} key
 * @property {string} worker
 * @property {number} step
 */

/**
 * @typedef {object} ScheduleEffect
 * @property {string} worker
 * @property {number} step
 */

/**
 * Views says, for each view of a block, what it shows for this script, or
 * in a sentence why it does not apply (result.Views).
 *
 * @typedef {object} Views
 * @property {ExploreView} explore Every ordering
 * @property {CompareView} compare Compare
 * @property {TimelineView} timeline Timeline
 * @property {SchedulerView} scheduler Be the scheduler
 * @property {string[] | null} columns the effects table's telling columns, after the order
 * @property {NumberView[]} numbers the numbers a slider moves, and where the script writes them
 */

/**
 * NumberView is one number of the script (result.NumberView): its name, value
 * (ms, or a count of workers), floor (0: none of its own), and the spans
 * [start, end) in UTF-16 code units where the script writes it.
 *
 * @typedef {object} NumberView
 * @property {string} name
 * @property {number} value
 * @property {number} min
 * @property {TextSpan[]} spans
 */

/**
 * TextSpan is a part of the script's text, [start, end) in UTF-16 code units.
 *
 * @typedef {object} TextSpan
 * @property {number} start
 * @property {number} end
 */

/**
 * @typedef {object} ExploreView
 * @property {boolean} own true when script explores the block's own races
 * @property {string} note
 * @property {string} script "" when no race applies
 * @property {number} workers
 * @property {string} refused why the explorer cannot check script, or ""
 * @property {ExploreRun[] | null} by_workers script at each number of workers
 */

/**
 * @typedef {object} ExploreRun
 * @property {number} workers
 * @property {string} script
 * @property {string} refused
 */

/**
 * CompareView is what Compare flips and what the claim toggle sets.
 *
 * @typedef {object} CompareView
 * @property {string} claim the claim of the block's script, as the toggle shows it
 * @property {CompareSide[] | null} sides one script per claim, for Compare's panes
 * @property {string} note why there is nothing to compare, or what differs
 * @property {CompareSide[] | null} toggle the block's own text per claim, for the claim toggle
 */

/**
 * Claims is what the worker answers when the page asks for the claims of
 * a script it has no Result of (result.ClaimsJSON): its CompareView, with
 * error when it does not parse.
 *
 * @typedef {CompareView & { error?: ResultError }} Claims
 */

/**
 * @typedef {object} CompareSide
 * @property {string} claim
 * @property {string} script
 * @property {string} [off] why the script with this claim cannot run (a limit it passes)
 */

/**
 * @typedef {object} TimelineView
 * @property {string} note the sentence above the picture
 * @property {boolean} chart the tab shows the load chart
 * @property {boolean} trace a worker's steps are traced and drawn
 */

/**
 * @typedef {object} SchedulerView
 * @property {string} note
 * @property {string} script the race line with its flags, "" when the block has no race
 * @property {string} claim
 * @property {number} workers
 * @property {string} refused why the runtime cannot play this race, or ""
 */

/**
 * Outcome counts what a run ended with, the same way for every view.
 *
 * @typedef {object} Outcome
 * @property {number} duplicates
 * @property {number} effects
 * @property {number} refused
 * @property {number} replayed
 * @property {string} headline the outcome in a few words
 */

/**
 * TraceEvent is one atomic step of a simulated process (result.Event).
 *
 * @typedef {object} TraceEvent
 * @property {number} at_us
 * @property {string} proc
 * @property {string} kind the event kind's name ("claim", "effect", "reset", ...)
 * @property {string} step
 * @property {string} [run]
 * @property {Job} [job] the row as the step left it
 * @property {Effect} [effect] the effect the step recorded
 */

/**
 * @typedef {object} Timeline
 * @property {string} svg
 * @property {number} width
 * @property {number} height
 * @property {number[] | null} event_x each trace event's x, in SVG units
 * @property {number} first_duplicate the trace index of the first duplicate, -1 for none
 * @property {Steps} [steps] the run on the step axis, absent when no worker ran
 */

/**
 * @typedef {object} Steps
 * @property {string[]} lanes the workers, in lane order
 * @property {Step[]} steps one per step of a worker, in the trace's order
 * @property {Span[]} spans each worker inside the side effect: claim to ack, indices into steps
 * @property {number} both_free the step at which a second worker read the job queued, -1 for none
 * @property {string} scale the axis the view opens on: "steps" or "time"
 */

/**
 * @typedef {object} Step
 * @property {number} event the step's index in Result.trace
 * @property {string} lane
 * @property {string} label the short name (SELECT, UPDATE, POST, ack)
 * @property {string} what the step in words
 * @property {string} said what it saw
 * @property {boolean} fold not a step of an ordering: drawn only on asking for every step
 * @property {string} mark "effect", "duplicate", "refused", "replayed", "lost" or ""
 */

/**
 * @typedef {object} Span
 * @property {string} lane
 * @property {number} from
 * @property {number} to
 */

/**
 * @typedef {object} Chart
 * @property {string} svg
 * @property {number} width
 * @property {number} height
 */

/**
 * ResultError is why a script failed (lang.Error, with its text).
 *
 * @typedef {object} ResultError
 * @property {string} kind
 * @property {number} line
 * @property {number} col
 * @property {string} msg
 * @property {string} text the error as the command line prints it, place and all
 */

/**
 * @typedef {object} Cut
 * @property {"steps" | "sqlite" | "polls" | "output"} budget
 * @property {number} limit
 * @property {boolean} auto
 */

/**
 * Choice is one value of a list the command language takes (result.Choice).
 *
 * @typedef {object} Choice
 * @property {string} name
 * @property {string} words what it does, in a few words
 * @property {string} alias the name of the value it stands for, or its own
 */

/**
 * KindChoice is one diagnosis kind as the page shows it.
 *
 * @typedef {object} KindChoice
 * @property {string} name a Summary's kind
 * @property {string} title
 * @property {boolean} good every event had its one effect
 */

/**
 * Config is what the loader hands the modules (config.js): the served
 * names of the assets, the size of the wasm module, the runtime's lists
 * (result.ChoiceLists) and the claim Compare sets beside the block's own.
 *
 * @typedef {object} Config
 * @property {string} [entry] the entry module's served name (boot.js)
 * @property {string} [full] the rest of the element's served name (playground.js), which the entry loads later
 * @property {string} [frame] frame.js's served name
 * @property {string} worker
 * @property {string} wasmExec
 * @property {string} wasm the Go program's module
 * @property {string} sqlite SQLite's module
 * @property {number} wasmSize the two modules' bytes together
 * @property {string} css
 * @property {Choice[]} claims
 * @property {Choice[]} dedupes
 * @property {Choice[]} keys
 * @property {KindChoice[]} kinds
 * @property {string[]} quiet event kinds whose steps read and write nothing shared
 * @property {number} maxScript the most bytes a script may have
 * @property {string} compareTo
 */

export {};
