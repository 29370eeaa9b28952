package views

import (
	"fmt"
	"strings"

	"github.com/twice-lab/twice/runtime/explore"
	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/receipts"
	"github.com/twice-lab/twice/runtime/script/lang"
	"github.com/twice-lab/twice/runtime/script/result"
	"github.com/twice-lab/twice/runtime/sim"
)

// busyWords is what SQLite says of SQLITE_BUSY, without the driver's
// prefix.
var busyWords = strings.TrimPrefix(queue.BusyText, "sqlite3: ")

// showsBusy reports whether a race's mode can make a worker die of
// SQLITE_BUSY: a claim in a transaction, or no busy timeout. Only then
// are the deaths counted.
func showsBusy(r lang.RaceArgs) bool { return r.Txn.Open() || r.BusyTimeout == 0 }

// txnOf is the race's transaction mode as the Result writes it: absent
// for autocommit.
func txnOf(r lang.RaceArgs) string {
	if r.Txn == queue.TxnAutocommit {
		return ""
	}
	return r.Txn.String()
}

// RaceTallyLine completes a timed race's tally with its mode, where it
// shows deaths of SQLITE_BUSY, and returns the line the race prints.
func RaceTallyLine(r lang.RaceArgs, dedupe receipts.Dedupe, t *result.RaceTally) string {
	label := RaceLabel(r.Claim, dedupe, r.Key) + TxnLabel(r)
	died := ""
	if showsBusy(r) {
		t.Txn, t.NoBusy = txnOf(r), r.BusyTimeout == 0
		died = fmt.Sprintf("; a worker died of SQLITE_BUSY (%s) in %d", busyWords, t.Busy)
	}
	if r.Workers == lang.DefaultWorkers {
		return fmt.Sprintf("%s: two effects in %d of %d races%s", label, t.Duplicates, r.N, died)
	}
	return fmt.Sprintf("%s, %d workers: two or more effects in %d of %d races%s", label, r.Workers, t.Duplicates, r.N, died)
}

// Exploration is race --all's report: what the Result keeps of the
// explorer's count, and the lines the race prints.
func Exploration(r lang.RaceArgs, dedupe receipts.Dedupe, rep *explore.Report) (result.Exploration, []string) {
	x := result.Exploration{
		Claim: r.Claim.String(), Workers: r.Workers, Dedupe: dedupe.String(), Key: r.Key.String(),
		Orderings: rep.Orderings.String(), Duplicating: rep.Duplicating.String(), Overlap: rep.Overlap.String(),
		States: rep.States, Method: explore.Method, Shortest: []result.ExploreStep{},
		HeartbeatMS: int(r.Heartbeat / sim.Millisecond), Fence: r.Fence,
	}
	if r.Effect != lang.EffectReceipt {
		x.Effect = r.Effect
	}
	if r.KeyTxn == lang.KeyTxnSeparate {
		x.KeyTxn = r.KeyTxn
	}
	if showsBusy(r) {
		x.Txn, x.NoBusy, x.Busy = txnOf(r), r.BusyTimeout == 0, rep.Busy.String()
	}
	for _, s := range rep.Shortest {
		x.Shortest = append(x.Shortest, result.ExploreStep{Worker: s.Worker, What: s.What})
	}
	label := RaceLabel(r.Claim, dedupe, r.Key) + FlagsLabel(r)
	lines := []string{fmt.Sprintf("%s: two effects in %s of %s interleavings of %d workers", label, x.Duplicating, x.Orderings, r.Workers)}
	add := func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	if r.Heartbeat > 0 {
		add("  each worker renews its lease once, between its claim and its effect: timing is ignored, --heartbeat's period with it")
	}
	// Two owners at once is what a lock promises never happens, so a lock
	// claim's count is printed, zero included. For a claim with no lock
	// the duplicating count already tells its story (and two effects need
	// not overlap: a stale read can take a job its first owner has
	// acked), so the count is in the Result only.
	if r.Claim.Locks() {
		who := "two workers"
		if r.Workers == 2 {
			who = "both workers"
		}
		add("  %s owned the job at once (each between its claim and its ack) in %s of %s interleavings", who, x.Overlap, x.Orderings)
	}
	if showsBusy(r) {
		add("  a worker died of SQLITE_BUSY (%s) in %s of %s interleavings", busyWords, x.Busy, x.Orderings)
	}
	if len(x.Shortest) == 0 {
		add("  every interleaving checked, none gives two effects (exact count over %d states)", x.States)
		return x, lines
	}
	add("  every interleaving checked (exact count over %d states); the shortest that gives two effects:", x.States)
	for i, s := range x.Shortest {
		add("  %d. %s %s", i+1, s.Worker, s.What)
	}
	add("  replay it: %s", ReplayLine(r, dedupe, x.Shortest))
	return x, lines
}
