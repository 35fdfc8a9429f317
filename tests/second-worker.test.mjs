// A second analysis worker makes the stacks of the later samples of a big file
// (web/src/stack_helper.rs; `?share=F` forces it on any file, F being the share of the records
// whose stacks the first worker makes). The page must show the same profile either way: the
// flame total is perf's sample count, and the folded stacks exported are the same lines as with
// one worker. Files are read in small slices, so that the slices the first worker forwards are
// cut in many places, and with zstd-compressed records too.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../scripts/static-server.mjs';
import { launch, openApp, waitForState } from './helpers/browser.mjs';
import { num, showTab, flameTotal, sampleCount } from './helpers/views.mjs';
import { parseScriptSamples } from './helpers/perf-script.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
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

/** Opens `path` with `query`; returns the sample count, whether a second worker helped, the
 * flame total and the folded export. */
async function open(path, query) {
  const { page, errors } = await openApp(browser.context, `${server.url}?${query}`);
  const workers = [];
  page.on('worker', (w) => workers.push(w.url().split('/').pop()));
  await page.setInputFiles('#file', path);
  assert.equal(await waitForState(page, ['loaded', 'error'], 60_000), 'loaded');
  const timings = page.locator('[data-field="timings"]');
  const helper = await timings.getAttribute('data-helper');
  const samples = await sampleCount(page);
  await showTab(page, 'flame');
  const total = await flameTotal(page);
  if (!(await page.locator('#export-menu').evaluate((d) => d.open))) await page.click('#export-menu > summary');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-folded')]);
  const folded = readFileSync(await download.path(), 'utf8').split('\n').filter(Boolean).sort();
  const text = await timings.textContent();
  assert.deepEqual(errors, []);
  await page.close();
  return { helper, samples, total, folded, workers, text };
}

async function compare(path, perfSamples, slice) {
  const one = await open(path, `slice=${slice}&share=off`);
  assert.equal(one.helper, 'None');
  // The second worker is started as `worker_loader.js?module` (web/src/stack_helper.rs); the
  // analysis worker as `worker_loader.js?share=…`, at boot, which on a loaded machine can come
  // after the page is open and so be seen here too.
  const helpers = (workers) => workers.filter((w) => w.startsWith('worker_loader.js?module')).length;
  assert.equal(helpers(one.workers), 0, one.workers.join(' '));
  for (const share of ['0.3', '0']) {
    const two = await open(path, `slice=${slice}&share=${share}`);
    assert.equal(two.helper, 'Used', `share=${share}: ${two.text}`);
    assert.match(two.text, /second worker/);
    assert.equal(helpers(two.workers), 1, two.workers.join(' '));
    assert.equal(two.samples, perfSamples);
    assert.equal(two.total, perfSamples);
    assert.deepEqual(two.folded, one.folded, `share=${share}`);
  }
  assert.equal(one.total, perfSamples);
}

test('example.data: with a second worker for the stacks, perf\'s samples and the same folded stacks', async () => {
  const perf = parseScriptSamples(readFileSync(join(ROOT, 'tests', 'data', 'example.samples.txt'), 'utf8'));
  await compare(join(ROOT, 'tests', 'data', 'example.data'), perf.length, 4093);
});

test('a file with a second worker after one without, in one page (the reader keeps the first file\'s buffers for the next): perf\'s samples, the same folded stacks', async () => {
  // A pipe-mode file has no second worker; its slices' buffers go back to the reader, which
  // reads example.data's slices (of the same size) into them, and those go on to the second
  // worker.
  const example = join(ROOT, 'tests', 'data', 'example.data');
  const perf = parseScriptSamples(readFileSync(join(ROOT, 'tests', 'data', 'example.samples.txt'), 'utf8'));
  const one = await open(example, 'slice=4093&share=off');
  const { page, errors } = await openApp(browser.context, `${server.url}?slice=4093&share=0.3`);
  const timings = page.locator('[data-field="timings"]');
  for (const [path, helper] of [[join(ROOT, 'tests', 'data', 'pipe.data'), 'None'], [example, 'Used']]) {
    await page.setInputFiles('#file', path);
    const name = path.split('/').pop();
    await page.waitForFunction((n) => document.title.startsWith(n) && ['loaded', 'error'].includes(document.body.dataset.state), name, { timeout: 60_000 });
    assert.equal(await waitForState(page, ['loaded', 'error']), 'loaded', name);
    assert.equal(await timings.getAttribute('data-helper'), helper, name);
  }
  assert.equal(await sampleCount(page), perf.length);
  await showTab(page, 'flame');
  assert.equal(await flameTotal(page), perf.length);
  if (!(await page.locator('#export-menu').evaluate((d) => d.open))) await page.click('#export-menu > summary');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-folded')]);
  const folded = readFileSync(await download.path(), 'utf8').split('\n').filter(Boolean).sort();
  assert.deepEqual(folded, one.folded);
  assert.deepEqual(errors, []);
  await page.close();
});

for (const name of ['syswide-g', 'compressed-z', 'dwarf', 'tp-callchain']) {
  test(`corpus gen/${name}.data: with a second worker for the stacks, perf's samples and the same folded stacks`, async (t) => {
    const path = join(GEN, `${name}.data`);
    if (!existsSync(path)) {
      t.skip(`no corpus at ${SHARED} (set PERFSCOPE_SHARED)`);
      return;
    }
    const perf = parseScriptSamples(readFileSync(join(GEN, 'oracle', `${name}.script.txt`), 'utf8'));
    await compare(path, perf.length, 65536);
  });
}
