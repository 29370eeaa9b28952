package lang

import (
	"strconv"
	"strings"

	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/receipts"
	"github.com/twice-lab/twice/runtime/sim"
)

// Each command's flag table, and the checks of its words and of what
// no one flag can check (finishNAME). A flag is one entry: its name, what
// its value is as the synopsis shows it, and how it is read. A new flag
// of a command is one entry in its table; a flag that many commands take
// is one constructor call (msFlag, boolFlag, keyFlag, claimFlag, ...).

// addFlags is add's flag table.
var addFlags = []flagSpec{
	{name: "event", arg: "ID", set: func(c *Command, v token) *Error {
		c.Add.Event = v.text
		return checkID(v, "event id")
	}},
	{name: "times", arg: "N", set: func(c *Command, v token) *Error {
		n, err := parseInt(v, "--times", 1, MaxTimes)
		c.Add.Times = int(n)
		return err
	}},
}

// finishAdd reads add's one order id.
func finishAdd(s commandSpec, c *Command, name token, words []token, _ flagsGiven) *Error {
	if len(words) != 1 {
		return usageErr(name.pos, "usage: %s (one order id, like order-77)", s.synopsis())
	}
	if err := checkOrder(words[0]); err != nil {
		return err
	}
	c.Add.Order = words[0].text
	return nil
}

// serviceFlags is service's flag table.
var serviceFlags = []flagSpec{
	{name: "dedupe", arg: dedupeList, need: true, set: func(c *Command, v token) (err *Error) {
		c.Service.Dedupe, err = parseDedupe(v)
		return err
	}},
	{name: "key-ttl", arg: "S", set: func(c *Command, v token) (err *Error) {
		c.Service.KeyTTL, err = parseSeconds(v, "--key-ttl", MaxKeyTTL)
		if err == nil && c.Service.KeyTTL == 0 {
			err = usageErr(v.pos, "--key-ttl must be more than 0 seconds (leave it out to keep keys for ever)")
		}
		return err
	}},
}

// finishService refuses a key TTL where no key is kept.
func finishService(_ commandSpec, c *Command, name token, _ []token, _ flagsGiven) *Error {
	if c.Service.KeyTTL > 0 && c.Service.Dedupe == receipts.DedupeOff {
		return usageErr(name.pos, "--key-ttl needs a dedupe mode that keeps keys (--dedupe check or claim)")
	}
	return nil
}

// redeliverFlags is redeliver's flag table.
var redeliverFlags = []flagSpec{
	{name: "job", arg: "N", need: true, set: func(c *Command, v token) (err *Error) {
		c.Job, err = parseInt(v, "--job", 1, MaxJobID)
		return err
	}},
}

// defaultRace is what a race is before its flags.
var defaultRace = RaceArgs{N: DefaultRaces, Workers: DefaultWorkers, Effect: EffectReceipt, KeyTxn: KeyTxnSame, BusyTimeout: DefaultBusyTimeout}

// raceFlags is race's flag table.
var raceFlags = []flagSpec{
	{name: "all", inArgs: true, set: func(c *Command, _ token) *Error {
		c.Race.All = true
		return nil
	}},
	{name: "schedule", arg: "W1,W2,...", inArgs: true, set: func(c *Command, v token) (err *Error) {
		c.Race.Schedule, err = parseSchedule(v)
		return err
	}},
	{name: "workers", arg: "K", set: func(c *Command, v token) *Error {
		n, err := parseInt(v, "--workers", MinWorkers, MaxWorkers)
		c.Race.Workers = int(n)
		return err
	}},
	keyFlag("K", func(c *Command) *receipts.Key { return &c.Race.Key }),
	effectFlag(func(c *Command) *string { return &c.Race.Effect }),
	keyTxnFlag(func(c *Command) *string { return &c.Race.KeyTxn }),
	msFlag("heartbeat", 1, func(c *Command) *sim.Time { return &c.Race.Heartbeat }),
	boolFlag("fence", func(c *Command) *bool { return &c.Race.Fence }),
	msFlag("delay", 0, func(c *Command) *sim.Time { return &c.Race.Delay }),
	txnFlag(func(c *Command) *queue.Txn { return &c.Race.Txn }),
	msFlag("busy-timeout", 0, func(c *Command) *sim.Time { return &c.Race.BusyTimeout }),
}

// finishRace reads race's claim and count, and refuses the flags that
// need another or that --all cannot model.
func finishRace(s commandSpec, c *Command, name token, words []token, given flagsGiven) *Error {
	r := &c.Race
	r.given = map[string]bool{}
	for f := range given {
		r.given[f] = true
	}
	// A schedule copied from an outcome line has its steps apart
	// ("schedule W1 W2 W1"): the words after the first are steps too.
	if _, ok := given["schedule"]; ok {
		for _, w := range words {
			if isStep(w.text) {
				return usageErr(w.pos, "race: --schedule takes its steps joined by commas (W1,W2,W1), not spaces: %s is a step of its own here", w.text)
			}
		}
	}
	// The claim may be left to a use before the race (or to the
	// default, read): then the count, if any, comes first.
	if len(words) > 0 && words[0].text != "" && (words[0].text[0] < '0' || words[0].text[0] > '9') {
		claim, err := parseClaim(words[0])
		if err != nil {
			return err
		}
		r.Claim = claim
		r.given["claim"] = true
		c.claimAt, c.claimEnd = words[0].off, words[0].off+len(words[0].text)
	} else {
		r.Claim = DefaultClaim
		words = append([]token{{}}, words...)
	}
	if len(words) < 1 || len(words) > 2 {
		return s.usage(name)
	}
	sched, scheduled := given["schedule"]
	if len(words) == 2 {
		if r.All {
			return usageErr(words[1].pos, "race --all checks every interleaving; it takes no count")
		}
		if scheduled {
			return usageErr(words[1].pos, "race --schedule runs one ordering; it takes no count")
		}
		n, err := parseInt(words[1], "the count", 1, MaxRaces)
		if err != nil {
			return err
		}
		r.N = int(n)
	}
	if f, ok := given["key-txn"]; ok && r.Effect != EffectLedger {
		return usageErr(f.tok.pos, "--key-txn is about the ledger's transaction: add --effect ledger")
	}
	if scheduled {
		if r.All {
			return usageErr(sched.tok.pos, "race --schedule runs one ordering and --all every one: give one of them")
		}
		if f, ok := given["delay"]; ok {
			return usageErr(f.tok.pos, "race --schedule runs the explorer's steps with timing ignored; --delay is a timing: drop it")
		}
		for i, w := range r.Schedule {
			if w >= r.Workers {
				return usageErr(sched.tok.pos, "--schedule: step %d names W%d, but the race has %d workers (W1 to W%d)", i+1, w+1, r.Workers, r.Workers)
			}
		}
		r.N = 0
	}
	if r.All {
		if f, ok := given["delay"]; ok {
			return usageErr(f.tok.pos, "race --all checks every ordering with timing ignored; --delay is a timing: drop it, or race N times")
		}
		r.N = 0
	}
	return nil
}

// defaultWork is what a work command is before its flags.
var defaultWork = WorkArgs{
	Worker:  DefaultWorker,
	Lease:   DefaultLease,
	Claim:   DefaultClaim,
	Timeout: DefaultTimeout,
	Effect:  EffectReceipt,
	KeyTxn:  KeyTxnSame,
	Release: ReleaseOwner,

	BusyTimeout: DefaultBusyTimeout,
}

// workFlags is work's flag table.
var workFlags = []flagSpec{
	{name: "job", arg: "N", need: true, set: func(c *Command, v token) (err *Error) {
		c.Work.Job, err = parseInt(v, "--job", 1, MaxJobID)
		return err
	}},
	{name: "worker", arg: "W", set: func(c *Command, v token) *Error {
		c.Work.Worker = v.text
		return checkWorker(v)
	}},
	{name: "lease", arg: "S", set: func(c *Command, v token) (err *Error) {
		c.Work.Lease, err = parseSeconds(v, "--lease", MaxLease)
		return err
	}},
	claimFlag(func(c *Command) *queue.Claim { return &c.Work.Claim }),
	boolFlag("trace", func(c *Command) *bool { return &c.Work.Trace }),
	msFlag("delay", 0, func(c *Command) *sim.Time { return &c.Work.Delay }),
	msFlag("timeout", 1, func(c *Command) *sim.Time { return &c.Work.Timeout }),
	msFlag("processing", 0, func(c *Command) *sim.Time { return &c.Work.Processing }),
	msFlag("heartbeat", 1, func(c *Command) *sim.Time { return &c.Work.Heartbeat }),
	msFlag("stall", 0, func(c *Command) *sim.Time { return &c.Work.Stall }),
	boolFlag("fence", func(c *Command) *bool { return &c.Work.Fence }),
	keyFlag(keyList, func(c *Command) *receipts.Key { return &c.Work.Key }),
	effectFlag(func(c *Command) *string { return &c.Work.Effect }),
	keyTxnFlag(func(c *Command) *string { return &c.Work.KeyTxn }),
	boolFlag("crash-before-effect", func(c *Command) *bool { return &c.Work.CrashBeforeEffect }),
	boolFlag("crash-before-ack", func(c *Command) *bool { return &c.Work.CrashBeforeAck }),
	boolFlag("crash-before-commit", func(c *Command) *bool { return &c.Work.CrashBeforeCommit }),
	{name: "release", arg: ReleaseOwner + "|" + ReleaseAny, set: func(c *Command, v token) *Error {
		c.Work.Release = v.text
		return checkRelease(v)
	}},
	{name: "max-attempts", arg: "N", set: func(c *Command, v token) *Error {
		n, err := parseInt(v, "--max-attempts", 1, MaxAttemptsLimit)
		c.Work.MaxAttempts = int(n)
		return err
	}},
	txnFlag(func(c *Command) *queue.Txn { return &c.Work.Txn }),
	msFlag("busy-timeout", 0, func(c *Command) *sim.Time { return &c.Work.BusyTimeout }),
}

// finishWork refuses a flag about the ledger's transaction without the
// ledger.
func finishWork(_ commandSpec, c *Command, _ token, _ []token, given flagsGiven) *Error {
	if f, ok := given.first("key-txn", "crash-before-commit"); ok && c.Work.Effect != EffectLedger {
		return usageErr(f.tok.pos, "--%s is about the ledger's transaction: add --effect ledger", f.name)
	}
	c.Work.given = map[string]bool{}
	for f := range given {
		c.Work.given[f] = true
	}
	return nil
}

// useFlags is use's flag table: work's, but --job and --worker, which
// name one job and one worker.
var useFlags = func() []flagSpec {
	var fs []flagSpec
	for _, f := range workFlags {
		if f.name != "job" && f.name != "worker" {
			fs = append(fs, f)
		}
	}
	return fs
}()

// finishUse keeps the flags use was given, in the order of UseFlags,
// and refuses a use that sets nothing or a ledger flag without the
// ledger.
func finishUse(s commandSpec, c *Command, name token, words []token, given flagsGiven) *Error {
	if len(given) == 0 {
		return usageErr(name.pos, "use needs a flag to set, like use --claim atomic --key event")
	}
	if err := finishWork(s, c, name, words, given); err != nil {
		return err
	}
	c.Use.Flags = c.Work
	c.Use.Flags.given = nil
	c.Work = WorkArgs{}
	for _, f := range UseFlags {
		if _, ok := given[f]; ok {
			c.Use.Given = append(c.Use.Given, f)
		}
	}
	return nil
}

// deployFlags is deploy's flag table.
var deployFlags = []flagSpec{
	{name: "grace", arg: "S", set: func(c *Command, v token) (err *Error) {
		c.Deploy.Grace, err = parseSeconds(v, "--grace", MaxLease)
		return err
	}},
}

// loadFlags is load's flag table.
var loadFlags = []flagSpec{
	{name: "processing", arg: "fixed:MS|lognormal:p50=MS,p95=MS", need: true, set: func(c *Command, v token) (err *Error) {
		c.Load.Processing, err = parseDist(v)
		return err
	}},
	{name: "lease", arg: "S[,S...]", need: true, set: func(c *Command, v token) *Error {
		for j, part := range strings.Split(v.text, ",") {
			if j == MaxLoadLeases {
				return usageErr(v.pos, "--lease lists at most %d lengths", MaxLoadLeases)
			}
			d, err := parseSeconds(token{tWord, part, v.pos, v.off}, "--lease", MaxLease)
			if err == nil && d == 0 {
				err = usageErr(v.pos, "--lease must be more than 0 seconds")
			}
			if err != nil {
				return err
			}
			c.Load.Leases = append(c.Load.Leases, d)
		}
		return nil
	}},
	{name: "workers", arg: "K", set: func(c *Command, v token) *Error {
		n, err := parseInt(v, "--workers", 1, MaxLoadWorkers)
		c.Load.Workers = int(n)
		return err
	}},
	msFlag("heartbeat", 1, func(c *Command) *sim.Time { return &c.Load.Heartbeat }),
	msFlag("stall", 0, func(c *Command) *sim.Time { return &c.Load.Stall }),
	claimFlag(func(c *Command) *queue.Claim { return &c.Load.Claim }),
}

// finishLoad reads load's job count.
func finishLoad(s commandSpec, c *Command, name token, words []token, _ flagsGiven) *Error {
	if len(words) != 1 {
		return s.usage(name)
	}
	n, err := parseInt(words[0], "the job count", 1, MaxLoadJobs)
	if err != nil {
		return err
	}
	c.Load.Jobs = int(n)
	return nil
}

// matrixFlags is matrix's flag table.
var matrixFlags = []flagSpec{
	{name: "seed", arg: "N", set: func(c *Command, v token) *Error {
		n, perr := strconv.ParseUint(v.text, 10, 64)
		if perr != nil || n == 0 || !digits(v.text) {
			return usageErr(v.pos, "--seed wants a whole number from 1 to %d, got %s", uint64(1<<64-1), shown(v.text))
		}
		c.MatrixSeed = n
		return nil
	}},
}

// parseSchedule reads --schedule's value, worker names joined by commas
// ("W1,W2,W1"), into worker indices from 0; "-" is the schedule with no
// step yet (not nil, but empty): the race as it starts. A name that is not
// W and a worker number is an error naming its place in the schedule.
func parseSchedule(v token) ([]int, *Error) {
	out := []int{}
	if v.text == "-" {
		return out, nil
	}
	for i, name := range strings.Split(v.text, ",") {
		digits, ok := strings.CutPrefix(name, "W")
		n, err := strconv.Atoi(digits)
		if !ok || err != nil || digits != strconv.Itoa(n) || n < 1 || n > MaxWorkers {
			return nil, usageErr(v.pos, "--schedule: step %d is %q; want a worker W1 to W%d, the steps joined by commas (W1,W2,W1)", i+1, name, MaxWorkers)
		}
		out = append(out, n-1)
	}
	return out, nil
}

// isStep reports whether a word is written as a schedule's step: a worker
// (W1, W12) or "-".
func isStep(w string) bool {
	if w == "-" {
		return true
	}
	if len(w) < 2 || w[0] != 'W' {
		return false
	}
	for _, c := range w[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
