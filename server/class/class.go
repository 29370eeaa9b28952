package class

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The bounds of a class. A class of 200 phones behind one router, voting
// within a second, passes every one of them.
const (
	MaxRounds   = 2       // rounds a block may have: a vote, then a second after discussion
	MaxVoters   = 1000    // voters in one round of one block
	MaxVotes    = 200_000 // votes kept in all
	MaxBody     = 1 << 10 // bytes of a request body
	MaxWaiters  = 64      // teacher requests waiting for a change at once
	VoterRate   = 5       // votes a second a voter may send, and its burst
	AddrRate    = 500     // requests a second one address may send
	AddrBurst   = 1000    // and its burst
	maxLimited  = 100_000 // voters and addresses a limiter keeps track of
	batchMax    = 512     // votes committed in one transaction at most
	queueLength = 4096    // changes waiting for the writer
)

// Wait is how long a teacher's GET /class/tally with after= waits for a
// change before it answers with the tally as it is.
var Wait = 25 * time.Second

// A Scale is the choices a block's prediction may take: a whole number
// from Min to Max, or, when Choices is not empty, one of those (words or
// whole numbers, sent as a JSON string or number).
type Scale struct {
	Min     int      `json:"min"`
	Max     int      `json:"max"`
	Choices []string `json:"choices,omitempty"`
}

// parse reads a choice sent as JSON: a whole number on the scale, or one
// of its words. It returns the choice as stored.
func (s Scale) parse(raw json.RawMessage) (string, error) {
	if len(s.Choices) > 0 {
		// A choice is named by its text, or, for a number, by the number.
		var w string
		if json.Unmarshal(raw, &w) != nil {
			w = string(raw)
		}
		for _, c := range s.Choices {
			if c == w {
				return w, nil
			}
		}
		return "", fmt.Errorf("choice %s is not one of this block's: %s", short(string(raw)), strings.Join(s.Choices, ", "))
	}
	n, err := strconv.Atoi(string(raw))
	if err != nil || n < s.Min || n > s.Max {
		return "", fmt.Errorf("choice %s is not on this block's scale: a whole number from %d to %d", short(string(raw)), s.Min, s.Max)
	}
	return strconv.Itoa(n), nil
}

// short cuts s, a piece of a request quoted in an error, to 80 bytes.
func short(s string) string {
	if len(s) > 80 {
		return strings.ToValidUTF8(s[:80], "") + "…"
	}
	return s
}

// Config configures a Service.
type Config struct {
	// DB is the SQLite file that keeps the class; it is created if need be.
	DB string
	// Blocks returns the scale of the block named block (PAGE#ID), and
	// whether there is such a block. Required.
	Blocks func(block string) (Scale, bool)
	// Now is the clock the rates are measured on; nil means time.Now.
	Now func() time.Time
}

// DefaultDB is the class file twice serve --class uses without
// --class-db: class.db in twice's folder of the user's configuration.
func DefaultDB() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "twice", "class.db")
}

// A Service collects a class's votes; it is an http.Handler for the paths
// under /class/ (see the package doc).
type Service struct {
	cfg  Config
	st   *store
	code string // the class code the students see
	key  string // the teacher key

	mu      sync.RWMutex // guards what follows; only the writer changes it
	blocks  map[string]*blockState
	total   int    // votes in all
	epoch   string // changes when the teacher resets the class
	version int64  // counts changes
	changed chan struct{}

	ops     chan *op
	quit    chan struct{}
	stopped chan struct{}
	once    sync.Once
	waiters chan struct{} // a slot per teacher request waiting for a change

	voters, addrs *limiter
}

// blockState is a block's round, whether the current round's histogram is
// shown, whether the run is revealed (which closes the voting), and its
// votes: per round, each voter's choice and each choice's count.
type blockState struct {
	round         int
	shown, closed bool
	votes         [MaxRounds + 1]map[string]string
	counts        [MaxRounds + 1]map[string]int
}

func newBlockState() *blockState {
	b := &blockState{round: 1}
	for r := 1; r <= MaxRounds; r++ {
		b.votes[r] = map[string]string{}
		b.counts[r] = map[string]int{}
	}
	return b
}

// put records voter's choice in round, replacing its earlier one; it
// reports whether the voter is new to the round.
func (b *blockState) put(round int, voter, choice string) bool {
	old, had := b.votes[round][voter]
	if had {
		if b.counts[round][old]--; b.counts[round][old] == 0 {
			delete(b.counts[round], old)
		}
	}
	b.votes[round][voter] = choice
	b.counts[round][choice]++
	return !had
}

// Open opens the class kept in cfg.DB, creating the file, a class code and
// a teacher key the first time: a restarted server keeps all three.
func Open(cfg Config) (*Service, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Blocks == nil {
		return nil, errors.New("class: no Blocks")
	}
	st, err := openStore(cfg.DB)
	if err != nil {
		return nil, fmt.Errorf("class file %s: %w", cfg.DB, err)
	}
	s := &Service{cfg: cfg, st: st, changed: make(chan struct{}),
		ops: make(chan *op, queueLength), quit: make(chan struct{}), stopped: make(chan struct{}),
		waiters: make(chan struct{}, MaxWaiters),
		voters:  newLimiter(VoterRate, VoterRate, maxLimited, cfg.Now),
		addrs:   newLimiter(AddrRate, AddrBurst, maxLimited, cfg.Now)}
	fail := func(err error) (*Service, error) {
		st.close()
		return nil, fmt.Errorf("class file %s: %w", cfg.DB, err)
	}
	for _, m := range []struct {
		name string
		v    *string
		make func() string
	}{{"code", &s.code, newCode}, {"key", &s.key, newKey}, {"epoch", &s.epoch, newKey}} {
		v, err := st.meta(m.name)
		if err != nil {
			return fail(err)
		}
		if v == "" {
			v = m.make()
			if err := st.setMeta(m.name, v); err != nil {
				return fail(err)
			}
		}
		*m.v = v
	}
	if s.blocks, s.total, err = st.load(); err != nil {
		return fail(err)
	}
	go s.write()
	return s, nil
}

// Code is the class code the students see; Key is the teacher key.
func (s *Service) Code() string { return s.code }

// Key is the teacher key: the Bearer token of the teacher's requests.
func (s *Service) Key() string { return s.key }

// Close stops taking changes, waits for the writer and closes the file.
// Requests still coming in are answered 503.
func (s *Service) Close() error {
	var err error
	s.once.Do(func() {
		close(s.quit)
		<-s.stopped
		err = s.st.close()
	})
	return err
}

// codeLetters are letters and digits no one confuses when read off a
// projector: no 0 and O, no 1, I and L.
const codeLetters = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"

func newCode() string {
	b := make([]byte, 6)
	rand.Read(b)
	for i := range b {
		b[i] = codeLetters[int(b[i])%len(codeLetters)]
	}
	return string(b)
}

func newKey() string {
	b := make([]byte, 16)
	rand.Read(b)
	const hex = "0123456789abcdef"
	out := make([]byte, 0, 32)
	for _, c := range b {
		out = append(out, hex[c>>4], hex[c&15])
	}
	return string(out)
}

// ---- changes ----------------------------------------------------------

// An op is a change for the writer: a vote, or a teacher's action on a
// block (or on the class, for opResetClass).
type op struct {
	kind   opKind
	block  string
	round  int
	voter  string
	choice string
	err    chan error
}

type opKind int

const (
	opVote opKind = iota
	opReveal
	opRound
	opRun
	opReset
	opResetClass
)

// An Error is a refused request: its HTTP status and why.
type Error struct {
	Status int
	Msg    string
	Round  int  // for a vote in the wrong round: the block's round
	Closed bool // for a vote after the run is revealed
}

func (e *Error) Error() string { return e.Msg }

var errStopped = &Error{Status: http.StatusServiceUnavailable, Msg: "the class is closing: the server is stopping"}

// do hands o to the writer and waits for its outcome.
func (s *Service) do(o *op) error {
	o.err = make(chan error, 1)
	select {
	case s.ops <- o:
	case <-s.quit:
		return errStopped
	default:
		return &Error{Status: http.StatusServiceUnavailable, Msg: "too many votes at once: try again in a moment"}
	}
	select {
	case err := <-o.err:
		return err
	case <-s.stopped:
		select {
		case err := <-o.err:
			return err
		default:
			return errStopped
		}
	}
}

// write is the writer: it takes the votes waiting, up to batchMax, and
// commits them in one transaction; a teacher's action goes alone.
func (s *Service) write() {
	defer close(s.stopped)
	var next *op
	for {
		o := next
		next = nil
		if o == nil {
			select {
			case o = <-s.ops:
			case <-s.quit:
				return
			}
		}
		if o.kind != opVote {
			o.err <- s.act(o)
			continue
		}
		batch := []*op{o}
	more:
		for len(batch) < batchMax {
			select {
			case o := <-s.ops:
				if o.kind != opVote {
					next = o
					break more
				}
				batch = append(batch, o)
			default:
				break more
			}
		}
		s.vote(batch)
	}
}

// vote commits the votes of batch that are in their block's current,
// open round, within the bounds, and answers each.
func (s *Service) vote(batch []*op) {
	type key struct {
		block string
		round int
	}
	added := map[key]int{} // new voters per round in this batch
	seen := map[string]bool{}
	var ok []*op
	total := s.total
	for _, o := range batch {
		b := s.blocks[o.block]
		round, closed := 1, false
		if b != nil {
			round, closed = b.round, b.closed
		}
		switch {
		case closed:
			o.err <- &Error{Status: http.StatusConflict, Msg: "the voting on this block is closed: the run is revealed", Round: round, Closed: true}
			continue
		case o.round != round:
			o.err <- &Error{Status: http.StatusConflict, Msg: fmt.Sprintf("round %d is not open: this block is in round %d", o.round, round), Round: round}
			continue
		}
		id := o.block + "\x00" + strconv.Itoa(round) + "\x00" + o.voter
		isNew := !seen[id] && (b == nil || b.votes[round][o.voter] == "")
		if isNew {
			k := key{o.block, round}
			have := added[k]
			if b != nil {
				have += len(b.votes[round])
			}
			if have >= MaxVoters {
				o.err <- &Error{Status: http.StatusForbidden, Msg: fmt.Sprintf("this round has %d voters, the most a round may have", MaxVoters), Round: round}
				continue
			}
			if total >= MaxVotes {
				o.err <- &Error{Status: http.StatusInsufficientStorage, Msg: fmt.Sprintf("the class has %d votes, the most it keeps: the teacher may reset a block", MaxVotes), Round: round}
				continue
			}
			added[k]++
			total++
		}
		seen[id] = true
		ok = append(ok, o)
	}
	if len(ok) == 0 {
		return
	}
	err := s.st.tx(func() error {
		for _, o := range ok {
			if err := s.st.putVote(o.block, o.round, o.voter, o.choice); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		for _, o := range ok {
			o.err <- &Error{Status: http.StatusInternalServerError, Msg: "the vote could not be saved: " + err.Error()}
		}
		return
	}
	s.mu.Lock()
	for _, o := range ok {
		b := s.blocks[o.block]
		if b == nil {
			b = newBlockState()
			s.blocks[o.block] = b
		}
		if b.put(o.round, o.voter, o.choice) {
			s.total++
		}
	}
	s.changedLocked()
	s.mu.Unlock()
	for _, o := range ok {
		o.err <- nil
	}
}

// changedLocked marks a change, waking the requests waiting for one;
// s.mu is held.
func (s *Service) changedLocked() {
	s.version++
	close(s.changed)
	s.changed = make(chan struct{})
}

// act does a teacher's action.
func (s *Service) act(o *op) error {
	if o.kind == opResetClass {
		epoch := newKey()
		if err := s.st.setMeta("epoch", epoch); err != nil {
			return &Error{Status: http.StatusInternalServerError, Msg: "the class could not be reset: " + err.Error()}
		}
		s.mu.Lock()
		s.epoch = epoch
		s.changedLocked()
		s.mu.Unlock()
		return nil
	}
	old := s.blocks[o.block]
	if old == nil {
		old = newBlockState()
	}
	next := *old // the writer alone changes blocks: reading without s.mu is safe
	switch o.kind {
	case opReveal:
		next.shown = true
	case opRound:
		if old.round >= MaxRounds {
			return &Error{Status: http.StatusConflict, Msg: fmt.Sprintf("this block is in round %d, its last", old.round), Round: old.round}
		}
		if old.closed {
			return &Error{Status: http.StatusConflict, Msg: "the run is revealed: reset the block to vote again", Round: old.round}
		}
		next.round++
		next.shown = false
	case opRun:
		next.closed, next.shown = true, true
	case opReset:
		err := s.st.tx(func() error { return s.st.resetBlock(o.block) })
		if err != nil {
			return &Error{Status: http.StatusInternalServerError, Msg: "the block could not be reset: " + err.Error()}
		}
		s.mu.Lock()
		for r := 1; r <= MaxRounds; r++ {
			s.total -= len(old.votes[r])
		}
		delete(s.blocks, o.block)
		s.changedLocked()
		s.mu.Unlock()
		return nil
	}
	if err := s.st.tx(func() error { return s.st.putBlock(o.block, &next) }); err != nil {
		return &Error{Status: http.StatusInternalServerError, Msg: "the block could not be saved: " + err.Error()}
	}
	s.mu.Lock()
	s.blocks[o.block] = &next
	s.changedLocked()
	s.mu.Unlock()
	return nil
}

// ---- reads ------------------------------------------------------------

// A Tally is a block's state and counts, as the teacher reads them.
type Tally struct {
	Block string `json:"block"`
	// Round is the current round; Votes and Counts are its voters and
	// how many chose each choice (by the choice's text).
	Round  int            `json:"round"`
	Votes  int            `json:"votes"`
	Counts map[string]int `json:"counts"`
	// Rounds are every round so far, the current one last.
	Rounds []RoundTally `json:"rounds"`
	// Shown says the teacher has shown the current round's histogram;
	// Closed that the run is revealed, which ends the voting.
	Shown  bool  `json:"shown"`
	Closed bool  `json:"closed"`
	Scale  Scale `json:"scale"`
	// Version changes whenever the class does: GET /class/tally with
	// after=VERSION waits for the next change.
	Version int64 `json:"version"`
}

// RoundTally is one round's voters and counts.
type RoundTally struct {
	Round  int            `json:"round"`
	Votes  int            `json:"votes"`
	Counts map[string]int `json:"counts"`
}

// Tally returns block's tally; s.mu is not held.
func (s *Service) Tally(block string, scale Scale) Tally {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.tallyLocked(block, scale)
}

func (s *Service) tallyLocked(block string, scale Scale) Tally {
	b := s.blocks[block]
	if b == nil {
		b = newBlockState()
	}
	t := Tally{Block: block, Round: b.round, Shown: b.shown, Closed: b.closed, Scale: scale, Version: s.version}
	for r := 1; r <= b.round; r++ {
		t.Rounds = append(t.Rounds, RoundTally{Round: r, Votes: len(b.votes[r]), Counts: maps.Clone(b.counts[r])})
	}
	cur := t.Rounds[len(t.Rounds)-1]
	t.Votes, t.Counts = cur.Votes, cur.Counts
	return t
}

// BlockState is what a student's page learns of a block: its round and
// whether it takes votes.
type BlockState struct {
	Round int  `json:"round"`
	Open  bool `json:"open"`
}

// State is what a student's page learns of the class: its code, its
// epoch (which a reset of the class changes), and the blocks of the page
// whose state is not the first (round 1, open).
type State struct {
	Code   string                `json:"code"`
	Epoch  string                `json:"epoch"`
	Blocks map[string]BlockState `json:"blocks"`
}

// PageState returns the class's state for the page at path page.
func (s *Service) PageState(page string) State {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := State{Code: s.code, Epoch: s.epoch, Blocks: map[string]BlockState{}}
	for name, b := range s.blocks {
		if id, ok := strings.CutPrefix(name, page+"#"); ok && !strings.Contains(id, "#") {
			st.Blocks[id] = BlockState{Round: b.round, Open: !b.closed}
		}
	}
	return st
}

// DB is the class file's path.
func (s *Service) DB() string { return s.cfg.DB }
