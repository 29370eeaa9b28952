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

function setup() {
  const dataEl = document.getElementById("case-data");
  if (!dataEl) return;
  const data = JSON.parse(dataEl.textContent);
  const key = "twice:case:" + data.slug;
  const state = Object.assign({ stages: {}, hints: [], verdicts: {} }, load(key));
  const persist = () => save(key, state);
  document.documentElement.classList.add("case-live");

  const fixEl = document.getElementById("case-fix");
  const runBtn = document.querySelector(".case-run-checks");
  const status = document.querySelector(".case-checks-status");
  const results = document.querySelector(".case-check-results");
  const submitBtn = document.querySelector(".case-submit-button");
  const submitOut = document.querySelector(".case-submit-link");

  const showProgress = () => {
    for (const s of STAGES) {
      const li = document.querySelector('.case-progress li[data-stage="' + s + '"]');
      if (!li) continue;
      const done = !!state.stages[s];
      li.classList.toggle("done", done);
      li.querySelector(".state").textContent = done ? "done" : "not yet";
    }
  };
  const mark = (stage, done) => {
    if (!!state.stages[stage] === done) return;
    state.stages[stage] = done;
    persist();
    showProgress();
  };

  // A link from Submit replays a fix: the fix, then its checks.
  const params = new URLSearchParams(location.search);
  let replay = null;
  if (params.has("fix")) {
    try {
      replay = decodeFix(params.get("fix"));
    } catch {
      replay = null;
    }
  }
  if (replay !== null) {
    fixEl.value = replay;
    const note = document.createElement("p");
    note.className = "case-replay";
    note.textContent = "This is a submitted fix, replayed: its checks run as the page loads.";
    fixEl.before(note);
  } else if (typeof state.fix === "string") {
    fixEl.value = state.fix;
  }
  fixEl.addEventListener("input", () => {
    state.fix = fixEl.value;
    mark("edit", fixEl.value !== data.fix);
    mark("pass", false);
    submitBtn.disabled = true;
    persist();
  });

  // Run checks.
  let passed = "";
  const runChecks = async () => {
    const fix = fixEl.value;
    runBtn.disabled = true;
    status.textContent = "Running " + data.checks.length + " " + plural(data.checks.length, "check", "checks") + "…";
    results.replaceChildren();
    results.setAttribute("aria-busy", "true");
    let all = true;
    try {
      for (const ck of data.checks) {
        const m = await getRuntime().run(prelude(fix) + ck.script, ck.seed, false, "case", "check-" + ck.name);
        const r = judge(ck, fix, JSON.parse(m.json));
        all = all && r.pass;
        const li = document.createElement("li");
        li.className = r.pass ? "pass" : "fail";
        li.textContent = checkLine(ck.name, r);
        results.append(li);
      }
      const n = results.querySelectorAll("li.fail").length;
      status.textContent = all ? "Every check passes." : n + " of " + data.checks.length + " " + plural(data.checks.length, "check fails", "checks fail") + ".";
    } catch (err) {
      all = false;
      status.textContent = "The checks could not run: " + (err && err.message ? err.message : String(err));
    }
    results.setAttribute("aria-busy", "false");
    runBtn.disabled = false;
    passed = all ? fix : "";
    if (replay === null) mark("pass", all);
    submitBtn.disabled = !all || replay !== null;
    return all;
  };
  runBtn.addEventListener("click", runChecks);
  runBtn.disabled = false;

  submitBtn.addEventListener("click", () => {
    if (passed !== fixEl.value) return;
    const url = new URL(location.href);
    url.search = "?fix=" + encodeFix(passed);
    url.hash = "";
    const a = document.createElement("a");
    a.href = url.href;
    a.textContent = url.href;
    submitOut.replaceChildren("Submitted. This link replays your fix and its checks: ", a);
    state.submitted = url.href;
    mark("submit", true);
    persist();
  });

  // Hints: opened on request, counted.
  const hintCount = document.querySelector(".case-hints-count");
  const allHints = document.querySelectorAll("details.hint");
  const countHints = () => {
    if (!hintCount) return;
    const n = state.hints.length;
    hintCount.textContent = n === 0 ? "No hints opened." : n + " of " + allHints.length + " " + plural(allHints.length, "hint", "hints") + " opened.";
  };
  for (const d of allHints) {
    if (state.hints.includes(d.dataset.hint)) d.open = true;
    d.addEventListener("toggle", () => {
      if (d.open && !state.hints.includes(d.dataset.hint)) {
        state.hints.push(d.dataset.hint);
        persist();
        countHints();
      }
    });
  }
  countHints();

  // Hypotheses: running an experiment is reproducing; the reader records
  // what it showed and the line it rests on.
  for (const sec of document.querySelectorAll("section.hypothesis")) {
    const i = sec.dataset.hypothesis;
    const block = sec.querySelector("twice-playground");
    const select = sec.querySelector("select");
    const record = sec.querySelector(".verdict-record");
    const saved = state.verdicts[i] || {};
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
      const v = state.verdicts[i];
      record.textContent = v && v.verdict ? "You recorded: " + v.verdict + (v.line ? ", on the line “" + v.line + "”" : "") + "." : "";
    };
    if (block) {
      block.addEventListener("click", (e) => {
        if (e.composedPath().some((n) => n.classList && n.classList.contains("run"))) mark("reproduce", true);
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
      state.verdicts[i] = { verdict: r ? r.value : "", line: select.value };
      persist();
      say();
    };
    for (const r of sec.querySelectorAll("input[type=radio]")) {
      if (saved.verdict === r.value) r.checked = true;
      r.addEventListener("change", update);
    }
    select.addEventListener("change", update);
    say();
  }

  showProgress();
  if (replay !== null) runChecks();
}

// The runtime's config comes with the component: wait until it is there.
if (typeof document !== "undefined" && window.customElements) {
  customElements.whenDefined("twice-playground").then(setup);
}
