package draw

import (
	"fmt"
	"strings"

	"github.com/twice-lab/twice/runtime/script/diagnosis"
	"github.com/twice-lab/twice/runtime/script/lang"
	"github.com/twice-lab/twice/runtime/script/result"
)

// Layout of the chart, in SVG user units: one row per lease, its bar
// running to the right, narrow enough to be drawn at full size on a
// phone (a 390 px screen less its margins), so that no text shrinks and
// nothing scrolls sideways.
const (
	chWidth  = 320
	chTop    = 34 // below the title
	chRow    = 28
	chLabel  = 40 // right edge of the lease labels
	chBar    = 48 // where the bars start
	chBarMax = 180
	chBottom = 46 // the legend
)

// LoadChart draws r.Loads as horizontal bars, one row per lease
// length, and marks where the drawn p95 of processing falls among the
// lease lengths with a dashed line across the rows. It returns nil when
// the script ran no load.
func LoadChart(r *result.Result) *result.Chart {
	ls := r.Loads
	if len(ls) == 0 {
		return nil
	}
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	height := chTop + chRow*len(ls) + chBottom
	p(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-labelledby="ch-title ch-desc" class="twice-chart">`, chWidth, height, chWidth, height)
	p(`<title id="ch-title">Jobs with two effects, by lease length</title>`)
	p(`%s`, chartStyle)
	p(`<text x="4" y="18" font-size="12" font-weight="600">Jobs with two effects, by lease</text>`)
	p(`<line class="grid" x1="%d" y1="%d" x2="%d" y2="%d"/>`, chBar, chTop, chBar, chTop+chRow*len(ls))
	desc := chartBars(p, ls)
	p95 := ls[0].P95US
	legendY := chTop + chRow*len(ls) + 20
	if y, ok := p95Y(ls); ok {
		// From the bars' edge, so that it crosses no lease label.
		p(`<line class="p95" x1="%d" y1="%d" x2="%d" y2="%d"/>`, chBar-4, y, chWidth-4, y)
		p(`<line class="p95" x1="4" y1="%d" x2="28" y2="%d"/>`, legendY-4, legendY-4)
		p(`<text class="p95t" x="34" y="%d" font-size="12">p95 of processing: %s</text>`, legendY, diagnosis.FormatGap(p95))
	} else {
		p(`<text class="p95t" x="4" y="%d" font-size="12">p95 of processing: %s</text>`, legendY, diagnosis.FormatGap(p95))
	}
	p(`<text class="m" x="4" y="%d" font-size="12">Rows: lease; bars: jobs with two effects</text>`, legendY+18)
	p(`<desc id="ch-desc">%s; processing p95 %s</desc>`, escapeXML(strings.Join(desc, ", ")), diagnosis.FormatGap(p95))
	p(`</svg>`)
	return &result.Chart{SVG: b.String(), Width: chWidth, Height: height}
}

// chartStyle colours the chart for light and dark pages.
const chartStyle = `<style>
.twice-chart{font:12px system-ui,sans-serif;--fg:#1d2433;--muted:#667085;--grid:#e4e7ec;--bar:#d92d20;--ok:#12b76a;--p95:#3b5bdb;--halo:#ffffff}
@media (prefers-color-scheme:dark){.twice-chart{--fg:#e6e9ef;--muted:#98a2b3;--grid:#2b3140;--bar:#ff6b5e;--ok:#32d583;--p95:#8da2fb;--halo:#161b22}}
.twice-chart text{fill:var(--fg)}.twice-chart .m{fill:var(--muted)}.twice-chart .grid{stroke:var(--grid)}
.twice-chart .bar{fill:var(--bar)}.twice-chart .zero{fill:var(--ok)}.twice-chart .p95{stroke:var(--p95);stroke-width:2;stroke-dasharray:6 4}
.twice-chart .p95t{fill:var(--p95);font-weight:600}
.twice-chart .v,.twice-chart .p95t{paint-order:stroke;stroke:var(--halo);stroke-width:4px;stroke-linejoin:round}
</style>`

// chartRowY is the middle of lease row i.
func chartRowY(i int) int { return chTop + chRow*i + chRow/2 }

// duplicatePct is the share of a lease run's jobs with two effects, in
// whole percent.
func duplicatePct(t result.LoadTally) int { return (t.Duplicates*100 + t.Jobs/2) / t.Jobs }

// chartBars draws one labelled bar per lease, on a scale that ends at the
// smallest of 20, 40 and 100% that fits, and returns the rows in words.
func chartBars(p func(string, ...any), ls []result.LoadTally) []string {
	top := 20
	for _, t := range ls {
		if duplicatePct(t) > top {
			top = max(top, 40)
		}
		if duplicatePct(t) > 40 {
			top = 100
		}
	}
	var desc []string
	for i, t := range ls {
		y := chartRowY(i)
		class := "bar"
		if t.Duplicates == 0 {
			class = "zero"
		}
		w := max(chBarMax*duplicatePct(t)/top, 2)
		p(`<text class="m" x="%d" y="%d" font-size="12" text-anchor="end">%s s</text>`, chLabel, y+4, lang.FormatSeconds(t.LeaseUS))
		p(`<rect class="%s" x="%d" y="%d" width="%d" height="16" rx="2"><title>lease %s s: %d of %d jobs with two effects</title></rect>`,
			class, chBar, y-8, w, lang.FormatSeconds(t.LeaseUS), t.Duplicates, t.Jobs)
		p(`<text class="v" x="%d" y="%d" font-size="12">%d of %d</text>`, chBar+w+6, y+4, t.Duplicates, t.Jobs)
		desc = append(desc, fmt.Sprintf("lease %s s: %d of %d", lang.FormatSeconds(t.LeaseUS), t.Duplicates, t.Jobs))
	}
	return desc
}

// p95Y is where the drawn p95 falls: between the rows of the leases
// around it. It has a place only when there are two leases or more, in
// increasing order.
func p95Y(ls []result.LoadTally) (int, bool) {
	if len(ls) < 2 {
		return 0, false
	}
	for i := 1; i < len(ls); i++ {
		if ls[i].LeaseUS <= ls[i-1].LeaseUS {
			return 0, false
		}
	}
	p95 := ls[0].P95US
	switch {
	case p95 <= ls[0].LeaseUS:
		return chTop + 2, true
	case p95 >= ls[len(ls)-1].LeaseUS:
		return chTop + chRow*len(ls) - 2, true
	}
	for i := 1; i < len(ls); i++ {
		if p95 <= ls[i].LeaseUS {
			a, c := ls[i-1].LeaseUS, ls[i].LeaseUS
			return chartRowY(i-1) + int(int64(chRow)*(p95-a)/(c-a)), true
		}
	}
	return -1, true
}
