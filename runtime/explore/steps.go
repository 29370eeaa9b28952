package explore

import (
	"errors"
	"fmt"
	"slices"

	"github.com/twice-lab/twice/runtime/event"
	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/receipts"
)

// lockUntil is the until of every lock an explored worker takes: its
// lease, which never passes when timing is ignored (now is 0).
const lockUntil = 1

// A move is one worker's step from a state: the state before (s), the
// state after as the step makes it (next), and the worker's place in it.
type move struct {
	x    *explorer
	s    state
	next *state
	w    *wstate
	i    int
	conn *queue.Conn
	run  string
	// did is what the step did, as a replay records it (see Played):
	// filled in when x.replaying.
	did Played
}

// note records, for a replay, what the step did: its Did, the trace's
// kind for it, and the attempt and key of a request or a row.
func (m *move) note(did Did, kind event.Kind, attempt int, key string) {
	m.did.Did, m.did.Kind, m.did.Attempt, m.did.Key = did, kind, attempt, key
}

// phases are the steps of a worker's program, by pc: each runs its
// statement, moves the worker on, and says what happened.
var phases = [pcDone]func(m *move) (string, error){
	pcClaim:     (*move).claimStep,
	pcReadBack:  (*move).readBack,
	pcRenew:     (*move).renew,
	pcReceipt:   (*move).receipt,
	pcEffect:    (*move).effect,
	pcRemember:  (*move).remember,
	pcAck:       (*move).ack,
	pcBegin:     (*move).begin,
	pcKey:       (*move).key,
	pcRow:       (*move).row,
	pcAckTx:     (*move).ackTx,
	pcCommit:    (*move).commit,
	pcRollback:  (*move).rollback,
	pcKeyBegin:  (*move).begin,
	pcKeyInsert: (*move).keyInsert,
	pcKeyCommit: (*move).keyCommit,
	pcRelease:   (*move).releaseStep,
	pcTxBegin:   (*move).txBegin,
	pcTxEnd:     (*move).txEnd,
}

// step executes worker i's next step from state s on SQLite and returns the
// state after it and a description.
func (x *explorer) step(s state, i int) (state, string, error) {
	// Put the tables back as s has them, then run the real statement.
	if err := x.restore(s); err != nil {
		return s, "", err
	}
	next := s
	next.ws = slices.Clone(s.ws)
	m := &move{x: x, s: s, next: &next, w: &next.ws[i], i: i, conn: x.conns[i], run: runOf(i)}
	m.did.Kind = pcKinds[s.ws[i].pc]
	if why := x.busyFate(s, i); why != "" {
		what, err := m.die(why)
		if err != nil {
			return s, "", err
		}
		x.did = m.did
		return x.observe(next, what)
	}
	v0 := x.db.Version()
	what, err := phases[s.ws[i].pc](m)
	if err != nil {
		return s, "", err
	}
	// A commit makes every other open snapshot stale.
	if x.db.Version() != v0 {
		for j := range next.ws {
			if j != i && next.ws[j].snap {
				next.ws[j].stale = true
			}
		}
	}
	x.did = m.did
	return x.observe(next, what)
}

// die is a step that SQLite refuses with SQLITE_BUSY, for the reason
// why: the worker dies of the error, as a worker that does not catch it
// does, and its transaction, if any, goes with its connection. Where the
// reason is a lock another connection holds, SQLite is asked to take the
// lock and must refuse.
func (m *move) die(why string) (string, error) {
	x, w := m.x, m.w
	if x.locked(m.s, m.i) {
		err := m.conn.Begin()
		x.stmts++
		if !errors.Is(err, queue.ErrBusy) {
			return "", fmt.Errorf("explore: %s's write should find the database locked, but SQLite answered %v", m.run, err)
		}
	}
	name := m.nextName()
	*w = wstate{pc: pcDone}
	m.next.busy = true
	m.note(DidBusy, event.Busy, 0, "")
	return fmt.Sprintf("%s: SQLITE_BUSY, database is locked (%s): the worker dies", name, why), nil
}

// nextName names the worker's next step, as its line would.
func (m *move) nextName() string {
	x, w := m.x, m.w
	switch w.pc {
	case pcClaim:
		return x.steps[w.cs].Name(x.id, m.run)
	case pcRelease:
		return x.release[w.cs].Name(x.id, m.run)
	case pcRenew:
		return fmt.Sprintf("UPDATE job %d SET lease WHERE run %s", x.id, m.run)
	case pcAck:
		return fmt.Sprintf("UPDATE job %d: done", x.id)
	}
	return "BEGIN IMMEDIATE"
}

// txBegin opens the claim's transaction with BEGIN IMMEDIATE: the write
// lock is the worker's before its first read.
func (m *move) txBegin() (string, error) {
	if err := m.conn.Begin(); err != nil {
		return "", err
	}
	m.x.stmts++
	m.w.pc, m.w.wlock = pcClaim, true
	m.did.Kind = event.Begin
	return "BEGIN IMMEDIATE, for the claim: the database's write lock is mine", nil
}

// txEnd commits the claim's transaction: what it wrote becomes visible
// to every connection, and the lock and the snapshot go.
func (m *move) txEnd() (string, error) {
	x, w := m.x, m.w
	if w.wlock {
		if err := m.conn.Commit(); err != nil {
			return "", err
		}
		x.stmts++
	}
	won, wrote := w.won, w.wlock
	w.snap, w.stale, w.wlock, w.won, w.cs = false, false, false, false, 0
	m.did.Kind = event.Commit
	switch {
	case won:
		w.pc = x.afterClaim()
		return "COMMIT: the claim is visible, the job is mine", nil
	case wrote:
		w.pc = pcDone
		return "COMMIT: the claim took nothing", nil
	}
	w.pc = pcDone
	return "COMMIT: nothing written", nil
}

// pcKinds is the trace's kind of a step by the worker's place, where the
// step itself does not say otherwise (a claim's step, an outcome).
var pcKinds = [pcDone]event.Kind{
	pcClaim: event.Select, pcReadBack: event.Select, pcRenew: event.Heartbeat,
	pcReceipt: event.Send, pcEffect: event.Effect, pcRemember: event.KeyInsert,
	pcAck: event.Ack, pcBegin: event.Begin, pcKey: event.Key, pcRow: event.Ledger,
	pcAckTx: event.Ack, pcCommit: event.Commit, pcRollback: event.Rollback,
	pcKeyBegin: event.Begin, pcKeyInsert: event.Key, pcKeyCommit: event.Commit,
	pcRelease: event.Lock, pcTxBegin: event.Begin, pcTxEnd: event.Commit,
}

// afterClaim is where a worker goes once the job is its own.
func (x *explorer) afterClaim() uint8 {
	switch {
	case x.flags.Fence && !x.flags.Ledger:
		return pcReadBack
	case x.flags.Ledger && x.flags.SeparateKey:
		return pcKeyBegin
	}
	return x.toWork()
}

// toWork is where a worker goes before its effect: the renewal with a
// heartbeat, else the effect.
func (x *explorer) toWork() uint8 {
	if x.flags.Heartbeat {
		return pcRenew
	}
	return x.toEffect()
}

// toEffect is the first step of the effect: the receipt, or the ledger's
// transaction.
func (x *explorer) toEffect() uint8 {
	if x.flags.Ledger {
		return pcBegin
	}
	return pcReceipt
}

// afterAck is where a worker goes once its ack took: its claim's release,
// or the end.
func (x *explorer) afterAck() uint8 {
	if len(x.release) > 0 {
		return pcRelease
	}
	return pcDone
}

// read reads the job row on the worker's connection.
func (m *move) read() (queue.Row, error) {
	m.x.stmts++
	return m.conn.Read(m.x.id)
}

// landed records one more effect and returns how many there are now.
func (m *move) landed() int {
	m.next.effects = min(m.s.effects+1, 2)
	if m.x.onEffect != nil {
		m.x.onEffect(m.i)
	}
	return m.next.effects
}

// claimStep runs the claim's step number cs: on to the next, or, after
// the last, to the work; or, where its condition fails, the end.
func (m *move) claimStep() (string, error) {
	x, w := m.x, m.w
	st := x.steps[w.cs]
	// In a deferred transaction the first read takes a snapshot, and the
	// first write the write lock (busyFate has said it can).
	if x.flags.Txn == queue.TxnDeferred && !w.wlock {
		switch {
		case st.Writes():
			if err := m.conn.Begin(); err != nil {
				return "", err
			}
			x.stmts++
			w.wlock, w.snap, w.stale = true, false, false
		case st.Shared() && !w.snap:
			w.snap, w.stale = true, false
		}
	}
	o, err := m.conn.RunStep(st, queue.Values{Job: x.id, Run: m.run, Now: 0, Until: lockUntil})
	if st.Shared() {
		x.stmts++
	}
	if err != nil {
		return "", err
	}
	mine := st.Decide(o, 0)
	switch {
	case !mine && x.flags.Txn.Open():
		w.pc, w.cs = pcTxEnd, w.cs+1
		m.note(DidLose, event.ClaimFailed, 0, "")
	case !mine:
		w.pc, w.cs = pcDone, 0
		m.note(DidLose, event.ClaimFailed, 0, "")
	case int(w.cs)+1 < len(x.steps):
		w.cs++
		m.note(DidStep, stepKind(st), 0, "")
	default:
		w.pc, w.cs = x.afterClaim(), 0
		if x.flags.Txn.Open() {
			w.pc, w.cs, w.won = pcTxEnd, uint8(len(x.steps)), true
		}
		m.note(DidClaim, event.Claim, 0, "")
	}
	return st.Line(x.id, m.run, o, mine), nil
}

// stepKind is the trace's kind of a claim's step that neither took the
// job nor lost it.
func stepKind(st queue.Step) event.Kind {
	switch {
	case st.Kind == queue.StepAwait:
		return event.Await
	case st.Reads != queue.ReadsChanges:
		return event.Select
	}
	return event.Lock
}

// releaseStep runs the claim's release step number cs, after the ack.
func (m *move) releaseStep() (string, error) {
	x, w := m.x, m.w
	st := x.release[w.cs]
	o, err := m.conn.RunStep(st, queue.Values{Job: x.id, Run: m.run})
	x.stmts++
	if err != nil {
		return "", err
	}
	w.cs++
	if int(w.cs) == len(x.release) {
		w.pc, w.cs = pcDone, 0
	}
	return st.Line(x.id, m.run, o, st.Decide(o, 0)), nil
}

// readBack reads the attempt back after the claim: the fencing token.
func (m *move) readBack() (string, error) {
	row, err := m.read()
	if err != nil {
		return "", err
	}
	m.w.attempt = uint8(row.Attempts)
	m.w.pc = pcReceipt
	if m.x.flags.Heartbeat {
		m.w.pc = pcRenew
	}
	return fmt.Sprintf("SELECT job %d: attempts=%d, the fencing token", m.x.id, row.Attempts), nil
}

// renew is the heartbeat's one renewal: a worker whose renewal changes no
// row stops before its effect.
func (m *move) renew() (string, error) {
	x, w := m.x, m.w
	ok, err := m.conn.Renew(x.id, m.run, 1)
	x.stmts++
	if err != nil {
		return "", err
	}
	if !ok {
		w.pc, w.attempt = pcDone, 0
		m.note(DidLeaseLost, event.LeaseLost, 0, "")
		return fmt.Sprintf("UPDATE job %d SET lease WHERE run %s: 0 rows changed, lease lost: stops before the effect", x.id, m.run), nil
	}
	said := fmt.Sprintf("UPDATE job %d SET lease WHERE run %s: 1 row changed, the lease is renewed", x.id, m.run)
	// What else the claim holds (a lock) is renewed in the same step:
	// timing is ignored, so only whether the run still holds it matters.
	for _, st := range x.claim.Renew() {
		o, err := m.conn.RunStep(st, queue.Values{Job: x.id, Run: m.run, Until: lockUntil})
		x.stmts++
		if err != nil {
			return "", err
		}
		if !st.Decide(o, 0) {
			w.pc, w.attempt = pcDone, 0
			m.note(DidLeaseLost, event.LeaseLost, 0, "")
			return said + "; " + st.Line(x.id, m.run, o, false) + ": lock lost, stops before the effect", nil
		}
		said += "; " + st.Line(x.id, m.run, o, true)
	}
	w.pc = x.toEffect()
	m.note(DidRenew, event.Heartbeat, 0, "")
	return said, nil
}

// receipt sends the receipt: the effect on arrival, unless the fence
// refuses it or, with a dedupe, the service's key step comes first.
func (m *move) receipt() (string, error) {
	x, w := m.x, m.w
	attempt := int(w.attempt)
	if !x.flags.Fence {
		row, err := m.read()
		if err != nil {
			return "", err
		}
		attempt = row.Attempts
	}
	head := fmt.Sprintf("attempt %d", attempt)
	if x.flags.Fence {
		// The service compares the token on arrival, before anything
		// else, in the same step as the key's first statement.
		if attempt < m.s.high {
			w.pc, w.attempt = pcAck, 0
			key, _ := x.keyOf(m.i, attempt)
			m.note(DidRefused, event.Send, attempt, key)
			return fmt.Sprintf("POST receipt (fencing token %d): refused, the service has seen token %d", attempt, m.s.high), nil
		}
		m.next.high = attempt
		head = fmt.Sprintf("fencing token %d", attempt)
	}
	w.attempt = 0
	if x.keys != nil {
		return m.keyStep(attempt, head)
	}
	w.pc = pcAck
	key, _ := x.keyOf(m.i, attempt)
	m.note(DidEffect, event.Send, attempt, key)
	return fmt.Sprintf("POST receipt (%s): the service records effect %d", head, m.landed()), nil
}

// effect is the effect of a receipt the service's key let through.
func (m *move) effect() (string, error) {
	m.note(DidEffect, event.Effect, int(m.w.attempt), "")
	what := fmt.Sprintf("receipt let through: the service records effect %d", m.landed())
	if m.x.svc.Dedupe == receipts.DedupeCheck {
		m.w.pc = pcRemember
		return what + ", the key not stored yet", nil
	}
	m.w.pc, m.w.attempt = pcAck, 0
	return what, nil
}

// remember is dedupe check's INSERT of the key, after the effect.
func (m *move) remember() (string, error) {
	x, w := m.x, m.w
	key, store := x.keyOf(m.i, int(w.attempt))
	if err := x.keys.Insert(key, 0, "first"); err != nil {
		return "", err
	}
	x.stmts++
	if store {
		m.next.keys = addKey(m.s.keys, key)
	}
	w.pc, w.attempt = pcAck, 0
	m.note(DidStep, event.KeyInsert, 0, key)
	m.did.Stored = true
	return fmt.Sprintf("receipt done: the service INSERTs key %s", key), nil
}

// ack is the ack outside a transaction.
func (m *move) ack() (string, error) {
	ok, err := m.x.ack(m.conn, m.run)
	if err != nil {
		return "", err
	}
	m.w.pc = pcDone
	m.note(DidAckRefused, event.AckRefused, 0, "")
	if ok {
		m.w.pc = m.x.afterAck()
		m.note(DidAck, event.Ack, 0, "")
	}
	return m.x.ackSaid(m.run, ok, "ack"), nil
}

// begin opens a ledger transaction: the key's own, or the effect's.
func (m *move) begin() (string, error) {
	x, w := m.x, m.w
	if err := m.conn.Begin(); err != nil {
		return "", err
	}
	x.stmts++
	switch {
	case w.pc == pcKeyBegin:
		w.pc = pcKeyInsert
		return "BEGIN IMMEDIATE, for the key alone: the database's write lock is mine", nil
	case x.flags.SeparateKey:
		w.pc = pcRow
		return "BEGIN IMMEDIATE, for the effect: the database's write lock is mine", nil
	}
	w.pc = pcKey
	return "BEGIN IMMEDIATE: the database's write lock is mine", nil
}

// claimKey inserts the event's key ON CONFLICT DO NOTHING in the open
// transaction and reports whether it took.
func (m *move) claimKey() (bool, error) {
	took, err := m.conn.ClaimKey(eventID, m.run)
	m.x.stmts++
	return took, err
}

// keyInsert is the key's INSERT in its own transaction (separate key).
func (m *move) keyInsert() (string, error) {
	took, err := m.claimKey()
	if err != nil {
		return "", err
	}
	m.w.pc, m.w.keyIn = pcKeyCommit, took
	if !took {
		m.note(DidKeyHit, event.KeyHit, 0, eventID)
	}
	if took {
		return fmt.Sprintf("INSERT INTO processed_keys %s ON CONFLICT DO NOTHING: 1 row changed (not yet committed)", eventID), nil
	}
	return fmt.Sprintf("INSERT INTO processed_keys %s ON CONFLICT DO NOTHING: 0 rows changed, the key is taken", eventID), nil
}

// keyCommit commits the key alone: the work is the worker's, or, the key
// taken, it acks outside a transaction.
func (m *move) keyCommit() (string, error) {
	x, w := m.x, m.w
	if err := m.conn.Commit(); err != nil {
		return "", err
	}
	x.stmts++
	if !w.keyIn {
		w.pc = pcAck
		return "COMMIT: nothing written, the key was taken: no ledger row", nil
	}
	m.next.keys = addKey(m.s.keys, eventID)
	w.pc, w.keyIn = x.toWork(), false
	m.note(DidStep, event.Commit, 0, eventID)
	m.did.Stored = true
	return "COMMIT: the key alone, the work is mine", nil
}

// key is the key's INSERT inside the effect's transaction.
func (m *move) key() (string, error) {
	took, err := m.claimKey()
	if err != nil {
		return "", err
	}
	if !took {
		m.w.pc = pcAckTx
		m.note(DidKeyHit, event.KeyHit, 0, eventID)
		return fmt.Sprintf("INSERT INTO processed_keys %s ON CONFLICT DO NOTHING: 0 rows changed, the key is taken: no ledger row", eventID), nil
	}
	m.w.pc, m.w.keyIn = pcRow, true
	return fmt.Sprintf("INSERT INTO processed_keys %s ON CONFLICT DO NOTHING: 1 row changed (not yet committed)", eventID), nil
}

// row inserts the ledger row. The worker's own connection sees its own
// claim: the attempt only labels the row.
func (m *move) row() (string, error) {
	x := m.x
	row, err := m.read()
	if err != nil {
		return "", err
	}
	if err := m.conn.AddLedger(queue.LedgerRow{Key: eventID, Order: order, Job: x.id, Run: m.run, Attempt: row.Attempts}); err != nil {
		return "", err
	}
	x.stmts++
	m.w.pc, m.w.row = pcAckTx, true
	m.note(DidStep, event.Ledger, row.Attempts, eventID)
	return fmt.Sprintf("INSERT INTO ledger: %s, attempt %d (not yet committed)", order, row.Attempts), nil
}

// ackTx is the ack inside the transaction; a refused fenced ack rolls it
// back next.
func (m *move) ackTx() (string, error) {
	ok, err := m.x.ack(m.conn, m.run)
	if err != nil {
		return "", err
	}
	m.w.pc = pcCommit
	if !ok {
		m.w.pc = pcRollback
		m.note(DidAckRefused, event.AckRefused, 0, "")
	}
	return m.x.ackSaid(m.run, ok, "not yet committed"), nil
}

// commit commits the effect's transaction: the row (an effect), the key
// and the ack land together.
func (m *move) commit() (string, error) {
	x, w := m.x, m.w
	if err := m.conn.Commit(); err != nil {
		return "", err
	}
	x.stmts++
	what := "COMMIT: the ack alone"
	m.note(DidAck, event.Commit, 0, "")
	if w.row {
		m.note(DidLedger, event.Commit, 0, eventID)
	}
	if w.keyIn {
		m.next.keys = addKey(m.s.keys, eventID)
		m.did.Key, m.did.Stored = eventID, true
	}
	switch {
	case w.row && x.flags.SeparateKey:
		what = fmt.Sprintf("COMMIT: the ledger row and the ack land together, effect %d", m.landed())
	case w.row:
		what = fmt.Sprintf("COMMIT: the key, the ledger row and the ack land together, effect %d", m.landed())
	}
	w.pc, w.keyIn, w.row = x.afterAck(), false, false
	return what, nil
}

// rollback ends a transaction whose fenced ack was refused.
func (m *move) rollback() (string, error) {
	if err := m.conn.Rollback(); err != nil {
		return "", err
	}
	m.x.stmts++
	m.w.pc, m.w.keyIn, m.w.row = pcDone, false, false
	if m.x.flags.SeparateKey {
		return "ROLLBACK: the ledger row goes with the refused ack; the key, committed alone, stays", nil
	}
	return "ROLLBACK: the key and the ledger row go with the refused ack", nil
}

// keyStep is the service's first statement on the worker's key, at its
// receipt of attempt: the check's SELECT or the claim's INSERT. token
// names what the receipt carried (its attempt, or its fencing token).
func (m *move) keyStep(attempt int, token string) (string, error) {
	x, w := m.x, m.w
	key, store := x.keyOf(m.i, attempt)
	head := fmt.Sprintf("POST receipt (%s, key %s): ", token, key)
	switch x.svc.Dedupe {
	case receipts.DedupeCheck:
		_, found, err := x.keys.Check(key, 0, 0)
		x.stmts++
		if err != nil {
			return "", err
		}
		if found {
			w.pc = pcAck
			m.note(DidReplayed, event.Send, attempt, key)
			return head + "the service SELECTs the key: stored, so it replays the first answer", nil
		}
		w.pc, w.attempt = pcEffect, uint8(attempt)
		m.note(DidSend, event.Send, attempt, key)
		return head + "the service SELECTs the key: absent", nil
	case receipts.DedupeClaim:
		took, err := x.keys.Claim(key, 0, 0, "first")
		x.stmts++
		if err != nil {
			return "", err
		}
		if !took {
			w.pc = pcAck
			m.note(DidReplayed, event.Send, attempt, key)
			return head + "the service INSERTs the key ON CONFLICT DO NOTHING: 0 rows changed, so it replays the first answer", nil
		}
		if store {
			m.next.keys = addKey(m.next.keys, key)
		}
		w.pc = pcEffect
		m.note(DidSend, event.Send, attempt, key)
		m.did.Stored = true
		return head + "the service INSERTs the key ON CONFLICT DO NOTHING: 1 row changed", nil
	}
	return "", fmt.Errorf("explore: dedupe %s has no steps here", x.svc.Dedupe)
}

// ack runs a worker's ack: plain, or, with a fence, conditional on the
// run; ok says whether it changed the job (a plain ack does, a race's
// job never being in the dead-letter queue).
func (x *explorer) ack(conn *queue.Conn, run string) (ok bool, err error) {
	x.stmts++
	if !x.flags.Fence {
		return conn.Ack(x.id)
	}
	return conn.AckRun(x.id, run)
}

// ackSaid is the step line of an ack that ok says took or not; note
// ends a line that took ("ack", or "not yet committed" in a
// transaction).
func (x *explorer) ackSaid(run string, ok bool, note string) string {
	switch {
	case !x.flags.Fence:
		return fmt.Sprintf("UPDATE job %d: done (%s)", x.id, note)
	case ok:
		return fmt.Sprintf("UPDATE job %d: done WHERE run %s: 1 row changed (%s)", x.id, run, note)
	default:
		return fmt.Sprintf("UPDATE job %d: done WHERE run %s: 0 rows changed, the ack is refused", x.id, run)
	}
}

// keyOf returns worker i's key for a receipt of attempt, and whether the
// state keeps it (a run key is the worker's own: see the package doc).
func (x *explorer) keyOf(i, attempt int) (string, bool) {
	key, _ := x.svc.Key.Of(receipts.Delivery{Event: eventID, Job: x.id, Order: order, Run: fmt.Sprintf("W%d", i+1), Attempt: attempt})
	return key, x.svc.Key != receipts.KeyRun
}

// addKey returns keys with key added, sorted.
func addKey(keys []string, key string) []string {
	if slices.Contains(keys, key) {
		return keys
	}
	out := append(slices.Clone(keys), key)
	slices.Sort(out)
	return out
}

// observe reads the committed row back into next after a step: its status
// and attempts, and with a heartbeat or a fence which worker's run it holds.
func (x *explorer) observe(next state, what string) (state, string, error) {
	row, err := x.shell.Read(x.id)
	x.stmts++
	if err != nil {
		return next, "", err
	}
	next.status, next.attempts = row.Status, row.Attempts
	if x.trackRun() {
		for i := range next.ws {
			next.ws[i].holds = row.Run == runOf(i)
		}
	}
	if x.claim.Locks() {
		locks, err := x.shell.Locks()
		x.stmts++
		if err != nil {
			return next, "", err
		}
		for i := range next.ws {
			next.ws[i].lock = len(locks) > 0 && locks[0].Owner == runOf(i)
		}
	}
	return next, what, nil
}
