// The worker reads files in slices (`?slice=N` makes them tiny, so records and zstd frames are
// cut everywhere): the flame total is perf's sample count, the records view re-reads its rows
// (those inside COMPRESSED records too) from the file, `?url=` downloads with progress. With
// PERFSCOPE_BIG_FILE=/path/to/big.data, also measures the time to the summary and to the flame
// graph, and the worker's memory, for that file.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../scripts/static-server.mjs';
import { isPlaywrightNotice, launch, openApp, waitForState } from './helpers/browser.mjs';
import { num, showTab, flameTotal } from './helpers/views.mjs';
import { parseScriptSamples } from './helpers/perf-script.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const EXAMPLE = join(ROOT, 'tests', 'data', 'example.data');
const EXAMPLE_PERF = parseScriptSamples(readFileSync(join(ROOT, 'tests', 'data', 'example.samples.txt'), 'utf8'));
const SHARED = process.env.PERFSCOPE_SHARED ?? join(ROOT, '..', 'shared');
const GEN = join(SHARED, 'corpus', 'gen');

let server;
let browser;

before(async () => {
  server = await startServer(join(ROOT, 'dist'));
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function openSliced(path, slice) {
  const { page, errors } = await openApp(browser.context, `${server.url}?slice=${slice}`);
  await page.setInputFiles('#file', path);
  assert.equal(await waitForState(page, ['loaded', 'error'], 60_000), 'loaded');
  return { page, errors };
}

test('a file read in 4093-byte slices: the flame total is perf\'s sample count; memory is reported', async () => {
  const { page, errors } = await openSliced(EXAMPLE, 4093);
  assert.equal(num(await page.locator('[data-field="sample-count"]').textContent()), EXAMPLE_PERF.length);
  const memory = Number(await page.locator('[data-field="timings"]').getAttribute('data-wasm-memory'));
  assert.ok(memory > 0, `wasm memory ${memory}`);
  await showTab(page, 'flame');
  assert.equal(await flameTotal(page), EXAMPLE_PERF.length);
  assert.deepEqual(errors, []);
  await page.close();
});

test('with or without its reader worker (?reader=0), the worker reads the same records', async () => {
  const counts = [];
  for (const query of ['', '&reader=0']) {
    const { page, errors } = await openApp(browser.context, `${server.url}?slice=4093${query}`);
    const workers = [];
    page.on('worker', (w) => workers.push(w.url().split('/').pop()));
    await page.setInputFiles('#file', EXAMPLE);
    assert.equal(await waitForState(page, ['loaded', 'error'], 60_000), 'loaded');
    counts.push(num(await page.locator('[data-field="sample-count"]').textContent()));
    await showTab(page, 'flame');
    assert.equal(await flameTotal(page), EXAMPLE_PERF.length);
    // The reader is a worker of the analysis worker, only when wanted.
    assert.equal(workers.includes('reader.js'), query === '', workers.join(' '));
    assert.deepEqual(errors, []);
    await page.close();
  }
  assert.deepEqual(counts, [EXAMPLE_PERF.length, EXAMPLE_PERF.length]);
});

test('a zstd-compressed file read in small slices: perf\'s samples, and the last sample row read back from its COMPRESSED record', async (t) => {
  const path = join(GEN, 'compressed-z.data');
  if (!existsSync(path)) {
    t.skip(`no corpus at ${SHARED} (set PERFSCOPE_SHARED)`);
    return;
  }
  const perf = parseScriptSamples(readFileSync(join(GEN, 'oracle', 'compressed-z.script.txt'), 'utf8'));
  const { page, errors } = await openSliced(path, 1021);
  assert.equal(num(await page.locator('[data-field="sample-count"]').textContent()), perf.length);
  await showTab(page, 'flame');
  assert.equal(await flameTotal(page), perf.length);
  await showTab(page, 'records');
  await page.selectOption('#record-type', '9');
  await page.waitForSelector(`[data-field="records-matching"][data-current="true"][data-count="${perf.length}"]`);
  await page.locator('.records-scroll').evaluate((el) => { el.scrollTop = el.scrollHeight; });
  const last = page.locator(`.records-table .row[data-row="${perf.length - 1}"][data-type="SAMPLE"]`);
  await last.waitFor();
  assert.equal(num(await last.locator('.c-tid').textContent()), perf.at(-1).tid);
  const fields = await last.locator('.c-fields').textContent();
  assert.match(fields, /period=250000/, fields);
  await last.click();
  await page.locator('[data-field="record-stack"] li').first().waitFor();
  assert.ok(await page.locator('[data-field="record-stack"] li').count() > 1);
  await page.screenshot({ path: join(ROOT, 'tests', 'screenshots', 'streaming-compressed-records.png') });
  assert.deepEqual(errors, []);
  await page.close();
});

test('?url= downloads in the worker (into a Blob), then opens the file', async () => {
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (['error', 'warning'].includes(m.type()) && !isPlaywrightNotice(m)) errors.push(`console.${m.type()}: ${m.text()}`); });
  await page.goto(`${server.url}?url=example.data&slice=65536`);
  assert.equal(await waitForState(page, ['loaded', 'error']), 'loaded');
  assert.equal(await page.locator('[data-field="file-name"]').textContent(), 'example.data');
  assert.equal(num(await page.locator('[data-field="sample-count"]').textContent()), EXAMPLE_PERF.length);
  const size = /\(([\d,]+) bytes\)/.exec(await page.locator('[data-field="file-size"]').textContent());
  assert.equal(num(size?.[1]), statSync(EXAMPLE).size);
  assert.deepEqual(errors, []);
  await page.close();
});

test('?url= of a missing file says so', async () => {
  const page = await browser.context.newPage();
  await page.goto(`${server.url}?url=missing.data`);
  assert.equal(await waitForState(page, ['error']), 'error');
  assert.match(await page.locator('#app').textContent(), /could not fetch .*missing\.data: HTTP 404/);
  await page.close();
});

test('a big file: time to the summary and to the flame graph, worker memory', { timeout: 900_000 }, async (t) => {
  const path = process.env.PERFSCOPE_BIG_FILE;
  if (!path || !existsSync(path)) {
    t.skip('set PERFSCOPE_BIG_FILE to a big perf.data to measure');
    return;
  }
  const size = statSync(path).size;
  const { page, errors } = await openApp(browser.context, server.url);
  await page.evaluate(() => {
    const marks = {};
    window.__marks = marks;
    document.querySelector('#file').addEventListener('change', () => { marks.input = performance.now(); }, { capture: true });
    new MutationObserver(() => {
      if (!marks.summary && document.querySelector('[data-field="file-size"]')) marks.summary = performance.now();
    }).observe(document.body, { childList: true, subtree: true });
  });
  await page.setInputFiles('#file', path);
  await page.waitForFunction(() => window.__marks.summary, null, { timeout: 60_000 });
  await page.screenshot({ path: join(ROOT, 'tests', 'screenshots', 'streaming-big-summary.png') });
  assert.equal(await waitForState(page, ['loaded', 'error'], 880_000), 'loaded');
  await showTab(page, 'flame');
  const total = await flameTotal(page);
  const flame = await page.evaluate(() => performance.now());
  const marks = await page.evaluate(() => window.__marks);
  const timings = page.locator('[data-field="timings"]');
  const memory = Number(await timings.getAttribute('data-wasm-memory'));
  console.log(`# ${path}: ${(size / 1e6).toFixed(0)} MB; summary shown ${(marks.summary - marks.input).toFixed(0)} ms after the input's change (worker: ${Number(await timings.getAttribute('data-summary-ms')).toFixed(0)} ms); flame graph (${total} samples) at ${((flame - marks.input) / 1000).toFixed(1)} s; wasm memory ${(memory / 1e6).toFixed(0)} MB = ${(memory / size).toFixed(2)}x the file`);
  await page.screenshot({ path: join(ROOT, 'tests', 'screenshots', 'streaming-big-flame.png') });
  assert.ok(total > 0);
  assert.deepEqual(errors, []);
  await page.close();
});
