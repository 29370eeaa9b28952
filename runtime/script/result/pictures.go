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
}

// Chart is a picture of the load runs: for each lease length, the share of
// jobs that ended with two effects, beside the measured 95th percentile of
// processing time. It is SVG, drawn like the timeline (escaped text only).
type Chart struct {
	SVG    string `json:"svg"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
}
