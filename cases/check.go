package cases

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/twice-lab/twice/runtime/script/interp"
	"github.com/twice-lab/twice/runtime/script/lang"
	"github.com/twice-lab/twice/runtime/script/result"
)

// A Check is one twice block of a case's ## Checks section: a script that
// runs after the reader's fix, and what its run must show.
type Check struct {
	Name  string
	Line  int
	Seed  uint64
	Block Block
	// Expect lists what the run must show, in the order written.
	Expect []Expectation
}

// An Expectation is one condition of a check with its number: what the
// info string says as NAME=N, or NAME alone.
type Expectation struct {
	// What is the name of one of [Conditions].
	What string
	// N is the number wanted (0 for a condition with no number).
	N int
}

// DefaultCheckSeed is the seed a check runs at unless it says seed=N.
const DefaultCheckSeed uint64 = 1

// ParseCheck reads a check from its block: the info string (twice, then
// name=NAME, an optional seed=N, and what the run must show, each one of
// [Conditions]) and its script, which must parse on its own.
func ParseCheck(b Block) (Check, error) {
	ck := Check{Line: b.Line, Block: b, Seed: DefaultCheckSeed}
	fields := strings.Fields(b.Info)
	if len(fields) == 0 || fields[0] != "twice" {
		return ck, fmt.Errorf("info string %q does not start with \"twice\"", lang.Short(b.Info))
	}
	seen := map[string]bool{}
	for _, f := range fields[1:] {
		key, val, hasVal := strings.Cut(f, "=")
		if seen[key] {
			return ck, fmt.Errorf("check option %q given twice", lang.Short(key))
		}
		seen[key] = true
		switch key {
		case "name":
			if !validName(val) {
				return ck, fmt.Errorf("check name=%s: want lower-case letters, digits and dashes", lang.Short(val))
			}
			ck.Name = val
			continue
		case "seed":
			n, err := strconv.ParseUint(val, 10, 64)
			if !hasVal || err != nil {
				return ck, fmt.Errorf("check option seed=%s: want a whole number from 0 to 18446744073709551615", lang.Short(val))
			}
			ck.Seed = n
			continue
		}
		c, ok := condition(key)
		if !ok {
			return ck, fmt.Errorf("unknown check option %q (known: name=NAME, seed=N, %s)", lang.Short(key), conditionNames())
		}
		if !c.Number {
			if hasVal {
				return ck, fmt.Errorf("check option %s takes no value", key)
			}
			ck.Expect = append(ck.Expect, Expectation{What: key})
			continue
		}
		n, err := strconv.Atoi(val)
		if !hasVal || err != nil || n < 0 {
			return ck, fmt.Errorf("check option %s=%s: want a whole number, 0 or more", key, lang.Short(val))
		}
		ck.Expect = append(ck.Expect, Expectation{What: key, N: n})
	}
	if ck.Name == "" {
		return ck, errors.New("a check needs a name: write its block as ```twice name=NAME followed by what its run must show")
	}
	if len(ck.Expect) == 0 {
		return ck, fmt.Errorf("check %s asks for nothing; give it one of %s", ck.Name, conditionNames())
	}
	if _, err := lang.Parse(b.Script); err != nil {
		return ck, fmt.Errorf("check %s: its script: %v", ck.Name, err)
	}
	return ck, nil
}

// A Verdict is what one check found for one fix: pass or fail, and the
// evidence, the numbers the run showed. twice case check prints its
// String; so does the page's Run checks, which gets it from the runtime
// module (the same Go).
type Verdict struct {
	Name string
	Pass bool
	// Heavy is set when the check's run passed the budget it was given
	// (a page load's): neither pass nor fail, it was not judged.
	Heavy    bool
	Evidence string
}

// String is the verdict's line: "pass NAME: evidence", "fail NAME:
// evidence", or, for a heavy one, "wait NAME: evidence".
func (v Verdict) String() string {
	word := "fail"
	switch {
	case v.Heavy:
		word = "wait"
	case v.Pass:
		word = "pass"
	}
	return word + " " + v.Name + ": " + v.Evidence
}

// Options are what a check's run may spend, and who hears how far it
// has got; the zero Options is a run someone asked for.
type Options struct {
	// Budget is the run's budget: zero for interp.FullBudget, and
	// interp.AutoBudget for checks nobody pressed Run checks for (a
	// submitted fix's link, replayed as its page loads).
	Budget interp.Budget
	// Progress is as interp.Options.Progress.
	Progress func(done, of int, what string)
}

// RunChecks runs every check of the case after fix, in order.
func (c *Case) RunChecks(fix *Fix, opts Options) []Verdict {
	out := make([]Verdict, len(c.Checks))
	for i, ck := range c.Checks {
		out[i] = ck.Run(fix, opts)
	}
	return out
}

// Run runs the check after fix (nil for none) and judges its run. The
// fix's lines and the check's are parsed apart first, so the run is
// the fix's commands followed by exactly the check's.
func (ck Check) Run(fix *Fix, opts Options) Verdict {
	src, before := fix.script(ck.Block.Script)
	own, err := lang.Parse(ck.Block.Script)
	if err == nil {
		var all *lang.Script
		if all, err = lang.Parse(src); err == nil && (len(all.Commands) != len(own.Commands)+before ||
			len(own.Commands) > 0 && all.Commands[before].Pos.Line != own.Commands[0].Pos.Line+before) {
			err = errors.New("the fix and the check do not run as two parts")
		}
	}
	if err != nil {
		return Verdict{Name: ck.Name, Evidence: "the check does not parse: " + err.Error()}
	}
	res := interp.Run(src, interp.Options{Seed: ck.Seed, Budget: opts.Budget, Progress: opts.Progress})
	return ck.Judge(res, before)
}

// Judge says what res, the run of the check after a fix of before lines,
// shows against what the check asks.
func (ck Check) Judge(res *result.Result, before int) Verdict {
	v := Verdict{Name: ck.Name, Pass: true}
	if res.Heavy {
		return Verdict{Name: ck.Name, Heavy: true, Evidence: "not run as the page loaded: it needs more than a page load's budget; press Run checks"}
	}
	if e := res.Error; e != nil {
		msg := e.Msg
		if e.Line > before {
			msg = fmt.Sprintf("line %d: %s", e.Line-before, e.Msg)
		}
		return Verdict{Name: ck.Name, Evidence: "the check stops with an error: " + msg}
	}
	var parts []string
	for _, x := range ck.Expect {
		c, known := condition(x.What)
		if !known {
			v.Pass = false
			parts = append(parts, "cannot check "+x.What)
			continue
		}
		ok, saw, want := c.Judge(res, x.N)
		if !ok {
			v.Pass = false
			saw += " (want " + want + ")"
		}
		parts = append(parts, saw)
	}
	v.Evidence = strings.Join(parts, "; ")
	return v
}
