// worker.mjs holds the official SQLite build (npm @sqlite.org/sqlite-wasm,
// copied next to this file as sqlite-wasm/ by docs/perf/run.sh) off the
// page's main thread, as twice's worker.js holds twice's module:
//
//   out: {type: "ready", marks}           once SQLite is initialized
//        {type: "fatal", message}         when it cannot load
//   in:  {type: "run", id, races}
//   out: {type: "result", id, text, ms, marks}
//
// marks are epoch milliseconds (performance.timeOrigin + performance.now(),
// comparable with the page's clock), named as twice's worker names its
// phases where they mean the same: worker (this module runs), imported
// (the package's JavaScript loaded), goReady (SQLite's module downloaded,
// compiled, instantiated and initialized: ready to run SQL), run (the
// first run started), ran (it finished).
const marks = {};
function mark(name) {
  if (name in marks) return;
  marks[name] = performance.timeOrigin + performance.now();
  performance.mark("peer:" + name);
}
mark("worker");

const loading = (async () => {
  const [{ default: sqlite3InitModule }, race] = await Promise.all([import("./sqlite-wasm/index.mjs"), import("./race.mjs")]);
  mark("imported");
  const sqlite3 = await sqlite3InitModule({ print: () => {}, printErr: () => {} });
  mark("goReady");
  return { sqlite3, race };
})();

loading.then(
  () => self.postMessage({ type: "ready", marks }),
  (err) => self.postMessage({ type: "fatal", message: String(err && err.message ? err.message : err) })
);

let db = null;

self.onmessage = async (e) => {
  const m = e.data;
  if (m.type !== "run") return;
  const { sqlite3, race } = await loading;
  mark("run");
  const t0 = performance.now();
  if (db === null) db = race.open(sqlite3);
  const text = race.raceRead(db, m.races);
  const ms = performance.now() - t0;
  mark("ran");
  self.postMessage({ type: "result", id: m.id, text, ms, marks });
};
