package site

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/twice-lab/twice/lessons"
	"github.com/twice-lab/twice/runtime/script/interp"
)

// TestCaseChecksAgree holds the page's Run checks to twice case check:
// for every check of the built-in cases and the teachers' example, run
// after several fixes, case.js's judge prints from the run's JSON the
// line lessons.Judge prints from the run.
func TestCaseChecksAgree(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("TWICE_REQUIRE_NODE") == "1" {
			t.Fatal("TWICE_REQUIRE_NODE=1 but no node on PATH")
		}
		t.Skip("SKIPPING: no node on PATH (install Debian's nodejs)")
	}
	cases, err := lessons.LoadCases(lessons.FS)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := os.ReadFile(filepath.Join("..", "docs", "example-case", "receipt-sent-twice.md"))
	if err != nil {
		t.Fatal(err)
	}
	more, err := lessons.LoadCases(fstest.MapFS{"receipt-sent-twice.md": {Data: ex}})
	if err != nil {
		t.Fatal(err)
	}
	cases = append(cases, more...)
	type sample struct {
		Check  any    `json:"check"`
		Fix    string `json:"fix"`
		Result string `json:"result"`
		Want   string `json:"want"`
	}
	var samples []sample
	for _, c := range cases {
		for _, fix := range []string{"", "service --dedupe claim", "service --dedupe check\n", "frob", "service --dedupe claim\nsleep 1\nsleep -1"} {
			for _, ck := range c.Checks {
				res := interp.Run(lessons.CheckScript(fix, ck), interp.Options{Seed: ck.Seed})
				js, err := res.MarshalJSON()
				if err != nil {
					t.Fatal(err)
				}
				var expect []map[string]any
				for _, x := range ck.Expect {
					expect = append(expect, map[string]any{"what": x.What, "n": x.N})
				}
				samples = append(samples, sample{
					Check: map[string]any{"name": ck.Name, "expect": expect}, Fix: fix,
					Result: string(js), Want: lessons.Judge(ck, fix, res).String(),
				})
			}
		}
	}
	data, err := json.Marshal(samples)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "samples.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	mod, err := filepath.Abs(filepath.Join("static", "case.js"))
	if err != nil {
		t.Fatal(err)
	}
	// node reads the module in another process: read it here too, so
	// that go test's cache sees an edit to it.
	if _, err := os.ReadFile(mod); err != nil {
		t.Fatal(err)
	}
	prog := `import { judge, checkLine } from ` + jsString("file://"+filepath.ToSlash(mod)) + `;
import { readFileSync } from "node:fs";
const samples = JSON.parse(readFileSync(process.argv[1], "utf8"));
let bad = 0;
for (const s of samples) {
  const got = checkLine(s.check.name, judge(s.check, s.fix, JSON.parse(s.result)));
  if (got !== s.want) { bad++; console.log("fix " + JSON.stringify(s.fix) + ": page says " + JSON.stringify(got) + ", twice case check " + JSON.stringify(s.want)); }
}
console.log(samples.length + " samples, " + bad + " differ");
process.exit(bad ? 1 : 0);
`
	cmd := exec.Command(node, "--input-type=module", "-e", prog, filepath.Join(dir, "samples.json"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), " 0 differ") {
		t.Errorf("%s", out)
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
