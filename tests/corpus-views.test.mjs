// The views on files of the shared corpus (PERFSCOPE_SHARED, else ../shared next to the
// workspace), against perf's own outputs in the corpus oracles: pipe mode, big-endian, -z,
// several events, lost samples, DWARF stacks, perf stat files, and symbol files dropped after
// the recording. Skips, saying so, when the corpus is not there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveApp } from './helpers/app.mjs';
import { dropFile } from './helpers/browser.mjs';
import { foldedCommCounts, parseScriptStacks, readMeta, readScriptSamples, readStats, tidCounts } from './helpers/perf-script.mjs';
import { flameTotal, num, openFile, showTab, sampleCount } from './helpers/views.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SHARED = resolve(process.env.PERFSCOPE_SHARED ?? join(ROOT, '..', 'shared'));
const CORPUS = join(SHARED, 'corpus');
const SHOTS = join(ROOT, 'tests', 'screenshots');
const present = existsSync(CORPUS);
const skip = present ? false : `no corpus at ${CORPUS} (set PERFSCOPE_SHARED to the folder holding corpus/)`;
if (!present) console.log(`# corpus view tests skipped: ${skip}`);

const app = serveApp(ROOT, { enabled: present });

/** The oracle files of a corpus file. */
function oracle(rel) {
  const stem = join(CORPUS, dirname(rel), 'oracle', basename(rel, '.data'));
  const meta = readMeta(`${stem}.meta`);
  // The script oracle may be cut at 2 MB; then only the stats are complete.
  const complete = !meta.script_lines_kept || meta.script_lines_kept.startsWith(meta.script_lines_total);
  const folded = existsSync(`${stem}.folded.txt`) ? `${stem}.folded.txt` : null;
  return { stats: readStats(`${stem}.stats.txt`), script: `${stem}.script.txt`, folded, complete, meta };
}

// A pipe-mode, a big-endian and a zstd-compressed (-z) file open in every view.
for (const rel of ['gen/pipe.data', 'bigendian/be-fp.data', 'bigendian/be-pipe.data', 'gen/compressed-z.data']) {
  test(`corpus ${rel}: samples and threads equal perf's in the summary, flame graph and timeline`, { skip }, async () => {
    const o = oracle(rel);
    const { page, errors } = await openFile(app.browser.context, app.server.url, join(CORPUS, rel));
    assert.equal(await sampleCount(page), o.stats.SAMPLE);
    const records = await page.locator('[data-field="record-counts"] tr[data-record-type]').evaluateAll((rs) => Object.fromEntries(rs.map((r) => [r.dataset.recordType, Number(r.querySelector('[data-count]').dataset.count)])));
    assert.equal(records.SAMPLE, o.stats.SAMPLE);
    const readRows = () => page.locator('[data-field="thread-row"]').evaluateAll((rs) => rs.map((r) => [r.dataset.comm, `${r.dataset.pid}/${r.dataset.tid}`, Number(r.dataset.samples)]));
    // A recording with more than 200 threads lists its busiest 200 until "Show all".
    let rows = await readRows();
    if (await page.locator('#show-all-threads').count()) {
      assert.equal(rows.length, 200);
      await page.click('#show-all-threads');
      await page.waitForFunction(() => !document.getElementById('show-all-threads'));
      const all = await readRows();
      assert.ok(all.length > 200, `${all.length} rows after Show all`);
      assert.deepEqual(all.slice(0, 200), rows);
      const least = Math.min(...rows.map((r) => r[2]));
      assert.ok(all.slice(200).every((r) => r[2] <= least), 'the busiest threads come first');
      rows = all;
    }
    const sum = (key) => [...rows.reduce((m, r) => m.set(key(r), (m.get(key(r)) ?? 0) + r[2]), new Map())].map(([k, n]) => `${k} ${n}`).sort();
    // Samples per thread from perf script; per command name from perf's folded stacks (made
    // without --show-task-events, which makes perf 6.1 print some samples under the previous
    // command name, e.g. perf-exec for compressed-z.data).
    if (o.complete) assert.deepEqual(sum((r) => r[1]), tidCounts(readScriptSamples(o.script)));
    const comms = o.folded ? foldedCommCounts(readFileSync(o.folded, 'utf8')) : null;
    if (comms) assert.deepEqual(sum((r) => r[0]), comms);
    await showTab(page, 'flame');
    assert.equal(await flameTotal(page), o.stats.SAMPLE);
    await page.screenshot({ path: join(SHOTS, `corpus-flame-${basename(rel, '.data')}.png`) });
    await showTab(page, 'timeline');
    await page.waitForFunction(() => document.querySelector('canvas.timeline-canvas')?.dataset.current === 'true');
    const laneSamples = await page.locator('[data-field="lanes"] li[data-tid]').evaluateAll((ls) => ls.reduce((a, l) => a + Number(l.dataset.samples), 0));
    assert.equal(laneSamples, o.stats.SAMPLE);
    await page.screenshot({ path: join(SHOTS, `corpus-timeline-${basename(rel, '.data')}.png`) });
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test('corpus gen/no-buildid.data with its binary dropped along: its functions are named as perf names them', { skip }, async () => {
  // perf record -B: no build ids, so the binary is found by the base name of the path the
  // recording maps (/tmp/corpus-gen/workloads/mt), which the page learns only in the pass.
  const o = oracle('gen/no-buildid.data');
  const want = {};
  for (const line of readFileSync(o.script, 'utf8').split('\n')) {
    if (!line.endsWith('(/tmp/corpus-gen/workloads/mt)')) continue;
    const sym = line.trim().split(/\s+/).at(-2);
    want[sym] = (want[sym] ?? 0) + 1;
  }
  assert.deepEqual(want, { leaf: 553, memwalk: 148 });
  // Read whole (a small file), and (`?compact=0`) only as far as naming frames needs, as the
  // worker reads a big binary.
  for (const query of ['', '?compact=0']) {
    const { page, errors } = await openFile(app.browser.context, app.server.url + query, join(CORPUS, 'gen', 'no-buildid.data'), join(CORPUS, 'gen', 'workloads', 'mt'));
    await showTab(page, 'flame');
    assert.equal(await flameTotal(page), o.stats.SAMPLE);
    for (const [name, n] of Object.entries(want)) {
      await page.fill('#flame-search', name);
      const m = page.locator(`[data-field="search-matched"][data-search="${name}"]`);
      await m.waitFor();
      assert.equal(Number(await m.getAttribute('data-weight')), n, `${name} ${query}`);
    }
    await showTab(page, 'summary');
    const row = page.locator('[data-symbol-file="mt"]');
    assert.equal(await row.getAttribute('data-ok'), 'true');
    assert.match(await row.textContent(), /ELF, for \/tmp\/corpus-gen\/workloads\/mt/);
    assert.equal(/kept [\d.]+ KiB of [\d.]+ KiB \(the parts that name frames\)/.test(await row.textContent()), query !== '');
    assert.deepEqual(errors, []);
    await page.close();
  }
});

test('corpus gen/fp-callchain.data: dropping kallsyms names kernel frames as perf does; the perf archive names user frames', { skip }, async () => {
  const rel = 'gen/fp-callchain.data';
  const o = oracle(rel);
  const stacks = parseScriptStacks(readFileSync(o.script, 'utf8'));
  // Samples with a frame whose name contains `name` (what the search matches).
  const count = (name) => stacks.filter((s) => s.frames.some((f) => f.sym.toLowerCase().includes(name.toLowerCase()))).length;
  const { page, errors } = await openFile(app.browser.context, app.server.url, join(CORPUS, rel));
  // The samples under the matched boxes (each counted once).
  const search = async (text) => {
    await page.fill('#flame-search', text);
    const m = page.locator(`[data-field="search-matched"][data-search="${text}"]`);
    await m.waitFor();
    return Number(await m.getAttribute('data-weight'));
  };
  await showTab(page, 'flame');
  assert.equal(await flameTotal(page), stacks.length);
  assert.equal(await search('exc_page_fault'), 0, 'no kernel names before kallsyms');
  assert.ok(await page.locator('[data-reason="kernel-unnamed"]').count() > 0);
  // Dropped on the page after the recording: re-symbolized in place.
  await dropFile(page, 'kallsyms.gz', readFileSync(join(CORPUS, 'gen', 'extra', 'kallsyms.gz')));
  await page.waitForFunction(() => document.body.dataset.generation === '2' && document.body.dataset.symbolizing === 'false');
  await flameTotal(page);
  for (const name of ['exc_page_fault', 'do_syscall_64', 'copy_process']) {
    assert.ok(count(name) > 0, `perf names ${name}`);
    assert.equal(await search(name), count(name), name);
  }
  assert.equal(await page.locator('[data-reason="kernel-unnamed"]').count(), 0);
  await search('exc_page_fault');
  await page.screenshot({ path: join(SHOTS, 'corpus-kallsyms-search.png') });
  // The perf archive (perf archive's .tar.bz2 of the build-id cache) names libc's functions.
  assert.equal(await search('__libc_start_call_main'), 0);
  await page.setInputFiles('#file', join(CORPUS, 'gen', 'extra', 'fp-callchain.data.tar.bz2'));
  await page.waitForFunction(() => document.body.dataset.generation === '3' && document.body.dataset.symbolizing === 'false', null, { timeout: 60_000 });
  await flameTotal(page);
  assert.ok(count('__libc_start_call_main') > 0);
  assert.equal(await search('__libc_start_call_main'), count('__libc_start_call_main'));
  await showTab(page, 'summary');
  const files = await page.locator('[data-symbol-file]').evaluateAll((rs) => rs.map((r) => [r.dataset.symbolFile, r.dataset.ok]));
  assert.deepEqual(files, [['kallsyms.gz', 'true'], ['fp-callchain.data.tar.bz2', 'true']]);
  await page.screenshot({ path: join(SHOTS, 'corpus-symbols-summary.png'), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test('corpus gen/fp-callchain.data opened together with kallsyms.gz has kernel names at once', { skip }, async () => {
  const rel = 'gen/fp-callchain.data';
  const stacks = parseScriptStacks(readFileSync(oracle(rel).script, 'utf8'));
  const perf = stacks.filter((s) => s.frames.some((f) => f.sym === 'copy_process')).length;
  const { page, errors } = await openFile(app.browser.context, app.server.url, join(CORPUS, 'gen', 'extra', 'kallsyms.gz'), join(CORPUS, rel));
  assert.equal(await page.evaluate(() => document.body.dataset.generation), '1');
  await showTab(page, 'flame');
  await flameTotal(page);
  await page.fill('#flame-search', 'copy_process');
  const m = page.locator('[data-field="search-matched"][data-search="copy_process"]');
  await m.waitFor();
  assert.equal(Number(await m.getAttribute('data-weight')), perf);
  assert.equal(await page.locator('[data-field="file-name"]').textContent(), 'fp-callchain.data');
  assert.deepEqual(errors, []);
  await page.close();
});

test('corpus gen/fp-callchain.data: an ELF binary dropped later names its functions as perf does', { skip }, async () => {
  const rel = 'gen/fp-callchain.data';
  const stacks = parseScriptStacks(readFileSync(oracle(rel).script, 'utf8'));
  const count = (name) => stacks.filter((s) => s.frames.some((f) => f.sym === name && f.dso.endsWith('/workloads/mt'))).length;
  const { page, errors } = await openFile(app.browser.context, app.server.url, join(CORPUS, rel));
  await showTab(page, 'flame');
  await flameTotal(page);
  const weight = async (text) => {
    await page.fill('#flame-search', text);
    const m = page.locator(`[data-field="search-matched"][data-search="${text}"]`);
    await m.waitFor();
    return Number(await m.getAttribute('data-weight'));
  };
  assert.equal(await weight('memwalk'), 0);
  await dropFile(page, 'mt', readFileSync(join(CORPUS, 'gen', 'workloads', 'mt')));
  await page.waitForFunction(() => document.body.dataset.generation === '2' && document.body.dataset.symbolizing === 'false');
  await flameTotal(page);
  for (const name of ['memwalk', 'worker']) {
    assert.ok(count(name) > 0);
    assert.equal(await weight(name), count(name), name);
  }
  await page.screenshot({ path: join(SHOTS, 'corpus-elf-dropped.png') });
  assert.deepEqual(errors, []);
  await page.close();
});

// perf names this file's py:: frames only by unwinding the DWARF stacks through libpython,
// which the corpus does not carry; here the map is taken and the profile rebuilt with it.
test('corpus gen/python312-perfmap.data: a perf-PID.map dropped later is used for that process', { skip }, async () => {
  const { page, errors } = await openFile(app.browser.context, app.server.url, join(CORPUS, 'gen', 'python312-perfmap.data'));
  await page.setInputFiles('#file', join(CORPUS, 'gen', 'extra', 'python312-perfmap.perf-31813.map'));
  await page.waitForFunction(() => document.body.dataset.generation === '2' && document.body.dataset.symbolizing === 'false');
  const row = page.locator('[data-symbol-file="python312-perfmap.perf-31813.map"]');
  assert.equal(await row.getAttribute('data-ok'), 'true');
  assert.match(await row.textContent(), /perf-map.*JIT symbols of pid 31813/);
  assert.match(await page.locator('#reasons [data-reason="dwarf-no-binaries"]').textContent(), /--call-graph dwarf/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('corpus gen/multi-event.data: the event selector counts each event as perf does', { skip }, async () => {
  const rel = 'gen/multi-event.data';
  const perf = readScriptSamples(oracle(rel).script);
  const per = (e) => perf.filter((s) => s.event.split(':')[0] === e).length;
  const { page, errors } = await openFile(app.browser.context, app.server.url, join(CORPUS, rel));
  await showTab(page, 'flame');
  const options = await page.locator('#event-select option').evaluateAll((os) => os.map((o) => o.textContent));
  assert.deepEqual(options.slice(1).map((t) => t.split(' ')[0]), ['cpu-clock', 'task-clock']);
  // The first event is counted by default: mixing events would add unlike units.
  assert.equal(await flameTotal(page), per('cpu-clock'));
  await page.selectOption('#event-select', '1');
  await page.waitForFunction(() => document.querySelector('[data-field="flame-total"]').dataset.samples !== '' && document.querySelector('#event-select').value === '1');
  assert.equal(await flameTotal(page), per('task-clock'));
  await page.selectOption('#event-select', '');
  assert.equal(await flameTotal(page), perf.length);
  assert.deepEqual(errors, []);
  await page.close();
});

test('corpus gen/lost.data: lost samples are reported with perf\'s counts', { skip }, async () => {
  const rel = 'gen/lost.data';
  const o = oracle(rel);
  const { page, errors } = await openFile(app.browser.context, app.server.url, join(CORPUS, rel));
  const warning = page.locator('#lost-warning');
  await warning.waitFor();
  assert.match(await warning.textContent(), new RegExp(`\\(${o.stats.LOST} PERF_RECORD_LOST records\\)`));
  assert.match(await warning.textContent(), new RegExp(`\\(${o.stats.LOST_SAMPLES} PERF_RECORD_LOST_SAMPLES records\\)`));
  await page.screenshot({ path: join(SHOTS, 'corpus-lost.png') });
  assert.deepEqual(errors, []);
  await page.close();
});

test('corpus gen/dwarf.data and gen/stat-record.data: the flame graph says why it would mislead or be empty', { skip }, async () => {
  let { page, errors } = await openFile(app.browser.context, app.server.url, join(CORPUS, 'gen', 'dwarf.data'));
  await showTab(page, 'flame');
  await flameTotal(page);
  assert.match(await page.locator('[data-reason="dwarf-no-binaries"]').textContent(), /--call-graph dwarf/);
  await page.screenshot({ path: join(SHOTS, 'corpus-dwarf.png') });
  assert.deepEqual(errors, []);
  await page.close();
  ({ page, errors } = await openFile(app.browser.context, app.server.url, join(CORPUS, 'gen', 'stat-record.data')));
  assert.match(await page.locator('#reasons [data-reason="no-samples"]').textContent(), /perf stat record/);
  await showTab(page, 'flame');
  await flameTotal(page);
  assert.ok(await page.locator('[data-field="flame-empty"]').isVisible());
  assert.deepEqual(errors, []);
  await page.close();
});
