// speedscope (the npm package's static build) as the independent reader of our speedscope
// export: the file is loaded through its file input and must reach its flame chart with no
// import error.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Where the npm package's built page is, or null when it is not installed. */
export function speedscopeDist(root) {
  const dir = join(root, 'node_modules', 'speedscope', 'dist', 'release');
  return existsSync(join(dir, 'index.html')) ? dir : null;
}

/**
 * Opens `file` in speedscope served at `url` in `context`.
 * @returns {Promise<{error: string|null, toolbar: string}>} speedscope's import error (it
 *   reports them with alert()) or null, and the toolbar's text once the chart is shown.
 */
export async function openInSpeedscope(context, url, file) {
  const page = await context.newPage();
  try {
    await page.addInitScript(() => {
      window.__alerts = [];
      window.alert = (msg) => window.__alerts.push(String(msg));
    });
    await page.goto(url);
    await page.waitForSelector('#file', { state: 'attached' });
    await page.setInputFiles('#file', file);
    await page.waitForFunction(
      () => window.__alerts.length > 0 || (document.querySelector('canvas') && document.body.textContent.includes('Left Heavy')),
      null,
      { timeout: 30_000 },
    );
    const alerts = await page.evaluate(() => window.__alerts);
    const toolbar = alerts.length ? '' : await page.evaluate(() => document.body.innerText);
    return { error: alerts[0] ?? null, toolbar, page };
  } catch (e) {
    await page.close();
    throw e;
  }
}
