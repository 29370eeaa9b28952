package interp

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/twice-lab/twice/runtime/event"
	"github.com/twice-lab/twice/runtime/explore"
	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/receipts"
	"github.com/twice-lab/twice/runtime/script/diagnosis"
	"github.com/twice-lab/twice/runtime/script/draw"
	"github.com/twice-lab/twice/runtime/script/lang"
	"github.com/twice-lab/twice/runtime/script/result"
	"github.com/twice-lab/twice/runtime/script/views"
	"github.com/twice-lab/twice/runtime/sim"
)

// The timing model: every duration a simulated process spends is drawn from
// the seeded source, uniformly between these bounds (µs). They stand for a
// small Node.js worker on one machine talking to SQLite and to a loopback
// HTTP service. See RATIONALE.md for how they were chosen.
const (
	// A worker process starting up before its first statement.
	startMin, startMax = 35 * sim.Millisecond, 75 * sim.Millisecond
	// One SQL statement on an in-memory database.
	stmtMin, stmtMax sim.Time = 30, 120
	// Reading the clock.
	clockMin, clockMax sim.Time = 2, 10
	// Appending one line to worker.log.
	logMin, logMax sim.Time = 10, 40
	// A race releases its workers this long after starting them...
	raceGate = 400 * sim.Millisecond
	// ...and each one's timer fires up to this much late.
	skewMax sim.Time = 80
)

// RaceOrder is the order id every race enqueues.
const RaceOrder = "order-77"

// Run parses and runs src. It always returns a Result; when the script
// fails, Result.Error says why and Result.ExitCode is 1 or 2, and the
// transcript holds what ran before the failure.
func Run(src string, opts Options) (res *result.Result) {
	res = &result.Result{Seed: opts.Seed}
	defer res.EmptyNotNull()
	s, err := lang.Parse(src)
	if err != nil {
		res.SetError(err)
		return res
	}
	if !opts.noViews {
		res.Views = views.Of(s)
	}
	in, err := newInterp(opts.Seed, opts.Budget, res)
	if err != nil {
		res.SetError(&lang.Error{Kind: "runtime", Msg: err.Error()})
		return res
	}
	in.progress = opts.Progress
	in.m.views = viewsBytes(res.Views)
	defer in.close()
	defer func() {
		// A bug must not show a reader a Go stack: report it as an error.
		if r := recover(); r != nil {
			res.SetError(&lang.Error{Kind: "runtime", Msg: fmt.Sprintf("internal error: %v (please report this script)", r)})
		}
	}()
	ok := true
	var last lang.Command // the last command run: where the final wait's error is placed
	for i, c := range s.Commands {
		if c.Op == lang.OpAnd && !ok {
			continue
		}
		last = c
		if i == 0 {
			// The views alone may pass the budget: then nothing runs.
			err = in.m.check()
		}
		if err == nil {
			ok, err = in.exec(c)
		}
		if err == nil {
			// The shell's own work (printing, adding, listing) is metered
			// between commands; the workers' at every step.
			err = in.m.check()
		}
		if err != nil {
			res.SetError(in.errorAt(c, err))
			break
		}
	}
	if err == nil {
		// As a shell script's end would not, twice waits for the workers
		// still running in the background, so that their effects count.
		if err = in.wait(); err != nil {
			res.SetError(in.errorAt(last, err))
		}
	}
	in.k.Stop()
	in.finish()
	if cut := in.m.cut; cut != nil {
		res.Cut = cut
		res.Heavy = cut.Auto
	}
	res.Spent = in.m.spent()
	res.Outcome = views.Outcome(res)
	if opts.Timeline {
		res.Timeline = draw.Timeline(res)
		res.Chart = draw.LoadChart(res)
	}
	return res
}

// errorAt places a runtime error at command c, unless it already has a
// place (a background worker's error names its own command).
func (in *interp) errorAt(c lang.Command, err error) *lang.Error {
	var e *lang.Error
	if errors.As(err, &e) {
		return e
	}
	return &lang.Error{Kind: "runtime", Line: c.Pos.Line, Col: c.Pos.Col, Msg: err.Error()}
}

// interp holds the state of one run: the kernel, the database and its
// connections, the receipts service and worker.log.
type interp struct {
	seed  uint64
	k     *sim.Kernel
	db    *queue.DB
	shell *queue.Conn
	conns map[string]*queue.Conn
	svc   receipts.Service
	log   []string
	res   *result.Result
	m     *meter
	quiet bool // a race after the first prints nothing

	hist     *diagnosis.History // evidence: what every run did since the last reset
	running  map[string]bool    // workers whose process has not returned
	bgErr    *lang.Error        // the first runtime error of a background list
	keyHits  int                // ledger writes that found their key already processed
	shownLog bool               // the script printed worker.log since the last reset
	// eventsGiven: an add since the last reset named its event or
	// published it more than once, so the jobs table shows event ids.
	eventsGiven bool
	ledger      bool // a worker has written (or may write) the ledger

	events map[string]bool // event ids given to jobs since the last reset
	nextEv int             // the number of the last event id add made up

	progress func(done, of int, what string) // Options.Progress

	// live are the workers of running, by name (lifecycle.go).
	live map[string]*worker
	// redriveBase is each re-driven job's attempts at its last re-drive,
	// from which the retry limit counts (lifecycle.go).
	redriveBase map[int64]int
	// wBy's claim write is in progress until wUntil: a write with no busy
	// timeout meanwhile fails (with one, its wait is left out: RATIONALE.md).
	wBy    string
	wUntil sim.Time
}

// progressed tells Options.Progress that done of a command's of races or
// lease runs (what) are done.
func (in *interp) progressed(done, of int, what string) {
	if in.progress != nil {
		in.progress(done, of, what)
	}
}

// newEvent makes up the producer's event id for an add that gave none: a
// new one, ev-1, ev-2, ..., skipping any given by hand.
func (in *interp) newEvent() string {
	for {
		in.nextEv++
		ev := fmt.Sprintf("ev-%d", in.nextEv)
		if !in.events[ev] {
			in.events[ev] = true
			return ev
		}
	}
}

func newInterp(seed uint64, b Budget, res *result.Result) (*interp, error) {
	db, err := queue.Get()
	if err != nil {
		return nil, err
	}
	shell, err := db.Conn()
	if err != nil {
		db.Put()
		return nil, err
	}
	k := sim.New(seed)
	k.SetTracing(true)
	in := &interp{
		seed: seed, k: k, db: db, shell: shell, conns: map[string]*queue.Conn{}, res: res, m: newMeter(b, k, db),
		hist: diagnosis.NewHistory(), running: map[string]bool{},
		events: map[string]bool{},
	}
	shell.Wait = in.shellWait
	return in, nil
}

// shellWait is the shell's busy handling, the same as a worker's: a write
// of the script's own (add, reset, redeliver) that finds a background
// worker's transaction open waits a statement's time of virtual time,
// while the workers run, and tries again.
func (in *interp) shellWait() error {
	if !in.k.Pending() {
		// Nothing left to end the transaction: a wait would never end.
		return errors.New("the database is locked by a transaction that no running worker can end")
	}
	in.k.Record("shell", event.Wait, nil, "database is locked by a worker's transaction: the shell waits its turn")
	return in.runUntil(in.k.Now() + in.k.Between(stmtMin, stmtMax))
}

func (in *interp) close() {
	in.svc.Close()
	in.db.Put()
}

// conn returns the worker's own connection, opening it on first use.
func (in *interp) conn(worker string) (*queue.Conn, error) {
	if c, ok := in.conns[worker]; ok {
		return c, nil
	}
	c, err := in.db.Conn()
	if err != nil {
		return nil, err
	}
	in.conns[worker] = c
	return c, nil
}

// print adds a line to the transcript, unless the run is quiet or the
// line would pass the output budget (see meter.print).
func (in *interp) print(format string, args ...any) {
	if !in.quiet {
		line := fmt.Sprintf(format, args...)
		if in.m.print(line) {
			in.res.Transcript = append(in.res.Transcript, line)
		}
	}
}

// over reports whether the run has passed its budget: a command printing
// many lines stops printing.
func (in *interp) over() bool { return in.m.tooBig != nil }

// exec runs one command and reports whether it succeeded in the shell's
// sense (a killed worker did not). A non-nil error stops the script.
func (in *interp) exec(c lang.Command) (bool, error) {
	switch c.Kind {
	case lang.CmdReset:
		if err := in.reset(); err != nil {
			return false, err
		}
		in.k.Record("shell", event.Reset, nil, "reset")
		return true, nil
	case lang.CmdAdd:
		return true, in.add(c.Add)
	case lang.CmdService:
		s := c.Service
		in.k.Record("shell", event.Service, nil, "%s", c)
		return true, in.svc.SetDedupe(s.Dedupe, s.KeyTTL)
	case lang.CmdUse:
		// The parser has given its flags to every later work and race.
		return true, nil
	case lang.CmdRedeliver:
		return true, in.redeliver(c.Job)
	case lang.CmdLapse:
		return true, in.lapse(c.Job)
	case lang.CmdSleep:
		in.k.Record("shell", event.Sleep, nil, "sleep %s", lang.FormatSeconds(c.Sleep))
		return true, in.runUntil(in.k.Now() + c.Sleep)
	case lang.CmdWait:
		in.k.Record("shell", event.Wait, nil, "wait")
		return true, in.wait()
	case lang.CmdDeploy:
		return true, in.deploy(c.Deploy)
	case lang.CmdBackground:
		// As in a shell, the list starts now: it runs until its first
		// wait before the script goes on.
		in.background(c)
		return true, in.runUntil(in.k.Now())
	case lang.CmdPrintLog:
		in.shownLog = true
		for _, l := range in.log {
			in.print("%s", l)
		}
		return true, nil
	case lang.CmdJobs:
		return true, in.printJobs()
	case lang.CmdEffects:
		return true, in.printEffects()
	case lang.CmdLedger:
		return true, in.printLedger()
	case lang.CmdMatrix:
		seed := c.MatrixSeed
		if seed == 0 {
			seed = in.seed
		}
		return true, in.matrix(seed)
	case lang.CmdWork:
		w := &worker{in: in, args: c.Work}
		if err := in.spawn(w, in.k.Now()); err != nil {
			return false, err
		}
		if err := in.kernelErr(in.k.RunUntilDone(w.proc)); err != nil {
			return false, err
		}
		return w.ok, w.err
	case lang.CmdRace:
		if c.Race.All {
			return true, in.explore(c.Race)
		}
		if c.Race.Schedule != nil {
			return true, in.schedule(c)
		}
		if err := in.quiet0("race"); err != nil {
			return false, err
		}
		return true, in.race(c.Race)
	case lang.CmdLoad:
		if err := in.quiet0("load"); err != nil {
			return false, err
		}
		return true, in.load(c.Load)
	}
	return false, fmt.Errorf("command %v not implemented", c.Kind)
}

// add enqueues a.Times jobs for a.Order, all carrying one event id: the
// one given, or a new one.
func (in *interp) add(a lang.AddArgs) error {
	ev := a.Event
	if ev == "" {
		ev = in.newEvent()
	}
	in.eventsGiven = in.eventsGiven || a.Event != "" || a.Times > 1
	in.events[ev] = true
	for range a.Times {
		if in.over() {
			break
		}
		id, err := in.shell.Add(a.Order, ev)
		if err != nil {
			return err
		}
		in.k.Record("shell", event.Add, in.observe(id), "add %s (event %s): job %d", a.Order, ev, id)
	}
	return nil
}

// printJobs prints the jobs table.
func (in *interp) printJobs() error {
	rows, err := in.shell.List()
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		in.print("no jobs")
	}
	// The event id is shown when it tells something: an add named it
	// or published it twice, or an order has jobs of several events.
	// Otherwise every job is its own event and the line keeps the
	// article's shape.
	showEvent := in.eventsGiven
	first := map[string]string{}
	for _, r := range rows {
		if e, ok := first[r.Order]; ok && e != r.Event {
			showEvent = true
		}
		first[r.Order] = r.Event
	}
	for _, r := range rows {
		if in.over() {
			break
		}
		run := r.Run
		if run == "" {
			run = "-"
		}
		if showEvent {
			in.print("job %d %s event=%s status=%s attempts=%d run=%s", r.ID, r.Order, r.Event, r.Status, r.Attempts, run)
		} else {
			in.print("job %d %s status=%s attempts=%d run=%s", r.ID, r.Order, r.Status, r.Attempts, run)
		}
	}
	// The locks table, which only a lock claim writes, is its own
	// table: shown after the jobs when it has a row.
	locks, err := in.shell.Locks()
	if err != nil {
		return err
	}
	for _, l := range locks {
		in.print("lock job %d owner=%s until=%s", l.Job, l.Owner, diagnosis.FormatGap(sim.Time(l.Until)))
	}
	return nil
}

// printEffects prints each order's effects with their diagnosis.
func (in *interp) printEffects() error {
	sums, err := in.summarize()
	if err != nil {
		return err
	}
	if len(sums) == 0 {
		n := 0
		if in.ledger {
			if n, err = in.shell.LedgerLen(); err != nil {
				return err
			}
		}
		if n > 0 {
			in.print("no receipts recorded; the effects are %d ledger row(s) (see ledger)", n)
		} else {
			in.print("no effects recorded")
		}
	}
	for _, s := range sums {
		if in.over() {
			break
		}
		if s.Refused+s.Replayed == 0 {
			// The article's shape.
			in.print("%s: %d effect(s) from %d run(s) over %s [%s]", s.Order, s.Effects, s.Runs, s.Span, strings.Join(s.Tags, ", "))
		} else if s.Effects > 1 {
			in.print("%s: %s, from %d run(s), effects over %s [%s]", s.Order, s.Count, s.Runs, s.Span, strings.Join(s.Tags, ", "))
		} else {
			in.print("%s: %s, from %d run(s) [%s]", s.Order, s.Count, s.Runs, strings.Join(s.Tags, ", "))
		}
		if s.Kind != diagnosis.Once {
			in.print("  diagnosis: %s", s.Diagnosis)
		}
	}
	return nil
}

// lapse lets virtual time pass, background workers running, until job
// can be claimed again: its lease has passed, and so has its lock row's
// until, when its claim took one. A lease that a live worker's heartbeat
// renews meanwhile is waited out again, each time one poll of the budget;
// a job that is not running, or ends meanwhile, ends the wait.
func (in *interp) lapse(job int64) error {
	start := in.k.Now()
	for {
		row, err := in.shell.Read(job)
		if errors.Is(err, queue.ErrNoJob) {
			return fmt.Errorf("lapse: job %d does not exist", job)
		}
		if err != nil {
			return err
		}
		if row.Status != "running" || row.Lease == nil {
			break
		}
		due := *row.Lease
		locks, err := in.shell.Locks()
		if err != nil {
			return err
		}
		for _, l := range locks {
			if l.Job == job {
				due = max(due, l.Until)
			}
		}
		// Both conditions are strict (lease < now): one microsecond past.
		if due+1 <= in.k.Now() {
			break
		}
		in.m.poll()
		if err := in.runUntil(due + 1); err != nil {
			return err
		}
	}
	in.k.Record("shell", event.Sleep, nil, "lapse job %d: %s until it may be claimed again", job, lang.FormatSeconds(in.k.Now()-start))
	return nil
}

// redeliver puts job back to queued, as a re-drive by hand does.
func (in *interp) redeliver(job int64) error {
	before, err := in.shell.Read(job)
	if err == nil {
		err = in.shell.Requeue(job)
	}
	if err != nil {
		if errors.Is(err, queue.ErrNoJob) {
			return fmt.Errorf("redeliver: job %d does not exist", job)
		}
		return err
	}
	in.hist.Redriven(job)
	in.noteRedrive(job)
	in.k.Record("shell", event.Redeliver, in.observe(job), "redeliver job %d: back to queued", job)
	if before.Status != "dead" {
		in.print("redeliver: job %d was not in the dead-letter queue (status=%s): a manual replay, not a re-drive", job, before.Status)
	}
	return nil
}

func (in *interp) runKernel() error { return in.kernelErr(in.k.Run()) }

// kernelErr turns what the kernel returned into the script's error: the
// step budget spent, or the first error of a background worker.
func (in *interp) kernelErr(err error) error {
	if err != nil {
		if errors.Is(err, sim.ErrBudget) {
			return in.m.stepsPassed()
		}
		return err
	}
	if in.bgErr != nil {
		return in.bgErr
	}
	return nil
}

// runUntil lets background workers run until instant t: a sleep.
func (in *interp) runUntil(t sim.Time) error { return in.kernelErr(in.k.RunUntil(t)) }

// wait lets every background worker run to its end.
func (in *interp) wait() error { return in.runKernel() }

// quiet0 refuses to start a command that empties the tables while
// background workers still run.
func (in *interp) quiet0(name string) error {
	if in.k.Pending() {
		return fmt.Errorf("%s empties the tables, but background workers are still running: put wait before it", name)
	}
	return nil
}

// background starts a list ended by '&' as a process of its own: it runs
// its sleeps and works in order, in virtual time, while the script goes
// on. A work in it is a worker process of its own that the list waits for.
func (in *interp) background(c lang.Command) {
	in.k.Record("shell", event.Background, nil, "start in the background: %s", c)
	in.k.Go("shell", in.k.Now(), func(p *sim.Proc) {
		ok := true
		for _, sub := range c.Body {
			if sub.Op == lang.OpAnd && !ok {
				continue
			}
			switch sub.Kind {
			case lang.CmdSleep:
				p.Sleep(sub.Sleep)
				ok = true
			case lang.CmdWork:
				w := &worker{in: in, args: sub.Work}
				err := in.spawn(w, p.Now())
				if err == nil {
					p.Join(w.proc)
					err = w.err
				}
				if err != nil {
					if in.bgErr == nil {
						in.bgErr = &lang.Error{Kind: "runtime", Line: sub.Pos.Line, Col: sub.Pos.Col, Msg: err.Error()}
					}
					return
				}
				ok = w.ok
			}
		}
	})
}

// observe reads job id through the shell's connection for the trace, when
// tracing is on. It is an observation, not part of the model: it takes no
// virtual time and draws nothing.
func (in *interp) observe(id int64) *result.Job {
	if !in.k.Tracing() {
		return nil
	}
	r, err := in.shell.Read(id)
	if err != nil {
		return nil
	}
	return &result.Job{ID: id, Order: r.Order, Event: r.Event, Status: r.Status, Attempts: r.Attempts, Run: r.Run, LeaseUS: r.Lease}
}

func (in *interp) reset() error {
	// The tables first: emptying them may wait for a worker's transaction
	// (see shellWait), and what the workers do meanwhile happened before
	// the reset, so it is forgotten with the rest.
	var err error
	if !in.ledger {
		err = in.shell.ResetJobs()
	} else {
		err = in.shell.Reset()
	}
	if err != nil {
		return err
	}
	in.svc.Reset()
	in.keyHits = 0
	in.log = in.log[:0]
	in.m.log = 0
	in.hist.Reset()
	clear(in.redriveBase)
	in.shownLog = false
	in.eventsGiven = false
	clear(in.events)
	in.nextEv = 0
	return in.svc.Err()
}

// spawn starts w as a process due at instant at.
func (in *interp) spawn(w *worker, at sim.Time) error {
	if in.running[w.args.Worker] {
		return fmt.Errorf("worker %s is still running in the background; give this work another --worker name", w.args.Worker)
	}
	conn, err := in.conn(w.args.Worker)
	if err != nil {
		return err
	}
	w.conn = conn
	in.ledger = in.ledger || w.args.Effect == lang.EffectLedger
	w.run = fmt.Sprintf("%08x", in.k.Uint32())
	in.running[w.args.Worker] = true
	w.proc = in.k.Go(w.args.Worker, at, w.body)
	in.track(w)
	return nil
}

// race runs n races: each empties the tables, enqueues one job and
// releases two workers at one instant.
func (in *interp) race(r lang.RaceArgs) error {
	dedupe, _ := in.svc.Dedupe()
	tally := result.RaceTally{Claim: r.Claim.String(), Workers: r.Workers, Races: r.N, Key: r.Key.String(), Dedupe: dedupe.String()}
	defer func() {
		in.quiet = false
		in.k.SetTracing(true)
	}()
	keyTxn := r.KeyTxn
	if keyTxn == "" {
		keyTxn = lang.KeyTxnSame
	}
	for i := range r.N {
		// The transcript prints the first race's worker lines; the trace
		// holds the last race, the one the tables end on, so that the
		// timeline, the tables and the diagnosis show one race.
		in.quiet = i > 0
		in.k.SetTracing(i == r.N-1)
		in.k.Record("shell", event.Reset, nil, "race %d of %d: reset", i+1, r.N)
		if err := in.reset(); err != nil {
			return err
		}
		ev := in.newEvent()
		id, err := in.shell.Add(RaceOrder, ev)
		if err != nil {
			return err
		}
		in.k.Record("shell", event.Add, in.observe(id), "race %d of %d: add %s (event %s): job %d", i+1, r.N, RaceOrder, ev, id)
		gate := in.k.Now() + raceGate
		var racers []*worker
		for n := range r.Workers {
			w := &worker{in: in, gate: gate, args: lang.WorkArgs{
				Job: id, Worker: fmt.Sprintf("W%d", n+1), Lease: lang.DefaultLease, Claim: r.Claim, Timeout: lang.DefaultTimeout, Key: r.Key,
				Effect: r.Effect, KeyTxn: keyTxn, Heartbeat: r.Heartbeat, Fence: r.Fence, Delay: r.Delay,
				Txn: r.Txn, BusyTimeout: r.BusyTimeout,
			}}
			if err := in.spawn(w, in.k.Now()); err != nil {
				return err
			}
			racers = append(racers, w)
		}
		if err := in.runKernel(); err != nil {
			return err
		}
		if slices.ContainsFunc(racers, func(w *worker) bool { return w.died }) {
			tally.Busy++
		}
		n, err := in.landed()
		if err != nil {
			return err
		}
		tally.Effects += n
		if n > 1 {
			tally.Duplicates++
		}
		in.progressed(i+1, r.N, "races")
	}
	in.res.Race = fmt.Sprintf("race %d of %d", r.N, r.N)
	in.quiet = false
	line := views.RaceTallyLine(r, dedupe, &tally)
	in.res.Races = append(in.res.Races, tally)
	in.print("%s", line)
	return nil
}

// explore checks every interleaving of one race (race --all). It runs on a
// database of its own and leaves the script's tables as they were.
func (in *interp) explore(r lang.RaceArgs) error {
	dedupe, _ := in.svc.Dedupe()
	rep, err := explore.ExploreRace(r.Claim, r.Workers, explore.Service{Dedupe: dedupe, Key: r.Key}, r.ExploreFlags())
	if err != nil {
		return err
	}
	x, lines := views.Exploration(r, dedupe, rep)
	in.res.Explorations = append(in.res.Explorations, x)
	in.k.Record("shell", event.Race, nil, "race %s --all --workers %d%s: %s of %s interleavings duplicate", r.Claim, r.Workers, views.FlagsLabel(r), x.Duplicating, x.Orderings)
	for _, l := range lines {
		in.print("%s", l)
	}
	return nil
}

// landed counts the effects that landed since the last reset: receipts
// the service recorded and did not refuse, and committed ledger rows.
func (in *interp) landed() (int, error) {
	if !in.ledger {
		return in.svc.Landed(), nil
	}
	n, err := in.shell.LedgerLen()
	return n + in.svc.Landed(), err
}

// printLedger prints the ledger and processed_keys tables, and flags a key
// that has no ledger row: work claimed and never done.
func (in *interp) printLedger() error {
	rows, err := in.shell.Ledger()
	if err != nil {
		return err
	}
	keys, err := in.shell.Keys()
	if err != nil {
		return err
	}
	in.print("ledger: %d row(s), %d key(s), %d duplicate-key hit(s)", len(rows), len(keys), in.keyHits)
	done := map[string]bool{}
	for _, r := range rows {
		done[r.Key] = true
		in.print("  row %d %s key=%s job=%d run=%s attempt=%d", r.ID, r.Order, r.Key, r.Job, r.Run, r.Attempt)
	}
	for _, k := range keys {
		if done[k.Key] {
			in.print("  key %s run=%s", k.Key, k.Run)
		} else {
			in.print("  key %s run=%s: no ledger row (the work was claimed and never done: lost)", k.Key, k.Run)
		}
	}
	return nil
}

// finish copies the final state into the Result.
func (in *interp) finish() {
	res := in.res
	res.Log = append([]string{}, in.log...)
	if rows, err := in.shell.Ledger(); err == nil {
		for _, r := range rows {
			res.Ledger = append(res.Ledger, result.LedgerRow{ID: r.ID, Key: r.Key, Order: r.Order, Job: r.Job, Run: r.Run, Attempt: r.Attempt})
		}
	}
	if keys, err := in.shell.Keys(); err == nil {
		for _, k := range keys {
			res.Keys = append(res.Keys, result.KeyRow{Key: k.Key, Run: k.Run})
		}
	}
	if locks, err := in.shell.Locks(); err == nil {
		for _, l := range locks {
			res.Locks = append(res.Locks, result.LockRow{Job: l.Job, Owner: l.Owner, UntilUS: l.Until})
		}
	}
	res.KeyHits = in.keyHits
	for _, e := range in.svc.Effects() {
		res.Effects = append(res.Effects, effectOf(e))
	}
	if rows, err := in.shell.List(); err == nil {
		for _, r := range rows {
			res.Jobs = append(res.Jobs, result.Job{ID: r.ID, Order: r.Order, Event: r.Event, Status: r.Status, Attempts: r.Attempts, Run: r.Run, LeaseUS: r.Lease})
		}
	}
	res.Summary, _ = in.summarize()
	runOf := map[string]string{} // a worker's current run, for steps taken inside packages that do not know it
	for _, e := range in.k.Trace() {
		ev := result.Event{AtUS: e.At, Proc: e.Proc, Kind: e.Kind, Step: e.Step, Run: runOf[e.Proc]}
		switch d := e.Data.(type) {
		case *result.Job:
			ev.Job = d
		case workerData:
			ev.Run, ev.Job, ev.Effect = d.run, d.job, d.effect
			runOf[e.Proc] = d.run
		case receipts.Effect:
			ev.Run = d.Run
			f := effectOf(d)
			ev.Effect = &f
		}
		res.Trace = append(res.Trace, ev)
	}
}

// summarize diagnoses every order from the evidence of the run so far.
func (in *interp) summarize() ([]diagnosis.Summary, error) {
	rows, err := in.shell.List()
	if err != nil {
		return nil, err
	}
	attempts := map[int64]int{}
	jobs := make([]diagnosis.JobOf, 0, len(rows))
	for _, r := range rows {
		attempts[r.ID] = r.Attempts
		jobs = append(jobs, diagnosis.JobOf{ID: r.ID, Order: r.Order, Event: r.Event})
	}
	return diagnosis.Summarize(diagnosis.Evidence{
		Effects: in.svc.Effects(), Attempts: attempts, History: in.hist,
		Log: in.log, ShownLog: in.shownLog, Jobs: jobs,
	}), nil
}

// effectOf converts the service's record of a request.
func effectOf(e receipts.Effect) result.Effect {
	return result.Effect{
		Order: e.Order, Job: e.Job, Run: e.Run, Attempt: e.Attempt, Send: e.Send,
		Worker: e.Worker, AtUS: e.At, Token: e.Token, Refused: e.Refused,
		Event: e.Event, Key: e.Key, Replayed: e.Replayed, FirstRun: e.FirstRun, KeyState: e.KeyState,
	}
}
