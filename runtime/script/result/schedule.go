package result

// Schedule is one ordering of a race's steps, run as race --schedule
// named it: the steps taken, each worker's next step, the tables after
// the last step, the outcome once every worker has finished, and the
// explorer's counts for the same claim and workers.
type Schedule struct {
	Claim   string         `json:"claim"`
	Workers int            `json:"workers"`
	Steps   []ScheduleStep `json:"steps"`
	// Next has one entry per worker, in order: the label of its next
	// step, "" once it has finished.
	Next   []ScheduleNext `json:"next"`
	Tables ScheduleTables `json:"tables"`
	// Outcome is "one effect", "two effects" (or "no effect", "3
	// effects") once every worker has finished, and "" before.
	Outcome string `json:"outcome"`
	// Orderings and Duplicating are the explorer's counts for this claim
	// and number of workers, as decimal strings (see Exploration);
	// Shortest is the number of steps of its shortest duplicating
	// ordering, 0 when none duplicates.
	Orderings   string `json:"orderings"`
	Duplicating string `json:"duplicating"`
	Shortest    int    `json:"shortest"`
	// Programs has each worker's whole program, in worker order: the
	// lines of the steps it runs alone (the explorer's steps, named as
	// Next names them), the line it runs next and how it ended.
	Programs []ScheduleProgram `json:"programs"`
	// Ordering is an ordering to play from the start: the explorer's
	// shortest duplicating one (Shortest steps), or where none
	// duplicates one that runs every worker to its end, a step each in
	// turn. Each entry is a worker's name.
	Ordering []string `json:"ordering"`
	// Shared names the tables the workers share (explore.Shared): jobs,
	// and locks, keys (the receipts service's) or processed_keys where
	// the race has them.
	Shared []string `json:"shared"`
}

// ScheduleProgram is one worker's program (explore.Program): Lines, the
// index At of its next line (len(Lines) once it has finished, -1 when its
// next step is a branch off the program: Next names it), and Ended, ""
// while it has steps left, "finished" or "stopped" (it lost the claim,
// its lease or its ack, or its key was taken).
type ScheduleProgram struct {
	Worker string   `json:"worker"`
	Lines  []string `json:"lines"`
	At     int      `json:"at"`
	Ended  string   `json:"ended"`
}

// ScheduleStep is one step a schedule took: the worker, the step's label
// (its SQL, an await, the receipt, the ack), what it saw and the line of
// the worker's program it ran.
type ScheduleStep struct {
	Worker string `json:"worker"`
	Label  string `json:"label"`
	Said   string `json:"said"`
	// Line is the index of the line of the worker's program (Programs)
	// this step ran, -1 for a step off it (a branch).
	Line int `json:"line"`
}

// ScheduleNext is a worker's next step: its label, "" when it has none.
type ScheduleNext struct {
	Worker string `json:"worker"`
	Label  string `json:"label"`
}

// ScheduleTables are the tables after a schedule's last step: the job,
// the locks table, and the effects recorded, each with the worker and the
// step (from 1) that recorded it.
type ScheduleTables struct {
	Jobs    []Job            `json:"jobs"`
	Locks   []LockRow        `json:"locks"`
	Effects []ScheduleEffect `json:"effects"`
	// Keys are the keys stored: the receipts service's key table or,
	// with the ledger, processed_keys (committed), in the order they were.
	Keys []ScheduleKey `json:"keys"`
}

// ScheduleKey is one key a schedule stored.
type ScheduleKey struct {
	Key    string `json:"key"`
	Worker string `json:"worker"`
	Step   int    `json:"step"`
}

// ScheduleEffect is one effect a schedule recorded.
type ScheduleEffect struct {
	Worker string `json:"worker"`
	Step   int    `json:"step"`
}

func (e *jsonEnc) schedule(s *Schedule) {
	e.byte('{')
	e.strField("claim", s.Claim)
	e.intField("workers", s.Workers)
	e.key("steps")
	jsonList(e, s.Steps, func(e *jsonEnc, st ScheduleStep) {
		e.byte('{')
		e.strField("worker", st.Worker)
		e.strField("label", st.Label)
		e.strField("said", st.Said)
		e.intField("line", st.Line)
		e.byte('}')
	})
	e.key("next")
	jsonList(e, s.Next, func(e *jsonEnc, n ScheduleNext) {
		e.byte('{')
		e.strField("worker", n.Worker)
		e.strField("label", n.Label)
		e.byte('}')
	})
	e.key("tables")
	e.byte('{')
	e.key("jobs")
	jsonList(e, s.Tables.Jobs, func(e *jsonEnc, j Job) { e.job(&j) })
	e.key("locks")
	jsonList(e, s.Tables.Locks, (*jsonEnc).lockRow)
	e.key("effects")
	jsonList(e, s.Tables.Effects, func(e *jsonEnc, f ScheduleEffect) {
		e.byte('{')
		e.strField("worker", f.Worker)
		e.intField("step", f.Step)
		e.byte('}')
	})
	e.key("keys")
	jsonList(e, s.Tables.Keys, func(e *jsonEnc, k ScheduleKey) {
		e.byte('{')
		e.strField("key", k.Key)
		e.strField("worker", k.Worker)
		e.intField("step", k.Step)
		e.byte('}')
	})
	e.byte('}')
	e.strField("outcome", s.Outcome)
	e.strField("orderings", s.Orderings)
	e.strField("duplicating", s.Duplicating)
	e.intField("shortest", s.Shortest)
	e.key("programs")
	jsonList(e, s.Programs, func(e *jsonEnc, p ScheduleProgram) {
		e.byte('{')
		e.strField("worker", p.Worker)
		e.key("lines")
		jsonList(e, p.Lines, (*jsonEnc).str)
		e.intField("at", p.At)
		e.strField("ended", p.Ended)
		e.byte('}')
	})
	e.key("ordering")
	jsonList(e, s.Ordering, (*jsonEnc).str)
	e.key("shared")
	jsonList(e, s.Shared, (*jsonEnc).str)
	e.byte('}')
}
