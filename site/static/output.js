// @ts-check
// output.js is the Output view of a block, the one shown first: the
// heading and the Share menu ("Link to this run", "Copy link", "Copy as
// command", "Copy as go run" and "Embed this block"), the transcript, the tally, the load chart,
// the matrices, the opened matrix cell, the diagnosis and the effects,
// jobs and ledger tables (render.js draws them from the Result; the
// runtime's views.columns say which effects columns come first). For a
// load, the tally's lines pick the lease whose tables and diagnosis are
// shown; a matrix cell opens under the matrix as a block of its own, a
// step in the browser's history (Back closes it, Forward opens it again).

import { commandFor } from "./links.js";
import { chosenLease, diagnosisSaid, h, renderOutput } from "./render.js";

/** @typedef {import("./result-types.js").Result} Result */
/** @typedef {import("./playground.js").Block} Block */

/**
 * Cell is a matrix cell opened under the matrix.
 *
 * @typedef {object} Cell
 * @property {string} script
 * @property {string} seed
 * @property {string} what the cell in words
 */

// Output is the view: one per block.
export class Output {
  /**
   * @param {Block} block
   * @param {(what: string) => string} of names a region of this block
   * @param {HTMLElement} yours the line that shows the reader's prediction
   */
  constructor(block, of, yours) {
    this.block = block;
    /** @type {Record<string, any>} */
    this.ui = {};
    /** @type {Cell | null} */
    this.cell = null;
    /** @type {HTMLElement | null} */
    this.cellButton = null;
    this.panel = this.build(of, yours);
    this.chartImg = this.ui.chartImg;
    this.wire();
  }

  /**
   * build builds the panel. of(what) names a region of this block.
   *
   * @param {(what: string) => string} of
   * @param {HTMLElement} yours
   * @returns {HTMLElement}
   */
  build(of, yours) {
    const ui = this.ui;
    ui.error = h("p", { class: "error", role: "alert", hidden: true });
    ui.transcript = h("pre", { class: "transcript", tabindex: "0", "aria-label": of("Transcript") });
    ui.tally = h("p", { class: "tally", hidden: true });
    // Which race the tables show, where the transcript's lines are another's.
    ui.raceNote = h("p", { class: "note race-note", hidden: true });
    ui.chartImg = h("img", { alt: "" });
    // The chart fits a phone's width (one row per lease), so it needs no
    // box that scrolls.
    ui.chartScroll = h("div", { class: "chart-box" }, ui.chartImg);
    ui.chart = h("figure", { class: "load-chart", hidden: true }, ui.chartScroll);
    ui.matrix = h("div", { class: "matrix-wrap", hidden: true });
    // A matrix's text copy, folded: the table below says the same.
    ui.textCopy = h("details", { class: "text-copy", hidden: true }, h("summary", { text: "Text copy of the matrix, as twice run prints it" }));
    // A matrix cell opens here, under the matrix, as a block of its own.
    ui.cellBox = h("section", { class: "cell-box", hidden: true, "aria-label": of("Matrix cell") });
    ui.diagnosis = h("section", { class: "diagnosis", "aria-label": of("Diagnosis"), hidden: true });
    ui.effects = h("table", { class: "effects" });
    ui.jobs = h("table", { class: "jobs" });
    ui.effectsWrap = h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": of("Effects table") }, ui.effects);
    ui.jobsWrap = h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": of("Jobs table") }, ui.jobs);
    ui.ledger = h("table", { class: "ledger" });
    ui.ledgerWrap = h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": of("Ledger table"), hidden: true }, ui.ledger);
    ui.heading = h("p", { class: "out-heading" });
    // A race's output offers the exact count of its orderings, quietly,
    // under its tally (playground.js shows it where the script races).
    ui.explore = h("button", {
      type: "button",
      class: "explore-btn link-btn",
      hidden: true,
      text: "Check every interleaving",
      title: "Count, exactly, the orderings of racing workers' steps that give two effects, with each claim the script uses",
    });
    ui.tables = h("div", { class: "tables" }, ui.effectsWrap, ui.diagnosis, ui.jobsWrap, ui.ledgerWrap);
    ui.out = h(
      "section",
      { class: "out panel" },
      h("div", { class: "out-top" }, ui.heading, this.shareLinks()),
      ui.sharePanel,
      yours,
      ui.error,
      ui.transcript,
      ui.textCopy,
      ui.tally,
      ui.raceNote,
      ui.explore,
      ui.chart,
      ui.matrix,
      ui.cellBox,
      ui.tables
    );
    return ui.out;
  }

  /**
   * shareLinks builds the Share menu beside the output heading: a button
   * that opens a panel below it with "Link to this run", the Copy
   * buttons and "Embed this block" (which playground.js adds), and the
   * field that holds what to copy when the browser refuses the
   * clipboard. It is a disclosure: the button says whether the panel is
   * open, Escape in the panel closes it and gives the focus back.
   *
   * @returns {HTMLElement}
   */
  shareLinks() {
    const ui = this.ui;
    ui.link = h("a", { class: "permalink", hidden: true, text: "Link to this run" });
    ui.copyLink = h("button", { type: "button", class: "copy-link small", text: "Copy link" });
    ui.copyCmd = h("button", { type: "button", class: "copy-cmd small", text: "Copy as command", title: "twice run --seed N -c '…': the same run in a terminal" });
    ui.copyGo = h("button", { type: "button", class: "copy-go small", text: "Copy as go run", title: "go run ./cmd/twice run --seed N -c '…': the same run from a clone of the repository" });
    ui.shareBtn = h("button", { type: "button", class: "share-btn small", "aria-expanded": "false", "aria-controls": "share-panel", text: "Share" });
    ui.share = h("div", { class: "share", hidden: true }, ui.shareBtn);
    // The fallback when the browser refuses the clipboard is a textarea,
    // not an input: an input drops the newlines of a multi-line command.
    // It wraps, and is as tall as what it holds: a link is read whole.
    ui.copyField = h("textarea", { class: "copy-field", readonly: true, rows: "1", spellcheck: "false", "aria-label": "Text to copy (press Ctrl+C)" });
    ui.copyBox = h("div", { class: "copy-box", hidden: true }, h("span", { text: "Press Ctrl+C to copy:" }), ui.copyField);
    ui.sharePanel = h(
      "div",
      { class: "share-panel", id: "share-panel", hidden: true },
      h("div", { class: "share-actions" }, ui.link, ui.copyLink, ui.copyCmd, ui.copyGo),
      ui.copyBox
    );
    return ui.share;
  }

  /**
   * openShare opens or closes the Share menu's panel.
   *
   * @param {boolean} open
   */
  openShare(open) {
    const ui = this.ui;
    ui.sharePanel.hidden = !open;
    ui.shareBtn.setAttribute("aria-expanded", open ? "true" : "false");
    if (!open) ui.copyBox.hidden = true;
  }

  // wire makes the copy buttons work, a lease picked in a load's tally
  // said, and Back and Forward close and open a matrix cell.
  wire() {
    const ui = this.ui;
    const block = this.block;
    addEventListener("popstate", (e) => this.fromHistory(e.state));
    ui.shareBtn.addEventListener("click", () => this.openShare(ui.sharePanel.hidden));
    ui.sharePanel.addEventListener("keydown", (e) => {
      if (e.key !== "Escape") return;
      e.preventDefault();
      this.openShare(false);
      ui.shareBtn.focus();
    });
    ui.copyLink.addEventListener("click", () => this.copy(ui.copyLink, ui.link.href));
    // The copy buttons show once a run is shown (showLink).
    ui.copyCmd.addEventListener("click", () => block.ran && this.copy(ui.copyCmd, commandFor(block.ran.script, block.ran.seed)));
    ui.copyGo.addEventListener("click", () => block.ran && this.copy(ui.copyGo, commandFor(block.ran.script, block.ran.seed, true)));
    // A load's lease picked in the tally: the status says its diagnosis.
    ui.tally.addEventListener("change", () => this.sayLease());
  }

  /**
   * render shows Result res under heading; a matrix cell's button opens
   * its script in a block of its own under the matrix.
   *
   * @param {Result} res
   * @param {string} heading
   */
  render(res, heading) {
    this.ui.tables.hidden = false;
    if (!(res.matrices || []).length) this.closeCell(true);
    renderOutput(this.ui, res, heading, this.block.label, (script, seed, what, button) => this.openCell({ script, seed: String(seed), what }, button));
    const race = res.race || "";
    this.ui.raceNote.hidden = !race || / 1 of 1$/.test(race);
    this.ui.raceNote.textContent = "The worker lines above are race 1's, as the original printed them; the tables, the diagnosis and the timeline show " + race + ".";
  }

  /**
   * blank clears the panel down to heading: no transcript, tables or
   * links of a run that is not the script in the editor.
   *
   * @param {string} heading
   */
  blank(heading) {
    const ui = this.ui;
    ui.out.classList.add("empty");
    ui.heading.textContent = heading;
    for (const el of [ui.error, ui.transcript, ui.tally, ui.raceNote, ui.explore, ui.chart, ui.matrix, ui.tables, ui.share, ui.sharePanel]) el.hidden = true;
    this.openShare(false);
    ui.transcript.textContent = "";
  }

  /**
   * showLink points "Link to this run" at href and shows the share links.
   *
   * @param {string} href
   */
  showLink(href) {
    this.ui.link.href = href;
    this.ui.link.hidden = false;
    this.ui.share.hidden = false;
  }

  // sayLease has the status region say the diagnosis of the lease the
  // reader picked, which the tables and the panel now show.
  sayLease() {
    const ui = this.ui;
    const res = this.block.result;
    if (!res || !(res.loads || []).length) return;
    const lease = (res.loads || [])[chosenLease(res, ui.lease)];
    const said = "The tables show lease " + lease.lease_us / 1e6 + " s. " + diagnosisSaid(res, ui.lease);
    const status = this.block.ui.status;
    const sr = status.querySelector(".sr");
    if (sr) sr.textContent = " " + said;
    else status.append(h("span", { class: "sr", text: " " + said }));
  }

  /**
   * copy puts text on the clipboard. Where the browser refuses (no
   * permission, not a secure context), it shows the text selected in a
   * field, so that Ctrl+C copies it.
   *
   * @param {HTMLElement} btn the button pressed, which says what happened
   * @param {string} text
   */
  async copy(btn, text) {
    const ui = this.ui;
    const label = btn.dataset.label || (btn.dataset.label = btn.textContent || "");
    btn.dataset.copied = text;
    try {
      await navigator.clipboard.writeText(text);
      ui.copyBox.hidden = true;
      btn.textContent = "Copied";
      this.block.ui.status.textContent = label === "Copy link" ? "Link copied." : "Command copied.";
    } catch {
      ui.copyField.value = text;
      this.openShare(true);
      ui.copyBox.hidden = false;
      // As tall as the text wrapped at the field's width, up to the
      // stylesheet's max-height: a link shows whole, not one cut line.
      const f = ui.copyField;
      f.style.height = "auto";
      const cs = getComputedStyle(f);
      f.style.height = Math.ceil(f.scrollHeight + parseFloat(cs.borderTopWidth) + parseFloat(cs.borderBottomWidth)) + "px";
      ui.copyField.focus();
      ui.copyField.select();
      btn.textContent = "Select and copy";
    }
    setTimeout(() => (btn.textContent = label), 2000);
  }

  /**
   * openCell shows a cell's script as a block of its own under the
   * matrix, and runs it; the matrix stays as it is. Opening is a step in
   * the browser's history, unless it comes from that history.
   *
   * @param {Cell} cell
   * @param {HTMLElement | null} button the cell's button, which gets the focus back
   * @param {boolean} [fromHistory]
   */
  openCell(cell, button, fromHistory) {
    const ui = this.ui;
    const id = this.block.id;
    this.closeCell(true);
    this.cell = cell;
    this.cellButton = button || null;
    const block = /** @type {any} */ (document.createElement("twice-playground"));
    block.setAttribute("controls", "seed");
    block.setAttribute("seed", cell.seed);
    block.setAttribute("label", cell.what + ", a cell of " + this.block.label);
    block.id = id + "-cell";
    block.append(h("pre", { class: "twice-script", text: cell.script }));
    const close = h("button", { type: "button", class: "cell-close small", text: "Close this cell" });
    close.addEventListener("click", () => {
      if (history.state && history.state.twiceCell && history.state.twiceCell.block === id) history.back();
      else this.closeCell();
    });
    ui.cellBox.replaceChildren(
      h("div", { class: "cell-head" }, h("p", { class: "cell-title", text: "Cell: " + cell.what + ", its script at seed " + cell.seed + " (the matrix ran it at every seed of its range)" }), close),
      block
    );
    ui.cellBox.hidden = false;
    if (!fromHistory) {
      const state = Object.assign({}, history.state || {}, { twiceCell: { block: id, script: cell.script, seed: cell.seed, what: cell.what } });
      history.pushState(state, "");
    }
    if (block.run) block.run();
    ui.cellBox.scrollIntoView({ block: "nearest" });
  }

  /**
   * closeCell removes the open cell's block, and gives the focus back to
   * the cell it came from (quiet: neither).
   *
   * @param {boolean} [quiet]
   */
  closeCell(quiet) {
    const ui = this.ui;
    if (!this.cell) return;
    this.cell = null;
    const block = ui.cellBox.querySelector("twice-playground");
    if (block && block.stop) block.stop();
    ui.cellBox.replaceChildren();
    ui.cellBox.hidden = true;
    if (!quiet && this.cellButton && this.cellButton.isConnected) this.cellButton.focus();
  }

  /**
   * fromHistory follows Back and Forward: the cell the history entry
   * names for this block is open, and no other.
   *
   * @param {any} state
   */
  fromHistory(state) {
    const c = state && state.twiceCell;
    if (c && c.block === this.block.id) {
      if (!this.cell || this.cell.script !== c.script || this.cell.seed !== c.seed) this.openCell({ script: c.script, seed: c.seed, what: c.what }, null, true);
    } else if (this.cell) {
      this.closeCell();
    }
  }
}
