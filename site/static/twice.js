// twice.js loads the <twice-playground> element. It is the one file a page
// elsewhere names (<script src="https://HOST/assets/twice.js" defer>), at a
// stable address, so it stays a classic script: it carries the config and
// imports the element's entry module, boot.js, by its content-hashed
// name, resolved against this script's own address (boot.js loads the
// rest, playground.js, later). The modules are cached for good; only
// this small file is revalidated.
//
// It also starts the runtime's Web Worker (worker.js), before any module
// has loaded, when a block is already in view as it runs (it is deferred,
// so the document is parsed) and the worker is of this page's origin:
// the module's download, compile, Go's start and the first run then wait
// for none of the module graph (boot.js and its imports), the
// element's definition or the block's setup. The element adopts this
// worker (runtime-client.js): one worker and one download per page, and
// a block still loads nothing before one is in view. For a block below
// the fold, and a page on another origin (its worker is a blob: that
// imports ours), the element starts the runtime.
(function () {
  "use strict";
  if (window.customElements === undefined || customElements.get("twice-playground")) {
    return;
  }

  // The server replaces the next line with the names of the hashed assets,
  // the entry module's among them. It also carries the runtime's lists of
  // claims, dedupe modes and key choices ({name, words, alias}) and the
  // claim Compare sets beside the block's own (compareTo); nothing in
  // these files names them.
  const CONFIG = /*TWICE_CONFIG*/ { entry: "boot.js", full: "playground.js", frame: "frame.js", worker: "worker.js", wasmExec: "wasm_exec.js", wasm: "twice.wasm", sqlite: "sqlite3.wasm", wasmSize: 0, css: "playground.css", claims: [], dedupes: [], keys: [], compareTo: "" };

  const here = document.currentScript ? document.currentScript.src : location.href;
  const asset = (name) => new URL(name, here).href;

  // inViewport is boot.js's test of a block in view, here on the
  // block as the server rendered it (not yet upgraded).
  const inViewport = (el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth;
  };

  // startEarly starts the worker and returns what the element's runtime
  // adopts: the worker, when it was created (the runtime's created mark),
  // and what it said before the runtime took it over (progress, ready,
  // fatal, an error event), kept to be replayed in order. Or null, when
  // it is not the time or the place (see above). At most one per page,
  // should two loaders run.
  function startEarly() {
    const key = "__twicePlaygroundEarly";
    const workerURL = asset(CONFIG.worker);
    if (window[key] || typeof Worker !== "function" || new URL(workerURL).origin !== location.origin) return null;
    // The index starts it only when the reader reaches for a block (boot.js, onDemand).
    if (document.documentElement.dataset.twicePage === "index") return null;
    if (!Array.prototype.some.call(document.querySelectorAll("twice-playground"), inViewport)) return null;
    let worker;
    const init = { type: "init", wasmExec: asset(CONFIG.wasmExec), wasm: asset(CONFIG.wasm), sqlite: asset(CONFIG.sqlite) };
    try {
      // The worker reads init from its name as it starts (see worker.js).
      worker = new Worker(workerURL, { name: JSON.stringify(init) });
    } catch {
      return null; // the element tries again, and says why
    }
    const early = { worker, created: performance.timeOrigin + performance.now(), said: [] };
    window[key] = true;
    worker.onmessage = (e) => early.said.push({ data: e.data });
    worker.onerror = (e) => {
      e.preventDefault();
      early.said.push({ error: e.message || "" });
    };
    worker.postMessage(init);
    return early;
  }

  // An embed page framed for a block on another page takes that block's
  // label (?label=, which frame.js passes): the frame's heading, title
  // and the block's name for a screen reader say the author's words, not
  // those of the page the frame borrowed.
  function takeLabel() {
    if (document.documentElement.dataset.twicePage !== "embed") return;
    const label = new URLSearchParams(location.search).get("label");
    if (!label) return;
    const title = document.querySelector(".embed-title");
    if (title) title.textContent = label;
    document.title = label + " · twice";
    const el = document.querySelector("twice-playground");
    if (el) el.setAttribute("label", label);
  }

  takeLabel();
  const early = startEarly();
  import(asset(CONFIG.entry)).then(
    (m) => m.start(CONFIG, early),
    (err) => {
      if (early) early.worker.terminate(); // no element will ever adopt it
      fallBack(err);
    }
  );

  // fallBack loads frame.js, a classic script (which a page of another
  // origin may load from a host that sends no CORS header, as it did this
  // one), when the modules cannot be imported: it shows each block in a
  // frame of its embed page, or says in the page what is missing.
  function fallBack(err) {
    const s = document.createElement("script");
    s.src = asset(CONFIG.frame);
    s.dataset.entry = asset(CONFIG.entry);
    s.dataset.error = String((err && err.message) || err);
    document.head.append(s);
  }
})();
