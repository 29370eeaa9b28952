// links.js owns what a block says in text rather than in the DOM: the claim
// toggle's rewriting of scripts (claimOf, rewriteClaim), the links that
// replay a run from the fragment alone (linkHash, parseLink), the command
// line that prints the same run natively (commandFor, shellQuote) and the
// iframe snippet of "Embed this block". The scripts the other views run
// (Every ordering's race, Compare's sides) are the runtime's to write:
// they come in the Result's views.
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

// claimAlt is a regular expression alternation of every claim's name.
function claimAlt() {
  return "(" + CONFIG.claims.map((c) => c.name).join("|") + ")";
}

// claimOf reports the claim a script uses: the first claim a race or work
// command names that is not the default one (an alias counts as the
// claim it names), else the default claim.
export function claimOf(src) {
  const def = toggleClaims().length ? toggleClaims()[0].name : "";
  const named = [new RegExp("(?:^|[\\s(;&])race\\s+" + claimAlt() + "\\b", "g"), new RegExp("--claim(?:\\s+|=)" + claimAlt() + "\\b", "g")];
  for (const line of src.split("\n")) {
    const code = stripComment(line);
    for (const re of named) {
      for (const m of code.matchAll(re)) {
        const c = CONFIG.claims.find((c) => c.name === m[1]);
        if (c && c.alias !== def) return c.alias;
      }
    }
  }
  return def;
}

// stripComment returns the part of a line before a # that starts a word.
function stripComment(line) {
  const m = /(^|\s)#/.exec(line);
  return m ? line.slice(0, m.index) : line;
}

// rewriteClaim sets the claim of every race and work command of src to
// claim (one of the toggle's claims): it replaces the argument of race and of
// --claim, and adds --claim to work commands that have none. Comments,
// spacing and everything else are kept.
export function rewriteClaim(src, claim) {
  return src
    .split("\n")
    .map((line) => {
      const code = stripComment(line);
      const comment = line.slice(code.length);
      // Split into commands, keeping the separators.
      const parts = code.split(/(&&|;)/);
      for (let i = 0; i < parts.length; i += 2) {
        parts[i] = rewriteCommand(parts[i], claim);
      }
      return parts.join("") + comment;
    })
    .join("\n");
}

function rewriteCommand(cmd, claim) {
  // Leading "(", "node queue.mjs" or "twice" before the command word.
  const head = /^(\s*\(?\s*(?:node\s+queue\.mjs\s+|twice\s+)?)(\S+)/.exec(cmd);
  if (!head) return cmd;
  const word = head[2];
  if (word === "race") {
    return cmd.replace(new RegExp("^(\\s*\\(?\\s*(?:node\\s+queue\\.mjs\\s+|twice\\s+)?race\\s+)" + claimAlt() + "\\b"), "$1" + claim);
  }
  if (word !== "work") return cmd;
  const flag = new RegExp("--claim(\\s+|=)" + claimAlt() + "\\b", "g");
  if (flag.test(cmd)) {
    return cmd.replace(flag, "--claim$1" + claim);
  }
  // Insert before a trailing ")" or "2>/dev/null" and trailing spaces.
  const tail = /(\s*(?:\)\s*)?(?:2>\s*\/dev\/null\s*)?(?:\)\s*)?)$/.exec(cmd);
  const at = tail ? cmd.length - tail[1].length : cmd.length;
  return cmd.slice(0, at) + " --claim " + claim + cmd.slice(at);
}

// ---- links, commands and exploration scripts ------------------------

// VIEWS are the views a link may name when the caller does not say which
// a block has: a block passes the keys of the views it mounted.
export const VIEWS = ["output", "timeline", "compare", "interleavings", "scheduler"];

// MAX_SCHEDULE is the most steps a link's schedule may name.
const MAX_SCHEDULE = 200;

// linkHash writes the fragment of a link to a run of the block with the
// given id. The script and the seed replay the run; the claim says which
// claim the reader chose (parseLink applies it to the script if a hand-
// edited link disagrees); view, step, workers and the pair of claims
// Compare shows (pair, when the reader picked one) reopen what they looked
// at, and schedule (worker names, in order) replays the steps the reader
// gave in Be the scheduler. Query-style parameters in the fragment keep
// the link readable, never reach a server, and work on any static host.
export function linkHash(id, r) {
  const p = new URLSearchParams({ seed: String(r.seed), script: r.script, claim: r.claim || claimOf(r.script) });
  if (r.view && r.view !== "output") p.set("view", r.view);
  if (r.view === "timeline" && r.step > 1) p.set("step", String(r.step));
  if (r.view === "interleavings" && r.workers && r.workers !== 2) p.set("workers", String(r.workers));
  if (r.view === "compare" && r.pair && r.pair.length === 2) p.set("pair", r.pair.join(","));
  if (r.view === "scheduler" && r.schedule && r.schedule.length) p.set("schedule", r.schedule.join(","));
  return "#" + id + "?" + p;
}

// parseLink reads a link made by linkHash for the block with the given
// id; it returns null for any other hash. Links from before the claim
// and view parameters existed (#ID?seed=N&script=TEXT) still work. A
// value it cannot use (seed=-1, claim=fenced, step=0) falls back to its
// default and is named in error, which the block shows instead of
// running: a link that silently ran something else would mislead. views
// lists the views the block has (VIEWS unless given).
export function parseLink(hash, id, views = VIEWS) {
  const prefix = "#" + id + "?";
  if (!id || !hash.startsWith(prefix)) return null;
  const p = new URLSearchParams(hash.slice(prefix.length));
  let script = p.get("script");
  if (script === null) return null;
  const bad = [];
  const shown = (v) => JSON.stringify(v.length > 40 ? v.slice(0, 40) + "…" : v);
  let seed = p.get("seed") || "";
  if (!/^[0-9]*$/.test(seed) || (seed !== "" && BigInt(seed) > MAX_SEED)) {
    bad.push("seed=" + shown(seed) + " is not a whole number from 0 to " + MAX_SEED);
    seed = "";
  }
  const claim = p.get("claim");
  const claims = toggleClaims().map((c) => c.name);
  if (claims.includes(claim) && claimOf(script) !== claim) {
    script = rewriteClaim(script, claim);
  } else if (claim !== null && !claims.includes(claim)) {
    bad.push("claim=" + shown(claim) + " is not " + (claims.length > 1 ? claims.slice(0, -1).join(", ") + " or " + claims[claims.length - 1] : claims.join("")));
  }
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
  const sc = p.get("schedule");
  let schedule = null;
  if (sc !== null) {
    const names = sc.split(",");
    if (names.length <= MAX_SCHEDULE && names.every((w) => /^W[1-8]$/.test(w))) schedule = names;
    else bad.push("schedule=" + shown(sc) + " is not a list of workers W1 to W8, at most " + MAX_SCHEDULE + " steps, separated by commas");
  }
  const r = { script, seed, claim: claimOf(script), view, step, workers };
  if (schedule) r.schedule = schedule;
  const pair = p.get("pair");
  if (pair !== null) {
    const two = pair.split(",");
    if (two.length === 2 && two[0] !== two[1] && two.every((c) => claims.includes(c))) r.pair = two;
    else bad.push("pair=" + shown(pair) + " is not two claims of " + claims.join(", ") + ", apart by a comma");
  }
  if (bad.length) r.error = bad.join("; ");
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
  return (fromSource ? "go run ./cmd/twice" : "twice") + " run --seed " + seed + " -c " + shellQuote(script.replace(/\s+$/, ""));
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

