// A big recording (tests/data/pipe.data's samples repeated to PERFSCOPE_BIG_MB megabytes, 300 by
// default; written to a temporary file) is parsed while a timer on the page keeps firing: the
// main thread stays responsive, the progress bar advances, and Cancel stops the work.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../scripts/static-server.mjs';
import { launch, openApp, waitForState } from './helpers/browser.mjs';
import { num, showTab, flameTotal } from './helpers/views.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const MB = Number(process.env.PERFSCOPE_BIG_MB ?? 300);

/**
 * A pipe-mode perf.data: pipe.data's metadata records, then its records from the first SAMPLE
 * on, `copies` times. Returns the bytes and the number of SAMPLE records in them (by a hand
 * walk of the little-endian record headers).
 */
function bigPipeFile(targetBytes) {
  const src = readFileSync(join(ROOT, 'tests', 'data', 'pipe.data'));
  let o = 16;
  let firstSample = -1;
  let samplesInBody = 0;
  while (o + 8 <= src.length) {
    const type = src.readUInt32LE(o);
    const size = src.readUInt16LE(o + 6);
    if (type === 9) {
      if (firstSample < 0) firstSample = o;
      samplesInBody += 1;
    }
    o += size;
  }
  assert.ok(firstSample > 0);
  const body = src.subarray(firstSample);
  const copies = Math.max(1, Math.round((targetBytes - firstSample) / body.length));
  const out = Buffer.concat([src.subarray(0, firstSample), ...Array(copies).fill(body)]);
  return { bytes: out, samples: samplesInBody * copies };
}

let server;
let browser;
let dir;
let big;

before(async () => {
  server = await startServer(join(ROOT, 'dist'));
  browser = await launch();
  dir = mkdtempSync(join(tmpdir(), 'perfscope-big-'));
  const { bytes, samples } = bigPipeFile(MB * 1e6);
  big = { path: join(dir, 'big-pipe.data'), samples, size: bytes.length };
  writeFileSync(big.path, bytes);
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Starts a 10 ms timer and a progress recorder on the page. */
async function watch(page) {
  await page.evaluate(() => {
    const w = { gaps: [], progress: [], last: performance.now() };
    window.__watch = w;
    w.timer = setInterval(() => {
      const now = performance.now();
      w.gaps.push(now - w.last);
      w.last = now;
      const p = document.querySelector('#progress');
      const v = p ? Number(p.value) : null;
      if (v !== null && v !== w.progress.at(-1)) w.progress.push(v);
    }, 10);
  });
}

test(`a ${MB} MB recording: the page keeps responding, the progress bar advances, every sample is counted`, { timeout: 300_000 }, async () => {
  const { page, errors } = await openApp(browser.context, server.url);
  await watch(page);
  const t0 = Date.now();
  await page.setInputFiles('#file', big.path);
  await page.waitForFunction(() => Number(document.querySelector('#progress')?.value ?? 0) > 0 || document.body.dataset.state !== 'loading');
  await page.screenshot({ path: join(ROOT, 'tests', 'screenshots', 'big-progress.png') });
  assert.equal(await waitForState(page, ['loaded', 'error'], 280_000), 'loaded');
  const seconds = (Date.now() - t0) / 1000;
  const w = await page.evaluate(() => { clearInterval(window.__watch.timer); return window.__watch; });
  const maxGap = Math.max(...w.gaps);
  console.log(`# ${(big.size / 1e6).toFixed(1)} MB, ${big.samples} samples: loaded in ${seconds.toFixed(1)} s; timer ticks ${w.gaps.length}, longest gap ${maxGap.toFixed(0)} ms; progress values ${w.progress.length}`);
  assert.ok(maxGap < 250, `the main thread was blocked for ${maxGap.toFixed(0)} ms`);
  assert.ok(w.progress.length >= 3, `progress values seen: ${w.progress}`);
  assert.ok(w.progress.some((v) => v > 0 && v < 1), `the bar moved through intermediate values: ${w.progress}`);
  // (A file read with a preview flame graph opens on the Flame graph tab.)
  await showTab(page, 'summary');
  assert.equal(num(await page.locator('[data-field="sample-count"]').textContent()), big.samples);
  await showTab(page, 'flame');
  assert.equal(await flameTotal(page), big.samples);
  assert.deepEqual(errors, []);
  await page.close();
});

test('Cancel stops the work and the next file opens', { timeout: 120_000 }, async () => {
  const { page, errors } = await openApp(browser.context, server.url);
  await page.setInputFiles('#file', big.path);
  await page.waitForFunction(() => Number(document.querySelector('#progress')?.value ?? 0) > 0);
  await page.click('#cancel');
  assert.equal(await waitForState(page, ['idle']), 'idle');
  await page.locator('#welcome').waitFor();
  await page.setInputFiles('#file', join(ROOT, 'tests', 'data', 'example.data'));
  assert.equal(await waitForState(page, ['loaded', 'error']), 'loaded');
  assert.equal(await page.locator('[data-field="file-name"]').textContent(), 'example.data');
  assert.deepEqual(errors, []);
  await page.close();
});
