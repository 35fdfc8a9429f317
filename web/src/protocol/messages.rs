//! Every message type, and its encoding as a [`Packet`].

use perfscope_analysis::summary::Summary;
use serde::{Deserialize, Serialize};

use super::packet::{same_len, Column, Packet};
use super::share::{CompareInfo, DiffReply, ExportFormat, ExportReply, Privacy};
use super::strings::StringTable;

/// Which samples a view counts. Times are ns, both ends included (as `perf script --time`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Filter {
    /// Keep samples with `start <= time <= end`.
    pub range: Option<(u64, u64)>,
    /// Keep samples of this event (index into [`Overview::events`]); `None`: all events.
    pub event: Option<u32>,
    /// Keep samples of these threads (lane indices into [`Overview::threads`]); empty: all.
    pub threads: Vec<u32>,
    /// The off-CPU time instead of the samples ([`Overview::off_cpu`]; `event` does not apply):
    /// each time a thread was switched out, weighed by the ns until it was switched back in.
    #[serde(default)]
    pub off_cpu: bool,
}

/// What a width measures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum WeightKind {
    /// Number of samples.
    #[default]
    Samples,
    /// Sum of the samples' periods (event counts; ns for cpu-clock).
    Period,
}

/// Which records the records table lists.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RecordFilter {
    /// Record types (`PERF_RECORD_*` numbers); empty: all.
    pub types: Vec<u32>,
    /// Only this pid.
    pub pid: Option<u32>,
    /// Only this tid.
    pub tid: Option<u32>,
    /// Only this CPU.
    pub cpu: Option<u32>,
    /// Only records with a time in this range (both ends included); records without a time
    /// are left out when a range is set.
    pub range: Option<(u64, u64)>,
}

/// A question about the open profile.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Query {
    /// The call tree (top-down, or inverted = bottom-up) laid out as a flame graph.
    Tree {
        /// Which samples.
        filter: Filter,
        /// Bottom-up.
        inverted: bool,
        /// What widths measure.
        weight: WeightKind,
        /// The zoom root as functions from a root (the page's `FuncPath`; empty: none): the
        /// reply has more detail under it.
        #[serde(default)]
        root: Vec<u32>,
        /// Leave out boxes narrower than `1 / detail` of the graph (or of the zoom root, below
        /// it); 0: the worker's default.
        #[serde(default)]
        detail: u32,
        /// A root per command (the Command select's processes by name), each over its own
        /// samples' tree; the commands' ids follow the functions' in [`ProfileData`].
        #[serde(default)]
        by_command: bool,
    },
    /// The weight of the samples passing `filter` whose stack has a function whose name
    /// contains `text` (case-insensitive): the flame-graph search's matched share.
    Search {
        /// Which samples.
        filter: Filter,
        /// The text searched (trimmed; matched lowercased).
        text: String,
    },
    /// Sample density per lane in `bins` equal bins over `start..=end` (ns).
    Timeline {
        /// First ns.
        start: u64,
        /// Last ns.
        end: u64,
        /// Number of bins.
        bins: u32,
        /// Only this event's samples.
        event: Option<u32>,
        /// Also count, per bin, the samples whose stack contains this function.
        #[serde(default)]
        func: Option<u32>,
    },
    /// Samples per second (columns) and `1e9 / rows` ns fraction of it (rows), from the first
    /// sample: the sub-second heatmap.
    Heatmap {
        /// Only this event's samples.
        event: Option<u32>,
        /// Only these thread lanes; empty: all.
        threads: Vec<u32>,
        /// Rows per second.
        rows: u32,
    },
    /// Rows `start..start + count` of the records matching `filter`.
    Records {
        /// Which records.
        filter: RecordFilter,
        /// First row.
        start: u32,
        /// Number of rows.
        count: u32,
    },
    /// The stack of the sample in record row `record` (an index into all records).
    Stack {
        /// The record's index in file order.
        record: u32,
    },
    /// The open profile's samples that pass `filter` as a file to download
    /// (`crate::session::export`).
    Export {
        /// The file format.
        format: ExportFormat,
        /// Which samples.
        filter: Filter,
        /// What widths measure (folded, SVG, speedscope).
        weight: WeightKind,
        /// What a share file leaves out.
        privacy: Privacy,
        /// The open file's name (titles and the download's name).
        name: String,
    },
    /// The open profile against the base opened by compare request `base`
    /// (`crate::session::compare`).
    Diff {
        /// The compare request whose profile is the base.
        base: u32,
        /// What widths measure.
        weight: WeightKind,
        /// Compare the off-CPU times (weighed in ns; `weight` does not apply).
        #[serde(default)]
        off_cpu: bool,
    },
}

impl Query {
    /// The query's kind, for logs and measures.
    pub fn kind(&self) -> &'static str {
        match self {
            Query::Tree { .. } => "tree",
            Query::Search { .. } => "search",
            Query::Timeline { .. } => "timeline",
            Query::Heatmap { .. } => "heatmap",
            Query::Records { .. } => "records",
            Query::Stack { .. } => "stack",
            Query::Export { .. } => "export",
            Query::Diff { .. } => "diff",
        }
    }
}

/// How far the worker is with a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Reading the file (bytes).
    Read,
    /// Framing and decoding records.
    Records,
    /// Building the profile (symbols, stacks).
    Profile,
    /// Reading symbol files.
    Symbols,
}

/// A progress report.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// The phase.
    pub phase: Phase,
    /// Bytes done (of the file, or of the data being walked).
    pub bytes: f64,
    /// Bytes in all.
    pub total: f64,
    /// Records seen so far.
    pub records: f64,
}

/// Time spent in the worker, ms.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Timings {
    /// Reading the file.
    pub read_ms: f64,
    /// Summary (header and features).
    pub summary_ms: f64,
    /// Reading the symbol files dropped with the recording and making their resolver, before
    /// the records pass.
    #[serde(default)]
    pub symbols_ms: f64,
    /// Records pass.
    pub records_ms: f64,
    /// Profile building.
    pub profile_ms: f64,
    /// The worker's wasm memory once the file is open, bytes (it only grows: the peak).
    #[serde(default)]
    pub wasm_memory: f64,
    /// Whether a second worker made the stacks of the later samples, and how that went.
    #[serde(default)]
    pub helper: StackHelper,
    /// The second worker's time from its start to its stacks sent, ms.
    #[serde(default)]
    pub helper_ms: f64,
    /// Of which: from its start to its request taken (loading its wasm)...
    #[serde(default)]
    pub helper_start_ms: f64,
    /// ...and reading the file itself (what was not forwarded to it).
    #[serde(default)]
    pub helper_read_ms: f64,
    /// The second worker's wasm memory when it sent its stacks, bytes (its peak; it is ended
    /// then).
    #[serde(default)]
    pub helper_wasm_memory: f64,
    /// Whether another worker decompressed the compressed records (`crate::inflater`).
    #[serde(default)]
    pub inflater: Inflation,
    /// That worker's wasm memory at its last slice, bytes (its peak; it is ended then), with its
    /// own inflater's when it had one ([`Inflation::OrderedInflated`]).
    #[serde(default)]
    pub inflater_wasm_memory: f64,
}

/// Whether another worker decompressed a `perf record -z` file's records while the pass read
/// them, or put an uncompressed file's records in time order (see `crate::inflater`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Inflation {
    /// No: the pass decompressed them (or the file has none).
    #[default]
    None,
    /// Yes, every one.
    Used,
    /// Yes, until it failed: the pass decompressed the rest.
    Failed,
    /// The second worker put the records in time order and decoded the samples
    /// (`crate::session::OrderPass`; it decompressed any compressed records itself).
    Ordered,
    /// The same, until it failed: the pass ordered the rest.
    OrderFailed,
    /// The second worker put the records in time order, and a third (the second's own
    /// inflater) decompressed the compressed records for it.
    OrderedInflated,
}

/// Whether a second worker made part of the stacks while the file was read (big files without
/// symbol files: see `Opening::share_stacks`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum StackHelper {
    /// No: this worker made every stack.
    #[default]
    None,
    /// Yes, and its stacks were used.
    Used,
    /// Yes, but its stacks could not be used: the profile was built again here.
    Failed,
}

/// One event of the profile.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EventInfo {
    /// As in the summary.
    pub name: String,
    /// Samples delivered for it.
    pub samples: u64,
    /// Their summed period.
    pub period: u64,
    /// `PERF_SAMPLE_CALLCHAIN` is recorded.
    pub callchain: bool,
    /// `PERF_SAMPLE_STACK_USER` (DWARF unwinding needed for user stacks).
    pub dwarf: bool,
}

/// A thread lane: one (pid, tid).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ThreadInfo {
    /// Process id.
    pub pid: u32,
    /// Thread id.
    pub tid: u32,
    /// Its last command name.
    pub name: String,
    /// Samples (all events).
    pub samples: u64,
    /// First and last sample time, ns.
    pub first: u64,
    /// Last sample time.
    pub last: u64,
}

/// A process: its thread lanes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProcessInfo {
    /// Process id.
    pub pid: u32,
    /// The main thread's (or first thread's) name.
    pub name: String,
    /// Lane indices into [`Overview::threads`], busiest first.
    pub threads: Vec<u32>,
    /// Samples.
    pub samples: u64,
}

/// A CPU lane.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuInfo {
    /// The CPU number.
    pub cpu: u32,
    /// Samples taken on it.
    pub samples: u64,
}

/// Samples of one thread under one command name (what `perf script` prints as `comm pid/tid`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CommCount {
    /// Command name.
    pub comm: String,
    /// Process id.
    pub pid: u32,
    /// Thread id.
    pub tid: u32,
    /// Samples.
    pub samples: u64,
}

/// Records of one type.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RecordCount {
    /// `PERF_RECORD_*` number.
    pub type_: u32,
    /// Its name (`SAMPLE`, `MMAP2`, ...).
    pub name: String,
    /// How many.
    pub count: u64,
}

/// A problem met while reading records.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RecordError {
    /// The offset the error names.
    pub offset: u64,
    /// The message (it names the offset too).
    pub message: String,
    /// Records read before it.
    pub records_before: u64,
}

/// Lost and throttled samples.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LostInfo {
    /// PERF_RECORD_LOST records.
    pub lost_records: u64,
    /// Events they say were lost.
    pub lost_events: u64,
    /// PERF_RECORD_LOST_SAMPLES records.
    pub lost_samples_records: u64,
    /// Samples they say were lost.
    pub lost_samples: u64,
    /// THROTTLE records.
    pub throttle: u64,
    /// UNTHROTTLE records.
    pub unthrottle: u64,
}

/// Why the flame graph would be empty or misleading.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reason {
    /// Stable code for tests and styling: `no-samples`, `no-callchains`, `dwarf-no-binaries`,
    /// `kernel-unnamed`, `user-unnamed`.
    pub code: String,
    /// For people.
    pub message: String,
}

/// A symbol file the worker was given.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SymbolFileInfo {
    /// File name.
    pub name: String,
    /// `kallsyms`, `elf`, `perf-map`, `jitdump`, `archive`, or `unknown`.
    pub kind: String,
    /// What was done with it, or the error.
    pub detail: String,
    /// Whether it could be used.
    pub ok: bool,
}

/// Everything about a loaded profile that does not depend on view state (the JSON part of the
/// `profile` message; the string and function tables travel as columns).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Overview {
    /// Increases with every re-symbolization.
    pub generation: u32,
    /// Events, in attr order.
    pub events: Vec<EventInfo>,
    /// Thread lanes (threads with samples).
    pub threads: Vec<ThreadInfo>,
    /// Threads without samples (not in `threads`).
    pub idle_threads: u64,
    /// Processes, busiest first.
    pub processes: Vec<ProcessInfo>,
    /// CPU lanes, by number.
    pub cpus: Vec<CpuInfo>,
    /// Samples per (comm, pid, tid), busiest first.
    pub comms: Vec<CommCount>,
    /// First and last sample time, ns.
    pub sample_range: Option<(u64, u64)>,
    /// Samples delivered.
    pub samples: u64,
    /// Records read (including those inside COMPRESSED records).
    pub records: u64,
    /// Per type, in type order.
    pub record_counts: Vec<RecordCount>,
    /// Lost and throttled.
    pub lost: LostInfo,
    /// The first errors (at most 100).
    pub errors: Vec<RecordError>,
    /// How many errors in all.
    pub error_count: u64,
    /// Why the flame graph may mislead.
    pub reasons: Vec<Reason>,
    /// Symbol files used.
    pub symbol_files: Vec<SymbolFileInfo>,
    /// Where the time went.
    pub timings: Timings,
    /// The off-CPU time the context switches show, when the recording has them.
    #[serde(default)]
    pub off_cpu: Option<OffCpuInfo>,
    /// Frames without a symbol are one per address (`module+0xoffset`), not one per module
    /// (`[module]`); `None` when the profile cannot be built again another way (a share file,
    /// perf script text).
    #[serde(default)]
    pub by_address: Option<bool>,
}

impl Overview {
    /// The event the views count first: the first with samples when there are several
    /// (mixing events would add up unlike units), all of them (`None`) when there is one.
    pub fn default_event(&self) -> Option<u32> {
        if self.events.len() > 1 {
            self.events
                .iter()
                .position(|e| e.samples > 0)
                .and_then(|i| u32::try_from(i).ok())
        } else {
            None
        }
    }
}

/// The off-CPU time of a recording with context switches (switch events or sched_switch).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OffCpuInfo {
    /// Times a thread was switched out and back in.
    pub switches: u64,
    /// Their time, ns.
    pub ns: u64,
    /// Of those, the ones given to the thread's last sampled stack (no sched_switch callchain).
    pub approximate: u64,
}

/// The `profile` message: the overview plus the tables that name functions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProfileData {
    /// The JSON part.
    pub overview: Overview,
    /// The profile's strings.
    pub strings: StringTable,
    /// Per function: its name (index into `strings`).
    pub func_name: Vec<u32>,
    /// Per function: its module's path (index into `strings`), `u32::MAX` when unknown,
    /// `u32::MAX - 1` for the commands after the functions (`selectors::COMMAND_MODULE`).
    pub func_module: Vec<u32>,
}

/// A flame graph / call tree: nodes in depth-first order (a parent before its children,
/// siblings by name), as columns.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TreeNodes {
    /// Index of the parent node, `u32::MAX` for roots.
    pub parent: Vec<u32>,
    /// Function (index into [`ProfileData::func_name`]).
    pub func: Vec<u32>,
    /// 0 for roots.
    pub depth: Vec<u32>,
    /// Left edge in weight units.
    pub x: Vec<f64>,
    /// Width in weight units (the node's total weight).
    pub width: Vec<f64>,
    /// Samples through the node.
    pub total_samples: Vec<f64>,
    /// Samples ending in the node.
    pub self_samples: Vec<f64>,
    /// Period through the node.
    pub total_period: Vec<f64>,
    /// Period ending in the node.
    pub self_period: Vec<f64>,
    /// Samples through the children that were left out (narrower than the reply's detail).
    pub elided_samples: Vec<f64>,
    /// Period through the children that were left out.
    pub elided_period: Vec<f64>,
    /// Number of children left out.
    pub elided_count: Vec<u32>,
}

impl TreeNodes {
    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.func.len()
    }

    /// Whether there is no node.
    pub fn is_empty(&self) -> bool {
        self.func.is_empty()
    }
}

/// The JSON part of a tree reply.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TreeMeta {
    /// The query answered.
    pub query: Option<Query>,
    /// The profile generation.
    pub generation: u32,
    /// Samples that passed the filter (with or without frames): what `perf script` would count.
    pub samples: u64,
    /// Their period.
    pub period: u64,
    /// Of those, samples without any frame.
    pub empty_samples: u64,
    /// Total width in weight units.
    pub total: f64,
    /// Deepest row + 1.
    pub depth: u32,
    /// Time in the worker, ms.
    pub ms: f64,
    /// Nodes narrower than `1 / detail` of the graph (or of the zoom root, below it) were left
    /// out; 0: nothing was.
    #[serde(default)]
    pub detail: u64,
    /// Samples through the roots that were left out.
    #[serde(default)]
    pub elided_samples: u64,
    /// Period through the roots that were left out.
    #[serde(default)]
    pub elided_period: u64,
    /// Number of roots left out.
    #[serde(default)]
    pub elided_count: u32,
}

/// The reply to [`Query::Search`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SearchReply {
    /// The query answered.
    pub query: Option<Query>,
    /// The profile generation.
    pub generation: u32,
    /// Matched samples.
    pub samples: u64,
    /// Their period.
    pub period: u64,
    /// Samples with frames that passed the filter (the flame graph's total).
    pub total_samples: u64,
    /// Their period.
    pub total_period: u64,
}

/// A flame graph of the samples read so far, sent while the records pass goes on
/// (`perfscope_analysis::preview`): a few hundred nodes, with their functions' names.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PreviewReply {
    /// Function names; the nodes' `func` index them.
    pub names: Vec<String>,
    /// Each function's module path ("" when unknown).
    pub modules: Vec<String>,
    /// Per node: the parent's index, `u32::MAX` for roots.
    pub parent: Vec<u32>,
    /// Per node: its function (index into `names`).
    pub func: Vec<u32>,
    /// Per node: 0 for roots.
    pub depth: Vec<u32>,
    /// Per node: left edge, in samples taken.
    pub x: Vec<f64>,
    /// Per node: samples taken through it.
    pub width: Vec<f64>,
    /// Samples taken (the graph's width).
    pub taken: u64,
    /// Samples with a stack of the counted event read so far (every `step`-th was taken).
    pub seen: u64,
    /// The spacing of the samples taken.
    pub step: u64,
    /// The event counted, when the recording has several.
    pub event: Option<String>,
    /// Bytes of the file read so far.
    pub bytes: f64,
    /// The file's size.
    pub total: f64,
}

impl PreviewReply {
    /// The preview as a profile's names and a tree's nodes, for the flame graph's drawing.
    pub fn tree(&self) -> (ProfileData, TreeNodes) {
        let mut strings = StringTable::default();
        let mut func_name = Vec::with_capacity(self.names.len());
        let mut func_module = Vec::with_capacity(self.names.len());
        for (i, name) in self.names.iter().enumerate() {
            func_name.push(strings.push(name));
            func_module.push(match self.modules.get(i) {
                Some(m) if !m.is_empty() => strings.push(m),
                _ => u32::MAX,
            });
        }
        let n = self.func.len();
        let nodes = TreeNodes {
            parent: self.parent.clone(),
            func: self.func.clone(),
            depth: self.depth.clone(),
            x: self.x.clone(),
            width: self.width.clone(),
            total_samples: self.width.clone(),
            self_samples: vec![0.0; n],
            total_period: vec![0.0; n],
            self_period: vec![0.0; n],
            elided_samples: vec![0.0; n],
            elided_period: vec![0.0; n],
            elided_count: vec![0; n],
        };
        let data = ProfileData {
            overview: Overview::default(),
            strings,
            func_name,
            func_module,
        };
        (data, nodes)
    }
}

/// A tree reply.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TreeReply {
    /// Totals and the query.
    pub meta: TreeMeta,
    /// The nodes.
    pub nodes: TreeNodes,
}

/// The JSON part of a timeline reply.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TimelineMeta {
    /// The query answered.
    pub query: Option<Query>,
    /// The profile generation.
    pub generation: u32,
    /// Lanes: the thread lanes then the CPU lanes, as in the overview.
    pub lanes: u32,
    /// Bins per lane.
    pub bins: u32,
    /// Largest bin over the thread lanes.
    pub max_thread: u32,
    /// Largest bin over the CPU lanes.
    pub max_cpu: u32,
}

/// Sample density per lane.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TimelineReply {
    /// Sizes and the query.
    pub meta: TimelineMeta,
    /// `lanes × bins` counts, lane after lane.
    pub counts: Vec<u32>,
    /// Activity, markers and the function's bins.
    pub detail: super::timeline::TimelineDetail,
}

/// The JSON part of a records reply.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RecordsMeta {
    /// The query answered.
    pub query: Option<Query>,
    /// Records matching the filter.
    pub matching: u64,
    /// First row returned.
    pub start: u32,
}

/// A page of the records table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecordRows {
    /// Index of the record in file order.
    pub index: Vec<u32>,
    /// `PERF_RECORD_*`.
    pub type_: Vec<u32>,
    /// Time in ns, `u64::MAX` when none.
    pub time: Vec<u64>,
    /// CPU, `u32::MAX` when none.
    pub cpu: Vec<u32>,
    /// pid, `u32::MAX` when none.
    pub pid: Vec<u32>,
    /// tid, `u32::MAX` when none.
    pub tid: Vec<u32>,
    /// File offset.
    pub offset: Vec<u64>,
    /// Decoded fields, one string per row.
    pub fields: StringTable,
}

/// A records reply.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecordsReply {
    /// Counts and the query.
    pub meta: RecordsMeta,
    /// The rows.
    pub rows: RecordRows,
}

/// One record in detail: its decoded fields and, for a sample, its stack.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StackReply {
    /// The record.
    pub record: u32,
    /// `PERF_RECORD_*`.
    pub type_: u32,
    /// File offset (of its COMPRESSED record when it was compressed).
    pub offset: u64,
    /// Time in ns, when it has one.
    pub time: Option<u64>,
    /// Decoded fields.
    pub fields: String,
    /// The profile generation.
    pub generation: u32,
    /// Functions, leaf first (indices into [`ProfileData::func_name`]).
    pub funcs: Vec<u32>,
    /// When the record is not a sample or its sample was not found.
    pub note: Option<String>,
}

/// Why a request failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// For people.
    pub message: String,
    /// The worker crashed (a bug): the page starts a fresh one.
    pub crashed: bool,
}

/// A message from the worker.
#[derive(Debug, Clone, PartialEq)]
pub enum WorkerMessage {
    /// Listening.
    Ready,
    /// Progress of request `id`.
    Progress(u32, Progress),
    /// The summary of the file of request `id` (before records are read).
    Summary(u32, Box<Summary>),
    /// The profile of request `id` is ready (or was re-symbolized).
    Profile(u32, Box<ProfileData>),
    /// A flame graph of what request `id` read so far (its records pass goes on).
    Preview(u32, Box<PreviewReply>),
    /// Request `id` (0: unknown) failed.
    Failed(u32, Failure),
    /// A tree.
    Tree(u32, Box<TreeReply>),
    /// A search's matched weight.
    Search(u32, Box<SearchReply>),
    /// Timeline density.
    Timeline(u32, Box<TimelineReply>),
    /// The sub-second heatmap.
    Heatmap(u32, Box<super::timeline::HeatmapReply>),
    /// Records.
    Records(u32, Box<RecordsReply>),
    /// A sample's stack.
    Stack(u32, Box<StackReply>),
    /// A file to download.
    Export(u32, Box<ExportReply>),
    /// Compare request `id`'s base profile is read.
    Compared(u32, CompareInfo),
    /// A diff.
    Diff(u32, Box<DiffReply>),
}

/// The overview's threads, processes and commands as columns of the `profile` message, not
/// JSON: a system-wide recording has thousands of each (big300-g: 1 536 threads, 1 500
/// processes, 2 388 commands, 0.37 MB of JSON that took the page's thread ~40 ms to decode, on
/// the way from the records pass to the flame graph). Their names are one string table:
/// the threads', then the processes', then the commands'.
struct ListColumns {
    threads: Vec<ThreadInfo>,
    processes: Vec<ProcessInfo>,
    comms: Vec<CommCount>,
}

impl ListColumns {
    /// Moves the lists out of `o` (its JSON then has them empty).
    fn take(o: &mut Overview) -> ListColumns {
        ListColumns {
            threads: std::mem::take(&mut o.threads),
            processes: std::mem::take(&mut o.processes),
            comms: std::mem::take(&mut o.comms),
        }
    }

    fn into_packet(self, p: Packet) -> Packet {
        let ListColumns {
            threads,
            processes,
            comms,
        } = self;
        let mut names = StringTable::new();
        for n in threads.iter().map(|t| &t.name) {
            names.push(n);
        }
        for n in processes.iter().map(|p| &p.name) {
            names.push(n);
        }
        for n in comms.iter().map(|c| &c.comm) {
            names.push(n);
        }
        let (name_bytes, name_ends) = names.into_parts();
        let mut lanes = Vec::new();
        let mut lane_ends = Vec::with_capacity(processes.len());
        for pr in &processes {
            lanes.extend_from_slice(&pr.threads);
            lane_ends.push(lanes.len() as u32);
        }
        p.with("name_bytes", Column::U8(name_bytes))
            .with("name_ends", Column::U32(name_ends))
            .with(
                "th_pid",
                Column::U32(threads.iter().map(|t| t.pid).collect()),
            )
            .with(
                "th_tid",
                Column::U32(threads.iter().map(|t| t.tid).collect()),
            )
            .with(
                "th_samples",
                Column::U64(threads.iter().map(|t| t.samples).collect()),
            )
            .with(
                "th_first",
                Column::U64(threads.iter().map(|t| t.first).collect()),
            )
            .with(
                "th_last",
                Column::U64(threads.iter().map(|t| t.last).collect()),
            )
            .with(
                "pr_pid",
                Column::U32(processes.iter().map(|p| p.pid).collect()),
            )
            .with(
                "pr_samples",
                Column::U64(processes.iter().map(|p| p.samples).collect()),
            )
            .with("pr_lanes", Column::U32(lanes))
            .with("pr_lane_ends", Column::U32(lane_ends))
            .with("cm_pid", Column::U32(comms.iter().map(|c| c.pid).collect()))
            .with("cm_tid", Column::U32(comms.iter().map(|c| c.tid).collect()))
            .with(
                "cm_samples",
                Column::U64(comms.iter().map(|c| c.samples).collect()),
            )
    }

    /// Puts the lists of packet `p` into `o`.
    fn from_packet(p: &mut Packet, o: &mut Overview) -> Result<(), String> {
        let kind = "profile";
        let names = StringTable::from_parts(p.take_u8("name_bytes")?, p.take_u32("name_ends")?);
        let (pid, tid) = (p.take_u32("th_pid")?, p.take_u32("th_tid")?);
        let (samples, first, last) = (
            p.take_u64("th_samples")?,
            p.take_u64("th_first")?,
            p.take_u64("th_last")?,
        );
        let n_threads = same_len(
            kind,
            &[
                ("th_pid", pid.len()),
                ("th_tid", tid.len()),
                ("th_samples", samples.len()),
                ("th_first", first.len()),
                ("th_last", last.len()),
            ],
        )?;
        let (pr_pid, pr_samples) = (p.take_u32("pr_pid")?, p.take_u64("pr_samples")?);
        let (lanes, lane_ends) = (p.take_u32("pr_lanes")?, p.take_u32("pr_lane_ends")?);
        let n_processes = same_len(
            kind,
            &[
                ("pr_pid", pr_pid.len()),
                ("pr_samples", pr_samples.len()),
                ("pr_lane_ends", lane_ends.len()),
            ],
        )?;
        let (cm_pid, cm_tid, cm_samples) = (
            p.take_u32("cm_pid")?,
            p.take_u32("cm_tid")?,
            p.take_u64("cm_samples")?,
        );
        let n_comms = same_len(
            kind,
            &[
                ("cm_pid", cm_pid.len()),
                ("cm_tid", cm_tid.len()),
                ("cm_samples", cm_samples.len()),
            ],
        )?;
        if names.len() != n_threads + n_processes + n_comms {
            return Err(format!(
                "{kind} message: {} names for {n_threads} threads, {n_processes} processes and {n_comms} commands",
                names.len()
            ));
        }
        let mut name = (0..names.len() as u32).map(|i| names.get(i).to_owned());
        let times = samples.into_iter().zip(first).zip(last);
        o.threads = pid
            .into_iter()
            .zip(tid)
            .zip(times)
            .map(|((pid, tid), ((samples, first), last))| ThreadInfo {
                pid,
                tid,
                name: name.next().unwrap_or_default(),
                samples,
                first,
                last,
            })
            .collect();
        let mut start = 0usize;
        let mut processes = Vec::with_capacity(n_processes);
        for ((pid, samples), end) in pr_pid.into_iter().zip(pr_samples).zip(lane_ends) {
            let end = end as usize;
            let threads = lanes.get(start..end).ok_or_else(|| {
                format!(
                    "{kind} message: process lanes end at {end} of {}",
                    lanes.len()
                )
            })?;
            start = end;
            processes.push(ProcessInfo {
                pid,
                name: name.next().unwrap_or_default(),
                threads: threads.to_vec(),
                samples,
            });
        }
        o.processes = processes;
        o.comms = cm_pid
            .into_iter()
            .zip(cm_tid)
            .zip(cm_samples)
            .map(|((pid, tid), samples)| CommCount {
                comm: name.next().unwrap_or_default(),
                pid,
                tid,
                samples,
            })
            .collect();
        Ok(())
    }
}

#[derive(Serialize, Deserialize)]
struct Empty {}

impl WorkerMessage {
    /// Encodes the message (consuming it: columns move, not copy).
    pub fn into_packet(self) -> Packet {
        match self {
            WorkerMessage::Ready => Packet::new("ready", 0, &Empty {}),
            WorkerMessage::Progress(id, p) => Packet::new("progress", id, &p),
            WorkerMessage::Summary(id, s) => Packet::new("summary", id, &s),
            WorkerMessage::Failed(id, f) => Packet::new("failed", id, &f),
            WorkerMessage::Stack(id, s) => Packet::new("stack", id, &s),
            WorkerMessage::Compared(id, c) => Packet::new("compared", id, &c),
            WorkerMessage::Search(id, r) => Packet::new("search", id, &r),
            WorkerMessage::Preview(id, r) => Packet::new("preview", id, &r),
            WorkerMessage::Export(id, e) => {
                let e = *e;
                Packet::new("export", id, &e.meta).with("bytes", Column::U8(e.bytes))
            }
            WorkerMessage::Diff(id, d) => {
                let d = *d;
                Packet::new("diff", id, &d.meta)
                    .with("func", Column::U32(d.func))
                    .with("depth", Column::U32(d.depth))
                    .with("x", Column::F64(d.x))
                    .with("width", Column::F64(d.width))
                    .with("delta_self", Column::F64(d.delta_self))
                    .with("base_total", Column::F64(d.base_total))
            }
            WorkerMessage::Profile(id, p) => {
                let mut p = *p;
                let lists = ListColumns::take(&mut p.overview);
                let (bytes, ends) = p.strings.into_parts();
                lists
                    .into_packet(Packet::new("profile", id, &p.overview))
                    .with("str_bytes", Column::U8(bytes))
                    .with("str_ends", Column::U32(ends))
                    .with("func_name", Column::U32(p.func_name))
                    .with("func_module", Column::U32(p.func_module))
            }
            WorkerMessage::Tree(id, t) => {
                let t = *t;
                let n = t.nodes;
                Packet::new("tree", id, &t.meta)
                    .with("parent", Column::U32(n.parent))
                    .with("func", Column::U32(n.func))
                    .with("depth", Column::U32(n.depth))
                    .with("x", Column::F64(n.x))
                    .with("width", Column::F64(n.width))
                    .with("total_samples", Column::F64(n.total_samples))
                    .with("self_samples", Column::F64(n.self_samples))
                    .with("total_period", Column::F64(n.total_period))
                    .with("self_period", Column::F64(n.self_period))
                    .with("elided_samples", Column::F64(n.elided_samples))
                    .with("elided_period", Column::F64(n.elided_period))
                    .with("elided_count", Column::U32(n.elided_count))
            }
            WorkerMessage::Timeline(id, t) => {
                let t = *t;
                t.detail.into_columns(
                    Packet::new("timeline", id, &t.meta).with("counts", Column::U32(t.counts)),
                )
            }
            WorkerMessage::Heatmap(id, h) => h.into_packet(id),
            WorkerMessage::Records(id, r) => {
                let r = *r;
                let rows = r.rows;
                let (bytes, ends) = rows.fields.into_parts();
                Packet::new("records", id, &r.meta)
                    .with("index", Column::U32(rows.index))
                    .with("type", Column::U32(rows.type_))
                    .with("time", Column::U64(rows.time))
                    .with("cpu", Column::U32(rows.cpu))
                    .with("pid", Column::U32(rows.pid))
                    .with("tid", Column::U32(rows.tid))
                    .with("offset", Column::U64(rows.offset))
                    .with("str_bytes", Column::U8(bytes))
                    .with("str_ends", Column::U32(ends))
            }
        }
    }

    /// Decodes a packet made by [`WorkerMessage::into_packet`].
    pub fn from_packet(mut p: Packet) -> Result<WorkerMessage, String> {
        let id = p.id;
        Ok(match p.kind.as_str() {
            "ready" => WorkerMessage::Ready,
            "progress" => WorkerMessage::Progress(id, p.json()?),
            "summary" => WorkerMessage::Summary(id, Box::new(p.json()?)),
            "failed" => WorkerMessage::Failed(id, p.json()?),
            "stack" => WorkerMessage::Stack(id, Box::new(p.json()?)),
            "compared" => WorkerMessage::Compared(id, p.json()?),
            "search" => WorkerMessage::Search(id, Box::new(p.json()?)),
            "preview" => WorkerMessage::Preview(id, Box::new(p.json()?)),
            "export" => {
                let meta = p.json()?;
                WorkerMessage::Export(
                    id,
                    Box::new(ExportReply {
                        meta,
                        bytes: p.take_u8("bytes")?,
                    }),
                )
            }
            "diff" => {
                let meta = p.json()?;
                let d = DiffReply {
                    meta,
                    func: p.take_u32("func")?,
                    depth: p.take_u32("depth")?,
                    x: p.take_f64("x")?,
                    width: p.take_f64("width")?,
                    delta_self: p.take_f64("delta_self")?,
                    base_total: p.take_f64("base_total")?,
                };
                same_len(
                    "diff",
                    &[
                        ("func", d.func.len()),
                        ("depth", d.depth.len()),
                        ("x", d.x.len()),
                        ("width", d.width.len()),
                        ("delta_self", d.delta_self.len()),
                        ("base_total", d.base_total.len()),
                    ],
                )?;
                WorkerMessage::Diff(id, Box::new(d))
            }
            "profile" => {
                let mut overview = p.json()?;
                ListColumns::from_packet(&mut p, &mut overview)?;
                let strings =
                    StringTable::from_parts(p.take_u8("str_bytes")?, p.take_u32("str_ends")?);
                let func_name = p.take_u32("func_name")?;
                let func_module = p.take_u32("func_module")?;
                same_len(
                    "profile",
                    &[
                        ("func_name", func_name.len()),
                        ("func_module", func_module.len()),
                    ],
                )?;
                WorkerMessage::Profile(
                    id,
                    Box::new(ProfileData {
                        overview,
                        strings,
                        func_name,
                        func_module,
                    }),
                )
            }
            "tree" => {
                let meta = p.json()?;
                let nodes = TreeNodes {
                    parent: p.take_u32("parent")?,
                    func: p.take_u32("func")?,
                    depth: p.take_u32("depth")?,
                    x: p.take_f64("x")?,
                    width: p.take_f64("width")?,
                    total_samples: p.take_f64("total_samples")?,
                    self_samples: p.take_f64("self_samples")?,
                    total_period: p.take_f64("total_period")?,
                    self_period: p.take_f64("self_period")?,
                    elided_samples: p.take_f64("elided_samples")?,
                    elided_period: p.take_f64("elided_period")?,
                    elided_count: p.take_u32("elided_count")?,
                };
                same_len(
                    "tree",
                    &[
                        ("parent", nodes.parent.len()),
                        ("func", nodes.func.len()),
                        ("depth", nodes.depth.len()),
                        ("x", nodes.x.len()),
                        ("width", nodes.width.len()),
                        ("total_samples", nodes.total_samples.len()),
                        ("self_samples", nodes.self_samples.len()),
                        ("total_period", nodes.total_period.len()),
                        ("self_period", nodes.self_period.len()),
                        ("elided_samples", nodes.elided_samples.len()),
                        ("elided_period", nodes.elided_period.len()),
                        ("elided_count", nodes.elided_count.len()),
                    ],
                )?;
                WorkerMessage::Tree(id, Box::new(TreeReply { meta, nodes }))
            }
            "timeline" => {
                let meta: TimelineMeta = p.json()?;
                let counts = p.take_u32("counts")?;
                let want = (meta.lanes as usize).saturating_mul(meta.bins as usize);
                if counts.len() != want {
                    return Err(format!(
                        "timeline message: {} counts for {} lanes × {} bins",
                        counts.len(),
                        meta.lanes,
                        meta.bins
                    ));
                }
                let detail = super::timeline::TimelineDetail::from_packet(&mut p, want)?;
                WorkerMessage::Timeline(
                    id,
                    Box::new(TimelineReply {
                        meta,
                        counts,
                        detail,
                    }),
                )
            }
            "heatmap" => WorkerMessage::Heatmap(
                id,
                Box::new(super::timeline::HeatmapReply::from_packet(&mut p)?),
            ),
            "records" => {
                let meta = p.json()?;
                let rows = RecordRows {
                    index: p.take_u32("index")?,
                    type_: p.take_u32("type")?,
                    time: p.take_u64("time")?,
                    cpu: p.take_u32("cpu")?,
                    pid: p.take_u32("pid")?,
                    tid: p.take_u32("tid")?,
                    offset: p.take_u64("offset")?,
                    fields: StringTable::from_parts(
                        p.take_u8("str_bytes")?,
                        p.take_u32("str_ends")?,
                    ),
                };
                same_len(
                    "records",
                    &[
                        ("index", rows.index.len()),
                        ("type", rows.type_.len()),
                        ("time", rows.time.len()),
                        ("cpu", rows.cpu.len()),
                        ("pid", rows.pid.len()),
                        ("tid", rows.tid.len()),
                        ("offset", rows.offset.len()),
                        ("fields", rows.fields.len()),
                    ],
                )?;
                WorkerMessage::Records(id, Box::new(RecordsReply { meta, rows }))
            }
            other => return Err(format!("the worker sent an unknown message kind {other:?}")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::share::{DiffMeta, DiffRow, ExportMeta};

    fn round_trip(m: WorkerMessage) {
        let back = WorkerMessage::from_packet(m.clone().into_packet()).unwrap();
        assert_eq!(back, m);
    }

    /// An overview with threads, processes (one without lanes) and commands (one name empty,
    /// one not ASCII).
    fn listed_overview() -> Overview {
        let thread = |pid, tid, name: &str, samples, first, last| ThreadInfo {
            pid,
            tid,
            name: name.into(),
            samples,
            first,
            last,
        };
        Overview {
            threads: vec![
                thread(1, 1, "gzip", 10, 5, 90),
                thread(1, 2, "gzip-w", 3, 7, 8),
                thread(4, 4, "", 1, u64::MAX - 1, u64::MAX),
            ],
            processes: vec![
                ProcessInfo {
                    pid: 1,
                    name: "gzip".into(),
                    threads: vec![0, 1],
                    samples: 13,
                },
                ProcessInfo {
                    pid: 9,
                    name: "idle".into(),
                    threads: vec![],
                    samples: 0,
                },
                ProcessInfo {
                    pid: 4,
                    name: "".into(),
                    threads: vec![2],
                    samples: 1,
                },
            ],
            comms: vec![
                CommCount {
                    comm: "bash".into(),
                    pid: 1,
                    tid: 1,
                    samples: 2,
                },
                CommCount {
                    comm: "gzip ünï".into(),
                    pid: 1,
                    tid: 1,
                    samples: 8,
                },
            ],
            samples: 14,
            ..Overview::default()
        }
    }

    #[test]
    fn the_overviews_lists_travel_as_columns_and_bad_ones_are_refused() {
        let profile = || {
            WorkerMessage::Profile(
                1,
                Box::new(ProfileData {
                    overview: listed_overview(),
                    ..ProfileData::default()
                }),
            )
            .into_packet()
        };
        let p = profile();
        assert!(p.json.contains(r#""threads":[]"#), "{}", p.json);
        assert!(!p.json.contains("gzip"), "{}", p.json);
        let lanes = p.columns.iter().find(|(n, _)| n == "pr_lane_ends");
        assert_eq!(
            lanes.map(|(_, c)| c.clone()),
            Some(Column::U32(vec![2, 2, 3]))
        );
        // A process's lanes past the end, a name missing, a column short: errors, no panic.
        let edit = |name: &str, column: Column| {
            let mut p = profile();
            if let Some(c) = p.columns.iter_mut().find(|(n, _)| n == name) {
                c.1 = column;
            }
            WorkerMessage::from_packet(p).unwrap_err()
        };
        assert_eq!(
            edit("pr_lane_ends", Column::U32(vec![2, 4, 3])),
            "profile message: process lanes end at 4 of 3"
        );
        assert_eq!(
            edit("name_ends", Column::U32(vec![4, 10, 10, 14, 18, 18, 22])),
            "profile message: 7 names for 3 threads, 3 processes and 2 commands"
        );
        assert_eq!(
            edit("th_last", Column::U64(vec![1, 2])),
            "profile message: column th_last has 2 values, expected 3"
        );
    }

    #[test]
    fn every_message_round_trips() {
        round_trip(WorkerMessage::Ready);
        round_trip(WorkerMessage::Progress(
            2,
            Progress {
                phase: Phase::Records,
                bytes: 10.0,
                total: 20.0,
                records: 3.0,
            },
        ));
        round_trip(WorkerMessage::Summary(
            2,
            Box::new(Summary {
                file_size: 9,
                ..Summary::default()
            }),
        ));
        round_trip(WorkerMessage::Failed(
            0,
            Failure {
                message: "x".into(),
                crashed: true,
            },
        ));
        let mut strings = StringTable::new();
        strings.push("main");
        strings.push("/bin/x");
        round_trip(WorkerMessage::Profile(
            3,
            Box::new(ProfileData {
                overview: Overview {
                    generation: 2,
                    samples: 5,
                    ..Overview::default()
                },
                strings: strings.clone(),
                func_name: vec![0],
                func_module: vec![1],
            }),
        ));
        round_trip(WorkerMessage::Profile(
            3,
            Box::new(ProfileData {
                overview: listed_overview(),
                strings,
                func_name: vec![0],
                func_module: vec![1],
            }),
        ));
        let nodes = TreeNodes {
            parent: vec![u32::MAX, 0],
            func: vec![0, 0],
            depth: vec![0, 1],
            x: vec![0.0, 0.0],
            width: vec![3.0, 1.0],
            total_samples: vec![3.0, 1.0],
            self_samples: vec![2.0, 1.0],
            total_period: vec![30.0, 10.0],
            self_period: vec![20.0, 10.0],
            elided_samples: vec![0.0, 1.0],
            elided_period: vec![0.0, 10.0],
            elided_count: vec![0, 2],
        };
        let query = Query::Tree {
            filter: Filter {
                range: Some((1, u64::MAX)),
                event: Some(0),
                threads: vec![],
                off_cpu: true,
            },
            inverted: false,
            weight: WeightKind::Samples,
            root: vec![0, 3],
            detail: 4,
            by_command: false,
        };
        round_trip(WorkerMessage::Tree(
            4,
            Box::new(TreeReply {
                meta: TreeMeta {
                    query: Some(query),
                    samples: 3,
                    total: 3.0,
                    depth: 2,
                    ..TreeMeta::default()
                },
                nodes,
            }),
        ));
        round_trip(WorkerMessage::Timeline(
            5,
            Box::new(TimelineReply {
                meta: TimelineMeta {
                    lanes: 2,
                    bins: 2,
                    max_thread: 4,
                    ..TimelineMeta::default()
                },
                counts: vec![1, 4, 0, 2],
                detail: Default::default(),
            }),
        ));
        let mut fields = StringTable::new();
        fields.push("comm=mt");
        let rows = RecordRows {
            index: vec![7],
            type_: vec![3],
            time: vec![u64::MAX],
            cpu: vec![1],
            pid: vec![2],
            tid: vec![2],
            offset: vec![0x108],
            fields,
        };
        round_trip(WorkerMessage::Records(
            6,
            Box::new(RecordsReply {
                meta: RecordsMeta {
                    matching: 1,
                    ..RecordsMeta::default()
                },
                rows,
            }),
        ));
        round_trip(WorkerMessage::Export(
            8,
            Box::new(ExportReply {
                meta: ExportMeta {
                    file_name: "a.folded".into(),
                    mime: "text/plain".into(),
                },
                bytes: b"main 1\n".to_vec(),
            }),
        ));
        let search = Query::Search {
            filter: Filter::default(),
            text: "main".into(),
        };
        round_trip(WorkerMessage::Search(
            11,
            Box::new(SearchReply {
                query: Some(search),
                generation: 1,
                samples: 3,
                period: 30,
                total_samples: 4,
                total_period: 40,
            }),
        ));
        round_trip(WorkerMessage::Compared(
            9,
            CompareInfo {
                name: "base.data".into(),
                samples: 4,
            },
        ));
        let rows = vec![DiffRow {
            name: "slow".into(),
            base_self: 0.1,
            base_total: 0.2,
            new_self: 0.5,
            new_total: 0.6,
        }];
        round_trip(WorkerMessage::Diff(
            10,
            Box::new(DiffReply {
                meta: DiffMeta {
                    base_total: 4,
                    new_total: 8,
                    rows,
                    total: 8.0,
                    depth: 1,
                    max_abs_delta: 2.0,
                    ..DiffMeta::default()
                },
                func: vec![0],
                depth: vec![0],
                x: vec![0.0],
                width: vec![8.0],
                delta_self: vec![2.0],
                base_total: vec![6.0],
            }),
        ));
        round_trip(WorkerMessage::Stack(
            7,
            Box::new(StackReply {
                record: 3,
                generation: 1,
                funcs: vec![1, 0],
                fields: "x".into(),
                ..StackReply::default()
            }),
        ));
    }

    #[test]
    fn ragged_columns_are_refused() {
        let mut p = WorkerMessage::Timeline(
            1,
            Box::new(TimelineReply {
                meta: TimelineMeta {
                    lanes: 2,
                    bins: 2,
                    ..TimelineMeta::default()
                },
                counts: vec![1, 2, 3, 4],
                detail: Default::default(),
            }),
        )
        .into_packet();
        p.columns[0].1 = Column::U32(vec![1]);
        assert_eq!(
            WorkerMessage::from_packet(p).unwrap_err(),
            "timeline message: 1 counts for 2 lanes × 2 bins"
        );
    }

    #[test]
    fn tree_queries_without_a_root_still_parse() {
        let q: Query = serde_json::from_str(r#"{"Tree":{"filter":{"range":null,"event":null,"threads":[]},"inverted":true,"weight":"Samples"}}"#).unwrap();
        assert_eq!(
            q,
            Query::Tree {
                filter: Filter::default(),
                inverted: true,
                weight: WeightKind::Samples,
                root: vec![],
                detail: 0,
                by_command: false
            }
        );
    }

    #[test]
    fn queries_serialize_as_tagged_json() {
        let q = Query::Stack { record: 4 };
        let json = serde_json::to_string(&q).unwrap();
        assert_eq!(json, r#"{"Stack":{"record":4}}"#);
        assert_eq!(serde_json::from_str::<Query>(&json).unwrap(), q);
    }
}
