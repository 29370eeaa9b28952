//go:build js && wasm

// Command wasm is the twice runtime compiled for the browser. It is built
// with GOOS=js GOARCH=wasm, loaded by the playground's Web Worker through the
// Go toolchain's wasm_exec.js, and does one thing: it installs a global
// JavaScript function
//
//	twiceRun(script string, options {seed: string, timeline: bool, keep: bool, auto: bool, progress: function}) string
//
// that runs the script with [interp.Run] and returns its [result.Result] as
// JSON, the same facts `twice run --json` prints. With timeline true the
// Result also carries the run drawn as SVG ([interp.Options].Timeline), for
// the playground's timeline and step-through. With keep true, the module
// holds on to that run's Result (only the last one kept), and draws a
// load's chart, which the Output view shows, in any case, so that
//
//	twiceTimeline() string
//
// can draw its timeline later, when a reader opens the Timeline tab: it
// returns the kept Result as JSON again, now with the timeline, or "" when
// no run is kept. Drawing the SVG and encoding it is work the first
// result does not need, and a first run pays for every function it calls
// while V8 compiles it. The seed travels as a
// decimal string because JavaScript numbers cannot hold every uint64; an
// empty or missing seed means [interp.DefaultSeed]. A seed that is not a
// decimal uint64 gives a Result whose error says so, like a usage error of
// the CLI. With auto true the run gets [interp.AutoBudget], the small
// budget of a run nobody asked for (a page load of a share link or an
// embed): a script that passes it stops, and its Result carries "heavy":
// true, so the page shows a Run button instead of a partial result. A
// progress function is called during the run as progress(done, of, what)
// ([interp.Options].Progress), so that the page can say how far a run it
// stopped had got.
//
// It also installs twiceCost(script string) string, the parser's cost
// estimate of a script (see cost), twiceClaims(script string) string,
// the script's claim and its text with each claim, for the claim toggle
// on a script the reader edited ([views.ClaimsJSON]), and
//
//	twiceCheck(fix string, check {info: string, script: string}, options {auto: bool, progress: function}) object
//
// which runs one check of a case after the reader's fix and judges it
// (package cases, the same Go as twice case check): it returns {name,
// pass, heavy, line}, line being the verdict as twice case check prints
// it; {refused: TEXT} when the fix is not one ([cases.ParseFix]: TEXT
// names the line and says what a fix may hold); {error: TEXT} when the
// check itself does not parse. With auto true the check runs under
// [interp.AutoBudget], as a replayed link's checks do as the page loads:
// a check that passes it comes back heavy, not judged.
//
// After installing the functions, main blocks forever so that the Go
// program stays alive between calls. There is no logic here beyond
// converting arguments: everything a run does lives in runtime/script/interp.
package main

import (
	"math"
	"runtime/debug"
	"strconv"
	"syscall/js"

	"github.com/twice-lab/twice/cases"
	"github.com/twice-lab/twice/runtime/script/draw"
	"github.com/twice-lab/twice/runtime/script/interp"
	"github.com/twice-lab/twice/runtime/script/lang"
	"github.com/twice-lab/twice/runtime/script/result"
	"github.com/twice-lab/twice/runtime/script/views"
)

func main() {
	// The collector waits for the first run to end (or for the heap to
	// pass firstRunHeap): a first run on a cold page otherwise collected
	// twice, and V8 had to compile the collector for it, inside the
	// reader's first wait (docs/PERFORMANCE.md).
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(firstRunHeap)
	js.Global().Set("twiceRun", js.FuncOf(run))
	js.Global().Set("twiceCost", js.FuncOf(cost))
	js.Global().Set("twiceClaims", js.FuncOf(claims))
	js.Global().Set("twiceTimeline", js.FuncOf(timeline))
	js.Global().Set("twiceCheck", js.FuncOf(check))
	select {}
}

// cost is the body of twiceCost(script string) string: the parser's
// estimate of the script's cost as JSON ([lang.CostJSON]), so that a page
// can ask a reader before running a heavy script it was linked to.
func cost(_ js.Value, args []js.Value) any {
	if len(args) == 0 || args[0].Type() != js.TypeString {
		return lang.CostJSON("")
	}
	return lang.CostJSON(args[0].String())
}

// claims is the body of twiceClaims(script string) string.
func claims(_ js.Value, args []js.Value) any {
	if len(args) == 0 || args[0].Type() != js.TypeString {
		return views.ClaimsJSON("")
	}
	return views.ClaimsJSON(args[0].String())
}

// check is the body of twiceCheck.
func check(_ js.Value, args []js.Value) any {
	str := func(v js.Value) string {
		if v.Type() == js.TypeString {
			return v.String()
		}
		return ""
	}
	var fixSrc string
	var info, script js.Value = js.Undefined(), js.Undefined()
	if len(args) > 0 {
		fixSrc = str(args[0])
	}
	if len(args) > 1 && args[1].Type() == js.TypeObject {
		info, script = args[1].Get("info"), args[1].Get("script")
	}
	var opts cases.Options
	if len(args) > 2 && args[2].Type() == js.TypeObject {
		if a := args[2].Get("auto"); a.Type() == js.TypeBoolean && a.Bool() {
			opts.Budget = interp.AutoBudget
		}
		if p := args[2].Get("progress"); p.Type() == js.TypeFunction {
			opts.Progress = func(done, of int, what string) { p.Invoke(done, of, what) }
		}
	}
	fix, err := cases.ParseFix(fixSrc)
	if err != nil {
		return js.ValueOf(map[string]any{"refused": err.Error()})
	}
	ck, err := cases.ParseCheck(cases.Block{Info: str(info), Script: str(script)})
	if err != nil {
		return js.ValueOf(map[string]any{"error": err.Error()})
	}
	v := ck.Run(fix, opts)
	return js.ValueOf(map[string]any{"name": v.Name, "pass": v.Pass, "heavy": v.Heavy, "line": v.String()})
}

// firstRunHeap is how much memory the Go program may hold before the end
// of its first run without a collection: several times what a lesson's
// first run allocates, and a bound on what a heavy one can grow the
// module's memory to before the collector steps in.
const firstRunHeap = 32 << 20

// ran is false until the first run has ended.
var ran bool

// run is the body of twiceRun.
func run(_ js.Value, args []js.Value) any {
	if !ran {
		defer func() {
			ran = true
			debug.SetGCPercent(100)
			debug.SetMemoryLimit(math.MaxInt64)
		}()
	}
	var src string
	if len(args) > 0 && args[0].Type() == js.TypeString {
		src = args[0].String()
	}
	opts := interp.Options{Seed: interp.DefaultSeed}
	keep := false
	if len(args) > 1 && args[1].Type() == js.TypeObject {
		if t := args[1].Get("timeline"); t.Type() == js.TypeBoolean {
			opts.Timeline = t.Bool()
		}
		if k := args[1].Get("keep"); k.Type() == js.TypeBoolean {
			keep = k.Bool()
		}
		if a := args[1].Get("auto"); a.Type() == js.TypeBoolean && a.Bool() {
			opts.Budget = interp.AutoBudget
		}
		if p := args[1].Get("progress"); p.Type() == js.TypeFunction {
			opts.Progress = func(done, of int, what string) { p.Invoke(done, of, what) }
		}
		if s := args[1].Get("seed"); s.Type() == js.TypeString && s.String() != "" {
			n, err := strconv.ParseUint(s.String(), 10, 64)
			if err != nil {
				return marshal(&result.Result{
					ExitCode: 2,
					Error:    &lang.Error{Kind: "usage", Msg: "seed " + strconv.Quote(s.String()) + " is not a whole number from 0 to 18446744073709551615"},
				})
			}
			opts.Seed = n
		}
	}
	res := interp.Run(src, opts)
	if keep {
		if !opts.Timeline {
			res.Chart = draw.LoadChart(res)
		}
		kept = res
	}
	return marshal(res)
}

// kept is the Result of the last run asked to be kept, for twiceTimeline;
// nil when none was. It holds one run, so its memory is bounded.
var kept *result.Result

// timeline is the body of twiceTimeline: the kept run, with its timeline
// drawn now.
func timeline(_ js.Value, _ []js.Value) any {
	if kept == nil {
		return ""
	}
	if kept.Timeline == nil {
		kept.Timeline = draw.Timeline(kept)
	}
	return marshal(kept)
}

// marshal encodes r with its own MarshalJSON rather than encoding/json,
// which would add about 60 kB to the brotli download (see
// [result.Result.MarshalJSON]); the bytes are the same.
func marshal(r *result.Result) string {
	b, _ := r.MarshalJSON() // never fails: it only appends
	return string(b)
}
