// Package sim is a small discrete-event kernel: virtual time, a seeded
// random source, and processes that take turns.
//
// Time is an integer number of microseconds ([Time]); nothing here reads the
// wall clock, sleeps for real, or touches the global random source, so a run
// is a pure function of its seed and its inputs.
//
// A process is a Go function started with [Kernel.Go]. It runs until it
// takes an atomic step ([Proc.Step], [Proc.Sleep], [Proc.SleepUntil]), which
// records an [Event] and yields to the kernel. The kernel then resumes the
// process whose next instant is earliest. Exactly one process runs at a time:
// processes are coroutines (built on iter.Pull), not goroutines that race, so
// whatever a process does between two steps is atomic with respect to every
// other process. Two processes due at the same instant are ordered by a draw
// from the seeded source, made when each was scheduled.
//
// A typical use:
//
//	k := sim.New(seed)
//	k.Go("W1", k.Now(), func(p *sim.Proc) {
//		// ... do something at p.Now() ...
//		p.Step(k.Between(20, 80), event.Select, "SELECT status FROM jobs")
//	})
//	err := k.Run() // until every process has returned
//
// A run stops with [ErrBudget] when it takes more steps than the budget set
// by [Kernel.SetBudget], so no input can make a run loop for ever. A check
// set by [Kernel.SetCheck] runs before every step and can stop a run for
// any other reason (a caller's meter of work or output).
//
// [Kernel.Kill] ends one process from another, as SIGKILL does: it takes
// no further step, wherever it was waiting. A process can hold a kill off
// with [Proc.Shield] for a stretch that stands for work done elsewhere on
// its behalf (a request that has left), and dies when it lifts the shield.
package sim

import (
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"

	"github.com/twice-lab/twice/runtime/event"
)

// Time is a virtual instant or duration in microseconds.
type Time = int64

// Handy durations.
const (
	Microsecond Time = 1
	Millisecond Time = 1000
	Second      Time = 1000 * Millisecond
)

// ErrBudget is returned by Run when the step budget is spent.
var ErrBudget = errors.New("step budget exhausted")

// Event is one atomic step of one process, or a fact worth recording at
// an instant (a shell command, an arrival at a service).
type Event struct {
	At   Time
	Proc string
	// Kind classifies the event for whoever renders the trace; the kernel
	// attaches no meaning to it. The kinds are listed in package event,
	// not here, because the kernel, the receipts service and the script
	// all record events: see that package.
	Kind event.Kind
	// Step says what happened, in words.
	Step string
	// Data is an optional payload for the renderer (a row, an effect).
	Data any
}

// Kernel owns virtual time, the random source and the processes.
type Kernel struct {
	now    Time
	rng    *rand.Rand
	ready  []wake // pending wake-ups; small, so a slice beats a heap
	seq    uint64
	steps  int
	budget int
	parked int // processes waiting in Join

	check func() error

	tracing bool
	trace   []Event
	traced  int // about the bytes of the recorded events, written out
}

type wake struct {
	at  Time
	tie uint64
	seq uint64
	p   *Proc
}

func (a wake) before(b wake) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	if a.tie != b.tie {
		return a.tie < b.tie
	}
	return a.seq < b.seq
}

// New returns a kernel at time zero whose random source is seeded with seed.
func New(seed uint64) *Kernel {
	return &Kernel{
		rng:    rand.New(rand.NewPCG(seed, seed^0x7477696365)), // "twice"
		budget: 1_000_000,
	}
}

// Now returns the current virtual time.
func (k *Kernel) Now() Time { return k.now }

// SetBudget sets the total number of steps Run may take over the kernel's
// life before it fails with ErrBudget.
func (k *Kernel) SetBudget(n int) { k.budget = n }

// Between draws a duration uniformly from [lo, hi].
func (k *Kernel) Between(lo, hi Time) Time {
	if hi <= lo {
		return lo
	}
	return lo + k.rng.Int64N(hi-lo+1)
}

// Uint32 draws 32 random bits (run ids are made of these).
func (k *Kernel) Uint32() uint32 { return k.rng.Uint32() }

// Advance moves virtual time forward by d while no process runs, as a
// shell's sleep does between commands.
func (k *Kernel) Advance(d Time) {
	if len(k.ready) > 0 {
		panic("sim: Advance while processes are pending")
	}
	if d > 0 {
		k.now += d
	}
}

// SetCheck sets a function that runs before every step: when it returns an
// error, the kernel stops every process and Run (RunUntil, RunUntilDone)
// returns that error.
func (k *Kernel) SetCheck(check func() error) { k.check = check }

// Steps returns the steps taken so far.
func (k *Kernel) Steps() int { return k.steps }

// TraceBytes returns about how many bytes the events recorded so far take
// when written out: the words of each, its process name, and a fixed
// allowance for its instant, kind and payload. It grows as Record does,
// so a caller can bound what a trace costs to keep and to send.
func (k *Kernel) TraceBytes() int { return k.traced }

// Per-event allowances of TraceBytes: the instant, the kind and the field
// names of an event as JSON, and a row or effect carried with it.
const (
	eventBytes   = 64
	payloadBytes = 192
)

// SetTracing turns recording of events on or off.
func (k *Kernel) SetTracing(on bool) { k.tracing = on }

// Tracing reports whether events are being recorded.
func (k *Kernel) Tracing() bool { return k.tracing }

// Trace returns the events recorded so far.
func (k *Kernel) Trace() []Event { return k.trace }

// Record appends an event at the current instant on behalf of proc, when
// tracing is on. It is not a step: it does not yield. The words are only
// formatted when tracing is on.
func (k *Kernel) Record(proc string, kind event.Kind, data any, format string, args ...any) {
	if !k.tracing {
		return
	}
	step := format
	if len(args) > 0 {
		step = fmt.Sprintf(format, args...)
	}
	k.trace = append(k.trace, Event{At: k.now, Proc: proc, Kind: kind, Step: step, Data: data})
	k.traced += eventBytes + len(step) + len(proc)
	if data != nil {
		k.traced += payloadBytes
	}
}

// Proc is a simulated process.
type Proc struct {
	k     *Kernel
	name  string
	next  func() (struct{}, bool)
	stop  func()
	yield func(struct{}) bool
	done  bool

	joiners []*Proc // processes waiting in Join for this one to return

	// killed and shielded are Kill's (kill.go): a kill ends the process
	// at its next resume, unless a shield holds it off until Unshield.
	killed, shielded bool
}

// errStopped unwinds a process whose kernel gave up on it.
type stopped struct{}

// Go starts a process named name that first runs at instant at (or now, if
// at is in the past). body runs as a coroutine of the kernel.
func (k *Kernel) Go(name string, at Time, body func(p *Proc)) *Proc {
	p := &Proc{k: k, name: name}
	p.next, p.stop = iter.Pull(func(yield func(struct{}) bool) {
		p.yield = yield
		if p.killed {
			return // killed before it first ran
		}
		if growsStack {
			growStack()
		}
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(stopped); !ok {
					panic(r)
				}
			}
		}()
		body(p)
	})
	k.schedule(p, max(at, k.now))
	return p
}

func (k *Kernel) schedule(p *Proc, at Time) {
	k.seq++
	k.ready = append(k.ready, wake{at: at, tie: k.rng.Uint64(), seq: k.seq, p: p})
}

// Run resumes processes in order of their next instant until none is left.
// It returns ErrBudget, after stopping every process, when the step budget
// runs out.
func (k *Kernel) Run() error {
	for len(k.ready) > 0 {
		if err := k.step(); err != nil {
			return err
		}
	}
	return nil
}

// RunUntil resumes processes due at or before instant t, in order, and then
// moves the clock to t: a shell's sleep while background processes run.
// Processes due later stay pending.
func (k *Kernel) RunUntil(t Time) error {
	for len(k.ready) > 0 {
		if k.ready[k.earliest()].at > t {
			break
		}
		if err := k.step(); err != nil {
			return err
		}
	}
	k.now = max(k.now, t)
	return nil
}

// RunUntilDone resumes processes, in order, until p has returned; other
// processes stay pending where they are. A foreground command waits this
// way while background processes go on around it.
func (k *Kernel) RunUntilDone(p *Proc) error {
	for !p.done {
		if len(k.ready) == 0 {
			return errors.New("sim: waiting for a process that can never run")
		}
		if err := k.step(); err != nil {
			return err
		}
	}
	return nil
}

// Pending reports whether any process has not returned yet.
func (k *Kernel) Pending() bool { return len(k.ready) > 0 || k.parked > 0 }

// Stop ends every pending process without running it further.
func (k *Kernel) Stop() {
	for _, r := range k.ready {
		k.stopProc(r.p)
	}
	k.ready = k.ready[:0]
}

// stopProc ends p and every process waiting for it to return.
func (k *Kernel) stopProc(p *Proc) {
	p.stop()
	for _, q := range p.joiners {
		k.parked--
		k.stopProc(q)
	}
	p.joiners = nil
}

// earliest returns the index of the next wake-up.
func (k *Kernel) earliest() int {
	i := 0
	for j := 1; j < len(k.ready); j++ {
		if k.ready[j].before(k.ready[i]) {
			i = j
		}
	}
	return i
}

// step resumes the process due first.
func (k *Kernel) step() error {
	i := k.earliest()
	w := k.ready[i]
	last := len(k.ready) - 1
	k.ready[i] = k.ready[last]
	k.ready = k.ready[:last]

	k.steps++
	var err error
	if k.steps > k.budget {
		err = ErrBudget
	} else if k.check != nil {
		err = k.check()
	}
	if err != nil {
		k.stopProc(w.p)
		k.Stop()
		return err
	}
	k.now = w.at
	if _, ok := w.p.next(); !ok {
		w.p.done = true
		for _, q := range w.p.joiners {
			k.parked--
			k.schedule(q, k.now)
		}
		w.p.joiners = nil
	}
	return nil
}

// Done reports whether the process has returned.
func (p *Proc) Done() bool { return p.done }

// Join yields until q has returned (at once if it already has). It takes
// no virtual time of its own.
func (p *Proc) Join(q *Proc) {
	if q.done {
		return
	}
	q.joiners = append(q.joiners, p)
	p.k.parked++
	if !p.yield(struct{}{}) || p.killed && !p.shielded {
		panic(stopped{})
	}
}

// Name returns the process's name.
func (p *Proc) Name() string { return p.name }

// Now returns the current virtual time without taking a step. Use
// ReadClock for a clock read that other processes can interleave with.
func (p *Proc) Now() Time { return p.k.now }

// Kernel returns the process's kernel.
func (p *Proc) Kernel() *Kernel { return p.k }

// Step records one atomic step of the given kind that has just happened at
// the current instant, then yields until cost microseconds have passed.
func (p *Proc) Step(cost Time, kind event.Kind, format string, args ...any) {
	p.k.Record(p.name, kind, nil, format, args...)
	p.SleepUntil(p.k.now + cost)
}

// ReadClock is the atomic step of reading the clock: it returns the current
// instant and yields for cost.
func (p *Proc) ReadClock(cost Time) Time {
	t := p.k.now
	p.Step(cost, event.Clock, "read clock")
	return t
}

// Sleep yields until d microseconds have passed.
func (p *Proc) Sleep(d Time) { p.SleepUntil(p.k.now + d) }

// SleepUntil yields until instant t (at once, if t has passed, though other
// processes due now may run first).
func (p *Proc) SleepUntil(t Time) {
	p.k.schedule(p, max(t, p.k.now))
	if !p.yield(struct{}{}) || p.killed && !p.shielded {
		panic(stopped{})
	}
}

// stackSink keeps growStack's array from being optimized away.
var stackSink byte

// growStack grows the calling goroutine's stack once, to more than
// stackReserve bytes, while the stack is still nearly empty.
//
// A process is a fresh coroutine with a small stack, and its first SQL
// statement calls deep into SQLite's translated code: growing the stack
// once, up front, spares the runtime doubling and copying it again and
// again (docs/PERFORMANCE.md has the measurements).
//
//go:noinline
func growStack() {
	var buf [stackReserve]byte
	buf[int(stackSink)%len(buf)] = 1
	stackSink = buf[len(buf)-1]
}

const stackReserve = 32 << 10
