package queue

import "github.com/twice-lab/twice/runtime/sqldb"

// The release a lock claim may be given instead of its own: a DELETE of
// the job's lock row whoever owns it, as a Redis lock released with a
// plain DEL is. A worker whose lock lapsed while it worked deletes, with
// it, the lock of the run that took the job over.

// ModelReleaseAnyLock is what the release that does not check the owner
// does, for a model that runs no SQL: the lock row goes, whoever owns it.
// Its value stands apart from the list of claim.go.
const ModelReleaseAnyLock Model = 128

// stmtLockReleaseAny deletes the job's lock row, whoever owns it.
const stmtLockReleaseAny = `DELETE FROM locks WHERE job = ?`

var stepLockReleaseAny = Step{
	SQL: stmtLockReleaseAny, Args: []Arg{ArgJob}, Mine: Changed, Model: ModelReleaseAnyLock,
	Label: "DELETE FROM locks WHERE job = %[1]d (whoever owns it)", Took: "a lock row deleted",
	Lost: "no lock row to delete",
}

// ReleaseAny returns the claim's release steps with the lock's DELETE
// made unconditional: for a claim that takes a lock, the release that
// does not check the owner; for any other claim, none, as Release.
func (c Claim) ReleaseAny() []Step {
	var out []Step
	for _, st := range c.Release() {
		if st.Model == ModelReleaseLock {
			st = stepLockReleaseAny
		}
		out = append(out, st)
	}
	return out
}

// stmtDeadLetter moves a job its run holds to the dead-letter queue: a
// status no claim takes, with no lease.
const stmtDeadLetter = `UPDATE jobs SET status = 'dead', lease = NULL WHERE id = ? AND run = ?`

// DeadLetter moves job id, held by run, to the dead-letter queue, as a
// broker's retry limit does with a message received too often; it
// reports whether the row changed (false: another run holds the job).
// [Conn.Requeue] is the re-drive that puts it back.
func (c *Conn) DeadLetter(id int64, run string) (bool, error) {
	n, err := c.exec(stmtDeadLetter, func(s sqldb.Stmt) {
		s.BindInt64(1, id)
		s.BindText(2, run)
	})
	return n == 1, err
}
