package class

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

const blockA = "/lessons/a/#block-1"

// clock is a fake clock the tests move by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func blocks(name string) (Scale, bool) {
	switch name {
	case blockA:
		return Scale{Min: 0, Max: 10}, true
	case "/lessons/a/#block-2":
		return Scale{Choices: []string{"yes", "no"}}, true
	case "/lessons/a/#block-3":
		return Scale{Max: 5, Choices: []string{"0", "1", "5"}}, true
	}
	return Scale{}, false
}

// open opens a class in file db (a new one in a temporary folder when "")
// on the clock c.
func open(t *testing.T, db string, c *clock) *Service {
	t.Helper()
	if db == "" {
		db = filepath.Join(t.TempDir(), "class.db")
	}
	s, err := Open(Config{DB: db, Blocks: blocks, Now: c.now})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// do sends a request to s from addr, with the teacher key when key is
// not "", and returns the status and the body.
func do(s *Service, method, path, body, key, addr string) (int, string) {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		r.Header.Set("Authorization", "Bearer "+key)
	}
	r.RemoteAddr = addr + ":4242"
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return w.Code, w.Body.String()
}

func vote(block string, round int, voter string, choice any) string {
	b, _ := json.Marshal(map[string]any{"block": block, "round": round, "voter": voter, "choice": choice})
	return string(b)
}

func tally(t *testing.T, s *Service, block string) Tally {
	t.Helper()
	code, body := do(s, "GET", TallyPath+"?block="+block, "", s.Key(), "127.0.0.1")
	if code != 200 {
		t.Fatalf("tally: %d %s", code, body)
	}
	var tl Tally
	if err := json.Unmarshal([]byte(body), &tl); err != nil {
		t.Fatal(err)
	}
	return tl
}

// TestVotesRoundsAndRestart: a vote counts, a second vote in the round
// replaces the first, round 2 is counted beside round 1, and a class
// opened again from its file has the same tallies, code and key.
func TestVotesRoundsAndRestart(t *testing.T) {
	c := &clock{t: time.Unix(1e9, 0)}
	db := filepath.Join(t.TempDir(), "class.db")
	s := open(t, db, c)
	send := func(round int, voter string, choice any, want int) {
		t.Helper()
		if code, body := do(s, "POST", VotesPath, vote(blockA, round, voter, choice), "", "10.0.0.2"); code != want {
			t.Fatalf("vote %s %v in round %d: %d %s, want %d", voter, choice, round, code, body, want)
		}
	}
	send(1, "voter-aaaa", 3, 204)
	send(1, "voter-bbbb", 3, 204)
	for _, c := range []any{5, "1"} { // a choice among numbers, by number or by its text
		if code, body := do(s, "POST", VotesPath, vote("/lessons/a/#block-3", 1, "voter-cccc", c), "", "10.0.0.2"); code != 204 {
			t.Errorf("a choice %v among 0, 1, 5: %d %s", c, code, body)
		}
	}
	send(1, "voter-aaaa", 5, 204) // replaces its 3
	tl := tally(t, s, blockA)
	if tl.Round != 1 || tl.Votes != 2 || tl.Counts["3"] != 1 || tl.Counts["5"] != 1 {
		t.Fatalf("round 1: %+v", tl)
	}
	send(2, "voter-aaaa", 5, 409) // round 2 is not open yet
	if code, body := do(s, "POST", RoundPath, `{"block":"`+blockA+`"}`, s.Key(), "127.0.0.1"); code != 200 {
		t.Fatalf("round 2: %d %s", code, body)
	}
	send(1, "voter-cccc", 1, 409) // round 1 is over
	send(2, "voter-aaaa", 7, 204)
	tl = tally(t, s, blockA)
	if tl.Round != 2 || tl.Votes != 1 || tl.Counts["7"] != 1 || len(tl.Rounds) != 2 || tl.Rounds[0].Votes != 2 {
		t.Fatalf("round 2: %+v", tl)
	}
	code, key := s.Code(), s.Key()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t, db, c)
	defer s.Close()
	if s.Code() != code || s.Key() != key {
		t.Errorf("reopened: code %s key %s, want %s %s", s.Code(), s.Key(), code, key)
	}
	again := tally(t, s, blockA)
	again.Version, tl.Version = 0, 0
	if fmt.Sprint(again) != fmt.Sprint(tl) {
		t.Errorf("reopened: %+v\nwant %+v", again, tl)
	}
	_, csv := do(s, "GET", CSVPath, "", s.Key(), "127.0.0.1")
	want := "block,round,choice,count\n" + blockA + ",1,3,1\n" + blockA + ",1,5,1\n" + blockA + ",2,7,1\n/lessons/a/#block-3,1,1,1\n"
	if csv != want {
		t.Errorf("CSV:\n%s\nwant\n%s", csv, want)
	}
	if strings.Contains(csv, "voter") {
		t.Errorf("the CSV names a voter:\n%s", csv)
	}
	// Reset clears the block, round and all, and survives a restart.
	if code, body := do(s, "POST", ResetPath, `{"block":"`+blockA+`"}`, s.Key(), "127.0.0.1"); code != 200 {
		t.Fatalf("reset: %d %s", code, body)
	}
	if tl := tally(t, s, blockA); tl.Round != 1 || tl.Votes != 0 || len(tl.Rounds) != 1 {
		t.Errorf("after reset: %+v", tl)
	}
}

// TestRevealAndRun: the teacher shows the votes, then reveals the run,
// which closes the voting.
func TestRevealAndRun(t *testing.T) {
	c := &clock{t: time.Unix(1e9, 0)}
	s := open(t, "", c)
	defer s.Close()
	do(s, "POST", VotesPath, vote(blockA, 1, "voter-aaaa", 2), "", "10.0.0.2")
	if tl := tally(t, s, blockA); tl.Shown || tl.Closed {
		t.Fatalf("before: %+v", tl)
	}
	do(s, "POST", RevealPath, `{"block":"`+blockA+`"}`, s.Key(), "127.0.0.1")
	if tl := tally(t, s, blockA); !tl.Shown || tl.Closed {
		t.Fatalf("shown: %+v", tl)
	}
	do(s, "POST", RunPath, `{"block":"`+blockA+`"}`, s.Key(), "127.0.0.1")
	code, body := do(s, "POST", VotesPath, vote(blockA, 1, "voter-bbbb", 2), "", "10.0.0.2")
	if code != 409 || !strings.Contains(body, `"closed":true`) {
		t.Errorf("a vote after the run: %d %s", code, body)
	}
	if st := s.PageState("/lessons/a/"); st.Blocks["block-1"].Open || st.Code != s.Code() {
		t.Errorf("page state: %+v", st)
	}
	if tl := tally(t, s, blockA); tl.Votes != 1 {
		t.Errorf("votes: %+v", tl)
	}
}

// TestHostile: requests without the key, with a wrong key, with bad
// JSON, a huge body, an unknown block or a choice off the scale each get
// their error and change nothing.
func TestHostile(t *testing.T) {
	c := &clock{t: time.Unix(1e9, 0)}
	s := open(t, "", c)
	defer s.Close()
	do(s, "POST", VotesPath, vote(blockA, 1, "voter-good", 4), "", "10.0.0.2")
	before := tally(t, s, blockA)
	const addr = "10.0.0.9"
	block := `{"block":"` + blockA + `"}`
	for _, tc := range []struct {
		name, method, path, body, key string
		ctype                         string
		want                          int
		says                          string
	}{
		{"reveal without the key", "POST", RevealPath, block, "", "", 401, "teacher key"},
		{"reveal with a wrong key", "POST", RevealPath, block, "0123456789abcdef0123456789abcdef", "", 401, "wrong teacher key"},
		{"reset without the key", "POST", ResetPath, block, "", "", 401, "teacher key"},
		{"round with a wrong key", "POST", RoundPath, block, "nope", "", 401, "wrong"},
		{"tally without the key", "GET", TallyPath + "?block=" + blockA, "", "", "", 401, "teacher key"},
		{"export without the key", "GET", CSVPath, "", "", "", 401, "teacher key"},
		{"new class with a wrong key", "POST", NewClassPth, "{}", "x", "", 401, "wrong"},
		{"bad JSON", "POST", VotesPath, `{"block":`, "", "", 400, "malformed JSON"},
		{"two values", "POST", VotesPath, vote(blockA, 1, "voter-evil", 1) + "{}", "", "", 400, "more than one"},
		{"an unknown field", "POST", VotesPath, `{"block":"` + blockA + `","round":1,"voter":"voter-evil","choice":1,"name":"x"}`, "", "", 400, "unknown field"},
		{"a huge body", "POST", VotesPath, `{"block":"` + strings.Repeat("x", 1<<20) + `"}`, "", "", 413, "bytes"},
		{"not JSON", "POST", VotesPath, "block=x", "", "application/x-www-form-urlencoded", 415, "JSON"},
		{"an unknown block", "POST", VotesPath, vote("/lessons/a/#block-9", 1, "voter-evil", 1), "", "", 404, "no such block"},
		{"no block", "POST", VotesPath, vote("", 1, "voter-evil", 1), "", "", 400, "name the block"},
		{"a choice over the scale", "POST", VotesPath, vote(blockA, 1, "voter-evil", 11), "", "", 422, "from 0 to 10"},
		{"a choice under the scale", "POST", VotesPath, vote(blockA, 1, "voter-evil", -1), "", "", 422, "scale"},
		{"a fraction", "POST", VotesPath, vote(blockA, 1, "voter-evil", 1.5), "", "", 422, "whole number"},
		{"a string on a number scale", "POST", VotesPath, vote(blockA, 1, "voter-evil", "3"), "", "", 422, "scale"},
		{"a huge number", "POST", VotesPath, vote(blockA, 1, "voter-evil", 1e300), "", "", 422, "scale"},
		{"no choice", "POST", VotesPath, `{"block":"` + blockA + `","round":1,"voter":"voter-evil"}`, "", "", 400, "choice"},
		{"a word not among the choices", "POST", VotesPath, vote("/lessons/a/#block-2", 1, "voter-evil", "maybe"), "", "", 422, "yes, no"},
		{"a number not among the choices", "POST", VotesPath, vote("/lessons/a/#block-3", 1, "voter-evil", 2), "", "", 422, "0, 1, 5"},
		{"a short voter id", "POST", VotesPath, vote(blockA, 1, "x", 1), "", "", 400, "voter"},
		{"a voter id with odd bytes", "POST", VotesPath, vote(blockA, 1, "voter\n<script>", 1), "", "", 400, "voter"},
		{"round 0", "POST", VotesPath, vote(blockA, 0, "voter-evil", 1), "", "", 400, "round"},
		{"round 3", "POST", VotesPath, vote(blockA, 3, "voter-evil", 1), "", "", 400, "round"},
		{"a vote by GET", "GET", VotesPath, "", "", "", 405, "POST"},
		{"an unknown path", "GET", "/class/secrets", "", "", "", 404, "no such"},
		{"a page state without a page", "GET", StatePath, "", "", "", 400, "page"},
	} {
		r := httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body))
		if tc.body != "" {
			ct := "application/json"
			if tc.ctype != "" {
				ct = tc.ctype
			}
			r.Header.Set("Content-Type", ct)
		}
		if tc.key != "" {
			r.Header.Set("Authorization", "Bearer "+tc.key)
		}
		r.RemoteAddr = addr + ":1"
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		body, _ := io.ReadAll(w.Body)
		if w.Code != tc.want || !strings.Contains(string(body), tc.says) {
			t.Errorf("%s: %d %s, want %d saying %q", tc.name, w.Code, body, tc.want, tc.says)
		}
		if ct := w.Header().Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s: Content-Type %q", tc.name, ct)
		}
	}
	after := tally(t, s, blockA)
	after.Version, before.Version = 0, 0
	if fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("hostile requests changed the tally:\n%+v\nwant\n%+v", after, before)
	}
	if st := s.PageState("/lessons/a/"); len(st.Blocks) != 1 {
		t.Errorf("hostile requests changed the page state: %+v", st)
	}
}

// TestRates: a voter over VoterRate votes a second gets 429 and is
// counted no more; a second later it votes again. One address may send
// a whole class's votes at once, but not a flood. The clock is fake.
func TestRates(t *testing.T) {
	c := &clock{t: time.Unix(1e9, 0)}
	s := open(t, "", c)
	defer s.Close()
	for i := range VoterRate {
		if code, body := do(s, "POST", VotesPath, vote(blockA, 1, "voter-fast", i), "", "10.0.0.3"); code != 204 {
			t.Fatalf("vote %d: %d %s", i, code, body)
		}
	}
	code, body := do(s, "POST", VotesPath, vote(blockA, 1, "voter-fast", 9), "", "10.0.0.3")
	if code != 429 || !strings.Contains(body, "too many votes") {
		t.Fatalf("vote over the rate: %d %s", code, body)
	}
	if tl := tally(t, s, blockA); tl.Counts["9"] != 0 || tl.Counts[fmt.Sprint(VoterRate-1)] != 1 {
		t.Errorf("the refused vote counted: %+v", tl)
	}
	c.add(time.Second)
	if code, _ := do(s, "POST", VotesPath, vote(blockA, 1, "voter-fast", 9), "", "10.0.0.3"); code != 204 {
		t.Errorf("a second later: %d", code)
	}
	// A class of 200 behind one router, voting within the same instant.
	parallel(200, func(i int) {
		if code, body := do(s, "POST", VotesPath, vote(blockA, 1, fmt.Sprintf("voter-%04d", i), i%11), "", "10.0.0.4"); code != 204 {
			t.Errorf("voter %d of the class: %d %s", i, code, body)
		}
	})
	// A flood from one address, each request with a fresh voter id.
	var mu sync.Mutex
	refused := 0
	parallel(2*AddrBurst, func(i int) {
		if code, _ := do(s, "POST", VotesPath, vote(blockA, 1, fmt.Sprintf("flood-%05d", i), 1), "", "10.0.0.5"); code == 429 {
			mu.Lock()
			refused++
			mu.Unlock()
		}
	})
	if refused < AddrBurst-1 {
		t.Errorf("a flood of %d requests from one address: %d refused", 2*AddrBurst, refused)
	}
	if tl := tally(t, s, blockA); tl.Votes > 1+200+AddrBurst {
		t.Errorf("the flood counted: %d votes", tl.Votes)
	}
	// The teacher is not held back by the students' address.
	if code, _ := do(s, "GET", TallyPath+"?block="+blockA, "", s.Key(), "10.0.0.5"); code != 200 {
		t.Errorf("the teacher behind a flooding address: %d", code)
	}
	if code, _ := do(s, "GET", StatePath+"?page=/lessons/a/", "", "", "10.0.0.5"); code != 429 {
		t.Errorf("a page state from the flooding address: %d", code)
	}
}

// parallel calls f(0) to f(n-1) at once and waits for them.
func parallel(n int, f func(int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { f(i) })
	}
	wg.Wait()
}

// TestVotersPerRound: a round takes at most MaxVoters voters; one more is
// refused, while those already in may change their vote.
func TestVotersPerRound(t *testing.T) {
	c := &clock{t: time.Unix(1e9, 0)}
	s := open(t, "", c)
	defer s.Close()
	// Concurrently, so that the votes share their transactions.
	var wg sync.WaitGroup
	for i := range MaxVoters {
		if i%AddrBurst == 0 {
			wg.Wait()
			c.add(time.Hour)
		}
		wg.Go(func() {
			if code, body := do(s, "POST", VotesPath, vote(blockA, 1, fmt.Sprintf("voter-%05d", i), 1), "", "10.0.0.6"); code != 204 {
				t.Errorf("voter %d: %d %s", i, code, body)
			}
		})
	}
	wg.Wait()
	c.add(time.Hour)
	if code, body := do(s, "POST", VotesPath, vote(blockA, 1, "voter-late", 1), "", "10.0.0.6"); code != 403 {
		t.Errorf("one voter too many: %d %s", code, body)
	}
	if code, body := do(s, "POST", VotesPath, vote(blockA, 1, "voter-00001", 2), "", "10.0.0.6"); code != 204 {
		t.Errorf("a voter in the round changing its vote: %d %s", code, body)
	}
}

// TestLimiterForgets: a limiter keeps at most so many keys, forgetting
// those whose bucket has filled again, and refusing a new key when none
// has.
func TestLimiterForgets(t *testing.T) {
	c := &clock{t: time.Unix(1e9, 0)}
	l := newLimiter(1, 1, 3, c.now)
	for _, k := range []string{"a", "b", "c"} {
		if !l.allow(k) {
			t.Fatalf("%s refused", k)
		}
	}
	if l.allow("d") {
		t.Errorf("a fourth key allowed while three are busy")
	}
	c.add(2 * time.Second)
	if !l.allow("d") || len(l.m) != 1 {
		t.Errorf("after the buckets filled: %d keys kept", len(l.m))
	}
}
