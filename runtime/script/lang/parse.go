package lang

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/twice-lab/twice/runtime/explore"
	"github.com/twice-lab/twice/runtime/named"
	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/receipts"
	"github.com/twice-lab/twice/runtime/script/matrix"
	"github.com/twice-lab/twice/runtime/sim"
)

// Defaults of the work and race commands, as in the article.
const (
	DefaultWorker  = "W1"
	DefaultLease   = 30 * sim.Second
	DefaultClaim   = queue.ClaimRead
	DefaultTimeout = 5000 * sim.Millisecond
	// DefaultBusyTimeout is how long a worker's connection waits for a
	// write lock another connection holds before SQLite answers
	// SQLITE_BUSY (work --busy-timeout; 0 is none).
	DefaultBusyTimeout = 5000 * sim.Millisecond
	DefaultRaces       = 20
	DefaultWorkers     = 2
	MinWorkers         = explore.MinWorkers
	MaxWorkers         = explore.MaxWorkers
	// DefaultLoadClaim is load's claim: a consumer that polls uses the
	// atomic claim unless told otherwise.
	DefaultLoadClaim = queue.ClaimAtomic
)

// Pos is a place in the script: line and column, both from 1 (columns
// count characters, not bytes).
type Pos struct{ Line, Col int }

func fmtPos(line, col int) string { return fmt.Sprintf("line %d, col %d", line, col) }

// Op says how a command joins the one before it.
type Op int

const (
	// OpSeq: runs whatever happened before (start of a line, or after ';').
	OpSeq Op = iota
	// OpAnd: runs only if the previous command succeeded (after '&&').
	OpAnd
)

// Kind is which command a Command is. The constants say Cmd so that
// they never read as the event kinds of the trace (package event), which
// say what happened: lang.CmdReset is the command, event.Reset the tables
// emptied.
type Kind int

const (
	CmdReset     Kind = iota // reset
	CmdAdd                   // add ORDER
	CmdWork                  // work --job N
	CmdRace                  // race CLAIM [N | --all]
	CmdSleep                 // sleep SECONDS
	CmdPrintLog              // cat worker.log, or log: print worker.log
	CmdJobs                  // jobs
	CmdEffects               // effects
	CmdWait                  // wait
	CmdLoad                  // load N
	CmdService               // service --dedupe MODE
	CmdRedeliver             // redeliver --job N
	// CmdLapse advances virtual time until a job's lease (and its lock)
	// has passed: the moment the queue may deliver it again.
	CmdLapse
	// CmdLedger prints the ledger and processed_keys tables.
	CmdLedger
	// CmdMatrix runs every duplicate scenario against every fix.
	CmdMatrix
	// CmdUse sets the flags every later work and race gets unless it
	// names its own (see Command.Use).
	CmdUse
	// CmdBackground is a list of commands ended by '&': it runs as a
	// process of its own while the script goes on (see Command.Body).
	CmdBackground
	// CmdDeploy stops every background worker, as a deploy stops a pod
	// (see Command.Deploy).
	CmdDeploy
	numKinds
)

// kinds names each Kind, as Kind.String and the parser's tests spell it.
// The words a script types, and what each command does, are the command
// table's (commands.go): cat and log both make a CmdPrintLog, and no word
// makes a CmdBackground.
var kinds = named.New("command", numKinds, map[Kind]named.Entry{
	CmdReset:      {Name: "reset"},
	CmdAdd:        {Name: "add"},
	CmdWork:       {Name: "work"},
	CmdRace:       {Name: "race"},
	CmdSleep:      {Name: "sleep"},
	CmdPrintLog:   {Name: "log"},
	CmdJobs:       {Name: "jobs"},
	CmdEffects:    {Name: "effects"},
	CmdWait:       {Name: "wait"},
	CmdLoad:       {Name: "load"},
	CmdService:    {Name: "service"},
	CmdRedeliver:  {Name: "redeliver"},
	CmdLapse:      {Name: "lapse"},
	CmdLedger:     {Name: "ledger"},
	CmdMatrix:     {Name: "matrix"},
	CmdUse:        {Name: "use"},
	CmdBackground: {Name: "background"},
	CmdDeploy:     {Name: "deploy"},
})

// Kinds lists every command kind, in the order of the constants.
func Kinds() []Kind { return kinds.All() }

func (k Kind) String() string { return kinds.Name(k) }

// Command is one parsed command.
type Command struct {
	Pos  Pos
	Op   Op
	Kind Kind

	Add   AddArgs  // add
	Work  WorkArgs // work
	Race  RaceArgs // race
	Sleep sim.Time // sleep, µs
	Load  LoadArgs // load
	// MatrixSeed is the seed of matrix --seed, 0 for the run's own.
	MatrixSeed uint64
	// Service is what service sets: how the receipts service treats the
	// Idempotency-Key header from then on.
	Service ServiceArgs
	// Job is the job redeliver puts back in the queue, or whose lease
	// lapse waits out.
	Job int64
	// Body is the list a Background command runs, in order; its first
	// command's Op is OpSeq. Only work and sleep run in the background.
	Body []Command
	// Use is what use sets: work flags, each named in Use.Given.
	Use UseArgs
	// Deploy is what deploy does to the background workers.
	Deploy DeployArgs

	// Where the command is written, as byte offsets in the script, for
	// Script.WithClaim: claimAt to claimEnd spans its claim word (race)
	// or the value of its --claim (work, load, use), empty when it
	// writes none; nameEnd ends its command word and argsEnd its last
	// word.
	claimAt, claimEnd, nameEnd, argsEnd int
	// values are the flags with a value the command writes, in order,
	// for Script.Numbers.
	values []flagValue
}

// flagValue is a flag's value as written: its name, and the byte offset
// and text of the value.
type flagValue struct {
	name string
	off  int
	text string
}

// DeployArgs are the flags of deploy: every background worker gets
// SIGTERM, and SIGKILL Grace later if it is still running; a Grace of 0
// is SIGKILL at once.
type DeployArgs struct {
	Grace sim.Time
}

// UseArgs are the flags of use: Flags holds their values (the others at
// their defaults), and Given names the flags written, in the order of
// UseFlags.
type UseArgs struct {
	Flags WorkArgs
	Given []string
}

// UseFlags are the flags use takes, in the order Format writes them:
// every flag of work but --job and --worker, which name one job and one
// worker. A race takes those it has (--claim, --key, --effect, --key-txn,
// --heartbeat, --fence, and --delay unless it is race --all, which
// models no timing).
var UseFlags = []string{"lease", "claim", "trace", "delay", "timeout", "crash-before-effect", "crash-before-ack", "processing", "heartbeat", "stall", "fence", "effect", "key-txn", "crash-before-commit", "key", "release", "max-attempts", "txn", "busy-timeout"}

// raceUseFlags are the flags of UseFlags a race takes.
var raceUseFlags = map[string]bool{"claim": true, "key": true, "effect": true, "key-txn": true, "heartbeat": true, "fence": true, "delay": true, "txn": true, "busy-timeout": true}

// AddArgs are the arguments of add: Times jobs for Order, all carrying
// the producer's event id Event ("" for a new one, made when add runs).
type AddArgs struct {
	Order string
	Event string
	Times int
}

// ServiceArgs are the flags of service.
type ServiceArgs struct {
	Dedupe receipts.Dedupe
	// KeyTTL is how long the service remembers a key; 0 for ever.
	KeyTTL sim.Time
}

// WorkArgs are the flags of work, with defaults filled in.
type WorkArgs struct {
	Job               int64
	Worker            string
	Lease             sim.Time
	Claim             queue.Claim
	Trace             bool
	Delay             sim.Time
	Timeout           sim.Time
	CrashBeforeEffect bool
	CrashBeforeAck    bool
	// Processing is how long the job's own work takes, between the claim
	// and the receipt.
	Processing sim.Time
	// Heartbeat, when not zero, renews the lease this often, with an
	// UPDATE conditional on the run id: a timer for the whole handler,
	// during processing and while the receipt call waits for its reply.
	Heartbeat sim.Time
	// Stall freezes the worker after its last lease check and before the
	// receipt (a GC pause, a VM migration): no heartbeats meanwhile.
	Stall sim.Time
	// Fence sends the attempt number as a fencing token with the receipt
	// and makes the ack conditional on the run id.
	Fence bool
	// Effect is where the job's effect lands: EffectReceipt (a POST to the
	// receipts service) or EffectLedger (a row in the queue's own
	// database, written in one transaction with the key's claim and the
	// ack).
	Effect string
	// KeyTxn, with the ledger, says where the key is claimed: KeyTxnSame
	// (in the effect's transaction) or KeyTxnSeparate (in a transaction of
	// its own, committed before the effect's begins).
	KeyTxn string
	// CrashBeforeCommit kills the worker inside the ledger's transaction,
	// after its last statement and before COMMIT.
	CrashBeforeCommit bool
	// Key is which value the receipt carries as its Idempotency-Key.
	Key receipts.Key
	// Release, for a claim that takes a lock, is how the worker deletes
	// its lock row after the ack: ReleaseOwner (only if it still owns it,
	// the default) or ReleaseAny (whoever owns it now). A claim that
	// takes no lock has nothing to release and ignores it.
	Release string
	// MaxAttempts, when not zero, is the queue's retry limit: a claim
	// that makes the job's attempt since its last re-drive greater than
	// it moves the job to the dead-letter queue instead of running it.
	MaxAttempts int
	// Txn is the transaction the claim's statements run in (autocommit,
	// deferred, immediate), and BusyTimeout how long a statement that
	// finds the write lock held waits for it: 0, not at all (see
	// queue.Txn).
	Txn         queue.Txn
	BusyTimeout sim.Time
	// Used lists the flags a use before the command set (written in the
	// use, not on the command); Pinned, the flags written on the command
	// at their default value while a use sets them. Format writes the
	// one and not the other, so that the script reads back the same.
	Used, Pinned []string
	// given are the flags written on the command, until Parse has
	// applied the uses before it.
	given map[string]bool
}

// Where a job's effect lands (work --effect).
const (
	EffectReceipt = "receipt" // POST to the receipts service (the default)
	EffectLedger  = "ledger"  // a row in the queue's own database
)

// How a lock claim's worker deletes its lock row (work --release).
const (
	ReleaseOwner = "owner" // DELETE ... WHERE job = ? AND owner = ? (the default)
	ReleaseAny   = "any"   // DELETE ... WHERE job = ?, whoever owns it
)

// Where the ledger's key is claimed (work --key-txn).
const (
	KeyTxnSame     = "same"     // in the effect's transaction (the default)
	KeyTxnSeparate = "separate" // in a transaction of its own, before the effect's
)

// RaceArgs are the arguments of race.
type RaceArgs struct {
	Claim   queue.Claim
	N       int  // races to run; 0 with All
	All     bool // check every interleaving instead of timed races
	Workers int
	// Worker flags every racing worker gets; with All, the steps they add
	// are explored too (package explore: a heartbeat's one renewal, the
	// fenced receipt and ack, the ledger's transaction).
	Effect    string
	KeyTxn    string // with the ledger: KeyTxnSame or KeyTxnSeparate
	Heartbeat sim.Time
	Fence     bool
	Delay     sim.Time     // how long the receipts service takes to answer
	Key       receipts.Key // the workers' Idempotency-Key
	// Txn and BusyTimeout are as for WorkArgs.
	Txn         queue.Txn
	BusyTimeout sim.Time
	// Schedule, when not nil, is the one ordering to run instead of
	// races (--schedule W1,W2,...): each entry the index of the worker,
	// from 0, that takes its next step.
	Schedule []int
	// Used and Pinned are as for WorkArgs; a race that names no claim
	// takes a use's --claim.
	Used, Pinned []string
	given        map[string]bool
}

// ExploreFlags are the worker flags of a race --all, as package explore
// takes them.
func (r RaceArgs) ExploreFlags() explore.Flags {
	return explore.Flags{Heartbeat: r.Heartbeat > 0, Fence: r.Fence, Ledger: r.Effect == EffectLedger, SeparateKey: r.KeyTxn == KeyTxnSeparate, Txn: r.Txn, NoBusy: r.BusyTimeout == 0}
}

// LoadArgs are the arguments of load: N jobs worked by K workers, with
// processing times drawn from a distribution, once for each lease length.
type LoadArgs struct {
	Jobs       int
	Workers    int
	Leases     []sim.Time // one load run per lease, in the order given
	Processing Dist
	Heartbeat  sim.Time
	Stall      sim.Time
	Claim      queue.Claim
}

// Script is a parsed script: its commands in order.
type Script struct {
	Commands []Command
	// src is the text Parse read, "" for a Script made otherwise.
	src string
}

// Races returns how many races the script runs in all.
func (s *Script) Races() int {
	n := 0
	for _, c := range s.Commands {
		switch c.Kind {
		case CmdRace:
			n += c.Race.N
		case CmdMatrix:
			n += matrix.Races()
		}
	}
	return n
}

// LoadJobs returns how many jobs the script's load commands run in all,
// counting each lease of a sweep.
func (s *Script) LoadJobs() int {
	n := 0
	for _, c := range s.Commands {
		if c.Kind == CmdLoad {
			n += c.Load.Jobs * len(c.Load.Leases)
		}
	}
	return n
}

func parseErr(p Pos, format string, args ...any) *Error {
	return &Error{Kind: "parse", Line: p.Line, Col: p.Col, Msg: fmt.Sprintf(format, shortArgs(args)...)}
}

func usageErr(p Pos, format string, args ...any) *Error {
	return &Error{Kind: "usage", Line: p.Line, Col: p.Col, Msg: fmt.Sprintf(format, shortArgs(args)...)}
}

// shortArgs cuts each word of the script among the arguments (a string
// with no space: the lexer splits at spaces) to Short; a list stays whole.
func shortArgs(args []any) []any {
	for i, a := range args {
		if s, ok := a.(string); ok && !strings.ContainsAny(s, " \t") {
			args[i] = Short(s)
		}
	}
	return args
}

// Short is s as an error message quotes what a reader wrote: its first
// 40 characters and "…" when it has more, so that a megabyte written
// where a word was wanted makes a one-line error, not a megabyte's.
func Short(s string) string {
	n := 0
	for j := range s {
		if n++; n > 40 {
			return s[:j] + "…"
		}
	}
	return s
}

type tokKind int

const (
	tWord   tokKind = iota
	tAnd            // &&
	tAmp            // & (run in the background)
	tSemi           // ;
	tLParen         // (
	tRParen         // )
	tNewline
	tEOF
)

type token struct {
	kind tokKind
	text string
	pos  Pos
	off  int // the byte offset of text in the script
}

// lex splits src into tokens. Words are runs of characters other than
// blanks and the shell operators it understands.
func lex(src string) ([]token, *Error) {
	var toks []token
	line, col := 1, 1
	i := 0
	for i < len(src) {
		r, size := utf8.DecodeRuneInString(src[i:])
		p := Pos{line, col}
		switch {
		case r == utf8.RuneError && size == 1:
			return nil, parseErr(p, "invalid UTF-8")
		case r == '\n':
			toks = append(toks, token{tNewline, "\n", p, i})
			i++
			line, col = line+1, 1
			continue
		case r == ' ' || r == '\t' || r == '\r':
			i++
			col++
			continue
		case r == '\\' && strings.HasPrefix(src[i:], "\\\n"):
			// A line continuation, as in a shell.
			i += 2
			line, col = line+1, 1
			continue
		case r == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		case r == ';':
			toks = append(toks, token{tSemi, ";", p, i})
		case r == '(':
			toks = append(toks, token{tLParen, "(", p, i})
		case r == ')':
			toks = append(toks, token{tRParen, ")", p, i})
		case r == '&':
			if strings.HasPrefix(src[i:], "&&") {
				toks = append(toks, token{tAnd, "&&", p, i})
				i += 2
				col += 2
				continue
			}
			toks = append(toks, token{tAmp, "&", p, i})
		case r == '|':
			return nil, parseErr(p, "'|' is not supported; use '&&' or ';'")
		case r == '\'' || r == '"' || r == '`':
			return nil, parseErr(p, "quotes are not supported: write words without them")
		case r == '$':
			return nil, parseErr(p, "'$' (variables) is not supported")
		default:
			start := i
			for i < len(src) {
				r, size := utf8.DecodeRuneInString(src[i:])
				if strings.ContainsRune(" \t\r\n;&|()'\"`$", r) || r == utf8.RuneError && size == 1 {
					break
				}
				i += size
				col++
			}
			toks = append(toks, token{tWord, src[start:i], p, start})
			continue
		}
		i += size
		col++
	}
	toks = append(toks, token{tEOF, "", Pos{line, col}, len(src)})
	return toks, nil
}

// Parse parses a script. Errors are *Error values naming line and column.
func Parse(src string) (*Script, error) {
	if err := checkSize(src); err != nil {
		return nil, err
	}
	// A byte-order mark, which some editors put at the start of a file,
	// is not part of the script.
	src = strings.TrimPrefix(src, "\ufeff")
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, s: &Script{src: src}, lists: []int{0}, op: OpSeq}
	for ; p.i < len(toks); p.i++ {
		if err := p.token(toks[p.i]); err != nil {
			return nil, err
		}
	}
	if err := applyUse(p.s.Commands, &UseArgs{}); err != nil {
		return nil, err
	}
	if _, err := p.s.cost(); err != nil {
		return nil, err
	}
	return p.s, nil
}

// parser is Parse's state between two tokens.
type parser struct {
	toks []token
	i    int // the token being read
	s    *Script
	open []Pos // unclosed '(' positions
	// lists[d] is the index in s.Commands where the current list (the
	// commands chained by '&&' since the last ';', newline or '&') began,
	// at parenthesis depth d: '&' sends that whole list to the background.
	lists    []int
	op       Op      // how the next command joins the one before it
	words    []token // the words of the command being read
	afterAnd *token  // the '&&' still waiting for its command
}

// token reads one token.
func (p *parser) token(t token) *Error {
	switch t.kind {
	case tWord:
		return p.word(t)
	case tLParen:
		if len(p.words) > 0 {
			return parseErr(t.pos, "unexpected '(' after %q", p.words[len(p.words)-1].text)
		}
		p.open = append(p.open, t.pos)
		p.lists = append(p.lists, len(p.s.Commands))
	case tRParen:
		if len(p.open) == 0 {
			return parseErr(t.pos, "unmatched ')'")
		}
		p.open = p.open[:len(p.open)-1]
		if err := p.flush(); err != nil {
			return err
		}
		p.lists = p.lists[:len(p.lists)-1]
	case tAnd:
		return p.and(t)
	case tAmp:
		return p.amp(t)
	case tSemi:
		if len(p.words) == 0 && !p.after(tRParen, tWord) {
			if p.afterAnd != nil {
				return parseErr(t.pos, "expected a command after '&&'")
			}
			return parseErr(t.pos, "expected a command before ';'")
		}
		return p.endList()
	case tNewline, tEOF:
		if err := p.flush(); err != nil {
			return err
		}
		if t.kind == tEOF && len(p.open) > 0 {
			return parseErr(p.open[len(p.open)-1], "unclosed '('")
		}
		p.newList()
	}
	return nil
}

// after reports whether the token before the current one is of one of
// the kinds given.
func (p *parser) after(kinds ...tokKind) bool {
	return p.i > 0 && slices.Contains(kinds, p.toks[p.i-1].kind)
}

// word adds a word to the command being read.
func (p *parser) word(t token) *Error {
	if len(p.words) == 0 && t.text == "2>/dev/null" {
		// A redirection after ')' or on its own: ignored.
		if !p.after(tRParen) {
			return parseErr(t.pos, "expected a command before '2>/dev/null'")
		}
		return nil
	}
	p.words = append(p.words, t)
	return nil
}

// and ends a command with '&&': the next runs only if it succeeded.
func (p *parser) and(t token) *Error {
	if len(p.words) == 0 {
		// '&&' right after ')' continues the chain; anything else has no
		// command to its left.
		if !p.after(tRParen) {
			return parseErr(t.pos, "expected a command before '&&'")
		}
	} else if err := p.flush(); err != nil {
		return err
	}
	p.op = OpAnd
	p.afterAnd = &t
	// A newline after '&&' continues the line, as in a shell.
	for p.i+1 < len(p.toks) && p.toks[p.i+1].kind == tNewline {
		p.i++
	}
	return nil
}

// amp ends a list with '&': the list runs in the background.
func (p *parser) amp(t token) *Error {
	if p.afterAnd != nil && len(p.words) == 0 {
		return parseErr(p.afterAnd.pos, "expected a command after '&&'")
	}
	if err := p.flush(); err != nil {
		return err
	}
	from := p.lists[len(p.lists)-1]
	if from >= len(p.s.Commands) {
		return parseErr(t.pos, "expected a command before '&'")
	}
	bg, err := background(p.s.Commands[from:], t)
	if err != nil {
		return err
	}
	p.s.Commands = append(p.s.Commands[:from], bg)
	p.newList()
	return nil
}

// endList ends a command and its list (';').
func (p *parser) endList() *Error {
	if err := p.flush(); err != nil {
		return err
	}
	p.newList()
	return nil
}

// newList starts a new list at the current depth.
func (p *parser) newList() {
	p.lists[len(p.lists)-1] = len(p.s.Commands)
	p.op = OpSeq
}

// flush parses the words read into a command, if there are any.
func (p *parser) flush() *Error {
	if len(p.words) == 0 {
		if p.afterAnd != nil {
			return parseErr(p.afterAnd.pos, "expected a command after '&&'")
		}
		return nil
	}
	c, err := parseCommand(p.words)
	if err != nil {
		return err
	}
	c.Op = p.op
	p.s.Commands = append(p.s.Commands, c)
	if len(p.s.Commands) > MaxCommands {
		return limitErr(c.Pos, "more than %d commands; the limit is %d commands per script", MaxCommands, MaxCommands)
	}
	p.words = p.words[:0]
	p.afterAnd = nil
	return nil
}

// background turns the list of commands before a '&' into one Background
// command. Only work and sleep can run in the background: a background
// list is a worker of its own, going on while the script does.
func background(list []Command, amp token) (Command, *Error) {
	body := append([]Command(nil), list...)
	hasWork := false
	for _, c := range body {
		switch c.Kind {
		case CmdWork:
			hasWork = true
		case CmdSleep:
		case CmdBackground:
			return Command{}, parseErr(c.Pos, "a list sent to the background with '&' cannot itself contain '&'")
		default:
			return Command{}, usageErr(amp.pos, "%s cannot run in the background: '&' sends the whole '&&' list before it there, and only work and sleep can run there (end the list with ';' or a new line before the worker)", c.Kind)
		}
	}
	if !hasWork {
		return Command{}, usageErr(amp.pos, "'&' starts a worker in the background, but this list has no work command")
	}
	bg := Command{Pos: body[0].Pos, Op: body[0].Op, Kind: CmdBackground, Body: body}
	bg.Body[0].Op = OpSeq
	return bg, nil
}

// parseCommand turns the words of one command into a Command.
func parseCommand(words []token) (Command, *Error) {
	// Wrappers the article's command lines carry: "node queue.mjs" and
	// "twice" before a command, "2>/dev/null" after it.
	first := words[0].pos
	if words[0].text == "node" {
		if len(words) < 2 || words[1].text != "queue.mjs" {
			return Command{}, parseErr(words[0].pos, `only "node queue.mjs COMMAND" is understood after "node"`)
		}
		words = words[2:]
		if len(words) == 0 {
			return Command{}, usageErr(first, "expected a command after \"node queue.mjs\"")
		}
	} else if words[0].text == "twice" {
		words = words[1:]
		if len(words) == 0 {
			return Command{}, usageErr(first, "expected a command after \"twice\"")
		}
	}
	if n := len(words); n > 1 && words[n-1].text == "2>/dev/null" {
		words = words[:n-1]
	}
	name, args := words[0], words[1:]
	last := words[len(words)-1]
	c := Command{Pos: name.pos, nameEnd: name.off + len(name.text), argsEnd: last.off + len(last.text)}
	for _, a := range args {
		if strings.Contains(a.text, ">") || strings.Contains(a.text, "<") {
			return c, parseErr(a.pos, "redirection %q is not supported (only a trailing 2>/dev/null is accepted)", a.text)
		}
	}
	spec, ok := lookupCommand(name.text)
	if !ok {
		return c, usageErr(name.pos, "unknown command %q (want %s)", name.text, commandNames)
	}
	c.Kind = spec.kind
	if err := spec.parse(&c, name, args); err != nil {
		// Every error names the command it is about.
		if !strings.HasPrefix(err.Msg, "usage: ") && !strings.HasPrefix(err.Msg, name.text+" ") && !strings.HasPrefix(err.Msg, name.text+":") {
			err.Msg = name.text + ": " + err.Msg
		}
		return c, err
	}
	return c, nil
}

// parseDedupe reads one of receipts.Dedupes by name.
func parseDedupe(t token) (receipts.Dedupe, *Error) {
	d, err := receipts.ParseDedupe(t.text)
	return d, listErr(t, err)
}

// parseKey reads one of receipts.Keys by name.
func parseKey(t token) (receipts.Key, *Error) {
	k, err := receipts.ParseKey(t.text)
	return k, listErr(t, err)
}

// listErr places the error of a list's Parse (which names what the list
// holds) at t, as a usage error.
func listErr(t token, err error) *Error {
	if err == nil {
		return nil
	}
	return usageErr(t.pos, "%s", err.Error())
}

func checkOrder(t token) *Error { return checkID(t, "order id") }

// checkID checks an order or event id.
func checkID(t token, what string) *Error {
	if len(t.text) > maxOrderLen {
		return usageErr(t.pos, "%s is longer than %d characters", what, maxOrderLen)
	}
	for _, r := range t.text {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.:", r)) {
			return usageErr(t.pos, "%s %q may use only letters, digits and - _ . :", what, t.text)
		}
	}
	if strings.HasPrefix(t.text, "-") {
		return usageErr(t.pos, "%s %q must not start with '-'", what, t.text)
	}
	return nil
}

// parseClaim reads one of queue.Claims by name.
func parseTxn(t token) (queue.Txn, *Error) {
	if x, ok := queue.ParseTxn(t.text); ok {
		return x, nil
	}
	return 0, usageErr(t.pos, "unknown transaction mode %q (want %s)", t.text, queue.TxnNames(", "))
}

func parseClaim(t token) (queue.Claim, *Error) {
	if c, ok := queue.ParseClaim(t.text); ok {
		return c, nil
	}
	var names []string
	for _, c := range queue.Claims() {
		names = append(names, c.String())
	}
	return 0, usageErr(t.pos, "unknown claim %q (want %s)", t.text, named.Sentence(names))
}

// parseMillis reads a whole number of milliseconds from lo to MaxMillis.
func parseMillis(t token, what string, lo int64) (sim.Time, *Error) {
	ms, ok := wholeNumber(t.text, lo, MaxMillis)
	if !ok {
		return 0, usageErr(t.pos, "%s wants a whole number of ms from %d to %d, got %s", what, lo, MaxMillis, shown(t.text))
	}
	return ms * sim.Millisecond, nil
}

// Dist is a distribution of processing times.
type Dist struct {
	// Kind is "fixed" (always P50) or "lognormal" (median P50, 95th
	// percentile P95).
	Kind     string
	P50, P95 sim.Time
}

func (d Dist) String() string {
	if d.Kind == "fixed" {
		return fmt.Sprintf("fixed:%d", d.P50/sim.Millisecond)
	}
	return fmt.Sprintf("lognormal:p50=%d,p95=%d", d.P50/sim.Millisecond, d.P95/sim.Millisecond)
}

// parseDist reads fixed:MS or lognormal:p50=MS,p95=MS.
func parseDist(t token) (Dist, *Error) {
	bad := func(why string) (Dist, *Error) {
		return Dist{}, usageErr(t.pos, "--processing %q: %s (want fixed:MS or lognormal:p50=MS,p95=MS, in milliseconds)", t.text, why)
	}
	kind, rest, _ := strings.Cut(t.text, ":")
	ms := func(s string, lo int64) (sim.Time, bool) {
		n, ok := wholeNumber(s, lo, MaxMillis)
		return n * sim.Millisecond, ok
	}
	switch kind {
	case "fixed":
		v, ok := ms(rest, 0)
		if !ok {
			return bad(fmt.Sprintf("want a whole number of ms from 0 to %d", MaxMillis))
		}
		return Dist{Kind: "fixed", P50: v, P95: v}, nil
	case "lognormal":
		d := Dist{Kind: "lognormal"}
		seen := map[string]bool{}
		for _, kv := range strings.Split(rest, ",") {
			k, v, _ := strings.Cut(kv, "=")
			switch {
			case k == "":
				return bad("a parameter is empty")
			case k != "p50" && k != "p95":
				return bad(fmt.Sprintf("unknown parameter %q", k))
			case seen[k]:
				return bad(k + " is given twice")
			}
			seen[k] = true
			n, ok := ms(v, 1)
			if !ok {
				return bad(fmt.Sprintf("want %s as a whole number of ms from 1 to %d, got %s", k, MaxMillis, shown(v)))
			}
			if k == "p50" {
				d.P50 = n
			} else {
				d.P95 = n
			}
		}
		if !seen["p50"] || !seen["p95"] {
			return bad("give both p50 and p95")
		}
		if d.P95 < d.P50 {
			return bad("p95 must not be less than p50")
		}
		return d, nil
	}
	return bad("unknown distribution")
}

// The values of --effect and --key-txn, as their synopsis shows them.
const (
	effectList = EffectReceipt + "|" + EffectLedger
	keyTxnList = KeyTxnSame + "|" + KeyTxnSeparate
)

// checkKeyTxn checks a value of --key-txn.
func checkKeyTxn(t token) *Error {
	if t.text != KeyTxnSame && t.text != KeyTxnSeparate {
		return usageErr(t.pos, "unknown --key-txn %q (want same or separate)", t.text)
	}
	return nil
}

// checkRelease checks a value of --release.
func checkRelease(t token) *Error {
	if t.text != ReleaseOwner && t.text != ReleaseAny {
		return usageErr(t.pos, "unknown --release %q (want owner or any)", t.text)
	}
	return nil
}

func checkEffect(t token) *Error {
	if t.text != EffectReceipt && t.text != EffectLedger {
		return usageErr(t.pos, "unknown effect %q (want receipt or ledger)", t.text)
	}
	return nil
}

func checkWorker(t token) *Error {
	if t.text == "" || len(t.text) > 16 {
		return usageErr(t.pos, "worker name must be 1 to 16 characters")
	}
	for _, r := range t.text {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return usageErr(t.pos, "worker name %q may use only letters, digits, - and _", t.text)
		}
	}
	return nil
}

// parseInt reads a whole number from lo to hi; what names it in the error
// ("--job", "the count").
func parseInt(t token, what string, lo, hi int64) (int64, *Error) {
	n, ok := wholeNumber(t.text, lo, hi)
	if !ok {
		return 0, usageErr(t.pos, "%s wants a whole number from %d to %d, got %s", what, lo, hi, shown(t.text))
	}
	return n, nil
}

// wholeNumber is the one rule for every number of a script: decimal
// digits only (no sign, no spaces, no point; leading zeros are fine), from
// lo to hi. lo is never negative: nothing a script counts or waits for is.
func wholeNumber(s string, lo, hi int64) (int64, bool) {
	if !digits(s) {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n >= lo && n <= hi
}

// digits reports whether s is one or more ASCII decimal digits.
func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// shown writes a value as an error quotes it: a number-like word as it is
// ("got 99999999", "got -1"), anything else quoted ("got \"x\"", "got
// nothing").
func shown(s string) string {
	if s == "" {
		return "nothing"
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r == '-' || r == '+' || r == '.') {
			return strconv.Quote(s)
		}
	}
	return s
}

// parseSeconds reads a decimal number of seconds ("2", "0.5", "1.25") into
// microseconds without going through floating point.
func parseSeconds(t token, what string, max int64) (sim.Time, *Error) {
	bad := usageErr(t.pos, "%s wants seconds from 0 to %d (like 2 or 0.5), got %s", what, max, shown(t.text))
	whole, frac, hasFrac := strings.Cut(t.text, ".")
	if whole == "" && !hasFrac || hasFrac && (frac == "" || len(frac) > 6) {
		return 0, bad
	}
	var w int64
	if whole != "" {
		n, ok := wholeNumber(whole, 0, max)
		if !ok {
			return 0, bad
		}
		w = n
	}
	var f int64
	if hasFrac {
		n, ok := wholeNumber(frac, 0, 999_999)
		if !ok {
			return 0, bad
		}
		for i := len(frac); i < 6; i++ {
			n *= 10
		}
		f = n
	}
	d := w*sim.Second + f
	if d > max*sim.Second {
		return 0, bad
	}
	return d, nil
}

// applyUse gives every work and race of cmds the flags of the use in
// force (in, updated by each use in cmds) that it does not name itself,
// and records which ([WorkArgs].Used, Pinned).
func applyUse(cmds []Command, in *UseArgs) *Error {
	for i := range cmds {
		c := &cmds[i]
		switch c.Kind {
		case CmdUse:
			for _, name := range c.Use.Given {
				setWorkFlag(&in.Flags, c.Use.Flags, name)
				if !slices.Contains(in.Given, name) {
					in.Given = append(in.Given, name)
				}
			}
		case CmdWork:
			w := &c.Work
			for _, name := range UseFlags {
				if !slices.Contains(in.Given, name) {
					continue
				}
				if w.given[name] {
					if workFlagText(*w, name) == workFlagText(WorkArgs{}.defaults(), name) {
						w.Pinned = append(w.Pinned, name)
					}
					continue
				}
				setWorkFlag(w, in.Flags, name)
				w.Used = append(w.Used, name)
			}
			w.given = nil
			if w.KeyTxn == KeyTxnSeparate && w.Effect != EffectLedger {
				return usageErr(c.Pos, "work: --key-txn separate, from use, is about the ledger's transaction: add --effect ledger")
			}
		case CmdRace:
			r := &c.Race
			for _, name := range UseFlags {
				if !raceUseFlags[name] || !slices.Contains(in.Given, name) || name == "delay" && (r.All || len(r.Schedule) > 0) {
					continue
				}
				if r.given[name] {
					if raceFlagText(*r, name) == raceFlagText(RaceArgs{Effect: EffectReceipt, KeyTxn: KeyTxnSame, BusyTimeout: DefaultBusyTimeout}, name) {
						r.Pinned = append(r.Pinned, name)
					}
					continue
				}
				w := r.work()
				setWorkFlag(&w, in.Flags, name)
				r.Claim, r.Key, r.Effect, r.KeyTxn, r.Heartbeat, r.Fence, r.Delay, r.Txn, r.BusyTimeout = w.Claim, w.Key, w.Effect, w.KeyTxn, w.Heartbeat, w.Fence, w.Delay, w.Txn, w.BusyTimeout
				r.Used = append(r.Used, name)
			}
			r.given = nil
			if r.KeyTxn == KeyTxnSeparate && r.Effect != EffectLedger {
				return usageErr(c.Pos, "race: --key-txn separate, from use, is about the ledger's transaction: add --effect ledger")
			}
		case CmdBackground:
			if err := applyUse(c.Body, in); err != nil {
				return err
			}
		}
	}
	return nil
}

// defaults returns work's flags at their defaults.
func (WorkArgs) defaults() WorkArgs { return defaultWork }

// setWorkFlag copies flag name of from into w.
func setWorkFlag(w *WorkArgs, from WorkArgs, name string) {
	switch name {
	case "lease":
		w.Lease = from.Lease
	case "claim":
		w.Claim = from.Claim
	case "trace":
		w.Trace = from.Trace
	case "delay":
		w.Delay = from.Delay
	case "timeout":
		w.Timeout = from.Timeout
	case "crash-before-effect":
		w.CrashBeforeEffect = from.CrashBeforeEffect
	case "crash-before-ack":
		w.CrashBeforeAck = from.CrashBeforeAck
	case "processing":
		w.Processing = from.Processing
	case "heartbeat":
		w.Heartbeat = from.Heartbeat
	case "stall":
		w.Stall = from.Stall
	case "fence":
		w.Fence = from.Fence
	case "effect":
		w.Effect = from.Effect
	case "key-txn":
		w.KeyTxn = from.KeyTxn
	case "crash-before-commit":
		w.CrashBeforeCommit = from.CrashBeforeCommit
	case "key":
		w.Key = from.Key
	case "release":
		w.Release = from.Release
	case "max-attempts":
		w.MaxAttempts = from.MaxAttempts
	case "txn":
		w.Txn = from.Txn
	case "busy-timeout":
		w.BusyTimeout = from.BusyTimeout
	}
}

// work is the race's worker flags as work's.
func (r RaceArgs) work() WorkArgs {
	return WorkArgs{Claim: r.Claim, Key: r.Key, Effect: r.Effect, KeyTxn: r.KeyTxn, Heartbeat: r.Heartbeat, Fence: r.Fence, Delay: r.Delay, Txn: r.Txn, BusyTimeout: r.BusyTimeout}
}
