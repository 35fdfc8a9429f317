// Reads what perf itself printed: `perf script` sample lines (the tests/data/*.samples.txt files
// and the corpus oracle/*.script.txt files), `perf report --stats` counts, and a hand walk of the
// record headers of a perf.data (independent of the parser under test).
import { readFileSync } from 'node:fs';

// "comm pid/tid time: [period] event:" — comm may contain spaces; PERF_RECORD_* lines do not
// match (no "event:" right after the time and period).
const SAMPLE = /^\s*(.*?)\s+(-?\d+)\/(-?\d+)\s+(?:\[\d+\]\s+)?(\d+)\.(\d{6,9}):\s+(?:(\d+)\s+)?([^\s:][^\s]*?):(?:\s|$)/;

/**
 * The samples of a perf script output, in order.
 * @returns {{comm: string, pid: number, tid: number, time: bigint, event: string}[]}
 */
export function parseScriptSamples(text) {
  const out = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('\t') || line.startsWith(' \t')) continue;
    const m = SAMPLE.exec(line);
    if (!m || m[7].startsWith('PERF_RECORD')) continue;
    const [, comm, pid, tid, secs, frac, , event] = m;
    const ns = BigInt(secs) * 1_000_000_000n + BigInt(frac.padEnd(9, '0'));
    out.push({ comm, pid: Number(pid), tid: Number(tid), time: ns, event });
  }
  return out;
}

/**
 * The samples of a perf script output with their callchains (the tab-indented lines
 * "addr sym (dso)" that follow a sample line).
 * @returns {{comm: string, tid: number, time: bigint, frames: {sym: string, dso: string}[]}[]}
 */
export function parseScriptStacks(text) {
  const out = [];
  let current = null;
  for (const line of text.split('\n')) {
    const frame = /^\t\s*([0-9a-f]+)\s(.*)\s\((.*)\)$/.exec(line);
    if (frame) {
      current?.frames.push({ sym: frame[2], dso: frame[3] });
      continue;
    }
    const [sample] = parseScriptSamples(line);
    current = sample ? { ...sample, frames: [] } : null;
    if (current) out.push(current);
  }
  return out;
}

export function readScriptSamples(path) {
  return parseScriptSamples(readFileSync(path, 'utf8'));
}

/** Samples per "comm pid/tid", as sorted "comm pid/tid count" strings. */
export function threadCounts(samples) {
  const counts = new Map();
  for (const s of samples) {
    const key = `${s.comm} ${s.pid}/${s.tid}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${k} ${n}`).sort();
}

/** Samples per "pid/tid", sorted. */
export function tidCounts(samples) {
  const counts = new Map();
  for (const s of samples) counts.set(`${s.pid}/${s.tid}`, (counts.get(`${s.pid}/${s.tid}`) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${k} ${n}`).sort();
}

/** Samples per command in a folded-stacks file (`comm;frames… count`), sorted "comm count". */
export function foldedCommCounts(text) {
  const counts = new Map();
  for (const line of text.split('\n')) {
    const i = line.lastIndexOf(' ');
    if (i < 0) continue;
    const semi = line.indexOf(';');
    const comm = line.slice(0, semi >= 0 && semi < i ? semi : i);
    counts.set(comm, (counts.get(comm) ?? 0) + Number(line.slice(i + 1)));
  }
  return [...counts].map(([k, n]) => `${k} ${n}`).sort();
}

/** The last command name perf printed for each tid. */
export function lastCommByTid(samples) {
  const names = new Map();
  for (const s of samples) names.set(s.tid, s.comm);
  return names;
}

/** Samples with `start <= time <= end` (perf --time includes both ends). */
export function countInRange(samples, start, end) {
  return samples.filter((s) => s.time >= start && s.time <= end).length;
}

/** `perf report --stats` "Aggregated stats": {TOTAL: n, SAMPLE: n, ...}. */
export function readStats(path) {
  const out = {};
  const text = readFileSync(path, 'utf8');
  const start = text.indexOf('Aggregated stats:');
  const rest = start < 0 ? text : text.slice(start + 'Aggregated stats:'.length);
  const aggregated = rest.split(/^\S.*stats:\s*$/m)[0];
  for (const m of aggregated.matchAll(/^\s*(\S+) events:\s+(\d+)/gm)) out[m[1]] = Number(m[2]);
  return out;
}

/** The oracle .meta file as {key: value}. */
export function readMeta(path) {
  const out = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const i = line.indexOf(': ');
    if (i > 0) out[line.slice(0, i)] = line.slice(i + 2);
  }
  return out;
}

/**
 * Walks the record headers of a little-endian file-mode perf.data by hand (u32 type, u16 misc,
 * u16 size) up to `bytes.length`: the number of complete records and the offset of the first one
 * that does not fit.
 */
export function handWalk(full, cut = full.length) {
  const dataOffset = Number(full.readBigUInt64LE(40));
  const dataSize = Number(full.readBigUInt64LE(48));
  const end = Math.min(dataOffset + dataSize, cut);
  let o = dataOffset;
  let complete = 0;
  const types = new Map();
  while (o + 8 <= dataOffset + dataSize) {
    const type = full.readUInt32LE(o);
    const size = full.readUInt16LE(o + 6);
    if (size < 8 || o + size > end) break;
    types.set(type, (types.get(type) ?? 0) + 1);
    complete += 1;
    o += size;
  }
  return { complete, firstIncomplete: o, types };
}
