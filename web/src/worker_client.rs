//! The page's side of the analysis worker: starts it, posts requests (held until the worker says
//! it is ready), keeps at most one query of each kind in flight (a newer wanted query waits for
//! the reply to the older one, so zooming never floods the worker), and turns its packets and
//! errors into [`WorkerMessage`]s. Cancelling terminates the worker.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{ErrorEvent, MessageEvent, Worker};
use yew::Callback;

use crate::protocol::js::{describe_js_error, packet_from_js, NamedBlob, Request};
use crate::protocol::{Failure, Query, WorkerMessage};

/// The worker's start script (`web/worker_loader.js`, next to Trunk's `worker.js` and
/// `worker_bg.wasm`). Relative, so the page also works when served under a sub-path.
pub const WORKER_SCRIPT: &str = "./worker_loader.js";

/// The kinds of query that are coalesced separately.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QueryKind {
    /// Call tree / flame graph.
    Tree,
    /// The search's matched share.
    Search,
    /// Timeline density.
    Timeline,
    /// The sub-second heatmap.
    Heatmap,
    /// Records page.
    Records,
    /// A sample's stack.
    Stack,
    /// A file to download.
    Export,
    /// Compare.
    Diff,
}

impl QueryKind {
    /// The kind of a query.
    pub fn of(q: &Query) -> QueryKind {
        match q {
            Query::Tree { .. } => QueryKind::Tree,
            Query::Search { .. } => QueryKind::Search,
            Query::Timeline { .. } => QueryKind::Timeline,
            Query::Heatmap { .. } => QueryKind::Heatmap,
            Query::Records { .. } => QueryKind::Records,
            Query::Stack { .. } => QueryKind::Stack,
            Query::Export { .. } => QueryKind::Export,
            Query::Diff { .. } => QueryKind::Diff,
        }
    }
}

/// What the page and the worker's event handlers share.
#[derive(Default)]
struct Link {
    /// The worker sent `ready`.
    ready: Cell<bool>,
    /// Requests posted before `ready`.
    queue: RefCell<Vec<JsValue>>,
    /// An error event came: start a new worker next time.
    failed: Cell<bool>,
    /// Query id in flight per kind.
    in_flight: RefCell<HashMap<QueryKind, u32>>,
    /// The newest query wanted per kind while one is in flight: (generation, query).
    pending: RefCell<HashMap<QueryKind, Query>>,
}

struct Running {
    worker: Worker,
    link: Rc<Link>,
    _onmessage: Closure<dyn Fn(MessageEvent)>,
    _onerror: Closure<dyn Fn(ErrorEvent)>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}

/// The analysis worker, started on first use and restarted after it fails or is cancelled.
pub struct AnalysisWorker {
    running: Rc<RefCell<Option<Running>>>,
    on_message: Callback<WorkerMessage>,
    next_id: Rc<Cell<u32>>,
    /// The last query sent (or pending) per kind, with the generation it was for.
    wanted: RefCell<HashMap<QueryKind, (u32, Query)>>,
    /// Frames without a symbol are one per address, not one per module (sent with each file).
    by_address: Cell<bool>,
}

impl AnalysisWorker {
    /// A worker whose messages (and failures) go to `on_message`.
    pub fn new(on_message: Callback<WorkerMessage>) -> AnalysisWorker {
        AnalysisWorker {
            running: Rc::new(RefCell::new(None)),
            on_message,
            next_id: Rc::new(Cell::new(1)),
            wanted: RefCell::new(HashMap::new()),
            by_address: Cell::new(false),
        }
    }

    /// Opens the next files with frames without a symbol one per address (`on`) or one per
    /// module, without building the open profile again.
    pub fn prefer_by_address(&self, on: bool) {
        self.by_address.set(on);
    }

    /// Names frames without a symbol one per address (`module+0xoffset`) or one per module
    /// (`[module]`) from now on: the open profile is built again (read from its file again)
    /// when that changes it. Returns the request id, when one was sent.
    pub fn set_by_address(&self, on: bool) -> Result<Option<u32>, String> {
        if self.by_address.replace(on) == on {
            return Ok(None);
        }
        self.add_files(Vec::new()).map(Some)
    }

    fn id(&self) -> u32 {
        let id = self.next_id.get();
        self.next_id.set(id.wrapping_add(1).max(1));
        id
    }

    /// Starts the worker now if none is running, so that its wasm is compiled and instantiated
    /// before the first file arrives (the first open then waits for nothing but the file). A
    /// failure to start is not reported here: the request that needs the worker reports it.
    pub fn warm_up(&self) {
        let mut running = self.running.borrow_mut();
        if running.as_ref().is_none_or(|r| r.link.failed.get()) {
            *running = self.spawn().ok();
        }
    }

    /// Sends files to open; returns the request id.
    pub fn open(&self, files: Vec<NamedBlob>) -> Result<u32, String> {
        let id = self.id();
        self.wanted.borrow_mut().clear();
        self.post(
            Request::Files {
                id,
                files,
                slice: slice_param(),
                by_address: self.by_address.get(),
            }
            .to_js(),
        )?;
        Ok(id)
    }

    /// Asks the worker to download `url` (resolved against the page's address) and open it;
    /// returns the request id.
    pub fn open_url(&self, name: String, url: &str) -> Result<u32, String> {
        let base = web_sys::window()
            .and_then(|w| w.location().href().ok())
            .unwrap_or_default();
        let url = web_sys::Url::new_with_base(url, &base)
            .map_err(|e| format!("{url} is not an address: {}", describe_js_error(&e)))?
            .href();
        let id = self.id();
        self.wanted.borrow_mut().clear();
        self.post(
            Request::Url {
                id,
                name,
                url,
                slice: slice_param(),
                by_address: self.by_address.get(),
            }
            .to_js(),
        )?;
        Ok(id)
    }

    /// Sends symbol files for the open profile; returns the request id.
    pub fn add_files(&self, files: Vec<NamedBlob>) -> Result<u32, String> {
        let id = self.id();
        self.post(
            Request::Files {
                id,
                files,
                slice: 0,
                by_address: self.by_address.get(),
            }
            .to_js(),
        )?;
        Ok(id)
    }

    /// Reads files as the base to compare the open profile with; returns the request id.
    pub fn compare(&self, files: Vec<NamedBlob>) -> Result<u32, String> {
        let id = self.id();
        self.post(Request::Compare { id, files }.to_js())?;
        Ok(id)
    }

    /// Sends `query` now, even if the same was sent before (exports: every click downloads).
    pub fn ask(&self, query: Query) -> Result<u32, String> {
        let id = self.id();
        self.post(Request::Query { id, query }.to_js())?;
        Ok(id)
    }

    /// Makes sure the worker answers `query` for profile `generation`: sends it unless it was
    /// the last one sent for this generation; waits while a query of its kind is in flight.
    pub fn want(&self, generation: u32, query: Query) {
        let kind = QueryKind::of(&query);
        if self.wanted.borrow().get(&kind) == Some(&(generation, query.clone())) {
            return;
        }
        self.wanted
            .borrow_mut()
            .insert(kind, (generation, query.clone()));
        let link = self.running.borrow().as_ref().map(|r| r.link.clone());
        if let Some(link) = &link {
            if link.in_flight.borrow().contains_key(&kind) {
                link.pending.borrow_mut().insert(kind, query);
                return;
            }
        }
        let id = self.id();
        if let Some(link) = link {
            link.in_flight.borrow_mut().insert(kind, id);
        }
        if let Err(message) = self.post(Request::Query { id, query }.to_js()) {
            self.on_message.emit(WorkerMessage::Failed(
                id,
                Failure {
                    message,
                    crashed: false,
                },
            ));
        }
    }

    /// Stops whatever the worker is doing (terminates it; the next request starts a new one).
    pub fn cancel(&self) {
        self.running.borrow_mut().take();
        self.wanted.borrow_mut().clear();
    }

    fn post(&self, request: JsValue) -> Result<(), String> {
        let mut running = self.running.borrow_mut();
        if running.as_ref().is_none_or(|r| r.link.failed.get()) {
            *running = None;
            *running = Some(self.spawn()?);
        }
        let running = running
            .as_ref()
            .ok_or("the analysis worker did not start")?;
        if running.link.ready.get() {
            running
                .worker
                .post_message(&request)
                .map_err(|e| describe_js_error(&e))
        } else {
            running.link.queue.borrow_mut().push(request);
            Ok(())
        }
    }

    fn spawn(&self) -> Result<Running, String> {
        // `?reader=0` in the page's address: the worker reads files without its reader worker
        // (tests, benchmarks); `?preview=MS` or `off`: when it sends the first preview flame
        // graph during a records pass. It sees them in its own address (and so does the
        // second worker it may start, as `worker_loader.js` with no query: none of them
        // concern that one).
        let mut passed = Vec::new();
        if param("reader").as_deref() == Some("0") {
            passed.push("reader=0".to_string());
        }
        if let Some(p) = param("preview").filter(|p| p == "off" || p.parse::<f64>().is_ok()) {
            passed.push(format!("preview={p}"));
        }
        // `?share=F` or `off`: the share of a big file's stacks the worker makes itself, the
        // rest made by a second worker (`crate::stack_helper`).
        if let Some(p) = param("share").filter(|p| p == "off" || p.parse::<f64>().is_ok()) {
            passed.push(format!("share={p}"));
        }
        // `?compact=BYTES`: the size from which a dropped ELF file is read only as far as
        // naming frames needs (tests: 0, so that small files are).
        if let Some(p) = param("compact").filter(|p| p.parse::<u64>().is_ok()) {
            passed.push(format!("compact={p}"));
        }
        // `?inflate=0` or `1`: never or always (not only for big files) decompress a
        // compressed file's records on another worker (`crate::inflater`).
        if let Some(p) = param("inflate").filter(|p| p == "0" || p == "1") {
            passed.push(format!("inflate={p}"));
        }
        // `?order=1`: another worker puts any uncompressed file's records in time order
        // (`crate::session::OrderPass`; by default only a big file's), `?order=0`: none does.
        if let Some(p) = param("order").filter(|p| p == "0" || p == "1") {
            passed.push(format!("order={p}"));
        }
        // `?warm=N`, `?inflatewarm=N`: the rounds of this worker's warm-up and of that
        // worker's (measurements). Tests: `?inflatefail=K`, that worker fails at the K-th
        // slice; `?inflatestall=K`, it stops answering there;
        // `?readerstall=K`, the reader worker stops answering at its K-th request.
        for name in [
            "warm",
            "inflatewarm",
            "inflatefail",
            "inflatestall",
            "readerstall",
        ] {
            if let Some(p) = param(name).filter(|p| p.parse::<u32>().is_ok()) {
                passed.push(format!("{name}={p}"));
            }
        }
        let script = if passed.is_empty() {
            WORKER_SCRIPT.to_string()
        } else {
            format!("{WORKER_SCRIPT}?{}", passed.join("&"))
        };
        // The worker boot.js started, once: adopted when it was started as this one would be
        // (without parameters), else ended (boot.js may not know a parameter added here).
        let (worker, early_events) = match take_early_worker() {
            Some((worker, events)) if passed.is_empty() => (worker, Some(events)),
            early => {
                if let Some((worker, _)) = early {
                    worker.terminate();
                }
                let worker = Worker::new(&script).map_err(|e| {
                    format!(
                        "cannot start the analysis worker ({WORKER_SCRIPT}): {}",
                        describe_js_error(&e)
                    )
                })?;
                (worker, None)
            }
        };
        let link = Rc::new(Link::default());
        let on_message = self.on_message.clone();
        let (handle, shared, next_id) = (worker.clone(), link.clone(), self.next_id.clone());
        let onmessage = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
            let message = packet_from_js(&event.data()).and_then(WorkerMessage::from_packet);
            let message = match message {
                Ok(m) => m,
                Err(message) => WorkerMessage::Failed(
                    0,
                    Failure {
                        message,
                        crashed: false,
                    },
                ),
            };
            if crate::page_warm_up::take(&message) {
                return;
            }
            match &message {
                WorkerMessage::Ready => {
                    shared.ready.set(true);
                    for request in shared.queue.take() {
                        if let Err(e) = handle.post_message(&request) {
                            on_message.emit(WorkerMessage::Failed(
                                0,
                                Failure {
                                    message: describe_js_error(&e),
                                    crashed: true,
                                },
                            ));
                        }
                    }
                    return;
                }
                WorkerMessage::Failed(_, f) if f.crashed => {
                    shared.failed.set(true);
                    shared.queue.borrow_mut().clear();
                }
                _ => {}
            }
            // A reply frees its kind; send what waited.
            let kind = match &message {
                WorkerMessage::Tree(..) => Some(QueryKind::Tree),
                WorkerMessage::Search(..) => Some(QueryKind::Search),
                WorkerMessage::Timeline(..) => Some(QueryKind::Timeline),
                WorkerMessage::Heatmap(..) => Some(QueryKind::Heatmap),
                WorkerMessage::Records(..) => Some(QueryKind::Records),
                WorkerMessage::Stack(..) => Some(QueryKind::Stack),
                WorkerMessage::Export(..) => Some(QueryKind::Export),
                WorkerMessage::Diff(..) => Some(QueryKind::Diff),
                WorkerMessage::Failed(id, _) => shared
                    .in_flight
                    .borrow()
                    .iter()
                    .find(|(_, v)| *v == id)
                    .map(|(k, _)| *k),
                _ => None,
            };
            if let Some(kind) = kind {
                shared.in_flight.borrow_mut().remove(&kind);
                if let Some(query) = shared.pending.borrow_mut().remove(&kind) {
                    let id = next_id.get();
                    next_id.set(id.wrapping_add(1).max(1));
                    shared.in_flight.borrow_mut().insert(kind, id);
                    if let Err(e) = handle.post_message(&Request::Query { id, query }.to_js()) {
                        on_message.emit(WorkerMessage::Failed(
                            id,
                            Failure {
                                message: describe_js_error(&e),
                                crashed: false,
                            },
                        ));
                    }
                }
            }
            on_message.emit(message);
        });
        let on_message = self.on_message.clone();
        let shared = link.clone();
        let onerror = Closure::<dyn Fn(ErrorEvent)>::new(move |event: ErrorEvent| {
            shared.failed.set(true);
            shared.queue.borrow_mut().clear();
            on_message.emit(WorkerMessage::Failed(
                0,
                Failure {
                    message: describe_error_event(&event),
                    crashed: true,
                },
            ));
        });
        worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
        worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
        if let Some(events) = early_events {
            replay(worker.clone(), events);
        }
        Ok(Running {
            worker,
            link,
            _onmessage: onmessage,
            _onerror: onerror,
        })
    }
}

/// The analysis worker that `web/boot.js` started before the app's wasm loaded, with the
/// events it sent since (its `ready` packet, or a failure), taken from the page's
/// `perfscopeEarlyWorker` so that only the first [`AnalysisWorker::spawn`] adopts it.
fn take_early_worker() -> Option<(Worker, js_sys::Array)> {
    let window = web_sys::window()?;
    let key = JsValue::from_str(EARLY_WORKER);
    let early = js_sys::Reflect::get(&window, &key).ok()?;
    // Taken once: a later spawn (after a cancel or a crash) finds none and starts a new one.
    // (boot.js sets a plain property, which can be deleted.)
    let _ = js_sys::Reflect::delete_property(&window, &key);
    let worker = js_sys::Reflect::get(&early, &JsValue::from_str("worker"))
        .ok()?
        .dyn_into::<Worker>()
        .ok()?;
    let events = js_sys::Reflect::get(&early, &JsValue::from_str("events"))
        .ok()?
        .dyn_into::<js_sys::Array>()
        .ok()?;
    Some((worker, events))
}

/// The global `web/boot.js` leaves its worker in.
const EARLY_WORKER: &str = "perfscopeEarlyWorker";

/// Hands the events an adopted worker sent before the app listened to the handlers now set,
/// in order. In a microtask: after the caller has let go of the running worker (the handlers
/// may post to it), and before any later event of the worker (a task) is handled.
fn replay(worker: Worker, events: js_sys::Array) {
    wasm_bindgen_futures::spawn_local(async move {
        for event in events.iter() {
            let handler = if event.is_instance_of::<MessageEvent>() {
                worker.onmessage()
            } else {
                worker.onerror()
            };
            if let Some(handler) = handler {
                let _ = handler.call1(&worker, &event);
            }
        }
    });
}

/// A worker `error` event as one line. Script load failures carry no message at all.
fn describe_error_event(event: &ErrorEvent) -> String {
    let message = event.message();
    if message.is_empty() {
        let error = event.error();
        if error.is_undefined() || error.is_null() {
            return format!(
                "the analysis worker failed to load ({WORKER_SCRIPT} and its .wasm must be served, the .wasm as application/wasm)"
            );
        }
        return format!("the analysis worker failed: {}", describe_js_error(&error));
    }
    let place = if event.filename().is_empty() {
        String::new()
    } else {
        format!(" ({}:{})", event.filename(), event.lineno())
    };
    format!("the analysis worker failed: {message}{place}")
}

impl std::fmt::Debug for AnalysisWorker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnalysisWorker")
            .field("next_id", &self.next_id.get())
            .finish_non_exhaustive()
    }
}

/// `?detail=N` in the page's address: tree replies leave out boxes narrower than 1/N of the
/// graph (or the zoom root) instead of the worker's default (for tests on small files).
pub fn detail_param() -> u32 {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .and_then(|q| web_sys::UrlSearchParams::new_with_str(&q).ok())
        .and_then(|p| p.get("detail"))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// `?slice=N` in the page's address: the worker reads files in slices of N bytes (for tests).
fn slice_param() -> u32 {
    param("slice").and_then(|v| v.parse().ok()).unwrap_or(0)
}

/// Whether the worker sends preview flame graphs during a records pass (not with
/// `?preview=off` in the page's address).
pub fn previews_on() -> bool {
    param("preview").as_deref() != Some("off")
}

/// A parameter of the page's address.
fn param(name: &str) -> Option<String> {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .and_then(|q| web_sys::UrlSearchParams::new_with_str(&q).ok())
        .and_then(|p| p.get(name))
}
