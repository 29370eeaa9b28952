// @ts-check
// drafts.js keeps what a reader typed in a block: its script and seed, in
// the browser's storage, per page and block, beside the lesson's own
// script it was an edit of. A reload (the reader's, or twice serve's when
// the teacher saves the lesson) brings the edit back into the block, and
// says so; an edit is dropped only when the reader says so.
//
// Storage holds one object per page, under "twice:drafts:" and the
// page's path, mapping a block's id to its draft {script, seed, base, at,
// aside}: base is the lesson's script the edit started from, at when it
// was typed (ms), aside that Reset put it aside (it is then offered, not
// put back). Every write reads the page's object afresh and changes only
// its block's entry, so two tabs of a page, or two blocks, never write
// over each other's drafts.
//
// playground.js calls keepDrafts once per block as the block is set up
// (before a link to a run replays), and the hooks it returns when the
// script is put in the box by other means than typing (edited) and when
// the reader presses Reset (reset). Typing in the script box or the seed
// field is heard here.
//
// When a draft cannot be stored (storage full or refused), the page is
// marked (data-twice-unsaved on <html>) and reload.js waits instead of
// reloading.

import { parseLink } from "./links.js";
import { h } from "./render.js";
import { scriptOf } from "./boot.js";

const PREFIX = "twice:drafts:";

/**
 * @typedef {object} Draft
 * @property {string} script
 * @property {string} seed
 * @property {string} base the lesson's script the edit started from
 * @property {number} at when it was typed, in ms since the epoch
 * @property {boolean} [aside] Reset put it aside: offered, not put back
 */

function pageKey() {
  return PREFIX + location.pathname;
}

/** @returns {Record<string, Draft>} */
function readAll() {
  try {
    const v = JSON.parse(localStorage.getItem(pageKey()) || "null");
    return v && typeof v === "object" ? v : {};
  } catch {
    return {};
  }
}

// unsaved counts the blocks whose edit the last write could not store.
const unsaved = new Set();

// write stores d as the draft of block id (null removes it), reading
// the page's drafts afresh so that only that entry changes. It reports
// whether the storage took it.
function write(id, d) {
  let ok = true;
  try {
    const all = readAll();
    if (d) all[id] = d;
    else delete all[id];
    if (Object.keys(all).length === 0) localStorage.removeItem(pageKey());
    else localStorage.setItem(pageKey(), JSON.stringify(all));
  } catch {
    ok = false;
  }
  if (ok || !d) unsaved.delete(id);
  else unsaved.add(id);
  if (unsaved.size > 0) document.documentElement.dataset.twiceUnsaved = String(unsaved.size);
  else delete document.documentElement.dataset.twiceUnsaved;
  return ok;
}

// find is the draft kept for the block with id and the lesson's script
// own: its own entry when it was an edit of the same script; else an
// entry under another id that was an edit of the same script and is not
// the draft of the block now under that id (the lesson gained or lost a
// block above it); else its own entry, an edit of an older version.
/** @returns {{key: string, d: Draft} | null} */
function find(id, own) {
  const all = readAll();
  const mine = all[id];
  if (mine && mine.base === own) return { key: id, d: mine };
  const owns = new Map();
  for (const el of document.querySelectorAll("twice-playground")) owns.set(el.id, /** @type {any} */ (el).ownScript ?? scriptOf(el));
  for (const [key, d] of Object.entries(all)) {
    if (key !== id && d && d.base === own && owns.get(key) !== own) return { key, d };
  }
  return mine && typeof mine.script === "string" ? { key: id, d: mine } : null;
}

// kept is the draft kept for block id (see find), now under its id.
function kept(id, own) {
  const found = find(id, own);
  if (!found) return null;
  if (found.key !== id) {
    write(found.key, null);
    write(id, found.d);
  }
  return found.d;
}

// backSaid says an edit is back in its block; changed: the lesson's
// script has changed since it was typed.
function backSaid(changed) {
  return "Your edit of this script is back, kept in this browser. " + (changed ? "The lesson's script has changed since; Reset shows the new one." : "The output below is the lesson's until you press Run.");
}

// draftNote builds the line under the bar that says what became of the
// reader's edit, with its two buttons.
function draftNote(bar) {
  const text = h("span", { class: "draft-text" });
  const back = h("button", { type: "button", class: "draft-back", text: "Put back my edit" });
  const drop = h("button", { type: "button", class: "draft-drop", text: "Drop my edit" });
  const note = h("div", { class: "draft", role: "status", hidden: true }, text, back, drop);
  bar.after(note);
  return { note, text, back, drop };
}

/**
 * keepDrafts keeps the drafts of block el (a <twice-playground> set up
 * by playground.js: its id, ownScript, defaultSeed, ui.script, ui.seed,
 * box and fit) and puts back the one kept from before.
 *
 * @param {any} el
 * @returns {{edited: () => void, reset: () => void}}
 */
export function keepDrafts(el) {
  const ui = el.ui;
  const { note, text, back, drop } = draftNote(ui.bar);
  // held is the draft offered and not yet answered; while it is, the
  // box's other text (a link's, or the lesson's after Reset) is not
  // stored over it.
  /** @type {Draft | null} */
  let held = null;
  let id = el.id;

  const show = (msg, offer) => {
    text.textContent = msg;
    back.hidden = !offer;
    drop.hidden = !offer;
    note.hidden = false;
  };
  const own = () => ui.script.value === el.ownScript && ui.seed.value.trim() === String(el.defaultSeed);
  const put = (d) => {
    ui.script.value = d.script;
    ui.seed.value = d.seed;
    el.fit();
  };
  const restored = (d) => show(backSaid(d.base !== el.ownScript), false);

  const edited = () => {
    if (held) return; // the offer stands until the reader answers it
    if (own()) {
      write(id, null);
      note.hidden = true;
      return;
    }
    const d = { script: ui.script.value, seed: ui.seed.value.trim(), base: el.ownScript, at: Date.now() };
    if (!write(id, d)) show("This browser refused to keep your edit: a reload would lose it. Copy it somewhere to keep it.", false);
    else if (!note.hidden && back.hidden) note.hidden = true;
  };

  back.addEventListener("click", () => {
    if (!held) return;
    const d = held;
    held = null;
    put(d);
    write(id, { ...d, aside: false });
    restored(d);
  });
  drop.addEventListener("click", () => {
    held = null;
    write(id, null);
    note.hidden = true;
    edited(); // the box's text is now the reader's to keep
  });
  ui.script.addEventListener("input", edited);
  ui.seed.addEventListener("input", edited);

  const d = kept(id, el.ownScript);
  if (d && (d.aside || parseLink(location.hash, id, []) !== null)) {
    held = d;
    show(d.aside ? "Your edit of this script is put aside, kept in this browser." : "You have your own edit of this script, kept in this browser; the link's script is shown.", true);
  } else if (d) {
    put(d);
    restored(d);
  }

  return {
    edited,
    // reset: the reader pressed Reset; an edit shown is put aside and
    // offered back, never dropped.
    reset() {
      const d = held || readAll()[id];
      if (!d) {
        note.hidden = true;
        return;
      }
      held = { ...d, aside: true };
      write(id, held);
      show("The lesson's script is back; your edit is put aside, kept in this browser.", true);
    },
  };
}
