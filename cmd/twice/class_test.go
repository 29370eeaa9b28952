package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twice-lab/twice/lessons"
)

// servedClass is twice serve --class as a test sees it: its URL and the
// teacher key it printed.
type servedClass struct {
	*served
	key string
}

func startClass(t *testing.T, db string) servedClass {
	t.Helper()
	s := startServe(t, "--addr", "127.0.0.1:0", "--wasm", fakeWasm(t), "--class", "--class-db", db)
	c := servedClass{served: s}
	for _, line := range s.before {
		if k, ok := strings.CutPrefix(line, "teacher key: "); ok {
			c.key = k
		}
	}
	if c.key == "" {
		t.Fatalf("twice serve --class printed no line \"teacher key: KEY\":\n%s", strings.Join(s.before, "\n"))
	}
	return c
}

// tally is the tally of block as the teacher reads it, once the block's
// lesson has rendered.
type tallyJSON struct {
	Round  int `json:"round"`
	Votes  int `json:"votes"`
	Rounds []struct {
		Round  int            `json:"round"`
		Votes  int            `json:"votes"`
		Counts map[string]int `json:"counts"`
	} `json:"rounds"`
	Scale struct{ Min, Max int } `json:"scale"`
}

func (c servedClass) tally(t *testing.T, block string) tallyJSON {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		req, _ := http.NewRequest("GET", c.url+"class/tally?block="+url.QueryEscape(block), nil)
		req.Header.Set("Authorization", "Bearer "+c.key)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 200 {
			var tl tallyJSON
			if err := json.Unmarshal(body, &tl); err != nil {
				t.Fatal(err)
			}
			return tl
		}
		// 404 until the lesson has rendered.
		if resp.StatusCode != 404 || time.Now().After(deadline) {
			t.Fatalf("tally of %s: %d %s", block, resp.StatusCode, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// client keeps a connection per voter open between requests; the tests
// close them before they stop the server, which otherwise waits for
// connections that were opened and not used yet.
var client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}

func post(t *testing.T, u, key, body string) (int, string) {
	req, _ := http.NewRequest("POST", u, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Error(err)
		return 0, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestClassVotesSurviveRestart starts twice serve --class, sends 200
// voters' votes at once for two rounds, some voting twice, restarts the
// server on the same class file, and reads tallies equal to each voter's
// last vote in each round.
func TestClassVotesSurviveRestart(t *testing.T) {
	ls, err := lessons.Load(lessons.FS)
	if err != nil {
		t.Fatal(err)
	}
	block := "/lessons/" + ls[0].Slug + "/#block-1"
	db := filepath.Join(t.TempDir(), "class.db")
	c := startClass(t, db)
	for _, line := range c.before {
		if strings.Contains(line, "class code for the students: ") {
			goto code
		}
	}
	t.Errorf("twice serve --class printed no class code:\n%s", strings.Join(c.before, "\n"))
code:
	scale := c.tally(t, block).Scale
	span := scale.Max - scale.Min + 1
	const voters = 200
	want := map[int]map[string]int{1: {}, 2: {}}
	var mu sync.Mutex
	for round := 1; round <= 2; round++ {
		if round == 2 {
			if code, body := post(t, c.url+"class/round", c.key, `{"block":"`+block+`"}`); code != 200 {
				t.Fatalf("round 2: %d %s", code, body)
			}
		}
		var wg sync.WaitGroup
		// The lesson pages are served while the class votes.
		for range 20 {
			wg.Go(func() {
				resp, err := client.Get(c.url + "lessons/" + ls[0].Slug + "/")
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					t.Errorf("the lesson page during the votes: %d", resp.StatusCode)
				}
			})
		}
		for i := range voters {
			wg.Go(func() {
				voter := fmt.Sprintf("voter-%04d", i)
				choice := scale.Min + (i*round)%span
				if i%4 == 0 {
					// This voter changes its mind: the second vote counts.
					post(t, c.url+"class/votes", "", fmt.Sprintf(`{"block":%q,"round":%d,"voter":%q,"choice":%d}`, block, round, voter, scale.Min+(i+1)%span))
				}
				if code, body := post(t, c.url+"class/votes", "", fmt.Sprintf(`{"block":%q,"round":%d,"voter":%q,"choice":%d}`, block, round, voter, choice)); code != 204 {
					t.Errorf("round %d, %s: %d %s", round, voter, code, body)
					return
				}
				mu.Lock()
				want[round][fmt.Sprint(choice)]++
				mu.Unlock()
			})
		}
		wg.Wait()
	}
	before := c.tally(t, block)
	client.CloseIdleConnections()
	if code := c.stop(t); code != 0 {
		t.Fatalf("twice serve ended with %d: %s", code, c.stderr.String())
	}
	c2 := startClass(t, db)
	defer func() {
		client.CloseIdleConnections()
		c2.stop(t)
	}()
	if c2.key != c.key {
		t.Errorf("restarted: the teacher key is %s, was %s", c2.key, c.key)
	}
	after := c2.tally(t, block)
	for _, tl := range []tallyJSON{before, after} {
		if tl.Round != 2 || len(tl.Rounds) != 2 {
			t.Fatalf("tally: %+v", tl)
		}
		for _, r := range tl.Rounds {
			if r.Votes != voters || fmt.Sprint(r.Counts) != fmt.Sprint(want[r.Round]) {
				t.Errorf("round %d: %d votes, counts %v; want %d, %v", r.Round, r.Votes, r.Counts, voters, want[r.Round])
			}
		}
	}
	// The tallies as CSV, without voter ids.
	req, _ := http.NewRequest("GET", c2.url+"class/tallies.csv", nil)
	req.Header.Set("Authorization", "Bearer "+c2.key)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	csv, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.HasPrefix(csv, []byte("block,round,choice,count\n")) || bytes.Contains(csv, []byte("voter")) || !bytes.Contains(csv, []byte(block+",2,")) {
		t.Errorf("CSV:\n%s", csv)
	}
}

// TestServeWithoutClass: without --class, nothing under /class/ answers.
func TestServeWithoutClass(t *testing.T) {
	s := startServe(t, "--addr", "127.0.0.1:0", "--wasm", fakeWasm(t))
	defer s.stop(t)
	for _, line := range s.before {
		if strings.Contains(line, "teacher key") || strings.Contains(line, "class code") {
			t.Errorf("twice serve without --class printed %q", line)
		}
	}
	code, _ := post(t, s.url+"class/votes", "", `{"block":"/lessons/x/#block-1","round":1,"voter":"voter-0001","choice":1}`)
	if code != http.StatusMethodNotAllowed && code != http.StatusNotFound {
		t.Errorf("a vote without --class: %d", code)
	}
	resp, err := http.Get(s.url)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if bytes.Contains(page, []byte("data-twice-class")) || bytes.Contains(page, []byte("pulse.")) {
		t.Errorf("the index without --class loads the class's module")
	}
}
