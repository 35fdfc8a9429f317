// Opening a recording with a second worker (an inflater decompressing it, or a worker ordering
// its records) and collecting what the comparisons of tests/inflater.test.mjs and
// tests/orderer.test.mjs check.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { openApp, waitForState } from './browser.mjs';
import { showTab, flameTotal, sampleCount } from './views.mjs';

/** Opens `path` at `url` (the page with its query) in `browser`; returns what the file bar says
 * of the second worker (`data-inflater`) and its text, the sample count, the flame total, the
 * folded export (sorted lines) and the Summary's record counts. Console errors fail the test,
 * but those `warned` matches (a failing second worker is told of). */
export async function openWithSecondWorker(browser, url, path, warned = null) {
  const { page, errors } = await openApp(browser.context, url);
  await page.setInputFiles('#file', path);
  assert.equal(await waitForState(page, ['loaded', 'error'], 60_000), 'loaded');
  const timings = page.locator('[data-field="timings"]');
  const inflater = await timings.getAttribute('data-inflater');
  const text = await timings.textContent();
  const samples = await sampleCount(page);
  const records = await page.locator('[data-field="record-counts"]').textContent().catch(() => null);
  await showTab(page, 'flame');
  const total = await flameTotal(page);
  if (!(await page.locator('#export-menu').evaluate((d) => d.open))) await page.click('#export-menu > summary');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-folded')]);
  const folded = readFileSync(await download.path(), 'utf8').split('\n').filter(Boolean).sort();
  assert.deepEqual(errors.filter((e) => !(warned && warned.test(e))), []);
  await page.close();
  return { inflater, text, samples, records, total, folded };
}
