// The Records tab of a big recording in the built page: the worker's wasm memory 5 s after the
// flame graph (the records index's rows are made then, when they fit), the time to the tab's
// first rows, then scrolls (to the middle, two short steps on, a quarter, the end) each timed
// to every visible row's fields shown. Not a test.
//
//   [WAIT_MS=5000] node tests/bench/records-scroll.mjs DIST FILE [SCREENSHOT.png]
import { resolve } from 'node:path';
import { startServer } from '../../scripts/static-server.mjs';
import { openInPerfscope } from './perfscope-page.mjs';

const [dist, file, shot] = process.argv.slice(2);
if (!dist || !file) throw new Error('usage: records-scroll.mjs DIST FILE [SCREENSHOT.png]');
const server = await startServer(resolve(dist));
const { result, page, worker, close } = await openInPerfscope(server.url, resolve(file));
const mb = async () => (await worker().evaluate(async () => (await wasm_bindgen()).memory.buffer.byteLength)) / 1e6;
console.log(`flame graph after ${Math.round(result.flameMs)} ms`);
// WAIT_MS (default 5000): how long after the flame graph the tab is opened (0: at once, before
// the rows are made in the background).
const wait = Number(process.env.WAIT_MS ?? 5000);
await page.waitForTimeout(wait);
console.log(`${wait / 1000} s later: wasm memory ${(await mb()).toFixed(1)} MB`);
let t0 = Date.now();
await page.click('#tab-records');
await page.waitForSelector('.records-table .row[data-row="0"][data-index="0"]', { timeout: 120_000 });
console.log(`Records tab: first rows after ${Date.now() - t0} ms; wasm memory ${(await mb()).toFixed(1)} MB`);
const total = Number(await page.locator('.records-table').getAttribute('aria-rowcount'));
for (const [what, f] of [['the middle', 0.5], ['a step on', 0.5002], ['another', 0.5004], ['a quarter', 0.25], ['the end', 1]]) {
  const firstRow = () => page.evaluate(() => Number(document.querySelector('.records-table .row[data-row]')?.getAttribute('data-row')));
  const before = await firstRow();
  t0 = Date.now();
  await page.locator('.records-scroll').evaluate((el, f) => { el.scrollTop = Math.round((el.scrollHeight - el.clientHeight) * f); }, f);
  // Other rows drawn, each with its type and fields (a row still loading has none).
  await page.waitForFunction((before) => {
    const rows = [...document.querySelectorAll('.records-table .row[data-row]')];
    return rows.length > 5 && Number(rows[0].getAttribute('data-row')) !== before
      && rows.every((r) => r.getAttribute('data-type')) && !document.querySelector('.records-table .row.loading');
  }, before, { timeout: 120_000 });
  const rows = await page.evaluate(() => [...document.querySelectorAll('.records-table .row[data-row]')].map((r) => Number(r.getAttribute('data-row'))));
  console.log(`scrolled to ${what}: rows ${Math.min(...rows)}..${Math.max(...rows)} of ${total} shown after ${Date.now() - t0} ms`);
}
console.log(`wasm memory ${(await mb()).toFixed(1)} MB`);
if (shot) await page.screenshot({ path: shot });
await close();
await server.close();
