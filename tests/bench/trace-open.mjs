// What each thread of Chromium does while the built page opens a file, from a Chrome trace
// (not a test): for every thread with work, the top-level trace events' time by name (V8's
// thread pool: wasm compiles, garbage collection; the page's thread: Blink's steps), each
// event's own time (less its children's). Wall time of the events, not CPU.
//
//   node tests/bench/trace-open.mjs DIST FILE [TOP]
//
// TRACE_OUT=FILE also writes the trace (it opens in chrome://tracing or Perfetto UI).
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { startServer } from '../../scripts/static-server.mjs';
import { openInPerfscope } from './perfscope-page.mjs';
import { endTrace, startTrace } from './trace.mjs';

const [dist, file, topArg] = process.argv.slice(2);
if (!dist || !file) throw new Error('usage: trace-open.mjs DIST FILE [TOP]');
const top = Number(topArg ?? 8);
const CATEGORIES = ['toplevel', 'v8', 'v8.wasm', 'v8.execute', 'blink', 'devtools.timeline', 'disabled-by-default-v8.gc', 'disabled-by-default-v8.compile', 'disabled-by-default-devtools.timeline', 'disabled-by-default-v8.wasm.detailed'];

const server = await startServer(resolve(dist));
let cdp = null;
let events = [];
try {
  const { result, close } = await openInPerfscope(server.url, resolve(file), {
    beforeOpen: async (page) => {
      cdp = await page.context().newCDPSession(page);
      await startTrace(cdp, CATEGORIES);
    },
    afterOpen: async () => {
      let text;
      ({ text, events } = await endTrace(cdp));
      if (process.env.TRACE_OUT) writeFileSync(process.env.TRACE_OUT, text);
    },
  });
  await close();
  console.log(`to the flame graph ${Math.round(result.flameMs)} ms; ${events.length} trace events`);
} finally {
  await server.close();
}

// Thread names, then each thread's complete events.
const names = new Map();
for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') names.set(`${e.pid}/${e.tid}`, e.args?.name ?? '?');
const byThread = new Map();
for (const e of events) {
  if (e.ph !== 'X' || typeof e.dur !== 'number') continue;
  const k = `${e.pid}/${e.tid}`;
  if (!byThread.has(k)) byThread.set(k, []);
  byThread.get(k).push(e);
}
const rows = [];
for (const [k, list] of byThread) {
  // Each event's own time (its duration less its children's on the same thread), by name.
  list.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const stack = [];
  const sums = new Map();
  let total = 0;
  const pop = () => {
    const e = stack.pop();
    sums.set(e.name, (sums.get(e.name) ?? 0) + e.dur - e.children);
  };
  for (const e of list) {
    while (stack.length > 0 && e.ts >= stack.at(-1).ts + stack.at(-1).dur) pop();
    if (stack.length > 0) stack.at(-1).children += e.dur;
    else total += e.dur;
    stack.push({ ts: e.ts, dur: e.dur, name: e.name, children: 0 });
  }
  while (stack.length > 0) pop();
  rows.push({ thread: `${names.get(k) ?? '?'} ${k}`, total, sums });
}
rows.sort((a, b) => b.total - a.total);
for (const r of rows.filter((r) => r.total >= 10_000)) {
  console.log(`${(r.total / 1000).toFixed(0).padStart(6)} ms  ${r.thread}`);
  for (const [n, us] of [...r.sums].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`          ${(us / 1000).toFixed(1).padStart(7)} ms  ${n}`);
  }
}
