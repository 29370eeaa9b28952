package interp

import (
	"testing"

	"github.com/twice-lab/twice/runtime/script/lang"
	"github.com/twice-lab/twice/runtime/sim"
)

// A fixed processing time is drawn as it is written.
func TestFixedDrawIsFixed(t *testing.T) {
	if f := (lang.Dist{Kind: "fixed", P50: 5, P95: 5}); sample(f, sim.New(1)) != 5 {
		t.Error("fixed draw is not fixed")
	}
}
