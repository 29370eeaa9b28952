package views

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/twice-lab/twice/runtime/explore"
	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/receipts"
	"github.com/twice-lab/twice/runtime/script/lang"
	"github.com/twice-lab/twice/runtime/script/result"
	"github.com/twice-lab/twice/runtime/sim"
)

// RaceLabel names what a race ran with: the claim, and the service's
// dedupe mode and the workers' key when they are set.
func RaceLabel(claim queue.Claim, dedupe receipts.Dedupe, key receipts.Key) string {
	s := "claim=" + claim.String()
	if dedupe != receipts.DedupeOff {
		s += ", dedupe=" + dedupe.String()
	}
	if key != receipts.KeyNone {
		s += ", key=" + key.String()
	}
	return s
}

// FlagsLabel names the worker flags of a race --all after its claim:
// ", effect=ledger, key-txn=separate, heartbeat=300ms, fence,
// txn=deferred, busy-timeout=0ms", or "" with none.
func FlagsLabel(r lang.RaceArgs) string {
	s := ""
	if r.Effect != lang.EffectReceipt {
		s += ", effect=" + r.Effect
	}
	if r.KeyTxn == lang.KeyTxnSeparate {
		s += ", key-txn=" + r.KeyTxn
	}
	if r.Heartbeat > 0 {
		s += fmt.Sprintf(", heartbeat=%dms", r.Heartbeat/sim.Millisecond)
	}
	if r.Fence {
		s += ", fence"
	}
	return s + TxnLabel(r)
}

// TxnLabel names a race's transaction mode and busy timeout where they
// are not the defaults: ", txn=deferred, busy-timeout=0ms", or "".
func TxnLabel(r lang.RaceArgs) string {
	s := ""
	if r.Txn != queue.TxnAutocommit {
		s += ", txn=" + r.Txn.String()
	}
	if r.BusyTimeout != lang.DefaultBusyTimeout {
		s += fmt.Sprintf(", busy-timeout=%dms", r.BusyTimeout/sim.Millisecond)
	}
	return s
}

// ReplayLine is the command that plays the steps of an ordering as race
// --schedule, with every flag of the race written out and the service's
// dedupe mode before it when one is set: pasted anywhere, it replays
// the ordering as printed, and stops where it stops.
func ReplayLine(r lang.RaceArgs, dedupe receipts.Dedupe, steps []result.ExploreStep) string {
	a := r
	a.All, a.Used, a.Schedule = false, nil, []int{}
	for _, s := range steps {
		// (strconv, not fmt.Sscanf: scanning would bring fmt's whole
		// scanner into the browser's module, 30 kB of brotli.)
		n, _ := strconv.Atoi(strings.TrimPrefix(s.Worker, "W"))
		a.Schedule = append(a.Schedule, n-1)
	}
	line := lang.Command{Kind: lang.CmdRace, Race: a}.String()
	if dedupe != receipts.DedupeOff {
		line = "service --dedupe " + dedupe.String() + " && " + line
	}
	return line
}

// ScheduleOutcome says where a schedule left its race: the effects, and
// for a race not over, each worker's next step.
func ScheduleOutcome(play *explore.Replay) string {
	if play.Done {
		return EffectsWords(len(play.Effects))
	}
	var left []string
	for i, n := range play.Next {
		if n.Label != "" {
			left = append(left, fmt.Sprintf("%s still has %s (next: %s)", n.Worker, plural(play.Left[i], "1 step", fmt.Sprintf("%d steps", play.Left[i])), n.Label))
		}
	}
	return EffectsWords(len(play.Effects)) + " so far; " + strings.Join(left, "; ")
}

// EffectsWords says how many effects landed, as a schedule's outcome.
func EffectsWords(n int) string {
	switch n {
	case 0:
		return "no effect"
	case 1:
		return "one effect"
	case 2:
		return "two effects"
	}
	return fmt.Sprintf("%d effects", n)
}
