// @ts-check
// single.js is the loader of the one-file build (twice build
// --single-file): the whole lab in one HTML file, opened from file:// with
// no server and no network. The server put in the file, beside this
// script: the component's config and every page's body, gzipped and base64
// (#twice-single, JSON); the worker's script (#twice-worker); the Go
// module and SQLite's, gzipped and base64 (#twice-wasm, #twice-sqlite);
// and an import map that resolves each ES module of the component to a
// data: URL. This script:
//
//   - unpacks the two modules in the page (DecompressionStream) and leaves
//     a promise of their bytes where the runtime looks for it
//     (globalThis.__twiceInline, runtime-client.js), which hands the
//     worker copies: a page from file:// can fetch nothing;
//   - starts the worker from a blob: URL of its script;
//   - shows the page the fragment names (#/lessons/SLUG/, the path it is
//     served at; the index when none), its links already routes, and
//     again when the route changes; a case page's module runs once per
//     load, so moving to or from a case reloads the file;
//   - says, on the page, when the browser keeps nothing in its storage
//     for a file (predictions, progress and drafts then last the visit);
//   - then defines the element (boot.js's start), as twice.js does on a
//     served page.
(function () {
  "use strict";
  const dataEl = document.getElementById("twice-single");
  if (!dataEl || window.customElements === undefined) return;
  /** @type {{config: any, pages: Record<string, {title: string, kind: string, body: string}>}} */
  const data = JSON.parse(dataEl.textContent || "{}");

  /** @param {string} id */
  const bytesOf = (id) => {
    const el = document.getElementById(id);
    const s = atob(((el && el.textContent) || "").trim());
    const b = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) b[i] = s.charCodeAt(i);
    return b;
  };
  /** @param {Uint8Array<ArrayBuffer>} b */
  const gunzip = (b) => new Response(new Blob([b]).stream().pipeThrough(new DecompressionStream("gzip"))).arrayBuffer();

  /** @type {any} */ (globalThis).__twiceInline = Promise.all([gunzip(bytesOf("twice-wasm")), gunzip(bytesOf("twice-sqlite"))]).then(([wasm, sqlite]) => ({ wasm, sqlite }));
  const worker = URL.createObjectURL(new Blob([bytesOf("twice-worker")], { type: "text/javascript" }));
  const config = Object.assign({}, data.config, { worker, wasmExec: "", wasm: "", sqlite: "" });

  // route is the page a fragment names: its route, and what follows it
  // (a block's link, an anchor).
  /** @param {string} hash */
  function route(hash) {
    const m = /^#(\/[^#]*)(#.*)?$/.exec(hash);
    if (!m) return { path: "/", rest: hash };
    return { path: m[1] in data.pages ? m[1] : m[1].endsWith("/") ? m[1] : m[1] + "/", rest: m[2] || "" };
  }

  let shown = "";
  let shownKind = "";

  // show puts the page at path in the document.
  /** @param {string} path @param {string} rest */
  async function show(path, rest) {
    let page = data.pages[path];
    if (!page) {
      page = data.pages["/"];
      path = "/";
    }
    const body = new TextDecoder().decode(await gunzip(decode64(page.body)));
    document.body.className = page.kind;
    document.documentElement.dataset.twicePage = page.kind;
    document.title = page.title;
    document.body.innerHTML = body;
    shown = path;
    shownKind = page.kind;
    document.documentElement.dataset.twiceShown = path + rest;
    storageNote();
    const anchor = /^#([A-Za-z][\w-]*)$/.exec(rest);
    const target = anchor && document.getElementById(anchor[1]);
    if (target) target.scrollIntoView();
    else scrollTo(0, 0);
    if (page.kind === "case" && config.case) import(config.case);
  }

  /** @param {string} s */
  function decode64(s) {
    const b = atob(s);
    const out = new Uint8Array(b.length);
    for (let i = 0; i < b.length; i++) out[i] = b.charCodeAt(i);
    return out;
  }

  // storageNote says, at the top of the page, when the browser keeps
  // nothing for this file.
  function storageNote() {
    let ok = false;
    try {
      localStorage.setItem("twice:single", "1");
      ok = localStorage.getItem("twice:single") === "1";
    } catch {
      ok = false;
    }
    if (ok) return;
    const p = document.createElement("p");
    p.className = "single-note";
    p.setAttribute("role", "note");
    p.textContent = "This browser keeps nothing for a file opened from disk: your predictions, progress and edits last until you close the tab.";
    const main = document.querySelector("main");
    if (main) main.prepend(p);
  }

  addEventListener("hashchange", () => {
    const r = route(location.hash);
    // An anchor on this page needs nothing; a link to a run on it shows
    // the page again, so that its block replays the run.
    if (r.path === shown && !/^#[^?]+\?/.test(r.rest)) return;
    const next = data.pages[r.path];
    if (shownKind === "case" || (next && next.kind === "case")) {
      location.reload();
      return;
    }
    show(r.path, r.rest);
  });

  const first = route(location.hash);
  show(first.path, first.rest).then(() => import(config.entry)).then(
    (m) => m.start(config, null),
    (err) => {
      const p = document.createElement("p");
      p.setAttribute("role", "alert");
      p.textContent = "The lab could not start in this browser: " + (err && err.message ? err.message : err);
      document.body.prepend(p);
    }
  );
})();
