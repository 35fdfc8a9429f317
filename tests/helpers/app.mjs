// The hooks every browser test file needs: serve the built page (dist/) and launch Chromium
// once per file, close both at the end.

import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from '../../scripts/static-server.mjs';
import { launch } from './browser.mjs';

/**
 * Registers `before`/`after` hooks that serve `root/dist` and launch Chromium. Returns an object
 * whose `server` (with `url`) and `browser` (with `context`) are set once the hook has run.
 * With `enabled: false` (e.g. the corpus is absent) nothing is started.
 */
export function serveApp(root, { enabled = true } = {}) {
  const app = { server: null, browser: null };
  before(async () => {
    if (!enabled) return;
    assert.ok(existsSync(join(root, 'dist', 'index.html')), 'dist/ is missing: run scripts/build.sh');
    mkdirSync(join(root, 'tests', 'screenshots'), { recursive: true });
    app.server = await startServer(join(root, 'dist'));
    app.browser = await launch();
  });
  after(async () => {
    await app.browser?.close();
    await app.server?.close();
  });
  return app;
}
