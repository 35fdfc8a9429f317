//! The parser worker: receives [`ParseRequest`]s, reads the file, parses it and posts a
//! [`ParseReply`]. It runs off the page's main thread, so a large file never freezes the page.

use std::cell::Cell;

use js_sys::Uint8Array;
use perfscope_analysis::summary::Summary;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, DedicatedWorkerGlobalScope, MessageEvent, WorkerGlobalScope};

use crate::protocol::{describe_js_error, ParseOutcome, ParseReply, ParseRequest, Timings, WorkerMessage};

thread_local! {
    /// The request being handled, so that a panic can still be answered.
    static CURRENT_REQUEST: Cell<Option<u32>> = const { Cell::new(None) };
}

/// Installs the message handler (and a panic hook that reports to the page). Call once, from
/// the worker's `main`.
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        let message = format!("the parser worker crashed: {info}");
        web_sys::console::error_1(&JsValue::from(message.as_str()));
        post(&WorkerMessage::Reply(ParseReply { id: CURRENT_REQUEST.get(), outcome: ParseOutcome::Crashed { message } }));
    }));
    let onmessage = Closure::<dyn Fn(MessageEvent)>::new(|event: MessageEvent| {
        wasm_bindgen_futures::spawn_local(handle(event.data()));
    });
    scope().set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    onmessage.forget();
    post(&WorkerMessage::Ready);
}

async fn handle(data: JsValue) {
    let reply = match ParseRequest::from_js(&data) {
        Ok(request) => {
            CURRENT_REQUEST.set(Some(request.id));
            let outcome = parse(&request).await;
            ParseReply { id: Some(request.id), outcome }
        }
        Err(message) => ParseReply { id: None, outcome: ParseOutcome::Crashed { message } },
    };
    post(&WorkerMessage::Reply(reply));
}

/// Reads the whole blob and summarizes it.
async fn parse(request: &ParseRequest) -> ParseOutcome {
    let source = BlobSource::new(request.blob.clone());
    let start = now_ms();
    let bytes = match source.read(0, source.len()).await {
        Ok(bytes) => bytes,
        Err(e) => {
            return ParseOutcome::ReadFailed { message: format!("could not read {}: {e}", request.name) };
        }
    };
    let read = now_ms();
    let summary = Summary::from_bytes(&bytes);
    let parsed = now_ms();
    ParseOutcome::Parsed { summary: Box::new(summary), timings: Timings { read_ms: read - start, parse_ms: parsed - read } }
}

/// Byte ranges of a `Blob` (a `File` is one), read with `Blob.slice`, so that later readers can
/// fetch only the parts they need (header, attrs, feature sections, a window of records)
/// instead of the whole file.
#[derive(Debug, Clone)]
pub struct BlobSource {
    blob: Blob,
}

impl BlobSource {
    /// Wraps a blob.
    pub fn new(blob: Blob) -> BlobSource {
        BlobSource { blob }
    }

    /// The blob's size in bytes.
    pub fn len(&self) -> u64 {
        // `Blob.size` is an integral double below 2^53.
        self.blob.size() as u64
    }

    /// Whether the blob is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes `start..end` (clamped to the blob, as `Blob.slice` does).
    pub async fn read(&self, start: u64, end: u64) -> Result<Vec<u8>, String> {
        let part = self
            .blob
            .slice_with_f64_and_f64(start as f64, end as f64)
            .map_err(|e| describe_js_error(&e))?;
        let buffer = JsFuture::from(part.array_buffer()).await.map_err(|e| describe_js_error(&e))?;
        Ok(Uint8Array::new(&buffer).to_vec())
    }
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn post(message: &WorkerMessage) {
    if let Err(e) = scope().post_message(&JsValue::from(message.to_json())) {
        web_sys::console::error_1(&e);
    }
}

fn now_ms() -> f64 {
    let scope: WorkerGlobalScope = js_sys::global().unchecked_into();
    scope.performance().map_or_else(js_sys::Date::now, |p| p.now())
}
