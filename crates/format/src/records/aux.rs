//! PERF_RECORD_AUX, PERF_RECORD_ITRACE_START and PERF_RECORD_AUX_OUTPUT_HW_ID (hardware trace).

use super::sample_id::SampleId;
use crate::bytes::Bytes;
use crate::error::Result;

/// `struct perf_record_aux` (PERF_RECORD_AUX): new data in the AUX area.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuxRecord {
    /// `aux_offset`.
    pub aux_offset: u64,
    /// `aux_size`.
    pub aux_size: u64,
    /// `flags` (`PERF_AUX_FLAG_TRUNCATED` 1, `_OVERWRITE` 2, `_PARTIAL` 4, `_COLLISION` 8, PMU
    /// format bits 8..16).
    pub flags: u64,
    /// The `sample_id` trailer.
    pub sample_id: SampleId,
}

impl AuxRecord {
    pub(crate) fn parse(mut b: Bytes<'_>, sample_id: SampleId) -> Result<Self> {
        Ok(AuxRecord {
            aux_offset: b.read_u64("aux aux_offset")?,
            aux_size: b.read_u64("aux aux_size")?,
            flags: b.read_u64("aux flags")?,
            sample_id,
        })
    }
}

/// `struct perf_record_itrace_start` (PERF_RECORD_ITRACE_START).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItraceStartRecord {
    /// `pid`.
    pub pid: u32,
    /// `tid`.
    pub tid: u32,
    /// The `sample_id` trailer.
    pub sample_id: SampleId,
}

impl ItraceStartRecord {
    pub(crate) fn parse(mut b: Bytes<'_>, sample_id: SampleId) -> Result<Self> {
        Ok(ItraceStartRecord {
            pid: b.read_u32("itrace_start pid")?,
            tid: b.read_u32("itrace_start tid")?,
            sample_id,
        })
    }
}

/// `struct perf_record_aux_output_hw_id` (PERF_RECORD_AUX_OUTPUT_HW_ID).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuxOutputHwIdRecord {
    /// `hw_id`.
    pub hw_id: u64,
    /// The `sample_id` trailer.
    pub sample_id: SampleId,
}

impl AuxOutputHwIdRecord {
    pub(crate) fn parse(mut b: Bytes<'_>, sample_id: SampleId) -> Result<Self> {
        Ok(AuxOutputHwIdRecord {
            hw_id: b.read_u64("aux_output_hw_id hw_id")?,
            sample_id,
        })
    }
}
