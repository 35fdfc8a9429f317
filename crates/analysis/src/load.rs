//! Loading a recording into a [`Profile`], records delivered in time order as perf delivers
//! them: [`ProfileLoader`] is pushed one record at a time (so the input never has to be in
//! memory as a whole); [`load_profile`] feeds it a whole file, pipe stream or `--threads`
//! directory held in memory; [`load_sectioned`] reads a file through random access in chunks
//! (the browser's path).
//!
//! Records with a timestamp go through a queue that releases them at each FINISHED_ROUND up to
//! the previous round's newest time, and at the end; records without one (perf's `-ETIME`: no
//! `sample_id_all`, time 0, or a time of `-1`) are delivered at once, as
//! `perf_session__process_event` does. The queue copies each record's bytes into an arena of
//! per-round chunks and never points into the caller's input, so memory stays proportional to
//! the couple of rounds it holds, whatever the file size.
//!
//! Delivered records feed a [`ProfileBuilder`]: COMM, FORK, MMAP/MMAP2 (with build ids from the
//! BUILD_ID feature, HEADER_BUILD_ID records and MMAP2 build-id records), KSYMBOL, and SAMPLE
//! through [`SampleDelivery`] (once per moved READ value for leader sampling). DWARF-mode samples
//! (REGS_USER + STACK_USER) get their user part from [`UserUnwinder`]. LOST, LOST_SAMPLES and
//! THROTTLE records are counted in the [`LoadDiagnostics`].
//!
//! [`load`] can also build the [`Timeline`] from the same delivered records (plus SWITCH and
//! SWITCH_CPU_WIDE) — samples once per delivery, with the stack the profile gave them — and add
//! its off-CPU time to the profile as `offcpu-time` samples (see [`crate::offcpu`]).

mod event_names;
mod handover;
mod record_queue;
mod sectioned;
mod split;
mod threaded;

pub use event_names::EventNames;
pub use handover::{BadDeliveries, DeliveryWriter};
pub use sectioned::{
    load_sectioned, load_sectioned_parts, slices, stream_records, RecordSink, RecordStream,
    StreamCheckpoint,
};
pub use split::{
    can_share_stacks, deferred, deferred_ordinal, encode_part, fill_deferred, Part, SampleCheck,
    SampleStacks, SplitError, StackShare,
};
pub use threaded::load_threaded;

use std::collections::HashMap;

use perfscope_format::attr::AttrFlags;
use perfscope_format::constants::{attr_type, misc, sample_type, HeaderFeature, RecordType};
use perfscope_format::features::build_id::{parse_build_id_record, parse_build_ids};
use perfscope_format::layout::EventIndex as AttrIndex;
use perfscope_format::metadata::Metadata;
use perfscope_format::records::{RawRecord, Record, SampleRecord};
use perfscope_format::walk::{walk, Item};
use perfscope_format::Endianness;

use self::record_queue::RecordQueue;

use crate::builder::{
    CpuMode, InlineFrames, ProfileBuilder, SampleInput, StackExtras, UnknownNames,
    PERF_CONTEXT_USER,
};
use crate::delivery::SampleDelivery;
use crate::ids::{CapacityError, EventIndex, StackIndex};
use crate::offcpu::{add_to_profile_filtered, is_off_cpu_event, OffCpuEvents};
use crate::profile::Profile;
use crate::symbols::resolver::SymbolResolver;
use crate::timeline::{Timeline, TimelineRecorder};
use crate::unwind::{Arch, UnwindOutcome, UserUnwinder};

/// Which samples to keep. Records that describe processes (COMM, MMAP, ...) are always used.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadFilter {
    /// Keep samples of events with these names (as `perf script` names them); empty: all.
    pub events: Vec<String>,
    /// Keep samples of these processes; empty: all.
    pub pids: Vec<u32>,
    /// Keep samples of these threads; empty: all.
    pub tids: Vec<u32>,
    /// Keep samples with `start <= time <= end` (ns; perf's `--time`, both ends included).
    pub time: Option<(u64, u64)>,
}

/// How to load.
pub struct LoadOptions {
    /// The symbol sources (and binaries for unwinding). `None`: no names, no DWARF unwinding.
    pub resolver: Option<SymbolResolver>,
    /// Look names up (`false`, with a resolver: unwind with the binaries but print no names).
    pub symbolize: bool,
    /// How frames without a symbol are named.
    pub unknown_names: UnknownNames,
    /// Which samples to keep.
    pub filter: LoadFilter,
    /// Unwind DWARF-mode user stacks (otherwise their user part is the leaf frame only).
    pub unwind: bool,
    /// Which frames get inline frames from DWARF. [`InlineFrames::Unwound`] is what perf 6.1
    /// prints.
    pub inline_frames: InlineFrames,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            resolver: None,
            symbolize: true,
            unknown_names: UnknownNames::default(),
            filter: LoadFilter::default(),
            unwind: true,
            inline_frames: InlineFrames::Unwound,
        }
    }
}

/// What [`load`] builds besides the profile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoadExtras {
    /// Build the [`Timeline`]: threads over time, on- and off-CPU intervals, sample lanes,
    /// lost/throttle markers.
    pub timeline: bool,
    /// Add the timeline's off-CPU time to the profile as samples of the `offcpu-time`
    /// pseudo-events (period = ns; see [`crate::offcpu::add_to_profile`]), for the threads and
    /// times the filter keeps. Implies `timeline`.
    pub off_cpu: bool,
}

/// What [`load`] returns.
#[derive(Debug)]
pub struct Loaded {
    /// The profile.
    pub profile: Profile,
    /// What happened while loading.
    pub diagnostics: LoadDiagnostics,
    /// The timeline, when asked for.
    pub timeline: Option<Timeline>,
    /// The off-CPU pseudo-events added to the profile.
    pub off_cpu_events: OffCpuEvents,
    /// The samples whose stacks were left to another loader ([`StackShare::Before`]), for
    /// [`fill_deferred`].
    pub deferred: SampleCheck,
}

/// What happened while loading, for the UI and the CLI to report.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadDiagnostics {
    /// Errors met (bad records, framing errors, bad header sections), in file order.
    pub errors: Vec<perfscope_format::Error>,
    /// PERF_RECORD_LOST records and the events they say were lost.
    pub lost_records: u64,
    /// Sum of `lost` of the LOST records.
    pub lost_events: u64,
    /// Sum of `lost` of the LOST_SAMPLES records.
    pub lost_samples: u64,
    /// THROTTLE records.
    pub throttles: u64,
    /// UNTHROTTLE records.
    pub unthrottles: u64,
    /// Samples delivered (one per READ value for leader sampling), before filtering.
    pub samples: u64,
    /// Samples kept by the filter.
    pub kept_samples: u64,
    /// DWARF-mode samples whose user stack was unwound.
    pub unwound: u64,
    /// DWARF-mode samples whose user stack is only the leaf frame (no binary or unwind
    /// information for it, or an architecture that is not supported); marked `[truncated]`.
    pub truncated: u64,
    /// Records that arrived older than what was already released (perf: "Timestamp below last
    /// timeslice flush").
    pub late_records: u64,
    /// The most records queued at once.
    pub max_queued: usize,
    /// The most record bytes queued at once.
    pub max_queued_bytes: usize,
    /// The most bytes the queue's arena had allocated at once.
    pub max_queue_allocated: usize,
    /// Records the queue copied (every record that waited for its turn).
    pub copied_records: u64,
    /// The SAMPLE records that could not be decoded (also in `errors`), each with its number
    /// among the records pushed ([`ProfileLoader::push`]), in the order they were delivered.
    pub sample_errors: Vec<(u64, perfscope_format::Error)>,
}

/// What a loader (or its [`DeliveryWriter`]) does with a record pushed in file order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Route {
    /// A FINISHED_ROUND: release the queue's records up to the previous round's end.
    RoundEnd,
    /// A record taken as it comes (a build id, an event's name, the trace data), not delivered.
    FileOrder,
    /// Of no use to the profile (or the timeline).
    Unused,
    /// A sample that another loader makes the stack of ([`StackShare::From`]): skipped, but its
    /// time counts for the round ends.
    NoteTime(u64),
    /// Queued with its time.
    Queue(u64),
    /// Delivered at once (no time).
    Now,
}

/// Where `rec` goes, for a loader with a timeline or not that makes the stacks `share` says;
/// `record_time` reads the record's time (only when needed).
#[inline]
fn route(
    rec: &RawRecord<'_>,
    timeline: bool,
    share: StackShare,
    record_time: impl FnOnce() -> Option<u64>,
) -> Route {
    let t = rec.type_();
    let for_timeline = timeline && matches!(t, RecordType::SWITCH | RecordType::SWITCH_CPU_WIDE);
    match t {
        RecordType::FINISHED_ROUND => return Route::RoundEnd,
        RecordType::HEADER_BUILD_ID
        | RecordType::EVENT_UPDATE
        | RecordType::HEADER_TRACING_DATA
        | RecordType::HEADER_ATTR => return Route::FileOrder,
        _ if !is_used(t) && !for_timeline => return Route::Unused,
        _ => {}
    }
    if let (StackShare::From(cut), RecordType::SAMPLE) = (share, t) {
        if rec.offset < cut {
            return record_time().map_or(Route::Unused, Route::NoteTime);
        }
    }
    match record_time() {
        Some(time) if time != 0 && time != u64::MAX => Route::Queue(time),
        _ => Route::Now,
    }
}

/// Whether the record type is one the profile uses.
pub(crate) fn is_used(t: RecordType) -> bool {
    matches!(
        t,
        RecordType::SAMPLE
            | RecordType::MMAP
            | RecordType::MMAP2
            | RecordType::COMM
            | RecordType::FORK
            | RecordType::EXIT
            | RecordType::KSYMBOL
            | RecordType::LOST
            | RecordType::LOST_SAMPLES
            | RecordType::THROTTLE
            | RecordType::UNTHROTTLE
    )
}

/// Builds a [`Profile`] from records pushed one at a time, in file order.
///
/// Records need the [`Metadata`] of their input to be decoded (the events, and the features for
/// build ids and event names): in pipe mode it grows as the stream's HEADER_ATTR and
/// HEADER_FEATURE records go by, so each call takes the metadata as it is at that record.
///
/// ```
/// use perfscope_analysis::load::{LoadOptions, ProfileLoader};
/// use perfscope_format::walk::{walk, Item};
/// let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/example.data")).unwrap();
/// let mut loader = ProfileLoader::new(LoadOptions::default());
/// let meta = walk(&bytes, &[], |meta, _part, item| match item {
///     Item::Record(rec) => loader.push(meta, rec),
///     Item::Error(e) => loader.push_error(*e),
/// })
/// .unwrap();
/// let (profile, diagnostics) = loader.finish(&meta).unwrap();
/// assert_eq!(profile.samples.len() as u64, diagnostics.kept_samples);
/// ```
pub struct ProfileLoader {
    queue: RecordQueue,
    state: LoaderState,
    /// Records pushed so far (the number of the next one, in push order).
    pushed: u64,
    /// The queue's figures (late records, most bytes held, most allocated) from the
    /// [`DeliveryWriter`] that queued the records instead.
    handed_queue: Option<(u64, usize, usize)>,
}

/// Everything but the queue (borrowed apart from it while it releases records).
struct LoaderState {
    builder: ProfileBuilder,
    delivery: SampleDelivery,
    diag: LoadDiagnostics,
    filter: LoadFilter,
    names: EventNames,
    /// Event names by attr, decided at first use.
    attr_names: Vec<Option<String>>,
    /// Profile events per attr, added when first used.
    events: Vec<Option<EventIndex>>,
    /// Build ids by file name (BUILD_ID feature and HEADER_BUILD_ID records).
    build_ids: HashMap<String, Vec<u8>>,
    /// Whether to unwind DWARF-mode stacks; the unwinder is made at the first one.
    unwind: bool,
    unwinder: Option<UserUnwinder>,
    callchain: Vec<u64>,
    user_frames: Vec<u64>,
    capacity_error: Option<CapacityError>,
    /// Whether the resolver's DWARF use was decided (at the first sample).
    inline_decided: bool,
    inline_frames: InlineFrames,
    /// Whether the BUILD_ID feature was read (at the first record).
    features_read: bool,
    /// The timeline being built, when asked for.
    timeline: Option<TimelineRecorder>,
    /// Whether samples go to the timeline ([`TimelineFeed`]).
    timeline_feed: TimelineFeed,
    /// Whether to add the timeline's off-CPU time to the profile at the end.
    off_cpu: bool,
    /// Which samples' stacks are made here.
    share: StackShare,
    /// The samples whose stacks another loader makes (with [`StackShare::Before`]), or whose
    /// stacks are made for another loader ([`StackShare::From`]).
    check: SampleCheck,
}

impl ProfileLoader {
    /// A loader with nothing pushed yet.
    pub fn new(options: LoadOptions) -> ProfileLoader {
        ProfileLoader::with_extras(options, LoadExtras::default())
    }

    /// A loader that also builds what `extras` asks for (see [`ProfileLoader::finish_loaded`]).
    pub fn with_extras(options: LoadOptions, extras: LoadExtras) -> ProfileLoader {
        let mut builder = ProfileBuilder::new(options.resolver);
        builder.unknown_names = options.unknown_names;
        builder.symbolize = options.symbolize;
        builder.inline_frames = options.inline_frames;
        let state = LoaderState {
            builder,
            delivery: SampleDelivery::new(),
            diag: LoadDiagnostics::default(),
            filter: options.filter,
            names: EventNames::default(),
            attr_names: Vec::new(),
            events: Vec::new(),
            build_ids: HashMap::new(),
            unwind: options.unwind,
            unwinder: None,
            callchain: Vec::new(),
            user_frames: Vec::new(),
            capacity_error: None,
            inline_decided: false,
            inline_frames: options.inline_frames,
            features_read: false,
            timeline: (extras.timeline || extras.off_cpu).then(TimelineRecorder::new),
            timeline_feed: TimelineFeed::default(),
            off_cpu: extras.off_cpu,
            share: StackShare::All,
            check: SampleCheck::default(),
        };
        ProfileLoader {
            queue: RecordQueue::new(),
            state,
            pushed: 0,
            handed_queue: None,
        }
    }

    /// Symbolizes with `resolver` from now on (as if [`LoadOptions::resolver`] had given it).
    /// Call before the first record is pushed: frames already made keep their names.
    pub fn set_resolver(&mut self, resolver: Option<SymbolResolver>) {
        self.state.builder.set_resolver(resolver);
    }

    /// The timeline asked for keeps no sample times: its lanes' [`crate::timeline::SampleDensity`]s
    /// are empty (see [`crate::timeline::TimelineBuilder::without_sample_times`]). For a caller
    /// that counts samples per lane from the profile; it saves 16 bytes a sample while loading.
    pub fn without_timeline_sample_times(mut self) -> Self {
        if let Some(t) = self.state.timeline.as_mut() {
            *t = TimelineRecorder::without_sample_times();
        }
        self
    }

    /// The timeline asked for serves only what context switches give (on- and off-CPU
    /// intervals, the CPUs' slices, off-CPU samples with the stack sampled last) and its
    /// markers: when no event of the recording can switch (none asks for switch records, none
    /// is a tracepoint) and no switch record came, samples are not fed to it, and its tasks
    /// are only those the COMM, FORK and EXIT records name, without sample counts. For a
    /// caller that takes the threads, their samples and lanes from the profile: the samples'
    /// timeline work is ~7 % of the pass. With switches, the timeline is the same as without
    /// this call.
    pub fn timeline_samples_for_switches(mut self) -> Self {
        self.state.timeline_feed.switches_only = true;
        self
    }

    /// Shares the making of the samples' stacks with another loader of the same file (see
    /// [`StackShare`]). With [`StackShare::Before`], the off-CPU samples must not be asked for
    /// (their stacks are known only once [`fill_deferred`] ran); with [`StackShare::From`],
    /// end with [`ProfileLoader::finish_part`]. Call before the first record is pushed.
    pub fn share_stacks(&mut self, share: StackShare) {
        if matches!(share, StackShare::From(_)) {
            self.state.builder.keep_stacks_only();
        }
        self.state.share = share;
    }

    /// The next record of the input, in file order. `meta` is the input's metadata as known at
    /// this record. Nothing of `rec` is kept by reference: a record that must wait for its turn
    /// is copied.
    pub fn push(&mut self, meta: &Metadata, rec: &RawRecord<'_>) {
        self.push_timed(meta, rec, None);
    }

    /// [`ProfileLoader::push`] of a record whose time the caller decoded already (`Some`:
    /// what [`perfscope_format::layout::EventTable::record_time`] gives for it, `None` inside
    /// when it has none); `None`: not known, read here.
    pub fn push_timed(&mut self, meta: &Metadata, rec: &RawRecord<'_>, known: Option<Option<u64>>) {
        let record_time = || known.unwrap_or_else(|| meta.events.record_time(rec));
        let seq = self.pushed;
        self.pushed += 1;
        let state = &mut self.state;
        if !state.features_read {
            state.read_build_id_feature(meta);
            state.features_read = true;
        }
        if let Some(tl) = state.timeline.as_mut() {
            tl.file_order(meta, rec);
        }
        match route(rec, state.timeline.is_some(), state.share, record_time) {
            Route::RoundEnd => self
                .queue
                .finished_round(meta.endian, |r, seq| state.deliver(meta, r, seq)),
            Route::FileOrder => state.file_order_record(rec),
            Route::Unused => {}
            // Not this loader's: skipped, but its time counts for the round ends.
            Route::NoteTime(time) => self.queue.note_time(time),
            Route::Queue(time) => {
                self.queue.push(time, rec, seq);
                let d = &mut state.diag;
                d.copied_records += 1;
                d.max_queued = d.max_queued.max(self.queue.len());
            }
            Route::Now => state.deliver(meta, rec, seq),
        }
    }

    /// An error met while reading the input (a bad header section, a framing error).
    pub fn push_error(&mut self, e: perfscope_format::Error) {
        self.state.diag.errors.push(e);
    }

    /// The profile of the records delivered so far (those still in the time-order queue are
    /// not in it yet).
    pub fn profile(&self) -> &Profile {
        self.state.builder.profile()
    }

    /// What happened so far.
    pub fn diagnostics(&self) -> &LoadDiagnostics {
        &self.state.diag
    }

    /// The end of the input: delivers the records still queued and returns the profile.
    ///
    /// Fails only when a table outgrew its index type.
    pub fn finish(self, meta: &Metadata) -> Result<(Profile, LoadDiagnostics), LoadError> {
        self.finish_loaded(meta).map(|l| (l.profile, l.diagnostics))
    }

    /// [`ProfileLoader::finish`], with the timeline and off-CPU samples asked for at creation.
    pub fn finish_loaded(mut self, meta: &Metadata) -> Result<Loaded, LoadError> {
        let state = &mut self.state;
        self.queue
            .finish(meta.endian, |r, seq| state.deliver(meta, r, seq));
        let mut state = self.state;
        state.diag.late_records = self.queue.late();
        state.diag.max_queued_bytes = self.queue.max_held;
        state.diag.max_queue_allocated = self.queue.max_allocated;
        if let Some((late, held, allocated)) = self.handed_queue {
            state.diag.late_records = late;
            state.diag.max_queued_bytes = held;
            state.diag.max_queue_allocated = allocated;
        }
        if let Some(e) = state.capacity_error {
            return Err(LoadError::Capacity(e));
        }
        let mut profile = state.builder.finish();
        // Name the events with everything the input said (an EVENT_UPDATE may follow the
        // first sample of its event).
        for (attr, event) in state.events.iter().enumerate() {
            let Some(event) = event else { continue };
            let name = state.names.name(meta, attr);
            if let (Ok(s), Some(slot)) = (
                profile.strings.intern(&name),
                profile.events.get_mut(event.index()),
            ) {
                *slot = s;
            }
        }
        let timeline = state.timeline.map(TimelineRecorder::finish);
        let deferred = match state.share {
            // Stand-ins are told apart from stacks by their high bit: no stack may have it.
            StackShare::Before(_) if profile.stacks.len() > split::DEFERRED as usize => {
                return Err(LoadError::Capacity(CapacityError { table: "stack" }))
            }
            StackShare::Before(_) => state.check,
            _ => SampleCheck::default(),
        };
        let off_cpu_events = match (&timeline, state.off_cpu) {
            (Some(t), true) => {
                add_off_cpu(&mut profile, t, &state.filter).map_err(LoadError::Capacity)?
            }
            _ => OffCpuEvents::default(),
        };
        // Done adding: free the stack table's lookup structures and the spare capacity.
        profile.shrink();
        Ok(Loaded {
            profile,
            diagnostics: state.diag,
            timeline,
            off_cpu_events,
            deferred,
        })
    }

    /// The end of the input of a loader that makes the stacks of another one's samples
    /// ([`StackShare::From`]): delivers the records still queued and returns those stacks,
    /// for [`fill_deferred`].
    pub fn finish_part(mut self, meta: &Metadata) -> Result<Part, LoadError> {
        let state = &mut self.state;
        self.queue
            .finish(meta.endian, |r, seq| state.deliver(meta, r, seq));
        let mut state = self.state;
        if let Some(e) = state.capacity_error {
            return Err(LoadError::Capacity(e));
        }
        let stacks = state.builder.take_part_stacks();
        let profile = state.builder.finish();
        Ok(Part {
            tables: encode_part(&profile, state.check),
            stacks,
        })
    }
}

/// Reads every record of a recording into a [`Profile`]. `data` is the perf.data file or pipe
/// stream (a directory's `data` file); `extra` are a directory's `data.N` files in order.
///
/// Returns the error that prevented reading any record (a bad file header); errors in single
/// records are in the diagnostics.
///
/// ```
/// use perfscope_analysis::load::{load_profile, LoadOptions};
/// assert!(load_profile(b"not a perf.data file", &[], LoadOptions::default()).is_err());
/// ```
pub fn load_profile(
    data: &[u8],
    extra: &[&[u8]],
    options: LoadOptions,
) -> Result<(Profile, LoadDiagnostics), LoadError> {
    load(data, extra, options, LoadExtras::default()).map(|l| (l.profile, l.diagnostics))
}

/// [`load_profile`], and the timeline and off-CPU samples that `extras` asks for.
///
/// ```
/// use perfscope_analysis::load::{load, LoadExtras, LoadOptions};
/// let extras = LoadExtras { timeline: true, off_cpu: true };
/// assert!(load(b"not a perf.data file", &[], LoadOptions::default(), extras).is_err());
/// ```
pub fn load(
    data: &[u8],
    extra: &[&[u8]],
    options: LoadOptions,
    extras: LoadExtras,
) -> Result<Loaded, LoadError> {
    let mut loader = ProfileLoader::with_extras(options, extras);
    let meta = walk(data, extra, |meta, _part, item| match item {
        Item::Record(rec) => loader.push(meta, rec),
        Item::Error(e) => loader.push_error(*e),
    })
    .map_err(LoadError::Format)?;
    loader.finish_loaded(&meta)
}

/// The timeline's off-CPU samples into the profile, for the threads and times `filter` keeps.
fn add_off_cpu(
    profile: &mut Profile,
    timeline: &Timeline,
    filter: &LoadFilter,
) -> Result<OffCpuEvents, CapacityError> {
    let named = |n: &String| is_off_cpu_event(n);
    if !filter.events.is_empty() && !filter.events.iter().any(named) {
        return Ok(OffCpuEvents::default());
    }
    add_to_profile_filtered(profile, timeline, |s, task| {
        let pid_ok = filter.pids.is_empty() || task.pid.is_some_and(|p| filter.pids.contains(&p));
        let tid_ok = filter.tids.is_empty() || filter.tids.contains(&task.tid);
        let time_ok = filter.time.is_none_or(|(a, b)| a <= s.end && s.end <= b);
        pid_ok && tid_ok && time_ok
    })
}

/// Why [`load_profile`] failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadError {
    /// The file header could not be read.
    Format(perfscope_format::Error),
    /// A table outgrew its index type.
    Capacity(CapacityError),
    /// [`load_threaded`]'s loader could not read what its writer wrote (a bug, not the file).
    Handover(BadDeliveries),
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::Format(e) => e.fmt(f),
            LoadError::Capacity(e) => write!(f, "{e:?}"),
            LoadError::Handover(e) => write!(f, "internal error: {e}"),
        }
    }
}

impl std::error::Error for LoadError {}

/// What the profile builder takes of one delivery of `s`.
fn sample_input<'a>(
    s: &SampleRecord<'_>,
    event: EventIndex,
    period: u64,
    callchain: &'a [u64],
) -> SampleInput<'a> {
    SampleInput {
        pid: s.pid.unwrap_or(u32::MAX),
        tid: s.tid.unwrap_or(u32::MAX),
        time: s.time.unwrap_or(0),
        cpu: s.cpu.unwrap_or(u32::MAX),
        event,
        period,
        ip: s.ip.unwrap_or(0),
        ip_mode: cpu_mode(s.misc),
        callchain,
    }
}

fn cpu_mode(misc_bits: u16) -> CpuMode {
    match misc_bits & misc::CPUMODE_MASK {
        misc::KERNEL | misc::HYPERVISOR | misc::GUEST_KERNEL => CpuMode::Kernel,
        _ => CpuMode::User,
    }
}

/// The machine of HEADER_ARCH (`x86_64`, `aarch64`, …).
fn arch(meta: &Metadata) -> Arch {
    let name = meta
        .feature(HeaderFeature::ARCH)
        .and_then(|b| perfscope_format::features::strings::parse_string(b).ok());
    name.map_or(Arch::Other, |n| Arch::from_uname(&n.to_string()))
}

fn lossy(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

impl LoaderState {
    fn read_build_id_feature(&mut self, meta: &Metadata) {
        let Some(bytes) = meta.feature(HeaderFeature::BUILD_ID) else {
            return;
        };
        match parse_build_ids(bytes) {
            Ok(list) => {
                for e in list {
                    self.build_ids
                        .insert(lossy(e.filename.0).into_owned(), e.build_id.to_vec());
                }
            }
            Err(e) => self.diag.errors.push(e),
        }
    }

    fn header_build_id(&mut self, rec: &RawRecord<'_>) {
        match parse_build_id_record(rec.header.misc, rec.body_bytes()) {
            Ok(e) => {
                self.build_ids
                    .insert(lossy(e.filename.0).into_owned(), e.build_id.to_vec());
            }
            Err(e) => self.diag.errors.push(e),
        }
    }

    /// The name of an attr's event, decided at its first use.
    fn attr_name(&mut self, meta: &Metadata, attr: AttrIndex) -> &str {
        let i = attr.0 as usize;
        if self.attr_names.len() <= i {
            self.attr_names.resize(i + 1, None);
        }
        let names = &self.names;
        match self.attr_names.get_mut(i) {
            Some(slot) => slot.get_or_insert_with(|| names.name(meta, i)),
            None => "",
        }
    }

    #[inline]
    fn event(&mut self, meta: &Metadata, attr: AttrIndex) -> Result<EventIndex, CapacityError> {
        // Every sample asks: the event seen before answered here, the first time apart.
        match self.events.get(attr.0 as usize) {
            Some(Some(e)) => Ok(*e),
            _ => self.new_event(meta, attr),
        }
    }

    /// [`LoaderState::event`] of an attr not seen before.
    #[cold]
    #[inline(never)]
    fn new_event(&mut self, meta: &Metadata, attr: AttrIndex) -> Result<EventIndex, CapacityError> {
        let i = attr.0 as usize;
        if self.events.len() <= i {
            self.events.resize(i + 1, None);
        }
        if let Some(Some(e)) = self.events.get(i) {
            return Ok(*e);
        }
        let name = self.attr_name(meta, attr).to_owned();
        let e = self.builder.add_event(&name)?;
        if let Some(slot) = self.events.get_mut(i) {
            *slot = Some(e);
        }
        Ok(e)
    }

    /// Decodes and takes record number `seq` (in push order).
    fn deliver(&mut self, meta: &Metadata, rec: &RawRecord<'_>, seq: u64) {
        // Decoded in place and borrowed: a sample is ~0.5 kB, not to be moved.
        let mut record = Record::FinishedRound;
        if let Err(e) = meta.parse_into(rec, &mut record) {
            if rec.type_() == RecordType::SAMPLE {
                self.diag.sample_errors.push((seq, e));
            }
            return self.diag.errors.push(e);
        }
        if let Err(e) = self.record(meta, &record, rec.offset) {
            self.capacity_error.get_or_insert(e);
        }
    }

    fn build_id_of(&self, filename: &str) -> Option<&[u8]> {
        self.build_ids.get(filename).map(Vec::as_slice)
    }

    fn record(
        &mut self,
        meta: &Metadata,
        record: &Record<'_>,
        offset: u64,
    ) -> Result<(), CapacityError> {
        if let (Some(tl), false) = (self.timeline.as_mut(), matches!(record, Record::Sample(_))) {
            if matches!(record, Record::Switch(_) | Record::SwitchCpuWide(_)) {
                self.timeline_feed.switched = true;
            }
            tl.record(meta, record);
        }
        match record {
            Record::Sample(s) => self.sample(meta, s, offset)?,
            Record::Mmap(m) => {
                let name = lossy(m.filename.0);
                let id = self.build_id_of(&name).map(<[u8]>::to_vec);
                self.builder
                    .mmap(m.pid, m.start, m.len, m.pgoff, &name, id.as_deref())?;
            }
            Record::Mmap2(m) => {
                let name = lossy(m.filename.0);
                let id = match m.file_id {
                    perfscope_format::records::Mmap2FileId::BuildId(id) => Some(id.to_vec()),
                    _ => self.build_id_of(&name).map(<[u8]>::to_vec),
                };
                self.builder
                    .mmap(m.pid, m.start, m.len, m.pgoff, &name, id.as_deref())?;
            }
            Record::Comm(c) => self.builder.comm(c.pid, c.tid, &lossy(c.comm.0))?,
            Record::Fork(f) => self.builder.fork(f.ppid, f.ptid, f.pid, f.tid)?,
            Record::Ksymbol(k) if !k.is_unregister() => {
                self.builder
                    .ksymbol(k.addr, u64::from(k.len), &lossy(k.name.0))?
            }
            Record::Lost(l) => {
                self.diag.lost_records += 1;
                self.diag.lost_events = self.diag.lost_events.saturating_add(l.lost);
            }
            Record::LostSamples(l) => {
                self.diag.lost_samples = self.diag.lost_samples.saturating_add(l.lost)
            }
            Record::Throttle(_) => self.diag.throttles += 1,
            Record::Unthrottle(_) => self.diag.unthrottles += 1,
            _ => {}
        }
        Ok(())
    }

    /// Whether the filter keeps a delivery to `attr` of a sample of this (pid, tid, time).
    #[inline(always)]
    fn keeps(
        &mut self,
        meta: &Metadata,
        (pid, tid, time): (Option<u32>, Option<u32>, Option<u64>),
        attr: AttrIndex,
    ) -> bool {
        let f = &self.filter;
        if !f.events.is_empty() {
            let mut events = std::mem::take(&mut self.filter.events);
            let kept = events.iter().any(|e| e == self.attr_name(meta, attr));
            std::mem::swap(&mut self.filter.events, &mut events);
            if !kept {
                return false;
            }
        }
        let f = &self.filter;
        if !f.pids.is_empty() && !pid.is_some_and(|p| f.pids.contains(&p)) {
            return false;
        }
        if !f.tids.is_empty() && !tid.is_some_and(|t| f.tids.contains(&t)) {
            return false;
        }
        if let Some((start, end)) = f.time {
            let t = time.unwrap_or(0);
            if t < start || t > end {
                return false;
            }
        }
        true
    }

    /// Loads DWARF only when inline frames will be shown: with [`InlineFrames::Unwound`], only
    /// when some event records DWARF-mode stacks.
    fn decide_inline(&mut self, meta: &Metadata) {
        self.inline_decided = true;
        let dwarf_mode = dwarf_mode(meta);
        let wanted = match self.inline_frames {
            InlineFrames::Never => false,
            InlineFrames::Unwound => dwarf_mode,
            InlineFrames::Always => true,
        };
        if let Some(r) = self.builder.resolver.as_mut() {
            r.inline_frames = wanted;
        }
    }

    /// A sample whose record starts at `offset`.
    fn sample(
        &mut self,
        meta: &Metadata,
        s: &SampleRecord<'_>,
        offset: u64,
    ) -> Result<(), CapacityError> {
        let mut deliveries: [(AttrIndex, u64); 4] = [(AttrIndex(0), 0); 4];
        let mut n = 0usize;
        let mut more: Vec<(AttrIndex, u64)> = Vec::new();
        self.delivery.deliver(&meta.events, s, |e, period| {
            match deliveries.get_mut(n) {
                Some(slot) => *slot = (e, period),
                None => {
                    if more.is_empty() {
                        more.extend_from_slice(&deliveries);
                    }
                    more.push((e, period));
                }
            }
            n += 1;
        });
        let list = deliveries.get(..n).unwrap_or(&more);
        self.sample_delivered(meta, s, offset, list)
    }

    /// A sample whose record starts at `offset`, with its deliveries (what
    /// [`SampleDelivery::deliver`] gave for it).
    #[inline(always)]
    fn sample_delivered(
        &mut self,
        meta: &Metadata,
        s: &SampleRecord<'_>,
        offset: u64,
        list: &[(AttrIndex, u64)],
    ) -> Result<(), CapacityError> {
        if !self.inline_decided {
            self.decide_inline(meta);
        }
        let deferring = matches!(self.share, StackShare::Before(cut) if offset >= cut);
        let to_timeline = self.timeline_takes_samples(meta);
        let mut stack_ready = false;
        let mut extras = StackExtras::default();
        for &(attr, period) in list {
            self.diag.samples += 1;
            if !self.keeps(meta, (s.pid, s.tid, s.time), attr) {
                if to_timeline {
                    self.timeline_sample(meta, s, None);
                }
                continue;
            }
            self.diag.kept_samples += 1;
            if deferring {
                self.deferred_sample(meta, s, attr, period)?;
                continue;
            }
            if !stack_ready {
                extras = self.prepare_stack(meta, s);
                stack_ready = true;
            }
            let event = self.event(meta, attr)?;
            let input = sample_input(s, event, period, &self.callchain);
            self.builder.sample_with(&input, extras)?;
            if let StackShare::From(_) = self.share {
                self.check.add(input.time, input.tid);
            }
            if to_timeline {
                let stack = self.last_sample_stack();
                self.timeline_sample(meta, s, stack);
            }
        }
        Ok(())
    }

    /// One delivery of a sample whose stack another loader makes: pushed with the stand-in
    /// of its rank among such deliveries ([`deferred`]).
    fn deferred_sample(
        &mut self,
        meta: &Metadata,
        s: &SampleRecord<'_>,
        attr: AttrIndex,
        period: u64,
    ) -> Result<(), CapacityError> {
        let k = u32::try_from(self.check.count)
            .ok()
            .filter(|k| deferred_ordinal(StackIndex(*k)).is_none())
            .ok_or(CapacityError { table: "sample" })?;
        let event = self.event(meta, attr)?;
        let input = sample_input(s, event, period, &[]);
        let stand_in = deferred(k);
        self.builder.sample_deferred(&input, stand_in)?;
        self.check.add(input.time, input.tid);
        if self.timeline_takes_samples(meta) {
            self.timeline_sample(meta, s, Some(stand_in));
        }
        Ok(())
    }

    /// One delivery of a sample to the timeline (when [`LoaderState::timeline_takes_samples`]),
    /// with the stack the profile gave it.
    fn timeline_sample(
        &mut self,
        meta: &Metadata,
        s: &SampleRecord<'_>,
        stack: Option<crate::ids::StackIndex>,
    ) {
        if let Some(tl) = self.timeline.as_mut() {
            tl.sample(meta, s, stack);
        }
    }

    /// The stack the profile gave the sample pushed last (for the timeline).
    fn last_sample_stack(&self) -> Option<crate::ids::StackIndex> {
        let s = &self.builder.profile().samples;
        s.len().checked_sub(1).and_then(|i| s.stack(i)).flatten()
    }

    /// Whether samples go to the timeline ([`TimelineFeed::takes`]).
    fn timeline_takes_samples(&mut self, meta: &Metadata) -> bool {
        self.timeline_feed.takes(self.timeline.is_some(), meta)
    }

    /// Fills `self.callchain` with the sample's callchain and, for a DWARF-mode sample, the
    /// unwound user frames after a `PERF_CONTEXT_USER` marker.
    #[inline]
    fn prepare_stack(&mut self, meta: &Metadata, s: &SampleRecord<'_>) -> StackExtras {
        let none = StackExtras::default();
        self.callchain.clear();
        if let Some(c) = &s.callchain {
            c.ips().append_to(&mut self.callchain);
        }
        let (Some(regs), Some(stack), true) = (&s.regs_user, &s.stack_user, self.unwind) else {
            return none;
        };
        if regs.abi == 0 || stack.data.is_empty() {
            return none;
        }
        let unwinder = self
            .unwinder
            .get_or_insert_with(|| UserUnwinder::new(arch(meta)));
        self.user_frames.clear();
        let pid = s.pid.unwrap_or(u32::MAX);
        let little = meta.endian == Endianness::Little;
        let outcome = self.builder.unwind_user(
            unwinder,
            pid,
            regs,
            stack.valid(),
            little,
            &mut self.user_frames,
        );
        if self.user_frames.is_empty() {
            return none;
        }
        // A user-mode sample has an empty callchain (the kernel leaves the user part out in
        // DWARF mode); the unwinder's first frame is its ip.
        if self.callchain.last() != Some(&PERF_CONTEXT_USER) {
            self.callchain.push(PERF_CONTEXT_USER);
        }
        let unwound_from = self.callchain.len();
        self.callchain.extend_from_slice(&self.user_frames);
        let truncated = match outcome {
            UnwindOutcome::Unwound => {
                self.diag.unwound += 1;
                false
            }
            UnwindOutcome::Truncated => {
                self.diag.truncated += 1;
                true
            }
            UnwindOutcome::NoRegisters => false,
        };
        StackExtras {
            unwound_from,
            truncated,
        }
    }
}

/// Whether a loader (or its [`DeliveryWriter`]) feeds samples to its timeline.
#[derive(Clone, Copy, Debug)]
struct TimelineFeed {
    /// Only when the recording can switch ([`ProfileLoader::timeline_samples_for_switches`]).
    switches_only: bool,
    /// With `switches_only`: a switch record came, or an event can switch (as of
    /// `events_seen` events).
    switched: bool,
    events_seen: usize,
}

impl Default for TimelineFeed {
    fn default() -> Self {
        TimelineFeed {
            switches_only: false,
            switched: false,
            events_seen: usize::MAX,
        }
    }
}

impl TimelineFeed {
    /// Whether samples go to the timeline: there is one, and with `switches_only`, the
    /// recording can switch (decided again whenever events were added: a pipe's attr records).
    fn takes(&mut self, timeline: bool, meta: &Metadata) -> bool {
        if !timeline {
            return false;
        }
        if !self.switches_only {
            return true;
        }
        let n = meta.events.len();
        if self.events_seen != n {
            self.events_seen = n;
            self.switched |= can_switch(meta);
        }
        self.switched
    }
}

/// Whether some event of `meta` can bring context switches: it asks for switch records
/// (`context_switch`), or it is a tracepoint (`sched:sched_switch` among others).
fn can_switch(meta: &Metadata) -> bool {
    (0..meta.events.len()).any(|i| {
        let i = u32::try_from(i).unwrap_or(u32::MAX);
        meta.events.attr(AttrIndex(i)).is_some_and(|a| {
            a.flags.has(AttrFlags::CONTEXT_SWITCH) || a.type_ == attr_type::TRACEPOINT
        })
    })
}

/// [`dwarf_mode`] of the recording `data` (a whole file-mode perf.data in memory, read as far
/// as its header and attrs); `true` when that cannot tell (a pipe-mode stream, whose events
/// come with its records, or a file it cannot read), so that nothing unwinding needs is left
/// out.
pub fn dwarf_mode_of(data: &[u8]) -> bool {
    perfscope_format::PerfFile::parse(data).map_or(true, |f| dwarf_mode(&Metadata::from_file(&f)))
}

/// Whether some event of `meta` records DWARF-mode stacks (PERF_SAMPLE_REGS_USER and
/// STACK_USER): their user part is unwound, and with [`InlineFrames::Unwound`] inline frames
/// are shown.
pub fn dwarf_mode(meta: &Metadata) -> bool {
    (0..meta.events.len()).any(|i| {
        let i = u32::try_from(i).unwrap_or(u32::MAX);
        meta.events.attr(AttrIndex(i)).is_some_and(|a| {
            a.sample_type & (sample_type::REGS_USER | sample_type::STACK_USER)
                == (sample_type::REGS_USER | sample_type::STACK_USER)
        })
    })
}
