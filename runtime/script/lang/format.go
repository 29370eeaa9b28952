package lang

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

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
		return c.formatAdd()
	case CmdService:
		return c.formatService()
	case CmdRedeliver:
		return "redeliver --job " + strconv.FormatInt(c.Job, 10)
	case CmdLapse:
		return "lapse --job " + strconv.FormatInt(c.Job, 10)
	case CmdSleep:
		return "sleep " + FormatSeconds(c.Sleep)
	case CmdRace:
		return c.formatRace()
	case CmdMatrix:
		if c.MatrixSeed != 0 {
			return "matrix --seed " + strconv.FormatUint(c.MatrixSeed, 10)
		}
		return "matrix"
	case CmdPrintLog:
		return "cat worker.log"
	case CmdWork:
		return c.formatWork()
	case CmdUse:
		return c.formatUse()
	case CmdLoad:
		return c.formatLoad()
	case CmdBackground:
		return c.formatBackground()
	case CmdDeploy:
		if c.Deploy.Grace != 0 {
			return "deploy --grace " + FormatSeconds(c.Deploy.Grace)
		}
		return "deploy"
	}
	return c.Kind.String()
}

// formatAdd prints add in canonical form.
func (c Command) formatAdd() string {
	s := "add " + c.Add.Order
	if c.Add.Event != "" {
		s += " --event " + c.Add.Event
	}
	if c.Add.Times != 1 {
		s += " --times " + strconv.Itoa(c.Add.Times)
	}
	return s
}

// formatService prints service in canonical form.
func (c Command) formatService() string {
	s := "service --dedupe " + c.Service.Dedupe.String()
	if c.Service.KeyTTL > 0 {
		s += " --key-ttl " + FormatSeconds(c.Service.KeyTTL)
	}
	return s
}

// formatRace prints race in canonical form: a flag it took from a use is
// left to the use, a flag written at its default while a use sets it is
// kept.
func (c Command) formatRace() string {
	r := c.Race
	s := "race"
	if !slices.Contains(r.Used, "claim") {
		s += " " + r.Claim.String()
	}
	if r.All {
		s += " --all"
	} else if r.Schedule != nil {
		s += " --schedule " + r.ScheduleText(",")
	} else if r.N != DefaultRaces {
		s += " " + strconv.Itoa(r.N)
	}
	if r.Workers != DefaultWorkers {
		s += " --workers " + strconv.Itoa(r.Workers)
	}
	def := RaceArgs{Effect: EffectReceipt, KeyTxn: KeyTxnSame, BusyTimeout: DefaultBusyTimeout}
	for _, name := range []string{"effect", "key-txn", "heartbeat", "fence", "delay", "key", "txn", "busy-timeout"} {
		t := raceFlagText(r, name)
		differs := t != raceFlagText(def, name)
		if name == "key-txn" {
			differs = r.KeyTxn == KeyTxnSeparate // a race made by hand may leave it ""
		}
		if !slices.Contains(r.Used, name) && (differs || slices.Contains(r.Pinned, name)) {
			s += " " + t
		}
	}
	return s
}

// formatWork prints work in canonical form, its flags as formatRace does.
func (c Command) formatWork() string {
	w := c.Work
	s := fmt.Sprintf("work --job %d", w.Job)
	if w.Worker != DefaultWorker {
		s += " --worker " + w.Worker
	}
	def := WorkArgs{}.defaults()
	for _, name := range UseFlags {
		if t := workFlagText(w, name); !slices.Contains(w.Used, name) && (t != workFlagText(def, name) || slices.Contains(w.Pinned, name)) {
			s += " " + t
		}
	}
	return s
}

// formatUse prints use with the flags it was given.
func (c Command) formatUse() string {
	s := "use"
	for _, name := range c.Use.Given {
		s += " " + workFlagText(c.Use.Flags, name)
	}
	return s
}

// formatLoad prints load in canonical form.
func (c Command) formatLoad() string {
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
}

// formatBackground prints a background list in canonical form.
func (c Command) formatBackground() string {
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

// workFlagText writes flag name of w as a script would: "--lease 30",
// "--trace", or "" for a switch that is off.
func workFlagText(w WorkArgs, name string) string {
	ms := func(d sim.Time) string { return fmt.Sprintf("--%s %d", name, d/sim.Millisecond) }
	on := func(b bool) string {
		if b {
			return "--" + name
		}
		return ""
	}
	switch name {
	case "lease":
		return "--lease " + FormatSeconds(w.Lease)
	case "claim":
		return "--claim " + w.Claim.String()
	case "trace":
		return on(w.Trace)
	case "delay":
		return ms(w.Delay)
	case "timeout":
		return ms(w.Timeout)
	case "crash-before-effect":
		return on(w.CrashBeforeEffect)
	case "crash-before-ack":
		return on(w.CrashBeforeAck)
	case "processing":
		return ms(w.Processing)
	case "heartbeat":
		return ms(w.Heartbeat)
	case "stall":
		return ms(w.Stall)
	case "fence":
		return on(w.Fence)
	case "effect":
		return "--effect " + w.Effect
	case "key-txn":
		return "--key-txn " + w.KeyTxn
	case "crash-before-commit":
		return on(w.CrashBeforeCommit)
	case "key":
		return "--key " + w.Key.String()
	case "release":
		return "--release " + w.Release
	case "max-attempts":
		if w.MaxAttempts == 0 {
			return ""
		}
		return "--max-attempts " + strconv.Itoa(w.MaxAttempts)
	case "txn":
		return "--txn " + w.Txn.String()
	case "busy-timeout":
		return ms(w.BusyTimeout)
	}
	return ""
}

// raceFlagText writes flag name of r as workFlagText does; the claim is
// the race's first word.
func raceFlagText(r RaceArgs, name string) string {
	if name == "claim" {
		return r.Claim.String()
	}
	return workFlagText(r.work(), name)
}

// FormatSeconds prints µs as decimal seconds: 2000000 -> "2", 1500 -> "0.0015".
func FormatSeconds(d sim.Time) string {
	s := strconv.FormatInt(d/sim.Second, 10)
	if f := d % sim.Second; f != 0 {
		s += "." + strings.TrimRight(fmt.Sprintf("%06d", f), "0")
	}
	return s
}

// ScheduleText names the workers of the race's schedule, joined by sep;
// "-" for a schedule with no step.
func (r RaceArgs) ScheduleText(sep string) string {
	if len(r.Schedule) == 0 {
		return "-"
	}
	names := make([]string, len(r.Schedule))
	for i, w := range r.Schedule {
		names[i] = "W" + strconv.Itoa(w+1)
	}
	return strings.Join(names, sep)
}
