// Unit tests of predict.js's scale and sliders.js's splice: what a block
// asks on, and how a dragged number is put into the script's text at the
// spans the runtime gave, with no reading of the language.

import { test } from "node:test";
import assert from "node:assert/strict";

import { answer, question, verdict } from "../static/classroom.js";
import { scaleOf } from "../static/predict.js";
import { withNumber } from "../static/sliders.js";

test("the scale of a prediction", () => {
  assert.deepEqual(scaleOf("", { of: 20 }), { min: 0, max: 20, choices: null });
  assert.deepEqual(scaleOf(null, {}), { min: 0, max: 10, choices: null });
  assert.deepEqual(scaleOf("5-50", { of: 20 }), { min: 5, max: 50, choices: null });
  assert.deepEqual(scaleOf("1,2", {}), { min: 0, max: 2, choices: [1, 2] });
});

test("orderings are asked about and answered", () => {
  const res = { explorations: [{ orderings: "46", duplicating: "40" }] };
  assert.deepEqual(question(res), { kind: "orderings", of: 46, text: "In how many of the 46 orderings will an effect happen twice?" });
  assert.equal(answer("orderings", res), 40);
  assert.equal(verdict(question(res), "40", res), "You predicted 40; the run gave 40 of 46: right.");
});

test("withNumber splices every span and moves the others", () => {
  // "é" is one UTF-16 unit, "😀" two: spans count units, as the runtime sends them.
  const text = "# é😀\nwork --lease 1 --heartbeat 300 &\nwork --lease 1\n";
  const at = (s, w) => ({ start: text.indexOf(w, s), end: text.indexOf(w, s) + w.length });
  const lease1 = at(0, "1 --heartbeat");
  lease1.end = lease1.start + 1;
  const hb = at(0, "300");
  const lease2 = { start: text.lastIndexOf("1\n"), end: text.lastIndexOf("1\n") + 1 };
  const numbers = [
    { name: "lease", value: 1000, min: 0, spans: [lease1, lease2] },
    { name: "heartbeat", value: 300, min: 0, spans: [hb] },
  ];
  const got = withNumber(text, numbers, "lease", 2500, "2.5");
  assert.equal(got.text, "# é😀\nwork --lease 2.5 --heartbeat 300 &\nwork --lease 2.5\n");
  const [l, h] = got.numbers;
  assert.equal(l.value, 2500);
  for (const sp of l.spans) assert.equal(got.text.slice(sp.start, sp.end), "2.5");
  assert.equal(got.text.slice(h.spans[0].start, h.spans[0].end), "300");
  // Again, on the moved spans: the heartbeat, shorter.
  const again = withNumber(got.text, got.numbers, "heartbeat", 90, "90");
  assert.equal(again.text, "# é😀\nwork --lease 2.5 --heartbeat 90 &\nwork --lease 2.5\n");
  for (const sp of again.numbers[0].spans) assert.equal(again.text.slice(sp.start, sp.end), "2.5");
  assert.deepEqual(withNumber(text, numbers, "stall", 5, "5"), { text, numbers }, "a number the script does not write changes nothing");
});
