// @ts-check
// player.js is a small play control over a list of steps, as a
// simulation's page has one: a Play / Pause button, a speed select and a
// range slider from step 0 (before any step) to step n (after the last).
// It draws nothing of the steps themselves: it calls back with the step
// index to show, and the caller shows it.
//
//	const p = new Player({
//	  steps: 12,                   // n: the slider runs from 0 to n
//	  label: "the race, step by step", // names the group and its controls
//	  onStep(i) { ... },           // show step i; may return a Promise,
//	                               // which Play waits for before the next
//	  speeds: [{ label: "Slow", ms: 1600 }, { label: "Normal", ms: 900 }],
//	  speed: 1,                    // the index of the speed selected first
//	  onEnd() { ... },             // optional: Play reached step n
//	});
//	box.append(p.element);
//	p.set(i);        // move to step i without calling onStep (the caller
//	                 // already shows it, e.g. after a click of its own)
//	p.setSteps(n);   // a new number of steps (i is kept within 0..n)
//	p.play(); p.pause(); p.playing
//
// Play from the last step starts again from step 0. The slider, the
// button and the select are the browser's own controls, so they work by
// keyboard (Tab, Space, the arrow keys) and with a screen reader: the
// button says Play or Pause, the slider says "Step i of n". The pure
// part, Walk, touches no browser global: tests import it as is.

/** @typedef {{label: string, ms: number}} Speed */

/** @type {Speed[]} */
export const SPEEDS = [
  { label: "Slow", ms: 1600 },
  { label: "Normal", ms: 900 },
  { label: "Fast", ms: 400 },
];

// Walk is the player's state: the step it is at (i, 0 to n), whether it
// plays, and the timer of the next step. onStep(i) is called for each
// step Play takes or the reader picks; delay() is the time before the
// next; timers are setTimeout and clearTimeout, or a test's own.
export class Walk {
  /**
   * @param {{steps: number, onStep: (i: number) => any, delay: () => number, onEnd?: () => void, onChange?: () => void, timers?: {set: (f: () => void, ms: number) => any, clear: (t: any) => void}}} o
   */
  constructor(o) {
    this.n = Math.max(0, o.steps | 0);
    this.i = 0;
    this.playing = false;
    this.o = o;
    this.timers = o.timers || { set: (f, ms) => setTimeout(f, ms), clear: (t) => clearTimeout(t) };
    this.timer = null;
    // gen counts the plays and pauses: a step shown after a pause does
    // not schedule the next.
    this.gen = 0;
  }

  changed() {
    if (this.o.onChange) this.o.onChange();
  }

  play() {
    if (this.playing || this.n === 0) return;
    this.playing = true;
    this.gen++;
    this.changed();
    if (this.i >= this.n) {
      // From the end, Play starts again from the beginning.
      this.go(0, this.gen);
      return;
    }
    this.later(this.gen);
  }

  pause() {
    if (!this.playing) return;
    this.playing = false;
    this.gen++;
    this.timers.clear(this.timer);
    this.timer = null;
    this.changed();
  }

  toggle() {
    if (this.playing) this.pause();
    else this.play();
  }

  // later schedules the next step of play number gen.
  later(gen) {
    this.timers.clear(this.timer);
    this.timer = this.timers.set(() => {
      this.timer = null;
      if (gen === this.gen && this.playing) this.go(this.i + 1, gen);
    }, this.o.delay());
  }

  // go shows step i (of play number gen, or 0 for the reader's pick) and,
  // while playing, schedules the next once it is shown.
  go(i, gen) {
    this.i = Math.max(0, Math.min(this.n, i));
    this.changed();
    return Promise.resolve(this.o.onStep(this.i)).then(() => {
      if (!gen || gen !== this.gen || !this.playing) return;
      if (this.i >= this.n) {
        this.playing = false;
        this.changed();
        if (this.o.onEnd) this.o.onEnd();
        return;
      }
      this.later(gen);
    });
  }

  // pick is the reader's choice of step i (the slider): play stops.
  pick(i) {
    this.pause();
    return this.go(i, 0);
  }

  set(i) {
    this.i = Math.max(0, Math.min(this.n, i | 0));
    this.changed();
  }

  setSteps(n) {
    this.n = Math.max(0, n | 0);
    if (this.i > this.n) this.i = this.n;
    if (this.n === 0) this.pause();
    this.changed();
  }
}

// el makes an element with attributes (a null one left out).
function el(tag, attrs) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) e.setAttribute(k, String(v));
  return e;
}

// Player is the control: element holds it, Walk its state.
export class Player {
  /**
   * @param {{steps: number, label: string, onStep: (i: number) => any, speeds?: Speed[], speed?: number, onEnd?: () => void}} o
   */
  constructor(o) {
    const speeds = o.speeds && o.speeds.length ? o.speeds : SPEEDS;
    this.button = /** @type {HTMLButtonElement} */ (el("button", { type: "button", class: "small player-play" }));
    this.speed = /** @type {HTMLSelectElement} */ (el("select", { class: "player-speed", "aria-label": "Speed of play, " + o.label }));
    speeds.forEach((s, k) => {
      const opt = /** @type {HTMLOptionElement} */ (el("option", { value: String(k) }));
      opt.textContent = s.label;
      this.speed.append(opt);
    });
    this.speed.value = String(Math.min(speeds.length - 1, Math.max(0, o.speed === undefined ? Math.floor(speeds.length / 2) : o.speed)));
    this.slider = /** @type {HTMLInputElement} */ (el("input", { type: "range", class: "player-slider", min: "0", step: "1", "aria-label": "Step, " + o.label }));
    this.count = el("span", { class: "player-count", "aria-hidden": "true" });
    this.walk = new Walk({
      steps: o.steps,
      onStep: o.onStep,
      onEnd: o.onEnd,
      delay: () => (speeds[Number(this.speed.value)] || speeds[0]).ms,
      onChange: () => this.draw(),
    });
    this.element = el("div", { class: "player", role: "group", "aria-label": "Play " + o.label });
    this.element.append(this.button, this.speed, this.slider, this.count);
    this.button.addEventListener("click", () => this.walk.toggle());
    this.slider.addEventListener("input", () => this.walk.pick(Number(this.slider.value)));
    this.draw();
  }

  get playing() {
    return this.walk.playing;
  }

  get index() {
    return this.walk.i;
  }

  play() {
    this.walk.play();
  }

  pause() {
    this.walk.pause();
  }

  set(i) {
    this.walk.set(i);
  }

  setSteps(n) {
    this.walk.setSteps(n);
  }

  // draw shows the walk's state on the controls.
  draw() {
    const w = this.walk;
    this.button.textContent = w.playing ? "❚❚ Pause" : "▶ Play";
    this.button.disabled = w.n === 0;
    this.slider.max = String(w.n);
    this.slider.value = String(w.i);
    this.slider.disabled = w.n === 0;
    this.slider.setAttribute("aria-valuetext", "Step " + w.i + " of " + w.n);
    this.count.textContent = w.i + " / " + w.n;
    this.element.dataset.playing = w.playing ? "true" : "false";
  }
}
