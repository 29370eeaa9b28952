package interp

import (
	"testing"

	"github.com/twice-lab/twice/runtime/script/lang"
)

// Every command's example in the command table runs to the end: a command
// the parser knows but interp.exec does not fails here.
func TestEveryCommandExampleRuns(t *testing.T) {
	t.Parallel()
	for _, c := range lang.Commands() {
		res := Run(c.Example, Options{Seed: DefaultSeed})
		if res.Error != nil || res.ExitCode != 0 {
			t.Errorf("command %q: example %q: exit %d, %v", c.Name, c.Example, res.ExitCode, res.Error)
		}
	}
}
