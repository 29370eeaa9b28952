package lang

import "encoding/json"

// Error is a parse, usage or runtime error with its place in the script.
type Error struct {
	// Kind is "parse", "usage", "limit" or "runtime".
	Kind string `json:"kind"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
	Msg  string `json:"msg"`
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return e.Msg
	}
	return fmtPos(e.Line, e.Col) + ": " + e.Msg
}

// MarshalJSON writes the error's fields and, as "text", the error as
// Error says it, so that a page shows an error as the CLI prints it.
func (e *Error) MarshalJSON() ([]byte, error) {
	type fields Error
	return json.Marshal(struct {
		*fields
		Text string `json:"text"`
	}{(*fields)(e), e.Error()})
}
