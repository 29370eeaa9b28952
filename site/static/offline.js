// @ts-check
// offline.js registers the site's service worker (sw.js, at the site's
// root) on the site's own pages, and runs the index's "Make all lessons
// available offline" control. Pages elsewhere that embed the playground
// with a script tag load twice.js, never this file, so no service worker
// is ever registered on them.
//
// It registers the worker once the page's own work is done, not as the
// page loads: the worker's install fetches the site's shell (a dozen
// assets), and on a first visit that competed with the first Run for the
// two cores of a small laptop and for the network, and counted in the
// bytes the page fetched before its first result. So: on a page without
// a block (or on the index, whose block waits for the reader), after its
// load event; on a page with blocks, when the page's
// runtime has answered its first run, finished its warm-up, or failed
// (runtime-client.js says so: data-twice-settled on the root element, and
// the twice:settled event), and in any case 10 s after the load event (a
// page whose blocks are all below the fold never starts the runtime).
// The index's control registers it at once when pressed.
//
// The index marks each lesson the worker keeps ("kept offline"), once it
// has asked how many are. The offline page (the worker's answer, with no
// network, for a page it does not keep) marks them the same way, links
// only those, and registers nothing: the worker that answered it is
// already there.
(function () {
  "use strict";
  const html = document.documentElement;
  if (!("serviceWorker" in navigator) || !html.dataset.twicePage) return;
  const root = new URL(html.dataset.twiceRoot || "./", location.href);

  // markKept marks the lessons of list (an ol.lessons) that pages (paths
  // below the root) holds: "kept offline"; with unlink, the others lose
  // their link and say they are not kept.
  function markKept(list, pages, unlink) {
    for (const li of list.querySelectorAll("li")) {
      const a = li.querySelector("a");
      if (!a) continue;
      const page = li.dataset.page || new URL(a.href).pathname.slice(root.pathname.length);
      const kept = pages.includes(page);
      let mark = li.querySelector(".kept-mark");
      if (!mark) {
        mark = document.createElement("span");
        mark.className = "kept-mark";
        a.after(" ", mark);
      }
      mark.textContent = kept ? "· kept offline" : unlink ? "· not kept on this device" : "";
      li.classList.toggle("kept", kept);
      if (!kept && unlink) {
        const title = document.createElement("span");
        title.className = "lesson-title";
        title.textContent = a.textContent;
        a.replaceWith(title);
      }
    }
  }

  if (html.dataset.twicePage === "offline") {
    offlinePage();
    return;
  }

  // register registers the worker, once, and resolves with its
  // registration once a worker is active (null if it cannot be). On the
  // index, it then shows how many lessons are kept (see below).
  let registered = null;
  function register() {
    if (registered === null) {
      registered = navigator.serviceWorker
        .register(new URL("sw.js", root).href, { scope: root.pathname })
        .then((reg) => {
          nudge(reg);
          reg.addEventListener("updatefound", () => nudge(reg));
          return navigator.serviceWorker.ready;
        })
        .catch(() => null);
      // The page the reader is on was loaded before the worker controlled
      // it (on a first visit) or came from the network through it; either
      // way, ask the worker to keep it, so that a reload with no network
      // finds it.
      registered.then((reg) => reg && reg.active && reg.active.postMessage({ type: "twice:keep-page", url: location.href }));
      if (control) control();
    }
    return registered;
  }

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

  // ask sends a message to the active worker, registering it first if that
  // has not happened yet, and resolves with its answer.
  const ask = (type) =>
    register().then(
      (reg) =>
        new Promise((resolve) => {
          if (!reg || !reg.active) return resolve(null);
          const ch = new MessageChannel();
          ch.port1.onmessage = (e) => resolve(e.data);
          reg.active.postMessage({ type }, [ch.port2]);
        })
    );

  // When to register: see above.
  const afterLoad = (f) => (document.readyState === "complete" ? f() : addEventListener("load", f, { once: true }));
  const box = document.querySelector("section.offline");
  const control = box && offlineControl(box);
  // The index's block starts no runtime until the reader reaches for it
  // (boot.js, onDemand): there is no first Run work to wait for.
  if (document.querySelector("twice-playground") === null || html.dataset.twicePage === "index") {
    afterLoad(register);
  } else {
    if (html.dataset.twiceSettled) register();
    else document.addEventListener("twice:settled", register, { once: true });
    afterLoad(() => setTimeout(register, 10000));
  }

  // offlinePage fills the offline page: which lessons the worker that
  // answered it keeps.
  function offlinePage() {
    const status = /** @type {HTMLElement} */ (document.querySelector(".offline-status"));
    const list = document.querySelector("ol.offline-lessons");
    const worker = navigator.serviceWorker.controller;
    if (!worker || !list) return;
    const ch = new MessageChannel();
    ch.port1.onmessage = (e) => {
      const r = e.data || {};
      const pages = r.pages || [];
      markKept(list, pages, true);
      status.textContent =
        pages.length === 0
          ? "No lesson is kept on this device yet: open one while the network works, and it stays."
          : pages.length + " of " + r.of + (r.of === 1 ? " lesson is" : " lessons are") + " kept on this device:";
    };
    worker.postMessage({ type: "twice:status" }, [ch.port2]);
  }

  // offlineControl runs the index's control: it shows it, and keeps every
  // page when its button is pressed. It returns what register calls: ask
  // the count of lessons kept, unless the button asked for more first.
  function offlineControl(box) {
    const button = box.querySelector("button");
    const status = box.querySelector(".offline-status");
    const list = document.querySelector("ol.lessons");
    const say = (r) => {
      if (!r || r.error) {
        status.textContent = "This browser cannot keep the lessons offline here" + (r && r.error ? ": " + r.error : ".");
        return;
      }
      if (list && r.pages) markKept(list, r.pages, false);
      status.textContent =
        r.kept === r.of
          ? "All " + r.of + " lessons are available offline."
          : r.kept + " of " + r.of + " lessons are available offline" + (r.failed ? " (" + r.failed + " could not be fetched)." : ".");
    };
    // Only the answer to the latest question is shown: the count asked for
    // as the worker is registered can arrive after a press of the button
    // has kept every page, and must not overwrite that.
    let latest = 0;
    const show = (type, done) => {
      const n = ++latest;
      ask(type).then((r) => {
        if (done) done();
        if (n === latest) say(r);
      });
    };
    box.hidden = false;
    button.addEventListener("click", () => {
      button.disabled = true;
      status.textContent = "Fetching every lesson…";
      show("twice:cache-all", () => (button.disabled = false));
    });
    return () => latest === 0 && show("twice:status");
  }
})();
