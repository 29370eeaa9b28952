// @ts-check
// config.js holds what the loader (twice.js) hands the component: the
// content-hashed names of the other assets, the size of the two wasm
// modules together (the Go program and SQLite), the runtime's lists of claims, dedupe modes and key choices ({name,
// words, alias}) and of diagnosis kinds ({name, title, good}), the names
// of the event kinds whose steps read and write nothing shared (quiet:
// the presenter's step-through skips them), the most bytes a script may
// have (maxScript), and the claim Compare sets beside the block's own
// (compareTo), and the served name of the rest of the element (full). start() in
// boot.js fills CONFIG once, before any block is set up; nothing in
// these modules names a claim of its own.
//
// A leaf module: it touches no browser global, so tests import it as is.

/** @type {import("./result-types.js").Config} */
export const CONFIG = { full: "playground.js", worker: "worker.js", wasmExec: "wasm_exec.js", wasm: "twice.wasm", sqlite: "sqlite3.wasm", wasmSize: 0, css: "playground.css", claims: [], dedupes: [], keys: [], kinds: [], quiet: [], maxScript: 0, compareTo: "" };

// assetURL resolves an asset's name against this module's own address:
// every asset, the modules included, is served from the same folder.
export function assetURL(name) {
  return new URL(name, import.meta.url).href;
}
