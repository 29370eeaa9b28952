// @ts-check
// scheduler.js is the "Be the scheduler" view of a block: the reader picks
// which worker takes its next atomic step, one click or key at a time, and
// tries to make two effects land for one job. Each step runs the block's
// race with the schedule so far (race CLAIM --schedule W1,W2,... and the
// race's flags, as the runtime's views.scheduler writes it) through the
// page's runtime; the Result's schedule says the steps taken, each
// worker's next step, the jobs, locks and effects tables as they stand,
// the outcome once every worker is done, and the explorer's counts for
// the race (orderings, those that duplicate, the shortest that does).
// Undo runs the shorter prefix; runs are cached per prefix, so Undo and
// Restart cost nothing.
//
// The view never says in advance whether the claim can be broken: the
// explorer's proof that no ordering duplicates is shown only once the
// reader has played an ordering to its end.
//
// Keys, while the focus is in the view: 1 to 9 pick a worker, Backspace
// undoes. The view's status region says each step and the outcome.
//
// The wins (the schedules that duplicated) and the claims the reader
// could not break are kept in localStorage, per lesson page; the view
// shows them and can clear them. The pure helpers (seatScript, the
// progress store) touch no browser global, so tests import them as is.

import { h, fillTable, groupDigits } from "./render.js";

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

// The tables of a schedule's state, with the columns shown and their
// headings; a column the rows do not have is left out, and the rows'
// other columns follow.
/** @type {["jobs" | "locks" | "effects", string, string[]][]} */
const TABLES = [
  ["jobs", "Jobs", ["id", "order", "status", "attempts", "run"]],
  ["locks", "Locks", ["job", "owner"]],
  ["effects", "Effects", ["order", "job", "run", "attempt", "worker"]],
];

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

// fillState fills a table with rows (objects) under the preferred columns.
function fillState(table, caption, preferred, rows) {
  const first = rows[0] || {};
  let cols = preferred.filter((c) => rows.length === 0 || c in first);
  if (rows.length) cols = cols.concat(Object.keys(first).filter((k) => !preferred.includes(k) && !/_us$/.test(k) && typeof first[k] !== "boolean" && typeof first[k] !== "object"));
  const numeric = cols.map((c) => typeof first[c] === "number");
  fillTable(
    table,
    caption,
    cols,
    rows.map((r) => cols.map((c) => cell(r[c]))),
    numeric
  );
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
    // The race played: null until open, which comes before any step.
    /** @type {SchedulerView} */
    this.view = /** @type {any} */ (null);
    this.seq = 0;
    const of = (what) => what + ", " + o.label;
    this.goal = h("p", { class: "seat-goal" });
    this.note = h("p", { class: "note seat-note" });
    this.workers = h("div", { class: "seat-workers" });
    this.undo = h("button", { type: "button", class: "small seat-undo", text: "Undo", "aria-keyshortcuts": "Backspace" });
    this.restart = h("button", { type: "button", class: "small seat-restart", text: "Restart" });
    this.copyLink = h("button", { type: "button", class: "small seat-copy", text: "Copy link to this schedule" });
    this.status = h("p", { class: "seat-status", role: "status", "aria-live": "polite", "aria-atomic": "true" });
    this.outcome = h("p", { class: "seat-outcome", hidden: true });
    this.steps = h("ol", { class: "seat-steps" });
    this.stepsBox = h("div", { class: "seat-steps-box" }, h("p", { class: "seat-steps-title", text: "Steps so far" }), this.steps);
    this.tables = {};
    const wraps = TABLES.map(([key, name]) => {
      this.tables[key] = h("table", { class: "seat-" + key });
      return h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": of(name + " after your steps") }, this.tables[key]);
    });
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
      this.workers,
      h("div", { class: "seat-controls" }, this.undo, this.restart, this.copyLink, h("span", { class: "seat-hint", text: "or keys 1–9, Backspace" })),
      this.status,
      this.outcome,
      h("div", { class: "seat-state" }, this.stepsBox, h("div", { class: "tables seat-tables" }, ...wraps))
    );
    this.panel = h(
      "section",
      { class: "panel seat-panel" },
      this.note,
      this.goal,
      this.play,
      this.progressBox
    );
    this.undo.addEventListener("click", () => this.back());
    this.restart.addEventListener("click", () => this.go([], "Restarted: no step taken yet."));
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
        this.pick(Number(e.key) - 1);
      } else if (e.key === "Backspace") {
        e.preventDefault();
        this.back();
      }
    });
    this.showProgress();
  }

  // open shows the view for a block's views.scheduler; a schedule (from a
  // link) is replayed, else what was played on the same race stays.
  /**
   * @param {SchedulerView | null} view
   * @param {string[] | null} [schedule]
   */
  open(view, schedule) {
    const same = this.view && view && this.view.script === view.script;
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
    if (schedule) this.go(schedule, "");
    else if (!same || !(this.state || this.busy)) this.go([], "");
    else if (!this.busy) this.panel.dataset.state = "done";
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
    return this.go(this.schedule.concat(s.next[i].worker), null);
  }

  back() {
    if (this.busy || this.schedule.length === 0) return Promise.resolve();
    return this.go(this.schedule.slice(0, -1), "Undone: back to step " + (this.schedule.length - 1) + ".");
  }

  // go plays schedule and shows where it leaves the race; said, when not
  // null, is what the status region says instead of the step taken.
  async go(schedule, said) {
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

  // show draws a schedule's state: the workers' buttons, the steps, the
  // tables and, at the end, the outcome.
  /**
   * @param {Schedule} s
   * @param {string | null} said
   */
  show(s, said) {
    const root = /** @type {Document | ShadowRoot} */ (this.panel.getRootNode());
    const focused = root.activeElement;
    const hadFocus = focused && this.workers.contains(focused);
    this.state = s;
    this.workers.replaceChildren(
      ...s.next.map((n, i) => {
        const b = h(
          "button",
          {
            type: "button",
            class: "seat-worker",
            "data-worker": n.worker,
            "aria-keyshortcuts": i < 9 ? String(i + 1) : null,
            disabled: n.label && !waits(n) ? null : true,
          },
          h("span", { class: "seat-key", "aria-hidden": "true", text: i < 9 ? String(i + 1) : "" }),
          h("span", { class: "seat-who", text: n.worker }),
          h("span", { class: "seat-next", text: n.label ? n.label : "done" })
        );
        b.addEventListener("click", () => this.pick(i));
        return b;
      })
    );
    // A button that went away (its worker is done) gives the focus back
    // to the view, so that the keys keep working.
    if (hadFocus && !this.workers.contains(root.activeElement)) {
      const same = /** @type {HTMLButtonElement | null} */ (this.workers.querySelector("button:not([disabled])"));
      (same || this.play).focus();
    }
    this.steps.replaceChildren(...s.steps.map((st) => h("li", null, h("span", { class: "seat-who", text: st.worker }), document.createTextNode(" " + st.label + (st.said ? ": " + st.said : "")))));
    this.stepsBox.hidden = s.steps.length === 0;
    for (const [key, name, preferred] of TABLES) {
      const rows = (s.tables && s.tables[key]) || [];
      fillState(this.tables[key], name + (s.steps.length ? " after step " + s.steps.length : " before any step"), preferred, rows);
    }
    this.undo.disabled = s.steps.length === 0;
    this.restart.disabled = s.steps.length === 0;
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
