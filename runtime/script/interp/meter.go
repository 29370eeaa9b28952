package interp

import (
	"errors"
	"fmt"

	"github.com/twice-lab/twice/runtime/bytesize"
	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/script/lang"
	"github.com/twice-lab/twice/runtime/script/result"
	"github.com/twice-lab/twice/runtime/sim"
)

// Budget bounds what one run may spend, counted while it runs by one meter,
// the same natively, under wazero and in the browser: every count is of
// something the run did (a step, an instruction of SQLite's virtual
// machine, a poll, a byte), never of time.
//
// A zero field means that field of FullBudget, so the zero Budget is the
// full one: what every `twice run`, every lesson render and every press of
// Run gets. AutoBudget is the small one, for runs nobody asked for.
type Budget struct {
	// Steps bounds the atomic steps of the simulated processes, every
	// worker's and every race's together.
	Steps int
	// Work bounds the SQLite work on the queue's database: the
	// virtual-machine steps of every statement any connection ran.
	Work int64
	// Polls bounds the polls of load's consumers and the reclaims (claims
	// of a job some run had claimed before) of every worker.
	Polls int
	// Output bounds the bytes of output: the transcript's lines, worker.log
	// as it stands, the views' scripts and sentences (views.Of), and the
	// recorded trace, each event counted at about its size as JSON with
	// the row or effect it carries.
	Output int
	// Auto marks the budget of a run nobody asked for (a page load of a
	// share link or an embed): a Result that ran out of it says so with
	// Heavy.
	Auto bool
}

// FullBudget is the budget of a run someone asked for. It is sized so that
// every lesson block and every script of the tests spends at most a
// fraction of each field, and so that no script of at most MaxScriptBytes
// runs more than about 10 s natively or holds more than about 256 MB:
// docs/PERFORMANCE.md has the measurements.
var FullBudget = Budget{
	Steps:  lang.MaxSteps,
	Work:   30_000_000,
	Polls:  200_000,
	Output: 4 << 20,
}

// AutoBudget is the budget of a run nobody asked for: a page that runs a
// share link's or an embed's script as it loads. A script that passes it is
// heavy: the page shows it with a Run button instead of a partial result,
// and Run gives it FullBudget.
var AutoBudget = Budget{
	Steps:  100_000,
	Work:   2_000_000,
	Polls:  10_000,
	Output: 256 << 10,
	Auto:   true,
}

// orFull fills every zero field of b from FullBudget.
func (b Budget) orFull() Budget {
	f := FullBudget
	if b.Steps > 0 {
		f.Steps = b.Steps
	}
	if b.Work > 0 {
		f.Work = b.Work
	}
	if b.Polls > 0 {
		f.Polls = b.Polls
	}
	if b.Output > 0 {
		f.Output = b.Output
	}
	f.Auto = b.Auto
	return f
}

// meter counts one run's spending against its budget.
type meter struct {
	b      Budget
	k      *sim.Kernel
	db     *queue.DB
	out    int          // bytes of transcript lines
	log    int          // bytes of worker.log as it stands (a reset empties it)
	polls  int          // polls and reclaims
	views  int          // bytes of the Result's views (viewsBytes)
	extra  result.Spent // spent by the runs a matrix made on the run's behalf
	cut    *result.Cut
	tooBig error // the error of the first budget passed
}

func newMeter(b Budget, k *sim.Kernel, db *queue.DB) *meter {
	b = b.orFull()
	m := &meter{b: b, k: k, db: db}
	k.SetBudget(b.Steps)
	k.SetCheck(m.check)
	return m
}

// spent returns what the run has spent so far.
func (m *meter) spent() result.Spent {
	return result.Spent{
		Steps:  m.k.Steps() + m.extra.Steps,
		Work:   m.db.Work() + m.extra.Work,
		Polls:  m.polls + m.extra.Polls,
		Output: m.out + m.log + m.views + m.k.TraceBytes() + m.extra.Output,
	}
}

// check returns the error of the first budget the run has passed, or nil.
func (m *meter) check() error {
	if m.tooBig != nil {
		return m.tooBig
	}
	s := m.spent()
	switch {
	case s.Steps > m.b.Steps:
		m.stop(result.BudgetSteps, int64(m.b.Steps), fmt.Sprintf("the run took more than %d steps", m.b.Steps))
	case s.Work > m.b.Work:
		m.stop(result.BudgetWork, m.b.Work, fmt.Sprintf("SQLite work passed %d million instructions", m.b.Work/1_000_000))
	case s.Polls > m.b.Polls:
		m.stop(result.BudgetPolls, int64(m.b.Polls), fmt.Sprintf("polls and reclaims passed %d", m.b.Polls))
	case s.Output > m.b.Output:
		m.stop(result.BudgetOutput, int64(m.b.Output), "output passed "+bytesize.Words(m.b.Output))
	}
	return m.tooBig
}

// stop records that budget what ran out.
func (m *meter) stop(what string, limit int64, words string) {
	m.cut = &result.Cut{Budget: what, Limit: limit, Auto: m.b.Auto}
	if m.b.Auto {
		words += " (the small budget of a script run without a click: press Run to run it in full)"
	}
	m.tooBig = errors.New(words + "; stopped")
}

// stepsPassed is what the kernel returns when the step budget runs out:
// the meter's error for it.
func (m *meter) stepsPassed() error {
	if m.tooBig == nil {
		m.stop(result.BudgetSteps, int64(m.b.Steps), fmt.Sprintf("the run took more than %d steps", m.b.Steps))
	}
	return m.tooBig
}

// print charges one line of output and reports whether it fits; a line
// that does not is not kept, so the transcript stops where the budget did.
func (m *meter) print(line string) bool {
	if m.tooBig != nil {
		return false
	}
	m.out += len(line) + 1
	return m.check() == nil
}

// poll charges one poll or reclaim.
func (m *meter) poll() { m.polls++ }

// viewsBytes is about the size of v as JSON: its scripts and sentences,
// and a little for each of their fields' names.
func viewsBytes(v result.Views) int {
	const field = 16
	n := len(v.Explore.Note) + len(v.Explore.Script) + len(v.Explore.Refused) + 4*field
	for _, r := range v.Explore.ByWorkers {
		n += len(r.Script) + len(r.Refused) + 3*field
	}
	n += len(v.Compare.Claim) + field
	for _, c := range append(v.Compare.Sides, v.Compare.Toggle...) {
		n += len(c.Claim) + len(c.Script) + 2*field
	}
	n += len(v.Compare.Note) + len(v.Timeline.Note) + len(v.Scheduler.Note) + len(v.Scheduler.Script) + len(v.Scheduler.Refused) + 8*field
	for _, c := range v.Columns {
		n += len(c) + 2
	}
	for _, x := range v.Numbers {
		n += len(x.Name) + 3*field + 12*len(x.Spans)
	}
	return n
}
