//! [`RankIndex`]: the number of samples before any time in O(1) (plus a binary search inside one
//! small bucket), over sorted times that live elsewhere, so that a lane's density in `n` bins of
//! any width costs `n + 1` ranks whatever its number of samples and the zoom.
//!
//! The index is one level of prefix counts: `[origin, origin + (nb << shift))` split into `nb`
//! buckets of a power-of-two width, about one per [`SAMPLES_PER_BUCKET`] samples, and for each
//! bucket boundary the number of samples before it. A coarser level (a pyramid) would not make a
//! rank cheaper, and bins at pixel edges are not aligned to any level, so exact counts need
//! ranks: with this index they cost one lookup and a search among the few samples of one
//! bucket. The times are read through a closure (the web session keeps sample indices per lane,
//! not times), so the index costs 4 bytes per [`SAMPLES_PER_BUCKET`] samples.
//!
//! ```
//! use perfscope_analysis::timeline::RankIndex;
//! let times = [10u64, 11, 12, 30, 95];
//! let at = |i: usize| times.get(i).copied();
//! let index = RankIndex::new(times.len(), at);
//! assert_eq!(index.rank(13, at), 3);
//! let mut bins = [0u32; 4];
//! // Four bins over 0..=99: [0,25) [25,50) [50,75) [75,100).
//! index.counts_into(&[0, 25, 50, 75, 100], at, &mut bins);
//! assert_eq!(bins, [3, 1, 0, 1]);
//! ```

/// Average number of samples per bucket the index aims at (the binary search inside a bucket
/// takes about log2 of it steps).
pub const SAMPLES_PER_BUCKET: usize = 8;

/// Prefix counts at power-of-two time buckets over a sorted list of times.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RankIndex {
    /// The first time.
    origin: u64,
    /// log2 of the bucket width in ns.
    shift: u32,
    /// `starts[j]`: samples with time `< origin + (j << shift)`; `nb + 1` entries, empty when
    /// there are no samples or more than `u32::MAX`.
    starts: Vec<u32>,
    /// Number of samples.
    len: usize,
}

impl RankIndex {
    /// Indexes `len` times, `time(i)` for `i < len`, which must be sorted (a `None` counts as
    /// `u64::MAX`).
    pub fn new(len: usize, time: impl Fn(usize) -> Option<u64>) -> RankIndex {
        let at = |i: usize| time(i).unwrap_or(u64::MAX);
        if len == 0 {
            return RankIndex::default();
        }
        let (first, last) = (at(0), at(len - 1));
        if u32::try_from(len).is_err() || last < first {
            return RankIndex {
                origin: first,
                shift: 0,
                starts: Vec::new(),
                len,
            };
        }
        let target = (len / SAMPLES_PER_BUCKET).max(1) as u64;
        let span = last - first;
        let mut shift = 0u32;
        while shift < 63 && (span >> shift).saturating_add(1) > target {
            shift += 1;
        }
        let nb = usize::try_from((span >> shift).saturating_add(1)).unwrap_or(usize::MAX);
        let mut starts = Vec::with_capacity(nb.saturating_add(1));
        let mut i = 0usize;
        for j in 0..=nb {
            // Bucket j starts at first + (j << shift); the last boundary may pass u64::MAX.
            let bound = u128::from(first) + ((j as u128) << shift);
            while i < len && u128::from(at(i)) < bound {
                i += 1;
            }
            starts.push(u32::try_from(i).unwrap_or(u32::MAX));
        }
        RankIndex {
            origin: first,
            shift,
            starts,
            len,
        }
    }

    /// Number of samples indexed.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no sample is indexed.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes the index holds on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.starts.capacity() * core::mem::size_of::<u32>()
    }

    /// The number of samples with a time before `t`; `time` as given to [`RankIndex::new`].
    pub fn rank(&self, t: u64, time: impl Fn(usize) -> Option<u64>) -> usize {
        if t <= self.origin || self.len == 0 {
            return 0;
        }
        let before = |i: usize| time(i).is_some_and(|x| x < t);
        let (lo, hi) = if self.starts.is_empty() {
            (0, self.len)
        } else {
            let j = usize::try_from((t - self.origin) >> self.shift).unwrap_or(usize::MAX);
            match (self.starts.get(j), self.starts.get(j.saturating_add(1))) {
                (Some(&lo), Some(&hi)) => (lo as usize, (hi as usize).min(self.len)),
                // Past the last bucket, which ends after the last sample.
                _ => return self.len,
            }
        };
        // The first index in lo..hi whose time is not before t.
        let (mut lo, mut hi) = (lo, hi);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if before(mid) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Counts per bin for bins `[edges[k], edges[k + 1])` (edges ascending) into `out`
    /// (`out.len()` bins, `edges.len()` = bins + 1; missing edges count nothing).
    ///
    /// When the edges hold fewer samples than bins, the samples are visited rather than the bins:
    /// the cost is `O(min(samples in range, bins))` ranks or visits.
    pub fn counts_into(
        &self,
        edges: &[u64],
        time: impl Fn(usize) -> Option<u64> + Copy,
        out: &mut [u32],
    ) {
        let (Some(&first), Some(&last)) = (edges.first(), edges.get(out.len())) else {
            return;
        };
        let (a, b) = (self.rank(first, time), self.rank(last, time));
        if a >= b {
            return;
        }
        if b - a <= out.len() {
            // Few samples: find each one's bin (edges ascending: the last edge at or before it).
            let mut k = 0usize;
            for i in a..b {
                let Some(t) = time(i) else { continue };
                while edges.get(k + 1).is_some_and(|&e| e <= t) {
                    k += 1;
                }
                if let Some(slot) = out.get_mut(k) {
                    *slot = slot.saturating_add(1);
                }
            }
            return;
        }
        let mut prev = a;
        for (k, slot) in out.iter_mut().enumerate() {
            let next = edges.get(k + 1).map_or(prev, |&e| self.rank(e, time));
            *slot =
                slot.saturating_add(u32::try_from(next.saturating_sub(prev)).unwrap_or(u32::MAX));
            prev = next;
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::indexing_slicing)]
    use super::*;

    /// The obvious answer, without the index: binary searches over all the (sorted) times, or
    /// a look at every sample when `times` is short.
    fn naive(times: &[u64], edges: &[u64]) -> Vec<u32> {
        if times.len() < 16 {
            return edges
                .windows(2)
                .map(|w| times.iter().filter(|&&t| t >= w[0] && t < w[1]).count() as u32)
                .collect();
        }
        edges
            .windows(2)
            .map(|w| {
                (times.partition_point(|&t| t < w[1]) - times.partition_point(|&t| t < w[0])) as u32
            })
            .collect()
    }

    /// `n` equal bins over `start..=end`, as the timeline asks for them.
    fn edges(start: u64, end: u64, n: u64) -> Vec<u64> {
        let span = u128::from(end - start) + 1;
        (0..=n)
            .map(|k| {
                if k == n {
                    end.saturating_add(1)
                } else {
                    start + (span * u128::from(k) / u128::from(n)) as u64
                }
            })
            .collect()
    }

    fn counts(index: &RankIndex, times: &[u64], edges: &[u64]) -> Vec<u32> {
        let mut out = vec![0; edges.len() - 1];
        index.counts_into(edges, |i| times.get(i).copied(), &mut out);
        out
    }

    #[test]
    fn empty_and_single() {
        let none: [u64; 0] = [];
        let d = RankIndex::new(0, |i| none.get(i).copied());
        assert_eq!(counts(&d, &none, &edges(0, 9, 3)), [0, 0, 0]);
        assert_eq!(d.rank(u64::MAX, |i| none.get(i).copied()), 0);
        let one = [7u64];
        let at = |i: usize| one.get(i).copied();
        let d = RankIndex::new(1, at);
        assert_eq!(
            (d.rank(7, at), d.rank(8, at), d.rank(u64::MAX, at)),
            (0, 1, 1)
        );
        assert_eq!(counts(&d, &one, &edges(0, 9, 2)), [0, 1]);
        assert_eq!(counts(&d, &one, &[7, 8]), [1]);
        assert_eq!(
            counts(&d, &one, &[7, 7]),
            [0],
            "an empty range holds nothing"
        );
    }

    /// Bursts, gaps, duplicates and a far outlier, counted at every zoom and pan the timeline
    /// might ask for, both through the bins and through the samples (few samples in range).
    #[test]
    fn equals_counting_every_sample_at_any_zoom_and_pan() {
        let mut times: Vec<u64> = (0..5000).map(|i| 1_000_000 + i * 37).collect();
        times.extend((0..3000u64).map(|i| 50_000_000 + (i * i) % 9_777));
        times.extend([70_000_000, 70_000_000, 70_000_000, 70_000_001, 99_999_999]);
        times.extend((0..2000u64).map(|i| 80_000_000 + i));
        times.sort_unstable();
        let at = |i: usize| times.get(i).copied();
        let d = RankIndex::new(times.len(), at);
        assert!(
            d.heap_bytes() <= 4 * (times.len() / SAMPLES_PER_BUCKET + 2) * 2,
            "{} bytes",
            d.heap_bytes()
        );
        let (lo, hi) = (0u64, 100_000_000u64);
        // Zoom in around a point by 1.25 each step, then pan at that zoom.
        let mut span = hi - lo;
        while span > 50 {
            for center in [1_050_000u64, 50_004_000, 70_000_000, 80_001_000, 99_999_999] {
                let start = center.saturating_sub(span / 2);
                for pan in [0, span / 7, span / 3] {
                    let s = start + pan;
                    for n in [1, 7, 350, 1024] {
                        let e = edges(s, s + span, n);
                        assert_eq!(
                            counts(&d, &times, &e),
                            naive(&times, &e),
                            "{s}+{span} in {n}"
                        );
                    }
                }
            }
            span = span * 4 / 5;
        }
        for t in [
            0,
            999_999,
            1_000_000,
            1_000_037,
            70_000_000,
            70_000_001,
            99_999_999,
            100_000_000,
            u64::MAX,
        ] {
            assert_eq!(
                d.rank(t, at),
                times.iter().filter(|&&x| x < t).count(),
                "rank({t})"
            );
        }
    }

    #[test]
    fn extreme_times_do_not_overflow() {
        let times = [0u64, 1, u64::MAX - 1, u64::MAX];
        let at = |i: usize| times.get(i).copied();
        let d = RankIndex::new(times.len(), at);
        assert_eq!(d.rank(u64::MAX, at), 3);
        let e = [0, u64::MAX / 2, u64::MAX];
        assert_eq!(counts(&d, &times, &e), naive(&times, &e));
        assert_eq!(counts(&d, &times, &e), [2, 1]);
    }
}
