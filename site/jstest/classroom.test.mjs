// Unit tests of classroom.js's pure parts: the question a predict block
// asks, the sentence beside the result, and which steps the presenter's
// step-through skips.

import { test } from "node:test";
import assert from "node:assert/strict";

import { CONFIG } from "../static/config.js";
import { answer, question, quietStep, verdict } from "../static/classroom.js";

// The server puts the runtime's lists in the config the loader hands the
// component; go test ./site passes the same lists here.
assert.ok(process.env.TWICE_CHOICES, "run these through go test ./site, which passes the runtime's lists in TWICE_CHOICES");
Object.assign(CONFIG, JSON.parse(process.env.TWICE_CHOICES));

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

test("question is worded for one race or job, and groups a large count", () => {
  const one = question({ races: [{ races: 1, duplicates: 1 }] });
  assert.equal(one.of, 1);
  assert.doesNotMatch(one.text, /the 1 races/);
  assert.match(one.text, /one race/);
  assert.match(question({ loads: [{ jobs: 1, duplicates: 0 }] }).text, /one job/);
  assert.equal(question({ races: [{ races: 10000, duplicates: 1 }] }).text, "In how many of the 10,000 races will an effect happen twice?");
  assert.equal(verdict(question({ races: [{ races: 10000 }] }), "5", { races: [{ races: 10000, duplicates: 9000 }] }), "You predicted 5; the run gave 9000 of 10,000.");
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

test("quietStep: only a step that reads and writes nothing shared", () => {
  // The runtime's list decides; a step that reads shared state is never
  // quiet, though it changes no table.
  assert.ok(CONFIG.quiet.length > 0, "the runtime names some quiet kinds");
  for (const kind of ["select", "clock", "claim-failed", "lease-lost", "key-check", "send", "answer", "timeout", "sleep", "log", "say", "busy", "kill"]) {
    assert.equal(quietStep({ kind }), false, kind + " reads or writes shared state");
  }
  assert.equal(quietStep({ kind: "claim", job: { id: 1 } }), false);
  assert.equal(quietStep({ kind: "effect", effect: {} }), false);
  assert.equal(quietStep({ kind: "reset" }), false);
  assert.equal(quietStep({ kind: "start" }), true, "a worker starting reads nothing shared");
  assert.equal(quietStep({ kind: "connect" }), true);
  assert.equal(quietStep(undefined), false);
});
