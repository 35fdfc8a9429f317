// Reads slices of a dropped file for the analysis worker, on a thread of its own, so that the
// next slices are read while the worker parses this one. Started by the worker (a nested
// worker); each request {id, blob, start, end} is answered {id, buffer} (the bytes, transferred
// rather than copied), or {id, error} when the browser could not read them.
//
// The worker hands each buffer back once it has copied the slice ({spare}): the next slice of
// the same size is read into it ({id, buffer, length}: `length` says it was), so that reading a
// file does not make (and the browser fill, page by page) a new buffer per slice. Every answer's
// buffer holds exactly the bytes read, as the worker and its second worker take it.
//
// A request may belong to a pass over a range of the file ({pass, passEnd}: the ordering
// worker's slices, asked for in order): its slices are then read from one byte stream of
// start..passEnd, opened at the pass's first request and read on at each next one, instead of a
// stream per slice (each read costs the browser CPU of its own: one stream of a 315 MB file
// took 0.1–0.3 s less than 16 MiB reads, BENCHMARKS.md session 43). A request of the pass that
// is not where the stream stands (or of another pass) opens a new one. Answers to pass requests
// say how many streams the reader has opened ({streams}).
const reader = new FileReaderSync();
const spares = [];
let queue = Promise.resolve();
/** Cleared when a read into a spare failed: from then on, every slice is read the other way. */
let intoSpares = true;
/** The open stream of a pass: {pass, reader, at, end}, or null. */
let open = null;
let streams = 0;

/** Reads into `buffer` from the byte stream reader `r` until `size` bytes or the stream's end. */
async function fill(r, buffer, size) {
  let length = 0;
  while (length < size) {
    const { value, done } = await r.read(new Uint8Array(buffer, length, size - length));
    // (At the end, the view handed back is empty but still holds the buffer.)
    if (value) buffer = value.buffer;
    if (done) break;
    length += value.byteLength;
  }
  return { buffer, length };
}

/** The bytes start..end of `blob` read into `buffer` (a byte stream read into our memory). */
async function readInto(blob, start, end, buffer) {
  const r = blob.slice(start, end).stream().getReader({ mode: 'byob' });
  const read = await fill(r, buffer, end - start);
  r.releaseLock();
  return read;
}

/** Closes the pass's stream, if one is open. */
function close() {
  if (open) open.reader.cancel().catch(() => {});
  open = null;
}

/** The bytes start..end of `blob` read into `buffer` from the stream of pass `pass`. */
async function readFromPass(pass, passEnd, blob, start, end, buffer) {
  if (!open || open.pass !== pass || open.at !== start || end > open.end) {
    close();
    open = { pass, reader: blob.slice(start, passEnd).stream().getReader({ mode: 'byob' }), at: start, end: passEnd };
    streams++;
  }
  const s = open;
  try {
    const read = await fill(s.reader, buffer, end - start);
    s.at += read.length;
    if (read.length < end - start || s.at >= s.end) close();
    return read;
  } catch (error) {
    close();
    throw error;
  }
}

async function answer({ id, blob, start, end, pass, passEnd }) {
  const ofPass = typeof pass === 'number' && typeof passEnd === 'number' && passEnd >= end;
  // Only a spare of the slice's own size: the slice is then the whole buffer, as the second
  // analysis worker (stack_helper.rs) takes it. (A file's last, shorter slice gets a new one.)
  const i = intoSpares ? spares.findIndex((b) => b.byteLength === end - start) : -1;
  if (intoSpares) {
    const into = i >= 0 ? spares.splice(i, 1)[0] : ofPass ? new ArrayBuffer(end - start) : null;
    if (into) {
      try {
        let { buffer, length } = ofPass
          ? await readFromPass(pass, passEnd, blob, start, end, into)
          : await readInto(blob, start, end, into);
        // The file ended early: only what was read, in a buffer of its own.
        if (length < buffer.byteLength) buffer = buffer.slice(0, length);
        const message = i >= 0 ? { id, buffer, length } : { id, buffer };
        if (ofPass) message.streams = streams;
        postMessage(message, [buffer]);
        return;
      } catch {
        // No byte streams here (or the read failed): read it the other way.
        intoSpares = false;
      }
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
  idle = setTimeout(() => {
    spares.length = 0;
    close();
  }, KEEP_SPARES_MS);
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
