//! The page's side of the parser worker: starts it, posts [`ParseRequest`]s (held until the
//! worker says it is ready) and turns its messages and errors into [`ParseReply`]s.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Blob, ErrorEvent, MessageEvent, Worker};
use yew::Callback;

use crate::protocol::{describe_js_error, ParseOutcome, ParseReply, ParseRequest, WorkerMessage};

/// The worker's start script (`web/worker_loader.js`, next to Trunk's `worker.js` and
/// `worker_bg.wasm`). Relative, so the page also works when served under a sub-path.
pub const WORKER_SCRIPT: &str = "./worker_loader.js";

/// A parser worker, started on first use and restarted after it fails.
pub struct ParserWorker {
    running: RefCell<Option<Running>>,
    on_reply: Callback<ParseReply>,
    next_id: Cell<u32>,
}

/// One started worker.
struct Running {
    worker: Worker,
    /// Shared with the message handler.
    link: Rc<Link>,
    _onmessage: Closure<dyn Fn(MessageEvent)>,
    _onerror: Closure<dyn Fn(ErrorEvent)>,
}

/// What the page and the worker's event handlers share.
#[derive(Default)]
struct Link {
    /// The worker sent `Ready`: its message handler is installed.
    ready: Cell<bool>,
    /// Requests posted before `Ready` (the worker would drop them).
    queue: RefCell<Vec<JsValue>>,
    /// An error event came: the wasm instance may be unusable; start a new worker next time.
    failed: Cell<bool>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}

impl ParserWorker {
    /// A worker handle whose replies (and failures) go to `on_reply`. The worker itself is
    /// started on the first [`ParserWorker::parse`].
    pub fn new(on_reply: Callback<ParseReply>) -> ParserWorker {
        ParserWorker { running: RefCell::new(None), on_reply, next_id: Cell::new(1) }
    }

    /// Sends `blob` to the worker; returns the id that its reply will carry.
    pub fn parse(&self, name: &str, blob: &Blob) -> Result<u32, String> {
        let id = self.next_id.get();
        self.next_id.set(id.wrapping_add(1));
        let request = ParseRequest { id, name: name.to_string(), blob: blob.clone() }.to_js();
        let mut running = self.running.borrow_mut();
        if running.as_ref().is_none_or(|r| r.link.failed.get()) {
            // Dropping the old one terminates it.
            *running = None;
            *running = Some(self.spawn()?);
        }
        let running = running.as_ref().ok_or("the parser worker did not start")?;
        if running.link.ready.get() {
            running.worker.post_message(&request).map_err(|e| describe_js_error(&e))?;
        } else {
            running.link.queue.borrow_mut().push(request);
        }
        Ok(id)
    }

    fn spawn(&self) -> Result<Running, String> {
        let worker = Worker::new(WORKER_SCRIPT)
            .map_err(|e| format!("cannot start the parser worker ({WORKER_SCRIPT}): {}", describe_js_error(&e)))?;
        let link = Rc::new(Link::default());

        let on_reply = self.on_reply.clone();
        let (handle, shared) = (worker.clone(), link.clone());
        let onmessage = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
            let crashed = |message: String| ParseReply { id: None, outcome: ParseOutcome::Crashed { message } };
            let message = match event.data().as_string() {
                Some(json) => WorkerMessage::from_json(&json),
                None => Err("the worker sent a message that is not text".to_string()),
            };
            match message {
                Ok(WorkerMessage::Ready) => {
                    shared.ready.set(true);
                    for request in shared.queue.take() {
                        if let Err(e) = handle.post_message(&request) {
                            on_reply.emit(crashed(describe_js_error(&e)));
                        }
                    }
                }
                Ok(WorkerMessage::Reply(reply)) => {
                    if matches!(reply.outcome, ParseOutcome::Crashed { .. }) {
                        // E.g. the wasm failed to load: this worker will never answer.
                        shared.failed.set(true);
                        shared.queue.borrow_mut().clear();
                    }
                    on_reply.emit(reply);
                }
                Err(message) => on_reply.emit(crashed(message)),
            }
        });

        let on_reply = self.on_reply.clone();
        let shared = link.clone();
        let onerror = Closure::<dyn Fn(ErrorEvent)>::new(move |event: ErrorEvent| {
            shared.failed.set(true);
            shared.queue.borrow_mut().clear();
            on_reply.emit(ParseReply { id: None, outcome: ParseOutcome::Crashed { message: describe_error_event(&event) } });
        });

        worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
        worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
        Ok(Running { worker, link, _onmessage: onmessage, _onerror: onerror })
    }
}

/// A worker `error` event as one line. Script load failures carry no message at all.
fn describe_error_event(event: &ErrorEvent) -> String {
    let message = event.message();
    if message.is_empty() {
        let error = event.error();
        if error.is_undefined() || error.is_null() {
            return format!(
                "the parser worker failed to load ({WORKER_SCRIPT} and its .wasm must be served, the .wasm as application/wasm)"
            );
        }
        return format!("the parser worker failed: {}", describe_js_error(&error));
    }
    let place = if event.filename().is_empty() {
        String::new()
    } else {
        format!(" ({}:{})", event.filename(), event.lineno())
    };
    format!("the parser worker failed: {message}{place}")
}

impl std::fmt::Debug for ParserWorker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParserWorker").field("next_id", &self.next_id.get()).finish_non_exhaustive()
    }
}
