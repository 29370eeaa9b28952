// Package diagnosis says why an order got more effects than it had
// events: evidence in, findings out. It runs nothing and reads no
// database: the interpreter records the evidence as its workers step,
// and hands it over at the end.
//
// # What a newcomer meets first
//
//	NewHistory()            → *History   the runs of a script, recorded as they claim and step
//	History.Claimed(...)    → *Record    one run's claim; then Record.Enter(now, Phase) and SetLease
//	Summarize(Evidence)     → []Summary  one per order: its counts, its Kind and the words for it
//
// [Evidence] is what the diagnosis reads: every request the receipts
// service recorded (with the dedupe mode it arrived under), the jobs'
// attempts, orders and events (a job that sent nothing still belongs to
// its order: silent.go), the [History] of every run (when it claimed, each lease it
// wrote, each [Phase] it went through), and worker.log. A [Summary] is what it finds,
// per order: how many effects landed, were refused or replayed, the span
// from the first to the last, a [Kind] and a sentence. The evidence is
// grouped by event: one effect per event is right, and each further
// effect gets a cause, read from the histories of the two runs whose
// effects are paired (what the earlier run was doing when its lease ran
// out), never guessed from the gap alone.
//
// Each piece of evidence is read as it stood when it happened, never as
// the script left things: a request met the dedupe mode it arrived
// under, whatever a later service command set; a claim is a claim race
// when the run that held the job had a live lease and had not acked at
// the claim's instant (however it ended later: killed, refused, stopped
// by its heartbeat); a run's phase is the one it was in at the instant
// asked about. An order with one effect whose job was claimed over a
// live lease is a claim race that left one effect, and the diagnosis
// says what kept the race's loser from a second one (races.go).
//
// The list of kinds ([Kinds]) is at the bottom of this package (kinds.go)
// with each kind's name (the JSON's "kind"), its title for a reader, and
// whether it is good. The page gets them through result.Choices.
//
// # Adding a diagnosis
//
// A [Kind] constant and its entry in kindInfo (name, title, good or not),
// a case in orderEvidence.causes or History.pairCause that names it from
// the evidence, and its words in causeWords or claimWords. A list is
// written with prose ("1, 2 and 3"). TestEveryDiagnosisKindIsReached (in
// package interp) needs a script that is diagnosed with it
// (diagnosisCorpus).
package diagnosis
