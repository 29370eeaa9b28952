package interp_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/twice-lab/twice/lessons"
	"github.com/twice-lab/twice/runtime/script/interp"
	"github.com/twice-lab/twice/runtime/script/lang"
	"github.com/twice-lab/twice/runtime/script/result"
)

// testScripts returns every script the tests and lessons run, by name:
// each golden's, each of the FuzzRun corpus, each lesson block's.
func testScripts(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	goldens, _ := filepath.Glob("testdata/*.txtar")
	for _, file := range goldens {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if f.Name == "script" {
				out[file] = string(f.Data)
			}
		}
	}
	corpus, _ := filepath.Glob("testdata/fuzz/FuzzRun/*")
	for _, file := range corpus {
		if strings.HasPrefix(filepath.Base(file), "meter-") {
			continue // a script written to pass the budget (meter_test.go)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if q, ok := strings.CutPrefix(line, "string("); ok {
				if src, err := strconv.Unquote(strings.TrimSuffix(q, ")")); err == nil {
					out[file] = src
				}
			}
		}
	}
	ls, err := lessons.Load(lessons.FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		for _, b := range l.Blocks {
			out[l.File+":"+strconv.Itoa(b.Line)] = b.Script
		}
	}
	if len(goldens) == 0 || len(corpus) == 0 || len(ls) == 0 {
		t.Fatalf("found %d goldens, %d corpus files, %d lessons", len(goldens), len(corpus), len(ls))
	}
	return out
}

// TestBudgetRoom runs every script of the tests and every lesson block
// and checks that it spends at most a quarter of each field of the full
// budget, and that every lesson block that is not estimated heavy fits
// the auto budget with room to spare, so that a share link of any such
// block shows its result as it loads.
func TestBudgetRoom(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every script of the tests")
	}
	full, auto := interp.FullBudget, interp.AutoBudget
	var most result.Spent
	for name, src := range testScripts(t) {
		res := interp.Run(src, interp.Options{Seed: interp.DefaultSeed})
		if res.Cut != nil {
			t.Errorf("%s: passed the full budget: %v", name, res.Error)
			continue
		}
		s := res.Spent
		most.Steps = max(most.Steps, s.Steps)
		most.Work = max(most.Work, s.Work)
		most.Polls = max(most.Polls, s.Polls)
		most.Output = max(most.Output, s.Output)
		if s.Steps > full.Steps/4 || s.Work > full.Work/4 || s.Polls > full.Polls/4 || s.Output > full.Output/4 {
			t.Errorf("%s spends %+v, more than a quarter of the full budget %+v", name, s, full)
		}
		if strings.HasPrefix(name, "testdata/") {
			continue
		}
		// A block the estimate calls heavy (the matrix, at twenty seeds a
		// cell) never runs by itself: a link to it waits for Run.
		if c, err := lang.Estimate(src); err == nil && c.Heavy() {
			continue
		}
		if s.Steps > auto.Steps/2 || s.Work > auto.Work/2 || s.Polls > auto.Polls/2 || s.Output > auto.Output/2 {
			t.Errorf("lesson block %s spends %+v, more than half the auto budget %+v", name, s, auto)
		}
	}
	t.Logf("the most any script spent, field by field: %+v", most)
}
