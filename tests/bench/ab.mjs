// Two builds of the page, A and B, opening the same file in turn (A, B, B, A, A, B, …), each in a fresh
// headless Chromium: the medians and ranges of the time to the flame graph and of the worker's
// records pass. Differences of a few percent hide in the run-to-run noise of this machine (±5 %),
// which alternating and taking medians over many runs averages out. Not a test.
//
//   node tests/bench/ab.mjs DIST_A DIST_B FILE[:SYMBOL_FILE…] [RUNS (default 8 each)]
//
// Symbol files after the recording (kallsyms, binaries) are dropped along with it.
//
// A build may carry parameters for the page's address: `dist?share=0.25` (the same build with and
// without a setting compared).
import { resolve } from 'node:path';
import { startServer } from '../../scripts/static-server.mjs';
import { openInPerfscope } from './perfscope-page.mjs';

const [a, b, file, runsArg] = process.argv.slice(2);
if (!a || !b || !file) throw new Error('usage: ab.mjs DIST_A DIST_B FILE [RUNS]');
const runs = Number(runsArg ?? 8);
const split = (arg) => {
  const at = arg.indexOf('?');
  return at < 0 ? [arg, ''] : [arg.slice(0, at), arg.slice(at)];
};
const builds = [a, b];
const servers = await Promise.all(builds.map((d) => startServer(resolve(split(d)[0]))));
const urls = builds.map((d, k) => `${servers[k].url}${split(d)[1]}`);
const got = builds.map(() => ({ flame: [], records: [], rest: [], summary: [], memory: [] }));
const files = file.split(':').map((f) => resolve(f));
try {
  for (let i = 0; i < runs; i++) {
    // A, B, then B, A, … : whichever build goes first in a pair is not always the same one (the
    // same build against itself gave B / A = 0.985 over 10 plain A, B pairs).
    for (const k of i % 2 ? [1, 0] : [0, 1]) {
      const { result, close } = await openInPerfscope(urls[k], files.length > 1 ? files : files[0]);
      await close();
      if (result.state !== 'loaded' || result.flameMs === null) throw new Error(`${builds[k]}: ${result.state} ${result.error ?? ''}`);
      // "records 1.62 s" in the worker's timings.
      const m = /records ([\d.]+) (m?s)/.exec(result.workerTimings ?? '');
      const records = m ? Number(m[1]) * (m[2] === 's' ? 1000 : 1) : NaN;
      got[k].flame.push(result.flameMs);
      got[k].records.push(records);
      got[k].rest.push(result.flameMs - records);
      got[k].summary.push(result.marks.summary - result.marks.set);
      got[k].memory.push((result.wasmBytes ?? NaN) / 2 ** 20);
      console.log(`run ${i + 1} ${'AB'[k]}: summary ${Math.round(result.marks.summary - result.marks.set)} ms, flame graph ${Math.round(result.flameMs)} ms, records pass ${Math.round(records)} ms, peak wasm ${(result.wasmBytes / 2 ** 20).toFixed(1)} MiB`);
    }
  }
} finally {
  await Promise.all(servers.map((s) => s.close()));
}
const median = (v) => {
  const s = [...v].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const line = (name, k, key) => {
  const v = got[k][key];
  return `${name} ${'AB'[k]}: median ${Math.round(median(v))} ms (${Math.round(Math.min(...v))}–${Math.round(Math.max(...v))})`;
};
// `rest`: the time to the flame graph less the records pass (before and after it: the page's
// work and the hand-over), which a change there moves without the pass's noise.
for (const key of ['flame', 'records', 'rest', 'summary']) {
  const name = { flame: 'to the flame graph', records: 'records pass', rest: 'the rest', summary: 'to the summary' }[key];
  console.log(line(name, 0, key));
  console.log(line(name, 1, key));
  console.log(`${name}: B / A = ${(median(got[1][key]) / median(got[0][key])).toFixed(3)}`);
}
// The worker's wasm memory once the flame graph is drawn (it only grows: its peak so far).
for (const k of [0, 1]) console.log(`peak wasm ${'AB'[k]}: median ${median(got[k].memory).toFixed(1)} MiB`);
