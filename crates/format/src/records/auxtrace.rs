//! PERF_RECORD_AUXTRACE_INFO, PERF_RECORD_AUXTRACE (followed by its AUX data) and
//! PERF_RECORD_AUXTRACE_ERROR.

use super::array::U64Array;
use crate::bytes::{until_nul, Bytes};
use crate::error::Result;
use crate::features::RawStr;

/// `struct perf_record_auxtrace_info` (PERF_RECORD_AUXTRACE_INFO).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuxtraceInfoRecord<'a> {
    /// `type` (`PERF_AUXTRACE_INTEL_PT` 1, `_INTEL_BTS` 2, `_CS_ETM` 3, `_ARM_SPE` 4, …).
    pub type_: u32,
    /// `priv[]`: the trace-type specific words.
    pub priv_: U64Array<'a>,
}

impl<'a> AuxtraceInfoRecord<'a> {
    pub(crate) fn parse(mut b: Bytes<'a>) -> Result<Self> {
        let type_ = b.read_u32("auxtrace_info type")?;
        b.skip(4, "auxtrace_info reserved")?;
        Ok(AuxtraceInfoRecord {
            type_,
            priv_: U64Array::new(b.remaining(), b.endian()),
        })
    }
}

/// `struct perf_record_auxtrace` (PERF_RECORD_AUXTRACE) and the `size` bytes of AUX data that
/// follow it (not counted in its header size).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuxtraceRecord<'a> {
    /// `size` of the data.
    pub size: u64,
    /// `offset` in the AUX area.
    pub offset: u64,
    /// `reference`.
    pub reference: u64,
    /// `idx`: the mmap index.
    pub idx: u32,
    /// `tid`.
    pub tid: u32,
    /// `cpu`.
    pub cpu: u32,
    /// The AUX data.
    pub data: &'a [u8],
}

impl<'a> AuxtraceRecord<'a> {
    pub(crate) fn parse(mut b: Bytes<'a>, payload: &'a [u8]) -> Result<Self> {
        Ok(AuxtraceRecord {
            size: b.read_u64("auxtrace size")?,
            offset: b.read_u64("auxtrace offset")?,
            reference: b.read_u64("auxtrace reference")?,
            idx: b.read_u32("auxtrace idx")?,
            tid: b.read_u32("auxtrace tid")?,
            cpu: b.read_u32("auxtrace cpu")?,
            data: payload,
        })
    }
}

/// `struct perf_record_auxtrace_error` (PERF_RECORD_AUXTRACE_ERROR).
///
/// `fmt` 0 records have no `time` (the message starts there); `fmt` ≥ 2 adds `machine_pid` and
/// `vcpu` (as perf's `perf_event__fprintf_auxtrace_error` reads them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuxtraceErrorRecord<'a> {
    /// `type` (`PERF_AUXTRACE_ERROR_ITRACE` 1, `_MAX` …).
    pub type_: u32,
    /// `code`.
    pub code: u32,
    /// `cpu`.
    pub cpu: u32,
    /// `pid`.
    pub pid: u32,
    /// `tid`.
    pub tid: u32,
    /// `fmt`: the layout version.
    pub fmt: u32,
    /// `ip`.
    pub ip: u64,
    /// `time` (fmt ≥ 1).
    pub time: Option<u64>,
    /// `msg`.
    pub msg: RawStr<'a>,
    /// `machine_pid` (fmt ≥ 2).
    pub machine_pid: Option<u32>,
    /// `vcpu` (fmt ≥ 2).
    pub vcpu: Option<u32>,
}

/// `MAX_AUXTRACE_ERROR_MSG`.
const MSG_LEN: usize = 64;

impl<'a> AuxtraceErrorRecord<'a> {
    pub(crate) fn parse(mut b: Bytes<'a>) -> Result<Self> {
        let type_ = b.read_u32("auxtrace_error type")?;
        let code = b.read_u32("auxtrace_error code")?;
        let cpu = b.read_u32("auxtrace_error cpu")?;
        let pid = b.read_u32("auxtrace_error pid")?;
        let tid = b.read_u32("auxtrace_error tid")?;
        let fmt = b.read_u32("auxtrace_error fmt")?;
        let ip = b.read_u64("auxtrace_error ip")?;
        let time = if fmt == 0 {
            None
        } else {
            Some(b.read_u64("auxtrace_error time")?)
        };
        let msg_len = MSG_LEN.min(b.len());
        let msg = RawStr(until_nul(b.read_bytes(msg_len, "auxtrace_error msg")?));
        let (machine_pid, vcpu) = if fmt >= 2 && b.len() >= 8 {
            (
                Some(b.read_u32("auxtrace_error machine_pid")?),
                Some(b.read_u32("auxtrace_error vcpu")?),
            )
        } else {
            (None, None)
        };
        Ok(AuxtraceErrorRecord {
            type_,
            code,
            cpu,
            pid,
            tid,
            fmt,
            ip,
            time,
            msg,
            machine_pid,
            vcpu,
        })
    }
}
