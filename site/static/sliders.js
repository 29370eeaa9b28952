// @ts-check
// sliders.js is a block's numbers you can drag: for each number its
// sliders attribute names (the server writes it from the block option
// sliders=LIST), a slider above the script. Dragging one rewrites that
// flag's value in the script, everywhere it is written, so the script in
// the editor always says what ran, and runs it: the output and the load
// chart are redrawn as the slider moves. A run under way is not stopped;
// the newest value waits for it, so a drag costs at most one run behind.
// A slider shows only for a flag the script already has (a list of
// leases has no slider: it is a sweep already), and follows the script
// when the reader edits it by hand.

import { h } from "./render.js";

/**
 * Spec says how one named number is read from and written into a
 * script: the flag, the part of its value that is the number (for p95, the
 * p95= inside a distribution), its range and unit.
 *
 * @typedef {object} Spec
 * @property {string} label
 * @property {string} flag
 * @property {RegExp} part matches the flag's value; group 1 is the number, or the whole value is
 * @property {number} min
 * @property {number} max
 * @property {number} step
 * @property {(n: number) => string} say the number in words, with its unit
 */

const ms = (/** @type {number} */ n) => (n >= 1000 ? (n / 1000).toFixed(n % 1000 === 0 ? 0 : n % 100 === 0 ? 1 : 2) + " s" : n + " ms");

/** @type {Record<string, Spec>} */
export const SPECS = {
  lease: { label: "Lease", flag: "--lease", part: /^(\d+(?:\.\d+)?)$/, min: 0.5, max: 10, step: 0.5, say: (n) => n + " s" },
  processing: { label: "Processing", flag: "--processing", part: /^(\d+)$/, min: 100, max: 10000, step: 100, say: ms },
  p95: { label: "p95 of processing", flag: "--processing", part: /p95=(\d+)/, min: 500, max: 12000, step: 100, say: ms },
  heartbeat: { label: "Heartbeat every", flag: "--heartbeat", part: /^(\d+)$/, min: 100, max: 3000, step: 100, say: ms },
  stall: { label: "Stall", flag: "--stall", part: /^(\d+)$/, min: 100, max: 15000, step: 100, say: ms },
  workers: { label: "Workers", flag: "--workers", part: /^(\d+)$/, min: 1, max: 8, step: 1, say: (n) => String(n) },
};

// flagRE finds a flag and its value on a line: --flag VALUE or --flag=VALUE.
const flagRE = (/** @type {string} */ flag) => new RegExp("(^|\\s)" + flag.replace(/-/g, "\\-") + "(=|\\s+)(\\S+)", "g");

/**
 * readNumber is the number spec names in script, or null when the script
 * has no such flag (or its value is not one number of that kind). A p95
 * slider's floor is the distribution's p50 plus a step: p95 is above p50.
 *
 * @param {string} script
 * @param {Spec} spec
 * @returns {{value: number, min: number} | null}
 */
export function readNumber(script, spec) {
  for (const line of script.split("\n")) {
    if (line.trim().startsWith("#")) continue;
    for (const m of line.matchAll(flagRE(spec.flag))) {
      const v = spec.part.exec(m[3]);
      if (!v) continue;
      const p50 = /p50=(\d+)/.exec(m[3]);
      return { value: Number(v[1]), min: p50 && spec.part.source.startsWith("p95") ? Number(p50[1]) + spec.step : spec.min };
    }
  }
  return null;
}

/**
 * writeNumber is script with every value of spec's flag set to n (the
 * lines that are comments left alone).
 *
 * @param {string} script
 * @param {Spec} spec
 * @param {number} n
 * @returns {string}
 */
export function writeNumber(script, spec, n) {
  return script
    .split("\n")
    .map((line) =>
      line.trim().startsWith("#")
        ? line
        : line.replace(flagRE(spec.flag), (all, pre, sep, val) => {
            const v = spec.part.exec(val);
            if (!v) return all;
            const put = spec.part.source.startsWith("^") ? String(n) : val.replace(spec.part, (whole, num) => whole.replace(num, String(n)));
            return pre + spec.flag + sep + put;
          })
    )
    .join("\n");
}

// Sliders is one block's sliders.
export class Sliders {
  /**
   * @param {any} el the block (playground.js), with its ui.script and run
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
    this.box = h("div", { class: "sliders", role: "group", "aria-label": "Numbers of the script: drag to change and run" }, ...this.rows.map((r) => r.row));
    this.pending = false;
    for (const r of this.rows) r.input.addEventListener("input", () => this.drag(r));
    // The script and the sliders agree once the editor exists (setup
    // builds it before the views).
    queueMicrotask(() => {
      this.read();
      if (el.ui && el.ui.script) el.ui.script.addEventListener("input", () => this.read());
    });
  }

  // read sets each slider from the script in the editor; a number the
  // script does not have hides its slider.
  read() {
    const script = this.el.ui.script.value;
    for (const r of this.rows) {
      const got = readNumber(script, r.spec);
      r.row.hidden = !got;
      if (!got) continue;
      r.input.min = String(Math.max(r.spec.min, got.min));
      r.input.max = String(Math.max(r.spec.max, got.value));
      r.input.value = String(got.value);
      r.out.textContent = r.spec.say(got.value);
    }
    this.box.hidden = this.rows.every((r) => r.row.hidden);
  }

  /**
   * drag puts slider r's value in the script and runs it: at once when
   * the block is idle, else after the run under way (the latest value).
   *
   * @param {{spec: Spec, input: HTMLInputElement, out: HTMLElement}} r
   */
  drag(r) {
    const n = Number(r.input.value);
    r.out.textContent = r.spec.say(n);
    const ui = this.el.ui;
    ui.script.value = writeNumber(ui.script.value, r.spec, n);
    this.el.fit();
    if (this.el.busy) {
      this.pending = true;
      return;
    }
    this.el.run();
  }

  // ran is told when a run of the block ends: a value dragged to during
  // it runs now.
  ran() {
    if (!this.pending) return;
    this.pending = false;
    this.el.run();
  }
}
