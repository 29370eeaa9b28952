package result

import (
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/twice-lab/twice/runtime/script/diagnosis"
	"github.com/twice-lab/twice/runtime/script/lang"
)

// MarshalJSON encodes r exactly as encoding/json encodes the struct (the
// json tags on Result and the types it holds are the schema), but by hand.
//
// The reason is size: the browser build calls this directly and so links no
// encoding/json, which with the reflection and sorting code it brings costs
// about 60 kB of the brotli download. `twice run --json` still goes through
// encoding/json, which calls this method and indents its output, so the CLI
// and the browser share one encoder. TestMarshalJSONMatchesEncodingJSON
// holds it to encoding/json's bytes for every golden transcript and for
// hostile strings.
func (r *Result) MarshalJSON() ([]byte, error) {
	var e jsonEnc
	e.byte('{')
	e.key("seed")
	e.b = strconv.AppendUint(e.b, r.Seed, 10)
	e.key("transcript")
	jsonList(&e, r.Transcript, (*jsonEnc).str)
	e.key("effects")
	jsonList(&e, r.Effects, func(e *jsonEnc, f Effect) { e.effect(&f) })
	e.key("summary")
	jsonList(&e, r.Summary, (*jsonEnc).summary)
	e.key("jobs")
	jsonList(&e, r.Jobs, func(e *jsonEnc, j Job) { e.job(&j) })
	e.key("log")
	jsonList(&e, r.Log, (*jsonEnc).str)
	e.key("races")
	jsonList(&e, r.Races, (*jsonEnc).race)
	e.key("explorations")
	jsonList(&e, r.Explorations, (*jsonEnc).exploration)
	e.key("loads")
	jsonList(&e, r.Loads, (*jsonEnc).load)
	e.key("ledger")
	jsonList(&e, r.Ledger, (*jsonEnc).ledgerRow)
	e.key("keys")
	jsonList(&e, r.Keys, func(e *jsonEnc, k KeyRow) {
		e.byte('{')
		e.strField("key", k.Key)
		e.strField("run", k.Run)
		e.byte('}')
	})
	if len(r.Locks) > 0 {
		e.key("locks")
		jsonList(&e, r.Locks, (*jsonEnc).lockRow)
	}
	e.intField("key_hits", r.KeyHits)
	e.key("matrices")
	jsonList(&e, r.Matrices, (*jsonEnc).matrix)
	if r.Schedule != nil {
		e.key("schedule")
		e.schedule(r.Schedule)
	}
	e.key("views")
	e.views(&r.Views)
	e.key("outcome")
	e.outcome(r.Outcome)
	if r.Race != "" {
		e.strField("race", r.Race)
	}
	e.key("trace")
	jsonList(&e, r.Trace, (*jsonEnc).event)
	if t := r.Timeline; t != nil {
		e.key("timeline")
		e.timeline(t)
	}
	if c := r.Chart; c != nil {
		e.key("chart")
		e.chart(c)
	}
	if x := r.Error; x != nil {
		e.key("error")
		e.error(x)
	}
	e.intField("exit_code", r.ExitCode)
	if c := r.Cut; c != nil {
		e.key("cut")
		e.cut(c)
	}
	if r.Heavy {
		e.key("heavy")
		e.b = append(e.b, "true"...)
	}
	e.byte('}')
	return e.b, nil
}

// jsonEnc appends JSON to b. Keys are written with a leading comma unless
// they open an object, which is all the state an encoder of fixed structs
// needs.
type jsonEnc struct{ b []byte }

func (e *jsonEnc) outcome(o Outcome) {
	e.byte('{')
	e.intField("duplicates", o.Duplicates)
	e.intField("effects", o.Effects)
	e.intField("refused", o.Refused)
	e.intField("replayed", o.Replayed)
	e.strField("headline", o.Headline)
	e.byte('}')
}

func (e *jsonEnc) timeline(t *Timeline) {
	e.byte('{')
	e.key("svg")
	e.str(t.SVG)
	e.intField("width", t.Width)
	e.intField("height", t.Height)
	e.key("event_x")
	jsonList(e, t.EventX, (*jsonEnc).num)
	e.intField("first_duplicate", t.FirstDuplicate)
	if t.Steps != nil {
		e.key("steps")
		e.steps(t.Steps)
	}
	e.byte('}')
}

func (e *jsonEnc) steps(s *Steps) {
	e.byte('{')
	e.key("lanes")
	jsonList(e, s.Lanes, (*jsonEnc).str)
	e.key("steps")
	jsonList(e, s.Steps, func(e *jsonEnc, st Step) {
		e.byte('{')
		e.intField("event", st.Event)
		e.strField("lane", st.Lane)
		e.strField("label", st.Label)
		e.strField("what", st.What)
		e.strField("said", st.Said)
		e.boolField("fold", st.Fold)
		e.strField("mark", st.Mark)
		e.byte('}')
	})
	e.key("spans")
	jsonList(e, s.Spans, func(e *jsonEnc, sp Span) {
		e.byte('{')
		e.strField("lane", sp.Lane)
		e.intField("from", sp.From)
		e.intField("to", sp.To)
		e.byte('}')
	})
	e.intField("both_free", s.BothFree)
	e.strField("scale", s.Scale)
	e.byte('}')
}

func (e *jsonEnc) chart(c *Chart) {
	e.byte('{')
	e.key("svg")
	e.str(c.SVG)
	e.intField("width", c.Width)
	e.intField("height", c.Height)
	e.byte('}')
}

func (e *jsonEnc) error(x *lang.Error) {
	e.byte('{')
	e.strField("kind", x.Kind)
	e.intField("line", x.Line)
	e.intField("col", x.Col)
	e.strField("msg", x.Msg)
	// text is the error as the command line prints it, place and all:
	// the page shows it as it is, so there is one format for both.
	e.strField("text", x.Error())
	e.byte('}')
}

func (e *jsonEnc) cut(c *Cut) {
	e.byte('{')
	e.strField("budget", c.Budget)
	e.key("limit")
	e.num64(c.Limit)
	e.key("auto")
	e.b = strconv.AppendBool(e.b, c.Auto)
	e.byte('}')
}

func (e *jsonEnc) byte(c byte) { e.b = append(e.b, c) }

func (e *jsonEnc) key(k string) {
	if e.b[len(e.b)-1] != '{' {
		e.b = append(e.b, ',')
	}
	e.b = append(e.b, '"')
	e.b = append(e.b, k...)
	e.b = append(e.b, '"', ':')
}

func (e *jsonEnc) num(n int)     { e.b = strconv.AppendInt(e.b, int64(n), 10) }
func (e *jsonEnc) num64(n int64) { e.b = strconv.AppendInt(e.b, n, 10) }

func (e *jsonEnc) strField(k, v string) { e.key(k); e.str(v) }
func (e *jsonEnc) intField(k string, v int) {
	e.key(k)
	e.num(v)
}

// jsonList writes a JSON array, or null for a nil slice, as encoding/json
// does.
func jsonList[T any](e *jsonEnc, xs []T, each func(*jsonEnc, T)) {
	if xs == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.byte('[')
	for i, x := range xs {
		if i > 0 {
			e.byte(',')
		}
		each(e, x)
	}
	e.byte(']')
}

func (e *jsonEnc) effect(f *Effect) {
	e.byte('{')
	e.strField("order", f.Order)
	e.key("job")
	e.num64(f.Job)
	e.strField("run", f.Run)
	e.intField("attempt", f.Attempt)
	e.intField("send", f.Send)
	e.strField("worker", f.Worker)
	e.key("at_us")
	e.num64(f.AtUS)
	e.intField("token", f.Token)
	e.boolField("refused", f.Refused)
	e.strField("event", f.Event)
	e.strField("key", f.Key)
	e.boolField("replayed", f.Replayed)
	e.strField("first_run", f.FirstRun)
	e.strField("key_state", f.KeyState)
	e.boolField("ledger", f.Ledger)
	e.byte('}')
}

func (e *jsonEnc) summary(s diagnosis.Summary) {
	e.byte('{')
	e.strField("order", s.Order)
	e.intField("effects", s.Effects)
	e.intField("refused", s.Refused)
	e.intField("replayed", s.Replayed)
	e.strField("count", s.Count)
	e.intField("runs", s.Runs)
	e.key("span_ms")
	e.num64(s.SpanMS)
	e.strField("span", s.Span)
	e.key("tags")
	jsonList(e, s.Tags, (*jsonEnc).str)
	e.strField("kind", s.Kind.String())
	e.strField("diagnosis", s.Diagnosis)
	e.byte('}')
}

func (e *jsonEnc) job(j *Job) {
	e.byte('{')
	e.key("id")
	e.num64(j.ID)
	e.strField("order", j.Order)
	e.strField("event", j.Event)
	e.strField("status", j.Status)
	e.intField("attempts", j.Attempts)
	e.strField("run", j.Run)
	e.key("lease_us")
	if j.LeaseUS == nil {
		e.b = append(e.b, "null"...)
	} else {
		e.num64(*j.LeaseUS)
	}
	e.byte('}')
}

func (e *jsonEnc) race(r RaceTally) {
	e.byte('{')
	e.strField("claim", r.Claim)
	e.intField("workers", r.Workers)
	e.intField("races", r.Races)
	e.intField("duplicates", r.Duplicates)
	e.strField("key", r.Key)
	e.strField("dedupe", r.Dedupe)
	e.intField("effects", r.Effects)
	e.busy(r.Txn, r.NoBusy)
	if r.Busy != 0 {
		e.intField("busy", r.Busy)
	}
	e.byte('}')
}

// busy writes a race's transaction mode and no_busy, each where set.
func (e *jsonEnc) busy(txn string, noBusy bool) {
	if txn != "" {
		e.strField("txn", txn)
	}
	if noBusy {
		e.boolField("no_busy", noBusy)
	}
}

func (e *jsonEnc) lockRow(l LockRow) {
	e.byte('{')
	e.key("job")
	e.num64(l.Job)
	e.strField("owner", l.Owner)
	e.key("until_us")
	e.num64(l.UntilUS)
	e.byte('}')
}

func (e *jsonEnc) ledgerRow(l LedgerRow) {
	e.byte('{')
	e.key("id")
	e.num64(l.ID)
	e.strField("key", l.Key)
	e.strField("order", l.Order)
	e.key("job")
	e.num64(l.Job)
	e.strField("run", l.Run)
	e.intField("attempt", l.Attempt)
	e.byte('}')
}

func (e *jsonEnc) matrix(m MatrixTable) {
	e.byte('{')
	e.key("seed")
	e.b = strconv.AppendUint(e.b, m.Seed, 10)
	e.intField("seeds", m.Seeds)
	e.key("fixes")
	jsonList(e, m.Fixes, func(e *jsonEnc, f MatrixFix) {
		e.byte('{')
		e.strField("id", f.ID)
		e.strField("title", f.Title)
		e.strField("change", f.Change)
		e.boolField("pending", f.Pending)
		e.intField("closes", f.Closes)
		e.byte('}')
	})
	e.key("scenarios")
	jsonList(e, m.Scenarios, func(e *jsonEnc, r MatrixRow) {
		e.byte('{')
		e.strField("id", r.ID)
		e.strField("title", r.Title)
		e.intField("events", r.Events)
		e.key("cells")
		jsonList(e, r.Cells, func(e *jsonEnc, c MatrixCell) {
			e.byte('{')
			e.strField("fix", c.Fix)
			e.strField("script", c.Script)
			e.intField("events", c.Events)
			e.intField("effects", c.Effects)
			e.intField("trials", c.Trials)
			e.intField("failed", c.Failed)
			e.strField("verdict", c.Verdict)
			e.strField("label", c.Label)
			e.byte('}')
		})
		e.byte('}')
	})
	e.byte('}')
}

func (e *jsonEnc) load(t LoadTally) {
	e.byte('{')
	e.intField("jobs", t.Jobs)
	e.intField("workers", t.Workers)
	e.key("lease_us")
	e.num64(t.LeaseUS)
	e.strField("processing", t.Processing)
	e.key("p50_us")
	e.num64(t.P50US)
	e.key("p95_us")
	e.num64(t.P95US)
	e.intField("duplicates", t.Duplicates)
	e.intField("overran", t.Overran)
	e.key("summary")
	jsonList(e, t.Summary, (*jsonEnc).summary)
	e.key("effects")
	jsonList(e, t.Effects, func(e *jsonEnc, f Effect) { e.effect(&f) })
	e.key("job_rows")
	jsonList(e, t.JobRows, func(e *jsonEnc, j Job) { e.job(&j) })
	e.intField("ran_once", t.RanOnce)
	e.intField("more", t.More)
	e.key("kind_counts")
	jsonList(e, t.KindCounts, func(e *jsonEnc, k KindCount) {
		e.byte('{')
		e.strField("kind", k.Kind.String())
		e.intField("n", k.N)
		e.byte('}')
	})
	e.byte('}')
}

func (e *jsonEnc) views(v *Views) {
	x := &v.Explore
	e.byte('{')
	e.key("explore")
	e.byte('{')
	e.boolField("own", x.Own)
	e.strField("note", x.Note)
	e.strField("script", x.Script)
	e.intField("workers", x.Workers)
	e.strField("refused", x.Refused)
	e.key("by_workers")
	jsonList(e, x.ByWorkers, func(e *jsonEnc, r ExploreRun) {
		e.byte('{')
		e.intField("workers", r.Workers)
		e.strField("script", r.Script)
		e.strField("refused", r.Refused)
		e.byte('}')
	})
	e.byte('}')
	e.key("compare")
	e.compare(&v.Compare)
	e.key("timeline")
	e.byte('{')
	e.strField("note", v.Timeline.Note)
	e.boolField("chart", v.Timeline.Chart)
	e.boolField("trace", v.Timeline.Trace)
	e.byte('}')
	e.key("scheduler")
	e.byte('{')
	e.strField("note", v.Scheduler.Note)
	e.strField("script", v.Scheduler.Script)
	e.strField("claim", v.Scheduler.Claim)
	e.intField("workers", v.Scheduler.Workers)
	e.strField("refused", v.Scheduler.Refused)
	e.byte('}')
	e.key("columns")
	jsonList(e, v.Columns, (*jsonEnc).str)
	e.key("numbers")
	jsonList(e, v.Numbers, func(e *jsonEnc, n NumberView) {
		e.byte('{')
		e.strField("name", n.Name)
		e.key("value")
		e.num64(n.Value)
		e.key("min")
		e.num64(n.Min)
		e.key("spans")
		jsonList(e, n.Spans, func(e *jsonEnc, sp TextSpan) {
			e.byte('{')
			e.intField("start", sp.Start)
			e.intField("end", sp.End)
			e.byte('}')
		})
		e.byte('}')
	})
	e.byte('}')
}

func (e *jsonEnc) boolField(k string, v bool) {
	e.key(k)
	e.b = strconv.AppendBool(e.b, v)
}

func (e *jsonEnc) exploration(x Exploration) {
	e.byte('{')
	e.strField("claim", x.Claim)
	e.intField("workers", x.Workers)
	e.strField("dedupe", x.Dedupe)
	e.strField("key", x.Key)
	if x.HeartbeatMS != 0 {
		e.intField("heartbeat_ms", x.HeartbeatMS)
	}
	if x.Fence {
		e.boolField("fence", x.Fence)
	}
	if x.Effect != "" {
		e.strField("effect", x.Effect)
	}
	if x.KeyTxn != "" {
		e.strField("key_txn", x.KeyTxn)
	}
	e.busy(x.Txn, x.NoBusy)
	if x.Busy != "" {
		e.strField("busy", x.Busy)
	}
	e.strField("orderings", x.Orderings)
	e.strField("duplicating", x.Duplicating)
	e.strField("overlap", x.Overlap)
	e.intField("states", x.States)
	e.strField("method", x.Method)
	e.key("shortest")
	jsonList(e, x.Shortest, func(e *jsonEnc, s ExploreStep) {
		e.byte('{')
		e.strField("worker", s.Worker)
		e.strField("what", s.What)
		e.byte('}')
	})
	e.byte('}')
}

func (e *jsonEnc) event(v Event) {
	e.byte('{')
	e.key("at_us")
	e.num64(v.AtUS)
	e.strField("proc", v.Proc)
	e.strField("kind", v.Kind.String())
	e.strField("step", v.Step)
	if v.Run != "" {
		e.strField("run", v.Run)
	}
	if v.Job != nil {
		e.key("job")
		e.job(v.Job)
	}
	if v.Effect != nil {
		e.key("effect")
		e.effect(v.Effect)
	}
	e.byte('}')
}

const hexDigits = "0123456789abcdef"

// str writes s as a JSON string the way encoding/json does by default:
// quotes, backslashes and control characters escaped, <, > and & as
// \u003c, \u003e and \u0026 (so the JSON is safe inside a <script>
// element), U+2028 and U+2029 escaped for JavaScript, and each byte of
// invalid UTF-8 replaced by U+FFFD.
func (e *jsonEnc) str(s string) {
	b := append(e.b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	e.b = append(b, '"')
}

func (e *jsonEnc) compare(c *CompareView) {
	e.byte('{')
	e.strField("claim", c.Claim)
	side := func(e *jsonEnc, s CompareSide) {
		e.byte('{')
		e.strField("claim", s.Claim)
		e.strField("script", s.Script)
		if s.Off != "" {
			e.strField("off", s.Off)
		}
		e.byte('}')
	}
	e.key("sides")
	jsonList(e, c.Sides, side)
	e.strField("note", c.Note)
	e.key("toggle")
	jsonList(e, c.Toggle, side)
	e.byte('}')
}

// ClaimsJSON is what the browser's worker answers when the page asks for
// the claims of a script it has no Result of (one the reader edited): the
// CompareView of the script as JSON, {"claim":...,"sides":[...],"note":...,"toggle":[...]},
// with "error" when the script does not parse. Written by the same hand
// as Result's JSON.
func ClaimsJSON(c CompareView, err *lang.Error) string {
	var e jsonEnc
	e.compare(&c)
	if err != nil {
		e.b = e.b[:len(e.b)-1]
		e.key("error")
		e.error(err)
		e.byte('}')
	}
	return string(e.b)
}

// EmptyNotNull makes every list an empty one rather than nil, so the JSON
// has [] (a table with no rows) and never null.
func (r *Result) EmptyNotNull() {
	empty(&r.Transcript, &r.Log, &r.Views.Columns)
	empty(&r.Views.Numbers)
	empty(&r.Effects)
	empty(&r.Summary)
	empty(&r.Jobs)
	empty(&r.Races)
	empty(&r.Explorations)
	empty(&r.Loads)
	empty(&r.Ledger)
	empty(&r.Keys)
	empty(&r.Matrices)
	empty(&r.Views.Explore.ByWorkers)
	empty(&r.Views.Compare.Sides, &r.Views.Compare.Toggle)
	empty(&r.Trace)
}

// empty makes each nil list it is given an empty one.
func empty[T any](lists ...*[]T) {
	for _, l := range lists {
		if *l == nil {
			*l = []T{}
		}
	}
}

// SetError records err as the run's error: a lang.Error as it is, any
// other as a runtime error; usage, parse and limit errors exit 2, runtime
// errors 1.
func (r *Result) SetError(err error) {
	var e *lang.Error
	if !errors.As(err, &e) {
		e = &lang.Error{Kind: "runtime", Msg: err.Error()}
	}
	r.Error = e
	r.ExitCode = 1
	if e.Kind != "runtime" {
		r.ExitCode = 2
	}
}
