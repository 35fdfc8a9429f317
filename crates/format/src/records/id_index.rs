//! PERF_RECORD_ID_INDEX: which event, CPU and thread each sample id belongs to.

use core::iter::FusedIterator;

use super::callchain::read_array;
use crate::bytes::Bytes;
use crate::endian::Endianness;
use crate::error::Result;
use crate::layout::read_u64_at;

/// `struct perf_record_id_index` (PERF_RECORD_ID_INDEX): `nr` entries of `struct id_index_entry`,
/// followed (perf ≥ 5.19, guest machines) by `nr` entries of `struct id_index_entry_2` when the
/// record is long enough.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdIndexRecord<'a> {
    entries: &'a [u8],
    entries_2: Option<&'a [u8]>,
    endian: Endianness,
}

/// One id of an ID_INDEX record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdIndexEntry {
    /// `id`: the sample id.
    pub id: u64,
    /// `idx`: the index of the event in the attrs.
    pub idx: u64,
    /// `cpu` (`u64::MAX` for -1).
    pub cpu: u64,
    /// `tid` (`u64::MAX` for -1).
    pub tid: u64,
    /// `machine_pid` (from `id_index_entry_2`).
    pub machine_pid: Option<u64>,
    /// `vcpu` (from `id_index_entry_2`).
    pub vcpu: Option<u64>,
}

impl<'a> IdIndexRecord<'a> {
    pub(crate) fn parse(mut b: Bytes<'a>) -> Result<Self> {
        let at = b.offset();
        let nr = b.read_u64("id_index nr")?;
        let entries = read_array(&mut b, nr, 32, at, "id_index entries")?;
        let entries_2 = read_array(&mut b, nr, 16, at, "id_index entries_2")
            .ok()
            .filter(|e| !e.is_empty());
        Ok(IdIndexRecord {
            entries,
            entries_2,
            endian: b.endian(),
        })
    }

    /// `nr`.
    pub const fn len(&self) -> usize {
        self.entries.len() / 32
    }

    /// Whether there is no entry.
    pub const fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries.
    pub fn iter(&self) -> impl FusedIterator<Item = IdIndexEntry> + 'a {
        let e = self.endian;
        let e2 = self.entries_2;
        self.entries
            .chunks_exact(32)
            .enumerate()
            .map(move |(i, c)| {
                let w = |at: usize| read_u64_at(c, at, e).unwrap_or(0);
                let second = e2.and_then(|e2| e2.get(i * 16..i * 16 + 16));
                IdIndexEntry {
                    id: w(0),
                    idx: w(8),
                    cpu: w(16),
                    tid: w(24),
                    machine_pid: second.and_then(|s| read_u64_at(s, 0, e)),
                    vcpu: second.and_then(|s| read_u64_at(s, 8, e)),
                }
            })
    }
}
