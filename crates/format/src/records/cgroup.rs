//! PERF_RECORD_CGROUP: a cgroup's id and path.

use super::sample_id::SampleId;
use crate::bytes::{until_nul, Bytes};
use crate::error::Result;
use crate::features::RawStr;

/// `struct perf_record_cgroup` (PERF_RECORD_CGROUP).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CgroupRecord<'a> {
    /// `id` (as in PERF_SAMPLE_CGROUP).
    pub id: u64,
    /// `path`.
    pub path: RawStr<'a>,
    /// The `sample_id` trailer.
    pub sample_id: SampleId,
}

impl<'a> CgroupRecord<'a> {
    pub(crate) fn parse(mut b: Bytes<'a>, sample_id: SampleId) -> Result<Self> {
        let id = b.read_u64("cgroup id")?;
        Ok(CgroupRecord {
            id,
            path: RawStr(until_nul(b.remaining())),
            sample_id,
        })
    }
}
