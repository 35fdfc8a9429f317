//! PERF_RECORD_SCHEDSTAT_CPU and PERF_RECORD_SCHEDSTAT_DOMAIN (`perf sched stats record`): a
//! snapshot of `/proc/schedstat`. The counters' layout depends on `version`; they are kept as bytes.

use crate::bytes::Bytes;
use crate::error::Result;

/// `struct perf_record_schedstat_cpu` / `perf_record_schedstat_domain`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchedstatRecord<'a> {
    /// `timestamp`.
    pub timestamp: u64,
    /// `cpu`.
    pub cpu: u32,
    /// `version`: the `/proc/schedstat` version (15, 16, 17, …).
    pub version: u16,
    /// `domain` (SCHEDSTAT_DOMAIN only).
    pub domain: Option<u16>,
    /// The version-specific counters.
    pub data: &'a [u8],
}

impl<'a> SchedstatRecord<'a> {
    pub(crate) fn parse(mut b: Bytes<'a>, is_domain: bool) -> Result<Self> {
        let timestamp = b.read_u64("schedstat timestamp")?;
        let cpu = b.read_u32("schedstat cpu")?;
        let version = b.read_u16("schedstat version")?;
        let pad = b.read_u16(if is_domain {
            "schedstat domain"
        } else {
            "schedstat padding"
        })?;
        Ok(SchedstatRecord {
            timestamp,
            cpu,
            version,
            domain: is_domain.then_some(pad),
            data: b.remaining(),
        })
    }
}
