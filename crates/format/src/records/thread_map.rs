//! PERF_RECORD_THREAD_MAP: the threads perf record opened events on.

use core::iter::FusedIterator;

use super::callchain::read_array;
use crate::bytes::{until_nul, Bytes};
use crate::endian::Endianness;
use crate::error::Result;
use crate::features::RawStr;

/// Size of `struct perf_record_thread_map_entry`.
const ENTRY_SIZE: usize = 24;

/// `struct perf_record_thread_map` (PERF_RECORD_THREAD_MAP).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadMapRecord<'a> {
    entries: &'a [u8],
    endian: Endianness,
}

/// `struct perf_record_thread_map_entry`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadMapEntry<'a> {
    /// `pid` (a tid; `u64::MAX` for -1).
    pub pid: u64,
    /// `comm`.
    pub comm: RawStr<'a>,
}

impl<'a> ThreadMapRecord<'a> {
    pub(crate) fn parse(mut b: Bytes<'a>) -> Result<Self> {
        let at = b.offset();
        let nr = b.read_u64("thread_map nr")?;
        let entries = read_array(&mut b, nr, ENTRY_SIZE as u64, at, "thread_map entries")?;
        Ok(ThreadMapRecord {
            entries,
            endian: b.endian(),
        })
    }

    /// `nr`.
    pub const fn len(&self) -> usize {
        self.entries.len() / ENTRY_SIZE
    }

    /// Whether the map is empty.
    pub const fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries.
    pub fn iter(&self) -> impl FusedIterator<Item = ThreadMapEntry<'a>> + 'a {
        let e = self.endian;
        self.entries
            .chunks_exact(ENTRY_SIZE)
            .map(move |c| ThreadMapEntry {
                pid: crate::layout::read_u64_at(c, 0, e).unwrap_or(0),
                comm: RawStr(until_nul(c.get(8..).unwrap_or(&[]))),
            })
    }
}
