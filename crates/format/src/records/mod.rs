//! Records: framing (`struct perf_event_header` and the walk over a run of records) and, per
//! type in the submodules, decoding a record's body into typed fields ([`parse_record`]).

pub mod array;
pub mod aux;
pub mod auxtrace;
pub mod bpf_event;
pub mod bpf_metadata;
pub mod branch;
pub mod build_id;
pub mod callchain;
pub mod cgroup;
pub mod comm;
pub mod compressed;
pub mod cpu_map;
mod decode;
pub mod event_update;
pub mod header_attr;
pub mod header_feature;
pub mod id_index;
pub mod ksymbol;
pub mod lost;
pub mod mmap;
pub mod namespaces;
pub mod read;
pub mod sample;
pub mod sample_id;
pub mod schedstat;
pub mod stat;
pub mod switch;
pub mod task;
pub mod text_poke;
pub mod thread_map;
pub mod throttle;
pub mod time_conv;

pub use array::{U64Array, U64Iter};
pub use aux::{AuxOutputHwIdRecord, AuxRecord, ItraceStartRecord};
pub use auxtrace::{AuxtraceErrorRecord, AuxtraceInfoRecord, AuxtraceRecord};
pub use bpf_event::BpfEventRecord;
pub use bpf_metadata::BpfMetadataRecord;
pub use branch::{BranchEntry, BranchFlags, BranchStack};
pub use build_id::HeaderBuildIdRecord;
pub use callchain::{Callchain, CallchainDeferredRecord, CallchainFrame, CallchainItem};
pub use cgroup::CgroupRecord;
pub use comm::CommRecord;
pub use compressed::CompressedRecord;
pub use cpu_map::{CpuMapData, CpuMapRecord};
pub use decode::{
    check_sample, check_sample_ids, parse_record, parse_record_into, parse_sample_brief, Record,
};
pub use event_update::{EventUpdate, EventUpdateRecord};
pub use header_attr::{HeaderAttrRecord, HeaderEventTypeRecord};
pub use header_feature::{HeaderFeatureRecord, TracingDataRecord};
pub use id_index::{IdIndexEntry, IdIndexRecord};
pub use ksymbol::KsymbolRecord;
pub use lost::{LostRecord, LostSamplesRecord};
pub use mmap::{Mmap2FileId, Mmap2Record, MmapRecord};
pub use namespaces::{NamespacesRecord, NsLinkInfo};
pub use read::{ReadData, ReadGroup, ReadRecord, ReadValue, ReadValues};
pub use sample::{Regs, SampleBrief, SampleIds, SampleRecord, UserStack, Weight};
pub use sample_id::SampleId;
pub use schedstat::SchedstatRecord;
pub use stat::{StatConfigRecord, StatRecord, StatRoundRecord};
pub use switch::SwitchRecord;
pub use task::ForkRecord;
pub use text_poke::TextPokeRecord;
pub use thread_map::{ThreadMapEntry, ThreadMapRecord};
pub use throttle::ThrottleRecord;
pub use time_conv::{TimeConvExt, TimeConvRecord};

use crate::bytes::Bytes;
use crate::constants::RecordType;
use crate::endian::Endianness;
use crate::error::{Error, ErrorKind, Result};

/// Size of `struct perf_event_header`.
pub const RECORD_HEADER_SIZE: usize = 8;

/// `struct perf_event_header`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordHeader {
    /// `type`.
    pub type_: RecordType,
    /// `misc`: cpumode and per-type flags (see [`crate::constants::misc`]).
    pub misc: u16,
    /// `size`: the record's size including this header (not counting trailing payloads).
    pub size: u16,
}

impl RecordHeader {
    /// Parses a record header.
    #[inline]
    pub fn parse(b: &mut Bytes<'_>) -> Result<RecordHeader> {
        let type_ = RecordType(b.read_u32("record header type")?);
        let misc = b.read_u16("record header misc")?;
        let size = b.read_u16("record header size")?;
        Ok(RecordHeader { type_, misc, size })
    }
}

/// One record, framed but not decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawRecord<'a> {
    /// Absolute offset of the record header in the file or stream. For a record decoded from a
    /// zstd-compressed record, the offset of that compressed record.
    pub offset: u64,
    /// For a record decoded from a compressed record: its offset inside the decompressed bytes.
    pub inner_offset: Option<u64>,
    /// The byte order of the file.
    pub endian: Endianness,
    /// The record header.
    pub header: RecordHeader,
    /// The bytes after the header (`header.size - 8` of them).
    pub body: &'a [u8],
    /// Bytes that follow the record without being counted in `header.size`: the trace data of a
    /// HEADER_TRACING_DATA record and the AUX data of an AUXTRACE record. Empty otherwise.
    pub payload: &'a [u8],
}

impl<'a> RawRecord<'a> {
    /// The record type.
    pub const fn type_(&self) -> RecordType {
        self.header.type_
    }

    /// A cursor over the body, positioned at the body's absolute offset.
    pub fn body_bytes(&self) -> Bytes<'a> {
        let body_offset = match self.inner_offset {
            Some(_) => self.offset,
            None => self.offset + RECORD_HEADER_SIZE as u64,
        };
        Bytes::new(self.body, body_offset, self.endian)
    }

    /// The offset to report for errors in this record (the record's own offset).
    pub const fn error_offset(&self) -> u64 {
        self.offset
    }

    /// Total number of bytes this record occupies, payload included.
    pub const fn total_len(&self) -> usize {
        RECORD_HEADER_SIZE + self.body.len() + self.payload.len()
    }
}

/// How many payload bytes follow a record of this type, read from the record's body.
///
/// * `HEADER_TRACING_DATA` (`struct perf_record_header_tracing_data`): `u32 size` bytes of trace
///   data follow (perf pads them to 8 bytes and counts the padding in `size`). Android's
///   simpleperf instead puts the data inside the record (its `header.size` covers it): when the
///   body already holds `size` bytes after the `u32`, nothing follows.
/// * `AUXTRACE` (`struct perf_record_auxtrace`): `u64 size` bytes of AUX data follow.
pub fn trailing_payload_len(type_: RecordType, body: &[u8], endian: Endianness) -> Option<u64> {
    let mut b = Bytes::new(body, 0, endian);
    match type_ {
        RecordType::HEADER_TRACING_DATA => {
            let size = b.read_u32("tracing data size").ok()?;
            Some(if b.len() >= size as usize {
                0
            } else {
                u64::from(size)
            })
        }
        RecordType::AUXTRACE => b.read_u64("auxtrace size").ok(),
        _ => None,
    }
}

/// Frames one record at the start of `data` (whose first byte is at absolute `offset`).
///
/// Errors are framing errors: after one, the rest of `data` cannot be walked.
#[inline]
pub fn frame_record(data: &[u8], offset: u64, endian: Endianness) -> Result<RawRecord<'_>> {
    frame_record_with(data, offset, endian, true)
}

/// [`frame_record`], optionally without looking for trailing payloads (for the record types
/// that old pre-upstream streams used with other meanings, see
/// [`crate::stream::StreamDecoder::legacy_google`]).
#[inline]
pub fn frame_record_with(
    data: &[u8],
    offset: u64,
    endian: Endianness,
    trailing_payloads: bool,
) -> Result<RawRecord<'_>> {
    if data.len() < RECORD_HEADER_SIZE {
        return Err(Error::new(
            offset,
            ErrorKind::UnexpectedEof {
                what: "record header",
                needed: RECORD_HEADER_SIZE as u64,
                available: data.len() as u64,
            },
        ));
    }
    let mut b = Bytes::new(data, offset, endian);
    let header = RecordHeader::parse(&mut b)?;
    let size = usize::from(header.size);
    if size < RECORD_HEADER_SIZE {
        return Err(Error::new(
            offset,
            ErrorKind::RecordTooSmall { size: header.size },
        ));
    }
    let Some(body) = data.get(RECORD_HEADER_SIZE..size) else {
        return Err(Error::new(
            offset,
            ErrorKind::RecordPastEnd {
                size: size as u64,
                available: data.len() as u64,
            },
        ));
    };
    let mut payload: &[u8] = &[];
    if let Some(len) =
        trailing_payload_len(header.type_, body, endian).filter(|_| trailing_payloads)
    {
        let rest = data.get(size..).unwrap_or(&[]);
        match usize::try_from(len).ok().and_then(|len| rest.get(..len)) {
            Some(p) => payload = p,
            None => {
                return Err(Error::new(
                    offset,
                    ErrorKind::RecordPastEnd {
                        size: (size as u64).saturating_add(len),
                        available: data.len() as u64,
                    },
                ))
            }
        }
    }
    Ok(RawRecord {
        offset,
        inner_offset: None,
        endian,
        header,
        body,
        payload,
    })
}

/// An iterator over the records in a run of bytes. It stops after the first framing error.
#[derive(Debug, Clone)]
pub struct RawRecords<'a> {
    data: &'a [u8],
    offset: u64,
    endian: Endianness,
    /// Whether records of the types that carry one are framed with their trailing payload
    /// (see [`frame_record_with`]).
    payloads: bool,
    done: bool,
}

impl<'a> RawRecords<'a> {
    /// Walks the records in `data`, whose first byte is at absolute `offset`.
    pub const fn new(data: &'a [u8], offset: u64, endian: Endianness) -> Self {
        Self::with_payloads(data, offset, endian, true)
    }

    /// [`RawRecords::new`], framing records without their trailing payloads when
    /// `trailing_payloads` is false (see [`frame_record_with`]).
    pub const fn with_payloads(
        data: &'a [u8],
        offset: u64,
        endian: Endianness,
        trailing_payloads: bool,
    ) -> Self {
        RawRecords {
            data,
            offset,
            endian,
            payloads: trailing_payloads,
            done: false,
        }
    }

    /// The absolute offset of the next record.
    pub const fn offset(&self) -> u64 {
        self.offset
    }

    /// The bytes not walked yet.
    pub const fn remaining(&self) -> &'a [u8] {
        self.data
    }
}

impl<'a> Iterator for RawRecords<'a> {
    type Item = Result<RawRecord<'a>>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.data.is_empty() {
            return None;
        }
        match frame_record_with(self.data, self.offset, self.endian, self.payloads) {
            Ok(rec) => {
                let len = rec.total_len();
                self.data = self.data.get(len..).unwrap_or(&[]);
                self.offset += len as u64;
                Some(Ok(rec))
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    fn rec(endian: Endianness, type_: u32, body: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend_from_slice(&endian.u32_bytes(type_));
        v.extend_from_slice(&endian.u16_bytes(0));
        v.extend_from_slice(&endian.u16_bytes((8 + body.len()) as u16));
        v.extend_from_slice(body);
        v
    }

    #[test]
    fn walks_records_and_stops_at_a_bad_size() {
        for endian in [Endianness::Little, Endianness::Big] {
            let mut data = rec(endian, 68, &[]);
            data.extend(rec(endian, 3, &[1, 2, 3, 4, 5, 6, 7, 8]));
            data.extend(rec(endian, 9, &[]));
            let n = data.len();
            data[n - 2..].copy_from_slice(&endian.u16_bytes(4));
            let items: Vec<_> = RawRecords::new(&data, 0x100, endian).collect();
            assert_eq!(items.len(), 3);
            let first = items[0].unwrap();
            assert_eq!(
                (first.offset, first.type_()),
                (0x100, RecordType::FINISHED_ROUND)
            );
            let second = items[1].unwrap();
            assert_eq!((second.offset, second.body.len()), (0x108, 8));
            assert_eq!(
                items[2].unwrap_err(),
                Error::new(0x118, ErrorKind::RecordTooSmall { size: 4 })
            );
        }
    }

    #[test]
    fn tracing_data_payload_is_skipped_and_leaves_4_mod_8_alignment() {
        let endian = Endianness::Little;
        let mut data = rec(endian, 66, &endian.u32_bytes(16));
        data.extend_from_slice(&[0xaa; 16]);
        data.extend(rec(endian, 68, &[]));
        let items: Vec<_> = RawRecords::new(&data, 0, endian)
            .map(Result::unwrap)
            .collect();
        assert_eq!(items[0].payload.len(), 16);
        assert_eq!(items[1].offset, 28);
        assert_eq!(items[1].offset % 8, 4);
    }

    #[test]
    fn simpleperf_tracing_data_inside_the_record_is_not_skipped_twice() {
        // Regression: simpleperf's perf_with_tracepoint_event.data counts the trace data in
        // header.size; skipping `size` more bytes landed in the middle of the next record.
        let endian = Endianness::Little;
        let mut body = endian.u32_bytes(8).to_vec();
        body.extend_from_slice(&[0xbb; 12]);
        let mut data = rec(endian, 66, &body);
        data.extend(rec(endian, 68, &[]));
        let items: Vec<_> = RawRecords::new(&data, 0, endian)
            .map(Result::unwrap)
            .collect();
        assert_eq!(
            (items.len(), items[0].payload.len(), items[1].offset),
            (2, 0, 24)
        );
    }

    #[test]
    fn record_past_end_reports_sizes() {
        let endian = Endianness::Big;
        let mut data = rec(endian, 9, &[0; 16]);
        data.truncate(12);
        let err = RawRecords::new(&data, 0, endian)
            .next()
            .unwrap()
            .unwrap_err();
        assert_eq!(
            err,
            Error::new(
                0,
                ErrorKind::RecordPastEnd {
                    size: 24,
                    available: 12
                }
            )
        );
    }
}
