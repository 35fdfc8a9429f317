// Reads slices of a dropped file for the analysis worker, on a thread of its own, so that the
// next slices are read while the worker parses this one. Started by the worker (a nested
// worker); each request {id, blob, start, end} is answered {id, buffer} (the bytes, transferred
// rather than copied), or {id, error} when the browser could not read them.
//
// The worker hands each buffer back once it has copied the slice ({spare}): the next slice of
// the same size is read into it ({id, buffer, length}: `length` says it was), so that reading a
// file does not make (and the browser fill, page by page) a new buffer per slice. Every answer's
// buffer holds exactly the bytes read, as the worker and its second worker take it.
const reader = new FileReaderSync();
const spares = [];
let queue = Promise.resolve();
/** Cleared when a read into a spare failed: from then on, every slice is read the other way. */
let intoSpares = true;

/** The bytes start..end of `blob` read into `buffer` (a byte stream read into our memory). */
async function readInto(blob, start, end, buffer) {
  const stream = blob.slice(start, end).stream();
  const r = stream.getReader({ mode: 'byob' });
  let length = 0;
  const size = end - start;
  while (length < size) {
    const { value, done } = await r.read(new Uint8Array(buffer, length, size - length));
    if (done) break;
    buffer = value.buffer;
    length += value.byteLength;
  }
  r.releaseLock();
  return { buffer, length };
}

async function answer({ id, blob, start, end }) {
  // Only a spare of the slice's own size: the slice is then the whole buffer, as the second
  // analysis worker (stack_helper.rs) takes it. (A file's last, shorter slice gets a new one.)
  const i = intoSpares ? spares.findIndex((b) => b.byteLength === end - start) : -1;
  if (i >= 0) {
    const [spare] = spares.splice(i, 1);
    try {
      let { buffer, length } = await readInto(blob, start, end, spare);
      // The file ended early: only what was read, in a buffer of its own.
      if (length < buffer.byteLength) buffer = buffer.slice(0, length);
      postMessage({ id, buffer, length }, [buffer]);
      return;
    } catch {
      // No byte streams here (or the read failed): read it the other way.
      intoSpares = false;
    }
  }
  try {
    const buffer = reader.readAsArrayBuffer(blob.slice(start, end));
    postMessage({ id, buffer }, [buffer]);
  } catch (error) {
    postMessage({ id, error: String(error) });
  }
}

/** Spares are let go after this long without a message (no file being read). */
const KEEP_SPARES_MS = 10_000;
let idle = 0;

// (Tests: `?readerstall=K` in this script's address, a reader that stops answering at its
// K-th request, counted from 0.)
const stallAt = Number(new URL(self.location.href).searchParams.get('readerstall') ?? -1);
let requests = 0;
let stalled = false;

onmessage = (event) => {
  clearTimeout(idle);
  idle = setTimeout(() => { spares.length = 0; }, KEEP_SPARES_MS);
  const d = event.data;
  if (d.spare) {
    spares.push(d.spare);
    return;
  }
  if (requests++ === stallAt) stalled = true;
  if (stalled) return;
  // One request at a time, in order; each answered, whatever happens.
  queue = queue.then(() => answer(d)).catch((error) => postMessage({ id: d.id, error: String(error) }));
};
