// runtime-client.js is the page's side of the runtime: one Web Worker per
// page (worker.js) holding the twice runtime compiled to WebAssembly. The
// Runtime class starts the worker, reports the download's progress to its
// listeners, and keeps the queue of runs: one at a time, a newer Run
// replacing a queued one, Stop terminating the worker and handing the other
// blocks' runs to a fresh one. A worker whose Go program died in a run
// (out of memory, a crash) is dropped the same way: its memory is freed,
// the run that killed it fails with a message in words ({died: true}), and
// the other blocks' runs go on in a fresh worker.
//
// Nothing happens at import time: the worker starts on the first
// getRuntime(), unless twice.js started it already (a block was in view as
// the page loaded; see there): then playground.js's start hands it to
// adopt, and the page's first Runtime takes it over instead of starting
// its own.

import { CONFIG, assetURL } from "./config.js";

// runtime is the page's runtime: null until a block needs one, and again
// after it failed or was stopped, so that the next Run starts afresh.
let runtime = null;

// keepRuntime asks the site's service worker (see sw.js) to keep the
// runtime that this page has just loaded, for offline use. Only on the
// site's own pages: elsewhere a service worker, if any, is the host's.
function keepRuntime() {
  const html = document.documentElement;
  if (html.dataset.twiceRoot === undefined || !("serviceWorker" in navigator)) return;
  navigator.serviceWorker.ready.then((reg) => reg.active && reg.active.postMessage({ type: "twice:keep-runtime" }), () => {});
}

// settle tells the site's offline.js that the page's first runtime work is
// over, so that it registers the service worker now (its install fetches
// the site's shell, which would compete with the first Run for the CPU and
// the network): the first run's answer, the worker's warm-up done, or the
// runtime failed. Once per page, and only on the site's own pages (those
// that set data-twice-root; elsewhere there is no offline.js): it sets
// data-twice-settled on the root element, for an offline.js that runs
// later, and fires twice:settled on the document.
let settled = false;
function settle(why) {
  const html = document.documentElement;
  if (settled || html.dataset.twiceRoot === undefined) return;
  settled = true;
  html.dataset.twiceSettled = why;
  document.dispatchEvent(new CustomEvent("twice:settled", { detail: why }));
}

// Runtime owns the worker that holds the wasm modules. Loading starts when
// it is created; listeners hear about progress.
//
// early, when given, is the worker twice.js started (see adopt): the
// runtime takes it over instead of starting one, counts its creation as
// its own (created, in the timings), and replays what it said meanwhile.
export class Runtime {
  constructor(early) {
    this.listeners = new Set();
    this.queue = []; // runs not yet sent to the worker
    this.current = null; // the run the worker is doing
    this.nextID = 1;
    this.state = "loading";
    this.loaded = 0;
    this.total = CONFIG.wasmSize;
    this.wire = 0; // the modules' size over the network, when the responses say
    this.error = "";
    this.marks = null;
    this.created = early ? early.created : performance.timeOrigin + performance.now();
    const workerURL = assetURL(CONFIG.worker);
    let worker;
    if (early) {
      worker = early.worker;
    } else if (workerURL.startsWith("blob:") || new URL(workerURL).origin === location.origin) {
      // A blob: URL is the page's own (the single-file build's worker).
      worker = new Worker(workerURL);
    } else {
      // A page on another origin cannot start our worker by URL; a tiny
      // worker of its own imports ours (the wasm then needs CORS).
      const boot = "importScripts(" + JSON.stringify(workerURL) + ");";
      worker = new Worker(URL.createObjectURL(new Blob([boot], { type: "text/javascript" })));
    }
    this.worker = worker;
    worker.onmessage = (e) => this.onMessage(e.data);
    worker.onerror = (e) => {
      e.preventDefault();
      this.onError(e.message);
    };
    if (!early) {
      // The single-file build keeps the modules in the page: its loader
      // (single.js) decompresses them into bytes, handed over as copies.
      const inline = /** @type {any} */ (globalThis).__twiceInline;
      if (inline) {
        inline.then(
          (b) => worker.postMessage({ type: "init", wasmExec: "", wasm: b.wasm.slice(0), sqlite: b.sqlite.slice(0) }),
          (/** @type {any} */ e) => this.onError("the runtime in this file could not be unpacked: " + (e && e.message ? e.message : e))
        );
        return;
      }
      worker.postMessage({ type: "init", wasmExec: assetURL(CONFIG.wasmExec), wasm: assetURL(CONFIG.wasm), sqlite: assetURL(CONFIG.sqlite) });
      return;
    }
    // What the early worker said before this runtime existed (progress,
    // ready, fatal, an error), in order, and before anything it says from
    // now on: those are tasks, and this runs first, as a microtask once
    // the caller has made this the page's runtime (so that a failure
    // replayed here clears it, as any failure does).
    queueMicrotask(() => {
      for (const s of early.said.splice(0)) {
        if (this.state === "failed") break;
        if ("error" in s) this.onError(s.error);
        else this.onMessage(s.data);
      }
    });
  }

  // onError handles the worker's error event (an uncaught error in it, or a
  // script it could not load).
  onError(message) {
    if (this.state === "ready" && this.current) this.died(this.current.id, "the runtime worker failed in the middle of this run: " + (message || "it crashed"));
    else this.fail("the runtime worker failed: " + (message || "unknown error"));
  }

  onMessage(m) {
    switch (m.type) {
      case "progress":
        this.loaded = m.loaded;
        this.wire = m.wire || 0;
        this.notify();
        break;
      case "ready":
        keepRuntime();
        this.marks = m.marks;
        this.info = m.info;
        this.state = "ready";
        this.loaded = this.total;
        this.notify();
        break;
      case "fatal":
        this.fail(m.message);
        break;
      case "warmed":
        settle("warmed");
        break;
      case "ran": {
        // How far the run under way has got: shown by its block while it
        // runs, and said if it is stopped.
        const p = this.current;
        if (!p || p.id !== m.id) return;
        p.ran = { done: m.done, of: m.of, what: m.what };
        if (p.owner && p.owner.ranSoFar) p.owner.ranSoFar(p.key, p.ran);
        break;
      }
      case "died":
        this.died(m.id, m.message);
        break;
      case "result":
      case "cost":
      case "claims":
      case "checked":
      case "error": {
        const p = this.current;
        if (!p || p.id !== m.id) return;
        this.current = null;
        if (m.marks) this.marks = m.marks;
        if (m.info) this.info = m.info;
        if (!this.received && m.type === "result") this.received = performance.timeOrigin + performance.now();
        if (m.type !== "cost" && m.type !== "claims") settle("ran");
        if (m.type === "error") p.reject(new Error(m.message));
        else p.resolve(m);
        this.pump();
        break;
      }
    }
  }

  fail(message) {
    settle("failed");
    this.state = "failed";
    this.error = message;
    for (const p of this.drain()) p.reject(new Error(message));
    this.worker.terminate();
    if (runtime === this) runtime = null; // the next Run starts afresh
    this.notify();
  }

  notify() {
    for (const f of this.listeners) f(this);
  }

  // ---- runs: one at a time, a newer Run replacing a queued one, Stop ----
  //
  // The worker does one run at a time, and a run cannot be interrupted
  // inside it. So the page keeps the queue: it sends the next run when the
  // last one is answered. A run sent with an owner (a block) and a key
  // ("main", "cmp-read", ...) replaces that owner's queued run of the same
  // key, so pressing Run again does not pile up runs. stop(owner) drops
  // the owner's queued runs and, if the worker is doing one of them,
  // terminates the worker and gives the runs of every other block to a
  // fresh runtime, which starts loading at once for the next Run.

  // run sends a run; auto marks one nobody pressed Run for (a link opened),
  // which the runtime holds to its small budget for those. A block's main
  // run without its timeline is kept by the worker (the last one), so
  // that timeline can draw it when the Timeline tab opens.
  run(script, seed, timeline, owner, key, auto) {
    const keep = !timeline && key === "main";
    return this.send({ type: "run", script, seed, timeline: !!timeline, keep, auto: !!auto }, owner, key);
  }

  // timeline asks for the timeline of run id (a main run sent without
  // one): its Result, parsed, with the timeline drawn; null when the
  // worker no longer holds that run (run it again, with the timeline).
  timeline(id, owner) {
    return this.send({ type: "timeline", of: id }, owner, "timeline").then((m) => (m.json ? JSON.parse(m.json) : null));
  }

  // cost asks the parser's estimate of a script: {heavy, what}.
  cost(script, owner) {
    return this.send({ type: "cost", script }, owner, "cost").then((m) => JSON.parse(m.json));
  }

  // claims asks the claim of a script and its text with each claim, for
  // the claim toggle: {claim, sides, note, toggle: [{claim, script}]}, or with
  // error when it does not parse. key names the owner's request, which a
  // newer one of the same key replaces (see send).
  claims(script, owner, key = "claims") {
    return this.send({ type: "claims", script }, owner, key).then((m) => JSON.parse(m.json));
  }

  // check runs one check of a case after fix and judges it, in the
  // runtime (see worker.js): {name, pass, heavy, line}, {refused} or
  // {error}. auto: under the small budget, for a link's replay on load.
  check(fix, check, owner, key, auto) {
    return this.send({ type: "check", fix, check: { info: check.info, script: check.script }, auto: !!auto }, owner, key).then((m) => m.verdict);
  }

  send(msg, owner, key) {
    return new Promise((resolve, reject) => {
      if (this.state === "failed") {
        reject(new Error(this.error));
        return;
      }
      if (owner && key) {
        const i = this.queue.findIndex((j) => j.owner === owner && j.key === key);
        if (i >= 0) this.queue.splice(i, 1)[0].reject(Object.assign(new Error("replaced by a newer run"), { replaced: true }));
      }
      this.queue.push({ msg, owner, key, resolve, reject });
      this.pump();
    });
  }

  pump() {
    if (this.current || this.queue.length === 0 || this.state === "failed" || this.state === "stopped") return;
    const job = this.queue.shift();
    job.id = this.nextID++;
    this.current = job;
    this.worker.postMessage(Object.assign({ id: job.id }, job.msg));
  }

  drain() {
    const all = this.current ? [this.current, ...this.queue] : this.queue;
    this.current = null;
    this.queue = [];
    return all;
  }

  // busy reports whether owner has a run queued or under way.
  busy(owner) {
    return (this.current && this.current.owner === owner) || this.queue.some((j) => j.owner === owner);
  }

  stop(owner) {
    const stopped = () => Object.assign(new Error("Stopped."), { stopped: true });
    const mine = this.queue.filter((j) => j.owner === owner);
    this.queue = this.queue.filter((j) => j.owner !== owner);
    for (const j of mine) j.reject(stopped());
    const running = this.current;
    if (!running || running.owner !== owner) return;
    // The run under way says how far it had got ({done, of, what}).
    this.replace(running, Object.assign(stopped(), { ran: running.ran || null }));
  }

  // died drops this worker when the Go program in it ended during run id
  // (it ran out of memory, or crashed): that run fails with err's message
  // and {died: true}, and the rest go on in a fresh worker.
  died(id, message) {
    const running = this.current;
    if (!running || running.id !== id) return;
    settle("failed");
    this.replace(running, Object.assign(new Error(message), { died: true }));
  }

  // replace terminates the worker (freeing its memory), hands every run
  // but running to a fresh runtime, and rejects running with err.
  replace(running, err) {
    const others = this.drain().filter((j) => j !== running);
    this.state = "stopped";
    this.worker.terminate();
    if (runtime === this) runtime = null;
    const next = getRuntime(); // loads at once, so the next Run is quick
    for (const j of others) next.queue.push(j);
    next.pump();
    // Rejected last, once its block is attached to the new runtime.
    running.reject(err);
  }
}

// getRuntime returns the page's runtime, creating it (and so starting the
// download) if there is none, and attaches every block set up so far.
export function getRuntime() {
  if (runtime === null) {
    runtime = new Runtime();
    for (const el of document.querySelectorAll("twice-playground")) {
      if (el.attach && el.ui) el.attach(runtime); // a block set up later attaches itself
    }
  }
  return runtime;
}

// adopt makes early, the worker twice.js started before the modules loaded
// ({worker, created, said}; see twice.js), the page's runtime, at once:
// blocks set up from then on attach to it as they would to any. Only
// once: a runtime that replaces it (after Stop or a failure) starts a
// worker of its own. Should the page have a runtime already, the early
// worker is not needed and is ended.
export function adopt(early) {
  if (!early) return;
  if (runtime !== null) {
    early.worker.terminate();
    return;
  }
  runtime = new Runtime(early);
}

// currentRuntime returns the page's runtime, or null while there is none;
// unlike getRuntime it never starts one.
export function currentRuntime() {
  return runtime;
}

// timings returns the runtime's start-up phases (see worker.js), in ms since
// this page's navigation started, and how the module came (info), once it
// has loaded, else null; for measurements.
export function timings() {
  if (!runtime || !runtime.marks) return null;
  const t = { created: runtime.created - performance.timeOrigin };
  if (runtime.received) t.received = runtime.received - performance.timeOrigin;
  for (const [k, v] of Object.entries(runtime.marks)) t[k] = v - performance.timeOrigin;
  return Object.assign(t, runtime.info);
}
