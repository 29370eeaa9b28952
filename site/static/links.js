// @ts-check
// links.js owns what a block says in text rather than in the DOM: the
// claim toggle's lists and its pick of a script (withClaim), the links
// that replay a run from the fragment alone (linkHash, parseLink), the
// command line that prints the same run natively (commandFor, shellQuote)
// and the iframe snippet of "Embed this block". It reads no script: what
// a script's claim is, and its text with another claim, are the runtime's
// to say, as are the scripts the other views run (Every ordering's race,
// Compare's sides); they come in the Result's views.
//
// Pure functions of their arguments and of CONFIG's lists: no browser
// global is touched, at import time or after, so tests import them as is.

import { CONFIG } from "./config.js";

// MAX_SEED is the largest seed, the largest uint64.
export const MAX_SEED = 18446744073709551615n;

// seedOf returns the seed of a Result as decimal text, read from its JSON
// (where it comes first): JSON.parse turns it into a Number, which
// cannot hold every uint64 (18446744073709551615 would read
// 18446744073709552000 and a link would replay another seed).
export function seedOf(json, res) {
  const m = /^\s*\{"seed":([0-9]+)[,}]/.exec(json);
  return m ? m[1] : res.seed != null ? String(res.seed) : "";
}

// ---- the claim toggle -------------------------------------------------

// The claims the toggle offers, however many the runtime has: those that
// are not another name for one, in the runtime's order; the first is the
// default.
export function toggleClaims() {
  return CONFIG.claims.filter((c) => c.alias === c.name);
}

// claimWords says what a claim does, from the runtime's list.
export function claimWords(name) {
  const c = CONFIG.claims.find((c) => c.name === name);
  return c ? c.words : "";
}

// comparePair is the pair of claims Compare shows, out of the claims the
// runtime offers to compare (offered, in its order): the reader's pick
// when both of its claims are offered; else the block's own claim (own)
// beside the claim to compare to (to, the config's compareTo), or, when
// the block's claim is that one or is not offered, the first other claim
// beside it. With one claim offered, it is alone.
export function comparePair(offered, own, to, picked) {
  if (picked && picked.length === 2 && picked[0] !== picked[1] && picked.every((c) => offered.includes(c))) return picked.slice();
  if (offered.length < 2) return offered.slice();
  const second = offered.includes(to) ? to : offered[offered.length - 1];
  const first = own !== second && offered.includes(own) ? own : offered.find((c) => c !== second);
  return [first, second];
}

// withClaim is the script with claim, out of claims: a Result's
// views.compare, or the runtime's answer for a script the reader edited
// (the worker's claims). Both hold in toggle the block's own text with
// the claim set where the parser found one (lang's Script.WithClaim),
// comments and spacing kept. It is null when there is none: a script that starts no
// worker has nothing to set, and one that does not parse cannot be read.
export function withClaim(claims, claim) {
  const side = claims && !claims.error && (claims.toggle || []).find((s) => s.claim === claim);
  return side ? side.script : null;
}

// ---- links, commands and exploration scripts ------------------------

// VIEWS are the views a link may name when the caller does not say which
// a block has: a block passes the keys of the views it mounted.
export const VIEWS = ["output", "timeline", "compare", "interleavings", "scheduler"];

// MAX_SCHEDULE is the most steps a link's schedule may name.
const MAX_SCHEDULE = 200;

// linkHash writes the fragment of a link to a run of the block with the
// given id. The script and the seed replay the run; the claim says which
// claim the reader chose (the page sets it in the script if a hand-edited
// link disagrees); view, step, workers and the pair of claims
// Compare shows (pair, when the reader picked one) reopen what they looked
// at, and schedule (worker names, in order) replays the steps the reader
// gave in Be the scheduler. Query-style parameters in the fragment keep
// the link readable, never reach a server, and work on any static host.
export function linkHash(id, r) {
  return (r.route || "") + runHash(id, r);
}

// routeOf returns the route a fragment starts with, in the single-file
// build's pages ("#/lessons/claim-race/" of
// "#/lessons/claim-race/#block-1?seed=1&..."), or "".
export function routeOf(hash) {
  const m = /^#\/[^#]*/.exec(hash);
  return m ? m[0] : "";
}

// runHash is linkHash without the route.
function runHash(id, r) {
  const p = new URLSearchParams({ seed: String(r.seed), script: r.script });
  if (r.claim) p.set("claim", r.claim);
  if (r.view && r.view !== "output") p.set("view", r.view);
  if (r.view === "timeline" && r.step > 1) p.set("step", String(r.step));
  if (r.view === "interleavings" && r.workers && r.workers !== 2) p.set("workers", String(r.workers));
  if (r.view === "compare" && r.pair && r.pair.length === 2) p.set("pair", r.pair.join(","));
  if (r.view === "scheduler" && r.schedule && r.schedule.length) p.set("schedule", r.schedule.join(","));
  return "#" + id + "?" + p;
}

// maxLink is the longest fragment parseLink reads: a script of the
// runtime's most bytes with every byte written as %XX, and room for the
// other parameters. A longer one is refused before it is read.
export function maxLink() {
  return 3 * CONFIG.maxScript + 4096;
}

// parseLink reads a link made by linkHash for the block with the given
// id; it returns null for any other hash. Links from before the claim
// and view parameters existed (#ID?seed=N&script=TEXT) still work. A
// value it cannot use (seed=-1, claim=fenced, step=0) falls back to its
// default and is named in error, which the block shows instead of
// running: a link that silently ran something else would mislead. claim
// is the claim the link names (null when none or a bad one): the page
// sets it in the script, by the runtime, when the script's own differs.
// views lists the views the block has (VIEWS unless given). Every value
// is measured before it is read, and nothing here reads the script.
/**
 * Link is a link to a run as parseLink reads it: what to replay, or, for
 * a link too long to read (unread), only why.
 *
 * @typedef {object} Link
 * @property {string} [script]
 * @property {string} [seed] "" for the block's own
 * @property {string | null} [claim] the claim the link names, null for none
 * @property {string} [view] the key of the view to open
 * @property {number} [step] the timeline's step, from 1
 * @property {number} [workers] Every ordering's workers, 0 for the block's own
 * @property {string[]} [schedule] Be the scheduler's steps
 * @property {string[]} [pair] the claims Compare shows
 * @property {string} [error] the values it cannot use, in words
 * @property {boolean} [unread] the link is too long to read
 */

/**
 * @param {string} hash
 * @param {string} id
 * @param {string[]} [views]
 * @returns {Link | null}
 */
export function parseLink(hash, id, views = VIEWS) {
  // A single-file page's link carries its route first.
  const route = routeOf(hash);
  if (route && hash.indexOf("#", 1) === route.length) hash = hash.slice(route.length);
  const prefix = "#" + id + "?";
  if (!id || !hash.startsWith(prefix)) return null;
  if (hash.length > maxLink()) {
    return { unread: true, error: "the link is " + hash.length + " characters long, more than the " + maxLink() + " a link to a run may have" };
  }
  const p = new URLSearchParams(hash.slice(prefix.length));
  const script = p.get("script");
  if (script === null) return null;
  const bad = [];
  const shown = (v) => JSON.stringify(v.length > 40 ? v.slice(0, 40) + "…" : v);
  const bytes = new TextEncoder().encode(script).length;
  if (bytes > CONFIG.maxScript) bad.push("script is " + bytes + " bytes, more than the " + CONFIG.maxScript + " a script may have");
  let seed = p.get("seed") || "";
  if (seed.length > String(MAX_SEED).length || !/^[0-9]*$/.test(seed) || (seed !== "" && BigInt(seed) > MAX_SEED)) {
    bad.push("seed=" + shown(seed) + " is not a whole number from 0 to " + MAX_SEED);
    seed = "";
  }
  const claims = toggleClaims().map((c) => c.name);
  let claim = p.get("claim");
  if (claim !== null && !claims.includes(claim)) {
    bad.push("claim=" + shown(claim) + " is not " + (claims.length > 1 ? claims.slice(0, -1).join(", ") + " or " + claims[claims.length - 1] : claims.join("")));
    claim = null;
  }
  /** @type {Link} */
  const r = { script, seed, claim, ...linkViews(p, views, claims, bad, shown) };
  if (bad.length) r.error = bad.join("; ");
  return r;
}

// linkViews reads the parameters of a link that reopen a view: view,
// step, workers, schedule and pair, each checked, its error (if any)
// added to bad.
function linkViews(p, views, claims, bad, shown) {
  const v = p.get("view");
  const view = views.includes(v) ? v : "output";
  if (v !== null && !views.includes(v)) bad.push("view=" + shown(v) + " is not one of " + views.join(", "));
  const st = p.get("step");
  const step = /^[1-9][0-9]{0,6}$/.test(st || "") ? Number(st) : 1;
  if (st !== null && step === 1 && st !== "1") bad.push("step=" + shown(st) + " is not a step number");
  const ws = p.get("workers");
  const w = Number(ws);
  const workers = Number.isInteger(w) && w >= 2 && w <= 8 ? w : 0;
  if (ws !== null && workers === 0) bad.push("workers=" + shown(ws) + " is not a whole number from 2 to 8");
  const r = { view, step, workers };
  const sc = p.get("schedule");
  if (sc !== null) {
    const names = sc.length <= 3 * MAX_SCHEDULE ? sc.split(",") : [];
    if (names.length > 0 && names.length <= MAX_SCHEDULE && names.every((w) => /^W[1-8]$/.test(w))) r.schedule = names;
    else bad.push("schedule=" + shown(sc) + " is not a list of workers W1 to W8, at most " + MAX_SCHEDULE + " steps, separated by commas");
  }
  const pair = p.get("pair");
  if (pair !== null) {
    const two = pair.split(",", 3);
    if (two.length === 2 && two[0] !== two[1] && two.every((c) => claims.includes(c))) r.pair = two;
    else bad.push("pair=" + shown(pair) + " is not two claims of " + claims.join(", ") + ", apart by a comma");
  }
  return r;
}

// shellQuote quotes s for a POSIX shell: inside single quotes nothing is
// special, and a single quote is written as '\'' (close, escaped quote,
// reopen).
export function shellQuote(s) {
  return "'" + s.replace(/'/g, "'\\''") + "'";
}

// commandFor is the command line that prints the same run natively; with
// fromSource, the form a reader of the README has before installing
// anything: go run ./cmd/twice in a clone of the repository.
export function commandFor(script, seed, fromSource) {
  return (fromSource ? "go run ./cmd/twice" : "twice") + " run --seed " + seed + " -c " + shellQuote(script.trimEnd());
}

// loopback reports whether a host name is this machine's own (localhost,
// 127.0.0.0/8, ::1): a snippet naming it works on no one else's page.
export function loopback(hostname) {
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h.endsWith(".localhost") || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

// embedIframe is the iframe snippet for an embed page: the frame, with a
// title of its own, no border and the full width of its column (a
// browser's default border would push it past a phone's), and the few lines that apply the height the page
// inside posts (a message {type: "twice:height", height} from origin).
export function embedIframe(page, title, origin) {
  const attr = (s) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  return (
    '<iframe src="' + attr(page) + '" title="' + attr(title) + '" width="100%" height="640" style="border:0;width:100%" loading="lazy"></iframe>\n' +
    "<script>\n" +
    'addEventListener("message", (e) => {\n' +
    "  if (e.origin !== " + JSON.stringify(origin) + ' || !e.data || e.data.type !== "twice:height") return;\n' +
    '  for (const f of document.querySelectorAll("iframe"))\n' +
    "    if (f.contentWindow === e.source) f.height = String(Math.ceil(e.data.height));\n" +
    "});\n" +
    "</script>"
  );
}

