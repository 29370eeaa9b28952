package cases_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/twice-lab/twice/cases"
	"github.com/twice-lab/twice/lessons"
	"github.com/twice-lab/twice/runtime/script/interp"
)

// minimalCase is the least a case may be: a title, evidence, a fix and a
// check.
const minimalCase = `---
kind: case
---
# A case

## Evidence

` + "```twice\nadd o && work --job 1\n```" + `

## Fix

` + "```twice\n```" + `

## Checks

` + "```twice name=one effects=1\nadd o && work --job 1\n```\n"

// TestCasesAreNotLessons: a folder's case is served as a case, never as a
// lesson, and the lessons around it keep their order.
func TestCasesAreNotLessons(t *testing.T) {
	fsys := fstest.MapFS{
		"a.md":    {Data: []byte("# A\n")},
		"case.md": {Data: []byte(minimalCase)},
		"b.md":    {Data: []byte("# B\n")},
	}
	ls, err := lessons.Load(fsys)
	if err != nil || len(ls) != 2 || ls[0].Slug != "a" || ls[1].Slug != "b" {
		t.Fatalf("Load: %v, %+v", err, ls)
	}
	cs, err := lessons.LoadCases(fsys)
	if err != nil || len(cs) != 1 || cs[0].Slug != "case" || cs[0].Title != "A case" {
		t.Fatalf("LoadCases: %v, %+v", err, cs)
	}
	if r := cs[0].RunChecks(nil, cases.Options{}); len(r) != 1 || r[0].String() != "pass one: 1 effect landed" {
		t.Errorf("checks: %v", r)
	}
}

// TestCaseErrors: a broken case is left out with an error that names its
// file and the line to look at.
func TestCaseErrors(t *testing.T) {
	replace := func(old, new string) string {
		if !strings.Contains(minimalCase, old) {
			t.Fatalf("minimal case has no %q", old)
		}
		return strings.Replace(minimalCase, old, new, 1)
	}
	for _, tt := range []struct{ src, want string }{
		{replace("## Fix", "## Fixes"), `case.md:12: unknown section "Fixes" of a case`},
		{replace("## Fix", "## Evidence"), `case.md:12: section "Evidence" is already on line 6`},
		{minimalCase[:strings.Index(minimalCase, "## Checks")], "case.md:1: a case needs a ## Checks section"},
		{replace("name=one ", ""), "case.md:19: a check needs a name"},
		{replace("effects=1", ""), "case.md:19: check one asks for nothing"},
		{replace("effects=1", "effects=x"), "case.md:19: check option effects=x: want a whole number"},
		{replace("effects=1", "holders=0"), `case.md:19: unknown check option "holders"`},
		{replace("name=one", "name=One"), "case.md:19: check name=One: want lower-case"},
		{replace("```twice\n```", ""), "case.md:12: the fix section needs exactly one twice block, it has 0"},
		{replace("kind: case", "kind: quiz"), "case.md:2: kind: quiz: want lesson or case"},
		{replace("# A case\n", "# A case\n\n```twice\nreset\n```\n"), "case.md:6: a twice block of a case goes in its Evidence"},
		{minimalCase + "\n## Hypotheses\n\n### Maybe\n\nNo experiment.\n", `case.md:25: hypothesis "Maybe" needs exactly one twice block`},
		{minimalCase + "\n## Hints\n\n### Fix\n\n1. a\n2. b\n3. c\n4. d\n", `case.md:25: stage "Fix" has 4 hints; give it from 1 to 3`},
		{minimalCase + "\n## Hints\n\n### Fix\n\nNot a list.\n", `case.md:27: want the hints of stage "Fix" as a list`},
		{minimalCase + "\n## Architecture\n\n- Queue to Worker\n", `case.md:25: want an arrow as a list item`},
	} {
		_, err := lessons.LoadCases(fstest.MapFS{"case.md": {Data: []byte(tt.src)}})
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("got error %v\nwant one starting %q", err, tt.want)
		}
	}
}

// TestCaseSections reads every section of a case into its place.
func TestCaseSections(t *testing.T) {
	src := minimalCase + `
## Symptom

Two mails.

## Architecture

- Queue -> Worker: delivers
- Worker -> Mail

## Hypotheses

### The queue

` + "```twice controls=seed\nadd o && work --job 1\n```" + `

## Hints

### Reproduce

1. Broad,
   over two lines.
2. Narrow.
`
	cs, err := lessons.LoadCases(fstest.MapFS{"case.md": {Data: []byte(src)}})
	if err != nil {
		t.Fatal(err)
	}
	c := cs[0]
	if strings.TrimSpace(c.Symptom.Text) != "Two mails." || c.Symptom.Line != 24 {
		t.Errorf("symptom %+v", c.Symptom)
	}
	if len(c.Architecture) != 2 || c.Architecture[0] != (cases.Arrow{"Queue", "Worker", "delivers", 29}) || c.Architecture[1].Label != "" {
		t.Errorf("architecture %+v", c.Architecture)
	}
	if len(c.Hypotheses) != 1 || c.Hypotheses[0].Title != "The queue" || c.Hypotheses[0].Experiment.Line != 36 ||
		!strings.Contains(c.Hypotheses[0].Prose.Text, "controls=seed") {
		t.Errorf("hypotheses %+v", c.Hypotheses)
	}
	if len(c.Hints) != 1 || c.Hints[0].Stage != "Reproduce" || len(c.Hints[0].Hints) != 2 || c.Hints[0].Hints[0].Text != "Broad,\nover two lines." {
		t.Errorf("hints %+v", c.Hints)
	}
	if c.Evidence.Script != "add o && work --job 1\n" || c.Fix.Script != "" || c.Checks[0].Name != "one" {
		t.Errorf("evidence %q fix %q checks %+v", c.Evidence.Script, c.Fix.Script, c.Checks)
	}
}

// TestBuiltInCaseEvidence: the built-in case's evidence run shows what
// the incident showed: one message id, two deliveries, two effects, one
// publish; both workers log and both take the job.
func TestBuiltInCaseEvidence(t *testing.T) {
	cs, err := lessons.LoadCases(lessons.FS)
	if err != nil {
		t.Fatal(err)
	}
	var c *cases.Case
	for i := range cs {
		if cs[i].Slug == "two-workers-completed" {
			c = &cs[i]
		}
	}
	if c == nil {
		t.Fatal("no built-in case two-workers-completed")
	}
	opts, err := lessons.ParseBlockOptions(c.Evidence.Info)
	if err != nil {
		t.Fatal(err)
	}
	ev := cases.EvidenceOf(interp.Run(c.Evidence.Script, interp.Options{Seed: opts.Seed}))
	var counts []string
	for _, n := range ev.Counts {
		counts = append(counts, fmt.Sprintf("%s %d", n.Name, n.Value))
	}
	if got, want := strings.Join(counts, ", "), "queue message ids 1, deliveries 2, effects 2, producer publishes 1"; got != want {
		t.Errorf("counts: %s\nwant %s", got, want)
	}
	workers := map[string]int{}
	for _, l := range ev.Log {
		workers[l.Worker]++
	}
	if len(workers) != 2 || len(ev.Locks) != 2 {
		t.Errorf("log %+v\nlocks %+v: want two workers in each", ev.Log, ev.Locks)
	}
	// Each worker checks the lock, awaits, sets the owner, and takes the
	// job: the check and the set on either side of the await.
	for _, l := range ev.Locks {
		steps := strings.Join(l.Steps, "; ")
		if !strings.Contains(steps, "owner=none; await") || !strings.Contains(steps, "SET owner = ") || !strings.HasPrefix(l.Steps[len(l.Steps)-1], "UPDATE job 1") {
			t.Errorf("%s's lock trace: %s", l.Worker, steps)
		}
	}
}

// TestConditionsNeedEvidence: a condition about a race fails a check in
// which no race ran, and one about the orderings fails a check whose
// race was timed; counts past what a uint64 holds are more than any
// number wanted.
func TestConditionsNeedEvidence(t *testing.T) {
	for _, tt := range []struct{ info, script, want string }{
		{"twice name=a overlap=0", "add o && work --job 1\n", "fail a: no race --all ran (want a race --all)"},
		{"twice name=a duplicates=0", "add o && work --job 1\n", "fail a: no race ran (want a race)"},
		{"twice name=a overlap=0", "race atomic 2\n", "fail a: no race --all ran (want a race --all)"},
		{"twice name=a duplicates=0", "race atomic 2\n", "pass a: two effects in 0 of 2 races"},
		{"twice name=a once", "reset\n", "fail a: the producer published no event (want 1 effect for each)"},
		{"twice name=a owners=1", "reset\n", "fail a: at most 0 executions held a job at once (want 1)"},
	} {
		ck, err := cases.ParseCheck(cases.Block{Info: tt.info, Script: tt.script})
		if err != nil {
			t.Fatal(err)
		}
		if got := ck.Run(nil, cases.Options{}).String(); got != tt.want {
			t.Errorf("%s\n%s: got %q, want %q", tt.info, tt.script, got, tt.want)
		}
	}
}

// TestLapses: lapses counts the executions whose lease passed while they
// still worked, with no second worker needed to see it; a worker killed
// before its lease passed is not one, and a heartbeat more often than the
// lease keeps it.
func TestLapses(t *testing.T) {
	for _, tt := range []struct{ script, want string }{
		{"add o\nwork --job 1 --lease 1 --delay 1500\n", "fail a: 1 execution whose lease passed while it worked"},
		{"add o\nwork --job 1 --lease 1 --heartbeat 1000 --delay 3000\n", "fail a: 1 execution whose lease passed while it worked"},
		{"add o\nwork --job 1 --lease 1 --heartbeat 900 --delay 3000\n", "pass a: 0 executions whose lease passed while they worked"},
		{"add o\nwork --job 1 --lease 1 --crash-before-ack\nlapse --job 1\nwork --job 1 --worker W2\n", "pass a: 0 executions whose lease passed while they worked"},
		{"add o\nwork --job 1 --lease 1 --stall 1500 &\nsleep 1.2\nwork --job 1 --worker W2\nwait\n", "fail a: 1 execution whose lease passed while it worked"},
	} {
		ck, err := cases.ParseCheck(cases.Block{Info: "twice name=a lapses=0", Script: tt.script})
		if err != nil {
			t.Fatal(err)
		}
		if got := ck.Run(nil, cases.Options{}).String(); !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s: got %q, want it to start %q", tt.script, got, tt.want)
		}
	}
}

// TestFixParsedApart: a fix is its commands, one a line, before the
// check's; however it is written (comments, ; or && between its
// commands), each check runs all of its own lines, and an error in a
// check names the check's line, not the joined script's.
func TestFixParsedApart(t *testing.T) {
	ck, err := cases.ParseCheck(cases.Block{Info: "twice name=a sent=1", Script: "add o\nwork --job 1\n"})
	if err != nil {
		t.Fatal(err)
	}
	clean, err := cases.ParseFix("service --dedupe claim\nuse --claim atomic --key event\n")
	if err != nil {
		t.Fatal(err)
	}
	want := ck.Run(clean, cases.Options{}).String()
	if want != "pass a: 1 sent through the service" {
		t.Fatalf("the clean fix: %s", want)
	}
	for _, src := range []string{
		"service --dedupe claim && use --claim atomic --key event",
		"service --dedupe claim; use --claim atomic --key event # && add x &&",
		"# the fix\n\nservice --dedupe claim\nuse --claim atomic\nuse --key event\n\n",
	} {
		f, err := cases.ParseFix(src)
		if err != nil {
			t.Errorf("%q refused: %v", src, err)
			continue
		}
		if got := ck.Run(f, cases.Options{}).String(); got != want {
			t.Errorf("%q: %s, want %s", src, got, want)
		}
	}
	for _, src := range []string{"use --claim atomic &&", "use --claim atomic &&\n", "use --claim atomic ;\nadd o &&", "add o && work --job 1 --crash-before-effect &&"} {
		if _, err := cases.ParseFix(src); err == nil {
			t.Errorf("%q is accepted", src)
		}
	}
	bad, _ := cases.ParseCheck(cases.Block{Info: "twice name=b sent=1", Script: "add o\nwork --job 2\n"})
	if got := bad.Run(clean, cases.Options{}).String(); got != "fail b: the check stops with an error: line 2: work: job 2 does not exist" {
		t.Errorf("an error in a check: %s", got)
	}
}

// The case's symptom is intermittent, and its page says how often: the
// evidence run gives two effects at its own seed, and at as many of the
// seeds 1 to 100 as the Evidence section says.
func TestCaseSymptomIsIntermittent(t *testing.T) {
	c := builtIn(t)
	twice := 0
	for seed := uint64(1); seed <= 100; seed++ {
		res := interp.Run(c.Evidence.Script, interp.Options{Seed: seed})
		if res.Error != nil {
			t.Fatal(res.Error)
		}
		if res.Races[0].Duplicates > 0 {
			twice++
		}
	}
	says := fmt.Sprintf("gives two in %d of seeds 1 to 100", twice)
	if prose := strings.Join(strings.Fields(c.EvidenceProse.Text), " "); !strings.Contains(prose, says) {
		t.Errorf("the Evidence section should say %q: %s", says, prose)
	}
	if twice == 0 || twice == 100 {
		t.Errorf("two receipts at %d of 100 seeds: not intermittent", twice)
	}
}
