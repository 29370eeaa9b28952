// Unit tests of Be the scheduler's pure helpers (site/static/scheduler.js):
// the script a schedule runs and the progress kept per page. The view
// itself is covered by the browser tests of package server.

import { test } from "node:test";
import assert from "node:assert/strict";

import { clearProgress, linesRun, progressLines, readProgress, recordProgress, seatScript, tapeFor, twoForOneJob } from "../static/scheduler.js";

// memory is a Storage kept in a Map; full makes setItem throw, as a full
// or refused localStorage does.
function memory(full) {
  const m = new Map();
  return {
    getItem: (k) => (m.has(k) ? m.get(k) : null),
    setItem: (k, v) => {
      if (full) throw new Error("QuotaExceededError");
      m.set(k, String(v));
    },
    removeItem: (k) => m.delete(k),
    keys: () => [...m.keys()],
  };
}

test("seatScript appends the schedule to the view's race, the service lines kept", () => {
  const view = { script: "service --dedupe claim\nrace async-lock --key job\n" };
  assert.equal(seatScript(view, ["W1", "W2", "W1"]), "service --dedupe claim\nrace async-lock --key job --schedule W1,W2,W1\n");
  assert.equal(seatScript(view, []), "service --dedupe claim\nrace async-lock --key job --schedule -\n", "the start is the schedule with no step");
});

test("progress: wins and held claims, per page, cleared", () => {
  const s = memory();
  assert.deepEqual(readProgress(s, "/lessons/a/"), { won: {}, held: {} });
  recordProgress(s, "/lessons/a/", "claim=async-lock, 2 workers", { won: "W1,W2,W1,W2,W1,W2" });
  recordProgress(s, "/lessons/a/", "claim=async-lock, 2 workers", { won: "W1,W2,W1,W2,W1,W2" });
  recordProgress(s, "/lessons/a/", "claim=async-lock, 2 workers", { won: "W2,W1,W2,W1,W2,W1,W2,W1" });
  recordProgress(s, "/lessons/a/", "claim=lock, 2 workers", { held: "12" });
  const p = readProgress(s, "/lessons/a/");
  assert.deepEqual(p.won, { "claim=async-lock, 2 workers": ["W1,W2,W1,W2,W1,W2", "W2,W1,W2,W1,W2,W1,W2,W1"] }, "a schedule won twice counts once");
  assert.deepEqual(progressLines(p), [
    "claim=async-lock, 2 workers: broken by 2 schedules, the shortest of yours 6 steps",
    "claim=lock, 2 workers: held, and no ordering of the 12 there are breaks it",
  ]);
  assert.deepEqual(readProgress(s, "/lessons/b/"), { won: {}, held: {} }, "another page keeps its own");
  clearProgress(s, "/lessons/a/");
  assert.deepEqual(readProgress(s, "/lessons/a/"), { won: {}, held: {} });
  assert.deepEqual(s.keys(), []);
});

test("progress: what is kept but not progress reads as none; a full store keeps nothing and throws nothing", () => {
  const s = memory();
  for (const junk of ["{", "[]", "null", '{"won":[],"held":{}}', '"x"']) {
    s.setItem("twice:scheduler:/p/", junk);
    assert.deepEqual(readProgress(s, "/p/"), { won: {}, held: {} }, junk);
  }
  const full = memory(true);
  const p = recordProgress(full, "/p/", "claim=read, 2 workers", { won: "W1,W2" });
  assert.deepEqual(p.won, { "claim=read, 2 workers": ["W1,W2"] }, "the progress of this visit is returned");
  assert.deepEqual(readProgress(full, "/p/"), { won: {}, held: {} });
});

test("twoForOneJob: two effects landed for the race's one job", () => {
  // As the runtime writes a schedule's effects: the worker and the step
  // that made each one that landed.
  const e = (worker, step) => ({ worker, step });
  assert.equal(twoForOneJob({ tables: { effects: [] } }), false);
  assert.equal(twoForOneJob({ tables: { effects: [e("W1", 4)] } }), false);
  assert.equal(twoForOneJob({ tables: { effects: [e("W1", 4), e("W2", 6)] } }), true);
  assert.equal(twoForOneJob({ tables: {} }), false);
  assert.equal(twoForOneJob(null), false);
});

test("tapeFor keeps the ordering while the reader follows it, else plays the reader's steps", () => {
  const ordering = ["W1", "W2", "W1", "W1"];
  assert.equal(tapeFor(ordering, []), ordering);
  assert.equal(tapeFor(ordering, ["W1", "W2"]), ordering, "a step of the ordering keeps it");
  assert.deepEqual(tapeFor(ordering, ["W2"]), ["W2"], "a step off it makes the reader's steps the tape");
  assert.deepEqual(tapeFor(["W2", "W1"], ["W2"]), ["W2", "W1"], "Undo along the reader's tape keeps it");
});

test("linesRun maps a worker's steps to the lines of its program they ran", () => {
  const s = {
    steps: [
      { worker: "W1", label: "SELECT", said: "free", line: 0 },
      { worker: "W2", label: "SELECT", said: "free", line: 0 },
      { worker: "W1", label: "UPDATE", said: "", line: 1 },
      { worker: "W2", label: "ROLLBACK", said: "gone", line: -1 },
    ],
  };
  assert.deepEqual([...linesRun(s, "W1")], [[0, "free"], [1, "done"]]);
  assert.deepEqual([...linesRun(s, "W2")], [[0, "free"]], "a step off the program marks no line");
});
