// The timeline's sub-second heatmap, on/off-CPU activity, markers and the selected function's
// highlight, against perf's own output: tests/data/heatmap.*.txt (made by perf script, see
// heatmap.cmd) and the corpus oracles (PERFSCOPE_SHARED, else ../shared; those tests skip,
// saying so, without it). Screenshots in light and dark go to tests/screenshots/.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../scripts/static-server.mjs';
import { launch } from './helpers/browser.mjs';
import { countInRange, readScriptSamples } from './helpers/perf-script.mjs';
import { byAddress, canvasBox, flameRowY, flameTotal, hoverFlame, openFile, showTab } from './helpers/views.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DATA = join(ROOT, 'tests', 'data');
const SHOTS = join(ROOT, 'tests', 'screenshots');
const HEATMAP = join(DATA, 'heatmap.data');
const PERF = readScriptSamples(join(DATA, 'heatmap.samples.txt'));
const SHARED = resolve(process.env.PERFSCOPE_SHARED ?? join(ROOT, '..', 'shared'));
const CORPUS = join(SHARED, 'corpus');
const skipCorpus = existsSync(CORPUS) ? false : `no corpus at ${CORPUS} (set PERFSCOPE_SHARED to the folder holding corpus/)`;
if (skipCorpus) console.log(`# corpus timeline tests skipped: ${skipCorpus}`);

let server;
let light;
let dark;

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  server = await startServer(join(ROOT, 'dist'));
  light = await launch();
  dark = await launch({ colorScheme: 'dark' });
});

after(async () => {
  await light?.close();
  await dark?.close();
  await server?.close();
});

const shot = (page, name) => page.screenshot({ path: join(SHOTS, `${name}.png`) });

/** Cells counted from perf's sample times: origin = the first sample, 1 s columns. */
function oracleCells(samples, rows) {
  const origin = samples.reduce((m, s) => (s.time < m ? s.time : m), samples[0].time);
  const rowNs = 1_000_000_000n / BigInt(rows);
  const cells = new Map();
  for (const s of samples) {
    const off = s.time - origin;
    const key = `${off / 1_000_000_000n},${(off % 1_000_000_000n) / rowNs}`;
    cells.set(key, (cells.get(key) ?? 0) + 1);
  }
  return { origin, rowNs, cells };
}

/** Shows the heatmap and waits until it is drawn for the current state; returns its geometry. */
async function showHeatmap(page) {
  await showTab(page, 'timeline');
  await page.click('#timeline-mode-heatmap');
  await page.waitForFunction(() => {
    const c = document.querySelector('canvas.heatmap-canvas');
    return c?.dataset.current === 'true' && c.dataset.drawn === 'true';
  });
  const g = await page.locator('canvas.heatmap-canvas').evaluate((c) => ({ ...c.dataset }));
  const box = await canvasBox(page, 'canvas.heatmap-canvas');
  const at = (col, row) => [box.x + Number(g.left) + (col + 0.5) * Number(g.cellW), box.y + Number(g.top) + (row + 0.5) * Number(g.cellH)];
  return { g, at };
}

describe('sub-second heatmap', () => {
  for (const [name, browser] of [['light', () => light], ['dark', () => dark]]) {
    test(`heatmap.data (${name}): cells are perf's counts; dragging over cells makes the flame total perf's count for their range`, async () => {
      const { page, errors } = await openFile(browser().context, server.url, HEATMAP);
      const { g, at } = await showHeatmap(page);
      const { origin, rowNs, cells } = oracleCells(PERF, Number(g.rows));
      const last = PERF.reduce((m, s) => (s.time > m ? s.time : m), 0n);
      assert.equal(BigInt(g.origin), origin);
      assert.equal(BigInt(g.rowNs), rowNs);
      assert.equal(Number(g.columns), Number((last - origin) / 1_000_000_000n) + 1);
      assert.ok(Number(g.columns) >= 3, `${g.columns} columns`);
      assert.equal(Number(g.max), Math.max(...cells.values()));
      // Hovering the busiest cell says its count.
      const [busiest] = [...cells].sort((a, b) => b[1] - a[1]);
      const [bc, br] = busiest[0].split(',').map(Number);
      await page.mouse.move(...at(bc, br));
      const tip = page.locator('[data-field="heatmap-tip"]');
      await tip.waitFor();
      assert.deepEqual([Number(await tip.getAttribute('data-column')), Number(await tip.getAttribute('data-row')), Number(await tip.getAttribute('data-count'))], [bc, br, busiest[1]]);
      await shot(page, `timeline-heatmap-${name}`);
      // Drag backwards from column 2 row 10 to column 0 row 30: the range runs, in time order,
      // from the start of (0, 30) to the end of (2, 10).
      await page.mouse.move(...at(2, 10));
      await page.mouse.down();
      await page.mouse.move(...at(1, 20), { steps: 4 });
      await page.mouse.move(...at(0, 30), { steps: 4 });
      await page.mouse.up();
      const sel = page.locator('[data-field="selection"]');
      await sel.waitFor();
      const [start, end] = [BigInt(await sel.getAttribute('data-start')), BigInt(await sel.getAttribute('data-end'))];
      assert.equal(start, origin + 30n * rowNs);
      assert.equal(end, origin + 2_000_000_000n + 11n * rowNs - 1n);
      const expected = countInRange(PERF, start, end);
      assert.ok(expected > 0 && expected < PERF.length, `${expected} of ${PERF.length}`);
      await page.mouse.move(1, 1);
      await page.waitForFunction(() => document.querySelector('canvas.heatmap-canvas')?.dataset.drawn === 'true');
      await shot(page, `timeline-heatmap-selection-${name}`);
      await showTab(page, 'flame');
      assert.equal(await flameTotal(page, [start, end]), expected);
      // The lanes show the same selection, and the on/off-CPU periods of the switch events.
      await showTab(page, 'timeline');
      await page.click('#timeline-mode-lanes');
      await page.waitForFunction(() => document.querySelector('canvas.timeline-canvas')?.dataset.current === 'true');
      assert.equal(await page.locator('canvas.timeline-canvas').getAttribute('data-activity'), 'true');
      await shot(page, `timeline-lanes-activity-${name}`);
      assert.deepEqual(errors, []);
      await page.close();
    });
  }
});

describe('markers and highlight (corpus)', () => {
  test('lost.data: LOST and LOST_SAMPLES markers in the CPU lanes, perf\'s count, with a tooltip', { skip: skipCorpus }, async () => {
    const script = readFileSync(join(CORPUS, 'gen/oracle/lost.script.txt'), 'utf8');
    const lost = script.split('\n').filter((l) => l.includes('PERF_RECORD_LOST lost')).length;
    const { page, errors } = await openFile(light.context, server.url, join(CORPUS, 'gen/lost.data'));
    await showTab(page, 'timeline');
    const canvas = page.locator('canvas.timeline-canvas');
    await page.waitForFunction(() => document.querySelector('canvas.timeline-canvas')?.dataset.current === 'true');
    const markers = Object.fromEntries((await canvas.getAttribute('data-markers')).split(',').map((kv) => kv.split(':')).map(([k, v]) => [k, Number(v)]));
    // (Its LOST_SAMPLES records come after the last sample, outside the range shown.)
    assert.equal(markers.LOST, lost);
    // Point along the CPU 0 and 1 lanes until the tooltip names a LOST record.
    const box = await canvasBox(page, 'canvas.timeline-canvas');
    let found = '';
    for (const lane of [0, 1]) {
      const y = box.y + 22 + 18 + lane * 16 + 8;
      for (let x = box.x + 221; x < box.x + box.width - 2 && !found; x += 3) {
        await page.mouse.move(x, y);
        const text = await page.evaluate(() => document.querySelector('[data-field="timeline-tip"]')?.textContent ?? '');
        if (text.includes('PERF_RECORD_LOST ×')) found = text;
      }
      if (found) break;
    }
    assert.match(found, /PERF_RECORD_LOST ×\d+: \d+ events? lost/);
    await shot(page, 'timeline-markers-lost');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('fp-callchain.data: a function selected in the call tree is highlighted in the timeline, with perf\'s sample count', { skip: skipCorpus }, async () => {
    // Per sample of perf script, the addresses of its callchain.
    const stacks = [];
    for (const line of readFileSync(join(CORPUS, 'gen/oracle/fp-callchain.script.txt'), 'utf8').split('\n')) {
      const frame = /^\t\s*([0-9a-f]+)\s/.exec(line);
      if (frame) stacks.at(-1)?.add(BigInt(`0x${frame[1]}`));
      else if (/cpu-clock/.test(line)) stacks.push(new Set());
    }
    assert.equal(stacks.length, 1461);
    // Per sample, whether a frame is in the kernel.
    const inKernel = [];
    for (const line of readFileSync(join(CORPUS, 'gen/oracle/fp-callchain.script.txt'), 'utf8').split('\n')) {
      if (/^\t.*\(\[kernel\.kallsyms\]\)$/.test(line)) inKernel[inKernel.length - 1] = true;
      else if (/cpu-clock/.test(line)) inKernel.push(false);
    }
    const { page, errors } = await openFile(light.context, server.url, join(CORPUS, 'gen/fp-callchain.data'));
    await showTab(page, 'calltree');
    await page.waitForSelector('[data-field="calltree-total"][data-current="true"]');
    // Without the kernel's symbols, the kernel's addresses are one frame, as perf script's
    // collapsers name them: its samples are those with any kernel frame in perf's text.
    assert.ok(await page.locator('tr[data-name="[kernel.kallsyms]"]').count() > 0, 'no [kernel.kallsyms] row');
    await page.click('tr[data-name="[kernel.kallsyms]"]');
    await showTab(page, 'timeline');
    await page.waitForFunction(() => document.querySelector('canvas.timeline-canvas')?.dataset.current === 'true');
    assert.equal(Number(await page.locator('canvas.timeline-canvas').getAttribute('data-highlighted')), inKernel.filter(Boolean).length);
    // Switched to each address (the profile is built again), kernel frames are named by
    // address: perf prints those.
    await showTab(page, 'calltree');
    await byAddress(page);
    await page.waitForSelector('[data-field="calltree-total"][data-current="true"]');
    const names = await page.locator('tr[data-name]').evaluateAll((rs) => rs.map((r) => r.dataset.name));
    const name = names.find((n) => /^\[kernel\.kallsyms\]\+0x[0-9a-f]+$/.test(n));
    assert.ok(name, `no kernel row among ${names.slice(0, 10)}`);
    const addr = BigInt(name.split('+')[1]);
    await page.click(`tr[data-name="${name}"]`);
    const expected = stacks.filter((s) => s.has(addr)).length;
    assert.ok(expected > 0);
    await showTab(page, 'timeline');
    await page.waitForFunction(() => document.querySelector('canvas.timeline-canvas')?.dataset.current === 'true');
    assert.equal(Number(await page.locator('canvas.timeline-canvas').getAttribute('data-highlighted')), expected, name);
    await shot(page, 'timeline-highlight');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('fp-callchain.data: clicking a flame-graph box selects its function, highlighted in the timeline with perf\'s count', { skip: skipCorpus }, async () => {
    const stacks = [];
    for (const line of readFileSync(join(CORPUS, 'gen/oracle/fp-callchain.script.txt'), 'utf8').split('\n')) {
      const frame = /^\t\s*([0-9a-f]+)\s/.exec(line);
      if (frame) stacks.at(-1)?.add(BigInt(`0x${frame[1]}`));
      else if (/cpu-clock/.test(line)) stacks.push(new Set());
    }
    const { page, errors } = await openFile(light.context, server.url, join(CORPUS, 'gen/fp-callchain.data'));
    await showTab(page, 'flame');
    await byAddress(page);
    await flameTotal(page);
    const box = await canvasBox(page, 'canvas.flame-canvas');
    // Find a kernel box (named by address without kallsyms, as perf prints it) in the lower rows.
    let hit = null;
    for (let depth = 1; depth < 12 && !hit; depth++) {
      const y = await flameRowY(page, depth);
      if (y < 0) break;
      for (let x = 4; x < box.width && !hit; x += Math.max(8, box.width / 60)) {
        const name = await hoverFlame(page, x, y);
        if (/^\[kernel\.kallsyms\]\+0x[0-9a-f]+$/.test(name ?? '')) hit = { x, y, name };
      }
    }
    assert.ok(hit, 'no kernel box found in the flame graph');
    await page.mouse.click(Math.round(box.x + hit.x), Math.round(box.y + hit.y));
    await page.waitForFunction((n) => document.querySelector('canvas.flame-canvas')?.dataset.selectedFunc === n, hit.name);
    const expected = stacks.filter((s) => s.has(BigInt(hit.name.split('+')[1]))).length;
    assert.ok(expected > 0);
    await showTab(page, 'timeline');
    await page.waitForFunction(() => document.querySelector('canvas.timeline-canvas')?.dataset.current === 'true');
    assert.equal(Number(await page.locator('canvas.timeline-canvas').getAttribute('data-highlighted')), expected, hit.name);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
