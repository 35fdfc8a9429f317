//! The facts shown first when a file is opened: byte order, mode, events and the header
//! features (host, kernel, perf version, CPUs, command line). Works for file and pipe mode.

use perfscope_format::bytes::Bytes;
use perfscope_format::features::{event_desc, strings, RawStr};
use perfscope_format::header::{Magic, PIPE_HEADER_SIZE};
use perfscope_format::{EventAttr, HeaderFeature, PerfFile, RawRecords, RecordType};
use serde::{Deserialize, Serialize};

/// What a file declares about itself. Every field that could not be read is `None`, and the
/// problems are listed in `warnings` (or in `error` when nothing at all could be read).
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
    /// The events recorded.
    pub events: Vec<EventSummary>,
    /// Names of the header features present, in bit order.
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
    /// Problems that did not stop reading, each naming its offset.
    pub warnings: Vec<String>,
    /// The error that stopped reading, if any.
    pub error: Option<String>,
}

/// One event (attr) of the file.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct EventSummary {
    /// The event name (from HEADER_EVENT_DESC, else derived from type and config).
    pub name: String,
    /// `attr.type`.
    pub type_: u32,
    /// `attr.config`.
    pub config: u64,
    /// `attr.sample_type` as perf prints it (`IP|TID|TIME`).
    pub sample_type: String,
    /// `sample_freq` when `freq` is set.
    pub sample_freq: Option<u64>,
    /// `sample_period` when `freq` is not set.
    pub sample_period: Option<u64>,
    /// How many sample ids the event has.
    pub ids: usize,
}

impl Summary {
    /// Reads the summary of a perf.data held in `data` (the whole file, or for a pipe-mode
    /// stream at least its header records).
    pub fn from_bytes(data: &[u8]) -> Summary {
        let mut s = Summary { file_size: data.len() as u64, ..Summary::default() };
        let magic = match Magic::parse(data) {
            Ok(m) => m,
            Err(e) => {
                s.error = Some(e.to_string());
                return s;
            }
        };
        s.byte_order = magic.endian.name().to_string();
        s.pipe_mode = magic.pipe;
        s.header_size = magic.header_size;
        if magic.pipe {
            s.read_pipe(data, magic);
        } else {
            s.read_file(data);
        }
        s
    }

    fn read_file(&mut self, data: &[u8]) {
        let file = match PerfFile::parse(data) {
            Ok(f) => f,
            Err(e) => {
                self.error = Some(e.to_string());
                return;
            }
        };
        self.attr_size = Some(file.header.attr_size);
        self.data_offset = file.header.data.offset;
        self.data_size = file.header.data.size;
        self.warnings.extend(file.warnings.iter().map(ToString::to_string));
        for fa in &file.attrs {
            self.events.push(EventSummary::new(&fa.attr, fa.ids.len()));
        }
        self.features = file.header.feature_list().map(|f| f.to_string()).collect();
        for (feature, bytes) in file.feature_sections() {
            self.apply_feature(feature, bytes);
        }
    }

    fn read_pipe(&mut self, data: &[u8], magic: Magic) {
        self.data_offset = PIPE_HEADER_SIZE;
        let rest = data.get(PIPE_HEADER_SIZE as usize..).unwrap_or(&[]);
        self.data_size = rest.len() as u64;
        for rec in RawRecords::new(rest, PIPE_HEADER_SIZE, magic.endian) {
            let rec = match rec {
                Ok(r) => r,
                Err(e) => {
                    self.error = Some(e.to_string());
                    break;
                }
            };
            match rec.type_() {
                RecordType::HEADER_ATTR => {
                    let body = rec.body_bytes();
                    match EventAttr::parse(&body) {
                        Ok((attr, len)) => {
                            let ids = rec.body.len().saturating_sub(len as usize) / 8;
                            self.events.push(EventSummary::new(&attr, ids));
                        }
                        Err(e) => self.warnings.push(e.to_string()),
                    }
                }
                RecordType::HEADER_FEATURE => {
                    let mut body = rec.body_bytes();
                    match body.read_u64("feature id") {
                        Ok(id) => {
                            let feature = HeaderFeature(u32::try_from(id).unwrap_or(u32::MAX));
                            self.features.push(feature.to_string());
                            self.apply_feature(feature, body);
                        }
                        Err(e) => self.warnings.push(e.to_string()),
                    }
                }
                _ => {}
            }
        }
    }

    fn apply_feature(&mut self, feature: HeaderFeature, bytes: Bytes<'_>) {
        let text = |r: perfscope_format::Result<RawStr<'_>>| r.map(|s| s.to_string());
        let result = match feature {
            HeaderFeature::HOSTNAME => text(strings::parse_string(bytes)).map(|v| self.hostname = Some(v)),
            HeaderFeature::OSRELEASE => text(strings::parse_string(bytes)).map(|v| self.os_release = Some(v)),
            HeaderFeature::VERSION => text(strings::parse_string(bytes)).map(|v| self.perf_version = Some(v)),
            HeaderFeature::ARCH => text(strings::parse_string(bytes)).map(|v| self.arch = Some(v)),
            HeaderFeature::CPUDESC => text(strings::parse_string(bytes)).map(|v| self.cpu_desc = Some(v)),
            HeaderFeature::CPUID => text(strings::parse_string(bytes)).map(|v| self.cpuid = Some(v)),
            HeaderFeature::TOTAL_MEM => strings::parse_total_mem(bytes).map(|v| self.total_mem_kb = Some(v)),
            HeaderFeature::NRCPUS => strings::parse_nrcpus(bytes).map(|n| {
                self.nr_cpus_online = Some(n.online);
                self.nr_cpus_available = Some(n.available);
            }),
            HeaderFeature::CMDLINE => strings::parse_cmdline(bytes).map(|args| {
                let args: Vec<String> = args.iter().map(ToString::to_string).collect();
                self.cmdline = Some(args.join(" "));
            }),
            HeaderFeature::EVENT_DESC => event_desc::parse_event_desc(bytes).map(|descs| {
                // Names from EVENT_DESC, matched to the attrs by their ids (or by position).
                for (i, desc) in descs.iter().enumerate() {
                    let by_id = desc.ids.first().and_then(|id| {
                        self.events.iter().position(|e| e.ids > 0 && e.name.is_empty() && desc.ids.len() == e.ids && *id != 0)
                    });
                    let index = by_id.unwrap_or(i);
                    if let Some(e) = self.events.get_mut(index) {
                        e.name = desc.name.to_string();
                    }
                }
            }),
            _ => Ok(()),
        };
        if let Err(e) = result {
            self.warnings.push(format!("{feature} feature: {e}"));
        }
    }
}

impl EventSummary {
    fn new(attr: &EventAttr, ids: usize) -> EventSummary {
        let freq = attr.freq();
        EventSummary {
            name: String::new(),
            type_: attr.type_,
            config: attr.config,
            sample_type: sample_type_names(attr.sample_type),
            sample_freq: freq.then_some(attr.sample_period_or_freq),
            sample_period: (!freq).then_some(attr.sample_period_or_freq),
            ids,
        }
    }
}

/// `sample_type` as perf prints it: bit names joined by `|`.
pub fn sample_type_names(bits: u64) -> String {
    let mut parts: Vec<String> = Vec::new();
    for (i, name) in perfscope_format::constants::sample_type::NAMES.iter().enumerate() {
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
