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
	var ok bool
	var returned sim.Time
	k.Go("W1", 0, func(p *sim.Proc) {
		ok = s.Post(p, Request{Order: "o", Run: "r", Attempt: 1, Send: 1, Delay: 400 * sim.Millisecond, Timeout: 300 * sim.Millisecond})
		returned = p.Now()
	})
	k.Run()
	if ok {
		t.Fatal("a 400 ms answer beat a 300 ms timeout")
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
	var ok bool
	k.Go("W1", 0, func(p *sim.Proc) {
		ok = s.Post(p, Request{Order: "o", Run: "r", Attempt: 1, Send: 1, Timeout: 5 * sim.Second})
	})
	k.Run()
	if !ok || len(s.Effects()) != 1 {
		t.Fatalf("ok=%v effects=%v", ok, s.Effects())
	}
	if max := DialMax + 2*HopMax; k.Now() > max {
		t.Errorf("round trip took %d µs, more than %d", k.Now(), max)
	}
	s.Reset()
	if len(s.Effects()) != 0 {
		t.Error("Reset kept effects")
	}
}
