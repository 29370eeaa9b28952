// @ts-check
// reload.js reloads a page of twice serve when the server has rendered it
// anew: a teacher edited its lesson, and every open tab shows the edit
// without a student pressing reload. Only pages twice serve renders load
// it; an export (twice build) has neither this file nor the endpoint it
// asks. The page carries its version in <meta name="twice-version">; the
// server answers the current one at __twice/version?page=PAGE. What a
// reader typed in a block comes back after the reload (drafts.js).
(function () {
  "use strict";
  const meta = /** @type {HTMLMetaElement} */ (document.querySelector('meta[name="twice-version"]'));
  if (!meta) return;
  const url = new URL(String(meta.dataset.endpoint), location.href).href;
  const every = 1500;
  let timer = 0;
  async function check() {
    timer = 0;
    let next = every;
    try {
      const res = await fetch(url, { cache: "no-store" });
      if (res.ok) {
        const v = (await res.text()).trim();
        // A reader's edit the browser refused to keep (drafts.js marks
        // the page) would be lost: the page waits until it is kept.
        if (v && v !== meta.content && !document.documentElement.dataset.twiceUnsaved) {
          location.reload();
          return;
        }
      }
    } catch {
      next = every * 4; // the server is down or restarting: ask less often
    }
    schedule(next);
  }
  function schedule(ms) {
    if (!timer && !document.hidden) timer = setTimeout(check, ms);
  }
  document.addEventListener("visibilitychange", () => schedule(0));
  schedule(every);
})();
