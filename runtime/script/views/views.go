package views

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/receipts"
	"github.com/twice-lab/twice/runtime/script/lang"
	"github.com/twice-lab/twice/runtime/script/result"
	"github.com/twice-lab/twice/runtime/sim"
)

// raceShape is a race as the explorer takes it, and the service's dedupe
// mode it runs under.
type raceShape struct {
	dedupe receipts.Dedupe
	race   lang.RaceArgs
}

func (r raceShape) line(workers int) string {
	a := r.race
	// Every ordering ignores timing, so a race's --delay does not carry.
	a.All, a.N, a.Delay = true, 0, 0
	if workers > 0 {
		a.Workers = workers
	}
	return lang.Command{Kind: lang.CmdRace, Race: a}.String()
}

// shapeScript writes the races as one script: a service line before each
// race whose dedupe mode differs from the one before it.
func shapeScript(shapes []raceShape, workers int) string {
	var b strings.Builder
	mode := receipts.DedupeOff
	for _, s := range shapes {
		if s.dedupe != mode {
			b.WriteString("service --dedupe " + s.dedupe.String() + "\n")
			mode = s.dedupe
		}
		b.WriteString(s.line(workers) + "\n")
	}
	return b.String()
}

// raceKey names a race shape among those a view has seen: the list it
// is in, the dedupe mode it runs under, and its line at the default
// workers.
type raceKey struct {
	of     string
	dedupe receipts.Dedupe
	line   string
}

// Of decides the views of a parsed script. Its work is linear in the
// script's length, and the Result's views are charged to the run's
// output budget (meter.go), so a script of many distinct commands costs
// what it prints.
func Of(s *lang.Script) result.Views {
	return result.Views{Explore: exploreView(s), Compare: compareView(s), Timeline: timelineView(s), Scheduler: schedulerView(s), Columns: columnsOf(s), Numbers: numbersOf(s)}
}

// numbersOf lists the script's numbers a slider moves (Views.Numbers).
func numbersOf(s *lang.Script) []result.NumberView {
	var out []result.NumberView
	for _, n := range s.Numbers() {
		x := result.NumberView{Name: n.Name, Value: n.Value, Min: n.Min}
		for _, sp := range n.Spans {
			x.Spans = append(x.Spans, result.TextSpan{Start: s.UTF16(sp[0]), End: s.UTF16(sp[1])})
		}
		out = append(out, x)
	}
	return out
}

// columnsOf picks the effects table's telling columns (see Views.Columns).
func columnsOf(s *lang.Script) []string {
	keys, fence, publish := false, false, false
	walk(s, func(c lang.Command, dedupe receipts.Dedupe) {
		switch c.Kind {
		case lang.CmdService:
			keys = keys || c.Service.Dedupe != receipts.DedupeOff
		case lang.CmdWork:
			keys = keys || c.Work.Key != receipts.KeyNone
			fence = fence || c.Work.Fence
		case lang.CmdRace:
			keys = keys || c.Race.Key != receipts.KeyNone
			fence = fence || c.Race.Fence
		case lang.CmdAdd:
			publish = publish || c.Add.Times > 1 || c.Add.Event != ""
		}
	})
	switch {
	case keys:
		return []string{"key", "send", "event"}
	case fence:
		return []string{"send", "attempt", "run"}
	case publish:
		return []string{"event", "job", "run"}
	}
	return nil // the table's own order: order, job, event, run come first
}

// walk calls f for every command of s, the commands of a background list
// included, with the service's dedupe mode in force when it runs.
func walk(s *lang.Script, f func(c lang.Command, dedupe receipts.Dedupe)) {
	mode := receipts.DedupeOff
	var visit func(cs []lang.Command)
	visit = func(cs []lang.Command) {
		for _, c := range cs {
			if c.Kind == lang.CmdService {
				mode = c.Service.Dedupe
			}
			if c.Kind == lang.CmdBackground {
				visit(c.Body)
				continue
			}
			f(c, mode)
		}
	}
	visit(s.Commands)
}

func exploreView(s *lang.Script) result.ExploreView {
	var own, offered []raceShape
	var works, loads int
	matrix := false
	// A race is added once, however often the script runs it: the
	// shapes seen are looked up by their line, so that a script of many
	// distinct races costs its length, not its length squared.
	seen := map[raceKey]bool{}
	add := func(list []raceShape, r raceShape, of string) []raceShape {
		k := raceKey{of: of, dedupe: r.dedupe, line: r.line(0)}
		if seen[k] {
			return list
		}
		seen[k] = true
		return append(list, r)
	}
	var work workRaces
	walk(s, func(c lang.Command, dedupe receipts.Dedupe) {
		switch c.Kind {
		case lang.CmdRace:
			own = add(own, raceShape{dedupe: dedupe, race: c.Race}, "own")
		case lang.CmdWork:
			works++
			w := c.Work
			work.merge(w.Claim, dedupe, w.Key, w.Effect, w.Heartbeat, w.Fence)
		case lang.CmdLoad:
			loads++
			work.merge(c.Load.Claim, dedupe, receipts.KeyNone, lang.EffectReceipt, c.Load.Heartbeat, false)
		case lang.CmdMatrix:
			matrix = true
		}
	})
	for _, c := range work.claims {
		offered = add(offered, *work.by[c], "offered")
	}
	var v result.ExploreView
	shapes := own
	switch {
	case len(own) > 0:
		v.Own = true
		v.Note = "Every ordering of the workers' steps in " + plural(len(own), "this block's race", "each of this block's races") + ", counted exactly."
	case matrix:
		v.Note = "The matrix runs scenarios of its own, each cell a script: open a cell to run it. There is no race of this block to explore."
		return v
	case loads > 0:
		v.Note = "load's duplicates come from processing that outlives the lease, not from workers racing for one claim, so its timings matter and orderings alone do not tell. The race its workers would run is below: it is not this block's own."
		shapes = offered
	case works == 1:
		v.Note = "This block runs one worker, so no two workers race and no ordering is at stake. The race two such workers would run is below: it is not this block's own."
		shapes = offered
	case works > 1:
		v.Note = "This block's workers run one after another, not released together, so the orderings of a race are not what it shows. The race its workers would run is below: it is not this block's own."
		shapes = offered
	default:
		v.Note = "This block starts no worker, so there is no race to explore."
		return v
	}
	exploreScripts(&v, shapes)
	return v
}

// exploreScripts writes the scripts of v that explore shapes: at the
// workers of the block's own races (or the default for races it would
// run), and at each number of workers.
func exploreScripts(v *result.ExploreView, shapes []raceShape) {
	v.Workers = shapes[0].race.Workers
	if v.Own {
		v.Script = shapeScript(shapes, 0)
	} else {
		v.Script = shapeScript(shapes, lang.DefaultWorkers)
	}
	v.Refused = refusal(v.Script)
	for w := lang.MinWorkers; w <= lang.MaxWorkers; w++ {
		src := shapeScript(shapes, w)
		v.ByWorkers = append(v.ByWorkers, result.ExploreRun{Workers: w, Script: src, Refused: refusal(src)})
	}
}

// workRaces are the races a block's work would run: per claim, in the
// order the block first uses it, one race with the flags any of its
// workers carries, since racing workers all run alike.
type workRaces struct {
	by     map[queue.Claim]*raceShape
	claims []queue.Claim
}

// merge adds one worker's claim and flags.
func (w *workRaces) merge(claim queue.Claim, dedupe receipts.Dedupe, key receipts.Key, effect string, hb sim.Time, fence bool) {
	claim = claim.Alias()
	if w.by == nil {
		w.by = map[queue.Claim]*raceShape{}
	}
	m := w.by[claim]
	if m == nil {
		m = &raceShape{race: lang.RaceArgs{Claim: claim, Workers: lang.DefaultWorkers, Effect: lang.EffectReceipt, Key: receipts.KeyNone, BusyTimeout: lang.DefaultBusyTimeout}}
		w.by[claim] = m
		w.claims = append(w.claims, claim)
	}
	if dedupe != receipts.DedupeOff {
		m.dedupe = dedupe
	}
	if key != receipts.KeyNone && m.race.Key == receipts.KeyNone {
		m.race.Key = key
	}
	if effect == lang.EffectLedger {
		m.race.Effect = lang.EffectLedger
	}
	if hb != 0 && m.race.Heartbeat == 0 {
		m.race.Heartbeat = hb
	}
	m.race.Fence = m.race.Fence || fence
}

// refusal says why the runtime would refuse src, or "" when it parses:
// a limit (too many states for the page to explore), or flags the
// explorer does not take.
func refusal(src string) string {
	_, err := lang.Parse(src)
	if err == nil {
		return ""
	}
	e := err.(*lang.Error)
	if e.Kind == "limit" {
		return "this race is too large to explore here: " + e.Msg
	}
	return "this combination cannot be explored yet: " + e.Msg
}

func plural(n int, one, more string) string {
	if n == 1 {
		return one
	}
	return more
}

// ClaimsJSON is the claims of src without a run, as the browser's worker
// answers the page for a script the reader edited (result.ClaimsJSON):
// its claim as the toggle shows it and its source with each claim, or the
// error that keeps it from parsing.
func ClaimsJSON(src string) string {
	s, err := lang.Parse(src)
	if err != nil {
		var e *lang.Error
		if !errors.As(err, &e) {
			e = &lang.Error{Kind: "parse", Msg: err.Error()}
		}
		return result.ClaimsJSON(result.CompareView{}, e)
	}
	return result.ClaimsJSON(compareView(s), nil)
}

func compareView(s *lang.Script) result.CompareView {
	v := result.CompareView{Claim: s.Claim().String()}
	takes, matrix, scheduled := false, false, false
	walk(s, func(c lang.Command, _ receipts.Dedupe) {
		switch c.Kind {
		case lang.CmdRace, lang.CmdWork, lang.CmdLoad:
			takes = true
			scheduled = scheduled || c.Kind == lang.CmdRace && c.Race.Schedule != nil
		case lang.CmdMatrix:
			matrix = true
		}
	})
	if !takes {
		v.Note = "This block starts no worker, so there is no claim to compare."
		if matrix {
			v.Note = "The matrix runs the atomic claim as a column of its own: its cells are the comparison."
		}
		return v
	}
	if scheduled {
		// A schedule names the steps of its own claim's program: another
		// claim's workers have other steps.
		v.Note = "This block plays a schedule of its claim's own steps; another claim has other steps, so there is nothing to compare."
		return v
	}
	own := claimsOf(s)
	if len(own) > 1 {
		v.Note = fmt.Sprintf("This block runs the claims %s itself. Each pane runs it with one claim; a line that the claim makes a repeat of an earlier one runs once.", strings.Join(own[:len(own)-1], ", ")+" and "+own[len(own)-1])
	}
	for _, claim := range queue.Claims() {
		if claim.Alias() != claim {
			continue
		}
		side := result.CompareSide{Claim: claim.String(), Script: sideScript(s, claim)}
		toggle := result.CompareSide{Claim: claim.String(), Script: s.WithClaim(claim)}
		if _, err := lang.Parse(toggle.Script); err != nil {
			side.Off, toggle.Off = err.Error(), err.Error()
		}
		v.Sides = append(v.Sides, side)
		v.Toggle = append(v.Toggle, toggle)
	}
	return v
}

// claimsOf lists the claims the script's race, work and load commands
// name (a use's included), in order of first use.
func claimsOf(s *lang.Script) []string {
	var out []string
	walk(s, func(c lang.Command, _ receipts.Dedupe) {
		var claim queue.Claim
		switch c.Kind {
		case lang.CmdRace:
			claim = c.Race.Claim
		case lang.CmdWork:
			claim = c.Work.Claim
		case lang.CmdLoad:
			claim = c.Load.Claim
		default:
			return
		}
		if name := claim.Alias().String(); !slices.Contains(out, name) {
			out = append(out, name)
		}
	})
	return out
}

// sideScript is the script of Compare's pane for claim: s with every
// claim set to claim, less each line that the change made a repeat of an
// earlier line (two lines that differed only by their claims, as a block
// that races one claim and then the other has them): the pane runs the
// block's own lines for that claim once each, rather than the same race
// twice.
func sideScript(s *lang.Script, claim queue.Claim) string {
	before := strings.Split(lang.Format(s), "\n")
	after := strings.Split(lang.Format(withClaim(s, claim)), "\n")
	if len(before) != len(after) {
		return strings.Join(after, "\n")
	}
	// The lines seen so far, before and after, are looked up in sets: a
	// script of many lines costs its length, not its length squared.
	seenBefore, seenAfter := map[string]bool{}, map[string]bool{}
	var kept []string
	for i, line := range after {
		repeat := line != "" && seenAfter[line] && !seenBefore[before[i]]
		seenBefore[before[i]], seenAfter[line] = true, true
		if !repeat {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "\n")
}

// withClaim returns a copy of s with the claim of every race, work and
// load command set to claim.
func withClaim(s *lang.Script, claim queue.Claim) *lang.Script {
	var set func(cs []lang.Command) []lang.Command
	set = func(cs []lang.Command) []lang.Command {
		out := make([]lang.Command, len(cs))
		for i, c := range cs {
			switch c.Kind {
			case lang.CmdRace:
				c.Race.Claim = claim
			case lang.CmdWork:
				c.Work.Claim = claim
			case lang.CmdLoad:
				c.Load.Claim = claim
			case lang.CmdUse:
				c.Use.Flags.Claim = claim
			case lang.CmdBackground:
				c.Body = set(c.Body)
			}
			out[i] = c
		}
		return out
	}
	return &lang.Script{Commands: set(s.Commands)}
}

func schedulerView(s *lang.Script) result.SchedulerView {
	var races []raceShape
	walk(s, func(c lang.Command, dedupe receipts.Dedupe) {
		if c.Kind == lang.CmdRace {
			races = append(races, raceShape{dedupe: dedupe, race: c.Race})
		}
	})
	if len(races) == 0 {
		return result.SchedulerView{Note: "This block runs no race, so there are no racing workers to schedule."}
	}
	r := races[0]
	v := result.SchedulerView{Claim: r.race.Claim.String(), Workers: r.race.Workers}
	if r.dedupe != receipts.DedupeOff {
		v.Script = "service --dedupe " + r.dedupe.String() + "\n"
	}
	a := r.race
	// One race, in the order the reader picks: no count, no timing.
	// A block that plays a schedule is scheduled afresh: the reader's.
	a.All, a.N, a.Delay, a.Schedule = false, lang.DefaultRaces, 0, nil
	v.Script += lang.Command{Kind: lang.CmdRace, Race: a}.String() + "\n"
	v.Note = "This block's race, one atomic step at a time: you pick which worker goes next."
	if len(races) > 1 {
		v.Note = "This block's first race, one atomic step at a time: you pick which worker goes next."
	}
	if _, err := lang.Parse(strings.TrimSuffix(v.Script, "\n") + " --schedule -\n"); err != nil {
		v.Refused = "this race cannot be played a step at a time here: " + err.(*lang.Error).Msg
	}
	return v
}

func timelineView(s *lang.Script) result.TimelineView {
	var timed, all, scheduled, loads, works, matrix int
	walk(s, func(c lang.Command, _ receipts.Dedupe) {
		switch c.Kind {
		case lang.CmdRace:
			switch {
			case c.Race.All:
				all++
			case c.Race.Schedule != nil:
				scheduled++
			default:
				timed++
			}
		case lang.CmdLoad:
			loads++
		case lang.CmdWork:
			works++
		case lang.CmdMatrix:
			matrix++
		}
	})
	var notes []string
	var v result.TimelineView
	if timed > 0 {
		notes = append(notes, "A race command is drawn for its last race, the one its tables end on; the transcript's worker lines are its first race's.")
	}
	if all > 0 {
		notes = append(notes, "race --all explores orderings, not timings: see Every ordering.")
	}
	if scheduled > 0 {
		notes = append(notes, "race --schedule is an ordering with no timing of its own: it is drawn with each step taking the time a timed race gives such a step.")
	}
	if loads > 0 {
		v.Chart = true
		notes = append(notes, "load does not trace its jobs one by one. Per lease, the chart shows the jobs, those with two effects, and the drawn p95 processing time against the lease.")
	}
	if matrix > 0 {
		notes = append(notes, "The matrix's cells are runs of their own: open a cell to step through it.")
	}
	v.Trace = timed > 0 || scheduled > 0 || works > 0
	if !v.Trace && loads == 0 && matrix == 0 && all == 0 {
		notes = append(notes, "No worker runs in this block, so there is no timeline to draw.")
	}
	v.Note = strings.Join(notes, " ")
	return v
}

// saturatingAdd adds the decimal count s to n, stopping at the largest
// integer a JavaScript number holds exactly: an exploration of many
// workers counts more orderings than an int (or a page) can.
func saturatingAdd(n int, s string) int {
	const most = 1<<53 - 1
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v > most-int64(n) {
		return most
	}
	return n + int(v)
}

// Outcome counts r as result.Outcome says.
func Outcome(r *result.Result) result.Outcome {
	var o result.Outcome
	for _, e := range r.Effects {
		switch {
		case e.Refused:
			o.Refused++
		case e.Replayed:
			o.Replayed++
		default:
			o.Effects++
		}
	}
	o.Effects += len(r.Ledger)
	var parts []string
	for _, t := range r.Races {
		o.Duplicates += t.Duplicates
		parts = append(parts, fmt.Sprintf("claim=%s: two effects in %d of %d races", t.Claim, t.Duplicates, t.Races))
	}
	for _, t := range r.Loads {
		o.Duplicates += t.Duplicates
		parts = append(parts, fmt.Sprintf("lease %ss: two effects in %d of %d jobs", lang.FormatSeconds(t.LeaseUS), t.Duplicates, t.Jobs))
	}
	for _, x := range r.Explorations {
		o.Duplicates = saturatingAdd(o.Duplicates, x.Duplicating)
		parts = append(parts, fmt.Sprintf("claim=%s, every ordering of %d workers: two effects in %s of %s", x.Claim, x.Workers, x.Duplicating, x.Orderings))
	}
	if len(r.Races) == 0 && len(r.Loads) == 0 && (len(r.Explorations) == 0 || len(r.Effects)+len(r.Ledger) > 0) {
		// One effect per event is right: an order may carry two events.
		perEvent := map[string]int{}
		for _, e := range r.Effects {
			if !e.Refused && !e.Replayed {
				perEvent[e.Order+"/"+e.Event]++
			}
		}
		for _, l := range r.Ledger {
			perEvent[l.Order+"/"+l.Key]++
		}
		for _, n := range perEvent {
			if n > 1 {
				o.Duplicates++
			}
		}
		switch {
		case o.Duplicates > 0:
			parts = append(parts, fmt.Sprintf("two or more effects for %d event(s)", o.Duplicates))
		case o.Effects > 0:
			parts = append(parts, "no duplicate effect")
		default:
			parts = append(parts, "no effect landed")
		}
	}
	if o.Effects > 0 || len(r.Explorations) == 0 {
		parts = append(parts, plural(o.Effects, "1 effect", fmt.Sprintf("%d effects", o.Effects))+" at the end")
	} else {
		parts = append(parts, "no effect at the end")
	}
	if o.Refused > 0 {
		parts[len(parts)-1] += fmt.Sprintf(", %d refused", o.Refused)
	}
	if o.Replayed > 0 {
		parts[len(parts)-1] += fmt.Sprintf(", %d replayed", o.Replayed)
	}
	o.Headline = strings.Join(parts, "; ")
	return o
}
