// @ts-check
// render.js draws a run's Result into the component's shadow DOM: the
// Output panel (transcript, tally, load chart, diagnosis, matrices, and the
// effects, jobs and ledger tables), the step-through of the timeline, the
// Compare panes and Every ordering. It also holds the text a run is said
// in: the figures' formats, the diagnosis's plan, the status region's
// announcement, the replay of a trace to a step.
//
// Everything a run prints is inserted with textContent, never as HTML.
// The functions build elements when called; importing this module touches
// no browser global, so tests import its pure helpers as is.

import { CONFIG } from "./config.js";
import { claimWords } from "./links.js";

/** @typedef {import("./result-types.js").Result} Result */
/** @typedef {import("./result-types.js").Effect} Effect */
/** @typedef {import("./result-types.js").Summary} Summary */
/** @typedef {import("./result-types.js").Job} Job */
/** @typedef {import("./result-types.js").LoadTally} LoadTally */
/** @typedef {import("./result-types.js").KindCount} KindCount */
/** @typedef {import("./result-types.js").MatrixRow} MatrixRow */
/** @typedef {import("./result-types.js").MatrixFix} MatrixFix */
/** @typedef {import("./result-types.js").MatrixCell} MatrixCell */
/** @typedef {import("./result-types.js").TraceEvent} TraceEvent */
/** @typedef {import("./result-types.js").Timeline} Timeline */
/** @typedef {import("./result-types.js").Chart} Chart */
/** @typedef {import("./result-types.js").ResultError} ResultError */
/** @typedef {import("./result-types.js").Exploration} Exploration */

/**
 * Diagnosed is what the diagnosis panel explains: a Result, or one lease
 * run of a load (leaseView).
 *
 * @typedef {Pick<Result, "summary" | "effects" | "jobs" | "loads"> & { kind_counts?: KindCount[] | null }} Diagnosed
 */

/**
 * LeaseView is a Result cut down to one lease run of a load (leaseView).
 *
 * @typedef {object} LeaseView
 * @property {Summary[]} summary
 * @property {Effect[]} effects
 * @property {Job[]} jobs
 * @property {LoadTally[]} loads the one lease run
 * @property {number} ran_once
 * @property {number} more
 * @property {KindCount[]} kind_counts
 */

/**
 * Replayed is the tables after a step of a trace, and what it changed.
 *
 * @typedef {object} Replayed
 * @property {Job[]} jobs
 * @property {Effect[]} effects
 * @property {number | null} changedJob the id of the job the step wrote
 * @property {Job | null} prevJob that job's row before the step
 * @property {number} newEffect the index of the effect the step recorded, -1 for none
 * @property {boolean} reset the step emptied the tables
 */

/**
 * OpenCell opens a matrix cell's script, run at seed, under the matrix.
 *
 * @callback OpenCell
 * @param {string} script
 * @param {number} seed
 * @param {string} what the cell in words
 * @param {HTMLElement} button
 * @returns {void}
 */

// MAX_ROWS is the most rows a table shows; its caption says so.
const MAX_ROWS = 200;

// h builds an element: attributes (text sets textContent, class the
// class name; false, null and undefined are left out) and children.
/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string | boolean | null | undefined> | null} [attrs]
 * @param {...(Node | string | null | undefined | false)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === false || v === null || v === undefined) continue;
    if (k === "text") el.textContent = String(v);
    else if (k === "class") el.className = String(v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c) el.append(c);
  return el;
}

/**
 * fillPanel fills a view's panel: fill is the view's seq-th filling (a
 * newer one supersedes it). The panel is busy until fill ends; a failure
 * is said by failed(message) unless a newer filling came, and the view
 * forgets its key, so that the next filling runs again.
 *
 * @param {{seq: number, key: string | null}} view
 * @param {HTMLElement} panel
 * @param {number} seq
 * @param {() => Promise<void>} fill
 * @param {(message: string) => void} failed
 */
export async function fillPanel(view, panel, seq, fill, failed) {
  panel.dataset.state = "running";
  panel.setAttribute("aria-busy", "true");
  try {
    await fill();
  } catch (e) {
    if (seq !== view.seq) return;
    view.key = null;
    failed(e.message);
    panel.dataset.state = "error";
  } finally {
    if (seq === view.seq) panel.setAttribute("aria-busy", "false");
  }
}

// The diagnosis kinds of script.Summary, in plain words, and which are
// good (every event had its one effect): the runtime's list, from the
// config, looked up when used, since CONFIG is filled after import.
/** @type {(name: string | symbol) => Partial<import("./result-types.js").KindChoice>} */
const kindInfo = (name) => (CONFIG.kinds || []).find((k) => k.name === name) || {};
/** @type {Record<string, string | undefined>} */
export const KIND_TITLE = new Proxy({}, { get: (_, name) => kindInfo(name).title });
export const GOOD_KINDS = { has: (/** @type {string} */ name) => kindInfo(name).good === true };

export function formatBytes(n) {
  if (n >= 1e6) return (n / 1e6).toFixed(1) + " MB";
  if (n >= 1e3) return Math.round(n / 1e3) + " kB";
  return n + " B";
}

// formatMS writes a virtual instant in microseconds as milliseconds with
// three decimals, using integer arithmetic so nothing is rounded.
export function formatMS(us) {
  if (us === null || us === undefined) return "-";
  const neg = us < 0;
  const a = Math.abs(us);
  const ms = Math.floor(a / 1000);
  const frac = String(a % 1000).padStart(3, "0");
  return (neg ? "-" : "") + ms + "." + frac;
}

// announce is what the status region says when a run is done: the time,
// the tally of every race and load, and the diagnosis of the first order
// with a duplicate (or of the only order), so that a screen reader hears
// the outcome and not only that the run finished. After a load it is the
// diagnosis of the lease whose tables are shown (lease, the reader's pick,
// else chosenLease's), as the panel below says it.
/**
 * @param {Result} res
 * @param {number | string} ms
 * @param {number} [lease]
 * @returns {string}
 */
export function announce(res, ms, lease) {
  const parts = ["Done in " + ms + " ms."];
  for (const r of res.races || []) parts.push("claim=" + r.claim + ": duplicate effects in " + r.duplicates + " of " + r.races + " races.");
  for (const l of res.loads || []) parts.push("lease " + l.lease_us / 1e6 + " s: duplicate effects in " + l.duplicates + " of " + l.jobs + " jobs.");
  const d = diagnosisSaid(res, lease);
  if (d) parts.push(d);
  return parts.join(" ");
}

// diagnosisSaid is the announcement's diagnosis: of the first order with a
// duplicate, or of the only order; after a load, of the lease shown (see
// announce), and never of an order that ran once.
/**
 * @param {Result} res
 * @param {number} [lease]
 * @returns {string}
 */
export function diagnosisSaid(res, lease) {
  const loads = res.loads || [];
  const l = loads.length ? loads[chosenLease(res, lease)] : null;
  const sums = l ? l.summary || [] : res.summary || [];
  const bad = sums.filter((x) => !GOOD_KINDS.has(x.kind));
  // A lease run lists some of its jobs: the runtime counts them all.
  let more = bad.length - 1;
  if (l && l.kind_counts) more = l.kind_counts.filter((k) => !GOOD_KINDS.has(k.kind)).reduce((n, k) => n + k.n, 0) - 1;
  const first = bad[0] || (l ? null : sums[0]);
  if (!first) return "";
  const where = l ? " at lease " + l.lease_us / 1e6 + " s" : "";
  return "Diagnosis for " + first.order + where + ": " + (KIND_TITLE[first.kind] || first.kind) + "." + (more > 0 ? " " + more + " more order(s) with a duplicate." : "");
}

// stoppedAfter says how far a run that Stop ended had got: how many of its
// races or lease runs were done, as the runtime last told (ran: {done, of,
// what}, or null), and after how long (ms since it was sent; 0: it never
// ran).
export function stoppedAfter(ms, ran) {
  if (!(ms > 0)) return "Stopped before this script ran";
  const time = ms < 1000 ? Math.round(ms) + " ms" : (ms / 1000).toFixed(1) + " s";
  if (!ran || !(ran.done > 0)) return "Stopped after " + time;
  return "Stopped after " + ran.done + " of " + ran.of + " " + ran.what + " (" + time + ")";
}

// diagnosisPlan picks what the diagnosis panel says: at most three orders
// in detail, those with a duplicate effect first, and how many more
// there are. After a load (hundreds of jobs, and the tables hold its last
// lease run) an order that ran once says nothing on its own: such orders
// are counted, not listed, with a count per kind (counts), and only the
// orders of other kinds are shown and counted in more.
/**
 * @param {Diagnosed} res
 * @returns {{shown: Summary[], more: number, counts: KindCount[], scope: string}}
 */
export function diagnosisPlan(res) {
  const sums = res.summary || [];
  const bad = (s) => !GOOD_KINDS.has(s.kind);
  const ordered = [...sums.filter(bad), ...sums.filter((s) => !bad(s))];
  const loads = res.loads || [];
  if (loads.length === 0) {
    const shown = ordered.slice(0, 3);
    return { shown, more: ordered.length - shown.length, counts: [], scope: "" };
  }
  const telling = ordered.filter((s) => s.kind !== "once");
  const shown = telling.slice(0, 3);
  const n = new Map();
  for (const s of ordered) n.set(s.kind, (n.get(s.kind) || 0) + 1);
  // A lease run's detail lists only some jobs: the runtime counts them all.
  if (res.kind_counts) {
    n.clear();
    for (const k of res.kind_counts) n.set(k.kind, k.n);
  }
  const last = loads[loads.length - 1];
  return {
    shown,
    more: telling.length - shown.length,
    counts: [...n].map(([kind, count]) => ({ kind, n: count })),
    scope: "lease " + last.lease_us / 1e6 + " s, " + last.jobs + " jobs",
  };
}

// transcriptLines is the transcript as the page shows it: the diagnosis
// line of each order the diagnosis panel explains is left out, so that a
// diagnosis is said once per view (the CLI prints the line; the page has
// the panel). Every other line stays.
/**
 * @param {Result} res
 * @returns {string[]}
 */
export function transcriptLines(res) {
  const lines = res.transcript || [];
  const said = new Set(diagnosisPlan(res).shown.map((s) => s.order + "\n" + s.diagnosis));
  let order = "";
  return lines.filter((l) => {
    if (l.startsWith("  diagnosis: ")) return !said.has(order + "\n" + l.slice("  diagnosis: ".length));
    const m = /^([A-Za-z0-9_.:-]+): /.exec(l);
    order = m ? m[1] : "";
    return true;
  });
}

// sentences writes a diagnosis, one line of clauses joined by "; " in the
// transcript, as short sentences for the panel: each clause begins with a
// capital (unless it begins with a name such as worker.log) and ends with
// a full stop.
export function sentences(text) {
  return text
    .split(/; (?:and )?/)
    .map((c) => (/^[a-z]+[ ,:]/.test(c) ? c.charAt(0).toUpperCase() + c.slice(1) : c) + (/[.!?]$/.test(c) ? "" : "."))
    .join(" ");
}

// countPhrase says how many requests were effects, refused and replayed,
// each named ("1 effect, 1 refused"), the way the runtime's summaries say
// it (script.countPhrase), so the transcript, the tables and the panel
// count alike.
export function countPhrase(effects, refused, replayed) {
  let s = effects + (effects === 1 ? " effect" : " effects");
  if (refused) s += ", " + refused + " refused";
  if (replayed) s += ", " + replayed + " replayed";
  return s;
}

// minFontSize returns the smallest font-size="N" of an SVG, or 0.
export function minFontSize(svg) {
  let min = 0;
  for (const m of svg.matchAll(/font-size="([0-9.]+)"/g)) {
    const v = Number(m[1]);
    if (v > 0 && (min === 0 || v < min)) min = v;
  }
  return min;
}

// groupDigits writes a decimal string with thousands separators; the
// counts of orderings are strings because they outgrow JS numbers.
export function groupDigits(s) {
  return /^[0-9]+$/.test(s) ? BigInt(s).toLocaleString("en-US") : String(s);
}

// matrixCellText is one cell of a matrix as the text table prints it,
// the runtime's own label ("ok", "dup 20/20", "narrows 2/1000").
/**
 * @param {MatrixCell} c
 * @returns {string}
 */
export function matrixCellText(c) {
  if (c.label) return c.label;
  if (c.verdict === "pending") return "pending";
  if (c.verdict === "closed") return "ok";
  return (c.verdict === "duplicate" ? "dup" : c.verdict) + " " + c.failed + "/" + c.trials;
}

// cellWords is a cell's text (matrixCellText) in two lines, the verdict
// over the count ("dup" over "20/20"), so that seven columns fit a
// desktop's column of text; its text is the same.
/**
 * @param {MatrixCell} c
 * @returns {Node[]}
 */
function cellWords(c) {
  const text = matrixCellText(c);
  const i = text.indexOf(" ");
  if (i < 0) return [h("span", { class: "cell-v", text })];
  return [h("span", { class: "cell-v", text: text.slice(0, i + 1) }), h("span", { class: "cell-n", text: text.slice(i + 1) })];
}

// matrixCellLabel says a cell in words, for its accessible name.
/**
 * @param {MatrixRow} scenario
 * @param {MatrixFix} fix
 * @param {MatrixCell} c
 * @param {string} seeds
 * @returns {string}
 */
export function matrixCellLabel(scenario, fix, c, seeds) {
  if (c.verdict === "pending") return scenario.title + " with " + fix.title + ": pending, not runnable yet";
  const over = seeds ? " over seeds " + seeds : "";
  if (c.verdict === "closed") return scenario.title + " with " + fix.title + ": closed, one effect per event in every trial" + over;
  const verdict = { duplicate: "duplicates", lost: "loses work", narrows: "narrows, still duplicates" }[c.verdict] || c.verdict;
  return scenario.title + " with " + fix.title + ": " + verdict + " in " + c.failed + " of " + c.trials + " trials" + over;
}

// replay applies the first k+1 events of a trace, as result.go documents
// (a job replaces the row with its id, an effect is appended, reset
// empties both), and reports the tables after event k and what event k
// changed.
/**
 * @param {TraceEvent[]} trace
 * @param {number} k
 * @returns {Replayed}
 */
export function replay(trace, k) {
  let jobs = new Map();
  let effects = [];
  let prevJob = null;
  for (let i = 0; i <= k && i < trace.length; i++) {
    const ev = trace[i];
    if (ev.kind === "reset") {
      jobs = new Map();
      effects = [];
    }
    if (ev.job) {
      if (i === k) prevJob = jobs.get(ev.job.id) || null;
      jobs.set(ev.job.id, ev.job);
    }
    if (ev.effect) effects.push(ev.effect);
  }
  const ev = trace[k] || {};
  return {
    jobs: Array.from(jobs.values()).sort((a, b) => a.id - b.id),
    effects,
    changedJob: ev.job ? ev.job.id : null,
    prevJob,
    newEffect: ev.effect ? effects.length - 1 : -1,
    reset: ev.kind === "reset",
  };
}

// nearestStep returns the index of the event drawn nearest to x (in SVG
// units) on the timeline. Events drawn at one x are taken in turn: if
// the current step is one of them, the next one (wrapping) is returned.
export function nearestStep(xs, x, current) {
  let best = Infinity;
  for (const v of xs) best = Math.min(best, Math.abs(v - x));
  const at = [];
  xs.forEach((v, i) => {
    if (Math.abs(v - x) === best) at.push(i);
  });
  const i = at.indexOf(current);
  return i < 0 ? at[0] : at[(i + 1) % at.length];
}

// renderOutput fills the Output panel from a Result: the error line, the
// transcript, the tally, the load chart, the diagnosis, the matrices and
// the effects, jobs and ledger tables. A matrix cell's button calls
// openCell(script, seed, what, button).
/**
 * @param {any} ui
 * @param {Result} res
 * @param {string} heading
 * @param {string} label
 * @param {OpenCell} openCell
 */
export function renderOutput(ui, res, heading, label, openCell) {
  ui.out.classList.remove("empty");
  ui.heading.textContent = heading;
  if (res.error) {
    const e = res.error;
    ui.error.textContent = errorText(e);
    ui.error.hidden = false;
  } else {
    ui.error.hidden = true;
    ui.error.textContent = "";
  }
  renderTranscript(ui, res);
  const lease = renderTally(ui, res);
  renderChart(ui, res.chart);
  renderMatrices(ui.matrix, res, label, openCell);
  if ((res.loads || []).length) {
    renderLease(ui, res, lease);
    return;
  }
  renderDiagnosis(ui.diagnosis, res);
  renderTables(ui, res);
}

// renderTranscript shows the transcript (see transcriptLines), a span per
// line; a matrix's, wider than the panel, is folded as its text copy.
/**
 * @param {any} ui
 * @param {Result} res
 */
function renderTranscript(ui, res) {
  const lines = transcriptLines(res);
  // A line each, so that a line longer than the box wraps under its own
  // start with a hanging indent (the stylesheet's .line); the text, and
  // what is copied, is the transcript as printed.
  ui.transcript.replaceChildren(
    ...lines.map((l) => {
      const line = h("span", { class: "line", text: l + "\n" });
      // A line indented under the one before it hangs under its own text.
      const lead = l.length - l.trimStart().length;
      if (lead > 0) line.style.setProperty("--lead", String(lead));
      return line;
    })
  );
  ui.transcript.hidden = lines.length === 0;
  // A matrix is drawn as a table below: its text copy, wider than the
  // panel, is folded (and scrolls, not wraps, when opened).
  const matrix = (res.matrices || []).length > 0;
  ui.transcript.classList.toggle("wide", matrix);
  if (matrix && ui.transcript.parentElement !== ui.textCopy) ui.textCopy.append(ui.transcript);
  if (!matrix && ui.transcript.parentElement === ui.textCopy) ui.textCopy.before(ui.transcript);
  ui.textCopy.hidden = !matrix || lines.length === 0;
}

// renderTally writes one line per race and one per lease of a load; it
// returns the lease whose tables are shown (-1 without a load).
/**
 * @param {any} ui
 * @param {Result} res
 * @returns {number}
 */
function renderTally(ui, res) {
  const races = res.races || [];
  ui.tally.replaceChildren();
  let dups = 0;
  for (const r of races) {
    dups += r.duplicates;
    const strong = h("strong", { text: r.duplicates + " of " + r.races });
    const span = h("span", { class: "tally-item" + (r.duplicates ? " bad" : " good") });
    span.append("claim=" + r.claim + (r.dedupe && r.dedupe !== "off" ? ", dedupe=" + r.dedupe : "") + (r.key && r.key !== "none" ? ", key=" + r.key : "") + ": duplicate effects in ", strong, " races");
    ui.tally.append(span);
  }
  // A load's tally is one line per lease, and each line picks the lease
  // whose tables and diagnosis are shown below it.
  const loads = res.loads || [];
  const lease = loads.length ? chosenLease(res, ui.lease) : -1;
  ui.tally.classList.toggle("per-lease", loads.length > 0);
  loads.forEach((l, i) => {
    dups += l.duplicates;
    const strong = h("strong", { text: l.duplicates + " of " + l.jobs });
    const radio = h("input", { type: "radio", name: "lease", value: String(i), "aria-label": "Show the tables of lease " + l.lease_us / 1e6 + " s" });
    radio.checked = i === lease;
    radio.addEventListener("change", () => {
      if (!radio.checked) return;
      ui.lease = i;
      renderLease(ui, res, i);
    });
    const item = h("label", { class: "tally-item lease-pick" + (l.duplicates ? " bad" : " good") }, radio);
    item.append(" lease " + l.lease_us / 1e6 + " s: duplicate effects in ", strong, " jobs");
    ui.tally.append(item);
  });
  ui.tally.hidden = races.length === 0 && loads.length === 0;
  ui.tally.dataset.duplicates = String(dups);
  return lease;
}

// renderChart shows a load's chart: SVG drawn by the runtime (Go, escaped
// text), shown as an image.
/**
 * @param {any} ui
 * @param {Chart | undefined} chart
 */
function renderChart(ui, chart) {
  ui.chart.hidden = !chart;
  if (!chart) {
    ui.chartImg.removeAttribute("src");
    return;
  }
  ui.chartImg.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(chart.svg);
  ui.chartImg.width = chart.width;
  ui.chartImg.height = chart.height;
  // The runtime draws it narrow enough for a phone: one row per lease.
  const desc = /<desc[^>]*>([^<]*)<\/desc>/.exec(chart.svg);
  ui.chartImg.alt = "Chart of jobs with two effects by lease length: " + (desc ? desc[1] : "");
}

// renderTables fills the effects, jobs and ledger tables of a run that is
// not a load.
/**
 * @param {any} ui
 * @param {Result} res
 */
function renderTables(ui, res) {
  const effects = res.effects || [];
  effectsTable(
    ui.effects,
    "Requests recorded by the receipts service: " +
      countPhrase(
        effects.filter((e) => !e.refused && !e.replayed).length,
        effects.filter((e) => e.refused).length,
        effects.filter((e) => e.replayed).length
      ),
    effects,
    res.views && res.views.columns
  );
  const jobs = res.jobs || [];
  fillTable(
    ui.jobs,
    "Jobs table (" + jobs.length + ")",
    ["id", "order", "event", "status", "attempts", "run", "lease (ms)"],
    jobs.map((j) => [j.id, j.order, j.event, j.status, j.attempts, j.run || "-", formatMS(j.lease_us)]),
    [true, false, false, false, true, false, true]
  );
  ui.effectsWrap.hidden = effects.length === 0 && jobs.length === 0;
  ui.jobsWrap.hidden = jobs.length === 0;
  // The ledger: committed rows, and the keys with no row beside them
  // (work claimed and never done).
  const ledger = res.ledger || [];
  const keys = res.keys || [];
  const rowKeys = new Set(ledger.map((l) => l.key));
  const lostKeys = keys.filter((k) => !rowKeys.has(k.key));
  fillTable(
    ui.ledger,
    "Ledger (" + ledger.length + " row(s), " + (res.key_hits || 0) + " duplicate-key hit(s))",
    ["id", "key", "order", "job", "run", "attempt"],
    ledger.map((l) => [l.id, l.key, l.order, l.job, l.run, l.attempt]).concat(lostKeys.map((k) => ["-", k.key, "no row: lost work", "", k.run, ""])),
    [true, false, false, true, false, true]
  );
  ui.ledgerWrap.hidden = ledger.length === 0 && keys.length === 0;
  // A run whose effects are ledger rows has no receipts to list.
  if (effects.length === 0 && !ui.ledgerWrap.hidden) ui.effectsWrap.hidden = true;
}

// chosenLease is the lease whose tables are shown: the reader's pick
// (kept across runs while the script has as many leases), else the
// shortest lease with duplicates, else the last one.
/**
 * @param {{loads: LoadTally[] | null}} res
 * @param {number} [picked]
 * @returns {number}
 */
export function chosenLease(res, picked) {
  const loads = res.loads || [];
  if (typeof picked === "number" && Number.isInteger(picked) && picked >= 0 && picked < loads.length) return picked;
  let best = -1;
  loads.forEach((l, i) => {
    if (l.duplicates > 0 && (best < 0 || l.lease_us < loads[best].lease_us)) best = i;
  });
  return best >= 0 ? best : loads.length - 1;
}

// leaseView is a Result cut down to one lease run of a load: the jobs
// that did not simply run once, duplicates first, their effects (in that
// order of jobs) and their diagnosis, and how many ran once.
/**
 * @param {Result} res
 * @param {number} i
 * @returns {LeaseView}
 */
export function leaseView(res, i) {
  const l = (res.loads || [])[i];
  const rank = new Map((l.summary || []).map((s, k) => [s.order, k]));
  /** @param {{order: string}} a @param {{order: string}} b */
  const byRank = (a, b) => Number(rank.get(a.order)) - Number(rank.get(b.order));
  const effects = (l.effects || []).slice().sort(byRank);
  const jobs = (l.job_rows || []).slice().sort(byRank);
  return { summary: l.summary || [], effects, jobs, loads: [l], ran_once: l.ran_once || 0, more: l.more || 0, kind_counts: l.kind_counts || [] };
}

// leaseCaptions are the captions of the effects and jobs tables of a
// lease view (leaseView): what each lists, counted in its own unit (the
// effects table's rows are effects, of the jobs listed), and what is not
// listed.
/**
 * @param {LeaseView} v
 * @returns {{effects: string, jobs: string}}
 */
export function leaseCaptions(v) {
  const l = v.loads[0];
  const n = (k, one, more) => k + " " + (k === 1 ? one : more);
  const fold = [];
  if (v.more) fold.push(v.more + " more that did not simply run once");
  if (v.ran_once) fold.push(v.ran_once + " that ran once");
  const rest = fold.length ? "; not listed: " + fold.join(" and ") : "";
  const where = "at lease " + l.lease_us / 1e6 + " s";
  const jobs = n(v.jobs.length, "job", "jobs");
  return {
    effects: "Effects " + where + ": " + n(v.effects.length, "effect", "effects") + " of the " + jobs + " that did not simply run once" + rest,
    jobs: "Jobs " + where + ": " + v.jobs.length + " of " + l.jobs + ", those that did not simply run once" + rest,
  };
}

// renderLease fills the diagnosis and the effects and jobs tables with
// lease run i of the load; the jobs that ran once are counted in the
// captions, not listed.
/**
 * @param {any} ui
 * @param {Result} res
 * @param {number} i
 */
export function renderLease(ui, res, i) {
  const v = leaseView(res, i);
  renderDiagnosis(ui.diagnosis, v);
  const caps = leaseCaptions(v);
  effectsTable(ui.effects, caps.effects, v.effects, res.views && res.views.columns);
  fillTable(
    ui.jobs,
    caps.jobs,
    ["id", "order", "event", "status", "attempts", "run", "lease (ms)"],
    v.jobs.map((j) => [j.id, j.order, j.event, j.status, j.attempts, j.run || "-", formatMS(j.lease_us)]),
    [true, false, false, false, true, false, true]
  );
  ui.effectsWrap.hidden = false;
  ui.jobsWrap.hidden = false;
  ui.ledgerWrap.hidden = true;
}

// EFFECT_COLUMNS are the effects table's columns: name, cell, numeric.
/** @type {[string, (e: Effect) => string | number, boolean][]} */
const EFFECT_COLUMNS = [
  ["order", (e) => e.order, false],
  ["job", (e) => e.job, true],
  ["event", (e) => e.event, false],
  ["run", (e) => e.run, false],
  ["attempt", (e) => e.attempt, true],
  ["send", (e) => "s" + e.send + (e.refused ? " refused" : "") + (e.replayed ? " replayed" : ""), false],
  ["key", (e) => e.key || "-", false],
  ["worker", (e) => e.worker, false],
  ["arrival (ms)", (e) => formatMS(e.at_us), true],
];

// effectsTable fills the effects table with the order first (pinned on a
// narrow screen), then the columns the runtime says the block is about
// (views.columns), then the rest.
/**
 * @param {HTMLTableElement} table
 * @param {string} caption
 * @param {Effect[]} effects
 * @param {string[] | null | undefined} telling
 */
export function effectsTable(table, caption, effects, telling) {
  const first = ["order", ...(telling || [])];
  const cols = [...first.map((n) => EFFECT_COLUMNS.find((c) => c[0] === n)).filter((c) => c !== undefined), ...EFFECT_COLUMNS.filter((c) => !first.includes(c[0]))];
  fillTable(
    table,
    caption,
    cols.map((c) => c[0]),
    effects.map((e) => cols.map((c) => c[1](e))),
    cols.map((c) => c[2])
  );
}

// renderMatrices draws each matrix of the run as a table: a row per
// scenario, a column per fix, each cell the verdict of live runs at every
// seed of the matrix. A cell's button opens the script that cell ran
// (openCell(script, seed, what)); on a narrow screen the table turns into
// one card per scenario (the CSS reads each cell's data-label).
/**
 * @param {HTMLElement} box
 * @param {Result} res
 * @param {string} label
 * @param {OpenCell} openCell
 */
export function renderMatrices(box, res, label, openCell) {
  const ms = res.matrices || [];
  box.replaceChildren();
  box.hidden = ms.length === 0;
  for (const m of ms) {
    const seeds = m.seeds > 1 ? m.seed + "-" + (m.seed + m.seeds - 1) : String(m.seed);
    const head = h(
      "tr",
      null,
      h("th", { scope: "col", text: "scenario" }),
      h("th", { scope: "col", class: "num", text: "events" }),
      ...m.fixes.map((f) => h("th", { scope: "col", title: f.title + ": " + f.change, class: f.pending ? "pending" : null, text: f.id }))
    );
    const rows = m.scenarios.map((r) =>
      h(
        "tr",
        null,
        h("th", { scope: "row", text: r.title }),
        h("td", { class: "num", "data-label": "events", text: String(r.events) }),
        ...r.cells.map((c, i) => {
          const what = matrixCellLabel(r, m.fixes[i], c, seeds);
          const td = h("td", { class: "cell " + c.verdict, "data-fix": c.fix, "data-label": c.fix, "data-scenario": r.id, "data-effects": String(c.effects) });
          // A heatmap: the cell is filled by the share of its trials
          // that failed (the stylesheet's --heat), its text says it too.
          td.style.setProperty("--heat", String(c.trials > 0 && c.verdict !== "closed" ? c.failed / c.trials : 0));
          if (c.script) {
            const btn = h("button", { type: "button", class: "cell-run", title: c.script + "(opens this cell's script below the matrix)", "aria-label": matrixCellText(c) + ": " + what + ". Open this cell" }, ...cellWords(c));
            btn.addEventListener("click", () => openCell(c.script, m.seed, r.title + " with " + m.fixes[i].title, btn));
            td.append(btn);
          } else {
            td.append(h("span", { "aria-label": what }, ...cellWords(c)));
          }
          return td;
        })
      )
    );
    const foot = h(
      "tr",
      null,
      h("th", { scope: "row", text: "closes" }),
      h("td", { class: "num empty" }),
      ...m.fixes.map((f) => h("td", { class: "closes", "data-label": f.id, text: f.pending ? "-" : f.closes + " of " + m.scenarios.length }))
    );
    const table = h(
      "table",
      { class: "matrix" },
      h("caption", { text: "Which fix closes which duplicate, at seeds " + seeds + ": each cell is a live run at every seed; ok means one effect per event in every trial, otherwise the failed trials of all" }),
      h("thead", null, head),
      h("tbody", null, ...rows),
      h("tfoot", null, foot)
    );
    const key = h("dl", { class: "matrix-key" });
    for (const f of m.fixes) {
      key.append(h("div", null, h("dt", { text: f.id }), h("dd", { text: f.title + " (" + f.change + ")" + (f.pending ? ": pending" : "") })));
    }
    box.append(h("div", { class: "table-wrap matrix-box", tabindex: "0", role: "region", "aria-label": "Matrix of fixes and duplicates, " + label }, table), key);
  }
}

// renderDiagnosis explains each order's effects beside the effects
// table: the verdict in plain words, the runtime's own sentence, and
// the evidence that decided it (runs, attempts, sends, gap). Duplicates
// come first; a few orders are shown, the rest are counted.
/**
 * @param {HTMLElement} box
 * @param {Diagnosed} res
 */
export function renderDiagnosis(box, res) {
  box.replaceChildren();
  const sums = res.summary || [];
  if (sums.length === 0) {
    box.hidden = true;
    return;
  }
  const effectsOf = new Map();
  for (const e of res.effects || []) {
    if (!effectsOf.has(e.order)) effectsOf.set(e.order, []);
    effectsOf.get(e.order).push(e);
  }
  const jobOf = new Map((res.jobs || []).map((j) => [j.order, j]));
  const bad = (s) => !GOOD_KINDS.has(s.kind);
  const plan = diagnosisPlan(res);
  const shown = plan.shown;
  box.append(h("p", { class: "diag-title", text: "Diagnosis" }));
  if (plan.counts.length) {
    box.append(h("p", { class: "diag-scope", text: "Of the lease run the tables show (" + plan.scope + "):" }));
    const ul = h("ul", { class: "diag-counts" });
    for (const c of plan.counts) {
      ul.append(h("li", { class: GOOD_KINDS.has(c.kind) ? "good" : "bad" }, h("strong", { text: KIND_TITLE[c.kind] || c.kind }), ": " + c.n + (c.n === 1 ? " order" : " orders")));
    }
    box.append(ul);
  }
  for (const s of shown) {
    const effs = effectsOf.get(s.order) || [];
    const item = h("div", { class: "verdict kind-" + s.kind + (bad(s) ? " bad" : " good") });
    item.append(h("p", { class: "verdict-head" }, h("strong", { text: KIND_TITLE[s.kind] || s.kind }), document.createTextNode(" · " + s.order)));
    if (s.diagnosis) item.append(h("p", { class: "verdict-words", text: sentences(s.diagnosis) }));
    const dl = h("dl", { class: "evidence", "aria-label": "Evidence for " + s.order });
    const add = (k, v) => dl.append(h("div", null, h("dt", { text: k }), h("dd", { text: v })));
    const runs = [...new Set(effs.map((e) => e.run))];
    add("requests", s.count || countPhrase(s.effects, s.refused, s.replayed));
    const jobIds = [...new Set(effs.map((e) => e.job))];
    if (jobIds.length > 1) add("jobs", jobIds.join(", "));
    if (jobIds.length > 1) add("events", effs.map((e) => e.event).join(", "));
    if (effs.some((e) => e.key)) add("keys", effs.map((e) => (e.key || "none") + (e.replayed ? " (replayed)" : "")).join(", "));
    add("runs", runs.length + (runs.length ? ": " + runs.join(", ") : ""));
    const job = jobOf.get(s.order);
    add("attempts", effs.map((e) => "a" + e.attempt).join(", ") + (job ? " (job row: attempts=" + job.attempts + ")" : ""));
    add("sends", effs.map((e) => "s" + e.send).join(", "));
    // The gap is the runtime's own string (the summary's span, which
    // the transcript's "over" and the diagnosis's "apart" print too),
    // never formatted again here, so the three cannot disagree.
    if (s.effects > 1) add("gap", s.span + " from the first effect to the last");
    item.append(dl);
    box.append(item);
  }
  if (plan.more > 0) {
    box.append(h("p", { class: "more", text: "…and " + plan.more + " more order(s); the effects table lists them all." }));
  }
  box.hidden = false;
}

// fillTable fills a table; mark(i) may return {row: true, cells: [j]}
// to highlight row i and some of its cells.
export function fillTable(table, caption, cols, rows, numeric, mark) {
  const shown = rows.slice(0, MAX_ROWS);
  let cap = caption;
  if (rows.length > shown.length) cap += ", showing the first " + shown.length;
  const head = h("tr", null, ...cols.map((c, i) => h("th", { scope: "col", class: numeric[i] ? "num" : null, text: c })));
  const body = h(
    "tbody",
    null,
    ...shown.map((r, ri) => {
      const m = mark ? mark(ri) : null;
      return h(
        "tr",
        { class: m && m.row ? "changed" : null },
        ...r.map((v, i) =>
          h("td", { class: [numeric[i] ? "num" : "", m && m.cells && m.cells.includes(i) ? "diff" : ""].join(" ").trim() || null, text: String(v) })
        )
      );
    })
  );
  if (shown.length === 0) {
    body.append(h("tr", null, h("td", { colspan: String(cols.length), class: "none", text: "none" })));
  }
  table.replaceChildren(h("caption", { text: cap }), h("thead", null, head), body);
}

// ---- timeline and step-through ----

// timelineAlt describes the picture for readers who cannot see it.
/**
 * @param {TraceEvent[]} trace
 * @returns {string}
 */
export function timelineAlt(trace) {
  const lanes = [...new Set(trace.map((e) => e.proc).filter((p) => p !== "shell" && p !== "receipts"))];
  const seen = new Map();
  let effects = 0;
  let dups = 0;
  for (const e of trace) {
    if (e.kind === "reset") seen.clear();
    if (!e.effect) continue;
    effects++;
    const k = e.effect.order;
    if (seen.has(k)) dups++;
    seen.set(k, true);
  }
  return (
    "Timeline: lanes for " + (lanes.join(", ") || "no worker") + " and the receipts service; " +
    effects + " effect(s)" + (dups ? ", " + dups + " of them a duplicate, highlighted" : ", no duplicate") +
    ". The step-through below describes every event."
  );
}

// renderStep shows step k of a Result's trace (k within the trace): the
// event in words, what it changed, the tables as they stood after it, and
// the cursor on the timeline.
/**
 * @param {any} ui
 * @param {Result} res
 * @param {number} k
 */
export function renderStep(ui, res, k) {
  const trace = res.trace || [];
  const ev = trace[k];
  const st = replay(trace, k);
  ui.stepCount.textContent = "Step " + (k + 1) + " of " + trace.length;
  ui.prev.setAttribute("aria-disabled", k === 0 ? "true" : "false");
  ui.next.setAttribute("aria-disabled", k === trace.length - 1 ? "true" : "false");
  ui.stepWhat.replaceChildren(
    h("span", { class: "step-at", text: formatMS(ev.at_us) + " ms" }),
    h("span", { class: "step-proc proc-" + (ev.proc === "receipts" || ev.proc === "shell" ? ev.proc : "worker"), text: ev.proc }),
    h("span", { class: "step-words", text: ev.step })
  );
  ui.stepWhat.dataset.kind = ev.kind;
  const { change, jobCells } = stepChange(st);
  ui.stepChange.textContent = change;
  ui.stepChange.classList.toggle("bad", st.newEffect >= 0 && /duplicate/.test(change));
  fillTable(
    ui.stepEffects,
    "Effects after this step (" + st.effects.length + ")",
    ["order", "run", "attempt", "send", "worker", "arrival (ms)"],
    st.effects.map((e) => [e.order, e.run, e.attempt, e.ledger ? "ledger row" : "s" + e.send, e.worker, formatMS(e.at_us)]),
    [false, false, true, false, false, true],
    (i) => (i === st.newEffect ? { row: true, cells: [0, 1, 2, 3, 4, 5] } : null)
  );
  fillTable(
    ui.stepJobs,
    "Jobs after this step (" + st.jobs.length + ")",
    ["id", "order", "event", "status", "attempts", "run", "lease (ms)"],
    st.jobs.map((j) => [j.id, j.order, j.event, j.status, j.attempts, j.run || "-", formatMS(j.lease_us)]),
    [true, false, false, false, true, false, true],
    (i) => (st.jobs[i].id === st.changedJob ? { row: true, cells: jobCells } : null)
  );
  ui.stepLive.textContent = "Step " + (k + 1) + " of " + trace.length + ", at " + formatMS(ev.at_us) + " ms, " + ev.proc + ": " + ev.step + ". " + change;
  moveCursor(ui, res.timeline, k);
}

// stepChange says in words what a step changed (st is replay's report),
// and which cells of the changed job's row to mark (jobCells).
/**
 * @param {Replayed} st
 * @returns {{change: string, jobCells: number[]}}
 */
export function stepChange(st) {
  let change = "The tables did not change.";
  let jobCells = [];
  if (st.reset) change = "The tables were emptied.";
  if (st.changedJob !== null) {
    // The changed job is in the tables: replay put it there.
    const j = /** @type {Job} */ (st.jobs.find((x) => x.id === st.changedJob));
    const p = st.prevJob;
    if (!p) {
      change = "Job " + j.id + " (" + j.order + ") added to the jobs table.";
      jobCells = [0, 1, 2, 3, 4, 5, 6];
    } else {
      const diffs = [];
      const cmp = [
        [3, "status", p.status, j.status],
        [4, "attempts", p.attempts, j.attempts],
        [5, "run", p.run || "-", j.run || "-"],
        [6, "lease", formatMS(p.lease_us), formatMS(j.lease_us)],
      ];
      for (const [col, name, a, b] of cmp) {
        if (a !== b) {
          diffs.push(name + " " + a + " → " + b);
          jobCells.push(col);
        }
      }
      change = "Job " + j.id + ": " + (diffs.length ? diffs.join(", ") : "written, unchanged") + ".";
    }
  }
  if (st.newEffect >= 0) {
    const e = st.effects[st.newEffect];
    const again = st.effects.slice(0, st.newEffect).some((x) => x.order === e.order && !x.replayed);
    change = "Effect " + (st.newEffect + 1) + " recorded: " + e.order + " from run " + e.run + " a" + e.attempt + " s" + e.send + (again ? ", a second effect for this order: the duplicate." : ".");
    if (e.ledger) change = "Effect " + (st.newEffect + 1) + " committed: a ledger row for " + e.order + " from run " + e.run + " a" + e.attempt + ", with its key " + e.key + " and the ack, in one COMMIT" + (again ? "; a second effect for this order: the duplicate." : ".");
    if (e.replayed) change = "Request " + (st.newEffect + 1) + " replayed: " + e.order + " from run " + e.run + " carried key " + e.key + ", already stored by run " + e.first_run + "; no effect, the first answer again.";
  }
  return { change, jobCells };
}

// moveCursor puts the cursor on the timeline at step k's event, and
// scrolls a picture wider than its box to keep it in view.
/**
 * @param {any} ui
 * @param {Timeline | undefined} tl
 * @param {number} k
 */
function moveCursor(ui, tl, k) {
  const x = tl && tl.event_x ? tl.event_x[k] : undefined;
  if (!(tl && typeof x === "number" && tl.width > 0 && !ui.tlFig.hidden)) {
    ui.tlCursor.hidden = true;
    return;
  }
  const frac = x / tl.width;
  ui.tlCursor.style.left = (frac * 100).toFixed(3) + "%";
  ui.tlCursor.hidden = false;
  const sc = ui.tlScroll;
  const px = frac * ui.tlInner.clientWidth;
  if (px < sc.scrollLeft + 16 || px > sc.scrollLeft + sc.clientWidth - 16) {
    sc.scrollLeft = Math.max(0, px - sc.clientWidth / 2);
  }
}

// errorText is a Result's error as the command line prints it ("line 1,
// col 6: ..."): the runtime's own text, so that the page and the CLI say
// an error one way.
/**
 * @param {ResultError} e
 * @returns {string}
 */
export function errorText(e) {
  return e.text || e.msg;
}

// pane is one side of Compare: a run of the block's script with one claim.
/**
 * @param {string} claim
 * @param {Result} res
 * @param {string} label
 * @returns {HTMLElement}
 */
export function pane(claim, res, label) {
  const sec = h("section", { class: "pane pane-" + claim, "aria-label": "claim=" + claim + ", " + label });
  sec.append(h("p", { class: "pane-title" }, h("code", { text: "claim=" + claim }), h("span", { class: "pane-sub", text: claimWords(claim) })));
  if (res.error) {
    const e = res.error;
    sec.append(h("p", { class: "error", text: errorText(e) }));
  }
  // The runtime counts the outcome one way for every view: races, load
  // jobs, or events with two effects; ledger rows are effects.
  const o = res.outcome || { duplicates: 0, effects: 0, headline: "" };
  for (const r of res.races || []) {
    const p = h("p", { class: "tally-item " + (r.duplicates ? "bad" : "good") });
    p.append("duplicate effects in ", h("strong", { text: r.duplicates + " of " + r.races }), " races");
    sec.append(p);
  }
  for (const l of res.loads || []) {
    const p = h("p", { class: "tally-item " + (l.duplicates ? "bad" : "good") });
    p.append("lease " + l.lease_us / 1e6 + " s: duplicate effects in ", h("strong", { text: l.duplicates + " of " + l.jobs }), " jobs");
    sec.append(p);
  }
  // Outside races and loads, a duplicate is titled by its diagnosis.
  const tallied = (res.races || []).length + (res.loads || []).length > 0;
  const bad = (res.summary || []).filter((s) => !GOOD_KINDS.has(s.kind));
  let title = o.effects ? "No duplicate effect" : "No effects";
  if (o.duplicates) title = !tallied && bad.length ? KIND_TITLE[bad[0].kind] || bad[0].kind : "Duplicate effects";
  const verdict = h("p", { class: "pane-verdict " + (o.duplicates ? "bad" : "good") });
  verdict.append(h("strong", { text: title }), document.createTextNode(" · " + o.headline));
  sec.append(verdict);
  sec.dataset.duplicates = String(o.duplicates);
  const lines = res.transcript || [];
  sec.append(h("pre", { class: "transcript compact", tabindex: "0", role: "region", "aria-label": "Transcript with claim=" + claim + ", " + label, text: lines.join("\n") + (lines.length ? "\n" : "") }));
  return sec;
}

// exploreFlags names the worker flags an exploration ran with, as the
// runtime's JSON gives them (absent when not set).
/**
 * @param {Exploration} x
 * @returns {string}
 */
function exploreFlags(x) {
  let s = "";
  if (x.heartbeat_ms) s += ", a heartbeat (one lease renewal each)";
  if (x.fence) s += ", a fencing token and a fenced ack";
  if (x.effect === "ledger") s += x.key_txn === "separate" ? ", the effect a ledger row after its key's own transaction" : ", the effect a ledger row in one transaction";
  return s;
}

// checkedWords says how many races Every ordering checked: each race of
// the block is checked, whatever claims they use.
export function checkedWords(n) {
  if (n > 2) return "All " + n + " races checked";
  return n === 2 ? "Both races checked" : "Checked";
}

// renderExplorations fills Every ordering from the runtime's explorations.
/**
 * @param {any} ui
 * @param {Exploration[]} xs
 * @param {number} ms
 */
export function renderExplorations(ui, xs, ms) {
  const heads = [];
  const body = [];
  for (const x of xs) {
    const none = x.duplicating === "0";
    const head = h("span", { class: "exp-line" });
    head.append(
      h("strong", { class: none ? "good" : "bad", text: groupDigits(x.duplicating) + " of " + groupDigits(x.orderings) }),
      document.createTextNode(
        " interleavings of " + x.workers + " workers give two effects with claim=" + x.claim + (x.dedupe && x.dedupe !== "off" && x.key && x.key !== "none" && x.effect !== "ledger" ? ", the service's dedupe=" + x.dedupe + " and key=" + x.key : "") + exploreFlags(x) + "."
      )
    );
    heads.push(head);
    const part = h("div", { class: "exp-claim", "data-claim": x.claim });
    if (xs.length > 1) part.append(h("p", { class: "exp-claim-title", text: "claim=" + x.claim + (x.effect === "ledger" ? ", effect=ledger" : "") + (x.key_txn ? ", key-txn=" + x.key_txn : "") + (x.heartbeat_ms ? ", heartbeat=" + x.heartbeat_ms + "ms" : "") + (x.fence ? ", fence" : "") }));
    if (none) {
      part.append(
        h("p", { class: "proof good", text: "Every ordering was checked, none duplicates: for " + x.workers + " workers this is a proof, not a sample." })
      );
    } else {
      part.append(h("p", { class: "shortest-label", text: "The shortest ordering that duplicates:" }));
      part.append(
        h(
          "ol",
          { class: "shortest" },
          ...(x.shortest || []).map((s) => h("li", null, h("span", { class: "who", text: s.worker }), document.createTextNode(" " + s.what)))
        )
      );
    }
    part.append(h("p", { class: "exp-method", text: "How: " + x.method + " (" + x.states + " distinct states)." }));
    body.push(part);
  }
  body.push(h("p", { class: "exp-time", text: checkedWords(xs.length) + " in " + (ms < 10 ? ms.toFixed(1) : Math.round(ms)) + " ms in your browser. Timing is ignored: only the order of the workers' steps counts." }));
  ui.expHead.replaceChildren(...heads);
  ui.expBody.replaceChildren(...body);
}
