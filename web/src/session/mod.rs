//! What the worker holds for an open file and how it answers queries. Plain Rust (no JS), so
//! it is tested natively; `crate::worker` is the JS glue around it.
//!
//! The file is never held whole: the session reads it through a [`ReadAt`] (a browser `File`
//! read in slices by the worker, a `Vec` in tests). Opening: [`Session::open`] streams the
//! records once, in slices, into a [`RecordIndex`], a `ProfileLoader` (time order, symbols,
//! DWARF unwinding with dropped binaries) and the summary (with progress after each slice), then
//! builds the [`Timeline`] lanes. The records view reads the rows it shows again through the
//! [`ReadAt`]. Symbol files dropped later, or another naming of frames without a symbol,
//! rebuild the profile, reading the file again ([`Session::resymbolize`]); the generation
//! number then goes up.
//!
//! Events are addressed by attr index everywhere in the protocol (the summary's order);
//! `load_profile` numbers the profile's events in order of first use, so the session maps
//! between the two ([`EventMap`]).

pub mod activity;
pub mod compare;
pub mod events;
pub mod export;
pub mod heatmap;
pub mod lane_list;
mod order;
pub mod overview;
pub mod record_fields;
pub mod record_rows;
pub mod records_index;
pub mod row_set;
pub mod share;
pub mod source;
pub mod symbols;
pub mod text_input;
pub mod timeline;
pub mod tree;

pub use order::{read_groups, OrderPass};

use perfscope_analysis::builder::{InlineFrames, UnknownNames};
use perfscope_analysis::feature_summary::CompressedSummary;
use perfscope_analysis::ids::FuncIndex;
use perfscope_analysis::load::{
    can_share_stacks, fill_deferred, stream_records, LoadDiagnostics, LoadError, LoadExtras,
    LoadOptions, Loaded, Part, ProfileLoader, RecordSink, RecordStream, StackShare,
};
use perfscope_analysis::offcpu::{self, off_cpu_table};
use perfscope_analysis::profile::Profile;
use perfscope_analysis::samples::SampleTable;
use perfscope_analysis::summary::{Summary, SummaryReader};
use perfscope_format::file::ReadAt;
use perfscope_format::metadata::Metadata;
use perfscope_format::stream::Inflated;
use perfscope_format::RawRecord;

use crate::protocol::strings::StringTable;
use crate::protocol::{
    Filter, OffCpuInfo, Overview, Phase, PreviewReply, ProfileData, Progress, Query, RecordError,
    RecordFilter, RecordRows, RecordsMeta, RecordsReply, StackHelper, StackReply, SymbolFileInfo,
    Timings, WeightKind, WorkerMessage,
};
use crate::selectors::Command;
pub use events::EventMap;
use records_index::RecordIndex;
use row_set::RowSet;
use source::DynSource;
use symbols::{FileKind, SymbolFile};
use timeline::Timeline;

/// Files are read in slices of this many bytes unless the caller asks otherwise (progress is
/// reported after each).
pub const SLICE: usize = 8 << 20;

/// The slice for the records pass: `slice`, cut by the compression ratio the header gives for a
/// `-z` file (to 1/16 at most, not under 512 KiB), whose slices would otherwise hold that many
/// times more records (an 8 MiB slice of big300-z took ~1.3 s in the page: progress and previews
/// came that far apart).
pub fn records_slice(slice: usize, compressed: Option<&CompressedSummary>) -> usize {
    let slice = slice.max(1);
    match compressed {
        Some(c) if c.ratio > 1 => (slice / c.ratio.min(16) as usize).max(slice.min(512 << 10)),
        _ => slice,
    }
}

/// Opens `data`, a small perf.data, as the worker opens a file (the records pass in slices,
/// the profile's hand-over, the prewarm and the first flame graph's tree), and drops it: the
/// worker's warm-up before its first file (see `warm_up` in `crate::worker`). With `ordered`,
/// its records are ordered by an [`OrderPass`] in turn with the pass, and a preview is made
/// after each slice, as for a big file (whose records another worker orders): that code is
/// compiled then too, not during the first big file (on big300-g its first calls' compiles
/// took 0.3 s of the calling threads and V8's optimizing 0.8 s of the renderer's thread pool
/// during the open; with these rounds 0.2 s and 0.4 s). Returns the samples the tree holds.
pub fn warm_up(data: &[u8], ordered: bool) -> u64 {
    match warm_up_open(data, ordered).1 {
        WorkerMessage::Tree(_, tree) => tree.meta.samples,
        _ => 0,
    }
}

/// [`warm_up`] (not ordered), and the messages a file's open sends the page, with request id 0
/// (which no request has): its summary, its profile and its first flame graph's tree. The page
/// decodes them and drops them, its own warm-up (`crate::page_warm_up`).
pub fn warm_up_for_page(data: &[u8]) -> [WorkerMessage; 3] {
    let (s, tree) = warm_up_open(data, false);
    [
        WorkerMessage::Summary(0, Box::new(s.summary().clone())),
        WorkerMessage::Profile(0, Box::new(s.profile_data())),
        tree,
    ]
}

/// [`warm_up`]'s session and the first tree's reply (id 0).
fn warm_up_open(data: &[u8], ordered: bool) -> (Session, WorkerMessage) {
    let mut s = if ordered {
        open_ordered_in_turn(data, SLICE).0
    } else {
        Session::open_bytes(data.to_vec(), SLICE)
    };
    let event = s.profile_data().overview.default_event();
    s.prewarm(event);
    let query = Query::Tree {
        filter: Filter {
            event,
            ..Filter::default()
        },
        inverted: false,
        weight: WeightKind::Samples,
        root: Vec::new(),
        detail: 0,
        by_command: false,
    };
    let tree = s.query(0, query);
    (s, tree)
}

/// The pass over `data` in slices of `slice` bytes, begun as the worker begins it (its
/// summary read first), without symbol files (the warm-up, and tests).
pub(crate) fn begin_bytes(data: &[u8], slice: usize) -> Opening {
    let mut source = source::VecSource(data.to_vec());
    let summary = SummaryReader::read_from(&mut source, slice);
    Session::begin(
        Box::new(source),
        summary,
        Vec::new(),
        UnknownNames::Module,
        slice,
        &|| 0.0,
        Timings::default(),
    )
}

/// `data` opened as a big file is, its records ordered by an [`OrderPass`] (here, in turn
/// with the pass: the ordering worker's part), with a preview after each slice. Ordered here
/// when the file cannot be ordered elsewhere; the flag says whether the [`OrderPass`] ordered
/// them.
fn open_ordered_in_turn(data: &[u8], slice: usize) -> (Session, bool) {
    let mut opening = begin_bytes(data, slice);
    let mut order = OrderPass::open(
        &mut source::VecSource(data.to_vec()),
        opening.slice(),
        UnknownNames::Module,
        false,
    );
    if order.failure().is_none() {
        opening.order_elsewhere();
    }
    let fill = |at: u64, out: &mut [u8]| {
        let bytes = usize::try_from(at)
            .ok()
            .and_then(|at| data.get(at..at.checked_add(out.len())?));
        match bytes {
            Some(b) => {
                out.copy_from_slice(b);
                Ok(())
            }
            None => Err(perfscope_format::Error::new(
                at,
                perfscope_format::ErrorKind::UnexpectedEof {
                    what: "warm-up slice",
                    needed: out.len() as u64,
                    available: 0,
                },
            )),
        }
    };
    while let Some((at, size)) = opening.next_slice() {
        if opening.ordered_elsewhere() {
            let (ops, tally) = order.push(at, size, fill);
            let ops = ops.to_vec();
            // (As the worker: an error is the writer's bug, and only logged there.)
            let _ = opening.take_ordered(size, &ops, &tally);
        } else {
            opening.push(size, |out| fill(at, out));
        }
        // (The worker's detail for previews: PREVIEW_DETAIL.)
        opening.preview(usize::MAX, 2_000);
    }
    let ordered = opening.ordered_elsewhere();
    (opening.finish(&mut |_| {}, &|| 0.0), ordered)
}

/// An open file.
pub struct Session {
    source: Box<dyn ReadAt>,
    slice: usize,
    summary: Summary,
    meta: Option<Metadata>,
    index: RecordIndex,
    symbol_files: Vec<SymbolFile>,
    symbol_infos: Vec<SymbolFileInfo>,
    /// How frames without a symbol are named: one per module, or one per address.
    unknown_names: UnknownNames,
    profile: Profile,
    /// The off-CPU time of the switch timeline, as samples on the profile's stacks and threads
    /// (`perfscope_analysis::offcpu::off_cpu_table`), apart from the profile's samples so that
    /// nothing but an off-CPU query counts them.
    off_cpu: SampleTable,
    diagnostics: LoadDiagnostics,
    events: EventMap,
    timeline: Timeline,
    generation: u32,
    profile_error: Option<String>,
    timings: Timings,
    records_cache: Option<(RecordFilter, RowSet)>,
    /// What tree and search queries reuse (per generation).
    tree_cache: tree::TreeCache,
    /// The samples of the function the timeline highlights (per generation).
    func_marks: Option<activity::FuncMarks>,
}

/// Files from this size on make their records index's rows ahead only within [`rows_ahead`]'s
/// budget (the memory target of issue 6 is for files of 100 MB or more).
const ROWS_AHEAD_FROM: u64 = 100_000_000;

/// Whether a file of `size` bytes and `records` records, whose worker holds `memory` bytes
/// now, makes its records index's rows ahead: a small file always; a big one only when the
/// worker stays within half the file with them. A recording of very many small records keeps
/// them for the Records tab's first query, which then makes them (~0.4 s natively for 315 MB
/// of records without callchains: 5.6M records, 26 MB of rows).
fn rows_ahead(size: u64, records: u64, memory: u64) -> bool {
    size < ROWS_AHEAD_FROM
        || memory.saturating_add(records.saturating_mul(record_rows::ROW_BYTES)) <= size / 2
}

/// The one pass over the records when a file is opened: each record goes to the records index,
/// the profile loader (or the writer that orders the records for it) and the summary.
struct OpenPass {
    index: RecordIndex,
    loader: ProfileLoader,
    summary: SummaryReader,
    ordering: order::Ordering,
}

impl RecordSink for OpenPass {
    #[inline]
    fn record(&mut self, meta: &Metadata, rec: &RawRecord<'_>) {
        // The time the index decoded: the loader's time order need not read it again.
        let time = self.index.push(meta, rec);
        match &mut self.ordering {
            order::Ordering::Here => self.loader.push_timed(meta, rec, time),
            order::Ordering::Elsewhere => {}
            order::Ordering::Writer(w) => w.push_timed(meta, rec, time, &mut self.loader),
        }
        self.summary.record(rec);
    }
    fn error(&mut self, e: perfscope_format::Error) {
        self.index.push_error(e);
        self.loader.push_error(e);
        self.summary.error(&e);
    }
}

/// The profile is loaded with the switch timeline (on/off-CPU periods for the lanes).
const EXTRAS: LoadExtras = LoadExtras {
    timeline: true,
    off_cpu: false,
};

fn load_options(
    resolver: Option<perfscope_analysis::symbols::resolver::SymbolResolver>,
    unknown_names: UnknownNames,
) -> LoadOptions {
    LoadOptions {
        resolver,
        unknown_names,
        inline_frames: InlineFrames::Unwound,
        ..LoadOptions::default()
    }
}

/// The profile loader of a session: with the switch timeline, whose sample lanes the session
/// counts from the profile itself ([`Timeline::new`]), and which takes samples only when the
/// recording can have context switches (the session uses it for the switches' activity, the
/// off-CPU time and the markers alone).
fn loader(
    resolver: Option<perfscope_analysis::symbols::resolver::SymbolResolver>,
    unknown_names: UnknownNames,
) -> ProfileLoader {
    ProfileLoader::with_extras(load_options(resolver, unknown_names), EXTRAS)
        .without_timeline_sample_times()
        .timeline_samples_for_switches()
}

/// The making of the stacks of the samples whose records start at `cut` or later, for the
/// worker that reads the same file with [`Opening::share_stacks`]: the whole file read in
/// slices, the earlier samples skipped. Its slices nest in that worker's (see
/// [`PartPass::slice_for`]), so that they can be cut from the ones it forwards.
pub struct PartPass {
    stream: Result<RecordStream, String>,
    loader: ProfileLoader,
}

impl PartPass {
    /// The slice size of a part pass for a worker that reads the records in slices of
    /// `slice` bytes: an eighth of it when that is 1 MiB or more (less memory here), else
    /// the same; either way each of its slices lies inside one of the other worker's.
    pub fn slice_for(slice: usize) -> usize {
        if slice.is_multiple_of(8) && slice / 8 >= 1 << 20 {
            slice / 8
        } else {
            slice.max(1)
        }
    }

    /// Reads the header through `source` and starts the pass, in slices of
    /// [`PartPass::slice_for`]`(slice)`.
    pub fn open(
        source: &mut dyn ReadAt,
        slice: usize,
        unknown_names: UnknownNames,
        cut: u64,
    ) -> PartPass {
        let mut loader = ProfileLoader::new(load_options(None, unknown_names));
        loader.share_stacks(StackShare::From(cut));
        let stream =
            RecordStream::open(&mut DynSource(source), Self::slice_for(slice), &mut loader)
                .map_err(|e| e.to_string());
        PartPass { stream, loader }
    }

    /// The next slice to read, as (offset, size); `None` when every slice was pushed.
    pub fn next_slice(&self) -> Option<(u64, usize)> {
        self.stream.as_ref().ok()?.next_slice()
    }

    /// The slice [`PartPass::next_slice`] named: `fill` writes its bytes.
    pub fn push(
        &mut self,
        size: usize,
        fill: impl FnOnce(&mut [u8]) -> Result<(), perfscope_format::Error>,
    ) {
        if let Ok(stream) = &mut self.stream {
            stream.push(size, fill, &mut self.loader);
        }
    }

    /// Ends the pass: the stacks made.
    pub fn finish(self) -> Result<Part, String> {
        let PartPass { stream, mut loader } = self;
        let meta = stream?.finish(&mut loader);
        loader.finish_part(&meta).map_err(|e| e.to_string())
    }
}

/// What the worker that made the later samples' stacks sent ([`Opening::set_part`]): its
/// stack table ([`perfscope_analysis::load::encode_part`]) and the stack of each of its
/// samples, by rank (`u32::MAX`: none; `None`: no such sample).
pub struct SentPart {
    /// The stack table, as bytes.
    pub tables: Vec<u8>,
    /// The stack of the `k`-th sample.
    pub stack_of: Box<dyn FnMut(u32) -> Option<u32>>,
}

impl From<Part> for SentPart {
    fn from(part: Part) -> SentPart {
        let Part { tables, stacks } = part;
        SentPart {
            tables,
            stack_of: Box::new(move |k| stacks.get(k as usize)),
        }
    }
}

/// [`PartPass`] read whole through `source`.
pub fn stacks_part(
    source: &mut dyn ReadAt,
    slice: usize,
    unknown_names: UnknownNames,
    cut: u64,
) -> Result<Part, String> {
    let mut pass = PartPass::open(source, slice, unknown_names, cut);
    while let Some((at, size)) = pass.next_slice() {
        pass.push(size, |out| source.read_into(at, out));
    }
    pass.finish()
}

/// Runs `f` on `profile` with `samples` (a table on its stacks and threads, such as its
/// off-CPU time) standing in for its samples: swapped in and back, nothing copied.
pub(crate) fn with_samples<R>(
    profile: &mut Profile,
    samples: &mut SampleTable,
    f: impl FnOnce(&Profile) -> R,
) -> R {
    std::mem::swap(&mut profile.samples, samples);
    let r = f(profile);
    std::mem::swap(&mut profile.samples, samples);
    r
}

/// A file being opened ([`Session::begin`]): the pass over its records, fed slice by slice.
pub struct Opening {
    source: Box<dyn ReadAt>,
    total: u64,
    /// The records stream, or why the header could not be read.
    stream: Result<RecordStream, perfscope_format::Error>,
    pass: OpenPass,
    symbol_files: Vec<SymbolFile>,
    symbol_infos: Vec<SymbolFileInfo>,
    unknown_names: UnknownNames,
    slice: usize,
    t0: f64,
    timings: Timings,
    /// Whether another worker makes the stacks of the samples from a file offset on
    /// ([`Opening::share_stacks`]), and then what it sent ([`Opening::set_part`]).
    share: Option<Result<SentPart, String>>,
    /// Whether another worker decompressed records for the pass
    /// ([`Opening::supply_inflated`]).
    supplied: bool,
    /// After [`Opening::inflate_here`]: the stream that decompresses the next slices' records
    /// here, for the pass.
    inflater: Option<RecordStream>,
}

/// A sink for the records of a stream that only decompresses (see [`Opening::inflate_here`],
/// and the worker's inflater): the pass's own stream reports them. Also for what the header
/// read of a records walk finds (the records pass reported it already).
pub struct IgnoreRecords;

impl RecordSink for IgnoreRecords {
    fn record(&mut self, _: &Metadata, _: &RawRecord<'_>) {}
    fn error(&mut self, _: perfscope_format::Error) {}
}

impl Opening {
    /// Symbolizes the records with `symbol_files` (kallsyms, binaries, ...): what
    /// [`Session::begin`] does with those it is given, for files read after it began (the
    /// worker reads them while the first slices are read), `read_ms` ago. Call before the first
    /// slice is pushed; files added later name only the frames made after. The records pass
    /// is timed from here ([`Timings::records_ms`]), the reading and the resolver's making as
    /// [`Timings::symbols_ms`].
    pub fn add_symbols(
        &mut self,
        symbol_files: Vec<SymbolFile>,
        read_ms: f64,
        now: &dyn Fn() -> f64,
    ) {
        if symbol_files.is_empty() {
            return;
        }
        let t0 = now();
        self.symbol_files.extend(symbol_files);
        let (resolver, infos) = symbols::build_resolver(&self.symbol_files, &Default::default());
        self.symbol_infos = infos;
        self.pass.loader.set_resolver(resolver);
        self.t0 = now();
        self.timings.symbols_ms += read_ms + (self.t0 - t0);
    }

    /// Where another worker could take over the making of stacks: the offset `fraction` of
    /// the way through the records; `None` when the file does not allow it (a pipe stream,
    /// samples with read values: see [`can_share_stacks`]) or has symbol files (the profile is
    /// then built again once the pass has read their paths, whatever the pass made).
    pub fn stack_cut(&self, fraction: f64) -> Option<u64> {
        let (meta, start, end) = self.stream.as_ref().ok()?.file_records()?;
        if !self.symbol_files.is_empty() || !can_share_stacks(meta) || end <= start {
            return None;
        }
        let into = ((end - start) as f64 * fraction.clamp(0.0, 1.0)) as u64;
        Some(start + into.min(end - start))
    }

    /// Leaves the stacks of the samples whose records start at `cut` or later to another
    /// worker ([`StackShare::Before`]), which makes them with [`stacks_part`]; what it sends
    /// goes to [`Opening::set_part`] before [`Opening::finish`]. Call before the first slice
    /// is pushed.
    pub fn share_stacks(&mut self, cut: u64) {
        self.pass.loader.share_stacks(StackShare::Before(cut));
        // This loader does not decode the later samples whole: the index checks them all.
        self.pass.index = RecordIndex::default();
        self.share = Some(Err("the other worker sent nothing".into()));
    }

    /// The size of the slices the records are read in.
    pub fn slice(&self) -> usize {
        self.slice
    }

    /// What the worker that made the later samples' stacks sent (what [`stacks_part`] made),
    /// or why it did not.
    pub fn set_part(&mut self, part: Result<SentPart, String>) {
        if self.share.is_some() {
            self.share = Some(part);
        }
    }

    /// The next slice to read, as (offset, size); `None` when every slice was pushed.
    pub fn next_slice(&self) -> Option<(u64, usize)> {
        self.stream.as_ref().ok()?.next_slice()
    }

    /// Whether the recording has DWARF-mode stacks, which need more of a binary dropped with it
    /// ([`perfscope_analysis::symbols::compact`]); `true` when not known before the pass (a
    /// pipe-mode stream, whose events come with its records).
    pub fn dwarf_mode(&self) -> bool {
        match self.stream.as_ref().ok().and_then(|s| s.file_records()) {
            Some((meta, _, _)) => perfscope_analysis::load::dwarf_mode(meta),
            None => true,
        }
    }

    /// Every slice still to read, in order.
    pub fn slices(&self) -> Vec<(u64, usize)> {
        self.stream
            .as_ref()
            .map(|s| s.slices().collect())
            .unwrap_or_default()
    }

    /// The slice [`Opening::next_slice`] named: `fill` writes its `size` bytes. A failed fill
    /// is an error of the file and ends its records.
    pub fn push(
        &mut self,
        size: usize,
        fill: impl FnOnce(&mut [u8]) -> Result<(), perfscope_format::Error>,
    ) {
        if self.inflater.is_some() {
            let mut bytes = vec![0; size];
            let filled = fill(&mut bytes);
            self.push_inflating(&bytes, filled);
        } else if let Ok(stream) = &mut self.stream {
            stream.push(size, fill, &mut self.pass);
        }
    }

    /// The slice at `at` read through the file's own source.
    pub fn push_from_source(&mut self, at: u64, size: usize) {
        let source = &mut self.source;
        if self.inflater.is_some() {
            let mut bytes = vec![0; size];
            let read = source.read_into(at, &mut bytes);
            self.push_inflating(&bytes, read);
            return;
        }
        if let Ok(stream) = &mut self.stream {
            stream.push(size, |out| source.read_into(at, out), &mut self.pass);
        }
    }

    /// After [`Opening::inflate_here`]: a slice's `bytes` (or why they could not be read) go to
    /// the stream that decompresses, then, with what it decompressed, to the pass's.
    fn push_inflating(&mut self, bytes: &[u8], filled: Result<(), perfscope_format::Error>) {
        let (Ok(stream), Some(local)) = (&mut self.stream, &mut self.inflater) else {
            return;
        };
        local.push(
            bytes.len(),
            |out| {
                out.copy_from_slice(bytes);
                Ok(())
            },
            &mut IgnoreRecords,
        );
        stream.supply_inflated(local.take_inflated());
        stream.push(
            bytes.len(),
            |out| {
                filled?;
                out.copy_from_slice(bytes);
                Ok(())
            },
            &mut self.pass,
        );
    }

    /// The records of a `perf record -z` file, which another worker could decompress
    /// ([`Opening::supply_inflated`]), as (start, end, byte order); `None` for a file without
    /// compressed records or a pipe stream (whose compression is known only from its records).
    pub fn compressed_records(&self) -> Option<(u64, u64, perfscope_format::Endianness)> {
        let (meta, start, end) = self.stream.as_ref().ok()?.file_records()?;
        self.pass.summary.compressed()?;
        Some((start, end, meta.endian))
    }

    /// Whether the input is a pipe-mode stream whose header records say its records are
    /// compressed: the worker that orders its records may have a third decompress them
    /// (`OrderPass::open`).
    pub fn compressed_pipe(&self) -> bool {
        self.stream.as_ref().is_ok_and(RecordStream::is_pipe)
            && self.pass.summary.compressed().is_some()
    }

    /// Hands over the decompressed bytes of the compressed records that the next
    /// [`Opening::push`] completes, which another worker made from the same slice (see
    /// [`RecordStream::supply_inflated`]): the pass does not decompress them. Once a slice's
    /// were supplied, every later slice's must be, or [`Opening::inflate_here`] called.
    pub fn supply_inflated(&mut self, inflated: Inflated) {
        if let Ok(stream) = &mut self.stream {
            self.supplied = true;
            stream.supply_inflated(inflated);
        }
    }

    /// Decompresses the next slices' records here (the worker that did it failed): the slices
    /// pushed so far are read and decompressed again, without their records, to put the
    /// decompressor where the pass is. Nothing to do when none were supplied (the pass
    /// decompresses itself).
    pub fn inflate_here(&mut self) {
        if !self.supplied || self.inflater.is_some() {
            return;
        }
        let Some(upto) = self.next_slice().map(|(at, _)| at) else {
            return;
        };
        let mut source = DynSource(self.source.as_mut());
        let Ok(mut local) = RecordStream::open(&mut source, self.slice, &mut IgnoreRecords) else {
            return;
        };
        local.inflate_only();
        while let Some((at, size)) = local.next_slice().filter(|(at, _)| *at < upto) {
            local.push(size, |out| source.read_into(at, out), &mut IgnoreRecords);
            local.take_inflated();
        }
        self.inflater = Some(local);
    }

    /// How far the pass is.
    pub fn progress(&self) -> Progress {
        let (bytes, records) = self.stream.as_ref().map_or((0, 0), |s| s.progress());
        Progress {
            phase: Phase::Records,
            bytes: bytes as f64,
            total: self.total as f64,
            records: records as f64,
        }
    }

    /// The stacks of the profile read so far.
    pub fn stacks(&self) -> usize {
        self.pass.loader.profile().stacks.len()
    }

    /// A flame graph of the samples read so far, from at most `max_samples` of them, nodes
    /// narrower than a `detail`-th of the width left out ([`perfscope_analysis::preview`]).
    pub fn preview(&self, max_samples: usize, detail: u64) -> PreviewReply {
        let profile = self.pass.loader.profile();
        let v = perfscope_analysis::preview::preview(profile, max_samples, detail);
        let read = self.progress();
        let mut reply = PreviewReply {
            taken: v.taken,
            seen: v.seen,
            step: v.step,
            event: v.event.and_then(|e| {
                let name = profile.events.get(e.index())?;
                Some(profile.strings.get(*name).to_string())
            }),
            bytes: read.bytes,
            total: read.total,
            ..PreviewReply::default()
        };
        // The nodes' functions, numbered in order of first use.
        let mut local: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
        for n in &v.nodes {
            let next = local.len() as u32;
            let f = *local.entry(n.func.0).or_insert_with(|| {
                reply.names.push(profile.func_name(n.func).to_string());
                reply
                    .modules
                    .push(profile.func_module_path(n.func).to_string());
                next
            });
            reply.parent.push(n.parent.unwrap_or(u32::MAX));
            reply.func.push(f);
            reply.depth.push(n.depth);
            reply.x.push(n.x as f64);
            reply.width.push(n.width as f64);
        }
        reply
    }

    /// Ends the pass and builds the session: the profile, the timeline, the symbols.
    pub fn finish(self, progress: &mut dyn FnMut(Progress), now: &dyn Fn() -> f64) -> Session {
        let Opening {
            source,
            total,
            stream,
            mut pass,
            symbol_files,
            symbol_infos,
            unknown_names,
            slice,
            t0,
            mut timings,
            share,
            supplied: _,
            inflater: _,
        } = self;
        let result = stream.map(|s| s.finish(&mut pass));
        if let Ok(meta) = &result {
            pass.finish_ordering(meta);
        }
        let OpenPass {
            mut index,
            loader,
            summary,
            ordering: _,
        } = pass;
        timings.records_ms = now() - t0;
        let t1 = now();
        let total = total as f64;
        progress(Progress {
            phase: Phase::Profile,
            bytes: total,
            total,
            records: index.len() as f64,
        });
        // When the other worker's stacks cannot be filled in, the profile is built again here.
        let mut rebuild = false;
        let (meta, built) = match result {
            Ok(meta) => {
                let mut built = loader.finish_loaded(&meta);
                if let (Ok(l), false) = (&built, index.has_rows()) {
                    // A tally left the samples to the loader, which decoded each one.
                    index.add_sample_errors(&l.diagnostics.sample_errors);
                }
                if let (Ok(l), Some(part)) = (&mut built, share) {
                    let filled = part.and_then(|p| {
                        let SentPart { tables, stack_of } = p;
                        fill_deferred(
                            &mut l.profile,
                            l.timeline.as_mut(),
                            l.deferred,
                            &tables,
                            stack_of,
                        )
                        .map_err(|e| e.to_string())
                    });
                    timings.helper = match filled {
                        Ok(()) => StackHelper::Used,
                        Err(_) => {
                            rebuild = true;
                            StackHelper::Failed
                        }
                    };
                }
                (Some(meta), Some(built))
            }
            Err(e) => {
                index = RecordIndex::default();
                index.push_error(e);
                (None, None)
            }
        };
        let mut s = Session {
            source,
            slice,
            summary: summary.summary(),
            meta,
            index,
            symbol_files,
            symbol_infos,
            unknown_names,
            profile: Profile::new(),
            off_cpu: SampleTable::default(),
            diagnostics: LoadDiagnostics::default(),
            events: EventMap::default(),
            timeline: Timeline::default(),
            generation: 0,
            profile_error: None,
            timings,
            records_cache: None,
            tree_cache: tree::TreeCache::default(),
            func_marks: None,
        };
        let switches = built.and_then(|built| s.set_profile(built));
        if rebuild {
            s.rebuild(progress, now);
        } else {
            // The symbol files served the pass (an ELF file each path with its base name, as
            // it was met): only their descriptions name the mapped paths, known now.
            for (info, f) in s.symbol_infos.iter_mut().zip(&s.symbol_files) {
                if f.kind == FileKind::Elf {
                    info.detail = symbols::elf_detail(f, &s.index.mapped);
                }
            }
            s.generation = 1;
            s.finish_profile(switches.as_ref());
        }
        s.timings.profile_ms = now() - t1;
        s
    }
}

impl Session {
    /// Opens the perf.data read through `source`, in slices of `slice` bytes, whose summary was
    /// read from its header (`summary`: the records of the pass complete it), with
    /// `symbol_files`. One pass over the records builds the records index, the profile and the
    /// summary. `progress` gets reports; `now` is a clock in ms (timings only). Frames without
    /// a symbol are named as `unknown_names` says.
    #[allow(clippy::too_many_arguments)]
    pub fn open(
        source: Box<dyn ReadAt>,
        summary: SummaryReader,
        symbol_files: Vec<SymbolFile>,
        unknown_names: UnknownNames,
        slice: usize,
        progress: &mut dyn FnMut(Progress),
        now: &dyn Fn() -> f64,
        timings: Timings,
    ) -> Session {
        let mut opening = Session::begin(
            source,
            summary,
            symbol_files,
            unknown_names,
            slice,
            now,
            timings,
        );
        while let Some((at, size)) = opening.next_slice() {
            opening.push_from_source(at, size);
            progress(opening.progress());
        }
        opening.finish(progress, now)
    }

    /// [`Session::open`] in steps, for a caller that reads the slices itself (the worker has
    /// another thread read ahead): reads the header and feature sections through `source`, and
    /// returns the pass to feed with [`Opening::push`].
    pub fn begin(
        mut source: Box<dyn ReadAt>,
        summary: SummaryReader,
        symbol_files: Vec<SymbolFile>,
        unknown_names: UnknownNames,
        slice: usize,
        now: &dyn Fn() -> f64,
        timings: Timings,
    ) -> Opening {
        let slice = records_slice(slice, summary.compressed());
        let t0 = now();
        let mut pass = OpenPass {
            index: RecordIndex::tally(),
            loader: loader(None, unknown_names),
            summary,
            ordering: order::Ordering::Here,
        };
        let stream = RecordStream::open(&mut DynSource(source.as_mut()), slice, &mut pass);
        let mut opening = Opening {
            share: None,
            supplied: false,
            inflater: None,
            total: source.len(),
            source,
            stream,
            pass,
            symbol_files: Vec::new(),
            symbol_infos: Vec::new(),
            unknown_names,
            slice,
            t0,
            timings,
        };
        opening.add_symbols(symbol_files, 0.0, now);
        opening
    }

    /// Opens a file held in memory, read in slices of `slice` bytes, without symbols (tests,
    /// and the worker's [`warm_up`]).
    pub(crate) fn open_bytes(data: Vec<u8>, slice: usize) -> Session {
        let mut source = source::VecSource(data);
        let summary = SummaryReader::read_from(&mut source, slice);
        Session::open(
            Box::new(source),
            summary,
            Vec::new(),
            UnknownNames::Module,
            slice,
            &mut |_| {},
            &|| 0.0,
            Timings::default(),
        )
    }

    /// Keeps the built profile (or its error); returns the switch timeline that came with it.
    fn set_profile(
        &mut self,
        built: Result<Loaded, LoadError>,
    ) -> Option<perfscope_analysis::timeline::Timeline> {
        match built {
            Ok(l) => {
                self.profile = l.profile;
                self.diagnostics = l.diagnostics;
                self.profile_error = None;
                l.timeline
            }
            Err(e) => {
                self.profile_error = Some(e.to_string());
                None
            }
        }
    }

    /// The event map and the timeline lanes of the profile, with the on/off-CPU activity of
    /// `switches`.
    fn finish_profile(&mut self, switches: Option<&perfscope_analysis::timeline::Timeline>) {
        self.off_cpu = switches
            .and_then(|t| off_cpu_table(&self.profile, t).ok())
            .unwrap_or_default();
        self.events = EventMap::new(&self.summary, &self.profile);
        self.timeline = Timeline::new(&self.profile, &self.events);
        self.timeline
            .set_activity(switches, &self.profile, &self.summary, &self.events);
    }

    /// Builds the profile again (with the symbol files), reading the file again.
    fn rebuild(&mut self, progress: &mut dyn FnMut(Progress), now: &dyn Fn() -> f64) {
        let t0 = now();
        self.generation += 1;
        let (resolver, infos) = symbols::build_resolver(&self.symbol_files, &self.index.mapped);
        self.symbol_infos = infos;
        let mut switches = None;
        if self.meta.is_some() {
            let total = self.source.len() as f64;
            let mut loader = loader(resolver, self.unknown_names);
            let built = stream_records(
                &mut DynSource(self.source.as_mut()),
                &mut [],
                self.slice,
                &mut loader,
                |bytes, records| {
                    progress(Progress {
                        phase: Phase::Profile,
                        bytes: bytes as f64,
                        total,
                        records: records as f64,
                    })
                },
            )
            .map_err(LoadError::Format)
            .and_then(|meta| loader.finish_loaded(&meta));
            switches = self.set_profile(built);
        }
        self.finish_profile(switches.as_ref());
        self.timings.profile_ms = now() - t0;
    }

    /// Whether the recording has DWARF-mode stacks (see [`Opening::dwarf_mode`]).
    pub fn dwarf_mode(&self) -> bool {
        self.meta
            .as_ref()
            .is_none_or(perfscope_analysis::load::dwarf_mode)
    }

    /// How frames without a symbol are named.
    pub fn unknown_names(&self) -> UnknownNames {
        self.unknown_names
    }

    /// Adds symbol files and names frames without a symbol as `unknown_names` says: builds the
    /// profile again (reading the file again) when either changes anything.
    pub fn resymbolize(
        &mut self,
        files: Vec<SymbolFile>,
        unknown_names: UnknownNames,
        progress: &mut dyn FnMut(Progress),
        now: &dyn Fn() -> f64,
    ) {
        if files.is_empty() && unknown_names == self.unknown_names {
            return;
        }
        self.unknown_names = unknown_names;
        self.symbol_files.extend(files);
        self.rebuild(progress, now);
    }

    /// The summary.
    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    /// The profile.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// The overview.
    pub fn overview(&self) -> Overview {
        let mut o = overview::overview(
            &self.summary,
            self.meta.as_ref(),
            &self.index,
            &self.profile,
            &self.events,
            &self.timeline,
            &self.symbol_files,
            &self.diagnostics,
        );
        o.generation = self.generation;
        o.by_address = self
            .meta
            .is_some()
            .then_some(self.unknown_names == UnknownNames::ModuleOffset);
        // Header warnings are in the summary already; the banner is about records.
        let before = o.errors.len();
        o.errors
            .retain(|e| !self.summary.warnings.contains(&e.message));
        o.error_count = o
            .error_count
            .saturating_sub((before - o.errors.len()) as u64);
        o.symbol_files = self.symbol_infos.clone();
        o.timings = self.timings;
        let t = &self.off_cpu;
        o.off_cpu = (!t.is_empty()).then(|| OffCpuInfo {
            switches: t.len() as u64,
            ns: t.periods().fold(0u64, |a, p| a.saturating_add(p)),
            approximate: t.events().filter(|&e| e == offcpu::APPROXIMATE).count() as u64,
        });
        if let Some(e) = &self.profile_error {
            o.errors.push(RecordError {
                offset: 0,
                message: format!("the profile could not be built: {e}"),
                records_before: o.records,
            });
            o.error_count += 1;
        }
        o
    }

    /// Builds what the page's first flame graph asks for — the children index and the whole
    /// time's weights of `event` (the page's default, [`Overview::default_event`]) — so that
    /// it is made while the page takes in the `profile` message, not after its first query.
    /// A first query with another filter still finds the children index made.
    pub fn prewarm(&mut self, event: Option<u32>) {
        let filter = Filter {
            event,
            ..Filter::default()
        };
        let (samples, timeline, events, cache, generation) = self.tree_input();
        cache.prepare(&samples, timeline, events, &filter, generation);
    }

    /// What the tree queries read, the cache they fill and its generation.
    fn tree_input(
        &mut self,
    ) -> (
        tree::Samples<'_>,
        &Timeline,
        &EventMap,
        &mut tree::TreeCache,
        u32,
    ) {
        (
            tree::Samples {
                profile: &self.profile,
                off_cpu: &self.off_cpu,
            },
            &self.timeline,
            &self.events,
            &mut self.tree_cache,
            self.generation,
        )
    }

    /// The commands a tree grouped by command has roots for, in the order of their ids: the
    /// Command select's list.
    fn command_list(&self) -> Vec<Command> {
        // The overview's processes are the timeline's (the rest of it is not needed).
        crate::selectors::commands(&Overview {
            processes: self.timeline.processes.clone(),
            ..Overview::default()
        })
    }

    /// The `profile` message's contents. The functions are followed by one per command (see
    /// [`Session::command_list`]) named after it: the roots of a tree grouped by command.
    pub fn profile_data(&self) -> ProfileData {
        let p = &self.profile;
        // The same two arrays: copied whole, not string by string, with room for the commands'
        // names after them (the first pushed onto an exact copy of the texts would double it:
        // the hand-over's peak, 68 MB for a 300 MB recording's 34 MB of names).
        let commands = self.command_list();
        let (texts, ends) = p.strings.as_parts();
        let mut bytes =
            Vec::with_capacity(texts.len() + commands.iter().map(|c| c.name.len()).sum::<usize>());
        bytes.extend_from_slice(texts.as_bytes());
        let mut string_ends = Vec::with_capacity(ends.len() + commands.len());
        string_ends.extend_from_slice(ends);
        let strings = StringTable::from_parts(bytes, string_ends);
        let n = p.funcs.len();
        let mut func_name = Vec::with_capacity(n);
        let mut func_module = Vec::with_capacity(n);
        for i in 0..n {
            let f = p.funcs.get(FuncIndex(i as u32));
            func_name.push(f.map_or(u32::MAX, |f| f.name.0));
            func_module.push(
                f.and_then(|f| f.module)
                    .and_then(|m| p.modules.get(m))
                    .map_or(u32::MAX, |m| m.path.0),
            );
        }
        let mut strings = strings;
        for c in commands {
            func_name.push(strings.push(&c.name));
            func_module.push(crate::selectors::COMMAND_MODULE);
        }
        ProfileData {
            overview: self.overview(),
            strings,
            func_name,
            func_module,
        }
    }

    /// Records in the file.
    pub fn record_count(&self) -> usize {
        self.index.len()
    }

    /// Bytes the records index holds (its columns' capacities).
    pub fn index_bytes(&self) -> usize {
        self.index.heap_bytes()
    }

    /// Makes the timeline's lane lists if no query has made them yet (see
    /// [`Timeline`]); whether it made them now.
    pub fn prepare_timeline(&self) -> bool {
        self.timeline.prepare(&self.profile)
    }

    /// Bytes the timeline's rank indexes hold (one per lane and event, for density queries).
    pub fn timeline_index_bytes(&self) -> usize {
        self.timeline.index_bytes()
    }

    /// The timings so far.
    pub fn timings_mut(&mut self) -> &mut Timings {
        &mut self.timings
    }

    /// Answers a query.
    pub fn query(&mut self, id: u32, query: Query) -> WorkerMessage {
        match &query {
            Query::Tree {
                filter,
                inverted,
                weight,
                root,
                detail,
                by_command,
            } => {
                let detail = if *detail == 0 {
                    tree::DETAIL
                } else {
                    u64::from(*detail)
                };
                let commands = if *by_command {
                    self.command_list()
                } else {
                    Vec::new()
                };
                let first_func = self.profile.funcs.len() as u32;
                let params = tree::TreeParams {
                    filter,
                    inverted: *inverted,
                    weight: *weight,
                    root,
                    detail,
                    by_command: by_command.then_some(tree::CommandRoots {
                        commands: &commands,
                        first_func,
                    }),
                };
                let (samples, timeline, events, cache, generation) = self.tree_input();
                let mut t = tree::tree(&samples, timeline, events, cache, generation, params);
                t.meta.query = Some(query);
                WorkerMessage::Tree(id, Box::new(t))
            }
            Query::Search { filter, text } => {
                let (samples, timeline, events, cache, generation) = self.tree_input();
                let mut r =
                    tree::search(&samples, timeline, events, cache, generation, filter, text);
                r.query = Some(query);
                WorkerMessage::Search(id, Box::new(r))
            }
            Query::Timeline {
                start,
                end,
                bins,
                event,
                func,
            } => {
                let func = func.map(|f| {
                    let (profile, timeline) = (&self.profile, &self.timeline);
                    let generation = self.generation;
                    let kept = self
                        .func_marks
                        .take()
                        .filter(|m| (m.generation, m.func) == (generation, f));
                    let made = kept.unwrap_or_else(|| {
                        activity::FuncMarks::new(profile, timeline, generation, f)
                    });
                    &self.func_marks.insert(made).marks
                });
                let mut t = self
                    .timeline
                    .reply(&self.profile, *start, *end, *bins, *event, func);
                t.meta.query = Some(query);
                t.meta.generation = self.generation;
                WorkerMessage::Timeline(id, Box::new(t))
            }
            Query::Heatmap {
                event,
                threads,
                rows,
            } => {
                let mut h = heatmap::heatmap(
                    &self.profile,
                    &self.timeline,
                    &self.events,
                    *event,
                    threads,
                    *rows,
                );
                h.meta.query = Some(query);
                h.meta.generation = self.generation;
                WorkerMessage::Heatmap(id, Box::new(h))
            }
            Query::Records {
                filter,
                start,
                count,
            } => {
                let (filter, start, count) = (filter.clone(), *start, *count);
                let r = self.records(&filter, start, count);
                WorkerMessage::Records(
                    id,
                    Box::new(RecordsReply {
                        meta: RecordsMeta {
                            query: Some(query),
                            ..r.meta
                        },
                        rows: r.rows,
                    }),
                )
            }
            Query::Stack { record } => WorkerMessage::Stack(id, Box::new(self.stack(*record))),
            // Answered by the worker with `export` and `compare` (they need the file name and
            // the base profile).
            Query::Export { .. } | Query::Diff { .. } => WorkerMessage::Failed(
                id,
                crate::protocol::Failure {
                    message: "export and diff queries go through the worker".into(),
                    crashed: false,
                },
            ),
        }
    }

    /// Makes the records index's rows, which the records pass left out (it only counted the
    /// records), by reading the file again (~0.23 s natively for a 300 MB recording): what is
    /// left of them when [`Session::rows_step`] has not made them all yet.
    pub fn ensure_rows(&mut self) {
        self.rows_until(usize::MAX);
    }

    /// Makes the records index's rows of the next slice of the file; returns whether they
    /// are all made (the worker makes them between its requests after the first flame graph).
    pub fn rows_step(&mut self) -> bool {
        self.meta.is_none() || self.index.fill_rows_step(self.source.as_mut(), self.slice)
    }

    /// Whether the records index's rows are to be made ahead, between requests after the first
    /// flame graph, rather than when the Records tab first asks for them; `memory`: the
    /// worker's wasm memory now. See [`rows_ahead`].
    pub fn rows_ahead(&self, memory: u64) -> bool {
        rows_ahead(self.source.len(), self.index.len() as u64, memory)
    }

    /// Whether the records index's rows are made (see [`Session::rows_step`]).
    pub fn has_rows(&self) -> bool {
        self.meta.is_none() || self.index.has_rows()
    }

    /// Makes the records index's rows up to row `rows` at least (see [`Session::ensure_rows`]).
    fn rows_until(&mut self, rows: usize) {
        if self.meta.is_some() {
            self.index.fill_rows(self.source.as_mut(), self.slice, rows);
        }
    }

    fn records(&mut self, filter: &RecordFilter, start: u32, count: u32) -> RecordsReply {
        let count = count.min(1000);
        let every = *filter == RecordFilter::default();
        // Every record (their number is known): the rows up to the page's end will do, the
        // rest are made later (`Session::rows_step`). A filter needs them all.
        self.rows_until(if every {
            start.saturating_add(count) as usize
        } else {
            usize::MAX
        });
        let (page, matching): (Vec<u32>, u64) = if every {
            // Every record: the rows are 0..n (no list of n row numbers kept for it).
            let n = u32::try_from(self.index.len()).unwrap_or(u32::MAX);
            let end = start.saturating_add(count).min(n);
            ((start.min(end)..end).collect(), u64::from(n))
        } else {
            let rows = match &self.records_cache {
                Some((f, rows)) if f == filter => rows,
                _ => {
                    let rows = self.index.matching(filter);
                    &self.records_cache.insert((filter.clone(), rows)).1
                }
            };
            (rows.page(u64::from(start), count as usize), rows.len())
        };
        let ix = &mut self.index;
        let mut fields = StringTable::new();
        let summary = &self.summary;
        if let Some(meta) = &self.meta {
            for text in ix.describe_rows(self.source.as_mut(), meta, &page, &|e| {
                event_name(summary, e)
            }) {
                fields.push(&text);
            }
        } else {
            page.iter().for_each(|_| {
                fields.push("");
            });
        }
        let got: Vec<Option<records_index::Row>> =
            page.iter().map(|&i| ix.row(i as usize)).collect();
        let col32 = |f: fn(&records_index::Row) -> u32| {
            got.iter().map(|r| r.as_ref().map_or(u32::MAX, f)).collect()
        };
        let rows = RecordRows {
            type_: col32(|r| r.type_),
            time: got.iter().map(|r| r.map_or(u64::MAX, |r| r.time)).collect(),
            cpu: col32(|r| r.cpu),
            pid: col32(|r| r.pid),
            tid: col32(|r| r.tid),
            offset: got.iter().map(|r| r.map_or(0, |r| r.offset)).collect(),
            index: page,
            fields,
        };
        RecordsReply {
            meta: RecordsMeta {
                query: None,
                matching,
                start,
            },
            rows,
        }
    }

    /// The stack of the sample of record `record`: the profile sample with its time and tid.
    pub fn stack(&mut self, record: u32) -> StackReply {
        self.rows_until(record as usize + 1);
        let r = record as usize;
        let summary = &self.summary;
        let fields = match &self.meta {
            Some(meta) => self
                .index
                .describe_rows(self.source.as_mut(), meta, &[record], &|e| {
                    event_name(summary, e)
                })
                .pop()
                .unwrap_or_default(),
            None => String::new(),
        };
        let row = self.index.row(r);
        let mut reply = StackReply {
            record,
            type_: row.map_or(u32::MAX, |r| r.type_),
            offset: row.map_or(0, |r| r.offset),
            time: row.map(|r| r.time).filter(|&t| t != u64::MAX),
            fields,
            generation: self.generation,
            funcs: Vec::new(),
            note: None,
        };
        if !self.index.is_sample(r) {
            reply.note = Some("not a sample".into());
            return reply;
        }
        let Some(records_index::Row { time, tid, .. }) = row else {
            reply.note = Some("no such record".into());
            return reply;
        };
        let p = &self.profile;
        let times = &p.samples.times();
        let start = times.partition_point(|t| t < time);
        let found = (start..times.len())
            .take_while(|&i| times.get(i) == Some(time))
            .find(|&i| {
                p.samples
                    .thread
                    .get(i)
                    .and_then(|&t| p.threads.get(t))
                    .is_some_and(|t| t.tid == tid || tid == u32::MAX)
            });
        match found.and_then(|i| p.samples.stack(i)) {
            Some(stack) => {
                reply.funcs = p
                    .stacks
                    .frames_leaf_first(stack)
                    .filter_map(|f| p.frame_func(f))
                    .map(|f| f.0)
                    .collect();
            }
            None => {
                reply.note =
                    Some("this sample is not in the profile (it could not be decoded)".into())
            }
        }
        reply
    }
}

fn event_name(summary: &Summary, e: u32) -> String {
    summary
        .events
        .get(e as usize)
        .map(|e| e.name.clone())
        .unwrap_or_else(|| format!("event {e}"))
}

#[cfg(test)]
mod off_cpu_tests;
#[cfg(test)]
mod open_symbols_tests;
#[cfg(test)]
mod order_tests;
#[cfg(test)]
mod streamed_tests;
#[cfg(test)]
mod walk_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Filter, WeightKind};

    fn open(name: &str) -> Session {
        let data = std::fs::read(format!(
            "{}/../tests/data/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        open_bytes(data, SLICE)
    }

    fn open_bytes(data: Vec<u8>, slice: usize) -> Session {
        Session::open_bytes(data, slice)
    }

    /// A page of records as the Records tab asks for it: (rows, matching).
    fn page(s: &mut Session, filter: RecordFilter, start: u32) -> (RecordRows, u64) {
        let r = s.records(&filter, start, 50);
        (r.rows, r.meta.matching)
    }

    #[test]
    fn the_first_pages_of_every_record_wait_only_for_their_rows() {
        // example.data read in slices of 4 KiB: its rows take ~19 slices.
        let data = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/data/example.data"
        ))
        .unwrap();
        let mut whole = open_bytes(data.clone(), 4096);
        whole.ensure_rows();
        let n = whole.index.len();
        let mut s = open_bytes(data, 4096);
        assert_eq!(s.index.rows_made(), 0);
        let first = page(&mut s, RecordFilter::default(), 0);
        // The page's rows, not the file's: the number of records was counted by the pass.
        let made = s.index.rows_made();
        assert!((50..n / 4).contains(&made), "{made} rows made of {n}");
        assert!(!s.has_rows());
        assert_eq!(first.1, n as u64);
        assert_eq!(first, page(&mut whole, RecordFilter::default(), 0));
        // A page further on: its rows made, the rest still not.
        let on = page(&mut s, RecordFilter::default(), (n / 2) as u32);
        assert!(s.index.rows_made() < n);
        assert_eq!(
            on,
            page(&mut whole, RecordFilter::default(), (n / 2) as u32)
        );
        // A filter needs them all.
        let samples = RecordFilter {
            types: vec![9],
            ..RecordFilter::default()
        };
        let filtered = page(&mut s, samples.clone(), 10);
        assert!(s.has_rows());
        assert_eq!(filtered, page(&mut whole, samples, 10));
        assert!(filtered.1 > 50 && filtered.1 < n as u64);
    }

    #[test]
    fn a_big_file_makes_its_records_rows_ahead_only_within_half_its_size() {
        // big300-g (315 MB, 3.3M records, 74 MB of wasm memory after the pass): ~17 MB of
        // rows keep it at 0.29x, made ahead.
        assert!(rows_ahead(315_000_000, 3_322_460, 74_000_000));
        // big300-nog (5.6M records, 108 MB): ~28 MB more is 0.43x, made ahead too.
        assert!(rows_ahead(315_000_000, 5_603_681, 108_000_000));
        // Three times as many records in the same size would be 0.61x: wait for the tab.
        assert!(!rows_ahead(315_000_000, 3 * 5_603_681, 108_000_000));
        // A file under 100 MB: always.
        assert!(rows_ahead(99_999_999, 100_000_000, 500_000_000));
        assert!(!rows_ahead(100_000_000, 1, 50_000_000 - 4));
        assert!(rows_ahead(100_000_000, 1, 50_000_000 - 5));
        // The test files (small) make them ahead, whatever the memory.
        let s = open("example.data");
        assert!(s.rows_ahead(u64::MAX / 2));
    }

    #[test]
    fn a_tree_by_command_holds_each_commands_own_tree_under_its_root() {
        let tree = |s: &mut Session, inverted: bool, by_command: bool, threads: Vec<u32>| match s
            .query(
                1,
                Query::Tree {
                    filter: Filter {
                        threads,
                        ..Filter::default()
                    },
                    inverted,
                    weight: WeightKind::Samples,
                    root: vec![],
                    detail: 0,
                    by_command,
                },
            ) {
            WorkerMessage::Tree(_, t) => *t,
            other => panic!("{other:?}"),
        };
        for name in ["example.data", "threads.data"] {
            let mut s = open(name);
            // The same trees whether the filter's weights are kept (the busiest command's are
            // then those of all less the other commands') or not.
            tree(&mut s, false, false, vec![0]);
            let cold = [false, true].map(|inverted| tree(&mut s, inverted, true, vec![]));
            tree(&mut s, false, false, vec![]);
            let warm = [false, true].map(|inverted| tree(&mut s, inverted, true, vec![]));
            assert_eq!(cold, warm, "{name}");
            let o = s.overview();
            let commands = crate::selectors::commands(&o);
            let funcs = s.profile.funcs.len() as u32;
            let names = s.profile_data();
            for inverted in [false, true] {
                let t = tree(&mut s, inverted, true, vec![]);
                assert_eq!(t.meta.samples, o.samples, "{name}");
                // The roots are the commands (ids after the functions', named after them),
                // each as wide as its samples, in name order.
                let roots: Vec<usize> = (0..t.nodes.len())
                    .filter(|&i| t.nodes.parent[i] == u32::MAX)
                    .collect();
                let mut seen = Vec::new();
                for &r in &roots {
                    let k = (t.nodes.func[r] - funcs) as usize;
                    let c = &commands[k];
                    assert_eq!(crate::selectors::func_name(&names, t.nodes.func[r]), c.name);
                    assert!(crate::selectors::is_command(&names, t.nodes.func[r]));
                    assert_eq!(t.nodes.total_samples[r] as u64, c.samples, "{}", c.name);
                    seen.push(c.name.clone());
                    // Under it, the tree of the command's threads alone, one level down.
                    let alone = tree(&mut s, inverted, false, c.lanes.clone());
                    let under: Vec<(u32, u32, f64, f64)> = (r + 1..t.nodes.len())
                        .take_while(|&i| t.nodes.depth[i] > 0)
                        .inspect(|&i| {
                            assert!(!crate::selectors::is_command(&names, t.nodes.func[i]))
                        })
                        .map(|i| {
                            let x = t.nodes.x[i] - t.nodes.x[r];
                            (t.nodes.func[i], t.nodes.depth[i] - 1, x, t.nodes.width[i])
                        })
                        .collect();
                    let want: Vec<(u32, u32, f64, f64)> = (0..alone.nodes.len())
                        .map(|i| {
                            let n = &alone.nodes;
                            (n.func[i], n.depth[i], n.x[i], n.width[i])
                        })
                        .collect();
                    if roots.len() == 1 {
                        assert_eq!(under, want, "{name} {}", c.name);
                    } else {
                        // (Pruned against the whole graph, it may leave out more.)
                        assert!(under.iter().all(|u| want.contains(u)), "{name} {}", c.name);
                    }
                }
                let mut sorted = seen.clone();
                sorted.sort();
                assert_eq!(seen, sorted, "{name}: roots in name order");
                // Every sample with frames is under a command (drawn or left out).
                let plain = tree(&mut s, inverted, false, vec![]);
                let drawn: f64 = roots.iter().map(|&r| t.nodes.total_samples[r]).sum();
                assert_eq!(
                    drawn + t.meta.elided_samples as f64,
                    plain.meta.total,
                    "{name}"
                );
                assert_eq!(t.meta.total, plain.meta.total, "{name}");
                assert_eq!(
                    roots.len() as u32 + t.meta.elided_count,
                    commands.len() as u32,
                    "{name}"
                );
            }
        }
    }

    #[test]
    fn a_tree_by_command_from_the_samples_kept_is_the_tree_made_afresh() {
        let query = |threads: Vec<u32>, inverted: bool, weight: WeightKind| Query::Tree {
            filter: Filter {
                threads,
                ..Filter::default()
            },
            inverted,
            weight,
            root: vec![],
            detail: 0,
            by_command: true,
        };
        let tree = |s: &mut Session, q: Query| match s.query(1, q) {
            WorkerMessage::Tree(_, t) => *t,
            other => panic!("{other:?}"),
        };
        for name in ["example.data", "threads.data"] {
            // One session asked in turn (the samples by command kept from one tree to the next
            // of the same filter, made again for another), each answer against a new session's.
            let mut kept = open(name);
            let cases = [
                (vec![], false, WeightKind::Samples),
                (vec![], true, WeightKind::Samples),
                (vec![], false, WeightKind::Period),
                (vec![0], false, WeightKind::Samples),
                (vec![0], true, WeightKind::Period),
                (vec![], true, WeightKind::Period),
            ];
            for (threads, inverted, weight) in cases {
                let q = query(threads, inverted, weight);
                let again = tree(&mut kept, q.clone());
                let afresh = tree(&mut open(name), q.clone());
                assert!(again.nodes.len() > 1, "{name} {q:?}");
                assert_eq!(again, afresh, "{name} {q:?}");
            }
        }
    }

    #[test]
    fn example_opens_with_samples_threads_and_a_tree() {
        let mut s = open("example.data");
        let o = s.overview();
        assert!(o.samples > 100, "{}", o.samples);
        assert_eq!(o.events.len(), 1);
        assert_eq!(o.events[0].samples, o.samples);
        assert!(o.events[0].callchain);
        assert_eq!(o.comms.iter().map(|c| c.samples).sum::<u64>(), o.samples);
        assert!(
            o.reasons.iter().any(|r| r.code == "kernel-unnamed"),
            "{:?}",
            o.reasons
        );
        let sample_count = o
            .record_counts
            .iter()
            .find(|c| c.name == "SAMPLE")
            .unwrap()
            .count;
        assert_eq!(sample_count, o.samples);
        match s.query(
            1,
            Query::Tree {
                filter: Filter::default(),
                inverted: false,
                weight: WeightKind::Samples,
                root: vec![],
                detail: 0,
                by_command: false,
            },
        ) {
            WorkerMessage::Tree(1, t) => {
                assert_eq!(t.meta.samples, o.samples);
                assert!(t.nodes.len() > 10);
            }
            other => panic!("{other:?}"),
        }
        // The first sample record's stack is found.
        s.ensure_rows();
        let first_sample = (0..s.index.len()).find(|&i| s.index.is_sample(i)).unwrap();
        let st = s.stack(first_sample as u32);
        assert_eq!(st.note, None);
        assert!(!st.funcs.is_empty());
    }

    #[test]
    fn compressed_files_are_read_in_slices_cut_by_their_ratio() {
        let z = |ratio| CompressedSummary {
            ratio,
            ..CompressedSummary::default()
        };
        assert_eq!(records_slice(SLICE, None), SLICE);
        assert_eq!(records_slice(SLICE, Some(&z(1))), SLICE);
        assert_eq!(records_slice(SLICE, Some(&z(8))), 1 << 20);
        // At most a 16th, and not under 512 KiB.
        assert_eq!(records_slice(SLICE, Some(&z(100))), 512 << 10);
        assert_eq!(records_slice(1 << 20, Some(&z(8))), 512 << 10);
        // A slice asked smaller than that (tests) is kept.
        assert_eq!(records_slice(4093, Some(&z(8))), 4093);
        assert_eq!(records_slice(0, None), 1);
    }

    #[test]
    fn prewarm_makes_what_the_first_tree_query_needs_and_the_same_tree() {
        let tree_of = |s: &mut Session, event: Option<u32>| match s.query(
            1,
            Query::Tree {
                filter: Filter {
                    event,
                    ..Filter::default()
                },
                inverted: false,
                weight: WeightKind::Samples,
                root: vec![],
                detail: 0,
                by_command: false,
            },
        ) {
            WorkerMessage::Tree(1, t) => t,
            other => panic!("{other:?}"),
        };
        let mut cold = open("example.data");
        let mut warm = open("example.data");
        let event = warm.overview().default_event();
        // One event: all samples, as the page asks first.
        assert_eq!(event, None);
        assert_eq!(warm.tree_cache.heap_bytes(), 0);
        warm.prewarm(event);
        let prepared = warm.tree_cache.heap_bytes();
        assert!(prepared > 0);
        // The weights of the filter the page's first query has.
        let first = Filter {
            event,
            ..Filter::default()
        };
        assert_eq!(warm.tree_cache.weighs(), Some(&first));
        let (a, b) = (tree_of(&mut cold, event), tree_of(&mut warm, event));
        // The query found the tables made: nothing more was built for them.
        assert_eq!(warm.tree_cache.heap_bytes(), prepared);
        assert_eq!(cold.tree_cache.heap_bytes(), prepared);
        assert_eq!(a.nodes, b.nodes);
        assert_eq!(a.meta.samples, b.meta.samples);
        assert!(a.nodes.len() > 10);
    }

    #[test]
    fn every_record_pages_like_a_filter_that_keeps_everything() {
        let mut s = open("example.data");
        let n = s.index.len() as u32;
        // A filter that keeps every record, through the matching list.
        let all_types: Vec<u32> = s.index.record_counts().iter().map(|c| c.type_).collect();
        let keep_all = RecordFilter {
            types: all_types,
            ..RecordFilter::default()
        };
        for start in [0, 5, n - 3, n, n + 10] {
            let a = s.records(&RecordFilter::default(), start, 10);
            let b = s.records(&keep_all, start, 10);
            assert_eq!(a.meta.matching, u64::from(n));
            assert_eq!(
                (a.meta.matching, &a.rows.index, &a.rows.time, &a.rows.type_),
                (b.meta.matching, &b.rows.index, &b.rows.time, &b.rows.type_)
            );
            assert_eq!(
                a.rows.index.len(),
                (n.saturating_sub(start)).min(10) as usize
            );
        }
    }

    #[test]
    fn the_warm_up_opens_the_example_to_its_first_tree_both_ways() {
        let data = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/data/example.data"
        ))
        .unwrap();
        // perf script prints one header line per sample: `comm pid/tid time: event:`.
        let script = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/data/example.samples.txt"
        ))
        .unwrap();
        let perf_samples = script.lines().filter(|l| l.contains("cpu-clock:")).count() as u64;
        assert_eq!(perf_samples, 996);
        // The big file's way is taken: the records ordered by an OrderPass.
        assert!(open_ordered_in_turn(&data, SLICE).1);
        for ordered in [false, true] {
            assert_eq!(warm_up(&data, ordered), perf_samples, "ordered {ordered}");
            // A cut file is no reason to panic: the samples before the cut are counted.
            let cut = warm_up(&data[..data.len() / 3], ordered);
            assert!(cut > 0 && cut < perf_samples, "ordered {ordered}: {cut}");
        }
        // The page's messages: request id 0, the file's summary and profile, the first tree.
        let [summary, profile, tree] = warm_up_for_page(&data);
        match (summary, profile, tree) {
            (
                WorkerMessage::Summary(0, summary),
                WorkerMessage::Profile(0, profile),
                WorkerMessage::Tree(0, tree),
            ) => {
                assert_eq!(summary.file_size, data.len() as u64);
                let samples: u64 = profile.overview.events.iter().map(|e| e.samples).sum();
                assert_eq!(samples, perf_samples);
                assert_eq!(tree.meta.samples, perf_samples);
            }
            other => panic!("not the page's warm-up messages: {other:?}"),
        }
    }

    #[test]
    fn pipe_mode_opens_too() {
        let s = open("pipe.data");
        let o = s.overview();
        assert!(o.samples > 10);
        assert!(
            o.threads.iter().any(|t| t.name == "sort"),
            "{:?}",
            o.threads
        );
    }
}
