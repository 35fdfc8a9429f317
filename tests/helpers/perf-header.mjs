// Reads the expected values out of `perf report --header-only -I --stdio` output (the
// tests/data/*.header.txt and corpus oracle/*.header.txt files): perf itself is the truth.
import { readFileSync } from 'node:fs';

/**
 * @param {string} path a header.txt file
 * @returns {{hostname?: string, osRelease?: string, perfVersion?: string, arch?: string,
 *   nrCpusOnline?: string, nrCpusAvailable?: string, cpuDesc?: string, cpuid?: string,
 *   cmdline?: string, events: string[]}}
 */
export function readPerfHeader(path) {
  return parsePerfHeader(readFileSync(path, 'utf8'));
}

/** Parses the text of a perf header dump (see {@link readPerfHeader}). */
export function parsePerfHeader(text) {
  const out = { events: [] };
  const keys = {
    'hostname': 'hostname',
    'os release': 'osRelease',
    'perf version': 'perfVersion',
    'arch': 'arch',
    'nrcpus online': 'nrCpusOnline',
    'nrcpus avail': 'nrCpusAvailable',
    'cpudesc': 'cpuDesc',
    'cpuid': 'cpuid',
  };
  for (const line of text.split('\n')) {
    // perf prints "# key : value"; the value may itself contain " : ".
    const m = /^# ([a-z][a-z ]*?) : (.*)$/.exec(line);
    if (!m) continue;
    const [, key, value] = m;
    if (key in keys && !(keys[key] in out)) out[keys[key]] = value;
    // perf prints every argument followed by one space.
    if (key === 'cmdline') out.cmdline = value.replace(/ $/, '');
    if (key === 'event') {
      // perf prints "name = NAME, " and then ", id = { ... }" or ", FIELD = VALUE" for each
      // nonzero attr field (tools/perf/util/header.c print_event_desc).
      const e = /^name = (.*?), , /.exec(value);
      if (!e) throw new Error(`cannot read the event name in: ${line}`);
      out.events.push(e[1]);
    }
  }
  return out;
}
