// Static hosting: the built page works from a sub-path (as GitHub Pages serves a project site),
// has no inline script under its strict Content-Security-Policy, keeps working offline once
// loaded (service worker), and makes no request but for its own files and an explicit ?url=.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, waitForState, isPlaywrightNotice } from './helpers/browser.mjs';
import { readScriptSamples } from './helpers/perf-script.mjs';
import { flameTotal, showTab } from './helpers/views.mjs';
import { serveLogged } from './helpers/serve-logged.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DATA = join(ROOT, 'tests', 'data');
const SHOTS = join(ROOT, 'tests', 'screenshots');
const PREFIX = '/some/sub/path/';
const EXAMPLE_SAMPLES = readScriptSamples(join(DATA, 'example.samples.txt')).length;

let app;
let data;
let browser;

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  app = await serveLogged(join(ROOT, 'dist'), { prefix: PREFIX });
  data = await serveLogged(DATA, { cors: true });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await app?.close();
  await data?.close();
});

/** Records every request the page (and its workers) make, and what goes wrong. */
function watch(page) {
  const requests = [];
  const errors = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (['error', 'warning'].includes(m.type()) && !isPlaywrightNotice(m)) errors.push(`console.${m.type()}: ${m.text()}`); });
  page.on('response', (r) => { if (r.status() >= 400) errors.push(`HTTP ${r.status()}: ${r.url()}`); });
  return { requests, errors };
}

test('dist/ has no inline script and declares a strict CSP', () => {
  const html = readFileSync(join(ROOT, 'dist', 'index.html'), 'utf8');
  assert.deepEqual(html.match(/<script(?![^>]*\bsrc=)[^>]*>/g), null);
  const csp = /http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(html)?.[1];
  assert.ok(csp, 'a CSP meta tag');
  assert.match(csp, /default-src 'self'/);
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval';/);
  assert.doesNotMatch(csp, /unsafe-inline'[^;]*script|script-src[^;]*unsafe-inline/);
  // Every URL is relative: no "/" at the start of a src or href.
  assert.deepEqual(html.match(/(?:src|href)="\/[^"]*"/g), null);
  const sw = readFileSync(join(ROOT, 'dist', 'sw.js'), 'utf8');
  assert.match(sw, /const VERSION = '[0-9a-f]{16}'/);
});

test('served under a sub-path: the page, its worker and the example load from there only', async () => {
  const page = await browser.context.newPage();
  const { requests, errors } = watch(page);
  await page.goto(app.url);
  await waitForState(page, ['idle']);
  await page.click('#open-example');
  assert.equal(await waitForState(page, ['loaded', 'error'], 60_000), 'loaded');
  await showTab(page, 'flame');
  assert.equal(await flameTotal(page), EXAMPLE_SAMPLES);
  await page.screenshot({ path: join(SHOTS, 'hosting-subpath.png') });
  for (const path of app.log) assert.ok(path.startsWith(PREFIX), `${path} is outside ${PREFIX}`);
  for (const url of requests) assert.ok(url.startsWith(app.url) || url.startsWith('blob:') || url.startsWith('data:'), `unexpected request ${url}`);
  assert.ok(app.log.some((p) => p.endsWith('.wasm')), 'the wasm came from the sub-path');
  assert.deepEqual(errors, []);
  await page.close();
});

test('only the app\'s own files and the ?url= target are requested', async () => {
  const b = await launch({ serviceWorkers: 'allow' });
  const { context } = b;
  try {
    const page = await context.newPage();
    const { requests, errors } = watch(page);
    // The context also sees what the workers (the analysis worker fetches ?url=) request.
    context.on('request', (r) => requests.push(r.url()));
    const target = `${data.url}example.data`;
    await page.goto(`${app.url}?url=${encodeURIComponent(target)}`);
    assert.equal(await waitForState(page, ['loaded', 'error'], 60_000), 'loaded');
    await showTab(page, 'flame');
    assert.equal(await flameTotal(page), EXAMPLE_SAMPLES);
    await page.evaluate(() => navigator.serviceWorker.ready);
    const foreign = requests.filter((u) => !u.startsWith(app.url) && u !== target && !u.startsWith('blob:') && !u.startsWith('data:'));
    assert.deepEqual(foreign, []);
    assert.ok(requests.includes(target), 'the ?url= file was fetched');
    assert.deepEqual(data.log, ['/example.data']);
    // connect-src is narrowed to the site and that origin: the same file under another name
    // of the same host (another origin, served with CORS) is refused by the policy.
    const other = target.replace('127.0.0.1', 'localhost');
    assert.equal((await fetch(other)).status, 200, 'reachable without the policy');
    const blocked = await page.evaluate((u) => new Promise((ok) => {
      document.addEventListener('securitypolicyviolation', (e) => ok(`csp ${e.effectiveDirective}`), { once: true });
      fetch(u).then(() => ok('fetched'), () => {});
    }), other);
    assert.equal(blocked, 'csp connect-src');
    assert.deepEqual(errors.filter((e) => !e.includes('Content Security Policy') && !e.includes(other)), []);
    await page.close();
  } finally {
    await b.close();
  }
});

test('offline: once loaded, a reload works without the network (service worker)', async () => {
  const b = await launch({ serviceWorkers: 'allow' });
  try {
    const page = await b.context.newPage();
    const { errors } = watch(page);
    await page.goto(app.url);
    await waitForState(page, ['idle']);
    // Installed and caching, and this page is controlled.
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 20_000 });
    // The analysis worker started at page load, before the service worker controlled it, fetches
    // its wasm from the network: on a busy machine that request can come this late. Wait for a
    // second without requests before counting.
    for (let seen = -1, t0 = Date.now(); seen !== app.log.length && Date.now() - t0 < 15_000;) {
      seen = app.log.length;
      await new Promise((r) => setTimeout(r, 1000));
    }
    const before = app.log.length;
    await b.context.setOffline(true);
    await page.reload();
    await waitForState(page, ['idle']);
    await page.click('#open-example');
    assert.equal(await waitForState(page, ['loaded', 'error'], 60_000), 'loaded');
    await showTab(page, 'flame');
    assert.equal(await flameTotal(page), EXAMPLE_SAMPLES);
    await page.screenshot({ path: join(SHOTS, 'hosting-offline.png') });
    assert.equal(app.log.length, before, `no request reached the server: ${app.log.slice(before).join(' ')}`);
    assert.deepEqual(errors, []);
    await b.context.setOffline(false);
    await page.close();
  } finally {
    await b.close();
  }
});

test('under the service worker, workers keep their addresses: the page\'s settings reach the analysis worker, and its inflater stays one', async () => {
  // A cached response carries its own URL, which a worker takes as its address: answered as
  // `worker_loader.js`, the inflater (`worker_loader.js?inflater&module`) would be another
  // analysis worker, which starts an inflater of its own, and so on.
  const b = await launch({ serviceWorkers: 'allow' });
  try {
    const url = `${app.url}?inflate=1&slice=4093`;
    const first = await b.context.newPage();
    await first.goto(url);
    await waitForState(first, ['idle']);
    await first.evaluate(() => navigator.serviceWorker.ready);
    await first.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 20_000 });
    // (Closed, so that none of its workers, which may start late on a busy machine, is
    // counted below.)
    await first.close();
    // Every worker of this page starts through the service worker.
    const page = await b.context.newPage();
    const { errors } = watch(page);
    const workers = [];
    page.on('worker', (w) => workers.push(w.url().slice(w.url().lastIndexOf('/') + 1)));
    await page.goto(url);
    await waitForState(page, ['idle']);
    assert.ok(await page.evaluate(() => navigator.serviceWorker.controller !== null), 'controlled by the service worker');
    await page.setInputFiles('#file', join(DATA, 'compressed.data'));
    assert.equal(await waitForState(page, ['loaded', 'error'], 60_000), 'loaded');
    const timings = page.locator('[data-field="timings"]');
    assert.equal(await timings.getAttribute('data-inflater'), 'Used', await timings.textContent());
    await showTab(page, 'flame');
    assert.equal(await flameTotal(page), readScriptSamples(join(DATA, 'compressed.samples.txt')).length);
    await new Promise((r) => setTimeout(r, 1500));
    // The analysis worker, the file's inflater and the next file's, and a reader for each (an
    // inflater starts its own, for a file whose records it orders).
    const inflaters = workers.filter((w) => w.startsWith('worker_loader.js?inflater'));
    const readers = workers.filter((w) => w === 'reader.js');
    assert.ok(workers.length <= 6 && inflaters.length <= 2 && readers.length <= 3, workers.join(' '));
    assert.deepEqual(errors, []);
    await page.close();
  } finally {
    await b.close();
  }
});
