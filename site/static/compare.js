// @ts-check
// compare.js is the Compare view of a block (Result.views.compare): the
// block's script at its seed run with two claims, side by side. The pair
// is the reader's pick of the two menus (any two of the runtime's
// claims), or by default the block's own claim beside the atomic one
// (comparePair). The scripts are the runtime's, one per claim it has
// (views.compare.sides); the page never rewrites a script itself.
//
// Above the panes, the two runs are drawn as two pictures on one step
// axis (stepaxis.js), aligned on their first claim, and the step where
// they part is marked with what it said ("0 rows changed").

import { CONFIG } from "./config.js";
import { claimWords, comparePair, seedOf } from "./links.js";
import { fillPanel, h, pane } from "./render.js";
import { getRuntime } from "./runtime-client.js";
import { StepAxis, visible } from "./stepaxis.js";

/** @typedef {import("./result-types.js").CompareSide} CompareSide */
/** @typedef {import("./result-types.js").Result} Result */
/** @typedef {import("./result-types.js").Steps} Steps */
/** @typedef {import("./playground.js").Block} Block */

// Compare is the view: one per block.
export class Compare {
  /** @param {Block} block */
  constructor(block) {
    this.block = block;
    /** @type {Record<string, any>} */
    this.ui = {};
    // picked is the reader's pair (from the menus, or a link), or null;
    // onScreen the pair shown.
    /** @type {string[] | null} */
    this.picked = null;
    /** @type {string[]} */
    this.onScreen = [];
    /** @type {string | null} */
    this.key = null;
    this.seq = 0;
    /** @type {StepAxis[]} the two pictures */
    this.axes = [];
    // part is the column where the two pictures part, or -1.
    this.part = -1;
    // A block may name the pair it opens on (the block option compare=A,B).
    const pair = (block.getAttribute("compare") || "").split(",");
    if (pair.length === 2) this.picked = pair;
    this.panel = this.build();
    this.ui.cmpA.addEventListener("change", () => this.pick(this.ui.cmpA));
    this.ui.cmpB.addEventListener("change", () => this.pick(this.ui.cmpB));
  }

  /**
   * build builds the two menus that pick the claims to compare, a note
   * and the panes.
   *
   * @returns {HTMLElement}
   */
  build() {
    const ui = this.ui;
    ui.cmpA = h("select", { class: "cmp-claim", "aria-label": "Compare claim" });
    ui.cmpB = h("select", { class: "cmp-claim", "aria-label": "Compare with claim" });
    ui.cmpPick = h("div", { class: "cmp-pick", hidden: true }, "Compare ", ui.cmpA, " with ", ui.cmpB);
    ui.cmpNote = h("p", { class: "note", "aria-live": "polite" });
    ui.cmpPanes = h("div", { class: "panes" });
    ui.cmpPictures = h("div", { class: "cmp-pictures", hidden: true });
    ui.cmpPanel = h("section", { class: "panel cmp-panel" }, ui.cmpPick, ui.cmpNote, ui.cmpPictures, ui.cmpPanes);
    return ui.cmpPanel;
  }

  // open and ran fill the view when the reader opens it and after each
  // run of the block while it shows: again only when the script, the
  // seed or the pair changed.
  open() {
    this.compare(false);
  }

  ran() {
    this.compare(false);
  }

  /**
   * compare runs the block's script at its seed with the pair of claims
   * (force: even when it showed them already).
   *
   * @param {boolean} force
   */
  async compare(force) {
    const ui = this.ui;
    const script = this.block.ui.script.value;
    const seed = this.block.ui.seed.value.trim();
    const key = script + "\u0000" + seed + "\u0000" + (this.picked || []).join(" ");
    if (!force && key === this.key) {
      // Shown already (the block opened on it, or the reader came back).
      if (!ui.cmpPanel.dataset.state) ui.cmpPanel.dataset.state = "done";
      return;
    }
    if (!this.block.seedOK(seed)) return;
    this.key = key;
    const seq = ++this.seq;
    ui.cmpNote.textContent = "Running the script with two claims…";
    await fillPanel(this, ui.cmpPanel, seq, () => this.fill(seq, script, seed), (message) => (ui.cmpNote.textContent = "Compare failed: " + message));
  }

  /**
   * fill finds the pair the runtime offers for script and runs it at seed
   * (seq: the compare this is).
   *
   * @param {number} seq
   * @param {string} script
   * @param {string} seed
   */
  async fill(seq, script, seed) {
    const ui = this.ui;
    const views = await this.block.viewsFor(script);
    if (seq !== this.seq) return;
    if (!views) throw new Error("the script did not run");
    const sides = views.compare.sides || [];
    const pair = comparePair(
      sides.map((s) => s.claim),
      views.compare.claim,
      CONFIG.compareTo,
      this.picked
    ).map((/** @type {string} */ c) => /** @type {CompareSide} */ (sides.find((s) => s.claim === c)));
    this.showPair(sides, pair);
    if (pair.length === 0) {
      ui.cmpNote.textContent = views.compare.note;
      ui.cmpPanes.replaceChildren();
      ui.cmpPanel.dataset.state = "done";
      return;
    }
    await this.runPair(pair, seed, views.compare.note, seq);
  }

  /**
   * runPair runs each side of the pair at seed and shows the two panes
   * (seq: the compare this is, which a newer one supersedes).
   *
   * @param {CompareSide[]} pair
   * @param {string} seed
   * @param {string} note the runtime's sentence on what differs
   * @param {number} seq
   */
  async runPair(pair, seed, note, seq) {
    const ui = this.ui;
    const block = this.block;
    const rt = getRuntime();
    block.attach(rt);
    const outs = await Promise.all(pair.map((side) => block.request(rt, side.script, seed, true, "cmp-" + side.claim)));
    if (seq !== this.seq) return;
    /** @type {Result[]} */
    const results = outs.map((o) => JSON.parse(o.json));
    ui.cmpNote.textContent =
      (note ? note + " " : "") +
      "The same script at seed " + seedOf(outs[0].json, results[0]) + ", once with each of the claims above. Same seed, same draws: only the claim differs.";
    ui.cmpPanes.replaceChildren(...pair.map((side, i) => pane(side.claim, results[i], block.label)));
    this.pictures(pair.map((side) => side.claim), results);
    // On a narrow screen, where they part is what shows first (refit
    // keeps it so).
    for (const a of this.axes) {
      a.refit();
      if (this.part >= 0) a.colInView(this.part);
    }
    ui.cmpPanel.dataset.state = "done";
  }

  /**
   * pictures draws the two runs on one step axis, aligned on their first
   * claim, the step where they part marked on both.
   *
   * @param {string[]} claims
   * @param {Result[]} results
   */
  pictures(claims, results) {
    const ui = this.ui;
    const steps = results.map((r) => (r.timeline && r.timeline.steps) || null);
    ui.cmpPictures.hidden = !steps[0] || !steps[1];
    if (!steps[0] || !steps[1]) {
      ui.cmpPictures.replaceChildren();
      return;
    }
    const all = /** @type {Steps[]} */ (steps);
    const cols = all.map((st) => visible(st, false).map((i) => st.steps[i]));
    // The first claim: the first step of a worker that writes to own
    // the job or its lock.
    const claimAt = cols.map((cs, k) => Math.max(0, cs.findIndex((st) => /^(claim|claim-failed|lock)$/.test((results[k].trace || [])[st.event].kind))));
    const lead = Math.max(...claimAt);
    const pads = claimAt.map((c) => lead - c);
    // Where they part: the first column from the claims on where what a
    // step did differs (a claim lost on one side, an effect or a
    // duplicate on one side only), named by what that step saw.
    const n = Math.max(...cols.map((cs, k) => cs.length + pads[k]));
    let part = null;
    for (let c = lead; c < n && !part; c++) {
      const [a, b] = cols.map((cs, k) => cs[c - pads[k]]);
      if ((a ? a.mark : "") !== (b ? b.mark : "")) {
        const st = [a, b].find((x) => x && x.mark === "lost") || [a, b].find((x) => x && x.mark) || a || b;
        part = { col: c, text: st && st.said ? st.said : "they part" };
      }
    }
    this.axes = [];
    this.part = part ? part.col : -1;
    ui.cmpPictures.replaceChildren(
      ...all.map((st, k) => {
        const axis = new StepAxis({ label: "claim=" + claims[k] + ", " + (results[k].race || "the race") + ", step by step, " + this.block.label });
        axis.draw(st, { pad: pads[k], total: n, part });
        this.axes.push(axis);
        const said = results[k].outcome && results[k].outcome.effects === 1 ? "one effect" : results[k].outcome.effects + " effects";
        const race = results[k].race ? ", " + results[k].race : "";
        return h("figure", { class: "cmp-picture" }, h("figcaption", { class: "cmp-picture-title", text: "claim=" + claims[k] + race + ": " + said }), axis.element);
      })
    );
    // The two scroll together, so that a column stays one step.
    for (const [k, a] of this.axes.entries()) {
      const other = this.axes[1 - k];
      a.scroll.addEventListener("scroll", () => {
        if (other && other.scroll.scrollLeft !== a.scroll.scrollLeft) other.scroll.scrollLeft = a.scroll.scrollLeft;
      });
    }
  }

  /**
   * showPair lists the claims the runtime offers in both menus and
   * selects the pair shown; the menus hide with fewer than two.
   *
   * @param {CompareSide[]} sides
   * @param {CompareSide[]} pair
   */
  showPair(sides, pair) {
    const ui = this.ui;
    const names = sides.map((s) => s.claim);
    for (const [i, menu] of [ui.cmpA, ui.cmpB].entries()) {
      if (Array.from(menu.options, (/** @type {HTMLOptionElement} */ o) => o.value).join(" ") !== names.join(" ")) {
        menu.replaceChildren(...names.map((c) => h("option", { value: c, title: claimWords(c), text: c })));
      }
      if (pair[i]) menu.value = pair[i].claim;
    }
    ui.cmpPick.hidden = pair.length < 2;
    this.onScreen = pair.map((s) => s.claim);
  }

  /**
   * pick takes the reader's pick of a menu (changed: the one changed);
   * picking in one the claim the other shows swaps the two.
   *
   * @param {HTMLSelectElement} changed
   */
  pick(changed) {
    const ui = this.ui;
    const other = changed === ui.cmpA ? ui.cmpB : ui.cmpA;
    const before = this.onScreen;
    if (changed.value === other.value) other.value = changed === ui.cmpA ? before[0] : before[1];
    this.picked = [ui.cmpA.value, ui.cmpB.value];
    this.block.updateLink();
    this.compare(false);
  }
}
