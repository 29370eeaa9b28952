// worker.js holds the twice runtime, compiled to WebAssembly, off the page's
// main thread: two modules, the Go program (twice.wasm) and the SQLite it
// runs its queue on (sqlite3.wasm, compiled from C), which the Go program
// calls directly (see start). runtime-client.js talks to it by messages; it
// starts it too,
// unless the loader, twice.js, already did (a block in view as the page
// loaded): then twice.js sends init, keeps what this worker answers, and
// the page's runtime replays that when it takes the worker over.
//
//   in:  {type: "init", wasmExec: URL, wasm: URL, sqlite: URL}   (or the same, as
//                                           JSON, in the worker's name: see below)
//   out: {type: "progress", loaded, wire}   while the modules download: loaded
//                                           counts their bytes, wire is the sum
//                                           of the responses' Content-Length (the
//                                           compressed size, when they came
//                                           compressed; 0 when unknown)
//        {type: "ready", marks, info}         once the Go program is running
//        {type: "fatal", message}             when it cannot load
//        {type: "warmed"}                     the warm-up after "ready" (see warm)
//                                           is over and nothing else was asked
//                                           for: the page may use the network
//                                           and the CPU (offline.js registers
//                                           the service worker then)
//   in:  {type: "run", id, script, seed, timeline, keep, auto}   timeline: draw the SVG;
//                                           keep: hold this run's Result for a
//                                           "timeline" message (the last one
//                                           only); auto: a run nobody pressed
//                                           Run for (a link), under the
//                                           runtime's small budget for those
//   out: {type: "ran", id, done, of, what}   during a run, at most every 50 ms:
//                                           done of a command's of races (what:
//                                           "races") or lease runs ("lease runs")
//        {type: "result", id, json, ms, marks, info} json is the Result as JSON text
//        {type: "error", id, message}
//        {type: "died", id, message}        the Go program ended during the run
//                                           (out of memory, a crash): this worker
//                                           is of no further use
//   in:  {type: "cost", id, script}      the parser's cost estimate, no run
//   out: {type: "cost", id, json}        json: {"heavy": bool, "what": TEXT}
//   in:  {type: "claims", id, script}    the script's claim and its text with
//                                        each claim (the claim toggle), no run
//   out: {type: "claims", id, json}      json: {"claim", "sides", "note",
//                                        "toggle": [{claim, script}]}, or
//                                        with "error"
//   in:  {type: "check", id, fix, check, auto}  one check of a case (check:
//                                        {info, script}, from the page's case
//                                        data) after the reader's fix, run and
//                                        judged by the runtime (twiceCheck);
//                                        auto: under the small budget, as a
//                                        replayed link's checks on load
//   out: {type: "checked", id, verdict}  verdict: {name, pass, heavy, line},
//                                        or {refused} (the fix is not one),
//                                        or {error}
//   in:  {type: "timeline", id, of}      the timeline of run of (sent with keep)
//   out: {type: "result", id, json}      json: that run's Result again, with its
//                                        timeline drawn now; "" when this worker
//                                        no longer holds it (a later kept run,
//                                        or a fresh Go program)
//
// marks are the start-up's phases as epoch milliseconds (performance.timeOrigin
// + performance.now(), comparable with the page's clock): worker (this script
// started), wasmExec (wasm_exec.js loaded; the module's request is already
// out), fetch (both responses' headers in), downloaded, compiled (both),
// instantiated, goReady (twiceRun installed), run (first run started), ran
// (first run finished). They are also performance.mark()s, for DevTools.
// info says how the modules came: wasmTransfer, their bytes over the
// network (0 from the HTTP cache); and, after a run, wasmMemory and
// sqliteMemory: the size of each module's linear memory in bytes (the Go
// heap; SQLite's databases and caches).
//
// Runs are answered in the order they arrive (the page sends one at a time,
// so that a newer Run can replace a queued one, and Stop terminates this
// worker and starts another). The compiled module is kept,
// so if the Go program ever exits (a panic), the next run starts a fresh
// instance of it instead of failing forever.
"use strict";

let loading = null;
let compiled = null;
let compiledSQLite = null;
let go = null;
let memory = null;
let sqliteMemory = null;
let waiting = 0; // runs received and not yet answered
let keptID = 0; // the run whose Result the Go program keeps (keep: true)
const marks = {};
const info = {};
mark("worker");

function mark(name) {
  if (name in marks) return;
  marks[name] = performance.timeOrigin + performance.now();
  if (performance.mark) performance.mark("twice:" + name);
}

// ranSoFar is the progress callback of run id: the runtime calls it after
// each race and each lease run; it tells the page at most every 50 ms,
// and always when a command's last one is done, so that Stop can say how
// far the run had got. The Go program holds this thread while it runs,
// but a message posted meanwhile reaches the page at once.
function ranSoFar(id) {
  let last = 0;
  return (done, of, what) => {
    const now = performance.now();
    if (done < of && now - last < 50) return;
    last = now;
    self.postMessage({ type: "ran", id, done, of, what });
  };
}

self.onmessage = async (e) => {
  const m = e.data;
  if (m.type === "init") {
    if (loading === null) {
      loading = load(m);
      loading.then(
        () => {
          self.postMessage({ type: "ready", marks, info });
          setTimeout(warm, WARM_AFTER, 0);
        },
        (err) => self.postMessage({ type: "fatal", message: "cannot load the runtime: " + message(err) })
      );
    }
    return;
  }
  if (m.type === "cost" || m.type === "claims") {
    waiting++;
    try {
      await loading;
      if (go === null || go.exited) await start();
      const json = m.type === "cost" ? self.twiceCost(m.script) : self.twiceClaims(m.script);
      if (typeof json !== "string" || go.exited) {
        self.postMessage({ type: "died", id: m.id, message: "the runtime stopped: it ran out of memory or crashed" });
        return;
      }
      self.postMessage({ type: m.type, id: m.id, json });
    } catch (err) {
      self.postMessage({ type: "error", id: m.id, message: "the runtime failed: " + message(err) });
    } finally {
      waiting--;
    }
    return;
  }
  if (m.type === "check") return check(m);
  if (m.type === "timeline") {
    waiting++;
    try {
      await loading;
      const held = go !== null && !go.exited && keptID !== 0 && keptID === m.of;
      const json = held ? self.twiceTimeline() : "";
      if (typeof json !== "string" || (go !== null && go.exited)) {
        self.postMessage({ type: "died", id: m.id, message: "the runtime stopped while drawing the timeline: it ran out of memory or crashed" });
        return;
      }
      self.postMessage({ type: "result", id: m.id, json, ms: 0 });
    } catch (err) {
      self.postMessage({ type: "error", id: m.id, message: "the runtime failed: " + message(err) });
    } finally {
      waiting--;
    }
    return;
  }
  if (m.type === "run") {
    waiting++;
    try {
      await loading;
      if (go === null || go.exited) await start();
      mark("run");
      const t0 = performance.now();
      const json = self.twiceRun(m.script, { seed: m.seed, timeline: !!m.timeline, keep: !!m.keep, auto: !!m.auto, progress: ranSoFar(m.id) });
      const ms = performance.now() - t0;
      if (typeof json !== "string" || go.exited) {
        // When the Go program dies inside a call (it ran out of memory, or
        // crashed), the call returns undefined and the program is gone.
        self.postMessage({ type: "died", id: m.id, message: "the runtime stopped in the middle of this run: it ran out of memory or crashed" });
        return;
      }
      mark("ran");
      if (m.keep) keptID = m.id;
      info.wasmMemory = memory.buffer.byteLength;
      if (sqliteMemory) info.sqliteMemory = sqliteMemory.buffer.byteLength;
      self.postMessage({ type: "result", id: m.id, json, ms, marks, info });
    } catch (err) {
      self.postMessage({ type: "error", id: m.id, message: "the runtime failed: " + message(err) });
    } finally {
      waiting--;
    }
  }
};

// check runs one check of a case in the runtime and answers its verdict.
async function check(m) {
  waiting++;
  try {
    await loading;
    if (go === null || go.exited) await start();
    const v = self.twiceCheck(m.fix, m.check, { auto: !!m.auto, progress: ranSoFar(m.id) });
    if (!v || go.exited) {
      self.postMessage({ type: "died", id: m.id, message: "the runtime stopped in the middle of this check: it ran out of memory or crashed" });
      return;
    }
    self.postMessage({ type: "checked", id: m.id, verdict: { name: v.name, pass: v.pass, heavy: v.heavy, line: v.line, refused: v.refused, error: v.error } });
  } catch (err) {
    self.postMessage({ type: "error", id: m.id, message: "the runtime failed: " + message(err) });
  } finally {
    waiting--;
  }
}

// While the reader reads, warm runs the paths a first Run takes, a piece at
// a time and only while no run waits, so that V8 has compiled them by the
// time Run is pressed: the first run after start-up otherwise spends
// about half a second compiling SQLite's code (docs/PERFORMANCE.md). The
// results are thrown away; each run starts from a fresh state. When the
// last piece is done (or one fails: the next real run reports it), it says
// "warmed"; when a real run comes first, it stops there and says nothing,
// and that run's answer is what the page waits for instead.
//
// A piece cannot be interrupted, and a run asked for meanwhile waits for
// it. So the warm-up begins WARM_AFTER ms after "ready", not at once: a
// Run pressed as the page loads is usually sent just then (the page's
// thread was busy setting up the block), and it goes first. The first
// piece, the one a reader's early Run is likeliest to meet, draws no
// timeline (a first Run asks for none either); the last one does.
const WARM_AFTER = 150;
const warmups = [
  { script: "reset\nadd order-1\nwork --job 1 --trace\njobs\neffects\ncat worker.log\n", timeline: false },
  { script: "race read 20\neffects\n", timeline: false },
  { script: "race atomic 20\neffects\n", timeline: true },
];

function warm(i) {
  if (waiting > 0 || go === null || go.exited) return;
  if (i >= warmups.length) {
    self.postMessage({ type: "warmed" });
    return;
  }
  try {
    self.twiceRun(warmups[i].script, { seed: "", timeline: warmups[i].timeline });
  } catch {
    self.postMessage({ type: "warmed" });
    return; // the next real run reports it
  }
  mark("warm" + i);
  setTimeout(warm, 0, i + 1);
}

// The loader (twice.js) also gives its worker the init message as its
// name, in JSON: read here, the download starts as this script runs. A
// message to a worker that has just started is delivered by the page's
// main thread when it gets to it; on a slow processor, busy with the
// page, that was up to 0.75 s later (docs/PERFORMANCE.md, "A fifth
// round"). The message still comes, and changes nothing.
if (typeof self.name === "string" && self.name.startsWith("{")) {
  try {
    self.onmessage(/** @type {any} */ ({ data: JSON.parse(self.name) }));
  } catch {
    // not ours: the message will say
  }
}

function message(err) {
  return err && err.message ? err.message : String(err);
}

async function load(m) {
  // The server serves this file with the Go toolchain's wasm_exec.js in
  // front of it (the one of the Go that built the module), so Go is
  // already defined: a separate importScripts would block this thread on
  // one more request (60 to 330 ms on a cold page, measured) while the
  // modules' streaming compiles, which this thread feeds, wait. Served
  // alone, it fetches wasm_exec.js itself, after sending the modules'
  // requests. Both modules download and compile at once.
  const urls = m.sqlite ? [m.wasm, m.sqlite] : [m.wasm];
  // The single-file build hands the modules' bytes themselves (an
  // ArrayBuffer): a page opened from file:// can fetch nothing.
  const fetching = urls.map((u) => (typeof u === "string" ? fetch(u) : Promise.resolve(new Response(u, { headers: { "Content-Type": "application/wasm" } }))));
  fetching.forEach((f) => f.catch(() => {})); // a failure is reported below, or importScripts' instead
  if (typeof self.Go !== "function") importScripts(m.wasmExec);
  mark("wasmExec");
  const resps = await Promise.all(fetching);
  resps.forEach((r, i) => {
    if (!r.ok) throw new Error(String(urls[i]) + ": HTTP " + r.status);
  });
  mark("fetch");
  const wire = resps.every((r) => Number(r.headers.get("Content-Length")) > 0) ? resps.reduce((n, r) => n + Number(r.headers.get("Content-Length")), 0) : 0;
  const loaded = resps.map(() => 0);
  let last = 0;
  const progress = (i, n, done) => {
    loaded[i] = n;
    const now = performance.now();
    if (!done && now - last <= 100) return;
    last = now;
    self.postMessage({ type: "progress", loaded: loaded.reduce((a, b) => a + b, 0), wire });
  };
  [compiled, compiledSQLite = null] = await Promise.all(resps.map((r, i) => compileCounting(r, (n, done) => progress(i, n, done))));
  mark("downloaded");
  mark("compiled");
  info.wasmTransfer = resps.reduce((n, r) => n + transferSize(r.url), 0);
  await start();
}

// compileCounting compiles a module from its response as the bytes
// arrive, and calls counted(n, done) with the bytes seen so far (after any
// Content-Encoding is undone). Compiling the fetched Response itself (not
// a Response made of its body) lets Chromium keep the compiled code in its
// code cache next to the HTTP cache entry; a host that sends another
// Content-Type gets a Response of our own, which works but is not cached.
async function compileCounting(resp, counted) {
  const type = (resp.headers.get("Content-Type") || "").split(";")[0].trim().toLowerCase();
  let source, counting;
  if (type === "application/wasm") {
    source = resp;
    counting = resp.clone().body;
  } else {
    let compiling;
    [counting, compiling] = resp.body.tee();
    source = new Response(compiling, { headers: { "Content-Type": "application/wasm" } });
  }
  const count = (async () => {
    const reader = counting.getReader();
    let n = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      n += value.byteLength;
      counted(n, false);
    }
    counted(n, true);
  })();
  const [module] = await Promise.all([WebAssembly.compileStreaming(source), count]);
  return module;
}

// transferSize is what a response's bytes cost the network (Resource
// Timing): 0 when the HTTP cache answered.
function transferSize(url) {
  const e = performance.getEntriesByName && performance.getEntriesByName(url)[0];
  return e ? e.transferSize : 0;
}

// start instantiates the modules afresh: SQLite first, which owns its
// memory and needs nothing, then the Go program, which imports SQLite's
// exports themselves (each call goes from one module to the other with
// no JavaScript in between) and two copies between the two memories,
// the only thing the modules cannot do for each other. Addresses arrive
// as signed 32-bit numbers.
async function start() {
  keptID = 0;
  go = new Go();
  if (compiledSQLite) {
    const sqlite = await WebAssembly.instantiate(compiledSQLite, {});
    sqlite.exports._initialize();
    const sq = sqlite.exports.memory;
    sqliteMemory = sq;
    go.importObject.sqlite3 = sqlite.exports;
    go.importObject.sqlite3_copy = {
      write: (dst, src, n) => new Uint8Array(sq.buffer, dst >>> 0, n).set(new Uint8Array(memory.buffer, src >>> 0, n)),
      read: (dst, src, n) => new Uint8Array(memory.buffer, dst >>> 0, n).set(new Uint8Array(sq.buffer, src >>> 0, n)),
    };
  }
  const instance = await WebAssembly.instantiate(compiled, go.importObject);
  memory = instance.exports.mem;
  mark("instantiated");
  go.run(instance);
  mark("goReady");
  if (typeof self.twiceRun !== "function") {
    throw new Error("the module did not install twiceRun");
  }
}
