// @ts-check
// frame.js is what twice.js loads, as a classic script, when the element's
// modules cannot be imported. On a page of another origin, browsers fetch
// module scripts, and the runtime's wasm, in CORS mode: from a twice site
// whose host sends no Access-Control-Allow-Origin header (a plain static
// host) they refuse them. A classic script and a frame need no such
// header, so this file defines <twice-playground> as a frame of the
// block's embed page (its from attribute, a page of the twice site),
// carrying the script and seed the element holds as a link to that run:
// the block runs there, on the twice site's own origin, with the output
// the server rendered shown at once when the script is the lesson's. The
// frame takes the height its page posts ({type: "twice:height"}), as the
// iframe snippet does. An element that names no embed page cannot be
// framed: it says in the page what is missing and how to fix it, above
// its script.
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

  // explain says, for the author of the page, why a block cannot run
  // here and what fixes it.
  function explain(c) {
    if (c === "cors") {
      return (
        "This block cannot run here: " + site + " sends twice's scripts without an Access-Control-Allow-Origin header, and a page on another origin needs it (browsers refuse module scripts and the runtime's download without it). " +
        "Fix it on " + site + " by sending Access-Control-Allow-Origin: * with /assets/ and /embed/, or embed the block with an iframe: its lesson's \"Embed this block\" has the snippet. " +
        "A block pasted with that section's script tag names its embed page (from=\"...\") and is shown in a frame of it instead."
      );
    }
    if (c === "network") return "This block cannot run here: " + site + " did not answer for twice's scripts. Check that the address in the script tag is the published site's.";
    return "This block cannot run: its scripts did not load (" + (me.dataset.error || "no reason given") + "). Reload the page.";
  }

  // The frames made, so that a height posted by one reaches it alone.
  const frames = new Set();
  addEventListener("message", (e) => {
    if (e.origin !== site || !e.data || e.data.type !== "twice:height") return;
    for (const f of frames) if (f.contentWindow === e.source) f.height = String(Math.ceil(e.data.height));
  });

  // framePage returns the URL of the embed page an element names, with the
  // link to its script and seed, or null when it names none of this site.
  function framePage(el) {
    const from = el.getAttribute("from");
    if (!from || !crossOrigin) return null;
    let u;
    try {
      u = new URL(from, location.href);
    } catch {
      return null;
    }
    const m = embedPath.exec(u.pathname);
    if (u.origin !== site || !m) return null;
    const pre = el.querySelector("pre");
    const link = new URLSearchParams();
    if (el.getAttribute("seed")) link.set("seed", el.getAttribute("seed"));
    link.set("script", pre ? pre.textContent.replace(/^\n/, "") : "");
    u.hash = "block-" + m[1] + "?" + link;
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
      const note = document.createElement("p");
      note.setAttribute("role", "alert");
      note.style.borderLeft = "3px solid #a40e26";
      note.style.padding = "0.4rem 0.6rem";
      note.style.margin = "0 0 0.5rem";
      note.textContent = "This block cannot run here.";
      root.append(note, document.createElement("slot"));
      this.setAttribute("state", "unavailable");
      cause.then((c) => (note.textContent = explain(c)));
    }
  }
  customElements.define("twice-playground", FramedPlayground);
  cause.then((c) => {
    if (c === "cors" && document.querySelector("twice-playground[from]")) {
      console.warn("twice: " + site + " sends no Access-Control-Allow-Origin header, so the blocks that name their embed page are shown in frames of it; send Access-Control-Allow-Origin: * with /assets/ and /embed/ there to make them part of this page.");
    }
  });
})();
