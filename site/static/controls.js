// @ts-check
// controls.js builds a block's own controls, above and beside its views:
// the bar (Run, Stop, Reset, the claim control with a radio per claim of
// the runtime's list, the seed, "Check every interleaving" and the status
// region), the script box with the runtime's loading bar below it, and
// predict-then-run's form. playground.js wires them; nothing here runs
// but building them.

import { claimWords, toggleClaims } from "./links.js";
import { h } from "./render.js";

// controlsBar builds the bar above the script: Run, Stop, Reset, the
// claim control, the seed, "Check every interleaving" and the status
// region.
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
  if (!block.controls.includes("seed")) ui.seedLabel.hidden = true;
  ui.bar.append(ui.seedLabel);
  ui.explore = h("button", {
    type: "button",
    class: "explore-btn",
    text: "Check every interleaving",
    title: "Count, exactly, the orderings of racing workers' steps that give two effects, with each claim the script uses",
  });
  ui.bar.append(ui.explore);
  // How far a long run has got, for the eye; the status region says the
  // outcome, and how far a stopped run had got.
  ui.ran = h("span", { class: "ran", hidden: true });
  ui.status = h("span", { class: "status", role: "status", "aria-live": "polite" });
  ui.bar.append(ui.ran, ui.status);
  return ui.bar;
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

// predictForm builds predict-then-run (see classroom.js): a question, a
// field and a button, shown while the output is hidden, and the line
// that shows the prediction beside the result.
export function predictForm(ui) {
  ui.predictQ = h("span", { class: "predict-q" });
  ui.predictInput = h("input", { type: "number", min: "0", step: "1", inputmode: "numeric", class: "predict-input", autocomplete: "off" });
  ui.predictForm = h(
    "form",
    { class: "predict", hidden: true },
    h("label", { class: "predict-label" }, ui.predictQ, document.createTextNode(" "), ui.predictInput),
    h("button", { type: "submit", class: "predict-run", text: "Predict and run" }),
    h("p", { class: "predict-note", text: "The output stays hidden until you run the script: predict first." })
  );
  ui.yours = h("p", { class: "prediction", hidden: true });
}

/**
 * BarUI holds the element's own controls: the bar, the script box, the
 * runtime's loading bar, predict-then-run's form, and the tabs.
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
 * @property {HTMLButtonElement} explore "Check every interleaving"
 * @property {HTMLElement} ran how far a long run has got
 * @property {HTMLElement} status the status region
 * @property {HTMLTextAreaElement} script
 * @property {HTMLProgressElement} progress
 * @property {HTMLElement} loading
 * @property {HTMLElement} predictQ
 * @property {HTMLInputElement} predictInput
 * @property {HTMLFormElement} predictForm
 * @property {HTMLElement} yours the line that shows the reader's prediction
 * @property {HTMLElement} tablist
 * @property {Record<string, HTMLButtonElement>} tabs
 * @property {import("./scheduler.js").Seat} seat
 */
