// @ts-check
// case.js runs a case's page (/cases/SLUG/): the reader's verdict on each
// hypothesis, the fix's editor, Run checks (each check sent with the fix
// to the page's runtime, which runs and judges it in Go, package cases,
// and answers the line twice case check prints: this file only shows
// it), the hints opened and counted, the progress (reproduce, edit the
// fix, pass the checks, submit) kept in the browser's storage, and
// Submit, a link that replays the fix and its checks: as the link's page
// loads, on the runtime's small budget for a run nobody asked for, a
// check that needs more waits for Run checks. The server wrote
// everything else, the evidence desk included; the experiments are
// ordinary <twice-playground> blocks.

import { getRuntime } from "./runtime-client.js";
import { whenFull } from "./boot.js";

const STAGES = ["reproduce", "edit", "pass", "submit"];

function plural(n, one, many) {
  return n === 1 ? one : many;
}

// encodeFix and decodeFix carry a fix in a link, as base64url of its UTF-8.
export function encodeFix(fix) {
  const bytes = new TextEncoder().encode(fix);
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

export function decodeFix(s) {
  const b = atob(s.replaceAll("-", "+").replaceAll("_", "/"));
  return new TextDecoder().decode(Uint8Array.from(b, (c) => c.charCodeAt(0)));
}

function load(key) {
  try {
    return JSON.parse(localStorage.getItem(key) || "null") || {};
  } catch {
    return {};
  }
}

function save(key, state) {
  try {
    localStorage.setItem(key, JSON.stringify(state));
  } catch {
    // Storage full or refused: the page works, it only forgets.
  }
}

// setup wires the page: each part by a function of its own, all sharing
// the page's state (pg), kept in localStorage under the case's name.
// Every change reads the stored state afresh and changes only its own
// field (pg.change), and a change another tab of the page stored is
// taken in and shown (pg.shown: each part's way to show the state), so
// two tabs never erase each other's hints, verdicts or fix.
function setup() {
  const dataEl = document.getElementById("case-data");
  if (!dataEl) return;
  const data = JSON.parse(dataEl.textContent);
  const key = "twice:case:" + data.slug;
  const fresh = () => Object.assign({ stages: {}, hints: [], verdicts: {} }, load(key));
  /** @type {(() => void)[]} */
  const shown = [];
  const pg = { data, state: fresh(), replay: null, passed: "", shown };
  pg.change = (fn) => {
    const st = fresh();
    fn(st);
    save(key, st);
    pg.state = st;
  };
  pg.mark = (stage, done) => {
    if (!!pg.state.stages[stage] === done) return;
    pg.change((st) => (st.stages[stage] = done));
    showProgress(pg);
  };
  document.documentElement.classList.add("case-live");
  setupFix(pg);
  setupChecks(pg);
  setupHints(pg);
  for (const sec of document.querySelectorAll("section.hypothesis")) setupHypothesis(pg, sec);
  // Running the evidence run, near the top of the page, is reproducing too.
  const evidence = document.getElementById("evidence");
  if (evidence) {
    evidence.addEventListener("click", (e) => {
      if (e.composedPath().some((n) => n instanceof Element && n.classList.contains("run"))) pg.mark("reproduce", true);
    });
  }
  showProgress(pg);
  window.addEventListener("storage", (e) => {
    if (e.key !== key && e.key !== null) return;
    pg.state = fresh();
    showProgress(pg);
    for (const f of pg.shown) f();
  });
  // A replayed link runs its checks as the page loads, but only on the
  // small budget of a run nobody pressed a button for.
  if (pg.replay !== null) pg.runChecks(true);
}

// showProgress marks the stages done.
function showProgress(pg) {
  for (const s of STAGES) {
    const li = document.querySelector('.case-progress li[data-stage="' + s + '"]');
    if (!li) continue;
    const done = !!pg.state.stages[s];
    li.classList.toggle("done", done);
    /** @type {HTMLElement} */ (li.querySelector(".state")).textContent = done ? "done" : "not yet";
  }
}

// setupFix fills the fix: from a Submit link (?fix=...), which replays
// it, or as the reader left it; an edit is the "edit the fix" stage. A
// link's fix is the link's: editing it keeps the reader's own fix and
// stages as they were, and it becomes the reader's only by "Make it my
// fix", which asks first when it would replace a fix of their own.
function setupFix(pg) {
  const fixEl = /** @type {HTMLTextAreaElement} */ (document.getElementById("case-fix"));
  const params = new URLSearchParams(location.search);
  if (params.has("fix")) {
    try {
      pg.replay = decodeFix(params.get("fix"));
    } catch {
      pg.replay = null;
    }
  }
  if (pg.replay !== null) {
    fixEl.value = pg.replay;
    fixEl.before(replayNote(pg, fixEl));
  } else if (typeof pg.state.fix === "string") {
    fixEl.value = pg.state.fix;
  }
  fixEl.addEventListener("input", () => {
    /** @type {HTMLButtonElement} */ (document.querySelector(".case-submit-button")).disabled = true;
    pg.passed = "";
    if (pg.replay !== null) return; // the link's fix, not the reader's
    keepFix(pg, fixEl.value);
  });
  // Another tab of the page saved a fix: it shows here too, unless this
  // tab shows a link's, or the reader is typing in this one.
  pg.shown.push(() => {
    if (pg.replay === null && typeof pg.state.fix === "string" && document.activeElement !== fixEl) fixEl.value = pg.state.fix;
  });
}

// keepFix stores fix as the reader's own: the "edit the fix" stage is
// done when it differs from the case's, and the checks are to pass again.
function keepFix(pg, fix) {
  pg.change((st) => (st.fix = fix));
  pg.mark("edit", fix !== pg.data.fix);
  pg.mark("pass", false);
}

// replayNote says the fix shown is a link's, with "Make it my fix" (which
// asks first when the reader has a fix of their own) and a way back to
// the reader's own.
function replayNote(pg, fixEl) {
  const note = document.createElement("div");
  note.className = "case-replay";
  const say = document.createElement("p");
  say.textContent = "This fix came with a link: its checks run on a page load's small budget, and a heavier one waits for Run checks. Editing it leaves your own fix as it is.";
  const adopt = document.createElement("button");
  adopt.type = "button";
  adopt.className = "case-adopt";
  adopt.textContent = "Make it my fix";
  const mine = document.createElement("a");
  const own = new URL(location.href);
  own.search = "";
  mine.href = own.href;
  mine.textContent = "Back to my own fix";
  const ask = document.createElement("p");
  ask.className = "case-adopt-ask";
  ask.hidden = true;
  const yes = document.createElement("button");
  yes.type = "button";
  yes.className = "case-adopt-yes";
  yes.textContent = "Replace my fix";
  const no = document.createElement("button");
  no.type = "button";
  no.className = "case-adopt-no";
  no.textContent = "Keep mine";
  ask.append("This replaces the fix you saved in this browser. ", yes, " ", no);
  const actions = document.createElement("p");
  actions.append(adopt, " ", mine);
  note.append(say, actions, ask);
  const take = () => {
    pg.replay = null;
    keepFix(pg, fixEl.value);
    history.replaceState(history.state, "", own.href);
    note.replaceChildren(Object.assign(document.createElement("p"), { textContent: "The link's fix is now yours, saved in this browser; run the checks to pass them." }));
  };
  adopt.addEventListener("click", () => {
    const saved = pg.state.fix;
    if (typeof saved === "string" && saved !== pg.data.fix && saved !== fixEl.value) {
      ask.hidden = false;
      yes.focus();
    } else take();
  });
  yes.addEventListener("click", take);
  no.addEventListener("click", () => {
    ask.hidden = true;
    adopt.focus();
  });
  return note;
}

// runAll runs every check after fix, one line each into results (auto:
// on the small budget of a page load), and says what came of them:
// {all, heavy, refused}, all true when every check passed.
async function runAll(pg, fix, results, auto) {
  const out = { all: true, heavy: 0, refused: "" };
  for (const ck of pg.data.checks) {
    const v = await getRuntime().check(fix, ck, "case", "check-" + ck.name, auto);
    if (v.refused !== undefined || v.error !== undefined) {
      out.all = false;
      out.refused = v.refused !== undefined ? "The fix is refused: " + v.refused : "The check " + ck.name + " cannot run: " + v.error;
      return out;
    }
    out.all = out.all && v.pass;
    if (v.heavy) out.heavy++;
    const li = document.createElement("li");
    li.className = v.heavy ? "wait" : v.pass ? "pass" : "fail";
    li.textContent = v.line;
    results.append(li);
  }
  return out;
}

// checksSaid is what the status line says after the checks ran.
function checksSaid(out, results, n) {
  if (out.refused) return out.refused;
  if (out.heavy > 0) return out.heavy + " of " + n + " " + plural(n, "check", "checks") + " " + plural(out.heavy, "needs", "need") + " more than a page load may spend: press Run checks to run them all.";
  const failed = results.querySelectorAll("li.fail").length;
  return out.all ? "Every check passes." : failed + " of " + n + " " + plural(n, "check fails", "checks fail") + ".";
}

// setupChecks wires Run checks and Submit.
function setupChecks(pg) {
  const fixEl = /** @type {HTMLTextAreaElement} */ (document.getElementById("case-fix"));
  const runBtn = /** @type {HTMLButtonElement} */ (document.querySelector(".case-run-checks"));
  const status = /** @type {HTMLElement} */ (document.querySelector(".case-checks-status"));
  const results = /** @type {HTMLElement} */ (document.querySelector(".case-check-results"));
  const submitBtn = /** @type {HTMLButtonElement} */ (document.querySelector(".case-submit-button"));
  const n = pg.data.checks.length;
  pg.runChecks = async (auto) => {
    const fix = fixEl.value;
    runBtn.disabled = true;
    status.textContent = "Running " + n + " " + plural(n, "check", "checks") + "…";
    results.replaceChildren();
    results.setAttribute("aria-busy", "true");
    let out = { all: false };
    try {
      out = await runAll(pg, fix, results, auto);
      status.textContent = checksSaid(out, results, n);
    } catch (err) {
      status.textContent = "The checks could not run: " + (err && err.message ? err.message : String(err));
    }
    results.setAttribute("aria-busy", "false");
    runBtn.disabled = false;
    pg.passed = out.all ? fix : "";
    if (pg.replay === null) pg.mark("pass", out.all);
    submitBtn.disabled = !out.all || pg.replay !== null;
    return out.all;
  };
  runBtn.addEventListener("click", () => pg.runChecks(false));
  runBtn.disabled = false;
  submitBtn.addEventListener("click", () => {
    if (pg.passed !== fixEl.value) return;
    const url = new URL(location.href);
    url.search = "?fix=" + encodeFix(pg.passed);
    url.hash = "";
    const a = document.createElement("a");
    a.href = url.href;
    a.textContent = url.href;
    /** @type {HTMLElement} */ (document.querySelector(".case-submit-link")).replaceChildren("Submitted. This link replays your fix and its checks: ", a);
    pg.change((st) => (st.submitted = url.href));
    pg.mark("submit", true);
  });
}

// setupHints counts the hints opened, on request, once each.
function setupHints(pg) {
  const count = document.querySelector(".case-hints-count");
  const all = /** @type {NodeListOf<HTMLDetailsElement>} */ (document.querySelectorAll("details.hint"));
  const say = () => {
    if (!count) return;
    const n = pg.state.hints.length;
    count.textContent = n === 0 ? "No hints opened." : n + " of " + all.length + " " + plural(all.length, "hint", "hints") + " opened.";
  };
  const show = () => {
    for (const d of all) if (pg.state.hints.includes(d.dataset.hint)) d.open = true;
    say();
  };
  for (const d of all) {
    d.addEventListener("toggle", () => {
      if (d.open && !pg.state.hints.includes(d.dataset.hint)) {
        pg.change((st) => {
          if (!st.hints.includes(d.dataset.hint)) st.hints.push(d.dataset.hint);
        });
        say();
      }
    });
  }
  show();
  pg.shown.push(show);
}

// setupHypothesis wires one hypothesis: running its experiment is
// reproducing; the reader records what it showed and the output line it
// rests on.
function setupHypothesis(pg, sec) {
  const i = sec.dataset.hypothesis;
  const block = sec.querySelector("twice-playground");
  const select = sec.querySelector("select");
  const record = sec.querySelector(".verdict-record");
  const saved = () => pg.state.verdicts[i] || {};
  // The block's transcript, once the element is set up: its Output view's
  // (see output.js).
  const transcript = () => {
    const b = /** @type {any} */ (block);
    return b && b.output ? b.output.ui.transcript : null;
  };
  const fill = () => {
    const t = transcript() ? transcript().textContent : "";
    const lines = t.split("\n").filter((l) => l.trim() !== "");
    if (lines.length === 0) return;
    const keep = select.value || saved().line || "";
    select.replaceChildren(new Option("choose a line of the output", ""));
    for (const l of lines) select.append(new Option(l, l));
    if (lines.includes(keep)) select.value = keep;
  };
  const say = () => {
    const v = pg.state.verdicts[i];
    record.textContent = v && v.verdict ? "You recorded: " + v.verdict + (v.line ? ", on the line “" + v.line + "”" : "") + "." : "";
  };
  if (block) {
    block.addEventListener("click", (e) => {
      if (e.composedPath().some((n) => n.classList && n.classList.contains("run"))) pg.mark("reproduce", true);
    });
    const watch = () => {
      if (!transcript()) return false;
      new MutationObserver(fill).observe(transcript(), { childList: true, characterData: true, subtree: true });
      fill();
      return true;
    };
    if (!watch()) whenFull().then(() => setTimeout(watch, 0));
  }
  const update = () => {
    const r = sec.querySelector("input[type=radio]:checked");
    const v = { verdict: r ? r.value : "", line: select.value };
    pg.change((st) => (st.verdicts[i] = v));
    say();
  };
  const show = () => {
    for (const r of sec.querySelectorAll("input[type=radio]")) r.checked = saved().verdict === r.value;
    const line = saved().line;
    if (line && Array.from(select.options).some((o) => o.value === line)) select.value = line;
    say();
  };
  for (const r of sec.querySelectorAll("input[type=radio]")) r.addEventListener("change", update);
  select.addEventListener("change", update);
  show();
  pg.shown.push(show);
}

// The runtime's config comes with the component, and the blocks' Output
// views with the rest of it (see boot.js): wait until they are there.
if (typeof document !== "undefined" && window.customElements) {
  whenFull().then(setup);
}
