// Runs before the app (a file, not an inline script: the page's Content-Security-Policy allows
// no inline script). Four jobs:
// 1. If the app cannot start (a file missing, .wasm served with the wrong type, no
//    WebAssembly), say so instead of leaving "Loading Perfscope…" on screen.
// 2. Narrow connect-src to the page's own origin plus the origin of an explicit ?url= (a second
//    policy: the browser enforces both, so this can only take permissions away).
// 3. Register the service worker (./sw.js, written by scripts/postbuild.mjs) that keeps the
//    page working offline once loaded.
// 4. Start the analysis worker (web/worker_loader.js) now, so that its wasm loads and compiles
//    while the app's own wasm does, instead of after it: a file set on the page, or a ?url=
//    file, soon after it opens is then read at once. The app adopts it (web/src/worker_client.rs,
//    `take_early_worker`), with the events it sent before the app listened.
(function () {
  'use strict';
  function perfscopeBootFailed(reason) {
    if (!document.body || document.body.dataset.state !== 'booting') return;
    document.body.dataset.state = 'error';
    var p = document.querySelector('#app .boot');
    if (p) {
      p.id = 'error';
      p.textContent = 'Perfscope could not start: ' + reason + '. It needs a browser with ' +
        'WebAssembly, and a server that serves every file of the site (.wasm as application/wasm).';
    }
  }
  window.perfscopeBootFailed = perfscopeBootFailed;
  window.addEventListener('unhandledrejection', function (e) { perfscopeBootFailed(e.reason); });
  // Capture, to also see resources (scripts, the module graph) that fail to load.
  window.addEventListener('error', function (e) {
    var src = e.target && (e.target.src || e.target.href);
    perfscopeBootFailed(e.error || e.message || ('cannot load ' + (src || 'a script')));
  }, true);

  var allowed = ["'self'"];
  try {
    var target = new URLSearchParams(location.search).get('url');
    if (target) {
      var origin = new URL(target, location.href).origin;
      if (origin !== location.origin && /^https?:/.test(origin)) allowed.push(origin);
    }
  } catch (e) { /* a bad ?url= is reported by the app when it fetches it */ }
  var meta = document.createElement('meta');
  meta.httpEquiv = 'Content-Security-Policy';
  meta.content = 'connect-src ' + allowed.join(' ');
  document.head.appendChild(meta);

  // Only without the parameters the app passes on to its worker (?reader, ?preview, ?share,
  // ?compact, ?inflate…): with them the app starts its own, with those parameters.
  try {
    var query = new URLSearchParams(location.search);
    var passed = ['reader', 'preview', 'share', 'compact', 'inflate', 'order', 'warm', 'inflatewarm', 'inflatefail', 'inflatestall', 'readerstall'];
    if (typeof Worker === 'function' && !passed.some(function (p) { return query.has(p); })) {
      var early = { worker: new Worker('./worker_loader.js'), events: [] };
      early.worker.onmessage = function (e) { early.events.push(e); };
      early.worker.onerror = function (e) { early.events.push(e); };
      window.perfscopeEarlyWorker = early;
    }
  } catch (e) { /* the app starts its worker itself, and reports what fails then */ }

  if ('serviceWorker' in navigator && location.protocol !== 'file:') {
    window.addEventListener('load', function () {
      navigator.serviceWorker.register('./sw.js').catch(function (e) {
        // Offline use is a bonus: the page works without it.
        console.info('Perfscope: no offline copy (' + e + ')');
      });
    });
  }
})();
