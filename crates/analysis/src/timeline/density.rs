//! [`SampleDensity`]: the sample times of one timeline lane, sorted, with a bucket index so
//! that the number of samples in any time bin is found without scanning the samples.
//!
//! The index splits `[origin, origin + nb << shift)` into `nb` buckets of a power-of-two width,
//! with `nb` about half the number of samples, and stores for each bucket boundary how many
//! samples lie before it. The rank of any time (samples before it) is then the count at its
//! bucket's start plus a binary search inside that one bucket, which holds two samples on
//! average. A histogram of `nbins` bins needs `nbins + 1` ranks: O(nbins · (1 + log m)) with `m`
//! the samples of the densest bucket touched — O(nbins) for evenly spread samples, never worse
//! than O(nbins · log n) — at any zoom, with exact counts. The index costs 4 bytes per two
//! samples.

/// Sorted sample times of one lane with a bucket index for counting samples in time ranges.
///
/// ```
/// use perfscope_analysis::timeline::SampleDensity;
/// let d = SampleDensity::new(vec![30, 10, 11, 12, 95]);
/// assert_eq!(d.count(10, 13), 3);
/// // Four bins over [0, 100): [0,25) [25,50) [50,75) [75,100).
/// assert_eq!(d.density(0, 100, 4), [3, 1, 0, 1]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SampleDensity {
    times: Vec<u64>,
    origin: u64,
    shift: u32,
    /// `starts[j]`: samples with time `< origin + (j << shift)`; `nb + 1` entries (empty when
    /// there is no index: no samples, or more than `u32::MAX`).
    starts: Vec<u32>,
}

impl SampleDensity {
    /// Sorts `times` and builds the index.
    pub fn new(mut times: Vec<u64>) -> Self {
        times.sort_unstable();
        let (Some(&first), Some(&last)) = (times.first(), times.last()) else {
            return SampleDensity::default();
        };
        if u32::try_from(times.len()).is_err() {
            return SampleDensity { times, origin: first, shift: 0, starts: Vec::new() };
        }
        // Buckets: at most max(n / 2, 1), covering [first, last] inclusive.
        let target = (times.len() / 2).max(1) as u64;
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
            while times.get(i).is_some_and(|&t| u128::from(t) < bound) {
                i += 1;
            }
            starts.push(u32::try_from(i).unwrap_or(u32::MAX));
        }
        SampleDensity { times, origin: first, shift, starts }
    }

    /// The sorted times.
    pub fn times(&self) -> &[u64] {
        &self.times
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// Whether there is no sample.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    /// The number of samples with a time before `t`.
    pub fn rank(&self, t: u64) -> usize {
        if t <= self.origin {
            return 0;
        }
        if self.starts.is_empty() {
            return self.times.partition_point(|&x| x < t);
        }
        let j = usize::try_from((t - self.origin) >> self.shift).unwrap_or(usize::MAX);
        let (Some(&lo), Some(&hi)) = (self.starts.get(j), self.starts.get(j.saturating_add(1))) else {
            // Past the last bucket, which ends after the last sample.
            return self.times.len();
        };
        let (lo, hi) = (lo as usize, hi as usize);
        lo + self.times.get(lo..hi).map_or(0, |b| b.partition_point(|&x| x < t))
    }

    /// The number of samples with `t0 <= time < t1`.
    pub fn count(&self, t0: u64, t1: u64) -> usize {
        self.rank(t1).saturating_sub(self.rank(t0))
    }

    /// Sample counts in `out.len()` equal bins over `[t0, t1)`: bin `i` is
    /// `[t0 + i·(t1−t0)/n, t0 + (i+1)·(t1−t0)/n)` with the bounds rounded down, so the bins tile
    /// the range exactly and their sum is [`count(t0, t1)`](Self::count).
    pub fn density_into(&self, t0: u64, t1: u64, out: &mut [u32]) {
        let n = out.len() as u128;
        let width = u128::from(t1.saturating_sub(t0));
        let bound = |i: u128| -> u64 {
            // t0 + i * width / n <= t1, so it fits in u64.
            u64::try_from(u128::from(t0) + i * width / n.max(1)).unwrap_or(t1)
        };
        let mut prev = self.rank(t0);
        for (i, slot) in out.iter_mut().enumerate() {
            let next = self.rank(bound(i as u128 + 1));
            *slot = u32::try_from(next.saturating_sub(prev)).unwrap_or(u32::MAX);
            prev = next;
        }
    }

    /// Sample counts in `nbins` equal bins over `[t0, t1)` (see [`density_into`](Self::density_into)).
    pub fn density(&self, t0: u64, t1: u64, nbins: usize) -> Vec<u32> {
        let mut out = vec![0; nbins];
        self.density_into(t0, t1, &mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The obvious answer: look at every sample.
    fn naive(times: &[u64], t0: u64, t1: u64, n: usize) -> Vec<u32> {
        let w = u128::from(t1 - t0);
        (0..n)
            .map(|i| {
                let a = (u128::from(t0) + i as u128 * w / n as u128) as u64;
                let b = (u128::from(t0) + (i as u128 + 1) * w / n as u128) as u64;
                times.iter().filter(|&&t| t >= a && t < b).count() as u32
            })
            .collect()
    }

    #[test]
    fn empty_and_single() {
        let d = SampleDensity::new(Vec::new());
        assert_eq!(d.density(0, 10, 3), [0, 0, 0]);
        assert_eq!(d.rank(u64::MAX), 0);
        let d = SampleDensity::new(vec![7]);
        assert_eq!((d.rank(7), d.rank(8), d.rank(u64::MAX)), (0, 1, 1));
        assert_eq!(d.density(0, 10, 2), [0, 1]);
        assert_eq!(d.density(7, 8, 1), [1]);
        assert_eq!(d.density(7, 7, 1), [0], "an empty range holds nothing");
        assert_eq!(d.density(0, 10, 0), Vec::<u32>::new());
    }

    #[test]
    fn equals_counting_every_sample_at_any_zoom() {
        // Bursty times: a dense cluster, gaps, duplicates, and a far outlier.
        let mut times: Vec<u64> = (0..500).map(|i| 1_000 + i * 3).collect();
        times.extend((0..300).map(|i| 50_000 + (i * i) % 977));
        times.extend([2_000_000, 2_000_000, 2_000_001, 9_999_999]);
        let d = SampleDensity::new(times.clone());
        assert_eq!(d.len(), times.len());
        for (t0, t1, n) in [
            (0, 10_000_000, 1),
            (0, 10_000_000, 7),
            (0, 10_000_000, 1000),
            (1_000, 2_500, 13),
            (1_001, 1_004, 3),
            (49_000, 52_000, 64),
            (1_999_999, 2_000_002, 3),
            (9_999_999, 10_000_000, 1),
            (10_000_000, 20_000_000, 5),
        ] {
            assert_eq!(d.density(t0, t1, n), naive(&times, t0, t1, n), "{t0}..{t1} in {n}");
        }
        assert_eq!(d.count(0, u64::MAX), times.len());
    }

    #[test]
    fn extreme_times_do_not_overflow() {
        let times = vec![0, 1, u64::MAX - 1, u64::MAX];
        let d = SampleDensity::new(times.clone());
        assert_eq!(d.rank(u64::MAX), 3);
        assert_eq!(d.density(0, u64::MAX, 2), naive(&times, 0, u64::MAX, 2));
        assert_eq!(d.density(0, u64::MAX, 2), [2, 1]);
    }
}
