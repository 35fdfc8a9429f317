//! PERF_RECORD_BPF_EVENT: a BPF program loaded or unloaded.

use super::sample_id::SampleId;
use crate::bytes::Bytes;
use crate::error::Result;

/// `struct perf_record_bpf_event` (PERF_RECORD_BPF_EVENT).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BpfEventRecord {
    /// `type` (`PERF_BPF_EVENT_PROG_LOAD` 1, `_PROG_UNLOAD` 2).
    pub type_: u16,
    /// `flags`.
    pub flags: u16,
    /// `id`: the program id.
    pub id: u32,
    /// `tag`: the program tag.
    pub tag: [u8; 8],
    /// The `sample_id` trailer.
    pub sample_id: SampleId,
}

impl BpfEventRecord {
    pub(crate) fn parse(mut b: Bytes<'_>, sample_id: SampleId) -> Result<Self> {
        Ok(BpfEventRecord {
            type_: b.read_u16("bpf_event type")?,
            flags: b.read_u16("bpf_event flags")?,
            id: b.read_u32("bpf_event id")?,
            tag: b.read_array("bpf_event tag")?,
            sample_id,
        })
    }
}
