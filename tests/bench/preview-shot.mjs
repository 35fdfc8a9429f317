// Screenshots of the preview flame graph while a big file is read (not a test):
//   node tests/bench/preview-shot.mjs FILE OUT_PREFIX [MS...]
// Opens FILE in the built page (dist/) and saves OUT_PREFIX-<ms>.png that many ms after the
// file was set on the input; prints the preview's caption at each. With FLAME_TAB=1 the Flame
// graph tab is clicked as soon as it exists (the preview stands in for the graph until its tree).
// With HOVER=X,Y the pointer is moved to (X, Y) of the preview's canvas before each screenshot.
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../scripts/static-server.mjs';
import { launch } from '../helpers/browser.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const [file, prefix, ...times] = process.argv.slice(2);
const server = await startServer(resolve(root, 'dist'));
const browser = await launch();
try {
  const page = await browser.context.newPage();
  await page.goto(server.url);
  await page.waitForFunction(() => document.body.dataset.state === 'idle');
  if (process.env.FLAME_TAB === '1') {
    await page.evaluate(() => {
      new MutationObserver((_, o) => {
        const tab = document.getElementById('tab-flame');
        if (tab) { tab.click(); o.disconnect(); }
      }).observe(document, { subtree: true, childList: true });
    });
  }
  const t0 = Date.now();
  await page.setInputFiles('#file', resolve(file));
  for (const ms of (times.length ? times : ['2500']).map(Number)) {
    const wait = t0 + ms - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (process.env.HOVER) {
      const [x, y] = process.env.HOVER.split(',').map(Number);
      const box = await page.locator('canvas.preview-canvas').boundingBox({ timeout: 200 }).catch(() => null);
      if (box) await page.mouse.move(box.x + x, box.y + y);
      await new Promise((r) => setTimeout(r, 100));
    }
    await page.screenshot({ path: `${prefix}-${ms}.png` });
    const caption = await page.locator('[data-field="preview-caption"]').textContent({ timeout: 200 }).catch(() => '(no preview)');
    console.log(`${ms} ms: ${caption}`);
  }
} finally {
  await browser.close();
  await server.close();
}
