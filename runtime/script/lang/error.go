package lang

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
