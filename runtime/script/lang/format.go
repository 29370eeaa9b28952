package lang

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/twice-lab/twice/runtime/receipts"
	"github.com/twice-lab/twice/runtime/sim"
)

// Format prints s in canonical form: one line per chain of commands joined
// by '&&', no wrappers, and only the flags that differ from their defaults.
// Parsing the result gives back the same commands (positions aside).
func Format(s *Script) string {
	var b strings.Builder
	for i, c := range s.Commands {
		if i > 0 {
			if c.Op == OpAnd {
				b.WriteString(" && ")
			} else {
				b.WriteString("\n")
			}
		}
		b.WriteString(c.String())
	}
	if len(s.Commands) > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

// String formats one command in canonical form.
func (c Command) String() string {
	switch c.Kind {
	case CmdAdd:
		s := "add " + c.Add.Order
		if c.Add.Event != "" {
			s += " --event " + c.Add.Event
		}
		if c.Add.Times != 1 {
			s += " --times " + strconv.Itoa(c.Add.Times)
		}
		return s
	case CmdService:
		s := "service --dedupe " + c.Service.Dedupe.String()
		if c.Service.KeyTTL > 0 {
			s += " --key-ttl " + FormatSeconds(c.Service.KeyTTL)
		}
		return s
	case CmdRedeliver:
		return "redeliver --job " + strconv.FormatInt(c.Job, 10)
	case CmdSleep:
		return "sleep " + FormatSeconds(c.Sleep)
	case CmdRace:
		s := "race " + c.Race.Claim.String()
		if c.Race.All {
			s += " --all"
		} else if c.Race.N != DefaultRaces {
			s += " " + strconv.Itoa(c.Race.N)
		}
		if c.Race.Workers != DefaultWorkers {
			s += " --workers " + strconv.Itoa(c.Race.Workers)
		}
		if c.Race.Effect != EffectReceipt {
			s += " --effect " + c.Race.Effect
		}
		if c.Race.KeyTxn == KeyTxnSeparate {
			s += " --key-txn " + c.Race.KeyTxn
		}
		if c.Race.Heartbeat != 0 {
			s += fmt.Sprintf(" --heartbeat %d", c.Race.Heartbeat/sim.Millisecond)
		}
		if c.Race.Fence {
			s += " --fence"
		}
		if c.Race.Delay != 0 {
			s += fmt.Sprintf(" --delay %d", c.Race.Delay/sim.Millisecond)
		}
		if c.Race.Key != receipts.KeyNone {
			s += " --key " + c.Race.Key.String()
		}
		return s
	case CmdMatrix:
		if c.MatrixSeed != 0 {
			return "matrix --seed " + strconv.FormatUint(c.MatrixSeed, 10)
		}
		return "matrix"
	case CmdPrintLog:
		return "cat worker.log"
	case CmdWork:
		w := c.Work
		s := fmt.Sprintf("work --job %d", w.Job)
		if w.Worker != DefaultWorker {
			s += " --worker " + w.Worker
		}
		if w.Lease != DefaultLease {
			s += " --lease " + FormatSeconds(w.Lease)
		}
		if w.Claim != DefaultClaim {
			s += " --claim " + w.Claim.String()
		}
		if w.Trace {
			s += " --trace"
		}
		if w.Delay != 0 {
			s += fmt.Sprintf(" --delay %d", w.Delay/sim.Millisecond)
		}
		if w.Timeout != DefaultTimeout {
			s += fmt.Sprintf(" --timeout %d", w.Timeout/sim.Millisecond)
		}
		if w.CrashBeforeEffect {
			s += " --crash-before-effect"
		}
		if w.CrashBeforeAck {
			s += " --crash-before-ack"
		}
		if w.Processing != 0 {
			s += fmt.Sprintf(" --processing %d", w.Processing/sim.Millisecond)
		}
		if w.Heartbeat != 0 {
			s += fmt.Sprintf(" --heartbeat %d", w.Heartbeat/sim.Millisecond)
		}
		if w.Stall != 0 {
			s += fmt.Sprintf(" --stall %d", w.Stall/sim.Millisecond)
		}
		if w.Fence {
			s += " --fence"
		}
		if w.Effect != EffectReceipt {
			s += " --effect " + w.Effect
		}
		if w.KeyTxn != KeyTxnSame {
			s += " --key-txn " + w.KeyTxn
		}
		if w.CrashBeforeCommit {
			s += " --crash-before-commit"
		}
		if w.Key != receipts.KeyNone {
			s += " --key " + w.Key.String()
		}
		return s
	case CmdLoad:
		l := c.Load
		leases := make([]string, len(l.Leases))
		for i, d := range l.Leases {
			leases[i] = FormatSeconds(d)
		}
		s := fmt.Sprintf("load %d --processing %s --lease %s", l.Jobs, l.Processing, strings.Join(leases, ","))
		if l.Workers != DefaultWorkers {
			s += " --workers " + strconv.Itoa(l.Workers)
		}
		if l.Heartbeat != 0 {
			s += fmt.Sprintf(" --heartbeat %d", l.Heartbeat/sim.Millisecond)
		}
		if l.Stall != 0 {
			s += fmt.Sprintf(" --stall %d", l.Stall/sim.Millisecond)
		}
		if l.Claim != DefaultLoadClaim {
			s += " --claim " + l.Claim.String()
		}
		return s
	case CmdBackground:
		var b strings.Builder
		b.WriteString("( ")
		for i, sub := range c.Body {
			if i > 0 {
				if sub.Op == OpAnd {
					b.WriteString(" && ")
				} else {
					b.WriteString("; ")
				}
			}
			b.WriteString(sub.String())
		}
		b.WriteString(" ) &")
		if c.Op == OpAnd {
			// "x && ( a ) &" would send x to the background too: keep
			// the list that '&' applies to inside a group of its own.
			return "( " + b.String() + " )"
		}
		return b.String()
	}
	return c.Kind.String()
}

// FormatSeconds prints µs as decimal seconds: 2000000 -> "2", 1500 -> "0.0015".
func FormatSeconds(d sim.Time) string {
	s := strconv.FormatInt(d/sim.Second, 10)
	if f := d % sim.Second; f != 0 {
		s += "." + strings.TrimRight(fmt.Sprintf("%06d", f), "0")
	}
	return s
}
