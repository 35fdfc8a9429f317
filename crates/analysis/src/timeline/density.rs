//! [`SampleDensity`]: the sample times of one timeline lane, sorted, with a [`RankIndex`] so
//! that the number of samples in any time bin is found without scanning the samples: a
//! histogram of `nbins` bins needs `nbins + 1` ranks, each a lookup and a binary search inside
//! one small bucket, at any zoom, with exact counts.

use super::rank_index::RankIndex;

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
    index: RankIndex,
}

impl SampleDensity {
    /// Sorts `times` and builds the index.
    pub fn new(mut times: Vec<u64>) -> Self {
        times.sort_unstable();
        let index = RankIndex::new(times.len(), |i| times.get(i).copied());
        SampleDensity { times, index }
    }

    /// The sample times, sorted.
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
        self.index.rank(t, |i| self.times.get(i).copied())
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
            assert_eq!(
                d.density(t0, t1, n),
                naive(&times, t0, t1, n),
                "{t0}..{t1} in {n}"
            );
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
