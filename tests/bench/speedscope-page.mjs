// speedscope (the npm package's static build, node_modules/speedscope/dist/release) in the same
// headless Chromium, fed `perf script` text through its file input, timed like Perfscope: from
// the input's `change` event to the frame after its flame chart appears (the view with the
// "Left Heavy" / "Sandwich" toolbar and a canvas).
import { busiestRenderer, launchBench } from './chromium.mjs';

function instrument() {
  const b = (window.__bench = { t: {} });
  document.addEventListener('change', (e) => {
    if (e.target?.id === 'file') b.t = { set: performance.now() };
  }, true);
  // speedscope reports import failures with alert().
  window.alert = (msg) => { b.t.error = String(msg); };
  const check = () => {
    const t = b.t;
    if (t.set === undefined || t.shownDom !== undefined) return;
    if (document.querySelector('canvas') && document.body.textContent.includes('Left Heavy')) {
      t.shownDom = performance.now();
      // The chart is drawn in the next frames: the second frame starts after the first painted.
      requestAnimationFrame(() => requestAnimationFrame(() => { t.shown = performance.now(); }));
    }
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true });
}

/**
 * Opens `textFile` in speedscope served at `url` (and saves a screenshot when asked).
 * @returns {Promise<object>} flameMs from the file being set to the flame chart, renderer peak memory.
 */
export async function openInSpeedscope(url, textFile, { timeoutMs = 900_000, extraFlags = [], screenshot = null } = {}) {
  const browser = await launchBench({ extraFlags });
  try {
    const page = await browser.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    page.on('crash', () => errors.push('the page crashed'));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
    await page.addInitScript(instrument);
    await page.goto(url);
    await page.waitForSelector('#file', { state: 'attached', timeout: 30_000 });
    const wall0 = Date.now();
    await page.setInputFiles('#file', textFile);
    let crashed = false;
    page.once('crash', () => { crashed = true; });
    await page.waitForFunction(() => window.__bench.t.shown !== undefined || window.__bench.t.error !== undefined, null, { timeout: timeoutMs, polling: 250 })
      .catch((e) => errors.push(`waiting for the flame chart: ${e.message.split('\n')[0]}`));
    const wallMs = Date.now() - wall0;
    const t = crashed ? {} : await page.evaluate(() => window.__bench.t).catch(() => ({}));
    if (screenshot && !crashed) await page.screenshot({ path: screenshot }).catch(() => {});
    let jsHeap = null;
    if (!crashed) {
      const cdp = await browser.context.newCDPSession(page).catch(() => null);
      const metrics = await cdp?.send('Performance.enable').then(() => cdp.send('Performance.getMetrics')).catch(() => null);
      jsHeap = metrics?.metrics.find((m) => m.name === 'JSHeapTotalSize')?.value ?? null;
    }
    return {
      file: textFile,
      flameMs: t.shown === undefined ? null : t.shown - t.set,
      error: t.error ?? (crashed ? 'the page crashed' : undefined),
      jsHeapBytes: jsHeap,
      renderer: busiestRenderer(browser.renderers()),
      wallMs,
      errors,
    };
  } finally {
    await browser.close();
  }
}
