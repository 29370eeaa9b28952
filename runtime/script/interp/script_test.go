package interp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/twice-lab/twice/runtime/event"
	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/script/diagnosis"
	"github.com/twice-lab/twice/runtime/script/lang"
	"github.com/twice-lab/twice/runtime/script/result"
)

// The same seed gives byte-identical output, text and JSON alike.
func TestSameSeedSameBytes(t *testing.T) {
	scripts := []string{
		"race read 20\neffects",
		"add o && work --job 1 --lease 1 --crash-before-ack; sleep 2; work --job 1 --worker W2 --trace && log && jobs && effects",
		"add o && work --job 1 --trace --delay 400 --timeout 300 && effects",
	}
	for _, src := range scripts {
		for _, seed := range []uint64{0, 1, 7, 1 << 63} {
			a, _ := json.Marshal(Run(src, Options{Seed: seed}))
			b, _ := json.Marshal(Run(src, Options{Seed: seed}))
			if string(a) != string(b) {
				t.Errorf("seed %d, %q: two runs differ", seed, src)
			}
		}
	}
}

// A different seed changes the run ids.
func TestSeedChangesRunIDs(t *testing.T) {
	a := Run("add o && work --job 1", Options{Seed: 1})
	b := Run("add o && work --job 1", Options{Seed: 2})
	if a.Jobs[0].Run == b.Jobs[0].Run {
		t.Errorf("seeds 1 and 2 gave the same run id %s", a.Jobs[0].Run)
	}
}

// The atomic claim never duplicates, whatever the seed.
func TestAtomicClaimNeverDuplicates(t *testing.T) {
	seeds := 300
	if testing.Short() {
		seeds = 30
	}
	for _, claim := range []string{"atomic", "lock"} {
		for seed := range uint64(seeds) {
			res := Run("race "+claim+" 20", Options{Seed: seed})
			if res.Error != nil {
				t.Fatal(res.Error)
			}
			if d := res.Races[0].Duplicates; d != 0 {
				t.Fatalf("claim=%s seed %d: %d duplicates", claim, seed, d)
			}
		}
	}
}

// The read claim duplicates in most races for most seeds: at least 15 of
// 20 races, for 9 seeds in 10. The lessons rely on it to make the race
// visible on the first Run.
func TestReadClaimDuplicatesMostRaces(t *testing.T) {
	good := 0
	for seed := range uint64(100) {
		res := Run("race read 20", Options{Seed: seed})
		if res.Races[0].Duplicates >= 15 {
			good++
		}
	}
	if good < 90 {
		t.Errorf("race read 20 duplicated in at least 15 races for only %d of 100 seeds", good)
	}
}

// A lease that has not expired keeps a second worker out, for either
// claim, however long the second worker waits short of the lease.
func TestUnexpiredLeaseKeepsSecondWorkerOut(t *testing.T) {
	for _, claim := range []string{"read", "atomic"} {
		for _, wait := range []string{"0", "1", "29"} {
			src := fmt.Sprintf("add o\nwork --job 1 --claim %s --crash-before-ack\nsleep %s\nwork --job 1 --worker W2 --claim %s", claim, wait, claim)
			for seed := range uint64(20) {
				res := Run(src, Options{Seed: seed})
				if res.Error != nil {
					t.Fatal(res.Error)
				}
				last := res.Transcript[len(res.Transcript)-1]
				if !strings.HasSuffix(last, "job 1 already claimed") || len(res.Effects) != 1 {
					t.Fatalf("claim=%s sleep %s seed %d: W2 got in: %q", claim, wait, seed, res.Transcript)
				}
			}
		}
	}
}

// Once the lease has passed, the second worker gets the job.
func TestExpiredLeaseLetsSecondWorkerIn(t *testing.T) {
	res := Run("add o\nwork --job 1 --lease 1 --crash-before-ack\nsleep 1\nwork --job 1 --worker W2", Options{Seed: 3})
	if len(res.Effects) != 2 || res.Jobs[0].Attempts != 2 || res.Jobs[0].Status != "done" {
		t.Fatalf("got %q, jobs %+v", res.Transcript, res.Jobs)
	}
}

func TestDiagnoses(t *testing.T) {
	tests := []struct {
		src  string
		kind diagnosis.Kind
	}{
		{"add o && work --job 1 && effects", diagnosis.Once},
		{"add o && work --job 1 --lease 1 --crash-before-ack; sleep 2; work --job 1 --worker W2", diagnosis.LeaseExpired},
		{"add o && work --job 1 --delay 400 --timeout 300", diagnosis.ClientRetry},
		{"race read 1", diagnosis.ClaimRace},
		{"add o && work --job 1 --lease 1 --crash-before-effect; sleep 2; work --job 1 --worker W2", diagnosis.Redelivery},
	}
	for _, tt := range tests {
		res := Run(tt.src, Options{Seed: DefaultSeed})
		if len(res.Summary) != 1 || res.Summary[0].Kind != tt.kind {
			t.Errorf("%q: summary %+v, want kind %s", tt.src, res.Summary, tt.kind)
		}
	}
}

// && runs the next command only after success; ; runs it anyway; a killed
// worker counts as failed.
func TestAndSemicolon(t *testing.T) {
	res := Run("add o && work --job 1 --crash-before-ack && jobs; effects && jobs", Options{Seed: 1})
	var jobs int
	for _, l := range res.Transcript {
		if strings.HasPrefix(l, "job ") {
			jobs++
		}
	}
	if jobs != 1 {
		t.Errorf("want jobs printed once (after effects), got %d: %q", jobs, res.Transcript)
	}
}

func TestErrorsNameLineAndColumn(t *testing.T) {
	tests := []struct {
		src         string
		exit        int
		line, col   int
		msgContains string
	}{
		{"jobs\n  frob", 2, 2, 3, "unknown command"},
		{"work --job x", 2, 1, 12, "whole number"},
		{"work --job=x", 2, 1, 12, "whole number"},
		{"add o;;", 2, 1, 7, "before ';'"},
		{") jobs", 2, 1, 1, "unmatched"},
		{"jobs &", 2, 1, 6, "background"},
		{"race read 0", 2, 1, 11, "whole number"},
		{"race read 10001", 2, 1, 11, "whole number"},
		{"add " + strings.Repeat("x", 65), 2, 1, 5, "longer"},
		{"work --job 1 --trace=yes", 2, 1, 14, "takes no value"},
		{"work --job 1 --job 2", 2, 1, 14, "twice"},
		{"jobs extra", 2, 1, 6, "no arguments"},
		{"add o\nwork --job 2", 1, 2, 1, "does not exist"},
		{"jobs > out.txt", 2, 1, 6, "redirection"},
		{"añadir x", 2, 1, 1, "unknown command"},
		{"jobs ñ frob\nfrob", 2, 1, 6, "no arguments"},
	}
	for _, tt := range tests {
		res := Run(tt.src, Options{Seed: 1})
		e := res.Error
		if e == nil || res.ExitCode != tt.exit || e.Line != tt.line || e.Col != tt.col || !strings.Contains(e.Msg, tt.msgContains) {
			t.Errorf("%q: exit %d, error %v; want exit %d at line %d, col %d containing %q", tt.src, res.ExitCode, e, tt.exit, tt.line, tt.col, tt.msgContains)
		}
		if e != nil && strings.Contains(e.Error(), "\n") {
			t.Errorf("%q: error spans lines: %q", tt.src, e.Error())
		}
	}
}

func TestLimits(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("jobs\n", lang.MaxScriptBytes/5+1)
	if res := Run(big, Options{}); res.ExitCode != 2 || res.Error.Kind != "limit" {
		t.Errorf("oversized script: %+v", res.Error)
	}
	many := strings.Repeat("jobs;", lang.MaxCommands+1)
	if res := Run(many, Options{}); res.ExitCode != 2 || res.Error.Kind != "limit" {
		t.Errorf("too many commands: %+v", res.Error)
	}
	if res := Run("race read 10000", Options{}); res.Error != nil || res.Races[0].Races != 10000 {
		t.Errorf("race read 10000 must run: %+v", res.Error)
	}
}

// A result that failed to parse still has empty tables, not nulls, so the
// browser can render it.
func TestErrorResultHasEmptyTables(t *testing.T) {
	b, _ := json.Marshal(Run("frob", Options{}))
	for _, key := range []string{`"transcript":[]`, `"effects":[]`, `"jobs":[]`, `"trace":[]`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("missing %s in %s", key, b)
		}
	}
}

func TestTraceCoversFirstRaceOnly(t *testing.T) {
	one := Run("race read 1", Options{Seed: 5})
	many := Run("race read 50", Options{Seed: 5})
	if len(one.Trace) == 0 || len(one.Trace) != len(many.Trace) {
		t.Errorf("trace of race read 1 has %d events, of race read 50 %d; want equal and non-zero", len(one.Trace), len(many.Trace))
	}
}

// Every claim the parser accepts runs its own steps, and a second worker
// finds the job the first acked done; a claim with no steps in the worker
// fails loudly instead of running as another, and a claim and its alias
// print the same lines.
func TestEveryClaimRuns(t *testing.T) {
	out := map[queue.Claim]string{}
	for _, c := range queue.Claims() {
		res := Run("reset && add o1 && work --job 1 --claim "+c.String()+" && work --job 1 --worker W2 --claim "+c.String(), Options{Seed: 1})
		if res.Error != nil {
			t.Fatalf("claim %s: %v", c, res.Error)
		}
		out[c] = res.Text()
		if !strings.Contains(res.Text(), "already done") {
			t.Errorf("claim %s: the second worker did not find the job done:\n%s", c, res.Text())
		}
	}
	for _, c := range queue.Claims() {
		if a := c.Alias(); out[a] != out[c] {
			t.Errorf("claim %s prints differently from %s, which it names", c, a)
		}
	}
	// A claim outside the list is an error, not some other claim.
	in, err := newInterp(1, Budget{}, &result.Result{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.close()
	if _, err := in.shell.Add("o1", "ev-1"); err != nil {
		t.Fatal(err)
	}
	ok, err := in.exec(lang.Command{Kind: lang.CmdWork, Work: lang.WorkArgs{Job: 1, Worker: "W1", Lease: lang.DefaultLease, Timeout: lang.DefaultTimeout, Claim: queue.Claim(200)}})
	if ok || err == nil || !strings.Contains(err.Error(), "has no steps") {
		t.Errorf("a claim outside the list ran: ok=%v err=%v", ok, err)
	}
}

// TestShellWaitsItsTurn: the script's own writes (add, redeliver, reset)
// that find a background worker's ledger transaction open wait in virtual
// time until it commits, as a worker's do, instead of failing with
// "database is locked".
func TestShellWaitsItsTurn(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/ledger-shell-waits.txtar")
	if err != nil {
		t.Fatal(err)
	}
	src, _ := section(ar, "script")
	res := Run(src, Options{Seed: DefaultSeed})
	if res.Error != nil {
		t.Fatal(res.Error)
	}
	// Each wait comes right before the write it held back, and after the
	// worker's BEGIN: the three writes each waited.
	waited := map[event.Kind]bool{}
	for i, e := range res.Trace {
		if e.Proc != "shell" || e.Kind != event.Wait || !strings.Contains(e.Step, "waits its turn") {
			continue
		}
		for _, f := range res.Trace[i+1:] {
			if f.Proc == "shell" && f.Kind != event.Wait {
				waited[f.Kind] = true
				break
			}
		}
	}
	for _, k := range []event.Kind{event.Add, event.Redeliver, event.Reset} {
		if !waited[k] {
			t.Errorf("no %s waited for the worker's transaction", k)
		}
	}
}
