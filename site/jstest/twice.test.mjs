// Unit tests of the component's pure helpers (site/static/links.js and
// render.js), under Node's built-in runner: node --test site/jstest/ (go
// test ./site runs them).
//
// The helpers are ES modules that touch no browser global when imported,
// so the tests import them as they are. The browser tests
// (server/*browser_test.go) cover the element itself.

import { test } from "node:test";
import assert from "node:assert/strict";

import { CONFIG } from "../static/config.js";
import { commandFor, comparePair, embedIframe, linkHash, loopback, maxLink, parseLink, seedOf, shellQuote, toggleClaims, withClaim } from "../static/links.js";
import { announce, checkedWords, diagnosisPlan, diagnosisSaid, errorText, formatBytes, leaseCaptions, stoppedAfter, formatMS, groupDigits, matrixCellLabel, matrixCellText, minFontSize, nearestStep, replay } from "../static/render.js";

// The server puts the runtime's lists of claims, dedupe modes and keys in
// the config the loader hands the component; go test ./site passes the
// same lists here.
assert.ok(process.env.TWICE_CHOICES, "run these through go test ./site, which passes the runtime's lists in TWICE_CHOICES");
Object.assign(CONFIG, JSON.parse(process.env.TWICE_CHOICES));

test("boot.js defines the element once, when the loader starts it; playground.js adds the helpers", async () => {
  // The entry module defines the element in start(), and playground.js,
  // the rest, extends HTMLElement as it loads: the few globals that
  // touches are stubbed here.
  const defined = [];
  Object.assign(globalThis, {
    window: globalThis,
    HTMLElement: class {},
    customElements: {
      get: (name) => (defined.includes(name) ? class {} : undefined),
      define: (name) => defined.push(name),
    },
    document: { documentElement: { dataset: {} }, readyState: "loading" },
    location: { hash: "" },
    addEventListener: () => {},
  });
  try {
    const { start } = await import("../static/boot.js");
    start(CONFIG);
    start(CONFIG);
    assert.deepEqual(defined, ["twice-playground"], "the element is defined exactly once");
    assert.equal(typeof globalThis.TwicePlayground.timings, "function", "window.TwicePlayground has the runtime's timings from the start");
    await import("../static/playground.js");
    assert.equal(globalThis.TwicePlayground.withClaim, withClaim, "window.TwicePlayground exposes the helpers once the rest has loaded");
  } finally {
    for (const k of ["window", "HTMLElement", "customElements", "document", "location", "addEventListener", "TwicePlayground"]) delete globalThis[k];
  }
});

// The claim lists the toggle must handle, whatever the runtime's list is
// today: three names, one of them another name for a claim (lock for
// atomic), and four claims each of its own. The runtime's real list
// (CONFIG.claims, above) is tested too.
const claim = (name, alias, words) => ({ name, words: words || name, alias: alias || name });
const ALIASED = [claim("read"), claim("lock", "atomic"), claim("atomic")];
const FOUR = [claim("read"), claim("async-lock"), claim("lock"), claim("atomic")];

// withClaims runs fn with the config's claims set to list.
function withClaims(list, fn) {
  const saved = CONFIG.claims;
  CONFIG.claims = list;
  try {
    fn();
  } finally {
    CONFIG.claims = saved;
  }
}

test("withClaim picks the runtime's script for a claim, and reads none itself", () => {
  // What a Result's views.compare (or the worker's claims) holds: the
  // block's own text with each claim set where the parser found one.
  const claims = {
    claim: "read",
    toggle: [
      { claim: "read", script: "add read-conditional\n  race   read\t20  # race read\n" },
      { claim: "atomic", script: "add read-conditional\n  race   atomic\t20  # race read\n" },
    ],
  };
  assert.equal(withClaim(claims, "atomic"), "add read-conditional\n  race   atomic\t20  # race read\n");
  assert.equal(withClaim(claims, "read"), claims.toggle[0].script);
  assert.equal(withClaim(claims, "lock"), null, "a claim the runtime gave no script for");
  assert.equal(withClaim({ claim: "read", toggle: null }, "atomic"), null, "a script that starts no worker");
  assert.equal(withClaim({ claim: "", toggle: null, error: { msg: "line 1, col 1: unknown command" } }, "atomic"), null, "a script that does not parse");
  assert.equal(withClaim(null, "atomic"), null, "no answer from the runtime");
});

test("toggleClaims: every claim that is not another name, in the runtime's order", () => {
  withClaims(ALIASED, () => assert.deepEqual(toggleClaims().map((c) => c.name), ["read", "atomic"]));
  withClaims(FOUR, () => assert.deepEqual(toggleClaims().map((c) => c.name), ["read", "async-lock", "lock", "atomic"]));
});

test("comparePair: the block's claim beside the one to compare to, or the reader's pick", () => {
  const four = ["read", "async-lock", "lock", "atomic"];
  assert.deepEqual(comparePair(["read", "atomic"], "read", "atomic", null), ["read", "atomic"], "two claims: both, as ever");
  assert.deepEqual(comparePair(["read", "atomic"], "atomic", "atomic", null), ["read", "atomic"], "a block that uses the atomic claim still compares two");
  assert.deepEqual(comparePair(four, "async-lock", "atomic", null), ["async-lock", "atomic"]);
  assert.deepEqual(comparePair(four, "atomic", "atomic", null), ["read", "atomic"]);
  assert.deepEqual(comparePair(four, "lock", "atomic", ["async-lock", "lock"]), ["async-lock", "lock"], "the reader's pick");
  assert.deepEqual(comparePair(four, "read", "atomic", ["atomic", "read"]), ["atomic", "read"], "in the order picked");
  assert.deepEqual(comparePair(["read", "atomic"], "read", "atomic", ["async-lock", "read"]), ["read", "atomic"], "a pick the runtime does not offer falls back");
  assert.deepEqual(comparePair(four, "read", "atomic", ["lock", "lock"]), ["read", "atomic"], "a claim beside itself is no pair");
  assert.deepEqual(comparePair(["read", "lock"], "read", "", null), ["read", "lock"], "with no claim to compare to, the last one");
  assert.deepEqual(comparePair(["read"], "read", "atomic", null), ["read"]);
  assert.deepEqual(comparePair([], "read", "atomic", null), []);
});

test("linkHash and parseLink round-trip", () => {
  const runs = [
    { seed: "1", script: "race read 20\neffects\n", claim: "read" },
    { seed: "18446744073709551615", script: "work --job 1 --claim atomic", claim: "atomic", view: "timeline", step: 7 },
    { seed: "0", script: "race atomic --all", claim: "atomic", view: "interleavings", workers: 5 },
    { seed: "3", script: "jobs & effects # a ? and a #", claim: "read", view: "compare" },
    { seed: "4", script: "jobs", claim: null },
  ];
  for (const r of runs) {
    const hash = linkHash("block-2", r);
    assert.ok(hash.startsWith("#block-2?"), hash);
    assert.deepEqual(parseLink(hash, "block-2"), {
      script: r.script,
      seed: r.seed,
      claim: r.claim,
      view: r.view || "output",
      step: r.step || 1,
      workers: r.workers || 0,
    });
  }
});

test("linkHash keeps only what reopens the view", () => {
  assert.equal(linkHash("b", { seed: 1, script: "jobs", claim: "read", view: "output", step: 4, workers: 3 }), "#b?seed=1&script=jobs&claim=read");
  assert.equal(linkHash("b", { seed: 1, script: "jobs", claim: "read", view: "timeline", step: 1 }), "#b?seed=1&script=jobs&claim=read&view=timeline");
  assert.equal(linkHash("b", { seed: 1, script: "jobs", claim: "read", view: "interleavings", workers: 2 }), "#b?seed=1&script=jobs&claim=read&view=interleavings");
  assert.equal(linkHash("b", { seed: 1, script: "jobs", view: "timeline" }), "#b?seed=1&script=jobs&view=timeline", "no claim known, none written");
});

test("linkHash and parseLink: a schedule, only with Be the scheduler's view", () => {
  const r = { seed: "1", script: "race read 20\n", claim: "read", view: "scheduler", schedule: ["W1", "W2", "W2", "W1"] };
  const hash = linkHash("b", r);
  assert.equal(hash, "#b?seed=1&script=race+read+20%0A&claim=read&view=scheduler&schedule=W1%2CW2%2CW2%2CW1");
  assert.deepEqual(parseLink(hash, "b"), { script: r.script, seed: "1", claim: "read", view: "scheduler", step: 1, workers: 0, schedule: r.schedule });
  assert.equal(linkHash("b", { seed: 1, script: "jobs", claim: "read", view: "scheduler", schedule: [] }), "#b?seed=1&script=jobs&claim=read&view=scheduler");
  assert.equal(linkHash("b", { seed: 1, script: "jobs", claim: "read", view: "output", schedule: ["W1"] }), "#b?seed=1&script=jobs&claim=read", "a schedule only with its view");
});

test("parseLink: a schedule of workers, or its error", () => {
  assert.deepEqual(parseLink("#b?seed=1&script=jobs&view=scheduler&schedule=W2,W1,W2", "b").schedule, ["W2", "W1", "W2"]);
  for (const bad of ["W0", "W9", "w1", "W1,,W2", "W1;W2", "", Array(201).fill("W1").join(",")]) {
    const r = parseLink("#b?seed=1&script=jobs&view=scheduler&schedule=" + encodeURIComponent(bad), "b");
    assert.equal(r.schedule, undefined, bad);
    assert.match(r.error, /^schedule=".*" is not a list of workers W1 to W8, at most 200 steps/, bad);
  }
});

test("parseLink refuses links that are not for this block", () => {
  const hash = linkHash("block-1", { seed: "1", script: "jobs" });
  assert.equal(parseLink(hash, "block-2"), null, "another block");
  assert.equal(parseLink(hash, ""), null, "a block without an id");
  assert.equal(parseLink("#block-1", "block-1"), null, "no parameters");
  assert.equal(parseLink("#block-1?seed=1", "block-1"), null, "no script");
});

test("parseLink measures a link before it reads it", () => {
  // A link of 120,000 encoded spaces after "work" kept the page's main
  // thread 25 s in the claim rewriting's regular expressions. A link over
  // what a script of the most bytes can take is refused unread.
  const huge = "#b?seed=1&script=work" + "%20".repeat(120000) + "x&claim=atomic";
  assert.ok(huge.length > maxLink());
  const r = parseLink(huge, "b");
  assert.equal(r.unread, true);
  assert.equal(r.error, "the link is " + huge.length + " characters long, more than the " + maxLink() + " a link to a run may have");
  // Up to the limit it is read, and its script handed on as it came.
  const spaces = "work" + " ".repeat(60000) + "x";
  const ok = parseLink("#b?seed=1&script=work" + "%20".repeat(60000) + "x&claim=atomic", "b");
  assert.equal(ok.script, spaces);
  assert.equal(ok.claim, "atomic");
  assert.equal(ok.error, undefined);
  // A script of more bytes than the runtime takes, and a seed of many digits, are named.
  const big = parseLink("#b?seed=" + "9".repeat(300) + "&script=" + "%C3%A9".repeat(CONFIG.maxScript / 2 + 1), "b");
  assert.match(big.error, /^script is 65538 bytes, more than the 65536 a script may have; seed="9{40}…" is not a whole number/);
  assert.equal(commandFor(" ".repeat(50000) + "x" + " ".repeat(50000), "1"), "twice run --seed 1 -c '" + " ".repeat(50000) + "x'");
});

test("parseLink names a bad value instead of ignoring it", () => {
  const neg = parseLink("#block-1?seed=-1&script=jobs", "block-1");
  assert.equal(neg.error, 'seed="-1" is not a whole number from 0 to 18446744073709551615');
  assert.equal(neg.seed, "");
  assert.match(parseLink("#block-1?seed=1e3&script=jobs", "block-1").error, /^seed="1e3"/);
  assert.match(parseLink("#block-1?seed=18446744073709551616&script=jobs", "block-1").error, /^seed=/, "one past the largest seed");
  const long = parseLink("#block-1?seed=" + "x".repeat(5000) + "&script=jobs", "block-1").error;
  assert.ok(long.length < 120, "a long bad value is cut short: " + long.length);
  assert.equal(parseLink("#block-1?seed=7&script=jobs", "block-1").error, undefined);
});

test("parseLink: old links, hand-edited links and bad values", () => {
  withClaims(ALIASED, () => {
    // Links from before claim and view existed.
    assert.deepEqual(parseLink("#b?seed=7&script=race+lock+2", "b"), { script: "race lock 2", seed: "7", claim: null, view: "output", step: 1, workers: 0 });
    // A claim is handed on as it is: the page has the runtime set it in
    // the script when the script's own differs. The script is not read here.
    const edited = parseLink("#b?seed=1&script=add+read-conditional%0Arace+read+20&claim=atomic", "b");
    assert.equal(edited.script, "add read-conditional\nrace read 20");
    assert.equal(edited.claim, "atomic");
    // An unknown claim is named, and none is handed on.
    const odd = parseLink("#b?seed=1&script=race+read+20&claim=fenced", "b");
    assert.equal(odd.script, "race read 20");
    assert.equal(odd.claim, null);
    assert.equal(odd.error, 'claim="fenced" is not read or atomic');
  });
  withClaims(FOUR, () => {
    assert.equal(parseLink("#b?seed=1&script=race+read+20&claim=async-lock", "b").claim, "async-lock");
    assert.equal(parseLink("#b?seed=1&script=jobs&claim=fenced", "b").error, 'claim="fenced" is not read, async-lock, lock or atomic');
  });
  // The pair of claims Compare shows, when the reader picked one.
  withClaims(FOUR, () => {
    const hash = linkHash("b", { seed: 1, script: "race read 20", view: "compare", pair: ["async-lock", "lock"] });
    assert.match(hash, /&pair=async-lock%2Clock$/);
    assert.deepEqual(parseLink(hash, "b").pair, ["async-lock", "lock"]);
    assert.equal(linkHash("b", { seed: 1, script: "jobs", view: "output", pair: ["read", "lock"] }).includes("pair"), false, "only Compare keeps its pair");
    assert.equal(parseLink("#b?seed=1&script=jobs&view=compare&pair=lock,lock", "b").error, 'pair="lock,lock" is not two claims of read, async-lock, lock, atomic, apart by a comma');
    assert.equal(parseLink("#b?seed=1&script=jobs&view=compare&pair=read,fenced", "b").pair, undefined);
  });
  // A view the block mounted beyond the four is one a link may name.
  assert.equal(parseLink("#b?seed=1&script=jobs&view=seat", "b", ["output", "seat"]).view, "seat");
  assert.match(parseLink("#b?seed=1&script=jobs&view=compare", "b", ["output", "seat"]).error, /view="compare" is not one of output, seat/);
  // Bad view, step and workers fall back to their defaults, and are named.
  const bad = parseLink("#b?seed=&script=jobs&view=secret&step=0&workers=9", "b");
  assert.deepEqual(bad, {
    script: "jobs", seed: "", claim: null, view: "output", step: 1, workers: 0,
    error: 'view="secret" is not one of output, timeline, compare, interleavings, scheduler; step="0" is not a step number; workers="9" is not a whole number from 2 to 8',
  });
  assert.equal(parseLink("#b?seed=1&script=jobs&view=timeline&step=12345678", "b").step, 1, "step has at most 7 digits");
  assert.equal(parseLink("#b?seed=1&script=jobs&view=timeline&step=42", "b").step, 42);
  assert.equal(parseLink("#b?seed=1&script=jobs&workers=2.5", "b").workers, 0);
  assert.equal(parseLink("#b?seed=1&script=jobs&workers=8", "b").workers, 8);
});

test("shellQuote and commandFor make a command line a shell runs as is", () => {
  assert.equal(shellQuote("race read 20"), "'race read 20'");
  assert.equal(shellQuote("echo 'hi' $HOME"), "'echo '\\''hi'\\'' $HOME'");
  assert.equal(commandFor("race read 20\neffects\n\n", "42"), "twice run --seed 42 -c 'race read 20\neffects'");
  assert.equal(commandFor("race read 20\n", "42", true), "go run ./cmd/twice run --seed 42 -c 'race read 20'");
});

test("loopback names this machine only", () => {
  for (const h of ["localhost", "127.0.0.1", "127.1.2.3", "[::1]", "app.localhost"]) assert.ok(loopback(h), h);
  for (const h of ["example.com", "192.168.1.20", "10.0.0.1", "127.example.com", "localhost.example.com"]) assert.ok(!loopback(h), h);
});

test("replay rebuilds the tables event by event", () => {
  const job = (id, status, attempts) => ({ id, order: "o" + id, status, attempts });
  const trace = [
    { kind: "add", job: job(1, "queued", 0) },
    { kind: "claim", job: job(1, "running", 1) },
    { kind: "effect", effect: { order: "o1", run: "r1" } },
    { kind: "add", job: job(2, "queued", 0) },
    { kind: "reset" },
    { kind: "add", job: job(3, "queued", 0) },
  ];
  let st = replay(trace, 1);
  assert.deepEqual(st.jobs, [job(1, "running", 1)]);
  assert.deepEqual(st.prevJob, job(1, "queued", 0));
  assert.equal(st.changedJob, 1);
  assert.equal(st.newEffect, -1);
  st = replay(trace, 2);
  assert.deepEqual(st.effects, [{ order: "o1", run: "r1" }]);
  assert.equal(st.newEffect, 0);
  assert.equal(st.changedJob, null);
  st = replay(trace, 3);
  assert.deepEqual(st.jobs.map((j) => j.id), [1, 2]);
  assert.equal(st.prevJob, null, "a new job had no row before");
  st = replay(trace, 4);
  assert.deepEqual([st.jobs, st.effects, st.reset], [[], [], true]);
  st = replay(trace, 5);
  assert.deepEqual(st.jobs.map((j) => j.id), [3]);
});

test("seedOf keeps every uint64 seed exact", () => {
  const json = '{"seed":18446744073709551615,"transcript":[]}';
  assert.equal(seedOf(json, JSON.parse(json)), "18446744073709551615");
  assert.equal(seedOf('  {"seed":7}', { seed: 7 }), "7");
  assert.equal(seedOf('{"transcript":[]}', { seed: 3 }), "3", "falls back to the parsed seed");
  assert.equal(seedOf("{}", {}), "");
});

test("formatMS, formatBytes and groupDigits", () => {
  assert.equal(formatMS(2076123), "2076.123");
  assert.equal(formatMS(5), "0.005");
  assert.equal(formatMS(-1500), "-1.500");
  assert.equal(formatMS(0), "0.000");
  assert.equal(formatMS(null), "-");
  assert.equal(formatMS(undefined), "-");
  assert.equal(formatBytes(999), "999 B");
  assert.equal(formatBytes(13600), "14 kB");
  assert.equal(formatBytes(2160000), "2.2 MB");
  assert.equal(groupDigits("1451520"), "1,451,520");
  assert.equal(groupDigits("123456789012345678901234"), "123,456,789,012,345,678,901,234");
  assert.equal(groupDigits("n/a"), "n/a");
});

test("nearestStep picks the nearest event and cycles through ties", () => {
  const xs = [10, 20, 20, 20, 40];
  assert.equal(nearestStep(xs, 12, 0), 0);
  assert.equal(nearestStep(xs, 33, 0), 4);
  assert.equal(nearestStep(xs, 21, 0), 1, "the first of a tie");
  assert.equal(nearestStep(xs, 21, 1), 2, "then the next");
  assert.equal(nearestStep(xs, 21, 3), 1, "wrapping");
});

test("matrixCellText and matrixCellLabel: a cell as the text table prints it, and in words", () => {
  assert.equal(matrixCellText({ verdict: "narrows", label: "narrows 2/1000", failed: 2, trials: 1000 }), "narrows 2/1000", "the runtime's label");
  assert.equal(matrixCellText({ verdict: "duplicate", failed: 20, trials: 20 }), "dup 20/20");
  assert.equal(matrixCellText({ verdict: "closed", failed: 0, trials: 20 }), "ok");
  assert.equal(matrixCellText({ verdict: "lost", failed: 3, trials: 20 }), "lost 3/20");
  assert.equal(matrixCellText({ verdict: "pending" }), "pending");
  const sc = { title: "claim race" };
  assert.equal(
    matrixCellLabel(sc, { title: "heartbeat" }, { verdict: "narrows", failed: 2, trials: 1000 }, "1-20"),
    "claim race with heartbeat: narrows, still duplicates in 2 of 1000 trials over seeds 1-20"
  );
  assert.equal(matrixCellLabel(sc, { title: "atomic claim" }, { verdict: "closed", failed: 0, trials: 1000 }, "1-20"), "claim race with atomic claim: closed, one effect per event in every trial over seeds 1-20");
  assert.equal(matrixCellLabel(sc, { title: "x" }, { verdict: "pending" }), "claim race with x: pending, not runnable yet");
});

test("a claim added to the runtime's list needs nothing in twice.js", () => {
  withClaims([...ALIASED, claim("claimfirst")], () => {
    assert.equal(parseLink("#b?seed=1&script=race+read+2&claim=claimfirst", "b").claim, "claimfirst");
    // A link that names the claim its script already uses is no error.
    assert.equal(parseLink("#b?seed=1&script=race+claimfirst+2&claim=claimfirst", "b").error, undefined);
    assert.equal(parseLink("#b?seed=1&script=jobs&claim=nope", "b").error, 'claim="nope" is not read, atomic or claimfirst');
  });
});

test("announce: the status says the tally and the diagnosis, not only the time", () => {
  const res = {
    races: [{ claim: "read", duplicates: 19, races: 20 }],
    summary: [{ order: "order-77", kind: "claim-race" }],
  };
  assert.equal(
    announce(res, 18),
    "Done in 18 ms. claim=read: duplicate effects in 19 of 20 races. Diagnosis for order-77: Claim race: more than one worker took one delivery."
  );
  assert.equal(announce({}, 3), "Done in 3 ms.");
  const two = { summary: [{ order: "a", kind: "once" }, { order: "b", kind: "client-retry" }, { order: "c", kind: "two-jobs" }] };
  assert.match(announce(two, 1), /Diagnosis for b: Client retry.*1 more order\(s\) with a duplicate\./);
});

test("embedIframe: a title of its own and the lines that apply the posted height", () => {
  const s = embedIframe("https://x.example/embed/a/1/", 'twice: "A", script 1', "https://x.example");
  assert.match(s, /^<iframe src="https:\/\/x\.example\/embed\/a\/1\/" title="twice: &quot;A&quot;, script 1"/);
  assert.match(s, /e\.origin !== "https:\/\/x\.example"/);
  assert.match(s, /"twice:height"/);
  assert.match(s, /style="border:0;width:100%"/);
  assert.match(s, /<\/script>$/);
});

test("minFontSize", () => {
  assert.equal(minFontSize('<svg><text font-size="12">a</text><text font-size="10">b</text></svg>'), 10);
  assert.equal(minFontSize("<svg></svg>"), 0);
});

// loadResult is the shape of a load's result: its tallies, and the summary
// of the last lease run's orders, as many as its jobs.
function loadResult(kinds) {
  const summary = [];
  for (const [kind, n] of kinds) for (let i = 0; i < n; i++) summary.push({ order: "load-" + (summary.length + 1), kind });
  return {
    loads: [
      { jobs: summary.length, lease_us: 1000000, duplicates: 42 },
      { jobs: summary.length, lease_us: 10000000, duplicates: 2 },
    ],
    summary,
  };
}

test("diagnosisPlan: after a load, orders that ran once are counted, not listed", () => {
  const all = diagnosisPlan(loadResult([["once", 200]]));
  assert.deepEqual(all.shown, [], "no order of a clean lease run is shown in detail");
  assert.equal(all.more, 0);
  assert.deepEqual(all.counts, [{ kind: "once", n: 200 }]);
  assert.equal(all.scope, "lease 10 s, 200 jobs", "the tables hold the last lease run");

  const some = diagnosisPlan(loadResult([["once", 150], ["redelivery", 3], ["stall", 5]]));
  assert.deepEqual(
    some.shown.map((s) => s.kind),
    ["stall", "stall", "stall"],
    "the duplicates come first, and no order that ran once"
  );
  assert.equal(some.more, 5, "the other two stalls and the three redeliveries");
  assert.deepEqual(some.counts, [
    { kind: "stall", n: 5 },
    { kind: "once", n: 150 },
    { kind: "redelivery", n: 3 },
  ]);
});

test("diagnosisPlan: without a load, every kind is shown, duplicates first", () => {
  const res = { summary: [{ order: "a", kind: "once" }, { order: "b", kind: "client-retry" }, { order: "c", kind: "once" }, { order: "d", kind: "once" }] };
  const p = diagnosisPlan(res);
  assert.deepEqual(p.shown.map((s) => s.order), ["b", "a", "c"]);
  assert.equal(p.more, 1);
  assert.deepEqual(p.counts, []);
  assert.deepEqual(diagnosisPlan({}).shown, []);
});

test("announce: after a load, no order's ran once, only the tallies and a duplicate", () => {
  const clean = announce(loadResult([["once", 200]]), 5);
  assert.equal(clean, "Done in 5 ms. lease 1 s: duplicate effects in 42 of 200 jobs. lease 10 s: duplicate effects in 2 of 200 jobs.");
  const res = loadResult([["once", 198], ["stall", 2]]);
  res.loads[0].summary = res.summary;
  assert.match(announce(res, 5), /Diagnosis for load-199 at lease 1 s: A stall outlived the lease\. 1 more order\(s\) with a duplicate\.$/);
});

test("announce: after a load, the diagnosis of the lease the tables show, not of the last", () => {
  const res = {
    loads: [
      { jobs: 100, lease_us: 1000000, duplicates: 40, summary: [{ order: "load-7", kind: "stall" }], kind_counts: [{ kind: "stall", n: 40 }, { kind: "once", n: 60 }] },
      { jobs: 100, lease_us: 30000000, duplicates: 0, summary: [], kind_counts: [{ kind: "once", n: 100 }] },
    ],
    // The tables of the result itself hold the last lease run.
    summary: [{ order: "load-1", kind: "once" }],
  };
  // The page shows the shortest lease with a duplicate: so does the status.
  assert.match(announce(res, 9), /Diagnosis for load-7 at lease 1 s: A stall outlived the lease\. 39 more order\(s\) with a duplicate\.$/);
  // The reader picked the last lease: it has no duplicate to speak of.
  assert.equal(diagnosisSaid(res, 1), "");
  assert.equal(diagnosisSaid(res, 0), diagnosisSaid(res));
});

test("checkedWords: Every ordering's footer counts the races, whatever their claims", () => {
  assert.equal(checkedWords(1), "Checked");
  assert.equal(checkedWords(2), "Both races checked");
  assert.equal(checkedWords(3), "All 3 races checked");
});

test("stoppedAfter: Stop says how many races or lease runs were done, when the runtime said", () => {
  assert.equal(stoppedAfter(2140, { done: 312, of: 10000, what: "races" }), "Stopped after 312 of 10000 races (2.1 s)");
  assert.equal(stoppedAfter(640, { done: 2, of: 5, what: "lease runs" }), "Stopped after 2 of 5 lease runs (640 ms)");
  assert.equal(stoppedAfter(640, null), "Stopped after 640 ms", "a script with no race or load says the time only");
  assert.equal(stoppedAfter(0, null), "Stopped before this script ran");
});

test("the page says an error as the command line prints it", () => {
  // A failing run as the runtime returns it, and the CLI's line for it.
  assert.ok(process.env.TWICE_FAILED, "run these through go test ./site, which passes a failing run in TWICE_FAILED");
  const { result, cli } = JSON.parse(process.env.TWICE_FAILED);
  assert.match(cli, /^line 1, col \d+: /);
  assert.equal(errorText(result.error), cli);
});

test("a lease's captions count effects as effects, of the jobs listed", () => {
  const v = {
    loads: [{ lease_us: 2000000, jobs: 200 }],
    effects: [{ job: 3 }, { job: 3 }, { job: 9 }, { job: 9 }, { job: 9 }],
    jobs: [{ id: 3 }, { id: 9 }],
    more: 4,
    ran_once: 194,
  };
  const c = leaseCaptions(v);
  assert.equal(c.effects, "Effects at lease 2 s: 5 effects of the 2 jobs that did not simply run once; not listed: 4 more that did not simply run once and 194 that ran once");
  assert.equal(c.jobs, "Jobs at lease 2 s: 2 of 200, those that did not simply run once; not listed: 4 more that did not simply run once and 194 that ran once");
  const one = leaseCaptions({ loads: [{ lease_us: 1000000, jobs: 1 }], effects: [{ job: 1 }], jobs: [{ id: 1 }], more: 0, ran_once: 0 });
  assert.equal(one.effects, "Effects at lease 1 s: 1 effect of the 1 job that did not simply run once");
});
