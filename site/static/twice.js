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
  const CONFIG = /*TWICE_CONFIG*/ { worker: "worker.js", wasmExec: "wasm_exec.js", wasm: "twice.wasm", wasmSize: 0, css: "playground.css" };

  const here = document.currentScript ? document.currentScript.src : location.href;
  const assetURL = (name) => new URL(name, here).href;
  const MAX_ROWS = 200;
  const MAX_SEED = 18446744073709551615n;

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

  // claimOf reports the claim a script uses: "atomic" when any race or work
  // command names lock or atomic, else "read" (the default claim).
  function claimOf(src) {
    for (const line of src.split("\n")) {
      const code = stripComment(line);
      if (/(^|[\s(;&])race\s+(lock|atomic)\b/.test(code) || /--claim(\s+|=)(lock|atomic)\b/.test(code)) {
        return "atomic";
      }
    }
    return "read";
  }

  // stripComment returns the part of a line before a # that starts a word.
  function stripComment(line) {
    const m = /(^|\s)#/.exec(line);
    return m ? line.slice(0, m.index) : line;
  }

  // rewriteClaim sets the claim of every race and work command of src to
  // claim ("read" or "atomic"): it replaces the argument of race and of
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
      return cmd.replace(/^(\s*\(?\s*(?:node\s+queue\.mjs\s+|twice\s+)?race\s+)(read|lock|atomic)\b/, "$1" + claim);
    }
    if (word !== "work") return cmd;
    if (/--claim(\s+|=)(read|lock|atomic)\b/.test(cmd)) {
      return cmd.replace(/--claim(\s+|=)(read|lock|atomic)\b/g, "--claim$1" + claim);
    }
    // Insert before a trailing ")" or "2>/dev/null" and trailing spaces.
    const tail = /(\s*(?:\)\s*)?(?:2>\s*\/dev\/null\s*)?(?:\)\s*)?)$/.exec(cmd);
    const at = tail ? cmd.length - tail[1].length : cmd.length;
    return cmd.slice(0, at) + " --claim " + claim + cmd.slice(at);
  }

  // parseLink reads a link to a run of the block with the given id:
  // #ID?seed=N&script=TEXT. It returns null for any other hash.
  function parseLink(hash, id) {
    const prefix = "#" + id + "?";
    if (!id || !hash.startsWith(prefix)) return null;
    const p = new URLSearchParams(hash.slice(prefix.length));
    const script = p.get("script");
    const seed = p.get("seed") || "";
    if (script === null || !/^[0-9]*$/.test(seed)) return null;
    return { script, seed };
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

    run(script, seed) {
      return new Promise((resolve, reject) => {
        if (this.state === "failed") {
          reject(new Error(this.error));
          return;
        }
        const id = this.nextID++;
        this.pending.set(id, { resolve, reject });
        this.worker.postMessage({ type: "run", id, script, seed });
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
        ui.read = h("input", { type: "radio", name, value: "read" });
        ui.atomic = h("input", { type: "radio", name, value: "atomic" });
        ui.claim = h(
          "fieldset",
          { class: "claim" },
          h("legend", { text: "Claim" }),
          h("label", { title: "read the row, then write it: two statements" }, ui.read, document.createTextNode(" read")),
          h("label", { title: "one conditional UPDATE decided by changes() = 1" }, ui.atomic, document.createTextNode(" atomic"))
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

      ui.error = h("p", { class: "error", role: "alert", hidden: true });
      ui.transcript = h("pre", { class: "transcript", tabindex: "0", "aria-label": "Transcript" });
      ui.tally = h("p", { class: "tally", hidden: true });
      ui.diagnosis = h("ul", { class: "diagnosis", "aria-label": "Diagnosis", hidden: true });
      ui.effects = h("table", { class: "effects" });
      ui.jobs = h("table", { class: "jobs" });
      ui.effectsWrap = h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": "Effects table" }, ui.effects);
      ui.jobsWrap = h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": "Jobs table" }, ui.jobs);
      ui.heading = h("p", { class: "out-heading" });
      ui.link = h("a", { class: "permalink", hidden: true, text: "Link to this run" });
      ui.out = h(
        "section",
        { class: "out", "aria-label": "Output" },
        h("div", { class: "out-top" }, ui.heading, ui.link),
        ui.error,
        ui.transcript,
        ui.tally,
        ui.diagnosis,
        h("div", { class: "tables" }, ui.effectsWrap, ui.jobsWrap)
      );

      const box = h("div", { class: "box" }, ui.bar, ui.script, ui.loading, ui.out);
      const embed = this.getAttribute("embed");
      if (embed) box.append(this.embedSnippets(embed, script, defaultSeed));
      root.append(box);
      this.ui = ui;
      this.seq = 0;
      this.id = this.id || "twice-" + n;

      this.setClaim(claimOf(script));
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
      for (const r of [ui.read, ui.atomic]) {
        if (!r) continue;
        r.addEventListener("change", () => {
          if (!r.checked) return;
          ui.script.value = rewriteClaim(ui.script.value, r.value);
          this.run();
        });
      }

      if (prerendered) {
        this.render(prerendered, "Output at seed " + (prerendered.seed ?? defaultSeed) + ", rendered on the server. Press Run to run it in your browser.");
        this.setState("prerendered");
      } else {
        ui.heading.textContent = "Press Run to run this script in your browser.";
        ui.out.classList.add("empty");
        this.setState("idle");
      }
      if (runtime) this.attach(runtime);
      else if (observer) observer.observe(this);

      // A link made by "Link to this run" replays that run.
      const shared = parseLink(location.hash, this.id);
      if (shared) {
        ui.script.value = shared.script;
        ui.seed.value = shared.seed;
        this.setClaim(claimOf(shared.script));
        requestAnimationFrame(() => this.scrollIntoView());
        this.run();
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

    setState(s) {
      this.setAttribute("state", s);
      this.ui.out.setAttribute("aria-busy", s === "loading" || s === "running" ? "true" : "false");
    }

    setClaim(c) {
      if (!this.ui.read) return;
      this.ui.read.checked = c === "read";
      this.ui.atomic.checked = c === "atomic";
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

    async run() {
      const ui = this.ui;
      const seq = ++this.seq;
      const seed = ui.seed.value.trim();
      if (seed !== "" && !(/^[0-9]+$/.test(seed) && BigInt(seed) <= MAX_SEED)) {
        this.showError("The seed must be a whole number from 0 to " + MAX_SEED + ".");
        return;
      }
      const rt = getRuntime();
      this.attach(rt);
      this.setState(rt.state === "ready" ? "running" : "loading");
      ui.status.textContent = rt.state === "ready" ? "Running…" : "Loading the runtime…";
      ui.run.setAttribute("aria-busy", "true");
      try {
        const m = await rt.run(ui.script.value, seed);
        if (seq !== this.seq) return;
        const res = JSON.parse(m.json);
        const ms = m.ms < 10 ? m.ms.toFixed(1) : Math.round(m.ms);
        this.render(res, "Output at seed " + res.seed + ", run in your browser.");
        if (res.error) this.setState("error");
        else this.setState("done");
        ui.status.textContent = res.error ? "Failed." : "Done in " + ms + " ms.";
        ui.link.href = "#" + this.id + "?" + new URLSearchParams({ seed: String(res.seed), script: ui.script.value });
        ui.link.hidden = false;
      } catch (e) {
        if (seq !== this.seq) return;
        this.showError(e.message);
      } finally {
        if (seq === this.seq) ui.run.removeAttribute("aria-busy");
      }
    }

    showError(msg) {
      const ui = this.ui;
      ui.error.textContent = msg;
      ui.error.hidden = false;
      ui.status.textContent = "Failed.";
      this.setState("error");
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

      const races = res.races || [];
      ui.tally.replaceChildren();
      ui.tally.hidden = races.length === 0;
      let dups = 0;
      for (const r of races) {
        dups += r.duplicates;
        const strong = h("strong", { text: r.duplicates + " of " + r.races });
        const span = h("span", { class: "tally-item" + (r.duplicates ? " bad" : " good") });
        span.append("claim=" + r.claim + ": duplicate effects in ", strong, " races");
        ui.tally.append(span);
      }
      ui.tally.dataset.duplicates = String(dups);

      // Diagnoses, each distinct one once, with how many orders it covers.
      const groups = new Map();
      for (const s of res.summary || []) {
        if (!s.diagnosis) continue;
        const g = groups.get(s.diagnosis) || { kind: s.kind, orders: [] };
        g.orders.push(s.order);
        groups.set(s.diagnosis, g);
      }
      ui.diagnosis.replaceChildren();
      for (const [text, g] of groups) {
        const who = g.orders.length === 1 ? g.orders[0] : g.orders.length + " orders";
        const li = h("li", { class: "kind-" + g.kind });
        li.append(h("strong", { text: who + ": " }), text);
        ui.diagnosis.append(li);
      }
      ui.diagnosis.hidden = groups.size === 0;

      const effects = res.effects || [];
      this.fillTable(
        ui.effects,
        "Effects recorded by the receipts service (" + effects.length + ")",
        ["order", "run", "attempt", "send", "worker", "arrival (ms)"],
        effects.map((e) => [e.order, e.run, e.attempt, "s" + e.send, e.worker, formatMS(e.at_us)]),
        [false, false, true, false, false, true]
      );
      const jobs = res.jobs || [];
      this.fillTable(
        ui.jobs,
        "Jobs table (" + jobs.length + ")",
        ["id", "order", "status", "attempts", "run", "lease (ms)"],
        jobs.map((j) => [j.id, j.order, j.status, j.attempts, j.run || "-", formatMS(j.lease_us)]),
        [true, false, false, true, false, true]
      );
      ui.effectsWrap.hidden = effects.length === 0 && jobs.length === 0;
      ui.jobsWrap.hidden = jobs.length === 0;
    }

    fillTable(table, caption, cols, rows, numeric) {
      const shown = rows.slice(0, MAX_ROWS);
      let cap = caption;
      if (rows.length > shown.length) cap += ", showing the first " + shown.length;
      const head = h("tr", null, ...cols.map((c, i) => h("th", { scope: "col", class: numeric[i] ? "num" : null, text: c })));
      const body = h(
        "tbody",
        null,
        ...shown.map((r) => h("tr", null, ...r.map((v, i) => h("td", { class: numeric[i] ? "num" : null, text: String(v) }))))
      );
      if (shown.length === 0) {
        body.append(h("tr", null, h("td", { colspan: String(cols.length), class: "none", text: "none" })));
      }
      table.replaceChildren(h("caption", { text: cap }), h("thead", null, head), body);
    }
  }

  // Exposed for tests and for pages that build scripts themselves.
  window.TwicePlayground = { rewriteClaim, claimOf, parseLink, config: CONFIG };
  customElements.define("twice-playground", TwicePlayground);
})();
