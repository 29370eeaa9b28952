package lessons

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/twice-lab/twice/runtime/script/interp"
	"github.com/twice-lab/twice/runtime/script/lang"
	"github.com/twice-lab/twice/runtime/script/result"
)

// transcriptDuplicates is what a block's transcript says duplicated, read
// from its lines, not from the counts the runtime's outcome is made of: the
// races, load jobs and orderings with two effects its tally lines print;
// and where it prints no tally, the events with two landed effects among
// the receipts service's effects (refused and replayed ones are not
// effects) and the ledger rows.
func transcriptDuplicates(r *result.Result) int {
	n := 0
	tallied := false
	for _, line := range r.Transcript {
		m := tallyLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		tallied = true
		d, err := strconv.Atoi(m[1])
		if err != nil {
			d = 1<<53 - 1 // more orderings than a page counts
		}
		n = min(n+d, 1<<53-1)
	}
	if !tallied {
		per := map[string]int{}
		for _, e := range r.Effects {
			if !e.Refused && !e.Replayed {
				per[e.Order+"/"+e.Event]++
			}
		}
		for _, l := range r.Ledger {
			per[l.Order+"/"+l.Key]++
		}
		for _, c := range per {
			if c > 1 {
				n++
			}
		}
	}
	return n
}

// tallyLine is a race's, a load's or an exploration's tally as the
// transcript prints it: "claim=read: two effects in 20 of 20 races",
// "lease=1s: two effects in 3 of 50 jobs ...", "claim=read: two effects in
// 2100 of 2404 interleavings of 2 workers".
var tallyLine = regexp.MustCompile(`^(?:claim|lease)=\S.*: two effects in (\d+) of \d+ (?:races|jobs|interleavings)`)

// TestEveryViewAgreesWithItsBlock runs, for every twice block of every
// lesson, each view the block offers, as the page would run it, and holds
// its numbers to the block's own transcript: Compare's pane for the
// block's own claim is the block's run, Every ordering finds duplicating
// interleavings for every race the transcript saw duplicate (and none
// where its races cannot duplicate), the timeline's picture counts the
// duplicates of the run it draws, and a view that does not apply says
// why in a sentence.
func TestEveryViewAgreesWithItsBlock(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every lesson block and its views")
	}
	ls, err := Load(FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		for _, b := range l.Blocks {
			opts, err := b.Options()
			if err != nil || opts.Fails {
				continue
			}
			name := fmt.Sprintf("%s:%d", l.File, b.Line)
			t.Run(name, func(t *testing.T) {
				r := interp.Run(b.Script, interp.Options{Seed: opts.Seed, Timeline: true})
				if r.Error != nil {
					t.Fatalf("block fails: %v", r.Error)
				}
				checkOutcome(t, r)
				checkCompare(t, b.Script, opts.Seed, r)
				checkExplore(t, r)
				checkTimeline(t, r)
			})
		}
	}
}

func checkOutcome(t *testing.T, r *result.Result) {
	t.Helper()
	want := transcriptDuplicates(r)
	if got := r.Outcome.Duplicates; got != want {
		t.Errorf("outcome counts %d duplicate(s); the transcript has %d\n%s", got, want, r.Text())
	}
	// A load's lease picker shows each lease run's own tables: their
	// diagnoses count every job once and name as many duplicates as the
	// tally line.
	for _, l := range r.Loads {
		all, dups, listed := 0, 0, 0
		for _, k := range l.KindCounts {
			all += k.N
			if !k.Kind.Good() {
				dups += k.N
			}
		}
		for _, s := range l.Summary {
			if !s.Kind.Good() {
				listed++
			}
		}
		if all != l.Jobs || dups != l.Duplicates || listed > dups || listed+l.More < dups {
			t.Errorf("lease %d µs: the tally says %d of %d jobs duplicated; its tables count %d of %d and list %d (%d more)", l.LeaseUS, l.Duplicates, l.Jobs, dups, all, listed, l.More)
		}
	}
	if len(r.Ledger) > 0 && r.Outcome.Effects == 0 {
		t.Errorf("outcome counts no effect though the ledger holds %d row(s)", len(r.Ledger))
	}
}

// checkCompare runs every side of Compare. The side with the block's own
// claim is the block's run: same transcript, same outcome.
func checkCompare(t *testing.T, src string, seed uint64, r *result.Result) {
	t.Helper()
	v := r.Views.Compare
	if len(v.Sides) == 0 {
		if v.Note == "" {
			t.Error("Compare has no sides and no sentence saying why")
		}
		return
	}
	claims := blockClaims(t, src)
	for _, side := range v.Sides {
		got := interp.Run(side.Script, interp.Options{Seed: seed})
		if got.Error != nil {
			t.Errorf("Compare's %s side fails: %v\n%s", side.Claim, got.Error, side.Script)
			continue
		}
		if len(claims) == 1 && claims[0] == side.Claim {
			// The same run; only an alias, were a claim another's
			// name, could print another name.
			a, b := got.Outcome, r.Outcome
			a.Headline, b.Headline = "", ""
			if a != b || len(got.Transcript) != len(r.Transcript) || len(got.Effects) != len(r.Effects) {
				t.Errorf("Compare's %s side, the block's own claim, is another run: %+v\n%s\nthe block: %+v\n%s", side.Claim, got.Outcome, got.Text(), r.Outcome, r.Text())
			}
		}
		if got.Outcome.Duplicates != transcriptDuplicates(got) {
			t.Errorf("Compare's %s pane counts %d duplicate(s); its transcript has %d", side.Claim, got.Outcome.Duplicates, transcriptDuplicates(got))
		}
	}
}

// blockClaims lists the claims (aliases resolved) of the block's race,
// work and load commands, as the run reports them.
func blockClaims(t *testing.T, src string) []string {
	s, err := lang.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	add := func(c string) {
		for _, x := range out {
			if x == c {
				return
			}
		}
		out = append(out, c)
	}
	var visit func([]lang.Command)
	visit = func(cs []lang.Command) {
		for _, c := range cs {
			switch c.Kind {
			case lang.CmdRace:
				add(c.Race.Claim.Alias().String())
			case lang.CmdWork:
				add(c.Work.Claim.Alias().String())
			case lang.CmdLoad:
				add(c.Load.Claim.Alias().String())
			case lang.CmdBackground:
				visit(c.Body)
			}
		}
	}
	visit(s.Commands)
	return out
}

// checkExplore runs Every ordering's script. For the block's own races,
// every timed race that duplicated in the transcript has duplicating
// interleavings under the same claim, workers, key and dedupe; when no
// interleaving duplicates, no race of the transcript did; and a race
// --all of the block gives the view's numbers exactly.
func checkExplore(t *testing.T, r *result.Result) {
	t.Helper()
	v := r.Views.Explore
	if v.Note == "" {
		t.Error("Every ordering says nothing about this block")
	}
	if v.Script == "" {
		if v.Own {
			t.Error("Every ordering claims the block's race but has no script")
		}
		return
	}
	if len(v.ByWorkers) == 0 {
		t.Error("Every ordering offers no worker counts")
	}
	if v.Refused != "" {
		if !strings.Contains(v.Refused, "cannot be explored yet") && !strings.Contains(v.Refused, "too large to explore") {
			t.Errorf("refusal does not say so plainly: %q", v.Refused)
		}
		t.Logf("not explorable yet: %s (%s)", strings.TrimSpace(v.Script), v.Refused)
		return
	}
	x := interp.Run(v.Script, interp.Options{Seed: 1})
	if x.Error != nil {
		t.Fatalf("Every ordering's script fails: %v\n%s", x.Error, v.Script)
	}
	if len(x.Explorations) == 0 {
		t.Fatalf("Every ordering's script explores nothing:\n%s", v.Script)
	}
	if !v.Own {
		return
	}
	same := func(claim, key, dedupe string, workers int) *result.Exploration {
		for i := range x.Explorations {
			e := &x.Explorations[i]
			if e.Claim == claim && e.Key == key && e.Dedupe == dedupe && e.Workers == workers {
				return e
			}
		}
		return nil
	}
	any := false
	for _, e := range x.Explorations {
		any = any || e.Duplicating != "0"
	}
	if !any && transcriptDuplicates(r) > 0 {
		t.Errorf("Every ordering finds no duplicating interleaving; the transcript has %d duplicate(s)", transcriptDuplicates(r))
	}
	for _, rt := range r.Races {
		e := same(rt.Claim, rt.Key, rt.Dedupe, rt.Workers)
		if e == nil {
			t.Errorf("no exploration of the race claim=%s key=%s dedupe=%s workers=%d", rt.Claim, rt.Key, rt.Dedupe, rt.Workers)
			continue
		}
		if rt.Duplicates > 0 && e.Duplicating == "0" {
			t.Errorf("claim=%s: %d of %d races duplicated, yet Every ordering finds no ordering that does", rt.Claim, rt.Duplicates, rt.Races)
		}
	}
	for _, own := range r.Explorations {
		e := same(own.Claim, own.Key, own.Dedupe, own.Workers)
		if e == nil || e.Orderings != own.Orderings || e.Duplicating != own.Duplicating {
			t.Errorf("the block's race --all found %s of %s; Every ordering %+v", own.Duplicating, own.Orderings, e)
		}
	}
}

// checkTimeline holds the Timeline tab to the run: a load's chart is
// there with each lease's duplicates, a traced run's picture counts the
// duplicates of the effects it draws, and a tab with neither says why.
func checkTimeline(t *testing.T, r *result.Result) {
	t.Helper()
	v := r.Views.Timeline
	if v.Chart {
		if r.Chart == nil {
			t.Fatal("Timeline promises the load chart; the run drew none")
		}
		for _, l := range r.Loads {
			want := fmt.Sprintf(": %d of %d", l.Duplicates, l.Jobs)
			if !strings.Contains(r.Chart.SVG, want) {
				t.Errorf("the chart does not say %q for lease %d µs", want, l.LeaseUS)
			}
		}
	}
	if v.Trace {
		if r.Timeline == nil {
			t.Fatal("Timeline promises a picture of the run; none was drawn")
		}
		dups := 0
		seen := map[string]int{}
		for _, e := range r.Trace {
			if e.Kind.String() == "reset" {
				seen = map[string]int{}
			}
			if e.Effect == nil || e.Effect.Refused || e.Effect.Replayed {
				continue
			}
			k := e.Effect.Order + "/" + e.Effect.Event
			seen[k]++
			if seen[k] > 1 {
				dups++
			}
		}
		if want := fmt.Sprintf("%d duplicate(s)", dups); !strings.Contains(r.Timeline.SVG, want) {
			t.Errorf("the timeline does not say %q", want)
		}
	}
	if !v.Chart && !v.Trace && v.Note == "" {
		t.Error("Timeline draws nothing and says nothing")
	}
}
