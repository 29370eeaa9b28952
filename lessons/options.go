package lessons

import (
	"fmt"
	"strconv"
	"strings"

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
// picture draws the block's pre-rendered run above it as a short looping
// picture (each worker's claim, send and ack, and the receipts as they
// land), which plays before any script loads, and labels its Run button
// "Make it happen": the first screen of the index and of lesson 1.
type BlockOptions struct {
	Seed     uint64
	Controls []string
	Fails    bool
	Predict  bool
	Picture  bool
}

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
		case "predict":
			if hasVal {
				return o, fmt.Errorf("block option predict takes no value")
			}
			o.Predict = true
		case "picture":
			if hasVal {
				return o, fmt.Errorf("block option picture takes no value")
			}
			o.Picture = true
		default:
			return o, fmt.Errorf("unknown block option %q (known: seed=N, controls=LIST, fails, predict, picture)", lang.Short(f))
		}
	}
	return o, nil
}
