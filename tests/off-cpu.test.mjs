// Off-CPU time in the flame graph: tests/data/switches.data (`perf record --switch-events`,
// see switches.cmd) weighed by the time threads spent switched out, against perf's own records
// of the switches (switches.script.txt: `perf script --ns --show-switch-events`): per thread,
// the gaps between a PERF_RECORD_SWITCH OUT and its next IN; its export and Compare too. The
// sample views stay as they were.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveApp } from './helpers/app.mjs';
import { flameTotal, openFile, showTab } from './helpers/views.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DATA = join(ROOT, 'tests', 'data');

const app = serveApp(ROOT);

/** From perf's output: the cpu-clock samples and the total OUT → IN ns over every thread. */
function oracle() {
  const byTid = new Map();
  let samples = 0;
  for (const line of readFileSync(join(DATA, 'switches.script.txt'), 'utf8').split('\n')) {
    const f = line.trim().split(/\s+/);
    const at = f.findIndex((w) => /^-?\d+\/-?\d+$/.test(w));
    if (at < 0) continue;
    const tid = f[at].split('/')[1];
    const [s, ns] = f[at + 1].replace(/:$/, '').split('.');
    const time = BigInt(s) * 1_000_000_000n + BigInt(ns);
    if (f[at + 2] === 'PERF_RECORD_SWITCH') {
      if (!byTid.has(tid)) byTid.set(tid, []);
      byTid.get(tid).push([time, f[at + 3]]);
    } else {
      samples += 1;
    }
  }
  let total = 0n;
  for (const seen of byTid.values()) {
    seen.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    let out = null;
    for (const [time, what] of seen) {
      if (what === 'OUT') out = time;
      else if (out !== null) {
        total += time - out;
        out = null;
      }
    }
  }
  return { samples, total };
}

test('the flame graph weighs by off-CPU time as perf recorded the switches', async () => {
  const want = oracle();
  assert.ok(want.total > 1_000_000_000n, `only ${want.total} ns in the oracle`);
  const { page, errors } = await openFile(app.browser.context, app.server.url, join(DATA, 'switches.data'));
  await showTab(page, 'flame');
  // On-CPU samples first, as before.
  assert.equal(await flameTotal(page), want.samples);
  const total = page.locator('[data-field="flame-total"]');
  assert.equal(await total.getAttribute('data-off-cpu'), 'false');
  // The weight menu offers the off-CPU time (its total in the label).
  const option = page.locator('#weight-select option[value="offcpu"]');
  assert.match(await option.textContent(), /^Off-CPU time \(1\.5\d+ s, approximate stacks\)$/);
  await page.selectOption('#weight-select', 'offcpu');
  await page.waitForFunction(() => document.querySelector('[data-field="flame-total"]')?.dataset.offCpu === 'true');
  await flameTotal(page);
  assert.equal(BigInt(await total.getAttribute('data-period')), want.total);
  assert.match(await total.textContent(), /^1\.5\d+ s off-CPU \([\d,]+ switches\)/);
  assert.equal(await page.locator('#event-select').isDisabled(), true);
  await page.screenshot({ path: join(ROOT, 'tests', 'screenshots', 'off-cpu.png') });
  // A link keeps it; the call tree shows the same time, as durations.
  await page.waitForFunction(() => location.hash.includes('w=offcpu'));
  await showTab(page, 'calltree');
  await page.waitForFunction(() => document.querySelector('[data-field="calltree-total"]')?.dataset.current === 'true');
  assert.match(await page.locator('[data-field="calltree-total"]').textContent(), /^1\.5\d+ s off-CPU \([\d,]+ switches\)/);
  assert.match(await page.locator('.calltree-view tr[data-node] td.num').first().textContent(), /^[\d.]+ (ns|µs|ms|s)$/);
  await page.screenshot({ path: join(ROOT, 'tests', 'screenshots', 'off-cpu-calltree.png') });
  await showTab(page, 'flame');
  // An export holds what the view shows: folded stacks weighed by the ns switched out.
  if (!(await page.locator('#export-menu').evaluate((d) => d.open))) await page.click('#export-menu > summary');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-folded')]);
  const folded = readFileSync(await download.path(), 'utf8');
  const exported = folded.trim().split('\n').reduce((sum, line) => sum + BigInt(line.slice(line.lastIndexOf(' ') + 1)), 0n);
  assert.equal(exported, want.total);
  await page.click('#export-menu > summary');
  // Compare weighs both profiles by their off-CPU time (the same recording as the base here).
  await page.setInputFiles('#compare-file', join(DATA, 'switches.data'));
  await page.waitForFunction(() => document.body.dataset.tab === 'compare');
  await page.waitForFunction(() => /off-CPU in all/.test(document.getElementById('compare-head')?.textContent ?? ''), null, { timeout: 30_000 });
  assert.match(await page.locator('#compare-head').textContent(), /^Open profile \(1\.5\d+ s off-CPU in all\) against switches\.data \(1\.5\d+ s off-CPU in all,/);
  await page.screenshot({ path: join(ROOT, 'tests', 'screenshots', 'off-cpu-compare.png') });
  // A base without context switches has no off-CPU time: the page says so.
  await page.setInputFiles('#compare-file', join(DATA, 'example.data'));
  const alert = page.locator('#compare-diff-error');
  await alert.waitFor({ timeout: 30_000 });
  assert.match(await alert.textContent(), /example\.data has no off-CPU time to compare with/);
  await page.screenshot({ path: join(ROOT, 'tests', 'screenshots', 'off-cpu-compare-no-switches.png') });
  await showTab(page, 'flame');
  // Back to samples: the same total as before.
  await page.selectOption('#weight-select', 'samples');
  await page.waitForFunction(() => document.querySelector('[data-field="flame-total"]')?.dataset.offCpu === 'false');
  assert.equal(await flameTotal(page), want.samples);
  // Compare then counts the samples of both (example.data has no switches, but samples).
  await showTab(page, 'compare');
  await page.waitForFunction(() => /^Open profile \(\d+ in all\) against example\.data/.test(document.getElementById('compare-head')?.textContent ?? ''), null, { timeout: 30_000 });
  assert.equal(await page.locator('#compare-diff-error').count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});
