// Headless Debian Chromium driven by playwright-core, with a fresh profile per run, and pages
// that record every error a person could see in the console.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/** Console messages of Playwright itself, not of the page (blocking the service worker). */
export function isPlaywrightNotice(message) {
  return message.text() === 'Service Worker registration blocked by Playwright';
}

/**
 * Starts Chromium with a fresh --user-data-dir. The page's service worker (offline use) is
 * blocked unless `serviceWorkers: 'allow'`: it would answer requests from its cache that tests
 * intercept with page.route().
 * @returns {Promise<{context: import('playwright-core').BrowserContext, close: () => Promise<void>}>}
 */
export async function launch({ colorScheme = 'light', deviceScaleFactor = 1, serviceWorkers = 'block' } = {}) {
  const userDataDir = mkdtempSync(join(tmpdir(), 'perfscope-chromium-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_FLAGS,
      viewport: { width: 1280, height: 720 },
      colorScheme,
      deviceScaleFactor,
      serviceWorkers,
    });
  } catch (e) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw e;
  }
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Opens `url` in a new page and waits until the app has mounted (data-state "idle").
 * `errors` collects uncaught exceptions, console errors and warnings (page and worker), failed
 * requests and HTTP errors.
 */
export async function openApp(context, url) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (['error', 'warning'].includes(m.type()) && !isPlaywrightNotice(m)) errors.push(`console.${m.type()}: ${m.text()}`); });
  page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => { if (r.status() >= 400) errors.push(`HTTP ${r.status()}: ${r.url()}`); });
  // Errors inside the worker are reported to the page's console too; also listen directly.
  page.on('worker', (w) => w.on('console', (m) => { if (['error', 'warning'].includes(m.type())) errors.push(`worker console.${m.type()}: ${m.text()}`); }));
  await page.goto(url);
  await waitForState(page, ['idle']);
  return { page, errors };
}

/** Waits for `document.body.dataset.state` to be one of `states`; returns it. */
export async function waitForState(page, states, timeout = 20_000) {
  await page.waitForFunction((s) => s.includes(document.body.dataset.state), states, { timeout });
  return page.evaluate(() => document.body.dataset.state);
}

/** Drops a file on the drop zone with a real DataTransfer, as a person dragging it would. */
export async function dropFile(page, name, bytes) {
  const dataTransfer = await page.evaluateHandle(({ name, b64 }) => {
    const raw = atob(b64);
    const data = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) data[i] = raw.charCodeAt(i);
    const dt = new DataTransfer();
    dt.items.add(new File([data], name, { type: 'application/octet-stream' }));
    return dt;
  }, { name, b64: Buffer.from(bytes).toString('base64') });
  await page.dispatchEvent('#dropzone', 'dragenter', { dataTransfer });
  await page.dispatchEvent('#dropzone', 'dragover', { dataTransfer });
  await page.dispatchEvent('#dropzone', 'drop', { dataTransfer });
}

/** The text of the element with `data-field="name"` (exactly one must exist). */
export async function field(page, name) {
  return page.locator(`[data-field="${name}"]`).textContent();
}
