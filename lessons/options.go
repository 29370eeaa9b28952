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
// JavaScript it is folded, one click away), and with it the prose after
// the block up to a reveal marker (see server/markdown), and shows the
// prediction beside the result on one scale. Bare, the reader answers
// with a slider from 0 to the count the question is about (the races,
// the jobs, the orderings); predict=A-B is a slider from A to B, and
// predict=A,B,C a choice among those whole numbers.
//
// sliders=LIST shows a slider for each named number of the script:
// lease (seconds), processing (ms, a fixed time), p95 (ms, of a
// processing distribution), heartbeat (ms), stall (ms) and workers.
// Dragging one rewrites that flag everywhere in the script and runs it.
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
	View     string
	Play     bool
	Compare  []string
	// Scale is predict's value: "" for the count's own scale, "A-B" or
	// "A,B,...".
	Scale   string
	Sliders []string
	Picture bool
}

// SliderNames are the numbers a block's sliders= may name, in the order
// the page shows them.
var SliderNames = []string{"lease", "processing", "p95", "heartbeat", "stall", "workers"}

// parseScale checks predict's value: A-B with A < B, or a list of at
// least two different whole numbers, each at most maxScale.
func parseScale(v string) error {
	const maxScale = 1_000_000
	num := func(s string) (int, bool) {
		n, err := strconv.Atoi(s)
		return n, err == nil && n >= 0 && n <= maxScale
	}
	if a, b, ok := strings.Cut(v, "-"); ok {
		x, ok1 := num(a)
		y, ok2 := num(b)
		if ok1 && ok2 && x < y {
			return nil
		}
		return fmt.Errorf("block option predict=%s: want A-B, two whole numbers with A < B", lang.Short(v))
	}
	seen := map[int]bool{}
	for c := range strings.SplitSeq(v, ",") {
		n, ok := num(c)
		if !ok || seen[n] {
			return fmt.Errorf("block option predict=%s: want a range A-B or a comma-separated list of different whole numbers", lang.Short(v))
		}
		seen[n] = true
	}
	if len(seen) < 2 {
		return fmt.Errorf("block option predict=%s: a choice needs two values or more", lang.Short(v))
	}
	return nil
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
				if err := parseScale(val); err != nil {
					return o, err
				}
				o.Scale = val
			}
			o.Predict = true
		case "sliders":
			for c := range strings.SplitSeq(val, ",") {
				if !slices.Contains(SliderNames, c) || slices.Contains(o.Sliders, c) {
					return o, fmt.Errorf("block option sliders=%s: want a comma-separated list of %s", lang.Short(val), strings.Join(SliderNames, ", "))
				}
				o.Sliders = append(o.Sliders, c)
			}
		case "play":
			if hasVal {
				return o, fmt.Errorf("block option play takes no value")
			}
			o.Play = true
		case "picture":
			if hasVal {
				return o, fmt.Errorf("block option picture takes no value")
			}
			o.Picture = true
		default:
			return o, fmt.Errorf("unknown block option %q (known: seed=N, controls=LIST, fails, predict[=SCALE], sliders=LIST, view=NAME, play, compare=A,B, picture)", lang.Short(f))
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
