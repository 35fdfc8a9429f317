//! Branch stacks (PERF_SAMPLE_BRANCH_STACK): `struct perf_branch_stack` with its optional
//! `hw_idx` and the optional per-branch counters.

use core::iter::FusedIterator;

use super::array::U64Array;
use super::callchain::read_array;
use crate::bytes::Bytes;
use crate::endian::Endianness;
use crate::error::Result;
use crate::layout::EventLayout;

/// Size of `struct perf_branch_entry`.
pub const BRANCH_ENTRY_SIZE: usize = 24;

/// `struct perf_branch_stack` and what follows it in a sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BranchStack<'a> {
    /// `hw_idx`, present when the event's `branch_sample_type` has HW_INDEX.
    pub hw_idx: Option<u64>,
    entries: &'a [u8],
    /// One counter word per entry, present when the event's group asks for
    /// PERF_SAMPLE_BRANCH_COUNTERS.
    pub counters: Option<U64Array<'a>>,
    endian: Endianness,
}

impl<'a> BranchStack<'a> {
    /// Reads `nr`, `hw_idx` (if the layout says so), `nr` entries and the counters (if the
    /// layout says so), in the order of perf's `evsel__parse_sample`.
    pub(crate) fn parse(b: &mut Bytes<'a>, layout: &EventLayout) -> Result<Self> {
        let at = b.offset();
        let nr = b.read_u64("branch stack nr")?;
        let hw_idx = if layout.branch_hw_index {
            Some(b.read_u64("branch stack hw_idx")?)
        } else {
            None
        };
        let entries = read_array(b, nr, BRANCH_ENTRY_SIZE as u64, at, "branch stack entries")?;
        let counters = if layout.branch_counters {
            Some(U64Array::new(
                read_array(b, nr, 8, at, "branch stack counters")?,
                b.endian(),
            ))
        } else {
            None
        };
        Ok(BranchStack {
            hw_idx,
            entries,
            counters,
            endian: b.endian(),
        })
    }

    /// The number of entries (`nr`).
    pub const fn len(&self) -> usize {
        self.entries.len() / BRANCH_ENTRY_SIZE
    }

    /// Whether there is no entry.
    pub const fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Entry `i` (0 is the most recent branch).
    pub fn get(&self, i: usize) -> Option<BranchEntry> {
        let start = i.checked_mul(BRANCH_ENTRY_SIZE)?;
        let chunk = self
            .entries
            .get(start..start.checked_add(BRANCH_ENTRY_SIZE)?)?;
        Some(BranchEntry::from_bytes(chunk, self.endian))
    }

    /// The entries, most recent first.
    pub fn entries(&self) -> BranchEntries<'a> {
        BranchEntries {
            chunks: self.entries.chunks_exact(BRANCH_ENTRY_SIZE),
            endian: self.endian,
        }
    }
}

/// `struct perf_branch_entry`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BranchEntry {
    /// `from`: the branch instruction.
    pub from: u64,
    /// `to`: the branch target.
    pub to: u64,
    /// The flag bitfield.
    pub flags: BranchFlags,
}

impl BranchEntry {
    fn from_bytes(chunk: &[u8], endian: Endianness) -> BranchEntry {
        let word = |i: usize| crate::layout::read_u64_at(chunk, i * 8, endian).unwrap_or(0);
        BranchEntry {
            from: word(0),
            to: word(1),
            flags: BranchFlags::from_word(word(2), endian),
        }
    }
}

/// Iterator over the entries of a [`BranchStack`].
#[derive(Debug, Clone)]
pub struct BranchEntries<'a> {
    chunks: core::slice::ChunksExact<'a, u8>,
    endian: Endianness,
}

impl Iterator for BranchEntries<'_> {
    type Item = BranchEntry;

    fn next(&mut self) -> Option<BranchEntry> {
        self.chunks
            .next()
            .map(|c| BranchEntry::from_bytes(c, self.endian))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.chunks.size_hint()
    }
}

impl ExactSizeIterator for BranchEntries<'_> {}
impl FusedIterator for BranchEntries<'_> {}

/// The flag bitfield of `struct perf_branch_entry`, normalized to the little-endian bit order
/// (bit 0 = `mispred`) whatever the file's byte order.
///
/// Layout: `mispred:1, predicted:1, in_tx:1, abort:1, cycles:16, type:4, spec:2, new_type:4,
/// priv:3, reserved:31`. A big-endian writer allocates the same fields from the most significant
/// bit down; perf's `evsel__bitfield_swap_branch_flags` moves them back the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BranchFlags(pub u64);

/// (position in little-endian order, width) of each field.
const FIELDS: [(u32, u32); 10] = [
    (0, 1),
    (1, 1),
    (2, 1),
    (3, 1),
    (4, 16),
    (20, 4),
    (24, 2),
    (26, 4),
    (30, 3),
    (33, 31),
];

// Indexing below is by loop counters bounded by `FIELDS.len()` or by constants, never by input.
#[allow(clippy::indexing_slicing)]
impl BranchFlags {
    /// Decodes the flag word as stored by a writer of byte order `endian`.
    pub const fn from_word(word: u64, endian: Endianness) -> BranchFlags {
        match endian {
            Endianness::Little => BranchFlags(word),
            Endianness::Big => {
                let mut out = 0u64;
                let mut i = 0;
                while i < FIELDS.len() {
                    let (pos, width) = FIELDS[i];
                    let mask = (1u64 << width) - 1;
                    let be_pos = 64 - pos - width;
                    out |= ((word >> be_pos) & mask) << pos;
                    i += 1;
                }
                BranchFlags(out)
            }
        }
    }

    const fn field(self, i: usize) -> u64 {
        let (pos, width) = FIELDS[i];
        (self.0 >> pos) & ((1u64 << width) - 1)
    }

    /// The target was mispredicted.
    pub const fn mispred(self) -> bool {
        self.field(0) != 0
    }
    /// The target was predicted.
    pub const fn predicted(self) -> bool {
        self.field(1) != 0
    }
    /// In a transaction.
    pub const fn in_tx(self) -> bool {
        self.field(2) != 0
    }
    /// A transaction abort.
    pub const fn abort(self) -> bool {
        self.field(3) != 0
    }
    /// Cycles since the previous branch.
    pub const fn cycles(self) -> u16 {
        self.field(4) as u16
    }
    /// `type` (`PERF_BR_*`).
    pub const fn type_(self) -> u8 {
        self.field(5) as u8
    }
    /// `spec` (`PERF_BR_SPEC_*`).
    pub const fn spec(self) -> u8 {
        self.field(6) as u8
    }
    /// `new_type` (`PERF_BR_NEW_*`).
    pub const fn new_type(self) -> u8 {
        self.field(7) as u8
    }
    /// `priv` (`PERF_BR_PRIV_*`).
    pub const fn priv_(self) -> u8 {
        self.field(8) as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attr::EventAttr;
    use crate::constants::{branch_sample_type as bst, sample_type as st};
    use crate::error::{Error, ErrorKind};
    use crate::testutil::Builder;

    #[test]
    fn big_endian_flags_are_normalized() {
        // mispred (bit 63), cycles = 0x1234 at bits 44..60, priv = 5 at bits 31..34.
        let be = (1u64 << 63) | (0x1234u64 << 44) | (5u64 << 31);
        let f = BranchFlags::from_word(be, Endianness::Big);
        assert!(f.mispred() && !f.predicted());
        assert_eq!((f.cycles(), f.priv_(), f.type_()), (0x1234, 5, 0));
        let le = 1 | (0x1234 << 4) | (5 << 30);
        assert_eq!(BranchFlags::from_word(le, Endianness::Little), f);
    }

    #[test]
    fn hw_idx_and_counters_follow_the_layout() {
        for e in [Endianness::Little, Endianness::Big] {
            let mut attr = EventAttr {
                sample_type: st::BRANCH_STACK,
                ..Default::default()
            };
            attr.branch_sample_type = bst::HW_INDEX | bst::COUNTERS;
            let layout = EventLayout::new(&attr);
            let data = Builder::new(e)
                .u64(2)
                .u64(9)
                .u64s(&[1, 2, 0, 3, 4, 0])
                .u64s(&[7, 8])
                .into_vec();
            let mut b = Bytes::new(&data, 0, e);
            let bs = BranchStack::parse(&mut b, &layout).unwrap();
            assert!(b.is_empty());
            assert_eq!((bs.len(), bs.hw_idx), (2, Some(9)));
            assert_eq!(bs.get(1).map(|x| (x.from, x.to)), Some((3, 4)));
            assert_eq!(
                bs.counters.unwrap().iter().collect::<alloc::vec::Vec<_>>(),
                [7, 8]
            );
            // Without counters in the layout, the counter words are not consumed.
            attr.branch_sample_type = 0;
            let mut b = Bytes::new(&data[..], 0, e);
            let layout = EventLayout::new(&attr);
            let bs = BranchStack::parse(&mut b, &layout).unwrap();
            assert_eq!((bs.hw_idx, bs.get(0).unwrap().from, b.len()), (None, 9, 24));
            // Too many entries.
            let bad = Builder::new(e).u64(5).u64s(&[1, 2, 3]).into_vec();
            let err = BranchStack::parse(&mut Bytes::new(&bad, 0x10, e), &layout).unwrap_err();
            assert_eq!(
                err,
                Error::new(
                    0x10,
                    ErrorKind::UnexpectedEof {
                        what: "branch stack entries",
                        needed: 120,
                        available: 24
                    }
                )
            );
        }
    }
}
