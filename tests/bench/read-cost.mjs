// What reading a file costs the browser, apart from anything Perfscope does with the bytes (not
// a test): a page whose worker reads FILE whole, one slice after another, in each of the ways
// given, and the CPU time of every Chromium process (browser, renderer, …) from /proc before
// and after. Each run is a fresh Chromium; the ways take turns, RUNS rounds (default 3).
// BENCHMARKS.md, session 43: the browser's cost is much per read, so the ordering worker reads
// 16 MiB at a time.
//
//   node tests/bench/read-cost.mjs FILE [WAY…]
//
// A way is `byob:SIZE` (`Blob.slice().stream()` read into a reused buffer of SIZE bytes, as
// web/reader.js reads), `sync:SIZE` (`FileReaderSync`), `buffer:SIZE` (`Blob.slice()
// .arrayBuffer()`) or `whole:SIZE` (one `Blob.stream()` of the whole file read into SIZE-byte
// buffers); SIZE in bytes or with a MiB suffix (`8MiB`). Default: byob at 1, 8 and 16 MiB.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startServer } from '../../scripts/static-server.mjs';
import { launch } from '../helpers/browser.mjs';
import { chromiumProcesses, statMs } from './chromium-cpu.mjs';

const PAGE = `<!doctype html><input type=file id=f>
<script src="page.js"></script>`;
const PAGE_JS = `const w = new Worker('worker.js' + location.search);
window.done = null;
w.onmessage = (e) => { window.done = e.data; };
w.onerror = (e) => { window.done = { error: e.message }; };
document.getElementById('f').onchange = (e) => w.postMessage(e.target.files[0]);`;
const WORKER_JS = `const q = new URLSearchParams(self.location.search);
const way = q.get('way');
const size = Number(q.get('size'));
async function fill(reader, buffer) {
  let length = 0;
  while (length < buffer.byteLength) {
    const { value, done } = await reader.read(new Uint8Array(buffer, length, buffer.byteLength - length));
    if (value) buffer = value.buffer;
    if (done) break;
    length += value.byteLength;
  }
  return { buffer, length };
}
async function read(file) {
  let buffer = new ArrayBuffer(size);
  let reads = 0;
  let bytes = 0;
  if (way === 'whole') {
    const reader = file.stream().getReader({ mode: 'byob' });
    for (;;) {
      const r = await fill(reader, buffer);
      buffer = r.buffer;
      bytes += r.length;
      if (r.length < size) break;
    }
    return { reads: 1, bytes };
  }
  const sync = way === 'sync' ? new FileReaderSync() : null;
  for (let at = 0; at < file.size; at += size) {
    const end = Math.min(file.size, at + size);
    const part = file.slice(at, end);
    reads++;
    if (way === 'byob') {
      if (buffer.byteLength !== end - at) buffer = new ArrayBuffer(end - at);
      const r = await fill(part.stream().getReader({ mode: 'byob' }), buffer);
      buffer = r.buffer;
      bytes += r.length;
    } else if (way === 'sync') {
      bytes += sync.readAsArrayBuffer(part).byteLength;
    } else if (way === 'buffer') {
      bytes += (await part.arrayBuffer()).byteLength;
    } else {
      throw new Error('unknown way ' + way);
    }
  }
  return { reads, bytes };
}
onmessage = async (e) => {
  const t0 = performance.now();
  try {
    const r = await read(e.data);
    postMessage({ ...r, ms: performance.now() - t0 });
  } catch (error) {
    postMessage({ error: String(error) });
  }
};`;

/** Milliseconds of CPU (user + system) of every Chromium process, by its pid. */
function chromiumCpu() {
  const by = {};
  for (const { pid } of chromiumProcesses()) {
    try {
      by[pid] = statMs(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      // The process ended while being read.
    }
  }
  return by;
}

function parseWay(text) {
  const [way, sizeText] = text.split(':');
  const m = /^(\d+)(MiB)?$/.exec(sizeText ?? '');
  if (!['byob', 'sync', 'buffer', 'whole'].includes(way) || !m) throw new Error(`bad way ${text}`);
  return { way, size: Number(m[1]) * (m[2] ? 1 << 20 : 1), name: text };
}

const [file, ...wayArgs] = process.argv.slice(2);
if (!file) throw new Error('usage: read-cost.mjs FILE [WAY…]');
const ways = (wayArgs.length ? wayArgs : ['byob:1MiB', 'byob:8MiB', 'byob:16MiB']).map(parseWay);
const runs = Number(process.env.RUNS ?? 3);
const dir = mkdtempSync(join(tmpdir(), 'perfscope-read-cost-'));
writeFileSync(join(dir, 'index.html'), PAGE);
writeFileSync(join(dir, 'page.js'), PAGE_JS);
writeFileSync(join(dir, 'worker.js'), WORKER_JS);
const server = await startServer(dir);
const results = new Map(ways.map((w) => [w.name, []]));
try {
  for (let round = 0; round < runs; round++) {
    for (const w of ways) {
      const { context, close } = await launch();
      try {
        const page = await context.newPage();
        await page.goto(`${server.url}index.html?way=${w.way}&size=${w.size}`);
        await page.waitForTimeout(500);
        const before = chromiumCpu();
        await page.setInputFiles('#f', resolve(file));
        await page.waitForFunction(() => window.done, null, { timeout: 300_000, polling: 20 });
        const after = chromiumCpu();
        const done = await page.evaluate(() => window.done);
        if (done.error) throw new Error(`${w.name}: ${done.error}`);
        const cpu = Object.keys(after).reduce((sum, k) => sum + after[k] - (before[k] ?? 0), 0);
        results.get(w.name).push({ cpu, ms: done.ms, reads: done.reads, bytes: done.bytes });
        console.log(`${w.name.padEnd(14)} ${String(Math.round(done.ms)).padStart(6)} ms  CPU ${cpu} ms  ${done.reads} reads, ${done.bytes} bytes`);
      } finally {
        await close();
      }
    }
  }
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
console.log(`\n| how | reads | CPU (all Chromium processes), median of ${runs} | wall, median |\n| --- | ---: | ---: | ---: |`);
for (const [name, r] of results) {
  console.log(`| ${name} | ${r[0]?.reads ?? '—'} | ${(median(r.map((x) => x.cpu)) / 1000).toFixed(2)} s | ${(median(r.map((x) => x.ms)) / 1000).toFixed(2)} s |`);
}
process.exit(0);
