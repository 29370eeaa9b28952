package receipts

import (
	"testing"

	"github.com/twice-lab/twice/runtime/sim"
)

// A request that times out on the client was still recorded, on arrival,
// before the deadline: the witness counts what landed.
func TestRecordedOnArrivalEvenWhenClientTimesOut(t *testing.T) {
	k := sim.New(1)
	var s Service
	var got Outcome
	var returned sim.Time
	k.Go("W1", 0, func(p *sim.Proc) {
		got = s.Post(p, Request{Order: "o", Run: "r", Attempt: 1, Send: 1, Delay: 400 * sim.Millisecond, Timeout: 300 * sim.Millisecond})
		returned = p.Now()
	})
	k.Run()
	if got != TimedOut {
		t.Fatalf("outcome %v: a 400 ms answer beat a 300 ms timeout", got)
	}
	if returned != 300*sim.Millisecond {
		t.Errorf("client gave up at %d µs, want exactly 300000", returned)
	}
	e := s.Effects()
	if len(e) != 1 || e[0].At >= returned || e[0].At < DialMin+HopMin {
		t.Errorf("effects %+v", e)
	}
}

func TestAnsweredInTime(t *testing.T) {
	k := sim.New(2)
	var s Service
	var got Outcome
	k.Go("W1", 0, func(p *sim.Proc) {
		got = s.Post(p, Request{Order: "o", Run: "r", Attempt: 1, Send: 1, Timeout: 5 * sim.Second})
	})
	k.Run()
	if got != Answered || len(s.Effects()) != 1 {
		t.Fatalf("outcome=%v effects=%v", got, s.Effects())
	}
	if max := DialMax + 2*HopMax; k.Now() > max {
		t.Errorf("round trip took %d µs, more than %d", k.Now(), max)
	}
	s.Reset()
	if len(s.Effects()) != 0 {
		t.Error("Reset kept effects")
	}
}

// A fencing token lower than the highest seen for the order is refused on
// arrival: recorded as refused, not counted as an effect. Equal and higher
// tokens, and requests without a token, land.
func TestFencingTokenRefusesStaleWriter(t *testing.T) {
	k := sim.New(3)
	var s Service
	var got []Outcome
	send := func(order string, token int) {
		k.Go("W", k.Now(), func(p *sim.Proc) {
			got = append(got, s.Post(p, Request{Order: order, Run: "r", Attempt: token, Send: 1, Timeout: 5 * sim.Second, Token: token}))
		})
		if err := k.Run(); err != nil {
			t.Fatal(err)
		}
	}
	send("o", 2)
	send("o", 1) // stale
	send("o", 2) // a retry of the current holder
	send("p", 1) // another order has its own highest token
	send("o", 0) // no token: not fenced
	want := []Outcome{Answered, Refused, Answered, Answered, Answered}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("outcomes %v, want %v", got, want)
		}
	}
	if n := s.Landed(); n != 4 {
		t.Errorf("landed %d, want 4", n)
	}
	if e := s.Effects()[1]; !e.Refused || e.Token != 1 {
		t.Errorf("second request %+v, want refused with token 1", e)
	}
	if s.Highest("o") != 2 {
		t.Errorf("highest token for o = %d, want 2", s.Highest("o"))
	}
	s.Reset()
	if s.Highest("o") != 0 {
		t.Error("Reset kept the fencing tokens")
	}
}

// post runs one request per worker, all sent at instant 0, with key, and
// returns the service's record.
func postAll(t *testing.T, seed uint64, d Dedupe, ttl sim.Time, reqs ...timed) []Effect {
	t.Helper()
	k := sim.New(seed)
	var s Service
	defer s.Close()
	if err := s.SetDedupe(d, ttl); err != nil {
		t.Fatal(err)
	}
	for i, r := range reqs {
		r.Send, r.Timeout = 1, 5*sim.Second
		k.Go(r.Worker, sim.Time(i)*r.At, func(p *sim.Proc) { s.Post(p, r.Request) })
	}
	if err := k.Run(); err != nil {
		t.Fatal(err)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return s.Effects()
}

func landed(es []Effect) int {
	n := 0
	for _, e := range es {
		if e.Effect() {
			n++
		}
	}
	return n
}

// Check-then-act lets two concurrent requests with one key both through
// for some timings; claim-first never does, and a replay is recorded but
// is not an effect.
func TestCheckRacesClaimHolds(t *testing.T) {
	twice := 0
	for seed := uint64(1); seed <= 200; seed++ {
		reqs := []Request{
			{Order: "o", Run: "r1", Worker: "W1", Key: "ev-1", Event: "ev-1"},
			{Order: "o", Run: "r2", Worker: "W2", Key: "ev-1", Event: "ev-1"},
		}
		if landed(postAll(t, seed, DedupeCheck, 0, at(reqs, 0)...)) == 2 {
			twice++
		}
		es := postAll(t, seed, DedupeClaim, 0, at(reqs, 0)...)
		if landed(es) != 1 || len(es) != 2 {
			t.Fatalf("seed %d, claim: %d effects of %d requests: %+v", seed, landed(es), len(es), es)
		}
		for _, e := range es {
			if e.Replayed && (e.FirstRun == e.Run || e.FirstRun == "") {
				t.Errorf("seed %d: replay %+v names no other first run", seed, e)
			}
		}
	}
	if twice == 0 {
		t.Error("dedupe check never let two concurrent requests through in 200 seeds")
	}
	t.Logf("dedupe check: two effects in %d of 200 seeds", twice)
}

// A key older than the TTL is forgotten: the second request lands, and
// the record says its key had expired; within the TTL it is a replay.
func TestKeyTTL(t *testing.T) {
	for _, d := range []Dedupe{DedupeCheck, DedupeClaim} {
		reqs := []Request{
			{Order: "o", Run: "r1", Worker: "W1", Key: "ev-1"},
			{Order: "o", Run: "r2", Worker: "W2", Key: "ev-1"},
		}
		es := postAll(t, 1, d, sim.Second, at(reqs, 3*sim.Second)...)
		if landed(es) != 2 || es[1].KeyState != "expired" || es[0].KeyState != "new" {
			t.Errorf("%s, 3 s apart, TTL 1 s: %+v", d, es)
		}
		es = postAll(t, 1, d, 10*sim.Second, at(reqs, 3*sim.Second)...)
		if landed(es) != 1 || !es[1].Replayed || es[1].FirstRun != "r1" {
			t.Errorf("%s, 3 s apart, TTL 10 s: %+v", d, es)
		}
	}
}

// A request with no key, or with dedupe off, is always an effect.
func TestNoKeyNoDedupe(t *testing.T) {
	reqs := []Request{{Order: "o", Run: "r1", Worker: "W1"}, {Order: "o", Run: "r2", Worker: "W2"}}
	if n := landed(postAll(t, 1, DedupeClaim, 0, at(reqs, sim.Second)...)); n != 2 {
		t.Errorf("no key, dedupe claim: %d effects", n)
	}
	reqs[0].Key, reqs[1].Key = "k", "k"
	if n := landed(postAll(t, 1, DedupeOff, 0, at(reqs, sim.Second)...)); n != 2 {
		t.Errorf("one key, dedupe off: %d effects", n)
	}
}

type timed struct {
	Request
	At sim.Time // the gap between one request's start and the next's
}

func at(reqs []Request, gap sim.Time) []timed {
	out := make([]timed, len(reqs))
	for i, r := range reqs {
		out[i] = timed{r, gap}
	}
	return out
}
