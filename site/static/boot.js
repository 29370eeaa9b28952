// @ts-check
// boot.js is the entry module: the loader, twice.js, imports it and calls
// start with the config and the worker it started, if any. It defines the
// <twice-playground> element with as little as a first Run needs, so that
// the block's Run button exists, and a press of it sends the run to the
// worker, before the rest of the page's code has loaded: on a slow
// processor, parsing and running all of it before the button existed cost
// seconds, while the worker, which holds the runtime, waited for nothing
// of it.
//
// Until the rest arrives, a block (the "first stage") is a bar with Run
// and a status region above what the server rendered, shown as it was
// before any script ran (a slot). Run sends the block's own script at its
// own seed to the runtime (runtime-client.js) and shows the transcript
// that comes back. The rest, playground.js with every view and tool
// (Output's tables and diagnosis, Timeline, Compare, Every ordering, Be
// the scheduler, the classroom switches, the embed snippets), is loaded
// after that first result, at once when a reader reaches into the block
// (a pointer pressed, a key, the focus outside Run) or a link names a
// block, and otherwise when the page is idle after it has loaded. It then
// upgrades each block in place (see playground.js, upgrade): the same
// element, its runs and its runtime, with the full controls and the views,
// the first result drawn again in full.

import { CONFIG, assetURL } from "./config.js";
import { adopt, currentRuntime, getRuntime, timings } from "./runtime-client.js";

// inViewport reports whether el is in view: playground.js's test too.
export function inViewport(el) {
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth;
}

// onDemand reports whether this page's blocks start the runtime only when
// the reader reaches for one (the pointer or the focus on Run, or a
// press), not when one is in view: the index, whose block runs its first
// screen's picture live. A first visit to the index downloads no
// runtime it may not use; the picture plays without one.
export function onDemand() {
  return document.documentElement.dataset.twicePage === "index";
}

// scriptOf is the script a block holds, as its editor will: the text of
// its script element, without a first newline, with one at the end.
export function scriptOf(el) {
  const scriptEl = el.querySelector(".twice-script") || el.querySelector("pre, textarea");
  const raw = scriptEl ? (scriptEl.value !== undefined && scriptEl.tagName === "TEXTAREA" ? scriptEl.value : scriptEl.textContent) : "";
  return raw.replace(/^\n/, "").trimEnd() + "\n";
}

// observer starts the runtime when a block scrolls into view (see
// playground.js, startRuntime); null where IntersectionObserver is missing.
/** @type {IntersectionObserver | null} */
export let observer = null;

// counter numbers the blocks in the order they are set up.
let counter = 0;

// nextBlock is the number of the next block set up.
export function nextBlock() {
  return ++counter;
}

// inFlight counts the first runs not yet answered: the page's idle time
// then is the wait for them, and the rest waits too (see start).
let inFlight = 0;

/** @type {Promise<any> | null} the rest (playground.js), once asked for */
let loading = null;
/** @type {any} playground.js, once loaded */
let full = null;

/** @type {(m: any) => void} */
let fullLoaded = () => {};
const fullPromise = new Promise((resolve) => (fullLoaded = resolve));

// whenFull resolves once the rest has loaded and every block connected
// so far is set up in full (a case page waits for it to read a block's
// Output view); it does not load the rest itself.
export function whenFull() {
  return fullPromise;
}

// loadFull loads playground.js (once) and upgrades every block connected
// so far; blocks connected later are upgraded as they connect.
export function loadFull() {
  if (loading) return loading;
  loading = import(assetURL(CONFIG.full || "playground.js")).then((m) => {
    full = m;
    for (const el of document.querySelectorAll("twice-playground")) {
      if (/** @type {any} */ (el).first) m.upgrade(el);
    }
    // For tests: the rest has loaded, and every block so far is set up.
    /** @type {any} */ (window).TwicePlayground.full = true;
    settled();
    fullLoaded(m);
    return m;
  });
  loading.catch((err) => {
    settled();
    for (const el of document.querySelectorAll("twice-playground")) {
      const first = /** @type {any} */ (el).first;
      if (first) first.status.textContent = "The rest of the page's code did not load: " + ((err && err.message) || err) + ". Reload to try again.";
    }
  });
  return loading;
}

// settled tells the page's stylesheet that the blocks have their full
// size: style.css keeps what follows a lesson's first block unseen until
// then (or for 4 s at most), so that a block growing as it is set up in
// full moves nothing the reader can see.
function settled() {
  document.documentElement.classList.add("twice-ready");
}

/**
 * h makes an element: the attributes, then the text.
 *
 * @param {string} tag
 * @param {Record<string, string>} attrs
 * @param {string} [text]
 * @returns {HTMLElement}
 */
function h(tag, attrs, text) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  if (text) el.textContent = text;
  return el;
}

// firstStage sets a block up as the first stage: its shadow root, with
// the stylesheet, a bar with Run and the status region, and a slot that
// shows what the server rendered. el.first keeps its parts.
function firstStage(el) {
  const n = nextBlock();
  const root = el.attachShadow({ mode: "open" });
  const link = h("link", { rel: "stylesheet", href: assetURL(CONFIG.css) });
  const run = h("button", { type: "button", class: "run" }, el.getAttribute("run-label") || "Run");
  const status = h("span", { class: "status", role: "status", "aria-live": "polite" });
  const heading = h("p", { class: "first-heading", hidden: "" });
  const out = h("pre", { class: "first-output", hidden: "" });
  const box = h("div", { class: "box first" });
  box.append(h("div", { class: "bar" }), document.createElement("slot"), heading, out);
  /** @type {HTMLElement} */ (box.firstChild).append(run, status);
  root.append(link, box);
  el.first = { n, link, box, run, status, heading, out, pending: null };
  el.setAttribute("state", el.querySelector("script.twice-result") ? "prerendered" : "idle");
  // The lesson's answer in words stays hidden only while the block asks
  // (predict.js shows it after the run).
  if (!predicting(el)) for (const r of document.querySelectorAll(".twice-reveal")) if (/** @type {HTMLElement} */ (r).dataset.for === el.id) r.classList.add("shown");
  run.addEventListener("click", () => firstRun(el));
  // The pointer or the focus on Run starts the runtime; reaching anywhere
  // else in the block, or a key, brings the rest.
  run.addEventListener("pointerenter", () => getRuntime(), { once: true });
  run.addEventListener("focusin", () => getRuntime(), { once: true });
  for (const type of ["pointerdown", "keydown", "focusin"]) {
    el.addEventListener(type, (e) => e.composedPath()[0] !== run && loadFull());
  }
  if (currentRuntime() || onDemand()) return;
  if (n === 1 && inViewport(el)) getRuntime();
  else if (observer) observer.observe(el);
}

// predicting reports whether the block asks for a prediction before its
// first run (classroom.js): that asking is the rest's.
function predicting(el) {
  try {
    const m = new URLSearchParams(location.search).get("predict") || window.localStorage.getItem("twice:predict-all");
    return m === "on" || (m !== "off" && el.hasAttribute("predict"));
  } catch {
    return el.hasAttribute("predict");
  }
}

// firstRun is Run in the first stage: the block's own script at its own
// seed goes to the runtime at once; its transcript is shown when it
// comes, and the rest loads then (playground.js draws it again in full).
function firstRun(el) {
  const first = el.first;
  if (first.pending || predicting(el)) {
    first.status.textContent = "Loading…";
    loadFull().then(() => !first.pending && el.press && el.press());
    return;
  }
  const rt = getRuntime();
  const script = scriptOf(el);
  const seed = (el.getAttribute("seed") || "").trim();
  first.pending = { script, seed, sent: performance.now(), reply: rt.run(script, seed, false, el, "main", false) };
  el.setAttribute("state", rt.state === "ready" ? "running" : "loading");
  first.status.textContent = rt.state === "ready" ? "Running…" : "Loading the runtime…";
  first.run.setAttribute("aria-busy", "true");
  first.pending.reply.then(
    (m) => {
      if (!el.first) return; // upgraded: the rest shows it
      const res = JSON.parse(m.json);
      first.heading.textContent = "Output at seed " + (seed || String(res.seed)) + ", run in your browser.";
      first.out.textContent = (res.transcript || []).join("\n") + (res.error && res.error.msg ? "\n" + res.error.msg : "");
      first.heading.hidden = first.out.hidden = false;
      first.box.classList.add("ran");
      first.run.removeAttribute("aria-busy");
      first.status.textContent = res.error ? "Failed." : "Done in " + Math.round(m.ms) + " ms.";
      el.setAttribute("state", res.error ? "error" : "done");
    },
    () => {} // the rest says why, when it takes the run over
  );
  // The rest loads once the result is on screen: after the next frame,
  // in the first idle time (or half a second).
  const after = () => {
    inFlight--;
    requestAnimationFrame(() => ("requestIdleCallback" in window ? requestIdleCallback(() => loadFull(), { timeout: 500 }) : setTimeout(loadFull, 0)));
  };
  inFlight++;
  first.pending.reply.then(after, after);
}

// embedHeight: an embed page of the site, shown in a frame, tells the page
// around it how tall it is whenever that changes, so that the iframe
// snippet can fit the frame to it (no scrolling inside the frame). A page
// that loads this script through the script tag is never an embed page.
function embedHeight() {
  const doc = document.documentElement;
  if (!doc || !doc.dataset || doc.dataset.twicePage !== "embed" || window.parent === window || !("ResizeObserver" in window)) return;
  let last = 0;
  new ResizeObserver(() => {
    const height = Math.ceil(doc.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    window.parent.postMessage({ type: "twice:height", height }, "*");
  }).observe(doc);
}

class TwicePlayground extends HTMLElement {
  connectedCallback() {
    const el = /** @type {any} */ (this);
    if (el.first || el.ui) return;
    if (!this.querySelector("pre, textarea") && document.readyState === "loading") {
      // Connected before the parser reached the element's content.
      document.addEventListener("DOMContentLoaded", () => this.connectedCallback(), { once: true });
      return;
    }
    if (full) full.upgrade(this);
    else firstStage(this);
  }
}

// start defines the element, once per page, with the config the loader
// carries (the hashed names of the other assets, the runtime's lists).
// early is the worker the loader started, or null (see twice.js): it
// becomes the page's runtime before any block is set up.
export function start(config, early) {
  if (window.customElements === undefined || customElements.get("twice-playground")) {
    if (early) early.worker.terminate(); // a second loader's: the first one's element runs the page
    return;
  }
  Object.assign(CONFIG, config);
  adopt(early);
  if ("IntersectionObserver" in window) {
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) {
        io.disconnect();
        getRuntime();
      }
    });
    observer = io;
  }
  embedHeight();
  // Replaced by playground.js with the rest of what tests and pages use.
  /** @type {any} */ (window).TwicePlayground = { config: CONFIG, timings };
  customElements.define("twice-playground", TwicePlayground);
  // A link to a run names a block: the rest replays it.
  if (/^#[^?]+\?/.test(location.hash)) loadFull();
  const whenIdle = () => inFlight === 0 && loadFull();
  const idle = () => ("requestIdleCallback" in window ? requestIdleCallback(whenIdle, { timeout: 2000 }) : setTimeout(whenIdle, 200));
  if (document.readyState === "complete") idle();
  else addEventListener("load", idle, { once: true });
}
