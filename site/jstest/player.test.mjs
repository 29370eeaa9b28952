// Unit tests of the play control's state (site/static/player.js, Walk):
// Play walks the steps one by one, waiting for each to be shown, Pause
// stops it, the reader's pick stops it too, and Play from the end starts
// again. Timers are the test's own: nothing waits for a clock.

import { test } from "node:test";
import assert from "node:assert/strict";

import { Walk } from "../static/player.js";

// fakeTimers runs the pending timer when the test says so.
function fakeTimers() {
  const pending = new Map();
  let id = 0;
  return {
    set: (f, ms) => {
      pending.set(++id, { f, ms });
      return id;
    },
    clear: (t) => pending.delete(t),
    count: () => pending.size,
    // fire runs the one pending timer and waits for what it started.
    fire: async () => {
      assert.equal(pending.size, 1, "one step is scheduled at a time");
      const [k, t] = [...pending][0];
      pending.delete(k);
      t.f();
      await new Promise((r) => setImmediate(r));
    },
  };
}

test("Play walks every step in order, then stops at the last", async () => {
  const timers = fakeTimers();
  const shown = [];
  let ended = 0;
  const w = new Walk({ steps: 3, onStep: (i) => shown.push(i), delay: () => 500, timers, onEnd: () => ended++ });
  w.play();
  assert.equal(w.playing, true);
  await timers.fire();
  await timers.fire();
  await timers.fire();
  assert.deepEqual(shown, [1, 2, 3]);
  assert.equal(w.playing, false, "play stops at the last step");
  assert.equal(ended, 1);
  assert.equal(timers.count(), 0, "nothing is left scheduled");
});

test("Play waits for a step to be shown before scheduling the next", async () => {
  const timers = fakeTimers();
  let release;
  const w = new Walk({ steps: 2, onStep: () => new Promise((r) => (release = r)), delay: () => 10, timers });
  w.play();
  await timers.fire();
  assert.equal(timers.count(), 0, "step 1 is not shown yet: no next step");
  release();
  await new Promise((r) => setImmediate(r));
  assert.equal(timers.count(), 1);
});

test("Pause and the reader's pick stop play; Play from the end starts again", async () => {
  const timers = fakeTimers();
  const shown = [];
  const w = new Walk({ steps: 4, onStep: (i) => shown.push(i), delay: () => 10, timers });
  w.play();
  await timers.fire();
  w.pause();
  assert.equal(timers.count(), 0);
  await w.pick(4);
  assert.deepEqual(shown, [1, 4]);
  assert.equal(w.playing, false);
  w.play();
  await new Promise((r) => setImmediate(r));
  assert.equal(shown.at(-1), 0, "from the end, Play shows step 0 first");
  await timers.fire();
  assert.equal(shown.at(-1), 1);
});

test("set and setSteps keep the step within 0..n, and call no one", () => {
  const shown = [];
  const w = new Walk({ steps: 5, onStep: (i) => shown.push(i), delay: () => 10, timers: fakeTimers() });
  w.set(9);
  assert.equal(w.i, 5);
  w.setSteps(2);
  assert.equal(w.i, 2);
  w.set(-3);
  assert.equal(w.i, 0);
  assert.deepEqual(shown, []);
  w.setSteps(0);
  w.play();
  assert.equal(w.playing, false, "nothing to play");
});
