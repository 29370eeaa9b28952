package interp

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/twice-lab/twice/runtime/script/result"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestGolden runs every testdata/*.txtar archive. An archive holds:
//
//	seed: N            (in the comment; optional, default DefaultSeed)
//	-- script --       the script to run
//	-- stdout --       the transcript it must print
//	-- error --        the error line, if it must fail (with "exit N")
//
// Run `go test ./runtime/script/interp -run Golden -update` to rewrite stdout and
// error from what the runtime prints now; review the diff before committing.
func TestGolden(t *testing.T) {
	t.Parallel()
	for _, g := range goldenRuns(t) {
		t.Run(g.name, func(t *testing.T) {
			res := g.res
			got := map[string]string{"stdout": res.Text()}
			if res.Error != nil {
				got["error"] = fmt.Sprintf("exit %d: %v\n", res.ExitCode, res.Error)
			}
			if *update {
				var kept []txtar.File
				for _, f := range g.ar.Files {
					if f.Name != "stdout" && f.Name != "error" {
						kept = append(kept, f)
					}
				}
				kept = append(kept, txtar.File{Name: "stdout", Data: []byte(got["stdout"])})
				if e, ok := got["error"]; ok {
					kept = append(kept, txtar.File{Name: "error", Data: []byte(e)})
				}
				g.ar.Files = kept
				if err := os.WriteFile(g.file, txtar.Format(g.ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, name := range []string{"stdout", "error"} {
				want, _ := section(g.ar, name)
				if got[name] != want {
					t.Errorf("%s differs\n--- got\n%s--- want\n%s", name, got[name], want)
				}
			}
			// The JSON Result must say the same as the transcript.
			b, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			var back result.Result
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if back.Text() != res.Text() || back.ExitCode != res.ExitCode {
				t.Errorf("JSON round trip changed the result")
			}
		})
	}
}

// goldenRun is one golden archive run once: its script at its seed, with
// its pictures (Options.Timeline), which changes nothing the transcript
// or the tables say.
type goldenRun struct {
	name, file, src string
	ar              *txtar.Archive
	res             *result.Result
}

// goldenRuns runs every golden once for all the tests that read them
// (TestGolden, the JSON encoder's test, the trace corpus), two at a time:
// they only read the results.
var goldenRuns = func() func(t *testing.T) []goldenRun {
	var once sync.Once
	var runs []goldenRun
	var failed error
	return func(t *testing.T) []goldenRun {
		t.Helper()
		once.Do(func() { runs, failed = runGoldens() })
		if failed != nil {
			t.Fatal(failed)
		}
		return runs
	}
}()

// goldenSeed is the seed an archive's comment gives ("seed: N"), or
// DefaultSeed; TestGoldenFilesAreTidy refuses a seed line that does not
// parse.
func goldenSeed(ar *txtar.Archive) uint64 {
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		if v, ok := strings.CutPrefix(line, "seed: "); ok {
			if n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64); err == nil {
				return n
			}
		}
	}
	return DefaultSeed
}

func runGoldens() ([]goldenRun, error) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no golden files: %v", err)
	}
	runs := make([]goldenRun, len(files))
	seeds := make([]uint64, len(files))
	for i, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			return nil, err
		}
		seeds[i] = goldenSeed(ar)
		src, ok := section(ar, "script")
		if !ok {
			return nil, fmt.Errorf("%s: no script section", file)
		}
		runs[i] = goldenRun{name: strings.TrimSuffix(filepath.Base(file), ".txtar"), file: file, src: src, ar: ar}
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range max(2, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := range next {
				runs[i].res = Run(runs[i].src, Options{Seed: seeds[i], Timeline: true})
			}
		})
	}
	for i := range runs {
		next <- i
	}
	close(next)
	wg.Wait()
	return runs, nil
}

func section(ar *txtar.Archive, name string) (string, bool) {
	for _, f := range ar.Files {
		if f.Name == name {
			return string(f.Data), true
		}
	}
	return "", false
}

// TestGoldenFilesAreTidy catches an archive whose sections were edited by
// hand into a shape the test would silently ignore.
func TestGoldenFilesAreTidy(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txtar")
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			switch f.Name {
			case "script", "stdout", "error":
			default:
				t.Errorf("%s: unknown section %q", file, f.Name)
			}
		}
		if _, ok := section(ar, "stdout"); !ok && !*update {
			t.Errorf("%s: no stdout section (run with -update)", file)
		}
		if bytes.Contains(ar.Comment, []byte("\r")) {
			t.Errorf("%s: carriage return in comment", file)
		}
		for _, line := range strings.Split(string(ar.Comment), "\n") {
			if v, ok := strings.CutPrefix(line, "seed: "); ok {
				if _, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64); err != nil {
					t.Errorf("%s: bad seed line %q", file, line)
				}
			}
		}
	}
}
