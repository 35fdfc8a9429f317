//! `perf stat record` records: PERF_RECORD_STAT_CONFIG, PERF_RECORD_STAT, PERF_RECORD_STAT_ROUND.

use core::iter::FusedIterator;

use super::callchain::read_array;
use crate::bytes::Bytes;
use crate::endian::Endianness;
use crate::error::Result;
use crate::layout::read_u64_at;

/// `struct perf_record_stat_config` (PERF_RECORD_STAT_CONFIG): `nr` (tag, value) terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatConfigRecord<'a> {
    entries: &'a [u8],
    endian: Endianness,
}

/// Tag of a STAT_CONFIG term: `PERF_STAT_CONFIG_TERM__AGGR_MODE`.
pub const STAT_CONFIG_AGGR_MODE: u64 = 0;
/// Tag of a STAT_CONFIG term: `PERF_STAT_CONFIG_TERM__INTERVAL`.
pub const STAT_CONFIG_INTERVAL: u64 = 1;
/// Tag of a STAT_CONFIG term: `PERF_STAT_CONFIG_TERM__SCALE`.
pub const STAT_CONFIG_SCALE: u64 = 2;

impl<'a> StatConfigRecord<'a> {
    pub(crate) fn parse(mut b: Bytes<'a>) -> Result<Self> {
        let at = b.offset();
        let nr = b.read_u64("stat_config nr")?;
        let entries = read_array(&mut b, nr, 16, at, "stat_config entries")?;
        Ok(StatConfigRecord {
            entries,
            endian: b.endian(),
        })
    }

    /// `nr`.
    pub const fn len(&self) -> usize {
        self.entries.len() / 16
    }

    /// Whether there is no term.
    pub const fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The `(tag, val)` terms.
    pub fn iter(&self) -> impl FusedIterator<Item = (u64, u64)> + 'a {
        let e = self.endian;
        self.entries.chunks_exact(16).map(move |c| {
            (
                read_u64_at(c, 0, e).unwrap_or(0),
                read_u64_at(c, 8, e).unwrap_or(0),
            )
        })
    }
}

/// `struct perf_record_stat` (PERF_RECORD_STAT): one counter reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatRecord {
    /// `id` of the event.
    pub id: u64,
    /// `cpu` index.
    pub cpu: u32,
    /// `thread` index.
    pub thread: u32,
    /// `val`.
    pub val: u64,
    /// `ena`: time enabled.
    pub ena: u64,
    /// `run`: time running.
    pub run: u64,
}

impl StatRecord {
    pub(crate) fn parse(mut b: Bytes<'_>) -> Result<Self> {
        Ok(StatRecord {
            id: b.read_u64("stat id")?,
            cpu: b.read_u32("stat cpu")?,
            thread: b.read_u32("stat thread")?,
            val: b.read_u64("stat val")?,
            ena: b.read_u64("stat ena")?,
            run: b.read_u64("stat run")?,
        })
    }
}

/// `struct perf_record_stat_round` (PERF_RECORD_STAT_ROUND).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatRoundRecord {
    /// `type`: `PERF_STAT_ROUND_TYPE__INTERVAL` 0 or `__FINAL` 1.
    pub type_: u64,
    /// `time`.
    pub time: u64,
}

impl StatRoundRecord {
    pub(crate) fn parse(mut b: Bytes<'_>) -> Result<Self> {
        Ok(StatRoundRecord {
            type_: b.read_u64("stat_round type")?,
            time: b.read_u64("stat_round time")?,
        })
    }
}
