package interp

import (
	"fmt"
	"testing"

	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/script/draw"
)

// The pair of benchmarks below reads in one run as the cost of a simulated
// race and the cost of the bare SQL that race executes, so their ratio is
// the simulation's overhead:
//
//	go test ./runtime/script/interp -run '^$' -bench 'Race' -count 6 | tee bench.txt
//	benchstat bench.txt

const racesPerOp = 100

// BenchmarkRace runs racesPerOp simulated races per op: kernel, PRNG,
// coroutine switches, receipts, and the real SQL on two connections.
func BenchmarkRace(b *testing.B) {
	for _, claim := range []string{"read", "atomic"} {
		b.Run(claim, func(b *testing.B) {
			src := fmt.Sprintf("race %s %d", claim, racesPerOp)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				res := Run(src, Options{Seed: uint64(i)})
				if res.Error != nil {
					b.Fatal(res.Error)
				}
			}
			b.ReportMetric(float64(b.N*racesPerOp)/b.Elapsed().Seconds(), "races/s")
		})
	}
}

// BenchmarkRaceSQL runs the statements racesPerOp races execute, in a
// duplicating order for read (both reads before both writes), and nothing
// else: the floor under BenchmarkRace. It takes a database from the pool
// per op, as Run does.
func BenchmarkRaceSQL(b *testing.B) {
	for _, claim := range []string{"read", "atomic"} {
		b.Run(claim, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := bareRaces(claim, racesPerOp); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*racesPerOp)/b.Elapsed().Seconds(), "races/s")
		})
	}
}

func bareRaces(claim string, n int) error {
	db, err := queue.Get()
	if err != nil {
		return err
	}
	defer db.Put()
	shell, _ := db.Conn()
	w1, _ := db.Conn()
	w2, err := db.Conn()
	if err != nil {
		return err
	}
	const lease = 30_000_000
	for i := range n {
		now := int64(i) * 1_000_000
		if err := shell.Reset(); err != nil {
			return err
		}
		id, err := shell.Add(RaceOrder, "ev-1")
		if err != nil {
			return err
		}
		switch claim {
		case "read":
			r1, _ := w1.Read(id)
			r2, _ := w2.Read(id)
			if r1.Claimable(now) {
				w1.Take(id, "aaaaaaaa", now+lease)
			}
			if r2.Claimable(now) {
				w2.Take(id, "bbbbbbbb", now+lease)
			}
			w1.Read(id)
			w2.Read(id)
			w1.Ack(id)
			w2.Ack(id)
		default:
			ok1, _ := w1.ClaimAtomically(id, "aaaaaaaa", now, now+lease)
			ok2, _ := w2.ClaimAtomically(id, "bbbbbbbb", now, now+lease)
			if !ok2 {
				w2.Read(id) // the loser looks up why
			}
			if ok1 {
				w1.Read(id)
				w1.Ack(id)
			}
		}
	}
	return nil
}

// BenchmarkLoadDrag is what a drag of lesson 8's p95 slider costs natively:
// per op, the sweep's script run at the next p95 (each op another value,
// as a drag sends) and its chart drawn. "sweep" is the lesson's block, 200
// jobs under each of five leases; "one-lease" is a load of 200 jobs under
// one lease. Beside the wall time it reports the process's CPU time per
// op (cpu-ms/op), which a machine busy with other work does not inflate.
//
//	go test ./runtime/script/interp -run '^$' -bench 'LoadDrag' -count 6
func BenchmarkLoadDrag(b *testing.B) {
	for _, c := range []struct{ name, leases string }{{"sweep", "1,2,3,5,10"}, {"one-lease", "2"}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := cpuTime()
			for i := 0; b.Loop(); i++ {
				src := fmt.Sprintf("load 200 --processing lognormal:p50=800,p95=%d --lease %s --workers 2", 1000+100*(i%80), c.leases)
				res := Run(src, Options{Seed: DefaultSeed})
				if res.Error != nil || draw.LoadChart(res) == nil {
					b.Fatal(res.Error)
				}
			}
			b.ReportMetric((cpuTime()-cpu)*1000/float64(b.N), "cpu-ms/op")
		})
	}
}
