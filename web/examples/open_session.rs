//! The worker's opening of a file on the command line: a [`Session`] over a file read with
//! positioned reads in slices (as the worker reads a `File` with `FileReaderSync`), with the
//! process's peak memory (what the wasm memory grows to) and the records index's share; with
//! `profile`, the profile alone (`load_sectioned`) for comparison. Then the tree queries the page
//! sends: the first flame graph (pruned to the worker's detail), a zoom re-query, the inverted
//! tree, a refilter to the middle 50 % of the time and a search over it, with times, node counts
//! and the peak memory after them.
//!
//! ```text
//! cargo run --release -p perfscope-web --example open_session -- FILE [SLICE_BYTES] [profile]
//! ```
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
// The counting allocator (the only unsafe: forwarding to the system allocator).
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicUsize, Ordering};

use perfscope_analysis::builder::{InlineFrames, UnknownNames};
use perfscope_analysis::load::{load_sectioned, LoadOptions};
use perfscope_analysis::summary::SummaryReader;
use perfscope_format::file::ReadAt;
use perfscope_format::{Error, ErrorKind};
use perfscope_web::protocol::Timings;
use perfscope_web::session::Session;

/// The worker's allocator, counting the bytes live on the heap and their peak: dlmalloc (what
/// Rust's std uses on wasm32) over [`Grow`], a region that only grows by 64 KiB pages as wasm
/// memory does, so that [`grown`] is what the worker's wasm memory would grow to (the holes that
/// freed blocks leave included).
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static GROWN: AtomicUsize = AtomicUsize::new(0);
static HEAP: std::sync::Mutex<dlmalloc::Dlmalloc<Grow>> =
    std::sync::Mutex::new(dlmalloc::Dlmalloc::new_with_allocator(Grow));

/// Wasm memory's limit (4 GiB), reserved once (untouched pages cost nothing).
const REGION: usize = 4 << 30;
const PAGE: usize = 64 << 10;
static BASE: AtomicUsize = AtomicUsize::new(0);

/// Each growth: (memory after it, heap live before it), for `OPEN_SESSION_TRACE`.
static GROWTH_LOG: [(AtomicUsize, AtomicUsize, AtomicUsize); 8192] = [const {
    (
        AtomicUsize::new(0),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    )
}; 8192];
/// The size of the allocation being made (the one a growth is for).
static ASKED: AtomicUsize = AtomicUsize::new(0);
static GROWTHS: AtomicUsize = AtomicUsize::new(0);

/// Memory that grows like a wasm memory: contiguous, by whole pages, never given back.
struct Grow;

// SAFETY: hands out disjoint parts of one reserved region, never reused.
unsafe impl dlmalloc::Allocator for Grow {
    fn alloc(&self, size: usize) -> (*mut u8, usize, u32) {
        let mut base = BASE.load(Ordering::Relaxed);
        if base == 0 {
            // SAFETY: a valid, non-zero layout; the region lives as long as the process. So large a
            // block is a fresh private mapping: zeros, and not touched until used.
            base = unsafe { System.alloc(Layout::from_size_align(REGION, PAGE).unwrap()) } as usize;
            BASE.store(base, Ordering::Relaxed);
        }
        let size = size.div_ceil(PAGE) * PAGE;
        let at = GROWN.load(Ordering::Relaxed);
        if base == 0 || at + size > REGION {
            return (std::ptr::null_mut(), 0, 0);
        }
        GROWN.store(at + size, Ordering::Relaxed);
        let k = GROWTHS.fetch_add(1, Ordering::Relaxed);
        if let Some(slot) = GROWTH_LOG.get(k) {
            slot.0.store(at + size, Ordering::Relaxed);
            slot.1
                .store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
            slot.2
                .store(ASKED.load(Ordering::Relaxed), Ordering::Relaxed);
        }
        ((base + at) as *mut u8, size, 0)
    }
    fn remap(&self, _: *mut u8, _: usize, _: usize, _: bool) -> *mut u8 {
        std::ptr::null_mut()
    }
    fn free_part(&self, _: *mut u8, _: usize, _: usize) -> bool {
        false
    }
    fn free(&self, _: *mut u8, _: usize) -> bool {
        false
    }
    fn can_release_part(&self, _: u32) -> bool {
        false
    }
    fn allocates_zeros(&self) -> bool {
        true
    }
    fn page_size(&self) -> usize {
        PAGE
    }
}

fn count_up(n: usize) {
    ASKED.store(n, Ordering::Relaxed);
    let live = LIVE.fetch_add(n, Ordering::Relaxed) + n;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

// SAFETY: forwards to dlmalloc under a lock, as std does on wasm32; only counts besides.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_up(layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { HEAP.lock().unwrap().malloc(layout.size(), layout.align()) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_up(layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { HEAP.lock().unwrap().calloc(layout.size(), layout.align()) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract, passed on.
        unsafe {
            HEAP.lock()
                .unwrap()
                .free(ptr, layout.size(), layout.align())
        }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // A growing realloc may copy: count both blocks at the moment of the copy.
        count_up(new_size);
        // SAFETY: the caller's contract, passed on.
        let p = unsafe {
            HEAP.lock()
                .unwrap()
                .realloc(ptr, layout.size(), layout.align(), new_size)
        };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Prints the growths of the simulated wasm memory so far that took it past another 16 MB,
/// with the heap live at that moment (`OPEN_SESSION_TRACE`).
fn trace_growths(from: usize) {
    let mut shown = 0;
    for (after, live, asked) in GROWTH_LOG
        .iter()
        .take(GROWTHS.load(Ordering::Relaxed))
        .skip(from)
    {
        let (after, live, asked) = (
            after.load(Ordering::Relaxed),
            live.load(Ordering::Relaxed),
            asked.load(Ordering::Relaxed),
        );
        if after >= shown + (16 << 20) || asked >= 4 << 20 {
            println!(
                "  wasm memory (simulated) grew to {:6.1} MB with {:6.1} MB live, for {:6.2} MB",
                mb(after),
                mb(live),
                mb(asked)
            );
            shown = after;
        }
    }
}

/// What the simulated wasm memory has grown to, bytes.
fn grown() -> usize {
    GROWN.load(Ordering::Relaxed)
}

/// (live, peak) heap bytes.
fn heap() -> (usize, usize) {
    (LIVE.load(Ordering::Relaxed), PEAK.load(Ordering::Relaxed))
}

/// CPU seconds this process used so far (user + system, from /proc/self/stat): on a shared
/// machine the wall-clock time says little.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which ends with ')'): utime and stime are the 12th and 13th.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let ticks: u64 = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|v| v.parse::<u64>().ok())
        .sum();
    ticks as f64 / 100.0
}

/// VmHWM: the peak resident memory of this process, bytes.
fn peak_rss() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<usize>().ok());
    kb.unwrap_or(0) * 1024
}

struct Pread(std::fs::File, u64);

impl ReadAt for Pread {
    fn len(&self) -> u64 {
        self.1
    }
    fn read_at(&mut self, offset: u64, size: u64) -> Result<Vec<u8>, Error> {
        let mut buf = vec![0; usize::try_from(size).unwrap()];
        self.read_into(offset, &mut buf)?;
        Ok(buf)
    }
    fn read_into(&mut self, offset: u64, out: &mut [u8]) -> Result<(), Error> {
        let size = out.len() as u64;
        if offset.saturating_add(size) > self.1 {
            return Err(Error::new(
                offset,
                ErrorKind::UnexpectedEof {
                    what: "file",
                    needed: size,
                    available: self.1.saturating_sub(offset),
                },
            ));
        }
        self.0.read_exact_at(out, offset).map_err(|_| {
            Error::new(
                offset,
                ErrorKind::UnexpectedEof {
                    what: "file",
                    needed: size,
                    available: 0,
                },
            )
        })
    }
}

fn mb(b: usize) -> f64 {
    b as f64 / 1e6
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: open_session FILE [SLICE_BYTES] [profile]");
    let slice: usize = args.next().map_or(perfscope_web::session::SLICE, |c| {
        c.parse().expect("a slice size in bytes")
    });
    let profile_only = args.next().as_deref() == Some("profile");
    let file = std::fs::File::open(&path).expect("a readable file");
    // `OPEN_SESSION_LIMIT=BYTES`: read only the first BYTES of the file (a cut recording: the
    // records before the cut), to see how the cost grows along one recording.
    let limit = std::env::var("OPEN_SESSION_LIMIT")
        .ok()
        .and_then(|l| l.parse::<u64>().ok())
        .unwrap_or(u64::MAX);
    let len = file.metadata().unwrap().len().min(limit);
    let mut source = Pread(file, len);
    let t = std::time::Instant::now();
    if profile_only {
        let options = LoadOptions {
            unknown_names: UnknownNames::ModuleOffset,
            inline_frames: InlineFrames::Unwound,
            ..LoadOptions::default()
        };
        let (profile, _) =
            load_sectioned(&mut source, slice, options, |_, _| {}).expect("a perf.data");
        let peak = peak_rss();
        println!(
            "profile alone (load_sectioned): {:.1} s, {} samples, peak RSS {:.0} MB ({:.2}x the file)",
            t.elapsed().as_secs_f64(),
            profile.samples.len(),
            mb(peak),
            peak as f64 / len as f64
        );
        return;
    }
    // `OPEN_SESSION_PART=CUT`: only the second worker's part, the samples from file offset CUT
    // on (its time and heap).
    if let Some(cut) = std::env::var("OPEN_SESSION_PART")
        .ok()
        .and_then(|c| c.parse::<u64>().ok())
    {
        let part =
            perfscope_web::session::stacks_part(&mut source, slice, UnknownNames::Module, cut)
                .expect("a part");
        let (live, peak) = heap();
        println!(
            "part from {cut}: {:.0} ms, {} bytes of tables, {} samples; heap live {:.1} MB, peak {:.1} MB, wasm memory (simulated) {:.1} MB",
            t.elapsed().as_secs_f64() * 1e3,
            part.tables.len(),
            part.stacks.len(),
            mb(live),
            mb(peak),
            mb(grown())
        );
        if std::env::var_os("OPEN_SESSION_TRACE").is_some() {
            trace_growths(0);
        }
        return;
    }
    // `OPEN_SESSION_REPEAT=N`: the file read into memory once, then the records pass (summary,
    // begin, every slice, finish) N times: each pass's time and the fastest, to compare two
    // builds' passes without the disk and page cache in the figures.
    if let Some(n) = std::env::var("OPEN_SESSION_REPEAT")
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
    {
        repeat_pass(&path, len, slice, n);
        return;
    }
    let summary = SummaryReader::read_from(&mut source, slice);
    let summary_ms = t.elapsed().as_secs_f64() * 1e3;
    // The session's clock: each call is a phase mark, noted with the heap at that moment.
    let marks = std::cell::RefCell::new(Vec::new());
    let now = || {
        let ms = t.elapsed().as_secs_f64() * 1e3;
        marks
            .borrow_mut()
            .push((ms, cpu_seconds(), heap(), grown()));
        ms
    };
    // As the page opens it: one frame per module without symbols, or with
    // OPEN_SESSION_BY_ADDRESS=1 one per address (the page's "each address" switch).
    let unknown_names = if std::env::var_os("OPEN_SESSION_BY_ADDRESS").is_some() {
        perfscope_analysis::builder::UnknownNames::ModuleOffset
    } else {
        perfscope_analysis::builder::UnknownNames::Module
    };
    // `OPEN_SESSION_SHARE=F`: the stacks of the samples after the fraction F of the records
    // are made on a second thread, as the page's second worker makes them.
    let share = std::env::var("OPEN_SESSION_SHARE")
        .ok()
        .and_then(|f| f.parse::<f64>().ok());
    // `OPEN_SESSION_SYMBOLS=FILE:FILE:…`: symbol files dropped with the recording (kallsyms,
    // binaries, …), as the page reads them.
    let symbol_files = std::env::var("OPEN_SESSION_SYMBOLS")
        .ok()
        .into_iter()
        .flat_map(|v| v.split(':').map(str::to_owned).collect::<Vec<_>>())
        .filter(|p| !p.is_empty())
        .map(|p| {
            let bytes = std::fs::read(&p).expect("a readable symbol file");
            let name = p.rsplit('/').next().unwrap_or(&p).to_owned();
            let kind = perfscope_web::session::symbols::classify(&name, &bytes);
            perfscope_web::session::symbols::SymbolFile {
                name,
                kind,
                bytes: bytes.into(),
                // (Read whole: the worker reads a big ELF file only in part.)
                part_of: None,
            }
        })
        .collect();
    let tb = std::time::Instant::now();
    let mut opening = Session::begin(
        Box::new(source),
        summary,
        symbol_files,
        unknown_names,
        slice,
        &now,
        Timings::default(),
    );
    println!(
        "  begin (the resolver made): {:.1} ms",
        tb.elapsed().as_secs_f64() * 1e3
    );
    let helper = share.and_then(|f| opening.stack_cut(f)).map(|cut| {
        opening.share_stacks(cut);
        let mut source = Pread(std::fs::File::open(&path).unwrap(), len);
        let slice = opening.slice();
        std::thread::spawn(move || {
            let t = std::time::Instant::now();
            let part = perfscope_web::session::stacks_part(&mut source, slice, unknown_names, cut);
            (part, t.elapsed().as_secs_f64() * 1e3)
        })
    });
    while let Some((at, size)) = opening.next_slice() {
        opening.push_from_source(at, size);
    }
    if let Some(h) = helper {
        let t_wait = std::time::Instant::now();
        let (part, ms) = h.join().unwrap();
        println!(
            "  second thread: {ms:.0} ms, {} bytes of tables, {} samples; waited for it {:.0} ms",
            part.as_ref().map_or(0, |p| p.tables.len()),
            part.as_ref().map_or(0, |p| p.stacks.len()),
            t_wait.elapsed().as_secs_f64() * 1e3
        );
        opening.set_part(part.map(perfscope_web::session::SentPart::from));
    }
    let mut session = opening.finish(&mut |_| {}, &now);
    println!("  second worker: {:?}", session.timings_mut().helper);
    let traced = GROWTHS.load(Ordering::Relaxed);
    if std::env::var_os("OPEN_SESSION_TRACE").is_some() {
        trace_growths(0);
    }
    let peak = peak_rss();
    for (i, (ms, cpu, (live, peak), grown)) in marks.borrow().iter().enumerate() {
        println!(
            "  mark {i}: {ms:8.0} ms (CPU {cpu:6.2} s), heap live {:7.1} MB, peak {:7.1} MB, wasm memory (simulated) {:7.1} MB",
            mb(*live),
            mb(*peak),
            mb(*grown)
        );
    }
    let tm = session.timings_mut();
    println!(
        "  timings: records pass {:.0} ms, profile (finish + timeline) {:.0} ms",
        tm.records_ms, tm.profile_ms
    );
    // What a preview during the records pass costs at this size: of 20 000 samples, and of
    // every sample (what the worker takes when the profile has few stacks).
    for budget in [20_000, usize::MAX] {
        let t = std::time::Instant::now();
        let v = perfscope_analysis::preview::preview(session.profile(), budget, 2_000);
        println!(
            "  preview of {} of {} samples: {:.1} ms, {} nodes",
            v.taken,
            v.seen,
            t.elapsed().as_secs_f64() * 1e3,
            v.nodes.len()
        );
    }
    let h = session.profile().heap_bytes();
    println!(
        "  profile heap {:.1} MB: samples {:.1} ({} samples), stacks {:.1}, frames {:.1}, funcs {:.1}, strings {:.1}, threads {:.1}; heap live now {:.1} MB, peak {:.1} MB",
        mb(h.total()),
        mb(h.samples),
        session.profile().samples.len(),
        mb(h.stacks),
        mb(h.frames),
        mb(h.funcs),
        mb(h.strings),
        mb(h.threads),
        mb(heap().0),
        mb(heap().1)
    );
    println!(
        "session (one pass: index counts + profile + summary, then timeline): summary {summary_ms:.1} ms, open {:.1} s, {} records; peak RSS {:.0} MB ({:.2}x the file), the records index {:.0} MB",
        t.elapsed().as_secs_f64(),
        session.record_count(),
        mb(peak),
        peak as f64 / len as f64,
        mb(session.index_bytes())
    );
    // `OPEN_SESSION_FOLDED=PATH`: the folded stacks of every sample written there (the page's
    // Export), to compare two builds' profiles.
    if let Some(path) = std::env::var_os("OPEN_SESSION_FOLDED") {
        let folded = session
            .export(
                perfscope_web::protocol::ExportFormat::Folded,
                &perfscope_web::protocol::Filter::default(),
                perfscope_web::protocol::WeightKind::Samples,
                perfscope_web::protocol::Privacy::default(),
                "perf.data",
            )
            .expect("an export");
        std::fs::write(path, folded.bytes).expect("a writable file");
    }
    // `OPEN_SESSION_EXPORTS=1`: each format of the page's Export menu over every sample, timed
    // (`OPEN_SESSION_EXPORTS=DIR`: also written into the directory DIR, to compare two builds').
    if let Some(exports) = std::env::var_os("OPEN_SESSION_EXPORTS") {
        let dir = std::path::PathBuf::from(exports);
        use perfscope_web::protocol::ExportFormat;
        for format in [
            ExportFormat::Share,
            ExportFormat::Pprof,
            ExportFormat::Speedscope,
            ExportFormat::Folded,
            ExportFormat::Svg,
        ] {
            let t = std::time::Instant::now();
            let out = session
                .export(
                    format,
                    &perfscope_web::protocol::Filter::default(),
                    perfscope_web::protocol::WeightKind::Samples,
                    perfscope_web::protocol::Privacy::default(),
                    "perf.data",
                )
                .expect("an export");
            println!(
                "export {}: {:.0} ms, {:.2} MB",
                format.id(),
                t.elapsed().as_secs_f64() * 1e3,
                out.bytes.len() as f64 / 1e6
            );
            if dir.is_dir() {
                std::fs::write(dir.join(format!("export.{}", format.id())), &out.bytes)
                    .expect("a writable directory");
            }
        }
    }
    // What the worker posts next: the profile's strings and functions, copied into a packet
    // (then into JS memory, and freed).
    use perfscope_web::protocol::{Filter, Query, RecordFilter, WeightKind, WorkerMessage};
    let t = std::time::Instant::now();
    let packet = WorkerMessage::Profile(1, Box::new(session.profile_data())).into_packet();
    let live = heap().0;
    let (json, columns) = (
        packet.json.len(),
        packet.columns.iter().map(|(_, c)| c.len()).sum::<usize>(),
    );
    drop(packet);
    println!(
        "  profile data for the page: {:.0} ms, {:.2} MB of JSON and {} column values; heap live {:.1} MB with it; wasm memory (simulated) {:.1} MB",
        t.elapsed().as_secs_f64() * 1e3,
        mb(json),
        columns,
        mb(live),
        mb(grown())
    );
    // The first flame-graph query, as the page sends it after loading.
    let tree = |session: &mut Session, filter: Filter, inverted: bool, root: Vec<u32>| {
        let t = std::time::Instant::now();
        let reply = session.query(
            1,
            Query::Tree {
                filter,
                inverted,
                weight: WeightKind::Samples,
                root,
                detail: 0,
                by_command: false,
            },
        );
        let ms = t.elapsed().as_secs_f64() * 1e3;
        match reply {
            WorkerMessage::Tree(_, t) => (ms, *t),
            other => panic!("{other:?}"),
        }
    };
    // The first event, as the page picks it.
    let base = Filter {
        event: Some(0),
        ..Filter::default()
    };
    let (ms, first) = tree(&mut session, base.clone(), false, Vec::new());
    let after = peak_rss();
    println!(
        "first tree query: {ms:.0} ms, {} nodes (detail {}), {} samples; peak RSS {:.0} MB ({:.2}x the file, +{:.0} MB)",
        first.nodes.len(),
        first.meta.detail,
        first.meta.samples,
        mb(after),
        after as f64 / len as f64,
        mb(after.saturating_sub(peak))
    );
    println!(
        "  heap after the first tree query: live {:.1} MB, peak {:.1} MB; wasm memory (simulated) {:.1} MB",
        mb(heap().0),
        mb(heap().1),
        mb(grown())
    );
    if std::env::var_os("OPEN_SESSION_TRACE").is_some() {
        println!("  growths during the first tree query:");
        trace_growths(traced);
    }
    // A zoom re-query: the widest node at depth 2 whose children were left out, else the widest
    // at depth 2.
    let n = &first.nodes;
    let pick = (0..n.len()).filter(|&i| n.depth[i] == 2).max_by(|&a, &b| {
        (n.elided_count[a] > 0, n.width[a] as u64).cmp(&(n.elided_count[b] > 0, n.width[b] as u64))
    });
    if let Some(i) = pick {
        let path = perfscope_web::selectors::path_of(n, i as u32);
        let (ms, z) = tree(&mut session, base.clone(), false, path);
        println!(
            "zoom re-query (depth-2 node, {} elided children): {ms:.0} ms, {} nodes",
            n.elided_count[i],
            z.nodes.len()
        );
    }
    let (ms, inv) = tree(&mut session, base.clone(), true, Vec::new());
    println!("inverted tree: {ms:.0} ms, {} nodes", inv.nodes.len());
    for inverted in [false, true] {
        let t = std::time::Instant::now();
        let reply = session.query(
            1,
            Query::Tree {
                filter: base.clone(),
                inverted,
                weight: WeightKind::Samples,
                root: Vec::new(),
                detail: 0,
                by_command: true,
            },
        );
        let ms = t.elapsed().as_secs_f64() * 1e3;
        if let WorkerMessage::Tree(_, t) = reply {
            let roots = t.nodes.depth.iter().filter(|&&d| d == 0).count();
            println!(
                "tree by command (inverted {inverted}): {ms:.0} ms, {} nodes, {roots} command roots, {} commands left out",
                t.nodes.len(),
                t.meta.elided_count
            );
        }
    }
    println!(
        "  heap after the trees by command: live {:.1} MB; wasm memory (simulated) {:.1} MB",
        mb(heap().0),
        mb(grown())
    );
    // Time selections: 90 % (5 to 95 %), 2 % (50 to 52 %) and the middle 50 %, as the page
    // asks (the event picked).
    if let Some((lo, hi)) = session.overview().sample_range {
        let at = |f: f64| lo + ((hi - lo) as f64 * f) as u64;
        for (a, b) in [(0.05, 0.95), (0.5, 0.52)] {
            let (ms, r) = tree(
                &mut session,
                Filter {
                    range: Some((at(a), at(b))),
                    ..base.clone()
                },
                false,
                Vec::new(),
            );
            println!(
                "refilter to {:.0} % of the time: {ms:.0} ms, {} nodes, {} samples",
                (b - a) * 100.0,
                r.nodes.len(),
                r.meta.samples
            );
        }
        let range = Some((lo + (hi - lo) / 4, lo + (hi - lo) / 4 * 3));
        let (ms, r) = tree(
            &mut session,
            Filter {
                range,
                ..base.clone()
            },
            false,
            Vec::new(),
        );
        println!(
            "refilter to the middle 50 % of the time: {ms:.0} ms, {} nodes, {} samples",
            r.nodes.len(),
            r.meta.samples
        );
        // A text no function has, then one many have.
        for text in ["sched", "libc"] {
            let t = std::time::Instant::now();
            let reply = session.query(
                2,
                Query::Search {
                    filter: Filter {
                        range,
                        ..base.clone()
                    },
                    text: text.into(),
                },
            );
            if let WorkerMessage::Search(_, r) = reply {
                println!(
                    "search \"{text}\" over the selection: {:.0} ms, {} of {} samples",
                    t.elapsed().as_secs_f64() * 1e3,
                    r.samples,
                    r.total_samples
                );
            }
        }
    }
    println!(
        "  heap after the refilters and searches: live {:.1} MB; wasm memory (simulated) {:.1} MB",
        mb(heap().0),
        mb(grown())
    );
    // Timeline density as the page asks for it (350 bins: a 1280 px window), over every sample,
    // then 40 wheel steps zooming in by 1.25 around 60 % of the range, then 20 pans; then the
    // same with the first tree's first function highlighted.
    if let Some((lo, hi)) = session.overview().sample_range {
        let lanes = session.overview().threads.len() + session.overview().cpus.len();
        let picked = first.nodes.func.first().copied();
        // One timeline query's time in ms.
        let timed = |session: &mut Session, start: u64, end: u64, func: Option<u32>| {
            let t = std::time::Instant::now();
            let query = Query::Timeline {
                start,
                end,
                bins: 350,
                event: None,
                func,
            };
            let _ = session.query(3, query);
            t.elapsed().as_secs_f64() * 1e3
        };
        for func in [None, picked] {
            let mut times = Vec::new();
            let (mut s, mut e) = (lo, hi);
            for step in 0..61 {
                times.push(timed(&mut session, s, e, func));
                let span = e - s;
                if step < 40 {
                    let anchor = s + span / 5 * 3;
                    let next = span / 5 * 4;
                    s = anchor - next / 5 * 3;
                    e = s + next;
                } else {
                    let shift = span / 10;
                    s = if step % 2 == 0 { s + shift } else { s - shift };
                    e = s + span;
                }
            }
            // The whole range again (a highlight's marks are made by the first query).
            let again = timed(&mut session, lo, hi, func);
            let mut sorted = times.clone();
            sorted.sort_by(f64::total_cmp);
            let what = match func {
                None => "timeline density".to_string(),
                Some(f) => format!("timeline density with function {f} highlighted"),
            };
            println!(
                "{what} ({lanes} lanes × 350 bins): full range {:.1} ms, again {again:.1} ms; 40 zoom steps and 20 pans p50 {:.1} ms, max {:.1} ms; rank indexes {:.2} MB",
                times.first().copied().unwrap_or(0.0),
                sorted.get(sorted.len() / 2).copied().unwrap_or(0.0),
                sorted.last().copied().unwrap_or(0.0),
                mb(session.timeline_index_bytes())
            );
        }
    }
    // The records index's rows, made by the first filtered records query (the pass only
    // counts; a page of every record waits only for its rows).
    println!(
        "  heap before the records index rows: live {:.1} MB, peak {:.1} MB; wasm memory (simulated) {:.1} MB",
        mb(heap().0),
        mb(heap().1),
        mb(grown())
    );
    let t_rows = std::time::Instant::now();
    session.ensure_rows();
    println!(
        "records index rows (all: a filtered records query): {:.0} ms, {:.1} MB",
        t_rows.elapsed().as_secs_f64() * 1e3,
        mb(session.index_bytes())
    );
    // Records pages as the Records tab asks: the first page, one far in, then filtered by type
    // (samples), by a pid and by a time range (each filter's first page, then a page in the
    // middle of what it keeps).
    let records = |session: &mut Session, filter: RecordFilter, start: u32| {
        let t = std::time::Instant::now();
        let reply = session.query(
            4,
            Query::Records {
                filter,
                start,
                count: 100,
            },
        );
        let matching = match reply {
            WorkerMessage::Records(_, r) => r.meta.matching,
            _ => 0,
        };
        (t.elapsed().as_secs_f64() * 1e3, matching)
    };
    let all = session.record_count() as u32;
    let some_pid = session.overview().threads.first().map(|t| t.pid);
    let range = session
        .overview()
        .sample_range
        .map(|(lo, hi)| (lo + (hi - lo) / 4, lo + (hi - lo) / 2));
    for (what, filter) in [
        ("every record", RecordFilter::default()),
        (
            "samples",
            RecordFilter {
                types: vec![9],
                ..RecordFilter::default()
            },
        ),
        (
            "one pid",
            RecordFilter {
                pid: some_pid,
                ..RecordFilter::default()
            },
        ),
        (
            "a quarter of the time",
            RecordFilter {
                range,
                ..RecordFilter::default()
            },
        ),
    ] {
        let (first, matching) = records(&mut session, filter.clone(), 0);
        let half = (matching / 2) as u32;
        let (middle, _) = records(&mut session, filter.clone(), half);
        // The next page, and one 50 pages on (scrolling).
        let (next, _) = records(&mut session, filter.clone(), half + 100);
        let (on, _) = records(&mut session, filter.clone(), half + 5_100);
        // A jump back (to a quarter), and to the end.
        let (back, _) = records(&mut session, filter.clone(), (matching / 4) as u32);
        let (end, _) = records(&mut session, filter, matching.saturating_sub(100) as u32);
        println!(
            "records page, {what}: first {first:.1} ms, middle {middle:.1} ms, next {next:.1} ms, 50 on {on:.1} ms, back to a quarter {back:.1} ms, the end {end:.1} ms ({matching} of {all})"
        );
    }
    println!(
        "  heap after the records pages: live {:.1} MB, peak {:.1} MB; wasm memory (simulated) {:.1} MB",
        mb(heap().0),
        mb(heap().1),
        mb(grown())
    );
    let end = peak_rss();
    println!(
        "peak RSS after the tree queries {:.0} MB ({:.2}x the file)",
        mb(end),
        end as f64 / len as f64
    );
    println!(
        "  heap after the tree queries: live {:.1} MB, peak {:.1} MB; wasm memory (simulated) {:.1} MB",
        mb(heap().0),
        mb(heap().1),
        mb(grown())
    );
}

/// `OPEN_SESSION_REPEAT=N`: the records pass `n` times over the file held in memory.
fn repeat_pass(path: &str, len: u64, slice: usize, n: usize) {
    let mut bytes = std::fs::read(path).expect("a readable file");
    bytes.truncate(usize::try_from(len).unwrap());
    let mut times = Vec::new();
    for i in 0..n {
        // (Copied before the clock starts: the pass reads it as the worker reads a file.)
        let mut source = perfscope_web::session::source::VecSource(bytes.clone());
        let t = std::time::Instant::now();
        let summary = SummaryReader::read_from(&mut source, slice);
        let mut opening = Session::begin(
            Box::new(source),
            summary,
            Vec::new(),
            UnknownNames::Module,
            slice,
            &|| t.elapsed().as_secs_f64() * 1e3,
            Timings::default(),
        );
        while let Some((at, size)) = opening.next_slice() {
            opening.push_from_source(at, size);
        }
        let session = opening.finish(&mut |_| {}, &|| t.elapsed().as_secs_f64() * 1e3);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        println!(
            "pass {}: {ms:.1} ms, {} samples",
            i + 1,
            session.profile().samples.len()
        );
        times.push(ms);
        drop(session);
    }
    times.sort_by(f64::total_cmp);
    if let (Some(min), Some(median)) = (times.first(), times.get(times.len() / 2)) {
        println!("passes: fastest {min:.1} ms, median {median:.1} ms");
    }
}
