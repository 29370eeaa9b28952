// @ts-check
// compare.js is the Compare view of a block (Result.views.compare): the
// block's script at its seed run with two claims, side by side. The pair
// is the reader's pick of the two menus (any two of the runtime's
// claims), or by default the block's own claim beside the atomic one
// (comparePair). The scripts are the runtime's, one per claim it has
// (views.compare.sides); the page never rewrites a script itself.

import { CONFIG } from "./config.js";
import { claimWords, comparePair, seedOf } from "./links.js";
import { fillPanel, h, pane } from "./render.js";
import { getRuntime } from "./runtime-client.js";

/** @typedef {import("./result-types.js").CompareSide} CompareSide */
/** @typedef {import("./result-types.js").Result} Result */
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
    ui.cmpPanel = h("section", { class: "panel cmp-panel" }, ui.cmpPick, ui.cmpNote, ui.cmpPanes);
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
    if (!force && key === this.key) return;
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
    const outs = await Promise.all(pair.map((side) => block.request(rt, side.script, seed, false, "cmp-" + side.claim)));
    if (seq !== this.seq) return;
    /** @type {Result[]} */
    const results = outs.map((o) => JSON.parse(o.json));
    ui.cmpNote.textContent =
      (note ? note + " " : "") +
      "The same script at seed " + seedOf(outs[0].json, results[0]) + ", once with each of the claims above. Same seed, same draws: only the claim differs.";
    ui.cmpPanes.replaceChildren(...pair.map((side, i) => pane(side.claim, results[i], block.label)));
    ui.cmpPanel.dataset.state = "done";
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
