package script

import (
	"fmt"

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
// a tally per lease: how many jobs had two or more effects.
func (in *interp) load(l LoadArgs) error {
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
	var tallies []LoadTally
	for _, lease := range l.Leases {
		t, err := in.loadOnce(l, lease)
		if err != nil {
			return err
		}
		tallies = append(tallies, t)
	}
	in.quiet = false
	in.res.Loads = append(in.res.Loads, tallies...)
	first := tallies[0]
	in.print("load: %d jobs, %d workers, processing %s: drawn p50 %s, p95 %s", l.Jobs, l.Workers, l.Processing, fmtGap(first.P50US), fmtGap(first.P95US))
	for _, t := range tallies {
		in.print("lease=%ss: two effects in %d of %d jobs (%d execution(s) outlived the lease)", formatSeconds(t.LeaseUS), t.Duplicates, t.Jobs, t.Overran)
	}
	return nil
}

func (in *interp) loadOnce(l LoadArgs, lease sim.Time) (LoadTally, error) {
	t := LoadTally{Jobs: l.Jobs, Workers: l.Workers, LeaseUS: lease, Processing: l.Processing.String()}
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
					p.Sleep(loadPoll)
					continue
				}
				args := WorkArgs{
					Job: id, Worker: name, Lease: lease, Claim: l.Claim, Timeout: DefaultTimeout,
					Processing: l.Processing.draw(k), Heartbeat: l.Heartbeat,
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
					if args.Processing > lease {
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
	sortInsertion(drawn, func(a, b sim.Time) bool { return a < b })
	if len(drawn) > 0 {
		t.P50US = drawn[(len(drawn)-1)*50/100]
		t.P95US = drawn[(len(drawn)-1)*95/100]
	}
	return t, nil
}
