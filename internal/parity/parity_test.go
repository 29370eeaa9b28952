package parity

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/twice-lab/twice/internal/article"
)

// seeds are the seeds every case runs at, besides the CLI's default seed.
var seeds = []uint64{1, 2, 42, 1 << 40}

// parityCase is one twice run invocation, before the seed is added.
type parityCase struct {
	name  string
	args  []string // after "run" and the seed flag
	stdin string
	file  string // if set, written as script.sh in the working directory
	out   string // if set, a file the run writes, compared too
	code  int    // the exit code both platforms must give
	// once runs the case at the default seed alone: a script that names
	// its own seed (matrix --seed N) prints the same at every seed but the
	// one it reports; a matrix (980 runs, a minute under wazero) runs the
	// cells other cases run at every seed, so one matrix in text and one
	// in JSON, at two seeds, cover what it adds; a run to the auto
	// budget's 100,000 steps (minutes under wazero, where each step
	// switches goroutines) counts steps, which no seed changes.
	once bool
}

func parityCases(t *testing.T) []parityCase {
	var cases []parityCase
	steps := map[string]string{}
	for _, st := range article.Steps(t) {
		steps[st.Name] = strings.TrimSpace(st.Script)
		cases = append(cases, parityCase{name: st.Name, args: []string{"-c", steps[st.Name]}})
	}
	// The four scenarios of a job that outlives its lease, as their goldens
	// and lessons hold them.
	for _, sc := range article.Scenarios(t) {
		cases = append(cases, parityCase{name: sc.Name, args: []string{"-c", sc.Script}})
	}
	cases = append(cases,
		parityCase{name: "race-read-20", args: []string{"-c", "race read 20 && effects"}},
		parityCase{name: "race-atomic-20", args: []string{"-c", "race atomic 20 && effects"}},
		parityCase{name: "race-read-20-bare", args: []string{"-c", "race read 20"}},
		parityCase{name: "race-atomic-20-bare", args: []string{"-c", "race atomic 20"}},
		parityCase{name: "step2-json", args: []string{"--json", "-c", steps["step2-lease-expiry"]}},
		parityCase{name: "race-read-json", args: []string{"--json", "-c", "race read 5 && effects"}},
		parityCase{name: "step3-stdin", args: []string{"-"}, stdin: steps["step3-client-retry"] + "\n"},
		parityCase{name: "step6-file", args: []string{"script.sh"}, file: steps["step6-redelivery"] + "\n"},
		parityCase{name: "race-read-all", args: []string{"-c", "race read --all && effects"}},
		parityCase{name: "race-all-flags-json", args: []string{"--json", "-c", "race read --all --heartbeat 300 --fence\nrace read --all --effect ledger --key event --workers 3 --fence"}},
		parityCase{name: "race-atomic-workers-3", args: []string{"-c", "race atomic 20 --workers 3 && effects"}},
		parityCase{name: "race-async-lock-20", args: []string{"-c", "race async-lock 20 && effects"}},
		parityCase{name: "race-lock-claims-all-json", args: []string{"--json", "-c", "race async-lock --all --workers 3\nrace lock --all --fence"}},
		parityCase{name: "lock-left-by-kill", args: []string{"--json", "-c", "add order-77\nwork --job 1 --claim lock --lease 1 --crash-before-ack\njobs\nsleep 2\nwork --job 1 --claim lock --worker W2\neffects"}},
		parityCase{name: "schedule-win-json", args: []string{"--json", "-c", "race async-lock --schedule W1,W2,W1,W2,W1,W1,W2,W2,W1,W2,W1,W1,W2,W2"}},
		parityCase{name: "schedule-stops-early-json", args: []string{"--json", "-c", "race async-lock --schedule W1,W2,W1,W2,W1,W1,W2,W2,W1,W2\neffects\njobs"}},
		parityCase{name: "step2-timeline", args: []string{"--timeline", "tl.svg", "-c", steps["step2-lease-expiry"]}, out: "tl.svg"},
		parityCase{name: "race-read-timeline", args: []string{"--timeline", "tl.svg", "-c", "race read 20 && effects"}, out: "tl.svg"},
		parityCase{name: "bg-processing", args: []string{"-c", bgScript("")}},
		parityCase{name: "bg-heartbeat", args: []string{"-c", bgScript(" --heartbeat 300")}},
		parityCase{name: "bg-stall-fence-timeline", args: []string{"--timeline", "tl.svg", "-c", bgScript(" --heartbeat 300 --stall 2500 --fence")}, out: "tl.svg"},
		parityCase{name: "load-chart", args: []string{"--chart", "ch.svg", "-c", "load 60 --processing lognormal:p50=800,p95=3000 --lease 1,3,5 --heartbeat 700 --stall 3000"}, out: "ch.svg"},
		parityCase{name: "ledger-crash", args: []string{"-c", "add order-77\nwork --job 1 --lease 1 --effect ledger --crash-before-commit\nledger\nsleep 2\nwork --job 1 --worker W2 --effect ledger\nledger\njobs"}},
		parityCase{name: "ledger-lost-json", args: []string{"--json", "-c", "add order-77\nwork --job 1 --lease 1 --effect ledger --key-txn separate --crash-before-effect\nsleep 2\nwork --job 1 --worker W2 --effect ledger --key-txn separate\nledger"}},
		parityCase{name: "ledger-race-timeline", args: []string{"--timeline", "tl.svg", "-c", "race read 20 --effect ledger && ledger"}, out: "tl.svg"},
		parityCase{name: "deploy-sigkill-timeline", args: []string{"--timeline", "tl.svg", "-c", article.Golden(t, "deploy-sigkill-mid-call")}, out: "tl.svg"},
		parityCase{name: "deploy-grace-json", args: []string{"--json", "-c", article.Golden(t, "deploy-grace-drains")}},
		parityCase{name: "deploy-kills-ledger", args: []string{"-c", article.Golden(t, "deploy-kills-ledger-transaction")}},
		parityCase{name: "lock-release-any-json", args: []string{"--json", "-c", article.Golden(t, "lock-release-any")}},
		parityCase{name: "dead-letter-redrive-timeline", args: []string{"--timeline", "tl.svg", "-c", article.Golden(t, "dead-letter-redrive")}, out: "tl.svg"},
		parityCase{name: "matrix", args: []string{"-c", "matrix"}, once: true},
		parityCase{name: "matrix-json", args: []string{"--json", "-c", "matrix --seed 9"}, once: true},
		parityCase{name: "matrix-usage-error", args: []string{"-c", "matrix --seed x"}, code: 2},
		parityCase{name: "dedupe-claim-race", args: []string{"-c", dedupeClaimRace}},
		parityCase{name: "dedupe-check-all", args: []string{"-c", dedupeCheckAll}},
		parityCase{name: "publish-twice-event-key", args: []string{"-c", publishTwice("event")}},
		parityCase{name: "publish-twice-job-key", args: []string{"--json", "-c", publishTwice("job")}},
		parityCase{name: "key-ttl-redeliver", args: []string{"--timeline", "tl.svg", "-c", keyTTLRedeliver}, out: "tl.svg"},
		parityCase{name: "times-zero", args: []string{"-c", "add order-77 --times 0"}, code: 2},
		parityCase{name: "redeliver-missing", args: []string{"-c", "add order-77 && redeliver --job 2"}, code: 1},
		parityCase{name: "parse-error", args: []string{"-c", "add o1\nwrk --job 1"}, code: 2},
		parityCase{name: "parse-error-json", args: []string{"--json", "-c", "work --job 1 --lese 2"}, code: 2},
		parityCase{name: "runtime-error", args: []string{"-c", "add o1 && work --job 1 && work --job 2"}, code: 1},
		// The meter counts the same natively and under wazero: a run cut
		// by the auto budget's output (JSON), one cut by its steps, and the shell
		// waiting its turn under a worker's transaction.
		parityCase{name: "budget-output-auto", args: []string{"--auto", "--json", "-c", strings.Repeat("add a --times 100\n", 5) + strings.Repeat("jobs\n", 40)}, code: 1},
		parityCase{name: "budget-steps-auto", args: []string{"--auto", "-c", "race read 2000 --workers 8"}, code: 1, once: true},
		parityCase{name: "shell-waits", args: []string{"-c", "add a\nwork --job 1 --effect ledger --processing 100 &\nsleep 0.1627\nadd b\njobs\nwait\nledger"}},
		parityCase{name: "runtime-error-trace", args: []string{"-c", "reset && add order-77 && work --job 1 --trace && jobs && work --job 9"}, code: 1},
	)
	return cases
}

// TestWasip1Parity runs each case natively and under wazero and requires
// the same stdout bytes, the same stderr bytes and the same exit code. The
// cases run in parallel (go test's -parallel, the processors by default).
func TestWasip1Parity(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: builds cmd/twice for wasip1 (about 40 s cold)")
	}
	buildBoth(t)
	h := getHost(t)
	for _, c := range parityCases(t) {
		seedArgs := [][]string{nil} // the default seed
		for _, s := range seeds {
			if c.once {
				continue
			}
			seedArgs = append(seedArgs, []string{"--seed", strconv.FormatUint(s, 10)})
		}
		for _, sa := range seedArgs {
			name := c.name + "/default"
			if sa != nil {
				name = c.name + "/" + sa[1]
			}
			t.Run(name, func(t *testing.T) {
				// Each case runs beside others: a wasm guest runs on one
				// thread, and the runtime is shared.
				t.Parallel()
				// Each platform gets a working directory of its own, so
				// files the run writes can be compared.
				var dirs [2]string
				if c.file != "" || c.out != "" {
					for i := range dirs {
						dirs[i] = t.TempDir()
						if c.file != "" {
							if err := os.WriteFile(filepath.Join(dirs[i], "script.sh"), []byte(c.file), 0o644); err != nil {
								t.Fatal(err)
							}
						}
					}
				}
				args := append(append([]string{"run"}, sa...), c.args...)
				native := runNative(t, dirs[0], c.stdin, args...)
				wasm := h.run(t, dirs[1], c.stdin, args...)
				if c.out != "" {
					nb, err := os.ReadFile(filepath.Join(dirs[0], c.out))
					if err != nil {
						t.Fatalf("native run wrote no %s: %v\n%v", c.out, err, native)
					}
					wb, err := os.ReadFile(filepath.Join(dirs[1], c.out))
					if err != nil {
						t.Fatalf("wasip1 run wrote no %s: %v\n%v", c.out, err, wasm)
					}
					if string(nb) != string(wb) {
						t.Errorf("%s differs: native %d bytes, wasip1 %d bytes, first difference at byte %d", c.out, len(nb), len(wb), firstDiff(string(nb), string(wb)))
					}
				}
				if native.code != c.code {
					t.Errorf("native exit %d, want %d\n%v", native.code, c.code, native)
				}
				if c.code == 0 && native.stdout == "" {
					t.Errorf("native printed nothing\n%v", native)
				}
				if native.stdout != wasm.stdout || native.stderr != wasm.stderr || native.code != wasm.code {
					t.Errorf("wasip1 differs from native for twice %q\nnative: %v\nwasip1: %v\nfirst difference in stdout at byte %d",
						args, native, wasm, firstDiff(native.stdout, wasm.stdout))
				}
			})
		}
	}
}

// TestSeedsMatter guards the parity test against comparing constants: the
// seeds above must give different transcripts.
func TestSeedsMatter(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: builds cmd/twice natively")
	}
	seen := map[string]uint64{}
	for _, s := range seeds {
		out := runNative(t, "", "", "run", "--seed", strconv.FormatUint(s, 10), "-c", "race read 20 && effects")
		if prev, ok := seen[out.stdout]; ok {
			t.Errorf("seeds %d and %d print the same race transcript:\n%s", prev, s, out.stdout)
		}
		seen[out.stdout] = s
	}
}

func firstDiff(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) == len(b) {
		return -1
	}
	return n
}

// bgScript is a worker whose processing outlives its lease, in the
// background with extra flags, and a second worker that arrives while it
// works (or, with a stall, after its lease ran out).
func bgScript(flags string) string {
	sleep := "1.5"
	if strings.Contains(flags, "--stall") {
		sleep = "4.5"
	}
	second := "work --job 1 --worker W2"
	if strings.Contains(flags, "--fence") {
		second += " --fence"
	}
	return "reset\nadd order-77\nwork --job 1 --worker W1 --lease 1 --processing 3000" + flags + " &\nsleep " + sleep + "\n" + second + "\nwait\njobs\neffects\n"
}

// The evidence for idempotency keys: claim-first at the service holds
// under a read-claim race; check-then-act does not, over every
// interleaving; a producer's double publish is one effect keyed on the
// event and two keyed on the job; a key TTL shorter than a re-drive's gap
// lets the duplicate back.
const (
	dedupeClaimRace = "service --dedupe claim\nrace read 20 --key job\neffects"
	dedupeCheckAll  = "service --dedupe check\nrace read --all --key job\nservice --dedupe claim\nrace read --all --key job"
	keyTTLRedeliver = "service --dedupe claim --key-ttl 60\nadd order-77\nwork --job 1 --key event\nsleep 120\nredeliver --job 1\nwork --job 1 --key event\njobs\neffects"
)

func publishTwice(key string) string {
	return "service --dedupe claim\nadd order-77 --times 2\nwork --job 1 --key " + key + "\nwork --job 2 --key " + key + "\njobs\neffects"
}
