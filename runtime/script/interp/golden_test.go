package interp

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

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
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			seed := DefaultSeed
			for _, line := range strings.Split(string(ar.Comment), "\n") {
				if v, ok := strings.CutPrefix(line, "seed: "); ok {
					if seed, err = strconv.ParseUint(strings.TrimSpace(v), 10, 64); err != nil {
						t.Fatalf("bad seed line %q", line)
					}
				}
			}
			src, ok := section(ar, "script")
			if !ok {
				t.Fatal("no script section")
			}
			res := Run(src, Options{Seed: seed})
			got := map[string]string{"stdout": res.Text()}
			if res.Error != nil {
				got["error"] = fmt.Sprintf("exit %d: %v\n", res.ExitCode, res.Error)
			}
			if *update {
				var kept []txtar.File
				for _, f := range ar.Files {
					if f.Name != "stdout" && f.Name != "error" {
						kept = append(kept, f)
					}
				}
				kept = append(kept, txtar.File{Name: "stdout", Data: []byte(got["stdout"])})
				if e, ok := got["error"]; ok {
					kept = append(kept, txtar.File{Name: "error", Data: []byte(e)})
				}
				ar.Files = kept
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, name := range []string{"stdout", "error"} {
				want, _ := section(ar, name)
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
	}
}
