//! The facts shown first when a file is opened: byte order, mode, events and every header
//! feature (host, kernel, perf version, CPUs, command line, topology, caches, …). Works for
//! file and pipe mode. Used by `perfscope info` and the web page.

use perfscope_format::bytes::Bytes;
use perfscope_format::features::{parse_feature, tracing_data, Feature, FeatureContext};
use perfscope_format::header::{Magic, PIPE_HEADER_SIZE};
use perfscope_format::reader::RecordReader;
use perfscope_format::{EventAttr, HeaderFeature, PerfFile, RawRecord, RecordType};
use serde::{Deserialize, Serialize};

use crate::attr_text::attr_text;
use crate::event_name::derived_name;
use crate::feature_summary::*;

/// What a file declares about itself. Every field that could not be read is `None` (or empty),
/// and the problems are listed in `warnings` (or in `error` when nothing at all could be read).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Summary {
    /// Size of the input in bytes.
    pub file_size: u64,
    /// "little" or "big".
    pub byte_order: String,
    /// Whether this is a pipe-mode stream (`perf record -o -`).
    pub pipe_mode: bool,
    /// The header's size field (104 for file mode, 16 for pipe mode).
    pub header_size: u64,
    /// The size of one attrs-section entry (file mode only).
    pub attr_size: Option<u64>,
    /// Offset of the data section (file mode) or of the first record (pipe mode).
    pub data_offset: u64,
    /// Size of the data section as written in the header (file mode), or the bytes after the
    /// pipe header.
    pub data_size: u64,
    /// The events recorded, in attr order.
    pub events: Vec<EventSummary>,
    /// Names of the header features present, in bit order (file mode) or record order (pipe).
    pub features: Vec<String>,
    /// HEADER_HOSTNAME.
    pub hostname: Option<String>,
    /// HEADER_OSRELEASE.
    pub os_release: Option<String>,
    /// HEADER_VERSION: the perf version that recorded.
    pub perf_version: Option<String>,
    /// HEADER_ARCH.
    pub arch: Option<String>,
    /// HEADER_NRCPUS, online.
    pub nr_cpus_online: Option<u32>,
    /// HEADER_NRCPUS, available.
    pub nr_cpus_available: Option<u32>,
    /// HEADER_CPUDESC.
    pub cpu_desc: Option<String>,
    /// HEADER_CPUID.
    pub cpuid: Option<String>,
    /// HEADER_TOTAL_MEM in kB.
    pub total_mem_kb: Option<u64>,
    /// HEADER_CMDLINE, arguments joined by spaces.
    pub cmdline: Option<String>,
    /// HEADER_CMDLINE, the arguments.
    pub cmdline_args: Option<Vec<String>>,
    /// HEADER_BUILD_ID entries and HEADER_BUILD_ID records.
    pub build_ids: Vec<BuildIdSummary>,
    /// HEADER_CPU_TOPOLOGY.
    pub cpu_topology: Option<CpuTopologySummary>,
    /// HEADER_NUMA_TOPOLOGY.
    pub numa_nodes: Vec<NumaNodeSummary>,
    /// HEADER_BRANCH_STACK: samples have branch stacks.
    pub branch_stack: bool,
    /// HEADER_PMU_MAPPINGS.
    pub pmu_mappings: Vec<PmuMappingSummary>,
    /// HEADER_GROUP_DESC, with member names.
    pub groups: Vec<GroupSummary>,
    /// HEADER_AUXTRACE: number of entries in the AUX trace index.
    pub auxtrace_index_entries: Option<usize>,
    /// HEADER_STAT: made by `perf stat record`.
    pub stat: bool,
    /// HEADER_CACHE.
    pub caches: Vec<CacheSummary>,
    /// HEADER_SAMPLE_TIME.
    pub sample_time: Option<SampleTimeSummary>,
    /// HEADER_MEM_TOPOLOGY.
    pub memory_topology: Option<MemTopologySummary>,
    /// HEADER_CLOCKID: resolution of the sampling clock in ns.
    pub clockid_res_ns: Option<u64>,
    /// HEADER_CLOCK_DATA.
    pub clock_data: Option<ClockDataSummary>,
    /// HEADER_DIR_FORMAT version.
    pub dir_format_version: Option<u64>,
    /// HEADER_BPF_PROG_INFO.
    pub bpf_progs: Vec<BpfProgSummary>,
    /// HEADER_BPF_BTF.
    pub bpf_btfs: Vec<BtfSummary>,
    /// HEADER_COMPRESSED.
    pub compressed: Option<CompressedSummary>,
    /// HEADER_CPU_PMU_CAPS.
    pub cpu_pmu_caps: Option<Vec<PmuCapSummary>>,
    /// HEADER_HYBRID_TOPOLOGY.
    pub hybrid_topology: Vec<HybridNodeSummary>,
    /// HEADER_PMU_CAPS.
    pub pmu_caps: Vec<PmuCapsSummary>,
    /// HEADER_CPU_DOMAIN_INFO.
    pub cpu_domain_info: Option<CpuDomainInfoSummary>,
    /// HEADER_TRACING_DATA (feature or record).
    pub tracing_data: Option<TracingDataSummary>,
    /// Features this version does not know.
    pub unknown_features: Vec<UnknownFeatureSummary>,
    /// Problems that did not stop reading, each naming its offset.
    pub warnings: Vec<String>,
    /// The error that stopped reading, if any.
    pub error: Option<String>,
}

/// One event (attr) of the file.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct EventSummary {
    /// The event name: from an EVENT_UPDATE record, else HEADER_EVENT_DESC, else the tracing
    /// data (`sys:name`), else derived from the attr as perf does (see `name_source`).
    pub name: String,
    /// Where `name` came from: `event_update`, `event_desc`, `tracing_data` or `derived`.
    pub name_source: String,
    /// `attr.type`.
    pub type_: u32,
    /// `attr.config`.
    pub config: u64,
    /// `attr.sample_type`, every bit named in bit order (`IP|TID|TIME`).
    pub sample_type: String,
    /// `sample_freq` when `freq` is set.
    pub sample_freq: Option<u64>,
    /// `sample_period` when `freq` is not set.
    pub sample_period: Option<u64>,
    /// How many sample ids the event has.
    pub ids: usize,
    /// The sample ids.
    pub sample_ids: Vec<u64>,
    /// The attr as perf 6.1 prints it in `perf report --header-only` (non-zero fields only).
    pub attr: String,
    /// Index of the event's group leader, when it is in a group of two or more.
    pub group_leader: Option<usize>,
}

impl Summary {
    /// Reads the summary of a perf.data held in `data` (the whole file, or for a pipe-mode
    /// stream at least its header records).
    pub fn from_bytes(data: &[u8]) -> Summary {
        let mut r = Reader {
            s: Summary {
                file_size: data.len() as u64,
                ..Summary::default()
            },
            ..Reader::default()
        };
        let magic = match Magic::parse(data) {
            Ok(m) => m,
            Err(e) => {
                r.s.error = Some(e.to_string());
                return r.s;
            }
        };
        r.s.byte_order = magic.endian.name().to_string();
        r.s.pipe_mode = magic.pipe;
        r.s.header_size = magic.header_size;
        if magic.pipe {
            r.read_pipe(data, magic);
        } else {
            r.read_file(data);
        }
        r.finish()
    }
}

/// Collects what naming the events needs until all of it is known (in pipe mode EVENT_DESC
/// and the attrs may come in either order).
#[derive(Default, Clone)]
struct Reader {
    s: Summary,
    ctx: FeatureContext,
    attrs: Vec<(EventAttr, Vec<u64>)>,
    /// HEADER_EVENT_DESC: name and ids of each event.
    descs: Vec<(String, Vec<u64>)>,
    /// EVENT_UPDATE NAME records: (id, name).
    updates: Vec<(u64, String)>,
    /// Tracepoint formats: (id, `sys:name`).
    tracepoints: Vec<(u64, String)>,
    /// HEADER_GROUP_DESC: (name if not anonymous, leader index, member count).
    groups: Vec<(Option<String>, u32, u32)>,
}

/// `PERF_EVENT_UPDATE__NAME`.
const EVENT_UPDATE_NAME: u64 = 2;

impl Reader {
    fn read_file(&mut self, data: &[u8]) {
        let file = match PerfFile::parse(data) {
            Ok(f) => f,
            Err(e) => {
                // Still say what the file header declares (perf prints it for such files too).
                if let Ok(h) = perfscope_format::FileHeader::parse(data) {
                    self.s.attr_size = Some(h.attr_size);
                    self.s.data_offset = h.data.offset;
                    self.s.data_size = h.data.size;
                    self.s.features = h.feature_list().map(|f| f.to_string()).collect();
                }
                self.s.error = Some(e.to_string());
                return;
            }
        };
        self.s.attr_size = Some(file.header.attr_size);
        self.s.data_offset = file.header.data.offset;
        self.s.data_size = file.header.data.size;
        self.s
            .warnings
            .extend(file.warnings.iter().map(ToString::to_string));
        self.attrs = file
            .attrs
            .iter()
            .map(|fa| (fa.attr, fa.ids.clone()))
            .collect();
        self.s.features = file.header.feature_list().map(|f| f.to_string()).collect();
        for (feature, bytes) in file.feature_sections() {
            self.feature(feature, bytes);
        }
        // Records that also carry header facts: build ids added by `perf inject -b`, tracing
        // data written as a record (simpleperf), event names. Framing errors are left to the
        // record readers.
        for rec in file.raw_records().map_while(Result::ok) {
            self.record(&rec);
        }
    }

    fn read_pipe(&mut self, data: &[u8], _magic: Magic) {
        self.s.data_offset = PIPE_HEADER_SIZE;
        self.s.data_size = data.len().saturating_sub(PIPE_HEADER_SIZE as usize) as u64;
        let mut d = match RecordReader::pipe(data) {
            Ok(d) => d,
            Err(e) => {
                self.s.error = Some(e.to_string());
                return;
            }
        };
        let mut legacy = Some(d.legacy_google());
        while let Some(rec) = d.next_record() {
            match rec {
                Ok(rec) => self.pipe_record(&rec, &mut legacy),
                Err(e) => {
                    self.s.error = Some(e.to_string());
                    break;
                }
            }
        }
    }

    /// A record of a pipe-mode stream; `legacy` is decided at the first.
    fn pipe_record(&mut self, rec: &RawRecord<'_>, legacy: &mut Option<bool>) {
        let legacy =
            *legacy.get_or_insert_with(|| perfscope_format::stream::is_legacy_google_record(rec));
        // The pre-upstream Google format sends features as records 69..=80.
        if legacy && (69..=80).contains(&rec.type_().0) {
            let feature = HeaderFeature(rec.type_().0 - 66);
            self.s.features.push(feature.to_string());
            self.feature(feature, rec.body_bytes());
        } else {
            self.record(rec);
        }
    }

    /// Whether [`Reader::record`] reads records of type `t`.
    fn reads(t: RecordType) -> bool {
        matches!(
            t,
            RecordType::HEADER_ATTR
                | RecordType::HEADER_FEATURE
                | RecordType::HEADER_TRACING_DATA
                | RecordType::HEADER_BUILD_ID
                | RecordType::EVENT_UPDATE
        )
    }

    fn record(&mut self, rec: &RawRecord<'_>) {
        match rec.type_() {
            RecordType::HEADER_ATTR => match EventAttr::parse(&rec.body_bytes()) {
                Ok((attr, len)) => {
                    let mut b = rec.body_bytes();
                    let mut ids = Vec::new();
                    if b.skip(len as usize, "attr").is_ok() {
                        while let Ok(id) = b.read_u64("attr id") {
                            ids.push(id);
                        }
                    }
                    self.attrs.push((attr, ids));
                }
                Err(e) => self.s.warnings.push(format!("ATTR record: {e}")),
            },
            RecordType::HEADER_FEATURE => {
                let mut body = rec.body_bytes();
                match body.read_u64("feature id") {
                    // perf ends the features with an empty record of id HEADER_LAST_FEATURE
                    // (32 in perf ≤ 6.16, where CPU_DOMAIN_INFO now is).
                    Ok(id) if id >= 32 && body.is_empty() => {}
                    Ok(id) => {
                        let feature = HeaderFeature(u32::try_from(id).unwrap_or(u32::MAX));
                        self.s.features.push(feature.to_string());
                        self.feature(feature, body);
                    }
                    Err(e) => self.s.warnings.push(e.to_string()),
                }
            }
            RecordType::HEADER_TRACING_DATA => {
                // perf puts the trace data after the record (not counted in header.size);
                // simpleperf puts it inside, after the u32 size.
                let inside = rec
                    .body
                    .get(4..)
                    .filter(|b| b.starts_with(&tracing_data::MAGIC));
                let payload = match inside {
                    Some(b) => Bytes::new(b, rec.offset + 12, rec.endian),
                    None => Bytes::new(
                        rec.payload,
                        rec.offset + 8 + rec.body.len() as u64,
                        rec.endian,
                    ),
                };
                if let Ok(f) = parse_feature(HeaderFeature::TRACING_DATA, payload, &self.ctx) {
                    self.keep(&f);
                    self.s.store_feature(&f);
                }
            }
            RecordType::HEADER_BUILD_ID => {
                match perfscope_format::features::build_id::parse_build_id_record(
                    rec.header.misc,
                    rec.body_bytes(),
                ) {
                    Ok(e) => self.s.build_ids.push(build_id_summary(&e)),
                    Err(e) => self.s.warnings.push(format!("BUILD_ID record: {e}")),
                }
            }
            RecordType::EVENT_UPDATE => {
                let mut b = rec.body_bytes();
                if let (Ok(EVENT_UPDATE_NAME), Ok(id)) = (
                    b.read_u64("event_update type"),
                    b.read_u64("event_update id"),
                ) {
                    let name = perfscope_format::bytes::until_nul(b.remaining());
                    self.updates
                        .push((id, String::from_utf8_lossy(name).into_owned()));
                }
            }
            _ => {}
        }
    }

    fn feature(&mut self, id: HeaderFeature, bytes: Bytes<'_>) {
        match parse_feature(id, bytes, &self.ctx) {
            Ok(f) => {
                self.keep(&f);
                self.s.store_feature(&f);
            }
            Err(e) => self.s.warnings.push(format!("{id} feature: {e}")),
        }
    }

    /// Keeps what later features and the event names need.
    fn keep(&mut self, f: &Feature<'_>) {
        match f {
            Feature::NrCpus(n) => {
                self.ctx.nr_cpus_avail = Some(n.available);
                self.ctx.nr_cpus_online = Some(n.online);
            }
            Feature::EventDesc(v) => {
                self.descs = v
                    .iter()
                    .map(|d| (d.name.to_string(), d.ids.clone()))
                    .collect();
            }
            Feature::GroupDesc(v) => {
                self.groups = v
                    .iter()
                    .map(|g| {
                        (
                            g.is_named().then(|| g.name.to_string()),
                            g.leader_idx,
                            g.nr_members,
                        )
                    })
                    .collect();
            }
            Feature::TracingData(t) => {
                for e in &t.events {
                    if let (Some(id), Some(name)) = (e.id, e.name) {
                        self.tracepoints
                            .push((id, format!("{}:{}", e.system, name)));
                    }
                }
            }
            _ => {}
        }
    }

    /// Names the events and builds the groups.
    fn finish(mut self) -> Summary {
        for (i, (attr, ids)) in self.attrs.iter().enumerate() {
            let (name, source) = self.name_of(i, attr, ids);
            let mut e = EventSummary::new(attr, ids);
            e.name = name;
            e.name_source = source.into();
            self.s.events.push(e);
        }
        for (name, leader, nr) in &self.groups {
            let leader = *leader as usize;
            // The members that exist: `nr_members` comes from the file and may be anything.
            let end = leader.saturating_add(*nr as usize).min(self.s.events.len());
            let members: Vec<String> = self
                .s
                .events
                .get(leader..end)
                .unwrap_or(&[])
                .iter()
                .map(|e| e.name.clone())
                .collect();
            if *nr > 1 {
                if let Some(group) = self.s.events.get_mut(leader..end) {
                    group.iter_mut().for_each(|e| e.group_leader = Some(leader));
                }
            }
            self.s.groups.push(GroupSummary {
                name: name.clone(),
                leader_idx: leader as u32,
                nr_members: *nr,
                members,
            });
        }
        self.s
    }

    /// The name of event `i` and where it came from, in the order perf applies them: an
    /// EVENT_UPDATE name overrides everything; HEADER_EVENT_DESC (matched by sample id, else by
    /// position as perf's `evlist__set_event_name` does); the tracing data for tracepoints;
    /// else the name perf would derive.
    fn name_of(&self, i: usize, attr: &EventAttr, ids: &[u64]) -> (String, &'static str) {
        if let Some((_, name)) = self.updates.iter().rev().find(|(id, _)| ids.contains(id)) {
            return (name.clone(), "event_update");
        }
        let by_id = self
            .descs
            .iter()
            .find(|(_, d)| d.iter().any(|id| ids.contains(id)));
        if let Some((name, _)) = by_id.or_else(|| self.descs.get(i)) {
            return (name.clone(), "event_desc");
        }
        if attr.type_ == perfscope_format::constants::attr_type::TRACEPOINT {
            if let Some((_, name)) = self.tracepoints.iter().find(|(id, _)| *id == attr.config) {
                return (name.clone(), "tracing_data");
            }
        }
        (derived_name(attr), "derived")
    }
}

impl EventSummary {
    fn new(attr: &EventAttr, ids: &[u64]) -> EventSummary {
        let freq = attr.freq();
        EventSummary {
            name: String::new(),
            name_source: String::new(),
            type_: attr.type_,
            config: attr.config,
            sample_type: sample_type_names(attr.sample_type),
            sample_freq: freq.then_some(attr.sample_period_or_freq),
            sample_period: (!freq).then_some(attr.sample_period_or_freq),
            ids: ids.len(),
            sample_ids: ids.to_vec(),
            attr: attr_text(attr),
            group_leader: None,
        }
    }
}

/// `sample_type` with every bit named, in bit order (`IP|TID|TIME`); unknown bits in hex.
pub fn sample_type_names(bits: u64) -> String {
    let mut parts: Vec<String> = Vec::new();
    for (i, name) in perfscope_format::constants::sample_type::NAMES
        .iter()
        .enumerate()
    {
        if bits & (1 << i) != 0 {
            parts.push((*name).to_string());
        }
    }
    let unknown = bits & !perfscope_format::constants::sample_type::KNOWN;
    if unknown != 0 {
        parts.push(format!("0x{unknown:x}"));
    }
    parts.join("|")
}

mod streamed;
pub use streamed::SummaryReader;

#[cfg(test)]
mod tests;
