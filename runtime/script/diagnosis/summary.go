package diagnosis

// Summary is the per-order line of the effects command.
type Summary struct {
	Order string `json:"order"`
	// Effects counts the requests that landed; Refused those refused;
	// Replayed those the service deduplicated on their key.
	Effects  int `json:"effects"`
	Refused  int `json:"refused"`
	Replayed int `json:"replayed"`
	// Count says the three counts in words, as the transcript and the
	// playground's panel and tables say them: "1 effect, 1 refused",
	// "2 effects", "1 effect, 2 replayed".
	Count string `json:"count"`
	// Runs counts the distinct runs that sent a request.
	Runs   int   `json:"runs"`
	SpanMS int64 `json:"span_ms"`
	// Span is the time from the first effect to the last, as the
	// transcript and the diagnosis print it ("0.7 ms", "2076 ms").
	Span string   `json:"span"`
	Tags []string `json:"tags"`
	// Kind names the diagnosis: one of [Kinds], spelt by its
	// name in the JSON ("once", "claim-race", ...).
	Kind Kind `json:"kind"`
	// Diagnosis says in words what the evidence shows.
	Diagnosis string `json:"diagnosis"`
}
