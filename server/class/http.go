package class

import (
	"bytes"
	"crypto/subtle"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Paths of the HTTP interface, all under Prefix.
const (
	Prefix      = "/class/"
	VotesPath   = "/class/votes"
	StatePath   = "/class/state"
	TallyPath   = "/class/tally"
	CSVPath     = "/class/tallies.csv"
	RevealPath  = "/class/reveal"
	RoundPath   = "/class/round"
	RunPath     = "/class/run"
	ResetPath   = "/class/reset"
	NewClassPth = "/class/new-class"
)

// maxName bounds a block's name and a page's path.
const maxName = 512

// ServeHTTP answers the class's requests (the package doc lists them);
// any other path under /class/ is 404.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	teacher, err := s.teacher(r)
	if !teacher && !s.addrs.allow(addrOf(r)) {
		fail(w, &Error{Status: http.StatusTooManyRequests, Msg: "too many requests from this address: slow down"})
		return
	}
	route, ok := routes[r.URL.Path]
	if !ok {
		fail(w, &Error{Status: http.StatusNotFound, Msg: "no such class request: " + short(r.URL.Path)})
		return
	}
	if r.Method != route.method {
		h.Set("Allow", route.method)
		fail(w, &Error{Status: http.StatusMethodNotAllowed, Msg: "use " + route.method + " for " + r.URL.Path})
		return
	}
	if route.teacher && !teacher {
		h.Set("WWW-Authenticate", `Bearer realm="twice class"`)
		fail(w, err)
		return
	}
	route.serve(s, w, r)
}

type route struct {
	method  string
	teacher bool
	serve   func(*Service, http.ResponseWriter, *http.Request)
}

var routes = map[string]route{
	VotesPath:   {http.MethodPost, false, (*Service).serveVote},
	StatePath:   {http.MethodGet, false, (*Service).serveState},
	TallyPath:   {http.MethodGet, true, (*Service).serveTally},
	CSVPath:     {http.MethodGet, true, (*Service).serveCSV},
	RevealPath:  {http.MethodPost, true, action(opReveal)},
	RoundPath:   {http.MethodPost, true, action(opRound)},
	RunPath:     {http.MethodPost, true, action(opRun)},
	ResetPath:   {http.MethodPost, true, action(opReset)},
	NewClassPth: {http.MethodPost, true, (*Service).serveNewClass},
}

// IsTeacher reports whether r carries the teacher key.
func (s *Service) IsTeacher(r *http.Request) bool {
	ok, _ := s.teacher(r)
	return ok
}

// teacher reports whether r carries the teacher key, or why not.
func (s *Service) teacher(r *http.Request) (bool, error) {
	auth := r.Header.Get("Authorization")
	if auth == "" {
		return false, &Error{Status: http.StatusUnauthorized, Msg: "this needs the teacher key: send Authorization: Bearer KEY, the key twice serve printed"}
	}
	scheme, key, _ := strings.Cut(auth, " ")
	if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(key)), []byte(s.key)) != 1 {
		return false, &Error{Status: http.StatusUnauthorized, Msg: "wrong teacher key: use the key twice serve printed on its terminal"}
	}
	return true, nil
}

// addrOf is the address a request came from, without its port.
func addrOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func fail(w http.ResponseWriter, err error) {
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{Status: http.StatusInternalServerError, Msg: err.Error()}
	}
	body := map[string]any{"error": e.Msg}
	if e.Round != 0 {
		body["round"] = e.Round
	}
	if e.Closed {
		body["closed"] = true
	}
	if e.Status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "1")
	}
	writeJSON(w, e.Status, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// readJSON reads r's body, at most MaxBody bytes of JSON, into v: one
// value, with no field v lacks.
func readJSON(w http.ResponseWriter, r *http.Request, v any) error {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return &Error{Status: http.StatusUnsupportedMediaType, Msg: "send the body as JSON, with Content-Type: application/json"}
	}
	if r.ContentLength > MaxBody {
		return &Error{Status: http.StatusRequestEntityTooLarge, Msg: fmt.Sprintf("the body has %d bytes; at most %d", r.ContentLength, MaxBody)}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		var big *http.MaxBytesError
		if errors.As(err, &big) {
			return &Error{Status: http.StatusRequestEntityTooLarge, Msg: fmt.Sprintf("the body has more than %d bytes", MaxBody)}
		}
		return &Error{Status: http.StatusBadRequest, Msg: "the body could not be read"}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return &Error{Status: http.StatusBadRequest, Msg: "malformed JSON: " + short(err.Error())}
	}
	if dec.More() {
		return &Error{Status: http.StatusBadRequest, Msg: "malformed JSON: more than one value"}
	}
	return nil
}

// Vote is the body of POST /class/votes.
type Vote struct {
	Block  string          `json:"block"`
	Round  int             `json:"round"`
	Voter  string          `json:"voter"`
	Choice json.RawMessage `json:"choice"`
}

// validVoter reports whether id is a voter id: 8 to 64 letters, digits,
// - and _.
func validVoter(id string) bool {
	if len(id) < 8 || len(id) > 64 {
		return false
	}
	for _, c := range []byte(id) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// scale returns the scale of the block named block, or the error for a
// name that names none.
func (s *Service) scale(block string) (Scale, error) {
	if block == "" {
		return Scale{}, &Error{Status: http.StatusBadRequest, Msg: "name the block: its page's path and its id, as /lessons/SLUG/#block-1"}
	}
	if len(block) <= maxName {
		if sc, ok := s.cfg.Blocks(block); ok {
			return sc, nil
		}
	}
	return Scale{}, &Error{Status: http.StatusNotFound, Msg: "no such block: " + short(block)}
}

func (s *Service) serveVote(w http.ResponseWriter, r *http.Request) {
	var v Vote
	if err := readJSON(w, r, &v); err != nil {
		fail(w, err)
		return
	}
	sc, err := s.scale(v.Block)
	if err != nil {
		fail(w, err)
		return
	}
	if !validVoter(v.Voter) {
		fail(w, &Error{Status: http.StatusBadRequest, Msg: "voter: want a random id of 8 to 64 letters, digits, - and _"})
		return
	}
	if v.Round < 1 || v.Round > MaxRounds {
		fail(w, &Error{Status: http.StatusBadRequest, Msg: fmt.Sprintf("round: want 1 to %d", MaxRounds)})
		return
	}
	if v.Choice == nil {
		fail(w, &Error{Status: http.StatusBadRequest, Msg: "choice: missing"})
		return
	}
	choice, err := sc.parse(v.Choice)
	if err != nil {
		fail(w, &Error{Status: http.StatusUnprocessableEntity, Msg: err.Error()})
		return
	}
	if !s.voters.allow(v.Voter) {
		fail(w, &Error{Status: http.StatusTooManyRequests, Msg: fmt.Sprintf("too many votes from this voter: at most %d a second", VoterRate)})
		return
	}
	if err := s.do(&op{kind: opVote, block: v.Block, round: v.Round, voter: v.Voter, choice: choice}); err != nil {
		fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Service) serveState(w http.ResponseWriter, r *http.Request) {
	page := r.URL.Query().Get("page")
	if page == "" || len(page) > maxName || !strings.HasPrefix(page, "/") {
		fail(w, &Error{Status: http.StatusBadRequest, Msg: "page: want a page's path, as /lessons/SLUG/"})
		return
	}
	writeJSON(w, http.StatusOK, s.PageState(page))
}

func (s *Service) serveTally(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	block := q.Get("block")
	sc, err := s.scale(block)
	if err != nil {
		fail(w, err)
		return
	}
	if a := q.Get("after"); a != "" {
		after, err := strconv.ParseInt(a, 10, 64)
		if err != nil {
			fail(w, &Error{Status: http.StatusBadRequest, Msg: "after: want a version from an earlier tally"})
			return
		}
		s.wait(r, after)
	}
	writeJSON(w, http.StatusOK, s.Tally(block, sc))
}

// wait waits, up to Wait, until the class's version is not after (or
// the request ends); it does not wait when MaxWaiters already do.
func (s *Service) wait(r *http.Request, after int64) {
	select {
	case s.waiters <- struct{}{}:
		defer func() { <-s.waiters }()
	default:
		return
	}
	t := time.NewTimer(Wait)
	defer t.Stop()
	for {
		s.mu.RLock()
		v, ch := s.version, s.changed
		s.mu.RUnlock()
		if v != after {
			return
		}
		select {
		case <-ch:
		case <-t.C:
			return
		case <-r.Context().Done():
			return
		case <-s.quit:
			return
		}
	}
}

// action is the handler of a teacher's action on a block: it answers the
// block's tally after the action.
func action(kind opKind) func(*Service, http.ResponseWriter, *http.Request) {
	return func(s *Service, w http.ResponseWriter, r *http.Request) {
		var body struct {
			Block string `json:"block"`
		}
		if err := readJSON(w, r, &body); err != nil {
			fail(w, err)
			return
		}
		sc, err := s.scale(body.Block)
		if err != nil {
			fail(w, err)
			return
		}
		if err := s.do(&op{kind: kind, block: body.Block}); err != nil {
			fail(w, err)
			return
		}
		writeJSON(w, http.StatusOK, s.Tally(body.Block, sc))
	}
}

func (s *Service) serveNewClass(w http.ResponseWriter, r *http.Request) {
	if err := s.do(&op{kind: opResetClass}); err != nil {
		fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// serveCSV writes every tally: block, round, choice, count, a row per
// choice chosen, sorted; no voter ids.
func (s *Service) serveCSV(w http.ResponseWriter, r *http.Request) {
	type row struct {
		block        string
		round, count int
		choice       string
	}
	var rows []row
	s.mu.RLock()
	for name, b := range s.blocks {
		for r := 1; r <= b.round; r++ {
			for c, n := range b.counts[r] {
				rows = append(rows, row{name, r, n, c})
			}
		}
	}
	s.mu.RUnlock()
	slices.SortFunc(rows, func(a, b row) int {
		if c := strings.Compare(a.block, b.block); c != 0 {
			return c
		}
		if a.round != b.round {
			return a.round - b.round
		}
		an, aerr := strconv.Atoi(a.choice)
		bn, berr := strconv.Atoi(b.choice)
		if aerr == nil && berr == nil {
			return an - bn
		}
		return strings.Compare(a.choice, b.choice)
	})
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="class-tallies.csv"`)
	cw := csv.NewWriter(w)
	cw.Write([]string{"block", "round", "choice", "count"})
	for _, x := range rows {
		cw.Write([]string{x.block, strconv.Itoa(x.round), x.choice, strconv.Itoa(x.count)})
	}
	cw.Flush()
}
