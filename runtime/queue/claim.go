package queue

import "strings"

// Claim is how a worker takes a job: one of the values in [Claims], each
// with its name, what it does in words, and the statements it runs
// ([Claim.Protocol]). Nothing else in twice lists the claims: the parser,
// the worker, the explorer of interleavings, the timeline, the docs and the
// browser (through the server's config) all read this list.
type Claim uint8

const (
	// ClaimRead reads the row, then writes it: Read, then Take, two
	// autocommit statements with a gap between them.
	ClaimRead Claim = iota
	// ClaimLock is another name for ClaimAtomic, as the article spells it.
	ClaimLock
	// ClaimAtomic is one conditional UPDATE decided by changes() = 1:
	// Claim.
	ClaimAtomic
	numClaims
)

// Protocol is the sequence of statements a claim runs. Two claims may
// share one (lock and atomic do).
type Protocol uint8

const (
	// ReadThenWrite: SELECT the row; if it is claimable, an unconditional
	// UPDATE.
	ReadThenWrite Protocol = iota
	// Conditional: one UPDATE whose WHERE states "claimable".
	Conditional
	numProtocols
)

var claimInfo = [numClaims]struct {
	name, words string
	protocol    Protocol
	alias       Claim // the claim this one is another name for, or itself
}{
	ClaimRead:   {"read", "read the row, then write it: two statements", ReadThenWrite, ClaimRead},
	ClaimLock:   {"lock", "another name for atomic", Conditional, ClaimAtomic},
	ClaimAtomic: {"atomic", "one conditional UPDATE decided by changes() = 1", Conditional, ClaimAtomic},
}

// Claims lists every claim, in the order docs and error messages give them.
func Claims() []Claim {
	cs := make([]Claim, numClaims)
	for i := range cs {
		cs[i] = Claim(i)
	}
	return cs
}

// Protocols lists every protocol.
func Protocols() []Protocol {
	ps := make([]Protocol, numProtocols)
	for i := range ps {
		ps[i] = Protocol(i)
	}
	return ps
}

// ParseClaim returns the claim named s.
func ParseClaim(s string) (Claim, bool) {
	for _, c := range Claims() {
		if claimInfo[c].name == s {
			return c, true
		}
	}
	return 0, false
}

// ClaimNames returns the claims' names joined with sep ("read|lock|atomic").
func ClaimNames(sep string) string {
	var names []string
	for _, c := range Claims() {
		names = append(names, c.String())
	}
	return strings.Join(names, sep)
}

func (c Claim) String() string {
	if c >= numClaims {
		return "claim(?)"
	}
	return claimInfo[c].name
}

// Words says in a few words what the claim does.
func (c Claim) Words() string {
	if !c.Valid() {
		return ""
	}
	return claimInfo[c].words
}

// Protocol returns the statements the claim runs.
// A claim outside the list has a protocol outside Protocols, which no
// switch over protocols handles.
func (c Claim) Protocol() Protocol {
	if !c.Valid() {
		return numProtocols
	}
	return claimInfo[c].protocol
}

// Alias returns the claim c is another name for, or c itself.
func (c Claim) Alias() Claim {
	if !c.Valid() {
		return c
	}
	return claimInfo[c].alias
}

// Valid reports whether c is one of Claims.
func (c Claim) Valid() bool { return c < numClaims }

// Valid reports whether p is one of Protocols.
func (p Protocol) Valid() bool { return p < numProtocols }

func (p Protocol) String() string {
	switch p {
	case ReadThenWrite:
		return "read-then-write"
	case Conditional:
		return "conditional"
	}
	return "protocol(?)"
}
