// Sharing in the page: links that carry the view state (with ?url=, the same hosted file in the
// same view), "Export for sharing" (share files open in a fresh browser with every name and no
// symbol files; the privacy options remove what they say, checked on the downloaded bytes
// against what perf reports of the recording), the other exports, and Compare (the function
// perf reports as slowed is the largest increase). Screenshots go to tests/screenshots/share-*.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { launch, waitForState, isPlaywrightNotice } from './helpers/browser.mjs';
import { byAddress, canvasBox, flameRowY, flameTotal, hoverFlame, openFile, showTab } from './helpers/views.mjs';
import { serveLogged } from './helpers/serve-logged.mjs';
import { openInSpeedscope, speedscopeDist } from './helpers/speedscope.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DATA = join(ROOT, 'tests', 'data');
const DIFF = join(DATA, 'diff');
const SHOTS = join(ROOT, 'tests', 'screenshots');
const EXPECTED = JSON.parse(readFileSync(join(DATA, 'example.expected.json'), 'utf8'));
const TMP = join(ROOT, 'target', 'share-test');

let app;
let data;
let browser;

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  mkdirSync(TMP, { recursive: true });
  app = await serveLogged(join(ROOT, 'dist'));
  // Another origin, as a hosted perf.data would be.
  data = await serveLogged(DATA, { cors: true });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await app?.close();
  await data?.close();
});

const shot = (page, name) => page.screenshot({ path: join(SHOTS, `share-${name}.png`), fullPage: true });

/** Collects what a person could see go wrong (as helpers/browser.mjs openApp does). */
function track(page) {
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (['error', 'warning'].includes(m.type()) && !isPlaywrightNotice(m)) errors.push(`console.${m.type()}: ${m.text()}`); });
  page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => { if (r.status() >= 400) errors.push(`HTTP ${r.status()}: ${r.url()}`); });
  return errors;
}

/** Opens a link and waits until its file is analyzed. */
async function openLink(context, url) {
  const page = await context.newPage();
  const errors = track(page);
  await page.goto(url);
  const state = await waitForState(page, ['loaded', 'error'], 60_000);
  assert.equal(state, 'loaded', await page.locator('#app').textContent());
  return { page, errors };
}

/** Clicks an export button and returns the downloaded bytes and name. */
async function exportFile(page, id, privacy) {
  if (!(await page.locator('#export-menu').evaluate((d) => d.open))) await page.click('#export-menu > summary');
  if (privacy) {
    for (const [key, on] of Object.entries(privacy)) await page.setChecked(`#privacy-${key}`, on);
  }
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(`#export-${id}`)]);
  const bytes = readFileSync(await download.path());
  return { bytes, name: download.suggestedFilename() };
}

/** The share file's body after its 32-byte header, decompressed, as text. */
function shareBody(bytes) {
  assert.equal(bytes.subarray(0, 16).toString('latin1'), 'PERFSCOPE-SHARE\0');
  return gunzipSync(bytes.subarray(32)).toString('latin1');
}

/** perf's own view of a recording: host name, command line, and the paths it maps. */
function perfFacts(path) {
  const header = execFileSync('perf', ['report', '--header-only', '-i', path], { encoding: 'utf8' });
  const hostname = /^# hostname : (.*)$/m.exec(header)[1].trim();
  const cmdline = /^# cmdline : (.*)$/m.exec(header)[1].trim();
  const mmaps = execFileSync('perf', ['script', '-i', path, '--show-mmap-events'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const paths = [...mmaps.matchAll(/PERF_RECORD_MMAP2 .* r-xp (\/\S+)/g)].map((m) => m[1]);
  return { hostname, cmdline, paths };
}

let havePerf = true;
try { execFileSync('perf', ['--version'], { stdio: 'ignore' }); } catch { havePerf = false; }

/** User-space functions perf reports with self samples in `name.report.txt`. */
function reportedFunctions(name) {
  const text = readFileSync(join(DIFF, `${name}.report.txt`), 'utf8');
  const out = new Map();
  // The program's own functions (1% and more; the rest are in ld.so, whose binary is not given).
  for (const m of text.matchAll(/^\s+([\d.]+)%\s+(\d+)\s+\[\.\]\s+(\S+)\s*$/gm)) {
    if (Number(m[1]) >= 1) out.set(m[3], Number(m[1]) / 100);
  }
  return out;
}

test('a link reopens the same hosted file in the same view: focused frame, range and search', async () => {
  const url = `${app.url}?url=${encodeURIComponent(`${data.url}example.data`)}`;
  const { page, errors } = await openLink(browser.context, url);
  await showTab(page, 'flame');
  await flameTotal(page);
  const { time, samples } = EXPECTED.time_ranges[0];
  await page.fill('#time-range', time);
  await page.press('#time-range', 'Enter');
  const sel = page.locator('[data-field="selection"]');
  await sel.waitFor();
  const range = [await sel.getAttribute('data-start'), await sel.getAttribute('data-end')];
  assert.equal(await flameTotal(page, range), samples);
  // Zoom to a box of the second row.
  const { width } = await canvasBox(page, 'canvas.flame-canvas');
  const y = await flameRowY(page, 1);
  let x = 2;
  let name = '';
  while (x < width && !(name = await hoverFlame(page, x, y))) x += 7;
  assert.ok(name, 'a box on the second row');
  await page.mouse.down();
  await page.mouse.up();
  await page.waitForFunction((n) => [...document.querySelectorAll('[data-field="crumb"]')].at(-1)?.textContent === n, name);
  const crumbs = await page.locator('[data-field="crumb"]').allTextContents();
  const search = Object.keys(EXPECTED.dso_samples)[0];
  await page.fill('#flame-search', search);
  await page.waitForFunction(() => /[#&]f=/.test(location.hash) && /[#&]q=/.test(location.hash) && /[#&]t=/.test(location.hash));
  const link = page.url();
  assert.ok(link.startsWith(url + '#v=1&tab=flame'), link);

  // "Copy link" copies exactly that.
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.origin });
  await page.click('#copy-link');
  await page.waitForFunction((l) => document.querySelector('#share-link')?.value === l, link);
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
  await shot(page, 'link-sender');

  // A fresh browser (another user-data-dir) opening the link sees the same view.
  const other = await launch();
  try {
    const { page: p2, errors: e2 } = await openLink(other.context, link);
    await p2.waitForFunction(() => document.body.dataset.tab === 'flame');
    assert.equal(await flameTotal(p2, range), samples);
    assert.deepEqual(await p2.locator('[data-field="crumb"]').allTextContents(), crumbs);
    assert.equal(await p2.locator('#flame-search').inputValue(), search);
    const sel2 = p2.locator('[data-field="selection"]');
    assert.deepEqual([await sel2.getAttribute('data-start'), await sel2.getAttribute('data-end')], range);
    assert.notEqual(await p2.locator('canvas.flame-canvas').getAttribute('data-zoom'), '');
    await shot(p2, 'link-receiver');
    assert.deepEqual(e2, []);
  } finally {
    await other.close();
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('a link made with a frame per address for code without symbols reopens so, with its zoom', async () => {
  const url = `${app.url}?url=${encodeURIComponent(`${data.url}example.data`)}`;
  const { page, errors } = await openLink(browser.context, url);
  await showTab(page, 'flame');
  const total = await flameTotal(page);
  // The boxes of the second row, left to right, with the x the pointer found them at.
  const boxes = async (p) => {
    const { width } = await canvasBox(p, 'canvas.flame-canvas');
    const y = await flameRowY(p, 1);
    const out = [];
    for (let x = 2; x < width; x += 5) {
      const name = await hoverFlame(p, x, y);
      if (name) out.push({ x, name });
    }
    return out;
  };
  const byAddr = (b) => /\+0x[0-9a-f]+$/.test(b.name);
  // One frame per module first: no box is named by address.
  assert.ok(!(await boxes(page)).some(byAddr), 'a box named by address');
  await byAddress(page);
  assert.equal(await flameTotal(page), total);
  const second = await boxes(page);
  const hit = second.find(byAddr);
  assert.ok(hit, `no box named by address on the second row: ${second.slice(0, 8).map((b) => b.name)}`);
  const { name } = hit;
  // Zoom into it; the link says addr=1 and names it.
  await hoverFlame(page, hit.x, await flameRowY(page, 1));
  await page.mouse.down();
  await page.mouse.up();
  await page.waitForFunction((n) => [...document.querySelectorAll('[data-field="crumb"]')].at(-1)?.textContent === n, name);
  await page.waitForFunction(() => /[#&]addr=1/.test(location.hash) && /[#&]f=/.test(location.hash));
  const link = page.url();
  const crumbs = await page.locator('[data-field="crumb"]').allTextContents();
  const other = await launch();
  try {
    const { page: p2, errors: e2 } = await openLink(other.context, link);
    await p2.waitForSelector('[data-action="unnamed-by-address"][aria-pressed="true"]');
    await p2.waitForFunction((n) => [...document.querySelectorAll('[data-field="crumb"]')].at(-1)?.textContent === n, name);
    assert.deepEqual(await p2.locator('[data-field="crumb"]').allTextContents(), crumbs);
    assert.deepEqual(e2, []);
  } finally {
    await other.close();
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('a share file opens in a fresh browser with every name, without symbol files; privacy options strip what they say', { skip: !havePerf && 'perf is not installed (it is the oracle for the stripped strings)' }, async () => {
  const { page, errors } = await openFile(browser.context, app.url, join(DIFF, 'slow.data'), join(DIFF, 'slow'));
  await showTab(page, 'flame');
  const total = await flameTotal(page);
  const facts = perfFacts(join(DIFF, 'slow.data'));
  assert.ok(facts.paths.some((p) => p.endsWith('/slow')), facts.paths.join(' '));
  // The host name as the summary JSON holds it, two arguments of the command line, the paths.
  const args = facts.cmdline.split(' ');
  const pairs = args.flatMap((a, i) => (a.startsWith('-') && i + 1 < args.length ? [`${a} ${args[i + 1]}`] : []));
  assert.ok(pairs.length > 0, facts.cmdline);
  const secrets = [`"hostname":"${facts.hostname}"`, ...pairs, ...facts.paths];

  // Nothing stripped: the strings are there (so the next check can fail).
  const open = await exportFile(page, 'share', { paths: false, cmdline: false, hostname: false, threads: false });
  const openBody = shareBody(open.bytes);
  for (const s of secrets) assert.ok(openBody.includes(s), `${s} is in the unstripped file`);
  assert.ok(!openBody.includes('thread-'), 'threads keep their names');

  // Everything stripped.
  const shared = await exportFile(page, 'share', { paths: true, cmdline: true, hostname: true, threads: true });
  assert.equal(shared.name, 'slow.data.perfscope');
  const body = shareBody(shared.bytes);
  for (const s of secrets) assert.ok(!body.includes(s), `${JSON.stringify(s)} leaked`);
  assert.ok(body.includes('thread-'), 'threads are named thread-TID');
  const file = join(TMP, shared.name);
  writeFileSync(file, shared.bytes);
  await shot(page, 'export-menu');

  // The other formats download from the page too.
  const folded = (await exportFile(page, 'folded')).bytes.toString('utf8');
  const functions = reportedFunctions('slow');
  for (const f of functions.keys()) assert.match(folded, new RegExp(`;${f} \\d+$`, 'm'), f);
  const svg = await exportFile(page, 'svg');
  assert.match(svg.bytes.toString('utf8'), /^<\?xml|^<svg/);
  const pprof = await exportFile(page, 'pprof');
  assert.deepEqual([...pprof.bytes.subarray(0, 2)], [0x1f, 0x8b]);
  const speedscopeFile = await exportFile(page, 'speedscope');
  const speedscope = JSON.parse(speedscopeFile.bytes.toString('utf8'));
  assert.match(speedscope.$schema, /speedscope/);
  // speedscope itself (the npm package, in this Chromium) opens it and shows the profile.
  const dist = speedscopeDist(ROOT);
  if (dist) {
    const viewer = await serveLogged(dist);
    try {
      const path = join(TMP, speedscopeFile.name);
      writeFileSync(path, speedscopeFile.bytes);
      const opened = await openInSpeedscope(browser.context, viewer.url, path);
      assert.equal(opened.error, null, `speedscope could not import our export: ${opened.error}`);
      const first = speedscope.profiles[0];
      assert.ok(opened.toolbar.includes(first.name), `speedscope shows the profile "${first.name}": ${opened.toolbar.slice(0, 200)}`);
      const samples = first.type === 'sampled' ? first.samples.length : null;
      assert.ok(samples === null || samples > 0);
      await opened.page.screenshot({ path: join(SHOTS, 'share-speedscope.png') });
      await opened.page.close();
    } finally {
      await viewer.close();
    }
  } else {
    console.log('# speedscope is not installed (npm ci): the export is checked by its schema only');
  }
  assert.deepEqual(errors, []);
  await page.close();

  // A fresh browser opens the share file alone: the same total and every function by name.
  const fresh = await launch();
  try {
    const { page: p2, errors: e2 } = await openFile(fresh.context, app.url, file);
    await showTab(p2, 'flame');
    assert.equal(await flameTotal(p2), total);
    for (const f of functions.keys()) {
      await p2.fill('#flame-search', f);
      const matched = p2.locator(`[data-field="search-matched"][data-search="${f}"]`);
      await matched.waitFor();
      assert.ok(Number(await matched.getAttribute('data-count')) > 0, `${f} is named`);
    }
    await p2.fill('#flame-search', '');
    // It was recorded with -g, and the share file says so.
    assert.equal(await p2.locator('[data-reason="no-callchains"]').count(), 0);
    await shot(p2, 'opened-share-file');
    assert.deepEqual(e2, []);
  } finally {
    await fresh.close();
  }
});

test('compare: the function perf shows slowed is the largest increase, red in the differential flame graph', async () => {
  const { page, errors } = await openFile(browser.context, app.url, join(DIFF, 'slow.data'), join(DIFF, 'slow'));
  await page.setInputFiles('#compare-file', [join(DIFF, 'base.data'), join(DIFF, 'base')]);
  await page.waitForFunction(() => document.body.dataset.tab === 'compare');
  await page.locator('#diff-table tbody tr').first().waitFor({ timeout: 30_000 });
  // The oracle: perf report's self shares in the two recordings.
  const [base, slow] = [reportedFunctions('base'), reportedFunctions('slow')];
  const grown = [...slow.keys()].sort((a, b) => (slow.get(b) - (base.get(b) ?? 0)) - (slow.get(a) - (base.get(a) ?? 0)))[0];
  const first = page.locator('#diff-table tbody tr').first();
  assert.equal(await first.getAttribute('data-name'), grown);
  const delta = Number(await first.getAttribute('data-delta'));
  assert.ok(Math.abs(delta - (slow.get(grown) - base.get(grown))) < 0.02, `${delta} vs perf ${slow.get(grown) - base.get(grown)}`);
  // The box that grew most is that function, fully red.
  const top = await page.locator('#diff-graph .diff-box').evaluateAll((gs) => {
    const g = gs.reduce((a, b) => (Number(b.dataset.delta) > Number(a.dataset.delta) ? b : a));
    return { name: g.dataset.name, fill: g.querySelector('rect').getAttribute('fill') };
  });
  assert.deepEqual(top, { name: grown, fill: 'rgb(255,0,0)' });
  // Drawn: its rows take their height on the page.
  const graph = await page.locator('#diff-graph').boundingBox();
  const rows = Number((await page.locator('#diff-graph').getAttribute('viewBox')).split(' ')[3]) / 17;
  assert.ok(graph.height > rows * 17 * (graph.width / 1200) - 4, `graph ${graph.width}×${graph.height} for ${rows} rows`);
  await page.locator('#diff-graph').scrollIntoViewIfNeeded();
  await shot(page, 'compare');
  assert.deepEqual(errors, []);
  await page.close();
});
