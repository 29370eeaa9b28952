// @ts-check
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
// It is the rest of the element: the entry module, boot.js, defines the
// element with a Run button of its own and loads this module after the
// first result, when a reader reaches into a block, for a link to a run,
// or when the page is idle; upgrade then turns each block into the one
// described here, in place. The others: boot.js (the first stage), config.js (the config the loader hands boot.js), links.js (the
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
// The element is a coordinator: it holds the block's script, seed, claim
// and runs, and each view is a module of its own, one per view of the
// Result's views: output.js (Output), timeline.js (Timeline), compare.js
// (Compare), explore.js (Every ordering) and scheduler.js (Be the
// scheduler); embed.js holds the "Embed this block" snippets, controls.js
// builds the bar. In the order a reader meets it: setup reads the block
// (readBlock), builds the bar (controls.js) and mounts the views
// (mountViews: one mountView call per view, its tab and its panel), then
// wires the controls and the tabs (wireControls, wireTabs), shows what
// the server rendered (showFirst), starts the runtime when it is time
// (startRuntime) and replays a link to a run (replayLink). A view's hooks
// (open, shown, ran) are all that select, selectTab and a run know of it;
// a view asks the element for what the runtime decided it shows
// (viewsFor), sends its runs through it (request) and keeps its link up
// to date (updateLink). Below setup: runs (run, request, stop,
// runIfCheap) and the links (updateLink, linkTo).
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
// "Copy as command" (twice run --seed N -c '...'), "Copy as go run"
// (go run ./cmd/twice run ...) and "Embed this block" sit in the Share
// menu beside the output. Reset puts back the lesson's script, seed and
// pre-rendered output. Beside the seed, "New seed" and a strip of seeds
// 1 to 20, red where the seed gives a duplicate (one run per seed in the
// worker, once the reader reaches for the seeds), each one click to run;
// a rerun says when it gave the same result at the same seed.
//
// The block shows only the views and controls that apply to its script,
// as the runtime says it in the Result's views (quiet): a block that
// runs no race of its own has no Compare, Every ordering or Be the
// scheduler, a script with no claim no claim control.
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
import { MAX_SEED, claimWords, commandFor, embedIframe, linkHash, parseLink, routeOf, seedOf, shellQuote, toggleClaims, withClaim } from "./links.js";
import {
  announce,
  diagnosisPlan,
  formatBytes,
  formatMS,
  groupDigits,
  h,
  matrixCellLabel,
  matrixCellText,
  minFontSize,
  nearestStep,
  renderExplorations,
  replay,
  stoppedAfter,
} from "./render.js";
import { currentRuntime, getRuntime, timings } from "./runtime-client.js";
import { inViewport, nextBlock, observer, onDemand, scriptOf } from "./boot.js";
import { mountSeat } from "./scheduler.js";
import { installSwitches, loadPrediction, predicts, question, savePrediction } from "./classroom.js";
import { Predict } from "./predict.js";
import { Sliders } from "./sliders.js";
import { Output } from "./output.js";
import { Timeline } from "./timeline.js";
import { Compare } from "./compare.js";
import { Explore } from "./explore.js";
import { embedData, embedSnippets } from "./embed.js";
import { controlsBar, editor } from "./controls.js";
import { keepDrafts } from "./drafts.js";

/** @typedef {import("./controls.js").BarUI} BarUI */

/** @typedef {import("./result-types.js").ShownResult} ShownResult */
/** @typedef {import("./result-types.js").CompareView} CompareView */

/**
 * claimIn is the claim of the script of Result res, as the runtime says
 * it (views.compare.claim), or "" when res says none.
 *
 * @param {import("./result-types.js").Result | null} res
 * @returns {string}
 */
function claimIn(res) {
  return (res && res.views && res.views.compare && res.views.compare.claim) || "";
}

/**
 * Block is what a view knows of its block, the element: what it shows,
 * the fields it runs, and the ways to the runtime and to the link.
 *
 * @typedef {object} Block
 * @property {string} id
 * @property {string} label names the block's regions ("Lesson 4, script 1")
 * @property {string} view the key of the view shown
 * @property {import("./result-types.js").ShownResult | null} result the Result shown
 * @property {{script: string, seed: string} | null} ran the script and seed of the run shown
 * @property {boolean} live the run shown ran in this browser
 * @property {boolean} busy a run of the block's script is under way
 * @property {{script: HTMLTextAreaElement, seed: HTMLInputElement, status: HTMLElement}} ui the script box, the seed and the status region
 * @property {(name: string) => boolean} hasAttribute
 * @property {(name: string) => string | null} getAttribute
 * @property {() => Promise<void>} run runs the script in the box, as Run does
 * @property {(rt: any) => void} attach follows the runtime's loading in the block
 * @property {(rt: any, script: string, seed: string, timeline: boolean, key: string, auto?: boolean) => Promise<{json: string, ms: number, id: number}>} request sends one run of the block's to the runtime
 * @property {(seed: string) => boolean} seedOK
 * @property {(script: string) => Promise<import("./result-types.js").Views | null>} viewsFor what the runtime decided each view shows for script
 * @property {() => void} updateLink
 */

// Blocks scrolling into view start the download, and so does the pointer
// or the focus reaching a block's Run button, so that Run is quick. The
// first block, when it is in view as it is set up, starts it at once
// rather than when the observer first reports, a frame or more later;
// on the site's own pages the loader has usually started it long before
// (see twice.js), and the block finds the runtime there. (inViewport and
// the observer are boot.js's, which does the same for the first stage.)

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

// ---- the element ---------------------------------------------------------

// readBlock reads what the server (or an embedder) wrote in the element:
// the script, the pre-rendered Result if any, which controls to show, the
// lesson's seed and the block's label.
function readBlock(el, n) {
  const script = scriptOf(el);
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
    // What Run says before a run: "Run", or the block's run-label.
    runLabel: el.getAttribute("run-label") || "Run",
    // Landmarks and regions repeat in every block, so each carries the
    // block's label: "Diagnosis, Lesson 4, script 1".
    label: el.getAttribute("label") || (n > 1 ? "twice script " + n : "twice script"),
  };
}

class TwicePlayground extends HTMLElement {
  // The block's parts and state, set by setup and its runs.
  /** @type {BarUI} */ ui;
  /** @type {string} */ label;
  /** @type {HTMLElement} */ box;
  /** @type {{key: string, tab: HTMLButtonElement, panel: HTMLElement, open?: (quiet?: boolean) => void, shown?: () => void, ran?: () => void}[]} */ views;
  /** @type {Output} */ output;
  /** @type {Timeline} */ timeline;
  /** @type {Compare} */ compare;
  /** @type {Explore} */ explore;
  /** @type {number} */ seq;
  /** @type {number} the claim toggle's picks, the last of which wins */ claimSeq;
  /** @type {ReturnType<typeof setTimeout> | undefined} */ claimTimer;
  /** @type {string} the key of the view shown */ view;
  /** @type {string} the lesson's script, which the server's cost attribute is about */ ownScript;
  /** @type {string} */ defaultSeed;
  /** @type {string} */ runLabel;
  /** @type {ShownResult | null} the Result the server rendered */ prerendered;
  /** @type {ShownResult | null} the Result shown */ result;
  /** @type {{script: string, seed: string} | null} the script and seed of the Result shown */ ran;
  /** @type {boolean} the Result shown ran in this browser */ live;
  /** @type {boolean} */ busy;
  /** @type {any} the runtime the block follows */ rt;
  /** @type {boolean} the next run is held to the runtime's small budget */ auto;
  /** @type {boolean} */ predicting;
  /** @type {boolean} */ revealed;
  /** @type {string | undefined} the reader's prediction; "" for none */ predicted;
  /** @type {{kind: string, text: string, of?: number}} */ question;
  /** @type {Predict} the form that asks, and the guess beside the result */ predict;
  /** @type {Sliders | null} the sliders of the script's numbers, if any */ sliders;
  /** @type {string[] | null} a schedule a link names, for Be the scheduler */ pendingSchedule;
  /** @type {Record<string, boolean> | undefined} the views that apply to the script shown (see quiet) */ applies;
  /** @type {object} the owner of the strip's runs, apart from the block's own (see fillStrip) */ stripOwner;
  /** @type {string | null} the script the strip of seeds is of */ stripScript;
  /** @type {boolean} the reader has reached for the seeds: the strip is filled after each run */ stripOn;
  /** @type {{edited: () => void, reset: () => void}} the reader's edits, kept (drafts.js) */ drafts;

  /** @type {any} the first stage's parts (boot.js), until setup */ first;

  // setup upgrades the block: it builds the controls and mounts the views
  // in its shadow root, wires them, shows what the server rendered, starts
  // the runtime's download when it is time, and replays a link to a run
  // of this block. A block in its first stage (boot.js) keeps its number,
  // its shadow root and stylesheet, and a run its Run sent is taken over.
  setup() {
    const first = this.first;
    this.first = null;
    const block = readBlock(this, first ? first.n : nextBlock());
    this.label = block.label;
    const root = this.shadowRoot || this.attachShadow({ mode: "open" });
    root.replaceChildren(first ? first.link : h("link", { rel: "stylesheet", href: assetURL(CONFIG.css) }));
    const ui = (this.ui = /** @type {BarUI} */ ({}));
    controlsBar(ui, block);
    editor(ui, block);
    this.predict = new Predict(this);
    this.sliders = this.hasAttribute("sliders") ? new Sliders(this) : null;
    this.box = h("div", { class: "box" }, ui.bar, ui.script, ui.loading, this.predict.form);
    if (this.sliders) this.box.insertBefore(this.sliders.box, ui.script);
    this.mountViews();
    const embed = this.getAttribute("embed");
    const o = { seed: block.defaultSeed, controls: this.getAttribute("controls"), label: this.getAttribute("label"), id: this.id };
    if (embed) this.output.ui.sharePanel.append(embedSnippets(embed, this.getAttribute("plain") || block.script, o));
    root.append(this.box);
    this.seq = 0;
    this.claimSeq = 0;
    this.view = "output";
    this.id = this.id || "twice-" + block.n;
    this.ownScript = block.script; // what the server's cost attribute is about
    this.defaultSeed = block.defaultSeed;
    this.runLabel = block.runLabel;
    this.prerendered = block.prerendered;

    this.wireControls();
    this.wireTabs();
    this.showFirst(block);
    this.drafts = keepDrafts(this); // the reader's edit kept from before a reload
    this.startRuntime(block.n);
    if (first && first.pending) this.run(first.pending);
    this.replayLink();
  }

  // ---- the views: each a tab and its panel ----

  // mountViews mounts every view of the block, in the order of its tabs:
  // Output first and selected, the rest one click away. Each view is a
  // module of its own, one per view of the Result's views (output.js,
  // timeline.js, compare.js, explore.js, scheduler.js), and one call of
  // mountView here.
  mountViews() {
    const ui = this.ui;
    const of = (/** @type {string} */ what) => what + ", " + this.label;
    ui.tablist = h("div", { class: "tabs", role: "tablist", "aria-label": of("Views of the run") });
    ui.tabs = {};
    this.views = [];
    this.box.append(ui.tablist);
    this.output = new Output(this, of, this.predict.yours);
    this.timeline = new Timeline(this, of, this.output);
    this.compare = new Compare(this);
    this.explore = new Explore(this);
    ui.seat = mountSeat(this, this.label, getRuntime);
    this.mountView("output", "Output", this.output.panel, {});
    this.mountView("timeline", "Timeline", this.timeline.panel, this.timeline);
    this.mountView("compare", "Compare", this.compare.panel, this.compare);
    this.mountView("interleavings", "Every ordering", this.explore.panel, this.explore, "Orderings");
    this.mountView(
      "scheduler",
      "Be the scheduler",
      ui.seat.panel,
      {
        open: () => this.seat(),
        ran: () => this.seat(),
      },
      "Scheduler"
    );
  }

  // mountView adds a view: its tab after the others, its panel after
  // theirs, and what it does when the reader opens it (open, with quiet
  // when the caller fills it itself), whenever its panel is shown (shown)
  // and after each run of the block while it is the view shown (ran).
  // Its key names it in links to a run (view=KEY); short, if given, is
  // its name on a phone, where five tabs' full names do not fit one row.
  mountView(key, name, panel, hooks, short) {
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
      text: short ? null : name,
    });
    if (short) tab.append(h("span", { class: "tab-long", text: name }), h("span", { class: "tab-short", text: short }));
    ui.tabs[key] = tab;
    ui.tablist.append(tab);
    panel.id = "panel-" + key;
    panel.setAttribute("role", "tabpanel");
    panel.setAttribute("aria-labelledby", "tab-" + key);
    panel.hidden = this.views.length > 0;
    this.box.append(panel);
    this.views.push({ key, tab, panel, open: hooks.open && hooks.open.bind(hooks), shown: hooks.shown && hooks.shown.bind(hooks), ran: hooks.ran && hooks.ran.bind(hooks) });
  }

  // ---- what the controls do ----

  // wireControls makes the bar and the script box work: Run and Stop,
  // Ctrl+Enter, the claim control, the seed, "Check every interleaving",
  // Reset and the prediction.
  wireControls() {
    const ui = this.ui;
    ui.run.addEventListener("click", () => this.press());
    ui.stop.addEventListener("click", () => this.stop());
    ui.reset.addEventListener("click", () => this.reset());
    ui.script.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        this.press();
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
        this.press();
      }
    });
    for (const r of ui.claims || []) {
      r.addEventListener("change", () => {
        if (r.checked) this.toggleClaim(r.value);
      });
    }
    this.output.ui.explore.addEventListener("click", () => {
      this.select("interleavings", true);
      this.explore.explore(true, true);
    });
    this.wireSeeds();
    this.predict.form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.predicted = this.predict.value();
      if (!savePrediction(this.id, this.predicted, ui.script.value)) this.run();
    });
  }

  // wireSeeds makes New seed and the strip of seeds work: a click runs a
  // seed, arrow keys move along the strip (one stop in the Tab order).
  wireSeeds() {
    const ui = this.ui;
    // The strip is filled once the reader reaches for the seeds (the
    // pointer or the focus in the seed's group), not for every block
    // read: its runs would hold the worker for nobody.
    const reach = () => {
      if (this.stripOn) return;
      this.stripOn = true;
      this.fillStrip(this.ran ? this.ran.script : ui.script.value);
    };
    ui.seedGroup.addEventListener("pointerenter", reach);
    ui.seedGroup.addEventListener("focusin", reach);
    ui.newSeed.addEventListener("click", () => {
      // Any seed but the one shown; the strip's seeds are one click away.
      let seed;
      do seed = String(1 + Math.floor(Math.random() * 999999));
      while (this.ran && seed === this.ran.seed);
      ui.seed.value = seed;
      this.stripOn = true;
      this.run();
    });
    ui.strip.addEventListener("keydown", (e) => {
      const seeds = ui.stripSeeds;
      let i = seeds.findIndex((b) => b === /** @type {ShadowRoot} */ (ui.strip.getRootNode()).activeElement);
      if (i < 0) return;
      if (e.key === "ArrowRight") i = (i + 1) % seeds.length;
      else if (e.key === "ArrowLeft") i = (i + seeds.length - 1) % seeds.length;
      else if (e.key === "Home") i = 0;
      else if (e.key === "End") i = seeds.length - 1;
      else return;
      e.preventDefault();
      for (const b of seeds) b.tabIndex = b === seeds[i] ? 0 : -1;
      seeds[i].focus();
    });
    for (const b of ui.stripSeeds) {
      b.addEventListener("click", () => {
        ui.seed.value = b.dataset.seed || "";
        this.stripOn = true;
        this.run();
      });
    }
  }

  // wireTabs makes the tabs work, by pointer, and by arrow keys, Home and
  // End; each view wires its own controls.
  wireTabs() {
    const ui = this.ui;
    for (const v of this.views) v.tab.addEventListener("click", () => this.select(v.key));
    ui.tablist.addEventListener("keydown", (e) => {
      const keys = this.views.filter((v) => !v.tab.hidden).map((v) => v.key);
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
  }

  // showFirst shows the block as the page opens: the Output view with
  // what the server rendered (or, for a block pasted elsewhere, what its
  // embed page holds), the claim and workers of the script, the
  // prediction asked for, and the matrix cell the history entry had open.
  showFirst(block) {
    const pre = block.prerendered;
    // Until a Result says the script's claim (none came with the page,
    // or the script did not parse), the default claim is checked.
    this.setClaim(claimIn(pre) || (toggleClaims()[0] || { name: "" }).name);
    this.quiet(pre);
    this.explore.own(pre);
    this.selectTab("output");
    this.fit();
    this.showOwn();
    // A block may open on another view (the block option view=NAME); the
    // board opens on its own terms, once in view (openBoard, below).
    const first = this.getAttribute("view");
    if (first && first !== "output" && first !== "scheduler" && this.viewOf(first)) this.select(first);
    this.question = question(pre);
    const kept = loadPrediction(this.id);
    this.predict.ask(this.question, kept ? kept.value : "");
    this.setPredicting(predicts(this));
    if (block.n === 1) installSwitches();
    // A block pasted into a page elsewhere with the script tag names the
    // embed page it came from: its pre-rendered output is read from there.
    const from = this.getAttribute("from");
    if (!pre && from) this.fetchPrerendered(from, block.script, block.defaultSeed);
    this.timeline.render();
    if (this.getAttribute("view") === "scheduler") this.openBoard();
    // A reload or a return to the page keeps the cell its history entry had open.
    if (pre && (pre.matrices || []).length && history.state) this.output.fromHistory(history.state);
  }

  // startRuntime attaches the block to the page's runtime if there is one
  // (the loader's early worker, adopted in start, or one another block
  // started); else it starts the runtime's download now if this is the
  // first block and it is in view, else when it scrolls into view or the
  // pointer or the focus reaches its Run button.
  startRuntime(n) {
    const ui = this.ui;
    if (currentRuntime()) this.attach(currentRuntime());
    else if (onDemand()) {
      // started by Run's pointer, focus or press (below)
    } else if (n === 1 && inViewport(this)) getRuntime();
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
    // A link read, or why it cannot be (unread, error): see links.js.
    const shared = /** @type {any} */ (parseLink(location.hash, this.id, this.views.map((v) => v.key)));
    if (!shared) return;
    // In a frame (an embed page on another site's page), scrollIntoView
    // would scroll the page around it too: the reader of a post with
    // framed blocks would land on the last of them.
    if (window.parent === window) requestAnimationFrame(() => this.scrollIntoView());
    else requestAnimationFrame(() => scrollTo(0, this.getBoundingClientRect().top + scrollY));
    if (shared.unread) {
      this.showError("This link cannot be read: " + shared.error + ". Nothing ran.");
      return;
    }
    ui.script.value = shared.script;
    this.fit();
    ui.seed.value = shared.seed;
    if (shared.claim) this.setClaim(shared.claim);
    if (shared.workers) this.explore.setWorkers(shared.workers, true);
    this.timeline.pendingStep = shared.step - 1;
    this.pendingSchedule = shared.schedule;
    if (shared.pair) this.compare.picked = shared.pair;
    if (shared.error) {
      this.showError("This link has a bad value: " + shared.error + ". Nothing ran; fix it in the fields above and press Run.");
      return;
    }
    // A link to the block's own script (or its plain form) at its own
    // seed, on the Output view, is the run the server rendered, already
    // shown: a block pasted elsewhere comes so, in a frame of this page
    // (see frame.js).
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
    this.predicting = on;
    const ask = on && !this.revealed;
    this.box.classList.toggle("predicting", ask);
    this.predict.showAsking(ask);
    if (!on) this.predict.hideResult();
  }

  // showOwn shows what the server rendered for the lesson's own script, or,
  // without it, an invitation to press Run.
  showOwn() {
    const pre = this.prerendered;
    if (pre) {
      this.live = false;
      this.ran = { script: this.ownScript, seed: pre.seedText || String(this.defaultSeed) };
      this.render(pre, "Output at seed " + this.ran.seed + ", rendered on the server. Press Run to run it in your browser.");
      this.setState("prerendered");
    } else {
      this.blank("Press Run to run this script in your browser.");
      this.output.ui.share.hidden = true;
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
    ui.run.textContent = this.runLabel;
    ui.script.value = this.ownScript;
    ui.seed.value = this.defaultSeed;
    this.setClaim(claimIn(this.prerendered));
    this.compare.picked = null;
    this.explore.own(this.prerendered);
    this.removeAttribute("heavy");
    this.fit();
    this.timeline.step = 0;
    this.showOwn();
    this.timeline.render();
    this.selectTab("output");
    this.revealed = false;
    this.predicted = undefined; // asks again
    this.predict.hideResult();
    if (this.sliders) this.sliders.read();
    this.setPredicting(this.predicting);
    ui.status.textContent = "Reset to the lesson's script" + (this.defaultSeed ? " and seed " + this.defaultSeed : "") + ".";
    this.drafts.reset();
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
    this.output.ui.out.setAttribute("aria-busy", s === "loading" || s === "running" ? "true" : "false");
  }

  // offClaims disables each claim of the claim control whose script the
  // runtime says cannot run (a limit it passes: CompareSide.off), its
  // title saying why; the others are on.
  offClaims(claims) {
    const toggle = (claims && claims.toggle) || [];
    for (const r of this.ui.claims || []) {
      const side = toggle.find((s) => s.claim === r.value);
      r.disabled = !!(side && side.off);
      /** @type {HTMLElement} */ (r.parentElement).title = side && side.off ? "Off for this script: " + side.off : claimWords(r.value);
    }
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
    if (this.claimOff(shown, claim)) return;
    if (shown) {
      this.putScript(withClaim(shown, claim));
      this.press();
      return;
    }
    const state = this.getAttribute("state");
    this.setState("running");
    ui.status.textContent = "Setting the claim in the script…";
    this.claimsOf(script, "toggle").then((claims) => {
      if (seq !== this.claimSeq) return; // a later pick runs instead
      if (this.claimOff(claims, claim)) {
        this.setState(state);
        return;
      }
      if (ui.script.value === script) this.putScript(withClaim(claims, claim));
      this.press();
      if (!this.busy && this.getAttribute("state") === "running") this.setState(state); // it asked for a prediction first
    });
  }

  // claimOff reports whether claim is off for the script claims are of
  // (see offClaims): the block then says why, runs nothing and keeps
  // the claim it had.
  claimOff(claims, claim) {
    const side = claims && (claims.toggle || []).find((s) => s.claim === claim);
    if (!side || !side.off) return false;
    this.ui.status.textContent = "The claim " + claim + " is off for this script: " + side.off + ".";
    this.setClaim(claims.claim);
    this.offClaims(claims);
    return true;
  }

  // putScript puts script in the box, unless it is null.
  putScript(script) {
    if (script === null) return;
    this.ui.script.value = script;
    this.fit();
    this.drafts.edited();
  }

  // shownClaims is the claims of the Result shown (views.compare) when it
  // is a run of script, else null.
  /**
   * @param {string} script
   * @returns {CompareView | null}
   */
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
      if (claims && !claims.error && this.ui.script.value === script) {
        this.setClaim(claims.claim);
        this.offClaims(claims);
      }
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
      /** @type {ChildNode} */ (ui.loading.lastChild).textContent = loadingText(rt.loaded, rt.total, rt.wire);
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
    this.showTabs();
    const v = this.viewOf(view);
    if (v && v.shown) v.shown();
  }

  // quiet keeps to the views and controls that apply to the script of
  // Result res, as the runtime says it (res.views): Compare, Every
  // ordering and "Check every interleaving" where the script races
  // workers of its own (views.explore.own), Be the scheduler where the
  // runtime can play that race, the Timeline where a worker's steps or a
  // load are drawn, and the claim control where the script has a claim
  // to set. Without a Result, only Output and Timeline show.
  quiet(res) {
    const v = res && res.views;
    const race = !!(v && v.explore && v.explore.own);
    this.applies = {
      output: true,
      timeline: !v || !!(v.timeline && (v.timeline.trace || v.timeline.chart)),
      compare: race,
      interleavings: race,
      scheduler: race && !!(v && v.scheduler && v.scheduler.script),
    };
    if (this.ui.claim && v) this.ui.claim.hidden = !(v.compare && (v.compare.toggle || []).length);
    this.output.ui.explore.hidden = !(race && res && (res.races || []).length);
    // A matrix runs a range of seeds itself: one seed of it says little.
    this.ui.strip.hidden = !!(res && (res.matrices || []).length);
    this.showTabs();
  }

  // showTabs shows the tabs of the views that apply (see quiet), and the
  // one shown whatever it is (a link may open any); a single tab is no
  // choice, so the row goes.
  showTabs() {
    const applies = this.applies || {};
    let shown = 0;
    for (const v of this.views) {
      v.tab.hidden = !(applies[v.key] || v.key === this.view);
      if (!v.tab.hidden) shown++;
    }
    this.ui.tablist.hidden = shown < 2;
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
    return this.track(rt, rt.run(script, seed, timeline, this, key, auto));
  }

  // track shows Stop while p, a run of this block's on rt, and any other
  // of its runs are in flight.
  track(rt, p) {
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

  // blank shows no run: the Output panel down to heading, and the
  // timeline with nothing drawn.
  blank(heading) {
    this.result = null;
    this.ran = null;
    this.live = false;
    this.output.blank(heading);
    this.timeline.render();
  }

  // died shows that the runtime died during this block's run: in words,
  // with the worker already freed and Run ready to start a fresh one.
  died(message) {
    const ui = this.ui;
    this.blank("No output: " + message + ". Its memory has been freed; Run again starts a fresh runtime.");
    this.output.ui.error.textContent = "The runtime stopped during this run (out of memory or a crash).";
    this.output.ui.error.hidden = false;
    ui.status.textContent = "The runtime stopped. Run again starts a fresh one.";
    ui.run.textContent = "Run again";
    this.setState("error");
  }

  // runIfCheap calls go unless the parser estimates script as heavy (many
  // races, explored states or load jobs): a link or an embed must not
  // take a reader's tab on load. A heavy script waits for a press of Run.
  runIfCheap(script, go0) {
    const rt = getRuntime();
    this.attach(rt);
    // The run go starts, and only that one, is held to the runtime's small
    // budget: a press of Run meanwhile or after is the reader's, in full.
    const go = () => {
      this.auto = true;
      go0();
    };
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
    this.output.ui.heading.textContent = what
      ? "This script is heavy (" + what + "), so it did not run on its own. Press Run to run it; Stop ends it."
      : "This script is heavy, so it did not run on its own. Press Run to run it; Stop ends it.";
    ui.status.textContent = "Waiting for Run.";
    this.setAttribute("heavy", "");
    this.setState(pre ? "prerendered" : "idle");
  }

  // ---- the main run ----

  // press is Run pressed by the reader (the button, Ctrl+Enter, Enter in
  // the seed, a claim picked): a block that asks first asks, once, and a
  // second press runs without a guess. Every other run (a view that needs
  // one, a link, a slider) goes ahead, and shows the answer.
  press() {
    if (this.predicting && !this.revealed && this.predicted === undefined) {
      this.predicted = "";
      this.predict.focus();
      this.ui.status.textContent = "Predict first: pick your answer and press Predict and run. Run again runs without one.";
      return;
    }
    this.run();
  }

  // run runs the script in the box at the seed in the field; or, given
  // sent ({script, seed, sent, reply}: a run the first stage's Run sent,
  // see boot.js), follows that one.
  async run(sent) {
    const ui = this.ui;
    const seq = ++this.seq;
    const script = sent ? sent.script : ui.script.value;
    const seed = sent ? sent.seed : ui.seed.value.trim();
    if (!sent && !this.seedOK(seed)) return;
    const rt = getRuntime();
    this.attach(rt);
    this.busy = true;
    this.setState(rt.state === "ready" ? "running" : "loading");
    ui.status.textContent = rt.state === "ready" ? "Running…" : "Loading the runtime…";
    ui.run.setAttribute("aria-busy", "true");
    ui.run.textContent = this.runLabel;
    const auto = this.auto === true;
    this.auto = false;
    const at = sent ? sent.sent : performance.now();
    try {
      // The timeline is drawn only when its tab is open (or opens: see
      // timeline.js), so a first result waits for no SVG.
      const m = await (sent ? this.track(rt, sent.reply) : this.request(rt, script, seed, this.view === "timeline", "main", auto));
      if (seq !== this.seq) return;
      const res = JSON.parse(m.json);
      this.timeline.kept = res.timeline ? null : { rt, id: m.id };
      if (auto && res.heavy) {
        // It ran out of the budget for runs nobody asked for: not a
        // result, and not to be shown as one. What ran out, briefly.
        this.heavy(res.error && res.error.msg ? res.error.msg.replace(/\s*\(.*$/, "") : "");
        return;
      }
      this.removeAttribute("heavy");
      const ms = m.ms < 10 ? m.ms.toFixed(1) : Math.round(m.ms);
      const before = this.result && this.ran ? { ...this.ran, text: (this.result.transcript || []).join("\n"), headline: this.result.outcome ? this.result.outcome.headline : "" } : null;
      this.live = true;
      this.ran = { script, seed: seedOf(m.json, res) };
      this.render(res, "Output at seed " + this.ran.seed + ", run in your browser.");
      if (this.predicting && !this.revealed) {
        this.revealed = true;
        this.setPredicting(true);
        this.predict.showResult(this.question, this.predicted || "", res);
      }
      this.timeline.step = this.timeline.pendingStep > 0 ? this.timeline.pendingStep : 0;
      this.timeline.pendingStep = 0;
      this.timeline.render();
      if (res.error) this.setState("error");
      else this.setState("done");
      // The bar shows the time; the live region also says the outcome
      // (for the eye, the tally and the diagnosis are just below).
      const said = res.error ? "Failed: " + this.output.ui.error.textContent : announce(res, ms, this.output.ui.lease);
      const shown = res.error ? "Failed." : "Done in " + ms + " ms.";
      ui.status.replaceChildren(shown, h("span", { class: "sr", text: said.slice(shown.length) }));
      if (!res.error) this.sayAgain(before, res);
      this.fillStrip(script);
      const open = this.viewOf(this.view);
      if (open && open.ran) open.ran();
    } catch (e) {
      if (seq !== this.seq) return;
      if (e.stopped) this.stopped(script, seed, performance.now() - at, e.ran);
      else if (e.died) this.died(e.message);
      else this.showError(e.message);
    } finally {
      if (seq === this.seq) {
        ui.run.removeAttribute("aria-busy");
        ui.ran.hidden = true;
        this.busy = false;
        if (this.sliders) this.sliders.ran();
      }
    }
  }

  // sayAgain says, beside the time, how the run shown compares with the
  // one it replaced (before: its script, seed, transcript and outcome):
  // a rerun at the same seed gives the same bytes, and the block says so;
  // another seed or script that changed the outcome says what it was,
  // and marks the tally that changed.
  sayAgain(before, res) {
    const ui = this.ui;
    const ran = /** @type {{script: string, seed: string}} */ (this.ran);
    const again = h("span", { class: "again" });
    const headline = res.outcome ? res.outcome.headline : "";
    const tally = this.output.ui.tally;
    tally.classList.remove("changed");
    if (!before) return;
    if (before.script === ran.script && before.seed === ran.seed) {
      const same = before.text === (res.transcript || []).join("\n");
      again.textContent = same ? " Same seed, same result." : " Same seed, but the output differs.";
      again.classList.add(same ? "same" : "changed");
    } else if (before.headline && headline && before.headline !== headline) {
      again.textContent = " Changed: " + headline + " (was " + before.headline + ").";
      again.classList.add("changed");
      tally.classList.add("changed");
    } else if (before.headline === headline && headline) {
      again.textContent = " Same outcome as " + (before.script === ran.script ? "seed " + before.seed : "before") + ".";
    }
    if (again.textContent) ui.status.insertBefore(again, ui.status.querySelector(".sr"));
  }

  // fillStrip colours the strip of seeds for script: one run per seed in
  // the worker, one at a time (a Run the reader presses waits behind one
  // at most), held to the runtime's small budget; a seed whose run passes
  // it, or fails, stays uncoloured. It runs once per script, once the
  // reader has reached for the seeds (stripOn); the seed shown is marked
  // whatever the script.
  async fillStrip(script) {
    const ui = this.ui;
    const shown = this.ran ? this.ran.seed : "";
    const active = ui.strip.contains(/** @type {ShadowRoot} */ (ui.strip.getRootNode()).activeElement);
    if (ui.stripSeeds.some((b) => b.dataset.seed === shown) && !active) for (const b of ui.stripSeeds) b.tabIndex = b.dataset.seed === shown ? 0 : -1;
    for (const b of ui.stripSeeds) b.setAttribute("aria-pressed", b.dataset.seed === shown ? "true" : "false");
    if (!this.stripOn || ui.seedGroup.hidden || ui.strip.hidden || this.stripScript === script) return;
    this.stripScript = script;
    for (const b of ui.stripSeeds) {
      delete b.dataset.dup;
      b.setAttribute("aria-label", "Seed " + b.dataset.seed);
    }
    const owner = (this.stripOwner = {});
    ui.strip.dataset.state = "running";
    ui.strip.setAttribute("aria-busy", "true");
    const rt = getRuntime();
    for (const b of ui.stripSeeds) {
      let res;
      try {
        res = JSON.parse((await rt.run(script, b.dataset.seed, false, owner, "strip", true)).json);
      } catch {
        res = null;
      }
      if (this.stripOwner !== owner) return; // another script's strip replaced this one
      if (res && res.heavy) break; // too heavy for runs nobody pressed Run for: left uncoloured
      if (!res || res.error || !res.outcome) continue;
      const dup = res.outcome.duplicates > 0;
      b.dataset.dup = dup ? "true" : "false";
      b.setAttribute("aria-label", "Seed " + b.dataset.seed + ": " + (dup ? "duplicates" : "no duplicate"));
      b.title = "Seed " + b.dataset.seed + ": " + res.outcome.headline;
    }
    ui.strip.setAttribute("aria-busy", "false");
    ui.strip.dataset.state = "done";
  }

  // showError says msg as the run's error, and that it failed.
  showError(msg) {
    this.output.ui.error.textContent = msg;
    this.output.ui.error.hidden = false;
    this.ui.status.textContent = "Failed.";
    this.setState("error");
  }

  // updateLink points "Link to this run" at the run shown, with the view
  // (and step) the reader is looking at.
  updateLink() {
    if (!this.ran) return;
    this.output.showLink(this.linkTo(this.view, this.ui.seat.schedule));
  }

  // linkTo is the link to the run shown, opening view (with the step,
  // workers or schedule the reader is at).
  linkTo(view, schedule) {
    return linkHash(this.id, {
      route: routeOf(location.hash),
      seed: this.ran ? this.ran.seed : this.defaultSeed,
      script: this.ran ? this.ran.script : this.ui.script.value,
      claim: this.ran ? claimIn(this.result) : "",
      view,
      step: this.timeline.step + 1,
      workers: this.explore.workers(),
      pair: this.compare.picked,
      schedule,
    });
  }

  // render shows a Result in the Output panel (see renderOutput); a matrix
  // cell's button opens its script in a block of its own under the matrix.
  render(res, heading) {
    this.result = res;
    this.quiet(res);
    this.setClaim(claimIn(res));
    this.offClaims(res.views && res.views.compare);
    this.output.render(res, heading);
    this.updateLink();
  }

  // copy puts text on the clipboard, or shows it to copy (see output.js);
  // btn says which happened.
  copy(btn, text) {
    return this.output.copy(btn, text);
  }

  // ---- the views of the script ----

  // viewsFor returns what the runtime decided each view shows for the
  // script in the editor (Result.views): from the run shown when it ran
  // this script, else from a run of it now.
  async viewsFor(script) {
    const fresh = () => this.result && this.result.views && this.ran && this.ran.script === script;
    if (!fresh()) await this.run();
    const res = this.result;
    return res && fresh() ? res.views : null;
  }

  // seat opens Be the scheduler on the race the runtime says this block
  // has (views.scheduler), replaying a linked schedule once, or playing
  // the runtime's ordering once where the block asks (openBoard).
  async seat() {
    const schedule = this.pendingSchedule;
    this.pendingSchedule = null;
    const autoplay = this.autoplay && !schedule;
    this.autoplay = false;
    const views = await this.viewsFor(this.ui.script.value);
    this.ui.seat.open(views && views.scheduler, schedule, autoplay);
  }

  // openBoard opens a block with view=scheduler on its board, filled
  // (a run of the race) once the block comes into view; with play, the
  // board then plays the runtime's ordering.
  openBoard() {
    this.selectTab("scheduler");
    const fill = () => {
      if (this.view !== "scheduler") return;
      this.autoplay = this.hasAttribute("play");
      this.seat();
    };
    if (typeof IntersectionObserver === "undefined") return fill();
    const io = new IntersectionObserver((es) => {
      if (!es.some((e) => e.isIntersecting)) return;
      io.disconnect();
      fill();
    });
    io.observe(this);
  }

}

// upgrade turns el, a <twice-playground> that boot.js defined (in its
// first stage, or connected after this module loaded), into the block
// described above, in place: the same element, with this class's methods.
export function upgrade(el) {
  Object.setPrototypeOf(el, TwicePlayground.prototype);
  el.setup();
}

// Exposed for tests and for pages that build scripts themselves.
Object.assign(/** @type {any} */ (window).TwicePlayground || {}, {
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
});
