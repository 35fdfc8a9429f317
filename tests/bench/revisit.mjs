// What V8 compiles when a person comes back (not a test): three visits to the built page in
// one browser profile (the first and third set FILE at once and wait for its flame graph; the
// second only waits 15 s, as a page left open), each traced for V8's wasm compiles. A browser
// that kept the modules' compiled code (V8's wasm code cache) would show fewer lazy and
// optimizing compiles at the third visit than at the first.
//
//   node tests/bench/revisit.mjs DIST FILE
//
// SW=block: without the page's service worker. XFLAGS: one more Chromium flag (e.g.
// `--js-flags=--wasm-caching-threshold=1000`).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { launchBench } from './chromium.mjs';
import { startServer } from '../../scripts/static-server.mjs';
import { endTrace, startTrace } from './trace.mjs';

const [dist, file] = process.argv.slice(2);
if (!dist || !file) throw new Error('usage: revisit.mjs DIST FILE');
const server = await startServer(resolve(dist));
const profile = mkdtempSync(join(tmpdir(), 'perfscope-revisit-'));

async function visit(label, open) {
  const browser = await launchBench({
    extraFlags: process.env.XFLAGS ? [process.env.XFLAGS] : [],
    profile,
    serviceWorkers: process.env.SW === 'block' ? 'block' : 'allow',
  });
  try {
    const page = await browser.context.newPage();
    const cdp = await browser.context.newCDPSession(page);
    await startTrace(cdp, ['v8.wasm', 'disabled-by-default-v8.wasm.detailed']);
    await page.goto(server.url);
    await page.waitForFunction(() => document.body.dataset.state === 'idle', null, { timeout: 30_000 });
    let flameMs = null;
    if (open) {
      const t = Date.now();
      await page.setInputFiles('#file', resolve(file));
      await page.locator('#tab-flame').click({ timeout: 60_000 });
      await page.waitForFunction(() => document.body.dataset.state === 'loaded' && document.querySelector('canvas.flame-canvas')?.dataset.drawn?.startsWith('true:'), null, { timeout: 600_000, polling: 50 });
      flameMs = Date.now() - t;
    } else {
      await page.waitForTimeout(15_000);
    }
    const { events } = await endTrace(cdp);
    const threads = new Map(events.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => [`${e.pid}/${e.tid}`, e.args.name]));
    const of = (name) => events.filter((e) => e.name === name && e.ph === 'X');
    const ms = (list) => Math.round(list.reduce((a, e) => a + e.dur, 0) / 1000);
    const lazy = of('wasm.CompileLazy');
    const byThread = {};
    for (const e of lazy) {
      const t = threads.get(`${e.pid}/${e.tid}`) ?? '?';
      byThread[t] = (byThread[t] ?? 0) + 1;
    }
    const top = of('wasm.TopTierCompilation');
    console.log(`${label}: flame graph ${flameMs ?? '—'} ms; optimizing compiles ${top.length} (${ms(top)} ms); lazy compiles ${lazy.length} (${ms(lazy)} ms) by thread ${JSON.stringify(byThread)}`);
  } finally {
    await browser.close();
  }
}

try {
  await visit('first visit, the file set at once', true);
  await visit('second visit, left open 15 s', false);
  await visit('third visit, the file set at once', true);
} finally {
  await server.close();
  rmSync(profile, { recursive: true, force: true });
}
