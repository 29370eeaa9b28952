package interp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/twice-lab/twice/runtime/script/lang"
	"github.com/twice-lab/twice/runtime/script/result"
)

// repeat returns line n times, each ending in a newline.
func repeat(line string, n int) string { return strings.Repeat(line+"\n", n) }

// fill appends line to src as often as fits in MaxScriptBytes and
// MaxCommands, as an attacker filling a share link would.
func fill(src, line string) string {
	for len(src)+len(line)+1 <= lang.MaxScriptBytes && strings.Count(src, "\n") < lang.MaxCommands {
		src += line + "\n"
	}
	return src
}

// cutAt runs src under b and checks that it stopped on budget what, with
// one line naming what ran out and where, exit 1, and what ran before it
// kept.
func cutAt(t *testing.T, src string, b Budget, what string) *result.Result {
	t.Helper()
	res := Run(src, Options{Seed: DefaultSeed, Budget: b})
	checkResult(t, src, res)
	if res.Cut == nil || res.Cut.Budget != what {
		t.Fatalf("cut = %+v, error %v; want the %s budget to run out", res.Cut, res.Error, what)
	}
	if res.ExitCode != 1 || res.Error.Kind != "runtime" || !strings.HasSuffix(res.Error.Msg, "; stopped") {
		t.Fatalf("exit %d, error %v; want exit 1 and a runtime error ending in '; stopped'", res.ExitCode, res.Error)
	}
	if res.Cut.Auto != b.Auto || res.Heavy != b.Auto {
		t.Errorf("cut %+v, heavy %v, for a budget with Auto %v", res.Cut, res.Heavy, b.Auto)
	}
	full := b.orFull()
	s := res.Spent
	// Stopping "at once": one step, one statement, one line past the
	// limit at most, besides the views, charged in one piece.
	if s.Output > full.Output+64<<10+viewsBytes(res.Views) || s.Polls > full.Polls+1 || s.Steps > full.Steps+1 {
		t.Errorf("spent %+v, well past the budget %+v", s, full)
	}
	n := 0
	for _, l := range res.Transcript {
		n += len(l) + 1
	}
	if n > full.Output {
		t.Errorf("the transcript kept %d bytes, more than the output budget %d", n, full.Output)
	}
	return res
}

// TestReproducersStop runs each script that once took minutes or
// gigabytes and checks that it now stops within the budget, with its
// one-line message.
func TestReproducersStop(t *testing.T) {
	t.Parallel()
	full := Budget{}
	if testing.Short() {
		full = AutoBudget // the same paths, a smaller budget
	}
	t.Run("printing tables", func(t *testing.T) {
		t.Parallel()
		// 500 jobs, then the whole table printed again and again.
		res := cutAt(t, repeat("add a --times 100", 5)+repeat("jobs", 400), full, result.BudgetOutput)
		if len(res.Transcript) == 0 || !strings.HasPrefix(res.Transcript[0], "job 1 a event=ev-1 status=queued") {
			t.Errorf("the transcript before the cut is lost: %d lines", len(res.Transcript))
		}
		if !strings.Contains(res.Error.Msg, "output passed") {
			t.Errorf("error %q does not say the output ran out", res.Error.Msg)
		}
	})
	t.Run("adding without end", func(t *testing.T) {
		t.Parallel()
		// 3,600 adds of 100 jobs each: the trace and the jobs table were
		// 173 MB of JSON.
		res := cutAt(t, fill("", "add a --times 100"), full, result.BudgetOutput)
		if j, _ := res.MarshalJSON(); len(j) > 2*outputLimit(res.Cut) {
			t.Errorf("the JSON of a cut run is %d bytes, over twice the output budget", len(j))
		}
	})
	t.Run("printing at 64 KiB", func(t *testing.T) {
		t.Parallel()
		cutAt(t, fill(repeat("add a --times 100", 1000), "jobs"), full, result.BudgetOutput)
	})
	t.Run("reclaims without end", func(t *testing.T) {
		t.Parallel()
		// A heartbeat longer than the lease: the lease always runs out
		// first, another consumer reclaims the job, for ever.
		res := cutAt(t, "load 1000 --processing fixed:2428 --lease 0.523 --workers 8 --heartbeat 938", full, result.BudgetPolls)
		if !strings.Contains(res.Error.Msg, "polls and reclaims passed") || res.Error.Line != 1 {
			t.Errorf("error %v does not name the polls at line 1", res.Error)
		}
	})
	t.Run("effects of many runs, again and again", func(t *testing.T) {
		t.Parallel()
		src := repeat("add a --event e --times 100", 20)
		for i := 1; i <= 2000; i++ {
			src += fmt.Sprintf("work --job %d\n", i)
		}
		cutAt(t, fill(src, "effects"), full, result.BudgetOutput)
	})
	t.Run("views of many distinct races", func(t *testing.T) {
		t.Parallel()
		// 2,083 races, each with a heartbeat of its own (48 KB): Every
		// ordering and Compare carry a script of them per worker count
		// and per claim, about 900 KB, which took 7 s to write before
		// any budget counted it. The views alone pass the small budget
		// of a share link, so nothing runs and the page waits for Run.
		src := ""
		for i := 1; len(src) < 48<<10; i++ {
			src += fmt.Sprintf("race 1 --heartbeat=%d\n", i)
		}
		res := Run(src, Options{Seed: DefaultSeed, Budget: AutoBudget})
		if res.Cut == nil || res.Cut.Budget != result.BudgetOutput || !res.Heavy || res.Error == nil || res.Error.Line != 1 {
			t.Fatalf("cut %+v, heavy %v, error %v; want the output budget passed at line 1, heavy", res.Cut, res.Heavy, res.Error)
		}
		if len(res.Transcript) != 0 || len(res.Races) != 0 {
			t.Errorf("%d transcript lines, %d races ran; want nothing run", len(res.Transcript), len(res.Races))
		}
		if j, _ := res.MarshalJSON(); res.Spent.Output < len(j)/2 {
			t.Errorf("the run spent %d bytes of output, its JSON is %d bytes: the views are not counted", res.Spent.Output, len(j))
		}
	})
	t.Run("SQLite work", func(t *testing.T) {
		t.Parallel()
		// Listing a big table costs SQLite work whether or not it prints:
		// effects reads every job each time.
		src := repeat("add a --times 100", 20)
		cutAt(t, fill(src, "effects"), Budget{Work: 5_000_000}, result.BudgetWork)
	})
}

// outputLimit is the output budget a cut run had, for the test above.
func outputLimit(c *result.Cut) int {
	if c.Auto {
		return AutoBudget.Output
	}
	return FullBudget.Output
}

func TestAutoBudget(t *testing.T) {
	// A share link of a script that fits: the same bytes as a full run.
	src := "race read 20\neffects"
	a := Run(src, Options{Seed: 3, Budget: AutoBudget})
	b := Run(src, Options{Seed: 3})
	ja, _ := a.MarshalJSON()
	jb, _ := b.MarshalJSON()
	if string(ja) != string(jb) || a.Heavy || a.Cut != nil {
		t.Fatalf("a script within the auto budget runs differently under it: heavy %v, cut %+v", a.Heavy, a.Cut)
	}
	// One that does not: heavy, and the JSON says so at the top level.
	heavy := Run("race read 10000 --workers 8", Options{Seed: 3, Budget: AutoBudget})
	if !heavy.Heavy || heavy.Cut == nil || !heavy.Cut.Auto || heavy.ExitCode != 1 {
		t.Fatalf("heavy %v, cut %+v, exit %d; want a heavy cut run", heavy.Heavy, heavy.Cut, heavy.ExitCode)
	}
	j, _ := heavy.MarshalJSON()
	if !strings.HasSuffix(string(j), `"heavy":true}`) {
		t.Errorf("the JSON ends %q; want \"heavy\":true at the top level", j[max(0, len(j)-80):])
	}
	if !strings.Contains(heavy.Error.Msg, "press Run") {
		t.Errorf("the message %q does not say how to run it in full", heavy.Error.Msg)
	}
	// The full budget runs it to the end, and is not heavy when it stops.
	if testing.Short() {
		return
	}
	if r := Run("race read 10000 --workers 8", Options{Seed: 3}); r.Error != nil || r.Heavy {
		t.Errorf("the full budget: %v, heavy %v", r.Error, r.Heavy)
	}
	if r := Run(repeat("add a --times 100", 200), Options{Seed: 3}); r.Cut == nil || r.Heavy {
		t.Errorf("a full run that passes its budget: cut %+v, heavy %v; want cut, not heavy", r.Cut, r.Heavy)
	}
}

// TestBudgetFields checks that a zero field of a Budget means the full
// budget's, and that a matrix's cells spend from the run that made it.
func TestBudgetFields(t *testing.T) {
	t.Parallel()
	if got := (Budget{Polls: 7}).orFull(); got.Polls != 7 || got.Steps != FullBudget.Steps || got.Output != FullBudget.Output || got.Work != FullBudget.Work {
		t.Errorf("Budget{Polls: 7} means %+v", got)
	}
	one := matrixRun(t)
	if s := one.Spent; s.Steps < 10_000 || s.Work < 100_000 {
		t.Errorf("a matrix spent %+v: its cells' work is not counted", s)
	}
	// A cut a quarter of the way in stops inside the cells.
	cutAt(t, "matrix --seed 3", Budget{Steps: one.Spent.Steps / 4}, result.BudgetSteps)
}

// BenchmarkEffectsMany is the effects command over one order with many
// effects of one event: the cost of grouping and diagnosing them.
//
//	go test ./runtime/script/interp -run '^$' -bench EffectsMany
func BenchmarkEffectsMany(b *testing.B) {
	for _, n := range []int{100, 1000} {
		src := repeat("add a --event e --times 100", n/100)
		for i := 1; i <= n; i++ {
			src += fmt.Sprintf("work --job %d --key run\n", i)
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			in, err := newInterp(1, Budget{}, &result.Result{})
			if err != nil {
				b.Fatal(err)
			}
			defer in.close()
			s, perr := lang.Parse(src)
			if perr != nil {
				b.Fatal(perr)
			}
			for _, c := range s.Commands {
				if _, err := in.exec(c); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for range b.N {
				if _, err := in.summarize(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
