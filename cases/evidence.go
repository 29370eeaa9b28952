package cases

import (
	"fmt"
	"strings"

	"github.com/twice-lab/twice/runtime/event"
	"github.com/twice-lab/twice/runtime/script/result"
)

// Evidence is what a case's page shows from its evidence run, the same
// lines for the same seed: the workers' log lines interleaved in the
// order they happened, each worker's steps up to the moment it took the
// job, and the counts an operator would look up.
type Evidence struct {
	Log   []EvidenceLine
	Locks []LockTrace
	// LockSteps are the steps of every LockTrace in the order they ran,
	// the workers interleaved, each with its instant: where another
	// worker came between one worker's check and its set.
	LockSteps []EvidenceLine
	// Counts are, in order: the queue's message ids (rows of the jobs
	// table), deliveries (the jobs' attempts, summed), effects that
	// landed, and the producer's publishes (jobs enqueued by add).
	Counts []Count
}

// An EvidenceLine is one line a worker logged or printed, at its instant.
type EvidenceLine struct {
	AtUS   int64
	Worker string
	Text   string
}

// A LockTrace is one worker's steps from its start to the step that took
// the job (or failed to), in order.
type LockTrace struct {
	Worker string
	Steps  []string
}

// A Count is one number of the evidence, with its name.
type Count struct {
	Name  string
	Value int
}

// EvidenceOf reads the evidence of a run from its trace and tables.
func EvidenceOf(res *result.Result) Evidence {
	var ev Evidence
	locks := map[string]int{} // worker -> index in ev.Locks
	took := map[string]bool{}
	publishes := 0
	for _, e := range res.Trace {
		switch e.Kind {
		case event.Add:
			publishes++
			continue
		case event.Log:
			ev.Log = append(ev.Log, EvidenceLine{AtUS: e.AtUS, Worker: e.Proc, Text: strings.TrimPrefix(e.Step, "append to worker.log: ")})
		case event.Say:
			ev.Log = append(ev.Log, EvidenceLine{AtUS: e.AtUS, Worker: e.Proc, Text: e.Step})
		}
		if e.Kind.Lane() != event.LaneWorker || took[e.Proc] {
			continue
		}
		switch e.Kind {
		case event.Start, event.Clock, event.Log, event.Say, event.Connect:
			continue
		}
		i, ok := locks[e.Proc]
		if !ok {
			i = len(ev.Locks)
			locks[e.Proc] = i
			ev.Locks = append(ev.Locks, LockTrace{Worker: e.Proc})
		}
		ev.Locks[i].Steps = append(ev.Locks[i].Steps, e.Step)
		ev.LockSteps = append(ev.LockSteps, EvidenceLine{AtUS: e.AtUS, Worker: e.Proc, Text: e.Step})
		if e.Kind == event.Claim || e.Kind == event.ClaimFailed {
			took[e.Proc] = true
		}
	}
	deliveries := 0
	for _, j := range res.Jobs {
		deliveries += j.Attempts
	}
	ev.Counts = []Count{
		{"queue message ids", len(res.Jobs)},
		{"deliveries", deliveries},
		{"effects", res.Outcome.Effects},
		{"producer publishes", publishes},
	}
	return ev
}

// FormatAt writes a virtual instant as the evidence shows it: seconds
// and milliseconds since the run began, "0.400 s".
func FormatAt(us int64) string {
	return fmt.Sprintf("%d.%03d s", us/1_000_000, us%1_000_000/1000)
}
