// @ts-check
// embed.js is a block's way into other pages: the "Embed this block"
// snippets (an iframe of the block's embed page, or the script tag and the
// element), and, for a block pasted elsewhere with the script tag, the
// embed page it came from, read for the output the server rendered there.

import { assetURL } from "./config.js";
import { embedIframe, loopback, seedOf } from "./links.js";
import { h } from "./render.js";

// embedData fetches an embed page once per page and reads its block: the
// script (and its plain form), the seed and the pre-rendered Result. The
// page is parsed as an inert document: nothing in it runs or loads.
const embedPages = new Map();
/**
 * @param {string} url
 * @returns {Promise<{script: string, plain: string | null, seed: string, result: import("./result-types.js").ShownResult} | null>}
 */
export function embedData(url) {
  if (!embedPages.has(url)) {
    embedPages.set(
      url,
      fetch(url, { credentials: "omit" })
        .then((r) => (r.ok ? r.text() : Promise.reject(new Error("HTTP " + r.status))))
        .then((text) => {
          const doc = new DOMParser().parseFromString(text, "text/html");
          const el = doc.querySelector("twice-playground");
          const json = el && el.querySelector("script.twice-result");
          const pre = el && el.querySelector(".twice-script");
          if (!json || !pre) return null;
          const result = JSON.parse(json.textContent);
          result.seedText = seedOf(json.textContent, result);
          return { script: pre.textContent, plain: el.getAttribute("plain"), seed: el.getAttribute("seed") || "", result };
        })
    );
  }
  return embedPages.get(url);
}

// embedSnippets offers the two ways to put this block in another page.
// Both keep what the block is: the script-tag form carries an id (so
// links to it work), its controls and its label; the iframe
// form carries a title of its own and the lines that let the frame
// take the height its page asks for (see embedHeight in boot.js).
/**
 * @param {string} embed the block's embed page
 * @param {string} script the script the snippets carry
 * @param {{seed: string, controls: string | null, label: string | null, id: string}} o the block's attributes
 * @returns {HTMLElement}
 */
export function embedSnippets(embed, script, o) {
  const page = new URL(embed, location.href).href;
  // The pasted block's id names its lesson as well as its place there
  // (twice-atomic-claim-2), so blocks from two lessons pasted into one
  // post keep ids, and links, of their own.
  const where = /\/embed\/([^/]+)\/(\d+)\/$/.exec(new URL(page).pathname);
  if (where) o = { ...o, id: "twice-" + where[1] + "-" + where[2] };
  const origin = new URL(page).origin;
  const title = "twice: " + (o.label || "playground");
  const attr = (s) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  const iframe = embedIframe(page, title, origin);
  const esc = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const attrs =
    (o.id ? ' id="' + attr(o.id) + '"' : "") +
    (o.seed ? ' seed="' + attr(o.seed) + '"' : "") +
    (o.controls !== null && o.controls !== undefined ? ' controls="' + attr(o.controls) + '"' : "") +
    (o.label ? ' label="' + attr(o.label) + '"' : "");
  const tag =
    '<script src="' + assetURL("twice.js") + '" defer></script>\n' +
    "<twice-playground" + attrs + ' from="' + attr(page) + '">\n<pre>' + esc(script) + "</pre>\n</twice-playground>";
  const snippet = (title, text) => {
    // A URL breaks after its slashes and separators (<wbr>, which adds
    // no character to what is selected or copied), never inside a word.
    const pre = h("pre", { class: "snippet", tabindex: "0", "aria-label": title });
    for (const part of text.split(/(?<=[/?&=])(?=[^\s/])/)) pre.append(part, h("wbr"));
    const btn = h("button", { type: "button", class: "copy", text: "Copy" });
    btn.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(text);
        btn.textContent = "Copied";
      } catch {
        const sel = window.getSelection();
        if (sel) sel.selectAllChildren(pre);
        btn.textContent = "Press Ctrl+C";
      }
      setTimeout(() => (btn.textContent = "Copy"), 2000);
    });
    return h("div", { class: "snippet-box" }, h("p", { text: title }), pre, btn);
  };
  // A page served from this machine names an address no one else can
  // reach: the snippet needs the site's published one.
  const local = loopback(new URL(page).hostname)
    ? h("p", { class: "embed-local", text: "This page is served from your own machine (" + origin + "), so these snippets name an address only it can reach. Copy them from the published site, or replace " + origin + " with its URL." })
    : null;
  return h(
    "details",
    { class: "embed" },
    h("summary", { text: "Embed this block" }),
    ...(local ? [local] : []),
    snippet("By iframe (it takes the height of its content)", iframe),
    snippet("By script tag (the page's CSP must allow this origin, blob: workers and 'wasm-unsafe-eval')", tag),
    h("p", {
      class: "embed-note",
      text:
        "The script tag needs " + origin + " to send an Access-Control-Allow-Origin header with /assets/ and /embed/ (twice serve does; a plain static host does not): the block is then part of the page. Without it, the block shows in a frame of its embed page instead, as the iframe does.",
    })
  );
}
