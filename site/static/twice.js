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
  // and view parameters existed (#ID?seed=N&script=TEXT) still work.
  function parseLink(hash, id) {
    const prefix = "#" + id + "?";
    if (!id || !hash.startsWith(prefix)) return null;
    const p = new URLSearchParams(hash.slice(prefix.length));
    let script = p.get("script");
    const seed = p.get("seed") || "";
    if (script === null || !/^[0-9]*$/.test(seed)) return null;
    const claim = p.get("claim");
    if (toggleClaims().some((c) => c.name === claim) && claimOf(script) !== claim) {
      script = rewriteClaim(script, claim);
    }
    const view = VIEWS.includes(p.get("view")) ? p.get("view") : "output";
    const step = /^[1-9][0-9]{0,6}$/.test(p.get("step") || "") ? Number(p.get("step")) : 1;
    const w = Number(p.get("workers"));
    const workers = Number.isInteger(w) && w >= 2 && w <= 8 ? w : 0;
    return { script, seed, claim: claimOf(script), view, step, workers };
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

  // exploreScript is what "Check every interleaving" runs for a script: a
  // race of the script's claim (the one the claim toggle shows), explored
  // exhaustively with the given number of workers. It is derived, not the
  // script's own race lines with --all appended, because a script may have
  // no race at all (a work command still has a claim), several, or race
  // lines wrapped in the article's shell syntax; the question "can this
  // claim duplicate under any ordering?" depends on the claim only.
  // With svc (from serviceOf) naming a dedupe mode and a key, the
  // service's key steps are explored too.
  function exploreScript(claim, workers, svc) {
    const keyed = svc && svc.dedupe && svc.key;
    return (
      (keyed ? "service --dedupe " + svc.dedupe + "\n" : "") +
      "race " + claim + " --all" + (workers && workers !== 2 ? " --workers " + workers : "") + (keyed ? " --key " + svc.key : "") + "\n"
    );
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

  // groupDigits writes a decimal string with thousands separators; the
  // counts of orderings are strings because they outgrow JS numbers.
  function groupDigits(s) {
    return /^[0-9]+$/.test(s) ? BigInt(s).toLocaleString("en-US") : String(s);
  }

  // formatGap writes a duration in microseconds as ms below a second, as s
  // above (integer arithmetic, like formatMS).
  function formatGap(us) {
    if (us >= 1000000) {
      return Math.floor(us / 1000000) + "." + String(Math.floor((us % 1000000) / 1000)).padStart(3, "0") + " s";
    }
    return formatMS(us) + " ms";
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

  // Runtime owns the worker that holds the wasm module. Loading starts when
  // it is created; listeners hear about progress.
  class Runtime {
    constructor() {
      this.listeners = new Set();
      this.pending = new Map();
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
        case "error": {
          const p = this.pending.get(m.id);
          if (!p) return;
          this.pending.delete(m.id);
          if (m.marks) this.marks = m.marks;
          if (m.info) this.info = m.info;
          if (!this.received) this.received = performance.timeOrigin + performance.now();
          if (m.type === "result") p.resolve(m);
          else p.reject(new Error(m.message));
          break;
        }
      }
    }

    fail(message) {
      this.state = "failed";
      this.error = message;
      for (const p of this.pending.values()) p.reject(new Error(message));
      this.pending.clear();
      this.worker.terminate();
      if (runtime === this) runtime = null; // the next Run starts afresh
      this.notify();
    }

    notify() {
      for (const f of this.listeners) f(this);
    }

    run(script, seed, timeline) {
      return new Promise((resolve, reject) => {
        if (this.state === "failed") {
          reject(new Error(this.error));
          return;
        }
        const id = this.nextID++;
        this.pending.set(id, { resolve, reject });
        this.worker.postMessage({ type: "run", id, script, seed, timeline: !!timeline });
      });
    }
  }

  function getRuntime() {
    if (runtime === null) {
      runtime = new Runtime();
      for (const el of document.querySelectorAll("twice-playground")) {
        if (el.attach) el.attach(runtime);
      }
    }
    return runtime;
  }

  // Blocks scrolling into view start the download, so that Run is quick.
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

  // The diagnosis kinds of script.Summary, in plain words.
  const KIND_TITLE = {
    once: "Ran once",
    "lease-expired": "Lease expired under finished work",
    "claim-race": "Claim race: two workers took one delivery",
    "client-retry": "Client retry: one execution sent twice",
    redelivery: "Redelivered, with no second effect",
    fenced: "Fenced: a stale run's receipt was refused",
    "slow-processing": "Processing outlived the lease",
    stall: "A stall outlived the lease",
    redone: "Claimed again after it was done",
    "two-jobs": "Two events for one order: two jobs",
    "publish-twice": "The producer published one event twice",
    redriven: "Redelivered by hand after it was done",
    deduped: "Deduplicated: the service replayed the first answer",
    swallowed: "Swallowed: a second event got the first one's answer",
    mixed: "More than one cause",
    unknown: "The evidence cannot tell",
  };
  // Kinds with no duplicate effect.
  const GOOD_KINDS = new Set(["once", "redelivery", "fenced", "deduped"]);

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
      const label = this.getAttribute("label") || "twice script";

      const root = this.attachShadow({ mode: "open" });
      root.append(h("link", { rel: "stylesheet", href: assetURL(CONFIG.css) }));

      const ui = {};
      ui.run = h("button", { type: "button", class: "run", text: "Run" });
      ui.bar = h("div", { class: "bar" }, ui.run);
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
        title: "Count, exactly, the orderings of two racing workers' steps that give two effects with this claim",
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
        rows: String(Math.min(Math.max(script.split("\n").length - 1, 2), 14)),
      });
      ui.script.value = script;

      ui.progress = h("progress", { max: "1", value: "0", "aria-label": "Loading the runtime" });
      ui.loading = h("div", { class: "loading", hidden: true }, ui.progress, h("span", { class: "loading-text" }));

      // Tabs: Output first and selected, the rest one click away.
      ui.tablist = h("div", { class: "tabs", role: "tablist", "aria-label": "Views of the run" });
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
      ui.transcript = h("pre", { class: "transcript", tabindex: "0", "aria-label": "Transcript" });
      ui.tally = h("p", { class: "tally", hidden: true });
      ui.chartImg = h("img", { alt: "" });
      ui.chart = h("figure", { class: "load-chart", hidden: true }, ui.chartImg);
      ui.matrix = h("div", { class: "matrix-wrap", hidden: true });
      ui.diagnosis = h("section", { class: "diagnosis", "aria-label": "Diagnosis", hidden: true });
      ui.effects = h("table", { class: "effects" });
      ui.jobs = h("table", { class: "jobs" });
      ui.effectsWrap = h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": "Effects table" }, ui.effects);
      ui.jobsWrap = h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": "Jobs table" }, ui.jobs);
      ui.ledger = h("table", { class: "ledger" });
      ui.ledgerWrap = h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": "Ledger table", hidden: true }, ui.ledger);
      ui.heading = h("p", { class: "out-heading" });
      ui.link = h("a", { class: "permalink", hidden: true, text: "Link to this run" });
      ui.copyLink = h("button", { type: "button", class: "copy-link small", text: "Copy link" });
      ui.copyCmd = h("button", { type: "button", class: "copy-cmd small", text: "Copy as command", title: "twice run --seed N -c '…': the same run in a terminal" });
      ui.share = h("div", { class: "share", hidden: true }, ui.link, ui.copyLink, ui.copyCmd);
      ui.copyField = h("input", { class: "copy-field", type: "text", readonly: true, "aria-label": "Text to copy (press Ctrl+C)" });
      ui.copyBox = h("p", { class: "copy-box", hidden: true }, h("span", { text: "Press Ctrl+C to copy: " }), ui.copyField);
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
      ui.tlScroll = h("div", { class: "tl-scroll", tabindex: "0", role: "region", "aria-label": "Timeline picture (scrolls sideways on narrow screens)" }, ui.tlInner);
      ui.tlLegend = h("figcaption", {
        class: "tl-legend",
        text: "One lane per worker and one for the receipts service. Bars: leases; ticks: SQL statements; dots: effects, the duplicate in red; crosses: kills. A dashed break skips a long wait. Tap or click the picture to jump to the step drawn there.",
      });
      ui.tlFig = h("figure", { class: "timeline", hidden: true }, ui.tlScroll, ui.tlLegend);
      ui.prev = h("button", { type: "button", class: "step-btn prev", "aria-label": "Previous step", text: "◀ Back" });
      ui.next = h("button", { type: "button", class: "step-btn next", "aria-label": "Next step", text: "Next ▶" });
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
          h("div", { class: "table-wrap", role: "region", "aria-label": "Effects at this step" }, ui.stepEffects),
          h("div", { class: "table-wrap", role: "region", "aria-label": "Jobs at this step" }, ui.stepJobs)
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
      if (embed) box.append(this.embedSnippets(embed, script, defaultSeed));
      root.append(box);
      this.ui = ui;
      this.seq = 0;
      this.cmpSeq = 0;
      this.expSeq = 0;
      this.step = 0;
      this.view = "output";
      this.id = this.id || "twice-" + n;

      this.setClaim(claimOf(script));
      ui.workers.value = String(workersOf(script));
      ui.run.addEventListener("click", () => this.run());
      ui.script.addEventListener("keydown", (e) => {
        if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
          e.preventDefault();
          this.run();
        }
      });
      ui.script.addEventListener("input", () => this.setClaim(claimOf(ui.script.value)));
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
      else if (observer) observer.observe(this);

      // A link made by "Link to this run" or "Copy link" replays that run,
      // and reopens the view it was taken from.
      const shared = parseLink(location.hash, this.id);
      if (shared) {
        ui.script.value = shared.script;
        ui.seed.value = shared.seed;
        this.setClaim(shared.claim);
        if (shared.workers) {
          ui.workers.value = String(shared.workers);
          this.workersTouched = true;
        }
        this.pendingStep = shared.step - 1;
        requestAnimationFrame(() => this.scrollIntoView());
        this.run();
        if (shared.view !== "output") this.select(shared.view);
      }
    }

    embedSnippets(embed, script, seed) {
      const page = new URL(embed, location.href).href;
      const iframe = '<iframe src="' + page + '" title="twice playground" width="100%" height="640" loading="lazy"></iframe>';
      const esc = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
      const tag =
        '<script src="' + assetURL("twice.js") + '" defer></script>\n' +
        "<twice-playground" + (seed ? ' seed="' + seed + '"' : "") + ">\n<pre>" + esc(script) + "</pre>\n</twice-playground>";
      const snippet = (title, text) => {
        const pre = h("pre", { class: "snippet", tabindex: "0", "aria-label": title, text });
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
        snippet("By iframe", iframe),
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
        ui.copyBox.hidden = false;
        ui.copyField.focus();
        ui.copyField.select();
        btn.textContent = "Select and copy";
      }
      setTimeout(() => (btn.textContent = label), 2000);
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
        const m = await rt.run(script, seed, true);
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
        ui.status.textContent = res.error ? "Failed." : "Done in " + ms + " ms.";
        if (this.view === "compare") this.compare(false);
        if (this.view === "interleavings") this.explore(false);
      } catch (e) {
        if (seq !== this.seq) return;
        this.showError(e.message);
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
                const btn = h("button", { type: "button", class: "cell-run", title: c.script + "(click to run this cell)", "aria-label": label + ". Run this cell", text: matrixCellText(c) });
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
        ui.matrix.append(h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": "Matrix of fixes and duplicates" }, table), key);
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
      const ordered = [...sums.filter(bad), ...sums.filter((s) => !bad(s))];
      const shown = ordered.slice(0, 3);
      box.append(h("h3", { text: "Diagnosis" }));
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
        // The gap as the transcript and the diagnosis print it, so the
        // three agree.
        if (s.effects > 1) add("gap", s.span + " from the first effect to the last");
        item.append(dl);
        box.append(item);
      }
      if (ordered.length > shown.length) {
        box.append(h("p", { class: "more", text: "…and " + (ordered.length - shown.length) + " more order(s); the effects table lists them all." }));
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
        const outs = await Promise.all(scripts.map((s) => rt.run(s, seed, false)));
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
      const sec = h("section", { class: "pane pane-" + claim, "aria-label": "claim=" + claim });
      sec.append(h("h3", null, h("code", { text: "claim=" + claim }), h("span", { class: "pane-sub", text: claimWords(claim) })));
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
      sec.append(h("pre", { class: "transcript compact", tabindex: "0", "aria-label": "Transcript with claim=" + claim, text: lines.join("\n") + (lines.length ? "\n" : "") }));
      return sec;
    }

    // ---- every ordering ----

    async explore(force) {
      const ui = this.ui;
      const claim = claimOf(ui.script.value);
      const workers = Number(ui.workers.value) || 2;
      const svc = serviceOf(ui.script.value);
      const key = claim + "/" + workers + "/" + svc.dedupe + "/" + svc.key;
      if (!force && key === this.expKey) return;
      this.expKey = key;
      const seq = ++this.expSeq;
      const src = exploreScript(claim, workers, svc);
      ui.expCmd.textContent = src.trim();
      ui.expPanel.dataset.state = "running";
      ui.expPanel.setAttribute("aria-busy", "true");
      ui.expHead.textContent = "Checking every ordering of " + workers + " workers with claim=" + claim + "…";
      ui.expBody.replaceChildren();
      const rt = getRuntime();
      this.attach(rt);
      try {
        const m = await rt.run(src, "", false);
        if (seq !== this.expSeq) return;
        const res = JSON.parse(m.json);
        const x = (res.explorations || [])[0];
        if (res.error || !x) {
          throw new Error(res.error ? res.error.msg : "the runtime reported no exploration");
        }
        this.renderExploration(x, m.ms);
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

    renderExploration(x, ms) {
      const ui = this.ui;
      const none = x.duplicating === "0";
      ui.expHead.replaceChildren(
        h("strong", { class: none ? "good" : "bad", text: groupDigits(x.duplicating) + " of " + groupDigits(x.orderings) }),
        document.createTextNode(
          " interleavings of " + x.workers + " workers give two effects with claim=" + x.claim + (x.dedupe && x.dedupe !== "off" && x.key && x.key !== "none" ? ", the service's dedupe=" + x.dedupe + " and key=" + x.key : "") + "."
        )
      );
      const body = [];
      if (none) {
        body.push(
          h("p", { class: "proof good", text: "Every ordering was checked, none duplicates: for " + x.workers + " workers this is a proof, not a sample." })
        );
      } else {
        body.push(h("p", { class: "shortest-label", text: "The shortest ordering that duplicates:" }));
        body.push(
          h(
            "ol",
            { class: "shortest" },
            ...(x.shortest || []).map((s) => h("li", null, h("span", { class: "who", text: s.worker }), document.createTextNode(" " + s.what)))
          )
        );
      }
      body.push(h("p", { class: "exp-method", text: "How: " + x.method + " (" + x.states + " distinct states)." }));
      body.push(h("p", { class: "exp-time", text: "Checked in " + (ms < 10 ? ms.toFixed(1) : Math.round(ms)) + " ms in your browser. Timing is ignored: only the order of the workers' steps counts." }));
      ui.expBody.replaceChildren(...body);
    }
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
    replay,
    seedOf,
    formatMS,
    formatGap,
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
