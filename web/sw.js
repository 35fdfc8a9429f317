// Perfscope's service worker: keeps the page working offline once it has loaded. It caches the
// site's own files (the list and the version are filled in by scripts/postbuild.mjs at build
// time) and answers only requests for them; every other request (an explicit ?url= file) goes
// to the network untouched. A new build has a new version: its cache replaces the old one.
'use strict';
const VERSION = '__VERSION__';
const FILES = __FILES__;
const CACHE = 'perfscope-' + VERSION;
const scope = new URL(self.registration.scope);

function ownFile(url) {
  if (url.origin !== scope.origin || !url.pathname.startsWith(scope.pathname)) return null;
  const rel = url.pathname.slice(scope.pathname.length);
  if (rel === '' || rel === 'index.html') return 'index.html';
  return FILES.includes(rel) ? rel : null;
}

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES.map((f) => new Request(f, { cache: 'reload' })))).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('perfscope-') && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

// A cached response carries its own URL, which a worker takes as its address: the analysis
// worker's settings and the roles of its helpers are in the query of the address they were
// started with (`worker_loader.js?inflater&module`), so a request with a query gets a copy
// without a URL, and keeps its own.
function answer(hit, url) {
  if (!hit || !url.search) return hit;
  return new Response(hit.body, { status: hit.status, statusText: hit.statusText, headers: hit.headers });
}

self.addEventListener('fetch', (event) => {
  if (event.request.method !== 'GET') return;
  const url = new URL(event.request.url);
  const file = ownFile(url);
  if (!file) return;
  event.respondWith(
    caches.open(CACHE).then((cache) => cache.match(file)).then((hit) => answer(hit, url) || fetch(event.request)),
  );
});
