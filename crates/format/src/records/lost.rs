//! PERF_RECORD_LOST and PERF_RECORD_LOST_SAMPLES.

use super::sample_id::SampleId;
use crate::bytes::Bytes;
use crate::error::Result;

/// `struct perf_record_lost` (PERF_RECORD_LOST): records dropped because the ring buffer was full.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LostRecord {
    /// `id` of the event whose records were lost.
    pub id: u64,
    /// `lost`: how many records.
    pub lost: u64,
    /// The `sample_id` trailer.
    pub sample_id: SampleId,
}

impl LostRecord {
    pub(crate) fn parse(mut b: Bytes<'_>, sample_id: SampleId) -> Result<Self> {
        Ok(LostRecord {
            id: b.read_u64("lost id")?,
            lost: b.read_u64("lost count")?,
            sample_id,
        })
    }
}

/// `struct perf_record_lost_samples` (PERF_RECORD_LOST_SAMPLES): samples the kernel dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LostSamplesRecord {
    /// `header.misc`: `PERF_RECORD_MISC_LOST_SAMPLES_BPF` (bit 15) when a BPF filter dropped them.
    pub misc: u16,
    /// `lost`.
    pub lost: u64,
    /// The `sample_id` trailer.
    pub sample_id: SampleId,
}

impl LostSamplesRecord {
    pub(crate) fn parse(mut b: Bytes<'_>, misc: u16, sample_id: SampleId) -> Result<Self> {
        Ok(LostSamplesRecord {
            misc,
            lost: b.read_u64("lost_samples lost")?,
            sample_id,
        })
    }
}
