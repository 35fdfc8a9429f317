// While the worker makes the tree a new view state wants (a refilter of millions of samples
// takes a second or two), the flame graph and the call tree keep the earlier tree but say they
// are updating and dim it. Checked by holding the page's tree queries back (a wrapper of
// Worker.postMessage installed before the page loads) so that the wait is seen for certain,
// then letting them go: the new tree is perf's count for the selection and the notice is gone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveApp } from './helpers/app.mjs';
import { readScriptSamples } from './helpers/perf-script.mjs';
import { flameTotal, openFile, showTab } from './helpers/views.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DATA = join(ROOT, 'tests', 'data');
const EXAMPLE = join(DATA, 'example.data');
const PERF = readScriptSamples(join(DATA, 'example.samples.txt'));
const EXPECTED = JSON.parse(readFileSync(join(DATA, 'example.expected.json'), 'utf8'));

const app = serveApp(ROOT);

/** Holds the page's tree queries while `window.__holdTrees` is set; `__releaseTrees()` sends them. */
function holdTrees() {
  const post = Worker.prototype.postMessage;
  const held = [];
  window.__holdTrees = false;
  window.__heldTrees = () => held.length;
  window.__releaseTrees = () => {
    window.__holdTrees = false;
    for (const [w, m, t] of held.splice(0)) post.call(w, m, t);
  };
  Worker.prototype.postMessage = function (m, t) {
    const tree = m && m.op === 'query' && typeof m.json === 'string' && m.json.startsWith('{"Tree"');
    if (tree) window.__treeQueries = (window.__treeQueries ?? 0) + 1;
    if (tree && window.__holdTrees) {
      held.push([this, m, t]);
      return undefined;
    }
    return post.call(this, m, t);
  };
}

/** Installs `holdTrees` on the context's pages, once. */
let holding = false;
async function holdTreesOnce() {
  if (!holding) {
    holding = true;
    await app.browser.context.addInitScript(holdTrees);
  }
}

test('a tree being remade is shown dimmed and said to be updating, until the new one comes', async () => {
  await holdTreesOnce();
  const { page, errors } = await openFile(app.browser.context, app.server.url, EXAMPLE);
  await showTab(page, 'flame');
  assert.equal(await flameTotal(page), PERF.length);
  const updating = page.locator('[data-field="flame-updating"]');
  const scroll = page.locator('[data-field="flame-scroll"]');
  assert.equal(await updating.count(), 0);
  assert.equal(await scroll.getAttribute('aria-busy'), 'false');

  await page.evaluate(() => { window.__holdTrees = true; });
  const { time, samples } = EXPECTED.time_ranges[0];
  assert.notEqual(samples, PERF.length, 'a selection that changes the tree');
  await page.fill('#time-range', time);
  await page.press('#time-range', 'Enter');
  await page.waitForFunction(() => window.__heldTrees() > 0);
  await updating.waitFor();
  assert.equal(await scroll.getAttribute('aria-busy'), 'true');
  assert.match(await scroll.getAttribute('class'), /\bstale\b/);
  const total = page.locator('[data-field="flame-total"]');
  assert.equal(await total.getAttribute('data-current'), 'false');
  // The tree still shown is the earlier one, with its total.
  assert.equal(Number(await total.getAttribute('data-samples')), PERF.length);
  // Dimmed once the transition's delay has passed.
  await page.waitForFunction(() => Number(getComputedStyle(document.querySelector('canvas.flame-canvas')).opacity) < 0.5);
  await page.screenshot({ path: join(ROOT, 'tests', 'screenshots', 'flame-updating.png') });

  // The call tree shows the same earlier tree, also said to be updating.
  await showTab(page, 'calltree');
  await page.locator('[data-field="calltree-updating"]').waitFor();
  assert.equal(await page.locator('[data-field="calltree-total"]').getAttribute('data-current'), 'false');

  await page.evaluate(() => window.__releaseTrees());
  await page.waitForFunction(() => document.querySelector('[data-field="calltree-total"]')?.dataset.current === 'true');
  assert.equal(await page.locator('[data-field="calltree-updating"]').count(), 0);
  await showTab(page, 'flame');
  const sel = page.locator('[data-field="selection"]');
  const range = [await sel.getAttribute('data-start'), await sel.getAttribute('data-end')];
  assert.equal(await flameTotal(page, range), samples);
  assert.equal(await updating.count(), 0);
  assert.equal(await scroll.getAttribute('aria-busy'), 'false');
  await page.waitForFunction(() => Number(getComputedStyle(document.querySelector('canvas.flame-canvas')).opacity) === 1);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a time selection made on the timeline starts the flame graph\'s refilter before the flame graph is shown', async () => {
  await holdTreesOnce();
  const { page, errors } = await openFile(app.browser.context, app.server.url, EXAMPLE);
  await showTab(page, 'timeline');
  await page.evaluate(() => { window.__holdTrees = true; });
  const held = await page.evaluate(() => window.__heldTrees());
  const { time, samples } = EXPECTED.time_ranges[0];
  await page.fill('#time-range', time);
  await page.press('#time-range', 'Enter');
  // Asked for while the timeline is still the tab shown.
  await page.waitForFunction((n) => window.__heldTrees() > n, held);
  assert.equal(await page.evaluate(() => document.body.dataset.tab), 'timeline');
  await page.evaluate(() => window.__releaseTrees());
  await showTab(page, 'flame');
  const sel = page.locator('[data-field="selection"]');
  const range = [await sel.getAttribute('data-start'), await sel.getAttribute('data-end')];
  assert.equal(await flameTotal(page, range), samples);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the summary, shown first, asks for the flame graph\'s tree: the Flame tab then asks for none and draws it', async () => {
  await holdTreesOnce();
  const { page, errors } = await openFile(app.browser.context, app.server.url, EXAMPLE);
  assert.equal(await page.evaluate(() => document.body.dataset.tab), 'summary');
  await page.waitForFunction(() => window.__treeQueries >= 1);
  const asked = await page.evaluate(() => window.__treeQueries);
  await showTab(page, 'flame');
  assert.equal(await flameTotal(page), PERF.length);
  assert.equal(await page.evaluate(() => window.__treeQueries), asked, 'the Flame tab asked for its tree again');
  assert.deepEqual(errors, []);
  await page.close();
});
