//! [`Chunked`]: an append-only column kept in blocks of at most [`CHUNK_BYTES`], for the
//! biggest tables of a profile (samples, stacks, frames, functions).
//!
//! A `Vec` grows by copying into a bigger block and freeing the old one. On wasm32 the memory
//! never shrinks and the allocator cannot move blocks, so the freed blocks of a dozen growing
//! columns become holes that later big blocks rarely fit: a third of the worker's memory was
//! such holes (BENCHMARKS.md, session 7). Here a column never copies: it adds a block of one
//! size when the last is full, and any block freed anywhere fits the next one.

/// Bytes per block (at most; the number of items per block is a power of two).
pub const CHUNK_BYTES: usize = 1 << 20;

/// An append-only column in blocks; see the module docs.
#[derive(Clone, Debug)]
pub struct Chunked<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for Chunked<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: PartialEq> PartialEq for Chunked<T> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl<T> Chunked<T> {
    /// Items per block: a power of two, at least one.
    const SHIFT: u32 = {
        let size = if core::mem::size_of::<T>() == 0 {
            1
        } else {
            core::mem::size_of::<T>()
        };
        let per = if CHUNK_BYTES / size == 0 {
            1
        } else {
            CHUNK_BYTES / size
        };
        usize::BITS - 1 - per.leading_zeros()
    };
    const PER: usize = 1 << Self::SHIFT;

    /// An empty column (usable in a `static`).
    pub const fn new() -> Self {
        Chunked {
            chunks: Vec::new(),
            len: 0,
        }
    }

    /// `n` copies of `value`.
    pub fn from_elem(value: T, n: usize) -> Self
    where
        T: Clone,
    {
        let mut c = Self::new();
        for start in (0..n).step_by(Self::PER) {
            c.chunks.push(vec![value.clone(); Self::PER.min(n - start)]);
        }
        c.len = n;
        c
    }

    /// Appends `value`. Every block but the last holds exactly `PER` items. The first block grows like a `Vec`
    /// (doubling, up to a block) so that small tables stay small; the next ones are made whole.
    #[inline]
    pub fn push(&mut self, value: T) {
        // Most pushes: the last block has room already (one comparison).
        if let Some(last) = self.chunks.last_mut() {
            if last.len() < last.capacity().min(Self::PER) {
                last.push(value);
                self.len += 1;
                return;
            }
        }
        self.push_cold(value);
    }

    /// [`Chunked::push`] when the last block is full (or its capacity is): grows it or adds a
    /// block.
    #[cold]
    #[inline(never)]
    fn push_cold(&mut self, value: T) {
        match self.chunks.last_mut() {
            Some(last) if last.len() < Self::PER => {
                if last.len() == last.capacity() {
                    last.reserve_exact(last.len().max(8).min(Self::PER - last.len()));
                }
                last.push(value);
            }
            _ => {
                let mut block = Vec::with_capacity(if self.chunks.is_empty() {
                    8.min(Self::PER)
                } else {
                    Self::PER
                });
                block.push(value);
                self.chunks.push(block);
            }
        }
        self.len += 1;
    }

    /// The item at `i`.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&T> {
        self.chunks.get(i >> Self::SHIFT)?.get(i & (Self::PER - 1))
    }

    /// The item at `i`, to change.
    #[inline]
    pub fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        self.chunks
            .get_mut(i >> Self::SHIFT)?
            .get_mut(i & (Self::PER - 1))
    }

    /// The last item.
    pub fn last(&self) -> Option<&T> {
        self.chunks.last()?.last()
    }

    /// The first item.
    pub fn first(&self) -> Option<&T> {
        self.chunks.first()?.first()
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no item.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Sets every item to `value`, keeping the blocks.
    pub fn fill(&mut self, value: T)
    where
        T: Clone,
    {
        for block in &mut self.chunks {
            block.fill(value.clone());
        }
    }

    /// The items in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + '_ {
        self.chunks.iter().flatten()
    }

    /// The items in order, with their count known.
    pub fn iter_exact(&self) -> impl ExactSizeIterator<Item = &T> + '_ {
        Counted {
            inner: self.iter(),
            left: self.len,
        }
    }

    /// The items from `start` on, in order.
    pub fn iter_from(&self, start: usize) -> impl Iterator<Item = &T> + '_ {
        let (c, k) = (start >> Self::SHIFT, start & (Self::PER - 1));
        self.chunks
            .iter()
            .skip(c)
            .enumerate()
            .flat_map(move |(j, b)| b.get(if j == 0 { k } else { 0 }..).unwrap_or_default())
    }

    /// The blocks, in order (each a slice of consecutive items).
    pub fn blocks(&self) -> impl Iterator<Item = &[T]> + '_ {
        self.chunks.iter().map(Vec::as_slice)
    }

    /// The blocks, in order, to change their items in place.
    pub fn blocks_mut(&mut self) -> impl Iterator<Item = &mut [T]> + '_ {
        self.chunks.iter_mut().map(Vec::as_mut_slice)
    }

    /// The index of the first item for which `pred` is false, the items being partitioned
    /// (all `true` before all `false`), as `slice::partition_point`.
    pub fn partition_point(&self, mut pred: impl FnMut(&T) -> bool) -> usize {
        // The first block whose last item fails, then inside it.
        let c = self
            .chunks
            .partition_point(|b| b.last().is_some_and(&mut pred));
        match self.chunks.get(c) {
            Some(b) => (c << Self::SHIFT) + b.partition_point(pred),
            None => self.len,
        }
    }

    /// Frees the unused room of the last block.
    pub fn shrink_to_fit(&mut self) {
        if let Some(last) = self.chunks.last_mut() {
            last.shrink_to_fit();
        }
        self.chunks.shrink_to_fit();
    }

    /// Bytes held on the heap (see [`crate::heap`]).
    pub fn heap_bytes(&self) -> usize {
        self.chunks
            .iter()
            .map(crate::heap::vec_bytes)
            .sum::<usize>()
            + crate::heap::vec_bytes(&self.chunks)
    }
}

/// An append-only column that keeps one value while every item has it, and becomes a
/// [`Chunked`] column at the first item that differs: the event of a recording of one event,
/// the period of a fixed-period or `-F` software event, cost nothing per sample.
#[derive(Clone, Debug, Default)]
pub struct Uniform<T> {
    /// The value of every item while `varied` is empty (`None`: no item yet).
    first: Option<T>,
    len: usize,
    /// Every item, once one differed from the first.
    varied: Option<Chunked<T>>,
}

impl<T: Copy + PartialEq + Default> Uniform<T> {
    /// An empty column (usable in a `static`).
    pub const fn new() -> Self {
        Uniform {
            first: None,
            len: 0,
            varied: None,
        }
    }

    /// Appends `value`.
    #[inline]
    pub fn push(&mut self, value: T) {
        match (&mut self.varied, self.first) {
            (Some(items), _) => items.push(value),
            (None, None) => self.first = Some(value),
            (None, Some(first)) if first == value => {}
            (None, Some(first)) => {
                let mut items = Chunked::from_elem(first, self.len);
                items.push(value);
                self.varied = Some(items);
            }
        }
        self.len += 1;
    }

    /// The item at `i`.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&T> {
        match &self.varied {
            Some(items) => items.get(i),
            None if i < self.len => self.first.as_ref(),
            None => None,
        }
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no item.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether every item is the same (or there is none).
    pub fn is_uniform(&self) -> bool {
        self.varied.is_none()
    }

    /// The value of every item, when there are items and they are all the same.
    pub fn uniform_value(&self) -> Option<T> {
        self.varied.is_none().then_some(self.first).flatten()
    }

    /// The items in order, with their count known.
    pub fn iter_exact(&self) -> impl ExactSizeIterator<Item = T> + '_ {
        // Every index below `len` has an item: the default is never taken.
        (0..self.len).map(move |i| self.get(i).copied().unwrap_or_default())
    }

    /// Frees the unused capacity.
    pub fn shrink_to_fit(&mut self) {
        if let Some(items) = self.varied.as_mut() {
            items.shrink_to_fit();
        }
    }

    /// Bytes held on the heap (see [`crate::heap`]).
    pub fn heap_bytes(&self) -> usize {
        self.varied.as_ref().map_or(0, Chunked::heap_bytes)
    }
}

impl<T: PartialOrd> Chunked<T> {
    /// Whether the items are in order.
    pub fn is_sorted(&self) -> bool {
        let mut prev: Option<&T> = None;
        self.chunks.iter().all(|b| {
            let ok = b.is_sorted() && prev.zip(b.first()).is_none_or(|(p, f)| p <= f);
            prev = b.last().or(prev);
            ok
        })
    }
}

impl<T> FromIterator<T> for Chunked<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut c = Self::new();
        for x in iter {
            c.push(x);
        }
        c
    }
}

/// An iterator of a known number of items ([`Chunked::iter_exact`]).
struct Counted<I> {
    inner: I,
    left: usize,
}

impl<I: Iterator> Iterator for Counted<I> {
    type Item = I::Item;

    #[inline]
    fn next(&mut self) -> Option<I::Item> {
        let x = self.inner.next()?;
        self.left = self.left.saturating_sub(1);
        Some(x)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<I: Iterator> ExactSizeIterator for Counted<I> {}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_uniform_column_holds_one_value_until_an_item_differs() {
        let mut u = Uniform::<u32>::new();
        assert!(u.is_empty() && u.is_uniform() && u.get(0).is_none());
        let n = Chunked::<u32>::PER + 3;
        for _ in 0..n {
            u.push(50_000);
        }
        assert_eq!((u.len(), u.heap_bytes()), (n, 0));
        assert!(u.is_uniform());
        assert_eq!(
            (u.get(0), u.get(n - 1), u.get(n)),
            (Some(&50_000), Some(&50_000), None)
        );
        // The first other value makes it a column of every item, the earlier ones included.
        u.push(7);
        u.push(50_000);
        assert!(!u.is_uniform() && u.heap_bytes() >= (n + 2) * 4);
        let want: Vec<u32> = std::iter::repeat_n(50_000, n).chain([7, 50_000]).collect();
        assert_eq!(u.iter_exact().len(), n + 2);
        assert!(u.iter_exact().eq(want.iter().copied()));
        for (i, w) in want.iter().enumerate() {
            assert_eq!(u.get(i), Some(w), "{i}");
        }
        assert_eq!(u.get(n + 2), None);
    }

    #[test]
    fn a_column_of_several_blocks_reads_back_like_a_vec() {
        // u64: 131 072 per block; three blocks and a bit.
        let n = 3 * Chunked::<u64>::PER + 5;
        let v: Vec<u64> = (0..n as u64).map(|i| i * 3).collect();
        let mut c: Chunked<u64> = v.iter().copied().collect();
        assert_eq!(c.len(), n);
        assert_eq!(c.blocks().count(), 4);
        assert!(c.blocks().all(|b| b.len() * 8 <= CHUNK_BYTES));
        for i in [0, 1, Chunked::<u64>::PER - 1, Chunked::<u64>::PER, n - 1] {
            assert_eq!(c.get(i), v.get(i), "{i}");
        }
        assert_eq!(c.get(n), None);
        assert_eq!((c.first(), c.last()), (v.first(), v.last()));
        assert!(c.iter().eq(v.iter()));
        for start in [0, 7, Chunked::<u64>::PER, n - 1, n, n + 3] {
            assert!(c.iter_from(start).eq(v.iter().skip(start)), "{start}");
        }
        for t in [
            0,
            1,
            2,
            3,
            299,
            300,
            3 * n as u64 - 3,
            3 * n as u64,
            u64::MAX,
        ] {
            assert_eq!(
                c.partition_point(|&x| x < t),
                v.partition_point(|&x| x < t),
                "{t}"
            );
        }
        assert!(c.is_sorted());
        *c.get_mut(Chunked::<u64>::PER).unwrap() = 0;
        assert!(!c.is_sorted());
        c.shrink_to_fit();
        assert_eq!(c.heap_bytes(), n * 8 + 4 * core::mem::size_of::<Vec<u64>>());
        let e = Chunked::from_elem(7u16, Chunked::<u16>::PER + 1);
        assert_eq!(
            (e.len(), e.blocks().count(), e.iter().all(|&x| x == 7)),
            (Chunked::<u16>::PER + 1, 2, true)
        );
        assert_eq!(Chunked::<u32>::new().partition_point(|_| true), 0);
    }
}
