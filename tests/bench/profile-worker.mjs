// Where the analysis worker's time goes while a file opens, from V8's sampling CPU profiler
// (not a test). Function names need a worker wasm with its name section: build with
// `data-keep-debug` on the worker, then take wasm-bindgen's output (before wasm-opt, which
// drops the names and inlines functions of one caller):
//
//   sed -i 's|data-type="worker" data-cargo-profile-release="web" data-wasm-opt="z"|& data-keep-debug|' index.html
//   scripts/build.sh && git checkout index.html && cp -r dist /tmp/dist-prof
//   cp target/wasm-bindgen/release/worker_bg.wasm /tmp/dist-prof/
//   node tests/bench/profile-worker.mjs --dist /tmp/dist-prof [--interval US] [--top N]
//     [--callers TEXT]... [--page] [--second] FILE
//
// PAGE_QUERY='?slice=2097152' (any of the page's parameters) opens the page with it.
//
// --ordering profiles the worker that orders the records (the analysis worker's nested
// `worker_loader.js?inflater…`, reached through the analysis worker's own target relay) for
// ORDER_MS milliseconds (default 1800) from the file set: it ends with the records pass, and
// its profile with it.
//
// --page profiles the page's thread instead of the worker's; for its wasm's names, add
// `data-keep-debug` to the app's line of index.html too and copy
// target/wasm-bindgen/release/app_bg.wasm over dist's app-*_bg.wasm.
//
// The profiler samples the worker from the file being set on the input until the flame graph
// is drawn (--second: of the file's second open in the page, the first one not profiled). Prints the functions by self time (wasm and JS), the callers of the functions
// named with --callers, and the time under each function (counted once per sample).
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { launch } from '../helpers/browser.mjs';
import { startServer } from '../../scripts/static-server.mjs';

function parseArgs(argv) {
  const o = { dist: resolve('dist'), interval: 200, top: 45, callers: [], file: null, page: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--dist') o.dist = resolve(argv[++i]);
    else if (a === '--interval') o.interval = Number(argv[++i]);
    else if (a === '--top') o.top = Number(argv[++i]);
    else if (a === '--callers') o.callers.push(argv[++i]);
    else if (a === '--page') o.page = true;
    else if (a === '--second') o.second = true;
    else if (a === '--ordering') o.ordering = true;
    else if (a === '--buckets') o.buckets = Number(argv[++i]);
    else (o.files ??= []).push(resolve(a)), (o.file ??= resolve(a));
  }
  if (!o.file) throw new Error('usage: profile-worker.mjs [--dist DIR] [--interval US] [--top N] [--callers TEXT]... FILE');
  return o;
}

const o = parseArgs(process.argv.slice(2));
const server = await startServer(o.dist);
const { context, close } = await launch();
try {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  // The analysis worker's session (the page's dedicated worker), through the Target domain's
  // message relay.
  let session = null;
  const pending = new Map();
  let nextId = 1;
  cdp.on('Target.attachedToTarget', (e) => {
    if (e.targetInfo.type === 'worker' && /worker_loader\.js/.test(e.targetInfo.url)) session = e.sessionId;
  });
  // The ordering worker's session, and its answers (relayed by the analysis worker's).
  let nested = null;
  const nestedPending = new Map();
  cdp.on('Target.receivedMessageFromTarget', (e) => {
    const m = JSON.parse(e.message);
    if (m.method === 'Target.attachedToTarget' && /inflater/.test(m.params.targetInfo.url)) nested = m.params.sessionId;
    if (m.method === 'Target.receivedMessageFromTarget') {
      const n = JSON.parse(m.params.message);
      if (n.id !== undefined && nestedPending.has(n.id)) {
        nestedPending.get(n.id)(n);
        nestedPending.delete(n.id);
      }
      return;
    }
    if (m.id !== undefined && pending.has(m.id)) {
      pending.get(m.id)(m);
      pending.delete(m.id);
    }
  });
  await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
  const send = (method, params = {}) => new Promise((done, fail) => {
    const id = nextId++;
    pending.set(id, (m) => (m.error ? fail(new Error(`${method}: ${m.error.message}`)) : done(m.result)));
    cdp.send('Target.sendMessageToTarget', { sessionId: session, message: JSON.stringify({ id, method, params }) }).catch(fail);
  });
  await page.goto(server.url + (process.env.PAGE_QUERY ?? ''));
  await page.waitForFunction(() => document.body.dataset.state === 'idle', null, { timeout: 30_000 });
  for (let i = 0; i < 100 && !session; i++) await new Promise((r) => setTimeout(r, 50));
  if (!session) throw new Error('the analysis worker did not show up as a target');
  const sendNested = (method, params = {}) => new Promise((done, fail) => {
    const id = nextId++;
    nestedPending.set(id, (m) => (m.error ? fail(new Error(`${method}: ${m.error.message}`)) : done(m.result)));
    send('Target.sendMessageToTarget', { sessionId: nested, message: JSON.stringify({ id, method, params }) }).catch(fail);
  });
  if (o.ordering) {
    await send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
    for (let i = 0; i < 100 && !nested; i++) await new Promise((r) => setTimeout(r, 50));
    if (!nested) throw new Error('the ordering worker did not show up as a target');
  }
  // --page: the page's own thread instead (its wasm's names need the same recipe on the app).
  const profiler = o.page ? (method, params = {}) => cdp.send(method, params) : o.ordering ? sendNested : send;
  if (o.second) {
    // The file opened once first, unprofiled: the profile is of the second open in the page.
    await page.setInputFiles('#file', o.files);
    await page.locator('#tab-flame').click({ timeout: 60_000 });
    await page.waitForFunction(() => document.querySelector('canvas.flame-canvas')?.dataset.drawn?.startsWith('true:'), null, { timeout: 900_000, polling: 100 });
    await page.waitForTimeout(1000);
  }
  await profiler('Profiler.enable');
  await profiler('Profiler.setSamplingInterval', { interval: o.interval });
  await profiler('Profiler.start');
  const t0 = Date.now();
  await page.setInputFiles('#file', o.files);
  if (o.second) await page.waitForFunction(() => document.body.dataset.state === 'loading', null, { timeout: 60_000, polling: 'raf' });
  if (o.ordering) {
    await page.waitForTimeout(Number(process.env.ORDER_MS ?? 1800));
    const { profile } = await profiler('Profiler.stop');
    save(profile);
    report(profile, Date.now() - t0, o.top, o.callers);
    if (o.buckets) buckets(profile, o.buckets);
    process.exit(0);
  }
  await page.locator('#tab-flame').click({ timeout: 60_000 });
  await page.waitForFunction(() => document.body.dataset.state === 'loaded' && document.querySelector('canvas.flame-canvas')?.dataset.drawn?.startsWith('true:'), null, { timeout: 900_000, polling: 100 });
  const wall = Date.now() - t0;
  const { profile } = await profiler('Profiler.stop');
  save(profile);
  report(profile, wall, o.top, o.callers);
  if (o.buckets) buckets(profile, o.buckets);
} finally {
  await close();
  await server.close();
}

/** PROFILE_OUT=FILE: the profile as V8 gave it (its nodes' positionTicks place a wasm
 * function's samples by code offset). */
function save(profile) {
  if (process.env.PROFILE_OUT) writeFileSync(process.env.PROFILE_OUT, JSON.stringify(profile));
}

function report(profile, wall, top, callers) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (n) => n.callFrame.functionName || `(${n.callFrame.url.split('/').pop() || 'program'})`;
  // Sample counts per node, from the samples array (hitCount is the same).
  const hits = new Map();
  for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  const total = profile.samples.length;
  const self = new Map();
  const inclusive = new Map();
  for (const [id, h] of hits) {
    const n = byId.get(id);
    self.set(name(n), (self.get(name(n)) ?? 0) + h);
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const k = name(byId.get(cur));
      if (!seen.has(k)) {
        seen.add(k);
        inclusive.set(k, (inclusive.get(k) ?? 0) + h);
      }
    }
  }
  const span = (profile.endTime - profile.startTime) / 1000;
  console.log(`${total} samples over ${Math.round(span)} ms (wall ${wall} ms from the file set to the flame graph drawn, or to the profile's end with --ordering)`);
  const pct = (h) => `${((100 * h) / total).toFixed(1).padStart(5)} %`;
  console.log('\nself:');
  for (const [k, h] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(h)}  ${k}`);
  // The callers of functions whose name holds each `callers` text: their samples by the
  // nearest caller of another name, past allocation.
  for (const text of callers) {
    const by = new Map();
    for (const [id, h] of hits) {
      let cur = id;
      while (cur !== undefined && !name(byId.get(cur)).includes(text)) cur = parent.get(cur);
      if (cur === undefined) continue;
      const own = name(byId.get(cur));
      let up = parent.get(cur);
      // (Past the allocator's and `Vec`'s own frames.)
      const plumbing = (k) => k === own || /^(alloc|__rust|__rdl|<dlmalloc)|raw_vec|finish_grow|reserve/.test(k);
      while (up !== undefined && plumbing(name(byId.get(up)))) up = parent.get(up);
      const k = up === undefined ? '(none)' : name(byId.get(up));
      by.set(k, (by.get(k) ?? 0) + h);
    }
    console.log(`\ncallers of ${text}:`);
    for (const [k, h] of [...by].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`${pct(h)}  ${k}`);
  }
  console.log('\ninclusive:');
  for (const [k, h] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(h)}  ${k}`);
}

// --buckets MS: the busiest functions (self time) in each MS-long span of the profile, to see
// what ran when (the hand-over, the first query, the draw).
function buckets(profile, width) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const name = (n) => n.callFrame.functionName || `(${n.callFrame.url.split('/').pop() || 'program'})`;
  const spans = new Map();
  let t = 0;
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i] / 1000;
    const b = Math.floor(t / width);
    if (!spans.has(b)) spans.set(b, new Map());
    const m = spans.get(b);
    const k = name(byId.get(id));
    m.set(k, (m.get(k) ?? 0) + 1);
  });
  console.log(`\nby ${width} ms span (self samples):`);
  for (const [b, m] of [...spans].sort((x, y) => x[0] - y[0])) {
    const all = [...m.values()].reduce((a, c) => a + c, 0);
    const busy = [...m].filter(([k]) => k !== '(idle)').sort((x, y) => y[1] - x[1]).slice(0, 4);
    console.log(`${String(b * width).padStart(6)} ms: ${Math.round((100 * (all - (m.get('(idle)') ?? 0))) / all)} % busy; ${busy.map(([k, c]) => `${k.slice(0, 60)} ${c}`).join(', ')}`);
  }
}
