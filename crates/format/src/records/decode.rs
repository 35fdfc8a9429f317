//! [`Record`]: every record type decoded, and [`parse_record`], the one entry point.

use super::*;
use crate::bytes::Bytes;
use crate::constants::RecordType;
use crate::error::{Error, ErrorKind, Result};
use crate::layout::{EventIndex, EventLayout, EventTable};

/// A decoded record. Kernel records carry their `sample_id` trailer; types this crate does not
/// know are returned raw.
// Samples are most records: boxing them would allocate per sample.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Record<'a> {
    /// PERF_RECORD_SAMPLE.
    Sample(SampleRecord<'a>),
    /// PERF_RECORD_MMAP.
    Mmap(MmapRecord<'a>),
    /// PERF_RECORD_LOST.
    Lost(LostRecord),
    /// PERF_RECORD_COMM.
    Comm(CommRecord<'a>),
    /// PERF_RECORD_EXIT.
    Exit(ForkRecord),
    /// PERF_RECORD_THROTTLE.
    Throttle(ThrottleRecord),
    /// PERF_RECORD_UNTHROTTLE.
    Unthrottle(ThrottleRecord),
    /// PERF_RECORD_FORK.
    Fork(ForkRecord),
    /// PERF_RECORD_READ.
    Read(ReadRecord<'a>),
    /// PERF_RECORD_MMAP2.
    Mmap2(Mmap2Record<'a>),
    /// PERF_RECORD_AUX.
    Aux(AuxRecord),
    /// PERF_RECORD_ITRACE_START.
    ItraceStart(ItraceStartRecord),
    /// PERF_RECORD_LOST_SAMPLES.
    LostSamples(LostSamplesRecord),
    /// PERF_RECORD_SWITCH.
    Switch(SwitchRecord),
    /// PERF_RECORD_SWITCH_CPU_WIDE.
    SwitchCpuWide(SwitchRecord),
    /// PERF_RECORD_NAMESPACES.
    Namespaces(NamespacesRecord<'a>),
    /// PERF_RECORD_KSYMBOL.
    Ksymbol(KsymbolRecord<'a>),
    /// PERF_RECORD_BPF_EVENT.
    BpfEvent(BpfEventRecord),
    /// PERF_RECORD_CGROUP.
    Cgroup(CgroupRecord<'a>),
    /// PERF_RECORD_TEXT_POKE.
    TextPoke(TextPokeRecord<'a>),
    /// PERF_RECORD_AUX_OUTPUT_HW_ID.
    AuxOutputHwId(AuxOutputHwIdRecord),
    /// PERF_RECORD_CALLCHAIN_DEFERRED.
    CallchainDeferred(CallchainDeferredRecord<'a>),
    /// PERF_RECORD_HEADER_ATTR.
    HeaderAttr(HeaderAttrRecord<'a>),
    /// PERF_RECORD_HEADER_EVENT_TYPE.
    HeaderEventType(HeaderEventTypeRecord<'a>),
    /// PERF_RECORD_HEADER_TRACING_DATA.
    TracingData(TracingDataRecord<'a>),
    /// PERF_RECORD_HEADER_BUILD_ID.
    HeaderBuildId(HeaderBuildIdRecord<'a>),
    /// PERF_RECORD_FINISHED_ROUND: records before it may be sorted without looking further.
    FinishedRound,
    /// PERF_RECORD_ID_INDEX.
    IdIndex(IdIndexRecord<'a>),
    /// PERF_RECORD_AUXTRACE_INFO.
    AuxtraceInfo(AuxtraceInfoRecord<'a>),
    /// PERF_RECORD_AUXTRACE.
    Auxtrace(AuxtraceRecord<'a>),
    /// PERF_RECORD_AUXTRACE_ERROR.
    AuxtraceError(AuxtraceErrorRecord<'a>),
    /// PERF_RECORD_THREAD_MAP.
    ThreadMap(ThreadMapRecord<'a>),
    /// PERF_RECORD_CPU_MAP.
    CpuMap(CpuMapRecord<'a>),
    /// PERF_RECORD_STAT_CONFIG.
    StatConfig(StatConfigRecord<'a>),
    /// PERF_RECORD_STAT.
    Stat(StatRecord),
    /// PERF_RECORD_STAT_ROUND.
    StatRound(StatRoundRecord),
    /// PERF_RECORD_EVENT_UPDATE.
    EventUpdate(EventUpdateRecord<'a>),
    /// PERF_RECORD_TIME_CONV.
    TimeConv(TimeConvRecord),
    /// PERF_RECORD_HEADER_FEATURE.
    HeaderFeature(HeaderFeatureRecord<'a>),
    /// PERF_RECORD_COMPRESSED (still compressed).
    Compressed(CompressedRecord<'a>),
    /// PERF_RECORD_FINISHED_INIT: the synthesized records that describe the initial state end here.
    FinishedInit,
    /// PERF_RECORD_COMPRESSED2 (still compressed).
    Compressed2(CompressedRecord<'a>),
    /// PERF_RECORD_BPF_METADATA.
    BpfMetadata(BpfMetadataRecord<'a>),
    /// PERF_RECORD_SCHEDSTAT_CPU.
    SchedstatCpu(SchedstatRecord<'a>),
    /// PERF_RECORD_SCHEDSTAT_DOMAIN.
    SchedstatDomain(SchedstatRecord<'a>),
    /// A record type this crate does not know (e.g. simpleperf's types from 32768), undecoded.
    Unknown(RawRecord<'a>),
}

impl<'a> Record<'a> {
    /// The `sample_id` trailer of a kernel record other than SAMPLE.
    pub fn sample_id(&self) -> Option<&SampleId> {
        Some(match self {
            Record::Mmap(r) => &r.sample_id,
            Record::Lost(r) => &r.sample_id,
            Record::Comm(r) => &r.sample_id,
            Record::Exit(r) | Record::Fork(r) => &r.sample_id,
            Record::Throttle(r) | Record::Unthrottle(r) => &r.sample_id,
            Record::Read(r) => &r.sample_id,
            Record::Mmap2(r) => &r.sample_id,
            Record::Aux(r) => &r.sample_id,
            Record::ItraceStart(r) => &r.sample_id,
            Record::LostSamples(r) => &r.sample_id,
            Record::Switch(r) | Record::SwitchCpuWide(r) => &r.sample_id,
            Record::Namespaces(r) => &r.sample_id,
            Record::Ksymbol(r) => &r.sample_id,
            Record::BpfEvent(r) => &r.sample_id,
            Record::Cgroup(r) => &r.sample_id,
            Record::TextPoke(r) => &r.sample_id,
            Record::AuxOutputHwId(r) => &r.sample_id,
            Record::CallchainDeferred(r) => &r.sample_id,
            _ => return None,
        })
    }

    /// The record's timestamp: a sample's `time`, or the `sample_id` trailer's.
    pub fn time(&self) -> Option<u64> {
        match self {
            Record::Sample(s) => s.time,
            r => r.sample_id().and_then(|s| s.time),
        }
    }

    /// The event the record was routed to (SAMPLE and kernel records with an event table).
    pub fn event(&self) -> Option<EventIndex> {
        match self {
            Record::Sample(s) => Some(s.event),
            r => r.sample_id().and_then(|s| s.event),
        }
    }
}

/// Checks a framed SAMPLE the way [`parse_record`] decodes it (routing, then every field)
/// and returns its event, without building the record: the same result as `parse_record`
/// gives (`Ok(Record::Sample(s))` with `s.event`, or the same error), at a fraction of the
/// cost, for counting samples per event.
///
/// Only for SAMPLE records (any other type is routed as a sample would be).
pub fn check_sample(raw: &RawRecord<'_>, events: &EventTable) -> Result<EventIndex> {
    let (event, layout) = sample_layout(raw, events)?;
    SampleRecord::check(raw.body, raw.body_bytes().offset(), raw.endian, layout)?;
    Ok(event)
}

/// [`check_sample`], and the sample's process, thread, time and CPU: what
/// `parse_record` gives in those fields of `Record::Sample` (or the same error), without
/// building the record (~0.5 kB). For an index of every record in file order.
pub fn check_sample_ids(raw: &RawRecord<'_>, events: &EventTable) -> Result<SampleIds> {
    let (event, layout) = sample_layout(raw, events)?;
    SampleRecord::check_ids(
        raw.body,
        raw.body_bytes().offset(),
        raw.endian,
        layout,
        event,
    )
}

/// The fields of a SAMPLE that a profile's stacks and weights are made of (see
/// [`SampleBrief`]): what `parse_record` gives in those fields of `Record::Sample` (or the same
/// error), without building the whole record (~0.5 kB). `raw` must be a SAMPLE.
pub fn parse_sample_brief<'a>(raw: &RawRecord<'a>, events: &EventTable) -> Result<SampleBrief<'a>> {
    let (event, layout) = sample_layout(raw, events)?;
    SampleRecord::parse_brief(
        raw.body,
        raw.body_bytes().offset(),
        raw.endian,
        raw.header.misc,
        event,
        layout,
    )
}

/// The event a SAMPLE is routed to and its layout.
#[inline]
fn sample_layout<'t>(
    raw: &RawRecord<'_>,
    events: &'t EventTable,
) -> Result<(EventIndex, &'t EventLayout)> {
    let event = events.route(raw.body, true, raw.endian, raw.body_bytes().offset())?;
    let layout = events
        .layout(event)
        .ok_or(Error::new(raw.offset, ErrorKind::NoAttrs))?;
    Ok((event, layout))
}

/// [`parse_record`] into `out`, for a caller that decodes many records: a SAMPLE (~0.5 kB) is
/// decoded where `out` is instead of being copied there from the returned value (that copy
/// was ~2 % of a records pass's instructions). On error `out` is left as a placeholder or a
/// partly filled sample: only the error counts.
///
/// ```
/// use perfscope_format::{records::{frame_record, parse_record_into, Record}, layout::EventTable, Endianness};
/// let bytes = [68, 0, 0, 0, 0, 0, 8, 0]; // FINISHED_ROUND
/// let raw = frame_record(&bytes, 0, Endianness::Little).unwrap();
/// let mut out = Record::FinishedRound;
/// parse_record_into(&raw, &EventTable::default(), &mut out).unwrap();
/// assert_eq!(out, Record::FinishedRound);
/// ```
pub fn parse_record_into<'a>(
    raw: &RawRecord<'a>,
    events: &EventTable,
    out: &mut Record<'a>,
) -> Result<()> {
    if raw.header.type_ == RecordType::SAMPLE {
        return sample_into(raw, events, out);
    }
    *out = parse_record(raw, events)?;
    Ok(())
}

/// Decodes a SAMPLE into `out`.
fn sample_into<'a>(raw: &RawRecord<'a>, events: &EventTable, out: &mut Record<'a>) -> Result<()> {
    let (event, layout) = sample_layout(raw, events)?;
    *out = Record::Sample(SampleRecord::empty(event, raw.header.misc));
    if let Record::Sample(s) = out {
        s.fill(raw.body, raw.body_bytes().offset(), raw.endian, layout)?;
    }
    Ok(())
}

/// Decodes one framed record with the events of its file.
///
/// SAMPLEs and kernel records are routed to their event (see [`EventTable::route`]); the
/// `sample_id` trailer of kernel records is split off and decoded. Errors concern this record
/// only: the caller can go on with the next one.
///
/// ```
/// use perfscope_format::{records::{frame_record, parse_record, Record}, layout::EventTable, Endianness};
/// // A FINISHED_ROUND record: type 68, misc 0, size 8.
/// let bytes = [68, 0, 0, 0, 0, 0, 8, 0];
/// let raw = frame_record(&bytes, 0, Endianness::Little).unwrap();
/// assert_eq!(parse_record(&raw, &EventTable::default()).unwrap(), Record::FinishedRound);
/// ```
pub fn parse_record<'a>(raw: &RawRecord<'a>, events: &EventTable) -> Result<Record<'a>> {
    let type_ = raw.header.type_;
    let misc = raw.header.misc;
    let b = raw.body_bytes();
    if type_ == RecordType::SAMPLE {
        let mut rec = Record::FinishedRound;
        sample_into(raw, events, &mut rec)?;
        return Ok(rec);
    }
    if type_.0 <= RecordType::CALLCHAIN_DEFERRED.0 && type_.0 != 0 {
        return parse_kernel(raw, b, events);
    }
    Ok(match type_ {
        RecordType::HEADER_ATTR => Record::HeaderAttr(HeaderAttrRecord::parse(b)?),
        RecordType::HEADER_EVENT_TYPE => Record::HeaderEventType(HeaderEventTypeRecord::parse(b)?),
        RecordType::HEADER_TRACING_DATA => {
            Record::TracingData(TracingDataRecord::parse(b, raw.payload)?)
        }
        RecordType::HEADER_BUILD_ID => Record::HeaderBuildId(HeaderBuildIdRecord::parse(b, misc)?),
        RecordType::FINISHED_ROUND => Record::FinishedRound,
        RecordType::ID_INDEX => Record::IdIndex(IdIndexRecord::parse(b)?),
        RecordType::AUXTRACE_INFO => Record::AuxtraceInfo(AuxtraceInfoRecord::parse(b)?),
        RecordType::AUXTRACE => Record::Auxtrace(AuxtraceRecord::parse(b, raw.payload)?),
        RecordType::AUXTRACE_ERROR => Record::AuxtraceError(AuxtraceErrorRecord::parse(b)?),
        RecordType::THREAD_MAP => Record::ThreadMap(ThreadMapRecord::parse(b)?),
        RecordType::CPU_MAP => Record::CpuMap(CpuMapRecord::parse(b)?),
        RecordType::STAT_CONFIG => Record::StatConfig(StatConfigRecord::parse(b)?),
        RecordType::STAT => Record::Stat(StatRecord::parse(b)?),
        RecordType::STAT_ROUND => Record::StatRound(StatRoundRecord::parse(b)?),
        RecordType::EVENT_UPDATE => Record::EventUpdate(EventUpdateRecord::parse(b)?),
        RecordType::TIME_CONV => Record::TimeConv(TimeConvRecord::parse(b)?),
        RecordType::HEADER_FEATURE => Record::HeaderFeature(HeaderFeatureRecord::parse(b)?),
        RecordType::COMPRESSED => Record::Compressed(CompressedRecord::parse(b, false)?),
        RecordType::FINISHED_INIT => Record::FinishedInit,
        RecordType::COMPRESSED2 => Record::Compressed2(CompressedRecord::parse(b, true)?),
        RecordType::BPF_METADATA => Record::BpfMetadata(BpfMetadataRecord::parse(b)?),
        RecordType::SCHEDSTAT_CPU => Record::SchedstatCpu(SchedstatRecord::parse(b, false)?),
        RecordType::SCHEDSTAT_DOMAIN => Record::SchedstatDomain(SchedstatRecord::parse(b, true)?),
        _ => Record::Unknown(*raw),
    })
}

/// Decodes a kernel record other than SAMPLE: route it, split off its trailer, decode its fields.
fn parse_kernel<'a>(raw: &RawRecord<'a>, b: Bytes<'a>, events: &EventTable) -> Result<Record<'a>> {
    let misc = raw.header.misc;
    let (event, layout) = if events.is_empty() {
        (None, None)
    } else {
        let e = events.route(raw.body, false, raw.endian, b.offset())?;
        (Some(e), events.layout(e))
    };
    let trailer = match layout {
        Some(l) if l.sample_id_all => l.trailer,
        _ => crate::layout::SampleIdLayout::default(),
    };
    let (f, sid) = sample_id::split_trailer(b, &trailer, event)?;
    Ok(match raw.header.type_ {
        RecordType::MMAP => Record::Mmap(MmapRecord::parse(f, misc, sid)?),
        RecordType::LOST => Record::Lost(LostRecord::parse(f, sid)?),
        RecordType::COMM => Record::Comm(CommRecord::parse(f, misc, sid)?),
        RecordType::EXIT => Record::Exit(ForkRecord::parse(f, sid)?),
        RecordType::THROTTLE => Record::Throttle(ThrottleRecord::parse(f, sid)?),
        RecordType::UNTHROTTLE => Record::Unthrottle(ThrottleRecord::parse(f, sid)?),
        RecordType::FORK => Record::Fork(ForkRecord::parse(f, sid)?),
        RecordType::READ => Record::Read(ReadRecord::parse(
            f,
            layout.map_or(0, |l| l.read_format),
            sid,
        )?),
        RecordType::MMAP2 => Record::Mmap2(Mmap2Record::parse(f, misc, sid)?),
        RecordType::AUX => Record::Aux(AuxRecord::parse(f, sid)?),
        RecordType::ITRACE_START => Record::ItraceStart(ItraceStartRecord::parse(f, sid)?),
        RecordType::LOST_SAMPLES => Record::LostSamples(LostSamplesRecord::parse(f, misc, sid)?),
        RecordType::SWITCH => Record::Switch(SwitchRecord::parse(f, misc, false, sid)?),
        RecordType::SWITCH_CPU_WIDE => {
            Record::SwitchCpuWide(SwitchRecord::parse(f, misc, true, sid)?)
        }
        RecordType::NAMESPACES => Record::Namespaces(NamespacesRecord::parse(f, sid)?),
        RecordType::KSYMBOL => Record::Ksymbol(KsymbolRecord::parse(f, sid)?),
        RecordType::BPF_EVENT => Record::BpfEvent(BpfEventRecord::parse(f, sid)?),
        RecordType::CGROUP => Record::Cgroup(CgroupRecord::parse(f, sid)?),
        RecordType::TEXT_POKE => Record::TextPoke(TextPokeRecord::parse(f, sid)?),
        RecordType::AUX_OUTPUT_HW_ID => Record::AuxOutputHwId(AuxOutputHwIdRecord::parse(f, sid)?),
        RecordType::CALLCHAIN_DEFERRED => {
            Record::CallchainDeferred(CallchainDeferredRecord::parse(f, sid)?)
        }
        _ => Record::Unknown(*raw),
    })
}

#[cfg(test)]
#[path = "decode_tests.rs"]
mod tests;
