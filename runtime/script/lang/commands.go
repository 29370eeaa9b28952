package lang

import (
	"fmt"
	"strings"

	"github.com/twice-lab/twice/runtime/named"
	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/receipts"
)

// The value lists the synopses name, from the one list of each kind.
var (
	claimList  = queue.ClaimNames("|")
	dedupeList = receipts.DedupeNames("|")
	keyList    = receipts.KeyNames("|")
)

// The command table: every command a script may use, with the Kind it
// parses to, its words and its flag table, a line on what it does, and an
// example that runs. The parser reads a command's arguments by its entry
// (commandSpec.parse), the unknown-command error lists these names, the
// unknown-flag error the command's flags, and twice run --help and
// docs/COMMANDS.md print each command's synopsis, made from its entry (a
// test keeps docs/COMMANDS.md equal to it). A test runs every example, so
// a command that parses but has no case in interp.exec fails there, not
// in a reader's browser.
//
// Background is not in the table: it is what '&' makes of a list, not a
// word a script types.
var commandTable = []commandSpec{
	{
		name: "reset", kind: CmdReset,
		summary: "empty the jobs table, worker.log and the recorded effects",
		example: "reset",
	},
	{
		name: "add", kind: CmdAdd, args: "ORDER", flags: addFlags,
		summary: "enqueue one job for ORDER (like order-77) carrying the producer's event id (ev-1, ev-2, ... unless given); --times N publishes that event N times, N jobs",
		example: "add order-77 --event ev-9 --times 2 && jobs",
		start:   func(c *Command) { c.Add = AddArgs{Times: 1} },
		finish:  finishAdd,
	},
	{
		name: "work", kind: CmdWork, flags: workFlags,
		summary: "one worker process executes job N: claim, log, send the receipt (or, with --effect ledger, write the effect in the ack's transaction), ack; with & it runs in the background",
		example: "add order-77 && work --job 1 --worker W1 --trace",
		start:   func(c *Command) { c.Work = defaultWork },
		finish:  finishWork,
	},
	{
		name: "race", kind: CmdRace, args: "[" + claimList + "] [N | --all | --schedule W1,W2,...]", flags: raceFlags,
		summary: "N times, a fresh job and K workers released at one instant; --all checks every interleaving instead; --schedule runs one ordering of those steps, the workers named in turn (- names none yet: the race as it starts; a schedule may stop before the end: the race as it stands), and leaves the tables as its steps did; the claim is a use's, or read, unless named",
		example: "race read 20",
		start:   func(c *Command) { c.Race = defaultRace },
		finish:  finishRace,
	},
	{
		name: "load", kind: CmdLoad, args: "N", flags: loadFlags,
		summary: "N jobs worked by K workers with processing times drawn from a distribution, once per lease length",
		example: "load 50 --processing lognormal:p50=800,p95=3000 --lease 1,5",
		start:   func(c *Command) { c.Load = LoadArgs{Workers: DefaultWorkers, Claim: DefaultLoadClaim} },
		finish:  finishLoad,
	},
	{
		name: "matrix", kind: CmdMatrix, flags: matrixFlags,
		summary: "run every duplicate scenario the lab knows against every fix, each cell a live run, and print which fix closes which duplicate",
		example: "matrix",
	},
	{
		name: "service", kind: CmdService, flags: serviceFlags,
		summary: "how the receipts service treats a request's Idempotency-Key from now on: off, check (look up, effect, then store: check-then-act) or claim (store first, effect only if new); --key-ttl forgets keys older than S seconds",
		example: "service --dedupe claim && race read 5 --key job",
		finish:  finishService,
	},
	{
		name: "use", kind: CmdUse, flags: useFlags,
		summary: "set flags that every later work and race gets unless it names its own (any flag of work but --job and --worker); a race takes those it has (--claim, --key, --effect, --key-txn, --heartbeat, --fence, and --delay unless --all or --schedule); a later use adds to it",
		example: "use --claim atomic --key event && add order-77 && work --job 1 && race --all",
		start:   func(c *Command) { c.Work = defaultWork },
		finish:  finishUse,
	},
	{
		name: "redeliver", kind: CmdRedeliver, flags: redeliverFlags,
		summary: "put job N back in the queue, as a dead-letter re-drive or a manual replay does",
		example: "add order-77 && work --job 1 && redeliver --job 1 && work --job 1 --worker W2 && effects",
	},
	{
		name: "lapse", kind: CmdLapse, flags: redeliverFlags,
		summary: "advance virtual time until job N's lease has passed, and its lock's when its claim took one: the moment the queue may deliver it again, however long the lease (no time at all when the job is not running); background workers run meanwhile, and a heartbeat that renews the lease is waited out too",
		example: "add order-77 && work --job 1 --crash-before-ack; lapse --job 1 && work --job 1 --worker W2 && jobs",
	},
	{
		name: "deploy", kind: CmdDeploy, flags: deployFlags,
		summary: "stop every background worker as a deploy stops its pod: SIGTERM, so that a worker that has not claimed its job yet stops and one that has finishes it, then SIGKILL --grace S seconds later for any still running (no --grace: SIGKILL at once, wherever each worker is)",
		example: "add order-77; work --job 1 --delay 3000 & sleep 1; deploy --grace 5; wait; jobs",
	},
	{
		name: "sleep", kind: CmdSleep, args: "SECONDS",
		summary: "advance virtual time (decimals allowed, like 1.5)",
		example: "sleep 2",
		raw:     parseSleep,
	},
	{
		name: "wait", kind: CmdWait,
		summary: "wait until every background worker has finished",
		example: "add order-77; work --job 1 --processing 500 & wait",
	},
	{
		name: "cat", kind: CmdPrintLog, args: "worker.log",
		summary: "print worker.log, the lines the workers appended",
		example: "add order-77 && work --job 1 && cat worker.log",
		raw:     parseCat,
	},
	{
		name: "log", kind: CmdPrintLog,
		summary: "the same as cat worker.log",
		example: "add order-77 && work --job 1 && log",
	},
	{
		name: "jobs", kind: CmdJobs,
		summary: "print the jobs table: each job's status, attempts and the run that holds it, and its event id once an add named one or published one twice, or an order has jobs of two events",
		example: "add order-77 && jobs",
	},
	{
		name: "effects", kind: CmdEffects,
		summary: "print what the receipts service recorded, per order (effects, and requests it refused or replayed), with a diagnosis of any duplicate",
		example: "race read 1 && effects",
	},
	{
		name: "ledger", kind: CmdLedger,
		summary: "print the ledger: the effect rows work --effect ledger wrote in the queue's database, the keys claimed with them, and any key with no row (lost work)",
		example: "add order-77 && work --job 1 --effect ledger && ledger",
	},
}

// commandSpec is one entry of the command table.
type commandSpec struct {
	name string // the word a script types
	kind Kind
	// args is what the command takes besides flags, as its synopsis
	// shows it ("ORDER", "CLAIM [N | --all]"); "" for nothing.
	args string
	// flags is the command's flag table, in the order its synopsis and
	// the unknown-flag error list them.
	flags   []flagSpec
	summary string // what it does, in one line
	example string // a script that uses it and runs without error
	// start sets the defaults of c's arguments before a flag is read.
	start func(c *Command)
	// finish reads the words that are not flags and checks what no one
	// flag can (a flag that needs another, a count); nil when the flags
	// are all.
	finish func(s commandSpec, c *Command, name token, words []token, given flagsGiven) *Error
	// raw, for a command whose words are not flags (sleep -1 is a
	// negative time, not a flag), reads them all instead.
	raw func(c *Command, name token, args []token) *Error
}

// usage is the usage error of a command: its synopsis, at its name.
func (s commandSpec) usage(name token) *Error {
	return usageErr(name.pos, "usage: %s", s.synopsis())
}

// CommandInfo describes one command for help texts and docs.
type CommandInfo struct {
	Name    string // the word a script types, like "work"
	Usage   string // its synopsis
	Summary string // what it does, in one line
	Example string // a script that uses it
}

// Commands returns the command table in the order help lists it.
func Commands() []CommandInfo {
	out := make([]CommandInfo, len(commandTable))
	for i, s := range commandTable {
		out[i] = CommandInfo{Name: s.name, Usage: s.synopsis(), Summary: s.summary, Example: s.example}
	}
	return out
}

// commandNames is the list the unknown-command error offers, like
// "reset, add, ... or effects".
var commandNames = joinNames(commandTable)

// joinNames lists the commands' words, "cat worker.log" written out, as
// "a, b or c".
func joinNames(specs []commandSpec) string {
	words := make([]string, len(specs))
	for i, s := range specs {
		words[i] = s.name
		if s.name == "cat" {
			words[i] = s.synopsis()
		}
	}
	return named.Sentence(words)
}

// lookupCommand returns the table entry for a command's word.
func lookupCommand(word string) (commandSpec, bool) {
	for _, s := range commandTable {
		if s.name == word {
			return s, true
		}
	}
	return commandSpec{}, false
}

// CommandHelp is the command list twice run --help prints: each command's
// synopsis, what it does, and an example.
func CommandHelp() string {
	var b strings.Builder
	b.WriteString("Commands (a line chains them with && or ;, CMD & runs a worker in the background, # starts a comment):\n")
	for _, s := range commandTable {
		fmt.Fprintf(&b, "  %s\n      %s\n      e.g. %s\n", s.synopsis(), s.summary, s.example)
	}
	return b.String()
}

// CommandReference is docs/COMMANDS.md: the command table as markdown.
func CommandReference() string {
	var b strings.Builder
	b.WriteString("# Command reference\n\n")
	b.WriteString("Every command a twice script can use. This page is generated from the\n")
	b.WriteString("command table in `runtime/script/lang/commands.go`; `go test ./runtime/script/lang\n")
	b.WriteString("-run CommandReference -update` rewrites it, and the test fails when the two\n")
	b.WriteString("differ.\n\n")
	b.WriteString("A script is lines; a line chains commands with `&&` (run the next only if\n")
	b.WriteString("this one succeeded) or `;` (run it anyway). `CMD &` starts a list as a\n")
	b.WriteString("background worker and goes on at once; `wait` waits for it. `#` starts a\n")
	b.WriteString("comment. A leading `node queue.mjs` or `twice`, a wrapping `( ... )` and a\n")
	b.WriteString("trailing `2>/dev/null` are accepted and ignored, so shell command lines\n")
	b.WriteString("written for a Node.js queue run as they are.\n")
	for _, s := range commandTable {
		fmt.Fprintf(&b, "\n## %s\n\n```\n%s\n```\n\n%s.\n\nExample:\n\n```twice\n%s\n```\n", s.name, s.synopsis(), upperFirst(s.summary), s.example)
	}
	return b.String()
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func parseCat(c *Command, name token, args []token) *Error {
	if len(args) != 1 || args[0].text != "worker.log" {
		return usageErr(name.pos, "only \"cat worker.log\" is understood")
	}
	return nil
}

func parseSleep(c *Command, name token, args []token) *Error {
	if len(args) != 1 {
		return usageErr(name.pos, "usage: sleep SECONDS")
	}
	d, err := parseSeconds(args[0], "the time", MaxSleep)
	c.Sleep = d
	return err
}
