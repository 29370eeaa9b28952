package server

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/twice-lab/twice/internal/article"
	"github.com/twice-lab/twice/runtime/script/interp"
)

// TestBrowserParity is the browser's half of the determinism check, that
// the same seed prints the same bytes everywhere (internal/parity is the
// wazero half): in one page of the served site, the
// live widget runs the article's six command lines, the four scenarios of
// a job that outlives its lease, the claims of the race (a schedule
// included) at several seeds, and each transcript it shows must equal, byte for
// byte, the native interp.Run's at the same seed. Same harness, skip and
// require rules as browser_test.go.
func TestBrowserParity(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	srv := browserSite(t)
	hs := httptest.NewServer(srv)
	defer hs.Close()

	// The article's lines come from the runtime's golden transcripts, so
	// that this test and those goldens cannot drift apart.
	type prog struct{ name, src string }
	var progs []prog
	for _, st := range article.Steps(t) {
		progs = append(progs, prog{st.Name, st.Script})
	}
	// So do the four scenarios of a job that outlives its lease.
	for _, sc := range article.Scenarios(t) {
		progs = append(progs, prog{sc.Name, sc.Script})
	}
	progs = append(progs,
		prog{"race-read-20", "race read 20\neffects\n"},
		prog{"race-atomic-20", "race atomic 20\neffects\n"},
		prog{"bg-stall-fence", "add order-77\nwork --job 1 --lease 1 --processing 3000 --heartbeat 300 --stall 2500 --fence &\nsleep 4.5\nwork --job 1 --worker W2 --fence\nwait\neffects\n"},
		prog{"bg-processing", "add order-77\nwork --job 1 --lease 1 --processing 3000 &\nsleep 1.5\nwork --job 1 --worker W2\neffects\n"},
		prog{"dedupe-claim-race", "service --dedupe claim\nrace read 20 --key job\neffects\n"},
		prog{"dedupe-check-all", "service --dedupe check\nrace read --all --key job\nservice --dedupe claim\nrace read --all --key job\n"},
		prog{"publish-twice-event-key", "service --dedupe claim\nadd order-77 --times 2\nwork --job 1 --key event\nwork --job 2 --key event\njobs\neffects\n"},
		prog{"publish-twice-job-key", "service --dedupe claim\nadd order-77 --times 2\nwork --job 1 --key job\nwork --job 2 --key job\njobs\neffects\n"},
		prog{"key-ttl-redeliver", "service --dedupe claim --key-ttl 60\nadd order-77\nwork --job 1 --key event\nsleep 120\nredeliver --job 1\nwork --job 1 --key event\neffects\n"},
		prog{"load", "load 40 --processing lognormal:p50=800,p95=3000 --lease 1,3 --heartbeat 700\n"},
		prog{"ledger-crash", "add order-77\nwork --job 1 --lease 1 --effect ledger --crash-before-commit\nledger\nsleep 2\nwork --job 1 --worker W2 --effect ledger\nledger\njobs\n"},
		prog{"ledger-lost", "add order-77\nwork --job 1 --lease 1 --effect ledger --key-txn separate --crash-before-effect\nsleep 2\nwork --job 1 --worker W2 --effect ledger --key-txn separate\nledger\n"},
		prog{"ledger-race", "race read 20 --effect ledger\nledger\n"},
		prog{"matrix", "matrix\n"},
		prog{"race-async-lock-20", "race async-lock 20\neffects\n"},
		prog{"lock-claims-all", "race async-lock --all --workers 3\nrace lock --all\n"},
		prog{"lock-lapses-with-lease", "add order-77\nwork --job 1 --claim lock --lease 1 --crash-before-ack\njobs\nsleep 2\nwork --job 1 --claim lock --worker W2\neffects\n"},
		prog{"schedule-async-lock-win", "race async-lock --schedule W1,W2,W1,W2,W1,W1,W2,W2,W1,W2,W1,W1,W2,W2\n"},
		prog{"deploy-sigkill", article.Golden(t, "deploy-sigkill-mid-call")},
		prog{"deploy-grace", article.Golden(t, "deploy-grace-drains")},
		prog{"lock-release-any", article.Golden(t, "lock-release-any")},
		prog{"dead-letter-redrive", article.Golden(t, "dead-letter-redrive")},
	)
	seeds := []uint64{1, 7, 424242, 18446744073709551615}
	// A matrix (980 runs, the slowest block there is) runs its cells'
	// scripts, which the other programs run at every seed; it runs at the
	// largest seed only (TestBrowserMatrix compares another seed's table
	// and transcript with the native ones).
	oneSeed := map[string]bool{"matrix": true}

	navigate(t, ctx, hs.URL+"/lessons/claim-race/")
	runs := 0
	for _, p := range progs {
		ps := seeds
		if oneSeed[p.name] {
			ps = seeds[len(seeds)-1:]
		}
		for _, seed := range ps {
			want := interp.Run(p.src, interp.Options{Seed: seed})
			if strings.HasPrefix(p.name, "race-read") && (len(want.Races) == 0 || want.Races[0].Duplicates == 0) {
				t.Errorf("%s at seed %d: the native run shows no duplicates; the lesson expects some", p.name, seed)
			}
			s := js[string](t, ctx, fmt.Sprintf(`tp.run(0, () => { tp.q(0, "textarea").value = %q; tp.q(0, ".seed input").value = %q; tp.q(0, "button.run").click(); })`,
				p.src, strconv.FormatUint(seed, 10)))
			runs++
			wantState := "done"
			if want.ExitCode != 0 {
				wantState = "error"
			}
			if s != wantState {
				t.Errorf("%s at seed %d: state %q, want %q (native exit code %d)", p.name, seed, s, wantState, want.ExitCode)
			}
			// The heading names the seed of the run shown, so a run that
			// never started cannot pass for this one.
			if h := js[string](t, ctx, `tp.q(0, ".out-heading").textContent`); !strings.Contains(h, "seed "+strconv.FormatUint(seed, 10)+",") {
				t.Errorf("%s at seed %d: the output heading reads %q", p.name, seed, h)
			}
			// So does the link to the run: a seed above 2^53 must survive
			// the trip through JavaScript.
			if l := js[string](t, ctx, `tp.q(0, ".permalink").href`); !strings.Contains(l, "seed="+strconv.FormatUint(seed, 10)+"&") {
				t.Errorf("%s at seed %d: the link to the run is %q", p.name, seed, l)
			}
			if got := js[string](t, ctx, `tp.fullText(0)`); got != want.Text() {
				t.Errorf("%s at seed %d: browser transcript:\n%s\nwant (native):\n%s", p.name, seed, got, want.Text())
			}
			if got := js[string](t, ctx, `tp.transcript(0)`); got != shownText(want) {
				t.Errorf("%s at seed %d: the page shows\n%s\nwant:\n%s", p.name, seed, got, shownText(want))
			}
			if len(want.Races) > 0 {
				if d := js[string](t, ctx, `tp.q(0, ".tally").dataset.duplicates`); d != strconv.Itoa(want.Races[0].Duplicates) {
					t.Errorf("%s at seed %d: tally shows %s duplicates, native %d", p.name, seed, d, want.Races[0].Duplicates)
				}
			}
		}
	}
	t.Logf("%d runs in one page matched the native runtime", runs)
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestBrowserWasmType: a host that serves the module with another
// Content-Type than application/wasm still gets a working runtime (the
// worker compiles a Response of its own instead of the fetched one, which
// Chromium's code cache would keep).
func TestBrowserWasmType(t *testing.T) {
	ctx, consoleErrors := browser(t, 1280, 900)
	srv := browserSite(t)
	dir := t.TempDir()
	if err := srv.Site().Export(dir); err != nil {
		t.Fatal(err)
	}
	files := http.FileServer(http.Dir(dir))
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".wasm") {
			w.Header().Set("Content-Type", "application/octet-stream")
		}
		files.ServeHTTP(w, r)
	}))
	defer hs.Close()
	navigate(t, ctx, hs.URL+"/lessons/claim-race/")
	if s := js[string](t, ctx, `tp.run(0)`); s != "done" {
		t.Fatalf("run ended in state %q: %s", s, js[string](t, ctx, `tp.q(0, ".error").textContent`))
	}
	if got, want := js[string](t, ctx, `tp.transcript(0)`), shownText(interp.Run(js[string](t, ctx, `tp.q(0, "textarea").value`), interp.Options{Seed: interp.DefaultSeed})); got != want {
		t.Errorf("transcript:\n%s\nwant:\n%s", got, want)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
