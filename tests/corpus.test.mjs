// Files from the shared perf.data corpus (PERFSCOPE_SHARED, else ../shared next to the
// workspace), dropped on the built page and compared with perf's header oracle for each.
// Skips, saying so, when the corpus is not there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveApp } from './helpers/app.mjs';
import { dropFile, openApp, waitForState } from './helpers/browser.mjs';
import { assertPageShows } from './helpers/expect.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SHARED = resolve(process.env.PERFSCOPE_SHARED ?? join(ROOT, '..', 'shared'));
const CORPUS = join(SHARED, 'corpus');
const SHOTS = join(ROOT, 'tests', 'screenshots');
// Both modes in both byte orders (the big-endian files are from s390x), several events,
// tracepoints, and a perf stat file.
const FILES = [
  'gen/pipe.data', 'bigendian/be-plain.data', 'bigendian/be-pipe.data',
  'gen/multi-event.data', 'gen/kmem-tp.data', 'gen/stat-record.data',
];

const present = existsSync(CORPUS);
if (!present) {
  console.log(`# corpus tests skipped: no corpus at ${CORPUS} (set PERFSCOPE_SHARED to the folder holding corpus/)`);
}

const app = serveApp(ROOT, { enabled: present });

for (const rel of FILES) {
  const dataPath = join(CORPUS, rel);
  const headerPath = join(CORPUS, dirname(rel), 'oracle', basename(rel).replace(/\.data$/, '.header.txt'));
  const skip = present ? false : `no corpus at ${CORPUS}`;
  test(`corpus ${rel} dropped on the page matches its oracle header`, { skip }, async () => {
    const { page, errors } = await openApp(app.browser.context, app.server.url);
    await dropFile(page, basename(rel), readFileSync(dataPath));
    assert.equal(await waitForState(page, ['loaded', 'error']), 'loaded');
    await assertPageShows(page, dataPath, headerPath);
    await page.screenshot({ path: join(SHOTS, `corpus-${basename(rel, '.data')}.png`) });
    assert.deepEqual(errors, []);
    await page.close();
  });
}
