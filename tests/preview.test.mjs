// The preview flame graph drawn while a file is read (web/src/components/flame_graph/preview.rs):
// with `?preview=0` the worker sends one as soon as samples reach the profile; the page draws it
// under the progress bar with a caption of its numbers, then replaces it with the real flame
// graph. With `?preview=off` none is sent. The preview's tree itself is checked against the
// full layout in crates/analysis/tests/pruned_tree.rs. Skips without the corpus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveApp } from './helpers/app.mjs';
import { openApp, waitForState } from './helpers/browser.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SHARED = resolve(process.env.PERFSCOPE_SHARED ?? join(ROOT, '..', 'shared'));
// 140 rounds: its samples reach the profile all along the file.
const FILE = join(SHARED, 'corpus', 'gen', 'lost.data');
const present = existsSync(FILE);
const skip = present ? false : `no corpus file at ${FILE} (set PERFSCOPE_SHARED)`;
if (!present) console.log(`# preview tests skipped: ${skip}`);

const app = serveApp(ROOT, { enabled: present });

/** Records the worker's preview packets and the page's preview draws (before the app runs). */
function listen() {
  const seen = (window.__previews = { packets: [], draws: 0, captions: [] });
  const Native = window.Worker;
  window.Worker = class extends Native {
    constructor(...args) {
      super(...args);
      const held = new WeakSet();
      this.addEventListener('message', (e) => {
        if (e.data?.kind === 'preview') seen.packets.push(JSON.parse(e.data.json));
        // The profile is handed to the page 400 ms late, so that a preview it got is drawn
        // however fast the pass ends (this listener runs before the page's `onmessage`).
        if (e.data?.kind === 'profile' && !held.has(e.data)) {
          e.stopImmediatePropagation();
          held.add(e.data);
          setTimeout(() => this.dispatchEvent(new MessageEvent('message', { data: e.data })), 400);
        }
      });
    }
  };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.name === 'perfscope:preview-draw') seen.draws += 1;
    }
  }).observe({ type: 'measure' });
  // The captions as they are put in the page (the preview may be gone by the time a
  // performance observer runs: the profile came).
  const caption = (node) => (node.matches?.('[data-field="preview-caption"]') ? node : node.querySelector?.('[data-field="preview-caption"]'));
  new MutationObserver((records) => {
    for (const r of records) {
      const nodes = r.type === 'childList' ? [...r.addedNodes] : [r.target.parentElement];
      for (const n of nodes) {
        const c = n && caption(n);
        if (c && c.textContent !== seen.captions.at(-1)) seen.captions.push(c.textContent);
      }
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
}

async function open(query) {
  // The worker starts with the page: listen before any script of it runs.
  await app.browser.context.addInitScript(listen);
  const { page, errors } = await openApp(app.browser.context, `${app.server.url}?${query}`);
  await page.setInputFiles('#file', FILE);
  assert.equal(await waitForState(page, ['loaded', 'error'], 60_000), 'loaded');
  return { page, errors, seen: await page.evaluate(() => window.__previews) };
}

test('a preview is drawn while the file is read, then the real flame graph', { skip }, async () => {
  // Small slices read by the parser itself: a preview can come after any of them (and the
  // profile is handed over late, see listen, so that it is drawn).
  const { page, errors, seen } = await open('preview=0&slice=4096&reader=0');
  try {
    assert.ok(seen.packets.length >= 1, 'no preview was sent');
    const p = seen.packets[0];
    assert.ok(p.taken > 0 && p.taken <= p.seen, `taken ${p.taken} of ${p.seen}`);
    // Fewer than 20 000 samples: every one is taken.
    assert.equal(p.step, 1);
    assert.equal(p.taken, p.seen);
    assert.ok(p.seen < 2899, 'the preview came before every sample was read');
    assert.ok(p.bytes > 0 && p.bytes < p.total, `${p.bytes} of ${p.total} bytes`);
    assert.equal(p.total, 346884);
    // Columns of one length; children within their parents; roots within the width.
    const n = p.func.length;
    assert.ok(n > 0);
    for (const col of ['parent', 'depth', 'x', 'width']) assert.equal(p[col].length, n, col);
    let roots = 0;
    for (let i = 0; i < n; i++) {
      assert.ok(p.func[i] < p.names.length);
      if (p.parent[i] === 4294967295) {
        assert.equal(p.depth[i], 0);
        roots += p.width[i];
      } else {
        const q = p.parent[i];
        assert.ok(q < i, 'parents come first');
        assert.equal(p.depth[i], p.depth[q] + 1);
        assert.ok(p.x[i] >= p.x[q] && p.x[i] + p.width[i] <= p.x[q] + p.width[q], `node ${i} inside its parent`);
      }
    }
    assert.ok(roots <= p.taken);
    // Drawn under a caption of its numbers.
    assert.ok(seen.draws >= 1, 'the preview was never drawn');
    assert.match(seen.captions[0], /^Preview: [\d,]+ samples in the first \d+ % of the file\./);
    // The full flame graph takes the preview's place: its tab is the one shown, and drawn
    // without a click; the preview stays in its place until then (the profile is loaded a
    // moment before its first tree comes), and is gone once it is drawn.
    assert.equal(await page.locator('#tab-flame').getAttribute('aria-selected'), 'true');
    await page.waitForFunction(() => document.querySelector('canvas.flame-canvas')?.dataset.drawn?.startsWith('true:'), null, { timeout: 30_000 });
    assert.equal(await page.locator('#flame-preview').count(), 0);
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
  }
});

test('no preview with ?preview=off', { skip }, async () => {
  const { page, errors, seen } = await open('preview=off&slice=4096&reader=0');
  try {
    assert.equal(seen.packets.length, 0);
    assert.equal(seen.draws, 0);
    // Without a preview, the loaded file opens on its summary.
    assert.equal(await page.locator('#tab-summary').getAttribute('aria-selected'), 'true');
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
  }
});
