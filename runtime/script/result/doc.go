// Package result is what one run of a script produced: the [Result], the
// tables it holds, and its JSON, which `twice run --json` prints and the
// browser reads. It computes nothing about a run: package interp fills a
// Result, package diagnosis supplies its per-order summaries, and package
// draw draws it.
//
// # What a newcomer meets first
//
//	Result            the transcript, effects, summaries, jobs, log, races, explorations, loads, trace
//	Result.Text()     the transcript as the CLI prints it
//	Result.MarshalJSON()  the JSON, byte for byte what encoding/json writes for these types
//	Choices()         the lists the page's controls are built from (claims, dedupe modes, keys, kinds)
//
// The JSON encoder (json.go) is written by hand so that the browser build
// links no encoding/json; TestMarshalJSONMatchesEncodingJSON holds it to
// encoding/json's bytes. A field added to a type here needs its line in
// the encoder too; that test fails until it has it.
package result
