// The worker reads files in slices (`?slice=N` makes them tiny, so records and zstd frames are
// cut everywhere): the flame total is perf's sample count, the records view re-reads its rows
// (those inside COMPRESSED records too) from the file, `?url=` downloads with progress. With
// PERFSCOPE_BIG_FILE=/path/to/big.data, also measures the time to the summary and to the flame
// graph, and the worker's memory, for that file.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../scripts/static-server.mjs';
import { isPlaywrightNotice, launch, openApp, waitForState } from './helpers/browser.mjs';
import { num, showTab, flameTotal, sampleCount } from './helpers/views.mjs';
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
  assert.equal(await sampleCount(page), EXAMPLE_PERF.length);
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
    await page.setInputFiles('#file', EXAMPLE);
    assert.equal(await waitForState(page, ['loaded', 'error'], 60_000), 'loaded');
    counts.push(await sampleCount(page));
    await showTab(page, 'flame');
    assert.equal(await flameTotal(page), EXAMPLE_PERF.length);
    // The reader is a worker of the analysis worker (started with it), only when wanted.
    const workers = page.workers().map((w) => w.url().split('/').pop());
    assert.equal(workers.includes('reader.js'), query === '', workers.join(' '));
    assert.deepEqual(errors, []);
    await page.close();
  }
  assert.deepEqual(counts, [EXAMPLE_PERF.length, EXAMPLE_PERF.length]);
});

test('a reader worker that fails to start (its script missing): the worker reads the file itself, for this file and the next', async () => {
  // The reader is started as a file begins to open, so it can fail before the records pass asks
  // it for anything: neither that pass nor the next file's may wait for it forever. The page is
  // served from a copy of dist/ without reader.js.
  const dir = mkdtempSync(join(tmpdir(), 'perfscope-no-reader-'));
  cpSync(join(ROOT, 'dist'), dir, { recursive: true });
  rmSync(join(dir, 'reader.js'));
  const bare = await startServer(dir);
  try {
    const { page, errors } = await openApp(browser.context, `${bare.url}?slice=4093`);
    // Two files one after the other, each with perf's sample count (the second one's shown
    // once the page names it).
    const threads = join(ROOT, 'tests', 'data', 'threads.data');
    const threadsPerf = parseScriptSamples(readFileSync(join(ROOT, 'tests', 'data', 'threads.samples.txt'), 'utf8'));
    for (const [path, perf] of [[EXAMPLE, EXAMPLE_PERF], [threads, threadsPerf]]) {
      await page.setInputFiles('#file', path);
      const name = path.split('/').pop();
      await page.waitForFunction((n) => document.title.startsWith(n) && ['loaded', 'error'].includes(document.body.dataset.state), name, { timeout: 60_000 });
      assert.equal(await waitForState(page, ['loaded', 'error']), 'loaded', name);
      assert.equal(await sampleCount(page), perf.length, name);
      await showTab(page, 'flame');
      assert.equal(await flameTotal(page), perf.length, name);
      await showTab(page, 'summary');
    }
    // (Each warning shows on the worker's console and again on the page's.)
    const fellBack = errors.filter((e) => /console\.warning: the reader worker failed: the rest of the file is read by the parser/.test(e));
    assert.equal(fellBack.filter((e) => e.startsWith('worker ')).length, 2, errors.join('\n'));
    // Nothing else went wrong but the missing script itself.
    assert.deepEqual(errors.filter((e) => !fellBack.includes(e) && !/reader\.js/.test(e)), []);
    await page.close();
  } finally {
    await bare.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a reader worker that stops answering (?readerstall=2): after 5 s the worker reads the rest itself', async () => {
  const { page, errors } = await openApp(browser.context, `${server.url}?slice=4093&readerstall=2`);
  await page.setInputFiles('#file', EXAMPLE);
  assert.equal(await waitForState(page, ['loaded', 'error'], 60_000), 'loaded');
  assert.equal(await sampleCount(page), EXAMPLE_PERF.length);
  await showTab(page, 'flame');
  assert.equal(await flameTotal(page), EXAMPLE_PERF.length);
  // (Each warning shows on the worker's console and again on the page's.)
  const fellBack = errors.filter((e) => /console\.warning: the reader worker failed: the rest of the file is read by the parser/.test(e));
  assert.equal(fellBack.filter((e) => e.startsWith('worker ')).length, 1, errors.join('\n'));
  assert.deepEqual(errors.filter((e) => !fellBack.includes(e)), []);
  await page.close();
});

/** Starts a reader worker (web/reader.js) in the page, with a 100 000-byte Blob whose byte i
 * is i % 251 and a map of its answers' handlers by request id: `window.readerTest`. */
async function startReader(page) {
  await page.evaluate(() => {
    const bytes = new Uint8Array(100_000).map((_, i) => i % 251);
    const reader = new Worker('./reader.js');
    const answers = new Map();
    reader.onmessage = (e) => answers.get(e.data.id)(e.data);
    window.readerTest = { blob: new Blob([bytes]), reader, answers };
  });
}

test('the reader worker reads a slice into a buffer handed back to it, and into a new one when none has the slice\'s size', async () => {
  const { page, errors } = await openApp(browser.context, server.url);
  await startReader(page);
  const got = await page.evaluate(async () => {
    const { blob, reader, answers } = window.readerTest;
    const ask = (id, start, end) => new Promise((done) => {
      answers.set(id, done);
      reader.postMessage({ id, blob, start, end });
    });
    const check = (a, start, end) => {
      const view = new Uint8Array(a.buffer, 0, a.length ?? a.buffer.byteLength);
      return view.length === end - start && view.every((b, i) => b === (start + i) % 251);
    };
    const out = [];
    // No spare: a buffer of its own, exactly the slice.
    let a = await ask(1, 1000, 41_000);
    out.push({ length: a.length ?? null, size: a.buffer.byteLength, right: check(a, 1000, 41_000) });
    // That buffer handed back: the next slice of its size is read into it.
    const spare = a.buffer;
    reader.postMessage({ spare }, [spare]);
    a = await ask(2, 50_000, 90_000);
    out.push({ length: a.length ?? null, size: a.buffer.byteLength, right: check(a, 50_000, 90_000) });
    // Handed back again: a shorter slice (a file's last) and a longer one get new buffers.
    reader.postMessage({ spare: a.buffer }, [a.buffer]);
    a = await ask(3, 90_000, 100_000);
    out.push({ length: a.length ?? null, size: a.buffer.byteLength, right: check(a, 90_000, 100_000) });
    a = await ask(4, 0, 100_000);
    out.push({ length: a.length ?? null, size: a.buffer.byteLength, right: check(a, 0, 100_000) });
    reader.terminate();
    return out;
  });
  assert.deepEqual(got, [
    { length: null, size: 40_000, right: true },
    { length: 40_000, size: 40_000, right: true },
    { length: null, size: 10_000, right: true },
    { length: null, size: 100_000, right: true },
  ]);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the reader worker reads a pass\'s slices from one stream, and opens another where a request is not where it stands', async () => {
  const { page, errors } = await openApp(browser.context, server.url);
  await startReader(page);
  const got = await page.evaluate(async () => {
    const { blob, reader, answers } = window.readerTest;
    let id = 0;
    const ask = (pass, passEnd, start, end) => new Promise((done) => {
      answers.set(++id, done);
      reader.postMessage({ id, blob, start, end, pass, passEnd });
    });
    const right = (a, start, end) => {
      const view = new Uint8Array(a.buffer, 0, a.length ?? a.buffer.byteLength);
      return view.length === Math.min(end, 100_000) - start && view.every((b, i) => b === (start + i) % 251);
    };
    const out = [];
    const step = async (pass, passEnd, start, end) => {
      const a = await ask(pass, passEnd, start, end);
      out.push([a.streams, a.buffer.byteLength, right(a, start, end)]);
      return a;
    };
    // Pass 1 over 0..100 000 in order: one stream; a buffer handed back is read into.
    await step(1, 100_000, 0, 30_000);
    const a = await step(1, 100_000, 30_000, 60_000);
    reader.postMessage({ spare: a.buffer }, [a.buffer]);
    await step(1, 100_000, 60_000, 90_000);
    // Not where the stream stands (it is at 90 000): a new stream.
    await step(1, 100_000, 10_000, 20_000);
    await step(1, 100_000, 20_000, 40_000);
    // Another pass at the same place: a new stream.
    await step(2, 100_000, 40_000, 50_000);
    // A pass asked past the file's end (the file was cut short): the bytes there are.
    await step(3, 120_000, 90_000, 120_000);
    reader.terminate();
    return out;
  });
  assert.deepEqual(got, [
    [1, 30_000, true],
    [1, 30_000, true],
    [1, 30_000, true],
    [2, 10_000, true],
    [2, 20_000, true],
    [3, 10_000, true],
    [4, 10_000, true],
  ]);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a zstd-compressed file read in small slices: perf\'s samples, and the last sample row read back from its COMPRESSED record', async (t) => {
  const path = join(GEN, 'compressed-z.data');
  if (!existsSync(path)) {
    t.skip(`no corpus at ${SHARED} (set PERFSCOPE_SHARED)`);
    return;
  }
  const perf = parseScriptSamples(readFileSync(join(GEN, 'oracle', 'compressed-z.script.txt'), 'utf8'));
  const { page, errors } = await openSliced(path, 1021);
  assert.equal(await sampleCount(page), perf.length);
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
  assert.equal(await sampleCount(page), EXAMPLE_PERF.length);
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
