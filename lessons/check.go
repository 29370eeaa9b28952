package lessons

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/twice-lab/twice/runtime/script/interp"
	"github.com/twice-lab/twice/runtime/script/result"
)

// A CheckResult is what one check of a case found for one fix: pass or
// fail, and the evidence, one line of numbers from the run. The page's
// Run checks button prints the same lines (site/static/case.js computes
// them from the run's JSON; a browser test holds the two together).
type CheckResult struct {
	Name     string
	Pass     bool
	Evidence string
}

// String is the check's line as twice case check prints it:
// "pass NAME: evidence" or "fail NAME: evidence".
func (r CheckResult) String() string {
	word := "fail"
	if r.Pass {
		word = "pass"
	}
	return word + " " + r.Name + ": " + r.Evidence
}

// CheckScript is the script a check runs: the fix prelude, then the
// check's own lines.
func CheckScript(fix string, ck Check) string {
	if fix != "" && !strings.HasSuffix(fix, "\n") {
		fix += "\n"
	}
	return fix + ck.Block.Script
}

// RunChecks runs every check of the case after the prelude fix, in
// order, and reports each.
func (c *Case) RunChecks(fix string) []CheckResult {
	out := make([]CheckResult, len(c.Checks))
	for i, ck := range c.Checks {
		out[i] = RunCheck(fix, ck)
	}
	return out
}

// RunCheck runs one check after the prelude fix. A script that stops with
// an error fails the check, with the error (placed in the fix or in the
// check) as its evidence.
func RunCheck(fix string, ck Check) CheckResult {
	res := interp.Run(CheckScript(fix, ck), interp.Options{Seed: ck.Seed})
	return Judge(ck, fix, res)
}

// Judge reports what res, the run of ck after fix, shows against what ck
// asks.
func Judge(ck Check, fix string, res *result.Result) CheckResult {
	r := CheckResult{Name: ck.Name, Pass: true}
	if e := res.Error; e != nil {
		fixLines := strings.Count(CheckScript(fix, Check{}), "\n")
		where := "the check"
		line := e.Line
		if line > 0 && line <= fixLines {
			where = "the fix"
		} else if line > 0 {
			line -= fixLines
		}
		msg := e.Msg
		if line > 0 {
			msg = fmt.Sprintf("line %d: %s", line, e.Msg)
		}
		r.Pass = false
		r.Evidence = where + " stops with an error: " + msg
		return r
	}
	var parts []string
	for _, x := range ck.Expect {
		ok, words := judge(x, res)
		if !ok {
			r.Pass = false
			if x.What != "once" {
				words += fmt.Sprintf(" (want %d)", x.N)
			}
		}
		parts = append(parts, words)
	}
	r.Evidence = strings.Join(parts, "; ")
	return r
}

// judge says whether res meets x, and the evidence in words.
func judge(x Expectation, res *result.Result) (bool, string) {
	switch x.What {
	case "duplicates":
		sum := new(big.Int)
		var said []string
		for _, e := range res.Explorations {
			d, _ := new(big.Int).SetString(e.Duplicating, 10)
			if d != nil {
				sum.Add(sum, d)
			}
			said = append(said, fmt.Sprintf("two effects in %s of %s orderings of %d workers", e.Duplicating, e.Orderings, e.Workers))
		}
		for _, t := range res.Races {
			sum.Add(sum, big.NewInt(int64(t.Duplicates)))
			said = append(said, fmt.Sprintf("two effects in %d of %d races", t.Duplicates, t.Races))
		}
		if len(said) == 0 {
			said = append(said, "no race ran")
		}
		return sum.Cmp(big.NewInt(int64(x.N))) == 0, strings.Join(said, ", ")
	case "overlap":
		sum := new(big.Int)
		var said []string
		for _, e := range res.Explorations {
			if d, ok := new(big.Int).SetString(e.Overlap, 10); ok {
				sum.Add(sum, d)
			}
			said = append(said, fmt.Sprintf("two owners at once in %s of %s orderings of %d workers", e.Overlap, e.Orderings, e.Workers))
		}
		if len(said) == 0 {
			said = append(said, "no race --all ran")
		}
		return sum.Cmp(big.NewInt(int64(x.N))) == 0, strings.Join(said, ", ")
	case "effects":
		n := res.Outcome.Effects
		return n == x.N, fmt.Sprintf("%d %s landed", n, plural(n, "effect", "effects"))
	case "deliveries":
		n := 0
		for _, j := range res.Jobs {
			n += j.Attempts
		}
		return n == x.N, fmt.Sprintf("%d %s", n, plural(n, "delivery", "deliveries"))
	case "once":
		return once(res)
	}
	return false, "cannot check " + x.What
}

// once reports whether every event the producer published (the events of
// the jobs table) has exactly one effect.
func once(res *result.Result) (bool, string) {
	var events []string
	count := map[string]int{}
	eventOf := map[int64]string{}
	for _, j := range res.Jobs {
		eventOf[j.ID] = j.Event
		if _, ok := count[j.Event]; !ok {
			events = append(events, j.Event)
			count[j.Event] = 0
		}
	}
	for _, e := range res.Effects {
		if !e.Refused && !e.Replayed {
			count[e.Event]++
		}
	}
	for _, l := range res.Ledger {
		count[eventOf[l.Job]]++
	}
	ok := len(events) > 0
	var per []string
	for _, ev := range events {
		ok = ok && count[ev] == 1
		per = append(per, fmt.Sprintf("%s %d", ev, count[ev]))
	}
	if len(events) == 0 {
		return false, "the producer published no event"
	}
	return ok, fmt.Sprintf("effects per published event: %s", strings.Join(per, ", "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
