//! A second instance of the worker's wasm that decompresses a `perf record -z` file's records
//! for the analysis worker, on another core: it reads the file's slices itself, decompresses
//! the compressed records they complete (`RecordStream::inflate_only`), and sends each slice
//! with its decompressed bytes ([`Inflater::next`]); the analysis worker frames and decodes
//! them (`Opening::supply_inflated`) instead of decompressing them too. zstd took ~20 % of the
//! records pass of a compressed recording in the page (session 28).
//!
//! For a file without compressed records (32 MiB or more, or any with `?order=1`; never with
//! `?order=0`), the same worker puts the records in time order and decodes the samples instead
//! ([`Inflater::begin_ordering`], `crate::session::OrderPass`): each slice comes with what the
//! analysis worker's loader is to take for it ([`InflatedSlice::ops`]) and what its records
//! index and summary are to ([`InflatedSlice::tally`]), not the slice, which the analysis
//! worker does not read (BENCHMARKS.md, sessions 34 and 35). By default a compressed file's
//! records (12 MiB or more) are ordered so too, that worker taking the slices and their
//! decompressed bytes from an inflater of its own (`order_records` in `crate::worker`,
//! [`Inflater::start`] called in a worker: three workers on the records; BENCHMARKS.md,
//! session 40).
//!
//! The inflater runs [`AHEAD`] slices ahead of the one being decoded at most (each slice's
//! decompressed bytes are ~8× its size): the analysis worker gives it a credit for each slice
//! it took ([`Inflater::more`]). If it fails, the analysis worker decompresses the rest itself
//! (`Opening::inflate_here`).

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use js_sys::{ArrayBuffer, Float64Array, Promise, Reflect, Uint8Array};
use perfscope_format::compression::{decompression_failure, DECOMPRESSION_FAILURES};
use perfscope_format::stream::{Inflated, InflatedRecord, StreamDecoder};
use perfscope_format::Endianness;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, MessageEvent, Worker};

use crate::protocol::js::{describe_js_error, packet_from_js};
use crate::protocol::WorkerMessage;

/// Slices decompressed ahead of the one being decoded, at most.
pub const AHEAD: u32 = 3;

/// Slices the inflater has the browser read ahead of the one it decompresses.
pub const READ_AHEAD: usize = 3;

/// How long (ms) the analysis worker waits for the inflater's next slice before it takes the
/// inflater for stuck and decompresses the rest itself. A slice takes it ~25 ms; giving up
/// on a slow one only costs time.
pub const PATIENCE_MS: f64 = 5_000.0;

/// Compressed files with fewer bytes of records than this are decompressed by the analysis
/// worker itself: starting another takes longer than their zstd.
pub const INFLATE_MIN_BYTES: u64 = 4 << 20;

/// The analysis worker's script, started as a second instance of this wasm (see
/// `crate::stack_helper`).
const WORKER_SCRIPT: &str = "./worker_loader.js?inflater&module";

/// A slice as the inflater sent it.
pub struct InflatedSlice {
    /// Its file offset.
    pub at: u64,
    /// Its bytes.
    pub raw: Uint8Array,
    /// The decompressed bytes of the compressed records it completes.
    pub inflated: Inflated,
    /// When ordering: what the loader is to take for it, and what the records index and the
    /// summary are to (`Opening::take_ordered`).
    pub ops: Option<Vec<u8>>,
    /// When ordering: what the records index and the summary are to take for it, or why it
    /// could not be read.
    pub tally: Option<Result<crate::session::records_index::Tally, String>>,
    /// The buffers that brought the decompressed bytes and the operations, copied out: given
    /// back to the inflater with the credit for the next slice ([`Inflater::more`]).
    pub spares: js_sys::Array,
    /// When the inflater began to wait for its bytes, began to decompress them, and sent it
    /// (ms since the epoch, as `performance.timeOrigin + performance.now()`).
    pub times: [f64; 3],
    /// The inflater's wasm memory then, bytes.
    pub wasm_memory: f64,
    /// When ordering: whether a third worker (the ordering worker's own inflater) decompressed
    /// its compressed records.
    pub inflated_elsewhere: bool,
}

/// What came from the inflater, in order.
enum Answer {
    Slice(JsValue),
    Failed(String),
}

#[derive(Default)]
struct Inbox {
    answers: RefCell<VecDeque<Answer>>,
    /// Resolves the wait for the next answer.
    waiting: RefCell<Option<js_sys::Function>>,
    /// A message could not be posted to it.
    broken: Cell<bool>,
    /// It said `ready` (its wasm is running).
    ready: Cell<bool>,
    /// The request to post once it is ready.
    request: RefCell<Option<JsValue>>,
}

impl Inbox {
    fn put(&self, answer: Answer) {
        self.answers.borrow_mut().push_back(answer);
        if let Some(wake) = self.waiting.take() {
            let _ = wake.call0(&JsValue::NULL);
        }
    }

    /// Posts `request` to `worker`; an answer says why not when it cannot be posted.
    fn post(&self, worker: &Worker, request: &JsValue) {
        if let Err(error) = worker.post_message(request) {
            self.put(Answer::Failed(describe_js_error(&error)));
        }
    }
}

/// The inflater worker, running. Terminated when dropped.
pub struct Inflater {
    worker: Worker,
    /// Whether it orders records ([`Inflater::begin_ordering`]) rather than decompresses them.
    ordering: Cell<bool>,
    inbox: Rc<Inbox>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

impl Inflater {
    /// Starts an inflater, which waits for [`Inflater::begin`]: started before a file comes,
    /// it is ready when one does (starting one takes ~0.1 s).
    pub fn start() -> Result<Inflater, JsValue> {
        // The page's settings (`?inflatewarm=`, …) passed on.
        let search = crate::worker::location_search();
        let worker = Worker::new(&format!(
            "{WORKER_SCRIPT}&{}",
            search.trim_start_matches('?')
        ))?;
        let first = js_sys::Object::new();
        Reflect::set(&first, &JsValue::from("module"), &wasm_bindgen::module())?;
        if let Err(e) = worker.post_message(&first) {
            worker.terminate();
            return Err(e);
        }
        let inbox = Rc::new(Inbox::default());
        let target = worker.clone();
        let to = inbox.clone();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            let data = e.data();
            let kind = Reflect::get(&data, &JsValue::from("kind"))
                .ok()
                .and_then(|k| k.as_string());
            match kind.as_deref() {
                Some("ready") => {
                    to.ready.set(true);
                    if let Some(request) = to.request.take() {
                        to.post(&target, &request);
                    }
                }
                Some("inflated") => to.put(Answer::Slice(data)),
                Some("failed") => {
                    let why = match packet_from_js(&data).and_then(WorkerMessage::from_packet) {
                        Ok(WorkerMessage::Failed(_, f)) => f.message,
                        _ => "the decompressing worker failed".into(),
                    };
                    to.put(Answer::Failed(why));
                }
                _ => {}
            }
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        let to = inbox.clone();
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
            e.prevent_default();
            to.put(Answer::Failed("the decompressing worker stopped".into()));
        });
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Ok(Inflater {
            worker,
            ordering: Cell::new(false),
            inbox,
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    /// Has the inflater decompress `records`, the records of `blob` (as
    /// `Opening::compressed_records` says), read in slices of `slice` bytes (the slices the
    /// analysis worker's pass reads). Once per inflater.
    pub fn begin(&self, blob: &Blob, records: (u64, u64, Endianness), slice: usize, pipe: bool) {
        self.ask(blob, records, slice, false, pipe);
    }

    /// Has the inflater put the records of `blob` in time order and decode its samples instead
    /// (`crate::session::OrderPass`), read in slices of `slice` bytes (the analysis worker's
    /// `Opening::slice`); `compressed_pipe`: `blob` is a pipe-mode stream whose records are
    /// compressed (`Opening::compressed_pipe`), which it has an inflater of its own
    /// decompress. Once per inflater.
    pub fn begin_ordering(&self, blob: &Blob, slice: usize, compressed_pipe: bool) {
        self.ordering.set(true);
        self.ask(
            blob,
            (0, 0, Endianness::Little),
            slice,
            true,
            compressed_pipe,
        );
    }

    fn ask(
        &self,
        blob: &Blob,
        records: (u64, u64, Endianness),
        slice: usize,
        order: bool,
        pipe: bool,
    ) {
        let (start, end, endian) = records;
        let request = crate::protocol::js::Request::Inflate {
            id: 1,
            blob: blob.clone(),
            start,
            end,
            big_endian: endian == Endianness::Big,
            slice: u32::try_from(slice).unwrap_or(u32::MAX),
            order,
            pipe,
        }
        .to_js();
        if self.inbox.ready.get() {
            self.inbox.post(&self.worker, &request);
        } else {
            self.inbox.request.replace(Some(request));
        }
    }

    /// The next slice, which must start at `at`; or why the inflater cannot send it (also
    /// when it sent nothing for [`PATIENCE_MS`]).
    pub async fn next(&self, at: u64) -> Result<InflatedSlice, String> {
        let who = if self.ordering.get() {
            "the ordering worker"
        } else {
            "the decompressing worker"
        };
        if self.inbox.broken.get() {
            return Err(format!("a message could not be posted to {who}"));
        }
        let since = crate::worker::now_ms();
        loop {
            let answer = self.inbox.answers.borrow_mut().pop_front();
            match answer {
                Some(Answer::Slice(data)) => {
                    let slice = read_slice(&data)?;
                    if slice.at != at {
                        return Err(format!(
                            "{who} sent the slice at {} for the one at {at}",
                            slice.at
                        ));
                    }
                    return Ok(slice);
                }
                Some(Answer::Failed(why)) => return Err(why),
                None => {
                    let left = PATIENCE_MS - (crate::worker::now_ms() - since);
                    if left <= 0.0 {
                        return Err(format!("{who} sent nothing for {} s", PATIENCE_MS / 1e3));
                    }
                    // Woken by its next answer, or when the patience runs out.
                    let inbox = self.inbox.clone();
                    let mut timer = None;
                    let wait = Promise::new(&mut |resolve, _| {
                        timer = crate::worker::scope()
                            .set_timeout_with_callback_and_timeout_and_arguments_0(
                                &resolve,
                                left.ceil() as i32,
                            )
                            .ok();
                        inbox.waiting.replace(Some(resolve));
                    });
                    let _ = JsFuture::from(wait).await;
                    if let Some(t) = timer {
                        crate::worker::scope().clear_timeout_with_handle(t);
                    }
                }
            }
        }
    }

    /// Lets the inflater decompress one slice more (the analysis worker took one), and gives
    /// it back the buffers `spares` (the slice's, whose bytes were copied out) to send the
    /// next ones in: a new 8 MiB buffer per slice took the inflater ~11 ms to make and fill
    /// against ~1.4 ms to fill one it had (its pages faulted in and zeroed each time).
    pub fn more(&self, spares: &js_sys::Array) {
        let message = js_sys::Object::new();
        let posted = Reflect::set(&message, &JsValue::from("op"), &JsValue::from("more"))
            .and_then(|_| Reflect::set(&message, &JsValue::from("spares"), spares))
            .and_then(|_| self.worker.post_message_with_transfer(&message, spares));
        if posted.is_err() {
            self.inbox.broken.set(true);
        }
    }
}

impl Drop for Inflater {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}

/// The `inflated` message's slice.
fn read_slice(data: &JsValue) -> Result<InflatedSlice, String> {
    let field = |name: &str| Reflect::get(data, &JsValue::from(name)).ok();
    let buffer = |name: &str| -> Result<JsValue, String> {
        field(name)
            .filter(|b| b.is_instance_of::<ArrayBuffer>())
            .ok_or_else(|| format!("the decompressing worker's slice has no `{name}`"))
    };
    let at = field("at")
        .and_then(|a| a.as_f64())
        .filter(|a| *a >= 0.0)
        .ok_or("the decompressing worker's slice has no offset")?;
    let raw = Uint8Array::new(&buffer("raw")?);
    let spares = js_sys::Array::new();
    // The decompressed bytes and the operations: views of buffers that go back to the inflater
    // once copied.
    let view = |name: &str| {
        let v = field(name)?.dyn_into::<Uint8Array>().ok()?;
        let bytes = v.to_vec();
        spares.push(&v.buffer());
        Some(bytes)
    };
    let bytes = view("bytes").ok_or("the decompressing worker's slice has no `bytes`")?;
    let table = Float64Array::new(&buffer("records")?).to_vec();
    let records = table
        .chunks_exact(3)
        .filter_map(|r| match *r {
            [offset, len, failure] => Some(InflatedRecord {
                offset: offset as u64,
                len: len as u64,
                failure: match failure as usize {
                    0 => None,
                    i => Some(
                        DECOMPRESSION_FAILURES
                            .get(i - 1)
                            .copied()
                            .unwrap_or("the decompressing worker failed"),
                    ),
                },
            }),
            _ => None,
        })
        .collect();
    let ops = view("ops");
    let tally = field("tally")
        .and_then(|t| t.as_string())
        .map(|t| serde_json::from_str(&t).map_err(|e| format!("the ordering worker's tally: {e}")));
    Ok(InflatedSlice {
        at: at as u64,
        raw,
        inflated: Inflated { bytes, records },
        ops,
        tally,
        spares,
        wasm_memory: field("wasmMemory").and_then(|m| m.as_f64()).unwrap_or(0.0),
        inflated_elsewhere: field("inflatedElsewhere").is_some_and(|v| v.is_truthy()),
        times: {
            let times = field("times").map(|t| Float64Array::new(&t).to_vec());
            let time = |i: usize| {
                times
                    .as_ref()
                    .and_then(|t| t.get(i))
                    .copied()
                    .unwrap_or(0.0)
            };
            [time(0), time(1), time(2)]
        },
    })
}

/// In the inflater: the `inflated` message of the slice at `at` (`raw` its bytes), with what
/// decompressing it made (or, ordering, what the loader is to take, `ops`, and what the
/// records index and the summary are to, `tally`: [`crate::session::OrderPass`]; and whether
/// a third worker decompressed its records, [`InflatedSlice::inflated_elsewhere`]), the
/// [`InflatedSlice::times`] and its wasm memory, and what to transfer.
pub fn slice_message(
    at: u64,
    raw: &Uint8Array,
    inflated: &Inflated,
    ops: Option<(&[u8], &crate::session::records_index::Tally, bool)>,
    times: [f64; 3],
    wasm_memory: f64,
) -> Result<(JsValue, js_sys::Array), JsValue> {
    let message = js_sys::Object::new();
    let set = |k: &str, v: &JsValue| Reflect::set(&message, &JsValue::from(k), v).map(|_| ());
    let mut table = Vec::with_capacity(inflated.records.len() * 3);
    for r in &inflated.records {
        let failure = r.failure.map_or(0, |what| {
            decompression_failure(what).map_or(usize::MAX, |i| i + 1)
        });
        table.extend([r.offset as f64, r.len as f64, failure as f64]);
    }
    let records = Float64Array::from(table.as_slice()).buffer();
    let bytes = pooled(&inflated.bytes);
    let raw = raw.buffer();
    set("kind", &JsValue::from("inflated"))?;
    set("at", &JsValue::from(at as f64))?;
    set("raw", &raw)?;
    set("bytes", &bytes)?;
    set("records", &records)?;
    set("times", &Float64Array::from(times.as_slice()))?;
    set("wasmMemory", &JsValue::from(wasm_memory))?;
    let transfer = js_sys::Array::of3(&raw, &bytes.buffer(), &records);
    if let Some((ops, tally, inflated_elsewhere)) = ops {
        set("inflatedElsewhere", &JsValue::from(inflated_elsewhere))?;
        let ops = pooled(ops);
        set("ops", &ops)?;
        transfer.push(&ops.buffer());
        let tally = serde_json::to_string(tally).map_err(|e| JsValue::from(e.to_string()))?;
        set("tally", &JsValue::from(tally))?;
    }
    Ok((message.into(), transfer))
}

/// In the inflater: `bytes` in a view of the smallest buffer given back that holds them
/// ([`take_credit`]), else of a new one with an eighth more room (the next slice's may be a
/// little bigger).
fn pooled(bytes: &[u8]) -> Uint8Array {
    let n = bytes.len();
    let spare = SPARES.with_borrow_mut(|spares| {
        let fits = spares
            .iter()
            .enumerate()
            .filter(|(_, b)| b.byte_length() as usize >= n)
            .min_by_key(|(_, b)| b.byte_length())
            .map(|(i, _)| i);
        fits.map(|i| spares.swap_remove(i))
    });
    let buffer = spare.unwrap_or_else(|| ArrayBuffer::new(n.saturating_add(n / 8) as u32));
    let view = Uint8Array::new_with_byte_offset_and_length(&buffer, 0, n as u32);
    view.copy_from(bytes);
    view
}

/// The slices of `start..end`, `slice` bytes each but the first few and the last: those of
/// the analysis worker's pass (`RecordStream::slices`).
pub fn slices(start: u64, end: u64, slice: usize) -> Vec<(u64, usize)> {
    perfscope_analysis::load::slices(start, start, end, slice as u64).collect()
}

/// In the inflater: a decoder of the records from `start` on, that only decompresses; with
/// `pipe`, of a pipe-mode stream (`start` is 0: its pipe header, which gives the byte order).
pub fn decoder(start: u64, big_endian: bool, pipe: bool) -> StreamDecoder {
    let endian = if big_endian {
        Endianness::Big
    } else {
        Endianness::Little
    };
    let mut d = if pipe {
        StreamDecoder::pipe()
    } else {
        StreamDecoder::records(endian, start)
    };
    d.inflate_only();
    d
}

/// The room an inflater reserves for a slice's decompressed bytes: a compressed file's slices
/// are cut to hold about [`crate::session::SLICE`] bytes of records each
/// (`records_slice`), a quarter more allowed.
pub const INFLATED_ROOM: usize = crate::session::SLICE + crate::session::SLICE / 4;

/// A `perf record -z` recording (26 KB; `tests/data/compressed.cmd`), decompressed by
/// [`warm_up`].
const WARM_UP_FILE: &[u8] = include_bytes!("../../tests/data/compressed.data");

/// In the inflater, before its request: decompresses a small recording's records once, so
/// that the browser compiles the decompressor's code for speed before the file's first slices
/// (a started worker runs it in its baseline compiler first). Returns the bytes decompressed.
pub fn warm_up() -> usize {
    let Ok(header) = perfscope_format::FileHeader::parse(WARM_UP_FILE) else {
        return 0;
    };
    let start = header.data.offset;
    let end = start.saturating_add(header.data.size);
    let Some(records) = usize::try_from(start)
        .ok()
        .zip(usize::try_from(end).ok())
        .and_then(|(s, e)| WARM_UP_FILE.get(s..e))
    else {
        return 0;
    };
    let mut d = decoder(start, header.endian == Endianness::Big, false);
    d.push(records);
    d.finish();
    while d.next_record().is_some() {}
    d.take_inflated().bytes.len()
}

/// A recording without compressed records (`tests/data/example.data`), ordered by
/// [`warm_up_ordering`].
const ORDER_WARM_UP_FILE: &[u8] = include_bytes!("../../tests/data/example.data");

/// In the inflater, before its request: puts a small recording's records in time order once
/// (`crate::session::OrderPass`), for the same reason as [`warm_up`]. Returns the bytes
/// written for the loader.
pub fn warm_up_ordering() -> usize {
    use perfscope_format::file::ReadAt;
    let mut source = crate::session::source::VecSource(ORDER_WARM_UP_FILE.to_vec());
    // (Small slices: the file is 77 KB, a slice's room is reserved.)
    let mut pass = crate::session::OrderPass::open(
        &mut source,
        64 << 10,
        perfscope_analysis::builder::UnknownNames::Module,
        false,
    );
    let mut written = 0;
    while let Some((at, size)) = pass.next_slice() {
        let (ops, tally) = pass.push(at, size, |at, out| source.read_into(at, out));
        // As sent (`slice_message`).
        written += ops.len() + serde_json::to_string(&tally).map_or(0, |t| t.len());
    }
    written
}

thread_local! {
    /// In the inflater: slices it may still decompress before it waits for a credit.
    static CREDITS: Cell<u32> = const { Cell::new(AHEAD) };
    /// In the inflater: resolves the wait for a credit.
    static WAITING: RefCell<Option<js_sys::Function>> = const { RefCell::new(None) };
    /// In the inflater: buffers given back with the credits, to send slices in ([`pooled`]).
    static SPARES: RefCell<Vec<ArrayBuffer>> = const { RefCell::new(Vec::new()) };
}

/// In the inflater: the spare buffers kept at most (the slices sent ahead, twice).
const MAX_SPARES: usize = 2 * (AHEAD as usize + 1);

/// In the inflater: takes `data` when it is a credit ([`Inflater::more`]; then `true`: not a
/// request).
pub fn take_credit(data: &JsValue) -> bool {
    let op = Reflect::get(data, &JsValue::from("op"))
        .ok()
        .and_then(|o| o.as_string());
    if op.as_deref() != Some("more") {
        return false;
    }
    let given = Reflect::get(data, &JsValue::from("spares"))
        .ok()
        .and_then(|s| s.dyn_into::<js_sys::Array>().ok());
    if let Some(given) = given {
        SPARES.with_borrow_mut(|spares| {
            spares.extend(
                given
                    .iter()
                    .filter_map(|b| b.dyn_into::<ArrayBuffer>().ok()),
            );
            // The biggest kept.
            spares.sort_by_key(|b| std::cmp::Reverse(b.byte_length()));
            spares.truncate(MAX_SPARES);
        });
    }
    CREDITS.set(CREDITS.get().saturating_add(1));
    if let Some(wake) = WAITING.take() {
        let _ = wake.call0(&JsValue::NULL);
    }
    true
}

/// In the inflater: waits until it may decompress one more slice, and takes the credit.
pub async fn credit() {
    while CREDITS.get() == 0 {
        let wait = Promise::new(&mut |resolve, _| WAITING.set(Some(resolve)));
        let _ = JsFuture::from(wait).await;
    }
    CREDITS.set(CREDITS.get() - 1);
}
