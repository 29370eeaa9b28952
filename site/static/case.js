// case.js runs a case's page (/cases/SLUG/): the reader's verdict on each
// hypothesis, the fix prelude's editor, Run checks (each check's script,
// the fix first, in the page's runtime; one line per check, the same line
// twice case check prints), the hints opened and counted, the progress
// (reproduce, edit the fix, pass the checks, submit) kept in the
// browser's storage, and Submit, a link that replays the fix and its
// checks. The server wrote everything else, the evidence desk included;
// the experiments are ordinary <twice-playground> blocks.

import { getRuntime } from "./runtime-client.js";

const STAGES = ["reproduce", "edit", "pass", "submit"];

// prelude is the fix as a check runs it: its lines, then the check's.
export function prelude(fix) {
  return fix === "" || fix.endsWith("\n") ? fix : fix + "\n";
}

function plural(n, one, many) {
  return n === 1 ? one : many;
}

// judge says what a check's run shows against what the check asks, as
// lessons.Judge does: {pass, evidence}.
export function judge(check, fix, res) {
  if (res.error) {
    const fixLines = prelude(fix).split("\n").length - 1;
    let where = "the check";
    let line = res.error.line || 0;
    if (line > 0 && line <= fixLines) where = "the fix";
    else if (line > 0) line -= fixLines;
    const msg = line > 0 ? "line " + line + ": " + res.error.msg : res.error.msg;
    return { pass: false, evidence: where + " stops with an error: " + msg };
  }
  let pass = true;
  const parts = [];
  for (const x of check.expect) {
    let [ok, words] = judgeOne(x, res);
    if (!ok) {
      pass = false;
      if (x.what !== "once") words += " (want " + x.n + ")";
    }
    parts.push(words);
  }
  return { pass, evidence: parts.join("; ") };
}

function judgeOne(x, res) {
  switch (x.what) {
    case "duplicates": {
      let sum = 0n;
      const said = [];
      for (const e of res.explorations || []) {
        sum += BigInt(e.duplicating);
        said.push("two effects in " + e.duplicating + " of " + e.orderings + " orderings of " + e.workers + " workers");
      }
      for (const t of res.races || []) {
        sum += BigInt(t.duplicates);
        said.push("two effects in " + t.duplicates + " of " + t.races + " races");
      }
      if (said.length === 0) said.push("no race ran");
      return [sum === BigInt(x.n), said.join(", ")];
    }
    case "overlap": {
      let sum = 0n;
      const said = [];
      for (const e of res.explorations || []) {
        if (/^\d+$/.test(e.overlap || "")) sum += BigInt(e.overlap);
        said.push("two owners at once in " + e.overlap + " of " + e.orderings + " orderings of " + e.workers + " workers");
      }
      if (said.length === 0) said.push("no race --all ran");
      return [sum === BigInt(x.n), said.join(", ")];
    }
    case "effects": {
      const n = res.outcome.effects;
      return [n === x.n, n + " " + plural(n, "effect", "effects") + " landed"];
    }
    case "deliveries": {
      let n = 0;
      for (const j of res.jobs || []) n += j.attempts;
      return [n === x.n, n + " " + plural(n, "delivery", "deliveries")];
    }
    case "once": {
      const events = [];
      const count = new Map();
      const eventOf = new Map();
      for (const j of res.jobs || []) {
        eventOf.set(j.id, j.event);
        if (!count.has(j.event)) {
          events.push(j.event);
          count.set(j.event, 0);
        }
      }
      for (const e of res.effects || []) {
        if (!e.refused && !e.replayed) count.set(e.event, (count.get(e.event) || 0) + 1);
      }
      for (const l of res.ledger || []) {
        const ev = eventOf.get(l.job);
        count.set(ev, (count.get(ev) || 0) + 1);
      }
      if (events.length === 0) return [false, "the producer published no event"];
      return [events.every((ev) => count.get(ev) === 1), "effects per published event: " + events.map((ev) => ev + " " + count.get(ev)).join(", ")];
    }
  }
  return [false, "cannot check " + x.what];
}

// checkLine is a check's line: "pass NAME: evidence".
export function checkLine(name, r) {
  return (r.pass ? "pass " : "fail ") + name + ": " + r.evidence;
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
function setup() {
  const dataEl = document.getElementById("case-data");
  if (!dataEl) return;
  const data = JSON.parse(dataEl.textContent);
  const key = "twice:case:" + data.slug;
  const pg = { data, state: Object.assign({ stages: {}, hints: [], verdicts: {} }, load(key)), replay: null, passed: "" };
  pg.persist = () => save(key, pg.state);
  pg.mark = (stage, done) => {
    if (!!pg.state.stages[stage] === done) return;
    pg.state.stages[stage] = done;
    pg.persist();
    showProgress(pg);
  };
  document.documentElement.classList.add("case-live");
  setupFix(pg);
  setupChecks(pg);
  setupHints(pg);
  for (const sec of document.querySelectorAll("section.hypothesis")) setupHypothesis(pg, sec);
  showProgress(pg);
  if (pg.replay !== null) pg.runChecks();
}

// showProgress marks the stages done.
function showProgress(pg) {
  for (const s of STAGES) {
    const li = document.querySelector('.case-progress li[data-stage="' + s + '"]');
    if (!li) continue;
    const done = !!pg.state.stages[s];
    li.classList.toggle("done", done);
    li.querySelector(".state").textContent = done ? "done" : "not yet";
  }
}

// setupFix fills the fix: from a Submit link (?fix=...), which replays
// it, or as the reader left it; an edit is the "edit the fix" stage.
function setupFix(pg) {
  const fixEl = document.getElementById("case-fix");
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
    const note = document.createElement("p");
    note.className = "case-replay";
    note.textContent = "This is a submitted fix, replayed: its checks run as the page loads.";
    fixEl.before(note);
  } else if (typeof pg.state.fix === "string") {
    fixEl.value = pg.state.fix;
  }
  fixEl.addEventListener("input", () => {
    pg.state.fix = fixEl.value;
    pg.mark("edit", fixEl.value !== pg.data.fix);
    pg.mark("pass", false);
    document.querySelector(".case-submit-button").disabled = true;
    pg.persist();
  });
}

// runAll runs every check after fix, one line each into results, and
// says whether all passed.
async function runAll(pg, fix, results) {
  let all = true;
  for (const ck of pg.data.checks) {
    const m = await getRuntime().run(prelude(fix) + ck.script, ck.seed, false, "case", "check-" + ck.name);
    const r = judge(ck, fix, JSON.parse(m.json));
    all = all && r.pass;
    const li = document.createElement("li");
    li.className = r.pass ? "pass" : "fail";
    li.textContent = checkLine(ck.name, r);
    results.append(li);
  }
  return all;
}

// setupChecks wires Run checks and Submit.
function setupChecks(pg) {
  const fixEl = document.getElementById("case-fix");
  const runBtn = document.querySelector(".case-run-checks");
  const status = document.querySelector(".case-checks-status");
  const results = document.querySelector(".case-check-results");
  const submitBtn = document.querySelector(".case-submit-button");
  const n = pg.data.checks.length;
  pg.runChecks = async () => {
    const fix = fixEl.value;
    runBtn.disabled = true;
    status.textContent = "Running " + n + " " + plural(n, "check", "checks") + "…";
    results.replaceChildren();
    results.setAttribute("aria-busy", "true");
    let all = false;
    try {
      all = await runAll(pg, fix, results);
      const failed = results.querySelectorAll("li.fail").length;
      status.textContent = all ? "Every check passes." : failed + " of " + n + " " + plural(n, "check fails", "checks fail") + ".";
    } catch (err) {
      status.textContent = "The checks could not run: " + (err && err.message ? err.message : String(err));
    }
    results.setAttribute("aria-busy", "false");
    runBtn.disabled = false;
    pg.passed = all ? fix : "";
    if (pg.replay === null) pg.mark("pass", all);
    submitBtn.disabled = !all || pg.replay !== null;
    return all;
  };
  runBtn.addEventListener("click", pg.runChecks);
  runBtn.disabled = false;
  submitBtn.addEventListener("click", () => {
    if (pg.passed !== fixEl.value) return;
    const url = new URL(location.href);
    url.search = "?fix=" + encodeFix(pg.passed);
    url.hash = "";
    const a = document.createElement("a");
    a.href = url.href;
    a.textContent = url.href;
    document.querySelector(".case-submit-link").replaceChildren("Submitted. This link replays your fix and its checks: ", a);
    pg.state.submitted = url.href;
    pg.mark("submit", true);
    pg.persist();
  });
}

// setupHints counts the hints opened, on request, once each.
function setupHints(pg) {
  const count = document.querySelector(".case-hints-count");
  const all = document.querySelectorAll("details.hint");
  const say = () => {
    if (!count) return;
    const n = pg.state.hints.length;
    count.textContent = n === 0 ? "No hints opened." : n + " of " + all.length + " " + plural(all.length, "hint", "hints") + " opened.";
  };
  for (const d of all) {
    if (pg.state.hints.includes(d.dataset.hint)) d.open = true;
    d.addEventListener("toggle", () => {
      if (d.open && !pg.state.hints.includes(d.dataset.hint)) {
        pg.state.hints.push(d.dataset.hint);
        pg.persist();
        say();
      }
    });
  }
  say();
}

// setupHypothesis wires one hypothesis: running its experiment is
// reproducing; the reader records what it showed and the output line it
// rests on.
function setupHypothesis(pg, sec) {
  const i = sec.dataset.hypothesis;
  const block = sec.querySelector("twice-playground");
  const select = sec.querySelector("select");
  const record = sec.querySelector(".verdict-record");
  const saved = pg.state.verdicts[i] || {};
  const fill = () => {
    const t = block && block.ui && block.ui.transcript ? block.ui.transcript.textContent : "";
    const lines = t.split("\n").filter((l) => l.trim() !== "");
    if (lines.length === 0) return;
    const keep = select.value || saved.line || "";
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
      if (!block.ui || !block.ui.transcript) return false;
      new MutationObserver(fill).observe(block.ui.transcript, { childList: true, characterData: true, subtree: true });
      fill();
      return true;
    };
    if (!watch()) customElements.whenDefined("twice-playground").then(() => setTimeout(watch, 0));
  }
  const update = () => {
    const r = sec.querySelector("input[type=radio]:checked");
    pg.state.verdicts[i] = { verdict: r ? r.value : "", line: select.value };
    pg.persist();
    say();
  };
  for (const r of sec.querySelectorAll("input[type=radio]")) {
    if (saved.verdict === r.value) r.checked = true;
    r.addEventListener("change", update);
  }
  select.addEventListener("change", update);
  say();
}

// The runtime's config comes with the component: wait until it is there.
if (typeof document !== "undefined" && window.customElements) {
  customElements.whenDefined("twice-playground").then(setup);
}
