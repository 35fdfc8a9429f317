//! [`LaneList`]: the samples of one timeline lane (indices into the profile's sample columns),
//! in about two bytes an entry instead of four.
//!
//! Entries are kept in blocks of [`BLOCK`]. A block whose entries lie within 65 536 of its
//! smallest one (a CPU's samples, a thread's while it runs) keeps each as a `u16` offset from
//! that smallest entry; any other block keeps its entries whole. An entry is then found in one
//! lookup of its block and one of the entry, as in a plain list.

/// Entries per block.
pub const BLOCK: usize = 64;
/// Set in a block's position when its entries are in `wide`.
const WIDE_BIT: u32 = 1 << 31;

/// A list of sample indices; see the module docs.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct LaneList {
    len: usize,
    /// Per block: its smallest entry, and where its entries start in `narrow` (as offsets from
    /// the smallest) or, with [`WIDE_BIT`], in `wide`.
    blocks: Vec<(u32, u32)>,
    narrow: Vec<u16>,
    wide: Vec<u32>,
    /// The entries of the block being filled.
    pending: Vec<u32>,
}

impl LaneList {
    /// An empty list for `n` entries: the offsets' room is taken at once (two bytes an entry),
    /// so a list whose blocks are all narrow never grows by copying.
    pub fn with_capacity(n: usize) -> LaneList {
        LaneList {
            blocks: Vec::with_capacity(n.div_ceil(BLOCK)),
            narrow: Vec::with_capacity(n),
            ..LaneList::default()
        }
    }

    /// The list of `entries`, in their order.
    pub fn from_entries(entries: &[u32]) -> LaneList {
        let mut list = LaneList::with_capacity(entries.len());
        for &e in entries {
            list.push(e);
        }
        list.finish();
        list
    }

    /// Appends `entry`; [`LaneList::finish`] stores the last block.
    pub fn push(&mut self, entry: u32) {
        if self.pending.capacity() == 0 {
            self.pending.reserve_exact(BLOCK);
        }
        self.pending.push(entry);
        self.len += 1;
        if self.pending.len() == BLOCK {
            self.store_pending();
        }
    }

    /// Stores the entries pushed since the last full block (call once all are pushed).
    pub fn finish(&mut self) {
        if !self.pending.is_empty() {
            self.store_pending();
        }
        self.pending = Vec::new();
        // Room kept for offsets that went to wide blocks instead (sparse lanes: few entries).
        self.narrow.shrink_to_fit();
        self.wide.shrink_to_fit();
    }

    fn store_pending(&mut self) {
        let min = self.pending.iter().copied().min().unwrap_or(0);
        let max = self.pending.iter().copied().max().unwrap_or(0);
        let narrow = max - min <= u32::from(u16::MAX);
        let at = if narrow {
            self.narrow.len()
        } else {
            self.wide.len()
        };
        // Below 2^31 entries in either store (a lane holds at most the u32 sample indices).
        let Some(at) = u32::try_from(at).ok().filter(|&a| a < WIDE_BIT) else {
            self.pending.clear();
            return;
        };
        self.blocks
            .push((min, if narrow { at } else { at | WIDE_BIT }));
        if narrow {
            self.narrow.extend(
                self.pending
                    .iter()
                    .map(|&e| u16::try_from(e - min).unwrap_or(u16::MAX)),
            );
        } else {
            self.wide.extend_from_slice(&self.pending);
        }
        self.pending.clear();
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the list has no entry.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Entry `k` (of the stored blocks: after [`LaneList::finish`], any).
    #[inline]
    pub fn get(&self, k: usize) -> Option<u32> {
        let &(min, at) = self.blocks.get(k / BLOCK)?;
        let j = (at & !WIDE_BIT) as usize + k % BLOCK;
        if at & WIDE_BIT != 0 {
            self.wide.get(j).copied()
        } else {
            self.narrow.get(j).map(|&o| min + u32::from(o))
        }
    }

    /// The entries in order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.len).filter_map(|k| self.get(k))
    }

    /// Bytes held on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.blocks.capacity() * std::mem::size_of::<(u32, u32)>()
            + self.narrow.capacity() * 2
            + self.wide.capacity() * 4
            + self.pending.capacity() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_come_back_in_order_from_narrow_and_wide_blocks() {
        // Dense (narrow blocks), then sparse (wide), an unordered run, and a partial last block.
        let mut entries: Vec<u32> = (0..200).map(|i| i * 3).collect();
        entries.extend((0..100).map(|i| 1_000 + i * 70_000));
        entries.extend([u32::MAX, 0, 65_535, 65_536, 7]);
        entries.extend((0..70).map(|i| 10_000_000 + i));
        let list = LaneList::from_entries(&entries);
        assert_eq!(list.len(), entries.len());
        assert_eq!(list.iter().collect::<Vec<_>>(), entries);
        for (k, &e) in entries.iter().enumerate() {
            assert_eq!(list.get(k), Some(e), "{k}");
        }
        assert_eq!(list.get(entries.len()), None);
        // Blocks 0–2 are narrow (spans of 189 entries × 3 at most); 3 and 4 are wide.
        let wide: Vec<bool> = list.blocks.iter().map(|b| b.1 & WIDE_BIT != 0).collect();
        assert_eq!(wide[..3], [false, false, false]);
        assert_eq!(wide[3..5], [true, true]);
        assert!(!list.is_empty() && LaneList::from_entries(&[]).is_empty());
    }

    #[test]
    fn a_dense_list_takes_about_two_bytes_an_entry() {
        let entries: Vec<u32> = (0..100_000).map(|i| 5_000_000 + i * 2).collect();
        let list = LaneList::from_entries(&entries);
        assert_eq!(list.iter().collect::<Vec<_>>(), entries);
        let per_entry = list.heap_bytes() as f64 / entries.len() as f64;
        // 2 bytes an offset + 8 bytes a block of 64.
        assert!((2.0..2.2).contains(&per_entry), "{per_entry}");
    }
}
