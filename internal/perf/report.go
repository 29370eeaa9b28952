package perf

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// The files docs/perf/run.sh writes into its output folder.
const (
	NativeFile  = "native.txt"  // go test ./runtime/script/interp -bench Race
	WazeroFile  = "wazero.txt"  // go test ./internal/parity -bench CLI
	SizesFile   = "sizes.txt"   // name bytes
	WrkDir      = "wrk"         // SERVER-TARGET-REP.txt, wrk reports
	BrowserFile = "browser.txt" // go test ./internal/perf -bench Browser
	Wasip1File  = "wasip1.txt"  // GOOS=wasip1 go test ./runtime/script/interp -bench Race, under wazero
	EnvFile     = "env.txt"     // free text: commit, go version, cpu, date
	PeerFile    = "peer.txt"    // go test ./internal/perf -bench '^BenchmarkPeer'
)

// row is one line of the report's table.
type row struct {
	figure, budget, measured, met, from string
}

// A check says whether a value meets a budget.
type check func(float64) bool

func atMost(x float64) check  { return func(v float64) bool { return v <= x } }
func atLeast(x float64) check { return func(v float64) bool { return v >= x } }
func below(x float64) check   { return func(v float64) bool { return v < x } }

// verdict compares a measured figure with its budget: met when the median
// meets it, with a note when some run did not.
func verdict(ok check, s Stat, measured bool) string {
	switch {
	case ok == nil:
		return ""
	case !measured:
		return "not measured"
	case !ok(s.Median):
		return "**not met**"
	case !ok(s.Min) || !ok(s.Max):
		return "met by the median, not by every run"
	}
	return "met"
}

// Report writes the markdown table for the harness output in dir. Figures
// whose input is missing say so instead of holding a number.
func Report(dir string, w io.Writer) error {
	var t table
	t.benchRows(dir)
	br, berr := t.browserRows(dir)
	t.sizeRows(dir)
	t.wrkRows(dir)
	t.write(dir, w)
	blocksTable(br, berr, w)
	peerTable(dir, w)
	return nil
}

// table is the report's rows, in the order they print.
type table struct{ rows []row }

// add adds a figure without a budget.
func (t *table) add(figure, budget, measured, from string) {
	t.rows = append(t.rows, row{figure, budget, measured, "", from})
}

// addB adds a figure with a budget: the median and spread of m (or why
// there is none) and whether ok holds.
func (t *table) addB(figure, budget string, ok check, m measure, format func(float64) string, from string) {
	t.rows = append(t.rows, row{figure, budget, m.text(format), verdict(ok, m.s, m.err == nil), from})
}

// benchRows adds the Go benchmarks: native, the CLI under wazero, and the
// simulation compiled to wasip1.
func (t *table) benchRows(dir string) {
	native, nerr := readBench(filepath.Join(dir, NativeFile))
	for _, claim := range []string{"read", "atomic"} {
		sim, bare := native["BenchmarkRace/"+claim], native["BenchmarkRaceSQL/"+claim]
		t.add("native: simulated races/s, claim="+claim, "", statOr(nerr, sim, "races/s", intFmt), NativeFile)
		t.add("native: bare SQL races/s (floor), claim="+claim, "", statOr(nerr, bare, "races/s", intFmt), NativeFile)
		t.addB("native: simulated / bare SQL time per race, claim="+claim, "≤ 2x", atMost(2), ratioM(nerr, sim, bare, "ns/op"), ratioFmt, NativeFile)
		t.add("native: allocations per simulated race, claim="+claim, "", statOr(nerr, scale(sim["allocs/op"], 1.0/100), "", intFmt), NativeFile)
	}

	wz, werr := readBench(filepath.Join(dir, WazeroFile))
	for _, claim := range []string{"read", "atomic"} {
		nat, wasi := wz["BenchmarkCLIRace/native/"+claim], wz["BenchmarkCLIRace/wasip1/"+claim]
		t.add("CLI process, native: races/s (race "+claim+" 1000)", "", statOr(werr, nat, "races/s", intFmt), WazeroFile)
		t.add("wasip1 under wazero: races/s (race "+claim+" 1000)", "", statOr(werr, wasi, "races/s", intFmt), WazeroFile)
		t.add("wasip1 under wazero / native CLI time, claim="+claim, "", ratioOr(werr, wasi, nat, "ns/op"), WazeroFile)
	}
	wb, wberr := readBench(filepath.Join(dir, Wasip1File))
	for _, claim := range []string{"read", "atomic"} {
		sim, bare := wb["BenchmarkRace/"+claim], wb["BenchmarkRaceSQL/"+claim]
		t.add("wasip1 under wazero: simulated races/s, claim="+claim, "", statOr(wberr, sim, "races/s", intFmt), Wasip1File)
		t.add("wasip1 under wazero: bare SQL races/s (floor), claim="+claim, "", statOr(wberr, bare, "races/s", intFmt), Wasip1File)
		t.add("wasip1 under wazero: simulated / bare SQL time per race, claim="+claim, "", ratioOr(wberr, sim, bare, "ns/op"), Wasip1File)
	}
	for _, p := range []string{"native", "wasip1"} {
		t.add("CLI start-up to a trivial script, "+p+" (ms)", "", statOr(werr, scale(wz["BenchmarkCLIStart/"+p]["ns/op"], 1e-6), "", msFmt), WazeroFile)
	}
}

// browserRows adds what Chromium measured: races, interleavings, cold and
// warm starts, memory.
func (t *table) browserRows(dir string) (map[string]Bench, error) {
	br, berr := readBench(filepath.Join(dir, BrowserFile))
	for _, claim := range []string{"read", "atomic"} {
		t.addB("Chromium (headless, Web Worker): races/s (race "+claim+" 1000)", "≥ 2,000", atLeast(2000), statM(berr, br["BenchmarkBrowserRace/"+claim], "races/s"), intFmt, BrowserFile)
	}
	for _, x := range []string{"read-2", "read-8", "atomic-8"} {
		claim, workers, _ := strings.Cut(x, "-")
		t.add("Chromium: every interleaving, race "+claim+" --all --workers "+workers+" (ms per check)", "", statOr(berr, br["BenchmarkBrowserExplore/"+x], "ms/check", msFmt), BrowserFile)
	}
	cold := br["BenchmarkBrowserColdStart"]
	t.addB("Chromium, fresh profile: navigation start to first live result (ms)", "≤ 1,500", atMost(1500), statM(berr, cold, "ms-to-first-result"), intFmt, BrowserFile)
	t.add("Chromium, fresh profile: Run pressed to first live result (ms)", "", statOr(berr, cold, "ms-click-to-result", intFmt), BrowserFile)
	for _, p := range []struct{ unit, what string }{
		{"ms-worker-start", "the worker starts"},
		{"ms-fetch", "wasm_exec.js ready (inside worker.js), the modules' responses begin"},
		{"ms-compile", "the modules downloaded and compiled (streaming)"},
		{"ms-go-start", "instantiated, Go's main installs twiceRun"},
		{"ms-first-run", "the first run (race read 20), V8 compiling what it calls"},
		{"ms-to-page", "the result reaches the page"},
	} {
		t.add("… of which, cold: "+p.what+" (ms)", "", statOr(berr, cold, p.unit, msFmt), BrowserFile)
	}
	t.add("Chromium, fresh profile: Run pressed 3 s after navigation (the module loaded and warmed meanwhile) to first live result (ms)", "", statOr(berr, br["BenchmarkBrowserReadThenRun"], "ms-click-to-result", intFmt), BrowserFile)
	warm := br["BenchmarkBrowserWarmStart"]
	t.add("Chromium, second visit after 5 s on the first, browser restarted: navigation start to first live result (ms)", "", statOr(berr, warm, "restart-ms-to-first-result", intFmt), BrowserFile)
	t.add("… the same, second visit in the same browser (ms)", "", statOr(berr, warm, "again-ms-to-first-result", intFmt), BrowserFile)
	t.add("… the first visit of that benchmark, for comparison (ms)", "", statOr(berr, warm, "cold-ms-to-first-result", intFmt), BrowserFile)
	t.add("… wasm bytes over the network on the second visit, browser restarted (0: HTTP cache)", "", statOr(berr, warm, "restart-wasm-transfer-bytes", intFmt), BrowserFile)
	t.addB("Chromium: the tab renderer's peak RSS over 10,000 races, first visit (MiB)", "< 250", below(250), statM(berr, br["BenchmarkBrowserMemory"], "MiB-peak"), intFmt, BrowserFile)
	if berr == nil && br["BenchmarkBrowserMemory"]["before-MiB-peak"] != nil {
		t.add("… the same for the earlier export (before; docs/perf/run.sh's BEFORE), the same ops (MiB)", "", statOr(berr, br["BenchmarkBrowserMemory"], "before-MiB-peak", intFmt), BrowserFile)
	}
	t.addB("Chromium: the same on a second visit, V8's code cache written (MiB)", "< 300", below(300), statM(berr, br["BenchmarkBrowserMemoryWarm"], "MiB-peak"), intFmt, BrowserFile)
	t.addB("Chromium: the tab renderer's RSS growth, after race 5,000 to after race 10,000 (MiB)", "no growth (≤ 5)", atMost(5), statM(berr, br["BenchmarkBrowserMemory"], "MiB-growth"), intFmt, BrowserFile)
	return br, berr
}

// sizeRows adds the bytes a reader downloads before the first live result.
func (t *table) sizeRows(dir string) {
	sizes, serr := readSizes(filepath.Join(dir, SizesFile))
	sizeRow := func(figure, budget, key string) {
		v, ok := sizes[key]
		var within check
		if budget != "" {
			within = atMost(1.0e6)
		}
		switch {
		case serr != nil:
			t.rows = append(t.rows, row{figure, budget, "not measured: " + serr.Error(), verdict(within, Stat{}, false), SizesFile})
		case !ok:
			t.rows = append(t.rows, row{figure, budget, "not measured: no " + key, verdict(within, Stat{}, false), SizesFile})
		default:
			t.rows = append(t.rows, row{figure, budget, mbFmt(float64(v)), verdict(within, Stat{Median: float64(v), Min: float64(v), Max: float64(v), N: 1}, true), SizesFile})
		}
	}
	sizeRow("wasm as twice serve builds it (GOOS=js, wasmbuild.WasmBuildFlags), raw", "", "wasm.raw")
	sizeRow("wasm, gzip -9", "", "wasm.gz")
	sizeRow("wasm, brotli -q 11", "", "wasm.br")
	sizeRow("SQLite's module (third_party/sqlitewasm), raw", "", "sqlite.raw")
	sizeRow("SQLite's module, gzip -9", "", "sqlite.gz")
	sizeRow("SQLite's module, brotli -q 11", "", "sqlite.br")
	sizeRow("JS before the first live result (twice.js and its modules, offline.js, worker.js with wasm_exec.js in it), brotli", "", "js.br")
	sizeRow("CSS (style.css, playground.css), brotli", "", "css.br")
	sizeRow("total before the first live result, brotli", "≤ 1.0 MB", "total.br")
	sizeRow("total before the first live result, gzip -9", "", "total.gz")
	sizeRow("wasm as `twice build` exports it, .br", "", "export.wasm.br")
	sizeRow("wasm as `twice build` exports it, .gz", "", "export.wasm.gz")
}

// wrkRows adds the HTTP throughput of twice serve beside nginx's.
func (t *table) wrkRows(dir string) {
	wrk, wrkErr := readWrk(filepath.Join(dir, WrkDir))
	for _, target := range []string{"page", "wasm"} {
		var all [2][]float64
		for i, srv := range []string{"twice", "nginx"} {
			runs := wrk[srv+"-"+target]
			var rps []float64
			errs := 0
			for _, r := range runs {
				rps = append(rps, r.RequestsPerSec)
				errs += r.Errors
			}
			all[i] = rps
			m, met := "not measured", "not measured"
			if wrkErr != nil {
				m += ": " + wrkErr.Error()
			} else if len(rps) > 0 {
				m = statFmt(Summarize(rps), intFmt) + fmt.Sprintf("; %d errors", errs)
				met = verdict(atMost(0), Stat{Median: float64(errs), Min: float64(errs), Max: float64(errs), N: 1}, true)
			}
			t.rows = append(t.rows, row{fmt.Sprintf("%s: requests/s, %s (wrk, 100 connections)", srv, target), "0 errors", m, met, WrkDir + "/" + srv + "-" + target + "-*.txt"})
		}
		m := "not measured"
		if len(all[0]) > 0 && len(all[1]) > 0 {
			m = statFmt(Summarize(Ratios(all[0], all[1])), ratioFmt)
		}
		t.add("twice serve / nginx requests/s, "+target, "", m, WrkDir)
	}
}

// write prints the environment and the rows as a markdown table.
func (t *table) write(dir string, w io.Writer) {
	if env, err := os.ReadFile(filepath.Join(dir, EnvFile)); err == nil {
		fmt.Fprintf(w, "```\n%s```\n\n", env)
	}
	fmt.Fprintln(w, "| figure | budget | measured: median (min–max, n) | budget met? | raw output |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- |")
	for _, r := range t.rows {
		b, met := r.budget, r.met
		if b == "" {
			b = "–"
		}
		if met == "" {
			met = "–"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", r.figure, b, r.measured, met, r.from)
	}
	fmt.Fprintln(w)
}

// blocksTable writes the heavy blocks' times (BenchmarkBrowserBlocks):
// natively, in the browser, and in the earlier export's browser when the
// run measured one, with the browser's time over native paired op by op.
func blocksTable(br map[string]Bench, err error, w io.Writer) {
	b := br["BenchmarkBrowserBlocks"]
	fmt.Fprintf(w, "The heaviest blocks, natively (in the benchmark's process, on the driver's SQLite) and in the playground's worker of a fresh Chromium, after its warm-up (%s; each op ran every contender, in rotating order; a ratio pairs the figures of one op):\n\n", BrowserFile)
	fmt.Fprintln(w, "| block | native (ms) | browser (ms) | browser / native | budget | budget met? | before (ms) | before / native |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, blk := range []struct{ name, what string }{{"matrix", "`matrix` (lesson 16)"}, {"race10000", "`race read 10000 --workers 8`"}} {
		get := func(who string) Bench { return Bench{"": b[who+"-ms-"+blk.name]} }
		n, t := statM(err, b, "native-ms-"+blk.name), statM(err, b, "twice-ms-"+blk.name)
		r := ratioM(err, get("twice"), get("native"), "")
		bf, bn := "–", "–"
		if err == nil && b["before-ms-"+blk.name] != nil {
			bf = statM(err, b, "before-ms-"+blk.name).text(intFmt)
			bn = ratioM(err, get("before"), get("native"), "").text(ratioFmt)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | ≤ 2x | %s | %s | %s |\n", blk.what, n.text(intFmt), t.text(intFmt), r.text(ratioFmt), verdict(atMost(2), r.s, r.err == nil), bf, bn)
	}
	fmt.Fprintln(w)
}

// peerTable writes the table of twice beside the official SQLite wasm
// (the BenchmarkPeer* output): each scenario's figure for twice and for
// the peer, their ratio paired op by op, and the budget, stated as a
// ratio to the peer except for the bytes.
func peerTable(dir string, w io.Writer) {
	pr, err := readBench(filepath.Join(dir, PeerFile))
	fmt.Fprintf(w, "twice beside the official SQLite wasm (%s; each op measured both, in alternating order, fresh profiles, one static server; a ratio pairs the two figures of one op):\n\n", PeerFile)
	fmt.Fprintln(w, "| scenario | twice | official SQLite wasm | twice / peer | budget | budget met? |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- |")
	scenario := func(what, bench, unit, budget string, ok check, onRatio bool, format func(float64) string) {
		b := pr[bench]
		t, p := statM(err, b, "twice-"+unit), statM(err, b, "peer-"+unit)
		r := ratioM(err, Bench{"": b["twice-"+unit]}, Bench{"": b["peer-"+unit]}, "")
		met := "–"
		switch {
		case ok == nil:
		case onRatio:
			met = verdict(ok, r.s, r.err == nil)
		default:
			met = verdict(ok, t.s, t.err == nil)
		}
		if budget == "" {
			budget = "–"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", what, t.text(format), p.text(format), r.text(ratioFmt), budget, met)
	}
	scenario("cold navigation, Run pressed as soon as the block exists: navigation start to first result (ms)", "BenchmarkPeerColdStart", "ms-to-first-result", "≤ 1.5x the peer's", atMost(1.5), true, intFmt)
	scenario("… press to first result in that case (ms)", "BenchmarkPeerColdStart", "ms-click-to-result", "", nil, true, intFmt)
	scenario("Run pressed after 3 s of reading: press to first result (ms)", "BenchmarkPeerReadThenRun", "ms-click-to-result", "no slower than the peer (≤ 1.0x)", atMost(1), true, intFmt)
	scenario("4x CPU slowdown (DevTools, the page's main thread), Run pressed at once: navigation start to first result (ms)", "BenchmarkPeerSlowCPU", "ms-to-first-result", "≤ 1.5x the peer's", atMost(1.5), true, intFmt)
	scenario("… press to first result in that case (ms)", "BenchmarkPeerSlowCPU", "ms-click-to-result", "", nil, true, intFmt)
	scenario("bytes before the first result: the JS, CSS and wasm fetched, brotli -q 11", "BenchmarkPeerColdStart", "br-bytes", "twice ≤ 1.0 MB", atMost(1.0e6), false, bytesFmt)
	if err == nil && pr["BenchmarkPeerColdStart"]["before-ms-to-first-result"] != nil {
		beforeTable(pr, w)
	}
}

// beforeTable writes, when the peer benchmarks also measured an earlier
// export (before-*), its figures beside twice's and the peer's from the
// same ops: the change a commit made, measured in one run.
func beforeTable(pr map[string]Bench, w io.Writer) {
	fmt.Fprintf(w, "\nThe same ops also visited an earlier export (before; docs/perf/run.sh's BEFORE), in rotating order; each ratio pairs the figures of one op:\n\n")
	fmt.Fprintln(w, "| scenario | before | after (twice) | before / peer | after / peer | after / before |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- |")
	row := func(what, bench, unit string, format func(float64) string) {
		b := pr[bench]
		get := func(who string) Bench { return Bench{"": b[who+"-"+unit]} }
		bf, af := statM(nil, b, "before-"+unit), statM(nil, b, "twice-"+unit)
		bp := ratioM(nil, get("before"), get("peer"), "")
		ap := ratioM(nil, get("twice"), get("peer"), "")
		ab := ratioM(nil, get("twice"), get("before"), "")
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", what, bf.text(format), af.text(format), bp.text(ratioFmt), ap.text(ratioFmt), ab.text(ratioFmt))
	}
	row("cold navigation, Run at once: navigation start to first result (ms)", "BenchmarkPeerColdStart", "ms-to-first-result", intFmt)
	row("… press to first result (ms)", "BenchmarkPeerColdStart", "ms-click-to-result", intFmt)
	row("Run after 3 s of reading: press to first result (ms)", "BenchmarkPeerReadThenRun", "ms-click-to-result", intFmt)
	row("4x CPU slowdown, Run at once: navigation start to first result (ms)", "BenchmarkPeerSlowCPU", "ms-to-first-result", intFmt)
	row("bytes before the first result, brotli -q 11", "BenchmarkPeerColdStart", "br-bytes", bytesFmt)
}

func readBench(path string) (map[string]Bench, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, missing(err)
	}
	defer f.Close()
	return ParseBench(f)
}

func readSizes(path string) (map[string]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, missing(err)
	}
	defer f.Close()
	return ParseSizes(f)
}

// readWrk returns the wrk reports in dir by SERVER-TARGET, in rep order.
func readWrk(dir string) (map[string][]Wrk, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*-*-*.txt"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no wrk reports in %s", filepath.Base(dir))
	}
	sort.Slice(paths, func(i, j int) bool { return repOf(paths[i]) < repOf(paths[j]) })
	out := map[string][]Wrk{}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		r, err := ParseWrk(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", filepath.Base(p), err)
		}
		base := strings.TrimSuffix(filepath.Base(p), ".txt")
		key := base[:strings.LastIndex(base, "-")]
		out[key] = append(out[key], r)
	}
	return out, nil
}

func repOf(path string) int {
	base := strings.TrimSuffix(filepath.Base(path), ".txt")
	n, _ := strconv.Atoi(base[strings.LastIndex(base, "-")+1:])
	return n
}

func missing(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no %s", filepath.Base(err.(*fs.PathError).Path))
	}
	return err
}

// A measure is a figure's samples summarized, or why there are none.
type measure struct {
	s   Stat
	err error
}

func (m measure) text(format func(float64) string) string {
	if m.err != nil {
		return "not measured: " + m.err.Error()
	}
	return statFmt(m.s, format)
}

func statM(err error, b Bench, unit string) measure {
	if err != nil {
		return measure{err: err}
	}
	if len(b[unit]) == 0 {
		return measure{err: errors.New("no samples")}
	}
	return measure{s: Summarize(b[unit])}
}

func ratioM(err error, a, b Bench, unit string) measure {
	if err != nil {
		return measure{err: err}
	}
	r := Ratios(a[unit], b[unit])
	if len(r) == 0 {
		return measure{err: errors.New("no samples")}
	}
	return measure{s: Summarize(r)}
}

func statOr(err error, b Bench, unit string, format func(float64) string) string {
	if err != nil {
		return "not measured: " + err.Error()
	}
	v := b[unit]
	if unit == "" {
		v = b[""]
	}
	if len(v) == 0 {
		return "not measured: no samples"
	}
	return statFmt(Summarize(v), format)
}

func ratioOr(err error, a, b Bench, unit string) string {
	if err != nil {
		return "not measured: " + err.Error()
	}
	r := Ratios(a[unit], b[unit])
	if len(r) == 0 {
		return "not measured: no samples"
	}
	return statFmt(Summarize(r), ratioFmt)
}

// scale returns a Bench holding v times k under the unit "".
func scale(v []float64, k float64) Bench {
	s := make([]float64, len(v))
	for i, x := range v {
		s[i] = x * k
	}
	return Bench{"": s}
}

func statFmt(s Stat, format func(float64) string) string {
	return fmt.Sprintf("**%s** (%s–%s, n=%d)", format(s.Median), format(s.Min), format(s.Max), s.N)
}

func intFmt(v float64) string {
	s := strconv.FormatInt(int64(v+0.5), 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// bytesFmt writes bytes in MB or kB, for a figure in a sentence of a cell.
func bytesFmt(v float64) string {
	if v < 100e3 {
		return strconv.FormatFloat(v/1e3, 'f', 1, 64) + " kB"
	}
	return strconv.FormatFloat(v/1e6, 'f', 2, 64) + " MB"
}

func ratioFmt(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) + "x" }
func msFmt(v float64) string    { return strconv.FormatFloat(v, 'f', 1, 64) }
func mbFmt(v float64) string {
	if v < 100e3 {
		return fmt.Sprintf("**%.1f kB** (%s bytes)", v/1e3, intFmt(v))
	}
	return fmt.Sprintf("**%.2f MB** (%s bytes)", v/1e6, intFmt(v))
}
