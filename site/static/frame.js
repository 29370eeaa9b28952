// @ts-check
// frame.js is what twice.js loads, as a classic script, when the element's
// modules cannot be imported. On a page of another origin, browsers fetch
// module scripts, and the runtime's wasm, in CORS mode: from a twice site
// whose host sends no Access-Control-Allow-Origin header (a plain static
// host) they refuse them. A classic script and a frame need no such
// header, so this file defines <twice-playground> as a frame of a page of
// the twice site, carrying the script and seed the element holds as a link
// to that run, and its label: the block runs there, on the twice site's
// own origin. The page is the block's embed page when it names one (its
// from attribute), where the output the server rendered shows at once
// when the script is the lesson's; otherwise the site's play page
// (embed/play/), which runs any script its link carries. The frame takes
// the height its page posts ({type: "twice:height"}), as the iframe
// snippet does.
//
// What the page's author can fix (the header) is said on the console,
// not to the page's readers. A block that cannot be framed (the site does
// not answer, or the page is the site's own) shows its script, quietly
// noted, and the console says why.
//
// twice.js passes why the import failed (data-error) and the entry
// module's address (data-entry), which this file asks for again without
// CORS to tell a host that sends no header from one that cannot be
// reached.
(function () {
  "use strict";
  const me = /** @type {HTMLScriptElement} */ (document.currentScript);
  if (!me || window.customElements === undefined || customElements.get("twice-playground")) return;
  const site = new URL(me.src).origin;
  const crossOrigin = site !== location.origin;
  const embedPath = /^\/(?:.*\/)?embed\/[^/]+\/(\d+)\/$/;

  // cause resolves with what kept the modules out: "cors" (the host
  // answers, without the header), "network" (it does not answer) or
  // "other" (the page is of the site's own origin).
  const cause = !crossOrigin
    ? Promise.resolve("other")
    : fetch(String(me.dataset.entry), { mode: "no-cors", credentials: "omit" }).then(
        () => "cors",
        () => "network"
      );

  // explain says, for the author of the page (on the console), why the
  // blocks are framed or cannot run, and what fixes it.
  function explain(c) {
    if (c === "cors") {
      return (
        site + " sends twice's scripts without an Access-Control-Allow-Origin header, which a page on another origin needs (browsers refuse module scripts and the runtime's download without it), " +
        "so each block is shown in a frame of a page of " + site + ". Send Access-Control-Allow-Origin: * with /assets/ and /embed/ there to make the blocks part of this page."
      );
    }
    if (c === "network") return site + " did not answer for twice's scripts, so the blocks cannot run. Check that the address in the script tag is the published site's.";
    return "the blocks' scripts did not load (" + (me.dataset.error || "no reason given") + "). Reload the page.";
  }

  // The frames made, so that a height posted by one reaches it alone.
  const frames = new Set();
  addEventListener("message", (e) => {
    if (e.origin !== site || !e.data || e.data.type !== "twice:height") return;
    for (const f of frames) if (f.contentWindow === e.source) f.height = String(Math.ceil(e.data.height));
  });

  // The site's play page: embed/play/ beside the assets/ folder the
  // loader came from.
  const playPage = new URL("../embed/play/", me.src);

  // embedPage returns the embed page an element names (from), with the
  // number of its block, or null when it names none of this site.
  function embedPage(el) {
    const from = el.getAttribute("from");
    if (!from) return null;
    let u;
    try {
      u = new URL(from, location.href);
    } catch {
      return null;
    }
    const m = embedPath.exec(u.pathname);
    return u.origin === site && m ? { url: u, block: m[1] } : null;
  }

  // framePage returns the URL of the page that runs an element's block:
  // its embed page, or the play page, with the link to its script and
  // seed and its label; null on the site's own origin.
  function framePage(el) {
    if (!crossOrigin) return null;
    const named = embedPage(el);
    const u = new URL(named ? named.url.href : playPage.href);
    const label = el.getAttribute("label");
    if (label) u.searchParams.set("label", label);
    const pre = el.querySelector("pre");
    const link = new URLSearchParams();
    if (el.getAttribute("seed")) link.set("seed", el.getAttribute("seed"));
    link.set("script", pre ? pre.textContent.replace(/^\n/, "") : "");
    u.hash = "block-" + (named ? named.block : "1") + "?" + link;
    return u.href;
  }

  class FramedPlayground extends HTMLElement {
    connectedCallback() {
      if (this.shadowRoot) return;
      const root = this.attachShadow({ mode: "open" });
      const page = framePage(this);
      if (page) {
        const f = document.createElement("iframe");
        f.src = page;
        f.title = "twice: " + (this.getAttribute("label") || "playground");
        f.width = "100%";
        f.height = "640";
        f.style.border = "0";
        f.style.display = "block";
        f.style.width = "100%";
        frames.add(f);
        root.append(f);
        this.setAttribute("state", "framed");
        return;
      }
      // The script stays readable; a quiet line says it does not run.
      const note = document.createElement("p");
      note.style.font = "0.85em system-ui, sans-serif";
      note.style.opacity = "0.75";
      note.style.margin = "0 0 0.3rem";
      note.textContent = "This twice block cannot run on this page.";
      root.append(note, document.createElement("slot"));
      this.setAttribute("state", "unavailable");
    }
  }
  customElements.define("twice-playground", FramedPlayground);
  cause.then((c) => {
    if (document.querySelector("twice-playground")) console.warn("twice: " + explain(c));
  });
})();
