// A `perf record -z` file's compressed records are decompressed by another worker, an inflater
// (web/src/inflater.rs), for big files; `?inflate=1` forces it on any compressed file,
// `?inflate=0` turns it off. The page must show the same profile either way, also when the
// inflater fails part of the way (`?inflatefail=K`) or stops answering (`?inflatestall=K`) and
// the parser decompresses the rest:
// perf's sample count, the flame total, the same folded stacks, and the same record counts. Files are read in
// small slices, so that records are cut between slices and between compressed records.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../scripts/static-server.mjs';
import { launch } from './helpers/browser.mjs';
import { openWithSecondWorker } from './helpers/worker-open.mjs';
import { parseScriptSamples } from './helpers/perf-script.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SHARED = process.env.PERFSCOPE_SHARED ?? join(ROOT, '..', 'shared');
const GEN = join(SHARED, 'corpus', 'gen');

let server;
let browser;

before(async () => {
  server = await startServer(join(ROOT, 'dist'));
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** Opens `path` with `query` (see helpers/worker-open.mjs). */
function open(path, query, warned = null) {
  return openWithSecondWorker(browser, `${server.url}?${query}`, path, warned);
}

async function compare(path, perfSamples, slice) {
  const here = await open(path, `slice=${slice}&inflate=0`);
  assert.equal(here.inflater, 'None', here.text);
  const there = await open(path, `slice=${slice}&inflate=1`);
  assert.equal(there.inflater, 'Used', there.text);
  assert.match(there.text, /zstd on a second worker/);
  for (const r of [here, there]) {
    assert.equal(r.samples, perfSamples);
    assert.equal(r.total, perfSamples);
  }
  assert.match(here.records ?? "", /COMPRESSED/);
  assert.equal(there.records, here.records);
  assert.deepEqual(there.folded, here.folded);
  // The inflater failed after 2 slices: the parser decompresses the rest.
  const failed = await open(path, `slice=${slice}&inflate=1&inflatefail=2`, /told to fail at slice 2 \(inflatefail\): the rest of the file is read and decompressed by the parser/);
  assert.equal(failed.inflater, 'Failed', failed.text);
  assert.match(failed.text, /the decompressing worker failed: the rest decompressed here/);
  assert.equal(failed.samples, perfSamples);
  assert.equal(failed.records, here.records);
  assert.deepEqual(failed.folded, here.folded);
  // It stopped answering after 2 slices: once the analysis worker's patience (5 s) runs out,
  // the parser decompresses the rest, as when it fails.
  const stalled = await open(path, `slice=${slice}&inflate=1&inflatestall=2`, /the decompressing worker sent nothing for 5 s: the rest of the file is read and decompressed by the parser/);
  assert.equal(stalled.inflater, 'Failed', stalled.text);
  assert.equal(stalled.samples, perfSamples);
  assert.equal(stalled.records, here.records);
  assert.deepEqual(stalled.folded, here.folded);
  assert.ok(here.folded.length > 10, `${here.folded.length} folded lines`);
}

test('compressed.data: decompressed by an inflater or by the parser, perf\'s samples and the same folded stacks', async () => {
  const perf = parseScriptSamples(readFileSync(join(ROOT, 'tests', 'data', 'compressed.samples.txt'), 'utf8'));
  await compare(join(ROOT, 'tests', 'data', 'compressed.data'), perf.length, 4093);
});

test('corpus gen/compressed-z.data: decompressed by an inflater or by the parser, perf\'s samples and the same folded stacks', async (t) => {
  const path = join(GEN, 'compressed-z.data');
  if (!existsSync(path)) {
    t.skip(`no corpus at ${SHARED} (set PERFSCOPE_SHARED)`);
    return;
  }
  const perf = parseScriptSamples(readFileSync(join(GEN, 'oracle', 'compressed-z.script.txt'), 'utf8'));
  await compare(path, perf.length, 4093);
});
