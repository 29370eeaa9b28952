// Unit tests of classroom.js's pure parts: the question a predict block
// asks, the sentence beside the result, and which steps the presenter's
// step-through skips.

import { test } from "node:test";
import assert from "node:assert/strict";

import { answer, question, quietStep, verdict } from "../static/classroom.js";

test("question is worded from the block's own result", () => {
  const race = { races: [{ races: 20, duplicates: 19 }], effects: [] };
  assert.deepEqual(question(race), { kind: "races", of: 20, text: "In how many of the 20 races will an effect happen twice?" });
  const two = { races: [{ races: 20, duplicates: 3 }, { races: 30, duplicates: 0 }] };
  assert.equal(question(two).of, 50);
  assert.equal(answer("races", two), 3);
  const load = { loads: [{ jobs: 200, duplicates: 42 }] };
  assert.equal(question(load).kind, "loads");
  assert.equal(answer("loads", load), 42);
  const one = { effects: [{ order: "a" }, { order: "a", refused: true }, { order: "a", replayed: true }] };
  assert.equal(question(one).kind, "effects");
  assert.equal(answer("effects", one), 1, "a refused or replayed request is not an effect");
  assert.equal(question(null).kind, "effects");
});

test("verdict says the prediction beside the result", () => {
  const q = question({ races: [{ races: 20, duplicates: 1 }] });
  assert.equal(verdict(q, "7", { races: [{ races: 20, duplicates: 19 }] }), "You predicted 7; the run gave 19 of 20.");
  assert.equal(verdict(q, "19", { races: [{ races: 20, duplicates: 19 }] }), "You predicted 19; the run gave 19 of 20: right.");
  assert.equal(verdict(q, "", { races: [{ races: 20, duplicates: 0 }] }), "You made no prediction; the run gave 0 of 20.");
  assert.match(verdict(q, "3", { effects: [] }), /no count to compare/, "an edited script with no race");
  const e = question({ effects: [] });
  assert.equal(verdict(e, "2", { effects: [{}, {}] }), "You predicted 2; the run gave 2: right.");
});

test("quietStep: a step that changes no table", () => {
  assert.equal(quietStep({ kind: "clock", step: "read clock" }), true);
  assert.equal(quietStep({ kind: "sql", job: { id: 1 } }), false);
  assert.equal(quietStep({ kind: "receipt", effect: {} }), false);
  assert.equal(quietStep({ kind: "reset" }), false);
  assert.equal(quietStep(undefined), false);
});
