//! [`RowSet`]: the rows a records filter keeps, as one bit a row with a count of the rows kept
//! before every [`GROUP`] words, so that a page of them is found without a list of their
//! numbers (a filter keeping the 5.6M samples of a 315 MB recording: 0.7 MB, not 22 MB).

/// Words (64 rows each) per counted group.
const GROUP: usize = 64;

/// A set of row numbers below a length; see the module docs.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct RowSet {
    words: Vec<u64>,
    /// Rows kept before each group of [`GROUP`] words.
    before: Vec<u64>,
    len: u64,
}

impl RowSet {
    /// The rows below `n` for which `keep` holds (called once a row, in order).
    pub fn from_fn(n: usize, mut keep: impl FnMut(usize) -> bool) -> RowSet {
        let mut words = Vec::with_capacity(n.div_ceil(64));
        let mut before = Vec::with_capacity(n.div_ceil(64 * GROUP));
        let mut len = 0u64;
        for w in 0..n.div_ceil(64) {
            if w.is_multiple_of(GROUP) {
                before.push(len);
            }
            let mut word = 0u64;
            for bit in 0..64.min(n - w * 64) {
                if keep(w * 64 + bit) {
                    word |= 1 << bit;
                }
            }
            len += u64::from(word.count_ones());
            words.push(word);
        }
        RowSet { words, before, len }
    }

    /// Rows kept.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether no row is kept.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The kept rows from the `start`-th (counting from 0) on, at most `count` of them.
    pub fn page(&self, start: u64, count: usize) -> Vec<u32> {
        let mut out = Vec::with_capacity(count.min(self.len.saturating_sub(start) as usize));
        if start >= self.len || count == 0 {
            return out;
        }
        // The last group starting at or before `start`, then the word holding it.
        let g = self
            .before
            .partition_point(|&b| b <= start)
            .saturating_sub(1);
        let mut skip = start - self.before.get(g).copied().unwrap_or(0);
        for (w, &word) in self.words.iter().enumerate().skip(g * GROUP) {
            let ones = u64::from(word.count_ones());
            if skip >= ones {
                skip -= ones;
                continue;
            }
            let mut bits = word;
            while bits != 0 {
                let bit = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if skip > 0 {
                    skip -= 1;
                    continue;
                }
                out.push(u32::try_from(w * 64 + bit).unwrap_or(u32::MAX));
                if out.len() == count {
                    return out;
                }
            }
        }
        out
    }

    /// Every kept row, in order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.words.iter().enumerate().flat_map(|(w, &word)| {
            let mut bits = word;
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let bit = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    u32::try_from(w * 64 + bit).unwrap_or(u32::MAX)
                })
            })
        })
    }

    /// Bytes held on the heap.
    pub fn heap_bytes(&self) -> usize {
        (self.words.capacity() + self.before.capacity()) * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_the_kept_rows_listed_in_order() {
        // Rows kept by a pattern with long gaps and runs across groups (a group is 4096 rows).
        let n = 20_000;
        let keep = |i: usize| i % 7 == 3 || (9_000..13_500).contains(&i) || i == n - 1;
        let set = RowSet::from_fn(n, keep);
        let list: Vec<u32> = (0..n).filter(|&i| keep(i)).map(|i| i as u32).collect();
        assert_eq!(set.len(), list.len() as u64);
        assert_eq!(set.iter().collect::<Vec<_>>(), list);
        for start in [
            0,
            1,
            585,
            586,
            1_300,
            1_999,
            4_000,
            list.len() - 1,
            list.len(),
        ] {
            for count in [0, 1, 10, 1_000] {
                let want: Vec<u32> = list.iter().skip(start).take(count).copied().collect();
                assert_eq!(
                    set.page(start as u64, count),
                    want,
                    "start {start} count {count}"
                );
            }
        }
        assert!(set.page(u64::MAX, 5).is_empty());
        // One bit a row, and a count a group.
        assert_eq!(set.heap_bytes(), (n.div_ceil(64) + n.div_ceil(4096)) * 8);
    }

    #[test]
    fn an_empty_set_pages_nothing() {
        for n in [0, 1, 64, 65] {
            let set = RowSet::from_fn(n, |_| false);
            assert!(set.is_empty());
            assert!(set.page(0, 10).is_empty());
            assert_eq!(set.iter().count(), 0);
        }
    }
}
