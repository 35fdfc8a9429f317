// Assertions that the page shows what perf says about a file.
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { field } from './browser.mjs';
import { readPerfHeader } from './perf-header.mjs';

/** What the file's own first 16 bytes say (read here, independently of the parser). */
export function magicOf(dataPath) {
  const head = readFileSync(dataPath).subarray(0, 16);
  const magic = head.subarray(0, 8).toString('latin1');
  const byteOrder = { PERFILE2: 'little', '2ELIFREP': 'big' }[magic];
  assert.ok(byteOrder, `${dataPath} does not start with a perf.data magic`);
  const headerSize = byteOrder === 'little' ? head.readBigUInt64LE(8) : head.readBigUInt64BE(8);
  return { byteOrder, pipe: headerSize === 16n };
}

/**
 * Asserts that the page shows, for `dataPath`, the facts perf printed in `headerPath`: host,
 * OS release, perf version, arch, CPU description and counts, command line and event names;
 * plus the file name, size, byte order and mode read from the file itself.
 */
export async function assertPageShows(page, dataPath, headerPath, name = basename(dataPath)) {
  const perf = readPerfHeader(headerPath);
  const magic = magicOf(dataPath);
  const size = statSync(dataPath).size;

  assert.equal(await field(page, 'file-name'), name);
  assert.ok((await field(page, 'file-size')).includes(`${size.toLocaleString('en-US')} bytes`),
    `file size ${size} not shown: ${await field(page, 'file-size')}`);
  assert.equal(await field(page, 'byte-order'), `${magic.byteOrder}-endian`);
  assert.equal(await field(page, 'mode'), magic.pipe ? 'pipe' : 'file');

  for (const [key, fieldName] of [
    ['hostname', 'hostname'], ['osRelease', 'os-release'], ['perfVersion', 'perf-version'],
    ['arch', 'arch'], ['cpuDesc', 'cpu-desc'], ['cpuid', 'cpuid'],
    ['nrCpusOnline', 'nr-cpus-online'], ['nrCpusAvailable', 'nr-cpus-available'], ['cmdline', 'cmdline'],
  ]) {
    assert.ok(perf[key] !== undefined, `${headerPath} has no ${key}`);
    assert.equal(await field(page, fieldName), perf[key], `${fieldName} of ${name}`);
  }
  assert.ok(perf.events.length > 0, `${headerPath} lists no events`);
  const names = await page.locator('[data-field="event-name"]').allTextContents();
  assert.deepEqual(names, perf.events, `event names of ${name}`);
  const features = await page.locator('[data-feature]').evaluateAll((els) => els.map((e) => e.dataset.feature));
  assert.ok(features.includes('HOSTNAME') && features.includes('EVENT_DESC'), `features: ${features}`);
}
