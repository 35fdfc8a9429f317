// A fresh headless Chromium per scenario (the flags of tests/helpers), whose renderers can be
// found in /proc: they are started with --type=renderer and our fresh --user-data-dir. Each renderer's peak resident memory is VmHWM in
// /proc/PID/status, so nothing has to be sampled while the page works.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS } from '../helpers/browser.mjs';

/** Pid and command line of every process. */
function processes() {
  const out = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // Zygote children rewrite their title: one string of space-separated arguments.
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'latin1').replace(/\0/g, ' ');
      out.push({ pid: Number(name), cmdline });
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

/** A `/proc/PID/status` field in bytes (`VmHWM`, `VmRSS`), or 0 when the process is gone. */
export function statusBytes(pid, field) {
  try {
    const m = readFileSync(`/proc/${pid}/status`, 'latin1').match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** CPU time in ms (user + system, 10 ms ticks) of the processes whose command line has `mark`. */
function cpuMs(mark) {
  let ms = 0;
  for (const p of processes().filter((q) => q.cmdline.includes(mark))) {
    try {
      const st = readFileSync(`/proc/${p.pid}/stat`, 'latin1');
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
      ms += (Number(f[11]) + Number(f[12])) * 10;
    } catch {
      // Gone meanwhile.
    }
  }
  return ms;
}

/**
 * Waits until the browser's own start-up work is done: its processes (renderers of its own UI
 * included: Chromium 156 loads the address bar's popup, chrome://omnibox-popup.top-chrome, in a
 * renderer of its own, ~0.7 s of CPU in the first seconds) use under 30 ms of CPU in 300 ms, or
 * 10 s have passed. A person's browser did that work when it started, not when they open a
 * page; without the wait it takes a core during the first open.
 */
async function settle(userDataDir) {
  const mark = ` --user-data-dir=${userDataDir}`;
  const deadline = Date.now() + 10_000;
  let last = cpuMs(mark);
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 300));
    const now = cpuMs(mark);
    if (now - last < 30) return;
    last = now;
  }
}

/**
 * Starts Chromium with a fresh profile directory (or `profile`, a directory of the caller's,
 * kept when it closes: a person's browser coming back) and waits for its start-up work to end
 * (`settle`; BENCH_NO_SETTLE=1 to not wait). `extraFlags` come after the test flags;
 * `serviceWorkers`: 'allow' or 'block'.
 * @returns {Promise<{context, renderers: () => {pid:number, hwm:number, rss:number}[], close: () => Promise<void>}>}
 */
export async function launchBench({ extraFlags = [], profile = null, serviceWorkers = 'allow' } = {}) {
  const userDataDir = profile ?? mkdtempSync(join(tmpdir(), 'perfscope-bench-'));
  const removeProfile = () => { if (!profile) rmSync(userDataDir, { recursive: true, force: true }); };
  let context;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: [...CHROMIUM_FLAGS, ...extraFlags],
      viewport: { width: 1280, height: 720 },
      serviceWorkers,
    });
  } catch (e) {
    removeProfile();
    throw e;
  }
  if (!process.env.BENCH_NO_SETTLE) await settle(userDataDir);
  // Renderers are started (through a zygote) with the browser's arguments, ours included.
  const renderers = () => processes()
    .filter((p) => p.cmdline.includes(' --type=renderer ') && p.cmdline.includes(` --user-data-dir=${userDataDir} `))
    .map((p) => ({ pid: p.pid, hwm: statusBytes(p.pid, 'VmHWM'), rss: statusBytes(p.pid, 'VmRSS') }));
  return {
    context,
    renderers,
    close: async () => {
      await context.close().catch(() => {});
      removeProfile();
    },
  };
}

/** The renderer with the highest peak: the one that ran the page (and its worker). */
export function busiestRenderer(renderers) {
  return renderers.reduce((a, b) => (b.hwm > (a?.hwm ?? -1) ? b : a), null);
}
