// @ts-check
// predict.js is a block's "ask, then show": the form that asks for a
// prediction before the first run, on the block's scale (a slider, or a
// few choices), and, once the run is in, the guess and the result drawn
// on that one scale. It also hides and shows the lesson's answer in words:
// the prose the server wrapped in a .twice-reveal naming the block (the
// prose between a block marked predict and the marker that ends its
// answer; see server/markdown). What to ask, and what counts as the
// answer, is classroom.js's (question, answer, verdict); playground.js
// owns the run and calls in here.
//
// The block's predict attribute says the scale: empty for a slider from 0
// to the count the question is about, "A-B" for a slider from A to B,
// "A,B,C" for a choice among those numbers.

import { answer, verdict } from "./classroom.js";
import { groupDigits, h } from "./render.js";

/**
 * Scale is what the reader answers on: a slider from min to max, or the
 * choices (with min and max the ends of the figure's axis).
 *
 * @typedef {{min: number, max: number, choices: number[] | null}} Scale
 */

/**
 * scaleOf reads a block's predict attribute against its question.
 *
 * @param {string | null} attr
 * @param {{of?: number}} q
 * @returns {Scale}
 */
export function scaleOf(attr, q) {
  const v = (attr || "").trim();
  const range = /^(\d+)-(\d+)$/.exec(v);
  if (range) return { min: Number(range[1]), max: Number(range[2]), choices: null };
  if (/^\d+(,\d+)+$/.test(v)) {
    const choices = v.split(",").map(Number);
    return { min: Math.min(0, ...choices), max: Math.max(...choices), choices };
  }
  return { min: 0, max: q.of && q.of > 0 ? q.of : 10, choices: null };
}

// pct is where n falls on scale s, in percent, kept on the axis.
const pct = (/** @type {Scale} */ s, /** @type {number} */ n) => (s.max > s.min ? Math.max(0, Math.min(100, ((n - s.min) * 100) / (s.max - s.min))) : 0);

// Predict is one block's form and figure.
export class Predict {
  /**
   * @param {HTMLElement} el the block
   */
  constructor(el) {
    this.el = el;
    /** @type {Scale} */
    this.scale = { min: 0, max: 10, choices: null };
    this.q = h("span", { class: "predict-q", id: "predict-q" });
    this.fields = h("div", { class: "predict-fields" });
    this.run = h("button", { type: "submit", class: "predict-run", text: "Predict and run" });
    this.form = /** @type {HTMLFormElement} */ (
      h(
        "form",
        { class: "predict", hidden: true, "aria-labelledby": "predict-q" },
        this.q,
        this.fields,
        this.run,
        h("p", { class: "predict-note", text: "The output and the text that explains it stay hidden until you run: guess first." })
      )
    );
    // yours: the guess beside the result, in words and on the scale.
    this.said = h("p", { class: "prediction-text" });
    this.figure = h("div", { class: "guess", role: "img" });
    this.yours = h("div", { class: "prediction", hidden: true }, this.said, this.figure);
    /** @type {HTMLInputElement | null} */
    this.range = null;
    /** @type {HTMLInputElement | null} */
    this.number = null;
    /** @type {HTMLInputElement[]} */
    this.radios = [];
  }

  /**
   * ask sets the question and builds the fields for its scale, holding
   * value (a kept prediction) if there is one.
   *
   * @param {{text: string, of?: number}} q
   * @param {string} value
   */
  ask(q, value) {
    this.q.textContent = q.text;
    const s = (this.scale = scaleOf(this.el.getAttribute("predict"), q));
    this.range = this.number = null;
    this.radios = [];
    if (s.choices) {
      const name = "predict-" + (this.el.id || "block");
      this.radios = s.choices.map((c) => /** @type {HTMLInputElement} */ (h("input", { type: "radio", name, value: String(c), class: "predict-choice" })));
      for (const r of this.radios) r.checked = r.value === value;
      this.fields.replaceChildren(
        h("div", { class: "predict-choices", role: "radiogroup", "aria-labelledby": "predict-q" }, ...this.radios.map((r) => h("label", {}, r, document.createTextNode(" " + groupDigits(r.value)))))
      );
      return;
    }
    const start = value !== "" && !isNaN(Number(value)) ? value : String(Math.round((s.min + s.max) / 2));
    const step = s.max - s.min > 1000 ? String(Math.ceil((s.max - s.min) / 1000)) : "1";
    const range = (this.range = /** @type {HTMLInputElement} */ (h("input", { type: "range", class: "predict-range", min: String(s.min), max: String(s.max), step, value: start, "aria-labelledby": "predict-q" })));
    const number = (this.number = /** @type {HTMLInputElement} */ (
      h("input", { type: "number", class: "predict-input", min: String(s.min), max: String(s.max), step: "1", inputmode: "numeric", autocomplete: "off", value: start, "aria-label": "Your guess" })
    ));
    range.addEventListener("input", () => (number.value = range.value));
    number.addEventListener("input", () => number.value !== "" && (range.value = number.value));
    this.fields.replaceChildren(h("span", { class: "predict-end", "aria-hidden": "true", text: groupDigits(String(s.min)) }), range, h("span", { class: "predict-end", "aria-hidden": "true", text: groupDigits(String(s.max)) }), number);
  }

  // value is the reader's guess, "" for none: the number field (which
  // follows the slider), or the checked choice.
  value() {
    if (this.radios.length) {
      const c = this.radios.find((r) => r.checked);
      return c ? c.value : "";
    }
    if (this.number && this.number.value.trim() !== "") return this.number.value.trim();
    return this.range ? this.range.value : "";
  }

  // focus puts the focus on the field to answer in.
  focus() {
    const f = this.radios.find((r) => r.checked) || this.radios[0] || this.range;
    if (f) f.focus();
  }

  /**
   * showAsking shows or hides the form, and the block's answer in words
   * with the output: asking hides both.
   *
   * @param {boolean} asking
   */
  showAsking(asking) {
    this.form.hidden = !asking;
    for (const r of this.reveals()) r.classList.toggle("shown", !asking);
  }

  // reveals are the lesson's prose that answers this block.
  reveals() {
    return this.el.id ? Array.from(document.querySelectorAll(".twice-reveal")).filter((r) => /** @type {HTMLElement} */ (r).dataset.for === this.el.id) : [];
  }

  /**
   * showResult says the guess beside the result res and draws both on the
   * scale: the run's count as a bar from the scale's start, the guess as a
   * mark, each labelled on its own row so that the labels never meet.
   *
   * @param {{kind: string, text: string, of?: number}} q
   * @param {string} value
   * @param {any} res
   */
  showResult(q, value, res) {
    this.said.textContent = verdict(q, value, res);
    const got = answer(q.kind, res);
    const s = this.scale;
    this.figure.replaceChildren();
    this.yours.hidden = false;
    if (got === null) {
      this.figure.hidden = true;
      return;
    }
    this.figure.hidden = false;
    const guess = value === "" ? null : Number(value);
    const top = Math.max(s.max, got, guess === null ? 0 : guess);
    const sc = { min: s.min, max: top, choices: s.choices };
    const at = (/** @type {number} */ n) => pct(sc, n) + "%";
    // A label at p% is shifted by p% of its own width: flush left at the
    // start, centred in the middle, flush right at the end.
    // (Positions are set through the style object: the page's policy
    // refuses style attributes.)
    const place = (/** @type {HTMLElement} */ el, /** @type {Record<string, string>} */ props) => {
      for (const [k, v] of Object.entries(props)) el.style.setProperty(k, v);
      return el;
    };
    const label = (/** @type {string} */ cls, /** @type {string} */ text, /** @type {number} */ n) =>
      place(h("span", { class: cls, text }), { left: at(n), transform: "translateX(-" + pct(sc, n) + "%)" });
    const axis = h("div", { class: "guess-axis" }, place(h("span", { class: "guess-got" }), { width: at(got) }));
    if (guess !== null) axis.append(place(h("span", { class: "guess-mark" }), { left: at(guess) }));
    this.figure.setAttribute(
      "aria-label",
      (guess === null ? "No guess" : "Your guess, " + groupDigits(String(guess))) + ", and the run, " + groupDigits(String(got)) + ", on a scale from " + groupDigits(String(sc.min)) + " to " + groupDigits(String(top))
    );
    this.figure.append(
      h("div", { class: "guess-row guess-row-top" }, guess === null ? null : label("guess-you", "your guess: " + groupDigits(String(guess)), guess)),
      h("div", { class: "guess-line" }, h("span", { class: "guess-end", text: groupDigits(String(sc.min)) }), axis, h("span", { class: "guess-end", text: groupDigits(String(top)) })),
      h("div", { class: "guess-row" }, label("guess-run", "the run: " + groupDigits(String(got)), got))
    );
  }

  hideResult() {
    this.yours.hidden = true;
  }
}
