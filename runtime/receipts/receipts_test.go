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
