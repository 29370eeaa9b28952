package draw

import (
	"fmt"
	"slices"
	"strings"

	"github.com/twice-lab/twice/runtime/event"
	"github.com/twice-lab/twice/runtime/script/result"
	"github.com/twice-lab/twice/runtime/sim"
)

// Layout constants, in SVG user units. The width is about that of a
// lesson's block on a desktop page, so that the picture is drawn there at
// about its own size: its smallest text (tlSmall) about 12 CSS px, read
// from the back of a room on a projector. A narrower screen scrolls it
// sideways rather than shrink it (the page sets its least width from
// tlSmall).
const (
	tlWidth    = 720
	tlLeft     = 130 // lane labels
	tlRight    = 20
	tlTop      = 34
	tlLane     = 46
	tlBreak    = 44 // width of a cut-out stretch
	tlMinSeg   = 24 // narrowest a burst of activity is drawn
	tlQuietGap = 20 * sim.Millisecond
	tlMaxSegs  = 8 // at most this many bursts: the shortest quiet stretches beyond are drawn to scale

	tlFont  = 14 // the lanes' names
	tlSmall = 12 // every other text: run ids, the axis, the kinds' names
)

// anchor maps a virtual instant to an x coordinate; x is linear between
// consecutive anchors.
type anchor struct {
	t sim.Time
	x int
}

type axis struct {
	anchors []anchor
	breaks  []anchor // the x of each break's left edge, and its length in t
}

func (a axis) x(t sim.Time) int {
	as := a.anchors
	if t <= as[0].t {
		return as[0].x
	}
	for i := 1; i < len(as); i++ {
		if t <= as[i].t {
			l, r := as[i-1], as[i]
			if r.t == l.t {
				return r.x
			}
			return l.x + int(int64(r.x-l.x)*(t-l.t)/(r.t-l.t))
		}
	}
	return as[len(as)-1].x
}

// newAxis cuts the quiet stretches out of the span of times and spreads the
// remaining bursts over the drawing width in proportion to their length.
func newAxis(times []sim.Time) axis {
	sortInsertion(times, func(a, b sim.Time) bool { return a < b })
	times = slices.Compact(times)
	type seg struct{ a, b sim.Time }
	segs := []seg{{times[0], times[0]}}
	for _, t := range times[1:] {
		last := &segs[len(segs)-1]
		if t-last.b > tlQuietGap {
			segs = append(segs, seg{t, t})
		} else {
			last.b = t
		}
	}
	// A worker that renews its lease every few hundred ms would cut the
	// axis into dozens of pieces: keep the longest quiet stretches cut and
	// draw the shorter ones to scale.
	for len(segs) > tlMaxSegs {
		i := 1
		for j := 2; j < len(segs); j++ {
			if segs[j].a-segs[j-1].b < segs[i].a-segs[i-1].b {
				i = j
			}
		}
		segs[i-1].b = segs[i].b
		segs = append(segs[:i], segs[i+1:]...)
	}
	span := tlWidth - tlLeft - tlRight - tlBreak*(len(segs)-1) - tlMinSeg*len(segs)
	var total sim.Time
	for _, s := range segs {
		total += s.b - s.a
	}
	var ax axis
	x := tlLeft
	for i, s := range segs {
		if i > 0 {
			ax.breaks = append(ax.breaks, anchor{t: s.a - segs[i-1].b, x: x})
			x += tlBreak
		}
		w := tlMinSeg
		if total > 0 {
			w += int(int64(span) * (s.b - s.a) / total)
		}
		ax.anchors = append(ax.anchors, anchor{s.a, x + tlMinSeg/2}, anchor{s.b, x + w - tlMinSeg/2})
		x += w
	}
	return ax
}

// fmtTime prints an instant or duration for an axis label.
func fmtTime(t sim.Time) string {
	switch {
	case t >= 10*sim.Second:
		return fmt.Sprintf("%d s", t/sim.Second)
	case t >= sim.Second:
		return fmt.Sprintf("%d.%02d s", t/sim.Second, t%sim.Second/(10*sim.Millisecond))
	case t >= 10*sim.Millisecond:
		return fmt.Sprintf("%d ms", t/sim.Millisecond)
	}
	if t == 0 {
		return "0"
	}
	return fmt.Sprintf("%d.%d ms", t/sim.Millisecond, t%sim.Millisecond/100)
}

// Timeline draws the run's trace. It returns nil when there is nothing
// to draw (no worker ever ran).
func Timeline(r *result.Result) *result.Timeline {
	s := newSheet(r)
	if s == nil {
		return nil
	}
	height := tlTop + tlLane*len(s.lanes) + 48
	effects := 0
	for _, e := range r.Trace {
		if e.Kind.Mark() == event.Dot || e.Kind == event.Commit && e.Effect != nil {
			effects++
		}
	}
	s.p(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-labelledby="tl-title tl-desc" class="twice-timeline">`, tlWidth, height, tlWidth, height)
	s.p(`<title id="tl-title">Timeline of the run</title>`)
	s.p(`<style>
.twice-timeline{font:%dpx system-ui,sans-serif;--fg:#1d2433;--muted:#667085;--lane:#f2f4f7;--lease:#7aa2f7;--held:#f4b740;--bad:#d92d20;--ok:#12b76a}
@media (prefers-color-scheme:dark){.twice-timeline{--fg:#e6e9ef;--muted:#98a2b3;--lane:#1f2430;--lease:#5b7bd5;--held:#c99426;--bad:#ff6b5e;--ok:#32d583}}
.twice-timeline text{fill:var(--fg)}.twice-timeline .m{fill:var(--muted)}
.twice-timeline .lane{fill:var(--lane)}.twice-timeline .lease{fill:var(--lease);opacity:.55}
.twice-timeline .held{fill:none;stroke:var(--held);stroke-width:2;stroke-dasharray:5 4}
.twice-timeline .tick{stroke:var(--fg);stroke-width:1.5}.twice-timeline .axis{stroke:var(--muted)}
.twice-timeline .brk{stroke:var(--muted);fill:none;stroke-dasharray:2 3}
.twice-timeline .eff{fill:var(--ok)}.twice-timeline .dup{fill:var(--bad)}
.twice-timeline .send{stroke:var(--muted);stroke-width:1;fill:none}
.twice-timeline .kill{stroke:var(--bad);stroke-width:2.5}
.twice-timeline .cursor{stroke:var(--bad);stroke-width:1.5;display:none}
.twice-timeline .work{fill:var(--muted);opacity:.7}.twice-timeline .stall{fill:none;stroke:var(--bad);stroke-width:2;stroke-dasharray:3 3}
.twice-timeline .ref{fill:none;stroke:var(--bad);stroke-width:2.5}
</style>`, tlFont)
	s.drawLanes()
	axisY := s.drawAxis()
	s.drawLeases()
	s.drawSpans()
	s.drawEvents()
	s.p(`<line class="cursor" x1="0" y1="%d" x2="0" y2="%d"/>`, tlTop, axisY)
	s.p(`<desc id="tl-desc">%d lanes; %d effect(s), %d duplicate(s)</desc>`, len(s.lanes), effects, s.dups)
	s.p(`</svg>`)

	t := &result.Timeline{SVG: s.b.String(), Width: tlWidth, Height: height, FirstDuplicate: s.firstDup, Steps: steps(r, s.lanes[:len(s.lanes)-1])}
	for _, e := range r.Trace {
		t.EventX = append(t.EventX, s.ax.x(e.AtUS))
	}
	return t
}

// sheet is one timeline as it is drawn: the run, its lanes in order (the
// workers, then the receipts service), its axis, its leases, and the SVG
// so far.
type sheet struct {
	r      *result.Result
	lanes  []string
	lane   map[string]int // lane index by process
	ax     axis
	leases []*lease
	b      strings.Builder

	// What the events drew: the effects seen per order and event, the x
	// of each run's last send, and the duplicates.
	seen     map[string]int
	sends    map[string]int
	dups     int
	firstDup int
}

// newSheet lays the run out: a lane per worker in natural order, then the
// receipts service, and an axis over every instant that is drawn. It
// returns nil when no worker ran.
func newSheet(r *result.Result) *sheet {
	s := &sheet{r: r, lane: map[string]int{}, seen: map[string]int{}, sends: map[string]int{}, firstDup: -1}
	var times []sim.Time
	for _, e := range r.Trace {
		if e.Kind.Lane() == event.LaneShell {
			continue
		}
		times = append(times, e.AtUS)
		if _, ok := s.lane[e.Proc]; !ok && e.Kind.Lane() == event.LaneWorker {
			s.lane[e.Proc] = 0
			s.lanes = append(s.lanes, e.Proc)
		}
	}
	if len(s.lanes) == 0 {
		return nil
	}
	sortInsertion(s.lanes, func(a, b string) bool { return naturalCompare(a, b) < 0 })
	s.lanes = append(s.lanes, "receipts")
	for i, name := range s.lanes {
		s.lane[name] = i
	}
	s.leases = leases(r)
	for _, l := range s.leases {
		if !l.acked {
			times = append(times, l.end) // show where a lease left behind runs out
		}
	}
	s.ax = newAxis(times)
	return s
}

// p appends to the SVG.
func (s *sheet) p(format string, args ...any) { fmt.Fprintf(&s.b, format, args...) }

// laneY is the y of the middle of a process's lane.
func (s *sheet) laneY(name string) int { return tlTop + tlLane*s.lane[name] + tlLane/2 }

// drawLanes draws each lane with its label: the worker and its runs, or
// the witness.
func (s *sheet) drawLanes() {
	runOf := map[string]string{}
	for _, e := range s.r.Trace {
		if e.Kind == event.Start {
			if prev, ok := runOf[e.Proc]; ok && prev != e.Run {
				runOf[e.Proc] = prev + ", " + e.Run
			} else {
				runOf[e.Proc] = e.Run
			}
		}
	}
	for _, name := range s.lanes {
		y := s.laneY(name)
		s.p(`<rect class="lane" x="%d" y="%d" width="%d" height="%d" rx="4"/>`, tlLeft-6, y-tlLane/2+4, tlWidth-tlLeft-tlRight+12, tlLane-8)
		s.p(`<text x="8" y="%d" font-weight="600">%s</text>`, y-2, escapeXML(name))
		label := "the witness"
		if name != "receipts" {
			label = "run " + runOf[name]
		}
		s.p(`<text class="m" x="8" y="%d" font-size="%d">%s</text>`, y+14, tlSmall, escapeXML(truncate(label, 20)))
	}
}

// drawAxis draws the axis under the lanes: a label at the start of every
// burst, a break mark between two. It returns the axis's y.
func (s *sheet) drawAxis() int {
	ax := s.ax
	axisY := tlTop + tlLane*len(s.lanes) + 10
	s.p(`<line class="axis" x1="%d" y1="%d" x2="%d" y2="%d"/>`, tlLeft-6, axisY, tlWidth-tlRight+6, axisY)
	for i := 0; i < len(ax.anchors); i += 2 {
		for j, a := range ax.anchors[i : i+2] {
			if j == 1 && a.x-ax.anchors[i].x < 70 {
				break // too close to the burst's start to label
			}
			s.p(`<line class="axis" x1="%d" y1="%d" x2="%d" y2="%d"/>`, a.x, axisY, a.x, axisY+5)
			s.p(`<text class="m" x="%d" y="%d" font-size="%d" text-anchor="middle">%s</text>`, a.x, axisY+18, tlSmall, fmtTime(a.t))
		}
	}
	for _, br := range ax.breaks {
		x := br.x + tlBreak/2
		s.p(`<path class="brk" d="M%d %d V%d"/>`, x, tlTop, axisY)
		s.p(`<text class="m" x="%d" y="%d" font-size="%d" text-anchor="middle">+%s</text>`, x, axisY+33, tlSmall, fmtTime(br.t))
	}
	return axisY
}

// drawLeases draws each lease from the claim to the ack, or to expiry
// when nobody acked.
func (s *sheet) drawLeases() {
	for _, l := range s.leases {
		y := s.laneY(l.proc)
		x1, x2 := s.ax.x(l.from), s.ax.x(l.to)
		s.p(`<rect class="lease" x="%d" y="%d" width="%d" height="14" rx="3"><title>%s holds the lease (run %s) from %s</title></rect>`,
			x1, y-7, max(x2-x1, 2), escapeXML(l.proc), escapeXML(l.run), fmtTime(l.from))
		if l.killed && l.end > l.to {
			x3 := s.ax.x(l.end)
			s.p(`<rect class="held" x="%d" y="%d" width="%d" height="14" rx="3"><title>the lease outlives its dead worker until %s</title></rect>`, x2, y-7, max(x3-x2, 2), fmtTime(l.end))
			s.p(`<text class="m" x="%d" y="%d" font-size="%d" text-anchor="end">lease expires</text>`, x3, y-10, tlSmall)
		}
	}
}

// drawSpans draws the job's own work (--processing) as a thin bar under
// the lease, and a stall as a dashed one: the picture shows a worker
// still busy after its lease ran out.
func (s *sheet) drawSpans() {
	for _, sp := range spans(s.r) {
		y := s.laneY(sp.proc)
		x1, x2 := s.ax.x(sp.from), s.ax.x(sp.to)
		if sp.stall {
			s.p(`<rect class="stall" x="%d" y="%d" width="%d" height="6" rx="2"><title>%s frozen for %s</title></rect>`, x1, y+9, max(x2-x1, 2), escapeXML(sp.proc), fmtTime(sp.to-sp.from))
		} else {
			s.p(`<rect class="work" x="%d" y="%d" width="%d" height="4" rx="2"><title>%s working for %s</title></rect>`, x1, y+10, max(x2-x1, 2), escapeXML(sp.proc), fmtTime(sp.to-sp.from))
		}
	}
}

// drawEvents draws what each event's kind marks: statements, sends,
// effects (a second one for an event as a duplicate), refusals and kills.
func (s *sheet) drawEvents() {
	for i, e := range s.r.Trace {
		if e.Kind.Lane() == event.LaneShell {
			if e.Kind == event.Reset {
				s.seen = map[string]int{}
			}
			continue
		}
		x, y := s.ax.x(e.AtUS), s.laneY(e.Proc)
		if e.Kind == event.Commit && e.Effect != nil {
			s.drawLedgerRow(i, e, x, y)
			continue
		}
		switch e.Kind.Mark() {
		case event.Tick:
			s.p(`<line class="tick" x1="%d" y1="%d" x2="%d" y2="%d"><title>%s: %s</title></line>`, x, y-11, x, y+11, escapeXML(e.Proc), escapeXML(e.Step))
		case event.ShortTick:
			s.p(`<line class="tick" x1="%d" y1="%d" x2="%d" y2="%d"><title>%s: %s</title></line>`, x, y-7, x, y+7, escapeXML(e.Proc), escapeXML(e.Step))
		case event.Ring:
			s.drawRing(e, x, y)
		case event.Origin:
			s.sends[e.Run] = x
		case event.Dot:
			s.drawEffect(i, e, x, y)
		case event.Cross:
			s.p(`<path class="kill" d="M%d %d l10 10 m0 -10 l-10 10"><title>%s</title></path>`, x-5, y-5, escapeXML(e.Step))
		case event.Label:
			s.p(`<text class="m" x="%d" y="%d" font-size="%d" text-anchor="middle">%s</text>`, x, y-12, tlSmall, e.Kind)
		}
	}
}

// count counts one more effect of ef's event and returns how many it has
// had; a second or later is a duplicate, and the first duplicate's event
// index is where a narrow screen starts the picture.
func (s *sheet) count(i int, ef *result.Effect) int {
	k := ef.Order + "\x00" + ef.Event
	s.seen[k]++
	if s.seen[k] > 1 {
		s.dups++
		if s.firstDup < 0 {
			s.firstDup = i
		}
	}
	return s.seen[k]
}

// drawLedgerRow draws a ledger row landing at its COMMIT, on the worker's
// own lane.
func (s *sheet) drawLedgerRow(i int, e result.Event, x, y int) {
	ef := e.Effect
	n := s.count(i, ef)
	class, label := "eff", fmt.Sprintf("effect %d (ledger row)", n)
	if n > 1 {
		class, label = "dup", "duplicate effect (ledger row)"
	}
	s.p(`<line class="tick" x1="%d" y1="%d" x2="%d" y2="%d"/>`, x, y-11, x, y+11)
	s.p(`<circle class="%s" cx="%d" cy="%d" r="7"><title>%s: %s from run %s a%d, committed at %s</title></circle>`,
		class, x, y, label, escapeXML(ef.Order), escapeXML(ef.Run), ef.Attempt, fmtTime(ef.AtUS))
}

// drawRing draws a request that arrived and was not an effect (refused,
// or replayed), with the line from its send.
func (s *sheet) drawRing(e result.Event, x, y int) {
	ef := e.Effect
	if sx, ok := s.sends[ef.Run]; ok {
		s.p(`<path class="send" d="M%d %d L%d %d"/>`, sx, s.laneY(ef.Worker), x, y)
	}
	title := escapeXML(e.Step)
	switch e.Kind {
	case event.Refused:
		title = fmt.Sprintf("refused: %s from run %s, fencing token %d is stale", escapeXML(ef.Order), escapeXML(ef.Run), ef.Token)
	case event.Replayed:
		title = fmt.Sprintf("replayed: %s from run %s, key %s was stored by run %s", escapeXML(ef.Order), escapeXML(ef.Run), escapeXML(ef.Key), escapeXML(ef.FirstRun))
	}
	s.p(`<circle class="ref" cx="%d" cy="%d" r="6"><title>%s</title></circle>`, x, y, title)
	s.p(`<text class="m" x="%d" y="%d" font-size="%d" text-anchor="middle">%s</text>`, x, y+20, tlSmall, e.Kind)
}

// drawEffect draws an effect landing at the service, with the line from
// its send; a second effect of one event is a duplicate, marked so.
func (s *sheet) drawEffect(i int, e result.Event, x, y int) {
	ef := e.Effect
	n := s.count(i, ef)
	class, label := "eff", fmt.Sprintf("effect %d", n)
	if n > 1 {
		class, label = "dup", "duplicate effect"
	}
	if sx, ok := s.sends[ef.Run]; ok {
		sy := s.laneY(ef.Worker)
		s.p(`<path class="send" d="M%d %d L%d %d"/>`, sx, sy, x, y)
	}
	s.p(`<circle class="%s" cx="%d" cy="%d" r="7"><title>%s: %s from run %s a%d s%d at %s</title></circle>`,
		class, x, y, label, escapeXML(ef.Order), escapeXML(ef.Run), ef.Attempt, ef.Send, fmtTime(ef.AtUS))
	if class == "dup" && n == 2 {
		s.p(`<text x="%d" y="%d" font-size="%d" font-weight="600" text-anchor="middle" class="dupl">duplicate</text>`, x, y+20, tlSmall)
	}
}

// lease is one lease as the trace shows it.
type lease struct {
	proc, run     string
	from, to, end sim.Time // to: ack, kill or expiry; end: expiry
	killed, acked bool
}

// leases pairs every claim in the trace with the ack or kill that ended it.
func leases(r *result.Result) []*lease {
	var leases []*lease
	open := map[string]*lease{}
	for _, e := range r.Trace {
		switch bar := e.Kind.Bar(); {
		case bar == event.LeaseFrom:
			if e.Job != nil && e.Job.LeaseUS != nil {
				l := &lease{proc: e.Proc, run: e.Run, from: e.AtUS, to: *e.Job.LeaseUS, end: *e.Job.LeaseUS}
				leases = append(leases, l)
				open[e.Proc] = l
			}
		case bar == event.LeaseRenew:
			if l := open[e.Proc]; l != nil && e.Job != nil && e.Job.LeaseUS != nil {
				l.to, l.end = *e.Job.LeaseUS, *e.Job.LeaseUS
			}
		case bar == event.LeaseAck:
			if l := open[e.Proc]; l != nil {
				l.to, l.acked = min(e.AtUS, l.end), true
				delete(open, e.Proc)
			}
		case bar == event.LeaseKill, e.Kind == event.Say && strings.Contains(e.Step, "giving up"):
			if l := open[e.Proc]; l != nil {
				l.to, l.killed = min(e.AtUS, l.end), true
				delete(open, e.Proc)
			}
		case e.Kind == event.Reset:
			open = map[string]*lease{}
		}
	}
	return leases
}

// span is a stretch of a worker's own work, or of a stall.
type span struct {
	proc     string
	from, to sim.Time
	stall    bool
}

// spans finds the work (from a WorkFrom event, process, to the worker's
// next step that is not a heartbeat, a clock read or more work) and the
// stalls (from a StallFrom event, stall, to its next step).
func spans(r *result.Result) []span {
	var out []span
	open := map[string]*span{}
	for _, e := range r.Trace {
		sp := open[e.Proc]
		if sp != nil && (sp.stall || e.Kind != event.Heartbeat && e.Kind != event.Clock && e.Kind != event.Process) {
			sp.to = e.AtUS
			out = append(out, *sp)
			delete(open, e.Proc)
		}
		switch e.Kind.Bar() {
		case event.WorkFrom:
			open[e.Proc] = &span{proc: e.Proc, from: e.AtUS}
		case event.StallFrom:
			open[e.Proc] = &span{proc: e.Proc, from: e.AtUS, stall: true}
		}
	}
	return out
}

// naturalCompare orders W2 before W10.
func naturalCompare(a, b string) int {
	ta, tb := strings.TrimRight(a, "0123456789"), strings.TrimRight(b, "0123456789")
	if ta == tb && len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// escapeXML escapes text for SVG markup as html.EscapeString does (&, <,
// >, ' and "), without the general string replacer that would add about
// 5 kB to the browser's download.
func escapeXML(s string) string {
	var b []byte
	last := 0
	for i := 0; i < len(s); i++ {
		var r string
		switch s[i] {
		case '&':
			r = "&amp;"
		case '<':
			r = "&lt;"
		case '>':
			r = "&gt;"
		case '\'':
			r = "&#39;"
		case '"':
			r = "&#34;"
		default:
			continue
		}
		b = append(b, s[last:i]...)
		b = append(b, r...)
		last = i + 1
	}
	if b == nil {
		return s
	}
	return string(append(b, s[last:]...))
}

// sortInsertion sorts xs stably by less. The timeline sorts short lists
// (lane names) and almost-sorted ones (event times, which the trace holds
// in order, followed by a few lease expiries), where insertion sort is
// near linear; it also keeps package slices' sorting code, instantiated
// once per element type, out of the browser's download.
func sortInsertion[T any](xs []T, less func(a, b T) bool) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && less(xs[j], xs[j-1]); j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}
