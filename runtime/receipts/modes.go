package receipts

import (
	"strconv"

	"github.com/twice-lab/twice/runtime/named"
)

// Dedupe is how the service treats a request's Idempotency-Key: one of
// the values in [Dedupes]. The parser, the service, the explorer of
// interleavings, the docs and the browser (through the server's config)
// all read this list.
type Dedupe uint8

const (
	// DedupeOff ignores the key: every request that arrives is an effect.
	DedupeOff Dedupe = iota
	// DedupeCheck is check-then-act: SELECT the key; if it is absent, do
	// the effect, which takes the request's latency, then INSERT the key.
	// Each is its own atomic step, so two requests with one key can both
	// pass the SELECT, the more often the slower the effect.
	DedupeCheck
	// DedupeClaim claims the key first: INSERT ... ON CONFLICT DO NOTHING,
	// and the effect only if the insert took. A request whose insert
	// changed nothing is a replay and gets the first answer back; while
	// the first request is still in progress, it waits for that answer.
	DedupeClaim
	numDedupes
)

var dedupes = named.New("dedupe mode", numDedupes, map[Dedupe]named.Entry{
	DedupeOff:   {Name: "off", Words: "every request is an effect; the key is ignored"},
	DedupeCheck: {Name: "check", Words: "SELECT the key, do the effect, then INSERT the key: check-then-act"},
	DedupeClaim: {Name: "claim", Words: "INSERT the key ON CONFLICT DO NOTHING first; the effect only if it took"},
})

// Dedupes lists every dedupe mode.
func Dedupes() []Dedupe { return dedupes.All() }

// ParseDedupe returns the dedupe mode named s, or an error listing the
// modes.
func ParseDedupe(s string) (Dedupe, error) { return dedupes.Parse(s) }

// DedupeNames returns the modes' names joined with sep.
func DedupeNames(sep string) string { return dedupes.Names(sep) }

// Valid reports whether d is one of Dedupes.
func (d Dedupe) Valid() bool { return dedupes.Valid(d) }

func (d Dedupe) String() string { return dedupes.Name(d) }

// Words says in a few words what the mode does.
func (d Dedupe) Words() string { return dedupes.Words(d) }

// Key is which value a worker sends as its Idempotency-Key: one of the
// values in [Keys].
type Key uint8

const (
	// KeyNone sends no key.
	KeyNone Key = iota
	// KeyEvent sends the producer's event id: the same for every delivery
	// of one event, different for a second event. The right key.
	KeyEvent
	// KeyJob sends the job id: it misses a producer that publishes one
	// event twice (two jobs).
	KeyJob
	// KeyOrder sends the order id: it swallows a second, legitimate event
	// for the same order.
	KeyOrder
	// KeyRun sends the run id: a redelivery is a new run, so it misses it.
	KeyRun
	// KeyAttempt sends the job and attempt number: a redelivery is a new
	// attempt, so it misses it too.
	KeyAttempt
	numKeys
)

var keys = named.New("key", numKeys, map[Key]named.Entry{
	KeyNone:    {Name: "none", Words: "no Idempotency-Key header"},
	KeyEvent:   {Name: "event", Words: "the producer's event id: one per event, the same on every delivery of it"},
	KeyJob:     {Name: "job", Words: "the job id: a second job for the same event gets a new key"},
	KeyOrder:   {Name: "order", Words: "the order id: a second event for the order gets the same key"},
	KeyRun:     {Name: "run", Words: "the run id: every delivery is a new run, so a new key"},
	KeyAttempt: {Name: "attempt", Words: "the job and attempt number: every delivery is a new attempt, so a new key"},
})

// Keys lists every key choice.
func Keys() []Key { return keys.All() }

// ParseKey returns the key choice named s, or an error listing the
// choices.
func ParseKey(s string) (Key, error) { return keys.Parse(s) }

// KeyNames returns the key choices' names joined with sep.
func KeyNames(sep string) string { return keys.Names(sep) }

// Valid reports whether k is one of Keys.
func (k Key) Valid() bool { return keys.Valid(k) }

func (k Key) String() string { return keys.Name(k) }

// Words says in a few words what the key is.
func (k Key) Words() string { return keys.Words(k) }

// Of returns the key value a request sends for key choice k, from what a
// worker knows of its delivery; "" sends no key. It is the only place
// that maps a key choice to a value: the worker and the explorer both
// call it, and a choice outside Keys sends no key and fails loudly where
// it is called (the second result is false).
func (k Key) Of(d Delivery) (string, bool) {
	switch k {
	case KeyNone:
		return "", true
	case KeyEvent:
		return d.Event, true
	case KeyJob:
		return "job-" + itoa(d.Job), true
	case KeyOrder:
		return d.Order, true
	case KeyRun:
		return "run-" + d.Run, true
	case KeyAttempt:
		return "job-" + itoa(d.Job) + "/attempt-" + itoa(int64(d.Attempt)), true
	}
	return "", false
}

// Delivery is what a worker knows of the delivery it is working: what
// the key choices draw their value from.
type Delivery struct {
	Event   string
	Job     int64
	Order   string
	Run     string
	Attempt int
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
