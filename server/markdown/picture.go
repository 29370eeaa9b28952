package markdown

import (
	"fmt"
	"html"
	"slices"
	"strings"

	"github.com/twice-lab/twice/runtime/event"
	"github.com/twice-lab/twice/runtime/script/result"
)

// This file draws the picture a block marked picture shows above it: its
// run, pre-rendered, as an SVG that plays before any script loads. Each
// worker has a lane with its claim, its send and its ack, a bar for the
// time it holds the job, and the receipts service has a lane where each
// recorded request lands as a receipt. The steps come in the order of the
// run's trace, one column each, so that the interleaving is what the
// reader sees.
//
// The picture moves with CSS alone (style.css, "The race's picture"): the
// page's stylesheet animates one number, --t, on the picture's group from
// 0 to past its last column, and each part shows once --t has reached its
// column, which a class names (rp-at-N, and rp-to-N for where a bar
// ends). A reader who asks for less motion sees the last frame, still.
// No style attribute is written: the site's CSP allows none.

// pictureMax is the most columns a picture draws: the classes that place
// its parts in time go that far (style.css).
const pictureMax = 12

type pictureStep struct {
	col  int
	kind event.Kind
	proc string
	n    int // a receipt's number
}

// Picture draws res as the race's picture: a figure holding the SVG and
// its caption, one sentence said from the run. id makes the SVG's ids
// unique on its page. A run with no worker step to draw gives "".
func Picture(res *result.Result, id string) string {
	if res == nil || res.Error != nil {
		return ""
	}
	var workers []string
	lane := map[string]int{}
	var steps []pictureStep
	receipts := 0
	orders := map[string]bool{}
	job := ""
	for _, e := range res.Trace {
		if len(steps) == pictureMax {
			break
		}
		switch e.Kind {
		case event.Claim, event.Send, event.Ack:
			if e.Kind == event.Claim && job == "" && e.Job != nil {
				job = fmt.Sprintf(" on job %d", e.Job.ID)
			}
			if _, ok := lane[e.Proc]; !ok {
				lane[e.Proc] = -1
				workers = append(workers, e.Proc)
			}
			steps = append(steps, pictureStep{col: len(steps), kind: e.Kind, proc: e.Proc})
		case event.Effect:
			if e.Effect == nil || e.Effect.Refused || e.Effect.Replayed {
				continue
			}
			receipts++
			orders[e.Effect.Order] = true
			steps = append(steps, pictureStep{col: len(steps), kind: e.Kind, proc: e.Effect.Worker, n: receipts})
		}
	}
	if len(workers) == 0 {
		return ""
	}
	slices.Sort(workers)
	for i, w := range workers {
		lane[w] = i
	}
	var b strings.Builder
	b.WriteString(`<figure class="race-picture">` + "\n")
	for _, down := range []bool{false, true} {
		drawPicture(&b, id, down, workers, lane, steps, job)
	}
	sentence := pictureSentence(len(workers), receipts, orders)
	fmt.Fprintf(&b, `<figcaption id="%s-says">%s</figcaption>`+"\n</figure>\n", id, html.EscapeString(sentence))
	return b.String()
}

// drawPicture writes one drawing of the picture: across (time runs to
// the right, a lane per row: wide screens) or down (time runs down, a
// lane per column: phones; style.css shows one), with a description
// that says its steps in words.
func drawPicture(b *strings.Builder, id string, down bool, workers []string, lane map[string]int, steps []pictureStep, job string) {
	const (
		left   = 96 // across: the lanes' names
		colW   = 50
		top    = 44 // across: the first lane, below the "both at work" label
		laneH  = 50
		recGap = 66 // across: from the last worker's lane to the receipts' lane
		// down
		laneW = 96
		rowH  = 30
		head  = 30 // the lanes' names
	)
	// Each worker's hold on the job, from its claim to its ack (or to the
	// end of the picture), and where two or more hold it at once.
	type span struct{ from, to int }
	holds := map[string]*span{}
	for _, s := range steps {
		switch {
		case s.kind == event.Claim && holds[s.proc] == nil:
			holds[s.proc] = &span{s.col, len(steps) - 1}
		case s.kind == event.Ack && holds[s.proc] != nil:
			holds[s.proc].to = s.col
		}
	}
	both := span{-1, len(steps)}
	held := 0
	for _, w := range workers {
		if h := holds[w]; h != nil {
			held++
			both.from, both.to = max(both.from, h.from), min(both.to, h.to)
		}
	}
	band := held >= 2 && both.from < both.to
	nw := len(workers)
	class := "rp rp-across"
	var width, height int
	// at is where lane l (nw is the receipts') meets column c.
	var at func(l, c int) (int, int)
	if down {
		class = "rp rp-down"
		width = 40 + nw*laneW + 120
		height = head + 16 + len(steps)*rowH + 30
		// Room above the band for its label: the rows from its first
		// on come lower.
		gap := 0
		if band {
			height += 24
			gap = 24
		}
		at = func(l, c int) (int, int) {
			x := 40 + l*laneW
			if l == nw {
				x = 40 + (nw-1)*laneW + 150
			}
			y := head + 16 + rowH/2 + c*rowH
			if band && c >= both.from {
				y += gap
			}
			return x, y
		}
	} else {
		width = left + len(steps)*colW + 12
		height = top + (nw-1)*laneH + recGap + 30
		at = func(l, c int) (int, int) {
			y := top + l*laneH
			if l == nw {
				y = top + (nw-1)*laneH + recGap
			}
			return left + colW/2 + c*colW, y
		}
	}
	name := id + "-across"
	if down {
		name = id + "-down"
	}
	fmt.Fprintf(b, `<svg class="%s" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-labelledby="%s-says" aria-describedby="%s-steps">`+"\n", class, width, height, width, height, id, name)
	b.WriteString(`<g class="rp-play">` + "\n")
	// The lanes, the receipts' last.
	last := len(steps) - 1
	for l := 0; l <= nw; l++ {
		label, extra := "receipts", " rp-service"
		if l < nw {
			label, extra = workers[l], ""
		}
		x0, y0 := at(l, 0)
		x1, y1 := at(l, last)
		if down {
			fmt.Fprintf(b, `<g class="rp-lane%s"><line x1="%d" y1="%d" x2="%d" y2="%d"/><text x="%d" y="%d" class="rp-name">%s</text></g>`+"\n", extra, x0, head+8, x1, y1+rowH/2, x0, head-8, html.EscapeString(label))
		} else {
			fmt.Fprintf(b, `<g class="rp-lane%s"><line x1="%d" y1="%d" x2="%d" y2="%d"/><text x="%d" y="%d" class="rp-name">%s</text></g>`+"\n", extra, left-8, y0, x1+colW/2, y1, left-14, y0, html.EscapeString(label))
		}
	}
	if band {
		if down {
			x0, y0 := at(0, both.from)
			x1, y1 := at(nw-1, both.to)
			x0, x1, y0, y1 = x0-26, x1+74, y0-rowH/2-22, y1+rowH/2-2
			fmt.Fprintf(b, `<g class="rp-both rp-at-%d"><rect x="%d" y="%d" width="%d" height="%d" rx="8"/><text x="%d" y="%d">both at work%s</text></g>`+"\n",
				both.from, x0, y0, x1-x0, y1-y0, (x0+x1)/2, y0+16, job)
		} else {
			x0, y0 := at(0, both.from)
			x1, _ := at(0, both.to)
			_, y1 := at(nw, 0)
			x0, x1, y0, y1 = x0-colW/2+4, x1+colW/2-4, y0-32, y1-12
			fmt.Fprintf(b, `<g class="rp-both rp-at-%d"><rect x="%d" y="%d" width="%d" height="%d" rx="8"/><text x="%d" y="%d">both at work%s</text></g>`+"\n",
				both.from, x0, y0, x1-x0, y1-y0, (x0+x1)/2, y0+14, job)
		}
	}
	for _, w := range workers {
		if h := holds[w]; h != nil {
			x0, y0 := at(lane[w], h.from)
			x1, y1 := at(lane[w], h.to)
			if down {
				fmt.Fprintf(b, `<rect class="rp-hold rp-at-%d rp-to-%d" x="%d" y="%d" width="14" height="%d" rx="7"/>`+"\n", h.from, h.to, x0-7, y0, y1-y0)
			} else {
				fmt.Fprintf(b, `<rect class="rp-hold rp-at-%d rp-to-%d" x="%d" y="%d" width="%d" height="14" rx="7"/>`+"\n", h.from, h.to, x0, y0-7, x1-x0)
			}
		}
	}
	// The steps, and the receipts as they land.
	words := map[event.Kind]string{event.Claim: "claims", event.Send: "sends", event.Ack: "acks"}
	sends := map[string]int{}
	var said []string
	for _, s := range steps {
		if s.kind == event.Effect {
			x, y := at(nw, s.col)
			if c, ok := sends[s.proc]; ok {
				fx, fy := at(lane[s.proc], c)
				if down {
					fmt.Fprintf(b, `<line class="rp-send rp-at-%d" x1="%d" y1="%d" x2="%d" y2="%d"/>`+"\n", s.col, fx+54, fy, x-44, y)
				} else {
					fmt.Fprintf(b, `<line class="rp-send rp-at-%d" x1="%d" y1="%d" x2="%d" y2="%d"/>`+"\n", s.col, fx, fy+8, x, y-14)
				}
			}
			fmt.Fprintf(b, `<g class="rp-receipt rp-at-%d"><rect x="%d" y="%d" width="84" height="26" rx="5"/><text x="%d" y="%d">receipt %d</text></g>`+"\n", s.col, x-42, y-13, x, y, s.n)
			said = append(said, fmt.Sprintf("receipt %d lands, from %s", s.n, s.proc))
			continue
		}
		if s.kind == event.Send {
			sends[s.proc] = s.col
		}
		x, y := at(lane[s.proc], s.col)
		tx, ty := x, y+22
		if down {
			tx, ty = x+12, y
		}
		fmt.Fprintf(b, `<g class="rp-step rp-at-%d"><circle cx="%d" cy="%d" r="5"/><text x="%d" y="%d">%s</text></g>`+"\n", s.col, x, y, tx, ty, words[s.kind])
		said = append(said, s.proc+" "+words[s.kind])
	}
	fmt.Fprintf(b, "</g>\n<desc id=\"%s-steps\">In order: %s.</desc>\n</svg>\n", name, html.EscapeString(strings.Join(said, ", ")))
}

// pictureSentence says the picture in one sentence: how many workers
// claimed the job and how many receipts landed.
func pictureSentence(claimed, receipts int, orders map[string]bool) string {
	who := "One worker claims the job"
	if claimed > 1 {
		who = fmt.Sprintf("%s workers claim the same job at once", capital(number(claimed)))
	}
	what := fmt.Sprintf("%s %s", number(receipts), plural(receipts, "receipt lands", "receipts land"))
	if len(orders) == 1 {
		for o := range orders {
			what += " for " + o
		}
	}
	return who + ", and " + what + "."
}

func number(n int) string {
	if n >= 0 && n < 10 {
		return []string{"no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}[n]
	}
	return fmt.Sprint(n)
}

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
