// @ts-check
// classroom.js holds what a teacher reaches for in front of a class:
// predict-then-run and the presenter view. playground.js asks it what to
// ask and where things are kept; the page-wide switches (the "For
// teachers" menu of a lesson page) are wired here too.
//
// Predict, then run. A block marked predict (the fence's info string)
// hides its output, and the lesson's prose that gives its answer, until
// Run, and asks for a prediction first: a number, worded from the block's
// own result (races with a duplicate, jobs run twice, orderings that
// duplicate, or effects recorded), on a slider or a few choices
// (predict.js). The "Predict before running" switch overrides the lesson
// for the whole site: on, every block asks; off, none does and everything
// shows at once. The prediction is shown beside the result, on one scale,
// and kept in the browser's local storage, per page and block, as is the
// switch.
//
// Presenter view. The switch, or ?present in the page's URL, sets large
// type for the prose and the blocks (every text at least 16 px, the
// timeline drawn at that size too), leaves out what is for a reader
// alone (the share links, the embed snippets, the site's header), keeps
// the slide's heading as a title at the top of the screen, shows one
// block at a time with the prose before it, scrolled so that the block is
// on screen between that title and the bar
// (with as much of the prose as fits), and moves between blocks with
// Page Down / Page Up (or the arrow keys outside a block) and the buttons
// of that bar at the foot of the screen. There the step-through skips the
// steps that read and write nothing shared (see quietStep), unless the
// reader asks for every step.
//
// Nothing here runs at import time but reading these functions.

import { CONFIG } from "./config.js";
import { presenterBlock, sendVote } from "./pulse.js";
import { groupDigits, h } from "./render.js";

const ALL = "twice:predict-all";

// store is localStorage, or null where the browser refuses it (a private
// window with storage off, a sandboxed frame).
function store() {
  try {
    return window.localStorage || null;
  } catch {
    return null;
  }
}

// predictMode is the reader's switch: "on" (every block asks), "off"
// (none does), or "" (the lesson's blocks marked predict ask). A page's
// URL with ?predict=on or ?predict=off sets it for that visit.
export function predictMode() {
  const asked = new URLSearchParams(location.search).get("predict");
  if (asked === "on" || asked === "off") return asked; // ?predict=off in a link wins
  const s = store();
  const v = s && s.getItem(ALL);
  return v === "on" || v === "off" ? v : "";
}

// predicts reports whether block el asks before its first run.
export function predicts(el) {
  const m = predictMode();
  return m === "on" || (m === "" && el.hasAttribute("predict"));
}

function setPredictMode(on) {
  const s = store();
  if (s) s.setItem(ALL, on ? "on" : "off");
}

// predictionKey names a block's prediction in storage: the page and the
// block, so that two lessons' blocks never share one.
export function predictionKey(id) {
  return "twice:prediction:" + location.pathname + "#" + id;
}

// loadPrediction returns the kept prediction {value, script}, or null.
export function loadPrediction(id) {
  const s = store();
  try {
    const v = s && JSON.parse(s.getItem(predictionKey(id)) || "null");
    return v && typeof v.value === "string" ? v : null;
  } catch {
    return null;
  }
}

// savePrediction keeps a block's prediction and, in a class (pulse.js),
// sends it as the reader's vote: it reports whether it did, and the run
// then waits for the teacher to reveal it.
export function savePrediction(id, value, script) {
  const s = store();
  if (s) s.setItem(predictionKey(id), JSON.stringify({ value, script }));
  return sendVote(id, value);
}

const sum = (xs, f) => xs.reduce((n, x) => n + (f(x) || 0), 0);

// question is what a block asks before it runs, worded from a result of
// its script (the pre-rendered one): {kind, text, of}. answer(kind, res)
// is the same count in a result.
export function question(res) {
  const races = (res && res.races) || [];
  const loads = (res && res.loads) || [];
  if (races.length) {
    const of = sum(races, (r) => r.races);
    const text = of === 1 ? "Will the one race end with an effect twice? 1 for yes, 0 for no." : "In how many of the " + groupDigits(String(of)) + " races will an effect happen twice?";
    return { kind: "races", of, text };
  }
  const explored = (res && res.explorations) || [];
  if (explored.length) {
    const of = sum(explored, (x) => Number(x.orderings));
    return { kind: "orderings", of, text: "In how many of the " + groupDigits(String(of)) + " orderings will an effect happen twice?" };
  }
  if (loads.length) {
    const of = sum(loads, (l) => l.jobs);
    const text = of === 1 ? "Will the one job have its effect twice? 1 for yes, 0 for no." : "How many of the " + groupDigits(String(of)) + " jobs will have their effect twice?";
    return { kind: "loads", of, text };
  }
  return { kind: "effects", of: 0, text: "How many effects will the receipts service record?" };
}

export function answer(kind, res) {
  if (!res) return null;
  if (kind === "races") return (res.races || []).length ? sum(res.races, (r) => r.duplicates) : null;
  if (kind === "loads") return (res.loads || []).length ? sum(res.loads, (l) => l.duplicates) : null;
  if (kind === "orderings") return (res.explorations || []).length ? sum(res.explorations, (x) => Number(x.duplicating)) : null;
  return (res.effects || []).filter((e) => !e.refused && !e.replayed).length;
}

// verdict says a prediction beside the result, in one sentence.
export function verdict(q, value, res) {
  const got = answer(q.kind, res);
  if (got === null) return "You predicted " + value + "; this run has no count to compare it with.";
  const total = { races: () => sum(res.races, (r) => r.races), loads: () => sum(res.loads, (l) => l.jobs), orderings: () => sum(res.explorations, (x) => Number(x.orderings)) }[q.kind];
  const of = total ? " of " + groupDigits(String(total())) : "";
  const said = value === "" ? "You made no prediction" : "You predicted " + value;
  return said + "; the run gave " + got + of + (value !== "" && Number(value) === got ? ": right." : ".");
}

// quietStep reports whether a trace event is a step that reads and
// writes nothing another process shares (a worker starting, connecting,
// beginning its own work): the presenter's step-through skips those. The
// runtime's list of event kinds says which kinds are (CONFIG.quiet); a
// step that reads shared state is never skipped, though it changes no
// table: the SELECT that finds the job still queued, the clock read a
// lease is decided by, a claim that changed no row.
export function quietStep(ev) {
  return !!ev && (CONFIG.quiet || []).includes(ev.kind);
}

// ---- the page-wide switches ----------------------------------------------

// presenting reports whether the presenter view is on.
export function presenting() {
  return document.documentElement.classList.contains("present");
}

// installSwitches wires the teacher's two switches, which the server
// writes into the header of a lesson page as a closed "For teachers" menu
// (hidden until this runs, for a reader without JavaScript they would do
// nothing), and turns the presenter view on when the URL asks for it. The
// menu sits at the end of the header's row and opens over the page, so
// neither showing it nor opening it moves the lesson.
export function installSwitches() {
  const html = document.documentElement;
  const menu = /** @type {HTMLDetailsElement | null} */ (document.querySelector("details.teacher-menu"));
  if (html.dataset.twicePage !== "lesson" || !menu || !menu.hidden) return;
  const predict = /** @type {HTMLInputElement} */ (menu.querySelector("#twice-predict-all"));
  const present = /** @type {HTMLInputElement} */ (menu.querySelector("#twice-present"));
  if (!predict || !present) return;
  // Checked when a block of this page asks: the lesson's choice until the
  // reader sets the switch.
  predict.checked = predictMode() === "on" || (predictMode() === "" && !!document.querySelector("twice-playground[predict]"));
  menu.hidden = false;
  predict.addEventListener("change", () => {
    setPredictMode(predict.checked);
    for (const el of /** @type {NodeListOf<any>} */ (document.querySelectorAll("twice-playground"))) if (el.setPredicting) el.setPredicting(predict.checked);
  });
  present.addEventListener("change", () => {
    menu.open = false;
    setPresenting(present.checked);
  });
  // Escape closes the open menu, and a click outside it.
  menu.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && menu.open) {
      menu.open = false;
      /** @type {HTMLElement} */ (menu.querySelector("summary")).focus();
    }
  });
  document.addEventListener("click", (e) => {
    if (menu.open && !menu.contains(/** @type {Node} */ (e.target))) menu.open = false;
  });
  if (new URLSearchParams(location.search).has("present")) {
    present.checked = true;
    setPresenting(true);
  }
}

// The presenter view's state: its slides (the prose before a block and
// the block), the one shown, and its bar.
let slides = null;
let current = 0;
let bar = null;
// title is the slide's heading, kept at the top of the screen.
let title = null;

// moved is set once the reader scrolls, clicks or types (MOVES) after a
// slide is shown; sizes watches the shown block's size until then.
let moved = false;
let sizes = null;
const onMove = () => (moved = true);
const MOVES = ["wheel", "touchmove", "pointerdown", "keydown"];

function setPresenting(on) {
  const html = document.documentElement;
  const main = /** @type {HTMLElement} */ (document.getElementById("main"));
  html.classList.toggle("present", on);
  for (const el of document.querySelectorAll("twice-playground")) el.toggleAttribute("present", on);
  const box = /** @type {HTMLInputElement | null} */ (document.getElementById("twice-present"));
  if (box) box.checked = on;
  if (!on) {
    for (const el of /** @type {HTMLCollectionOf<HTMLElement>} */ (main.children)) el.hidden = false;
    if (bar) bar.remove();
    if (title) title.remove();
    bar = null;
    title = null;
    slides = null;
    document.removeEventListener("keydown", onKey);
    for (const type of MOVES) removeEventListener(type, onMove, true);
    if (sizes) sizes.disconnect();
    sizes = null;
    presenterBlock(null);
    return;
  }
  // Slide i holds the prose before block i, the block and its answer in
  // words; what follows the last block belongs to it as well.
  slides = [];
  let slide = [];
  for (const el of main.children) {
    // A block's answer in words (predict.js) is on the block's slide.
    if (el.classList.contains("twice-reveal") && !slide.length && slides.length) {
      slides[slides.length - 1].push(el);
      continue;
    }
    slide.push(el);
    if (el.tagName === "TWICE-PLAYGROUND") {
      slides.push(slide);
      slide = [];
    }
  }
  if (slide.length) {
    if (slides.length) slides[slides.length - 1].push(...slide);
    else slides.push(slide);
  }
  bar = h("nav", { class: "present-bar", "aria-label": "Presenter view" });
  const prev = h("button", { type: "button", class: "present-prev", text: "◀ Previous" });
  const count = h("span", { class: "present-count", "aria-live": "polite" });
  const next = h("button", { type: "button", class: "present-next", text: "Next ▶" });
  const leave = h("button", { type: "button", class: "present-leave", text: "Exit", title: "Leave the presenter view" });
  prev.addEventListener("click", () => show(current - 1));
  next.addEventListener("click", () => show(current + 1));
  leave.addEventListener("click", () => setPresenting(false));
  bar.append(prev, count, next, leave);
  // A header of the page's own (the site's is not shown meanwhile), so
  // that the title is in a landmark like everything else.
  title = h("header", { class: "present-title" });
  document.body.append(title, bar);
  document.addEventListener("keydown", onKey);
  for (const type of MOVES) addEventListener(type, onMove, { capture: true, passive: true });
  show(0);
}


// show shows slide i (clamped) alone, its block on screen (see reveal).
function show(i) {
  if (!slides || !slides.length) return;
  current = Math.max(0, Math.min(slides.length - 1, i));
  slides.forEach((els, j) => els.forEach((el) => (el.hidden = j !== current)));
  bar.querySelector(".present-count").textContent = "Block " + (current + 1) + " of " + slides.length;
  bar.querySelector(".present-prev").disabled = current === 0;
  bar.querySelector(".present-next").disabled = current === slides.length - 1;
  title.textContent = slideTitle(slides[current]);
  moved = false;
  reveal();
  const block = slides[current].find((el) => el.tagName === "TWICE-PLAYGROUND");
  presenterBlock(block || null);
  if (sizes) sizes.disconnect();
  // The block grows as its styles and its views come in: it is put on
  // screen again then, until the reader scrolls or uses the page.
  if (block && typeof ResizeObserver === "function") {
    sizes = new ResizeObserver(() => {
      if (!moved) reveal();
    });
    sizes.observe(block);
  }
}

// slideTitle is what a slide is about: the last heading at or before its
// block (a slide's heading may sit on an earlier slide, whose prose it
// began), or the page's title.
function slideTitle(els) {
  const block = els.find((el) => el.tagName === "TWICE-PLAYGROUND") || els[els.length - 1];
  for (let el = /** @type {Element | null} */ (block); el; el = el.previousElementSibling) {
    if (/^H[1-3]$/.test(el.tagName)) return (el.textContent || "").trim();
  }
  const h1 = document.querySelector("main h1");
  return h1 ? (h1.textContent || "").trim() : document.title;
}

// reveal scrolls the current slide so that its block is on screen above
// the bar: the whole block, with as much of the prose before it as fits
// (the first slide from the top of the page), or, for a block taller than
// the screen above the bar, from the block's top.
function reveal() {
  const els = slides[current];
  const block = els.find((el) => el.tagName === "TWICE-PLAYGROUND");
  if (!block) {
    window.scrollTo({ top: 0, behavior: "instant" });
    return;
  }
  const margin = 12;
  const under = title ? title.getBoundingClientRect().bottom : 0; // the title's foot
  const room = bar.getBoundingClientRect().top - under; // the screen between them
  const b = block.getBoundingClientRect();
  const blockTop = scrollY + b.top - under;
  const start = current === 0 ? 0 : scrollY + els[0].getBoundingClientRect().top - under - margin;
  const y = Math.min(Math.max(start, scrollY + b.bottom - under + margin - room), blockTop - margin);
  window.scrollTo({ top: Math.max(0, y), behavior: "instant" });
}

// onKey moves between slides: Page Down / Page Up anywhere but in a text
// field, the arrow keys only outside the blocks (inside, they step and
// switch tabs).
function onKey(e) {
  if (e.altKey || e.ctrlKey || e.metaKey || !slides) return;
  const target = e.composedPath()[0];
  const typing = target && (target.tagName === "TEXTAREA" || target.tagName === "INPUT" || target.tagName === "SELECT");
  const inBlock = e.target && e.target.closest && e.target.closest("twice-playground");
  let to = null;
  if (e.key === "PageDown" && !typing) to = current + 1;
  else if (e.key === "PageUp" && !typing) to = current - 1;
  else if (e.key === "ArrowRight" && !typing && !inBlock) to = current + 1;
  else if (e.key === "ArrowLeft" && !typing && !inBlock) to = current - 1;
  if (to === null) return;
  e.preventDefault();
  show(to);
}
