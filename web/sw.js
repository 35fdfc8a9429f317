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

self.addEventListener('fetch', (event) => {
  if (event.request.method !== 'GET') return;
  const file = ownFile(new URL(event.request.url));
  if (!file) return;
  event.respondWith(
    caches.open(CACHE).then((cache) => cache.match(file)).then((hit) => hit || fetch(event.request)),
  );
});
