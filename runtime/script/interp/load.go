package interp

import (
	"fmt"
	"slices"

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

func (in *interp) loadOnce(l lang.LoadArgs, lease sim.Time) (result.LoadTally, error) {
	t := result.LoadTally{Jobs: l.Jobs, Workers: l.Workers, LeaseUS: lease, Processing: l.Processing.String()}
	if err := in.reset(); err != nil {
		return t, err
	}
	for i := range l.Jobs {
		if _, err := in.shell.Add(fmt.Sprintf(loadOrder, i+1), in.newEvent()); err != nil {
			return t, err
		}
	}
	var drawn []sim.Time
	var errs []error
	for n := range l.Workers {
		name := fmt.Sprintf("W%d", n+1)
		conn, err := in.conn(name)
		if err != nil {
			return t, err
		}
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
					errs = append(errs, err)
					return
				}
				p.Sleep(k.Between(stmtMin, stmtMax))
				if !ok {
					p.Sleep(lang.LoadPoll)
					continue
				}
				args := lang.WorkArgs{
					Job: id, Worker: name, Lease: lease, Claim: l.Claim, Timeout: lang.DefaultTimeout,
					Processing: sample(l.Processing, k), Heartbeat: l.Heartbeat,
				}
				if l.Stall > 0 && k.Between(1, stallOneIn) == 1 {
					args.Stall = l.Stall
				}
				w := &worker{in: in, args: args, conn: conn, run: fmt.Sprintf("%08x", k.Uint32())}
				w.execute(p)
				if w.err != nil {
					errs = append(errs, w.err)
					return
				}
				if w.rec != nil {
					drawn = append(drawn, args.Processing)
					// Measured from the claim to the end: its work, a
					// stall, the receipt's call and the ack.
					if p.Now()-w.claimedAt > lease {
						t.Overran++
					}
				}
			}
		})
	}
	if err := in.runKernel(); err != nil {
		return t, err
	}
	if len(errs) > 0 {
		return t, errs[0]
	}
	perOrder := map[string]int{}
	for _, e := range in.svc.Effects() {
		if !e.Refused {
			perOrder[e.Order]++
		}
	}
	for _, n := range perOrder {
		if n > 1 {
			t.Duplicates++
		}
	}
	slices.Sort(drawn)
	if len(drawn) > 0 {
		t.P50US = drawn[(len(drawn)-1)*50/100]
		t.P95US = drawn[(len(drawn)-1)*95/100]
	}
	return t, nil
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
