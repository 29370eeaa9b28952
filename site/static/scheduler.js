// @ts-check
// scheduler.js is the "Be the scheduler" view of a block, drawn as a
// board: a column per worker holding its whole program, the shared rows
// between the columns and the effects below. The reader picks which
// worker takes its next atomic step, one click on its column or one key
// at a time, and tries to make two effects land for one job; or plays
// the runtime's ordering with the player (player.js). Each step runs the
// block's race with the schedule so far (race CLAIM --schedule
// W1,W2,... and the race's flags, as the runtime's views.scheduler
// writes it) through the page's runtime; the Result's schedule says the
// steps taken (each with the program line it ran), each worker's program
// (the explorer's own steps, never a list written here) with the line it
// runs next, the shared tables as they stand, the outcome once every
// worker is done, the explorer's counts for the race (orderings, those
// that duplicate, the shortest that does) and the ordering to play.
// Undo runs the shorter prefix; runs are cached per prefix, so Undo,
// Restart and the player's slider cost nothing once a prefix ran.
//
// The view never says in advance whether the claim can be broken: the
// explorer's proof that no ordering duplicates is shown only once the
// reader has played an ordering to its end.
//
// Keys, while the focus is in the view: 1 to 9 pick a worker, Backspace
// undoes. The view's status region says each step and the outcome. Each
// column is a list, its next line marked aria-current="step".
//
// The wins (the schedules that duplicated) and the claims the reader
// could not break are kept in localStorage, per lesson page; the view
// shows them and can clear them. The pure helpers (seatScript, the
// progress store) touch no browser global, so tests import them as is.

import { h, fillTable, groupDigits } from "./render.js";
import { Player } from "./player.js";

/** @typedef {import("./result-types.js").Schedule} Schedule */
/** @typedef {import("./result-types.js").SchedulerView} SchedulerView */

// seatScript is the script that plays schedule (worker names, in order)
// on a scheduler view's race; an empty schedule ("-") asks for the start:
// every worker's first step and the tables before any.
/**
 * @param {SchedulerView} view
 * @param {string[]} schedule
 * @returns {string}
 */
export function seatScript(view, schedule) {
  return view.script.trimEnd() + " --schedule " + (schedule.length ? schedule.join(",") : "-") + "\n";
}

// waits reports whether a worker's next step waits for another's open
// transaction (the runtime's label says so): it cannot be taken now.
function waits(next) {
  return / \(waits: [^)]*\)$/.test(next.label);
}

// PROGRESS_PREFIX starts the localStorage key of a lesson's progress.
export const PROGRESS_PREFIX = "twice:scheduler:";

// readProgress returns what store (a Storage) keeps for page: {won:
// {race: [schedule, ...]}, held: {race: orderings}}, empty when nothing is
// kept or what is kept is not that shape.
export function readProgress(store, page) {
  let p = null;
  try {
    p = JSON.parse(store.getItem(PROGRESS_PREFIX + page) || "null");
  } catch {
    p = null;
  }
  const ok = (o) => o && typeof o === "object" && !Array.isArray(o);
  if (!ok(p) || !ok(p.won) || !ok(p.held)) return { won: {}, held: {} };
  return p;
}

// recordProgress adds an outcome to page's progress in store: a schedule
// that duplicated (won) on race, or a race played to an end that the
// explorer proves holds (held, with its count of orderings); it returns
// the progress. A storage that refuses (full, or off) keeps nothing and
// says nothing: progress is a convenience.
export function recordProgress(store, page, race, outcome) {
  const p = readProgress(store, page);
  if (outcome.won) {
    const list = (p.won[race] = p.won[race] || []);
    if (!list.includes(outcome.won)) list.push(outcome.won);
  }
  if (outcome.held) p.held[race] = outcome.held;
  try {
    store.setItem(PROGRESS_PREFIX + page, JSON.stringify(p));
  } catch {
    // kept for this visit only
  }
  return p;
}

// clearProgress forgets page's progress.
export function clearProgress(store, page) {
  try {
    store.removeItem(PROGRESS_PREFIX + page);
  } catch {
    // nothing was kept
  }
}

// progressLines says the progress in words, one line per race.
export function progressLines(p) {
  const lines = [];
  for (const [race, list] of Object.entries(p.won)) {
    const best = Math.min(...list.map((s) => s.split(",").length));
    lines.push(race + ": broken by " + (list.length === 1 ? "1 schedule" : list.length + " schedules") + ", the shortest of yours " + best + " steps");
  }
  for (const [race, n] of Object.entries(p.held)) {
    if (!p.won[race]) lines.push(race + ": held, and no ordering of the " + groupDigits(String(n)) + " there are breaks it");
  }
  return lines;
}

// The shared tables a board draws, by the name the runtime gives them
// (Schedule.shared), each with its caption and its columns: the columns
// stay the same through a game, whatever the rows hold. effects is the
// table below the board.
/** @type {Record<string, {name: string, cols: string[], rows: (s: Schedule) => any[]}>} */
const SHARED = {
  jobs: { name: "jobs", cols: ["id", "status", "attempts", "run"], rows: (s) => s.tables.jobs || [] },
  locks: { name: "locks", cols: ["job", "owner"], rows: (s) => s.tables.locks || [] },
  keys: { name: "the service's keys", cols: ["key", "worker", "step"], rows: (s) => s.tables.keys || [] },
  processed_keys: { name: "processed_keys", cols: ["key", "worker", "step"], rows: (s) => s.tables.keys || [] },
  effects: { name: "Effects", cols: ["worker", "step"], rows: (s) => s.tables.effects || [] },
};

// twoForOneJob reports whether a schedule's effects table holds two
// effects for its job: the race has one job, and the table lists the
// effects that landed (a refused or replayed request is none), each with
// the worker and the step that made it.
/**
 * @param {Schedule | null | undefined} s
 * @returns {boolean}
 */
export function twoForOneJob(s) {
  return ((s && s.tables && s.tables.effects) || []).length >= 2;
}

// cell writes a table's value.
function cell(v) {
  if (v === null || v === undefined || v === "") return "-";
  return String(v);
}

// fillShared fills one shared table of the board with its fixed columns,
// marking the cells that changed since before (the same table one step
// earlier, or null).
function fillShared(table, caption, cols, rows, before) {
  const numeric = cols.map((c) => rows.length > 0 && typeof rows[0][c] === "number");
  const text = rows.map((r) => cols.map((c) => cell(r[c])));
  const was = before ? before.map((r) => cols.map((c) => cell(r[c]))) : null;
  fillTable(table, caption, cols, text, numeric, (ri) => {
    if (!was) return null;
    if (!was[ri]) return { row: true, cells: cols.map((_, i) => i) };
    return { row: false, cells: text[ri].map((v, i) => (v !== was[ri][i] ? i : -1)).filter((i) => i >= 0) };
  });
}

// programOf is worker i's program in a schedule: the runtime's lines (the
// explorer's own steps), or, from a runtime that sends none, the next
// step alone.
/**
 * @param {Schedule} s
 * @param {number} i
 * @returns {import("./result-types.js").ScheduleProgram}
 */
export function programOf(s, i) {
  const p = (s.programs || [])[i];
  if (p) return p;
  const next = s.next[i];
  return { worker: next.worker, lines: next.label ? [next.label] : [], at: next.label ? 0 : 1, ended: next.label ? "" : "finished" };
}

// linesRun says, for worker w of a schedule, what each line of its
// program saw when it ran (by line index), from the steps taken.
export function linesRun(s, w) {
  /** @type {Map<number, string>} */
  const seen = new Map();
  for (const st of s.steps) if (st.worker === w && st.line >= 0) seen.set(st.line, st.said || "done");
  return seen;
}

// tapeFor is what the player plays after a schedule: the tape it had, if
// the schedule is a step of it, else the schedule itself (the reader's
// own steps, as a history that a slider scrubs).
export function tapeFor(tape, schedule) {
  const onTape = schedule.length <= tape.length && schedule.every((w, i) => tape[i] === w);
  return onTape ? tape : schedule.slice();
}

// seats are the views of this page: the progress is the page's, so a
// change one of them makes (a win kept, Clear my progress) is shown by
// every view that keeps its progress in the same store under the same
// page (see progressChanged), and so is one another tab makes.
const seats = new Set();
let watching = false;

// progressChanged shows again the progress of every view of page in store.
function progressChanged(store, page) {
  for (const s of seats) if (s.o.store === store && s.o.page === page) s.showProgress();
}

// Seat is the view: one per block. o carries the block's label, play
// (script) → Promise of a Result, copy(button, text), link(schedule) → the
// URL of this schedule, and page, the key progress is kept under.
//
// The view is a board: a column per worker holding that worker's whole
// program (Schedule.programs, the explorer's steps), a mark on the line
// it runs next, the shared rows between the columns, and the effects
// below. A player (player.js) plays the runtime's ordering (the shortest
// that duplicates, else one that runs every worker to its end) or scrubs
// the reader's own steps.
export class Seat {
  constructor(o) {
    this.o = o;
    seats.add(this);
    if (!watching && typeof window !== "undefined" && window.addEventListener) {
      watching = true;
      window.addEventListener("storage", (e) => {
        if (e.key === null || e.key.startsWith(PROGRESS_PREFIX)) for (const s of seats) s.showProgress();
      });
    }
    this.cache = new Map();
    this.schedule = [];
    // The ordering the player plays, and the steps it scrubs.
    this.tape = [];
    // The race played: null until open, which comes before any step.
    /** @type {SchedulerView} */
    this.view = /** @type {any} */ (null);
    this.seq = 0;
    const of = (what) => what + ", " + o.label;
    this.goal = h("p", { class: "seat-goal" });
    this.note = h("p", { class: "note seat-note" });
    this.shared = h("div", { class: "board-shared", role: "region", "aria-label": of("Shared rows") });
    this.workers = h("div", { class: "seat-workers board" });
    this.effectsTable = h("table", { class: "seat-effects" });
    this.verdict = h("p", { class: "board-verdict", "aria-hidden": "true" });
    this.effects = h("div", { class: "board-effects" }, h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": of("Effects after your steps") }, this.effectsTable), this.verdict);
    this.undo = h("button", { type: "button", class: "small seat-undo", text: "Undo", "aria-keyshortcuts": "Backspace" });
    this.restart = h("button", { type: "button", class: "small seat-restart", text: "Restart" });
    this.copyLink = h("button", { type: "button", class: "small seat-copy", text: "Copy link to this schedule" });
    this.player = new Player({ steps: 0, label: of("the race"), onStep: (i) => this.go(this.tape.slice(0, i), null, true) });
    this.tapeName = h("span", { class: "board-tape" });
    this.status = h("p", { class: "seat-status", role: "status", "aria-live": "polite", "aria-atomic": "true" });
    this.outcome = h("p", { class: "seat-outcome", hidden: true });
    this.steps = h("ol", { class: "seat-steps" });
    this.stepsBox = h("details", { class: "seat-steps-box" }, h("summary", { class: "seat-steps-title", text: "Steps so far" }), this.steps);
    this.progress = h("ul", { class: "seat-progress-list" });
    this.clear = h("button", { type: "button", class: "small seat-clear", text: "Clear my progress" });
    this.progressBox = h("div", { class: "seat-progress", hidden: true }, h("p", { class: "seat-progress-title", text: "Your progress on this page" }), this.progress, this.clear);
    // The area the keys work in: everything but the note and the goal.
    this.play = h(
      "div",
      {
        class: "seat-play",
        tabindex: "0",
        role: "group",
        "aria-label": of("Be the scheduler. Keys 1 to 9 give the next step to that worker; Backspace undoes"),
      },
      h("div", { class: "board-bar" }, this.player.element, this.tapeName),
      this.workers,
      this.effects,
      h("div", { class: "seat-controls" }, this.undo, this.restart, this.copyLink, h("span", { class: "seat-hint", text: "Click a column, or keys 1–9; Backspace undoes" })),
      this.status,
      this.outcome,
      this.stepsBox
    );
    this.panel = h("section", { class: "panel seat-panel" }, this.note, this.goal, this.play, this.progressBox);
    this.listen(o);
    this.showProgress();
  }

  // listen wires the buttons and the keys.
  listen(o) {
    this.undo.addEventListener("click", () => this.back());
    this.restart.addEventListener("click", () => {
      this.player.pause();
      this.tape = [];
      this.go([], "Restarted: no step taken yet.");
    });
    this.copyLink.addEventListener("click", () => o.copy(this.copyLink, o.link(this.schedule)));
    this.clear.addEventListener("click", () => {
      clearProgress(o.store, o.page);
      progressChanged(o.store, o.page);
      this.say("Your progress on this page is cleared.");
    });
    this.play.addEventListener("keydown", (e) => {
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      if (/^[1-9]$/.test(e.key)) {
        e.preventDefault();
        this.player.pause();
        this.pick(Number(e.key) - 1);
      } else if (e.key === "Backspace") {
        e.preventDefault();
        this.player.pause();
        this.back();
      }
    });
  }

  // open shows the view for a block's views.scheduler; a schedule (from a
  // link) is replayed, else what was played on the same race stays.
  /**
   * @param {SchedulerView | null} view
   * @param {string[] | null} [schedule]
   * @param {boolean} [autoplay] play the runtime's ordering once shown
   */
  open(view, schedule, autoplay) {
    const same = this.view && view && this.view.script === view.script;
    if (!same) {
      // Another race (the claim toggle): its programs replace these.
      this.player.pause();
      this.tape = [];
    }
    // Without a race the view plays nothing: go and the rest run on a race.
    this.view = /** @type {SchedulerView} */ (view);
    this.note.textContent = (view && view.note) || "";
    if (!view || !view.script || view.refused) {
      this.panel.dataset.seat = "none";
      this.goal.hidden = true;
      this.play.hidden = true;
      if (view && view.refused) this.note.textContent += " " + view.refused;
      this.panel.dataset.state = "done";
      return;
    }
    this.panel.dataset.seat = "on";
    this.goal.hidden = false;
    this.play.hidden = false;
    this.goal.replaceChildren(
      h("strong", { text: "Goal: make two effects land for one job." }),
      document.createTextNode(" You are the scheduler: " + view.workers + " workers race with claim=" + view.claim + ", and you pick which one takes its next step.")
    );
    let shown = null;
    if (schedule) shown = this.go(schedule, "");
    else if (!same || !(this.state || this.busy)) shown = this.go([], "");
    else if (!this.busy) this.panel.dataset.state = "done";
    if (autoplay && shown) shown.then(() => this.player.play());
  }

  // pick gives the next step to worker i (0-based), if it has one; the
  // promise is settled when the step is shown.
  pick(i) {
    const s = this.state;
    if (!s || this.busy || i >= s.next.length) return Promise.resolve();
    if (!s.next[i].label) {
      this.say(s.next[i].worker + " is done: it has no step left.");
      return Promise.resolve();
    }
    if (waits(s.next[i])) {
      this.say(s.next[i].worker + " cannot go now: " + s.next[i].label + ".");
      return Promise.resolve();
    }
    this.player.pause();
    return this.go(this.schedule.concat(s.next[i].worker), null);
  }

  back() {
    this.player.pause();
    if (this.busy || this.schedule.length === 0) return Promise.resolve();
    return this.go(this.schedule.slice(0, -1), "Undone: back to step " + (this.schedule.length - 1) + ".");
  }

  // go plays schedule and shows where it leaves the race; said, when not
  // null, is what the status region says instead of the step taken;
  // played says the player asked for it (Play, or its slider).
  async go(schedule, said, played) {
    const seq = ++this.seq;
    const script = seatScript(this.view, schedule);
    this.busy = true;
    this.panel.dataset.state = "running";
    this.panel.setAttribute("aria-busy", "true");
    try {
      let res = this.cache.get(script);
      if (!res) {
        res = await this.o.play(script);
        if (!res.schedule) throw new Error(res.error ? res.error.msg : "the runtime returned no schedule");
        this.cache.set(script, res);
      }
      if (seq !== this.seq) return;
      if (res.schedule.steps.length < schedule.length) {
        // The runtime refused the last step (the error names it): the
        // schedule stays where it was.
        this.say("That step cannot be taken: " + (res.error ? res.error.msg : "the runtime stopped before it") + ".");
        this.panel.dataset.state = "done";
        return;
      }
      this.schedule = schedule;
      if (!played) this.tape = tapeFor(this.tape.length ? this.tape : res.schedule.ordering || [], schedule);
      this.player.setSteps(this.tape.length);
      this.player.set(schedule.length);
      this.show(res.schedule, said);
      this.panel.dataset.state = "done";
    } catch (e) {
      if (seq !== this.seq) return;
      this.say("The step failed: " + e.message);
      this.panel.dataset.state = "error";
    } finally {
      if (seq === this.seq) {
        this.busy = false;
        this.panel.setAttribute("aria-busy", "false");
      }
    }
    if (this.o.changed) this.o.changed();
  }

  say(text) {
    this.status.textContent = text;
  }

  // show draws a schedule's state: the board (the workers' programs and
  // the shared rows), the effects, the steps and, at the end, the outcome.
  /**
   * @param {Schedule} s
   * @param {string | null} said
   */
  show(s, said) {
    const root = /** @type {Document | ShadowRoot} */ (this.panel.getRootNode());
    const focused = root.activeElement;
    const hadFocus = focused && this.workers.contains(focused);
    const before = this.state && this.state.claim === s.claim && this.state.steps.length === s.steps.length - 1 ? this.state : null;
    this.state = s;
    this.drawBoard(s, before);
    // A button that went away (its worker is done) gives the focus back
    // to the view, so that the keys keep working.
    if (hadFocus && !this.workers.contains(root.activeElement)) {
      const same = /** @type {HTMLButtonElement | null} */ (this.workers.querySelector("button:not([disabled])"));
      (same || this.play).focus();
    }
    this.steps.replaceChildren(...s.steps.map((st) => h("li", null, h("span", { class: "seat-who", text: st.worker }), document.createTextNode(" " + st.label + (st.said ? ": " + st.said : "")))));
    this.stepsBox.hidden = s.steps.length === 0;
    const eff = SHARED.effects;
    fillShared(this.effectsTable, eff.name + (s.steps.length ? " after step " + s.steps.length : " before any step"), eff.cols, eff.rows(s), before && eff.rows(before));
    const n = eff.rows(s).length;
    this.verdict.textContent = n === 0 ? "No effect yet" : n === 1 ? "One effect" : n + " effects for one job";
    this.effects.dataset.effects = String(n);
    this.undo.disabled = s.steps.length === 0;
    this.restart.disabled = s.steps.length === 0;
    this.tapeName.textContent = this.tapeWords(s);
    const last = s.steps[s.steps.length - 1];
    let text = said;
    if (text === null || text === "") text = last ? "Step " + s.steps.length + ": " + last.worker + " " + last.label + (last.said ? ": " + last.said : "") + "." : "No step taken yet: pick a worker.";
    const ended = this.ending(s);
    this.outcome.hidden = !ended;
    if (ended) {
      this.outcome.className = "seat-outcome " + ended.kind;
      this.outcome.textContent = ended.text;
      this.record(s, ended);
    }
    // The outcome is said once, when it happens, to a screen reader (the
    // box below shows it to the eye, and keeps it).
    const tell = ended && (!this.ended || this.ended.text !== ended.text || said !== null);
    this.ended = ended;
    this.status.replaceChildren(text, ...(tell ? [h("span", { class: "sr", text: " " + ended.text })] : []));
  }

  // tapeWords says what the player plays.
  /** @param {Schedule} s */
  tapeWords(s) {
    const ordering = s.ordering || [];
    if (this.tape !== ordering && this.tape.join() !== ordering.join()) return "Plays your " + this.tape.length + " steps";
    if (Number(s.shortest) > 0) return "Plays the shortest ordering that gives two effects: " + ordering.length + " steps";
    return "Plays one whole ordering: " + ordering.length + " steps";
  }

  // drawBoard draws the workers' columns and the shared rows: with two
  // workers the rows stand between the columns, with more above them.
  /**
   * @param {Schedule} s
   * @param {Schedule | null} before
   */
  drawBoard(s, before) {
    const cols = s.next.map((_, i) => this.column(s, i));
    this.drawShared(s, before);
    this.workers.dataset.workers = String(cols.length);
    if (cols.length === 2) this.workers.replaceChildren(cols[0], this.shared, cols[1]);
    else this.workers.replaceChildren(this.shared, ...cols);
  }

  // drawShared fills the shared rows: one small table per shared table,
  // the cells a step changed marked.
  /**
   * @param {Schedule} s
   * @param {Schedule | null} before
   */
  drawShared(s, before) {
    const names = s.shared && s.shared.length ? s.shared : ["jobs"];
    const tables = names.filter((k) => SHARED[k]).map((k) => {
      const t = SHARED[k];
      const table = h("table", { class: "seat-" + (k === "processed_keys" ? "keys" : k) });
      fillShared(table, t.name, t.cols, t.rows(s), before && t.rows(before));
      return table;
    });
    this.shared.replaceChildren(h("p", { class: "board-shared-title", text: "Shared rows" }), ...tables);
  }

  // column is worker i's column: a button that gives it its next step,
  // and its program as a list, the line it runs next marked
  // aria-current="step", the lines it ran with what they saw.
  /**
   * @param {Schedule} s
   * @param {number} i
   */
  column(s, i) {
    const n = s.next[i];
    const p = programOf(s, i);
    const ran = linesRun(s, n.worker);
    const wait = n.label && waits(n);
    const state = p.ended || (wait ? "waits" : "ready");
    const stateWords = { finished: "finished", stopped: "stopped", waits: "waits", ready: "next step ▸" }[state];
    const button = h(
      "button",
      {
        type: "button",
        class: "seat-worker",
        "data-worker": n.worker,
        "aria-keyshortcuts": i < 9 ? String(i + 1) : null,
        disabled: n.label && !wait ? null : true,
      },
      h("span", { class: "seat-key", "aria-hidden": "true", text: i < 9 ? String(i + 1) : "" }),
      h("span", { class: "seat-who", text: n.worker }),
      h("span", { class: "board-state", text: stateWords }),
      // The name a screen reader says ends with the step itself, which
      // the eye finds marked in the column.
      n.label ? h("span", { class: "sr", text: ": " + n.label }) : null
    );
    const last = s.steps[s.steps.length - 1];
    const lastLine = last && last.worker === n.worker ? last.line : -1;
    // The line whose step stopped the worker: its own last step's.
    const mine = s.steps.filter((st) => st.worker === n.worker);
    const failed = p.ended === "stopped" && mine.length ? mine[mine.length - 1].line : -1;
    const lines = p.lines.map((line, k) => {
      const cur = k === p.at;
      const cls = (ran.has(k) ? " ran" : "") + (cur ? " current" : "") + (k === lastLine ? " last" : "") + (k === failed ? " failed" : "");
      return h(
        "li",
        { class: "board-line" + cls, "aria-current": cur ? "step" : null },
        h("span", { class: "board-pc", "aria-hidden": "true", text: cur ? "▶" : k === failed ? "✗" : ran.has(k) ? "✓" : "" }),
        h("code", { text: line }),
        ran.has(k) ? h("span", { class: "board-said", text: ran.get(k) }) : null
      );
    });
    const list = h("ol", { class: "board-program", "aria-label": n.worker + "'s program" }, ...lines);
    // A group, not a section: a landmark per worker would repeat on
    // every block of a page.
    const col = h("div", { class: "board-col", role: "group", "data-worker": n.worker, "data-state": state, "aria-label": n.worker }, button, list);
    if (p.at < 0 && n.label) col.append(h("p", { class: "board-branch", "aria-current": "step" }, h("span", { class: "board-pc", "aria-hidden": "true", text: "↳" }), h("code", { text: n.label })));
    if (p.ended) col.append(h("p", { class: "board-end", text: this.endWords(s, n.worker, p.ended) }));
    col.addEventListener("click", (e) => {
      if (!(e.target instanceof Element) || !e.target.closest("a, summary")) this.pick(i);
    });
    return col;
  }

  // endWords says how worker w ended: what its last step saw.
  endWords(s, w, ended) {
    const mine = s.steps.filter((st) => st.worker === w);
    const last = mine[mine.length - 1];
    const why = last ? last.label + (last.said ? ": " + last.said : "") : "";
    return (ended === "stopped" ? "Stopped at " : "Finished: ") + why;
  }

  // reachedAt is the step at which two effects first stood for one job,
  // as far as this visit has seen the shorter schedules; 0 when they do
  // not stand.
  reachedAt(schedule) {
    const at = (k) => {
      const r = this.cache.get(seatScript(this.view, schedule.slice(0, k)));
      return r && twoForOneJob(r.schedule);
    };
    let k = schedule.length;
    if (!at(k)) return 0;
    while (k > 1 && at(k - 1)) k--;
    return k;
  }

  // ending says how the schedule stands: won once two effects landed for
  // one job (the reader may play on to the acks), else, once every worker
  // is done, safe or held; null while it goes on.
  /** @param {Schedule} s */
  ending(s) {
    const won = this.reachedAt(this.schedule);
    if (won > 0) {
      const short = Number(s.shortest);
      const vs = short > 0 ? (won === short ? ", as short as any ordering that does." : "; the shortest ordering that does takes " + short + ".") : ".";
      return { kind: "won", steps: won, text: "Goal reached: two effects landed for one job, in " + won + " steps" + vs };
    }
    if (!s.outcome) return null;
    const n = groupDigits(String(s.orderings));
    if (String(s.duplicating) === "0") {
      return { kind: "held", text: "One effect. You cannot win this one: the explorer checked every ordering, and no ordering of the " + n + " there are gives two effects with claim=" + s.claim + "." };
    }
    return { kind: "safe", text: "One effect: this ordering is safe. " + groupDigits(String(s.duplicating)) + " of the " + n + " orderings give two; Undo and try another." };
  }

  record(s, ended) {
    const race = this.raceName();
    if (ended.kind === "won") recordProgress(this.o.store, this.o.page, race, { won: this.schedule.slice(0, ended.steps).join(",") });
    else if (ended.kind === "held") recordProgress(this.o.store, this.o.page, race, { held: String(s.orderings) });
    progressChanged(this.o.store, this.o.page);
  }

  // raceName names the race in the progress: its claim and workers, and
  // the flags when the view's race has any.
  raceName() {
    const v = this.view;
    const line = v.script.trim().split("\n").pop() || "";
    const flags = line.replace(/^race\s+\S+\s*/, "").replace(/--workers\s+\d+\s*/, "").trim();
    return "claim=" + v.claim + ", " + v.workers + " workers" + (flags ? ", " + flags : "");
  }

  showProgress() {
    const lines = progressLines(readProgress(this.o.store, this.o.page));
    this.progress.replaceChildren(...lines.map((l) => h("li", { text: l })));
    this.progressBox.hidden = lines.length === 0;
  }
}

// storage returns the page's localStorage, or where it is refused (an
// embed in a sandboxed frame, storage turned off) a store kept for this
// visit only, one for every view of the page.
let visitStore = null;
function storage() {
  try {
    if (window.localStorage) return window.localStorage;
  } catch {
    // refused: below
  }
  if (!visitStore) {
    const m = new Map();
    visitStore = { getItem: (k) => (m.has(k) ? m.get(k) : null), setItem: (k, v) => m.set(k, String(v)), removeItem: (k) => m.delete(k) };
  }
  return visitStore;
}

// mountSeat builds a block's scheduler view: its runs go through the
// block's runtime queue (key "seat"), its link is the block's link with the
// schedule, and its progress is kept per page.
export function mountSeat(block, label, runtime) {
  return new Seat({
    label,
    store: storage(),
    page: location.pathname,
    play: (script) => {
      const rt = runtime();
      block.attach(rt);
      return block.request(rt, script, "", false, "seat").then((m) => JSON.parse(m.json));
    },
    copy: (button, text) => block.copy(button, text),
    link: (schedule) => new URL(block.linkTo("scheduler", schedule), location.href).href,
    changed: () => block.updateLink(),
  });
}
