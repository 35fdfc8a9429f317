//! [`TimeColumn`]: the samples' times (ns), 4 bytes each where they can be.
//!
//! The times come in blocks of [`BLOCK`] samples. A block holds each time as a `u32` offset
//! from its base (2³¹ ns before its first time, so that samples up to ~2.1 s earlier than that
//! one fit too, as a recording's late samples do), until one does not fit (a block that spans
//! more than ~2 s, or a time from before its base): the block then holds its times whole. A
//! busy recording's block of 4 096 samples spans milliseconds, so its times take half the
//! memory of a column of `u64` (3.3M samples: 13 MB less); a slow one's blocks are whole, as
//! before. Nothing is rounded.
//!
//! Blocks are made at one size (the first grows up to it), so that on wasm32, where freed
//! memory is only reused by blocks that fit the holes, a block converted to whole times leaves
//! a hole the next narrow block fills (see [`crate::chunked`]).

/// Samples per block.
pub const BLOCK: usize = 1 << 12;
/// Bytes of a block's entry in the column's list of blocks (besides its times).
pub const BLOCK_ENTRY_BYTES: usize = std::mem::size_of::<Block>();
const SHIFT: u32 = BLOCK.trailing_zeros();
/// How much earlier than a block's first time its base is.
const BACK: u64 = 1 << 31;

#[derive(Clone, Debug)]
enum Block {
    /// Offsets from `base`.
    Narrow { base: u64, offsets: Vec<u32> },
    /// Whole times.
    Wide(Vec<u64>),
}

impl Block {
    fn get(&self, i: usize) -> Option<u64> {
        match self {
            Block::Narrow { base, offsets } => offsets.get(i).map(|&o| base + u64::from(o)),
            Block::Wide(t) => t.get(i).copied(),
        }
    }

    fn heap_bytes(&self) -> usize {
        match self {
            Block::Narrow { offsets, .. } => offsets.capacity() * 4,
            Block::Wide(t) => t.capacity() * 8,
        }
    }
}

/// The samples' times; see the module docs.
#[derive(Clone, Debug, Default)]
pub struct TimeColumn {
    blocks: Vec<Block>,
    len: usize,
}

impl PartialEq for TimeColumn {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl TimeColumn {
    /// An empty column.
    pub const fn new() -> Self {
        TimeColumn {
            blocks: Vec::new(),
            len: 0,
        }
    }

    /// Appends a time.
    #[inline]
    pub fn push(&mut self, t: u64) {
        if self.len.is_multiple_of(BLOCK) {
            // The first block grows from small (a small table stays small); the next ones are
            // made whole.
            let capacity = if self.blocks.is_empty() { 16 } else { BLOCK };
            let mut offsets = Vec::with_capacity(capacity);
            // (Near time 0 the base is 0: the offset is then the time, less than BACK.)
            let base = t.saturating_sub(BACK);
            offsets.push(u32::try_from(t - base).unwrap_or(u32::MAX));
            self.blocks.push(Block::Narrow { base, offsets });
            self.len += 1;
            return;
        }
        self.len += 1;
        let Some(last) = self.blocks.last_mut() else {
            return;
        };
        if let Block::Narrow { base, offsets } = last {
            if let Some(o) = t.checked_sub(*base).and_then(|d| u32::try_from(d).ok()) {
                offsets.push(o);
                return;
            }
            self.widen_last();
        }
        if let Some(Block::Wide(times)) = self.blocks.last_mut() {
            times.push(t);
        }
    }

    /// Makes the last block hold its times whole.
    #[cold]
    fn widen_last(&mut self) {
        if let Some(b) = self.blocks.last_mut() {
            if let Block::Narrow { base, offsets } = b {
                // (As much room as the offsets had: a first block still growing stays small.)
                let mut times = Vec::with_capacity(offsets.capacity());
                times.extend(offsets.iter().map(|&o| *base + u64::from(o)));
                *b = Block::Wide(times);
            }
        }
    }

    /// Number of times.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Time `i`.
    #[inline]
    pub fn get(&self, i: usize) -> Option<u64> {
        self.blocks.get(i >> SHIFT)?.get(i & (BLOCK - 1))
    }

    /// The number of leading times that pass `pred`, when all that pass come before all that
    /// fail (as `slice::partition_point`).
    pub fn partition_point(&self, mut pred: impl FnMut(u64) -> bool) -> usize {
        let (mut lo, mut hi) = (0, self.len);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.get(mid).is_some_and(&mut pred) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// The first time.
    pub fn first(&self) -> Option<u64> {
        self.get(0)
    }

    /// The last time.
    pub fn last(&self) -> Option<u64> {
        self.len.checked_sub(1).and_then(|i| self.get(i))
    }

    /// Every time, in order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + Clone + '_ {
        self.blocks.iter().flat_map(|b| {
            let (narrow, wide) = match b {
                Block::Narrow { base, offsets } => (Some((*base, offsets.iter())), None),
                Block::Wide(t) => (None, Some(t.iter())),
            };
            let narrow = narrow
                .into_iter()
                .flat_map(|(base, o)| o.map(move |&o| base + u64::from(o)));
            narrow.chain(wide.into_iter().flatten().copied())
        })
    }

    /// Whether the times never go down.
    pub fn is_sorted(&self) -> bool {
        self.iter().is_sorted()
    }

    /// The times in a `Vec`.
    pub fn to_vec(&self) -> Vec<u64> {
        self.iter().collect()
    }

    /// The least and the greatest time, if any.
    pub fn min_max(&self) -> Option<(u64, u64)> {
        let mut lo_hi = None;
        for b in &self.blocks {
            let (lo, hi) = match b {
                Block::Narrow { base, offsets } => {
                    let lo = offsets.iter().min().map(|&o| base + u64::from(o));
                    let hi = offsets.iter().max().map(|&o| base + u64::from(o));
                    (lo, hi)
                }
                Block::Wide(t) => (t.iter().min().copied(), t.iter().max().copied()),
            };
            if let (Some(lo), Some(hi)) = (lo, hi) {
                let (a, b) = lo_hi.unwrap_or((lo, hi));
                lo_hi = Some((a.min(lo), b.max(hi)));
            }
        }
        lo_hi
    }

    /// Frees the unused capacity.
    pub fn shrink_to_fit(&mut self) {
        self.blocks.shrink_to_fit();
        match self.blocks.last_mut() {
            Some(Block::Narrow { offsets, .. }) => offsets.shrink_to_fit(),
            Some(Block::Wide(t)) => t.shrink_to_fit(),
            None => {}
        }
    }

    /// Bytes held on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.blocks.capacity() * std::mem::size_of::<Block>()
            + self.blocks.iter().map(Block::heap_bytes).sum::<usize>()
    }
}

impl FromIterator<u64> for TimeColumn {
    fn from_iter<I: IntoIterator<Item = u64>>(iter: I) -> Self {
        let mut c = TimeColumn::new();
        for t in iter {
            c.push(t);
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_come_back_as_pushed_narrow_or_whole() {
        // A busy block (ns apart), late samples up to 2 s back, then a block spanning hours
        // (whole), times near 0 and near u64::MAX.
        let mut want: Vec<u64> = Vec::new();
        let start = 5_000_000_000_000u64;
        want.extend((0..BLOCK as u64).map(|i| start + i * 1_000));
        want.extend((0..100).map(|i| start - 2_000_000_000 + i));
        want.extend((0..BLOCK as u64).map(|i| start + i * 3_600_000_000_000));
        want.extend([0, 1, 5, u64::MAX, u64::MAX - 1, 7]);
        want.extend((0..3 * BLOCK as u64).map(|i| start + i * 10));
        let c: TimeColumn = want.iter().copied().collect();
        assert_eq!(c.len(), want.len());
        assert_eq!(c.to_vec(), want);
        assert!(want.iter().enumerate().all(|(i, &t)| c.get(i) == Some(t)));
        assert_eq!(c.get(want.len()), None);
        assert_eq!(c.first(), want.first().copied());
        let sorted: TimeColumn = (0..3 * BLOCK as u64).map(|i| 77 + i * 2).collect();
        for t in [0, 77, 78, 79, 5_000, 77 + 6 * BLOCK as u64] {
            let want = (0..3 * BLOCK as u64)
                .map(|i| 77 + i * 2)
                .filter(|&x| x < t)
                .count();
            assert_eq!(sorted.partition_point(|x| x < t), want, "before {t}");
        }
        assert_eq!(c.last(), want.last().copied());
        assert_eq!(
            c.min_max(),
            Some((0, u64::MAX)),
            "the least and greatest of every block"
        );
        assert!(!c.is_sorted());
    }

    #[test]
    fn a_busy_recordings_times_take_four_bytes_each() {
        let n = 20 * BLOCK as u64;
        let c: TimeColumn = (0..n).map(|i| 1_000_000_000_000 + i * 25_000).collect();
        let per = c.heap_bytes() as f64 / n as f64;
        assert!((4.0..4.1).contains(&per), "{per} bytes a time");
        assert!(c.is_sorted());
        // One that spans hours per block keeps them whole (8 bytes).
        let slow: TimeColumn = (0..n).map(|i| i * 3_000_000_000).collect();
        let per = slow.heap_bytes() as f64 / n as f64;
        assert!((8.0..8.3).contains(&per), "{per} bytes a time");
        assert_eq!(slow.get(12_345), Some(12_345 * 3_000_000_000));
    }

    #[test]
    fn an_empty_column_has_no_times() {
        let c = TimeColumn::new();
        assert!(c.is_empty());
        assert_eq!(c.first(), None);
        assert_eq!(c.last(), None);
        assert_eq!(c.min_max(), None);
        assert!(c.is_sorted());
    }
}
