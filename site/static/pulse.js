// @ts-check
// pulse.js is the class's side of twice serve --class: every student's
// prediction goes to the server as a vote, and the teacher's presenter
// view shows how the class voted. Pages carry data-twice-class only when
// the server collects votes; elsewhere (a static export, twice serve
// without --class) nothing here sends anything.
//
// Students. sendVote is called where a prediction is recorded
// (classroom.js, savePrediction): it posts the prediction to
// /class/votes with a random voter id kept in the browser's storage, and
// says in the block that the vote was counted. While the block's voting
// is open the run is held back: the teacher reveals it. The page asks the
// server every few seconds which round each block is in, and says so when
// the teacher starts the second round or reveals the run.
//
// The teacher. The key twice serve prints reaches the browser in the
// fragment of the teacher's link (#teacher=KEY), which never leaves the
// browser; it is kept in the browser's storage and taken out of the
// address. In the presenter view, with that key, presenterBlock shows
// under the block on screen how many have voted, the histogram once the
// teacher shows it (beside the earlier round's), and the teacher's
// buttons. It follows the votes as they come: the server answers a tally
// request when the class changes (long polling).
//
// The teacher notes: the server serves them in the pages of its own
// machine only; in the browser with the key, teacherNotes fetches them.
//
// The HTTP interface is in docs/MANUAL.md ("A class's predictions").

import { h } from "./render.js";

const VOTER = "twice:voter";
const KEY = "twice:teacher-key";
const EPOCH = "twice:class-epoch";

// poll is how often a student's page asks which round its blocks are in.
const poll = 5000;

function store() {
  try {
    return window.localStorage || null;
  } catch {
    return null;
  }
}

// classOn reports whether this page is served to a class that votes.
export function classOn() {
  const html = typeof document !== "undefined" && document.documentElement;
  return !!html && typeof html.hasAttribute === "function" && html.hasAttribute("data-twice-class");
}

// voterId is this browser's voter id, made once: 16 random bytes, in
// base64url. No name, no account.
function voterId() {
  const s = store();
  let id = s && s.getItem(VOTER);
  if (!id || !/^[A-Za-z0-9_-]{8,64}$/.test(id)) {
    const b = crypto.getRandomValues(new Uint8Array(16));
    id = btoa(String.fromCharCode(...b)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    if (s) s.setItem(VOTER, id);
  }
  return id;
}

// teacherKey is the teacher key this browser keeps, or "".
export function teacherKey() {
  const s = store();
  return (s && s.getItem(KEY)) || "";
}

// catchKey keeps the key of a teacher's link (#teacher=KEY) and takes it
// out of the address, so that it is neither shown nor shared.
function catchKey() {
  const m = /^#teacher=([0-9a-f]{32})$/.exec(location.hash);
  if (!m) return;
  const s = store();
  if (s) s.setItem(KEY, m[1]);
  history.replaceState(history.state, "", location.pathname + location.search);
}

// blockName names a block for the server: its page's path and its id.
function blockName(id) {
  return location.pathname + "#" + id;
}

// ---- students ------------------------------------------------------------

/** @type {{code: string, epoch: string, blocks: Record<string, {round: number, open: boolean}>} | null} */
let state = null;
// The votes this browser sent on this page, by block id: {round, value},
// kept with the predictions (so that a reload still says them).
const VOTES = "twice:votes:";

function voted() {
  const s = store();
  try {
    const v = s && JSON.parse(s.getItem(VOTES + location.pathname) || "{}");
    return v && typeof v === "object" ? v : {};
  } catch {
    return {};
  }
}

function keepVote(id, round, value) {
  const s = store();
  if (!s) return;
  const v = voted();
  v[id] = { round, value };
  s.setItem(VOTES + location.pathname, JSON.stringify(v));
}

function roundOf(id) {
  const b = state && state.blocks[id];
  return b ? b.round : 1;
}

function openOf(id) {
  const b = state && state.blocks[id];
  return b ? b.open : true;
}

// statusOf is the line in the block that says how its vote went, under
// its prediction form; null until the block has one.
function statusOf(id) {
  const el = document.getElementById(id);
  const form = el && el.shadowRoot && el.shadowRoot.querySelector(".predict");
  if (!form || !form.parentNode) return null;
  let p = /** @type {HTMLElement | null} */ (form.parentNode.querySelector(".pulse-status"));
  if (!p) {
    p = h("p", { class: "pulse-status", role: "status" });
    form.after(p);
  }
  return p;
}

// said holds the last thing said in each block, by id.
/** @type {Record<string, string>} */
const said = {};

// say says text in block id's status line, once the block has one (a
// block is set up after the page loads), unless something newer is said
// meanwhile.
function say(id, text, tries = 0) {
  if (tries === 0) said[id] = text;
  if (said[id] !== text) return;
  const p = statusOf(id);
  if (p) p.textContent = text;
  else if (tries < 40) setTimeout(() => say(id, text, tries + 1), 250);
}

// sendVote sends the reader's prediction for block id as a vote, when
// the page is in a class and the block's voting is open, and reports
// whether it did: the run then waits for the teacher to reveal it. The
// teacher's own browser (it has the key) does not vote.
export function sendVote(id, value) {
  if (!classOn() || teacherKey() || !openOf(id) || value === "") return false;
  say(id, "Sending your vote…");
  post(id, value, roundOf(id), true);
  return true;
}

async function post(id, value, round, retry) {
  const choice = /^-?\d+$/.test(value) ? Number(value) : value;
  let resp;
  try {
    resp = await fetch("/class/votes", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ block: blockName(id), round, voter: voterId(), choice }),
    });
  } catch {
    say(id, "Your vote could not be sent: check the connection, then vote again.");
    return;
  }
  if (resp.status === 204) {
    keepVote(id, round, value);
    counted(id, round, value);
    return;
  }
  const body = await resp.json().catch(() => ({}));
  if (resp.status === 409 && body.round) {
    if (!state) state = { code: "", epoch: "", blocks: {} };
    const closed = body.closed === true;
    state.blocks[id] = { round: body.round, open: !closed };
    if (!closed && retry && body.round !== round) return post(id, value, body.round, false);
    if (closed) {
      say(id, "The voting on this block is over: press Run to see what happens.");
      return;
    }
  }
  if (resp.status === 429) {
    say(id, "Too many votes at once: wait a second, then vote again.");
    return;
  }
  say(id, "Your vote was not counted: " + (body.error || "the server answered " + resp.status) + ".");
}

// follow asks the server which round the page's blocks are in, and says
// so in the blocks this page voted on; on a lesson page, again every few
// seconds while the page is shown.
async function follow() {
  if (document.visibilityState === "visible") {
    try {
      const resp = await fetch("/class/state?page=" + encodeURIComponent(location.pathname));
      if (resp.ok) update(await resp.json());
    } catch {
      // The next look tries again.
    }
  }
  if (document.documentElement.dataset.twicePage === "lesson") setTimeout(follow, poll);
}

function counted(id, round, value) {
  const code = state && state.code ? " for class " + state.code : "";
  say(id, "Your vote, " + value + ", is counted" + code + (round > 1 ? " in round " + round : "") + ". The teacher reveals the run.");
}

function update(next) {
  const was = state;
  state = next;
  forget(next.epoch);
  const mine = voted();
  for (const id of Object.keys(mine)) {
    const round = roundOf(id);
    const before = was && (was.blocks[id] || { round: 1, open: true });
    if (before && before.round === round && before.open === openOf(id)) continue; // nothing new
    if (!openOf(id)) say(id, "The voting on this block is over: press Run to see what happens.");
    else if (round > mine[id].round) say(id, "Round " + round + ": talk it over with your neighbours, then vote again.");
    else if (round === mine[id].round) counted(id, round, mine[id].value);
  }
}

// forget clears what this browser kept of the lessons (predictions, case
// progress, a saved fix) when the teacher has reset the class since it
// was here: the pages it loads next start afresh. The voter id stays.
function forget(epoch) {
  const s = store();
  if (!s || !epoch) return;
  const seen = s.getItem(EPOCH);
  s.setItem(EPOCH, epoch);
  if (!seen || seen === epoch) return;
  const gone = [];
  for (let i = 0; i < s.length; i++) {
    const k = s.key(i);
    if (k && k.startsWith("twice:") && k !== VOTER && k !== KEY && k !== EPOCH) gone.push(k);
  }
  for (const k of gone) s.removeItem(k);
}

// ---- the teacher's panel ---------------------------------------------------

/** @type {Panel | null} */
let panel = null;
let panelSeq = 0;

async function teacherFetch(path, body, signal) {
  /** @type {RequestInit & {headers: Record<string, string>}} */
  const init = { headers: { Authorization: "Bearer " + teacherKey() }, signal };
  if (body) {
    init.method = "POST";
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  return fetch(path, init);
}

// presenterBlock shows the class's panel under block (a twice-playground
// on the presenter's current slide), or takes it away (null). It shows
// only with the teacher key.
export function presenterBlock(block) {
  panelSeq++;
  if (panel) panel.close();
  panel = null;
  if (!block || !classOn() || !teacherKey() || !block.id) return;
  panel = new Panel(block, panelSeq);
  panel.follow();
}

// A Panel is the teacher's view of one block's votes.
class Panel {
  constructor(block, seq) {
    this.block = block;
    this.seq = seq;
    this.name = blockName(block.id);
    this.last = null;
    this.armed = 0; // Reset and New class ask for a second click within a few seconds
    /** @type {HTMLButtonElement | null} */
    this.armedFor = null;
    this.abort = new AbortController(); // ends the waiting request when the panel goes
    this.head = h("p", { class: "pulse-head" });
    this.rounds = h("div", { class: "pulse-rounds" });
    this.error = h("p", { class: "pulse-error", role: "alert" });
    this.show = this.button("pulse-show", "Show the votes", () => this.act("/class/reveal"));
    this.again = this.button("pulse-again", "Start round 2", () => this.act("/class/round"));
    this.run = this.button("pulse-run", "Reveal the run", () => this.reveal());
    this.reset = this.button("pulse-reset", "Reset this block", () => this.twice(this.reset, "Reset this block", () => this.act("/class/reset")));
    const csv = this.button("pulse-csv", "Download CSV", () => this.csv());
    this.fresh = this.button("pulse-new", "New class", () => this.twice(this.fresh, "New class", () => this.newClass()));
    this.fresh.title = "Every student's page forgets its predictions, case progress and saved fix on its next load";
    const actions = h("div", { class: "pulse-actions" }, this.show, this.again, this.run, this.reset, csv, this.fresh);
    this.el = h("section", { class: "pulse-panel", "aria-label": "The class's predictions" }, this.head, this.rounds, actions, this.error);
    block.after(this.el);
  }

  get current() {
    return this.seq === panelSeq;
  }

  close() {
    this.abort.abort();
    this.el.remove();
  }

  button(cls, text, onClick) {
    const b = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: cls, text }));
    b.addEventListener("click", onClick);
    return b;
  }

  // act asks the server for a teacher's action on the block, and draws
  // the tally it answers.
  async act(path) {
    this.error.textContent = "";
    try {
      const resp = await teacherFetch(path, { block: this.name });
      const body = await resp.json().catch(() => ({}));
      if (!resp.ok) this.error.textContent = body.error || "The server answered " + resp.status + ".";
      else if (this.current) this.draw(body);
      return resp.ok;
    } catch {
      this.error.textContent = "The server could not be reached.";
      return false;
    }
  }

  // reveal ends the voting and runs the block on the teacher's screen.
  async reveal() {
    if (!(await this.act("/class/run"))) return;
    const el = /** @type {any} */ (this.block);
    if (typeof el.run === "function") {
      if (el.predicted === undefined) el.predicted = "";
      el.run();
    }
  }

  // twice does what a button does on its second click within a few
  // seconds; the first asks for it.
  twice(button, label, f) {
    if (Date.now() - this.armed > 4000 || this.armedFor !== button) {
      this.armed = Date.now();
      this.armedFor = button;
      button.textContent = "Click again: " + label.toLowerCase();
      setTimeout(() => (button.textContent = label), 4000);
      return;
    }
    this.armed = 0;
    button.textContent = label;
    f();
  }

  // newClass starts afresh for the next class: each student's page
  // clears what it kept of the lessons on its next load.
  async newClass() {
    try {
      const resp = await teacherFetch("/class/new-class", {});
      this.error.textContent = resp.ok ? "" : "The class could not be reset (" + resp.status + ").";
      if (resp.ok) this.fresh.textContent = "New class started";
    } catch {
      this.error.textContent = "The server could not be reached.";
    }
  }

  async csv() {
    const resp = await teacherFetch("/class/tallies.csv");
    if (!resp.ok) {
      this.error.textContent = "The tallies could not be downloaded (" + resp.status + ").";
      return;
    }
    const a = /** @type {HTMLAnchorElement} */ (h("a", { href: URL.createObjectURL(await resp.blob()), download: "class-tallies.csv" }));
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  }

  draw(t) {
    this.last = t;
    this.head.textContent = "";
    this.head.append(
      h("strong", { text: "Class " + ((state && state.code) || "") }),
      document.createTextNode(" · "),
      h("span", { class: "pulse-count", "aria-live": "polite", text: t.votes + (t.votes === 1 ? " vote" : " votes") + " in round " + t.round }),
      document.createTextNode(t.closed ? " · the run is revealed" : "")
    );
    this.rounds.textContent = "";
    for (const r of t.rounds) this.rounds.append(figure(r, t.scale, r.round < t.round || t.shown));
    this.show.disabled = t.shown;
    this.again.disabled = t.round >= 2 || t.closed;
    this.run.disabled = t.closed;
  }

  // follow keeps the tally drawn: each answer comes when the class changes.
  async follow() {
    const page = await fetch("/class/state?page=" + encodeURIComponent(location.pathname)).catch(() => null);
    if (page && page.ok) state = await page.json();
    while (this.current && (await this.tick())) await new Promise((done) => setTimeout(done, 250));
  }

  // tick asks for the tally once it changes, and draws it; it reports
  // whether to go on.
  async tick() {
    try {
      const resp = await teacherFetch("/class/tally?block=" + encodeURIComponent(this.name) + (this.last ? "&after=" + this.last.version : ""), undefined, this.abort.signal);
      if (!this.current) return false;
      if (resp.status === 401) {
        this.error.textContent = "This browser's teacher key is not this server's: open the teacher's link twice serve printed.";
        return false;
      }
      if (resp.ok) this.draw(await resp.json());
    } catch {
      if (!this.current) return false;
      this.error.textContent = "The server could not be reached; trying again.";
    }
    return true;
  }
}

// bins groups a scale's values into at most 21 bars: [from, to] each.
export function bins(scale) {
  const n = scale.max - scale.min + 1;
  const width = Math.max(1, Math.ceil(n / 21));
  const out = [];
  for (let v = scale.min; v <= scale.max; v += width) out.push([v, Math.min(scale.max, v + width - 1)]);
  return out;
}

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c);
  return el;
}

// figure draws one round: its votes, and its histogram on the block's
// scale when shown.
function figure(r, scale, shown) {
  const cap = h("figcaption", { text: "Round " + r.round + ": " + r.votes + (r.votes === 1 ? " vote" : " votes") });
  const f = h("figure", { class: "pulse-round" }, cap);
  if (!shown) {
    f.append(h("p", { class: "pulse-hidden", text: "Hidden from the class until you show the votes." }));
    return f;
  }
  let counts;
  if (scale.choices && scale.choices.length) counts = scale.choices.map((c) => ({ label: c, n: r.counts[c] || 0 }));
  else
    counts = bins(scale).map(([a, b]) => {
      let n = 0;
      for (let v = a; v <= b; v++) n += r.counts[String(v)] || 0;
      return { label: a === b ? String(a) : a + "–" + b, n };
    });
  const most = Math.max(1, ...counts.map((c) => c.n));
  // A bar per value, the counts above, and below a label on every bar
  // of a short scale, or on five of a long one: the labels stay legible
  // on a phone.
  const bw = 30;
  const top = 24;
  const hgt = 140;
  const every = counts.length > 11 ? Math.ceil((counts.length - 1) / 4) : 1;
  const width = counts.length * bw;
  const chart = svg("svg", { viewBox: "0 0 " + width + " " + (hgt + top + 28), class: "pulse-chart", role: "img", "aria-label": "Round " + r.round + ": " + counts.map((c) => c.label + ": " + c.n).join(", ") });
  counts.forEach((c, i) => {
    const x = i * bw;
    const bh = Math.round((c.n / most) * hgt);
    chart.append(svg("rect", { x: x + 3, y: top + hgt - bh, width: bw - 6, height: bh, class: "pulse-bar" }));
    if (c.n) chart.append(svg("text", { x: x + bw / 2, y: top + hgt - bh - 5, "text-anchor": "middle", class: "pulse-n" }, document.createTextNode(String(c.n))));
    if (i % every === 0 || i === counts.length - 1) chart.append(svg("text", { x: x + bw / 2, y: top + hgt + 22, "text-anchor": "middle", class: "pulse-label" }, document.createTextNode(c.label)));
  });
  chart.append(svg("line", { x1: 0, x2: width, y1: top + hgt + 0.5, y2: top + hgt + 0.5, class: "pulse-axis" }));
  f.append(chart);
  return f;
}

// teacherNotes shows the page's teacher notes in the browser that has
// the teacher key: the server leaves them out of the pages it serves to
// any other machine than its own.
async function teacherNotes() {
  const kind = document.documentElement.dataset.twicePage;
  if (!teacherKey() || (kind !== "lesson" && kind !== "case") || document.querySelector(".teacher-notes")) return;
  const page = location.pathname.slice(1) + (location.pathname.endsWith("/") ? "index.html" : "");
  try {
    const resp = await teacherFetch("/__twice/notes?page=" + encodeURIComponent(page));
    if (resp.status !== 200 || document.querySelector(".teacher-notes")) return;
    const html = await resp.text();
    const h1 = document.querySelector("main h1");
    if (h1) h1.insertAdjacentHTML("afterend", html);
    else document.getElementById("main")?.insertAdjacentHTML("afterbegin", html);
  } catch {
    // No notes, then.
  }
}

if (classOn()) {
  catchKey();
  follow();
  teacherNotes();
}
