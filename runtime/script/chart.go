package script

import (
	"fmt"
	"strings"
)

// Chart is a picture of the load runs: for each lease length, the share of
// jobs that ended with two effects, beside the measured 95th percentile of
// processing time. It is SVG, drawn like the timeline (escaped text only).
type Chart struct {
	SVG    string `json:"svg"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
}

// Layout of the chart, in SVG user units.
const (
	chWidth  = 640
	chHeight = 300
	chLeft   = 56
	chRight  = 20
	chTop    = 40
	chBottom = 56
)

// DrawLoadChart draws r.Loads as bars, one per lease length, and marks
// where the drawn p95 falls among the lease lengths. It returns nil when
// the script ran no load.
func (r *Result) DrawLoadChart() *Chart {
	ls := r.Loads
	if len(ls) == 0 {
		return nil
	}
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	plotW, plotH := chWidth-chLeft-chRight, chHeight-chTop-chBottom
	slot := plotW / len(ls)
	barW := min(slot*3/5, 80)
	pct := func(t LoadTally) int { return (t.Duplicates*100 + t.Jobs/2) / t.Jobs }
	// The scale's top: the smallest of 20, 40 and 100% that fits.
	top := 20
	for _, t := range ls {
		if pct(t) > top {
			top = max(top, 40)
		}
		if pct(t) > 40 {
			top = 100
		}
	}
	y := func(pct int) int { return chTop + plotH - plotH*pct/top }

	p(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-labelledby="ch-title ch-desc" class="twice-chart">`, chWidth, chHeight, chWidth, chHeight)
	p(`<title id="ch-title">Jobs with two effects, by lease length</title>`)
	p(`<style>
.twice-chart{font:12px system-ui,sans-serif;--fg:#1d2433;--muted:#667085;--grid:#e4e7ec;--bar:#d92d20;--ok:#12b76a;--p95:#3b5bdb;--halo:#ffffff}
@media (prefers-color-scheme:dark){.twice-chart{--fg:#e6e9ef;--muted:#98a2b3;--grid:#2b3140;--bar:#ff6b5e;--ok:#32d583;--p95:#8da2fb;--halo:#161b22}}
.twice-chart text{fill:var(--fg)}.twice-chart .m{fill:var(--muted)}.twice-chart .grid{stroke:var(--grid)}
.twice-chart .bar{fill:var(--bar)}.twice-chart .zero{fill:var(--ok)}.twice-chart .p95{stroke:var(--p95);stroke-width:2;stroke-dasharray:6 4}
.twice-chart .p95t{fill:var(--p95);font-weight:600}
.twice-chart .v,.twice-chart .p95t{paint-order:stroke;stroke:var(--halo);stroke-width:4px;stroke-linejoin:round}
</style>`)
	p(`<text x="%d" y="20" font-weight="600">Jobs with two effects, by lease length</text>`, chLeft)
	for _, g := range []int{0, top / 4, top / 2, top * 3 / 4, top} {
		p(`<line class="grid" x1="%d" y1="%d" x2="%d" y2="%d"/>`, chLeft, y(g), chWidth-chRight, y(g))
		p(`<text class="m" x="%d" y="%d" font-size="10" text-anchor="end">%d%%</text>`, chLeft-6, y(g)+4, g)
	}
	var desc []string
	center := func(i int) int { return chLeft + slot*i + slot/2 }
	p95Label := ""
	// Where the drawn p95 falls: between the bars of the leases around it,
	// when the leases are given in increasing order.
	p95 := ls[0].P95US
	increasing := true
	for i := 1; i < len(ls); i++ {
		increasing = increasing && ls[i].LeaseUS > ls[i-1].LeaseUS
	}
	if increasing && len(ls) > 1 {
		x := -1
		switch {
		case p95 <= ls[0].LeaseUS:
			x = center(0) - slot/2 + 4
		case p95 >= ls[len(ls)-1].LeaseUS:
			x = center(len(ls)-1) + slot/2 - 4
		default:
			for i := 1; i < len(ls); i++ {
				if p95 <= ls[i].LeaseUS {
					a, c := ls[i-1].LeaseUS, ls[i].LeaseUS
					x = center(i-1) + int(int64(slot)*(p95-a)/(c-a))
					break
				}
			}
		}
		// The line goes under the bars and their labels, its label over
		// them, each label with a halo so that no line crosses its text.
		p(`<line class="p95" x1="%d" y1="%d" x2="%d" y2="%d"/>`, x, chTop-4, x, y(0))
		tx, anchor := x+5, "start"
		if x > chWidth-170 {
			tx, anchor = x-5, "end"
		}
		p95Label = fmt.Sprintf(`<text class="p95t" x="%d" y="%d" font-size="11" text-anchor="%s">p95 of processing: %s</text>`, tx, chTop+8, anchor, fmtGap(p95))
	}
	for i, t := range ls {
		v := pct(t)
		x := center(i)
		class := "bar"
		if t.Duplicates == 0 {
			class = "zero"
		}
		h := max(y(0)-y(v), 2)
		p(`<rect class="%s" x="%d" y="%d" width="%d" height="%d" rx="2"><title>lease %s s: %d of %d jobs with two effects</title></rect>`,
			class, x-barW/2, y(0)-h, barW, h, formatSeconds(t.LeaseUS), t.Duplicates, t.Jobs)
		p(`<text class="v" x="%d" y="%d" font-size="11" text-anchor="middle">%d of %d</text>`, x, y(0)-h-6, t.Duplicates, t.Jobs)
		p(`<text class="m" x="%d" y="%d" font-size="11" text-anchor="middle">%s s</text>`, x, y(0)+16, formatSeconds(t.LeaseUS))
		desc = append(desc, fmt.Sprintf("lease %s s: %d of %d", formatSeconds(t.LeaseUS), t.Duplicates, t.Jobs))
	}
	p(`<text class="m" x="%d" y="%d" font-size="11" text-anchor="middle">lease (visibility timeout)</text>`, chLeft+plotW/2, chHeight-12)

	b.WriteString(p95Label)
	p(`<desc id="ch-desc">%s; processing p95 %s</desc>`, escapeXML(strings.Join(desc, ", ")), fmtGap(p95))
	p(`</svg>`)
	return &Chart{SVG: b.String(), Width: chWidth, Height: chHeight}
}
