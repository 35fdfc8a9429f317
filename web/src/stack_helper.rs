//! A second analysis worker for a big file's stacks: while this worker reads the file (records
//! index, summary, samples, timeline, and the stacks of the first records), another instance
//! of the same wasm makes the stacks of the samples after a cut (`session::PartPass`), from the
//! slices this worker forwards once it has read them ([`StackHelper::forward`]; the helper
//! reads only the header and the slices it was not sent); they are filled in when both are done
//! (`Opening::share_stacks`, `Opening::set_part`), or the profile is built again here if they
//! cannot be. Only with [`MIN_CORES`] cores or more and a file of [`SHARE_MIN_BYTES`] or more.
//!
//! The helper is started from this worker (a nested worker, `worker_loader.js`), answers its
//! `ready` with one `stacks` request, and is ended once it replied.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use js_sys::{ArrayBuffer, Promise, Reflect, Uint8Array};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, MessageEvent, Worker};

use crate::protocol::js::packet_from_js;
use crate::protocol::WorkerMessage;
use crate::session::SentPart;
use perfscope_analysis::load::Part;

/// Files smaller than this are read by one worker: the helper's own memory (~20 MB for the
/// 300 MB recording: its slices, its time-order queue, two bytes per sample) would take the
/// two workers past half the file's size (session 19: 123 + 21 MiB for big300-g, 0.48×).
pub const SHARE_MIN_BYTES: f64 = (256 << 20) as f64;

/// The helper is started by default only on machines with this many cores or more: with two,
/// the first worker, its reader and the helper share them, and the helper's extra work (it
/// decodes and orders the later samples again) cost what it saved (session 19: records pass
/// 1.95–2.18 s with it, 1.97–2.05 s without, on big300-g).
pub const MIN_CORES: f64 = 3.0;

/// The fraction of the records whose stacks this worker makes itself: it also builds
/// everything else, while the helper makes only stacks (and skips the samples before the
/// cut), and starts later (its wasm is compiled first: ~0.25 s in the page). Natively, with two
/// threads on big300-g, 0.15–0.25 took 0.67–0.71× a single pass (session 19).
pub const SHARE_FRACTION: f64 = 0.25;

/// The analysis worker's script, next to this one's (a nested worker's address is relative to
/// its parent's script); `?module`: it waits for this worker's compiled wasm module instead of
/// fetching and compiling it (~0.25 s in the page).
const WORKER_SCRIPT: &str = "./worker_loader.js?module";

/// What the helper sent: its stacks (or why there are none), its time and its wasm memory.
pub struct HelperReply {
    /// Its stacks, or why the helper did not make them.
    pub part: Result<SentPart, String>,
    /// Its time from being started to its reply, ms.
    pub ms: f64,
    /// Its wasm memory when it replied, bytes.
    pub wasm_memory: f64,
    /// Its time from the request to the reply, ms...
    pub pass_ms: f64,
    /// ...of which reading the file itself, ms.
    pub read_ms: f64,
}

/// What the helper was told. It loses messages that come before its `ready` (it has no
/// handler yet): slices are forwarded only after it, and the end is told then if it came first.
#[derive(Default)]
struct Link {
    /// It said `ready` and was sent its request.
    ready: Cell<bool>,
    /// This worker's pass ended: the helper reads what was not forwarded itself.
    ended: Cell<bool>,
    /// A message could not be posted to it: it may wait for it forever.
    broken: Cell<bool>,
}

/// Posts the helper a slice of the file (`at`, bytes transferred) or, with no bytes, the end
/// of the slices forwarded.
fn post_slice(worker: &Worker, at: u64, buffer: Option<&ArrayBuffer>) -> Result<(), JsValue> {
    let message = js_sys::Object::new();
    let set = |k: &str, v: &JsValue| Reflect::set(&message, &JsValue::from(k), v).map(|_| ());
    let transfer = js_sys::Array::new();
    set("op", &JsValue::from("slice"))?;
    set("id", &JsValue::from(0))?;
    set("at", &JsValue::from(at as f64))?;
    if let Some(b) = buffer {
        set("buffer", b)?;
        transfer.push(b);
    }
    worker.post_message_with_transfer(&message, &transfer)
}

impl HelperReply {
    /// No stacks, because of `why`, after `ms`.
    fn failed(why: &str, ms: f64) -> HelperReply {
        HelperReply {
            part: Err(why.to_string()),
            ms,
            wasm_memory: 0.0,
            pass_ms: 0.0,
            read_ms: 0.0,
        }
    }
}

/// The helper worker, running. Terminated when dropped.
pub struct StackHelper {
    worker: Worker,
    link: Rc<Link>,
    reply: JsFuture,
    started: f64,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

impl StackHelper {
    /// Starts a helper that makes the stacks of the samples of `blob` whose records start at
    /// `cut` or later, reading it in slices of `slice` bytes; frames without symbols named one
    /// per address when `by_address`.
    pub fn start(
        blob: &Blob,
        cut: u64,
        slice: usize,
        by_address: bool,
    ) -> Result<StackHelper, JsValue> {
        let worker = Worker::new(WORKER_SCRIPT)?;
        let first = js_sys::Object::new();
        Reflect::set(&first, &JsValue::from("module"), &wasm_bindgen::module())?;
        if let Err(e) = worker.post_message(&first) {
            worker.terminate();
            return Err(e);
        }
        let settle: Rc<RefCell<Option<(js_sys::Function, js_sys::Function)>>> = Rc::default();
        let promise = Promise::new(&mut |resolve, reject| {
            *settle.borrow_mut() = Some((resolve, reject));
        });
        let request = crate::protocol::js::Request::Stacks {
            id: 1,
            blob: blob.clone(),
            cut,
            slice: u32::try_from(slice).unwrap_or(u32::MAX),
            by_address,
        }
        .to_js();
        let answers = settle.clone();
        let target = worker.clone();
        let link = Rc::new(Link::default());
        let told = link.clone();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            let data = e.data();
            let field = |name: &str| Reflect::get(&data, &JsValue::from(name)).ok();
            match field("kind").and_then(|k| k.as_string()).as_deref() {
                Some("ready") => {
                    let mut posted = target.post_message(&request);
                    told.ready.set(true);
                    if told.ended.get() {
                        posted = posted.and_then(|_| post_slice(&target, u64::MAX, None));
                    }
                    if let Err(error) = posted {
                        if let Some((_, reject)) = answers.borrow_mut().take() {
                            let _ = reject.call1(&JsValue::NULL, &error);
                        }
                    }
                }
                Some("stacks") => {
                    if let Some((resolve, _)) = answers.borrow_mut().take() {
                        let _ = resolve.call1(&JsValue::NULL, &data);
                    }
                }
                Some("failed") => {
                    let why = match packet_from_js(&data).and_then(WorkerMessage::from_packet) {
                        Ok(WorkerMessage::Failed(_, f)) => f.message,
                        _ => "the second worker failed".into(),
                    };
                    if let Some((_, reject)) = answers.borrow_mut().take() {
                        let _ = reject.call1(&JsValue::NULL, &JsValue::from(why));
                    }
                }
                // Progress and the like: not asked for.
                _ => {}
            }
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        let failed = settle;
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
            e.prevent_default();
            if let Some((_, reject)) = failed.borrow_mut().take() {
                let _ = reject.call1(
                    &JsValue::NULL,
                    &JsValue::from("the second worker could not start"),
                );
            }
        });
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Ok(StackHelper {
            worker,
            link,
            reply: JsFuture::from(promise),
            started: crate::worker::now_ms(),
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    /// Hands the helper the slice of the file at `at` that this worker read (transferred: it
    /// can no longer be used here), so that it does not read the file itself; `None`: the
    /// helper reads the rest itself (this worker had to read it through its own source).
    /// Before the helper is ready, nothing is sent: it reads those slices itself.
    pub fn forward(&self, at: u64, buffer: Option<&ArrayBuffer>) {
        if self.link.ready.get() && post_slice(&self.worker, at, buffer).is_err() {
            self.link.broken.set(true);
        }
    }

    /// Waits for the helper's reply, then ends it.
    pub async fn finish(self) -> HelperReply {
        // Whatever was not forwarded, the helper reads itself.
        self.link.ended.set(true);
        self.forward(u64::MAX, None);
        if self.link.broken.get() {
            self.worker.terminate();
            let ms = crate::worker::now_ms() - self.started;
            return HelperReply::failed("a slice could not be handed to the second worker", ms);
        }
        let StackHelper {
            worker,
            link: _,
            reply,
            started,
            _on_message,
            _on_error,
        } = self;
        let got = reply.await;
        let ms = crate::worker::now_ms() - started;
        worker.terminate();
        let data = match got {
            Ok(data) => data,
            Err(e) => return HelperReply::failed(&crate::protocol::js::describe_js_error(&e), ms),
        };
        let field = |name: &str| Reflect::get(&data, &JsValue::from(name)).ok();
        let number = |name: &str| field(name).and_then(|m| m.as_f64()).unwrap_or(0.0);
        let wasm_memory = number("wasmMemory");
        let tables = field("tables").and_then(|b| b.dyn_into::<ArrayBuffer>().ok());
        let blocks = field("blocks").and_then(|b| b.dyn_into::<js_sys::Array>().ok());
        let part = match (tables, blocks) {
            (Some(tables), Some(blocks)) => Ok(SentPart {
                tables: Uint8Array::new(&tables).to_vec(),
                stack_of: Box::new(BlockReader::new(blocks).into_fn()),
            }),
            _ => Err("the second worker's reply holds no stacks".to_string()),
        };
        HelperReply {
            part,
            ms,
            wasm_memory,
            pass_ms: number("passMs"),
            read_ms: number("readMs"),
        }
    }
}

/// Samples' stacks per block of the reply (1 MiB of `u32`s).
const BLOCK_SHIFT: u32 = 18;

/// The reply of the helper to its request: its stack table and its samples' stacks (in blocks
/// of 2^[`BLOCK_SHIFT`], little-endian `u32`s, copied out of wasm memory one at a time and
/// transferred), its wasm memory and `times`: its whole time and the part spent reading the
/// file, ms.
pub fn reply(
    id: u32,
    part: &Part,
    wasm_memory: f64,
    times: (f64, f64),
) -> Result<(JsValue, js_sys::Array), JsValue> {
    let message = js_sys::Object::new();
    let set = |k: &str, v: &JsValue| Reflect::set(&message, &JsValue::from(k), v).map(|_| ());
    let transfer = js_sys::Array::new();
    let tables = Uint8Array::from(part.tables.as_slice()).buffer();
    transfer.push(&tables);
    let blocks = js_sys::Array::new();
    let per = 1usize << BLOCK_SHIFT;
    let mut bytes: Vec<u8> = Vec::with_capacity(per * 4);
    let mut stacks = part.stacks.iter().peekable();
    while stacks.peek().is_some() {
        bytes.clear();
        for s in stacks.by_ref().take(per) {
            bytes.extend_from_slice(&s.to_le_bytes());
        }
        let block = Uint8Array::from(bytes.as_slice()).buffer();
        transfer.push(&block);
        blocks.push(&block);
    }
    set("kind", &JsValue::from("stacks"))?;
    set("id", &JsValue::from(id))?;
    set("tables", &tables)?;
    set("blocks", &blocks)?;
    set("wasmMemory", &JsValue::from(wasm_memory))?;
    set("passMs", &JsValue::from(times.0))?;
    set("readMs", &JsValue::from(times.1))?;
    Ok((message.into(), transfer))
}

/// The helper's samples' stacks, read from its reply's blocks (outside wasm memory) one block
/// at a time as they are asked for: about in order, so each block is copied in once.
struct BlockReader {
    blocks: js_sys::Array,
    /// The block copied in, and its bytes.
    current: Option<u32>,
    bytes: Vec<u8>,
}

impl BlockReader {
    fn new(blocks: js_sys::Array) -> BlockReader {
        BlockReader {
            blocks,
            current: None,
            bytes: Vec::new(),
        }
    }

    fn into_fn(mut self) -> impl FnMut(u32) -> Option<u32> {
        move |k| self.get(k)
    }

    /// The stack of the `k`-th sample.
    fn get(&mut self, k: u32) -> Option<u32> {
        let block = k >> BLOCK_SHIFT;
        if self.current != Some(block) {
            let buffer = self.blocks.get(block).dyn_into::<ArrayBuffer>().ok()?;
            let array = Uint8Array::new(&buffer);
            self.bytes.resize(array.length() as usize, 0);
            array.copy_to(&mut self.bytes);
            self.current = Some(block);
        }
        let at = (k & ((1 << BLOCK_SHIFT) - 1)) as usize * 4;
        let bytes = self.bytes.get(at..at + 4)?;
        bytes.try_into().ok().map(u32::from_le_bytes)
    }
}

/// How many cores the browser says this machine has (1 when it does not say).
pub fn cores() -> f64 {
    Reflect::get(&js_sys::global(), &JsValue::from("navigator"))
        .and_then(|n| Reflect::get(&n, &JsValue::from("hardwareConcurrency")))
        .ok()
        .and_then(|c| c.as_f64())
        .unwrap_or(1.0)
}

thread_local! {
    /// In the helper: the slices forwarded to it ([`StackHelper::forward`]), in order.
    static FORWARDED: RefCell<VecDeque<(f64, Option<ArrayBuffer>)>> = const { RefCell::new(VecDeque::new()) };
    /// In the helper: resolves the wait for the next forwarded slice.
    static WAITING: RefCell<Option<js_sys::Function>> = const { RefCell::new(None) };
}

/// In the helper: keeps `data` when it is a forwarded slice (then `true`: not a request).
pub fn take_forwarded(data: &JsValue) -> bool {
    let field = |name: &str| Reflect::get(data, &JsValue::from(name)).ok();
    if field("op").and_then(|o| o.as_string()).as_deref() != Some("slice") {
        return false;
    }
    let at = field("at").and_then(|a| a.as_f64()).unwrap_or(-1.0);
    let buffer = field("buffer").and_then(|b| b.dyn_into::<ArrayBuffer>().ok());
    FORWARDED.with_borrow_mut(|q| q.push_back((at, buffer)));
    if let Some(wake) = WAITING.take() {
        let _ = wake.call0(&JsValue::NULL);
    }
    true
}

/// In the helper: the next forwarded slice, as (offset, bytes); `None` when the rest is to be
/// read from the file.
pub async fn next_forwarded() -> Option<(u64, Uint8Array)> {
    loop {
        if let Some((at, buffer)) = FORWARDED.with_borrow_mut(VecDeque::pop_front) {
            return buffer
                .filter(|_| at >= 0.0)
                .map(|b| (at as u64, Uint8Array::new(&b)));
        }
        let wait = Promise::new(&mut |resolve, _| WAITING.set(Some(resolve)));
        let _ = JsFuture::from(wait).await;
    }
}
