package lang

import (
	"fmt"
	"strings"

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
// parses to, its synopsis, a line on what it does, and an example that
// runs. The parser looks commands up here, the unknown-command error lists
// these names, twice run --help prints them, and docs/COMMANDS.md is this
// table written out (a test keeps the two equal). A test runs every
// example, so a command that parses but has no case in interp.exec fails
// there, not in a reader's browser.
//
// Background is not in the table: it is what '&' makes of a list, not a
// word a script types.
var commandTable = []commandSpec{
	{
		name: "reset", kind: Reset, usage: "reset",
		summary: "empty the jobs table, worker.log and the recorded effects",
		example: "reset",
		parse:   noArgs,
	},
	{
		name: "add", kind: Add, usage: "add ORDER [--event ID] [--times N]",
		summary: "enqueue one job for ORDER (like order-77) carrying the producer's event id (ev-1, ev-2, ... unless given); --times N publishes that event N times, N jobs",
		example: "add order-77 --event ev-9 --times 2 && jobs",
		parse:   parseAdd,
	},
	{
		name: "work", kind: Work,
		usage:   "work --job N [--worker W] [--lease S] [--claim " + claimList + "] [--trace] [--delay MS] [--timeout MS] [--processing MS] [--heartbeat MS] [--stall MS] [--fence] [--key " + keyList + "] [--effect receipt|ledger] [--key-txn same|separate] [--crash-before-effect] [--crash-before-ack] [--crash-before-commit]",
		summary: "one worker process executes job N: claim, log, send the receipt (or, with --effect ledger, write the effect in the ack's transaction), ack; with & it runs in the background",
		example: "add order-77 && work --job 1 --worker W1 --trace",
		parse:   parseWork,
	},
	{
		name: "race", kind: Race,
		usage:   "race " + claimList + " [N | --all] [--workers K] [--key K] [--effect receipt|ledger] [--key-txn same|separate] [--heartbeat MS] [--fence] [--delay MS]",
		summary: "N times, a fresh job and K workers released at one instant; --all checks every interleaving instead",
		example: "race read 20",
		parse:   parseRace,
	},
	{
		name: "load", kind: Load,
		usage:   "load N --processing fixed:MS|lognormal:p50=MS,p95=MS --lease S[,S...] [--workers K] [--heartbeat MS] [--stall MS] [--claim " + claimList + "]",
		summary: "N jobs worked by K workers with processing times drawn from a distribution, once per lease length",
		example: "load 50 --processing lognormal:p50=800,p95=3000 --lease 1,5",
		parse:   parseLoad,
	},
	{
		name: "matrix", kind: Matrix, usage: "matrix [--seed N]",
		summary: "run every duplicate scenario the lab knows against every fix, each cell a live run, and print which fix closes which duplicate",
		example: "matrix",
		parse:   parseMatrix,
	},
	{
		name: "service", kind: Service, usage: "service --dedupe " + dedupeList + " [--key-ttl S]",
		summary: "how the receipts service treats a request's Idempotency-Key from now on: off, check (look up, effect, then store: check-then-act) or claim (store first, effect only if new); --key-ttl forgets keys older than S seconds",
		example: "service --dedupe claim && race read 5 --key job",
		parse:   parseService,
	},
	{
		name: "redeliver", kind: Redeliver, usage: "redeliver --job N",
		summary: "put job N back in the queue, as a dead-letter re-drive or a manual replay does",
		example: "add order-77 && work --job 1 && redeliver --job 1 && work --job 1 --worker W2 && effects",
		parse:   parseRedeliver,
	},
	{
		name: "sleep", kind: Sleep, usage: "sleep SECONDS",
		summary: "advance virtual time (decimals allowed, like 1.5)",
		example: "sleep 2",
		parse:   parseSleep,
	},
	{
		name: "wait", kind: Wait, usage: "wait",
		summary: "wait until every background worker has finished",
		example: "add order-77; work --job 1 --processing 500 & wait",
		parse:   noArgs,
	},
	{
		name: "cat", kind: Log, usage: "cat worker.log",
		summary: "print worker.log, the lines the workers appended",
		example: "add order-77 && work --job 1 && cat worker.log",
		parse:   parseCat,
	},
	{
		name: "log", kind: Log, usage: "log",
		summary: "the same as cat worker.log",
		example: "add order-77 && work --job 1 && log",
		parse:   noArgs,
	},
	{
		name: "jobs", kind: Jobs, usage: "jobs",
		summary: "print the jobs table: each job's status, attempts and the run that holds it, and its event id once an add named one or published one twice, or an order has jobs of two events",
		example: "add order-77 && jobs",
		parse:   noArgs,
	},
	{
		name: "effects", kind: Effects, usage: "effects",
		summary: "print what the receipts service recorded, per order (effects, and requests it refused or replayed), with a diagnosis of any duplicate",
		example: "race read 1 && effects",
		parse:   noArgs,
	},
	{
		name: "ledger", kind: Ledger, usage: "ledger",
		summary: "print the ledger: the effect rows work --effect ledger wrote in the queue's database, the keys claimed with them, and any key with no row (lost work)",
		example: "add order-77 && work --job 1 --effect ledger && ledger",
		parse:   noArgs,
	},
}

// commandSpec is one entry of the command table.
type commandSpec struct {
	name    string // the word a script types
	kind    Kind
	usage   string // the synopsis, as help prints it
	summary string // what it does, in one line
	example string // a script that uses it and runs without error
	// parse fills c's arguments from the words after the name; c.Kind is
	// already set.
	parse func(c *Command, name token, args []token) *Error
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
		out[i] = CommandInfo{Name: s.name, Usage: s.usage, Summary: s.summary, Example: s.example}
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
			words[i] = s.usage
		}
	}
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
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
		fmt.Fprintf(&b, "  %s\n      %s\n      e.g. %s\n", s.usage, s.summary, s.example)
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
		fmt.Fprintf(&b, "\n## %s\n\n```\n%s\n```\n\n%s.\n\nExample:\n\n```twice\n%s\n```\n", s.name, s.usage, upperFirst(s.summary), s.example)
	}
	return b.String()
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// noArgs is the parser of a command that takes no arguments.
func noArgs(c *Command, name token, args []token) *Error {
	if len(args) > 0 {
		return usageErr(args[0].pos, "%s takes no arguments", name.text)
	}
	return nil
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
