// twice.js defines the <twice-playground> element: a runnable block of the
// twice command language. The server renders each block with its script and
// the output it printed at the default seed; this script upgrades the block
// into an editor with a Run button, a claim toggle and a seed field, and runs
// the script in a Web Worker that holds the twice runtime compiled to
// WebAssembly. The runtime is downloaded once per page, on the first Run or
// when a block first scrolls into view.
//
// Everything a run prints is inserted with textContent, never as HTML.
//
// Below the script, tabs keep the basic flow (Run, then read the Output)
// first and put the rest one click away:
//
//   Output          transcript, tally, effects and jobs tables, and beside
//                   the effects the diagnosis with the evidence behind it
//   Timeline        the run drawn as SVG by the runtime, and a step-through
//                   of its event trace (buttons, or Left/Right/Home/End in
//                   the step area) showing the tables as they stood
//   Compare         the same script and seed run with each claim
//   Every ordering  race CLAIM --all: every interleaving counted exactly
//
// A link to a run (#BLOCK-ID?seed=N&script=TEXT&claim=C[&view=V&step=K])
// replays it in any browser, with no state on the server; "Copy link" and
// "Copy as command" (twice run --seed N -c '...') sit beside the output.
//
// Markup it understands (the server writes all of it; an embedder needs only
// the element and a <pre> holding the script):
//
//   <twice-playground seed="1" controls="claim seed" embed="URL">
//     <pre class="twice-script">SCRIPT</pre>
//     <pre class="twice-output">OUTPUT</pre>                        (optional)
//     <script type="application/json" class="twice-result">RESULT</script> (optional)
//   </twice-playground>
(function () {
  "use strict";
  if (window.customElements === undefined || customElements.get("twice-playground")) {
    return;
  }

  // The server replaces the next line with the names of the hashed assets.
  // It also carries the runtime's lists of claims, dedupe modes and key
  // choices ({name, words, alias}); nothing in this file names them.
  const CONFIG = /*TWICE_CONFIG*/ { worker: "worker.js", wasmExec: "wasm_exec.js", wasm: "twice.wasm", wasmSize: 0, css: "playground.css", claims: [], dedupes: [], keys: [] };

  const here = document.currentScript ? document.currentScript.src : location.href;
  const assetURL = (name) => new URL(name, here).href;
  const MAX_ROWS = 200;
  const MAX_SEED = 18446744073709551615n;

  // seedOf returns the seed of a Result as decimal text, read from its JSON
  // (where it comes first): JSON.parse turns it into a Number, which
  // cannot hold every uint64 (18446744073709551615 would read
  // 18446744073709552000 and a link would replay another seed).
  function seedOf(json, res) {
    const m = /^\s*\{"seed":([0-9]+)[,}]/.exec(json);
    return m ? m[1] : res.seed != null ? String(res.seed) : "";
  }

  function formatBytes(n) {
    if (n >= 1e6) return (n / 1e6).toFixed(1) + " MB";
    if (n >= 1e3) return Math.round(n / 1e3) + " kB";
    return n + " B";
  }

  // formatMS writes a virtual instant in microseconds as milliseconds with
  // three decimals, using integer arithmetic so nothing is rounded.
  function formatMS(us) {
    if (us === null || us === undefined) return "-";
    const neg = us < 0;
    const a = Math.abs(us);
    const ms = Math.floor(a / 1000);
    const frac = String(a % 1000).padStart(3, "0");
    return (neg ? "-" : "") + ms + "." + frac;
  }

  // ---- the claim toggle -------------------------------------------------

  // The claims the toggle offers: those that are not another name for one
  // (lock names atomic), in the runtime's order; the first is the default.
  function toggleClaims() {
    return CONFIG.claims.filter((c) => c.alias === c.name);
  }

  // claimWords says what a claim does, from the runtime's list.
  function claimWords(name) {
    const c = CONFIG.claims.find((c) => c.name === name);
    return c ? c.words : "";
  }

  // claimAlt is a regular expression alternation of every claim's name.
  function claimAlt() {
    return "(" + CONFIG.claims.map((c) => c.name).join("|") + ")";
  }

  // claimOf reports the claim a script uses: the first claim a race or work
  // command names that is not the default one (an alias counts as the
  // claim it names), else the default claim.
  function claimOf(src) {
    const def = toggleClaims().length ? toggleClaims()[0].name : "";
    const named = [new RegExp("(?:^|[\\s(;&])race\\s+" + claimAlt() + "\\b", "g"), new RegExp("--claim(?:\\s+|=)" + claimAlt() + "\\b", "g")];
    for (const line of src.split("\n")) {
      const code = stripComment(line);
      for (const re of named) {
        for (const m of code.matchAll(re)) {
          const c = CONFIG.claims.find((c) => c.name === m[1]);
          if (c && c.alias !== def) return c.alias;
        }
      }
    }
    return def;
  }

  // stripComment returns the part of a line before a # that starts a word.
  function stripComment(line) {
    const m = /(^|\s)#/.exec(line);
    return m ? line.slice(0, m.index) : line;
  }

  // rewriteClaim sets the claim of every race and work command of src to
  // claim (one of the toggle's claims): it replaces the argument of race and of
  // --claim, and adds --claim to work commands that have none. Comments,
  // spacing and everything else are kept.
  function rewriteClaim(src, claim) {
    return src
      .split("\n")
      .map((line) => {
        const code = stripComment(line);
        const comment = line.slice(code.length);
        // Split into commands, keeping the separators.
        const parts = code.split(/(&&|;)/);
        for (let i = 0; i < parts.length; i += 2) {
          parts[i] = rewriteCommand(parts[i], claim);
        }
        return parts.join("") + comment;
      })
      .join("\n");
  }

  function rewriteCommand(cmd, claim) {
    // Leading "(", "node queue.mjs" or "twice" before the command word.
    const head = /^(\s*\(?\s*(?:node\s+queue\.mjs\s+|twice\s+)?)(\S+)/.exec(cmd);
    if (!head) return cmd;
    const word = head[2];
    if (word === "race") {
      return cmd.replace(new RegExp("^(\\s*\\(?\\s*(?:node\\s+queue\\.mjs\\s+|twice\\s+)?race\\s+)" + claimAlt() + "\\b"), "$1" + claim);
    }
    if (word !== "work") return cmd;
    const flag = new RegExp("--claim(\\s+|=)" + claimAlt() + "\\b", "g");
    if (flag.test(cmd)) {
      return cmd.replace(flag, "--claim$1" + claim);
    }
    // Insert before a trailing ")" or "2>/dev/null" and trailing spaces.
    const tail = /(\s*(?:\)\s*)?(?:2>\s*\/dev\/null\s*)?(?:\)\s*)?)$/.exec(cmd);
    const at = tail ? cmd.length - tail[1].length : cmd.length;
    return cmd.slice(0, at) + " --claim " + claim + cmd.slice(at);
  }

  // ---- links, commands and exploration scripts ------------------------

  const VIEWS = ["output", "timeline", "compare", "interleavings"];

  // linkHash writes the fragment of a link to a run of the block with the
  // given id. The script and the seed replay the run; the claim says which
  // claim the reader chose (parseLink applies it to the script if a hand-
  // edited link disagrees); view, step and workers reopen what they looked
  // at. Query-style parameters in the fragment keep the link readable,
  // never reach a server, and work on any static host.
  function linkHash(id, r) {
    const p = new URLSearchParams({ seed: String(r.seed), script: r.script, claim: r.claim || claimOf(r.script) });
    if (r.view && r.view !== "output") p.set("view", r.view);
    if (r.view === "timeline" && r.step > 1) p.set("step", String(r.step));
    if (r.view === "interleavings" && r.workers && r.workers !== 2) p.set("workers", String(r.workers));
    return "#" + id + "?" + p;
  }

  // parseLink reads a link made by linkHash for the block with the given
  // id; it returns null for any other hash. Links from before the claim
  // and view parameters existed (#ID?seed=N&script=TEXT) still work. A
  // value it cannot use (seed=-1, claim=fenced, step=0) falls back to its
  // default and is named in error, which the block shows instead of
  // running: a link that silently ran something else would mislead.
  function parseLink(hash, id) {
    const prefix = "#" + id + "?";
    if (!id || !hash.startsWith(prefix)) return null;
    const p = new URLSearchParams(hash.slice(prefix.length));
    let script = p.get("script");
    if (script === null) return null;
    const bad = [];
    const shown = (v) => JSON.stringify(v.length > 40 ? v.slice(0, 40) + "…" : v);
    let seed = p.get("seed") || "";
    if (!/^[0-9]*$/.test(seed) || (seed !== "" && BigInt(seed) > MAX_SEED)) {
      bad.push("seed=" + shown(seed) + " is not a whole number from 0 to " + MAX_SEED);
      seed = "";
    }
    const claim = p.get("claim");
    if (toggleClaims().some((c) => c.name === claim) && claimOf(script) !== claim) {
      script = rewriteClaim(script, claim);
    } else if (claim !== null && claim !== "read" && claim !== "atomic") {
      bad.push("claim=" + shown(claim) + " is not read or atomic");
    }
    const v = p.get("view");
    const view = VIEWS.includes(v) ? v : "output";
    if (v !== null && !VIEWS.includes(v)) bad.push("view=" + shown(v) + " is not one of " + VIEWS.join(", "));
    const st = p.get("step");
    const step = /^[1-9][0-9]{0,6}$/.test(st || "") ? Number(st) : 1;
    if (st !== null && step === 1 && st !== "1") bad.push("step=" + shown(st) + " is not a step number");
    const ws = p.get("workers");
    const w = Number(ws);
    const workers = Number.isInteger(w) && w >= 2 && w <= 8 ? w : 0;
    if (ws !== null && workers === 0) bad.push("workers=" + shown(ws) + " is not a whole number from 2 to 8");
    const r = { script, seed, claim: claimOf(script), view, step, workers };
    if (bad.length) r.error = bad.join("; ");
    return r;
  }

  // nearestStep returns the index of the event drawn nearest to x (in SVG
  // units) on the timeline. Events drawn at one x are taken in turn: if
  // the current step is one of them, the next one (wrapping) is returned.
  function nearestStep(xs, x, current) {
    let best = Infinity;
    for (const v of xs) best = Math.min(best, Math.abs(v - x));
    const at = [];
    xs.forEach((v, i) => {
      if (Math.abs(v - x) === best) at.push(i);
    });
    const i = at.indexOf(current);
    return i < 0 ? at[0] : at[(i + 1) % at.length];
  }

  // shellQuote quotes s for a POSIX shell: inside single quotes nothing is
  // special, and a single quote is written as '\'' (close, escaped quote,
  // reopen).
  function shellQuote(s) {
    return "'" + s.replace(/'/g, "'\\''") + "'";
  }

  // commandFor is the command line that prints the same run natively.
  function commandFor(script, seed) {
    return "twice run --seed " + seed + " -c " + shellQuote(script.replace(/\s+$/, ""));
  }

  // workersOf reports the --workers N of the script's first race command
  // that has one, else 2.
  function workersOf(src) {
    for (const line of src.split("\n")) {
      const m = /(?:^|[\s(;&])race\s[^;&#]*--workers(?:\s+|=)([2-8])\b/.exec(stripComment(line));
      if (m) return Number(m[1]);
    }
    return 2;
  }

  // claimsOf lists the claims a script's race and work commands use, in
  // the order they first appear, from the runtime's list: an alias counts
  // as the claim it names (lock as atomic). A work command without --claim
  // uses the default claim, and so does a script with neither.
  function claimsOf(src) {
    const def = toggleClaims().length ? toggleClaims()[0].name : "";
    const seen = [];
    const add = (name) => {
      const c = CONFIG.claims.find((c) => c.name === name);
      const alias = c ? c.alias : def;
      if (!seen.includes(alias)) seen.push(alias);
    };
    const isClaim = new RegExp("^" + claimAlt() + "$");
    const flag = new RegExp("--claim(?:\\s+|=)" + claimAlt() + "\\b");
    for (const line of src.split("\n")) {
      for (const cmd of stripComment(line).split(/&&|;|&/)) {
        const head = /^\s*\(?\s*(?:node\s+queue\.mjs\s+|twice\s+)?(\S+)(?:\s+(\S+))?/.exec(cmd);
        if (!head) continue;
        if (head[1] === "race" && isClaim.test(head[2] || "")) add(head[2]);
        if (head[1] === "work") {
          const m = flag.exec(cmd);
          add(m ? m[1] : def);
        }
      }
    }
    return seen.length ? seen : [def];
  }

  // exploreScript is what "Check every interleaving" runs for a script: a
  // race of each claim the script uses (claimsOf), explored exhaustively
  // with the given number of workers. It is derived, not the script's own
  // race lines with --all appended, because a script may have no race at
  // all (a work command still has a claim), several, or race lines wrapped
  // in the article's shell syntax; the question "can this claim duplicate
  // under any ordering?" depends on the claim only. claims is a claim or a
  // list of them. With svc (from serviceOf) naming a dedupe mode and a key,
  // the service's key steps are explored too.
  function exploreScript(claims, workers, svc) {
    const list = Array.isArray(claims) ? claims : [claims];
    const keyed = svc && svc.dedupe && svc.key;
    const w = workers && workers !== 2 ? " --workers " + workers : "";
    const k = keyed ? " --key " + svc.key : "";
    return (keyed ? "service --dedupe " + svc.dedupe + "\n" : "") + list.map((c) => "race " + c + " --all" + w + k + "\n").join("");
  }

  // serviceOf reports the service's dedupe mode the script sets last
  // (other than off) and the first key a race or work command sends (other
  // than none), from the runtime's lists; "" for either when there is none.
  function serviceOf(src) {
    const alt = (list) => "(" + list.map((c) => c.name).join("|") + ")";
    const modeRe = new RegExp("(?:^|[\\s(;&])service\\s[^;&#]*--dedupe(?:\\s+|=)" + alt(CONFIG.dedupes) + "(?![\\w-])", "g");
    const keyRe = new RegExp("(?:^|[\\s(;&])(?:race|work)\\s[^;&#]*--key(?:\\s+|=)" + alt(CONFIG.keys) + "(?![\\w-])", "g");
    let dedupe = "";
    let key = "";
    for (const line of src.split("\n")) {
      const code = stripComment(line);
      for (const m of code.matchAll(modeRe)) dedupe = m[1] === CONFIG.dedupes[0].name ? "" : m[1];
      for (const m of code.matchAll(keyRe)) if (!key && m[1] !== CONFIG.keys[0].name) key = m[1];
    }
    return { dedupe, key };
  }

  // announce is what the status region says when a run is done: the time,
  // the tally of every race and load, and the diagnosis of the first order
  // with a duplicate (or of the only order), so that a screen reader hears
  // the outcome and not only that the run finished.
  function announce(res, ms) {
    const parts = ["Done in " + ms + " ms."];
    for (const r of res.races || []) parts.push("claim=" + r.claim + ": duplicate effects in " + r.duplicates + " of " + r.races + " races.");
    for (const l of res.loads || []) parts.push("lease " + l.lease_us / 1e6 + " s: duplicate effects in " + l.duplicates + " of " + l.jobs + " jobs.");
    const sums = res.summary || [];
    const bad = sums.filter((x) => !GOOD_KINDS.has(x.kind));
    // After a load, "ran once" of its first job is no news: the tallies are.
    const first = bad[0] || ((res.loads || []).length ? null : sums[0]);
    if (first) {
      parts.push("Diagnosis for " + first.order + ": " + (KIND_TITLE[first.kind] || first.kind) + ".");
      if (bad.length > 1) parts.push(bad.length - 1 + " more order(s) with a duplicate.");
    }
    return parts.join(" ");
  }

  // diagnosisPlan picks what the diagnosis panel says: at most three orders
  // in detail, those with a duplicate effect first, and how many more
  // there are. After a load (hundreds of jobs, and the tables hold its last
  // lease run) an order that ran once says nothing on its own: such orders
  // are counted, not listed, with a count per kind (counts), and only the
  // orders of other kinds are shown and counted in more.
  function diagnosisPlan(res) {
    const sums = res.summary || [];
    const bad = (s) => !GOOD_KINDS.has(s.kind);
    const ordered = [...sums.filter(bad), ...sums.filter((s) => !bad(s))];
    const loads = res.loads || [];
    if (loads.length === 0) {
      const shown = ordered.slice(0, 3);
      return { shown, more: ordered.length - shown.length, counts: [], scope: "" };
    }
    const telling = ordered.filter((s) => s.kind !== "once");
    const shown = telling.slice(0, 3);
    const n = new Map();
    for (const s of ordered) n.set(s.kind, (n.get(s.kind) || 0) + 1);
    const last = loads[loads.length - 1];
    return {
      shown,
      more: telling.length - shown.length,
      counts: [...n].map(([kind, count]) => ({ kind, n: count })),
      scope: "lease " + last.lease_us / 1e6 + " s, " + last.jobs + " jobs",
    };
  }

  // embedIframe is the iframe snippet for an embed page: the frame, with a
  // title of its own, and the few lines that apply the height the page
  // inside posts (a message {type: "twice:height", height} from origin).
  function embedIframe(page, title, origin) {
    const attr = (s) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
    return (
      '<iframe src="' + attr(page) + '" title="' + attr(title) + '" width="100%" height="640" loading="lazy"></iframe>\n' +
      "<script>\n" +
      'addEventListener("message", (e) => {\n' +
      "  if (e.origin !== " + JSON.stringify(origin) + ' || !e.data || e.data.type !== "twice:height") return;\n' +
      '  for (const f of document.querySelectorAll("iframe"))\n' +
      "    if (f.contentWindow === e.source) f.height = String(Math.ceil(e.data.height));\n" +
      "});\n" +
      "</script>"
    );
  }

  // minFontSize returns the smallest font-size="N" of an SVG, or 0.
  function minFontSize(svg) {
    let min = 0;
    for (const m of svg.matchAll(/font-size="([0-9.]+)"/g)) {
      const v = Number(m[1]);
      if (v > 0 && (min === 0 || v < min)) min = v;
    }
    return min;
  }

  // groupDigits writes a decimal string with thousands separators; the
  // counts of orderings are strings because they outgrow JS numbers.
  function groupDigits(s) {
    return /^[0-9]+$/.test(s) ? BigInt(s).toLocaleString("en-US") : String(s);
  }

  // replay applies the first k+1 events of a trace, as result.go documents
  // (a job replaces the row with its id, an effect is appended, reset
  // empties both), and reports the tables after event k and what event k
  // changed.
  // matrixCellText is one cell of a matrix as the text table prints it:
  // the effects that landed and the verdict ("40 dup", "1 ok", "pending").
  function matrixCellText(c) {
    if (c.verdict === "pending") return "pending";
    const word = { duplicate: "dup", lost: "lost", closed: "ok" }[c.verdict] || c.verdict;
    return c.effects + " " + word;
  }

  // matrixCellLabel says a cell in words, for its accessible name.
  function matrixCellLabel(scenario, fix, c) {
    if (c.verdict === "pending") return scenario.title + " with " + fix.title + ": pending, not runnable yet";
    const verdict = { duplicate: "duplicate", lost: "work lost", closed: "closed" }[c.verdict] || c.verdict;
    return scenario.title + " with " + fix.title + ": " + c.effects + " effect(s) for " + c.events + " event(s), " + verdict;
  }

  function replay(trace, k) {
    let jobs = new Map();
    let effects = [];
    let prevJob = null;
    for (let i = 0; i <= k && i < trace.length; i++) {
      const ev = trace[i];
      if (ev.kind === "reset") {
        jobs = new Map();
        effects = [];
      }
      if (ev.job) {
        if (i === k) prevJob = jobs.get(ev.job.id) || null;
        jobs.set(ev.job.id, ev.job);
      }
      if (ev.effect) effects.push(ev.effect);
    }
    const ev = trace[k] || {};
    return {
      jobs: Array.from(jobs.values()).sort((a, b) => a.id - b.id),
      effects,
      changedJob: ev.job ? ev.job.id : null,
      prevJob,
      newEffect: ev.effect ? effects.length - 1 : -1,
      reset: ev.kind === "reset",
    };
  }

  // ---- the runtime: one Web Worker per page -----------------------------

  let runtime = null;

  // keepRuntime asks the site's service worker (see sw.js) to keep the
  // runtime that this page has just loaded, for offline use. Only on the
  // site's own pages: elsewhere a service worker, if any, is the host's.
  function keepRuntime() {
    const html = document.documentElement;
    if (html.dataset.twiceRoot === undefined || !("serviceWorker" in navigator)) return;
    navigator.serviceWorker.ready.then((reg) => reg.active && reg.active.postMessage({ type: "twice:keep-runtime" }), () => {});
  }

  // Runtime owns the worker that holds the wasm module. Loading starts when
  // it is created; listeners hear about progress.
  class Runtime {
    constructor() {
      this.listeners = new Set();
      this.queue = []; // runs not yet sent to the worker
      this.current = null; // the run the worker is doing
      this.nextID = 1;
      this.state = "loading";
      this.loaded = 0;
      this.total = CONFIG.wasmSize;
      this.error = "";
      this.marks = null;
      this.created = performance.timeOrigin + performance.now();
      const workerURL = assetURL(CONFIG.worker);
      let worker;
      if (new URL(workerURL).origin === location.origin) {
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
        this.fail("the runtime worker failed: " + (e.message || "unknown error"));
      };
      worker.postMessage({ type: "init", wasmExec: assetURL(CONFIG.wasmExec), wasm: assetURL(CONFIG.wasm) });
    }

    onMessage(m) {
      switch (m.type) {
        case "progress":
          this.loaded = m.loaded;
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
        case "result":
        case "cost":
        case "error": {
          const p = this.current;
          if (!p || p.id !== m.id) return;
          this.current = null;
          if (m.marks) this.marks = m.marks;
          if (m.info) this.info = m.info;
          if (!this.received && m.type === "result") this.received = performance.timeOrigin + performance.now();
          if (m.type === "error") p.reject(new Error(m.message));
          else p.resolve(m);
          this.pump();
          break;
        }
      }
    }

    fail(message) {
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

    run(script, seed, timeline, owner, key) {
      return this.send({ type: "run", script, seed, timeline: !!timeline }, owner, key);
    }

    // cost asks the parser's estimate of a script: {heavy, what}.
    cost(script, owner) {
      return this.send({ type: "cost", script }, owner, "cost").then((m) => JSON.parse(m.json));
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
      const others = this.drain().filter((j) => j !== running);
      this.state = "stopped";
      this.worker.terminate();
      if (runtime === this) runtime = null;
      const next = getRuntime(); // loads at once, so the next Run is quick
      for (const j of others) next.queue.push(j);
      next.pump();
      // Rejected last, once its block is attached to the new runtime.
      running.reject(stopped());
    }
  }
  function getRuntime() {
    if (runtime === null) {
      runtime = new Runtime();
      for (const el of document.querySelectorAll("twice-playground")) {
        if (el.attach && el.ui) el.attach(runtime); // a block set up later attaches itself
      }
    }
    return runtime;
  }

  // Blocks scrolling into view start the download, and so does the pointer
  // or the focus reaching a block's Run button, so that Run is quick. The
  // first block, when it is in view as it is set up, starts it at once
  // rather than when the observer first reports, a frame or more later.
  function inViewport(el) {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth;
  }

  const observer =
    "IntersectionObserver" in window
      ? new IntersectionObserver((entries) => {
          if (entries.some((e) => e.isIntersecting)) {
            observer.disconnect();
            getRuntime();
          }
        })
      : null;

  // ---- the element ---------------------------------------------------------

  let counter = 0;

  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === false || v === null || v === undefined) continue;
      if (k === "text") el.textContent = v;
      else if (k === "class") el.className = v;
      else el.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children) if (c) el.append(c);
    return el;
  }

  // The diagnosis kinds of script.Summary, in plain words, and which are
  // good (every event had its one effect): the runtime's list, from the
  // config, read when used (the tests fill the config in after load).
  const KIND_TITLE = new Proxy({}, { get: (_, name) => ((CONFIG.kinds || []).find((k) => k.name === name) || {}).title });
  const GOOD_KINDS = { has: (name) => (CONFIG.kinds || []).some((k) => k.name === name && k.good) };

  const TABS = [
    ["output", "Output"],
    ["timeline", "Timeline"],
    ["compare", "Compare"],
    ["interleavings", "Every ordering"],
  ];

  class TwicePlayground extends HTMLElement {
    connectedCallback() {
      if (this.ui) return;
      if (!this.querySelector("pre, textarea") && document.readyState === "loading") {
        // Upgraded before the parser reached the element's content.
        document.addEventListener("DOMContentLoaded", () => this.connectedCallback(), { once: true });
        return;
      }
      this.setup();
    }

    setup() {
      const n = ++counter;
      const scriptEl = this.querySelector(".twice-script") || this.querySelector("pre, textarea");
      const raw = scriptEl ? (scriptEl.value !== undefined && scriptEl.tagName === "TEXTAREA" ? scriptEl.value : scriptEl.textContent) : "";
      const script = raw.replace(/^\n/, "").replace(/\s+$/, "") + "\n";
      const resultEl = this.querySelector("script.twice-result");
      let prerendered = null;
      if (resultEl) {
        try {
          prerendered = JSON.parse(resultEl.textContent);
          prerendered.seedText = seedOf(resultEl.textContent, prerendered);
        } catch (e) {
          prerendered = null;
        }
      }
      const controls = (this.getAttribute("controls") || "claim seed").split(/[\s,]+/);
      const defaultSeed = this.getAttribute("seed") || "";
      // Landmarks and regions repeat in every block, so each carries the
      // block's label: "Diagnosis, Lesson 4, script 1".
      const label = this.getAttribute("label") || (n > 1 ? "twice script " + n : "twice script");
      const of = (what) => what + ", " + label;
      this.label = label;

      const root = this.attachShadow({ mode: "open" });
      root.append(h("link", { rel: "stylesheet", href: assetURL(CONFIG.css) }));

      const ui = {};
      ui.run = h("button", { type: "button", class: "run", text: "Run" });
      // Stop shows while this block has a run queued or under way.
      ui.stop = h("button", { type: "button", class: "stop", text: "Stop", hidden: true, "aria-label": "Stop this block's run" });
      ui.bar = h("div", { class: "bar" }, ui.run, ui.stop);
      if (controls.includes("claim")) {
        const name = "claim";
        ui.claims = toggleClaims().map((c) => h("input", { type: "radio", name, value: c.name }));
        ui.claim = h(
          "fieldset",
          { class: "claim" },
          h("legend", { text: "Claim" }),
          ...ui.claims.map((r) => h("label", { title: claimWords(r.value) }, r, document.createTextNode(" " + r.value)))
        );
        ui.bar.append(ui.claim);
      }
      ui.seed = h("input", {
        type: "text",
        inputmode: "numeric",
        autocomplete: "off",
        spellcheck: "false",
        size: "8",
        value: defaultSeed,
        placeholder: "default",
      });
      ui.seedLabel = h("label", { class: "seed" }, document.createTextNode("Seed "), ui.seed);
      if (!controls.includes("seed")) ui.seedLabel.hidden = true;
      ui.bar.append(ui.seedLabel);
      ui.explore = h("button", {
        type: "button",
        class: "explore-btn",
        text: "Check every interleaving",
        title: "Count, exactly, the orderings of racing workers' steps that give two effects, with each claim the script uses",
      });
      ui.bar.append(ui.explore);
      ui.status = h("span", { class: "status", role: "status", "aria-live": "polite" });
      ui.bar.append(ui.status);

      ui.script = h("textarea", {
        class: "script",
        spellcheck: "false",
        autocapitalize: "off",
        autocomplete: "off",
        "aria-label": label + " (Ctrl+Enter runs it)",
        rows: String(Math.max(script.split("\n").length - 1, 2)),
      });
      ui.script.value = script;

      ui.progress = h("progress", { max: "1", value: "0", "aria-label": "Loading the runtime" });
      ui.loading = h("div", { class: "loading", hidden: true }, ui.progress, h("span", { class: "loading-text" }));

      // Tabs: Output first and selected, the rest one click away.
      ui.tablist = h("div", { class: "tabs", role: "tablist", "aria-label": of("Views of the run") });
      ui.tabs = {};
      for (const [key, name] of TABS) {
        const tab = h("button", {
          type: "button",
          role: "tab",
          class: "tab",
          id: "tab-" + key,
          "aria-controls": "panel-" + key,
          "aria-selected": "false",
          tabindex: "-1",
          "data-view": key,
          text: name,
        });
        ui.tabs[key] = tab;
        ui.tablist.append(tab);
      }

      // Output.
      ui.error = h("p", { class: "error", role: "alert", hidden: true });
      ui.transcript = h("pre", { class: "transcript", tabindex: "0", "aria-label": of("Transcript") });
      ui.tally = h("p", { class: "tally", hidden: true });
      ui.chartImg = h("img", { alt: "" });
      ui.chartScroll = h("div", { class: "chart-scroll", tabindex: "0", role: "region", "aria-label": of("Load chart (scrolls sideways on narrow screens)") }, ui.chartImg);
      ui.chart = h("figure", { class: "load-chart", hidden: true }, ui.chartScroll);
      ui.matrix = h("div", { class: "matrix-wrap", hidden: true });
      ui.diagnosis = h("section", { class: "diagnosis", "aria-label": of("Diagnosis"), hidden: true });
      ui.effects = h("table", { class: "effects" });
      ui.jobs = h("table", { class: "jobs" });
      ui.effectsWrap = h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": of("Effects table") }, ui.effects);
      ui.jobsWrap = h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": of("Jobs table") }, ui.jobs);
      ui.ledger = h("table", { class: "ledger" });
      ui.ledgerWrap = h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": of("Ledger table"), hidden: true }, ui.ledger);
      ui.heading = h("p", { class: "out-heading" });
      ui.link = h("a", { class: "permalink", hidden: true, text: "Link to this run" });
      ui.copyLink = h("button", { type: "button", class: "copy-link small", text: "Copy link" });
      ui.copyCmd = h("button", { type: "button", class: "copy-cmd small", text: "Copy as command", title: "twice run --seed N -c '…': the same run in a terminal" });
      ui.share = h("div", { class: "share", hidden: true }, ui.link, ui.copyLink, ui.copyCmd);
      // The fallback when the browser refuses the clipboard is a textarea,
      // not an input: an input drops the newlines of a multi-line command.
      ui.copyField = h("textarea", { class: "copy-field", readonly: true, rows: "1", spellcheck: "false", "aria-label": "Text to copy (press Ctrl+C)" });
      ui.copyBox = h("div", { class: "copy-box", hidden: true }, h("span", { text: "Press Ctrl+C to copy:" }), ui.copyField);
      ui.out = h(
        "section",
        { class: "out panel", id: "panel-output", role: "tabpanel", "aria-labelledby": "tab-output" },
        h("div", { class: "out-top" }, ui.heading, ui.share),
        ui.copyBox,
        ui.error,
        ui.transcript,
        ui.tally,
        ui.chart,
        ui.matrix,
        h("div", { class: "tables" }, ui.effectsWrap, ui.diagnosis, ui.jobsWrap, ui.ledgerWrap)
      );

      // Timeline and step-through.
      ui.tlNote = h("p", { class: "note" });
      // The timeline is SVG drawn by the runtime (Go, escaped text,
      // validated names). It is shown through <img src="data:image/svg+xml,...">
      // rather than inserted into the DOM: an image document runs no
      // script, loads nothing and cannot reach the page, so even a
      // malformed SVG stays a picture, and output is never inserted as
      // markup. The page's CSP already allows data: images (img-src 'self'
      // data:) and does not govern the SVG's own <style>, which inline SVG
      // would need 'unsafe-inline' for. The price: the SVG's hover titles do
      // not show, so the step-through below says every event in words, and
      // the cursor is our own element laid over the image at event_x/width.
      ui.tlImg = h("img", { class: "tl-img", alt: "", decoding: "async" });
      ui.tlCursor = h("div", { class: "tl-cursor", hidden: true, "aria-hidden": "true" });
      ui.tlInner = h("div", { class: "tl-inner" }, ui.tlImg, ui.tlCursor);
      ui.tlScroll = h("div", { class: "tl-scroll", tabindex: "0", role: "region", "aria-label": of("Timeline picture (scrolls sideways on narrow screens)") }, ui.tlInner);
      ui.tlLegend = h("figcaption", {
        class: "tl-legend",
        text: "One lane per worker and one for the receipts service. Bars: leases; ticks: SQL statements; dots: effects, the duplicate in red; crosses: kills. A dashed break skips a long wait. Tap or click the picture to jump to the step drawn there.",
      });
      ui.tlFig = h("figure", { class: "timeline", hidden: true }, ui.tlScroll, ui.tlLegend);
      // The arrows are decoration: the buttons are named by their words.
      ui.prev = h("button", { type: "button", class: "step-btn prev" }, h("span", { "aria-hidden": "true", text: "◀ " }), "Back");
      ui.next = h("button", { type: "button", class: "step-btn next" }, "Next", h("span", { "aria-hidden": "true", text: " ▶" }));
      ui.stepCount = h("span", { class: "step-count" });
      ui.stepWhat = h("p", { class: "step-what" });
      ui.stepChange = h("p", { class: "step-change" });
      ui.stepLive = h("p", { class: "sr", "aria-live": "polite", "aria-atomic": "true" });
      ui.stepEffects = h("table", { class: "step-effects" });
      ui.stepJobs = h("table", { class: "step-jobs" });
      ui.stepArea = h(
        "div",
        {
          class: "step-area",
          tabindex: "0",
          role: "group",
          "aria-roledescription": "step-through",
          "aria-label": "Step through the run. Left and Right arrow keys move one step; Home and End go to the first and last.",
        },
        ui.stepWhat,
        ui.stepChange,
        h(
          "div",
          { class: "tables" },
          h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": of("Effects at this step") }, ui.stepEffects),
          h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": of("Jobs at this step") }, ui.stepJobs)
        )
      );
      ui.stepper = h(
        "div",
        { class: "stepper", hidden: true },
        h("div", { class: "step-controls" }, ui.prev, ui.stepCount, ui.next, h("span", { class: "step-hint", text: "or focus the steps and use ← →" })),
        ui.stepArea,
        ui.stepLive
      );
      ui.tlPanel = h(
        "section",
        { class: "panel tl-panel", id: "panel-timeline", role: "tabpanel", "aria-labelledby": "tab-timeline", hidden: true },
        ui.tlNote,
        ui.tlFig,
        ui.stepper
      );

      // Compare.
      ui.cmpNote = h("p", { class: "note", "aria-live": "polite" });
      ui.cmpPanes = h("div", { class: "panes" });
      ui.cmpPanel = h(
        "section",
        { class: "panel cmp-panel", id: "panel-compare", role: "tabpanel", "aria-labelledby": "tab-compare", hidden: true },
        ui.cmpNote,
        ui.cmpPanes
      );

      // Every ordering.
      ui.workers = h("select", { class: "workers" }, ...[2, 3, 4, 5, 6, 7, 8].map((w) => h("option", { value: String(w), text: String(w) })));
      ui.expCmd = h("code", { class: "exp-cmd" });
      ui.expHead = h("p", { class: "exp-head", "aria-live": "polite" });
      ui.expBody = h("div", { class: "exp-body" });
      ui.expPanel = h(
        "section",
        { class: "panel exp-panel", id: "panel-interleavings", role: "tabpanel", "aria-labelledby": "tab-interleavings", hidden: true },
        h("div", { class: "exp-controls" }, h("label", { class: "workers-label" }, document.createTextNode("Workers "), ui.workers), ui.expCmd),
        ui.expHead,
        ui.expBody
      );

      const box = h("div", { class: "box" }, ui.bar, ui.script, ui.loading, ui.tablist, ui.out, ui.tlPanel, ui.cmpPanel, ui.expPanel);
      const embed = this.getAttribute("embed");
      if (embed) box.append(this.embedSnippets(embed, script, { seed: defaultSeed, controls: this.getAttribute("controls"), label: this.getAttribute("label"), id: this.id }));
      root.append(box);
      this.ui = ui;
      this.seq = 0;
      this.cmpSeq = 0;
      this.expSeq = 0;
      this.step = 0;
      this.view = "output";
      this.id = this.id || "twice-" + n;
      this.ownScript = script; // what the server's cost attribute is about

      this.setClaim(claimOf(script));
      ui.workers.value = String(workersOf(script));
      ui.run.addEventListener("click", () => this.run());
      ui.stop.addEventListener("click", () => this.stop());
      ui.script.addEventListener("keydown", (e) => {
        if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
          e.preventDefault();
          this.run();
        }
      });
      ui.script.addEventListener("input", () => {
        this.setClaim(claimOf(ui.script.value));
        this.fit();
      });
      // The script box is as tall as its script, wrapped lines included,
      // at every width: it is measured, not sized by line count.
      if ("ResizeObserver" in window) {
        let width = 0;
        new ResizeObserver(() => {
          if (ui.script.clientWidth !== width) {
            width = ui.script.clientWidth;
            this.fit();
          }
        }).observe(ui.script);
      }
      ui.seed.addEventListener("keydown", (e) => {
        if (e.key === "Enter") {
          e.preventDefault();
          this.run();
        }
      });
      for (const r of ui.claims || []) {
        r.addEventListener("change", () => {
          if (!r.checked) return;
          ui.script.value = rewriteClaim(ui.script.value, r.value);
          this.fit();
          this.run();
        });
      }
      for (const tab of Object.values(ui.tabs)) {
        tab.addEventListener("click", () => this.select(tab.dataset.view));
      }
      ui.tablist.addEventListener("keydown", (e) => {
        const keys = TABS.map((t) => t[0]);
        let i = keys.indexOf(this.view);
        if (e.key === "ArrowRight") i = (i + 1) % keys.length;
        else if (e.key === "ArrowLeft") i = (i + keys.length - 1) % keys.length;
        else if (e.key === "Home") i = 0;
        else if (e.key === "End") i = keys.length - 1;
        else return;
        e.preventDefault();
        this.select(keys[i]);
        ui.tabs[keys[i]].focus();
      });
      ui.explore.addEventListener("click", () => {
        if (!this.workersTouched) ui.workers.value = String(workersOf(ui.script.value));
        this.select("interleavings", true);
        this.explore(true);
      });
      ui.workers.addEventListener("change", () => {
        this.workersTouched = true;
        this.explore(true);
      });
      ui.prev.addEventListener("click", () => this.goStep(this.step - 1));
      ui.next.addEventListener("click", () => this.goStep(this.step + 1));
      ui.stepArea.addEventListener("keydown", (e) => {
        // In a focused table (it scrolls on its own) the arrows scroll it.
        if (e.target !== ui.stepArea) return;
        const last = (this.result && this.result.trace ? this.result.trace.length : 1) - 1;
        const to = { ArrowRight: this.step + 1, ArrowLeft: this.step - 1, Home: 0, End: last }[e.key];
        if (to === undefined || e.altKey || e.ctrlKey || e.metaKey) return;
        e.preventDefault();
        this.goStep(to);
      });
      // A click on the timeline jumps to the step drawn nearest to it; a
      // second click at the same place walks through the steps drawn there
      // (one instant can hold several). The buttons and keys stay the way
      // to step without a pointer.
      ui.tlInner.addEventListener("click", (e) => {
        const tl = this.result && this.result.timeline;
        const rect = ui.tlInner.getBoundingClientRect();
        if (!tl || !tl.event_x || !tl.event_x.length || rect.width <= 0) return;
        const k = nearestStep(tl.event_x, ((e.clientX - rect.left) / rect.width) * tl.width, this.step);
        this.goStep(k);
      });
      ui.copyLink.addEventListener("click", () => this.copy(ui.copyLink, ui.link.href));
      ui.copyCmd.addEventListener("click", () => this.copy(ui.copyCmd, commandFor(this.ran.script, this.ran.seed)));

      this.selectTab("output");
      this.fit();
      if (prerendered) {
        this.ran = { script, seed: prerendered.seedText || String(defaultSeed) };
        this.render(prerendered, "Output at seed " + this.ran.seed + ", rendered on the server. Press Run to run it in your browser.");
        this.setState("prerendered");
      } else {
        ui.heading.textContent = "Press Run to run this script in your browser.";
        ui.out.classList.add("empty");
        this.setState("idle");
      }
      this.renderTimeline();
      if (runtime) this.attach(runtime);
      else if (n === 1 && inViewport(this)) getRuntime();
      else if (observer) observer.observe(this);
      ui.run.addEventListener("pointerenter", getRuntime, { once: true });
      ui.run.addEventListener("focusin", getRuntime, { once: true });

      // A link made by "Link to this run" or "Copy link" replays that run,
      // and reopens the view it was taken from.
      const shared = parseLink(location.hash, this.id);
      if (shared) {
        ui.script.value = shared.script;
        this.fit();
        ui.seed.value = shared.seed;
        this.setClaim(shared.claim);
        if (shared.workers) {
          ui.workers.value = String(shared.workers);
          this.workersTouched = true;
        }
        this.pendingStep = shared.step - 1;
        requestAnimationFrame(() => this.scrollIntoView());
        if (shared.error) {
          this.showError("This link has a bad value: " + shared.error + ". Nothing ran; fix it in the fields above and press Run.");
        } else {
          this.runIfCheap(shared.script, () => {
            this.run();
            if (shared.view !== "output") this.select(shared.view);
          });
        }
      }
    }

    // embedSnippets offers the two ways to put this block in another page.
    // Both keep what the block is: the script-tag form carries its id (so
    // links to it keep working), its controls and its label; the iframe
    // form carries a title of its own and the lines that let the frame
    // take the height its page asks for (see embedHeight).
    embedSnippets(embed, script, o) {
      const page = new URL(embed, location.href).href;
      const origin = new URL(page).origin;
      const title = "twice: " + (o.label || "playground");
      const attr = (s) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
      const iframe = embedIframe(page, title, origin);
      const esc = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
      const attrs =
        (o.id ? ' id="' + attr(o.id) + '"' : "") +
        (o.seed ? ' seed="' + attr(o.seed) + '"' : "") +
        (o.controls !== null && o.controls !== undefined ? ' controls="' + attr(o.controls) + '"' : "") +
        (o.label ? ' label="' + attr(o.label) + '"' : "");
      const tag =
        '<script src="' + assetURL("twice.js") + '" defer></script>\n' +
        "<twice-playground" + attrs + ">\n<pre>" + esc(script) + "</pre>\n</twice-playground>";
      const snippet = (title, text) => {
        // A URL breaks after its slashes and separators (<wbr>, which adds
        // no character to what is selected or copied), never inside a word.
        const pre = h("pre", { class: "snippet", tabindex: "0", "aria-label": title });
        for (const part of text.split(/(?<=[/?&=])(?=[^\s/])/)) pre.append(part, h("wbr"));
        const btn = h("button", { type: "button", class: "copy", text: "Copy" });
        btn.addEventListener("click", async () => {
          try {
            await navigator.clipboard.writeText(text);
            btn.textContent = "Copied";
          } catch (e) {
            const sel = getSelection();
            sel.selectAllChildren(pre);
            btn.textContent = "Press Ctrl+C";
          }
          setTimeout(() => (btn.textContent = "Copy"), 2000);
        });
        return h("div", { class: "snippet-box" }, h("p", { text: title }), pre, btn);
      };
      return h(
        "details",
        { class: "embed" },
        h("summary", { text: "Embed this block" }),
        snippet("By iframe (it takes the height of its content)", iframe),
        snippet("By script tag (the page's CSP must allow this origin, blob: workers and 'wasm-unsafe-eval')", tag)
      );
    }

    // copy puts text on the clipboard. Where the browser refuses (no
    // permission, not a secure context), it shows the text selected in a
    // field, so that Ctrl+C copies it.
    async copy(btn, text) {
      const ui = this.ui;
      const label = btn.dataset.label || (btn.dataset.label = btn.textContent);
      btn.dataset.copied = text;
      try {
        await navigator.clipboard.writeText(text);
        ui.copyBox.hidden = true;
        btn.textContent = "Copied";
        ui.status.textContent = label === "Copy link" ? "Link copied." : "Command copied.";
      } catch (e) {
        ui.copyField.value = text;
        ui.copyField.rows = Math.min(text.split("\n").length, 12);
        ui.copyBox.hidden = false;
        ui.copyField.focus();
        ui.copyField.select();
        btn.textContent = "Select and copy";
      }
      setTimeout(() => (btn.textContent = label), 2000);
    }

    // fit makes the script box exactly as tall as its content.
    fit() {
      const ta = this.ui.script;
      if (!ta.isConnected || ta.clientWidth === 0) return;
      const cs = getComputedStyle(ta);
      const border = parseFloat(cs.borderTopWidth) + parseFloat(cs.borderBottomWidth);
      ta.style.height = "auto";
      ta.style.height = Math.ceil(ta.scrollHeight + border) + "px";
    }

    setState(s) {
      this.setAttribute("state", s);
      this.ui.out.setAttribute("aria-busy", s === "loading" || s === "running" ? "true" : "false");
    }

    setClaim(c) {
      for (const r of this.ui.claims || []) r.checked = r.value === c;
    }

    // attach listens to the runtime's loading progress.
    attach(rt) {
      if (this.rt === rt) return;
      this.rt = rt;
      if (observer) observer.unobserve(this);
      rt.listeners.add(() => this.showLoading(rt));
      this.showLoading(rt);
    }

    showLoading(rt) {
      const ui = this.ui;
      if (rt.state === "loading") {
        ui.loading.hidden = false;
        ui.progress.max = rt.total || 1;
        ui.progress.value = Math.min(rt.loaded, rt.total || 1);
        ui.loading.lastChild.textContent =
          "Loading the runtime: " + formatBytes(rt.loaded) + " of " + formatBytes(rt.total) + " (WebAssembly, once per page)";
      } else {
        ui.loading.hidden = true;
      }
      if (rt.state === "failed" && this.getAttribute("state") !== "error") {
        ui.status.textContent = "The runtime failed to load; Run tries again.";
      }
    }

    // seedOK checks the seed field; it shows an error when it is bad.
    seedOK(seed) {
      if (seed === "" || (/^[0-9]+$/.test(seed) && BigInt(seed) <= MAX_SEED)) return true;
      this.showError("The seed must be a whole number from 0 to " + MAX_SEED + ".");
      return false;
    }

    // ---- tabs ----

    selectTab(view) {
      const ui = this.ui;
      this.view = view;
      for (const [key] of TABS) {
        const on = key === view;
        ui.tabs[key].setAttribute("aria-selected", on ? "true" : "false");
        ui.tabs[key].tabIndex = on ? 0 : -1;
      }
      ui.out.hidden = view !== "output";
      ui.tlPanel.hidden = view !== "timeline";
      if (view === "timeline" && this.tlSrc && ui.tlImg.getAttribute("src") !== this.tlSrc) ui.tlImg.src = this.tlSrc;
      ui.cmpPanel.hidden = view !== "compare";
      ui.expPanel.hidden = view !== "interleavings";
    }

    // select shows a view and fills it: the timeline needs a live run (the
    // server's output carries no trace), compare and every-ordering run
    // their own scripts when what they showed is stale.
    select(view, quiet) {
      this.selectTab(view);
      this.updateLink();
      if (view === "timeline") {
        if (!this.live && !this.busy) this.run();
        else this.renderTimeline();
      } else if (view === "compare") {
        this.compare(false);
      } else if (view === "interleavings" && !quiet) {
        this.explore(false);
      }
    }

    // ---- Stop, and what a link runs on load ----

    // request sends one run of this block to the runtime (key: which of the
    // block's runs it is; a newer one replaces a queued one) and shows Stop
    // while any is in flight.
    request(rt, script, seed, timeline, key) {
      const p = rt.run(script, seed, timeline, this, key);
      this.ui.stop.hidden = false;
      const done = () => {
        if (!(runtime && runtime.busy(this)) && !rt.busy(this)) this.ui.stop.hidden = true;
      };
      p.then(done, done);
      return p;
    }

    // stop ends this block's runs: the runtime's worker is terminated if it
    // is doing one, and a fresh one loads for the next Run.
    stop() {
      if (this.rt) this.rt.stop(this);
      if (runtime && runtime !== this.rt) runtime.stop(this);
      this.ui.stop.hidden = true;
    }

    // stopped shows that a run was stopped.
    stopped() {
      const ui = this.ui;
      ui.status.textContent = "Stopped. Run starts it again in a fresh runtime.";
      ui.run.removeAttribute("aria-busy");
      this.busy = false;
      this.setState(this.live ? "done" : "idle");
    }

    // runIfCheap calls go unless the parser estimates script as heavy (many
    // races, explored states or load jobs): a link or an embed must not
    // take a reader's tab on load. A heavy script waits for a press of Run.
    runIfCheap(script, go) {
      const rt = getRuntime();
      this.attach(rt);
      const own = script === this.ownScript;
      if (own && this.getAttribute("cost") === "heavy") {
        this.heavy("");
        return;
      }
      if (own && this.getAttribute("cost") === "light") {
        go();
        return;
      }
      this.ui.status.textContent = "Checking the linked script…";
      rt.cost(script, this).then(
        (c) => (c.heavy ? this.heavy(c.what) : go()),
        () => go() // the run reports what is wrong
      );
    }

    heavy(what) {
      const ui = this.ui;
      ui.heading.textContent =
        "Not run yet: this script is heavy by the parser's estimate" + (what ? " (" + what + ")" : "") + ", so it did not run on load. Press Run to run it; Stop ends it.";
      ui.status.textContent = "Waiting for Run.";
      this.setAttribute("heavy", "");
      this.setState(this.getAttribute("state") === "prerendered" ? "prerendered" : "idle");
    }

    // ---- the main run ----

    async run() {
      const ui = this.ui;
      const seq = ++this.seq;
      const script = ui.script.value;
      const seed = ui.seed.value.trim();
      if (!this.seedOK(seed)) return;
      const rt = getRuntime();
      this.attach(rt);
      this.busy = true;
      this.setState(rt.state === "ready" ? "running" : "loading");
      ui.status.textContent = rt.state === "ready" ? "Running…" : "Loading the runtime…";
      ui.run.setAttribute("aria-busy", "true");
      try {
        const m = await this.request(rt, script, seed, true, "main");
        if (seq !== this.seq) return;
        const res = JSON.parse(m.json);
        const ms = m.ms < 10 ? m.ms.toFixed(1) : Math.round(m.ms);
        this.live = true;
        this.ran = { script, seed: seedOf(m.json, res) };
        this.render(res, "Output at seed " + this.ran.seed + ", run in your browser.");
        this.step = this.pendingStep > 0 ? this.pendingStep : 0;
        this.pendingStep = 0;
        this.renderTimeline();
        if (res.error) this.setState("error");
        else this.setState("done");
        // The bar shows the time; the live region also says the outcome
        // (for the eye, the tally and the diagnosis are just below).
        const said = res.error ? "Failed: " + ui.error.textContent : announce(res, ms);
        const shown = res.error ? "Failed." : "Done in " + ms + " ms.";
        ui.status.replaceChildren(shown, h("span", { class: "sr", text: said.slice(shown.length) }));
        if (this.view === "compare") this.compare(false);
        if (this.view === "interleavings") this.explore(false);
      } catch (e) {
        if (seq !== this.seq) return;
        if (e.stopped) this.stopped();
        else this.showError(e.message);
      } finally {
        if (seq === this.seq) {
          ui.run.removeAttribute("aria-busy");
          this.busy = false;
        }
      }
    }

    showError(msg) {
      const ui = this.ui;
      ui.error.textContent = msg;
      ui.error.hidden = false;
      ui.status.textContent = "Failed.";
      this.setState("error");
    }

    // updateLink points "Link to this run" at the run shown, with the view
    // (and step) the reader is looking at.
    updateLink() {
      const ui = this.ui;
      if (!this.ran) return;
      ui.link.href = linkHash(this.id, {
        seed: this.ran.seed,
        script: this.ran.script,
        view: this.view,
        step: this.step + 1,
        workers: Number(ui.workers.value),
      });
      ui.link.hidden = false;
      ui.share.hidden = false;
    }

    render(res, heading) {
      const ui = this.ui;
      ui.out.classList.remove("empty");
      ui.heading.textContent = heading;
      this.result = res;
      if (res.error) {
        const e = res.error;
        ui.error.textContent = (e.line ? "line " + e.line + ":" + e.col + ": " : "") + e.msg;
        ui.error.hidden = false;
      } else {
        ui.error.hidden = true;
        ui.error.textContent = "";
      }
      const lines = res.transcript || [];
      ui.transcript.textContent = lines.length ? lines.join("\n") + "\n" : "";
      ui.transcript.hidden = lines.length === 0;
      // A matrix's text table is wider than the panel: scroll it, do not wrap it.
      ui.transcript.classList.toggle("wide", (res.matrices || []).length > 0);

      const races = res.races || [];
      ui.tally.replaceChildren();
      ui.tally.hidden = races.length === 0;
      let dups = 0;
      for (const r of races) {
        dups += r.duplicates;
        const strong = h("strong", { text: r.duplicates + " of " + r.races });
        const span = h("span", { class: "tally-item" + (r.duplicates ? " bad" : " good") });
        span.append("claim=" + r.claim + (r.dedupe && r.dedupe !== "off" ? ", dedupe=" + r.dedupe : "") + (r.key && r.key !== "none" ? ", key=" + r.key : "") + ": duplicate effects in ", strong, " races");
        ui.tally.append(span);
      }
      for (const l of res.loads || []) {
        dups += l.duplicates;
        const strong = h("strong", { text: l.duplicates + " of " + l.jobs });
        const span = h("span", { class: "tally-item" + (l.duplicates ? " bad" : " good") });
        span.append("lease " + l.lease_us / 1e6 + " s: duplicate effects in ", strong, " jobs");
        ui.tally.append(span);
      }
      ui.tally.hidden = races.length === 0 && (res.loads || []).length === 0;
      ui.tally.dataset.duplicates = String(dups);
      const chart = res.chart;
      ui.chart.hidden = !chart;
      if (chart) {
        // SVG drawn by the runtime (Go, escaped text), shown as an image.
        ui.chartImg.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(chart.svg);
        ui.chartImg.width = chart.width;
        ui.chartImg.height = chart.height;
        // On a phone, as the timeline, at least at the scale that makes its
        // smallest text 11 CSS px, scrolling sideways.
        ui.chartImg.style.setProperty("--chart-phone-width", Math.ceil((chart.width * 11) / (minFontSize(chart.svg) || 10)) + "px");
        const desc = /<desc[^>]*>([^<]*)<\/desc>/.exec(chart.svg);
        ui.chartImg.alt = "Chart of jobs with two effects by lease length: " + (desc ? desc[1] : "");
      } else {
        ui.chartImg.removeAttribute("src");
      }

      this.renderDiagnosis(res);
      this.renderMatrices(res);

      const effects = res.effects || [];
      this.fillTable(
        ui.effects,
        "Effects recorded by the receipts service (" + effects.length + ")",
        ["order", "job", "event", "run", "attempt", "send", "key", "worker", "arrival (ms)"],
        effects.map((e) => [e.order, e.job, e.event, e.run, e.attempt, "s" + e.send + (e.refused ? " refused" : "") + (e.replayed ? " replayed" : ""), e.key || "-", e.worker, formatMS(e.at_us)]),
        [false, true, false, false, true, false, false, false, true]
      );
      const jobs = res.jobs || [];
      this.fillTable(
        ui.jobs,
        "Jobs table (" + jobs.length + ")",
        ["id", "order", "event", "status", "attempts", "run", "lease (ms)"],
        jobs.map((j) => [j.id, j.order, j.event, j.status, j.attempts, j.run || "-", formatMS(j.lease_us)]),
        [true, false, false, false, true, false, true]
      );
      ui.effectsWrap.hidden = effects.length === 0 && jobs.length === 0;
      ui.jobsWrap.hidden = jobs.length === 0;
      // The ledger: committed rows, and the keys with no row beside them
      // (work claimed and never done).
      const ledger = res.ledger || [];
      const keys = res.keys || [];
      const rowKeys = new Set(ledger.map((l) => l.key));
      const lostKeys = keys.filter((k) => !rowKeys.has(k.key));
      this.fillTable(
        ui.ledger,
        "Ledger (" + ledger.length + " row(s), " + (res.key_hits || 0) + " duplicate-key hit(s))",
        ["id", "key", "order", "job", "run", "attempt"],
        ledger.map((l) => [l.id, l.key, l.order, l.job, l.run, l.attempt]).concat(lostKeys.map((k) => ["-", k.key, "no row: lost work", "", k.run, ""])),
        [true, false, false, true, false, true]
      );
      ui.ledgerWrap.hidden = ledger.length === 0 && keys.length === 0;
      // A run whose effects are ledger rows has no receipts to list.
      if (effects.length === 0 && !ui.ledgerWrap.hidden) ui.effectsWrap.hidden = true;
      this.updateLink();
    }

    // renderMatrices draws each matrix of the run as a table: a row per
    // scenario, a column per fix, each cell the effects of one live run
    // with its verdict. A cell's button puts the script that cell ran into
    // the editor and runs it.
    renderMatrices(res) {
      const ui = this.ui;
      const ms = res.matrices || [];
      ui.matrix.replaceChildren();
      ui.matrix.hidden = ms.length === 0;
      for (const m of ms) {
        const head = h(
          "tr",
          null,
          h("th", { scope: "col", text: "scenario" }),
          h("th", { scope: "col", class: "num", text: "events" }),
          ...m.fixes.map((f) => h("th", { scope: "col", title: f.title + ": " + f.change, class: f.pending ? "pending" : null, text: f.id }))
        );
        const rows = m.scenarios.map((r) =>
          h(
            "tr",
            null,
            h("th", { scope: "row", text: r.title }),
            h("td", { class: "num", text: String(r.events) }),
            ...r.cells.map((c, i) => {
              const label = matrixCellLabel(r, m.fixes[i], c);
              const td = h("td", { class: "cell " + c.verdict, "data-fix": c.fix, "data-scenario": r.id, "data-effects": String(c.effects) });
              if (c.script) {
                const btn = h("button", { type: "button", class: "cell-run", title: c.script + "(click to run this cell)", "aria-label": matrixCellText(c) + ": " + label + ". Run this cell", text: matrixCellText(c) });
                btn.addEventListener("click", () => {
                  ui.script.value = c.script;
                  ui.seed.value = String(m.seed);
                  this.run();
                });
                td.append(btn);
              } else {
                td.append(h("span", { "aria-label": label, text: matrixCellText(c) }));
              }
              return td;
            })
          )
        );
        const foot = h(
          "tr",
          null,
          h("th", { scope: "row", text: "closes" }),
          h("td", null),
          ...m.fixes.map((f) => h("td", { class: "closes", text: f.pending ? "-" : f.closes + " of " + m.scenarios.length }))
        );
        const table = h(
          "table",
          { class: "matrix" },
          h("caption", { text: "Which fix closes which duplicate, at seed " + m.seed + ": effects per scenario and fix, each cell a live run; one effect per event is right" }),
          h("thead", null, head),
          h("tbody", null, ...rows),
          h("tfoot", null, foot)
        );
        const key = h("dl", { class: "matrix-key" });
        for (const f of m.fixes) {
          key.append(h("div", null, h("dt", { text: f.id }), h("dd", { text: f.title + " (" + f.change + ")" + (f.pending ? ": pending" : "") })));
        }
        ui.matrix.append(h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": "Matrix of fixes and duplicates, " + this.label }, table), key);
      }
    }

    // renderDiagnosis explains each order's effects beside the effects
    // table: the verdict in plain words, the runtime's own sentence, and
    // the evidence that decided it (runs, attempts, sends, gap). Duplicates
    // come first; a few orders are shown, the rest are counted.
    renderDiagnosis(res) {
      const box = this.ui.diagnosis;
      box.replaceChildren();
      const sums = res.summary || [];
      if (sums.length === 0) {
        box.hidden = true;
        return;
      }
      const effectsOf = new Map();
      for (const e of res.effects || []) {
        if (!effectsOf.has(e.order)) effectsOf.set(e.order, []);
        effectsOf.get(e.order).push(e);
      }
      const jobOf = new Map((res.jobs || []).map((j) => [j.order, j]));
      const bad = (s) => !GOOD_KINDS.has(s.kind);
      const plan = diagnosisPlan(res);
      const shown = plan.shown;
      box.append(h("p", { class: "diag-title", text: "Diagnosis" }));
      if (plan.counts.length) {
        box.append(h("p", { class: "diag-scope", text: "Of the last lease run (" + plan.scope + "), whose effects and jobs the tables list:" }));
        const ul = h("ul", { class: "diag-counts" });
        for (const c of plan.counts) {
          ul.append(h("li", { class: GOOD_KINDS.has(c.kind) ? "good" : "bad" }, h("strong", { text: KIND_TITLE[c.kind] || c.kind }), ": " + c.n + (c.n === 1 ? " order" : " orders")));
        }
        box.append(ul);
      }
      for (const s of shown) {
        const effs = effectsOf.get(s.order) || [];
        const item = h("div", { class: "verdict kind-" + s.kind + (bad(s) ? " bad" : " good") });
        item.append(h("p", { class: "verdict-head" }, h("strong", { text: KIND_TITLE[s.kind] || s.kind }), document.createTextNode(" · " + s.order)));
        if (s.diagnosis) item.append(h("p", { class: "verdict-words", text: s.diagnosis }));
        const dl = h("dl", { class: "evidence", "aria-label": "Evidence for " + s.order });
        const add = (k, v) => dl.append(h("div", null, h("dt", { text: k }), h("dd", { text: v })));
        const runs = [...new Set(effs.map((e) => e.run))];
        add("effects", String(s.effects) + (s.refused ? " (and " + s.refused + " refused)" : "") + (s.replayed ? " (and " + s.replayed + " replayed)" : ""));
        const jobIds = [...new Set(effs.map((e) => e.job))];
        if (jobIds.length > 1) add("jobs", jobIds.join(", "));
        if (jobIds.length > 1) add("events", effs.map((e) => e.event).join(", "));
        if (effs.some((e) => e.key)) add("keys", effs.map((e) => (e.key || "none") + (e.replayed ? " (replayed)" : "")).join(", "));
        add("runs", runs.length + (runs.length ? ": " + runs.join(", ") : ""));
        const job = jobOf.get(s.order);
        add("attempts", effs.map((e) => "a" + e.attempt).join(", ") + (job ? " (job row: attempts=" + job.attempts + ")" : ""));
        add("sends", effs.map((e) => "s" + e.send).join(", "));
        // The gap is the runtime's own string (the summary's span, which
        // the transcript's "over" and the diagnosis's "apart" print too),
        // never formatted again here, so the three cannot disagree.
        if (s.effects > 1) add("gap", s.span + " from the first effect to the last");
        item.append(dl);
        box.append(item);
      }
      if (plan.more > 0) {
        box.append(h("p", { class: "more", text: "…and " + plan.more + " more order(s); the effects table lists them all." }));
      }
      box.hidden = false;
    }

    // fillTable fills a table; mark(i) may return {row: true, cells: [j]}
    // to highlight row i and some of its cells.
    fillTable(table, caption, cols, rows, numeric, mark) {
      const shown = rows.slice(0, MAX_ROWS);
      let cap = caption;
      if (rows.length > shown.length) cap += ", showing the first " + shown.length;
      const head = h("tr", null, ...cols.map((c, i) => h("th", { scope: "col", class: numeric[i] ? "num" : null, text: c })));
      const body = h(
        "tbody",
        null,
        ...shown.map((r, ri) => {
          const m = mark ? mark(ri) : null;
          return h(
            "tr",
            { class: m && m.row ? "changed" : null },
            ...r.map((v, i) =>
              h("td", { class: [numeric[i] ? "num" : "", m && m.cells && m.cells.includes(i) ? "diff" : ""].join(" ").trim() || null, text: String(v) })
            )
          );
        })
      );
      if (shown.length === 0) {
        body.append(h("tr", null, h("td", { colspan: String(cols.length), class: "none", text: "none" })));
      }
      table.replaceChildren(h("caption", { text: cap }), h("thead", null, head), body);
    }

    // ---- timeline and step-through ----

    renderTimeline() {
      const ui = this.ui;
      const res = this.result;
      if (!this.live || !res) {
        ui.tlNote.textContent = "The timeline and the step-through come from a run in your browser: press Run.";
        ui.tlFig.hidden = true;
        ui.stepper.hidden = true;
        return;
      }
      const trace = res.trace || [];
      const tl = res.timeline;
      const notes = [];
      if ((res.races || []).length) notes.push("A race command is drawn and stepped through for its first race, the one whose lines the transcript prints.");
      if ((res.explorations || []).length) notes.push("race --all explores orderings, not timings: see Every ordering.");
      if (tl && typeof tl.svg === "string" && /^<svg[\s>]/.test(tl.svg) && tl.width > 0) {
        // The picture is decoded only once its tab is shown: decoding the
        // first SVG image of a page blocks the main thread for hundreds of
        // ms, which would delay the first result (see docs/PERFORMANCE.md).
        this.tlSrc = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(tl.svg);
        if (!ui.tlPanel.hidden) ui.tlImg.src = this.tlSrc;
        else ui.tlImg.removeAttribute("src");
        ui.tlImg.width = tl.width;
        ui.tlImg.height = tl.height;
        // On a phone the picture is drawn at least at the scale that makes
        // its smallest text 11 CSS px, and scrolls sideways.
        const font = minFontSize(tl.svg) || 10;
        ui.tlInner.style.setProperty("--tl-phone-width", Math.ceil((tl.width * 11) / font) + "px");
        ui.tlImg.alt = this.timelineAlt(trace);
        ui.tlFig.hidden = false;
      } else {
        this.tlSrc = "";
        ui.tlImg.removeAttribute("src");
        ui.tlFig.hidden = true;
        notes.push("No worker ran in this script, so there is no timeline to draw.");
      }
      ui.tlNote.textContent = notes.join(" ");
      ui.tlNote.hidden = notes.length === 0;
      ui.stepper.hidden = trace.length === 0;
      if (trace.length) this.goStep(this.step);
      else ui.tlCursor.hidden = true;
    }

    // timelineAlt describes the picture for readers who cannot see it.
    timelineAlt(trace) {
      const lanes = [...new Set(trace.map((e) => e.proc).filter((p) => p !== "shell" && p !== "receipts"))];
      const seen = new Map();
      let effects = 0;
      let dups = 0;
      for (const e of trace) {
        if (e.kind === "reset") seen.clear();
        if (!e.effect) continue;
        effects++;
        const k = e.effect.order;
        if (seen.has(k)) dups++;
        seen.set(k, true);
      }
      return (
        "Timeline: lanes for " + (lanes.join(", ") || "no worker") + " and the receipts service; " +
        effects + " effect(s)" + (dups ? ", " + dups + " of them a duplicate, highlighted" : ", no duplicate") +
        ". The step-through below describes every event."
      );
    }

    goStep(k) {
      const ui = this.ui;
      const trace = (this.result && this.result.trace) || [];
      if (!trace.length) return;
      k = Math.max(0, Math.min(trace.length - 1, k));
      this.step = k;
      const ev = trace[k];
      const st = replay(trace, k);
      ui.stepCount.textContent = "Step " + (k + 1) + " of " + trace.length;
      ui.prev.setAttribute("aria-disabled", k === 0 ? "true" : "false");
      ui.next.setAttribute("aria-disabled", k === trace.length - 1 ? "true" : "false");
      ui.stepWhat.replaceChildren(
        h("span", { class: "step-at", text: formatMS(ev.at_us) + " ms" }),
        h("span", { class: "step-proc proc-" + (ev.proc === "receipts" || ev.proc === "shell" ? ev.proc : "worker"), text: ev.proc }),
        h("span", { class: "step-words", text: ev.step })
      );
      ui.stepWhat.dataset.kind = ev.kind;

      // What changed, in words.
      let change = "The tables did not change.";
      let jobCells = [];
      if (st.reset) change = "The tables were emptied.";
      if (st.changedJob !== null) {
        const j = st.jobs.find((x) => x.id === st.changedJob);
        const p = st.prevJob;
        if (!p) {
          change = "Job " + j.id + " (" + j.order + ") added to the jobs table.";
          jobCells = [0, 1, 2, 3, 4, 5, 6];
        } else {
          const diffs = [];
          const cmp = [
            [3, "status", p.status, j.status],
            [4, "attempts", p.attempts, j.attempts],
            [5, "run", p.run || "-", j.run || "-"],
            [6, "lease", formatMS(p.lease_us), formatMS(j.lease_us)],
          ];
          for (const [col, name, a, b] of cmp) {
            if (a !== b) {
              diffs.push(name + " " + a + " → " + b);
              jobCells.push(col);
            }
          }
          change = "Job " + j.id + ": " + (diffs.length ? diffs.join(", ") : "written, unchanged") + ".";
        }
      }
      if (st.newEffect >= 0) {
        const e = st.effects[st.newEffect];
        const again = st.effects.slice(0, st.newEffect).some((x) => x.order === e.order && !x.replayed);
        change = "Effect " + (st.newEffect + 1) + " recorded: " + e.order + " from run " + e.run + " a" + e.attempt + " s" + e.send + (again ? ", a second effect for this order: the duplicate." : ".");
        if (e.ledger) change = "Effect " + (st.newEffect + 1) + " committed: a ledger row for " + e.order + " from run " + e.run + " a" + e.attempt + ", with its key " + e.key + " and the ack, in one COMMIT" + (again ? "; a second effect for this order: the duplicate." : ".");
        if (e.replayed) change = "Request " + (st.newEffect + 1) + " replayed: " + e.order + " from run " + e.run + " carried key " + e.key + ", already stored by run " + e.first_run + "; no effect, the first answer again.";
      }
      ui.stepChange.textContent = change;
      ui.stepChange.classList.toggle("bad", st.newEffect >= 0 && /duplicate/.test(change));

      this.fillTable(
        ui.stepEffects,
        "Effects after this step (" + st.effects.length + ")",
        ["order", "run", "attempt", "send", "worker", "arrival (ms)"],
        st.effects.map((e) => [e.order, e.run, e.attempt, e.ledger ? "ledger row" : "s" + e.send, e.worker, formatMS(e.at_us)]),
        [false, false, true, false, false, true],
        (i) => (i === st.newEffect ? { row: true, cells: [0, 1, 2, 3, 4, 5] } : null)
      );
      this.fillTable(
        ui.stepJobs,
        "Jobs after this step (" + st.jobs.length + ")",
        ["id", "order", "event", "status", "attempts", "run", "lease (ms)"],
        st.jobs.map((j) => [j.id, j.order, j.event, j.status, j.attempts, j.run || "-", formatMS(j.lease_us)]),
        [true, false, false, false, true, false, true],
        (i) => (st.jobs[i].id === st.changedJob ? { row: true, cells: jobCells } : null)
      );
      ui.stepLive.textContent = "Step " + (k + 1) + " of " + trace.length + ", at " + formatMS(ev.at_us) + " ms, " + ev.proc + ": " + ev.step + ". " + change;

      // The cursor on the timeline.
      const tl = this.result.timeline;
      const x = tl && tl.event_x ? tl.event_x[k] : undefined;
      if (typeof x === "number" && tl.width > 0 && !ui.tlFig.hidden) {
        const frac = x / tl.width;
        ui.tlCursor.style.left = (frac * 100).toFixed(3) + "%";
        ui.tlCursor.hidden = false;
        const sc = ui.tlScroll;
        const px = frac * ui.tlInner.clientWidth;
        if (px < sc.scrollLeft + 16 || px > sc.scrollLeft + sc.clientWidth - 16) {
          sc.scrollLeft = Math.max(0, px - sc.clientWidth / 2);
        }
      } else {
        ui.tlCursor.hidden = true;
      }
      if (this.view === "timeline") this.updateLink();
    }

    // ---- compare claims ----

    async compare(force) {
      const ui = this.ui;
      const script = ui.script.value;
      const seed = ui.seed.value.trim();
      const key = script + "\u0000" + seed;
      if (!force && key === this.cmpKey) return;
      if (!this.seedOK(seed)) return;
      this.cmpKey = key;
      const seq = ++this.cmpSeq;
      const claims = toggleClaims().map((c) => c.name);
      const scripts = claims.map((c) => rewriteClaim(script, c));
      ui.cmpPanel.dataset.state = "running";
      ui.cmpPanel.setAttribute("aria-busy", "true");
      ui.cmpNote.textContent = "Running the script with each claim…";
      const rt = getRuntime();
      this.attach(rt);
      try {
        const outs = await Promise.all(scripts.map((s, i) => this.request(rt, s, seed, false, "cmp-" + claims[i])));
        if (seq !== this.cmpSeq) return;
        const results = outs.map((o) => JSON.parse(o.json));
        ui.cmpNote.textContent = scripts.every((s) => s === scripts[0])
          ? "This script has no race or work command, so the claim changes nothing: both sides ran the same script."
          : "The same script at seed " + seedOf(outs[0].json, results[0]) + ", once with each claim. Same seed, same draws: only the claim differs.";
        ui.cmpPanes.replaceChildren(...claims.map((c, i) => this.pane(c, results[i])));
        ui.cmpPanel.dataset.state = "done";
      } catch (e) {
        if (seq !== this.cmpSeq) return;
        this.cmpKey = null;
        ui.cmpNote.textContent = "Compare failed: " + e.message;
        ui.cmpPanel.dataset.state = "error";
      } finally {
        if (seq === this.cmpSeq) ui.cmpPanel.setAttribute("aria-busy", "false");
      }
    }

    pane(claim, res) {
      const sec = h("section", { class: "pane pane-" + claim, "aria-label": "claim=" + claim + ", " + this.label });
      sec.append(h("p", { class: "pane-title" }, h("code", { text: "claim=" + claim }), h("span", { class: "pane-sub", text: claimWords(claim) })));
      if (res.error) {
        const e = res.error;
        sec.append(h("p", { class: "error", text: (e.line ? "line " + e.line + ":" + e.col + ": " : "") + e.msg }));
      }
      let dups = 0;
      for (const r of res.races || []) {
        dups += r.duplicates;
        const p = h("p", { class: "tally-item " + (r.duplicates ? "bad" : "good") });
        p.append("duplicate effects in ", h("strong", { text: r.duplicates + " of " + r.races }), " races");
        sec.append(p);
      }
      const effects = res.effects || [];
      const runs = new Set(effects.map((e) => e.run)).size;
      const bad = (res.summary || []).filter((s) => s.kind !== "once" && s.kind !== "redelivery");
      dups += bad.length;
      const verdict = h("p", { class: "pane-verdict " + (bad.length ? "bad" : "good") });
      verdict.append(
        h("strong", { text: bad.length ? KIND_TITLE[bad[0].kind] || bad[0].kind : effects.length ? "No duplicate effect" : "No effects" }),
        document.createTextNode(" · " + effects.length + " effect(s) from " + runs + " run(s) at the end")
      );
      sec.append(verdict);
      sec.dataset.duplicates = String(dups);
      const lines = res.transcript || [];
      sec.append(h("pre", { class: "transcript compact", tabindex: "0", role: "region", "aria-label": "Transcript with claim=" + claim + ", " + this.label, text: lines.join("\n") + (lines.length ? "\n" : "") }));
      return sec;
    }

    // ---- every ordering ----

    async explore(force) {
      const ui = this.ui;
      // Every claim the script uses is checked: a block that races both
      // claims gets both counts, each under its claim's name.
      const claims = claimsOf(ui.script.value);
      const workers = Number(ui.workers.value) || 2;
      const svc = serviceOf(ui.script.value);
      const key = claims.join(",") + "/" + workers + "/" + svc.dedupe + "/" + svc.key;
      if (!force && key === this.expKey) return;
      this.expKey = key;
      const seq = ++this.expSeq;
      const src = exploreScript(claims, workers, svc);
      ui.expCmd.textContent = src.trim().replace(/\n/g, "; ");
      ui.expPanel.dataset.state = "running";
      ui.expPanel.setAttribute("aria-busy", "true");
      ui.expHead.textContent = "Checking every ordering of " + workers + " workers with " + claims.map((c) => "claim=" + c).join(" and ") + "…";
      ui.expBody.replaceChildren();
      const rt = getRuntime();
      this.attach(rt);
      try {
        const m = await this.request(rt, src, "", false, "explore");
        if (seq !== this.expSeq) return;
        const res = JSON.parse(m.json);
        const xs = res.explorations || [];
        if (res.error || xs.length !== claims.length) {
          throw new Error(res.error ? res.error.msg : "the runtime reported " + xs.length + " exploration(s) for " + claims.length + " claim(s)");
        }
        this.renderExplorations(xs, m.ms);
        ui.expPanel.dataset.state = "done";
      } catch (e) {
        if (seq !== this.expSeq) return;
        this.expKey = null;
        ui.expHead.textContent = "The check failed: " + e.message;
        ui.expPanel.dataset.state = "error";
      } finally {
        if (seq === this.expSeq) ui.expPanel.setAttribute("aria-busy", "false");
      }
    }

    renderExplorations(xs, ms) {
      const ui = this.ui;
      const heads = [];
      const body = [];
      for (const x of xs) {
        const none = x.duplicating === "0";
        const head = h("span", { class: "exp-line" });
        head.append(
          h("strong", { class: none ? "good" : "bad", text: groupDigits(x.duplicating) + " of " + groupDigits(x.orderings) }),
          document.createTextNode(
            " interleavings of " + x.workers + " workers give two effects with claim=" + x.claim + (x.dedupe && x.dedupe !== "off" && x.key && x.key !== "none" ? ", the service's dedupe=" + x.dedupe + " and key=" + x.key : "") + "."
          )
        );
        heads.push(head);
        const part = h("div", { class: "exp-claim", "data-claim": x.claim });
        if (xs.length > 1) part.append(h("p", { class: "exp-claim-title", text: "claim=" + x.claim }));
        if (none) {
          part.append(
            h("p", { class: "proof good", text: "Every ordering was checked, none duplicates: for " + x.workers + " workers this is a proof, not a sample." })
          );
        } else {
          part.append(h("p", { class: "shortest-label", text: "The shortest ordering that duplicates:" }));
          part.append(
            h(
              "ol",
              { class: "shortest" },
              ...(x.shortest || []).map((s) => h("li", null, h("span", { class: "who", text: s.worker }), document.createTextNode(" " + s.what)))
            )
          );
        }
        part.append(h("p", { class: "exp-method", text: "How: " + x.method + " (" + x.states + " distinct states)." }));
        body.push(part);
      }
      const time = xs.length > 1 ? "Both claims checked in " : "Checked in ";
      body.push(h("p", { class: "exp-time", text: time + (ms < 10 ? ms.toFixed(1) : Math.round(ms)) + " ms in your browser. Timing is ignored: only the order of the workers' steps counts." }));
      ui.expHead.replaceChildren(...heads);
      ui.expBody.replaceChildren(...body);
    }
  }

  // An embed page of the site, shown in a frame, tells the page around it
  // how tall it is whenever that changes, so that the iframe snippet can
  // fit the frame to it (no scrolling inside the frame). A page that loads
  // this script through the script tag is never an embed page.
  if (document.documentElement && document.documentElement.dataset && document.documentElement.dataset.twicePage === "embed" && window.parent !== window && "ResizeObserver" in window) {
    let last = 0;
    new ResizeObserver(() => {
      const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
      if (height === last) return;
      last = height;
      window.parent.postMessage({ type: "twice:height", height }, "*");
    }).observe(document.documentElement);
  }

  // Exposed for tests and for pages that build scripts themselves.
  window.TwicePlayground = {
    rewriteClaim,
    claimOf,
    parseLink,
    linkHash,
    shellQuote,
    commandFor,
    workersOf,
    exploreScript,
    serviceOf,
    claimsOf,
    announce,
    diagnosisPlan,
    embedIframe,
    minFontSize,
    replay,
    seedOf,
    formatMS,
    formatBytes,
    matrixCellText,
    matrixCellLabel,
    groupDigits,
    nearestStep,
    config: CONFIG,
    // timings: the runtime's start-up phases (see worker.js), in ms since
    // this page's navigation started, and how the module came (info), once
    // it has loaded; for measurements.
    timings: () => {
      if (!runtime || !runtime.marks) return null;
      const t = { created: runtime.created - performance.timeOrigin };
      if (runtime.received) t.received = runtime.received - performance.timeOrigin;
      for (const [k, v] of Object.entries(runtime.marks)) t[k] = v - performance.timeOrigin;
      return Object.assign(t, runtime.info);
    },
  };
  customElements.define("twice-playground", TwicePlayground);
})();
