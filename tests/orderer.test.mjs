// A recording's records are put in time order, and its samples decoded, by another worker
// (web/src/session/order.rs, started as web/src/inflater.rs's worker) with `?order=1` (by
// default only for files of 32 MiB or more, or 12 MiB of compressed records; `?order=0`: never);
// a `perf record -z` file's records are then decompressed by a third worker, that worker's own
// inflater (`order_records` in web/src/worker.rs), and so are a compressed pipe stream's; a
// pipe-mode stream's metadata records go to the analysis worker with each slice's tally. The page must show the same
// profile either way, also when that worker fails part of the way (`?inflatefail=K`) or stops
// answering (`?inflatestall=K`) and the analysis worker orders the rest: perf's sample count,
// the flame total, the same folded stacks, and the same record counts. Files are read in small
// slices, so that records are cut between slices and rounds span several.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../scripts/static-server.mjs';
import { launch } from './helpers/browser.mjs';
import { openWithSecondWorker } from './helpers/worker-open.mjs';
import { parseScriptSamples } from './helpers/perf-script.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

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

async function compare(path, perfSamples, slice, compressed) {
  const here = await open(path, `slice=${slice}&order=0`);
  assert.equal(here.inflater, 'None', here.text);
  const there = await open(path, `slice=${slice}&order=1`);
  if (compressed) {
    assert.equal(there.inflater, 'OrderedInflated', there.text);
    assert.match(there.text, /records decompressed and ordered on two more workers/);
    assert.match(here.records ?? '', /COMPRESSED/);
  } else {
    assert.equal(there.inflater, 'Ordered', there.text);
    assert.match(there.text, /records ordered on a second worker/);
  }
  for (const r of [here, there]) {
    assert.equal(r.samples, perfSamples);
    assert.equal(r.total, perfSamples);
  }
  assert.match(here.records ?? '', /SAMPLE/);
  assert.equal(there.records, here.records);
  assert.deepEqual(there.folded, here.folded);
  // It failed after 2 slices: the analysis worker reads those again through its own writer
  // and orders the rest.
  const failed = await open(path, `slice=${slice}&order=1&inflatefail=2`, /told to fail at slice 2 \(inflatefail\): the rest of the file is read and ordered by the parser/);
  assert.equal(failed.inflater, 'OrderFailed', failed.text);
  assert.match(failed.text, /the ordering worker failed: the rest ordered here/);
  assert.equal(failed.samples, perfSamples);
  assert.equal(failed.records, here.records);
  assert.deepEqual(failed.folded, here.folded);
  // It stopped answering after 2 slices: once the analysis worker's patience (5 s) runs out,
  // it orders the rest, as when that worker fails.
  const stalled = await open(path, `slice=${slice}&order=1&inflatestall=2`, /the ordering worker sent nothing for 5 s: the rest of the file is read and ordered by the parser/);
  assert.equal(stalled.inflater, 'OrderFailed', stalled.text);
  assert.equal(stalled.samples, perfSamples);
  assert.equal(stalled.records, here.records);
  assert.deepEqual(stalled.folded, here.folded);
  assert.ok(here.folded.length > 10, `${here.folded.length} folded lines`);
}

// compressed-pipe.data is compressed.data as a pipe stream (`perf inject -o -`): perf's
// samples are compressed.data's; its records too are decompressed by a third worker.
for (const name of ['example', 'heatmap', 'compressed', 'pipe', 'compressed-pipe']) {
  test(`${name}.data: ordered by another worker or by the analysis worker, perf's samples and the same folded stacks`, async () => {
    const samples = name === 'compressed-pipe' ? 'compressed' : name;
    const perf = parseScriptSamples(readFileSync(join(ROOT, 'tests', 'data', `${samples}.samples.txt`), 'utf8'));
    await compare(join(ROOT, 'tests', 'data', `${name}.data`), perf.length, 4093, name.startsWith('compressed'));
  });
}
