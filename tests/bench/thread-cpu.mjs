// CPU time of each Chromium thread while the built page opens a file (from the file set on the
// input to the flame graph drawn), read from /proc (Linux): which worker the records pass waits
// for, and what else (the page's thread, the browser's file reads, V8's thread pool) takes the
// cores. Threads that end during the open (the ordering worker, the reader) are read every 50 ms
// and shown with "(gone)" at their last reading (up to 50 ms short). Not a test.
//
//   node tests/bench/thread-cpu.mjs DIST FILE [RUNS]
//
// Per process, PROCESS/all is the whole process's time (ended threads included). /proc counts
// in 10 ms ticks.
import { resolve } from 'node:path';
import { readFileSync, readdirSync } from 'node:fs';
import { startServer } from '../../scripts/static-server.mjs';
import { openInPerfscope } from './perfscope-page.mjs';
import { chromiumProcesses, statMs } from './chromium-cpu.mjs';

const [dist, file, runsArg] = process.argv.slice(2);
if (!dist || !file) throw new Error('usage: thread-cpu.mjs DIST FILE [RUNS]');

/** (pid/tid or pid/all) → {name, ms} for every thread of every Chromium process. */
function snapshot() {
  const m = new Map();
  for (const { pid, kind } of chromiumProcesses()) {
    try {
      m.set(`${pid}/all`, { name: `PROCESS ${kind}`, ms: statMs(readFileSync(`/proc/${pid}/stat`, 'utf8')) });
      for (const t of readdirSync(`/proc/${pid}/task`)) {
        const st = readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8');
        m.set(`${pid}/${t}`, { name: `${st.slice(st.indexOf('(') + 1, st.lastIndexOf(')'))} (${kind})`, ms: statMs(st) });
      }
    } catch {
      // The process or thread ended while being read.
    }
  }
  return m;
}

const server = await startServer(resolve(dist));
try {
  for (let run = 0; run < Number(runsArg ?? 1); run++) {
    let before = new Map();
    const seen = new Map();
    let timer = null;
    let after = null;
    const { result, close } = await openInPerfscope(server.url, resolve(file), {
      beforeOpen: () => {
        before = snapshot();
        timer = setInterval(() => snapshot().forEach((v, k) => seen.set(k, v)), 50);
      },
      afterOpen: () => {
        after = snapshot();
        clearInterval(timer);
      },
    });
    await close();
    for (const [k, v] of seen) if (!after.has(k)) after.set(k, { ...v, name: `${v.name}(gone)` });
    const rows = [];
    let threads = 0;
    for (const [k, v] of after) {
      const d = v.ms - (before.get(k)?.ms ?? 0);
      if (d <= 0) continue;
      if (!k.endsWith('/all')) threads += d;
      rows.push([d, `${v.name} ${k}`]);
    }
    console.log(`to the flame graph ${Math.round(result.flameMs)} ms; threads' CPU ${threads} ms`);
    for (const [d, name] of rows.sort((a, b) => b[0] - a[0]).slice(0, 14)) console.log(`${String(d).padStart(6)} ms  ${name}`);
  }
} finally {
  await server.close();
}
process.exit(0);
