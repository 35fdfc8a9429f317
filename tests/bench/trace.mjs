// Chrome traces over the DevTools protocol, for the bench scripts (trace-open.mjs, revisit.mjs).

/** Starts tracing `categories` on the CDP session `cdp`. */
export async function startTrace(cdp, categories) {
  await cdp.send('Tracing.start', { transferMode: 'ReturnAsStream', traceConfig: { includedCategories: categories } });
}

/** Ends the trace started on `cdp`: its JSON text and its events. */
export async function endTrace(cdp) {
  const done = new Promise((ok) => cdp.once('Tracing.tracingComplete', ok));
  await cdp.send('Tracing.end');
  const { stream } = await done;
  let text = '';
  for (;;) {
    const chunk = await cdp.send('IO.read', { handle: stream, size: 1 << 20 });
    text += chunk.base64Encoded ? Buffer.from(chunk.data, 'base64').toString('utf8') : chunk.data;
    if (chunk.eof) break;
  }
  await cdp.send('IO.close', { handle: stream });
  const parsed = JSON.parse(text);
  return { text, events: Array.isArray(parsed) ? parsed : parsed.traceEvents };
}
