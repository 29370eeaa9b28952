package lang

import (
	"slices"
	"strings"

	"github.com/twice-lab/twice/runtime/queue"
)

// The claim of a script, as the page's claim toggle shows and sets it.
// The toggle writes into the reader's own text, so the claim is set where
// the script writes one and nowhere else: the parser records, for each
// command, the byte offsets of its claim word or --claim value and of its
// last word, and WithClaim edits the source there. Comments, spacing,
// line continuations and the article's wrappers are kept byte for byte,
// and a word that merely contains a claim's name (an order called
// read-conditional, a comment saying race read) is never touched: only a
// token the parser read as a claim is.

// Claim is the claim of s as the toggle shows it: the first claim of a
// race, work or load command that is not DefaultClaim, else DefaultClaim.
func (s *Script) Claim() queue.Claim {
	found := DefaultClaim
	walkClaims(s.Commands, func(c *Command) bool {
		if cl, ok := c.claim(); ok && cl != DefaultClaim {
			found = cl
			return false
		}
		return true
	})
	return found
}

// WithClaim returns the source of s with the claim of every race, work
// and load command set to claim. A command that writes a claim gets it in
// place of the one it writes (the claim word of race, the value of
// --claim of work and load); a use that writes --claim gets it there, and
// the commands that take their claim from a use are left as they are;
// any other command whose claim differs gets one added: after the word
// race, or as --claim CLAIM after the last word of work and load. The
// rest of the source is kept as it is. A Script that Parse did not make
// has no source: it is formatted (Format) with the claims set.
func (s *Script) WithClaim(claim queue.Claim) string {
	if s.src == "" {
		return Format(&Script{Commands: setClaim(s.Commands, claim)})
	}
	type edit struct {
		at, end int
		text    string
	}
	var edits []edit
	walkClaims(s.Commands, func(c *Command) bool {
		name := claim.String()
		if c.Kind == CmdUse {
			if slices.Contains(c.Use.Given, "claim") && c.Use.Flags.Claim != claim {
				edits = append(edits, edit{c.claimAt, c.claimEnd, name})
			}
			return true
		}
		cl, _ := c.claim()
		switch {
		case cl == claim:
		case c.claimEnd > c.claimAt:
			edits = append(edits, edit{c.claimAt, c.claimEnd, name})
		case c.usedClaim():
			// The use it takes its claim from is edited instead.
		case c.Kind == CmdRace:
			edits = append(edits, edit{c.nameEnd, c.nameEnd, " " + name})
		default:
			edits = append(edits, edit{c.argsEnd, c.argsEnd, " --claim " + name})
		}
		return true
	})
	var b strings.Builder
	b.Grow(len(s.src) + 16*len(edits))
	from := 0
	for _, e := range edits {
		b.WriteString(s.src[from:e.at])
		b.WriteString(e.text)
		from = e.end
	}
	b.WriteString(s.src[from:])
	return b.String()
}

// walkClaims calls f for every race, work, load and use command of cs,
// those of background lists included, in the order of the script, until
// f returns false.
func walkClaims(cs []Command, f func(c *Command) bool) bool {
	for i := range cs {
		c := &cs[i]
		switch c.Kind {
		case CmdBackground:
			if !walkClaims(c.Body, f) {
				return false
			}
		case CmdRace, CmdWork, CmdLoad, CmdUse:
			if !f(c) {
				return false
			}
		}
	}
	return true
}

// claim returns the claim a race, work or load command runs with.
func (c *Command) claim() (queue.Claim, bool) {
	switch c.Kind {
	case CmdRace:
		return c.Race.Claim, true
	case CmdWork:
		return c.Work.Claim, true
	case CmdLoad:
		return c.Load.Claim, true
	}
	return 0, false
}

// usedClaim reports whether the command takes its claim from a use.
func (c *Command) usedClaim() bool {
	switch c.Kind {
	case CmdRace:
		return slices.Contains(c.Race.Used, "claim")
	case CmdWork:
		return slices.Contains(c.Work.Used, "claim")
	}
	return false
}

// setClaim returns a copy of cs with the claim of every race, work, load
// and use command set to claim.
func setClaim(cs []Command, claim queue.Claim) []Command {
	out := make([]Command, len(cs))
	for i, c := range cs {
		switch c.Kind {
		case CmdRace:
			c.Race.Claim = claim
		case CmdWork:
			c.Work.Claim = claim
		case CmdLoad:
			c.Load.Claim = claim
		case CmdUse:
			c.Use.Flags.Claim = claim
		case CmdBackground:
			c.Body = setClaim(c.Body, claim)
		}
		out[i] = c
	}
	return out
}
