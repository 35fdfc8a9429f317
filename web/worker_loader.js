// Starts the analysis worker (classic worker script, copied into dist/ by Trunk).
// It loads wasm-bindgen's no-modules glue (worker.js) and then the wasm, whose main() installs
// the message handler and posts a "ready" packet. Written by hand rather than Trunk's
// data-loader-shim, which passes wasm_bindgen() deprecated arguments (a console warning) and
// would leave the page waiting forever if the wasm failed to load.
function fail(error) {
  postMessage({
    kind: 'failed',
    id: 0,
    json: JSON.stringify({ message: `the parser worker failed to load: ${error}`, crashed: true }),
    cols: {},
  });
}
function load(moduleOrPath) {
  try {
    importScripts('./worker.js');
    wasm_bindgen({ module_or_path: moduleOrPath }).catch(fail);
  } catch (error) {
    fail(error);
  }
}
// The second analysis worker (web/src/stack_helper.rs, started as `worker_loader.js?module`)
// gets the first one's compiled WebAssembly.Module in its first message: not fetched and
// compiled again.
if (new URLSearchParams(self.location.search).has('module')) {
  self.onmessage = (event) => {
    self.onmessage = null;
    const module = event.data?.module;
    if (module instanceof WebAssembly.Module) load(module);
    else fail('the first message carried no WebAssembly.Module');
  };
} else {
  load('./worker_bg.wasm');
}
