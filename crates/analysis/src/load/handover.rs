//! The records pass in two halves, for two threads or workers on two cores: a
//! [`DeliveryWriter`] takes the records in file order, puts them in time order and decodes the
//! samples; the [`ProfileLoader`] it was made from takes what it wrote, in delivery order, with
//! [`ProfileLoader::take_deliveries`], and builds the profile from it as if it had been pushed
//! the records itself.
//!
//! The first half frames and decodes the records, keeps the time-order queue and works out
//! each sample's deliveries ([`SampleDelivery`]); the second keeps the threads, maps and stacks
//! and appends the samples. Natively on a 300 MB recording the first took 0.58–0.85 s and the
//! second 0.90–1.14 s, against 1.3 s for one loader (BENCHMARKS.md, session 34).
//!
//! For a file, whose metadata is known from its header: a pipe stream's grows with its
//! records, and the two halves would see it at different points. What goes between them is a
//! list of operations in one byte buffer (little-endian numbers), so that a worker can hand
//! it to another as one transfer:
//!
//! - a record seen in file order (a build id, an event's name or the trace data): its raw
//!   record, for what the loader takes from it before any record is delivered;
//! - a record delivered: its raw record (every record but a sample, and a sample that could
//!   not be decoded, which the loader decodes again and counts as an error);
//! - a sample delivered with its raw record and deliveries, when the loader needs more of it
//!   than its stack (a DWARF-mode stack to unwind, a tracepoint's sample when the timeline
//!   takes samples: a sched_switch's fields, a shared stack);
//! - otherwise a sample as its deliveries, pid, tid, time, CPU and its stack's entries: the
//!   callchain (or the ip) as the builder's addresses and their kinds, root first
//!   ([`crate::builder::plain_entries`]; made here, on the less busy of the two workers),
//!   which is all the timeline takes of it too;
//! - the end, with the queue's figures for the diagnostics.
//!
//! A test loads the test files and the corpus's files both ways and compares the profiles,
//! timelines and diagnostics (`tests/handover.rs`).

use perfscope_format::constants::{attr_type, RecordType};
use perfscope_format::layout::EventIndex as AttrIndex;
use perfscope_format::metadata::Metadata;
use perfscope_format::records::{RawRecord, Record, RecordHeader};

use super::record_queue::RecordQueue;
use super::{cpu_mode, route, LoaderState, ProfileLoader, Route, StackShare, TimelineFeed};
use crate::builder::chain::ChainEntry;
use crate::builder::{plain_entries, CpuMode, SampleInput};
use crate::delivery::SampleDelivery;
use crate::ids::{CapacityError, StackIndex};
use crate::timeline::TimelineSample;

/// A record in file order: its raw record.
const FILE_ORDER: u8 = 1;
/// A record delivered: its raw record.
const DELIVER: u8 = 2;
/// A sample delivered: its raw record and deliveries.
const SAMPLE_RECORD: u8 = 3;
/// A sample delivered: its deliveries and the fields the profile takes.
const SAMPLE: u8 = 4;
/// The end: the queue's figures.
const END: u8 = 5;

/// Bits of a compact sample's flags: which of pid, tid, time and CPU the record had.
const HAS_PID: u8 = 1;
const HAS_TID: u8 = 2;
const HAS_TIME: u8 = 4;
const HAS_CPU: u8 = 8;

/// The first half of the records pass (see the module docs): pushed the records in file order
/// as a [`ProfileLoader`] would be, it writes what that loader is to take.
pub struct DeliveryWriter {
    queue: RecordQueue,
    /// Records pushed so far.
    pushed: u64,
    copied_records: u64,
    max_queued: usize,
    state: WriterState,
}

/// Everything but the queue (borrowed apart from it while it releases records).
struct WriterState {
    delivery: SampleDelivery,
    /// What the loader does with samples, for which ones it needs whole.
    timeline: bool,
    timeline_feed: TimelineFeed,
    unwind: bool,
    share: StackShare,
    /// One sample's deliveries.
    deliveries: Vec<(AttrIndex, u64)>,
    /// One sample's callchain, when its words must be turned first (big-endian)...
    words: Vec<u64>,
    /// ...and its stack's entries.
    entries: Vec<ChainEntry>,
}

/// What [`ProfileLoader::take_deliveries`] could not read: the buffer was not written by a
/// [`DeliveryWriter`] (or was cut); the byte where it stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BadDeliveries {
    /// The offset in the buffer of the operation it could not read.
    pub at: usize,
}

impl std::fmt::Display for BadDeliveries {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the delivered records are cut or garbled at byte {}",
            self.at
        )
    }
}

impl std::error::Error for BadDeliveries {}

impl ProfileLoader {
    /// The first half of the pass for this loader (see the module docs): what it writes goes
    /// to [`ProfileLoader::take_deliveries`], and nothing may be pushed here. Call once this
    /// loader is set up ([`ProfileLoader::share_stacks`] and the timeline's settings).
    pub fn delivery_writer(&self) -> DeliveryWriter {
        let state = &self.state;
        DeliveryWriter {
            queue: RecordQueue::new(),
            pushed: 0,
            copied_records: 0,
            max_queued: 0,
            state: WriterState {
                delivery: SampleDelivery::new(),
                timeline: state.timeline.is_some(),
                timeline_feed: TimelineFeed {
                    switches_only: state.timeline_feed.switches_only,
                    ..TimelineFeed::default()
                },
                unwind: state.unwind,
                share: state.share,
                deliveries: Vec::new(),
                words: Vec::new(),
                entries: Vec::new(),
            },
        }
    }

    /// Takes what this loader's [`DeliveryWriter`] wrote (whole operations: a buffer it
    /// filled between two of its calls, or several in order). Fails on a buffer it did not
    /// write, having taken the operations before the bad one.
    pub fn take_deliveries(&mut self, meta: &Metadata, ops: &[u8]) -> Result<(), BadDeliveries> {
        let state = &mut self.state;
        if !state.features_read {
            state.read_build_id_feature(meta);
            state.features_read = true;
        }
        let mut r = Reader { b: ops, at: 0 };
        while r.at < ops.len() {
            let start = r.at;
            let bad = BadDeliveries { at: start };
            let tag = r.u8().ok_or(bad)?;
            match tag {
                FILE_ORDER => {
                    let (rec, _) = r.raw(meta).ok_or(bad)?;
                    state.file_order(meta, &rec);
                }
                DELIVER => {
                    let (rec, seq) = r.raw(meta).ok_or(bad)?;
                    state.deliver(meta, &rec, seq);
                }
                SAMPLE_RECORD => {
                    let (rec, seq) = r.raw(meta).ok_or(bad)?;
                    let deliveries = r.deliveries().ok_or(bad)?;
                    state.sample_record(meta, &rec, seq, deliveries);
                }
                SAMPLE => {
                    let s = r.compact().ok_or(bad)?;
                    if let Err(e) = state.compact_sample(meta, &s) {
                        state.capacity_error.get_or_insert(e);
                    }
                }
                END => {
                    let mut v = [0u64; 5];
                    for x in &mut v {
                        *x = r.u64().ok_or(bad)?;
                    }
                    let [copied, max_queued, late, held, allocated] = v;
                    state.diag.copied_records = copied;
                    state.diag.max_queued = usize::try_from(max_queued).unwrap_or(usize::MAX);
                    self.handed_queue = Some((
                        late,
                        usize::try_from(held).unwrap_or(usize::MAX),
                        usize::try_from(allocated).unwrap_or(usize::MAX),
                    ));
                }
                _ => return Err(bad),
            }
        }
        Ok(())
    }
}

impl LoaderState {
    /// What the loader takes from a record as it comes in file order (before any record is
    /// delivered; see [`ProfileLoader::push_timed`]).
    fn file_order(&mut self, meta: &Metadata, rec: &RawRecord<'_>) {
        if let Some(tl) = self.timeline.as_mut() {
            tl.file_order(meta, rec);
        }
        self.file_order_record(rec);
    }

    /// A build id or an event's name (or trace data) as it comes in file order
    /// ([`Route::FileOrder`]).
    pub(super) fn file_order_record(&mut self, rec: &RawRecord<'_>) {
        if rec.type_() == RecordType::HEADER_BUILD_ID {
            self.header_build_id(rec);
        } else {
            self.names.observe(rec);
        }
    }

    /// A sample the writer decoded, delivered with the deliveries it worked out.
    fn sample_record(
        &mut self,
        meta: &Metadata,
        rec: &RawRecord<'_>,
        seq: u64,
        deliveries: Deliveries<'_>,
    ) {
        let mut record = Record::FinishedRound;
        if let Err(e) = meta.parse_into(rec, &mut record) {
            self.diag.sample_errors.push((seq, e));
            return self.diag.errors.push(e);
        }
        let Record::Sample(s) = &record else {
            return;
        };
        let list: Vec<(AttrIndex, u64)> = deliveries.collect();
        if let Err(e) = self.sample_delivered(meta, s, rec.offset, &list) {
            self.capacity_error.get_or_insert(e);
        }
    }

    /// A sample as its deliveries and the fields its profile samples take.
    fn compact_sample(&mut self, meta: &Metadata, s: &Compact<'_>) -> Result<(), CapacityError> {
        if !self.inline_decided {
            self.decide_inline(meta);
        }
        // As `sample_delivered` feeds the timeline (a compact sample is no tracepoint's: no
        // sched_switch).
        let to_timeline = self.timeline_takes_samples(meta);
        for (attr, period) in s.deliveries.clone() {
            self.diag.samples += 1;
            if !self.keeps(meta, (s.pid, s.tid, s.time), attr) {
                if to_timeline {
                    self.compact_timeline_sample(s, None);
                }
                continue;
            }
            self.diag.kept_samples += 1;
            let event = self.event(meta, attr)?;
            let input = SampleInput {
                pid: s.pid.unwrap_or(u32::MAX),
                tid: s.tid.unwrap_or(u32::MAX),
                time: s.time.unwrap_or(0),
                cpu: s.cpu.unwrap_or(u32::MAX),
                event,
                period,
                // (Unread: the stack is the entries.)
                ip: 0,
                ip_mode: CpuMode::User,
                callchain: &[],
            };
            self.builder.sample_filled(&input, |out, bits| {
                out.reserve(s.kinds.len());
                for (a, &kind) in s.addrs.chunks_exact(8).zip(s.kinds) {
                    out.push(ChainEntry {
                        addr: u64::from_le_bytes(a.try_into().unwrap_or([0; 8])),
                        kind: kind | bits,
                    });
                }
            })?;
            if to_timeline {
                let stack = self.last_sample_stack();
                self.compact_timeline_sample(s, stack);
            }
        }
        Ok(())
    }

    /// One delivery of a compact sample to the timeline, with the stack the profile gave it.
    fn compact_timeline_sample(&mut self, s: &Compact<'_>, stack: Option<StackIndex>) {
        if let Some(tl) = self.timeline.as_mut() {
            tl.plain_sample(&TimelineSample {
                time: s.time,
                pid: s.pid.unwrap_or(u32::MAX),
                tid: s.tid.unwrap_or(u32::MAX),
                cpu: s.cpu,
                stack,
                is_sched_switch: false,
            });
        }
    }
}

impl DeliveryWriter {
    /// The next record of the input, in file order (as [`ProfileLoader::push`]); what the
    /// loader is to take of it and of the records it releases goes to the end of `out`.
    pub fn push(&mut self, meta: &Metadata, rec: &RawRecord<'_>, out: &mut Vec<u8>) {
        self.push_timed(meta, rec, None, out);
    }

    /// [`DeliveryWriter::push`] of a record whose time the caller decoded already (as
    /// [`ProfileLoader::push_timed`]).
    pub fn push_timed(
        &mut self,
        meta: &Metadata,
        rec: &RawRecord<'_>,
        known: Option<Option<u64>>,
        out: &mut Vec<u8>,
    ) {
        let record_time = || known.unwrap_or_else(|| meta.events.record_time(rec));
        let seq = self.pushed;
        self.pushed += 1;
        let state = &mut self.state;
        match route(rec, state.timeline, state.share, record_time) {
            Route::RoundEnd => self
                .queue
                .finished_round(meta.endian, |r, seq| state.deliver(meta, r, seq, out)),
            Route::FileOrder => write_raw(out, FILE_ORDER, rec, seq),
            Route::Unused => {}
            Route::NoteTime(time) => self.queue.note_time(time),
            Route::Queue(time) => {
                self.queue.push(time, rec, seq);
                self.copied_records += 1;
                self.max_queued = self.max_queued.max(self.queue.len());
            }
            Route::Now => state.deliver(meta, rec, seq, out),
        }
    }

    /// The end of the input: the records still queued, and the queue's figures.
    pub fn finish(&mut self, meta: &Metadata, out: &mut Vec<u8>) {
        let state = &mut self.state;
        let queue = &mut self.queue;
        queue.finish(meta.endian, |r, seq| state.deliver(meta, r, seq, out));
        out.push(END);
        for v in [
            self.copied_records,
            self.max_queued as u64,
            queue.late(),
            queue.max_held as u64,
            queue.max_allocated as u64,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
}

impl WriterState {
    /// Whether the loader feeds samples to its timeline (as
    /// `LoaderState::timeline_takes_samples` decides, or sooner).
    fn timeline_takes_samples(&mut self, meta: &Metadata) -> bool {
        self.timeline_feed.takes(self.timeline, meta)
    }

    /// Record number `seq` delivered.
    fn deliver(&mut self, meta: &Metadata, rec: &RawRecord<'_>, seq: u64, out: &mut Vec<u8>) {
        let t = rec.type_();
        if t != RecordType::SAMPLE {
            if matches!(t, RecordType::SWITCH | RecordType::SWITCH_CPU_WIDE) {
                self.timeline_feed.switched = true;
            }
            return write_raw(out, DELIVER, rec, seq);
        }
        // Only the fields the loader takes of a compact sample are decoded (the others are
        // checked): a whole `SampleRecord` is ~0.5 kB to fill for ~8 fields.
        let Ok(s) = meta.sample_brief(rec) else {
            // Decoded again by the loader, which counts the error.
            return write_raw(out, DELIVER, rec, seq);
        };
        let mut deliveries = std::mem::take(&mut self.deliveries);
        deliveries.clear();
        self.delivery
            .deliver_fields(&meta.events, s.event, s.period, s.read, |e, period| {
                deliveries.push((e, period))
            });
        // The timeline takes a compact sample's fields, but a sched_switch's (a tracepoint's)
        // from its record.
        let whole = self.share != StackShare::All
            || (self.unwind && s.user_regs_and_stack)
            || (self.timeline_takes_samples(meta) && is_tracepoint(meta, s.event));
        if whole {
            write_raw(out, SAMPLE_RECORD, rec, seq);
            write_deliveries(out, &deliveries);
        } else {
            let ip = s.ip.unwrap_or(0);
            let mode = cpu_mode(s.misc);
            let ips = s.callchain.as_ref().map(|c| c.ips());
            match ips {
                // Read from the record's bytes, not copied first.
                Some(ips) if ips.endian() == perfscope_format::Endianness::Little => {
                    let words = ips.as_bytes().chunks_exact(8);
                    let words = words.map(|w| u64::from_le_bytes(w.try_into().unwrap_or([0; 8])));
                    plain_entries(words, ip, mode, &mut self.entries);
                }
                _ => {
                    self.words.clear();
                    self.words.extend(ips.iter().flat_map(|w| w.iter()));
                    plain_entries(self.words.iter().copied(), ip, mode, &mut self.entries);
                }
            }
            let n = self.entries.len();
            let mut flags = 0;
            for (has, bit) in [
                (s.pid.is_some(), HAS_PID),
                (s.tid.is_some(), HAS_TID),
                (s.time.is_some(), HAS_TIME),
                (s.cpu.is_some(), HAS_CPU),
            ] {
                if has {
                    flags |= bit;
                }
            }
            // The fixed part (as `Reader` takes it) in one copy.
            let mut head = [0u8; 22];
            head[0] = SAMPLE;
            head[1] = flags;
            head[2..6].copy_from_slice(&s.pid.unwrap_or(0).to_le_bytes());
            head[6..10].copy_from_slice(&s.tid.unwrap_or(0).to_le_bytes());
            head[10..14].copy_from_slice(&s.cpu.unwrap_or(u32::MAX).to_le_bytes());
            head[14..22].copy_from_slice(&s.time.unwrap_or(0).to_le_bytes());
            out.reserve(head.len() + 8 + deliveries.len() * 12 + n * 9);
            out.extend_from_slice(&head);
            write_deliveries(out, &deliveries);
            // The entries' addresses, then their kinds.
            out.extend_from_slice(&(n as u32).to_le_bytes());
            for e in &self.entries {
                out.extend_from_slice(&e.addr.to_le_bytes());
            }
            for e in &self.entries {
                out.push(e.kind);
            }
        }
        self.deliveries = deliveries;
    }
}

/// Whether `event` is a tracepoint (a `sched:sched_switch` among others).
fn is_tracepoint(meta: &Metadata, event: AttrIndex) -> bool {
    meta.events
        .attr(event)
        .is_some_and(|a| a.type_ == attr_type::TRACEPOINT)
}

/// Writes an operation carrying record number `seq` whole.
fn write_raw(out: &mut Vec<u8>, tag: u8, rec: &RawRecord<'_>, seq: u64) {
    out.reserve(48 + rec.body.len() + rec.payload.len());
    out.push(tag);
    out.extend_from_slice(&seq.to_le_bytes());
    out.extend_from_slice(&rec.offset.to_le_bytes());
    out.extend_from_slice(&rec.inner_offset.unwrap_or(u64::MAX).to_le_bytes());
    out.extend_from_slice(&rec.header.type_.0.to_le_bytes());
    out.extend_from_slice(&rec.header.misc.to_le_bytes());
    out.extend_from_slice(&rec.header.size.to_le_bytes());
    out.extend_from_slice(&(rec.body.len() as u32).to_le_bytes());
    out.extend_from_slice(&(rec.payload.len() as u32).to_le_bytes());
    out.extend_from_slice(rec.body);
    out.extend_from_slice(rec.payload);
}

fn write_deliveries(out: &mut Vec<u8>, deliveries: &[(AttrIndex, u64)]) {
    out.extend_from_slice(&(deliveries.len() as u32).to_le_bytes());
    for (attr, period) in deliveries {
        out.extend_from_slice(&attr.0.to_le_bytes());
        out.extend_from_slice(&period.to_le_bytes());
    }
}

/// A sample's deliveries as written: (attr, period) pairs.
#[derive(Clone)]
struct Deliveries<'a>(std::slice::ChunksExact<'a, u8>);

impl Iterator for Deliveries<'_> {
    type Item = (AttrIndex, u64);
    fn next(&mut self) -> Option<(AttrIndex, u64)> {
        let c = self.0.next()?;
        let attr = u32::from_le_bytes(c.get(..4)?.try_into().ok()?);
        let period = u64::from_le_bytes(c.get(4..12)?.try_into().ok()?);
        Some((AttrIndex(attr), period))
    }
}

/// A compact sample as written.
struct Compact<'a> {
    pid: Option<u32>,
    tid: Option<u32>,
    time: Option<u64>,
    cpu: Option<u32>,
    deliveries: Deliveries<'a>,
    /// Its stack's entries' addresses, 8 bytes each, root first...
    addrs: &'a [u8],
    /// ...and their kinds.
    kinds: &'a [u8],
}

/// Reads the operations back.
struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let s = self.b.get(self.at..end)?;
        self.at = end;
        Some(s)
    }

    fn u8(&mut self) -> Option<u8> {
        self.take(1)?.first().copied()
    }

    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes(self.take(2)?.try_into().ok()?))
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    /// A raw record and its number.
    fn raw(&mut self, meta: &Metadata) -> Option<(RawRecord<'a>, u64)> {
        let seq = self.u64()?;
        let offset = self.u64()?;
        let inner = self.u64()?;
        let type_ = RecordType(self.u32()?);
        let misc = self.u16()?;
        let size = self.u16()?;
        let body_len = self.u32()? as usize;
        let payload_len = self.u32()? as usize;
        let body = self.take(body_len)?;
        let payload = self.take(payload_len)?;
        let rec = RawRecord {
            offset,
            inner_offset: (inner != u64::MAX).then_some(inner),
            endian: meta.endian,
            header: RecordHeader { type_, misc, size },
            body,
            payload,
        };
        Some((rec, seq))
    }

    fn deliveries(&mut self) -> Option<Deliveries<'a>> {
        let n = self.u32()? as usize;
        self.deliveries_of(n)
    }

    /// `n` deliveries (their count read already).
    fn deliveries_of(&mut self, n: usize) -> Option<Deliveries<'a>> {
        Some(Deliveries(self.take(n.checked_mul(12)?)?.chunks_exact(12)))
    }

    fn compact(&mut self) -> Option<Compact<'a>> {
        // The fixed part in one read (flags, pid, tid, CPU, time, the deliveries' count): the
        // fields' places are constants in an array of known size, so none is checked again.
        let head: &[u8; 25] = self.take(25)?.try_into().ok()?;
        let u32_at = |i: usize| Some(u32::from_le_bytes(head.get(i..i + 4)?.try_into().ok()?));
        let [flags, ..] = *head;
        let pid = u32_at(1)?;
        let tid = u32_at(5)?;
        let cpu = u32_at(9)?;
        let time = u64::from_le_bytes(head.get(13..21)?.try_into().ok()?);
        let deliveries = self.deliveries_of(u32_at(21)? as usize)?;
        let n = self.u32()? as usize;
        let addrs = self.take(n.checked_mul(8)?)?;
        let kinds = self.take(n)?;
        Some(Compact {
            pid: (flags & HAS_PID != 0).then_some(pid),
            tid: (flags & HAS_TID != 0).then_some(tid),
            time: (flags & HAS_TIME != 0).then_some(time),
            cpu: (flags & HAS_CPU != 0).then_some(cpu),
            deliveries,
            addrs,
            kinds,
        })
    }
}
