package interp

import (
	"fmt"
	"slices"

	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/script/diagnosis"
	"github.com/twice-lab/twice/runtime/script/lang"
	"github.com/twice-lab/twice/runtime/script/result"
	"github.com/twice-lab/twice/runtime/sim"
)

// The order ids load enqueues: load-1, load-2, ...
const loadOrder = "load-%d"

// stallOneIn is how rare a stall is under load --stall: one execution in
// this many freezes, drawn from the seed.
const stallOneIn = 20

// load runs l once for each of its lease lengths: it empties the tables,
// enqueues l.Jobs jobs, and lets l.Workers consumers work them until every
// job is done. A consumer polls for the lowest claimable job (queued, or
// its lease passed), claims it, and executes it as work does, each
// execution with a run id of its own and a processing time drawn from
// l.Processing. It prints the measured processing percentiles once, then
// a tally per lease: how many jobs had two or more effects, and how many
// executions took longer than the lease, from their claim to their end
// (a job with two effects has one at least: the one whose lease ran out).
func (in *interp) load(l lang.LoadArgs) error {
	tracing := in.k.Tracing()
	in.quiet = true
	in.k.SetTracing(false)
	defer func() {
		in.quiet = false
		in.k.SetTracing(tracing)
	}()
	// Polling reads indexes made for the load's while, so that the writes
	// of every other command do not pay for them.
	if err := in.shell.IndexForPolls(); err != nil {
		return err
	}
	defer in.shell.DropPollIndexes()
	var tallies []result.LoadTally
	for i, lease := range l.Leases {
		t, err := in.loadOnce(l, lease)
		if err != nil {
			return err
		}
		if err := in.loadDetail(&t); err != nil {
			return err
		}
		tallies = append(tallies, t)
		in.progressed(i+1, len(l.Leases), "lease runs")
	}
	in.quiet = false
	in.res.Loads = append(in.res.Loads, tallies...)
	first := tallies[0]
	in.print("load: %d jobs, %d workers, processing %s: drawn p50 %s, p95 %s", l.Jobs, l.Workers, l.Processing, diagnosis.FormatGap(first.P50US), diagnosis.FormatGap(first.P95US))
	for _, t := range tallies {
		in.print("lease=%ss: two effects in %d of %d jobs (%d execution(s) took longer than the lease)", lang.FormatSeconds(t.LeaseUS), t.Duplicates, t.Jobs, t.Overran)
	}
	return nil
}

// loadOnce runs the load under one lease length on emptied tables and
// tallies it.
func (in *interp) loadOnce(l lang.LoadArgs, lease sim.Time) (result.LoadTally, error) {
	t := result.LoadTally{Jobs: l.Jobs, Workers: l.Workers, LeaseUS: lease, Processing: l.Processing.String()}
	if err := in.reset(); err != nil {
		return t, err
	}
	if err := in.enqueueLoad(l.Jobs); err != nil {
		return t, err
	}
	c := &loadConsumers{in: in, l: l, lease: lease}
	for n := range l.Workers {
		if err := c.start(fmt.Sprintf("W%d", n+1)); err != nil {
			return t, err
		}
	}
	if err := in.runKernel(); err != nil {
		return t, err
	}
	if len(c.errs) > 0 {
		return t, c.errs[0]
	}
	t.Overran = c.overran
	t.Duplicates = in.duplicatedOrders()
	slices.Sort(c.drawn)
	if len(c.drawn) > 0 {
		t.P50US = c.drawn[(len(c.drawn)-1)*50/100]
		t.P95US = c.drawn[(len(c.drawn)-1)*95/100]
	}
	return t, nil
}

// enqueueLoad adds the load's jobs, load-1 to load-n.
func (in *interp) enqueueLoad(n int) error {
	for i := range n {
		if _, err := in.shell.Add(fmt.Sprintf(loadOrder, i+1), in.newEvent()); err != nil {
			return err
		}
	}
	return nil
}

// duplicatedOrders counts the orders with two or more effects that were
// not refused.
func (in *interp) duplicatedOrders() int {
	perOrder := map[string]int{}
	for _, e := range in.svc.Effects() {
		if !e.Refused {
			perOrder[e.Order]++
		}
	}
	n := 0
	for _, c := range perOrder {
		if c > 1 {
			n++
		}
	}
	return n
}

// loadConsumers are the workers of one lease run and what they measure:
// the processing times drawn for executions that reached a receipt, how
// many executions outlived the lease, and the first errors.
type loadConsumers struct {
	in      *interp
	l       lang.LoadArgs
	lease   sim.Time
	drawn   []sim.Time
	overran int
	errs    []error
}

// start spawns one consumer: it polls for the lowest claimable job and
// executes it, until no job is left unfinished.
func (c *loadConsumers) start(name string) error {
	conn, err := c.in.conn(name)
	if err != nil {
		return err
	}
	in := c.in
	in.k.Go(name, in.k.Now(), func(p *sim.Proc) {
		k := p.Kernel()
		p.Sleep(k.Between(startMin, startMax))
		for {
			now := p.ReadClock(k.Between(clockMin, clockMax))
			in.m.poll()
			id, ok, err := conn.Next(now)
			if err == nil && !ok {
				var left int
				if left, err = conn.Unfinished(); err == nil && left == 0 {
					return
				}
			}
			if err != nil {
				c.errs = append(c.errs, err)
				return
			}
			p.Sleep(k.Between(stmtMin, stmtMax))
			if !ok {
				p.Sleep(lang.LoadPoll)
				continue
			}
			if !c.execute(p, conn, name, id) {
				return
			}
		}
	})
	return nil
}

// execute runs one claimed job as work does, with a run id of its own and
// a processing time drawn from the load's distribution; it reports false
// when the worker must stop on an error.
func (c *loadConsumers) execute(p *sim.Proc, conn *queue.Conn, name string, id int64) bool {
	k := p.Kernel()
	args := lang.WorkArgs{
		Job: id, Worker: name, Lease: c.lease, Claim: c.l.Claim, Timeout: lang.DefaultTimeout,
		Processing: sample(c.l.Processing, k), Heartbeat: c.l.Heartbeat, BusyTimeout: lang.DefaultBusyTimeout,
	}
	if c.l.Stall > 0 && k.Between(1, stallOneIn) == 1 {
		args.Stall = c.l.Stall
	}
	w := &worker{in: c.in, args: args, conn: conn, run: fmt.Sprintf("%08x", k.Uint32())}
	w.execute(p)
	if w.err != nil {
		c.errs = append(c.errs, w.err)
		return false
	}
	if w.rec != nil {
		c.drawn = append(c.drawn, args.Processing)
		// Measured from the claim to the end: its work, a stall, the
		// receipt's call and the ack.
		if p.Now()-w.claimedAt > c.lease {
			c.overran++
		}
	}
	return true
}

// maxLoadDetail is how many jobs of one lease run a LoadTally details:
// the page lists them and counts the rest.
const maxLoadDetail = 30

// loadDetail fills in what the tables held at the end of one lease run,
// before the next run empties them: the jobs that did not simply run
// once (a duplicate, a redelivery, a refused receipt), their effects and
// their diagnosis, at most maxLoadDetail of them, duplicates first, how
// many ran once, and how many jobs each diagnosis names.
func (in *interp) loadDetail(t *result.LoadTally) error {
	sums, err := in.summarize()
	if err != nil {
		return err
	}
	var bad, other []diagnosis.Summary
	at := map[diagnosis.Kind]int{}
	for _, s := range sums {
		if i, ok := at[s.Kind]; ok {
			t.KindCounts[i].N++
		} else {
			at[s.Kind] = len(t.KindCounts)
			t.KindCounts = append(t.KindCounts, result.KindCount{Kind: s.Kind, N: 1})
		}
		switch {
		case s.Kind == diagnosis.Once:
			t.RanOnce++
		case !s.Kind.Good():
			bad = append(bad, s)
		default:
			other = append(other, s)
		}
	}
	shown := append(append([]diagnosis.Summary{}, bad...), other...)
	if len(shown) > maxLoadDetail {
		t.More = len(shown) - maxLoadDetail
		shown = shown[:maxLoadDetail]
	}
	t.Summary = shown
	orders := map[string]bool{}
	for _, s := range shown {
		orders[s.Order] = true
	}
	t.Effects, t.JobRows = []result.Effect{}, []result.Job{}
	for _, e := range in.svc.Effects() {
		if orders[e.Order] {
			t.Effects = append(t.Effects, effectOf(e))
		}
	}
	rows, err := in.shell.List()
	if err != nil {
		return err
	}
	for _, r := range rows {
		if orders[r.Order] {
			t.JobRows = append(t.JobRows, result.Job{ID: r.ID, Order: r.Order, Event: r.Event, Status: r.Status, Attempts: r.Attempts, Run: r.Run, LeaseUS: r.Lease})
		}
	}
	return nil
}

// sample returns one processing time drawn from d, using the kernel's
// source, no longer than a processing time may be.
func sample(d lang.Dist, k *sim.Kernel) sim.Time {
	if d.Kind != "lognormal" {
		return d.P50
	}
	return k.Lognormal(d.P50, d.P95, lang.MaxMillis*sim.Millisecond)
}
