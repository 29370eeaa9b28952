package explore

import (
	"flag"
	"fmt"
	"testing"

	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/receipts"
)

var printStates = flag.Bool("states", false, "print the statesOf table as Go, measured by exploring")

// TestPrintStates writes the statesOf table from real searches:
//
//	go test ./runtime/explore -run PrintStates -states
func TestPrintStates(t *testing.T) {
	if !*printStates {
		t.Skip("only with -states")
	}
	seen := map[statesKey]bool{}
	for _, flags := range flagSets() {
		for _, claim := range queue.Claims() {
			for _, svc := range services() {
				k := svc.statesKey(claim, flags)
				if seen[k] {
					continue
				}
				seen[k] = true
				var row [MaxWorkers - MinWorkers + 1]int
				prev := 0
				for w := MinWorkers; w <= MaxWorkers; w++ {
					if prev > StatesTabled {
						row[w-MinWorkers] = ManyStates
						continue
					}
					r, err := ExploreRace(claim, w, svc, flags)
					if err != nil {
						t.Fatal(err)
					}
					row[w-MinWorkers], prev = r.States, r.States
				}
				cells := ""
				for i, n := range row {
					if i > 0 {
						cells += ", "
					}
					if n == ManyStates {
						cells += "ManyStates"
					} else {
						cells += fmt.Sprint(n)
					}
				}
				fmt.Printf("\t{%q, %s, %s, %s}: {%s},\n", k.claim, dedupeName(k.dedupe), kindName(k.key), flagsName(flags), cells)
			}
		}
	}
}

func dedupeName(d receipts.Dedupe) string {
	switch d {
	case receipts.DedupeCheck:
		return "receipts.DedupeCheck"
	case receipts.DedupeClaim:
		return "receipts.DedupeClaim"
	}
	return "receipts.DedupeOff"
}

func kindName(k keyKind) string { return [...]string{"keySame", "keyRun", "keyTry"}[k] }

func flagsName(f Flags) string {
	s := ""
	add := func(on bool, n string) {
		if on {
			if s != "" {
				s += ", "
			}
			s += n + ": true"
		}
	}
	add(f.Heartbeat, "Heartbeat")
	add(f.Fence, "Fence")
	add(f.Ledger, "Ledger")
	add(f.SeparateKey, "SeparateKey")
	return "Flags{" + s + "}"
}
