//! PERF_RECORD_THROTTLE and PERF_RECORD_UNTHROTTLE.

use super::sample_id::SampleId;
use crate::bytes::Bytes;
use crate::error::Result;

/// `struct perf_record_throttle` (PERF_RECORD_THROTTLE and PERF_RECORD_UNTHROTTLE).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThrottleRecord {
    /// `time` in ns.
    pub time: u64,
    /// `id` of the event.
    pub id: u64,
    /// `stream_id`.
    pub stream_id: u64,
    /// The `sample_id` trailer.
    pub sample_id: SampleId,
}

impl ThrottleRecord {
    pub(crate) fn parse(mut b: Bytes<'_>, sample_id: SampleId) -> Result<Self> {
        Ok(ThrottleRecord {
            time: b.read_u64("throttle time")?,
            id: b.read_u64("throttle id")?,
            stream_id: b.read_u64("throttle stream_id")?,
            sample_id,
        })
    }
}
