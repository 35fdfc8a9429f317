// The summary of a dropped perf.data shows while the analysis worker is still starting: the page
// reads the header and feature sections itself (web/src/early_summary.rs). Here the worker's
// wasm is held back until the summary is checked, as if it were still compiling on a slow
// machine; then it is let go and the file loads as usual.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveApp } from './helpers/app.mjs';
import { field, launch, openApp, waitForState } from './helpers/browser.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DATA = join(ROOT, 'tests', 'data');

const app = serveApp(ROOT);

/** A header line of perf's `--header-only` output: `# name : value`. */
function headerValue(headerPath, name) {
  const line = readFileSync(headerPath, 'utf8').split('\n').find((l) => l.startsWith(`# ${name} : `));
  assert.ok(line, `no "${name}" in ${headerPath}`);
  return line.slice(`# ${name} : `.length).trim();
}

test('the summary shows before the worker has started', async () => {
  // A browser of its own: the route holds every request for the worker's wasm.
  const browser = await launch();
  try {
    let release;
    const held = new Promise((ok) => { release = ok; });
    let asked = false;
    await browser.context.route(/worker_bg\.wasm$/, async (route) => {
      asked = true;
      await held;
      await route.continue();
    });
    const { page, errors } = await openApp(browser.context, app.server.url);
    await page.setInputFiles('#file', join(DATA, 'example.data'));
    await page.waitForSelector('#summary', { timeout: 20_000 });
    // perf's own header output for the file is the truth.
    const header = join(DATA, 'example.header.txt');
    assert.equal(await field(page, 'hostname'), headerValue(header, 'hostname'));
    assert.ok(asked, 'the worker asked for its wasm (held back)');
    assert.equal(await page.evaluate(() => document.body.dataset.state), 'loading', 'the worker cannot have loaded the file yet');
    await page.screenshot({ path: join(ROOT, 'tests', 'screenshots', 'early-summary.png') });
    release();
    assert.equal(await waitForState(page, ['loaded', 'error']), 'loaded');
    assert.equal(await field(page, 'hostname'), headerValue(header, 'hostname'));
    assert.deepEqual(errors, []);
    await page.close();
  } finally {
    await browser.close();
  }
});
