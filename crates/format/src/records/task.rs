//! PERF_RECORD_FORK and PERF_RECORD_EXIT.

use super::sample_id::SampleId;
use crate::bytes::Bytes;
use crate::error::Result;

/// `struct perf_record_fork`, the layout of both PERF_RECORD_FORK and PERF_RECORD_EXIT.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ForkRecord {
    /// `pid`.
    pub pid: u32,
    /// `ppid`: the parent's pid.
    pub ppid: u32,
    /// `tid`.
    pub tid: u32,
    /// `ptid`: the parent's tid.
    pub ptid: u32,
    /// `time` in ns.
    pub time: u64,
    /// The `sample_id` trailer.
    pub sample_id: SampleId,
}

impl ForkRecord {
    pub(crate) fn parse(mut b: Bytes<'_>, sample_id: SampleId) -> Result<Self> {
        Ok(ForkRecord {
            pid: b.read_u32("fork pid")?,
            ppid: b.read_u32("fork ppid")?,
            tid: b.read_u32("fork tid")?,
            ptid: b.read_u32("fork ptid")?,
            time: b.read_u64("fork time")?,
            sample_id,
        })
    }
}
