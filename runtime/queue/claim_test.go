package queue

import "testing"

func TestClaimList(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Claims() {
		name := c.String()
		if name == "" || seen[name] {
			t.Errorf("claim %d: name %q empty or repeated", c, name)
		}
		seen[name] = true
		if got, ok := ParseClaim(name); !ok || got != c {
			t.Errorf("ParseClaim(%q) = %v, %v", name, got, ok)
		}
		if c.Words() == "" {
			t.Errorf("claim %s has no words", c)
		}
		if !c.Protocol().Valid() {
			t.Errorf("claim %s has protocol %d, not one of Protocols", c, c.Protocol())
		}
		if a := c.Alias(); a.Alias() != a {
			t.Errorf("claim %s is an alias of %s, itself an alias", c, a)
		}
	}
	if _, ok := ParseClaim("optimistic"); ok {
		t.Error("an unknown claim parsed")
	}
	if got := ClaimNames("|"); got != "read|lock|atomic" {
		t.Errorf("ClaimNames = %q", got)
	}
}
