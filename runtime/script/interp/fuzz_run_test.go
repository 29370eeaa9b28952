package interp

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzRunBackground runs (not only parses) scripts built from background
// workers, waits, sleeps, processing, heartbeats, stalls and fencing, and
// checks what a reader relies on: no panic, an error is one line with a
// line and column, the exit code is 0, 1 or 2, and the same seed gives the
// same bytes.
//
//	go test ./runtime/script/interp -run '^$' -fuzz FuzzRunBackground -fuzztime 5m
func FuzzRunBackground(f *testing.F) {
	for _, src := range []string{
		"add o\nwork --job 1 --lease 1 --processing 3000 &\nsleep 1.5\nwork --job 1 --worker W2\nwait\neffects",
		"add o\nwork --job 1 --lease 1 --processing 3000 --heartbeat 300 --stall 2500 --fence &\nsleep 4.5\nwork --job 1 --worker W2 --fence\neffects",
		"add o; ( sleep 1; work --job 1 --worker W2 ) & work --job 1 --processing 1500 --heartbeat 200; wait; jobs",
		"add o && add o; work --job 2 --processing 10 & work --job 1 --worker B & wait; effects",
		"load 20 --processing lognormal:p50=300,p95=900 --lease 0.5,1 --heartbeat 100 --stall 700",
		"wait; wait; add o; work --job 1 --crash-before-ack --lease 0.1 & sleep 0.2; work --job 1 --worker W2 --fence; effects",
		"service --dedupe check\nadd o --times 2\nwork --job 1 --key event --processing 50 & work --job 2 --worker W2 --key event & wait; effects",
		"service --dedupe claim --key-ttl 0.2\nadd o && work --job 1 --key job && sleep 1 && redeliver --job 1 && work --job 1 --key job; race read 3 --key attempt; effects",
	} {
		f.Add(src, uint64(1))
	}
	f.Fuzz(func(t *testing.T, src string, seed uint64) {
		if len(src) > 2000 {
			return // keep each run short: the step budget is tested elsewhere
		}
		a := Run(src, Options{Seed: seed})
		if a.ExitCode < 0 || a.ExitCode > 2 {
			t.Fatalf("exit code %d", a.ExitCode)
		}
		if e := a.Error; e != nil {
			if strings.Contains(e.Error(), "\n") {
				t.Fatalf("multi-line error %q", e.Error())
			}
			if e.Kind != "limit" && e.Line == 0 && !strings.Contains(e.Msg, "steps") {
				t.Fatalf("error without a place: %q", e.Error())
			}
			if strings.Contains(e.Msg, "internal error") {
				t.Fatalf("internal error: %q", e.Msg)
			}
		}
		b := Run(src, Options{Seed: seed})
		ja, _ := a.MarshalJSON()
		jb, _ := b.MarshalJSON()
		if !bytes.Equal(ja, jb) {
			t.Fatalf("same seed, different results for %q", src)
		}
	})
}
