package server

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"

	"github.com/andybalholm/brotli"

	"github.com/twice-lab/twice/third_party/sqlitewasm"
)

// megabytes writes n bytes as the docs say a size: megabytes of 10^6
// bytes, to two significant digits (5.6 MB, 0.94 MB, 32 MB).
func megabytes(n int) string {
	v := float64(n) / 1e6
	digits := 1
	switch {
	case v >= 10:
		digits = 0
	case v < 1:
		digits = 2
	}
	return strconv.FormatFloat(v, 'f', digits, 64)
}

// TestDocsRuntimeSize holds the runtime's download size, as docs/EMBED.md
// and docs/MANUAL.md give it, to the modules this tree builds: the Go
// module as twice serve builds it and SQLite's, raw and at the brotli
// quality twice serve and twice build compress them with. The figures in
// the docs are these, measured, not written by hand.
func TestDocsRuntimeSize(t *testing.T) {
	rt := realRuntime(t)
	t.Parallel()
	sqlite := rt.SQLite
	if sqlite == nil {
		sqlite = sqlitewasm.Wasm
	}
	modules := [][]byte{rt.Wasm, sqlite}
	packed := make([]int, len(modules))
	var wg sync.WaitGroup
	for i, m := range modules {
		wg.Go(func() {
			var buf bytes.Buffer
			w := brotli.NewWriterOptions(&buf, brotli.WriterOptions{Quality: brotli.BestCompression, LGWin: brotliWindow(len(m))})
			w.Write(m)
			w.Close()
			packed[i] = buf.Len()
		})
	}
	wg.Wait()
	raw, br := len(rt.Wasm)+len(sqlite), packed[0]+packed[1]
	t.Logf("the runtime: %d bytes raw (%s MB), %d with brotli (%s MB)", raw, megabytes(raw), br, megabytes(br))
	for _, c := range []struct {
		file string
		re   *regexp.Regexp
		want []string
	}{
		{"docs/EMBED.md", regexp.MustCompile(`about ([0-9.]+) MB as\s+WebAssembly, ([0-9.]+) MB with brotli`), []string{megabytes(raw), megabytes(br)}},
		{"docs/MANUAL.md", regexp.MustCompile(`download at about ([0-9.]+) MB brotli`), []string{megabytes(br)}},
	} {
		data, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(c.file)))
		if err != nil {
			t.Fatal(err)
		}
		m := c.re.FindSubmatch(data)
		if m == nil {
			t.Errorf("%s: no sentence matches %s", c.file, c.re)
			continue
		}
		for i, w := range c.want {
			if got := string(m[i+1]); got != w {
				t.Errorf("%s says %q where it is %s MB: %s", c.file, m[0], w, fmt.Sprint(c.want))
			}
		}
	}
}
