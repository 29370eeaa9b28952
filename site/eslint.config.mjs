// ESLint's configuration for the browser side of twice (site/static): the
// recommended rules, with the globals each file really has, and no
// function over 80 lines. .ci/run installs ESLint and the two packages
// below, at pinned versions, into .tools at the module root (ignored by
// git) and runs, in this folder,
//
//	node ../.tools/node_modules/eslint/bin/eslint.js static
//
// The packages are looked up in .tools, not beside this file: the site has
// no node_modules of its own and no build step. This file is not served
// (package site embeds only templates and static).
import { createRequire } from "node:module";

const require = createRequire(new URL("../.tools/node_modules/", import.meta.url));
const js = require("@eslint/js");
const globals = require("globals");

export default [
  js.configs.recommended,
  {
    // The modules: playground.js is the entry, the rest its imports.
    files: ["static/**/*.js"],
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: "module",
      globals: globals.browser,
    },
    // A function a newcomer can read in one sitting: the element's setup
    // is a list of named steps, each a function of its own.
    rules: { "max-lines-per-function": ["error", { max: 80 }] },
  },
  {
    // Classic scripts, run by a plain script tag: the loader that pages
    // elsewhere name, what it loads when it cannot import the modules,
    // the service worker's registration, and the one-file build's loader.
    files: ["static/twice.js", "static/frame.js", "static/offline.js", "static/single.js"],
    languageOptions: { sourceType: "script" },
  },
  {
    // The Web Worker that runs the wasm module, loaded by importScripts.
    files: ["static/worker.js"],
    // Go is the class wasm_exec.js defines, which it loads first.
    languageOptions: { sourceType: "script", globals: { ...globals.worker, Go: "readonly" } },
  },
  {
    // The service worker, registered by offline.js.
    files: ["static/sw.js"],
    languageOptions: { sourceType: "script", globals: globals.serviceworker },
  },
];
