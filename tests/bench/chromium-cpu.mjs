// CPU time of Chromium's processes and threads, read from /proc (Linux), for the benches that
// count what an open or a read costs the machine (thread-cpu.mjs, read-cost.mjs). Not a test.
import { readFileSync, readdirSync } from 'node:fs';

/** Milliseconds of CPU (user + system) in a /proc stat line (the kernel counts 10 ms ticks). */
export function statMs(stat) {
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

/** Every running Chromium process, as {pid, kind}: browser, renderer, gpu-process, zygote, or
 * a utility process's service (its `--utility-sub-type`'s last part). */
export function chromiumProcesses() {
  const found = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (!/chrom/i.test(readFileSync(`/proc/${pid}/comm`, 'utf8'))) continue;
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/);
      const arg = (k) => args.find((a) => a.startsWith(`--${k}=`))?.slice(k.length + 3);
      found.push({ pid, kind: arg('utility-sub-type')?.split('.').at(-1) ?? arg('type') ?? 'browser' });
    } catch {
      // The process ended while being read.
    }
  }
  return found;
}
