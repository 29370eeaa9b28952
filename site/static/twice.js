// twice.js loads the <twice-playground> element. It is the one file a page
// elsewhere names (<script src="https://HOST/assets/twice.js" defer>), at a
// stable address, so it stays a classic script: it carries the config and
// imports the element's entry module, playground.js, by its content-hashed
// name, resolved against this script's own address. The modules (see
// playground.js) are cached for good; only this small file is revalidated.
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
  const CONFIG = /*TWICE_CONFIG*/ { entry: "playground.js", worker: "worker.js", wasmExec: "wasm_exec.js", wasm: "twice.wasm", wasmSize: 0, css: "playground.css", claims: [], dedupes: [], keys: [], compareTo: "" };

  const here = document.currentScript ? document.currentScript.src : location.href;
  import(new URL(CONFIG.entry, here).href).then((m) => m.start(CONFIG));
})();
