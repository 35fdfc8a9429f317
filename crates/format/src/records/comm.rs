//! PERF_RECORD_COMM: a thread's name, set at exec or by prctl.

use super::sample_id::SampleId;
use crate::bytes::{until_nul, Bytes};
use crate::constants::misc;
use crate::error::Result;
use crate::features::RawStr;

/// `struct perf_record_comm` (PERF_RECORD_COMM).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommRecord<'a> {
    /// `header.misc`: `PERF_RECORD_MISC_COMM_EXEC` when the name changed at exec.
    pub misc: u16,
    /// `pid`.
    pub pid: u32,
    /// `tid`.
    pub tid: u32,
    /// `comm`.
    pub comm: RawStr<'a>,
    /// The `sample_id` trailer.
    pub sample_id: SampleId,
}

impl<'a> CommRecord<'a> {
    pub(crate) fn parse(mut b: Bytes<'a>, misc: u16, sample_id: SampleId) -> Result<Self> {
        let pid = b.read_u32("comm pid")?;
        let tid = b.read_u32("comm tid")?;
        let comm = RawStr(until_nul(b.remaining()));
        Ok(CommRecord {
            misc,
            pid,
            tid,
            comm,
            sample_id,
        })
    }

    /// Whether the name changed because of an exec.
    pub const fn is_exec(&self) -> bool {
        self.misc & misc::COMM_EXEC != 0
    }
}
