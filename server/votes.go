package server

import (
	"github.com/twice-lab/twice/server/class"
	"github.com/twice-lab/twice/server/markdown"
)

// blockScale is the scale of a block's prediction, as classroom.js asks
// it (question): for races, how many of them end with an effect twice,
// from 0 to their number; for loads, how many jobs have their effect
// twice, from 0 to the jobs; otherwise how many effects the receipts
// service records, from 0 to twice those of the lesson's run, and at
// least 20, so that the scale does not give the answer away. A broken
// block, which has no run, has none.
func blockScale(b *markdown.Playground) (class.Scale, bool) {
	res := b.Result
	if res == nil || b.Broken != "" {
		return class.Scale{}, false
	}
	if len(res.Races) > 0 {
		n := 0
		for _, r := range res.Races {
			n += r.Races
		}
		return class.Scale{Min: 0, Max: n}, true
	}
	if len(res.Loads) > 0 {
		n := 0
		for _, l := range res.Loads {
			n += l.Jobs
		}
		return class.Scale{Min: 0, Max: n}, true
	}
	return class.Scale{Min: 0, Max: max(20, 2*len(res.Effects))}, true
}

// BlockScale returns the scale of the prediction of the block named
// name (PAGE#ID, as /lessons/SLUG/#block-1) on the site as currently
// served, and whether the site has that block: class.Config.Blocks.
func (s *Server) BlockScale(name string) (class.Scale, bool) {
	sc, ok := s.site.Load().Blocks[name]
	return sc, ok
}
