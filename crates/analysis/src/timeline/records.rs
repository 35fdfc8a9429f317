//! [`RecordFeeder`]: perf records, delivered in time order, fed to a [`TimelineBuilder`].

use perfscope_format::bytes::Bytes;
use perfscope_format::constants::attr_type;
use perfscope_format::metadata::Metadata;
use perfscope_format::records::SampleRecord;
use perfscope_format::{Endianness, HeaderFeature, Record};

use super::builder::{SchedSwitch, SwitchEvent, TimelineBuilder, TimelineSample};
use super::{Marker, MarkerKind};
use crate::ids::StackIndex;
use crate::tracepoint::{Field, FieldValue, TraceData};

/// Where the fields of `sched:sched_switch` a timeline needs are, from its format.
#[derive(Clone, Debug, PartialEq)]
pub struct SchedSwitchFormat {
    /// The tracepoint id (`attr.config` of the sched_switch event).
    pub id: u64,
    prev_pid: Field,
    prev_state: Field,
    next_pid: Field,
    prev_comm: Option<Field>,
    next_comm: Option<Field>,
    endian: Endianness,
}

/// The decoded fields of one sched_switch payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SchedSwitchFields<'a> {
    /// `prev_pid` (a tid; -1 becomes `u32::MAX`).
    pub prev_pid: u32,
    /// `prev_state`, as a 64-bit value.
    pub prev_state: u64,
    /// `next_pid`.
    pub next_pid: u32,
    /// `prev_comm` bytes up to the NUL.
    pub prev_comm: &'a [u8],
    /// `next_comm` bytes up to the NUL.
    pub next_comm: &'a [u8],
}

fn number(v: FieldValue<'_>) -> Option<u64> {
    match v {
        FieldValue::Signed(v) => Some(v as u64),
        FieldValue::Unsigned(v) | FieldValue::Pointer(v) => Some(v),
        _ => None,
    }
}

impl SchedSwitchFormat {
    /// The `sched:sched_switch` format of the tracing data, if it has one with the fields
    /// `prev_pid`, `prev_state` and `next_pid`.
    pub fn from_trace(trace: &TraceData) -> Option<SchedSwitchFormat> {
        let e = trace
            .events
            .iter()
            .find(|e| e.system == "sched" && e.name == "sched_switch")?;
        Some(SchedSwitchFormat {
            id: e.id?,
            prev_pid: e.field("prev_pid")?.clone(),
            prev_state: e.field("prev_state")?.clone(),
            next_pid: e.field("next_pid")?.clone(),
            prev_comm: e.field("prev_comm").cloned(),
            next_comm: e.field("next_comm").cloned(),
            endian: e.endian,
        })
    }

    /// Decodes a payload; `None` when it is too short for the pid and state fields.
    pub fn decode<'a>(&self, raw: &'a [u8]) -> Option<SchedSwitchFields<'a>> {
        let comm = |f: &Option<Field>| match f.as_ref().and_then(|f| f.value(raw, self.endian)) {
            Some(FieldValue::Str(s)) => s,
            _ => &[],
        };
        Some(SchedSwitchFields {
            // pid_t is 32 bits: -1 keeps its low 32 bits.
            prev_pid: number(self.prev_pid.value(raw, self.endian)?)? as u32,
            prev_state: number(self.prev_state.value(raw, self.endian)?)?,
            next_pid: number(self.next_pid.value(raw, self.endian)?)? as u32,
            prev_comm: comm(&self.prev_comm),
            next_comm: comm(&self.next_comm),
        })
    }
}

/// Turns decoded perf records into [`TimelineBuilder`] events. Feed it every record in the order
/// perf delivers them (time order, untimed records at once), samples once per delivery.
#[derive(Clone, Debug, Default)]
pub struct RecordFeeder {
    sched_switch: Option<SchedSwitchFormat>,
}

impl RecordFeeder {
    /// A feeder for a file whose header features are in `meta` (the sched_switch format comes
    /// from its HEADER_TRACING_DATA, when present).
    pub fn new(meta: &Metadata) -> Self {
        let trace = meta
            .feature(HeaderFeature::TRACING_DATA)
            .map(TraceData::parse);
        RecordFeeder {
            sched_switch: trace.as_ref().and_then(SchedSwitchFormat::from_trace),
        }
    }

    /// Uses the tracing data of a pipe-mode HEADER_TRACING_DATA record.
    pub fn set_trace(&mut self, trace: &TraceData) {
        if let Some(f) = SchedSwitchFormat::from_trace(trace) {
            self.sched_switch = Some(f);
        }
    }

    /// Parses and uses the payload of a pipe-mode HEADER_TRACING_DATA record.
    pub fn tracing_data(&mut self, bytes: Bytes<'_>) {
        self.set_trace(&TraceData::parse(bytes));
    }

    /// The sched_switch format in use.
    pub fn sched_switch_format(&self) -> Option<&SchedSwitchFormat> {
        self.sched_switch.as_ref()
    }

    /// Whether samples of `event` are sched_switch tracepoints.
    pub fn is_sched_switch(&self, meta: &Metadata, s: &SampleRecord<'_>) -> bool {
        let Some(f) = &self.sched_switch else {
            return false;
        };
        meta.events
            .attr(s.event)
            .is_some_and(|a| a.type_ == attr_type::TRACEPOINT && a.config == f.id)
    }

    /// One delivery of a sample; `stack` is its stack in the profile being built, if any.
    pub fn sample(
        &self,
        b: &mut TimelineBuilder,
        meta: &Metadata,
        s: &SampleRecord<'_>,
        stack: Option<StackIndex>,
    ) {
        let is_switch = self.is_sched_switch(meta, s);
        b.on_sample(&TimelineSample {
            time: s.time,
            pid: s.pid.unwrap_or(u32::MAX),
            tid: s.tid.unwrap_or(u32::MAX),
            cpu: s.cpu,
            stack,
            is_sched_switch: is_switch,
        });
        if !is_switch {
            return;
        }
        let (Some(f), Some(raw), Some(time)) = (&self.sched_switch, s.raw, s.time) else {
            return;
        };
        let Some(d) = f.decode(raw) else { return };
        let (prev_comm, next_comm) = (
            String::from_utf8_lossy(d.prev_comm),
            String::from_utf8_lossy(d.next_comm),
        );
        b.on_sched_switch(&SchedSwitch {
            time,
            cpu: s.cpu,
            prev_tid: d.prev_pid,
            prev_state: d.prev_state,
            prev_comm: &prev_comm,
            next_tid: d.next_pid,
            next_comm: &next_comm,
            has_callchain: s.callchain.is_some_and(|c| c.items().next().is_some()),
            stack,
        });
    }

    /// Any record but a sample (samples go through [`RecordFeeder::sample`], once per
    /// delivery): COMM, FORK, EXIT, SWITCH, SWITCH_CPU_WIDE, LOST, LOST_SAMPLES, THROTTLE and
    /// UNTHROTTLE are used, the rest ignored.
    pub fn record(&self, b: &mut TimelineBuilder, rec: &Record<'_>) {
        match rec {
            Record::Comm(c) => b.on_comm(
                c.sample_id.time,
                c.pid,
                c.tid,
                &String::from_utf8_lossy(c.comm.0),
                c.is_exec(),
            ),
            Record::Fork(f) => b.on_fork(f.time, f.pid, f.ppid, f.tid, f.ptid),
            Record::Exit(f) => b.on_exit(f.time, f.pid, f.ppid, f.tid, f.ptid),
            Record::Switch(s) | Record::SwitchCpuWide(s) => {
                let id = &s.sample_id;
                let (Some(time), Some(pid), Some(tid)) = (id.time, id.pid, id.tid) else {
                    return;
                };
                b.on_switch(&SwitchEvent {
                    time,
                    pid,
                    tid,
                    cpu: id.cpu,
                    out: s.is_out(),
                    preempt: s.is_preempt(),
                    cpu_wide: matches!(rec, Record::SwitchCpuWide(_)),
                });
            }
            Record::Lost(l) => b.on_marker(Marker {
                time: l.sample_id.time,
                cpu: l.sample_id.cpu,
                kind: MarkerKind::Lost {
                    id: l.id,
                    lost: l.lost,
                },
            }),
            Record::LostSamples(l) => b.on_marker(Marker {
                time: l.sample_id.time,
                cpu: l.sample_id.cpu,
                kind: MarkerKind::LostSamples { lost: l.lost },
            }),
            Record::Throttle(t) => b.on_marker(Marker {
                time: Some(t.time),
                cpu: t.sample_id.cpu,
                kind: MarkerKind::Throttle { id: t.id },
            }),
            Record::Unthrottle(t) => b.on_marker(Marker {
                time: Some(t.time),
                cpu: t.sample_id.cpu,
                kind: MarkerKind::Unthrottle { id: t.id },
            }),
            _ => {}
        }
    }
}

/// A [`TimelineBuilder`] and its [`RecordFeeder`], the way a loader drives them: started at
/// the first record (the file's tracing data), then fed every delivered record.
#[derive(Default)]
pub struct TimelineRecorder {
    builder: TimelineBuilder,
    feeder: Option<RecordFeeder>,
}

impl TimelineRecorder {
    /// A recorder that has seen nothing.
    pub fn new() -> Self {
        Self::default()
    }

    /// A recorder that keeps no sample times ([`TimelineBuilder::without_sample_times`]).
    pub fn without_sample_times() -> Self {
        TimelineRecorder {
            builder: TimelineBuilder::new().without_sample_times(),
            feeder: None,
        }
    }

    fn feeder(&mut self, meta: &Metadata) -> &mut RecordFeeder {
        self.feeder.get_or_insert_with(|| RecordFeeder::new(meta))
    }

    /// A record in file order, before it is queued: picks up the sched_switch format from the
    /// file's header (at the first record) or from a pipe-mode HEADER_TRACING_DATA record.
    pub fn file_order(&mut self, meta: &Metadata, raw: &perfscope_format::RawRecord<'_>) {
        let f = self.feeder(meta);
        if raw.type_() == perfscope_format::RecordType::HEADER_TRACING_DATA {
            if let Ok(Record::TracingData(t)) = meta.parse(raw) {
                f.tracing_data(Bytes::new(t.data, raw.offset, meta.endian));
            }
        }
    }

    /// A delivered record other than a sample.
    pub fn record(&mut self, meta: &Metadata, rec: &Record<'_>) {
        let Self { builder, feeder } = self;
        feeder
            .get_or_insert_with(|| RecordFeeder::new(meta))
            .record(builder, rec);
    }

    /// One delivery of a sample that is not a tracepoint's (so no sched_switch), by the fields
    /// the timeline takes of it: what [`TimelineRecorder::sample`] does with its record.
    pub fn plain_sample(&mut self, sample: &TimelineSample) {
        self.builder.on_sample(sample);
    }

    /// One delivery of a sample, with its stack in the profile (if it was kept).
    pub fn sample(&mut self, meta: &Metadata, s: &SampleRecord<'_>, stack: Option<StackIndex>) {
        let Self { builder, feeder } = self;
        feeder
            .get_or_insert_with(|| RecordFeeder::new(meta))
            .sample(builder, meta, s, stack);
    }

    /// The timeline.
    pub fn finish(self) -> super::Timeline {
        self.builder.build()
    }
}
