package result

// Timeline is the run drawn as an SVG: one lane per worker plus the
// receipts service, each lease a bar from claim to ack or expiry, each SQL
// statement a tick, each effect a dot (duplicates highlighted), kills
// marked. Time runs left to right; stretches with nothing happening
// (a sleep, a process starting, a client waiting) are cut out and shown as
// a break labelled with how long they lasted, so milliseconds and seconds
// both stay readable.
type Timeline struct {
	SVG    string `json:"svg"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	// EventX is the x coordinate, in SVG units, of each event of
	// Result.Trace, for drawing a cursor while stepping through it.
	EventX []int `json:"event_x"`
	// FirstDuplicate is the index in Result.Trace of the first effect
	// drawn as a duplicate (a second effect for one event), or -1: where
	// a narrow screen starts the picture.
	FirstDuplicate int `json:"first_duplicate"`
	// Steps is the run on a step axis, for the page to draw; absent when
	// no worker ran.
	Steps *Steps `json:"steps,omitempty"`
}

// Steps is the run laid out one step at a time, as the page draws it on
// its step axis: one column per step of a worker, in the trace's order,
// those that are not steps of an ordering (as package explore counts
// them, and the scheduler board shows them) folded.
type Steps struct {
	// Lanes are the workers, in the order their lanes are drawn.
	Lanes []string `json:"lanes"`
	Steps []Step   `json:"steps"`
	// Spans are the stretches each worker is inside the side effect:
	// from its claim to its ack (or where it stopped), as indices into
	// Steps. Two at once is the duplicate's window.
	Spans []Span `json:"spans"`
	// BothFree is the step at which a second worker read the job as
	// queued (both now believe it free), or -1.
	BothFree int `json:"both_free"`
	// Scale is the axis the page opens on: "steps" for a race where only
	// the order of steps matters, "time" where time is the story (sleeps,
	// leases, heartbeats, work, kills).
	Scale string `json:"scale"`
}

// Step is one step of a worker on the step axis.
type Step struct {
	// Event is the step's index in Result.Trace.
	Event int    `json:"event"`
	Lane  string `json:"lane"`
	// Label is the step's short name (SELECT, UPDATE, POST, ack); What
	// the step in words, as the trace says it, and Said what it saw
	// (the words after the statement).
	Label string `json:"label"`
	What  string `json:"what"`
	Said  string `json:"said"`
	// Fold marks a step that touches nothing another worker could see
	// in an ordering: drawn only when the reader asks for every step.
	Fold bool `json:"fold"`
	// Mark is what the step did to the race: "effect", "duplicate" (a
	// second effect of one event), "refused" or "replayed" (what the
	// service recorded for this request), "lost" (a claim that changed
	// nothing), or "".
	Mark string `json:"mark"`
}

// Span is a stretch of one worker's steps, From to To inclusive.
type Span struct {
	Lane string `json:"lane"`
	From int    `json:"from"`
	To   int    `json:"to"`
}

// Chart is a picture of the load runs: for each lease length, the share of
// jobs that ended with two effects, beside the measured 95th percentile of
// processing time. It is SVG, drawn like the timeline (escaped text only).
type Chart struct {
	SVG    string `json:"svg"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
}
