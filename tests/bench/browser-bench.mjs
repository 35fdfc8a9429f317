// The browser benchmark of issue 6 (not a test: `node --test tests/` only runs *.test.mjs).
//
//   node tests/bench/browser-bench.mjs [options] FILE.data...
//     --dist DIR               the built page (default dist)
//     --speedscope DATA=TEXT   also open TEXT (`perf script` output of DATA) in speedscope;
//                              its ratio is taken against DATA's time (repeatable)
//     --steps N                interaction steps per kind (default 20; 0: skip interactions)
//     --json FILE              also write every measurement as JSON
//     --timeout S              per file, in seconds (default 600)
//     --screenshots DIR        save a screenshot of each page once drawn there
//     --reopen-max MB          open files up to this size a second time in the same page, with
//                              the worker already running (default 1000)
//     --with DATA=FILE:FILE…   also open DATA with these symbol files dropped along (kallsyms,
//                              binaries, a perf archive…): a row of its own (repeatable)
//
// Every scenario runs in a fresh headless Chromium (tests/helpers' flags), so the renderer's
// peak memory (VmHWM) belongs to that file alone. scripts/bench-browser.sh builds the page,
// makes the perf script text and runs this.
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../scripts/static-server.mjs';
import { interact, openInPerfscope, reopen, stats } from './perfscope-page.mjs';
import { openInSpeedscope } from './speedscope-page.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function parseArgs(argv) {
  const o = { dist: join(root, 'dist'), speedscope: [], steps: 20, json: null, timeout: 600, screenshots: null, reopenMax: 1000, files: [], with: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--dist') o.dist = resolve(next());
    else if (a === '--speedscope') {
      const [data, text] = next().split('=');
      o.speedscope.push({ data: resolve(data), text: resolve(text) });
    } else if (a === '--steps') o.steps = Number(next());
    else if (a === '--json') o.json = resolve(next());
    else if (a === '--timeout') o.timeout = Number(next());
    else if (a === '--screenshots') o.screenshots = resolve(next());
    else if (a === '--reopen-max') o.reopenMax = Number(next());
    else if (a === '--with') {
      const [data, list] = next().split('=');
      o.with.push({ data: resolve(data), symbols: list.split(':').filter(Boolean).map((f) => resolve(f)) });
    }
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else o.files.push(resolve(a));
  }
  if (o.files.length === 0) throw new Error('usage: browser-bench.mjs [options] FILE.data...');
  return o;
}

const MB = 1e6;
const ms = (v) => (v === null || v === undefined ? '—' : v >= 10_000 ? `${(v / 1000).toFixed(1)} s` : v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${Math.round(v)} ms`);
const mb = (v) => (v === null || v === undefined ? '—' : `${Math.round(v / MB)} MB`);
const ms1 = (v) => (v === null || v === undefined ? '—' : `${v.toFixed(1)} ms`);
const ratio = (a, b) => (a && b ? `${(a / b).toFixed(2)}×` : '—');

function log(...args) {
  console.error(`[${new Date().toISOString().slice(11, 19)}]`, ...args);
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const page = await startServer(o.dist);
  const speedscopeDir = join(root, 'node_modules/speedscope/dist/release');
  const speed = o.speedscope.length ? await startServer(speedscopeDir) : null;
  const results = { perfscope: [], speedscope: [], interactions: {} };
  if (o.screenshots) mkdirSync(o.screenshots, { recursive: true });
  const shot = (tool, file) => (o.screenshots ? join(o.screenshots, `${tool}-${basename(file)}.png`) : null);
  try {
    for (const file of o.files) {
      log(`perfscope: opening ${file}`);
      const { result, page: p, worker, close } = await openInPerfscope(page.url, file, { timeoutMs: o.timeout * 1000, screenshot: shot('perfscope', file) });
      result.size = statSync(file).size;
      results.perfscope.push(result);
      log(`  worker: ${result.workerTimings}${result.phases ? `; then ${result.phases}` : ''}`);
      log(`  summary ${ms(result.summaryMs)}, first preview ${ms(result.previewMs)}, flame graph ${ms(result.flameMs)}, wasm ${mb(result.wasmBytes)} (${mb(result.timelineWasmBytes)} with the timeline drawn), renderer ${mb(result.renderer?.hwm)}, state ${result.state}${result.errors.length ? `, errors: ${result.errors.join('; ')}` : ''}`);
      try {
        if (o.steps > 0 && result.flameMs !== null) {
          log(`  interactions (${o.steps} steps each)`);
          results.interactions[file] = await interact(p, { steps: o.steps, worker: worker() }).catch((e) => ({ error: e.message.split('\n')[0] }));
        }
        if (result.flameMs !== null && result.size <= o.reopenMax * MB) {
          result.warm = await reopen(p, file, { timeoutMs: o.timeout * 1000 });
          log(`  opened again (worker running): summary ${ms(result.warm.summaryMs)}, flame graph ${ms(result.warm.flameMs)}`);
        }
      } finally {
        await close();
      }
    }
    for (const { data, symbols } of o.with) {
      log(`perfscope: opening ${data} with ${symbols.length} symbol files`);
      const { result, close } = await openInPerfscope(page.url, [data, ...symbols], { timeoutMs: o.timeout * 1000 });
      await close();
      result.file = `${data} + ${symbols.length} symbol files`;
      result.size = statSync(data).size;
      results.perfscope.push(result);
      log(`  worker: ${result.workerTimings}; summary ${ms(result.summaryMs)}, flame graph ${ms(result.flameMs)}, wasm ${mb(result.wasmBytes)}, state ${result.state}${result.errors.length ? `, errors: ${result.errors.join('; ')}` : ''}`);
    }
    for (const { data, text } of o.speedscope) {
      log(`speedscope: opening ${text}`);
      const r = await openInSpeedscope(speed.url, text, { timeoutMs: o.timeout * 1000 * 3, screenshot: shot('speedscope', data) });
      r.data = data;
      r.size = statSync(text).size;
      results.speedscope.push(r);
      log(`  flame chart ${ms(r.flameMs)}, renderer ${mb(r.renderer?.hwm)}${r.error ? `, error: ${r.error}` : ''}${r.errors.length ? `, errors: ${r.errors.join('; ')}` : ''}`);
    }
  } finally {
    await page.close();
    await speed?.close();
  }
  if (o.json) writeFileSync(o.json, JSON.stringify(results, null, 2));
  report(results);
}

function report(results) {
  const out = [];
  out.push('## Opening a file (Perfscope page)', '');
  out.push('| file | size | samples | to summary | to first preview | to profile loaded | to flame graph | again, worker running: summary, flame graph | state | peak wasm memory | wasm / file | with the timeline drawn | renderer peak RSS |');
  out.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |');
  for (const r of results.perfscope) {
    out.push(`| ${basename(r.file)} | ${mb(r.size)} | ${r.samples?.toLocaleString('en-US') ?? '—'} | ${ms(r.summaryMs)} | ${ms(r.previewMs)} | ${ms(r.loadedMs)} | ${ms(r.flameMs)} | ${r.warm ? `${ms(r.warm.summaryMs)}, ${ms(r.warm.flameMs)}` : '—'} | ${r.state}${r.error ? `: ${r.error.slice(0, 80)}` : ''} | ${mb(r.wasmBytes)} | ${r.wasmBytes ? (r.wasmBytes / r.size).toFixed(2) : '—'} | ${r.timelineWasmBytes ? `${mb(r.timelineWasmBytes)} (${(r.timelineWasmBytes / r.size).toFixed(2)})` : '—'} | ${mb(r.renderer?.hwm)} |`);
  }
  out.push('');
  for (const r of results.perfscope) out.push(`- ${basename(r.file)}: worker ${r.workerTimings ?? '—'}${r.phases ? `; then ${r.phases}` : ''}; wall ${ms(r.wallMs)}${r.errors.length ? `; errors: ${r.errors.join('; ').slice(0, 300)}` : ''}`);
  if (results.speedscope.length) {
    out.push('', '## speedscope on the perf script text of the same recording', '');
    out.push('| text of | text size | to flame chart | renderer peak RSS | JS heap | speedscope / Perfscope (to flame graph) |');
    out.push('| --- | ---: | ---: | ---: | ---: | ---: |');
    for (const s of results.speedscope) {
      const mine = results.perfscope.find((r) => r.file === s.data);
      out.push(`| ${basename(s.data)} | ${mb(s.size)} | ${s.flameMs === null ? `failed: ${(s.error ?? s.errors.join('; ')).slice(0, 80)}` : ms(s.flameMs)} | ${mb(s.renderer?.hwm)} | ${mb(s.jsHeapBytes)} | ${ratio(s.flameMs, mine?.flameMs)} |`);
    }
  }
  const entries = Object.entries(results.interactions);
  if (entries.length) {
    out.push('', '## Interactions (ms of main-thread work per frame: app update + draw; p50 / p95 / max)', '');
    out.push('| file | samples | timeline zoom | timeline pan | flame zoom in/out | draws: timeline, flame (max) | range refilter (selection made → flame graph drawn, the flame tab clicked as the selection shows; of it, from the click and the tree query in the worker) | commands as roots: top-down, inverted (click → drawn; worker) | tab switches (click → drawn) | exports (click → download: time, size) |');
    out.push('| --- | ---: | ---: | ---: | ---: | ---: | --- | --- | --- | --- |');
    for (const [file, i] of entries) {
      const r = results.perfscope.find((x) => x.file === file);
      if (i.error) {
        out.push(`| ${basename(file)} | ${r?.samples ?? '—'} | failed: ${i.error} | | | | | | | |`);
        continue;
      }
      const f = (steps) => {
        const s = stats(steps.filter((x) => x.frame !== null).map((x) => x.frame));
        const missing = steps.filter((x) => x.frame === null).length;
        return `${ms1(s.p50)} / ${ms1(s.p95)} / ${ms1(s.max)}${missing ? ` (${missing} without a draw)` : ''}`;
      };
      const refilter = i.refilter.map((x) => `${Math.round((x.to - x.from) * 100)} %: ${ms(x.ms)} (from the click ${ms(x.tabMs)}, worker ${ms(x.workerMs)}; ${x.samples?.toLocaleString('en-US')} samples${x.queries ? `; worker queries: ${x.queries.join(', ')}` : ''})`).join('; ');
      const byCommand = (i.byCommand ?? []).map((x) => `${ms(x.ms)} (${ms(x.workerMs)})`).join(', ');
      const tabs = (i.tabs ?? []).map((x) => `${x.tab} ${ms(x.ms)}`).join(', ');
      const exports = (i.exports ?? []).map((x) => `${x.format} ${ms(x.ms)}, ${x.bytes < MB ? `${Math.round(x.bytes / 1024)} kB` : mb(x.bytes)}`).join('; ');
      out.push(`| ${basename(file)} | ${r?.samples?.toLocaleString('en-US') ?? '—'} | ${f(i.timelineZoom)} | ${f(i.timelinePan)} | ${f(i.flameZoom)} | ${ms1(Math.max(...i.timelineDraws))}, ${ms1(Math.max(...i.flameDraws))} | ${refilter} | ${byCommand} | ${tabs} | ${exports} |`);
    }
  }
  const g = results.perfscope.find((r) => /-g\.data$/.test(r.file));
  const z = results.perfscope.find((r) => /-z\.data$/.test(r.file));
  if (g?.flameMs && z?.flameMs) out.push('', `-z / -g, time to flame graph: ${ratio(z.flameMs, g.flameMs)} (target ≤ 1.5×)`);
  console.log(out.join('\n'));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
