//! The reading side of the collapse fast path: records (in file order) decoded into what the
//! delivery needs — a sample's pid, tid, mode and callchain words, a side-band record's
//! fields, round ends, errors — in batches, so that reading (framing, decompressing,
//! decoding) can run on a thread of its own.

use perfscope_format::constants::{misc, sample_type, HeaderFeature, RecordType};
use perfscope_format::features::build_id::{parse_build_id_record, parse_build_ids};
use perfscope_format::metadata::Metadata;
use perfscope_format::records::{Mmap2FileId, RawRecord, Record, SampleBrief};
use perfscope_format::walk::Item;

use super::Unsupported;
use crate::load::LoadDiagnostics;

/// The words of a sample before its callchain: (pid, tid), flags, ip, length.
pub(super) const SAMPLE_HEADER: usize = 4;
/// Flag: the ip is a kernel address.
pub(super) const KERNEL_IP: u64 = 1;
/// Flag: the sample has a callchain (else its ip alone is its stack).
pub(super) const HAS_CALLCHAIN: u64 = 2;

/// A side-band record, decoded.
#[derive(Clone, Debug)]
pub(super) enum Side {
    Mmap {
        pid: u32,
        start: u64,
        len: u64,
        pgoff: u64,
        filename: String,
        /// MMAP2's build id (else the one a [`Side::BuildId`] gave its path, as the loader
        /// finds it when the record is delivered).
        build_id: Option<Vec<u8>>,
    },
    /// A build id of the recording's list (the BUILD_ID feature's, or a HEADER_BUILD_ID
    /// record's): delivered at once, as the loader takes it when read.
    BuildId {
        filename: String,
        build_id: Vec<u8>,
    },
    Comm {
        pid: u32,
        tid: u32,
        name: String,
    },
    Fork {
        ppid: u32,
        ptid: u32,
        pid: u32,
        tid: u32,
    },
    Ksymbol {
        addr: u64,
        len: u64,
        name: String,
    },
}

/// One record, as the delivery needs it. `time`: when it waits for its turn in time order
/// (`None`: delivered at once, as perf does for records without a usable time).
pub(super) enum Event {
    /// A FINISHED_ROUND.
    Round,
    /// A record that could not be read.
    Error(perfscope_format::Error),
    /// A sample the fast path does not cover: reading stops.
    Unsupported(Unsupported),
    /// A sample: `words[start..end]` of the batch ([`SAMPLE_HEADER`], then the callchain).
    Sample {
        time: Option<u64>,
        start: usize,
        end: usize,
    },
    /// A side-band record.
    Side { time: Option<u64>, side: Side },
}

/// Events and the sample words they refer to.
#[derive(Default)]
pub(super) struct Batch {
    pub words: Vec<u64>,
    pub events: Vec<Event>,
    /// Its events are in file order, for an [`super::order::Orderer`] to put in delivery
    /// order (else none waits for its turn). Cleared with the batch.
    pub unordered: bool,
}

impl Batch {
    /// Whether it is worth handing over.
    pub fn is_full(&self) -> bool {
        self.words.len() >= 1 << 16 || self.events.len() >= 1 << 12
    }

    /// A sample delivered at once: its words (as [`Reader`] made them) copied in.
    pub fn push_sample(&mut self, words: &[u64]) {
        let start = self.words.len();
        self.words.extend_from_slice(words);
        self.events.push(Event::Sample {
            time: None,
            start,
            end: self.words.len(),
        });
    }

    pub fn clear(&mut self) {
        self.words.clear();
        self.events.clear();
        self.unordered = false;
    }
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn kernel_ip(misc_bits: u16) -> bool {
    matches!(
        misc_bits & misc::CPUMODE_MASK,
        misc::KERNEL | misc::HYPERVISOR | misc::GUEST_KERNEL
    )
}

/// Decodes records into events; counts what only the diagnostics need.
#[derive(Default)]
pub(super) struct Reader {
    /// LOST, LOST_SAMPLES, THROTTLE, UNTHROTTLE counts (errors go out as events, in order).
    pub diag: LoadDiagnostics,
    features_read: bool,
    /// A sample the fast path does not cover was met: nothing more is read.
    pub stopped: bool,
}

impl Reader {
    /// The next item of the walk: a record is read, an error queued in its place.
    pub fn item(&mut self, meta: &Metadata, item: Item<'_, '_>, batch: &mut Batch) {
        match item {
            Item::Record(rec) => self.read(meta, rec, batch),
            Item::Error(e) => batch.events.push(Event::Error(*e)),
        }
    }

    /// The next record of the input, in file order.
    pub fn read(&mut self, meta: &Metadata, rec: &RawRecord<'_>, batch: &mut Batch) {
        if self.stopped {
            return;
        }
        if !self.features_read {
            self.features_read = true;
            match meta.feature(HeaderFeature::BUILD_ID).map(parse_build_ids) {
                Some(Err(e)) => batch.events.push(Event::Error(e)),
                Some(Ok(list)) => {
                    for e in list {
                        let side = Side::BuildId {
                            filename: lossy(e.filename.0),
                            build_id: e.build_id.to_vec(),
                        };
                        batch.events.push(Event::Side { time: None, side });
                    }
                }
                None => {}
            }
        }
        match rec.type_() {
            RecordType::FINISHED_ROUND => return batch.events.push(Event::Round),
            RecordType::HEADER_BUILD_ID => {
                match parse_build_id_record(rec.header.misc, rec.body_bytes()) {
                    Ok(e) => {
                        let side = Side::BuildId {
                            filename: lossy(e.filename.0),
                            build_id: e.build_id.to_vec(),
                        };
                        batch.events.push(Event::Side { time: None, side });
                    }
                    Err(e) => batch.events.push(Event::Error(e)),
                }
                return;
            }
            t if crate::load::is_used(t) => {}
            _ => return,
        }
        if rec.type_() == RecordType::SAMPLE {
            // Only the fields a line takes are decoded (the others are checked, with the
            // errors of the whole decode).
            return match meta.sample_brief(rec) {
                Ok(s) => {
                    let time = s.time.filter(|&t| t != 0 && t != u64::MAX);
                    self.sample(meta, &s, time, batch)
                }
                Err(e) => batch.events.push(Event::Error(e)),
            };
        }
        let mut record = Record::FinishedRound;
        if let Err(e) = meta.parse_into(rec, &mut record) {
            return batch.events.push(Event::Error(e));
        }
        let time = meta
            .events
            .record_time(rec)
            .filter(|&t| t != 0 && t != u64::MAX);
        let side = match record {
            Record::Mmap(m) => Side::Mmap {
                pid: m.pid,
                start: m.start,
                len: m.len,
                pgoff: m.pgoff,
                filename: lossy(m.filename.0),
                build_id: None,
            },
            Record::Mmap2(m) => Side::Mmap {
                pid: m.pid,
                start: m.start,
                len: m.len,
                pgoff: m.pgoff,
                filename: lossy(m.filename.0),
                build_id: match m.file_id {
                    Mmap2FileId::BuildId(id) => Some(id.to_vec()),
                    _ => None,
                },
            },
            Record::Comm(c) => Side::Comm {
                pid: c.pid,
                tid: c.tid,
                name: lossy(c.comm.0),
            },
            Record::Fork(f) => Side::Fork {
                ppid: f.ppid,
                ptid: f.ptid,
                pid: f.pid,
                tid: f.tid,
            },
            Record::Ksymbol(k) if !k.is_unregister() => Side::Ksymbol {
                addr: k.addr,
                len: u64::from(k.len),
                name: lossy(k.name.0),
            },
            Record::Lost(l) => {
                self.diag.lost_records += 1;
                self.diag.lost_events = self.diag.lost_events.saturating_add(l.lost);
                return;
            }
            Record::LostSamples(l) => {
                self.diag.lost_samples = self.diag.lost_samples.saturating_add(l.lost);
                return;
            }
            Record::Throttle(_) => {
                self.diag.throttles += 1;
                return;
            }
            Record::Unthrottle(_) => {
                self.diag.unthrottles += 1;
                return;
            }
            _ => return,
        };
        batch.events.push(Event::Side { time, side });
    }

    fn sample(
        &mut self,
        meta: &Metadata,
        s: &SampleBrief<'_>,
        time: Option<u64>,
        batch: &mut Batch,
    ) {
        let st = meta.events.attr(s.event).map_or(0, |a| a.sample_type);
        let unsupported = if st & sample_type::READ != 0 {
            Some(Unsupported::ReadValues)
        } else if st & (sample_type::REGS_USER | sample_type::STACK_USER)
            == sample_type::REGS_USER | sample_type::STACK_USER
        {
            Some(Unsupported::DwarfStacks)
        } else {
            None
        };
        if let Some(u) = unsupported {
            self.stopped = true;
            return batch.events.push(Event::Unsupported(u));
        }
        let ips = s.callchain.as_ref().map(|c| c.ips());
        let has_chain = ips.is_some_and(|ips| !ips.is_empty());
        let flags = if kernel_ip(s.misc) { KERNEL_IP } else { 0 }
            | if has_chain { HAS_CALLCHAIN } else { 0 };
        let pid_tid =
            u64::from(s.pid.unwrap_or(u32::MAX)) | u64::from(s.tid.unwrap_or(u32::MAX)) << 32;
        let n = ips.map_or(0, |ips| ips.len());
        let start = batch.words.len();
        batch
            .words
            .extend_from_slice(&[pid_tid, flags, s.ip.unwrap_or(0), n as u64]);
        if let Some(ips) = ips {
            ips.append_to(&mut batch.words);
        }
        batch.events.push(Event::Sample {
            time,
            start,
            end: batch.words.len(),
        });
    }
}
