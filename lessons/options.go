package lessons

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/script/interp"
	"github.com/twice-lab/twice/runtime/script/lang"
)

// BlockOptions are the settings of one twice block, written after the word
// twice in the fence's info string as space-separated key=value pairs:
//
//	```twice seed=7 controls=seed
//
// seed=N pre-renders the block at seed N (a decimal uint64) and puts N in
// its seed field; the default is interp.DefaultSeed.
//
// controls=LIST picks which controls beside Run the widget shows: a
// comma-separated subset of claim and seed, or none. The default is
// claim,seed.
//
// fails marks a block whose script is meant to stop with an error, to show
// one. Any other block whose script fails at its seed makes the lesson
// broken, and so does a fails block that succeeds.
//
// predict asks the reader for a prediction before showing the output: the
// page hides the pre-rendered output until Run (for a reader without
// JavaScript it is folded, one click away) and shows the prediction beside
// the result.
//
// view=NAME opens the block on another of its views than Output: one of
// Views (compare opens it on the two claims side by side, scheduler on its
// Be the scheduler board). The output stays rendered in the page, one tab
// away, for a reader without JavaScript.
//
// play, with view=scheduler, plays the runtime's ordering on the board as
// it opens: the shortest that gives two effects, or where none does one
// that runs every worker to its end.
//
// compare=A,B is the pair of claims the Compare view opens on (the
// default: the block's own claim beside atomic).
type BlockOptions struct {
	Seed     uint64
	Controls []string
	Fails    bool
	Predict  bool
	View     string
	Play     bool
	Compare  []string
}

// Views are the views a block may open on (view=NAME), as the page names
// them.
var Views = []string{"output", "timeline", "compare", "interleavings", "scheduler"}

// Options parses the block's info string; see [ParseBlockOptions].
func (b Block) Options() (BlockOptions, error) {
	return ParseBlockOptions(b.Info)
}

// ParseBlockOptions reads the options of a twice block from its info
// string, which starts with the word twice. On an error it returns the
// options read so far, the defaults for the rest, and an error that names
// the option.
func ParseBlockOptions(info string) (BlockOptions, error) {
	o := BlockOptions{Seed: interp.DefaultSeed, Controls: []string{"claim", "seed"}}
	fields := strings.Fields(info)
	if len(fields) == 0 || fields[0] != Language {
		return o, fmt.Errorf("info string %q does not start with %q", lang.Short(info), Language)
	}
	seen := map[string]bool{}
	for _, f := range fields[1:] {
		key, val, hasVal := strings.Cut(f, "=")
		if seen[key] {
			return o, fmt.Errorf("block option %q given twice", lang.Short(key))
		}
		seen[key] = true
		switch key {
		case "seed":
			n, err := strconv.ParseUint(val, 10, 64)
			if !hasVal || err != nil {
				return o, fmt.Errorf("block option seed=%s: want a whole number from 0 to 18446744073709551615", lang.Short(val))
			}
			o.Seed = n
		case "controls":
			o.Controls = nil
			if val == "none" {
				break
			}
			for c := range strings.SplitSeq(val, ",") {
				if c != "claim" && c != "seed" {
					return o, fmt.Errorf("block option controls=%s: want a comma-separated list of claim and seed, or none", lang.Short(val))
				}
				o.Controls = append(o.Controls, c)
			}
		case "fails":
			if hasVal {
				return o, fmt.Errorf("block option fails takes no value")
			}
			o.Fails = true
		case "view":
			if !hasVal || !slices.Contains(Views, val) {
				return o, fmt.Errorf("block option view=%s: want one of %s", lang.Short(val), strings.Join(Views, ", "))
			}
			o.View = val
		case "compare":
			pair := strings.Split(val, ",")
			if !hasVal || len(pair) != 2 || pair[0] == pair[1] || !isClaim(pair[0]) || !isClaim(pair[1]) {
				return o, fmt.Errorf("block option compare=%s: want two different claims, like compare=read,atomic", lang.Short(val))
			}
			o.Compare = pair
		case "predict":
			if hasVal {
				return o, fmt.Errorf("block option predict takes no value")
			}
			o.Predict = true
		case "play":
			if hasVal {
				return o, fmt.Errorf("block option play takes no value")
			}
			o.Play = true
		default:
			return o, fmt.Errorf("unknown block option %q (known: seed=N, controls=LIST, fails, predict, view=NAME, play, compare=A,B)", lang.Short(f))
		}
	}
	if o.Play && o.View != "scheduler" {
		return o, fmt.Errorf("block option play needs view=scheduler")
	}
	return o, nil
}

// isClaim reports whether name is one of the runtime's claims.
func isClaim(name string) bool {
	_, ok := queue.ParseClaim(name)
	return ok
}
