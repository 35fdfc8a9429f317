// The Perfscope page under measurement: opening a file (time to the summary, to the flame
// graph, to the first preview flame graph drawn while it is read), the worker's wasm memory, and the interactions (zoom and pan redraws, range refilter).
//
// Times are taken inside the page with performance.now(): the start is the `change` event of
// the file input (a capture listener on the document runs before the app's), the ends are seen
// by a MutationObserver: `#summary` inserted (shown = the animation frame after that), the flame
// canvas's `data-drawn` saying it drew the current tree. The flame graph tab is clicked from
// the same observer the moment the tabs exist, as a person in a hurry would. Draw times come
// from the `perfscope:flame-draw` / `perfscope:timeline-draw` user-timing measures of the draw
// functions.
import { statSync } from 'node:fs';
import { busiestRenderer, launchBench } from './chromium.mjs';

/** Installed before the app's scripts run. */
function instrument() {
  const b = (window.__bench = { t: {}, draws: { flame: [], timeline: [] }, autoFlame: true });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = e.name === 'perfscope:flame-draw' ? 'flame' : e.name === 'perfscope:timeline-draw' ? 'timeline' : null;
      if (kind) b.draws[kind].push({ at: e.startTime, ms: e.duration });
    }
  }).observe({ type: 'measure' });
  document.addEventListener('change', (e) => {
    if (e.target?.id === 'file') b.t = { set: performance.now() };
  }, true);
  const check = (records = []) => {
    const t = b.t;
    if (t.set === undefined) return;
    const now = performance.now();
    // Nothing counts before the page has shown this file's loading state: on a second open
    // the last file's summary and drawn flame graph are still there for a few ms (they made
    // a second open look 7 ms long). (The state may have left 'loading' by the time this runs:
    // its old value in a mutation record says it was there.)
    if (t.loading === undefined) {
      const was = records.some((r) => r.attributeName === 'data-state' && r.target === document.body && r.oldValue === 'loading');
      if (document.body?.dataset.state !== 'loading' && !was) return;
      t.loading = now;
    }
    if (t.summaryDom === undefined && document.getElementById('summary')) {
      t.summaryDom = now;
      requestAnimationFrame(() => { t.summary = performance.now(); });
    }
    const state = document.body?.dataset.state;
    if (t.done === undefined && (state === 'loaded' || state === 'error')) {
      t.done = now;
      t.state = state;
      t.error = state === 'error' ? (document.querySelector('[data-field="error"]')?.textContent ?? 'error') : undefined;
    }
    if (b.autoFlame && t.flameClick === undefined) {
      const tab = document.getElementById('tab-flame');
      if (tab) {
        t.flameClick = now;
        tab.click();
      }
    }
    if (t.flame === undefined && document.querySelector('canvas.flame-canvas')?.dataset.drawn?.startsWith('true:')) t.flame = now;
    // The first preview flame graph drawn while the file is read (web/src/components/flame_graph/preview.rs).
    if (t.preview === undefined && document.querySelector('canvas.preview-canvas')?.dataset.drawn) t.preview = now;
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true, attributes: true, attributeOldValue: true, attributeFilter: ['data-state', 'data-drawn'] });
}

/** Sets `file` on the input and waits for its flame graph; the marks of that open. */
async function openAndWait(page, file, timeoutMs, errors) {
  await page.evaluate(() => { window.__bench.autoFlame = true; });
  await page.setInputFiles('#file', file);
  await page.waitForFunction(() => {
    const t = window.__bench.t;
    return t.flame !== undefined || t.state === 'error' || (t.done !== undefined && document.querySelector('[data-field="flame-empty"]'));
  }, null, { timeout: timeoutMs, polling: 100 }).catch((e) => {
    errors.push(`waiting for the flame graph: ${e.message.split('\n')[0]}`);
  });
  return page.evaluate(() => window.__bench.t).catch(() => ({}));
}

/**
 * Opens `file` again in the same page (the worker is running: no start-up) and returns the
 * times to the summary and to the flame graph.
 */
export async function reopen(page, file, { timeoutMs = 600_000 } = {}) {
  const errors = [];
  const t = await openAndWait(page, file, timeoutMs, errors);
  const since = (k) => (t[k] === undefined || t.set === undefined ? null : t[k] - t.set);
  return { summaryMs: since('summary'), flameMs: since('flame'), state: t.state, errors };
}

/** The worker's wasm memory in bytes (it only grows: this is its peak), or null. */
async function wasmMemory(worker) {
  if (!worker) return null;
  // wasm-bindgen's init function returns the instance's exports once initialized.
  // eslint-disable-next-line no-undef
  return worker.evaluate(async () => (await wasm_bindgen()).memory.buffer.byteLength).catch(() => null);
}

/**
 * Opens `file` in a fresh browser and measures until its flame graph is drawn (and saves a
 * screenshot of it when asked).
 * @returns {Promise<object>} times in ms from the file being set, memory in bytes; `page` and
 * `close` stay usable for the interaction scenarios.
 */
export async function openInPerfscope(url, file, { timeoutMs = 600_000, screenshot = null, beforeOpen = null, afterOpen = null } = {}) {
  // PAGE_CHROMIUM_FLAGS: more Chromium flags, space-separated (e.g. --js-flags=--no-liftoff to
  // see what V8's baseline compiler costs), see bench-browser.sh.
  const extraFlags = (process.env.PAGE_CHROMIUM_FLAGS ?? '').split(' ').filter(Boolean);
  const browser = await launchBench({ extraFlags });
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('crash', () => errors.push('the page crashed'));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  let worker = null;
  // The analysis worker: the page's last `worker_loader.js` without `module` in its query (the
  // reader, web/reader.js, is a worker too; the inflater and the second analysis worker for a
  // big file's stacks are `worker_loader.js?…module`; boot.js's early worker, without a query,
  // is replaced by one with the page's parameters when the page's address has some).
  page.on('worker', (w) => {
    const u = new URL(w.url());
    if (u.pathname.endsWith('/worker_loader.js') && !u.searchParams.has('module')) worker = w;
  });
  await page.addInitScript(instrument);
  // PAGE_QUERY: parameters for the page's address (e.g. slice=1048576), see bench-browser.sh.
  const query = process.env.PAGE_QUERY;
  await page.goto(query ? `${url}${url.includes('?') ? '&' : '?'}${query}` : url);
  await page.waitForFunction(() => document.body.dataset.state === 'idle', null, { timeout: 30_000 });
  // BENCH_DELAY_MS: wait this long after the page is ready before setting the file (as a person
  // who takes a moment to pick one: the workers have started by then). Unset: at once.
  if (process.env.BENCH_DELAY_MS) await page.waitForTimeout(Number(process.env.BENCH_DELAY_MS));
  // beforeOpen(page): called just before the file is set (e.g. to read the threads' CPU times).
  if (beforeOpen) await beforeOpen(page);
  const wall0 = Date.now();
  const t = await openAndWait(page, file, timeoutMs, errors);
  const wallMs = Date.now() - wall0;
  // afterOpen(page): called as soon as the flame graph is drawn (before anything else is read).
  if (afterOpen) await afterOpen(page);
  if (screenshot) await page.screenshot({ path: screenshot }).catch(() => {});
  const since = (k) => (t[k] === undefined || t.set === undefined ? null : t[k] - t.set);
  const samples = await page.locator('[data-field="flame-total"]').getAttribute('data-samples', { timeout: 1000 }).catch(() => null);
  // The worker's own breakdown, as the file bar shows it ("read … · summary … · …").
  const workerTimings = await page.locator('.file-bar .timing').first().textContent({ timeout: 1000 }).catch(() => null);
  // The worker's steps (web/src/worker.rs), in ms from the file set on the input: before the
  // records pass, the summary's reads and the pass's setup; during it, the waits for a slice
  // of over 1 ms and the previews; after it, the profile's hand-over to the page, the first
  // tree's prewarm and the first tree query.
  const handOver = worker ? await worker.evaluate(() => performance.getEntriesByType('measure')
    .filter((e) => ['summary read', 'begin', 'symbol files read', 'resolver', 'slice wait', 'preview', 'second worker wait', 'profile data', 'prewarm', 'query tree'].includes(e.name))
    .map((e) => ({ name: e.name, start: performance.timeOrigin + e.startTime, ms: e.duration }))).catch(() => null) : null;
  const setAt = await page.evaluate(() => performance.timeOrigin).catch(() => null);
  // The page's own steps (web/src/app.rs: "page: file kinds", "page: summary read").
  const pageSteps = await page.evaluate(() => performance.getEntriesByType('measure')
    .filter((e) => e.name.startsWith('page: '))
    .map((e) => ({ name: e.name, start: performance.timeOrigin + e.startTime, ms: e.duration }))).catch(() => []);
  const phases = handOver && setAt !== null && t.set !== undefined
    ? [...pageSteps, ...handOver].filter((e) => e.start - setAt >= t.set).sort((a, b) => a.start - b.start)
      .map((e) => `${e.name} ${Math.round(e.ms)} ms (from ${Math.round(e.start - setAt - t.set)} ms)`).join(', ')
    : null;
  const wasmBytes = await wasmMemory(worker);
  // Then the timeline drawn too: its lanes' lists are made at its first query (after the
  // flame graph), so the worker's memory grows once more.
  let timelineWasmBytes = null;
  if (t.flame !== undefined) {
    try {
      await showTab(page, 'timeline');
      await page.waitForFunction(() => document.querySelector('canvas.timeline-canvas')?.dataset.current === 'true', null, { timeout: timeoutMs });
      timelineWasmBytes = await wasmMemory(worker);
      await showTab(page, 'flame');
    } catch (e) {
      errors.push(`waiting for the timeline: ${e.message.split('\n')[0]}`);
    }
  }
  const timingsAttr = async (name) => Number(await page.locator('[data-field="timings"]').getAttribute(name, { timeout: 1000 }).catch(() => 0)) || 0;
  // A second worker for the stacks, or the inflater of a compressed file (web/src/inflater.rs):
  // their memory too, both live during the pass.
  const helperMemory = (await timingsAttr('data-helper-wasm-memory')) + (await timingsAttr('data-inflater-wasm-memory'));
  const result = {
    file,
    workerTimings,
    phases,
    summaryMs: since('summary'),
    // The summary's element in the page (summaryMs: the frame after).
    summaryDomMs: since('summaryDom'),
    loadedMs: since('done'),
    flameMs: since('flame'),
    previewMs: since('preview'),
    state: t.state ?? 'timeout',
    error: t.error,
    samples: samples === null ? null : Number(samples),
    // With a second worker for the stacks (web/src/stack_helper.rs) or an inflater, its
    // memory too: both were live at once.
    wasmBytes: wasmBytes === null ? null : wasmBytes + helperMemory,
    timelineWasmBytes,
    renderer: busiestRenderer(browser.renderers()),
    wallMs,
    marks: t,
    errors,
  };
  return { result, page, worker: () => worker, close: browser.close };
}

const pct = (xs, p) => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

/** p50 / p95 / max of a list of ms. */
export function stats(xs) {
  return { n: xs.length, p50: pct(xs, 50), p95: pct(xs, 95), max: xs.length ? Math.max(...xs) : null };
}

/**
 * Runs `steps` interaction steps inside the page. Each step dispatches one input event on
 * `selector` and records: `render` = the main thread's work from the event to the end of the
 * task that follows it (the app's state update and re-render), `draw` = the first draw of the
 * kind after the event, `frame` = render + draw (what the frame costs), `latency` = event to
 * the end of that draw (includes waiting for the animation frame).
 */
async function runSteps(page, kind, selector, events) {
  return page.evaluate(async ({ kind, selector, events }) => {
    const b = window.__bench;
    const el = document.querySelector(selector);
    const r = el.getBoundingClientRect();
    const nextTask = () => new Promise((ok) => { const c = new MessageChannel(); c.port1.onmessage = () => ok(); c.port2.postMessage(0); });
    const frame = () => new Promise((ok) => requestAnimationFrame(() => ok()));
    const out = [];
    for (const ev of events) {
      // Start when the view shows what it asked the worker for (the timeline's density of the
      // current range), at the beginning of a frame, with earlier draws delivered.
      for (let i = 0; i < 600 && el.dataset.current === 'false'; i++) await frame();
      await frame();
      await nextTask();
      const init = { bubbles: true, cancelable: true, clientX: r.left + ev.x, clientY: r.top + ev.y, ...ev.init };
      const t0 = performance.now();
      el.dispatchEvent(ev.type === 'wheel' ? new WheelEvent('wheel', init) : ev.type === 'key' ? new KeyboardEvent('keydown', init) : new MouseEvent(ev.type, init));
      await nextTask();
      const t1 = performance.now();
      // The draw runs in a later animation frame; the observer delivers its measure after it
      // (measures of earlier draws, such as a density reply's, may still arrive: skip them).
      const first = () => b.draws[kind].find((x) => x.at >= t0);
      for (let i = 0; i < 20 && !first(); i++) { await frame(); await nextTask(); }
      const d = first();
      if (!d) { out.push({ render: t1 - t0, draw: null, frame: null, latency: null }); continue; }
      const render = Math.min(t1, d.at) - t0;
      out.push({ render, draw: d.ms, frame: render + d.ms, latency: d.at + d.ms - t0 });
    }
    return out;
  }, { kind, selector, events });
}

/** Shows a tab and waits until its canvas is drawn (`drawnPrefix` on `data-drawn` or data-current). */
async function showTab(page, id) {
  await page.click(`#tab-${id}`);
  await page.waitForFunction((t) => document.body.dataset.tab === t, id);
}

/**
 * Zoom and pan on the timeline (wheel), zoom in and out on the flame graph (click a box,
 * Escape), then time-range selections refiltering the flame graph, commands as roots,
 * switches between the tabs, and the exports.
 */
/**
 * The worker's queries (its `performance.measure` entries, web/src/worker.rs) that started
 * between two times of the epoch in ms, as "kind ms" in order, or null without the worker.
 */
async function workerQueries(worker, from, to) {
  if (!worker) return null;
  return worker.evaluate(([from, to]) => performance.getEntriesByType('measure')
    .filter((e) => e.name.startsWith('query ') && performance.timeOrigin + e.startTime >= from && performance.timeOrigin + e.startTime <= to)
    .map((e) => `${e.name.slice(6)} ${Math.round(e.duration)}`), [from, to]).catch(() => null);
}

export async function interact(page, { steps = 20, worker = null } = {}) {
  const out = {};
  page.setDefaultTimeout(120_000);
  await page.evaluate(() => { window.__bench.autoFlame = false; });

  // Timeline: wait until drawn with the density of the current view.
  await showTab(page, 'timeline');
  await page.waitForFunction(() => document.querySelector('canvas.timeline-canvas')?.dataset.current === 'true');
  const tl = await page.locator('canvas.timeline-canvas').boundingBox();
  const x = Math.round(220 + (tl.width - 220) * 0.6);
  const y = 40;
  const zoomIn = Array.from({ length: steps }, () => ({ type: 'wheel', x, y, init: { deltaY: -120 } }));
  const pan = Array.from({ length: steps }, (_, i) => ({ type: 'wheel', x, y, init: { deltaY: i % 2 ? 150 : -150, shiftKey: true } }));
  const zoomOut = Array.from({ length: steps }, () => ({ type: 'wheel', x, y, init: { deltaY: 120 } }));
  // Pan while zoomed in (at the full range there is nothing to pan to).
  out.timelineZoom = await runSteps(page, 'timeline', 'canvas.timeline-canvas', zoomIn);
  out.timelinePan = await runSteps(page, 'timeline', 'canvas.timeline-canvas', pan);
  out.timelineZoom.push(...await runSteps(page, 'timeline', 'canvas.timeline-canvas', zoomOut));
  out.timelineDraws = await page.evaluate(() => window.__bench.draws.timeline.map((d) => d.ms));
  await page.click('#reset-zoom').catch(() => {});

  // Flame graph: click boxes one row up each time (zooming into them), Escape back out.
  await showTab(page, 'flame');
  await page.waitForFunction(() => document.querySelector('canvas.flame-canvas')?.dataset.drawn?.startsWith('true:'));
  const fc = await page.locator('canvas.flame-canvas').boundingBox();
  const rowY = (depth) => fc.height - 2 - (depth + 1) * 18 + 9; // flame/layout.rs, roots at the bottom
  // Zoom into a root (the bottom row is covered by roots), into the box in the middle of the
  // row above it (the zoomed root spans the width), then Escape out twice. A click on a gap
  // changes nothing and is counted as a step without a draw.
  const flame = [];
  for (let i = 0; i < Math.max(1, Math.floor(steps / 4)); i++) {
    flame.push({ type: 'click', x: Math.round(fc.width * (0.1 + (0.8 * i) / Math.max(1, steps / 4))), y: rowY(0) });
    flame.push({ type: 'click', x: Math.round(fc.width / 2), y: rowY(1) });
    flame.push({ type: 'key', x: 0, y: 0, init: { key: 'Escape' } });
    flame.push({ type: 'key', x: 0, y: 0, init: { key: 'Escape' } });
  }
  out.flameZoom = await runSteps(page, 'flame', 'canvas.flame-canvas', flame);
  out.flameDraws = await page.evaluate(() => window.__bench.draws.flame.map((d) => d.ms));

  // Range selections: drag on the timeline, then show the flame graph as soon as the selection
  // shows; time from the mouse button's release (the selection made) to the flame graph drawn
  // for that selection, and of it from the click on the flame tab.
  out.refilter = [];
  for (const [a, b] of [[0.30, 0.40], [0.10, 0.60], [0.50, 0.52], [0.05, 0.95]]) {
    await showTab(page, 'timeline');
    await page.waitForFunction(() => document.querySelector('canvas.timeline-canvas')?.dataset.current === 'true');
    const box = await page.locator('canvas.timeline-canvas').boundingBox();
    const gutter = 220; // the lane labels (timeline/layout.rs GUTTER)
    const px = (f) => box.x + gutter + (box.width - gutter) * f;
    await page.mouse.move(px(a), box.y + 40);
    await page.mouse.down();
    await page.mouse.move(px((a + b) / 2), box.y + 40, { steps: 2 });
    await page.mouse.move(px(b), box.y + 40, { steps: 2 });
    const measured = page.evaluate(() => new Promise((ok) => {
      let up = null;
      let click = null;
      // The selection shown (its range differs from the last one) and the app's update done.
      const range = () => {
        const r = document.querySelector('[data-field="selection"]');
        return r ? `${r.dataset.start}-${r.dataset.end}` : null;
      };
      const before = range();
      const selected = () => range() !== null && range() !== before && document.querySelector('#zoom-selection:not([disabled])');
      const drawn = () => {
        const t = document.querySelector('[data-field="flame-total"]');
        const c = document.querySelector('canvas.flame-canvas');
        return t?.dataset.current === 'true' && t.dataset.range && c?.dataset.drawn?.startsWith('true:') ? t : null;
      };
      const check = () => {
        if (up === null) return;
        const now = performance.now();
        if (click === null) {
          if (!selected()) return;
          click = now;
          document.getElementById('tab-flame').click();
          return;
        }
        const t = drawn();
        if (!t && now - up < 60_000) return;
        observer.disconnect();
        ok(t ? { ms: now - up, tabMs: now - click, samples: Number(t.dataset.samples), range: t.dataset.range, workerMs: t.dataset.workerMs === undefined ? null : Number(t.dataset.workerMs), upAt: performance.timeOrigin + up, doneAt: performance.timeOrigin + now } : { ms: null });
      };
      const observer = new MutationObserver(check);
      window.addEventListener('pointerup', () => {
        up = performance.now();
        observer.observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-drawn', 'data-current', 'data-range', 'data-start', 'data-end', 'disabled'] });
        setTimeout(() => { observer.disconnect(); ok({ ms: null }); }, 60_000);
      }, { capture: true, once: true });
      window.__benchArmed = true;
    }));
    await page.waitForFunction(() => window.__benchArmed === true);
    await page.evaluate(() => { window.__benchArmed = false; });
    await page.mouse.up();
    const { upAt, doneAt, ...ms } = await measured;
    // What the worker did meanwhile: the tree query, and any query the page asked first.
    const queries = upAt === undefined ? null : await workerQueries(worker, upAt, doneAt);
    out.refilter.push({ from: a, to: b, ...ms, queries });
  }

  // Commands as roots, top-down then inverted, over the last selection: from the click to the
  // flame graph drawn with the new tree (and the worker's part of it).
  await showTab(page, 'flame');
  out.byCommand = [];
  for (const [id, back] of [['#flame-roots-commands', null], ['#flame-inverted', '#flame-topdown']]) {
    const ms = await page.evaluate((id) => new Promise((ok) => {
      const t0 = performance.now();
      const button = document.querySelector(id);
      const before = document.querySelector('[data-field="flame-total"]')?.dataset.workerMs;
      const observer = new MutationObserver(() => {
        const t = document.querySelector('[data-field="flame-total"]');
        const c = document.querySelector('canvas.flame-canvas');
        const done = button.getAttribute('aria-pressed') === 'true' && t?.dataset.current === 'true' && c?.dataset.drawn?.startsWith('true:');
        if (!done && performance.now() - t0 < 60_000) return;
        observer.disconnect();
        ok(done ? { ms: performance.now() - t0, workerMs: t.dataset.workerMs === before ? null : Number(t.dataset.workerMs) } : { ms: null });
      });
      observer.observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-drawn', 'data-current', 'aria-pressed'] });
      button.click();
    }), id);
    out.byCommand.push({ inverted: back !== null, ...ms });
    if (back) await page.click(back);
  }
  await page.click('#flame-roots-functions');

  // Tab switches: from the click on a tab to its view drawn with its current data (a view is
  // made anew each time its tab is shown: a big recording's long lists showed here).
  const ready = {
    timeline: () => document.querySelector('canvas.timeline-canvas')?.dataset.current === 'true',
    flame: () => document.querySelector('[data-field="flame-total"]')?.dataset.current === 'true' && document.querySelector('canvas.flame-canvas')?.dataset.drawn?.startsWith('true:'),
    calltree: () => document.querySelector('[data-field="calltree-total"]')?.dataset.current === 'true',
    records: () => document.querySelector('[data-field="records-matching"]')?.dataset.current === 'true',
    summary: () => document.getElementById('panel-summary') !== null,
  };
  out.tabs = [];
  // The flame graph with functions as roots again, first.
  await page.waitForFunction(ready.flame, null, { timeout: 120_000 });
  for (const tab of ['timeline', 'flame', 'calltree', 'summary', 'timeline', 'flame']) {
    await page.waitForTimeout(200);
    const ms = await page.evaluate(([tab, test]) => new Promise((ok) => {
      const isReady = new Function(`return (${test})()`);
      const t0 = performance.now();
      document.getElementById(`tab-${tab}`).click();
      const check = () => {
        if (isReady()) ok(performance.now() - t0);
        else if (performance.now() - t0 > 60_000) ok(null);
        else requestAnimationFrame(check);
      };
      requestAnimationFrame(check);
    }), [tab, ready[tab].toString()]);
    out.tabs.push({ tab, ms });
  }

  // Exports of every sample: from the click on a format to the download's start.
  out.exports = [];
  for (const format of ['share', 'pprof', 'speedscope', 'folded', 'svg']) {
    if (!(await page.locator('#export-menu').evaluate((d) => d.open))) await page.click('#export-menu > summary');
    const t0 = Date.now();
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 600_000 }), page.click(`#export-${format}`)]);
    const ms = Date.now() - t0;
    const bytes = statSync(await download.path()).size;
    out.exports.push({ format, ms, bytes });
  }
  return out;
}
