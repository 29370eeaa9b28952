// offline.js registers the site's service worker (sw.js, at the site's
// root) on the site's own pages, and runs the index's "Make all lessons
// available offline" control. Pages elsewhere that embed the playground
// with a script tag load twice.js, never this file, so no service worker
// is ever registered on them.
(function () {
  "use strict";
  const html = document.documentElement;
  if (!("serviceWorker" in navigator) || !html.dataset.twicePage) return;
  const root = new URL(html.dataset.twiceRoot || "./", location.href);
  const ready = navigator.serviceWorker
    .register(new URL("sw.js", root).href, { scope: root.pathname })
    .then((reg) => {
      nudge(reg);
      reg.addEventListener("updatefound", () => nudge(reg));
      return navigator.serviceWorker.ready;
    })
    .catch(() => null);

  // The page the reader is on was loaded before the worker controlled it
  // (on a first visit) or came from the network through it; either way,
  // ask the worker to keep it, so that a reload with no network finds it.
  ready.then((reg) => reg && reg.active && reg.active.postMessage({ type: "twice:keep-page", url: location.href }));

  // nudge asks a new version's worker, once it is installed, to take over
  // now. It already calls skipWaiting as it installs, but Chromium can
  // leave it waiting behind an idle old worker indefinitely (seen: over
  // 90 s) until some later event; asking again makes it decide then.
  function nudge(reg) {
    const w = reg.installing || reg.waiting;
    if (!w) return;
    const ask = () => w.state === "installed" && w.postMessage({ type: "twice:activate" });
    ask();
    w.addEventListener("statechange", ask);
  }

  // ask sends a message to the active worker and resolves with its answer.
  const ask = (type) =>
    ready.then(
      (reg) =>
        new Promise((resolve) => {
          if (!reg || !reg.active) return resolve(null);
          const ch = new MessageChannel();
          ch.port1.onmessage = (e) => resolve(e.data);
          reg.active.postMessage({ type }, [ch.port2]);
        })
    );

  const box = document.querySelector(".offline");
  if (!box) return;
  const button = box.querySelector("button");
  const status = box.querySelector(".offline-status");
  const say = (r) => {
    if (!r || r.error) {
      status.textContent = "This browser cannot keep the lessons offline here" + (r && r.error ? ": " + r.error : ".");
      return;
    }
    status.textContent =
      r.kept === r.of
        ? "All " + r.of + " lessons are available offline."
        : r.kept + " of " + r.of + " lessons are available offline" + (r.failed ? " (" + r.failed + " could not be fetched)." : ".");
  };
  // Only the answer to the latest question is shown: the count asked for
  // as the page loads can arrive after a press of the button has kept
  // every page, and must not overwrite that.
  let latest = 0;
  const show = (type, done) => {
    const n = ++latest;
    ask(type).then((r) => {
      if (done) done();
      if (n === latest) say(r);
    });
  };
  box.hidden = false;
  show("twice:status");
  button.addEventListener("click", () => {
    button.disabled = true;
    status.textContent = "Fetching every lesson…";
    show("twice:cache-all", () => (button.disabled = false));
  });
})();
