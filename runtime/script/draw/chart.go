package draw

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/twice-lab/twice/runtime/script/diagnosis"
	"github.com/twice-lab/twice/runtime/script/lang"
	"github.com/twice-lab/twice/runtime/script/result"
)

// Layout of the chart, in SVG user units: lease length runs to the right
// on a continuous axis, one bar per lease standing at its length, and the
// drawn p95 of processing is a dashed line at its own length on the same
// axis. It is narrow enough to be drawn at full size on a phone (a 390 px
// screen less its margins), so that no text shrinks and nothing scrolls
// sideways.
const (
	chWidth  = 320
	chLeft   = 18  // where the axis starts (lease 0)
	chRight  = 302 // where it ends
	chBand   = 38  // the baseline of the p95 label, above the plot
	chPlot   = 50  // the top of the plot, below the p95 label
	chHeight = 120 // the tallest bar
	chLine   = 14  // one row of labels
	chCharW  = 7   // a character of 12 px text, at its widest digit, for placing labels
)

// LoadChart draws r.Loads as vertical bars on a lease axis that runs from
// zero past the longest lease, each bar at its lease length, labelled
// with its count of jobs with two effects, and marks the drawn p95 of
// processing on that axis with a dashed line. No label overlaps another:
// a label that would is moved a row up (the counts) or down (the lease
// lengths). It returns nil when the script ran no load.
func LoadChart(r *result.Result) *result.Chart {
	ls := r.Loads
	if len(ls) == 0 {
		return nil
	}
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p95 := ls[0].P95US
	// The axis ends a little past the longest lease, or the p95.
	end := p95
	for _, t := range ls {
		end = max(end, t.LeaseUS)
	}
	end = max(end+end/12, 1)
	x := func(us int64) int { return chLeft + int(int64(chRight-chLeft)*min(max(us, 0), end)/end) }
	top := chartTop(ls)
	// The bars' width: most of the narrowest gap between two of them.
	xs := make([]int, len(ls))
	for i, t := range ls {
		xs[i] = x(t.LeaseUS)
	}
	bw := 20
	for i := range xs {
		for j := range i {
			if d := abs(xs[i] - xs[j]); d > 0 {
				bw = min(bw, d*3/5)
			}
		}
	}
	bw = max(bw, 4)
	// The counts above their bars, each lifted a row while it would
	// overlap one placed before; then the plot is moved down as far as
	// the highest needs.
	type box struct{ x0, x1, y int } // y: the baseline; a label spans y-chLine+2 to y+3
	overlaps := func(a box, bs []box) bool {
		for _, o := range bs {
			if a.x0 < o.x1 && o.x0 < a.x1 && a.y-chLine < o.y && o.y-chLine < a.y {
				return true
			}
		}
		return false
	}
	var counts []box
	lift := 0 // how far above the plot's top the highest count reaches
	for i, t := range ls {
		h := max(chHeight*duplicatePct(t)/top, 2)
		w := chCharW * len(strconv.Itoa(t.Duplicates))
		c := box{xs[i] - w/2, xs[i] + w/2 + 1, chHeight - h - 4}
		for overlaps(c, counts) {
			c.y -= chLine
		}
		counts = append(counts, c)
		lift = max(lift, chLine-c.y)
	}
	plot := chPlot + lift // the top of the tallest bar
	base := plot + chHeight
	// The lease lengths under the axis, each moved a row down while it
	// would overlap one placed before.
	var ticks []box
	low := base + 16
	for i, t := range ls {
		w := chCharW * len(lang.FormatSeconds(t.LeaseUS)+" s")
		c := box{xs[i] - w/2, xs[i] + w/2 + 1, base + 16}
		for overlaps(c, ticks) {
			c.y += chLine
		}
		ticks = append(ticks, c)
		low = max(low, c.y)
	}
	height := low + 2*chLine + 12
	p(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-labelledby="ch-title ch-desc" class="twice-chart">`, chWidth, height, chWidth, height)
	p(`<title id="ch-title">Jobs with two effects, by lease length</title>`)
	p(`%s`, chartStyle)
	p(`<text x="4" y="18" font-size="12" font-weight="600">Jobs with two effects, by lease</text>`)
	p(`<line class="axis" x1="%d" y1="%d" x2="%d" y2="%d"/>`, chLeft, base, chRight, base)
	// The p95: a dashed line at its length, its label in the band above
	// the plot, kept inside the chart.
	px := x(p95)
	label := "p95 of processing: " + diagnosis.FormatGap(p95)
	anchor, lx := "middle", px
	if w := (chCharW + 1) * len(label) / 2; px-w < 4 { // bold text is wider
		anchor, lx = "start", 4
	} else if px+w > chWidth-4 {
		anchor, lx = "end", chWidth-4
	}
	// Drawn under the bars and their counts, whose halo keeps a count
	// on the line readable.
	p(`<line class="p95" x1="%d" y1="%d" x2="%d" y2="%d" data-p95-us="%d"/>`, px, chBand+5, px, base, p95)
	p(`<text class="p95t" x="%d" y="%d" font-size="12" text-anchor="%s">%s</text>`, lx, chBand, anchor, label)
	var desc []string
	for i, t := range ls {
		class := "bar"
		if t.Duplicates == 0 {
			class = "zero"
		}
		h := max(chHeight*duplicatePct(t)/top, 2)
		lease := lang.FormatSeconds(t.LeaseUS)
		p(`<line class="grid" x1="%d" y1="%d" x2="%d" y2="%d"/>`, xs[i], base, xs[i], base+4)
		p(`<rect class="%s" x="%d" y="%d" width="%d" height="%d" rx="2"><title>lease %s s: %d of %d jobs with two effects</title></rect>`,
			class, xs[i]-bw/2, base-h, bw, h, lease, t.Duplicates, t.Jobs)
		p(`<text class="v" x="%d" y="%d" font-size="12" text-anchor="middle">%d</text>`, xs[i], plot+counts[i].y, t.Duplicates)
		p(`<text class="m tick" x="%d" y="%d" font-size="12" text-anchor="middle" data-lease-us="%d">%s s</text>`, xs[i], ticks[i].y, t.LeaseUS, lease)
		desc = append(desc, fmt.Sprintf("lease %s s: %d of %d", lease, t.Duplicates, t.Jobs))
	}
	jobs := ls[0].Jobs
	p(`<text class="m" x="4" y="%d" font-size="12">Across: lease length (s). Bars: jobs with two effects,</text>`, low+chLine+6)
	p(`<text class="m" x="4" y="%d" font-size="12">of %d each; the bar scale ends at %d%%.</text>`, low+2*chLine+6, jobs, top)
	p(`<desc id="ch-desc">%s; processing p95 %s</desc>`, escapeXML(strings.Join(desc, ", ")), diagnosis.FormatGap(p95))
	p(`</svg>`)
	return &result.Chart{SVG: b.String(), Width: chWidth, Height: height}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// chartTop is where the bars' scale ends, in percent of a lease run's
// jobs: the smallest of 20, 40 and 100 that fits every bar.
func chartTop(ls []result.LoadTally) int {
	top := 20
	for _, t := range ls {
		if duplicatePct(t) > top {
			top = max(top, 40)
		}
		if duplicatePct(t) > 40 {
			top = 100
		}
	}
	return top
}

// chartStyle colours the chart for light and dark pages.
const chartStyle = `<style>
.twice-chart{font:12px system-ui,sans-serif;--fg:#1d2433;--muted:#667085;--grid:#e4e7ec;--bar:#d92d20;--ok:#12b76a;--p95:#3b5bdb;--halo:#ffffff}
@media (prefers-color-scheme:dark){.twice-chart{--fg:#e6e9ef;--muted:#98a2b3;--grid:#2b3140;--bar:#ff6b5e;--ok:#32d583;--p95:#8da2fb;--halo:#161b22}}
.twice-chart text{fill:var(--fg)}.twice-chart .m{fill:var(--muted)}.twice-chart .grid{stroke:var(--grid)}.twice-chart .axis{stroke:var(--muted)}
.twice-chart .bar{fill:var(--bar)}.twice-chart .zero{fill:var(--ok)}.twice-chart .p95{stroke:var(--p95);stroke-width:2;stroke-dasharray:6 4}
.twice-chart .p95t{fill:var(--p95);font-weight:600}
.twice-chart .v,.twice-chart .p95t{paint-order:stroke;stroke:var(--halo);stroke-width:4px;stroke-linejoin:round}
</style>`

// duplicatePct is the share of a lease run's jobs with two effects, in
// whole percent.
func duplicatePct(t result.LoadTally) int { return (t.Duplicates*100 + t.Jobs/2) / t.Jobs }
