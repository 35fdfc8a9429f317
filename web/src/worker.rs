//! The analysis worker's JS glue: receives requests, downloads `?url=` files into Blobs, hands
//! files to a [`Session`] that reads them in slices (never whole), and posts its answers as
//! packets with transferred typed arrays.
//! Everything heavy happens here, off the page's main thread.

use std::cell::{Cell, RefCell};

use js_sys::Uint8Array;
use perfscope_analysis::export::share::{from_share, is_share};
use perfscope_analysis::summary::SummaryReader;
use perfscope_format::file::ReadAt;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    Blob, DedicatedWorkerGlobalScope, FileReaderSync, MessageEvent, ReadableStreamDefaultReader,
    Response, WorkerGlobalScope,
};

use crate::protocol::js::{describe_js_error, packet_to_js, NamedBlob, Request};
use crate::protocol::{
    CompareInfo, Failure, Inflation, Phase, Progress, Query, Timings, WorkerMessage,
};
use crate::session::compare::{load_base, Baseline};
use crate::session::share::share_summary;
use crate::session::symbols::{classify, FileKind, SymbolFile};
use crate::session::{Opening, Session, SLICE};
use perfscope_analysis::builder::UnknownNames;
use perfscope_analysis::symbols::compact::{compact_elf, COMPACT_FROM};

thread_local! {
    /// Resolved when the records pass in progress (if any) ends.
    static PASS_DONE: RefCell<Option<js_sys::Promise>> = const { RefCell::new(None) };
    /// The request being handled, so that a panic can still be answered.
    static CURRENT_REQUEST: Cell<u32> = const { Cell::new(0) };
    /// The open file.
    static SESSION: RefCell<Option<Session>> = const { RefCell::new(None) };
    /// The profile the open one is compared with.
    static BASELINE: RefCell<Option<Baseline>> = const { RefCell::new(None) };
    /// The reader worker of the next records pass: started with this worker, kept from one
    /// pass to the next (unless it failed), so that no pass waits for one to start.
    static NEXT_READER: RefCell<Option<SliceReader>> = const { RefCell::new(None) };
    /// The inflater of the next compressed file (see [`start_inflater`]): started with this
    /// worker, and again once a file's records rows are made (an inflater serves one file).
    static NEXT_INFLATER: RefCell<Option<crate::inflater::Inflater>> = const { RefCell::new(None) };
    /// Sessions kept so far (which one [`make_rows`] works for).
    static SESSIONS: Cell<u64> = const { Cell::new(0) };
    /// Whether [`make_rows`] is running.
    static MAKING_ROWS: Cell<bool> = const { Cell::new(false) };
}

/// Installs the message handler and a panic hook that reports to the page. Call once, from
/// the worker's `main`.
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        let message = format!("the analysis worker crashed: {info}");
        web_sys::console::error_1(&JsValue::from(message.as_str()));
        post(WorkerMessage::Failed(
            CURRENT_REQUEST.get(),
            Failure {
                message,
                crashed: true,
            },
        ));
    }));
    let onmessage = Closure::<dyn Fn(MessageEvent)>::new(|event: MessageEvent| {
        let data = event.data();
        // A slice forwarded to this worker as a helper is not a request: the helper's pass
        // (`make_stacks`) takes it; nor is a credit to an inflater (`inflate`).
        if !crate::stack_helper::take_forwarded(&data) && !crate::inflater::take_credit(&data) {
            wasm_bindgen_futures::spawn_local(handle(data));
        }
    });
    scope().set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    onmessage.forget();
    // The analysis worker's reader and inflater, started before any file comes (a second
    // analysis worker, `?module`, reads from the slices it is sent, or itself).
    if !location_search().contains("module") {
        start_reader();
        prestart_inflater();
    }
    post(WorkerMessage::Ready);
    // (A second analysis worker, `?module`, is started for a file: no time to spare. An
    // inflater is started before.)
    if !location_search().contains("module") {
        wasm_bindgen_futures::spawn_local(warm_up());
    } else if location_search().contains("inflater") {
        // Its own reader too, for a file whose records it is to order (`order_records`): a
        // worker started with the file's first slice held that slice back by its start-up.
        if may_order_records() {
            start_reader();
        }
        wasm_bindgen_futures::spawn_local(warm_up_inflater());
    }
}

/// Set by the first request: the warm-up stops at its next round.
static REQUESTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Rounds of [`warm_up`] (~11–17 ms each in Chromium on the 2-core benchmark machine: see
/// BENCHMARKS.md, sessions 23 and 45); `?warm=N` in the page's address sets them
/// (measurements). Session 45 tried 40: a file set 5 s after the page may have opened a little
/// sooner (0.87–0.95×, within this machine's spread), but a file set at once found the cores
/// taken by the rounds still running, and the page's summary came after 161 ms instead of 67
/// (medians); 40 rounds started only after a pause gained nothing.
const WARM_UP_ROUNDS: u32 = 8;

/// While no file has come yet: opens the bundled example recording a few times, as a file is
/// opened ([`crate::session::warm_up`]), so that the browser has compiled the code a file's
/// records pass and first flame graph run with its optimizing compiler before the first file
/// comes. A function first runs in the browser's baseline compiler, and is compiled again for
/// speed only once it has run for a while: the first file's first slice and its first tree
/// otherwise take ~2× as long as a later file's. Each round waits for a task turn first, so a
/// request that comes waits for one round at most, and then no round is started.
async fn warm_up() {
    const EXAMPLE: &[u8] = include_bytes!("../../tests/data/example.data");
    let t0 = now_ms();
    let rounds = query_param("warm")
        .and_then(|r| r.parse().ok())
        .unwrap_or(WARM_UP_ROUNDS);
    for round in 0..rounds {
        next_turn().await;
        if REQUESTED.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
        // Every other round as a big file opens (its records ordered as by another worker).
        // The first round's messages go to the page (its own warm-up, `page_warm_up`).
        if round == 0 {
            for message in crate::session::warm_up_for_page(EXAMPLE) {
                post(message);
            }
        } else {
            crate::session::warm_up(EXAMPLE, round % 2 == 1);
        }
    }
    measure("warm-up", t0);
}

/// In an inflater: whether it may be asked to order a file's records (`order_records`), which
/// `?order=0` in the page's address rules out ([`start_orderer`]).
fn may_order_records() -> bool {
    query_param("order").as_deref() != Some("0")
}

/// Rounds of [`warm_up_inflater`] (~1 ms each).
const INFLATER_WARM_UP_ROUNDS: u32 = 64;

/// In an inflater (see [`crate::inflater::warm_up`]), until its request comes: decompresses
/// a small recording (and, unless `?order=0`, orders another's records) a few times, one round
/// a task.
async fn warm_up_inflater() {
    let t0 = now_ms();
    let rounds = query_param("inflatewarm")
        .and_then(|r| r.parse().ok())
        .unwrap_or(INFLATER_WARM_UP_ROUNDS);
    let ordering = may_order_records();
    for _ in 0..rounds {
        next_turn().await;
        if REQUESTED.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
        crate::inflater::warm_up();
        // (An uncompressed file's records may be ordered here too: `start_orderer`.)
        if ordering {
            crate::inflater::warm_up_ordering();
        }
    }
    measure("inflater warm-up", t0);
}

async fn handle(data: JsValue) {
    REQUESTED.store(true, std::sync::atomic::Ordering::Relaxed);
    // Requests are handled one after the other: one that comes while a records pass waits for
    // its slices (see `push_slices`) waits for the pass to end, as it would have waited when
    // the pass did not yield.
    while let Some(pass) = PASS_DONE.with_borrow(|p| p.clone()) {
        let _ = JsFuture::from(pass).await;
    }
    match Request::from_js(&data) {
        Ok(Request::Files {
            id,
            files,
            slice,
            by_address,
        }) => {
            CURRENT_REQUEST.set(id);
            let names = unknown_names(by_address);
            if let Err(message) = open_files(id, files, slice_size(slice), names, 0.0).await {
                post(WorkerMessage::Failed(
                    id,
                    Failure {
                        message,
                        crashed: false,
                    },
                ));
            }
        }
        Ok(Request::Url {
            id,
            name,
            url,
            slice,
            by_address,
        }) => {
            CURRENT_REQUEST.set(id);
            let t0 = now_ms();
            let result = match download(id, &url).await {
                Ok(blob) => {
                    open_files(
                        id,
                        vec![NamedBlob { name, blob }],
                        slice_size(slice),
                        unknown_names(by_address),
                        now_ms() - t0,
                    )
                    .await
                }
                Err(message) => Err(format!("could not fetch {url}: {message}")),
            };
            if let Err(message) = result {
                post(WorkerMessage::Failed(
                    id,
                    Failure {
                        message,
                        crashed: false,
                    },
                ));
            }
        }
        Ok(Request::Stacks {
            id,
            blob,
            cut,
            slice,
            by_address,
        }) => {
            CURRENT_REQUEST.set(id);
            let t0 = now_ms();
            let made = make_stacks(blob, cut, slice_size(slice), unknown_names(by_address)).await;
            // Whatever goes wrong, the worker waiting for the stacks is answered.
            let sent = made.and_then(|(part, read_ms)| {
                let times = (now_ms() - t0, read_ms);
                crate::stack_helper::reply(id, &part, wasm_memory(), times)
                    .and_then(|(value, transfer)| {
                        scope().post_message_with_transfer(&value, &transfer)
                    })
                    .map_err(|e| describe_js_error(&e))
            });
            if let Err(message) = sent {
                post(WorkerMessage::Failed(
                    id,
                    Failure {
                        message,
                        crashed: false,
                    },
                ));
            }
        }
        Ok(Request::Inflate {
            id,
            blob,
            start,
            end,
            big_endian,
            slice,
            order,
            pipe,
        }) => {
            CURRENT_REQUEST.set(id);
            // The worker waiting for the slices is told why they stopped.
            let inflated = if order {
                order_records(blob, slice_size(slice), pipe).await
            } else {
                inflate(blob, (start, end), big_endian, pipe, slice_size(slice)).await
            };
            if let Err(message) = inflated {
                post(WorkerMessage::Failed(
                    id,
                    Failure {
                        message,
                        crashed: false,
                    },
                ));
            }
        }
        Ok(Request::Compare { id, files }) => {
            CURRENT_REQUEST.set(id);
            match open_base(id, files).await {
                Ok(info) => post(WorkerMessage::Compared(id, info)),
                Err(message) => post(WorkerMessage::Failed(
                    id,
                    Failure {
                        message,
                        crashed: false,
                    },
                )),
            }
        }
        Ok(Request::Query { id, query }) => {
            CURRENT_REQUEST.set(id);
            let start = now_ms();
            let failed = |message: String| {
                WorkerMessage::Failed(
                    id,
                    Failure {
                        message,
                        crashed: false,
                    },
                )
            };
            let kind = query.kind();
            let reply = SESSION.with_borrow_mut(|s| match (s, query) {
                (None, _) => failed("no file is open".into()),
                (
                    Some(s),
                    Query::Export {
                        format,
                        filter,
                        weight,
                        privacy,
                        name,
                    },
                ) => s
                    .export(format, &filter, weight, privacy, &name)
                    .map_or_else(failed, |e| WorkerMessage::Export(id, Box::new(e))),
                (
                    Some(s),
                    q @ Query::Diff {
                        base,
                        weight,
                        off_cpu,
                    },
                ) => BASELINE.with_borrow_mut(|b| match b {
                    Some(b) if b.request == base && b.unknown_names != s.unknown_names() => failed(
                        "the profile to compare with names code without symbols another way (per module or per address): choose it again".into(),
                    ),
                    Some(b) if b.request == base => {
                        let mut d = s.diff(b, weight, off_cpu);
                        d.meta.query = Some(q);
                        WorkerMessage::Diff(id, Box::new(d))
                    }
                    _ => failed("the profile to compare with is no longer open".into()),
                }),
                (Some(s), q) => s.query(id, q),
            });
            let reply = match reply {
                WorkerMessage::Tree(id, mut t) => {
                    t.meta.ms = now_ms() - start;
                    WorkerMessage::Tree(id, t)
                }
                other => other,
            };
            measure(&format!("query {kind}"), start);
            let tree = matches!(reply, WorkerMessage::Tree(..));
            let records = matches!(reply, WorkerMessage::Records(..) | WorkerMessage::Stack(..));
            post(reply);
            // A records query answered from the rows made so far: the rest are made now,
            // between the next requests (a filter needs them all).
            if records
                && !MAKING_ROWS.get()
                && SESSION.with_borrow(|s| s.as_ref().is_some_and(|s| !s.has_rows()))
            {
                wasm_bindgen_futures::spawn_local(make_rows());
            }
            if tree {
                // The timeline's lane lists, made once, after the first tree is sent (the page
                // draws the flame graph meanwhile) rather than when the timeline is first shown.
                let start = now_ms();
                if SESSION.with_borrow(|s| s.as_ref().is_some_and(Session::prepare_timeline)) {
                    measure("timeline lists", start);
                }
                // Then the records index's rows, between the next requests, unless they are
                // to wait for the Records tab (`Session::rows_ahead`).
                let memory = wasm_memory() as u64;
                if !MAKING_ROWS.get()
                    && SESSION.with_borrow(|s| {
                        s.as_ref()
                            .is_some_and(|s| !s.has_rows() && s.rows_ahead(memory))
                    })
                {
                    wasm_bindgen_futures::spawn_local(make_rows());
                } else if !MAKING_ROWS.get() {
                    prestart_inflater();
                }
            }
        }
        Err(message) => post(WorkerMessage::Failed(
            0,
            Failure {
                message,
                crashed: false,
            },
        )),
    }
}

/// How frames without a symbol are named: one per address, or one per module.
fn unknown_names(by_address: bool) -> UnknownNames {
    if by_address {
        UnknownNames::ModuleOffset
    } else {
        UnknownNames::Module
    }
}

/// How much of each dropped file is read to tell what it is: enough for whole lines of folded
/// stacks (a deep stack's line is a few KB) and perf script text.
const HEAD_BYTES: u64 = perfscope_analysis::import::DETECT_BYTES as u64;

/// Reads the files' first bytes and the symbol files, then opens the perf.data, read through
/// [`BlobSource`] in slices of `slice` bytes: the summary from its header first, then one pass
/// over the records (with progress). `read_ms`: time spent downloading it.
async fn open_files(
    id: u32,
    files: Vec<NamedBlob>,
    slice: usize,
    names: UnknownNames,
    read_ms: f64,
) -> Result<(), String> {
    let mut perf_data: Option<NamedBlob> = None;
    let mut perf_data_kind = FileKind::PerfData;
    let mut symbol_blobs = Vec::new();
    for f in files {
        let head = read(&f.blob, 0, HEAD_BYTES)
            .await
            .map_err(|e| format!("could not read {}: {e}", f.name))?;
        match classify(&f.name, &head) {
            kind if kind.is_profile() && perf_data.is_none() => {
                perf_data = Some(f);
                perf_data_kind = kind;
            }
            kind => symbol_blobs.push((f, kind)),
        }
    }
    // A file that is neither a perf.data nor a symbol file, dropped alone, is opened as a
    // perf.data: the summary then says what was expected.
    if perf_data.is_none()
        && symbol_blobs.len() == 1
        && symbol_blobs.iter().all(|(_, k)| *k == FileKind::Unknown)
    {
        perf_data = symbol_blobs.pop().map(|(f, _)| f);
    }
    let progress = &mut |p: Progress| post(WorkerMessage::Progress(id, p));
    let Some(perf_data) = perf_data else {
        // (Without an open session: as for DWARF mode, whose needs include the others'.)
        let dwarf_mode = SESSION.with_borrow(|s| s.as_ref().is_none_or(Session::dwarf_mode));
        let symbol_files =
            read_symbol_files(symbol_blobs, dwarf_mode, &symbols_progress(id)).await?;
        // Symbol files only (or none: another naming of frames without a symbol):
        // re-symbolize the open profile.
        let data = SESSION.with_borrow_mut(|s| {
            s.as_mut().map(|s| {
                s.resymbolize(symbol_files, names, progress, &now_ms);
                s.profile_data()
            })
        });
        return match data {
            Some(data) => {
                let event = data.overview.default_event();
                post(WorkerMessage::Profile(id, Box::new(data)));
                prewarm(event);
                Ok(())
            }
            None => Err(
                "none of these files is a perf.data, and no perf.data is open to use them with"
                    .into(),
            ),
        };
    };
    // Drop the old file first: its memory is needed for the new one.
    SESSION.set(None);
    if matches!(perf_data_kind, FileKind::PerfScript | FileKind::Folded) {
        // perf script text or folded stacks (session/text_input.rs): read whole, then parsed.
        let t0 = now_ms();
        let total = perf_data.blob.size();
        let data = read_all(&perf_data.blob, |n| {
            post(WorkerMessage::Progress(
                id,
                Progress {
                    phase: Phase::Read,
                    bytes: n,
                    total,
                    records: 0.0,
                },
            ))
        })
        .await
        .map_err(|e| format!("could not read {}: {e}", perf_data.name))?;
        let timings = Timings {
            read_ms: read_ms + now_ms() - t0,
            ..Timings::default()
        };
        if let Some(opened) = Session::open_text(&data, &now_ms, timings) {
            let session = opened.map_err(|e| format!("{}: {e}", perf_data.name))?;
            post(WorkerMessage::Summary(
                id,
                Box::new(session.summary().clone()),
            ));
            post_profile(id, session);
            return Ok(());
        }
    }
    // The reader worker's first read of a file takes ~20 ms more than the next ones: it
    // happens while the header and summary are read here.
    warm_reader(&perf_data.blob);
    let t0 = now_ms();
    // The reader worker reads the records' slices from the same file.
    let blob = perf_data.blob.clone();
    let mut source = BlobSource::new(perf_data.blob)?;
    let spent_ms = source.spent_ms.clone();
    let summary = SummaryReader::read_from(&mut source, slice);
    let first = summary.summary();
    let t1 = now_ms();
    // A share file has its names: no symbol files, no records.
    if source.len >= 16 && source.read_at(0, 16).is_ok_and(|head| is_share(&head)) {
        let data = source
            .read_at(0, source.len)
            .map_err(|e| format!("could not read {}: {e}", perf_data.name))?;
        let shared = from_share(&data).map_err(|e| format!("{}: {e}", perf_data.name))?;
        let summary = share_summary(&shared, data.len() as u64);
        post(WorkerMessage::Summary(id, Box::new(summary.clone())));
        let timings = Timings {
            read_ms,
            summary_ms: t1 - t0,
            ..Timings::default()
        };
        post_profile(id, Session::open_share(data, shared, summary, timings));
        return Ok(());
    }
    post(WorkerMessage::Summary(id, Box::new(first.clone())));
    let timings = Timings {
        read_ms,
        summary_ms: t1 - t0,
        ..Timings::default()
    };
    measure("summary read", t0);
    let t2 = now_ms();
    let mut opening = Session::begin(
        Box::new(source),
        summary,
        Vec::new(),
        names,
        slice,
        &now_ms,
        timings,
    );
    // The first slices are read while the symbol files are (after the summary: it shows
    // first), which the pass needs from its first record on.
    let mut reads = SliceReads::start(&mut opening, &blob);
    if !symbol_blobs.is_empty() {
        let t3 = now_ms();
        let progress = symbols_progress(id);
        let read = read_symbol_files(symbol_blobs, opening.dwarf_mode(), &progress);
        let symbol_files = match read.await {
            Ok(files) => files,
            Err(e) => {
                // The pass does not start: its reader serves the next file.
                reads.keep_reader();
                return Err(e);
            }
        };
        measure("symbol files read", t3);
        let t4 = now_ms();
        opening.add_symbols(symbol_files, t4 - t3, &now_ms);
        measure("resolver", t4);
    }
    measure("begin", t2);
    let helper = start_helper(&mut opening, &blob, names);
    let (waited_ms, inflation, inflater_memory) = push_slices(
        &mut opening,
        reads,
        helper.as_ref(),
        &blob,
        progress,
        &mut Previews::new(id),
    )
    .await;
    let helped = match helper {
        Some(h) => {
            let waiting = now_ms();
            let reply = h.finish().await;
            measure("second worker wait", waiting);
            opening.set_part(reply.part);
            Some((
                reply.ms,
                reply.ms - reply.pass_ms,
                reply.read_ms,
                reply.wasm_memory,
            ))
        }
        None => None,
    };
    let mut session = opening.finish(progress, &now_ms);
    if let Some((ms, start_ms, read_ms, memory)) = helped {
        let t = session.timings_mut();
        t.helper_ms = ms;
        t.helper_start_ms = start_ms;
        t.helper_read_ms = read_ms;
        t.helper_wasm_memory = memory;
    }
    if *session.summary() != first {
        // Facts from the records (build ids added by perf inject, event names, a pipe stream's
        // late header records, its errors).
        post(WorkerMessage::Summary(
            id,
            Box::new(session.summary().clone()),
        ));
    }
    session.timings_mut().wasm_memory = wasm_memory();
    session.timings_mut().inflater = inflation;
    session.timings_mut().inflater_wasm_memory = inflater_memory;
    // The slices read for the summary and the records pass (part of their times).
    session.timings_mut().read_ms += spent_ms.get() + waited_ms;
    post_profile(id, session);
    Ok(())
}

/// Reads the symbol files dropped with a recording (or alone), with progress. An ELF file is
/// read only as far as naming frames needs (and, in `dwarf_mode`, unwinding): the sections of
/// a 297 MB binary that a lookup reads are ~0.1 MB.
async fn read_symbol_files(
    blobs: Vec<(NamedBlob, FileKind)>,
    dwarf_mode: bool,
    progress: &dyn Fn(f64, f64),
) -> Result<Vec<SymbolFile>, String> {
    let total: f64 = blobs.iter().map(|(f, _)| f.blob.size()).sum();
    let mut files = Vec::new();
    let mut done = 0.0;
    // `?compact=BYTES`: another size from which ELF files are read in part (tests: 0).
    let compact_from = query_param("compact")
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(COMPACT_FROM as f64);
    for (f, kind) in blobs {
        if kind == FileKind::Elf && f.blob.size() >= compact_from {
            let mut source = BlobSource::new(f.blob.clone())?;
            let compacted = compact_elf(&mut source, dwarf_mode)
                .map_err(|e| format!("could not read {}: {e}", f.name))?;
            if let Some(c) = compacted {
                done += f.blob.size();
                progress(done, total);
                files.push(SymbolFile {
                    name: f.name,
                    kind,
                    bytes: c.bytes.into(),
                    part_of: Some(f.blob.size() as u64),
                });
                continue;
            }
        }
        let bytes = read_all(&f.blob, |n| progress(done + n, total))
            .await
            .map_err(|e| format!("could not read {}: {e}", f.name))?;
        done += bytes.len() as f64;
        files.push(SymbolFile {
            name: f.name,
            kind,
            bytes: bytes.into(),
            part_of: None,
        });
    }
    Ok(files)
}

/// Progress of symbol files being read for request `id`, as `read_symbol_files` reports it.
fn symbols_progress(id: u32) -> impl Fn(f64, f64) {
    move |bytes, total| {
        post(WorkerMessage::Progress(
            id,
            Progress {
                phase: Phase::Symbols,
                bytes,
                total,
                records: 0.0,
            },
        ))
    }
}

/// The helper's part (see `crate::stack_helper`): the stacks of the samples of `blob` from
/// `cut` on. The file's header is read here with `FileReaderSync`, its records are cut from
/// the slices the other worker forwards, or read here once it said to. Also returns the time
/// spent reading the file here, ms.
async fn make_stacks(
    blob: Blob,
    cut: u64,
    slice: usize,
    names: UnknownNames,
) -> Result<(perfscope_analysis::load::Part, f64), String> {
    let mut source = BlobSource::new(blob)?;
    let spent_ms = source.spent_ms.clone();
    let mut pass = crate::session::PartPass::open(&mut source, slice, names, cut);
    // The forwarded slice being cut, as (its offset, its bytes); `None` once they ended.
    let mut current = crate::stack_helper::next_forwarded().await;
    while let Some((at, size)) = pass.next_slice() {
        let end = at.saturating_add(size as u64);
        // Past the slice forwarded: the next one.
        while let Some((start, bytes)) = &current {
            if at < start + u64::from(bytes.length()) {
                break;
            }
            current = crate::stack_helper::next_forwarded().await;
        }
        match &current {
            Some((start, bytes)) if *start <= at && end <= start + u64::from(bytes.length()) => {
                let part = bytes.subarray((at - start) as u32, (end - start) as u32);
                pass.push(size, |out| copy_whole(&part, at, out));
            }
            // Not forwarded (read before this worker was ready, or after the other one could
            // no longer forward), or not cut as expected: read here.
            _ => pass.push(size, |out| source.read_into(at, out)),
        }
    }
    let part = pass.finish()?;
    Ok((part, spent_ms.get()))
}

/// The inflater's part (see `crate::inflater`): has the browser read the slices of
/// `start..end` of `blob` ([`crate::inflater::READ_AHEAD`] ahead), decompresses the compressed
/// records each completes, and sends each slice with what that made, at most
/// [`crate::inflater::AHEAD`] slices ahead of the worker that takes them.
async fn inflate(
    blob: Blob,
    (start, end): (u64, u64),
    big_endian: bool,
    pipe: bool,
    slice: usize,
) -> Result<(), String> {
    let mut decoder = crate::inflater::decoder(start, big_endian, pipe);
    decoder.reserve_inflated(crate::inflater::INFLATED_ROOM);
    let slices = crate::inflater::slices(start, end, slice);
    let read = |&(at, size): &(u64, usize)| {
        blob.slice_with_f64_and_f64(at as f64, (at + size as u64) as f64)
            .map(|part| JsFuture::from(part.array_buffer()))
            .map_err(|e| format!("could not read the file: {}", describe_js_error(&e)))
    };
    let mut reads = std::collections::VecDeque::new();
    let mut asked = 0;
    let origin = scope().performance().map_or(0.0, |p| p.time_origin());
    for (k, &(at, size)) in slices.iter().enumerate() {
        told_to_fail(k).await?;
        while reads.len() < crate::inflater::READ_AHEAD {
            let Some(s) = slices.get(asked) else { break };
            reads.push_back(read(s)?);
            asked += 1;
        }
        let t0 = now_ms();
        let buffer = reads
            .pop_front()
            .ok_or("a slice was not read")?
            .await
            .map_err(|e| format!("could not read the file: {}", describe_js_error(&e)))?;
        let raw = Uint8Array::new(&buffer);
        crate::inflater::credit().await;
        let t1 = now_ms();
        decoder
            .push_with(size, |out| copy_whole(&raw, at, out))
            .map_err(|e| e.to_string())?;
        // Only the input's own records come out (the compressed ones' are kept).
        while decoder.next_record().is_some() {}
        let times = [t0 + origin, t1 + origin, now_ms() + origin];
        let none = perfscope_format::stream::Inflated::default();
        let inflated = decoder.inflated().unwrap_or(&none);
        crate::inflater::slice_message(at, &raw, inflated, None, times, wasm_memory())
            .and_then(|(message, transfer)| scope().post_message_with_transfer(&message, &transfer))
            .map_err(|e| describe_js_error(&e))?;
        // (Copied out: the next slice's bytes go into the same memory.)
        decoder.clear_inflated();
    }
    Ok(())
}

/// In an inflater, before its `k`-th slice: the failure the page's address asks for (tests:
/// `?inflatefail=K`, the inflater fails at its K-th slice; `?inflatestall=K`, it stops
/// answering there).
async fn told_to_fail(k: usize) -> Result<(), String> {
    let at = |name: &str| query_param(name).and_then(|v| v.parse::<usize>().ok()) == Some(k);
    if at("inflatefail") {
        return Err(format!("told to fail at slice {k} (inflatefail)"));
    }
    if at("inflatestall") {
        let never = js_sys::Promise::new(&mut |_, _| {});
        let _ = JsFuture::from(never).await;
    }
    Ok(())
}

thread_local! {
    /// The number of the ordering worker's next pass (its reads are asked for under it).
    static NEXT_PASS: Cell<u32> = const { Cell::new(1) };
}

/// Full slices the ordering worker has its reader read at a time (see
/// [`crate::session::read_groups`]).
const READ_GROUP: usize = 2;

/// A read of one or more of the ordering worker's slices, being taken apart.
struct GroupRead {
    /// Its offset in the file and the bytes asked for.
    at: u64,
    size: usize,
    /// What the browser read (fewer bytes than asked if the file was cut short).
    buffer: JsValue,
    bytes: Uint8Array,
    /// Its slices not taken yet.
    left: usize,
}

/// The ordering worker's part (see `crate::inflater` and [`crate::session::OrderPass`]): reads
/// the header of `blob` with `FileReaderSync`, has its own reader worker read its records'
/// slices ([`READ_GROUP`] full slices a read, [`crate::inflater::READ_AHEAD`] slices ahead, into
/// the buffers of the reads before, handed back: with a new buffer per slice the waits for
/// reads were 3–4× as long), puts the
/// records in time order, tallies them and decodes the samples, and sends each slice's tally
/// and what it wrote for the analysis worker's loader (not the slice), at most
/// [`crate::inflater::AHEAD`] slices ahead of it.
///
/// A compressed file's slices come instead from an inflater of this worker's own, with their
/// records decompressed (three workers on the records: decompressing, ordering, loading);
/// without one (it could not start), this worker decompresses them itself. If the inflater
/// fails, so does this worker (the analysis worker then orders the rest itself).
async fn order_records(blob: Blob, slice: usize, compressed_pipe: bool) -> Result<(), String> {
    let mut source = BlobSource::new(blob.clone())?;
    // The writer does not name frames: how does not matter.
    let mut pass =
        crate::session::OrderPass::open(&mut source, slice, UnknownNames::Module, compressed_pipe);
    if let Some(why) = pass.failure() {
        return Err(why.to_string());
    }
    let inflater = pass
        .compressed_records()
        .and_then(|records| start_own_inflater(&blob, records, slice, compressed_pipe));
    // Its own reader worker (started with this worker, before the file came: `start_reader`)
    // reads the slices into buffers handed back to it (as the analysis worker's does:
    // `SliceReads`); without one, the browser reads each into a new buffer.
    let reader = (inflater.is_none() && !location_search().contains("reader=0"))
        .then(|| NEXT_READER.take().map_or_else(SliceReader::start, Ok))
        .and_then(Result::ok);
    // The pass's reads come in order, up to the end of its last slice: the reader reads them
    // from one stream (fewer reads for the browser).
    let pass_id = NEXT_PASS.with(|n| n.replace(n.get().wrapping_add(1)));
    let slices = pass.slices();
    let pass_end = slices.last().map_or(0, |&(at, size)| at + size as u64);
    let read = |at: u64, size: usize| match &reader {
        Some(r) => Ok(r.request_of(&blob, at, size, Some((pass_id, pass_end)))),
        None => blob
            .slice_with_f64_and_f64(at as f64, (at + size as u64) as f64)
            .map(|part| JsFuture::from(part.array_buffer()))
            .map_err(|e| format!("could not read the file: {}", describe_js_error(&e))),
    };
    // The slices, known from the header (the pass may end sooner, at a broken record), read
    // READ_GROUP full slices at a time by the reader worker (one slice a read without one: a
    // slice's buffer is then sent on whole).
    let group = if reader.is_some() { READ_GROUP } else { 1 };
    let groups = crate::session::read_groups(&slices, slice, group);
    let mut reads = std::collections::VecDeque::new();
    let mut asked = 0;
    // The read being taken slices from.
    let mut current: Option<GroupRead> = None;
    let origin = scope().performance().map_or(0.0, |p| p.time_origin());
    let mut k = 0;
    // The inflater's wasm memory at its last slice (reported with this worker's).
    let mut inflater_memory = 0.0;
    while let Some((at, size)) = pass.next_slice() {
        told_to_fail(k).await?;
        let t0 = now_ms();
        // The slice's bytes, and the buffer to hand back to the reader once read.
        let (raw, buffer) = match &inflater {
            Some(inflater) => {
                let slice = inflater.next(at).await?;
                inflater_memory = slice.wasm_memory;
                pass.supply_inflated(slice.inflated);
                inflater.more(&slice.spares);
                (slice.raw, None)
            }
            None => {
                if current.is_none() {
                    // (As many slices ahead as before, in fewer reads.)
                    while reads.len() < crate::inflater::READ_AHEAD.div_ceil(group) {
                        let Some(&(a, n, count)) = groups.get(asked) else {
                            break;
                        };
                        reads.push_back((a, n, count, read(a, n)?));
                        asked += 1;
                    }
                    let (read_at, n, count, future) =
                        reads.pop_front().ok_or("a slice was not read")?;
                    let buffer = future.await.map_err(|e| {
                        format!("could not read the file: {}", describe_js_error(&e))
                    })?;
                    current = Some(GroupRead {
                        at: read_at,
                        size: n,
                        bytes: Uint8Array::new(&buffer),
                        buffer,
                        left: count,
                    });
                }
                let Some(group) = current.as_mut() else {
                    return Err("a slice was not read".into());
                };
                // The slice's place in its read (which holds fewer bytes if the file was cut
                // short meanwhile: the slice is then short too, and its copy says so).
                let from = at.checked_sub(group.at).and_then(|d| u32::try_from(d).ok());
                let to = from.and_then(|f| f.checked_add(u32::try_from(size).ok()?));
                let (Some(from), Some(to)) = (from, to.filter(|&t| t as usize <= group.size))
                else {
                    return Err(format!(
                        "read the slice at {} for the one at {at}",
                        group.at
                    ));
                };
                let length = group.bytes.length();
                let raw = group.bytes.subarray(from.min(length), to.min(length));
                group.left -= 1;
                // The read's buffer goes back to the reader after its last slice.
                let done = (group.left == 0).then(|| group.buffer.clone());
                if done.is_some() {
                    current = None;
                }
                (raw, done)
            }
        };
        crate::inflater::credit().await;
        let t1 = now_ms();
        // (In parts, nested in the slice: see `OrderPass::open`.)
        let (ops, tally) = pass.push(at, size, |part, out| {
            let from = (part - at) as u32;
            let bytes = raw.subarray(from, from.saturating_add(out.len() as u32));
            copy_whole(&bytes, part, out)
        });
        let times = [t0 + origin, t1 + origin, now_ms() + origin];
        let none = perfscope_format::stream::Inflated::default();
        let ordered = Some((ops, &tally, inflater.is_some()));
        // The analysis worker does not read the slice: its read's buffer goes back to the
        // reader once its last slice is done (an inflater's is dropped).
        let raw = match &reader {
            Some(r) => {
                if let Some(b) = buffer
                    .as_ref()
                    .and_then(|b| b.dyn_ref::<js_sys::ArrayBuffer>())
                {
                    r.give_back(b);
                }
                Uint8Array::new_with_length(0)
            }
            None if inflater.is_some() => Uint8Array::new_with_length(0),
            None => raw,
        };
        let memory = wasm_memory() + inflater_memory;
        crate::inflater::slice_message(at, &raw, &none, ordered, times, memory)
            .and_then(|(message, transfer)| scope().post_message_with_transfer(&message, &transfer))
            .map_err(|e| describe_js_error(&e))?;
        k += 1;
    }
    // Ended before the last slice (at a broken record): the analysis worker, which may read
    // on, orders the rest itself.
    match slices.get(k) {
        Some((at, _)) => Err(format!("the records ended before {at}")),
        None => Ok(()),
    }
}

/// In an ordering worker, its own inflater for a compressed file's `records` (as
/// `OrderPass::compressed_records` gives them), read in slices of `slice` bytes; `None` (with
/// a warning: this worker then decompresses them itself) when none can start.
fn start_own_inflater(
    blob: &Blob,
    records: (u64, u64, perfscope_format::Endianness),
    slice: usize,
    pipe: bool,
) -> Option<crate::inflater::Inflater> {
    match crate::inflater::Inflater::start() {
        Ok(inflater) => {
            inflater.begin(blob, records, slice, pipe);
            Some(inflater)
        }
        Err(e) => {
            web_sys::console::warn_1(&JsValue::from(format!(
                "no decompressing worker ({}): the ordering worker decompresses the records",
                describe_js_error(&e)
            )));
            None
        }
    }
}

/// Starts the worker that makes the later samples' stacks ([`crate::stack_helper`]) when
/// `opening`'s file is big enough, allows it, and the machine has [`MIN_CORES`] cores or more.
/// `?share=F` in the page's address sets the fraction of the records whose stacks this worker
/// makes (`?share=off`: no helper). None while another worker orders the records (by default
/// for a big uncompressed file: [`start_orderer`]).
fn start_helper(
    opening: &mut Opening,
    blob: &Blob,
    names: UnknownNames,
) -> Option<crate::stack_helper::StackHelper> {
    use crate::stack_helper::{cores, StackHelper, MIN_CORES, SHARE_FRACTION, SHARE_MIN_BYTES};
    let search = location_search();
    // Without the reader worker this one reads the file without yielding: it could neither
    // hear the helper nor forward it slices. Nor is there one with a worker that orders the
    // records (the second core is busy).
    if search.contains("reader=0") || opening.ordered_elsewhere() {
        return None;
    }
    let asked = query_param("share");
    let fraction = match asked.as_deref() {
        Some("off") => return None,
        Some(f) => f.parse::<f64>().ok().unwrap_or(SHARE_FRACTION),
        None if blob.size() < SHARE_MIN_BYTES || cores() < MIN_CORES => return None,
        None => SHARE_FRACTION,
    };
    let cut = opening.stack_cut(fraction)?;
    let by_address = names == UnknownNames::ModuleOffset;
    match StackHelper::start(blob, cut, opening.slice(), by_address) {
        Ok(h) => {
            opening.share_stacks(cut);
            Some(h)
        }
        Err(e) => {
            web_sys::console::warn_1(&JsValue::from(format!(
                "no second worker ({}): this one makes every stack",
                describe_js_error(&e)
            )));
            None
        }
    }
}

/// Keeps `session` as the open one and posts its `profile` message; then, while the page takes
/// that in, builds what its first flame graph will ask for ([`Session::prewarm`]).
fn post_profile(id: u32, session: Session) {
    let start = now_ms();
    let profile = session.profile_data();
    let event = profile.overview.default_event();
    SESSION.set(Some(session));
    SESSIONS.set(SESSIONS.get() + 1);
    post(WorkerMessage::Profile(id, Box::new(profile)));
    measure("profile data", start);
    let start = now_ms();
    prewarm(event);
    measure("prewarm", start);
}

/// Makes the open session's records index rows (the records pass only counted the records),
/// a slice at a time, each in a task of its own: a request that comes meanwhile waits for one
/// slice at most. Stops when another file is opened.
async fn make_rows() {
    MAKING_ROWS.set(true);
    let session = SESSIONS.get();
    let start = now_ms();
    loop {
        next_turn().await;
        if SESSIONS.get() != session {
            break;
        }
        let done = SESSION.with_borrow_mut(|s| s.as_mut().is_none_or(Session::rows_step));
        if done {
            measure("records rows", start);
            break;
        }
    }
    MAKING_ROWS.set(false);
    // The next compressed file's inflater, now that the page has its flame graph (started
    // right after the pass, it took a core from the page's first render: 1.36× as long from
    // the pass to the flame graph).
    prestart_inflater();
}

/// [`Session::prewarm`] on the open session.
fn prewarm(event: Option<u32>) {
    SESSION.with_borrow_mut(|s| {
        if let Some(s) = s.as_mut() {
            s.prewarm(event);
        }
    });
}

/// Reads a profile (perf.data or share file, the first such file) and its symbol files as the
/// base of a comparison.
async fn open_base(id: u32, files: Vec<NamedBlob>) -> Result<CompareInfo, String> {
    let mut base: Option<(String, Vec<u8>)> = None;
    let mut symbol_blobs = Vec::new();
    for f in files {
        let head = read(&f.blob, 0, HEAD_BYTES)
            .await
            .map_err(|e| format!("could not read {}: {e}", f.name))?;
        let kind = classify(&f.name, head.get(..512).unwrap_or(&head));
        if base.is_none() && (kind == FileKind::PerfData || is_share(&head)) {
            let bytes = read_all(&f.blob, |_| {})
                .await
                .map_err(|e| format!("could not read {}: {e}", f.name))?;
            base = Some((f.name, bytes));
        } else {
            symbol_blobs.push((f, kind));
        }
    }
    let (name, data) = base.ok_or("none of these files is a perf.data or a share file")?;
    // Its binaries read as far as naming (and, for DWARF-mode stacks, unwinding) needs.
    let dwarf_mode = perfscope_analysis::load::dwarf_mode_of(&data);
    let symbol_files = read_symbol_files(symbol_blobs, dwarf_mode, &|_, _| {}).await?;
    BASELINE.set(None);
    // Named as the open profile's frames are (one per module when none is open).
    let names = SESSION
        .with_borrow(|s| s.as_ref().map(|s| s.unknown_names()))
        .unwrap_or(UnknownNames::Module);
    let base = load_base(&data, &symbol_files, names).map_err(|e| format!("{name}: {e}"))?;
    let info = CompareInfo {
        name: name.clone(),
        samples: base.profile.samples.len() as u64,
    };
    BASELINE.set(Some(Baseline {
        request: id,
        name,
        profile: base.profile,
        off_cpu: base.off_cpu,
        unknown_names: names,
    }));
    Ok(info)
}

/// The slice size asked for, or the default.
fn slice_size(asked: u32) -> usize {
    if asked == 0 {
        SLICE
    } else {
        asked as usize
    }
}

/// Slices read ahead of the one being parsed: 3 × 8 MiB outside wasm memory at most.
const READ_AHEAD: usize = 3;

/// The reads of a records pass's slices on a reader worker (`web/reader.js`), [`READ_AHEAD`]
/// slices ahead of the one being parsed, so that reading the file (13–23 % of the pass when
/// the worker read it itself) overlaps parsing. Started as soon as the slices are known (the
/// first ones are read while the symbol files are), fed to the pass by [`push_slices`].
struct SliceReads {
    slices: Vec<(u64, usize)>,
    reader: Option<SliceReader>,
    /// For a compressed file: the worker that reads the slices and decompresses their records
    /// ([`crate::inflater`]), instead of the reader.
    inflater: Option<crate::inflater::Inflater>,
    /// The reads asked for and not taken yet, in slice order.
    ahead: std::collections::VecDeque<JsFuture>,
    /// The next slice to ask for.
    next: usize,
}

impl SliceReads {
    /// Keeps the reader worker for the next file (unless it failed): started and ready. The
    /// reads still asked for are let go.
    fn keep_reader(&mut self) {
        if let Some(r) = self.reader.take().filter(|r| !r.broken.get()) {
            self.ahead.clear();
            NEXT_READER.set(Some(r));
        }
    }

    /// Asks the reader worker (started before, or now) for the first slices of `opening`.
    /// Without one (`?reader=0` in the worker's address, or it could not start), the pass
    /// reads every slice itself.
    fn start(opening: &mut Opening, blob: &Blob) -> SliceReads {
        let inflater = start_inflater(opening, blob);
        let started = (!location_search().contains("reader=0") && inflater.is_none())
            .then(|| NEXT_READER.take().map_or_else(SliceReader::start, Ok));
        let reader = match started {
            Some(Ok(r)) => Some(r),
            Some(Err(e)) => {
                web_sys::console::warn_1(&JsValue::from(format!(
                    "no reader worker ({}): the file is read by the parser",
                    describe_js_error(&e)
                )));
                None
            }
            None => None,
        };
        let mut reads = SliceReads {
            slices: opening.slices(),
            reader,
            inflater,
            ahead: std::collections::VecDeque::new(),
            next: 0,
        };
        reads.ask(blob);
        reads
    }

    /// Asks for slices until [`READ_AHEAD`] are on their way.
    fn ask(&mut self, blob: &Blob) {
        while let (Some(r), Some(&(a, n))) = (&self.reader, self.slices.get(self.next)) {
            if self.ahead.len() >= READ_AHEAD {
                break;
            }
            self.ahead.push_back(r.request(blob, a, n));
            self.next += 1;
        }
    }
}

/// How often (ms) a records pass tells the page how far it is, at most.
const PROGRESS_EVERY_MS: f64 = 250.0;

/// Feeds `opening` every slice of its records, in order, from `reads`. Without a reader (it
/// could not start, or failed), the rest is read here. Returns the ms spent waiting for
/// slices, whether an inflater decompressed the records, and its wasm memory (bytes).
async fn push_slices(
    opening: &mut Opening,
    mut reads: SliceReads,
    helper: Option<&crate::stack_helper::StackHelper>,
    blob: &Blob,
    progress: &mut dyn FnMut(Progress),
    previews: &mut Previews,
) -> (f64, Inflation, f64) {
    let _pass = PassInProgress::start();
    let mut inflation = match (&reads.inflater, opening.ordered_elsewhere()) {
        (None, _) => Inflation::None,
        (Some(_), false) => Inflation::Used,
        (Some(_), true) => Inflation::Ordered,
    };
    let mut inflater_memory: f64 = 0.0;
    // The page hears how far the pass is at most every PROGRESS_EVERY_MS: each message
    // re-renders its loading view and draws a frame (~25 ms of the page's, compositor's and
    // display's threads, on the cores that also run the pass).
    let mut last_progress = f64::NEG_INFINITY;
    let mut report = |opening: &Opening| {
        let now = now_ms();
        if now - last_progress >= PROGRESS_EVERY_MS {
            last_progress = now;
            progress(opening.progress());
        }
    };
    // (A few hundred at most: a list of positions.)
    let slices = reads.slices.clone();
    let mut waited_ms = 0.0;
    for &(at, size) in &slices {
        let mut pushed = false;
        if let Some(inflater) = &reads.inflater {
            let ordering = opening.ordered_elsewhere();
            let next = slice_wait(inflater.next(at), &mut waited_ms).await;
            // Ordering, each slice comes with what the loader, the records index and the
            // summary are to take.
            let next = next.and_then(|slice| match (&slice.ops, &slice.tally, ordering) {
                (_, Some(Err(why)), true) => Err(why.clone()),
                (Some(_), Some(_), _) | (None, None, false) => Ok(slice),
                _ => Err("the ordering worker sent a slice without its records".into()),
            });
            match next {
                Ok(slice) => {
                    // The inflater's steps, on this worker's clock.
                    let origin = scope().performance().map_or(0.0, |p| p.time_origin());
                    let [read, credited, sent] = slice.times.map(|t| t - origin);
                    measure_between("inflater read", read, credited);
                    measure_between("inflater decompress", credited, sent);
                    inflater_memory = inflater_memory.max(slice.wasm_memory);
                    match (&slice.ops, &slice.tally) {
                        (Some(ops), Some(Ok(tally))) => {
                            if slice.inflated_elsewhere && inflation == Inflation::Ordered {
                                inflation = Inflation::OrderedInflated;
                            }
                            let t = now_ms();
                            if let Err(why) = opening.take_ordered(size, ops, tally) {
                                web_sys::console::error_1(&JsValue::from(why));
                            }
                            measure("deliveries", t);
                        }
                        _ => {
                            opening.supply_inflated(slice.inflated);
                            opening.push(size, |out| copy_whole(&slice.raw, at, out));
                        }
                    }
                    inflater.more(&slice.spares);
                    if let Some(h) = helper {
                        h.forward(at, slice.raw.buffer().dyn_ref());
                    }
                    pushed = true;
                }
                Err(why) if ordering => {
                    web_sys::console::warn_1(&JsValue::from(format!(
                        "{why}: the rest of the file is read and ordered by the parser"
                    )));
                    reads.inflater = None;
                    inflation = Inflation::OrderFailed;
                    opening.order_here();
                }
                Err(why) => {
                    web_sys::console::warn_1(&JsValue::from(format!(
                        "{why}: the rest of the file is read and decompressed by the parser"
                    )));
                    reads.inflater = None;
                    inflation = Inflation::Failed;
                    opening.inflate_here();
                }
            }
        }
        if !pushed {
            reads.ask(blob);
            let got = match reads.ahead.pop_front() {
                Some(read) => slice_wait(read, &mut waited_ms).await.ok(),
                None => None,
            };
            match got {
                Some(buffer) => {
                    let array = Uint8Array::new(&buffer);
                    opening.push(size, |out| copy_whole(&array, at, out));
                    match (helper, &reads.reader) {
                        (Some(h), _) => h.forward(at, buffer.dyn_ref()),
                        // Copied: the reader may read another slice into it.
                        (None, Some(r)) => {
                            if let Some(b) = buffer.dyn_ref() {
                                r.give_back(b);
                            }
                        }
                        (None, None) => {}
                    }
                }
                None => {
                    if reads.reader.take().is_some() {
                        web_sys::console::warn_1(&JsValue::from(
                            "the reader worker failed: the rest of the file is read by the parser",
                        ));
                    }
                    reads.ahead.clear();
                    opening.push_from_source(at, size);
                    if let Some(h) = helper {
                        h.forward(at, None);
                    }
                }
            }
        }
        report(opening);
        if opening.next_slice().is_none() {
            // Read (or ended by an error).
            break;
        }
        previews.maybe_send(opening);
    }
    reads.keep_reader();
    // (An inflater serves one file; the next one is started once the rows are made.)
    drop(reads.inflater.take());
    (waited_ms, inflation, inflater_memory)
}

/// Awaits `wait` (a slice being read or decompressed), adding the time to `waited_ms`; a wait
/// of more than 1 ms is marked "slice wait".
async fn slice_wait<T>(wait: impl std::future::Future<Output = T>, waited_ms: &mut f64) -> T {
    let t0 = now_ms();
    let got = wait.await;
    let waited = now_ms() - t0;
    *waited_ms += waited;
    if waited > 1.0 {
        measure("slice wait", t0);
    }
    got
}

/// Starts the worker that decompresses the records of `opening`'s file for this one
/// ([`crate::inflater`]) when it has compressed records, [`INFLATE_MIN_BYTES`] of records or
/// more, and the machine more than one core: by default, with [`ORDER_MIN_COMPRESSED_BYTES`]
/// or more, a worker that orders the records ([`start_orderer`]) and has a third decompress
/// them. `?inflate=1` in the page's address
/// starts an inflater for this worker for any compressed file (`?inflate=1&order=1`: the
/// ordering worker and its inflater), `?inflate=0` none; `?order=1` the ordering worker for
/// any compressed file. Any other file's records may be ordered by another worker
/// ([`start_orderer`]).
///
/// [`INFLATE_MIN_BYTES`]: crate::inflater::INFLATE_MIN_BYTES
fn start_inflater(opening: &mut Opening, blob: &Blob) -> Option<crate::inflater::Inflater> {
    use crate::inflater::{Inflater, INFLATE_MIN_BYTES};
    let forced = inflater_setting()?;
    let Some(records) = opening.compressed_records() else {
        // A compressed pipe stream's records are ordered elsewhere (a third worker
        // decompressing them) from the size a file's would be.
        let min_bytes = if opening.compressed_pipe() {
            ORDER_MIN_COMPRESSED_BYTES as f64
        } else {
            ORDER_MIN_BYTES
        };
        return start_orderer(opening, blob, min_bytes);
    };
    let bytes = records.1.saturating_sub(records.0);
    let order = query_param("order").as_deref() == Some("1");
    if !forced && !order && (bytes < INFLATE_MIN_BYTES || crate::stack_helper::cores() < 2.0) {
        return None;
    }
    // Ordered by another worker, which has a third decompress them (unless `?inflate=1` asks
    // for this worker's inflater alone): the decompressing, the ordering and the loading
    // each on a worker of its own, rather than the last two on this one.
    if order || (!forced && bytes >= ORDER_MIN_COMPRESSED_BYTES) {
        if let Some(orderer) = start_orderer(opening, blob, 0.0) {
            return Some(orderer);
        }
    }
    match NEXT_INFLATER.take().map_or_else(Inflater::start, Ok) {
        Ok(inflater) => {
            inflater.begin(blob, records, opening.slice(), false);
            Some(inflater)
        }
        Err(e) => {
            web_sys::console::warn_1(&JsValue::from(format!(
                "no decompressing worker ({}): the records are decompressed by the parser",
                describe_js_error(&e)
            )));
            None
        }
    }
}

/// The fewest bytes of compressed records for which a `-z` file's records are ordered by
/// another worker with a third decompressing them, by default ([`start_inflater`]), rather
/// than decompressed by another and ordered by this one: on the 2-core benchmark machine the
/// three workers took 1.03× the time to the flame graph for 6 MB of compressed records (51 MB
/// decompressed), 0.94× for 16 MB and 0.90× for 39 MB (BENCHMARKS.md, session 40).
const ORDER_MIN_COMPRESSED_BYTES: u64 = 12 << 20;

/// The smallest file whose records another worker orders by default ([`start_orderer`]): the
/// analysis worker waits for the first slice to be ordered (~0.1 s for 8 MiB), which only the
/// slices after it, ordered while it takes theirs, win back.
const ORDER_MIN_BYTES: f64 = (32 << 20) as f64;

/// Starts the worker that puts the records of `opening`'s file in time order for this one
/// ([`crate::inflater::Inflater::begin_ordering`]) when the file can be ordered elsewhere
/// ([`Opening::can_order_elsewhere`]), is `min_bytes` or more ([`ORDER_MIN_BYTES`] for an
/// uncompressed file; [`start_inflater`] decides for a compressed one, whose records a third
/// worker decompresses), and the machine has more than one core: on the 2-core benchmark
/// machine the page drew big300-g's flame graph in 0.79–0.88× the time with it (BENCHMARKS.md,
/// session 35). `?order=1` in the page's address starts it for any such file, `?order=0`
/// never; a second worker for the stacks asked for with `?share=F` ([`start_helper`]) takes
/// its place.
fn start_orderer(
    opening: &mut Opening,
    blob: &Blob,
    min_bytes: f64,
) -> Option<crate::inflater::Inflater> {
    let forced = match query_param("order").as_deref() {
        Some("0") => return None,
        Some("1") => true,
        _ => false,
    };
    let helper_asked = query_param("share").is_some_and(|s| s != "off");
    if !opening.can_order_elsewhere() || (!forced && helper_asked) {
        return None;
    }
    if !forced && (blob.size() < min_bytes || crate::stack_helper::cores() < 2.0) {
        return None;
    }
    match NEXT_INFLATER
        .take()
        .map_or_else(crate::inflater::Inflater::start, Ok)
    {
        Ok(orderer) => {
            orderer.begin_ordering(blob, opening.slice(), opening.compressed_pipe());
            opening.order_elsewhere();
            Some(orderer)
        }
        Err(e) => {
            web_sys::console::warn_1(&JsValue::from(format!(
                "no ordering worker ({}): the records are ordered by the parser",
                describe_js_error(&e)
            )));
            None
        }
    }
}

/// What the page's address says of inflaters: `None` when there is to be none (`?inflate=0`,
/// or `?reader=0`: the file is then read here without yielding), else whether `?inflate=1`
/// asks for one whatever the file and the machine.
fn inflater_setting() -> Option<bool> {
    if location_search().contains("reader=0") {
        return None;
    }
    match query_param("inflate").as_deref() {
        Some("0") => None,
        Some("1") => Some(true),
        _ => Some(false),
    }
}

/// Starts the inflater of the next compressed file now (unless `?reader=0` or `?inflate=0`,
/// or one is waiting already): it takes ~0.1 s to start, and is then ready when a file comes.
fn prestart_inflater() {
    // (Asked again after each tree while a big file's rows wait for the Records tab: the
    // waiting one is looked at first, before the address and the cores.)
    if NEXT_INFLATER.with_borrow(Option::is_some)
        || inflater_setting().is_none()
        || crate::stack_helper::cores() < 2.0
    {
        return;
    }
    NEXT_INFLATER.with_borrow_mut(|i| {
        if i.is_none() {
            *i = crate::inflater::Inflater::start().ok();
        }
    });
}

/// Starts the reader worker of the next records pass now (unless `?reader=0`, or one is
/// waiting already): it takes ~50 ms to start, and is then ready when a file is opened. A
/// failure to start is left for the pass to meet and report.
fn start_reader() {
    if location_search().contains("reader=0") {
        return;
    }
    NEXT_READER.with_borrow_mut(|r| {
        if r.is_none() {
            *r = SliceReader::start().ok();
        }
    });
}

/// [`start_reader`], and a first read of `blob` on the reader's thread (its answer is not
/// awaited), which opens the file there.
fn warm_reader(blob: &Blob) {
    start_reader();
    NEXT_READER.with_borrow(|r| {
        if let Some(r) = r {
            drop(r.request(blob, 0, 1));
        }
    });
}

/// The value of `key` in the worker's address's query (`?key=value`), if there.
fn query_param(key: &str) -> Option<String> {
    location_search()
        .trim_start_matches('?')
        .split('&')
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('=').map(str::to_string))
}

/// The worker's address's query (the page's, passed on), e.g. `?reader=0&preview=0`.
pub(crate) fn location_search() -> String {
    js_sys::Reflect::get(&js_sys::global(), &JsValue::from("location"))
        .and_then(|l| js_sys::Reflect::get(&l, &JsValue::from("search")))
        .ok()
        .and_then(|s| s.as_string())
        .unwrap_or_default()
}

/// The first preview comes this long after the records pass starts (a file read faster than
/// that shows its real flame graph first).
const PREVIEW_FIRST_MS: f64 = 600.0;
/// Later ones at least this long after the last one...
const PREVIEW_EVERY_MS: f64 = 1_000.0;
/// ...and after 20 times what the last one took, so that previews cost at most ~5 % of the pass...
const PREVIEW_COST_FACTOR: f64 = 20.0;
/// ...and while the pass has more than this long to go.
const PREVIEW_LAST_MS: f64 = 500.0;
/// A preview of a profile with up to this many stacks is made of every sample read so far
/// (their counts by stack are kept as they are pushed: each stack is looked up once)...
const PREVIEW_ALL_STACKS: usize = 1 << 18;
/// ...else of at most this many samples (its cost does not grow with the file: a profile of
/// millions of stacks, one frame per address without symbols).
const PREVIEW_SAMPLES: usize = 20_000;
/// Nodes narrower than this fraction of the width are left out (like the real graph's detail).
const PREVIEW_DETAIL: u64 = 2_000;

/// When to send a preview flame graph during a records pass: `?preview=MS` in the page's
/// address sets the delay before the first one (`?preview=off`: none).
struct Previews {
    id: u32,
    first_ms: Option<f64>,
    start: f64,
    /// When the last one ended and what it took, once one was sent.
    last: Option<(f64, f64)>,
}

impl Previews {
    fn new(id: u32) -> Previews {
        let asked = query_param("preview");
        let first_ms = match asked.as_deref() {
            Some("off") => None,
            Some(ms) => ms
                .parse::<f64>()
                .ok()
                .filter(|m| *m >= 0.0)
                .or(Some(PREVIEW_FIRST_MS)),
            None => Some(PREVIEW_FIRST_MS),
        };
        Previews {
            id,
            first_ms,
            start: now_ms(),
            last: None,
        }
    }

    /// Posts a preview of what `opening` read when one is due and there are samples.
    fn maybe_send(&mut self, opening: &Opening) {
        let Some(first) = self.first_ms else {
            return;
        };
        let now = now_ms();
        let due = match self.last {
            None => now - self.start >= first,
            Some((end, cost)) => now - end >= PREVIEW_EVERY_MS.max(PREVIEW_COST_FACTOR * cost),
        };
        if !due {
            return;
        }
        // A later preview is not made when the pass should end within PREVIEW_LAST_MS (at the
        // rate it has read so far): the flame graph itself comes about as soon.
        let read = opening.progress();
        if self.last.is_some() && read.bytes > 0.0 {
            let left_ms = (now - self.start) * (read.total - read.bytes).max(0.0) / read.bytes;
            if left_ms < PREVIEW_LAST_MS {
                return;
            }
        }
        let budget = if opening.stacks() <= PREVIEW_ALL_STACKS {
            usize::MAX
        } else {
            PREVIEW_SAMPLES
        };
        let reply = opening.preview(budget, PREVIEW_DETAIL);
        if reply.taken == 0 {
            return;
        }
        post(WorkerMessage::Preview(self.id, Box::new(reply)));
        measure("preview", now);
        let end = now_ms();
        self.last = Some((end, end - now));
    }
}

/// While it lives, a records pass is in progress ([`PASS_DONE`] is set); dropped, it resolves
/// it for the requests that wait.
struct PassInProgress {
    resolve: Option<js_sys::Function>,
}

impl PassInProgress {
    fn start() -> PassInProgress {
        let mut resolve = None;
        let promise = js_sys::Promise::new(&mut |ok, _| resolve = Some(ok));
        PASS_DONE.set(Some(promise));
        PassInProgress { resolve }
    }
}

impl Drop for PassInProgress {
    fn drop(&mut self) {
        PASS_DONE.set(None);
        if let Some(resolve) = self.resolve.take() {
            let _ = resolve.call0(&JsValue::NULL);
        }
    }
}

/// The reader worker (`web/reader.js`): reads slices of a Blob on its own thread and hands
/// them over (transferred). Terminated when dropped.
struct SliceReader {
    worker: web_sys::Worker,
    /// The promise functions (resolve, reject) of each request still unanswered.
    pending:
        std::rc::Rc<RefCell<std::collections::HashMap<u32, (js_sys::Function, js_sys::Function)>>>,
    /// Set when the worker failed (its script did not load, or threw).
    broken: std::rc::Rc<Cell<bool>>,
    next_id: Cell<u32>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

/// Why a request to a failed reader worker failed.
const READER_FAILED: &str = "the reader worker failed";

/// How long (ms) a slice asked of the reader worker may take before the reader is taken for
/// stuck (the pass then reads the rest itself, as when it fails). A slice takes it ~50 ms;
/// giving up on a slow one only costs time.
const READER_PATIENCE_MS: i32 = 5_000;

/// The reader's script, next to `worker_loader.js` (a nested worker's address is relative to
/// its parent's script).
const READER_SCRIPT: &str = "./reader.js";

impl SliceReader {
    fn start() -> Result<SliceReader, JsValue> {
        // (Tests: `?readerstall=K`, a reader that stops answering at its K-th request.)
        let script = match query_param("readerstall").filter(|k| k.parse::<u32>().is_ok()) {
            Some(k) => format!("{READER_SCRIPT}?readerstall={k}"),
            None => READER_SCRIPT.to_string(),
        };
        let worker = web_sys::Worker::new(&script)?;
        let pending: std::rc::Rc<
            RefCell<std::collections::HashMap<u32, (js_sys::Function, js_sys::Function)>>,
        > = Default::default();
        let answers = pending.clone();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            let data = e.data();
            let field = |name: &str| js_sys::Reflect::get(&data, &JsValue::from(name)).ok();
            let Some(id) = field("id").and_then(|v| v.as_f64()) else {
                return;
            };
            let Some((resolve, reject)) = answers.borrow_mut().remove(&(id as u32)) else {
                return;
            };
            let _ = match field("buffer").filter(|b| b.is_instance_of::<js_sys::ArrayBuffer>()) {
                Some(buffer) => resolve.call1(&JsValue::NULL, &buffer),
                None => reject.call1(&JsValue::NULL, &field("error").unwrap_or_default()),
            };
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        // The script failed to load or threw: every request still waiting fails (and the rest
        // of the file is read by the parser).
        let failed = pending.clone();
        let broken = std::rc::Rc::new(Cell::new(false));
        let broke = broken.clone();
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
            e.prevent_default();
            // Requests made from now on fail at once (the worker may fail before any is made).
            broke.set(true);
            for (_, (_, reject)) in failed.borrow_mut().drain() {
                let _ = reject.call1(&JsValue::NULL, &JsValue::from(READER_FAILED));
            }
        });
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Ok(SliceReader {
            worker,
            pending,
            broken,
            next_id: Cell::new(1),
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    /// Hands `buffer` back to the reader, which reads a later slice into it.
    fn give_back(&self, buffer: &js_sys::ArrayBuffer) {
        let message = js_sys::Object::new();
        if js_sys::Reflect::set(&message, &JsValue::from("spare"), buffer).is_ok() {
            let _ = self
                .worker
                .post_message_with_transfer(&message, &js_sys::Array::of1(buffer));
        }
    }

    /// Bytes `at..at + size` of `blob`, as an `ArrayBuffer` (or the reason they could not be
    /// read).
    fn request(&self, blob: &Blob, at: u64, size: usize) -> JsFuture {
        self.request_of(blob, at, size, None)
    }

    /// [`SliceReader::request`], of a pass over `blob` up to `pass.1` (a pass's requests
    /// come in order: the reader reads them from one stream, see `web/reader.js`).
    fn request_of(&self, blob: &Blob, at: u64, size: usize, pass: Option<(u32, u64)>) -> JsFuture {
        if self.broken.get() {
            return JsFuture::from(js_sys::Promise::reject(&JsValue::from(READER_FAILED)));
        }
        let id = self.next_id.get();
        self.next_id.set(id.wrapping_add(1));
        let pending = self.pending.clone();
        let promise = js_sys::Promise::new(&mut |resolve, reject| {
            pending.borrow_mut().insert(id, (resolve, reject));
        });
        let message = js_sys::Object::new();
        let set = |k: &str, v: &JsValue| js_sys::Reflect::set(&message, &JsValue::from(k), v);
        let posted = set("id", &JsValue::from(id))
            .and_then(|_| set("blob", blob))
            .and_then(|_| set("start", &JsValue::from(at as f64)))
            .and_then(|_| set("end", &JsValue::from(at.saturating_add(size as u64) as f64)))
            .and_then(|_| match pass {
                Some((id, end)) => set("pass", &JsValue::from(id))
                    .and_then(|_| set("passEnd", &JsValue::from(end as f64))),
                None => Ok(true),
            })
            .and_then(|_| self.worker.post_message(&message));
        if let Err(e) = posted {
            if let Some((_, reject)) = self.pending.borrow_mut().remove(&id) {
                let _ = reject.call1(&JsValue::NULL, &e);
            }
        }
        // Unanswered after READER_PATIENCE_MS: fails (a late answer is then let go).
        let pending = self.pending.clone();
        let give_up = Closure::once_into_js(move || {
            if let Some((_, reject)) = pending.borrow_mut().remove(&id) {
                let why = format!(
                    "the reader worker sent nothing for {} s",
                    READER_PATIENCE_MS / 1000
                );
                let _ = reject.call1(&JsValue::NULL, &JsValue::from(why));
            }
        });
        let _ = scope().set_timeout_with_callback_and_timeout_and_arguments_0(
            give_up.unchecked_ref(),
            READER_PATIENCE_MS,
        );
        JsFuture::from(promise)
    }
}

impl Drop for SliceReader {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}

/// A `File` (or any `Blob`) read in slices with `FileReaderSync`, which dedicated workers have:
/// only the slices asked for are copied into wasm memory.
struct BlobSource {
    blob: Blob,
    reader: FileReaderSync,
    len: u64,
    /// Time spent in reads, ms (shared: the session owns the source once it is open).
    spent_ms: std::rc::Rc<std::cell::Cell<f64>>,
    /// The blocks around the latest small reads, most recent first (see [`BlobSource::small`]).
    blocks: std::collections::VecDeque<(u64, Uint8Array)>,
}

/// Reads up to this size are served from [`BLOCK`]-aligned blocks kept in [`BlobSource`].
const SMALL_READ: u64 = 16 << 10;
/// The size of a kept block.
const BLOCK: u64 = 64 << 10;
/// Blocks kept at most.
const BLOCKS_KEPT: usize = 8;

impl ReadAt for BlobSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&mut self, offset: u64, size: u64) -> Result<Vec<u8>, perfscope_format::Error> {
        Ok(self.bytes(offset, size)?.to_vec())
    }

    fn read_into(&mut self, offset: u64, out: &mut [u8]) -> Result<(), perfscope_format::Error> {
        let array = self.bytes(offset, out.len() as u64)?;
        copy_whole(&array, offset, out)
    }
}

/// The bytes of file offset `at` read into `array`, copied straight into `out` in wasm memory;
/// an error when the browser read fewer than `out` holds.
fn copy_whole(array: &Uint8Array, at: u64, out: &mut [u8]) -> Result<(), perfscope_format::Error> {
    if array.length() as usize != out.len() {
        return Err(perfscope_format::Error::new(
            at,
            perfscope_format::ErrorKind::UnexpectedEof {
                what: "file (the browser read fewer bytes)",
                needed: out.len() as u64,
                available: u64::from(array.length()),
            },
        ));
    }
    array.copy_to(out);
    Ok(())
}

impl BlobSource {
    /// `blob`, read with a `FileReaderSync` of its own.
    fn new(blob: Blob) -> Result<BlobSource, String> {
        Ok(BlobSource {
            len: blob.size() as u64,
            blob,
            reader: FileReaderSync::new().map_err(|e| describe_js_error(&e))?,
            spent_ms: Default::default(),
            blocks: std::collections::VecDeque::new(),
        })
    }

    /// Bytes `offset..offset + size` of the blob: a small read from the blocks kept, a
    /// bigger one read whole.
    fn bytes(&mut self, offset: u64, size: u64) -> Result<Uint8Array, perfscope_format::Error> {
        if size <= SMALL_READ {
            self.small(offset, size)
        } else {
            self.slice(offset, size)
        }
    }

    /// Bytes `offset..offset + size` (a small read) of the blob, from the [`BLOCK`]s around
    /// them. A file's header, attrs and feature sections are read in ~30 small pieces, twice (by
    /// the summary, then by the records pass): each `FileReaderSync` read costs 1–10 ms however
    /// small, so the pieces come from a few reads instead of ~60.
    fn small(&mut self, offset: u64, size: u64) -> Result<Uint8Array, perfscope_format::Error> {
        let end = offset.saturating_add(size);
        let kept = self.blocks.iter().position(|(start, bytes)| {
            *start <= offset && end <= start + u64::from(bytes.length())
        });
        let (start, bytes) = match kept.and_then(|i| self.blocks.remove(i)) {
            Some(block) => block,
            None => {
                let start = offset / BLOCK * BLOCK;
                let stop = end
                    .div_ceil(BLOCK)
                    .saturating_mul(BLOCK)
                    .min(self.len)
                    .max(end);
                (start, self.slice(start, stop - start)?)
            }
        };
        // (A short read past the end of the blob gives fewer bytes: `copy_whole` says so.)
        let from = (offset - start).min(u64::from(bytes.length())) as u32;
        let to = (end - start).min(u64::from(bytes.length())) as u32;
        let part = bytes.subarray(from, to);
        self.blocks.push_front((start, bytes));
        self.blocks.truncate(BLOCKS_KEPT);
        Ok(part)
    }

    /// Bytes `offset..offset + size` of the blob, outside wasm memory; the time it took is
    /// added to `spent_ms`.
    fn slice(&mut self, offset: u64, size: u64) -> Result<Uint8Array, perfscope_format::Error> {
        let end = offset.saturating_add(size);
        let t0 = now_ms();
        let buffer = self
            .blob
            .slice_with_f64_and_f64(offset as f64, end as f64)
            .and_then(|part| self.reader.read_as_array_buffer(&part))
            .map_err(|e| {
                web_sys::console::warn_1(&JsValue::from(format!(
                    "reading bytes {offset}..{end} failed: {}",
                    describe_js_error(&e)
                )));
                perfscope_format::Error::new(
                    offset,
                    perfscope_format::ErrorKind::UnexpectedEof {
                        what: "file (the browser could not read it)",
                        needed: size,
                        available: 0,
                    },
                )
            })?;
        self.spent_ms.set(self.spent_ms.get() + now_ms() - t0);
        Ok(Uint8Array::new(&buffer))
    }
}

/// The worker's wasm memory, bytes.
fn wasm_memory() -> f64 {
    wasm_bindgen::memory()
        .dyn_into::<js_sys::WebAssembly::Memory>()
        .ok()
        .and_then(|m| m.buffer().dyn_into::<js_sys::ArrayBuffer>().ok())
        .map_or(0.0, |b| f64::from(b.byte_length()))
}

/// GETs `url`, streaming the body into a Blob (outside wasm memory) with progress: bytes, and
/// the total when the server sends a Content-Length.
async fn download(id: u32, url: &str) -> Result<Blob, String> {
    let scope: WorkerGlobalScope = js_sys::global().unchecked_into();
    let response = JsFuture::from(scope.fetch_with_str(url))
        .await
        .map_err(|e| describe_js_error(&e))?;
    let response: Response = response
        .dyn_into()
        .map_err(|_| "fetch did not return a Response".to_string())?;
    if !response.ok() {
        return Err(format!(
            "HTTP {} {}",
            response.status(),
            response.status_text()
        ));
    }
    let total = response
        .headers()
        .get("content-length")
        .ok()
        .flatten()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .unwrap_or(0.0);
    let Some(body) = response.body() else {
        return Blob::new().map_err(|e| describe_js_error(&e));
    };
    let reader: ReadableStreamDefaultReader = body.get_reader().unchecked_into();
    let parts = js_sys::Array::new();
    let mut bytes = 0.0;
    loop {
        let chunk = JsFuture::from(reader.read())
            .await
            .map_err(|e| describe_js_error(&e))?;
        let done = js_sys::Reflect::get(&chunk, &JsValue::from_str("done"))
            .map(|d| d.is_truthy())
            .unwrap_or(true);
        if done {
            break;
        }
        let value =
            js_sys::Reflect::get(&chunk, &JsValue::from_str("value")).unwrap_or(JsValue::UNDEFINED);
        if let Some(a) = value.dyn_ref::<Uint8Array>() {
            bytes += f64::from(a.length());
            parts.push(a);
        }
        post(WorkerMessage::Progress(
            id,
            Progress {
                phase: Phase::Read,
                bytes,
                total: total.max(bytes),
                records: 0.0,
            },
        ));
    }
    Blob::new_with_u8_array_sequence(&parts).map_err(|e| describe_js_error(&e))
}

/// Bytes `start..end` of a blob (clamped to it, as `Blob.slice` does).
async fn read(blob: &Blob, start: u64, end: u64) -> Result<Vec<u8>, String> {
    let part = blob
        .slice_with_f64_and_f64(start as f64, end as f64)
        .map_err(|e| describe_js_error(&e))?;
    let buffer = JsFuture::from(part.array_buffer())
        .await
        .map_err(|e| describe_js_error(&e))?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

/// [`read_all`] reads a blob in pieces of this many bytes: fewer reads than in [`SLICE`]s (a
/// 297 MB binary dropped along was read in 0.66 s instead of 0.75–0.82 s), and still a
/// progress report every ~70 ms.
const WHOLE_READ_PIECE: usize = 32 << 20;

/// The whole blob (a symbol file, or a text profile), read in [`WHOLE_READ_PIECE`]s into one
/// buffer; `progress(bytes)` after each piece.
async fn read_all(blob: &Blob, progress: impl Fn(f64)) -> Result<Vec<u8>, String> {
    let size = blob.size() as u64;
    let mut out = Vec::new();
    out.try_reserve_exact(
        usize::try_from(size).map_err(|_| "the file is too large for this browser".to_string())?,
    )
    .map_err(|_| format!("cannot allocate {size} bytes for the file"))?;
    let mut start = 0;
    while start < size {
        let end = (start + WHOLE_READ_PIECE as u64).min(size);
        let part = blob
            .slice_with_f64_and_f64(start as f64, end as f64)
            .map_err(|e| describe_js_error(&e))?;
        let buffer = JsFuture::from(part.array_buffer())
            .await
            .map_err(|e| describe_js_error(&e))?;
        let array = Uint8Array::new(&buffer);
        let old = out.len();
        out.resize(old + array.length() as usize, 0);
        if let Some(dst) = out.get_mut(old..) {
            array.copy_to(dst);
        }
        start = end;
        progress(start as f64);
    }
    Ok(out)
}

pub(crate) fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn post(message: WorkerMessage) {
    let (value, transfer) = packet_to_js(message.into_packet());
    if let Err(e) = scope().post_message_with_transfer(&value, &transfer) {
        web_sys::console::error_1(&e);
    }
}

/// Queries measured since the entries were last cleared.
static MEASURES: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// A `performance.measure` named `name` from `start` to `end` (ms on this worker's clock): the
/// worker's steps and queries in the browser's performance panel, and for the browser bench
/// (tests/bench). The last 1 000 at most are kept.
pub(crate) fn measure_between(name: &str, start: f64, end: f64) {
    use std::sync::atomic::Ordering;
    let Some(perf) = performance() else {
        return;
    };
    if MEASURES.fetch_add(1, Ordering::Relaxed) >= 1000 {
        perf.clear_measures();
        MEASURES.store(1, Ordering::Relaxed);
    }
    // `measure(name, { start, end })` (web-sys has it only among its unstable APIs).
    let options = js_sys::Object::new();
    let set = |k: &str, v: f64| js_sys::Reflect::set(&options, &k.into(), &v.into());
    if set("start", start).is_err() || set("end", end).is_err() {
        return;
    }
    if let Ok(f) = js_sys::Reflect::get(&perf, &"measure".into()) {
        if let Ok(f) = f.dyn_into::<js_sys::Function>() {
            let _ = f.call2(&perf, &name.into(), &options);
        }
    }
}

/// [`measure_between`] `start` (ms) and now.
pub(crate) fn measure(name: &str, start: f64) {
    measure_between(name, start, now_ms());
}

/// Resolves after the tasks queued before it (a zero timeout's turn), on this thread: a
/// worker's or the page's.
pub(crate) async fn next_turn() {
    let turn = js_sys::Promise::new(&mut |resolve, _| {
        let global = js_sys::global();
        let set_timeout = js_sys::Reflect::get(&global, &"setTimeout".into())
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        let queued = set_timeout.is_some_and(|f| f.call2(&global, &resolve, &0.into()).is_ok());
        if !queued {
            // No timer here: at once rather than never.
            let _ = resolve.call0(&JsValue::NULL);
        }
    });
    let _ = JsFuture::from(turn).await;
}

/// Milliseconds on this thread's clock (a worker's or the page's).
pub(crate) fn now_ms() -> f64 {
    performance().map_or_else(js_sys::Date::now, |p| p.now())
}

/// The `performance` of this thread: the worker's or the page's.
fn performance() -> Option<web_sys::Performance> {
    js_sys::Reflect::get(&js_sys::global(), &"performance".into())
        .ok()?
        .dyn_into()
        .ok()
}
