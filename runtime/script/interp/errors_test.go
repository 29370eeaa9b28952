package interp

import (
	"strings"
	"testing"

	"github.com/twice-lab/twice/runtime/script/lang"
)

// TestErrorsNameWhatTheyAreAbout: every error is one line that names the
// command, and the flag or number, it is about; numbers follow one rule
// everywhere (digits only: no sign, not even on zero; in range).
func TestErrorsNameWhatTheyAreAbout(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{"race read 99999999", "line 1, col 11: race: the count wants a whole number from 1 to 10000, got 99999999"},
		{"race read 0", "line 1, col 11: race: the count wants a whole number from 1 to 10000, got 0"},
		{"race read --heartbeat 0", "race: --heartbeat wants a whole number of ms from 1 to 600000, got 0"},
		{"race read --effect foo", `race: --effect: unknown effect "foo" (want receipt or ledger)`},
		{"race read --key foo", `race: --key: unknown key "foo"`},
		{"add o\nwork --job 1 --effect foo", `line 2, col 23: work: --effect: unknown effect "foo"`},
		{"work --job 1 --key foo", `work: --key: unknown key "foo"`},
		{"load 0 --processing fixed:1 --lease 1", "line 1, col 6: load: the job count wants a whole number from 1 to 1000, got 0"},
		{"load 1 --processing lognormal:,p50=1,p95=6 --lease 1", "load: --processing \"lognormal:,p50=1,p95=6\": a parameter is empty"},
		{"load 1 --processing lognormal:p50=1,p50=2,p95=6 --lease 1", "load: --processing \"lognormal:p50=1,p50=2,p95=6\": p50 is given twice"},
		{"load 1 --processing lognormal:p50=1,p95=+6 --lease 1", "want p95 as a whole number of ms from 1 to 600000, got +6"},
		{"work --job 1 --processing +5", "work: --processing wants a whole number of ms from 0 to 600000, got +5"},
		{"work --job 1 --delay +0", "work: --delay wants a whole number of ms from 0 to 600000, got +0"},
		{"work --job 1 --delay -0", "work: --delay wants a whole number of ms from 0 to 600000, got -0"},
		{"work --job 2147483648", "work: --job wants a whole number from 1 to 1000000, got 2147483648"},
		{"redeliver --job 1000001", "redeliver: --job wants a whole number from 1 to 1000000, got 1000001"},
		{"work --job x", `work: --job wants a whole number from 1 to 1000000, got "x"`},
		{"sleep +1", "sleep: the time wants seconds from 0 to 86400 (like 2 or 0.5), got +1"},
		{"sleep 1.+5", "sleep: the time wants seconds"},
		{"add o --times ", "add: flag --times needs a value"},
		{"add o --times=", "add: --times wants a whole number from 1 to 100, got nothing"},
		{"matrix --seed +3", "matrix: --seed wants a whole number from 1 to 18446744073709551615, got +3"},
		{"service --dedupe claim --key-ttl -1", "service: --key-ttl wants seconds from 0 to 7776000"},
	} {
		res := Run(tt.src, Options{Seed: DefaultSeed})
		checkResult(t, tt.src, res)
		if res.Error == nil || !strings.Contains(res.Error.Error(), tt.want) {
			t.Errorf("%q: error %v\nwant it to say %q", tt.src, res.Error, tt.want)
		}
	}
}

// TestByteOrderMark: a script saved by an editor that starts files with a
// byte-order mark runs as if the mark were not there.
func TestByteOrderMark(t *testing.T) {
	res := Run("\ufeffadd o\njobs", Options{Seed: DefaultSeed})
	if res.Error != nil || res.Text() != "job 1 o status=queued attempts=0 run=-\n" {
		t.Fatalf("error %v, transcript %q", res.Error, res.Text())
	}
}

// TestAllStatesInForce: the state limit of race --all counts the dedupe
// mode in force when it runs, not every mode the script ever set.
func TestAllStatesInForce(t *testing.T) {
	if testing.Short() {
		t.Skip("explores 631 states of six workers")
	}
	src := "service --dedupe claim; service --dedupe off; race read --all --workers 6 --key attempt"
	res := Run(src, Options{Seed: DefaultSeed})
	if res.Error != nil || len(res.Explorations) != 1 || res.Explorations[0].States != 631 {
		t.Fatalf("error %v, explorations %+v", res.Error, res.Explorations)
	}
	// A service command after && may be skipped: the mode before it may
	// still be in force, so the dearer one counts.
	if _, err := lang.Parse("service --dedupe claim\nwork --job 1 && service --dedupe off; race read --all --workers 6 --key attempt"); err == nil || !strings.Contains(err.Error(), "12170") {
		t.Errorf("a skippable service command: %v; want the claim mode's 12170 states refused", err)
	}
}
