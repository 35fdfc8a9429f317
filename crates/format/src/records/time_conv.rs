//! PERF_RECORD_TIME_CONV: how to convert TSC values to perf timestamps.

use crate::bytes::Bytes;
use crate::error::Result;

/// `struct perf_record_time_conv` (PERF_RECORD_TIME_CONV), in its old (3 fields, before perf
/// 5.10) or new size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeConvRecord {
    /// `time_shift`.
    pub time_shift: u64,
    /// `time_mult`.
    pub time_mult: u64,
    /// `time_zero`.
    pub time_zero: u64,
    /// The fields added in perf 5.10, when present.
    pub ext: Option<TimeConvExt>,
}

/// The fields of TIME_CONV added in perf 5.10.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeConvExt {
    /// `time_cycles`.
    pub time_cycles: u64,
    /// `time_mask`.
    pub time_mask: u64,
    /// `cap_user_time_zero`.
    pub cap_user_time_zero: bool,
    /// `cap_user_time_short`.
    pub cap_user_time_short: bool,
}

impl TimeConvRecord {
    pub(crate) fn parse(mut b: Bytes<'_>) -> Result<Self> {
        let time_shift = b.read_u64("time_conv time_shift")?;
        let time_mult = b.read_u64("time_conv time_mult")?;
        let time_zero = b.read_u64("time_conv time_zero")?;
        let ext = if b.is_empty() {
            None
        } else {
            Some(TimeConvExt {
                time_cycles: b.read_u64("time_conv time_cycles")?,
                time_mask: b.read_u64("time_conv time_mask")?,
                cap_user_time_zero: b.read_u8("time_conv cap_user_time_zero")? != 0,
                cap_user_time_short: b.read_u8("time_conv cap_user_time_short")? != 0,
            })
        };
        Ok(TimeConvRecord {
            time_shift,
            time_mult,
            time_zero,
            ext,
        })
    }
}
