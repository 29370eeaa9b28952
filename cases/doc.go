// Package cases reads the twice lab's cases and judges fixes to them. A
// case is an incident for the reader to explain and fix: a markdown file
// of a lesson folder whose front matter says kind: case. Package lessons
// reads the folder (the manifest, the front matter, the title, the twice
// blocks) and hands each case file to [Parse]; this package knows the
// sections of a case, the reader's fix, and the checks a fix must pass.
// It imports only the runtime, so that the browser's runtime module links
// it and the page's Run checks is judged by this Go, the same as twice
// case check.
//
// # Writing a case
//
// A case is listed like a lesson (lessons.txt, or an index.md), served at
// /cases/SLUG/ instead of /lessons/SLUG/, and starts with front matter:
//
//	---
//	kind: case
//	time: 35 minutes
//	level: hard
//	notes: For the teacher only (twice serve --notes=off hides them).
//	---
//	# The job two workers both completed
//
// After the title, level-two headings divide it into sections, each
// optional but Evidence, Fix and Checks, in any order ([Sections]):
//
//	## Symptom         what a customer noticed (markdown)
//	## Expected        what should have happened
//	## Actual          what happened
//	## Question        the one question the investigation must answer
//	## Architecture    a list of arrows, "- Queue -> Worker: delivers",
//	                   drawn as a diagram
//	## Evidence        one twice block: the run the page's evidence desk
//	                   (log lines, lock trace, counts) is made from, at
//	                   render time
//	## Recent changes  a list
//	## Investigation   how to work the case, step by step: reproduce,
//	                   trace, count, weigh, fix
//	## Hypotheses      a ### heading per hypothesis, each with one twice
//	                   block, its experiment (an ordinary block with its
//	                   options)
//	## Fix             one twice block: the system as the case starts,
//	                   which the reader edits into a fix (below)
//	## Checks          one twice block per check (below)
//	## Hints           a ### heading per stage, each with a list of one
//	                   to three hints, broad to narrow
//
// The question, the investigation and the hints are the reader's, on
// the page; the notes are the teacher's.
//
// # The fix
//
// A fix changes the system and nothing else. It is lines of use and
// service commands ([ParseFix]; a # comment and a blank line are fine):
//
//	service --dedupe claim
//	use --claim atomic --key event
//
// use may set the flags of [FixUseFlags] only: the claim, the lease and
// its heartbeat, the fencing token, the idempotency key, and where the
// effect lands. service sets how the service treats a key. Anything else
// (add, work, race, sleep, a use --delay, a background list) is what a
// check sets up, and a fix that holds it is refused with its line and
// the rule, on the page and by twice case check alike. The fix is parsed
// on its own and runs as its commands, one a line, before the check's:
// nothing of it can reach into a check's lines.
//
// # Checks
//
// A check's info string names it and says what its run must show:
//
//	```twice name=killed-before-ack deliveries=2 sent=1
//	add order-77
//	work --job 1 --worker W1 --crash-before-ack
//	lapse --job 1
//	work --job 1 --worker W2
//	```
//
// It runs the fix, then its own lines, at seed=N (1 unless given), and
// passes when every condition holds. [Conditions] lists them, each with
// what it counts and its judge (go doc ./cases Conditions). A condition
// that counts something of a race fails a check in which no race ran, so
// that a check cannot pass for want of evidence. Write each check as a
// property over every ordering (race --all) or over time, never over a
// sample or a guessed instant: a check that waits for a redelivery waits
// with lapse, which ends when the job's lease has passed, however long
// the reader made it.
//
// A check's verdict ([Verdict]) is one line: "pass NAME: evidence" or
// "fail NAME: evidence", where a failing condition says what it wanted;
// "wait NAME: ..." when the run was given a page load's budget
// ([Options]) and passed it, so that it was not judged. twice case check
// prints one line per check; the page's Run checks asks the runtime
// module (wasm/main.go's twiceCheck) for the same line.
//
// # Adding a condition
//
// One entry in [Conditions]: its name, whether it takes a number, its
// words, and its judge, a function of the run's result.Result. The
// parser of checks, twice case check, the page and this documentation
// take it from there.
package cases
