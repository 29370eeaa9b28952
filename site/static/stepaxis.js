// @ts-check
// stepaxis.js draws a run on its step axis (Result.timeline.steps) as
// inline SVG: one lane per worker, one column per step that reads or
// writes shared state, in the order the steps ran, each labelled by the
// runtime (SELECT, UPDATE, POST, ack); a shaded span per worker while it
// is inside the side effect, from its claim to its ack, and a band where
// two of them overlap: the duplicate's window. Steps that touch nothing
// shared are folded unless the caller asks for every step.
//
// Every step is a mark a pointer, a keyboard and a screen reader reach:
// it is focusable (one at a time in the tab order, the arrow keys move
// between them), says what it is in its accessible name and shows it on
// hover. The Timeline draws one (timeline.js) and Compare two aligned on
// the same axis (compare.js). Nothing here knows a claim or a statement:
// the steps, their labels and what they did come from the runtime.

/** @typedef {import("./result-types.js").Steps} Steps */
/** @typedef {import("./result-types.js").Step} Step */

const NS = "http://www.w3.org/2000/svg";

// Layout, in CSS px (the picture is drawn at its own size and scrolls
// sideways when it is wider than its box).
const COL = 78; // a column
const TOP = 40; // the row of notes (y 14) and of step numbers (y 32)
const LANE = 58;
const GAP = 6;
const BOTTOM = 30; // the note under the lanes
const NAMES = 56; // the lane names, which do not scroll

// MARK_WORDS is what a step's mark says under it.
/** @type {Record<string, string>} */
const MARK_WORDS = { effect: "effect", duplicate: "duplicate", lost: "0 rows", refused: "refused", replayed: "replayed" };

/**
 * s makes an SVG element.
 *
 * @param {string} tag
 * @param {Record<string, string | number>} attrs
 * @param {(Element | string | null)[]} children
 * @returns {SVGElement}
 */
function s(tag, attrs, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") el.textContent = String(v);
    else el.setAttribute(k, String(v));
  }
  for (const c of children) if (c) el.append(c);
  return el;
}

/**
 * visible lists the indices into steps.steps that the axis draws.
 *
 * @param {Steps} steps
 * @param {boolean} every all of them, the folded ones too
 * @returns {number[]}
 */
export function visible(steps, every) {
  const out = [];
  for (let i = 0; i < steps.steps.length; i++) if (every || !steps.steps[i].fold) out.push(i);
  return out;
}

/**
 * markWords is what the step did, in words, for its name: "" for nothing.
 *
 * @param {Step} st
 * @param {number} effect which effect it is (1, 2...) for an effect or a duplicate
 * @returns {string}
 */
function markWords(st, effect) {
  switch (st.mark) {
    case "effect":
      return "effect " + effect + " lands";
    case "duplicate":
      return "effect " + effect + " lands: a duplicate";
    case "lost":
      return "the claim is lost";
    case "":
      return "";
  }
  return "the service " + st.mark + " it";
}

// StepAxis is one drawing of a run on the step axis.
export class StepAxis {
  /**
   * @param {{label: string, onPick?: (i: number) => void}} o label names
   *   the picture; onPick(i), when given, is called with the index into
   *   steps.steps of a step the reader picks (a click, Enter, an arrow key)
   */
  constructor(o) {
    this.o = o;
    this.names = /** @type {SVGSVGElement} */ (s("svg", { class: "sx-names", "aria-hidden": "true" }));
    this.svg = /** @type {SVGSVGElement} */ (s("svg", { class: "sx-svg", role: "group", "aria-label": o.label }));
    this.scroll = document.createElement("div");
    this.scroll.className = "sx-scroll";
    this.scroll.append(this.svg);
    this.element = document.createElement("div");
    this.element.className = "sx";
    this.element.append(this.names, this.scroll);
    /** @type {Steps | null} */
    this.steps = null;
    /** @type {number[]} the indices into steps.steps drawn, column by column */
    this.cols = [];
    this.pad = 0;
    this.current = -1;
    // col is the columns' width: wider than COL when few steps leave room
    // in the box; room is the box's width it was drawn for.
    this.col = COL;
    this.room = 0;
    /** @type {{every?: boolean, pad?: number, total?: number, part?: {col: number, text: string} | null, current?: number}} */
    this.opts = {};
    /** @type {SVGElement | null} */
    this.cursor = null;
    /** @type {SVGElement[]} */
    this.marks = [];
    this.svg.addEventListener("keydown", (e) => this.key(/** @type {KeyboardEvent} */ (e)));
    if (typeof ResizeObserver === "function") new ResizeObserver(() => this.refit()).observe(this.scroll);
  }

  /**
   * draw draws steps: the columns (every: the folded steps too), pad empty
   * columns first (to align with another picture), a note above a column
   * (part: its column and words) and the current step (an index into
   * steps.steps, or -1).
   *
   * @param {Steps} steps
   * @param {{every?: boolean, pad?: number, total?: number, part?: {col: number, text: string} | null, current?: number}} opts
   *   total: the columns to make room for (two pictures drawn alike)
   */
  draw(steps, opts) {
    this.steps = steps;
    this.opts = opts;
    this.pad = opts.pad || 0;
    this.cols = visible(steps, !!opts.every);
    const lanes = steps.lanes;
    const n = Math.max(1, opts.total || 0, this.cols.length + this.pad);
    this.room = this.scroll.clientWidth;
    this.col = this.room > 0 ? Math.max(COL, Math.min(120, Math.floor((this.room - 8) / n))) : COL;
    const width = Math.max(n * this.col + 8, 2 * COL);
    const bottom = TOP + lanes.length * (LANE + GAP) - GAP;
    const height = bottom + BOTTOM;
    this.svg.setAttribute("width", String(width));
    this.svg.setAttribute("height", String(height));
    this.svg.setAttribute("viewBox", "0 0 " + width + " " + height);
    this.names.setAttribute("width", String(NAMES));
    this.names.setAttribute("height", String(height));
    this.names.replaceChildren(...lanes.map((lane, k) => s("text", { class: "sx-name sx-l" + (k % 4), x: 8, y: this.laneY(lane) + LANE / 2 + 5, text: lane })));
    /** @type {SVGElement[]} */
    const kids = lanes.map((lane) => s("rect", { class: "sx-lane", x: 0, y: this.laneY(lane), width, height: LANE, rx: 6 }));
    this.drawSpans(kids, bottom);
    this.cursor = s("rect", { class: "sx-cursor", x: 0, y: TOP - 24, width: this.col, height: bottom - TOP + 28, rx: 6 });
    kids.push(this.cursor);
    this.drawNotes(kids, opts.part || null, width, bottom);
    this.drawMarks(kids);
    this.svg.replaceChildren(...kids);
    this.show(opts.current === undefined ? -1 : opts.current);
  }

  // refit draws the picture again when its box has another width than the
  // one it was drawn for (it was drawn hidden, or the window changed),
  // keeping the step shown.
  refit() {
    const room = this.scroll.clientWidth;
    if (!this.steps || room === 0 || room === this.room) return;
    const at = this.current >= 0 ? this.cols[this.current] : -1;
    this.draw(this.steps, this.opts);
    this.show(at);
    if (this.opts.part) this.colInView(this.opts.part.col);
    else this.inView();
  }

  /**
   * laneY is the top of a lane.
   *
   * @param {string} lane
   * @returns {number}
   */
  laneY(lane) {
    const lanes = this.steps ? this.steps.lanes : [];
    return TOP + Math.max(0, lanes.indexOf(lane)) * (LANE + GAP);
  }

  /**
   * colX is the left edge of column c (c counts the drawn steps, not the
   * empty columns before them).
   *
   * @param {number} c
   * @returns {number}
   */
  colX(c) {
    return 4 + (c + this.pad) * this.col;
  }

  /**
   * colOf is the column of step i (an index into steps.steps), or, when
   * it is folded, of the nearest drawn step on side (-1 before, 1 after).
   *
   * @param {number} i
   * @param {number} side
   * @returns {number}
   */
  colOf(i, side) {
    let c = -1;
    for (let j = 0; j < this.cols.length; j++) {
      if (this.cols[j] === i) return j;
      if (this.cols[j] < i) c = j;
    }
    return side < 0 ? c : c + 1;
  }

  /**
   * drawSpans draws each worker's span inside the side effect, and a band
   * over every lane where two of them overlap, named under the lanes.
   *
   * @param {SVGElement[]} kids
   * @param {number} bottom the lanes' bottom
   */
  drawSpans(kids, bottom) {
    const steps = /** @type {Steps} */ (this.steps);
    const spans = steps.spans.map((sp) => ({ lane: sp.lane, from: this.colOf(sp.from, 1), to: this.colOf(sp.to, -1) })).filter((sp) => sp.from <= sp.to);
    const inside = this.cols.map((_, c) => spans.filter((sp) => sp.from <= c && c <= sp.to).length);
    for (let c = 0; c < inside.length; c++) {
      if (inside[c] < 2) continue;
      let e = c;
      while (e + 1 < inside.length && inside[e + 1] >= 2) e++;
      const x = this.colX(c), w = (e - c + 1) * this.col;
      kids.push(s("rect", { class: "sx-both", x, y: TOP - 6, width: w, height: bottom - TOP + 12, rx: 6 }));
      kids.push(s("text", { class: "sx-both-text", x: Math.max(x + w / 2, 90), y: bottom + 20, "text-anchor": "middle", text: "both inside the side effect" }));
      c = e;
    }
    for (const sp of spans) {
      const k = steps.lanes.indexOf(sp.lane);
      const x = this.colX(sp.from) + 3, y = this.laneY(sp.lane) + 3;
      kids.push(s("rect", { class: "sx-span sx-l" + (k % 4), x, y, width: (sp.to - sp.from + 1) * this.col - 6, height: LANE - 6, rx: 9 }));
    }
  }

  /**
   * drawNotes draws the notes above the lanes: the moment both workers
   * have read the job free (a line after that step) and, when given, the
   * column where two pictures part (a band).
   *
   * @param {SVGElement[]} kids
   * @param {{col: number, text: string} | null} part
   * @param {number} width
   * @param {number} bottom
   */
  drawNotes(kids, part, width, bottom) {
    const steps = /** @type {Steps} */ (this.steps);
    const notes = [];
    const both = steps.both_free >= 0 ? this.colOf(steps.both_free, -1) : -1;
    if (both >= 0) notes.push({ x: this.colX(both) + this.col, text: "both read queued", band: false });
    if (part) notes.push({ x: 4 + part.col * this.col + this.col / 2, text: part.text, band: true });
    // A note is centred on its place, unless it would run past an edge;
    // the line's note leans away from a band's that it would run into.
    const half = (/** @type {string} */ t) => t.length * 4;
    const lean = notes.length === 2 && Math.abs(notes[0].x - notes[1].x) < half(notes[0].text) + half(notes[1].text) + 8;
    notes.sort((a, b) => a.x - b.x);
    for (const [j, nt] of notes.entries()) {
      if (nt.band) kids.push(s("rect", { class: "sx-part-band", x: nt.x - this.col / 2, y: TOP - 6, width: this.col, height: bottom - TOP + 12, rx: 6 }));
      else kids.push(s("line", { class: "sx-note-line", x1: nt.x, y1: 18, x2: nt.x, y2: bottom + 4 }));
      let anchor = nt.x < half(nt.text) + 4 ? "start" : nt.x > width - half(nt.text) - 4 ? "end" : "middle";
      let x = nt.x;
      if (lean && !nt.band) {
        anchor = j === 0 ? "end" : "start";
        x += j === 0 ? -4 : 4;
      }
      kids.push(s("text", { class: "sx-note" + (nt.band ? " sx-part" : ""), x, y: 13, "text-anchor": anchor, text: nt.text }));
    }
  }

  /**
   * drawMarks draws the steps: a number over each column and a mark on
   * its lane, focusable and named.
   *
   * @param {SVGElement[]} kids
   */
  drawMarks(kids) {
    const steps = /** @type {Steps} */ (this.steps);
    this.marks = [];
    let effects = 0;
    for (const [c, i] of this.cols.entries()) {
      const st = steps.steps[i];
      const x = this.colX(c), y = this.laneY(st.lane);
      const k = steps.lanes.indexOf(st.lane);
      if (st.mark === "effect" || st.mark === "duplicate") effects++;
      const did = markWords(st, effects);
      // The name starts with what the mark shows (its label), then says
      // the step in full.
      const name = st.label + ": step " + (c + 1) + " of " + this.cols.length + ", " + st.lane + " " + st.what + (did ? "; " + did : "");
      kids.push(s("text", { class: "sx-num", x: x + this.col / 2, y: 32, "text-anchor": "middle", text: String(c + 1) }));
      const mark = s(
        "g",
        { class: "sx-step sx-l" + (k % 4) + (st.fold ? " sx-fold" : "") + (st.mark ? " sx-" + st.mark : ""), tabindex: -1, role: "button", "aria-label": name, "data-step": i },
        s("title", { text: name }),
        s("rect", { class: "sx-chip", x: x + 7, y: y + 9, width: this.col - 14, height: 24, rx: 5 }),
        s("text", { class: "sx-label", x: x + this.col / 2, y: y + 26, "text-anchor": "middle", text: st.label })
      );
      mark.addEventListener("click", () => this.pick(i));
      this.marks.push(mark);
      kids.push(mark);
      // What the step did, under it: its mark's name says it too.
      if (st.mark) kids.push(s("text", { class: "sx-mark sx-" + st.mark, x: x + this.col / 2, y: y + 48, "text-anchor": "middle", "aria-hidden": "true", text: MARK_WORDS[st.mark] || st.mark }));
    }
  }

  /**
   * show moves the cursor to step i (an index into steps.steps), or to
   * the nearest drawn step before it when it is folded; -1 hides it.
   *
   * @param {number} i
   */
  show(i) {
    let c = -1;
    for (let j = 0; j < this.cols.length; j++) if (this.cols[j] <= i) c = j;
    this.current = c;
    if (this.cursor) {
      this.cursor.style.transform = "translateX(" + (4 + (Math.max(c, 0) + this.pad) * this.col) + "px)";
      this.cursor.style.visibility = c < 0 ? "hidden" : "visible";
    }
    for (const [j, m] of this.marks.entries()) {
      m.setAttribute("tabindex", j === Math.max(c, 0) ? "0" : "-1");
      m.classList.toggle("sx-current", j === c);
      if (j === c) m.setAttribute("aria-current", "step");
      else m.removeAttribute("aria-current");
    }
  }

  // inView scrolls the picture so that the current step is in view (the
  // lane names never scroll).
  inView() {
    this.colInView(Math.max(this.current, 0) + this.pad);
  }

  /**
   * colInView scrolls the picture so that column c (empty columns
   * counted) is in view.
   *
   * @param {number} c
   */
  colInView(c) {
    const sc = this.scroll;
    if (sc.clientWidth === 0) return;
    const x = c * this.col;
    if (x + this.col > sc.scrollLeft + sc.clientWidth || x < sc.scrollLeft) sc.scrollLeft = Math.max(0, x + this.col / 2 - sc.clientWidth / 2);
  }

  /**
   * pick hands step i to onPick.
   *
   * @param {number} i
   */
  pick(i) {
    if (this.o.onPick) this.o.onPick(i);
  }

  /**
   * key moves between the marks: Left and Right one step, Home and End to
   * the first and last; Enter and Space pick the focused one.
   *
   * @param {KeyboardEvent} e
   */
  key(e) {
    const at = this.marks.indexOf(/** @type {SVGElement} */ (e.target));
    if (at < 0 || e.altKey || e.ctrlKey || e.metaKey) return;
    /** @type {Record<string, number>} */
    const moves = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: this.marks.length - 1, Enter: at, " ": at };
    const to = moves[e.key];
    if (to === undefined) return;
    e.preventDefault();
    const c = Math.max(0, Math.min(this.marks.length - 1, to));
    this.pick(this.cols[c]);
    const m = this.marks[c];
    if (m) m.focus();
  }
}
