// @ts-check
// explore.js is the Every ordering view of a block (Result.views.explore):
// the block's races run with --all, every interleaving of the workers'
// steps counted exactly, at the number of workers the reader picks. What
// is explored is the runtime's to say: the block's own races with their
// flags, or, for a block with no race, a sentence and the race its work
// would run, which runs only when asked; a combination the runtime
// refuses is said, not run.

import { fillPanel, h, renderExplorations } from "./render.js";
import { getRuntime } from "./runtime-client.js";

/** @typedef {import("./result-types.js").Result} Result */
/** @typedef {import("./result-types.js").ExploreView} ExploreView */
/** @typedef {import("./result-types.js").ExploreRun} ExploreRun */
/** @typedef {import("./playground.js").Block} Block */

// Explore is the view: one per block.
export class Explore {
  /** @param {Block} block */
  constructor(block) {
    this.block = block;
    /** @type {Record<string, any>} */
    this.ui = {};
    // touched is true once the reader (or a link) picked the number of
    // workers: until then it is the block's own race's.
    this.touched = false;
    /** @type {string | null} */
    this.key = null;
    this.seq = 0;
    this.panel = this.build();
    this.ui.expGo.addEventListener("click", () => this.explore(true, true));
    this.ui.workers.addEventListener("change", () => {
      this.touched = true;
      this.explore(true);
    });
  }

  /**
   * build builds the note, the number of workers, the race checked, and
   * the counts.
   *
   * @returns {HTMLElement}
   */
  build() {
    const ui = this.ui;
    ui.workers = h("select", { class: "workers" }, ...[2, 3, 4, 5, 6, 7, 8].map((w) => h("option", { value: String(w), text: String(w) })));
    ui.expCmd = h("code", { class: "exp-cmd" });
    ui.expNote = h("p", { class: "note exp-note" });
    // A block with no race of its own is offered the race its work would
    // run; it runs on this button, not on opening the tab.
    ui.expGo = h("button", { type: "button", class: "exp-go small", text: "Check this race", hidden: true });
    ui.expHead = h("p", { class: "exp-head", "aria-live": "polite" });
    ui.expBody = h("div", { class: "exp-body" });
    ui.expPanel = h(
      "section",
      { class: "panel exp-panel" },
      ui.expNote,
      h("div", { class: "exp-controls" }, h("label", { class: "workers-label" }, document.createTextNode("Workers "), ui.workers), ui.expCmd, ui.expGo),
      ui.expHead,
      ui.expBody
    );
    return ui.expPanel;
  }

  /**
   * workers is the number of workers picked.
   *
   * @returns {number}
   */
  workers() {
    return Number(this.ui.workers.value);
  }

  /**
   * setWorkers shows n workers; touched says the reader (or a link) chose
   * them.
   *
   * @param {number} n
   * @param {boolean} touched
   */
  setWorkers(n, touched) {
    this.ui.workers.value = String(n);
    if (touched) this.touched = true;
  }

  /**
   * own shows the workers of the block's own race (those of Result res's
   * views, else 2), unless the reader chose others.
   *
   * @param {Result | null} res
   */
  own(res) {
    if (this.touched) return;
    this.ui.workers.value = String((res && res.views && res.views.explore.workers) || 2);
  }

  /**
   * open fills the view when the reader opens it (quiet: the caller fills
   * it itself); ran, after each run of the block while it shows.
   *
   * @param {boolean} [quiet]
   */
  open(quiet) {
    if (!quiet) this.explore(false);
  }

  ran() {
    this.explore(false);
  }

  /**
   * explore fills the view with the race the runtime says the block has
   * (force: even when it showed it already; go: run a race offered, not
   * the block's own).
   *
   * @param {boolean} force
   * @param {boolean} [go]
   */
  async explore(force, go) {
    const ui = this.ui;
    const script = this.block.ui.script.value;
    const workers = Number(ui.workers.value) || 2;
    const key = script + "\u0000" + (this.touched ? workers : "own");
    if (!force && key === this.key) return;
    this.key = key;
    const seq = ++this.seq;
    ui.expBody.replaceChildren();
    ui.expHead.textContent = "";
    await fillPanel(this, ui.expPanel, seq, () => this.fill(seq, script, workers, go), (message) => (ui.expHead.textContent = "The check failed: " + message));
  }

  /**
   * fill runs the race the runtime says script has at workers, as
   * choose picks it (seq: the filling this is).
   *
   * @param {number} seq
   * @param {string} script
   * @param {number} workers
   * @param {boolean} [go]
   */
  async fill(seq, script, workers, go) {
    const ui = this.ui;
    const views = await this.block.viewsFor(script);
    if (seq !== this.seq) return;
    if (!views) throw new Error("the script did not run");
    const chosen = this.choose(views.explore, workers, go);
    if (!chosen) return;
    ui.expGo.hidden = true;
    ui.expHead.textContent = "Checking every ordering of " + chosen.workers + " workers…";
    const rt = getRuntime();
    this.block.attach(rt);
    const m = await this.block.request(rt, chosen.script, "", false, "explore");
    if (seq !== this.seq) return;
    /** @type {Result} */
    const res = JSON.parse(m.json);
    const xs = res.explorations || [];
    if (res.error || xs.length === 0) throw new Error(res.error ? res.error.msg : "the runtime reported no exploration");
    renderExplorations(ui, xs, m.ms);
    this.done("explored");
  }

  /**
   * choose shows what the runtime says of the view (v) and returns the
   * run to make at workers, or null when there is none to make: no race,
   * one the runtime refuses, or one offered and not asked for (go).
   *
   * @param {ExploreView} v
   * @param {number} workers
   * @param {boolean} [go]
   * @returns {ExploreRun | null}
   */
  choose(v, workers, go) {
    const ui = this.ui;
    ui.expNote.textContent = v.note;
    ui.expPanel.dataset.own = v.own ? "true" : "false";
    const runs = v.by_workers || [];
    const chosen = this.touched ? runs.find((r) => r.workers === workers) : { script: v.script, refused: v.refused, workers: v.workers };
    if (!this.touched && v.workers) ui.workers.value = String(v.workers);
    ui.workers.disabled = runs.length === 0;
    if (!v.script || !chosen) {
      ui.expCmd.textContent = "";
      ui.expGo.hidden = true;
      return this.done("none");
    }
    ui.expCmd.textContent = chosen.script.trim().replace(/\n/g, "; ");
    if (chosen.refused) {
      ui.expGo.hidden = true;
      ui.expHead.textContent = "Not checked: " + chosen.refused + ".";
      return this.done("refused");
    }
    if (!v.own && !go) {
      ui.expGo.hidden = false;
      return this.done("offered");
    }
    return chosen;
  }

  /**
   * done marks the view done, with what it explored ("explored", "none",
   * "refused" or "offered"); null, for choose to return.
   *
   * @param {string} explored
   * @returns {null}
   */
  done(explored) {
    this.ui.expPanel.dataset.state = "done";
    this.ui.expPanel.dataset.explored = explored;
    return null;
  }
}
