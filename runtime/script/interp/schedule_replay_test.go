package interp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/script/diagnosis"
)

// TestPrintedOrderingReplays takes, for races of every claim with the
// flags and dedupe modes race --all explores, the shortest duplicating
// ordering the explorer prints as a command (its "replay it:" line), and
// runs that line as a script of its own: it must exit 0, print the steps
// the explorer printed, reach the two effects, and leave the tables to
// describe that race: effects shows two effects, and the diagnosis names
// the claim race the steps are (no lease lapses in an ordering), while
// jobs shows the job held by the run that claimed it last.
func TestPrintedOrderingReplays(t *testing.T) {
	var races []string
	for _, claim := range queue.Claims() {
		for _, flags := range []string{"", " --heartbeat 300", " --fence", " --heartbeat 300 --fence", " --effect ledger"} {
			for _, svc := range []string{"", "service --dedupe check\n", "service --dedupe claim\n"} {
				key := ""
				if svc != "" {
					if flags == " --effect ledger" {
						continue
					}
					key = " --key job"
				}
				races = append(races, fmt.Sprintf("%srace %s --all%s%s", svc, claim, flags, key))
			}
		}
	}
	replayed := 0
	for _, src := range races {
		all := Run(src+"\n", Options{Seed: DefaultSeed})
		if all.Error != nil {
			t.Fatalf("%s: %v", src, all.Error)
		}
		text := all.Text()
		_, line, ok := strings.Cut(text, "  replay it: ")
		if !ok {
			continue // no ordering duplicates
		}
		line = strings.TrimSuffix(line, "\n")
		var steps []string
		for _, l := range all.Transcript {
			if strings.HasPrefix(l, "  ") && len(l) > 3 && l[2] >= '1' && l[2] <= '9' {
				steps = append(steps, l)
			}
		}
		res := Run(line+"\neffects\njobs\n", Options{Seed: DefaultSeed})
		if res.Error != nil || res.ExitCode != 0 {
			t.Errorf("%s: the printed ordering %q does not replay: %v", src, line, res.Error)
			continue
		}
		replayed++
		got := res.Text()
		if !strings.HasPrefix(got, strings.Join(steps, "\n")+"\n") {
			t.Errorf("%s: %q replays other steps than the explorer printed:\n%s\nwant first:\n%s", src, line, got, strings.Join(steps, "\n"))
		}
		if !strings.Contains(got, ": two effects") {
			t.Errorf("%s: %q does not reach two effects:\n%s", src, line, got)
		}
		if strings.Contains(src, "ledger") {
			if len(res.Ledger) != 2 {
				t.Errorf("%s: %q leaves %d ledger rows, want 2:\n%s", src, line, len(res.Ledger), got)
			}
			continue
		}
		if len(res.Summary) != 1 || res.Summary[0].Effects != 2 || res.Summary[0].Kind != diagnosis.ClaimRace {
			t.Errorf("%s: after %q, effects says %+v, want two effects from a claim race:\n%s", src, line, res.Summary, got)
		}
		if len(res.Jobs) != 1 || res.Jobs[0].Run == "" || res.Jobs[0].Attempts < 2 {
			t.Errorf("%s: after %q, jobs says %+v, want the job held by the run that claimed it last", src, line, res.Jobs)
		}
	}
	// The read claim and the async lock duplicate under every flag but
	// the ledger: at least those orderings must have been replayed.
	if replayed < 12 {
		t.Fatalf("only %d of %d races printed an ordering that replays", replayed, len(races))
	}
}
