// @ts-check
// controls.js builds a block's own controls, above and beside its views:
// the bar (Run, Stop, Reset, the claim control with a radio per claim of
// the runtime's list, the seed with "New seed" and the strip of seeds,
// and the status region), the script box with the runtime's loading bar
// below it (predict-then-run's form is predict.js's). playground.js wires
// them and hides those that do not apply to the script; nothing here runs
// but building them.

import { claimWords, toggleClaims } from "./links.js";
import { h } from "./render.js";

// STRIP is how many seeds the strip beside the seed field offers: seeds
// 1 to STRIP, each one click to run, red or green by whether it
// duplicates (playground.js fills it, one run per seed in the worker).
export const STRIP = 20;

// controlsBar builds the bar above the script: Run, Stop, Reset, the
// claim control, the seed with "New seed" and the strip of seeds, and
// the status region.
export function controlsBar(ui, block) {
  ui.run = h("button", { type: "button", class: "run", text: block.runLabel });
  // Stop shows while this block has a run queued or under way.
  ui.stop = h("button", { type: "button", class: "stop", text: "Stop", hidden: true, "aria-label": "Stop this block's run" });
  ui.reset = h("button", { type: "button", class: "reset", text: "Reset", title: "Put back the lesson's script and seed" });
  ui.bar = h("div", { class: "bar" }, ui.run, ui.stop, ui.reset);
  if (block.controls.includes("claim")) ui.bar.append(claimControl(ui));
  ui.seed = h("input", {
    type: "text",
    inputmode: "numeric",
    autocomplete: "off",
    spellcheck: "false",
    size: "8",
    value: block.defaultSeed,
    placeholder: "default",
  });
  ui.seedLabel = h("label", { class: "seed" }, document.createTextNode("Seed "), ui.seed);
  ui.newSeed = h("button", { type: "button", class: "new-seed small", text: "New seed", title: "Run the script at a seed picked at random" });
  ui.strip = seedStrip(ui);
  ui.seedGroup = h("div", { class: "seed-group" }, ui.seedLabel, ui.newSeed, ui.strip);
  if (!block.controls.includes("seed")) ui.seedGroup.hidden = true;
  ui.bar.append(ui.seedGroup);
  // How far a long run has got, for the eye; the status region says the
  // outcome, and how far a stopped run had got.
  ui.ran = h("span", { class: "ran", hidden: true });
  ui.status = h("span", { class: "status", role: "status", "aria-live": "polite" });
  ui.bar.append(ui.ran, ui.status);
  return ui.bar;
}

// seedStrip builds the strip of seeds 1 to STRIP: a toolbar with a
// button per seed, which runs it; each says, once the runtime has run it, whether that
// seed duplicates (data-dup "true" or "false").
function seedStrip(ui) {
  ui.stripSeeds = [];
  for (let n = 1; n <= STRIP; n++) {
    // One stop in the Tab order: arrow keys move between the seeds.
    ui.stripSeeds.push(h("button", { type: "button", class: "strip-seed", "data-seed": String(n), "aria-label": "Seed " + n, tabindex: n === 1 ? "0" : "-1", text: String(n) }));
  }
  return h("div", { class: "seed-strip", role: "toolbar", "aria-label": "Seeds 1 to " + STRIP + ", red where the seed gives a duplicate" }, ...ui.stripSeeds);
}

// claimControl is the claim toggle: one radio button per claim of the
// runtime's list.
function claimControl(ui) {
  const name = "claim";
  ui.claims = toggleClaims().map((c) => h("input", { type: "radio", name, value: c.name }));
  ui.claim = h(
    "fieldset",
    { class: "claim" },
    h("legend", { text: "Claim" }),
    ...ui.claims.map((r) => h("label", { title: claimWords(r.value) }, r, document.createTextNode(" " + r.value)))
  );
  return ui.claim;
}

// editor builds the script box, as tall as its script, and the runtime's
// loading bar below it.
export function editor(ui, block) {
  ui.script = h("textarea", {
    class: "script",
    spellcheck: "false",
    autocapitalize: "off",
    autocomplete: "off",
    "aria-label": block.label + " (Ctrl+Enter runs it)",
    rows: String(Math.max(block.script.split("\n").length - 1, 2)),
  });
  ui.script.value = block.script;
  ui.progress = h("progress", { max: "1", value: "0", "aria-label": "Loading the runtime" });
  ui.loading = h("div", { class: "loading", hidden: true }, ui.progress, h("span", { class: "loading-text" }));
}

/**
 * BarUI holds the element's own controls: the bar, the script box, the
 * runtime's loading bar, and the tabs.
 *
 * @typedef {object} BarUI
 * @property {HTMLButtonElement} run
 * @property {HTMLButtonElement} stop
 * @property {HTMLButtonElement} reset
 * @property {HTMLElement} bar
 * @property {HTMLInputElement[]} [claims] the claim control's radios, when it shows
 * @property {HTMLFieldSetElement} [claim]
 * @property {HTMLInputElement} seed
 * @property {HTMLLabelElement} seedLabel
 * @property {HTMLButtonElement} newSeed runs a seed picked at random
 * @property {HTMLElement} strip the strip of seeds 1 to STRIP
 * @property {HTMLButtonElement[]} stripSeeds its buttons, seed 1 first
 * @property {HTMLElement} seedGroup the seed, New seed and the strip
 * @property {HTMLElement} ran how far a long run has got
 * @property {HTMLElement} status the status region
 * @property {HTMLTextAreaElement} script
 * @property {HTMLProgressElement} progress
 * @property {HTMLElement} loading
 * @property {HTMLElement} tablist
 * @property {Record<string, HTMLButtonElement>} tabs
 * @property {import("./scheduler.js").Seat} seat
 */
