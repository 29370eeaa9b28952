// race.mjs runs, on the official SQLite build, the SQL that one
// `race read N` of twice runs on its own SQLite: one shared in-memory
// database with the jobs table, a connection for the shell and one for
// each of two workers, and per race: empty the table, add the job, then
// the read claim of both workers (the SELECT of the row, then the
// unconditional UPDATE that takes it when the row looked claimable), the
// read-back, and the ack. It is the same SQL as runtime/queue's
// statements; the statements are prepared once per connection and reused,
// as twice does.
//
// The order is one interleaving of the two workers (both read before
// either takes), so every race ends with two runs of the job. There is no
// simulation around it: this is the work a plain SQLite playground does.

const schema = `CREATE TABLE jobs (
	id       INTEGER PRIMARY KEY,
	order_id TEXT NOT NULL,
	status   TEXT NOT NULL DEFAULT 'queued',
	attempts INTEGER NOT NULL DEFAULT 0,
	run      TEXT,
	lease    INTEGER
)`;

const sql = {
  reset: "DELETE FROM jobs",
  insert: "INSERT INTO jobs (order_id) VALUES (?)",
  read: "SELECT status, attempts, lease, order_id, run FROM jobs WHERE id = ?",
  take: "UPDATE jobs SET status = 'running', run = ?, attempts = attempts + 1, lease = ? WHERE id = ?",
  ack: "UPDATE jobs SET status = 'done', lease = NULL WHERE id = ?",
};

const lease = 30000000; // µs, as twice's default lease

let seq = 0;

// A Conn is one connection with its statements prepared on first use.
class Conn {
  constructor(sqlite3, name) {
    this.capi = sqlite3.capi;
    this.db = new sqlite3.oo1.DB(name, "c");
    this.stmts = {};
  }
  stmt(key) {
    return this.stmts[key] || (this.stmts[key] = this.db.prepare(sql[key]));
  }
  exec(key, args) {
    const s = this.stmt(key);
    if (args.length) s.bind(args);
    s.stepReset();
    return this.db.changes();
  }
  lastID() {
    return Number(this.capi.sqlite3_last_insert_rowid(this.db.pointer));
  }
  read(id) {
    const s = this.stmt("read").bind([id]);
    try {
      if (!s.step()) return null;
      return { status: s.get(0), attempts: s.get(1), lease: s.get(2), order: s.get(3), run: s.get(4) };
    } finally {
      s.reset(true);
    }
  }
}

function claimable(row, now) {
  return row !== null && (row.status === "queued" || (row.lease !== null && row.lease < now));
}

// open creates the shared database (memdb: a leading slash shares it among
// the connections of this module) and its three connections.
export function open(sqlite3) {
  const name = "file:/twice-peer-" + ++seq + "?vfs=memdb";
  const shell = new Conn(sqlite3, name);
  shell.db.exec(schema);
  return { shell, w1: new Conn(sqlite3, name), w2: new Conn(sqlite3, name) };
}

// raceRead runs n races on db (from open) and returns the tally as text.
export function raceRead(db, n) {
  const { shell, w1, w2 } = db;
  let twice = 0;
  for (let i = 0; i < n; i++) {
    const now = i * 1000000;
    shell.exec("reset", []);
    shell.exec("insert", ["order-77"]);
    const id = shell.lastID();
    const r1 = w1.read(id);
    const r2 = w2.read(id);
    let runs = 0;
    if (claimable(r1, now) && w1.exec("take", ["aaaaaaaa", now + lease, id]) === 1) runs++;
    if (claimable(r2, now) && w2.exec("take", ["bbbbbbbb", now + lease, id]) === 1) runs++;
    w1.read(id);
    w2.read(id);
    w1.exec("ack", [id]);
    w2.exec("ack", [id]);
    if (runs === 2) twice++;
  }
  return "claim=read: two effects in " + twice + " of " + n + " races";
}
