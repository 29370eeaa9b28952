package server

import (
	"strconv"
	"strings"

	"github.com/twice-lab/twice/server/class"
	"github.com/twice-lab/twice/server/markdown"
)

// maxScale bounds the top of a block's scale.
const maxScale = 1_000_000

// blockScale is the scale of a block's prediction: what classroom.js asks
// (question) is about a count, worded from the block's pre-rendered
// result, and the reader answers from 0 to that count: the races, the
// orderings of race --all, the jobs of a load; for the effects the
// receipts service records, 0 to 10. A broken block, which has no run,
// has none. See scaleOf for a scale the block names.
func blockScale(b *markdown.Playground) (class.Scale, bool) {
	res := b.Result
	if res == nil || b.Broken != "" {
		return class.Scale{}, false
	}
	of := 0
	switch {
	case len(res.Races) > 0:
		for _, r := range res.Races {
			of += r.Races
		}
	case len(res.Explorations) > 0:
		for _, x := range res.Explorations {
			n, err := strconv.Atoi(x.Orderings)
			if err != nil || n > maxScale {
				n = maxScale
			}
			of += n
		}
	case len(res.Loads) > 0:
		for _, l := range res.Loads {
			of += l.Jobs
		}
	}
	return scaleOf(b.Options.Scale, min(of, maxScale)), true
}

// scaleOf reads the scale a block names (the value of its predict
// option: "A-B" for the whole numbers from A to B, "A,B,C" for a choice
// among those) against of, the count its question is about: without one,
// 0 to of, or 0 to 10 when of is 0.
func scaleOf(attr string, of int) class.Scale {
	attr = strings.TrimSpace(attr)
	if a, b, ok := strings.Cut(attr, "-"); ok {
		x, err1 := strconv.Atoi(a)
		y, err2 := strconv.Atoi(b)
		if err1 == nil && err2 == nil && 0 <= x && x < y && y <= maxScale {
			return class.Scale{Min: x, Max: y}
		}
	} else if attr != "" {
		var s class.Scale
		for c := range strings.SplitSeq(attr, ",") {
			n, err := strconv.Atoi(c)
			if err != nil || n < 0 || n > maxScale {
				s.Choices = nil
				break
			}
			s.Choices = append(s.Choices, strconv.Itoa(n))
			s.Max = max(s.Max, n)
		}
		if len(s.Choices) > 1 {
			return s
		}
	}
	if of <= 0 {
		of = 10
	}
	return class.Scale{Min: 0, Max: of}
}

// BlockScale returns the scale of the prediction of the block named
// name (PAGE#ID, as /lessons/SLUG/#block-1) on the site as currently
// served, and whether the site has that block: class.Config.Blocks.
func (s *Server) BlockScale(name string) (class.Scale, bool) {
	sc, ok := s.site.Load().Blocks[name]
	return sc, ok
}
