// Driving the views like a person: open a file, switch tabs, drag on the timeline, point at
// flame-graph boxes, and wait for the page's explicit ready signals (never for time to pass).
import assert from 'node:assert/strict';
import { openApp, waitForState } from './browser.mjs';

/** Opens `path` with the file input (more paths: symbol files too) and waits until analyzed. */
export async function openFile(context, url, ...paths) {
  const { page, errors } = await openApp(context, url);
  await page.setInputFiles('#file', paths);
  const state = await waitForState(page, ['loaded', 'error'], 60_000);
  if (state !== 'loaded') assert.fail(`state ${state}: ${await page.locator('#error, #app').first().textContent()}`);
  return { page, errors };
}

/** Shows a tab by clicking it and waits for the page to say it is shown. */
export async function showTab(page, id) {
  await page.click(`#tab-${id}`);
  await page.waitForFunction((t) => document.body.dataset.tab === t, id);
}

/**
 * The sample count of the summary, shown first (a file read with a preview flame graph opens
 * on the Flame graph tab).
 */
export async function sampleCount(page) {
  if ((await page.evaluate(() => document.body.dataset.tab)) !== 'summary') await showTab(page, 'summary');
  return num(await page.locator('[data-field="sample-count"]').textContent());
}

/** A number shown with thousands separators. */
export function num(text) {
  return Number(String(text).replace(/[^0-9.-]/g, ''));
}

/**
 * Waits until the flame graph shows the tree for the current view state (and, when `range` is
 * given, for that selection), and its canvas was drawn; returns the sample total shown.
 */
export async function flameTotal(page, range) {
  const want = range ? `${range[0]},${range[1]}` : '';
  await page.waitForFunction((want) => {
    const t = document.querySelector('[data-field="flame-total"]');
    const c = document.querySelector('canvas.flame-canvas');
    return t?.dataset.current === 'true' && t.dataset.range === want && c?.dataset.drawn?.startsWith('true:');
  }, want, { timeout: 20_000 });
  return Number(await page.locator('[data-field="flame-total"]').getAttribute('data-samples'));
}

/**
 * Switches the open profile to one frame per address for code without symbols (the notices'
 * switch), and waits for the profile built again that way.
 */
export async function byAddress(page) {
  await page.click('[data-action="unnamed-by-address"][aria-pressed="false"]');
  await page.waitForSelector('[data-action="unnamed-by-address"][aria-pressed="true"]', { timeout: 20_000 });
}

/** The canvas's box in page coordinates. */
export async function canvasBox(page, selector) {
  const box = await page.locator(selector).boundingBox();
  assert.ok(box, `${selector} is not visible`);
  return box;
}

/**
 * Points at (x, y) of the flame canvas (CSS px from its top left) and returns the name of the
 * function there ("" when no box is there), as the canvas publishes it for that very point.
 */
export async function hoverFlame(page, x, y) {
  const box = await canvasBox(page, 'canvas.flame-canvas');
  const [px, py] = [Math.round(box.x + x), Math.round(box.y + y)];
  await page.mouse.move(px, py);
  // offsetX/Y are whole pixels from the canvas's edge: within a pixel of the point asked.
  await page.waitForFunction(([ex, ey]) => {
    const at = document.querySelector('canvas.flame-canvas')?.dataset.hover?.split(',').map(Number);
    return at && Math.abs(at[0] - ex) <= 1 && Math.abs(at[1] - ey) <= 1;
  }, [px - box.x, py - box.y]);
  return page.locator('canvas.flame-canvas').getAttribute('data-hover-name');
}

/** Row `depth` (0 = roots) of the flame canvas, as a y in CSS px (flame: roots at the bottom). */
export async function flameRowY(page, depth) {
  const box = await canvasBox(page, 'canvas.flame-canvas');
  return box.height - 2 - (depth + 1) * 18 + 9;
}
