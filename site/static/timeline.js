// @ts-check
// timeline.js is the Timeline view of a block (Result.views.timeline): the
// run on its step axis (stepaxis.js: one column per step that reads or
// writes shared state, as the runtime lays it out), played with Play,
// a speed and a slider (player.js); or, on the time scale, the run drawn
// as SVG by the runtime on wall-clock time, with a cursor; and a step-through of
// the run's event trace (Back and Next, Left/Right/Home/End in the step
// area, a click on the picture) showing the tables as they stood after
// each step; for a load, which traces nothing, the load chart. What the
// tab can draw for a script, and the sentence above it, is the runtime's
// to say (views.timeline).
//
// The picture is drawn only when the tab is open: a run sent while
// another view shows comes without it, and the runtime, which kept that
// run, draws it when the tab opens (drawTimeline), so a first result
// waits for no SVG.

import { h, minFontSize, nearestStep, renderStep, timelineAlt } from "./render.js";
import { currentRuntime } from "./runtime-client.js";
import { quietStep } from "./classroom.js";
import { Player } from "./player.js";
import { StepAxis, visible } from "./stepaxis.js";

/** @typedef {import("./result-types.js").Result} Result */
/** @typedef {import("./playground.js").Block} Block */

// Timeline is the view: one per block.
export class Timeline {
  /**
   * @param {Block} block
   * @param {(what: string) => string} of names a region of this block
   * @param {{chartImg: HTMLImageElement}} output the Output view's chart, which the tab shows for a load
   */
  constructor(block, of, output) {
    this.block = block;
    this.output = output;
    /** @type {Record<string, any>} */
    this.ui = {};
    // step is the step shown; pendingStep, the step a link names, for the
    // run it starts.
    this.step = 0;
    this.pendingStep = 0;
    // kept is the run shown, as the runtime keeps it undrawn ({rt, id}), or null.
    /** @type {{rt: any, id: number} | null} */
    this.kept = null;
    this.tlSrc = "";
    this.dupShown = false;
    this.drawing = false;
    // scale is the axis the reader picked ("steps" or "time"), or "" for
    // the one the runtime opens the run on; every shows the folded steps.
    this.scale = "";
    this.every = false;
    this.axisShown = false;
    this.axis = new StepAxis({
      label: of("The race step by step"),
      onPick: (i) => {
        const tl = this.block.result && this.block.result.timeline;
        if (tl && tl.steps) this.goStep(tl.steps.steps[i].event);
      },
    });
    this.player = new Player({ steps: 0, label: "the race, step by step", onStep: (i) => this.playTo(i) });
    this.panel = this.build(of);
    this.wire();
  }

  /**
   * build builds the note, the picture with its cursor, the step-through,
   * and a load's chart.
   *
   * @param {(what: string) => string} of
   * @returns {HTMLElement}
   */
  build(of) {
    const ui = this.ui;
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
    ui.tlPanel = h("section", { class: "panel tl-panel" }, ui.tlNote, this.steps(of), ui.tlFig, ui.tlChart, this.stepper(of));
    return ui.tlPanel;
  }

  /**
   * steps builds the run on its step axis: the scale's switch, the
   * folded steps' checkbox, the picture and the player.
   *
   * @param {(what: string) => string} of
   * @returns {HTMLElement}
   */
  steps(of) {
    const ui = this.ui;
    ui.race = h("p", { class: "race-name" });
    ui.scaleSteps = h("button", { type: "button", class: "small sx-scale", "aria-pressed": "true", text: "Steps" });
    ui.scaleTime = h("button", { type: "button", class: "small sx-scale", "aria-pressed": "false", text: "Time" });
    ui.every = h("input", { type: "checkbox" });
    ui.everyCount = h("span");
    ui.everyLabel = h("label", { class: "sx-every" }, ui.every, document.createTextNode(" Show every step"), ui.everyCount);
    ui.scaleBar = h(
      "div",
      { class: "sx-bar", hidden: true },
      h("span", { role: "group", "aria-label": of("Timeline scale"), class: "sx-scales" }, h("span", { class: "sx-scale-name", text: "Scale:" }), ui.scaleSteps, ui.scaleTime),
      ui.everyLabel
    );
    ui.sxLegend = h("figcaption", { class: "tl-legend sx-legend" });
    ui.sxFig = h("figure", { class: "sx-fig", hidden: true }, this.axis.element, this.player.element, ui.sxLegend);
    ui.scaleSteps.addEventListener("click", () => this.pickScale("steps"));
    ui.scaleTime.addEventListener("click", () => this.pickScale("time"));
    ui.every.addEventListener("change", () => {
      this.every = ui.every.checked;
      this.render();
    });
    return h("div", { class: "sx-wrap" }, ui.race, ui.scaleBar, ui.sxFig);
  }

  /**
   * pickScale shows the run on the axis the reader picked.
   *
   * @param {string} scale "steps" or "time"
   */
  pickScale(scale) {
    this.player.pause();
    this.scale = scale;
    this.render();
    this.shown();
  }

  /**
   * playTo shows step i of the player: i steps of the axis taken (0:
   * before the first).
   *
   * @param {number} i
   */
  playTo(i) {
    const tl = this.block.result && this.block.result.timeline;
    if (!tl || !tl.steps) return;
    const cols = this.axis.cols;
    if (i === 0) this.goStep(cols.length ? tl.steps.steps[cols[0]].event - 1 : 0);
    else this.goStep(tl.steps.steps[cols[Math.min(i, cols.length) - 1]].event);
    this.axis.inView();
  }

  /**
   * stepper builds the step-through of the trace: Back and Next, the step
   * area (the event in words, what it changed, the tables as they stood)
   * and its live region.
   *
   * @param {(what: string) => string} of
   * @returns {HTMLElement}
   */
  stepper(of) {
    const ui = this.ui;
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

  // wire makes the step-through work: Back and Next, the arrow keys, Home
  // and End in the step area, and a click on the picture.
  wire() {
    const ui = this.ui;
    ui.prev.addEventListener("click", () => this.goStep(this.stepFrom(this.step, -1)));
    ui.next.addEventListener("click", () => this.goStep(this.stepFrom(this.step, 1)));
    ui.stepArea.addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
      // In a focused table (it scrolls on its own) the arrows scroll it.
      if (e.target !== ui.stepArea) return;
      const res = this.block.result;
      const last = (res && res.trace ? res.trace.length : 1) - 1;
      /** @type {Record<string, number>} */
      const moves = { ArrowRight: this.stepFrom(this.step, 1), ArrowLeft: this.stepFrom(this.step, -1), Home: 0, End: last };
      const to = moves[e.key];
      if (to === undefined || e.altKey || e.ctrlKey || e.metaKey) return;
      e.preventDefault();
      this.goStep(to);
    });
    // A click on the timeline jumps to the step drawn nearest to it; a
    // second click at the same place walks through the steps drawn there
    // (one instant can hold several). The buttons and keys stay the way
    // to step without a pointer.
    ui.tlInner.addEventListener("click", (/** @type {MouseEvent} */ e) => {
      const tl = this.block.result && this.block.result.timeline;
      const rect = ui.tlInner.getBoundingClientRect();
      if (!tl || !tl.event_x || !tl.event_x.length || rect.width <= 0) return;
      const k = nearestStep(tl.event_x, ((e.clientX - rect.left) / rect.width) * tl.width, this.step);
      this.goStep(k);
    });
  }

  /**
   * stepFrom is the step to go to from k in direction dir: the next one,
   * or, in the presenter view unless Every step is checked, the next one
   * that changes the tables (the last step if none does).
   *
   * @param {number} k
   * @param {number} dir
   * @returns {number}
   */
  stepFrom(k, dir) {
    const res = this.block.result;
    const trace = (res && res.trace) || [];
    if (!this.block.hasAttribute("present") || this.ui.everyStep.checked) return k + dir;
    let i = k + dir;
    while (i > 0 && i < trace.length - 1 && quietStep(trace[i])) i += dir;
    return i;
  }

  // render fills the view from the Result shown: the note, the picture
  // (or the load's chart) and the step-through at the step shown.
  render() {
    const ui = this.ui;
    const res = this.block.result;
    // What the tab can draw for this script is the runtime's to say.
    const view = res && res.views ? res.views.timeline : null;
    const chart = res && res.chart;
    ui.tlChart.hidden = !(view && view.chart && chart);
    if (chart && !ui.tlChart.hidden) {
      ui.tlChartImg.src = this.output.chartImg.src;
      ui.tlChartImg.width = chart.width;
      ui.tlChartImg.height = chart.height;
      ui.tlChartImg.alt = this.output.chartImg.alt;
    }
    ui.race.textContent = res && res.race ? "Showing " + res.race + "." : "";
    ui.race.hidden = !(res && res.race);
    if (!this.block.live || !res) {
      ui.scaleBar.hidden = true;
      ui.sxFig.hidden = true;
      // A load's chart is here already; a traced run needs a live one.
      const live = view && !view.trace ? "" : "The timeline and the step-through come from a run in your browser: press Run.";
      ui.tlNote.textContent = (view && view.note ? view.note + " " : "") + live;
      ui.tlFig.hidden = true;
      ui.stepper.hidden = true;
      return;
    }
    const trace = res.trace || [];
    const notes = view && view.note ? [view.note] : [];
    if (!this.picture(res) && !notes.length) {
      // A run kept undrawn has its picture drawn when the tab opens.
      notes.push(this.kept ? "Drawing the timeline…" : "No worker ran in this script, so there is no timeline to draw.");
    }
    ui.tlNote.textContent = notes.join(" ");
    ui.tlNote.hidden = notes.length === 0;
    this.drawSteps(res);
    ui.stepper.hidden = trace.length === 0;
    this.dupShown = false;
    if (trace.length) this.goStep(this.step);
    else ui.tlCursor.hidden = true;
    this.showDuplicate();
  }

  /**
   * drawSteps draws the run on its step axis when it has one, and shows
   * the scale picked: the step axis, or the time picture.
   *
   * @param {Result} res
   */
  drawSteps(res) {
    const ui = this.ui;
    const tl = res.timeline;
    const steps = tl && tl.steps;
    const scale = steps ? this.scale || steps.scale : "time";
    ui.scaleBar.hidden = !steps;
    ui.sxFig.hidden = !steps || scale !== "steps";
    if (steps) ui.tlFig.hidden = ui.tlFig.hidden || scale !== "time";
    ui.scaleSteps.setAttribute("aria-pressed", String(scale === "steps"));
    ui.scaleTime.setAttribute("aria-pressed", String(scale === "time"));
    ui.everyLabel.hidden = scale !== "steps";
    this.axisShown = !ui.sxFig.hidden;
    if (!steps) return;
    const folded = steps.steps.length - visible(steps, false).length;
    ui.everyCount.textContent = " (" + folded + " more)";
    ui.every.checked = this.every;
    this.axis.draw(steps, { every: this.every });
    this.player.setSteps(this.axis.cols.length);
    ui.sxLegend.textContent =
      "One column per step that reads or writes shared state, in the order the steps ran. " +
      "Shaded: a worker inside the side effect, from its claim to its ack. " +
      (this.every ? "Dashed: steps that touch nothing shared." : "Steps that touch nothing shared are folded.");
  }

  /**
   * picture shows the run's timeline, if it has one drawn, and reports
   * whether it had.
   *
   * @param {Result} res
   * @returns {boolean}
   */
  picture(res) {
    const ui = this.ui;
    const tl = res.timeline;
    if (!(tl && typeof tl.svg === "string" && /^<svg[\s>]/.test(tl.svg) && tl.width > 0)) {
      this.tlSrc = "";
      ui.tlImg.removeAttribute("src");
      ui.tlFig.hidden = true;
      return false;
    }
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
    ui.tlImg.alt = timelineAlt(res.trace || []);
    ui.tlFig.hidden = false;
    return true;
  }

  // open fills the view when the reader opens it: only a traced run needs
  // a live run for its picture, and a live run shown without one has it
  // drawn now.
  open() {
    const b = this.block;
    const traced = !(b.result && b.result.views && !b.result.views.timeline.trace);
    if (!b.live && !b.busy && traced) b.run();
    else if (b.live && traced && b.result && !b.result.timeline) this.drawTimeline();
    else this.render();
  }

  // ran follows a run of the block while the view shows: a run sent
  // before the tab opened (a link to the timeline) comes without its
  // picture, which is drawn now.
  ran() {
    if (this.block.result && !this.block.result.timeline) this.open();
  }

  // drawTimeline asks the runtime to draw the timeline of the run shown,
  // which it kept; when it no longer holds that run (Stop started a fresh
  // one, or another block ran since), the run is made again with its
  // timeline: the same script at the same seed gives the same run.
  async drawTimeline() {
    if (this.drawing) return;
    const res = this.block.result;
    const kept = this.kept;
    let drawn = null;
    if (kept && kept.rt === currentRuntime() && kept.rt.state === "ready") {
      this.drawing = true;
      try {
        drawn = await kept.rt.timeline(kept.id, this.block);
      } catch {
        drawn = null;
      } finally {
        this.drawing = false;
      }
    }
    if (this.block.result !== res || !res) return;
    this.kept = null;
    if (drawn && drawn.timeline) {
      res.timeline = drawn.timeline;
      this.render();
      this.shown();
    } else if (drawn) {
      this.render();
    } else {
      this.block.run();
    }
  }

  // shown decodes the picture, now that its panel shows, and brings its
  // first duplicate into view.
  shown() {
    const ui = this.ui;
    if (this.tlSrc && ui.tlImg.getAttribute("src") !== this.tlSrc) ui.tlImg.src = this.tlSrc;
    if (this.axisShown) {
      this.axis.refit();
      this.axis.inView();
    }
    else this.showDuplicate();
  }

  // showDuplicate scrolls a picture wider than its box (a phone) so that
  // the first duplicate is in view, once per run, when the tab is shown.
  showDuplicate() {
    const ui = this.ui;
    const tl = this.block.result && this.block.result.timeline;
    if (this.dupShown || !tl || !(tl.first_duplicate >= 0) || ui.tlPanel.hidden || ui.tlFig.hidden) return;
    const sc = ui.tlScroll;
    if (sc.clientWidth === 0) return;
    this.dupShown = true;
    const x = (tl.event_x || [])[tl.first_duplicate];
    if (typeof x !== "number") return;
    const px = (x / tl.width) * ui.tlInner.clientWidth;
    if (px > sc.scrollLeft + sc.clientWidth - 24 || px < sc.scrollLeft + 24) sc.scrollLeft = Math.max(0, px - sc.clientWidth / 2);
  }

  /**
   * follow moves the step axis and the player to trace step k: the last
   * step drawn at or before it.
   *
   * @param {number} k
   */
  follow(k) {
    const tl = this.block.result && this.block.result.timeline;
    const steps = tl && tl.steps;
    if (!steps || !this.axisShown) return;
    let at = -1;
    for (const [i, st] of steps.steps.entries()) if (st.event <= k) at = i;
    this.axis.show(at);
    this.player.set(this.axis.current + 1);
  }

  /**
   * goStep shows step k of the trace (clamped to it) and keeps the link to
   * the run pointing at it.
   *
   * @param {number} k
   */
  goStep(k) {
    const res = this.block.result;
    const trace = (res && res.trace) || [];
    if (!res || !trace.length) return;
    k = Math.max(0, Math.min(trace.length - 1, k));
    this.step = k;
    renderStep(this.ui, res, k);
    this.follow(k);
    if (this.block.view === "timeline") this.block.updateLink();
  }
}
