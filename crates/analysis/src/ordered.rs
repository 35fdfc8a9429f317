//! Time order in bounded memory, the way perf's ordered-events queue does it.
//!
//! Records in a perf.data are in the order the per-CPU ring buffers were drained, not in time
//! order. perf writes a FINISHED_ROUND record after each pass over all buffers; every record
//! written before the previous FINISHED_ROUND is older than anything written after the current
//! one. So at each round end, the queued records up to the largest timestamp seen by the end of
//! the *previous* round can be released in time order, and memory stays proportional to about
//! two rounds. FINISHED_INIT is not a flush point.

/// A queue that releases items in (time, arrival) order at round ends.
///
/// Items wait in arrival order and are sorted when a round end releases some: a stable sort
/// (equal times keep their arrival order) that finds the runs already in order — each CPU's
/// buffer is in time order, and what a release leaves is sorted — and merges them, instead of
/// a binary heap's push and pop per item.
#[derive(Debug)]
pub struct OrderedQueue<T> {
    /// (time, item): a sorted run left by the last release, then the items pushed since.
    items: Vec<(u64, T)>,
    /// Largest timestamp pushed so far.
    max_time: u64,
    /// Items at or before this time are released at the next round end.
    next_flush: u64,
    /// The time of the last item released.
    last_released: u64,
    /// Items that arrived with a time before an already released one (perf warns "Timestamp
    /// below last timeslice flush" for them); they are still released, as early as possible.
    pub late: u64,
}

impl<T> Default for OrderedQueue<T> {
    fn default() -> Self {
        OrderedQueue {
            items: Vec::new(),
            max_time: 0,
            next_flush: 0,
            last_released: 0,
            late: 0,
        }
    }
}

impl<T> OrderedQueue<T> {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Queues an item with its timestamp.
    pub fn push(&mut self, time: u64, item: T) {
        if time < self.last_released {
            self.late += 1;
        }
        self.max_time = self.max_time.max(time);
        self.items.push((time, item));
    }

    /// An item's time seen but the item not queued (a loader that skips it): the round ends
    /// release what they would have released with it queued, so the items queued come out in
    /// the same order as in a queue that holds every item.
    pub fn note_time(&mut self, time: u64) {
        self.max_time = self.max_time.max(time);
    }

    /// How many items are queued.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// A FINISHED_ROUND record: releases, in order, every item up to the largest time seen at
    /// the previous round end.
    pub fn finished_round(&mut self, mut release: impl FnMut(u64, T)) {
        let limit = self.next_flush;
        self.release_up_to(limit, &mut release);
        self.next_flush = self.max_time;
    }

    /// The end of the data: releases everything, in order.
    pub fn finish(&mut self, mut release: impl FnMut(u64, T)) {
        self.release_up_to(u64::MAX, &mut release);
    }

    fn release_up_to(&mut self, limit: u64, release: &mut impl FnMut(u64, T)) {
        // Stable: equal times stay in arrival order (what is left of an earlier release
        // arrived before everything pushed after it).
        self.items.sort_by_key(|&(time, _)| time);
        let n = self.items.partition_point(|&(time, _)| time <= limit);
        for (time, item) in self.items.drain(..n) {
            self.last_released = self.last_released.max(time);
            release(time, item);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_one_round_behind_in_time_order() {
        let mut q = OrderedQueue::new();
        let mut out = Vec::new();
        // Round 1: two CPUs' buffers, each in order, interleaved across CPUs.
        for (t, name) in [(10, "a"), (30, "b"), (20, "c")] {
            q.push(t, name);
        }
        q.finished_round(|t, x| out.push((t, x)));
        assert!(out.is_empty(), "nothing is safe after the first round");
        // Round 2 may still hold records older than round 1's newest (25 < 30).
        for (t, name) in [(25, "d"), (40, "e")] {
            q.push(t, name);
        }
        q.finished_round(|t, x| out.push((t, x)));
        assert_eq!(out, [(10, "a"), (20, "c"), (25, "d"), (30, "b")]);
        q.push(35, "f");
        q.finish(|t, x| out.push((t, x)));
        assert_eq!(
            out.iter().map(|(t, _)| *t).collect::<Vec<_>>(),
            [10, 20, 25, 30, 35, 40]
        );
        assert_eq!(q.late, 0);
    }

    #[test]
    fn equal_times_keep_arrival_order_and_late_items_are_counted() {
        let mut q = OrderedQueue::new();
        let mut out = Vec::new();
        q.push(5, 1);
        q.push(5, 2);
        q.finished_round(|_, x| out.push(x));
        q.push(6, 3);
        q.finished_round(|_, x| out.push(x));
        q.push(1, 4); // older than what was already released
        q.finish(|_, x| out.push(x));
        assert_eq!(
            out,
            [1, 2, 4, 3],
            "the late item goes out with the next release, first"
        );
        assert_eq!(q.late, 1);
    }

    #[test]
    fn interleaved_cpu_buffers_come_out_as_a_stable_sort_of_everything() {
        // Four CPUs' buffers, each in time order, drained in turn: a round takes a few items
        // from each, so a round's items are interleaved runs, with equal times across CPUs.
        let mut q = OrderedQueue::new();
        let mut out = Vec::new();
        let mut pushed = Vec::new();
        let mut clock = [0u64; 4];
        let mut seed = 12345u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            seed >> 16
        };
        for _round in 0..50 {
            for (cpu, t) in clock.iter_mut().enumerate() {
                for _ in 0..next() % 40 {
                    *t += u64::from(next() % 3);
                    let id = pushed.len();
                    q.push(*t, (cpu, id));
                    pushed.push((*t, (cpu, id)));
                }
            }
            q.finished_round(|t, x| out.push((t, x)));
            // Every buffer's next record is newer than what this round wrote (perf's
            // promise), so nothing is late.
            let max = clock.iter().copied().max().unwrap_or(0);
            clock = [max; 4];
        }
        q.finish(|t, x| out.push((t, x)));
        assert_eq!(q.late, 0);
        pushed.sort_by_key(|&(t, _)| t);
        assert_eq!(out.len(), pushed.len());
        assert_eq!(out, pushed);
    }
}
