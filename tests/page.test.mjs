// The built page (dist/) in headless Chromium: open each fixture by the file input and by a
// real drop, and check what a person sees against perf's own header output for that file.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveApp } from './helpers/app.mjs';
import { dropFile, field, isPlaywrightNotice, launch, openApp, waitForState } from './helpers/browser.mjs';
import { assertPageShows } from './helpers/expect.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DATA = join(ROOT, 'tests', 'data');
const SHOTS = join(ROOT, 'tests', 'screenshots');
const FIXTURES = ['example', 'two-events', 'pipe'];

const app = serveApp(ROOT);

async function shot(page, name) {
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

for (const name of FIXTURES) {
  const dataPath = join(DATA, `${name}.data`);
  const headerPath = join(DATA, `${name}.header.txt`);

  describe(`fixture ${name}.data`, () => {
    test('picked with the file input', async () => {
      const { page, errors } = await openApp(app.browser.context, app.server.url);
      await page.setInputFiles('#file', dataPath);
      const state = await waitForState(page, ['loaded', 'error']);
      if (state !== 'loaded') assert.fail(`state ${state}: ${await page.locator('#error').textContent()}`);
      await assertPageShows(page, dataPath, headerPath);
      await shot(page, `input-${name}`);
      assert.deepEqual(errors, []);
      await page.close();
    });

    test('dropped on the page', async () => {
      const { page, errors } = await openApp(app.browser.context, app.server.url);
      await dropFile(page, `${name}.data`, readFileSync(dataPath));
      assert.equal(await waitForState(page, ['loaded', 'error']), 'loaded');
      await assertPageShows(page, dataPath, headerPath);
      await shot(page, `drop-${name}`);
      assert.deepEqual(errors, []);
      await page.close();
    });
  });
}

test('"Open example" loads the bundled example.data', async () => {
  const { page, errors } = await openApp(app.browser.context, app.server.url);
  await shot(page, 'welcome');
  await page.click('#open-example');
  assert.equal(await waitForState(page, ['loaded', 'error']), 'loaded');
  await assertPageShows(page, join(DATA, 'example.data'), join(DATA, 'example.header.txt'));
  assert.equal(await page.title(), 'example.data — Perfscope');
  await shot(page, 'example');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a file that is not a perf.data says what was expected and which bytes were found', async () => {
  const { page, errors } = await openApp(app.browser.context, app.server.url);
  await page.setInputFiles('#file', { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello world\nthis is text\n') });
  assert.equal(await waitForState(page, ['loaded', 'error']), 'error');
  assert.equal(await field(page, 'error-title'), 'Not a perf.data file');
  const message = await field(page, 'error');
  assert.match(message, /expected the perf\.data magic "PERFILE2"/);
  // "hello wo" = 68 65 6c 6c 6f 20 77 6f
  assert.match(message, /68 65 6c 6c 6f 20 77 6f/);
  assert.equal(await field(page, 'file-name'), 'notes.txt');
  assert.ok(await page.locator('#error').isVisible());
  await shot(page, 'not-perf');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a truncated perf.data shows the error and what could be read', async () => {
  const { page, errors } = await openApp(app.browser.context, app.server.url);
  const bytes = readFileSync(join(DATA, 'example.data')).subarray(0, 30000);
  await dropFile(page, 'truncated.data', bytes);
  assert.equal(await waitForState(page, ['loaded', 'error']), 'loaded');
  // The data section runs past the end: reading goes on, with a warning naming the offset.
  const warnings = await page.locator('[data-field="warning"]').allTextContents();
  assert.ok(warnings.some((w) => /^at offset 0x[0-9a-f]+: data section at 0x108 of 72408 bytes lies outside the 30000-byte file$/.test(w)), warnings.join('\n'));
  assert.equal(await field(page, 'byte-order'), 'little-endian');
  await shot(page, 'truncated');
  assert.deepEqual(errors, []);
  await page.close();
});

test('an empty file is reported as empty', async () => {
  const { page, errors } = await openApp(app.browser.context, app.server.url);
  await page.setInputFiles('#file', { name: 'empty.data', mimeType: 'application/octet-stream', buffer: Buffer.alloc(0) });
  assert.equal(await waitForState(page, ['loaded', 'error']), 'error');
  assert.equal(await field(page, 'error-title'), 'The file is empty');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a long build-id table shows its first 20 rows until "Show all", then every one perf buildid-list prints', async () => {
  const perf = readFileSync(join(DATA, 'buildids.buildid-list.txt'), 'utf8').trim().split('\n')
    .map((l) => l.replace(/^(\S+) (.*)$/, '$1 $2')).sort();
  assert.equal(perf.length, 65);
  const { page, errors } = await openApp(app.browser.context, app.server.url);
  await page.setInputFiles('#file', join(DATA, 'buildids.data'));
  assert.equal(await waitForState(page, ['loaded']), 'loaded');
  const rows = page.locator('[data-field="build-ids"] tbody tr');
  assert.equal(await rows.count(), 20);
  assert.equal(await field(page, 'build-ids-more'), 'The first 20 of 65 build ids. Show all');
  await page.click('#show-all-build-ids');
  await page.waitForFunction(() => document.querySelectorAll('[data-field="build-ids"] tbody tr').length === 65);
  const shown = await rows.evaluateAll((trs) => trs.map((tr) => `${tr.cells[1].textContent} ${tr.cells[0].textContent}`));
  assert.deepEqual(shown.sort(), perf);
  assert.equal(await page.locator('[data-field="build-ids-more"]').count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the header cards hold their tables at 1280, 820 and 600 px wide, the caches\' values whole', async () => {
  const { page, errors } = await openApp(app.browser.context, app.server.url);
  await page.setInputFiles('#file', join(DATA, 'example.data'));
  assert.equal(await waitForState(page, ['loaded']), 'loaded');
  for (const width of [1280, 820, 600]) {
    await page.setViewportSize({ width, height: 720 });
    const cards = await page.locator('.features-grid .card').evaluateAll((cs) =>
      cs.map((c) => ({ id: c.id, scroll: c.scrollWidth, client: c.clientWidth })));
    assert.ok(cards.some((c) => c.id === 'caches-card'), `${width} px: a caches card`);
    for (const c of cards) assert.ok(c.scroll <= c.client, `${width} px: ${c.id} ${c.scroll} > ${c.client}`);
    // One line per row: no value ("Instruction", "491520K") broken across lines.
    const heights = await page.locator('#caches-card tbody tr').evaluateAll((trs) => trs.map((tr) => tr.offsetHeight));
    assert.equal(new Set(heights).size, 1, `${width} px: row heights ${heights}`);
  }
  await page.setViewportSize({ width: 1280, height: 720 });
  assert.deepEqual(errors, []);
  await page.close();
});

test('a second file replaces the first', async () => {
  const { page, errors } = await openApp(app.browser.context, app.server.url);
  await page.setInputFiles('#file', join(DATA, 'example.data'));
  await waitForState(page, ['loaded']);
  await dropFile(page, 'two-events.data', readFileSync(join(DATA, 'two-events.data')));
  await page.waitForFunction(() => document.querySelector('[data-field="file-name"]')?.textContent === 'two-events.data');
  assert.equal(await waitForState(page, ['loaded', 'error']), 'loaded');
  assert.deepEqual(await page.locator('[data-field="event-name"]').allTextContents(), ['cpu-clock', 'task-clock']);
  assert.deepEqual(errors, []);
  await page.close();
});

test('dark theme', async () => {
  const dark = await launch({ colorScheme: 'dark' });
  try {
    const { page, errors } = await openApp(dark.context, app.server.url);
    await shot(page, 'welcome-dark');
    await page.click('#open-example');
    assert.equal(await waitForState(page, ['loaded']), 'loaded');
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(bg, 'rgb(15, 18, 23)', 'the dark palette applies');
    await shot(page, 'example-dark');
    await page.setInputFiles('#file', { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not perf') });
    await waitForState(page, ['error']);
    await shot(page, 'not-perf-dark');
    assert.deepEqual(errors, []);
  } finally {
    await dark.close();
  }
});

test('if the app wasm cannot load, the page says so instead of staying blank', async () => {
  const page = await app.browser.context.newPage();
  await page.route(/\/app-[0-9a-f]+_bg\.wasm$/, (route) => route.abort());
  await page.goto(app.server.url);
  assert.equal(await waitForState(page, ['error']), 'error');
  assert.match(await page.locator('#error').textContent(), /^Perfscope could not start: .+ It needs a browser with WebAssembly/);
  await shot(page, 'boot-failed');
  await page.close();
});

test('the analysis worker that boot.js starts is the one the app uses (and warms up before the first file); with worker parameters the app starts its own', async () => {
  for (const [query, want] of [['', 'worker_loader.js'], ['?reader=0', 'worker_loader.js?reader=0']]) {
    const page = await app.browser.context.newPage();
    const workers = [];
    let analysis = null;
    page.on('worker', (w) => {
      workers.push(w.url().split('/').pop());
      if (!analysis && /worker_loader\.js/.test(w.url())) analysis = w;
    });
    await page.goto(`${app.server.url}${query}`);
    await waitForState(page, ['idle']);
    await page.setInputFiles('#file', join(DATA, 'example.data'));
    assert.equal(await waitForState(page, ['loaded', 'error']), 'loaded');
    // One analysis worker (and its reader, and the inflater it keeps ready for a compressed
    // file: web/src/inflater.rs): had the app not adopted boot.js's worker, there would be two.
    const inflaters = workers.filter((w) => w.startsWith('worker_loader.js?inflater'));
    assert.deepEqual(workers.filter((w) => w.startsWith('worker_loader.js') && !inflaters.includes(w)), [want], workers.join(' '));
    assert.equal(inflaters.length, query ? 0 : 1, workers.join(' '));
    // Before the file came, the worker warmed up on the bundled example (web/src/worker.rs):
    // one warm-up, ended by the file at the latest.
    assert.equal(await analysis.evaluate(() => performance.getEntriesByName('warm-up').length), 1);
    // Two readers: the analysis worker's, and the one its inflater starts for the records it
    // may order (both started before the file came); none with ?reader=0.
    assert.deepEqual(workers.filter((w) => w === 'reader.js').length, query ? 0 : 2, workers.join(' '));
    await page.close();
  }
});

test('before the first file the page runs its own code once on the bundled example (web/src/page_warm_up.rs), and shows none of it', async () => {
  const page = await app.browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error' && !isPlaywrightNotice(m)) errors.push(m.text()); });
  await page.goto(app.server.url);
  await waitForState(page, ['idle']);
  // The page's warm-up read the example's summary and rendered its views (the measure is made
  // only then); the worker's warm-up messages (request id 0) came and were dropped.
  await page.waitForFunction(() => performance.getEntriesByName('page warm-up').length === 1, null, { timeout: 20_000 });
  await page.waitForTimeout(500);
  assert.equal(await page.evaluate(() => document.body.dataset.state), 'idle');
  assert.equal(await page.title(), 'Perfscope');
  // Only the welcome view: no loading view, summary, file bar or tabs left in the document.
  assert.equal(await page.getByText('Drop a perf.data file anywhere on this page').count(), 1);
  assert.equal(await page.locator('#loading, .summary-view, .file-bar, [role="tablist"], [data-field]').count(), 0);
  assert.deepEqual(errors, []);
  // A file then opens as usual.
  await page.setInputFiles('#file', join(DATA, 'example.data'));
  assert.equal(await waitForState(page, ['loaded', 'error']), 'loaded');
  assert.equal(await page.title(), 'example.data — Perfscope');
  await page.close();
});

test('if the worker wasm cannot load, opening a file says so', async () => {
  const page = await app.browser.context.newPage();
  await page.route(/\/worker_bg\.wasm$/, (route) => route.abort());
  await page.goto(app.server.url);
  await waitForState(page, ['idle']);
  await page.setInputFiles('#file', join(DATA, 'example.data'));
  assert.equal(await waitForState(page, ['error']), 'error');
  assert.equal(await field(page, 'error-title'), 'Could not open example.data');
  assert.match(await field(page, 'error'), /^the parser worker failed to load: /);
  await shot(page, 'worker-failed');
  // A second try starts a fresh worker, which fails the same way rather than hanging.
  await page.setInputFiles('#file', join(DATA, 'pipe.data'));
  await page.waitForFunction(() => document.querySelector('[data-field="error-title"]')?.textContent === 'Could not open pipe.data');
  await page.close();
});
