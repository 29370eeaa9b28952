package diagnosis

import (
	"errors"

	"github.com/twice-lab/twice/runtime/named"
)

// Kind names what the evidence says one order's effects came
// from: one of the values in [Kinds], each with its name (the
// JSON's "kind" of a [Summary]), its title for a reader, and whether it is
// good (every event had its one effect: nothing duplicated, nothing
// swallowed). The diagnosis, the docs and the browser (the server passes
// [Choices] to the page in twice.js's config) read this list.
type Kind uint8

const (
	Once       Kind = iota // one effect from one delivery
	Redelivery             // delivered again, one effect
	RaceCaught             // claimed twice in one delivery, one effect: the run that lost stopped, was killed, or had not sent
	Fenced                 // a receipt with an older fencing token refused (a stale run's, or a claim race's loser's), one effect
	Deduped                // a request replayed on its key, one effect (whatever sent it again: a retry, a redelivery, a claim race)
	Swallowed              // one effect, but a different event was replayed on its key
	// Duplicates, each named from the evidence:
	ClientRetry  // one run sent twice
	ClaimRace    // a claim overwrote a lease that was still live
	LeaseExpired // the lease ran out after the run was killed or ended without an ack
	Slow         // the lease ran out while the run was still working
	SlowCall     // the lease ran out while the run waited on the service's reply
	Stall        // the lease ran out while the run was frozen after its last heartbeat
	Redone       // the job was claimed again after it was done
	Redriven     // redeliver put the job back, and it ran again
	TwoJobs      // two events for the order: two jobs
	PublishTwice // the producer published one event twice: two jobs, one event
	Mixed        // more than one of the above
	Unknown      // the evidence cannot tell
	numKinds
)

// kindRow is what the list says of one kind: its name, its title for a
// reader, and whether it is good.
type kindRow struct {
	name, title string
	good        bool
}

var kindInfo = [numKinds]kindRow{
	Once:         {"once", "Ran once", true},
	Redelivery:   {"redelivery", "Redelivered, with no second effect", true},
	RaceCaught:   {"race-caught", "A claim race that left one effect", true},
	Fenced:       {"fenced", "Fenced: a receipt with an older token was refused", true},
	Deduped:      {"deduped", "Deduplicated: the service replayed the first answer", true},
	Swallowed:    {"swallowed", "Swallowed: a second event got the first one's answer", false},
	ClientRetry:  {"client-retry", "Client retry: one execution sent twice", false},
	ClaimRace:    {"claim-race", "Claim race: more than one worker took one delivery", false},
	LeaseExpired: {"lease-expired", "Lease expired under finished work", false},
	Slow:         {"slow-processing", "Processing outlived the lease", false},
	SlowCall:     {"slow-call", "A slow downstream call outlived the lease", false},
	Stall:        {"stall", "A stall outlived the lease", false},
	Redone:       {"redone", "Claimed again after it was done", false},
	Redriven:     {"redriven", "Redelivered by hand after it was done", false},
	TwoJobs:      {"two-jobs", "Two events for one order: two jobs", false},
	PublishTwice: {"publish-twice", "The producer published one event twice", false},
	Mixed:        {"mixed", "More than one cause", false},
	Unknown:      {"unknown", "The evidence cannot tell", false},
}

var kinds = named.Of[Kind]("diagnosis kind", kindInfo[:], func(r kindRow) named.Entry {
	return named.Entry{Name: r.name, Words: r.title}
})

// Kinds lists every diagnosis kind, in the order of the constants.
func Kinds() []Kind { return kinds.All() }

// ParseKind returns the diagnosis kind named s.
func ParseKind(s string) (Kind, bool) { return kinds.Lookup(s) }

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool { return kinds.Valid(k) }

// String returns the kind's name, as the JSON spells it.
func (k Kind) String() string { return kinds.Name(k) }

// Title says the kind in plain words, for a reader: what the playground
// shows as a verdict.
func (k Kind) Title() string { return kinds.Words(k) }

// Good reports whether the kind is a right outcome: every event had its
// one effect. A swallowed event is not good, though nothing duplicated.
func (k Kind) Good() bool { return k.Valid() && kindInfo[k].good }

// MarshalText returns the kind's name, so that encoding/json writes the
// name, as the runtime's own encoder does.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind back from its name.
func (k *Kind) UnmarshalText(b []byte) error {
	v, ok := ParseKind(string(b))
	if !ok {
		return errors.New("unknown diagnosis kind " + string(b))
	}
	*k = v
	return nil
}
