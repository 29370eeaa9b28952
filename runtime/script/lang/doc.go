// Package lang is the twice command language: the commands a script can
// type, the command table they come from, the parser that turns a
// script's text into a [Script], and the printer that writes a Script
// back ([Format], [Command.String]). It runs nothing: package interp
// does.
//
// # What a newcomer meets first
//
//	Parse(src)        → *Script   commands with their positions and arguments, or an *Error
//	Format(*Script)   → string    the script in canonical form; Parse(Format(s)) is s
//	Estimate(src)     → Cost      the parser's guess at what a script will spend
//	s.WithClaim(c)    → string    the script's own text with every claim set to c (claim.go)
//	Commands()        → []CommandInfo   the command table, as help and docs list it
//
// A [Command] has a [Kind] (which command), its [Pos] in the script, how it
// joins the command before it ([Op]: ; or &&), and its arguments: one of
// [AddArgs], [WorkArgs], [RaceArgs], [LoadArgs], [ServiceArgs], [UseArgs],
// or a job id or a sleep. The parser applies a use itself: once a script
// is parsed, every later work and race holds the flags it took from one
// (named in its Used), so nothing that runs a script knows about use. A value from one of the runtime's lists (a claim, a
// dedupe mode, a key choice) is parsed into its named type here, so that
// nothing later sees a name that is not on its list. The wrappers of the
// article's command lines (node queue.mjs, twice, ( ... ), a trailing
// 2>/dev/null) are dropped here.
//
// Every limit of limits.go (MaxScriptBytes, MaxCommands, MaxRaces,
// MaxWorkerNames, MaxExploreStates, MaxRenewals, the load limits,
// MaxSleep, MaxLease, MaxMillis, MaxJobID) is checked here, before anything
// runs, and every number follows one rule (decimal digits, no sign, in
// range). An [Error] says what went wrong and where: its Kind is "parse",
// "usage", "limit" or, when the interpreter places a failure of its own
// at a command, "runtime".
//
// The matrix command's table is package matrix's: the parser counts what
// a matrix will run from it.
//
// # Adding a flag
//
// One entry in the command's flag table (commandflags.go): a flagSpec
// with its name, what its value is as the synopsis shows it ("" for a
// flag that takes none), and set, which reads it into the Command; or a
// constructor for the kinds many commands share (msFlag, boolFlag,
// keyFlag, claimFlag, effectFlag, keyTxnFlag). A command that takes the
// same flags as another (work's) uses that table. Then go test
// ./runtime/script/lang -run CommandReference -update, which rewrites
// docs/COMMANDS.md, and go test ./cmd/twice -run README -update, which
// rewrites the synopses of docs/MANUAL.md's command table.
//
// # Adding a command
//
//  1. parse.go: a [Kind] constant (CmdNAME, before CmdBackground) and
//     its entry in kinds, the named list of the kinds; a field or an args
//     struct on [Command] for its arguments.
//  2. commands.go: an entry in commandTable with its word, Kind, its
//     words besides flags as the synopsis shows them (args), its flag
//     table (commandflags.go), a one-line summary and an example that
//     runs; start sets its arguments' defaults, and finish reads its
//     words and checks what no one flag can, returning a usage error
//     (usageErr) for bad input. One loop (commandSpec.parse, flags.go)
//     reads every command's flags by its table: each at most once, its
//     value after a space or '=', an unknown flag refused with the list
//     of the command's flags, a flag marked need required. The synopsis
//     that twice run --help, docs/COMMANDS.md and the usage errors print
//     is made from the entry. A flag that takes a value from a list
//     parses it with parseClaim, parseDedupe or parseKey, whose errors
//     name the list.
//  3. limits.go: if it has a limit, a Max constant, checked in the
//     parser; if it starts workers (each worker name is a SQLite
//     connection) or does work in proportion to its arguments, a case in
//     Script.cost that counts its names, races, states or steps, so the
//     budget and Estimate see it.
//  4. format.go: a case in [Command.String] if it has arguments, so that
//     Format round-trips (FuzzParse checks it).
//  5. go test ./runtime/script/lang -run CommandReference -update
//     rewrites docs/COMMANDS.md, and go test ./cmd/twice -run README
//     -update adds its row to docs/MANUAL.md's command table. Then the
//     interpreter runs it: see package interp.
package lang
