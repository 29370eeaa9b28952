// @ts-check
// sliders.js is a block's numbers you can drag: for each number its
// sliders attribute names (the server writes it from the block option
// sliders=LIST), a slider above the script. Where the script writes each
// number is the runtime's to say (the Result's views.numbers: its value,
// its floor, and the spans of the script's text that write it), so the
// page never reads the language: dragging puts the new value in those
// spans, everywhere the number is written, so the script in the editor
// always says what ran, and runs it; the output and the load chart are
// redrawn as the slider moves. A run under way is not stopped; the
// newest value waits for it, so a drag costs at most one run behind. A
// slider shows only for a number the script writes (a list of leases has
// none: it is a sweep already); while the reader's own edits are not yet
// run, the sliders hide, and come back with that run's Result.

import { h } from "./render.js";

/** @typedef {import("./result-types.js").NumberView} NumberView */

/**
 * Spec is how a slider shows one named number: its label, range and
 * unit. Times are in ms (the lease too), workers a count.
 *
 * @typedef {object} Spec
 * @property {string} label
 * @property {number} min
 * @property {number} max
 * @property {number} step
 * @property {(n: number) => string} say the number in words, with its unit
 * @property {(n: number) => string} text the number as the script writes it
 */

const ms = (/** @type {number} */ n) => (n >= 1000 ? String(n / 1000) + " s" : n + " ms");
const whole = (/** @type {number} */ n) => String(n);

/** @type {Record<string, Spec>} */
export const SPECS = {
  lease: { label: "Lease", min: 500, max: 10000, step: 500, say: ms, text: (n) => String(n / 1000) },
  processing: { label: "Processing", min: 100, max: 10000, step: 100, say: ms, text: whole },
  p95: { label: "p95 of processing", min: 500, max: 12000, step: 100, say: ms, text: whole },
  heartbeat: { label: "Heartbeat every", min: 100, max: 3000, step: 100, say: ms, text: whole },
  stall: { label: "Stall", min: 100, max: 15000, step: 100, say: ms, text: whole },
  workers: { label: "Workers", min: 1, max: 8, step: 1, say: whole, text: whole },
};

/**
 * withNumber puts value into text at every span of number n, and returns
 * the new text and every number of numbers with its spans moved to match
 * (n's value set too). Spans never overlap; nothing is read but lengths.
 *
 * @param {string} text
 * @param {NumberView[]} numbers
 * @param {string} name
 * @param {number} value
 * @param {string} written value as the script writes it
 * @returns {{text: string, numbers: NumberView[]}}
 */
export function withNumber(text, numbers, name, value, written) {
  const n = numbers.find((x) => x.name === name);
  if (!n) return { text, numbers };
  const edits = n.spans.slice().sort((a, b) => a.start - b.start);
  let out = "";
  let from = 0;
  for (const e of edits) {
    out += text.slice(from, e.start) + written;
    from = e.end;
  }
  out += text.slice(from);
  // How far a place at offset at moves: the growth of every edit before it.
  const shift = (/** @type {number} */ at) => edits.reduce((d, e) => (e.end <= at ? d + written.length - (e.end - e.start) : d), 0);
  const moved = numbers.map((x) => ({
    ...x,
    value: x === n ? value : x.value,
    spans: x.spans.map((sp) => {
      const start = sp.start + shift(sp.start);
      return { start, end: x === n ? start + written.length : sp.end + shift(sp.start) };
    }),
  }));
  return { text: out, numbers: moved };
}

// Sliders is one block's sliders.
export class Sliders {
  /**
   * @param {any} el the block (playground.js): its ui.script, result, ran, busy, fit and run
   */
  constructor(el) {
    this.el = el;
    this.names = (el.getAttribute("sliders") || "").split(/[\s,]+/).filter((n) => SPECS[n]);
    /** @type {{name: string, spec: Spec, input: HTMLInputElement, out: HTMLElement, row: HTMLElement}[]} */
    this.rows = this.names.map((name) => {
      const spec = SPECS[name];
      const input = /** @type {HTMLInputElement} */ (h("input", { type: "range", class: "slider-" + name, min: String(spec.min), max: String(spec.max), step: String(spec.step) }));
      const out = h("output", { class: "slider-value" });
      const row = h("label", { class: "slider" }, h("span", { class: "slider-name", text: spec.label }), input, out);
      return { name, spec, input, out, row };
    });
    this.box = h("div", { class: "sliders", role: "group", "aria-label": "Numbers of the script: drag to change and run", hidden: true }, ...this.rows.map((r) => r.row));
    /** @type {NumberView[] | null} the numbers of the editor's script, and where it writes them */
    this.numbers = null;
    /** @type {string} the script those numbers are about */
    this.script = "";
    this.pending = false;
    for (const r of this.rows) r.input.addEventListener("input", () => this.drag(r));
    // The sliders follow the script once the block is set up (setup
    // builds them before its first Result is shown).
    queueMicrotask(() => {
      this.read();
      if (el.ui && el.ui.script) el.ui.script.addEventListener("input", () => this.read());
    });
  }

  // read sets each slider from the numbers of the script in the editor:
  // the Result shown says them when it ran that script, or the last drag
  // did; otherwise (the reader's edits, not yet run) the sliders hide.
  read() {
    const el = this.el;
    const script = el.ui.script.value;
    const res = el.result;
    if (res && res.views && res.views.numbers && el.ran && el.ran.script === script) {
      this.numbers = res.views.numbers;
      this.script = script;
    } else if (this.script !== script) {
      this.numbers = null;
    }
    for (const r of this.rows) {
      const n = this.numbers && this.numbers.find((x) => x.name === r.name);
      r.row.hidden = !n;
      if (!n) continue;
      // The floor, on the slider's steps, so that the steps land on round
      // numbers (a p95 above a p50 of 800 starts at 900).
      r.input.min = String(Math.max(r.spec.min, Math.ceil(n.min / r.spec.step) * r.spec.step));
      r.input.max = String(Math.max(r.spec.max, n.value));
      r.input.value = String(n.value);
      r.out.textContent = r.spec.say(n.value);
    }
    this.box.hidden = this.rows.every((r) => r.row.hidden);
  }

  /**
   * drag puts slider r's value in the script and runs it: at once when
   * the block is idle, else after the run under way (the latest value).
   *
   * @param {{name: string, spec: Spec, input: HTMLInputElement, out: HTMLElement}} r
   */
  drag(r) {
    if (!this.numbers) return;
    const v = Number(r.input.value);
    r.out.textContent = r.spec.say(v);
    const ui = this.el.ui;
    const next = withNumber(ui.script.value, this.numbers, r.name, v, r.spec.text(v));
    this.numbers = next.numbers;
    this.script = next.text;
    ui.script.value = next.text;
    this.el.fit();
    if (this.el.busy) {
      this.pending = true;
      return;
    }
    this.el.run();
  }

  // ran is told when a run of the block ends: the sliders follow its
  // Result, and a value dragged to during it runs now.
  ran() {
    this.read();
    if (!this.pending) return;
    this.pending = false;
    this.el.run();
  }
}
