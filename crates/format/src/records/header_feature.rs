//! Pipe-mode metadata records: PERF_RECORD_HEADER_FEATURE and PERF_RECORD_HEADER_TRACING_DATA.

use crate::bytes::Bytes;
use crate::constants::HeaderFeature;
use crate::error::Result;

/// `struct perf_record_header_feature` (PERF_RECORD_HEADER_FEATURE): a header feature section
/// carried in the stream.
#[derive(Debug, Clone, Copy)]
pub struct HeaderFeatureRecord<'a> {
    /// `feat_id`.
    pub feat_id: u64,
    /// The feature's bytes, positioned at their absolute offset, for the parsers in
    /// [`crate::features`].
    pub data: Bytes<'a>,
}

impl PartialEq for HeaderFeatureRecord<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.feat_id == other.feat_id && self.data.remaining() == other.data.remaining()
    }
}

impl Eq for HeaderFeatureRecord<'_> {}

impl<'a> HeaderFeatureRecord<'a> {
    pub(crate) fn parse(mut b: Bytes<'a>) -> Result<Self> {
        let feat_id = b.read_u64("feature feat_id")?;
        Ok(HeaderFeatureRecord { feat_id, data: b })
    }

    /// The feature, if `feat_id` fits a feature number.
    pub fn feature(&self) -> Option<HeaderFeature> {
        u32::try_from(self.feat_id).ok().map(HeaderFeature)
    }
}

/// `struct perf_record_header_tracing_data` (PERF_RECORD_HEADER_TRACING_DATA) and the trace data
/// that follows it (not counted in its header size), or, as simpleperf writes it, that it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TracingDataRecord<'a> {
    /// `size` of the data (perf pads it to 8 bytes and counts the padding).
    pub size: u32,
    /// The tracing data (the same layout as the TRACING_DATA feature).
    pub data: &'a [u8],
}

impl<'a> TracingDataRecord<'a> {
    pub(crate) fn parse(mut b: Bytes<'a>, payload: &'a [u8]) -> Result<Self> {
        let size = b.read_u32("tracing_data size")?;
        // perf: the data follows the record. simpleperf: the data is inside the record.
        let data = if payload.is_empty() {
            b.read_bytes(size as usize, "tracing_data data")?
        } else {
            payload
        };
        Ok(TracingDataRecord { size, data })
    }
}
