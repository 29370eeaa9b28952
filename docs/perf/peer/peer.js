// peer.js is the page side of the peer: a block with a Run button, like
// one twice block, that runs `race read 20`'s SQL on the official SQLite
// build in a Web Worker (worker.mjs) and shows the tally.
//
// As twice starts its runtime when a block scrolls into view, this page
// starts its worker at once (its only block is in view). The block's state
// attribute says idle, running, done or error, and peerTimings() gives the
// phases in ms since navigation start, as TwicePlayground.timings() does.
"use strict";
(function () {
  const block = document.getElementById("peer");
  const created = performance.timeOrigin + performance.now();
  const worker = new Worker(new URL("worker.mjs", document.currentScript.src), { type: "module" });
  let marks = null;
  let received = 0;
  const out = document.createElement("pre");
  const run = document.createElement("button");
  run.className = "run";
  run.textContent = "Run";
  block.setAttribute("state", "idle");
  worker.onmessage = (e) => {
    const m = e.data;
    if (m.marks) marks = m.marks;
    if (m.type === "fatal") {
      block.setAttribute("state", "error");
      out.textContent = m.message;
    } else if (m.type === "result") {
      if (!received) received = performance.timeOrigin + performance.now();
      out.textContent = m.text + "\n(" + m.ms.toFixed(1) + " ms in the worker)";
      block.setAttribute("state", "done");
    }
  };
  worker.onerror = (e) => {
    block.setAttribute("state", "error");
    out.textContent = "the worker failed: " + (e.message || "unknown error");
  };
  let id = 0;
  run.addEventListener("click", () => {
    block.setAttribute("state", "running");
    worker.postMessage({ type: "run", id: ++id, races: 20 });
  });
  block.append(run, out);
  window.peerTimings = () => {
    if (!marks) return null;
    const t = { created: created - performance.timeOrigin };
    if (received) t.received = received - performance.timeOrigin;
    for (const [k, v] of Object.entries(marks)) t[k] = v - performance.timeOrigin;
    return t;
  };
})();
