// Reads slices of a dropped file for the analysis worker, on a thread of its own, so that the
// next slices are read while the worker parses this one. Started by the worker (a nested
// worker); each request {id, blob, start, end} is answered {id, buffer} (the bytes, transferred
// rather than copied), or {id, error} when the browser could not read them.
const reader = new FileReaderSync();
onmessage = (event) => {
  const { id, blob, start, end } = event.data;
  try {
    const buffer = reader.readAsArrayBuffer(blob.slice(start, end));
    postMessage({ id, buffer }, [buffer]);
  } catch (error) {
    postMessage({ id, error: String(error) });
  }
};
