package interp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/twice-lab/twice/runtime/script/lang"
)

// A script that names 200 workers is refused by the parser, before any of
// them opens a SQLite connection, at the command that names one too many.
func TestTooManyWorkerNamesRefusedAtParse(t *testing.T) {
	var b strings.Builder
	b.WriteString("add order-77\n")
	for i := range 200 {
		fmt.Fprintf(&b, "work --job 1 --worker x%d\n", i)
	}
	_, err := lang.Parse(b.String())
	e, ok := err.(*lang.Error)
	if !ok || e.Kind != "limit" {
		t.Fatalf("Parse: %v; want a limit error", err)
	}
	want := fmt.Sprintf("line %d, col 1: worker x%d is the script's %dth worker name; the limit is %d worker names", lang.MaxWorkerNames+2, lang.MaxWorkerNames, lang.MaxWorkerNames+1, lang.MaxWorkerNames)
	if !strings.HasPrefix(e.Error(), want) {
		t.Errorf("error %q\nwant it to start %q", e.Error(), want)
	}
	res := Run(b.String(), Options{Seed: 1})
	if res.ExitCode != 2 || len(res.Transcript) != 0 {
		t.Errorf("Run: exit %d, %d transcript lines; want exit 2 before anything ran", res.ExitCode, len(res.Transcript))
	}
	// Reusing names costs nothing: the same 200 works with 16 names run.
	b.Reset()
	b.WriteString("add order-77\n")
	for i := range 200 {
		fmt.Fprintf(&b, "work --job 1 --worker x%d\n", i%lang.MaxWorkerNames)
	}
	if _, err := lang.Parse(b.String()); err != nil {
		t.Errorf("200 works over %d names: %v", lang.MaxWorkerNames, err)
	}
}

// Race workers and load workers count as names too (W1 to W8).
func TestRaceWorkersCountAsNames(t *testing.T) {
	var b strings.Builder
	for i := range lang.MaxWorkerNames - 8 {
		fmt.Fprintf(&b, "add o; work --job 1 --worker a%d\n", i)
	}
	b.WriteString("race read 1 --workers 8\n")
	if _, err := lang.Parse(b.String()); err != nil {
		t.Fatalf("exactly %d names: %v", lang.MaxWorkerNames, err)
	}
	b.WriteString("add o; work --job 1 --worker one-more\n")
	if _, err := lang.Parse(b.String()); err == nil || !strings.Contains(err.Error(), "worker names per script") {
		t.Fatalf("%d names: %v; want the worker-name limit", lang.MaxWorkerNames+1, err)
	}
}

// Hundreds of race --all are refused by the parser, at the one that goes
// over the budget of explored states, before any is explored.
func TestManyExplorationsRefusedAtParse(t *testing.T) {
	src := strings.Repeat("race read --all --workers 8\n", 300)
	_, err := lang.Parse(src)
	e, ok := err.(*lang.Error)
	if !ok || e.Kind != "limit" {
		t.Fatalf("Parse: %v; want a limit error", err)
	}
	line := lang.MaxExploreStates/1915 + 1
	want := fmt.Sprintf("line %d, col 1: race --all here brings the states explored to %d; the limit is %d states explored by race --all per script", line, line*1915, lang.MaxExploreStates)
	if e.Error() != want {
		t.Errorf("error %q\nwant      %q", e.Error(), want)
	}
	// The atomic claim's explorations are small: hundreds of them fit.
	if _, err := lang.Parse(strings.Repeat("race atomic --all --workers 8\n", 300)); err != nil {
		t.Errorf("300 atomic explorations: %v", err)
	}
}

// Every limit error names a line and column.
func TestLimitErrorsHavePlace(t *testing.T) {
	for _, src := range []string{
		strings.Repeat("jobs\n", lang.MaxCommands+1),
		strings.Repeat("race read 6000\n", 2),
		strings.Repeat("load 1000 --processing fixed:1 --lease 1,2,3,4,5,6\n", 2),
		strings.Repeat("# long comment\n", lang.MaxScriptBytes/15+10),
		"add o; work --job 1 --processing 600000 --heartbeat 1",
		"load 1000 --processing lognormal:p50=100,p95=1000 --lease 1,2 --heartbeat 50",
	} {
		_, err := lang.Parse(src)
		e, ok := err.(*lang.Error)
		if !ok || e.Kind != "limit" || e.Line == 0 || e.Col == 0 {
			t.Errorf("%.30q...: %v; want a limit error with a line and column", src, err)
		}
	}
}

// Estimate tells a page which scripts to run only when asked.
func TestEstimateHeavy(t *testing.T) {
	for src, heavy := range map[string]bool{
		"race read 20":                                                   false,
		"race read --all --workers 8":                                    false,
		"race read --all; race atomic --all --workers 8":                 false,
		"load 200 --processing lognormal:p50=800,p95=3000 --lease 1,2,5": false,
		"race read 10000":                                                true,
		"race read 1000 --workers 8":                                     true,
		strings.Repeat("race read --all --workers 8\n", 2):               true,
		"add o; work --job 1 --processing 600000 --heartbeat 40":         false,
		"load 1000 --processing fixed:1 --lease 1,2,3":                   true,
		// A heartbeat longer than the lease: every execution is reclaimed,
		// for ever; polls and reclaims make it heavy, not its jobs.
		"load 1000 --processing fixed:2428 --lease 0.523 --workers 8 --heartbeat 938": true,
		"load 1000 --processing fixed:2428 --lease 0.523 --workers 8 --heartbeat 200": false,
	} {
		c, err := lang.Estimate(src)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if c.Heavy() != heavy {
			t.Errorf("%q: Heavy() = %v (%+v); want %v", src, c.Heavy(), c, heavy)
		}
	}
	if _, err := lang.Estimate("race read 20 --all"); err == nil {
		t.Error("Estimate of a script that does not parse gave no error")
	}
}

// The states budget counts what race --all will explore: with the dedupe
// mode in force when it runs (a mode set and turned off again costs
// nothing; one that && may skip leaves the dearest in force) and with its
// worker flags.
func TestExploreBudgetCountsWhatRuns(t *testing.T) {
	for _, tc := range []struct {
		src    string
		states int
	}{
		{"service --dedupe claim; service --dedupe off; race read --all --workers 6 --key attempt", 631},
		{"service --dedupe claim\nservice --dedupe off\nrace read --all --workers 6 --key attempt", 631},
		{"service --dedupe check\nservice --dedupe claim\nrace read --all --workers 4 --key job", 215},
		{"service --dedupe check\nadd a && service --dedupe claim\nrace read --all --workers 4 --key job", 1579},
		{"race read --all --heartbeat 300 --workers 4", 538},
		{"race read --all --effect ledger --workers 8", 2401},
		{"service --dedupe claim\nrace read --all --fence --key job --workers 3", 312},
	} {
		c, err := lang.Estimate(tc.src)
		if err != nil {
			t.Errorf("%q: %v", tc.src, err)
			continue
		}
		if c.States != tc.states {
			t.Errorf("%q: estimated %d states, want %d", tc.src, c.States, tc.states)
		}
	}
	// Over the limit with the flags' steps: refused before anything runs.
	_, err := lang.Parse("race read --all --heartbeat 300 --workers 8")
	if err == nil || !strings.Contains(err.Error(), "brings the states explored to 12990") {
		t.Errorf("eight heartbeating workers: %v", err)
	}
	_, err = lang.Parse("service --dedupe check\nrace read --all --fence --key job --workers 6")
	if err == nil || !strings.Contains(err.Error(), "the steps of the service's dedupe and of the worker flags multiply them") {
		t.Errorf("six fenced workers against check-then-act: %v", err)
	}
}

// The estimate is the count: for every claim, dedupe mode, key and
// combination of worker flags, with two and three workers, what Estimate
// says race --all will explore is what it explores when the script runs.
func TestExploreEstimateIsExact(t *testing.T) {
	t.Parallel()
	workers := []int{2, 3}
	if testing.Short() {
		workers = workers[:1]
	}
	for _, claim := range []string{"read", "atomic"} {
		for _, dedupe := range []string{"off", "check", "claim"} {
			for _, key := range []string{"none", "event", "run", "attempt"} {
				for _, flags := range []string{"", " --heartbeat 300", " --fence", " --heartbeat 300 --fence", " --effect ledger", " --effect ledger --heartbeat 300 --fence", " --effect ledger --key-txn separate --heartbeat 300"} {
					for _, w := range workers {
						src := fmt.Sprintf("service --dedupe %s\nrace %s --all --workers %d --key %s%s", dedupe, claim, w, key, flags)
						c, err := lang.Estimate(src)
						if err != nil {
							t.Fatalf("%q: %v", src, err)
						}
						res := Run(src, Options{Seed: 1})
						if res.Error != nil || len(res.Explorations) != 1 {
							t.Fatalf("%q: %v, %d explorations", src, res.Error, len(res.Explorations))
						}
						if got := res.Explorations[0].States; got != c.States {
							t.Errorf("%q: estimated %d states, explored %d", src, c.States, got)
						}
					}
				}
			}
		}
	}
}
