package views

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/script/lang"
)

// Every ordering explores the block's own race with all its flags and
// the dedupe mode in force where it runs; a block with no race is offered
// the race its work would run, marked as not its own; a block that starts
// no worker has none.
func TestExploreViewIsTheBlocksRace(t *testing.T) {
	for _, c := range []struct {
		src, script string
		own         bool
	}{
		{"service --dedupe claim\nrace read 20 --effect ledger --key event\n", "service --dedupe claim\nrace read --all --effect ledger --key event\n", true},
		{"race read 200 --heartbeat 300\n", "race read --all --heartbeat 300\n", true},
		{"race read 5\nrace atomic 5 --workers 3\n", "race read --all\nrace atomic --all --workers 3\n", true},
		{"service --dedupe check\nrace read 2 --key job\nservice --dedupe off\nrace read 2\n", "service --dedupe check\nrace read --all --key job\nservice --dedupe off\nrace read --all\n", true},
		{"add o\nwork --job 1 --worker W1 --heartbeat 300 --processing 900\nwork --job 1 --worker W2 --fence\n", "race read --all --heartbeat 300 --fence\n", false},
		{"load 20 --processing fixed:500 --lease 1 --heartbeat 300\n", "race atomic --all --heartbeat 300\n", false},
		{"add o\njobs\n", "", false},
		{"matrix\n", "", false},
	} {
		s, err := lang.Parse(c.src)
		if err != nil {
			t.Fatal(err)
		}
		v := Of(s).Explore
		if v.Script != c.script || v.Own != c.own || v.Note == "" {
			t.Errorf("%q: explores %q (own %v), want %q (own %v); note %q", c.src, v.Script, v.Own, c.script, c.own, v.Note)
		}
		if c.script != "" && (v.Refused != "" || len(v.ByWorkers) != lang.MaxWorkers-lang.MinWorkers+1) {
			t.Errorf("%q: refused %q, %d worker counts", c.src, v.Refused, len(v.ByWorkers))
		}
	}
}

// Be the scheduler plays the block's first race without its count or
// timing, with its claim, workers, flags and the dedupe mode in force; a
// block with no race has none, and says why.
func TestSchedulerViewIsTheFirstRace(t *testing.T) {
	for _, c := range []struct {
		src, script, claim string
		workers            int
	}{
		{"race read 20\neffects\n", "race read\n", "read", 2},
		{"race atomic 5 --workers 3 --delay 40\nrace read 5\n", "race atomic --workers 3\n", "atomic", 3},
		{"service --dedupe claim\nrace read 20 --key job --fence\n", "service --dedupe claim\nrace read --fence --key job\n", "read", 2},
		{"add o\nwork --job 1\nwork --job 1 --worker W2\n", "", "", 0},
		// A block that plays one schedule is the reader's to schedule afresh.
		{"race read --schedule W1,W2,W1,W2\n", "race read\n", "read", 2},
	} {
		s, err := lang.Parse(c.src)
		if err != nil {
			t.Fatal(err)
		}
		v := Of(s).Scheduler
		if v.Script != c.script || v.Claim != c.claim || v.Workers != c.workers || v.Note == "" || v.Refused != "" {
			t.Errorf("%q: plays %q (claim %q, %d workers, refused %q), want %q (claim %q, %d workers); note %q", c.src, v.Script, v.Claim, v.Workers, v.Refused, c.script, c.claim, c.workers, v.Note)
		}
	}
}

// Compare sets the claim of every race, work and load command, and says
// why there is nothing to compare when nothing takes a claim.
func TestCompareViewFlipsEveryClaim(t *testing.T) {
	s, err := lang.Parse("load 20 --processing fixed:500 --lease 1\n( work --job 1 --claim atomic & )\nrace lock 3\n")
	if err != nil {
		t.Fatal(err)
	}
	v := Of(s).Compare
	if len(v.Sides) != len(queue.Claims()) {
		t.Fatalf("%d sides, want one per claim", len(v.Sides))
	}
	for i, side := range v.Sides {
		if want := queue.Claims()[i].String(); side.Claim != want {
			t.Errorf("side %d is %s, want %s", i+1, side.Claim, want)
		}
		parsed, err := lang.Parse(side.Script)
		if err != nil {
			t.Errorf("the %s side does not parse: %v", side.Claim, err)
			continue
		}
		var claims []string
		var visit func(cs []lang.Command)
		visit = func(cs []lang.Command) {
			for _, c := range cs {
				switch c.Kind {
				case lang.CmdRace:
					claims = append(claims, c.Race.Claim.String())
				case lang.CmdWork:
					claims = append(claims, c.Work.Claim.String())
				case lang.CmdLoad:
					claims = append(claims, c.Load.Claim.String())
				case lang.CmdBackground:
					visit(c.Body)
				}
			}
		}
		visit(parsed.Commands)
		if len(claims) != 3 || slices.ContainsFunc(claims, func(c string) bool { return c != side.Claim }) {
			t.Errorf("the %s side runs claims %v:\n%s", side.Claim, claims, side.Script)
		}
	}
	if !strings.Contains(v.Sides[0].Script, "load 20 --processing fixed:500 --lease 1 --claim read") {
		t.Errorf("the read side does not give the load its claim:\n%s", v.Sides[0].Script)
	}
	s, _ = lang.Parse("add o\njobs\n")
	if v := Of(s).Compare; len(v.Sides) != 0 || v.Note == "" {
		t.Errorf("nothing takes a claim, yet Compare has %d sides and note %q", len(v.Sides), v.Note)
	}
}

// A block that races one claim and then another (lesson 5's fifty read
// races, then fifty atomic) is its own comparison: Compare's pane for a
// claim runs the block's line of that claim once, not the same race
// twice, so that the read pane beside the atomic one is read against
// atomic, not read against read. Lines that were repeats in the block
// stay.
func TestCompareSidesOfABlockOfTwoClaims(t *testing.T) {
	s, err := lang.Parse("# fifty races with the read claim, then fifty with the atomic one\nrace read 50\nrace atomic 50\n")
	if err != nil {
		t.Fatal(err)
	}
	v := Of(s).Compare
	for _, side := range v.Sides {
		if want := "race " + side.Claim + " 50\n"; side.Script != want {
			t.Errorf("the %s pane runs %q, want %q", side.Claim, side.Script, want)
		}
	}
	if !strings.Contains(v.Note, "read and atomic") {
		t.Errorf("the note does not say the block runs read and atomic itself: %q", v.Note)
	}
	s, _ = lang.Parse("race read 5\nrace read 5\nrace atomic 5\n")
	for _, side := range Of(s).Compare.Sides {
		if want := strings.Repeat("race "+side.Claim+" 5\n", 2); side.Script != want {
			t.Errorf("the %s pane runs %q, want the block's repeated line kept and its other-claim line once: %q", side.Claim, side.Script, want)
		}
	}
}

// A count of orderings past what a page holds adds up to the most it
// holds.
func TestOutcomeSaturates(t *testing.T) {
	if got := saturatingAdd(5, "99999999999999999999999"); got != 1<<53-1 {
		t.Errorf("a count past what a page holds adds up to %d", got)
	}
}

// The effects table leads with the key where a block sends keys.
func TestColumnsFollowTheBlock(t *testing.T) {
	for src, want := range map[string]string{
		"service --dedupe claim\nadd o\nwork --job 1 --key event\n": "key",
		"add o\nwork --job 1 --fence\n":                             "send",
		"add o --times 2\nwork --job 1\n":                           "event",
		"race read 3\n":                                             "",
	} {
		s, err := lang.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if cs := Of(s).Columns; len(cs) > 0 {
			got = cs[0]
		}
		if got != want {
			t.Errorf("%q: first column %q, want %q", src, got, want)
		}
	}
}

// TestViewsAreLinear checks that the views of a script of many distinct
// races cost in proportion to its length: twice the races, at most about
// twice the allocations. Each race was compared with every race before
// it, by its formatted line: 2,730 of them took 15 s.
func TestViewsAreLinear(t *testing.T) {
	allocs := func(n int) float64 {
		src := ""
		for i := 1; i <= n; i++ {
			src += "race 1 --heartbeat=" + strconv.Itoa(i) + "\n"
		}
		s, err := lang.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		return testing.AllocsPerRun(2, func() { Of(s) })
	}
	a, b := allocs(150), allocs(300)
	if b > 2.5*a {
		t.Errorf("the views of 150 distinct races allocate %.0f times, of 300 %.0f times: %.1fx for twice the races", a, b, b/a)
	}
}

// A block that plays a schedule has nothing to compare: the schedule
// names its own claim's steps, which another claim does not have.
func TestCompareViewRefusesASchedule(t *testing.T) {
	s, err := lang.Parse("race read --schedule W1,W2,W1,W1,W2,W2\n")
	if err != nil {
		t.Fatal(err)
	}
	if v := Of(s).Compare; len(v.Sides) != 0 || v.Note == "" {
		t.Errorf("Compare of a schedule: %d sides, note %q", len(v.Sides), v.Note)
	}
}

// A claim whose script passes a limit the block's own claim keeps under
// (race --all explores more states with async-lock) is offered off, with
// the parser's reason; every claim on offer runs.
func TestCompareViewSaysWhichClaimIsOff(t *testing.T) {
	s, err := lang.Parse("race --all --workers 7\n")
	if err != nil {
		t.Fatal(err)
	}
	v := compareView(s)
	for i, side := range v.Toggle {
		_, perr := lang.Parse(side.Script)
		switch {
		case perr != nil && side.Off == "":
			t.Errorf("claim %s is offered, but its script does not run: %v", side.Claim, perr)
		case perr == nil && side.Off != "":
			t.Errorf("claim %s is off (%s), but its script runs", side.Claim, side.Off)
		case side.Off != v.Sides[i].Off:
			t.Errorf("claim %s: the toggle says %q and Compare %q", side.Claim, side.Off, v.Sides[i].Off)
		}
	}
	if off := v.Toggle[len(v.Toggle)-1]; off.Claim != "async-lock" || !strings.Contains(off.Off, "states explored") {
		t.Errorf("async-lock: %+v", off)
	}
}
