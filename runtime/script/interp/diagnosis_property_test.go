package interp

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/twice-lab/twice/runtime/event"
	"github.com/twice-lab/twice/runtime/script/diagnosis"
)

// causeRecipe is one way to get a second effect for job 1 of order-77,
// written as the flags of the first run and what happens before the next.
type causeRecipe struct {
	name  string
	flags func(r *rand.Rand) string
	// between is the shell line after the first run was sent to the
	// background: a sleep long enough for its lease to pass, and maybe a
	// re-drive.
	between func(r *rand.Rand) string
}

var causeRecipes = []causeRecipe{
	{"slow processing", func(r *rand.Rand) string {
		return fmt.Sprintf("--lease 1 --processing %d", 1200+r.IntN(4000))
	}, sleepPast},
	{"slow call", func(r *rand.Rand) string {
		return fmt.Sprintf("--lease 1 --delay %d --timeout 9000", 1200+r.IntN(3000))
	}, sleepPast},
	{"stall", func(r *rand.Rand) string {
		return fmt.Sprintf("--lease 1 --stall %d", 1500+r.IntN(2000))
	}, sleepPast},
	{"stall past a heartbeat", func(r *rand.Rand) string {
		return fmt.Sprintf("--lease 1 --processing 600 --heartbeat 300 --stall %d", 1500+r.IntN(2000))
	}, sleepPast},
	{"crash before the ack", func(r *rand.Rand) string {
		return "--lease 1 --crash-before-ack"
	}, sleepPast},
	{"crash before the effect", func(r *rand.Rand) string {
		return "--lease 1 --crash-before-effect"
	}, sleepPast},
	{"client retry", func(r *rand.Rand) string {
		return fmt.Sprintf("--lease 1 --delay %d --timeout 300", 400+r.IntN(400))
	}, sleepPast},
	{"re-drive", func(r *rand.Rand) string {
		return fmt.Sprintf("--lease 30 --processing %d", r.IntN(3000))
	}, func(r *rand.Rand) string {
		return fmt.Sprintf("sleep %d.%d\nredeliver --job 1", r.IntN(2), r.IntN(10))
	}},
}

func sleepPast(r *rand.Rand) string { return fmt.Sprintf("sleep %d.%d", 1+r.IntN(2), 1+r.IntN(9)) }

// mixedScript writes a script in which two recipes act on one job, one
// after the other, their runs overlapping, and a third run picks the job
// up last; sometimes the producer publishes the event twice too.
func mixedScript(r *rand.Rand) (string, []string) {
	a := causeRecipes[r.IntN(len(causeRecipes))]
	b := causeRecipes[r.IntN(len(causeRecipes))]
	var s strings.Builder
	names := []string{a.name, b.name}
	if r.IntN(4) == 0 {
		s.WriteString("add order-77 --times 2\n")
		names = append(names, "publish")
	} else {
		s.WriteString("add order-77\n")
	}
	fmt.Fprintf(&s, "work --job 1 --worker W1 %s &\n%s\n", a.flags(r), a.between(r))
	fmt.Fprintf(&s, "work --job 1 --worker W2 %s &\n%s\n", b.flags(r), b.between(r))
	s.WriteString("work --job 1 --worker W3\nwait\n")
	if strings.HasSuffix(names[len(names)-1], "publish") {
		s.WriteString("work --job 2 --worker W4\n")
	}
	s.WriteString("effects\n")
	return s.String(), names
}

// TestDiagnosisNamesPairedCauses generates scripts mixing two causes of a
// second effect and checks, for each, that the diagnosis names a cause
// for every extra effect and never a cause whose evidence is absent from
// the run: no heartbeat without --heartbeat, no "never acked" for a run
// that acked or sent nothing, no processing without --processing, no
// freeze without --stall, no re-drive without redeliver, no client retry
// without a second send of one run.
func TestDiagnosisNamesPairedCauses(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 120
	}
	r := rand.New(rand.NewPCG(19, 2026))
	flagsOf := regexp.MustCompile(`(?m)^work --job \d+ --worker (W\d)(.*)$`)
	named := regexp.MustCompile(`(W\d)(?: \(run \w+\))? (sent its receipt but never acked|was still processing|froze after its last heartbeat|froze past its lease|was waiting on the service's reply)`)
	kinds := map[diagnosis.Kind]int{}
	for i := range n {
		src, names := mixedScript(r)
		res := Run(src, Options{Seed: uint64(i + 1)})
		if res.Error != nil {
			t.Fatalf("%s: %v\n%s", names, res.Error, src)
		}
		flags := map[string]string{}
		for _, m := range flagsOf.FindAllStringSubmatch(src, -1) {
			flags[m[1]] = m[2]
		}
		acked, sent := map[string]bool{}, map[string]bool{}
		for _, e := range res.Trace {
			if e.Kind == event.Ack {
				acked[e.Proc] = true
			}
		}
		retried := false
		for _, e := range res.Effects {
			if !e.Refused && !e.Replayed {
				sent[e.Worker] = true
			}
			retried = retried || e.Send > 1
		}
		for _, s := range res.Summary {
			events := map[string]bool{}
			for _, e := range res.Effects {
				if e.Order == s.Order && !e.Refused && !e.Replayed {
					events[e.Event] = true
				}
			}
			fail := func(format string, args ...any) {
				t.Helper()
				t.Errorf("%s at seed %d: %s\n%s\n%s", names, i+1, fmt.Sprintf(format, args...), src, res.Text())
			}
			d := s.Diagnosis
			if s.Effects > len(events) {
				kinds[s.Kind]++
				if s.Kind == diagnosis.Unknown || strings.Contains(d, "cannot tell why") {
					fail("an extra effect has no cause")
				}
			}
			if strings.Contains(d, "heartbeat") && !strings.Contains(src, "--heartbeat") {
				fail("a heartbeat named, none configured")
			}
			if strings.Contains(d, "redeliver") && !strings.Contains(src, "redeliver") {
				fail("a re-drive named, none in the script")
			}
			if strings.Contains(d, "client retry") && !retried {
				fail("a client retry named, no run sent twice")
			}
			for _, m := range named.FindAllStringSubmatch(d, -1) {
				w, what := m[1], m[2]
				f := flags[w]
				switch {
				case what == "sent its receipt but never acked" && (acked[w] || !sent[w]):
					fail("%s said never to have acked, but acked=%v sent=%v", w, acked[w], sent[w])
				case what == "was still processing" && !strings.Contains(f, "--processing"):
					fail("%s said to be processing, with no --processing", w)
				case strings.HasPrefix(what, "froze") && !strings.Contains(f, "--stall"):
					fail("%s said to have frozen, with no --stall", w)
				case what == "froze after its last heartbeat" && !strings.Contains(f, "--heartbeat"):
					fail("%s said to have had a heartbeat, with none", w)
				case what == "was waiting on the service's reply" && !sent[w]:
					fail("%s said to wait on a reply, but sent nothing", w)
				}
			}
		}
	}
	t.Logf("diagnosed kinds of orders with an extra effect: %v", kinds)
	// The generator must reach the causes it is about, not only a few.
	for _, k := range []diagnosis.Kind{diagnosis.Slow, diagnosis.SlowCall, diagnosis.Stall, diagnosis.LeaseExpired, diagnosis.Redriven, diagnosis.Mixed} {
		if kinds[k] == 0 {
			keys := slices.Collect(func(yield func(string) bool) {
				for k, n := range kinds {
					if !yield(fmt.Sprintf("%s=%d", k, n)) {
						return
					}
				}
			})
			slices.Sort(keys)
			t.Errorf("no generated script was diagnosed %s; got %v", k, keys)
		}
	}
}
