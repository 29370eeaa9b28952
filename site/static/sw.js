// sw.js is the service worker of a twice site: after a reader's first
// visit, the site works with no network. It is served at the site's root
// (so that its scope is the whole site, also in a subdirectory) under a
// stable name, revalidated on every visit; the server writes into it the
// site's version, its shell and its pages. offline.js registers it once
// the page's first Run is done, not as the page loads (see there), so its
// install, which fetches the shell, does not slow that Run.
//
// The runtime (its two wasm modules, the Go program and SQLite, and
// wasm_exec.js: megabytes) is not fetched at install: a page loads it
// only when a block scrolls into view or the reader presses Run, and a
// reader who only reads should not pay for it. Once a page of the site
// has loaded it, the page says so ({type: "twice:keep-runtime"}) and the
// worker keeps it, normally from the browser's HTTP cache, with no second
// download.
//
// One cache per version of the site. Every asset name carries a hash of
// its content, and the version is a hash of those names and of the list
// of pages, so a new deploy brings a new sw.js: the browser installs it on
// the next visit, it fills a cache of its own (the shell, the runtime, and
// again every page the reader had kept), takes over, and deletes the old
// caches. A page is never served with assets of another version: a cached
// page names the assets of its own version, which its cache holds.
//
//   pages (index, lessons, embed pages)  network first, the cache offline;
//                                        every page opened is kept
//   assets/NAME.HASH.EXT                 the cache first (they never change)
//   anything else                        left to the network
//
// A page the network cannot give and the cache does not hold (a lesson
// never opened on this device, a mistyped address) is answered, when the
// browser navigates to it, with the site's offline page, which the server
// writes into this file (SW.offline): it says the page is not kept and
// lists the lessons, those kept linked (offline.js asks this worker which).
//
// A message {type: "twice:cache-all"} keeps every page and the runtime;
// {type: "twice:status"} reports how many lessons are kept, and which (the
// embed pages are kept with them but not counted: a reader counts lessons);
// {type: "twice:keep-page", url} keeps the page at url, which is how the
// page a reader first opens is kept: it was loaded before this worker
// controlled it, so no fetch of it came through here. Both answer on
// the message's port, when the message has one. {type: "twice:activate"},
// sent by a page to a new version's worker once it is installed, makes it
// take over now (see offline.js).
"use strict";

// The server replaces the next line with the site's version, shell and
// pages, and the offline page, whose links start with root.
const SW = /*TWICE_SW*/ { version: "dev", shell: [], runtime: [], pages: [], offline: "", root: "" };

const scope = self.registration.scope; // ends with "/"
const prefix = "twice " + scope + " ";
const CACHE = prefix + SW.version;
const hashed = /^assets\/[^/]+\.[0-9a-f]{10}\.[a-z]+$/;

// rel returns a URL's path below the scope ("" for the index), without
// query or fragment, or null outside the scope.
function rel(href) {
  const u = new URL(href);
  const base = new URL(scope);
  if (u.origin !== base.origin || !u.pathname.startsWith(base.pathname)) return null;
  return u.pathname.slice(base.pathname.length);
}

const isPage = (p) => SW.pages.includes(p);
const lessons = () => SW.pages.filter((p) => /^lessons\/[^/]+\/$/.test(p));

self.addEventListener("install", (e) => {
  e.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      await cache.addAll(SW.shell.map((p) => new URL(p, scope).href));
      // The pages the reader kept under an earlier version come along, in
      // this version's form, and so does the runtime if it was kept.
      const kept = new Set();
      for (const name of await caches.keys()) {
        if (name === CACHE || !name.startsWith(prefix)) continue;
        for (const req of await (await caches.open(name)).keys()) {
          const p = rel(req.url);
          if (p !== null && isPage(p)) kept.add(p);
          if (p !== null && p.endsWith(".wasm")) SW.runtime.forEach((r) => kept.add(r));
        }
      }
      await Promise.all([...kept].map((p) => cache.add(new URL(p, scope).href).catch(() => {})));
      await self.skipWaiting();
    })()
  );
});

self.addEventListener("activate", (e) => {
  e.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name !== CACHE && name.startsWith(prefix)) await caches.delete(name);
      }
      await self.clients.claim();
    })()
  );
});

self.addEventListener("fetch", (e) => {
  const req = e.request;
  if (req.method !== "GET") return;
  const p = rel(req.url);
  if (p === null) return;
  if (hashed.test(p)) {
    e.respondWith(fromCache(req));
  } else if (isPage(p)) {
    e.respondWith(fromNetwork(req, p));
  } else if (req.mode === "navigate") {
    e.respondWith(fetch(req).catch((err) => (SW.offline ? offlinePage(p) : Promise.reject(err))));
  }
});

// offlinePage is the answer to a navigation to page p that neither the
// network nor the cache can give: the site's offline page, its links
// resolved against the scope, naming p.
function offlinePage(p) {
  const esc = (t) => t.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  const body = SW.offline
    .split(SW.root)
    .join(scope)
    .replace('<code class="offline-asked"></code>', '<code class="offline-asked">' + esc(new URL(scope).pathname + p) + "</code>");
  return new Response(body, { status: 503, headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" } });
}

// fromCache answers an asset from the cache, or fetches and keeps it.
async function fromCache(req) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(req.url, { ignoreVary: true });
  if (hit) return hit;
  const res = await fetch(req);
  if (res.ok && !res.redirected) await cache.put(req.url, res.clone());
  return res;
}

// fromNetwork answers a page from the network and keeps it, or, when the
// network fails, from the cache.
async function fromNetwork(req, p) {
  const cache = await caches.open(CACHE);
  const key = new URL(p, scope).href;
  try {
    const res = await fetch(req);
    if (res.ok && !res.redirected && res.type === "basic") await cache.put(key, res.clone());
    return res;
  } catch (err) {
    const hit = await cache.match(key, { ignoreVary: true });
    if (hit) return hit;
    if (req.mode === "navigate" && SW.offline) return offlinePage(p);
    throw err;
  }
}

self.addEventListener("message", (e) => {
  const port = e.ports && e.ports[0];
  if (!e.data) return;
  const keepRuntime = async (cache) => {
    for (const p of SW.runtime) {
      const href = new URL(p, scope).href;
      if (!(await cache.match(href))) await cache.add(href);
    }
  };
  const answer = async () => {
    const cache = await caches.open(CACHE);
    if (e.data.type === "twice:keep-runtime") {
      await keepRuntime(cache);
      return { kept: true };
    }
    if (e.data.type === "twice:keep-page") {
      const p = rel(String(e.data.url));
      if (p === null || !isPage(p)) return { kept: false };
      const key = new URL(p, scope).href;
      if (!(await cache.match(key, { ignoreVary: true }))) await cache.add(key);
      return { kept: true };
    }
    const counted = new Set(lessons());
    let failed = 0;
    if (e.data.type === "twice:cache-all") {
      await keepRuntime(cache).catch(() => failed++);
      await Promise.all(
        SW.pages.map((p) =>
          cache.add(new URL(p, scope).href).catch(() => {
            if (counted.has(p)) failed++;
          })
        )
      );
    }
    const pages = [];
    for (const p of counted) if (await cache.match(new URL(p, scope).href, { ignoreVary: true })) pages.push(p);
    return { kept: pages.length, of: counted.size, failed, pages };
  };
  if (e.data.type === "twice:activate") {
    // Sent by a page to a worker left waiting (see offline.js).
    e.waitUntil(self.skipWaiting());
    return;
  }
  const reply = (r) => port && port.postMessage(r);
  e.waitUntil(answer().then(reply, (err) => reply({ error: String(err) })));
});
