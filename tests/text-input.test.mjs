// Text input: `perf script` output and folded stacks dropped on the page open like a perf.data
// and show a flame graph whose sample total is the number of samples in the text (counted here
// from the text itself, independently of the app). The corpus part (perf's script and folded
// oracles of a -g recording) skips, saying so, without PERFSCOPE_SHARED / ../shared.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../scripts/static-server.mjs';
import { dropFile, launch, openApp, waitForState } from './helpers/browser.mjs';
import { readScriptSamples, threadCounts } from './helpers/perf-script.mjs';
import { flameTotal, hoverFlame, flameRowY, canvasBox, showTab } from './helpers/views.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DATA = join(ROOT, 'tests', 'data');
const SHOTS = join(ROOT, 'tests', 'screenshots');
const SHARED = resolve(process.env.PERFSCOPE_SHARED ?? join(ROOT, '..', 'shared'));
const ORACLE = join(SHARED, 'corpus', 'gen', 'oracle');
const corpus = existsSync(join(ORACLE, 'fp-callchain.script.txt'));
const skipCorpus = corpus ? false : `no corpus at ${ORACLE} (set PERFSCOPE_SHARED to the folder holding corpus/)`;

let server;
let browser;

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  server = await startServer(join(ROOT, 'dist'));
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** Drops `bytes` as `name` on a fresh page, waits until loaded, shows the flame graph. */
async function dropAndShowFlame(name, bytes) {
  const { page, errors } = await openApp(browser.context, server.url);
  await dropFile(page, name, bytes);
  const state = await waitForState(page, ['loaded', 'error'], 60_000);
  if (state !== 'loaded') assert.fail(`${name}: state ${state}: ${await page.locator('#error, #app').first().textContent()}`);
  await showTab(page, 'flame');
  return { page, errors, total: await flameTotal(page) };
}

/** The sum of the counts of folded lines. */
const foldedTotal = (text) => text.split('\n').filter((l) => l.trim()).reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);

test('perf script text (comm,pid,tid,time,event) shows every sample, per thread as perf printed them', async () => {
  const path = join(DATA, 'example.samples.txt');
  const perf = readScriptSamples(path);
  const { page, errors, total } = await dropAndShowFlame('example.samples.txt', readFileSync(path));
  assert.equal(total, perf.length);
  await page.screenshot({ path: join(SHOTS, 'text-input-script.png') });
  await showTab(page, 'summary');
  const rows = await page.locator('[data-field="thread-row"]').evaluateAll((rs) => rs.map((r) => `${r.dataset.comm} ${r.dataset.pid}/${r.dataset.tid} ${r.dataset.samples}`));
  assert.deepEqual(rows.sort(), threadCounts(perf));
  await page.screenshot({ path: join(SHOTS, 'text-input-summary.png') });
  assert.deepEqual(errors, []);
  await page.close();
});

test('folded stacks show their counts; the command names the thread, the frames start at main', async () => {
  const text = 'sort;main;sort_list;compare 5\nsort;main;read_input 2\nsort;main 1\nmd5sum;main;md5_block 4\n';
  const { page, errors, total } = await dropAndShowFlame('stacks.folded', Buffer.from(text));
  assert.equal(total, foldedTotal(text));
  assert.equal(total, 12);
  await page.screenshot({ path: join(SHOTS, 'text-input-folded.png') });
  // The widest root-row box: main (8 sort + 4 md5sum samples, one function).
  const { width } = await canvasBox(page, 'canvas.flame-canvas');
  assert.equal(await hoverFlame(page, width / 2, await flameRowY(page, 0)), 'main');
  assert.deepEqual(errors, []);
  await page.close();
});

test('perf\'s script and folded oracles of a -g recording give perf\'s sample total', { skip: skipCorpus }, async () => {
  const folded = readFileSync(join(ORACLE, 'fp-callchain.folded.txt'), 'utf8');
  const want = foldedTotal(folded);
  const script = await dropAndShowFlame('fp-callchain.script.txt', readFileSync(join(ORACLE, 'fp-callchain.script.txt')));
  assert.equal(script.total, want);
  // Its stacks are deep: no "recorded without -g" reason.
  const reasons = await script.page.locator('[data-reason]').evaluateAll((ls) => ls.map((l) => l.dataset.reason));
  assert.ok(!reasons.includes('no-callchains'), `${reasons}`);
  await script.page.screenshot({ path: join(SHOTS, 'text-input-script-g.png') });
  assert.deepEqual(script.errors, []);
  await script.page.close();
  const f = await dropAndShowFlame('fp-callchain.folded.txt', Buffer.from(folded));
  assert.equal(f.total, want);
  assert.deepEqual(f.errors, []);
  await f.page.close();
});
