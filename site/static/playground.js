// playground.js defines the <twice-playground> element: a runnable block of
// the twice command language. The server renders each block with its script
// and the output it printed at the default seed; this module upgrades the
// block into an editor with a Run button, a claim control (a radio per
// claim of the runtime's list, however many) and a seed field, and runs
// the script in a Web Worker that holds the twice runtime compiled to
// WebAssembly (runtime-client.js). The runtime is downloaded once per
// page: when a block is in view as the page loads (the loader starts the
// worker then, before this module has loaded, and start hands it over),
// else when a block first scrolls into view or the pointer or the focus
// reaches a Run button, or on the first Run.
//
// It is the entry module: the loader, twice.js, imports it and calls start
// with the config and the worker it started, if any. The others: config.js (that config), links.js (the
// claim toggle's pick of a script, links to a run, commands), render.js (a Result
// drawn into the DOM), scheduler.js (Be the scheduler) and
// runtime-client.js (the worker).
//
// Everything a run prints is inserted with textContent, never as HTML.
//
// Below the script, tabs keep the basic flow (Run, then read the Output)
// first and put the rest one click away:
//
//   Output          transcript, tally, effects and jobs tables, and beside
//                   the effects the diagnosis with the evidence behind it
//                   (for a load, of the lease its tally line picks; for a
//                   matrix, a cell opens as a block of its own below it)
//   Timeline        the run drawn as SVG by the runtime, and a step-through
//                   of its event trace (buttons, or Left/Right/Home/End in
//                   the step area) showing the tables as they stood; the
//                   load chart for a load
//   Compare         the same script and seed run with two claims side by
//                   side: the block's own beside the atomic one, or any
//                   pair of the runtime's claims the reader picks
//   Every ordering  the block's races with --all: every interleaving
//                   counted exactly
//   Be the scheduler
//                   the reader picks which worker takes its next step,
//                   to make two effects land for one job (scheduler.js)
//
// The element, in the order a reader meets it: setup reads the block
// (readBlock), builds the bar (controlsBar, claimControl, editor,
// predictForm) and mounts the views (mountViews: one mountView call per
// view, its tab and its panel, built by outputPanel, timelinePanel,
// comparePanel and orderingsPanel, and scheduler.js's mountSeat), then wires the controls, the views
// and the links (wireControls, wireViews, wireLinks), shows what the
// server rendered (showFirst), starts the runtime when it is time
// (startRuntime) and replays a link to a run (replayLink). A view's
// hooks (open, shown, ran) are all that select, selectTab and a run know
// of it. Below setup: runs (run, request, stop, runIfCheap), the views'
// fillers (renderTimeline, compare, explore) and the links (updateLink,
// copy, embedSnippets).
//
// What each view shows for a script is the runtime's decision, carried in
// the Result's views (script.ViewsOf): the race to explore with the
// block's flags, or the sentence saying there is none and the race its
// work would run; the script with each claim; the sentence above the
// timeline. The page renders it and guesses nothing from the script's
// text.
//
// A link to a run (#BLOCK-ID?seed=N&script=TEXT&claim=C[&view=V&step=K
// &workers=W&pair=A,B&schedule=W1,W2,...])
// replays it in any browser, with no state on the server; "Copy link",
// "Copy as command" (twice run --seed N -c '...') and "Copy as go run"
// (go run ./cmd/twice run ...) sit beside the output. Reset puts back the
// lesson's script, seed and pre-rendered output.
//
// Markup it understands (the server writes all of it; an embedder needs only
// the element and a <pre> holding the script):
//
//   <twice-playground seed="1" controls="claim seed" embed="URL" plain="SCRIPT" from="URL">
//     <pre class="twice-script">SCRIPT</pre>
//     <pre class="twice-output">OUTPUT</pre>                        (optional)
//     <script type="application/json" class="twice-result">RESULT</script> (optional)
//   </twice-playground>
//
// embed names the block's embed page, for the "Embed this block" snippets;
// plain is the script those carry when the block is written as a shell
// line; from (on a block pasted elsewhere) names the embed page whose
// pre-rendered output the block shows before Run.

import { CONFIG, assetURL } from "./config.js";
import {
  MAX_SEED,
  claimWords,
  commandFor,
  comparePair,
  embedIframe,
  linkHash,
  loopback,
  parseLink,
  seedOf,
  shellQuote,
  toggleClaims,
  withClaim,
} from "./links.js";
import {
  announce,
  chosenLease,
  diagnosisPlan,
  diagnosisSaid,
  formatBytes,
  formatMS,
  groupDigits,
  h,
  matrixCellLabel,
  matrixCellText,
  minFontSize,
  nearestStep,
  pane,
  renderExplorations,
  renderOutput,
  renderStep,
  replay,
  stoppedAfter,
  timelineAlt,
} from "./render.js";
import { adopt, currentRuntime, getRuntime, timings } from "./runtime-client.js";
import { mountSeat } from "./scheduler.js";
import { installSwitches, loadPrediction, predictAll, question, quietStep, savePrediction, verdict } from "./classroom.js";

// Blocks scrolling into view start the download, and so does the pointer
// or the focus reaching a block's Run button, so that Run is quick. The
// first block, when it is in view as it is set up, starts it at once
// rather than when the observer first reports, a frame or more later;
// on the site's own pages the loader has usually started it long before
// (see twice.js), and the block finds the runtime there.
function inViewport(el) {
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth;
}

// claimIn is the claim of the script of Result res, as the runtime says
// it (views.compare.claim), or "" when res says none.
function claimIn(res) {
  return (res && res.views && res.views.compare && res.views.compare.claim) || "";
}

// embedData fetches an embed page once per page and reads its block: the
// script (and its plain form), the seed and the pre-rendered Result. The
// page is parsed as an inert document: nothing in it runs or loads.
const embedPages = new Map();
function embedData(url) {
  if (!embedPages.has(url)) {
    embedPages.set(
      url,
      fetch(url, { credentials: "omit" })
        .then((r) => (r.ok ? r.text() : Promise.reject(new Error("HTTP " + r.status))))
        .then((text) => {
          const doc = new DOMParser().parseFromString(text, "text/html");
          const el = doc.querySelector("twice-playground");
          const json = el && el.querySelector("script.twice-result");
          const pre = el && el.querySelector(".twice-script");
          if (!json || !pre) return null;
          const result = JSON.parse(json.textContent);
          result.seedText = seedOf(json.textContent, result);
          return { script: pre.textContent, plain: el.getAttribute("plain"), seed: el.getAttribute("seed") || "", result };
        })
    );
  }
  return embedPages.get(url);
}

// loadingText says how far the runtime's download is, in bytes over the
// network: when the responses named a size (wire) smaller than the modules
// (they came compressed), the share of the modules received stands for the
// same share of those bytes; otherwise the modules' own bytes are counted.
export function loadingText(loaded, total, wire) {
  if (wire > 0 && total > 0 && wire < total) {
    const got = Math.round((Math.min(loaded, total) / total) * wire);
    return "Loading the runtime: " + formatBytes(got) + " of " + formatBytes(wire) + " transferred (" + formatBytes(total) + " unpacked; WebAssembly, once per page)";
  }
  return "Loading the runtime: " + formatBytes(loaded) + " of " + formatBytes(total) + " (WebAssembly, once per page)";
}

// observer starts the download when a block scrolls into view; start makes
// it where IntersectionObserver exists.
let observer = null;

// ---- the element ---------------------------------------------------------

// counter numbers the blocks in the order they are set up.
let counter = 0;

// readBlock reads what the server (or an embedder) wrote in the element:
// the script, the pre-rendered Result if any, which controls to show, the
// lesson's seed and the block's label.
function readBlock(el, n) {
  const scriptEl = el.querySelector(".twice-script") || el.querySelector("pre, textarea");
  const raw = scriptEl ? (scriptEl.value !== undefined && scriptEl.tagName === "TEXTAREA" ? scriptEl.value : scriptEl.textContent) : "";
  const script = raw.replace(/^\n/, "").trimEnd() + "\n";
  const resultEl = el.querySelector("script.twice-result");
  let prerendered = null;
  if (resultEl) {
    try {
      prerendered = JSON.parse(resultEl.textContent);
      prerendered.seedText = seedOf(resultEl.textContent, prerendered);
    } catch {
      prerendered = null;
    }
  }
  return {
    n,
    script,
    prerendered,
    controls: (el.getAttribute("controls") || "claim seed").split(/[\s,]+/),
    defaultSeed: el.getAttribute("seed") || "",
    // Landmarks and regions repeat in every block, so each carries the
    // block's label: "Diagnosis, Lesson 4, script 1".
    label: el.getAttribute("label") || (n > 1 ? "twice script " + n : "twice script"),
  };
}

// controlsBar builds the bar above the script: Run, Stop, Reset, the
// claim control, the seed, "Check every interleaving" and the status
// region.
function controlsBar(ui, block) {
  ui.run = h("button", { type: "button", class: "run", text: "Run" });
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
function editor(ui, block) {
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
function predictForm(ui) {
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

// outputPanel builds the Output view: the heading and the share links,
// the transcript, the tally, the load chart, the matrices, the opened
// matrix cell, the diagnosis and the tables. of(what) names a region of
// this block.
function outputPanel(ui, of) {
  ui.error = h("p", { class: "error", role: "alert", hidden: true });
  ui.transcript = h("pre", { class: "transcript", tabindex: "0", "aria-label": of("Transcript") });
  ui.tally = h("p", { class: "tally", hidden: true });
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
  ui.tables = h("div", { class: "tables" }, ui.effectsWrap, ui.diagnosis, ui.jobsWrap, ui.ledgerWrap);
  ui.out = h(
    "section",
    { class: "out panel" },
    h("div", { class: "out-top" }, ui.heading, shareLinks(ui)),
    ui.yours,
    ui.copyBox,
    ui.error,
    ui.transcript,
    ui.textCopy,
    ui.tally,
    ui.chart,
    ui.matrix,
    ui.cellBox,
    ui.tables
  );
  return ui.out;
}

// shareLinks builds "Link to this run" and the Copy buttons beside the
// output, and the field that holds what to copy when the browser refuses
// the clipboard.
function shareLinks(ui) {
  ui.link = h("a", { class: "permalink", hidden: true, text: "Link to this run" });
  ui.copyLink = h("button", { type: "button", class: "copy-link small", text: "Copy link" });
  ui.copyCmd = h("button", { type: "button", class: "copy-cmd small", text: "Copy as command", title: "twice run --seed N -c '…': the same run in a terminal" });
  ui.copyGo = h("button", { type: "button", class: "copy-go small", text: "Copy as go run", title: "go run ./cmd/twice run --seed N -c '…': the same run from a clone of the repository" });
  ui.share = h("div", { class: "share", hidden: true }, ui.link, ui.copyLink, ui.copyCmd, ui.copyGo);
  // The fallback when the browser refuses the clipboard is a textarea,
  // not an input: an input drops the newlines of a multi-line command.
  ui.copyField = h("textarea", { class: "copy-field", readonly: true, rows: "1", spellcheck: "false", "aria-label": "Text to copy (press Ctrl+C)" });
  ui.copyBox = h("div", { class: "copy-box", hidden: true }, h("span", { text: "Press Ctrl+C to copy:" }), ui.copyField);
  return ui.share;
}

// timelinePanel builds the Timeline view: the note, the picture with its
// cursor, the step-through, and a load's chart.
function timelinePanel(ui, of) {
  ui.tlNote = h("p", { class: "note" });
  // The timeline is SVG drawn by the runtime (Go, escaped text,
  // validated names). It is shown through <img src="data:image/svg+xml,...">
  // rather than inserted into the DOM: an image document runs no
  // script, loads nothing and cannot reach the page, so even a
  // malformed SVG stays a picture, and output is never inserted as
  // markup. The page's CSP already allows data: images (img-src 'self'
  // data:) and does not govern the SVG's own <style>, which inline SVG
  // would need 'unsafe-inline' for. The price: the SVG's hover titles do
  // not show, so the step-through below says every event in words, and
  // the cursor is our own element laid over the image at event_x/width.
  ui.tlImg = h("img", { class: "tl-img", alt: "", decoding: "async" });
  ui.tlCursor = h("div", { class: "tl-cursor", hidden: true, "aria-hidden": "true" });
  ui.tlInner = h("div", { class: "tl-inner" }, ui.tlImg, ui.tlCursor);
  ui.tlScroll = h("div", { class: "tl-scroll", tabindex: "0", role: "region", "aria-label": of("Timeline picture (scrolls sideways on narrow screens)") }, ui.tlInner);
  ui.tlLegend = h("figcaption", {
    class: "tl-legend",
    text: "One lane per worker and one for the receipts service. Bars: leases; ticks: SQL statements; dots: effects, the duplicate in red; crosses: kills. A dashed break skips a long wait. Tap or click the picture to jump to the step drawn there.",
  });
  ui.tlFig = h("figure", { class: "timeline", hidden: true }, ui.tlScroll, ui.tlLegend);
  // A load traces nothing: the tab shows its chart, per lease.
  ui.tlChartImg = h("img", { alt: "" });
  ui.tlChart = h("figure", { class: "load-chart", hidden: true }, ui.tlChartImg);
  ui.tlPanel = h("section", { class: "panel tl-panel" }, ui.tlNote, ui.tlFig, ui.tlChart, stepper(ui, of));
  return ui.tlPanel;
}

// stepper builds the step-through of the trace: Back and Next, the step
// area (the event in words, what it changed, the tables as they stood)
// and its live region.
function stepper(ui, of) {
  // The arrows are decoration: the buttons are named by their words.
  ui.prev = h("button", { type: "button", class: "step-btn prev" }, h("span", { "aria-hidden": "true", text: "◀ " }), "Back");
  ui.next = h("button", { type: "button", class: "step-btn next" }, "Next", h("span", { "aria-hidden": "true", text: " ▶" }));
  ui.stepCount = h("span", { class: "step-count" });
  ui.stepWhat = h("p", { class: "step-what" });
  ui.stepChange = h("p", { class: "step-change" });
  ui.stepLive = h("p", { class: "sr", "aria-live": "polite", "aria-atomic": "true" });
  ui.stepEffects = h("table", { class: "step-effects" });
  ui.stepJobs = h("table", { class: "step-jobs" });
  ui.stepArea = h(
    "div",
    {
      class: "step-area",
      tabindex: "0",
      role: "group",
      "aria-roledescription": "step-through",
      "aria-label": "Step through the run. Left and Right arrow keys move one step; Home and End go to the first and last.",
    },
    ui.stepWhat,
    ui.stepChange,
    h(
      "div",
      { class: "tables" },
      h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": of("Effects at this step") }, ui.stepEffects),
      h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": of("Jobs at this step") }, ui.stepJobs)
    )
  );
  // In the presenter view, Back and Next skip the steps that change
  // nothing, unless Every step is checked.
  ui.everyStep = h("input", { type: "checkbox" });
  const controls = h(
    "div",
    { class: "step-controls" },
    ui.prev,
    ui.stepCount,
    ui.next,
    h("span", { class: "step-hint", text: "or focus the steps and use ← →" }),
    h("label", { class: "every-step" }, ui.everyStep, document.createTextNode(" Every step"))
  );
  ui.stepper = h("div", { class: "stepper", hidden: true }, controls, ui.stepArea, ui.stepLive);
  return ui.stepper;
}

// comparePanel builds the Compare view: the two menus that pick the
// claims to compare (any two of the runtime's), a note and the panes.
function comparePanel(ui) {
  ui.cmpA = h("select", { class: "cmp-claim", "aria-label": "Compare claim" });
  ui.cmpB = h("select", { class: "cmp-claim", "aria-label": "Compare with claim" });
  ui.cmpPick = h("div", { class: "cmp-pick", hidden: true }, "Compare ", ui.cmpA, " with ", ui.cmpB);
  ui.cmpNote = h("p", { class: "note", "aria-live": "polite" });
  ui.cmpPanes = h("div", { class: "panes" });
  ui.cmpPanel = h("section", { class: "panel cmp-panel" }, ui.cmpPick, ui.cmpNote, ui.cmpPanes);
  return ui.cmpPanel;
}

// orderingsPanel builds Every ordering: the note, the number of workers,
// the race checked, and the counts.
function orderingsPanel(ui) {
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

class TwicePlayground extends HTMLElement {
  connectedCallback() {
    if (this.ui) return;
    if (!this.querySelector("pre, textarea") && document.readyState === "loading") {
      // Upgraded before the parser reached the element's content.
      document.addEventListener("DOMContentLoaded", () => this.connectedCallback(), { once: true });
      return;
    }
    this.setup();
  }

  // setup upgrades the block: it builds the controls and mounts the views
  // in its shadow root, wires them, shows what the server rendered, starts
  // the runtime's download when it is time, and replays a link to a run
  // of this block.
  setup() {
    const block = readBlock(this, ++counter);
    this.label = block.label;
    const root = this.attachShadow({ mode: "open" });
    root.append(h("link", { rel: "stylesheet", href: assetURL(CONFIG.css) }));
    const ui = (this.ui = {});
    controlsBar(ui, block);
    editor(ui, block);
    predictForm(ui);
    this.box = h("div", { class: "box" }, ui.bar, ui.script, ui.loading, ui.predictForm);
    this.mountViews();
    const embed = this.getAttribute("embed");
    const o = { seed: block.defaultSeed, controls: this.getAttribute("controls"), label: this.getAttribute("label"), id: this.id };
    if (embed) this.box.append(this.embedSnippets(embed, this.getAttribute("plain") || block.script, o));
    root.append(this.box);
    this.seq = 0;
    this.cmpSeq = 0;
    this.expSeq = 0;
    this.claimSeq = 0;
    this.step = 0;
    this.view = "output";
    this.id = this.id || "twice-" + block.n;
    this.ownScript = block.script; // what the server's cost attribute is about
    this.defaultSeed = block.defaultSeed;
    this.prerendered = block.prerendered;

    this.wireControls();
    this.wireViews();
    this.wireLinks();
    this.showFirst(block);
    this.startRuntime(block.n);
    this.replayLink();
  }

  // ---- the views: each a tab and its panel ----

  // mountViews mounts every view of the block, in the order of its tabs:
  // Output first and selected, the rest one click away. A view is one
  // call of mountView.
  mountViews() {
    const ui = this.ui;
    const of = (what) => what + ", " + this.label;
    ui.tablist = h("div", { class: "tabs", role: "tablist", "aria-label": of("Views of the run") });
    ui.tabs = {};
    this.views = [];
    this.box.append(ui.tablist);
    this.mountView("output", "Output", outputPanel(ui, of), {});
    this.mountView("timeline", "Timeline", timelinePanel(ui, of), {
      open: () => this.openTimeline(),
      shown: () => this.timelineShown(),
      // A run sent before the tab opened (a link to the timeline) comes
      // without its picture: it is drawn now.
      ran: () => this.result && !this.result.timeline && this.openTimeline(),
    });
    this.mountView("compare", "Compare", comparePanel(ui), {
      open: () => this.compare(false),
      ran: () => this.compare(false),
    });
    this.mountView("interleavings", "Every ordering", orderingsPanel(ui), {
      open: (quiet) => quiet || this.explore(false),
      ran: () => this.explore(false),
    });
    ui.seat = mountSeat(this, this.label, getRuntime);
    this.mountView("scheduler", "Be the scheduler", ui.seat.panel, {
      open: () => this.seat(),
      ran: () => this.seat(),
    });
  }

  // mountView adds a view: its tab after the others, its panel after
  // theirs, and what it does when the reader opens it (open, with quiet
  // when the caller fills it itself), whenever its panel is shown (shown)
  // and after each run of the block while it is the view shown (ran).
  // Its key names it in links to a run (view=KEY).
  mountView(key, name, panel, hooks) {
    const ui = this.ui;
    const tab = h("button", {
      type: "button",
      role: "tab",
      class: "tab",
      id: "tab-" + key,
      "aria-controls": "panel-" + key,
      "aria-selected": "false",
      tabindex: "-1",
      "data-view": key,
      text: name,
    });
    ui.tabs[key] = tab;
    ui.tablist.append(tab);
    panel.id = "panel-" + key;
    panel.setAttribute("role", "tabpanel");
    panel.setAttribute("aria-labelledby", "tab-" + key);
    panel.hidden = this.views.length > 0;
    this.box.append(panel);
    this.views.push({ key, tab, panel, ...hooks });
  }

  // ---- what the controls do ----

  // wireControls makes the bar and the script box work: Run and Stop,
  // Ctrl+Enter, the claim control, the seed, "Check every interleaving",
  // Reset and the prediction.
  wireControls() {
    const ui = this.ui;
    ui.run.addEventListener("click", () => this.run());
    ui.stop.addEventListener("click", () => this.stop());
    ui.reset.addEventListener("click", () => this.reset());
    ui.script.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        this.run();
      }
    });
    ui.script.addEventListener("input", () => {
      this.claimSoon();
      this.fit();
    });
    // The script box is as tall as its script, wrapped lines included,
    // at every width: it is measured, not sized by line count.
    if ("ResizeObserver" in window) {
      let width = 0;
      new ResizeObserver(() => {
        if (ui.script.clientWidth !== width) {
          width = ui.script.clientWidth;
          this.fit();
        }
      }).observe(ui.script);
    }
    ui.seed.addEventListener("keydown", (e) => {
      if (e.key === "Enter") {
        e.preventDefault();
        this.run();
      }
    });
    for (const r of ui.claims || []) {
      r.addEventListener("change", () => {
        if (r.checked) this.toggleClaim(r.value);
      });
    }
    ui.explore.addEventListener("click", () => {
      this.select("interleavings", true);
      this.explore(true, true);
    });
    ui.predictForm.addEventListener("submit", (e) => {
      e.preventDefault();
      this.predicted = ui.predictInput.value.trim();
      savePrediction(this.id, this.predicted, ui.script.value);
      this.run();
    });
  }

  // wireViews makes the views work: the tabs (by pointer, and by arrow
  // keys, Home and End), Compare's menus, Every ordering's workers and
  // button, and the step-through (buttons, keys, a click on the picture).
  wireViews() {
    const ui = this.ui;
    for (const v of this.views) v.tab.addEventListener("click", () => this.select(v.key));
    ui.tablist.addEventListener("keydown", (e) => {
      const keys = this.views.map((v) => v.key);
      let i = keys.indexOf(this.view);
      if (e.key === "ArrowRight") i = (i + 1) % keys.length;
      else if (e.key === "ArrowLeft") i = (i + keys.length - 1) % keys.length;
      else if (e.key === "Home") i = 0;
      else if (e.key === "End") i = keys.length - 1;
      else return;
      e.preventDefault();
      this.select(keys[i]);
      ui.tabs[keys[i]].focus();
    });
    ui.cmpA.addEventListener("change", () => this.pickPair(ui.cmpA));
    ui.cmpB.addEventListener("change", () => this.pickPair(ui.cmpB));
    // A load's lease picked in the tally: the status says its diagnosis.
    ui.tally.addEventListener("change", () => this.sayLease());
    ui.expGo.addEventListener("click", () => this.explore(true, true));
    ui.workers.addEventListener("change", () => {
      this.workersTouched = true;
      this.explore(true);
    });
    this.wireStepper();
  }

  // wireStepper makes the step-through work: Back and Next, the arrow
  // keys, Home and End in the step area, and a click on the picture.
  wireStepper() {
    const ui = this.ui;
    ui.prev.addEventListener("click", () => this.goStep(this.stepFrom(this.step, -1)));
    ui.next.addEventListener("click", () => this.goStep(this.stepFrom(this.step, 1)));
    ui.stepArea.addEventListener("keydown", (e) => {
      // In a focused table (it scrolls on its own) the arrows scroll it.
      if (e.target !== ui.stepArea) return;
      const last = (this.result && this.result.trace ? this.result.trace.length : 1) - 1;
      const to = { ArrowRight: this.stepFrom(this.step, 1), ArrowLeft: this.stepFrom(this.step, -1), Home: 0, End: last }[e.key];
      if (to === undefined || e.altKey || e.ctrlKey || e.metaKey) return;
      e.preventDefault();
      this.goStep(to);
    });
    // A click on the timeline jumps to the step drawn nearest to it; a
    // second click at the same place walks through the steps drawn there
    // (one instant can hold several). The buttons and keys stay the way
    // to step without a pointer.
    ui.tlInner.addEventListener("click", (e) => {
      const tl = this.result && this.result.timeline;
      const rect = ui.tlInner.getBoundingClientRect();
      if (!tl || !tl.event_x || !tl.event_x.length || rect.width <= 0) return;
      const k = nearestStep(tl.event_x, ((e.clientX - rect.left) / rect.width) * tl.width, this.step);
      this.goStep(k);
    });
  }

  // wireLinks makes the links work: the copy buttons beside the output,
  // and Back and Forward, which close and open a matrix cell.
  wireLinks() {
    const ui = this.ui;
    addEventListener("popstate", (e) => this.fromHistory(e.state));
    ui.copyLink.addEventListener("click", () => this.copy(ui.copyLink, ui.link.href));
    ui.copyCmd.addEventListener("click", () => this.copy(ui.copyCmd, commandFor(this.ran.script, this.ran.seed)));
    ui.copyGo.addEventListener("click", () => this.copy(ui.copyGo, commandFor(this.ran.script, this.ran.seed, true)));
  }

  // showFirst shows the block as the page opens: the Output view with
  // what the server rendered (or, for a block pasted elsewhere, what its
  // embed page holds), the claim and workers of the script, the
  // prediction asked for, and the matrix cell the history entry had open.
  showFirst(block) {
    const ui = this.ui;
    const pre = block.prerendered;
    // Until a Result says the script's claim (none came with the page,
    // or the script did not parse), the default claim is checked.
    this.setClaim(claimIn(pre) || (toggleClaims()[0] || {}).name);
    ui.workers.value = String((pre && pre.views && pre.views.explore.workers) || 2);
    this.selectTab("output");
    this.fit();
    this.showOwn();
    this.question = question(pre);
    const kept = loadPrediction(this.id);
    if (kept) ui.predictInput.value = kept.value;
    this.setPredicting(this.hasAttribute("predict") || predictAll());
    if (block.n === 1) installSwitches();
    // A block pasted into a page elsewhere with the script tag names the
    // embed page it came from: its pre-rendered output is read from there.
    const from = this.getAttribute("from");
    if (!pre && from) this.fetchPrerendered(from, block.script, block.defaultSeed);
    this.renderTimeline();
    // A reload or a return to the page keeps the cell its history entry had open.
    if (pre && (pre.matrices || []).length && history.state) this.fromHistory(history.state);
  }

  // startRuntime attaches the block to the page's runtime if there is one
  // (the loader's early worker, adopted in start, or one another block
  // started); else it starts the runtime's download now if this is the
  // first block and it is in view, else when it scrolls into view or the
  // pointer or the focus reaches its Run button.
  startRuntime(n) {
    const ui = this.ui;
    if (currentRuntime()) this.attach(currentRuntime());
    else if (n === 1 && inViewport(this)) getRuntime();
    else if (observer) observer.observe(this);
    ui.run.addEventListener("pointerenter", getRuntime, { once: true });
    ui.run.addEventListener("focusin", getRuntime, { once: true });
  }

  // replayLink replays the run a link made by "Link to this run" or "Copy
  // link" names for this block, and reopens the view it was taken from. A
  // link whose claim is not its script's own gets it set by the runtime
  // (linkedScript) before it runs.
  async replayLink() {
    const ui = this.ui;
    const shared = parseLink(location.hash, this.id, this.views.map((v) => v.key));
    if (!shared) return;
    requestAnimationFrame(() => this.scrollIntoView());
    if (shared.unread) {
      this.showError("This link cannot be read: " + shared.error + ". Nothing ran.");
      return;
    }
    ui.script.value = shared.script;
    this.fit();
    ui.seed.value = shared.seed;
    if (shared.claim) this.setClaim(shared.claim);
    if (shared.workers) {
      ui.workers.value = String(shared.workers);
      this.workersTouched = true;
    }
    this.pendingStep = shared.step - 1;
    this.pendingSchedule = shared.schedule;
    if (shared.pair) this.cmpPicked = shared.pair;
    if (shared.error) {
      this.showError("This link has a bad value: " + shared.error + ". Nothing ran; fix it in the fields above and press Run.");
      return;
    }
    const script = shared.claim ? await this.linkedScript(shared.script, shared.claim) : shared.script;
    if (ui.script.value !== shared.script) return; // the reader got there first
    ui.script.value = script;
    this.fit();
    // A link to the block's own script (or its plain form) at its own
    // seed, on the Output view, is the run the server rendered, already
    // shown: a block pasted elsewhere comes so, in a frame of this page
    // (see frame.js).
    if (shared.view === "output" && this.prerendered && this.isOwn(script, shared.seed)) return;
    this.runIfCheap(script, () => {
      // A link to the timeline gets its picture with the run.
      if (shared.view === "timeline") this.selectTab("timeline");
      this.run();
      if (shared.view !== "output") this.select(shared.view);
    });
  }

  // linkedScript is a link's script with the link's claim: the script as
  // it is when its claim is that one already, or when the runtime cannot
  // set it (a script that starts no worker, or does not parse: the run
  // says why).
  async linkedScript(script, claim) {
    const claims = await this.claimsOf(script);
    return (claims && !claims.error && claims.claim !== claim && withClaim(claims, claim)) || script;
  }

  // isOwn reports whether script at seed ("": the block's own) is the
  // lesson's own run: its script or the plain form of it, its seed.
  isOwn(script, seed) {
    const same = (a) => a !== null && a.trimEnd() === script.trimEnd();
    return (same(this.ownScript) || same(this.getAttribute("plain"))) && (seed === "" || seed === String(this.defaultSeed));
  }

  // setPredicting turns predict-then-run on or off for this block. On, and
  // until a run of the reader's shows a result, the output and the other
  // views are hidden and the block asks for a prediction.
  setPredicting(on) {
    const ui = this.ui;
    this.predicting = on;
    const ask = on && !this.revealed;
    this.box.classList.toggle("predicting", ask);
    ui.predictForm.hidden = !ask;
    ui.predictQ.textContent = this.question.text;
    if (this.question.of) ui.predictInput.max = String(this.question.of);
    else ui.predictInput.removeAttribute("max");
    if (!on) ui.yours.hidden = true;
  }

  // stepFrom is the step to go to from k in direction dir: the next one,
  // or, in the presenter view unless Every step is checked, the next one
  // that changes the tables (the last step if none does).
  stepFrom(k, dir) {
    const trace = (this.result && this.result.trace) || [];
    if (!this.hasAttribute("present") || this.ui.everyStep.checked) return k + dir;
    let i = k + dir;
    while (i > 0 && i < trace.length - 1 && quietStep(trace[i])) i += dir;
    return i;
  }

  // showOwn shows what the server rendered for the lesson's own script, or,
  // without it, an invitation to press Run.
  showOwn() {
    const ui = this.ui;
    const pre = this.prerendered;
    if (pre) {
      this.live = false;
      this.ran = { script: this.ownScript, seed: pre.seedText || String(this.defaultSeed) };
      this.render(pre, "Output at seed " + this.ran.seed + ", rendered on the server. Press Run to run it in your browser.");
      this.setState("prerendered");
    } else {
      this.blank("Press Run to run this script in your browser.");
      ui.share.hidden = true;
      this.setState("idle");
    }
  }

  // reset puts back the lesson's script and seed, and the output the
  // server rendered for them; a run of this block under way is stopped.
  reset() {
    const ui = this.ui;
    if (this.busy || (this.rt && this.rt.busy(this))) this.stop();
    this.seq++;
    this.busy = false;
    ui.ran.hidden = true;
    ui.run.removeAttribute("aria-busy");
    ui.run.textContent = "Run";
    ui.script.value = this.ownScript;
    ui.seed.value = this.defaultSeed;
    this.setClaim(claimIn(this.prerendered));
    this.cmpPicked = null;
    if (!this.workersTouched) {
      const views = this.prerendered && this.prerendered.views;
      ui.workers.value = String((views && views.explore.workers) || 2);
    }
    this.removeAttribute("heavy");
    this.fit();
    this.step = 0;
    this.showOwn();
    this.renderTimeline();
    this.selectTab("output");
    this.revealed = false;
    this.predicted = undefined; // asks again
    ui.yours.hidden = true;
    this.setPredicting(this.predicting);
    ui.status.textContent = "Reset to the lesson's script" + (this.defaultSeed ? " and seed " + this.defaultSeed : "") + ".";
  }

  // fetchPrerendered reads the pre-rendered Result of the embed page at
  // url (once per page, however many blocks name it) and shows it, if
  // that page's block is this script at this seed.
  async fetchPrerendered(url, script, seed) {
    let data;
    try {
      data = await embedData(new URL(url, location.href).href);
    } catch {
      return; // Run still works; the output just waits for it
    }
    const same = (a) => a.trimEnd() === script.trimEnd();
    if (!data || !(same(data.script) || (data.plain && same(data.plain))) || (seed && seed !== data.seed)) return;
    if (this.live || this.busy || this.ui.script.value !== script) return; // the reader got there first
    this.prerendered = data.result;
    this.showOwn();
  }

  // embedSnippets offers the two ways to put this block in another page.
  // Both keep what the block is: the script-tag form carries an id (so
  // links to it work), its controls and its label; the iframe
  // form carries a title of its own and the lines that let the frame
  // take the height its page asks for (see embedHeight).
  embedSnippets(embed, script, o) {
    const page = new URL(embed, location.href).href;
    // The pasted block's id names its lesson as well as its place there
    // (twice-atomic-claim-2), so blocks from two lessons pasted into one
    // post keep ids, and links, of their own.
    const where = /\/embed\/([^/]+)\/(\d+)\/$/.exec(new URL(page).pathname);
    if (where) o = { ...o, id: "twice-" + where[1] + "-" + where[2] };
    const origin = new URL(page).origin;
    const title = "twice: " + (o.label || "playground");
    const attr = (s) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
    const iframe = embedIframe(page, title, origin);
    const esc = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
    const attrs =
      (o.id ? ' id="' + attr(o.id) + '"' : "") +
      (o.seed ? ' seed="' + attr(o.seed) + '"' : "") +
      (o.controls !== null && o.controls !== undefined ? ' controls="' + attr(o.controls) + '"' : "") +
      (o.label ? ' label="' + attr(o.label) + '"' : "");
    const tag =
      '<script src="' + assetURL("twice.js") + '" defer></script>\n' +
      "<twice-playground" + attrs + ' from="' + attr(page) + '">\n<pre>' + esc(script) + "</pre>\n</twice-playground>";
    const snippet = (title, text) => {
      // A URL breaks after its slashes and separators (<wbr>, which adds
      // no character to what is selected or copied), never inside a word.
      const pre = h("pre", { class: "snippet", tabindex: "0", "aria-label": title });
      for (const part of text.split(/(?<=[/?&=])(?=[^\s/])/)) pre.append(part, h("wbr"));
      const btn = h("button", { type: "button", class: "copy", text: "Copy" });
      btn.addEventListener("click", async () => {
        try {
          await navigator.clipboard.writeText(text);
          btn.textContent = "Copied";
        } catch {
          const sel = window.getSelection();
          sel.selectAllChildren(pre);
          btn.textContent = "Press Ctrl+C";
        }
        setTimeout(() => (btn.textContent = "Copy"), 2000);
      });
      return h("div", { class: "snippet-box" }, h("p", { text: title }), pre, btn);
    };
    // A page served from this machine names an address no one else can
    // reach: the snippet needs the site's published one.
    const local = loopback(new URL(page).hostname)
      ? h("p", { class: "embed-local", text: "This page is served from your own machine (" + origin + "), so these snippets name an address only it can reach. Copy them from the published site, or replace " + origin + " with its URL." })
      : null;
    return h(
      "details",
      { class: "embed" },
      h("summary", { text: "Embed this block" }),
      ...(local ? [local] : []),
      snippet("By iframe (it takes the height of its content)", iframe),
      snippet("By script tag (the page's CSP must allow this origin, blob: workers and 'wasm-unsafe-eval')", tag),
      h("p", {
        class: "embed-note",
        text:
          "The script tag needs " + origin + " to send an Access-Control-Allow-Origin header with /assets/ and /embed/ (twice serve does; a plain static host does not): the block is then part of the page. Without it, the block shows in a frame of its embed page instead, as the iframe does.",
      })
    );
  }

  // copy puts text on the clipboard. Where the browser refuses (no
  // permission, not a secure context), it shows the text selected in a
  // field, so that Ctrl+C copies it.
  async copy(btn, text) {
    const ui = this.ui;
    const label = btn.dataset.label || (btn.dataset.label = btn.textContent);
    btn.dataset.copied = text;
    try {
      await navigator.clipboard.writeText(text);
      ui.copyBox.hidden = true;
      btn.textContent = "Copied";
      ui.status.textContent = label === "Copy link" ? "Link copied." : "Command copied.";
    } catch {
      ui.copyField.value = text;
      ui.copyField.rows = Math.min(text.split("\n").length, 12);
      ui.copyBox.hidden = false;
      ui.copyField.focus();
      ui.copyField.select();
      btn.textContent = "Select and copy";
    }
    setTimeout(() => (btn.textContent = label), 2000);
  }

  // fit makes the script box exactly as tall as its content.
  fit() {
    const ta = this.ui.script;
    if (!ta.isConnected || ta.clientWidth === 0) return;
    const cs = getComputedStyle(ta);
    const border = parseFloat(cs.borderTopWidth) + parseFloat(cs.borderBottomWidth);
    ta.style.height = "auto";
    ta.style.height = Math.ceil(ta.scrollHeight + border) + "px";
  }

  setState(s) {
    this.setAttribute("state", s);
    this.ui.out.setAttribute("aria-busy", s === "loading" || s === "running" ? "true" : "false");
  }

  // setClaim checks the claim c in the claim control; "" (a claim not
  // known yet) leaves it as it is.
  setClaim(c) {
    if (c) for (const r of this.ui.claims || []) r.checked = r.value === c;
  }

  // toggleClaim puts the script with claim in the box and runs it. The
  // text comes from the runtime (claimsOf), never from reading it here: at
  // once from the Result shown when it is this script's, else from the
  // runtime's answer (the block shows it is busy meanwhile). A script it
  // cannot set (no worker, or a parse error) runs as it is, and the run
  // says why.
  toggleClaim(claim) {
    const ui = this.ui;
    const script = ui.script.value;
    const seq = ++this.claimSeq;
    const shown = this.shownClaims(script);
    if (shown) {
      this.putScript(withClaim(shown, claim));
      this.run();
      return;
    }
    const state = this.getAttribute("state");
    this.setState("running");
    ui.status.textContent = "Setting the claim in the script…";
    this.claimsOf(script, "toggle").then((claims) => {
      if (seq !== this.claimSeq) return; // a later pick runs instead
      if (ui.script.value === script) this.putScript(withClaim(claims, claim));
      this.run();
      if (!this.busy && this.getAttribute("state") === "running") this.setState(state); // it asked for a prediction first
    });
  }

  // putScript puts script in the box, unless it is null.
  putScript(script) {
    if (script === null) return;
    this.ui.script.value = script;
    this.fit();
  }

  // shownClaims is the claims of the Result shown (views.compare) when it
  // is a run of script, else null.
  shownClaims(script) {
    return this.result && this.result.views && this.ran && this.ran.script === script ? this.result.views.compare : null;
  }

  // claimsOf is the claim of script and its text with each claim: from the
  // Result shown when it is that script's (the server's, or the last
  // run's), else from the runtime, which parses it; null when the runtime
  // cannot answer. key names the request (see runtime-client.js).
  async claimsOf(script, key = "claims") {
    const shown = this.shownClaims(script);
    if (shown) return shown;
    try {
      const rt = getRuntime();
      this.attach(rt);
      return await rt.claims(script, this, key);
    } catch {
      return null;
    }
  }

  // claimSoon shows the claim of the script being typed in the claim
  // control once the typing pauses, as the runtime reads it. Before the
  // runtime has started, the next run's Result says it.
  claimSoon() {
    clearTimeout(this.claimTimer);
    if (!currentRuntime()) return;
    this.claimTimer = setTimeout(async () => {
      const script = this.ui.script.value;
      const claims = await this.claimsOf(script, "typed");
      if (claims && !claims.error && this.ui.script.value === script) this.setClaim(claims.claim);
    }, 300);
  }

  // attach listens to the runtime's loading progress.
  attach(rt) {
    if (this.rt === rt) return;
    this.rt = rt;
    if (observer) observer.unobserve(this);
    rt.listeners.add(() => this.showLoading(rt));
    this.showLoading(rt);
  }

  showLoading(rt) {
    const ui = this.ui;
    if (rt.state === "loading") {
      ui.loading.hidden = false;
      ui.progress.max = rt.total || 1;
      ui.progress.value = Math.min(rt.loaded, rt.total || 1);
      ui.loading.lastChild.textContent = loadingText(rt.loaded, rt.total, rt.wire);
    } else {
      ui.loading.hidden = true;
    }
    if (rt.state === "failed" && this.getAttribute("state") !== "error") {
      ui.status.textContent = "The runtime failed to load; Run tries again.";
    }
  }

  // seedOK checks the seed field; it shows an error when it is bad.
  seedOK(seed) {
    if (seed === "" || (/^[0-9]+$/.test(seed) && BigInt(seed) <= MAX_SEED)) return true;
    this.showError("The seed must be a whole number from 0 to " + MAX_SEED + ".");
    return false;
  }

  // ---- tabs ----

  // selectTab shows the panel of a view (see mountView) and hides the
  // others.
  selectTab(view) {
    this.view = view;
    for (const v of this.views) {
      const on = v.key === view;
      v.tab.setAttribute("aria-selected", on ? "true" : "false");
      v.tab.tabIndex = on ? 0 : -1;
      v.panel.hidden = !on;
    }
    const v = this.viewOf(view);
    if (v && v.shown) v.shown();
  }

  // viewOf is the mounted view with the given key.
  viewOf(key) {
    return this.views.find((v) => v.key === key);
  }

  // select shows a view and fills it: the timeline needs a live run (the
  // server's output carries no trace), compare and every-ordering run
  // their own scripts when what they showed is stale; quiet leaves the
  // filling to the caller.
  select(view, quiet) {
    this.selectTab(view);
    this.updateLink();
    const v = this.viewOf(view);
    if (v && v.open) v.open(quiet);
  }

  // ---- Stop, and what a link runs on load ----

  // request sends one run of this block to the runtime (key: which of the
  // block's runs it is; a newer one replaces a queued one) and shows Stop
  // while any is in flight.
  request(rt, script, seed, timeline, key, auto) {
    const p = rt.run(script, seed, timeline, this, key, auto);
    this.ui.stop.hidden = false;
    const done = () => {
      const runtime = currentRuntime();
      if (!(runtime && runtime.busy(this)) && !rt.busy(this)) this.ui.stop.hidden = true;
    };
    p.then(done, done);
    return p;
  }

  // stop ends this block's runs: the runtime's worker is terminated if it
  // is doing one, and a fresh one loads for the next Run.
  stop() {
    if (this.rt) this.rt.stop(this);
    const runtime = currentRuntime();
    if (runtime && runtime !== this.rt) runtime.stop(this);
    this.ui.stop.hidden = true;
  }

  // ranSoFar shows how far this block's main run has got (ran: {done, of,
  // what}, from the runtime while it runs).
  ranSoFar(key, ran) {
    if (key !== "main") return;
    this.ui.ran.textContent = ran.done + " of " + ran.of + " " + ran.what;
    this.ui.ran.hidden = false;
  }

  // stopped shows that the run of script at seed was stopped, ms after it
  // was sent, and how far it had got (ran, see stoppedAfter). The output
  // shown stays only if it is that script's at that seed; any other (the
  // server's, or an earlier run's) would be read as this one's, so it
  // goes, and the block says what happened instead.
  stopped(script, seed, ms, ran) {
    const ui = this.ui;
    const after = stoppedAfter(ms, ran);
    ui.status.textContent = (ran && ran.done > 0 ? after : "Stopped") + ". Run starts it again in a fresh runtime.";
    ui.run.removeAttribute("aria-busy");
    this.busy = false;
    const same = this.ran && this.ran.script === script && (seed === "" || seed === this.ran.seed);
    if (same) {
      this.setState(this.live ? "done" : "idle");
      return;
    }
    this.blank(after + (ms > 0 ? ", before this script finished" : "") + ", so it has no output to show. Run starts it again.");
    this.setState("stopped");
  }

  // blank clears the Output panel down to heading: no transcript, tables
  // or links of a run that is not the script in the editor.
  blank(heading) {
    const ui = this.ui;
    this.result = null;
    this.ran = null;
    this.live = false;
    ui.out.classList.add("empty");
    ui.heading.textContent = heading;
    for (const el of [ui.error, ui.transcript, ui.tally, ui.chart, ui.matrix, ui.tables, ui.share, ui.copyBox]) el.hidden = true;
    ui.transcript.textContent = "";
    this.renderTimeline();
  }

  // died shows that the runtime died during this block's run: in words,
  // with the worker already freed and Run ready to start a fresh one.
  died(message) {
    const ui = this.ui;
    this.blank("No output: " + message + ". Its memory has been freed; Run again starts a fresh runtime.");
    ui.error.textContent = "The runtime stopped during this run (out of memory or a crash).";
    ui.error.hidden = false;
    ui.status.textContent = "The runtime stopped. Run again starts a fresh one.";
    ui.run.textContent = "Run again";
    this.setState("error");
  }

  // runIfCheap calls go unless the parser estimates script as heavy (many
  // races, explored states or load jobs): a link or an embed must not
  // take a reader's tab on load. A heavy script waits for a press of Run.
  runIfCheap(script, go) {
    const rt = getRuntime();
    this.attach(rt);
    this.auto = true; // the run go starts is held to the runtime's small budget
    const own = script === this.ownScript;
    if (own && this.getAttribute("cost") === "heavy") {
      this.heavy("");
      return;
    }
    if (own && this.getAttribute("cost") === "light") {
      go();
      return;
    }
    this.ui.status.textContent = "Checking the linked script…";
    this.ui.stop.hidden = false;
    const checked = rt.cost(script, this);
    checked.then(() => !rt.busy(this) && (this.ui.stop.hidden = true), () => (this.ui.stop.hidden = true));
    checked.then(
      (c) => (c.heavy ? this.heavy(c.what) : go()),
      (e) => (e.stopped || e.died ? this.stopped(script, "", 0) : go()) // a bad script: the run reports what is wrong
    );
  }

  // heavy shows the script (in the editor), a note and the Run button,
  // and no output: nothing ran, or a run that did not run to its end on
  // its own (the runtime's budget for runs nobody pressed Run for) would
  // show a part as if it were the whole.
  heavy(what) {
    const ui = this.ui;
    const pre = this.getAttribute("state") === "prerendered" && this.ran && this.ran.script === ui.script.value;
    if (!pre) this.blank("");
    ui.heading.textContent = what
      ? "This script is heavy (" + what + "), so it did not run on its own. Press Run to run it; Stop ends it."
      : "This script is heavy, so it did not run on its own. Press Run to run it; Stop ends it.";
    ui.status.textContent = "Waiting for Run.";
    this.setAttribute("heavy", "");
    this.setState(pre ? "prerendered" : "idle");
  }

  // ---- the main run ----

  async run() {
    const ui = this.ui;
    const seq = ++this.seq;
    const script = ui.script.value;
    const seed = ui.seed.value.trim();
    if (!this.seedOK(seed)) return;
    if (this.predicting && !this.revealed && this.predicted === undefined && !this.auto) {
      // Ask first; a second Run goes ahead without a prediction.
      this.predicted = "";
      ui.predictInput.focus();
      ui.status.textContent = "Predict first: type your answer and press Enter. Run again runs without one.";
      return;
    }
    const rt = getRuntime();
    this.attach(rt);
    this.busy = true;
    this.setState(rt.state === "ready" ? "running" : "loading");
    ui.status.textContent = rt.state === "ready" ? "Running…" : "Loading the runtime…";
    ui.run.setAttribute("aria-busy", "true");
    ui.run.textContent = "Run";
    const auto = this.auto === true;
    this.auto = false;
    const sent = performance.now();
    try {
      // The timeline is drawn only when its tab is open (or opens: see
      // openTimeline), so a first result waits for no SVG.
      const m = await this.request(rt, script, seed, this.view === "timeline", "main", auto);
      if (seq !== this.seq) return;
      const res = JSON.parse(m.json);
      this.kept = res.timeline ? null : { rt, id: m.id };
      if (auto && res.heavy) {
        // It ran out of the budget for runs nobody asked for: not a
        // result, and not to be shown as one. What ran out, briefly.
        this.heavy(res.error && res.error.msg ? res.error.msg.replace(/\s*\(.*$/, "") : "");
        return;
      }
      this.removeAttribute("heavy");
      const ms = m.ms < 10 ? m.ms.toFixed(1) : Math.round(m.ms);
      this.live = true;
      this.ran = { script, seed: seedOf(m.json, res) };
      this.render(res, "Output at seed " + this.ran.seed + ", run in your browser.");
      if (this.predicting && !this.revealed) {
        this.revealed = true;
        this.setPredicting(true);
        ui.yours.textContent = verdict(this.question, this.predicted || "", res);
        ui.yours.hidden = false;
      }
      this.step = this.pendingStep > 0 ? this.pendingStep : 0;
      this.pendingStep = 0;
      this.renderTimeline();
      if (res.error) this.setState("error");
      else this.setState("done");
      // The bar shows the time; the live region also says the outcome
      // (for the eye, the tally and the diagnosis are just below).
      const said = res.error ? "Failed: " + ui.error.textContent : announce(res, ms, ui.lease);
      const shown = res.error ? "Failed." : "Done in " + ms + " ms.";
      ui.status.replaceChildren(shown, h("span", { class: "sr", text: said.slice(shown.length) }));
      const open = this.viewOf(this.view);
      if (open && open.ran) open.ran();
    } catch (e) {
      if (seq !== this.seq) return;
      if (e.stopped) this.stopped(script, seed, performance.now() - sent, e.ran);
      else if (e.died) this.died(e.message);
      else this.showError(e.message);
    } finally {
      if (seq === this.seq) {
        ui.run.removeAttribute("aria-busy");
        ui.ran.hidden = true;
        this.busy = false;
      }
    }
  }

  // sayLease has the status region say the diagnosis of the lease the
  // reader picked, which the tables and the panel now show.
  sayLease() {
    const ui = this.ui;
    if (!this.result || !(this.result.loads || []).length) return;
    const lease = this.result.loads[chosenLease(this.result, ui.lease)];
    const said = "The tables show lease " + lease.lease_us / 1e6 + " s. " + diagnosisSaid(this.result, ui.lease);
    const sr = ui.status.querySelector(".sr");
    if (sr) sr.textContent = " " + said;
    else ui.status.append(h("span", { class: "sr", text: " " + said }));
  }

  showError(msg) {
    const ui = this.ui;
    ui.error.textContent = msg;
    ui.error.hidden = false;
    ui.status.textContent = "Failed.";
    this.setState("error");
  }

  // updateLink points "Link to this run" at the run shown, with the view
  // (and step) the reader is looking at.
  updateLink() {
    const ui = this.ui;
    if (!this.ran) return;
    ui.link.href = this.linkTo(this.view, ui.seat.schedule);
    ui.link.hidden = false;
    ui.share.hidden = false;
  }

  // linkTo is the link to the run shown, opening view (with the step,
  // workers or schedule the reader is at).
  linkTo(view, schedule) {
    return linkHash(this.id, {
      seed: this.ran ? this.ran.seed : this.defaultSeed,
      script: this.ran ? this.ran.script : this.ui.script.value,
      claim: this.ran ? claimIn(this.result) : "",
      view,
      step: this.step + 1,
      workers: Number(this.ui.workers.value),
      pair: this.cmpPicked,
      schedule,
    });
  }

  // render shows a Result in the Output panel (see renderOutput); a matrix
  // cell's button opens its script in a block of its own under the matrix.
  render(res, heading) {
    this.result = res;
    this.setClaim(claimIn(res));
    this.ui.tables.hidden = false;
    if (!(res.matrices || []).length) this.closeCell(true);
    renderOutput(this.ui, res, heading, this.label, (script, seed, what, button) => this.openCell({ script, seed: String(seed), what }, button));
    this.updateLink();
  }

  // ---- a matrix cell, opened under the matrix ----

  // openCell shows a cell's script as a block of its own under the matrix,
  // and runs it; the matrix stays as it is. Opening is a step in the
  // browser's history (Back closes the cell, Forward opens it again),
  // unless it comes from that history (fromHistory).
  openCell(cell, button, fromHistory) {
    const ui = this.ui;
    this.closeCell(true);
    this.cell = cell;
    this.cellButton = button || null;
    const block = document.createElement("twice-playground");
    block.setAttribute("controls", "seed");
    block.setAttribute("seed", cell.seed);
    block.setAttribute("label", cell.what + ", a cell of " + this.label);
    block.id = this.id + "-cell";
    block.append(h("pre", { class: "twice-script", text: cell.script }));
    const close = h("button", { type: "button", class: "cell-close small", text: "Close this cell" });
    close.addEventListener("click", () => {
      if (history.state && history.state.twiceCell && history.state.twiceCell.block === this.id) history.back();
      else this.closeCell();
    });
    ui.cellBox.replaceChildren(
      h("div", { class: "cell-head" }, h("p", { class: "cell-title", text: "Cell: " + cell.what + ", its script at seed " + cell.seed + " (the matrix ran it at every seed of its range)" }), close),
      block
    );
    ui.cellBox.hidden = false;
    if (!fromHistory) {
      const state = Object.assign({}, history.state || {}, { twiceCell: { block: this.id, script: cell.script, seed: cell.seed, what: cell.what } });
      history.pushState(state, "");
    }
    if (block.run) block.run();
    ui.cellBox.scrollIntoView({ block: "nearest" });
  }

  // closeCell removes the open cell's block, and gives the focus back to
  // the cell it came from (quiet: neither).
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

  // fromHistory follows Back and Forward: the cell the history entry
  // names for this block is open, and no other.
  fromHistory(state) {
    const c = state && state.twiceCell;
    if (c && c.block === this.id) {
      if (!this.cell || this.cell.script !== c.script || this.cell.seed !== c.seed) this.openCell({ script: c.script, seed: c.seed, what: c.what }, null, true);
    } else if (this.cell) {
      this.closeCell();
    }
  }

  // ---- timeline and step-through ----

  renderTimeline() {
    const ui = this.ui;
    const res = this.result;
    // What the tab can draw for this script is the runtime's to say.
    const view = res && res.views ? res.views.timeline : null;
    const chart = res && res.chart;
    ui.tlChart.hidden = !(view && view.chart && chart);
    if (!ui.tlChart.hidden) {
      ui.tlChartImg.src = ui.chartImg.src;
      ui.tlChartImg.width = chart.width;
      ui.tlChartImg.height = chart.height;
      ui.tlChartImg.alt = ui.chartImg.alt;
    }
    if (!this.live || !res) {
      // A load's chart is here already; a traced run needs a live one.
      const live = view && !view.trace ? "" : "The timeline and the step-through come from a run in your browser: press Run.";
      ui.tlNote.textContent = (view && view.note ? view.note + " " : "") + live;
      ui.tlFig.hidden = true;
      ui.stepper.hidden = true;
      return;
    }
    const trace = res.trace || [];
    const tl = res.timeline;
    const notes = view && view.note ? [view.note] : [];
    if (tl && typeof tl.svg === "string" && /^<svg[\s>]/.test(tl.svg) && tl.width > 0) {
      // The picture is decoded only once its tab is shown: decoding the
      // first SVG image of a page blocks the main thread for hundreds of
      // ms, which would delay the first result (see docs/PERFORMANCE.md).
      this.tlSrc = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(tl.svg);
      if (!ui.tlPanel.hidden) ui.tlImg.src = this.tlSrc;
      else ui.tlImg.removeAttribute("src");
      ui.tlImg.width = tl.width;
      ui.tlImg.height = tl.height;
      // The picture is drawn at least at the scale that makes its
      // smallest text 12 CSS px (at a desktop block's width it is about
      // its own size), and scrolls sideways on a narrower screen.
      const font = minFontSize(tl.svg) || 10;
      ui.tlInner.style.setProperty("--tl-min-width", Math.ceil((tl.width * 12) / font) + "px");
      // In the presenter view, at the scale that makes it 16 px.
      ui.tlInner.style.setProperty("--tl-present-width", Math.ceil((tl.width * 16) / font) + "px");
      ui.tlImg.alt = timelineAlt(trace);
      ui.tlFig.hidden = false;
    } else {
      this.tlSrc = "";
      ui.tlImg.removeAttribute("src");
      ui.tlFig.hidden = true;
      // A run kept undrawn has its picture drawn when the tab opens.
      if (!notes.length) notes.push(this.kept ? "Drawing the timeline…" : "No worker ran in this script, so there is no timeline to draw.");
    }
    ui.tlNote.textContent = notes.join(" ");
    ui.tlNote.hidden = notes.length === 0;
    ui.stepper.hidden = trace.length === 0;
    this.dupShown = false;
    if (trace.length) this.goStep(this.step);
    else ui.tlCursor.hidden = true;
    this.showDuplicate();
  }

  // openTimeline fills the Timeline view: only a traced run needs a
  // live run for its picture, and a live run shown without one has it
  // drawn now.
  openTimeline() {
    const traced = !(this.result && this.result.views && !this.result.views.timeline.trace);
    if (!this.live && !this.busy && traced) this.run();
    else if (this.live && traced && this.result && !this.result.timeline) this.drawTimeline();
    else this.renderTimeline();
  }

  // drawTimeline asks the runtime to draw the timeline of the run shown,
  // which it kept; when it no longer holds that run (Stop started a fresh
  // one, or another block ran since), the run is made again with its
  // timeline: the same script at the same seed gives the same run.
  async drawTimeline() {
    if (this.drawing) return;
    const res = this.result;
    const kept = this.kept;
    let drawn = null;
    if (kept && kept.rt === currentRuntime() && kept.rt.state === "ready") {
      this.drawing = true;
      try {
        drawn = await kept.rt.timeline(kept.id, this);
      } catch {
        drawn = null;
      } finally {
        this.drawing = false;
      }
    }
    if (this.result !== res) return;
    this.kept = null;
    if (drawn && drawn.timeline) {
      res.timeline = drawn.timeline;
      this.renderTimeline();
      this.timelineShown();
    } else if (drawn) {
      this.renderTimeline();
    } else {
      this.run();
    }
  }

  // timelineShown decodes the picture, now that its panel shows, and
  // brings its first duplicate into view.
  timelineShown() {
    const ui = this.ui;
    if (this.tlSrc && ui.tlImg.getAttribute("src") !== this.tlSrc) ui.tlImg.src = this.tlSrc;
    this.showDuplicate();
  }

  // showDuplicate scrolls a picture wider than its box (a phone) so that
  // the first duplicate is in view, once per run, when the tab is shown.
  showDuplicate() {
    const ui = this.ui;
    const tl = this.result && this.result.timeline;
    if (this.dupShown || !tl || !(tl.first_duplicate >= 0) || ui.tlPanel.hidden || ui.tlFig.hidden) return;
    const sc = ui.tlScroll;
    if (sc.clientWidth === 0) return;
    this.dupShown = true;
    const x = tl.event_x[tl.first_duplicate];
    if (typeof x !== "number") return;
    const px = (x / tl.width) * ui.tlInner.clientWidth;
    if (px > sc.scrollLeft + sc.clientWidth - 24 || px < sc.scrollLeft + 24) sc.scrollLeft = Math.max(0, px - sc.clientWidth / 2);
  }

  // goStep shows step k of the trace (clamped to it) and keeps the link to
  // the run pointing at it.
  goStep(k) {
    const trace = (this.result && this.result.trace) || [];
    if (!trace.length) return;
    k = Math.max(0, Math.min(trace.length - 1, k));
    this.step = k;
    renderStep(this.ui, this.result, k);
    if (this.view === "timeline") this.updateLink();
  }

  // ---- the views of the script ----

  // viewsFor returns what the runtime decided each view shows for the
  // script in the editor (Result.views): from the run shown when it ran
  // this script, else from a run of it now.
  async viewsFor(script) {
    const fresh = () => this.result && this.result.views && this.ran && this.ran.script === script;
    if (!fresh()) await this.run();
    return fresh() ? this.result.views : null;
  }

  // ---- compare claims ----

  // compare runs the block's script at its seed with two claims, side by
  // side: the pair the reader picked, or by default the block's own claim
  // beside the atomic one (comparePair). The scripts are the runtime's
  // (views.compare.sides, one per claim it has).
  async compare(force) {
    const ui = this.ui;
    const script = ui.script.value;
    const seed = ui.seed.value.trim();
    const key = script + "\u0000" + seed + "\u0000" + (this.cmpPicked || []).join(" ");
    if (!force && key === this.cmpKey) return;
    if (!this.seedOK(seed)) return;
    this.cmpKey = key;
    const seq = ++this.cmpSeq;
    ui.cmpPanel.dataset.state = "running";
    ui.cmpPanel.setAttribute("aria-busy", "true");
    ui.cmpNote.textContent = "Running the script with two claims…";
    try {
      const views = await this.viewsFor(script);
      if (seq !== this.cmpSeq) return;
      if (!views) throw new Error("the script did not run");
      const sides = views.compare.sides || [];
      const pair = comparePair(
        sides.map((s) => s.claim),
        views.compare.claim,
        CONFIG.compareTo,
        this.cmpPicked
      ).map((c) => sides.find((s) => s.claim === c));
      this.showPair(sides, pair);
      if (pair.length === 0) {
        ui.cmpNote.textContent = views.compare.note;
        ui.cmpPanes.replaceChildren();
        ui.cmpPanel.dataset.state = "done";
        return;
      }
      const rt = getRuntime();
      this.attach(rt);
      const outs = await Promise.all(pair.map((side) => this.request(rt, side.script, seed, false, "cmp-" + side.claim)));
      if (seq !== this.cmpSeq) return;
      const results = outs.map((o) => JSON.parse(o.json));
      ui.cmpNote.textContent =
        (views.compare.note ? views.compare.note + " " : "") +
        "The same script at seed " + seedOf(outs[0].json, results[0]) + ", once with each of the claims above. Same seed, same draws: only the claim differs.";
      ui.cmpPanes.replaceChildren(...pair.map((side, i) => pane(side.claim, results[i], this.label)));
      ui.cmpPanel.dataset.state = "done";
    } catch (e) {
      if (seq !== this.cmpSeq) return;
      this.cmpKey = null;
      ui.cmpNote.textContent = "Compare failed: " + e.message;
      ui.cmpPanel.dataset.state = "error";
    } finally {
      if (seq === this.cmpSeq) ui.cmpPanel.setAttribute("aria-busy", "false");
    }
  }

  // seat opens Be the scheduler on the race the runtime says this block
  // has (views.scheduler), replaying a linked schedule once.
  async seat() {
    const schedule = this.pendingSchedule;
    this.pendingSchedule = null;
    const views = await this.viewsFor(this.ui.script.value);
    this.ui.seat.open(views && views.scheduler, schedule);
  }

  // showPair lists the claims the runtime offers in both of Compare's
  // menus and selects the pair shown; the menus hide with fewer than two.
  showPair(sides, pair) {
    const ui = this.ui;
    const names = sides.map((s) => s.claim);
    for (const [i, menu] of [ui.cmpA, ui.cmpB].entries()) {
      if (Array.from(menu.options, (o) => o.value).join(" ") !== names.join(" ")) {
        menu.replaceChildren(...names.map((c) => h("option", { value: c, title: claimWords(c), text: c })));
      }
      if (pair[i]) menu.value = pair[i].claim;
    }
    ui.cmpPick.hidden = pair.length < 2;
    this.cmpShown = pair.map((s) => s.claim);
  }

  // pickPair takes the reader's pick of Compare's menus (changed: the one
  // changed); picking in one the claim the other shows swaps the two.
  pickPair(changed) {
    const ui = this.ui;
    const other = changed === ui.cmpA ? ui.cmpB : ui.cmpA;
    const before = this.cmpShown || [];
    if (changed.value === other.value) other.value = changed === ui.cmpA ? before[0] : before[1];
    this.cmpPicked = [ui.cmpA.value, ui.cmpB.value];
    this.updateLink();
    this.compare(false);
  }

  // ---- every ordering ----

  // explore fills Every ordering with the race the runtime says this
  // block has (views.explore): its own races made exhaustive, or for a
  // block with no race, a sentence and the race its work would run, which
  // runs only when asked (go). A combination the runtime refuses is said,
  // not run.
  async explore(force, go) {
    const ui = this.ui;
    const script = ui.script.value;
    const workers = Number(ui.workers.value) || 2;
    const key = script + "\u0000" + (this.workersTouched ? workers : "own");
    if (!force && key === this.expKey) return;
    this.expKey = key;
    const seq = ++this.expSeq;
    ui.expPanel.dataset.state = "running";
    ui.expPanel.setAttribute("aria-busy", "true");
    ui.expBody.replaceChildren();
    ui.expHead.textContent = "";
    try {
      const views = await this.viewsFor(script);
      if (seq !== this.expSeq) return;
      if (!views) throw new Error("the script did not run");
      const v = views.explore;
      ui.expNote.textContent = v.note;
      ui.expPanel.dataset.own = v.own ? "true" : "false";
      const runs = v.by_workers || [];
      const chosen = this.workersTouched ? runs.find((r) => r.workers === workers) : { script: v.script, refused: v.refused, workers: v.workers };
      if (!this.workersTouched && v.workers) ui.workers.value = String(v.workers);
      ui.workers.disabled = runs.length === 0;
      if (!v.script || !chosen) {
        ui.expCmd.textContent = "";
        ui.expGo.hidden = true;
        ui.expPanel.dataset.state = "done";
        ui.expPanel.dataset.explored = "none";
        return;
      }
      ui.expCmd.textContent = chosen.script.trim().replace(/\n/g, "; ");
      if (chosen.refused) {
        ui.expGo.hidden = true;
        ui.expHead.textContent = "Not checked: " + chosen.refused + ".";
        ui.expPanel.dataset.state = "done";
        ui.expPanel.dataset.explored = "refused";
        return;
      }
      if (!v.own && !go) {
        ui.expGo.hidden = false;
        ui.expPanel.dataset.state = "done";
        ui.expPanel.dataset.explored = "offered";
        return;
      }
      ui.expGo.hidden = true;
      ui.expHead.textContent = "Checking every ordering of " + chosen.workers + " workers…";
      const rt = getRuntime();
      this.attach(rt);
      const m = await this.request(rt, chosen.script, "", false, "explore");
      if (seq !== this.expSeq) return;
      const res = JSON.parse(m.json);
      const xs = res.explorations || [];
      if (res.error || xs.length === 0) throw new Error(res.error ? res.error.msg : "the runtime reported no exploration");
      renderExplorations(ui, xs, m.ms);
      ui.expPanel.dataset.state = "done";
      ui.expPanel.dataset.explored = "explored";
    } catch (e) {
      if (seq !== this.expSeq) return;
      this.expKey = null;
      ui.expHead.textContent = "The check failed: " + e.message;
      ui.expPanel.dataset.state = "error";
    } finally {
      if (seq === this.expSeq) ui.expPanel.setAttribute("aria-busy", "false");
    }
  }
}

// start defines the element, once per page, with the config the loader
// carries (the hashed names of the other assets, the runtime's lists).
// early is the worker the loader started, or null (see twice.js): it
// becomes the page's runtime before any block is set up.
export function start(config, early) {
  if (window.customElements === undefined || customElements.get("twice-playground")) {
    if (early) early.worker.terminate(); // a second loader's: the first one's element runs the page
    return;
  }
  Object.assign(CONFIG, config);
  adopt(early);
  if ("IntersectionObserver" in window) {
    observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) {
        observer.disconnect();
        getRuntime();
      }
    });
  }

  // An embed page of the site, shown in a frame, tells the page around it
  // how tall it is whenever that changes, so that the iframe snippet can
  // fit the frame to it (no scrolling inside the frame). A page that loads
  // this script through the script tag is never an embed page.
  if (document.documentElement && document.documentElement.dataset && document.documentElement.dataset.twicePage === "embed" && window.parent !== window && "ResizeObserver" in window) {
    let last = 0;
    new ResizeObserver(() => {
      const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
      if (height === last) return;
      last = height;
      window.parent.postMessage({ type: "twice:height", height }, "*");
    }).observe(document.documentElement);
  }

  // Exposed for tests and for pages that build scripts themselves.
  window.TwicePlayground = {
    withClaim,
    parseLink,
    linkHash,
    shellQuote,
    commandFor,
    renderExplorations,
    announce,
    diagnosisPlan,
    embedIframe,
    minFontSize,
    replay,
    seedOf,
    formatMS,
    formatBytes,
    matrixCellText,
    matrixCellLabel,
    groupDigits,
    nearestStep,
    config: CONFIG,
    // timings: the runtime's start-up phases (see worker.js), in ms since
    // this page's navigation started, and how the module came (info), once
    // it has loaded; for measurements.
    timings,
  };
  customElements.define("twice-playground", TwicePlayground);
}
