//! Time order in bounded memory, the way perf's ordered-events queue does it.
//!
//! Records in a perf.data are in the order the per-CPU ring buffers were drained, not in time
//! order. perf writes a FINISHED_ROUND record after each pass over all buffers; every record
//! written before the previous FINISHED_ROUND is older than anything written after the current
//! one. So at each round end, the queued records up to the largest timestamp seen by the end of
//! the *previous* round can be released in time order, and memory stays proportional to about
//! two rounds. FINISHED_INIT is not a flush point.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A queue that releases items in (time, arrival) order at round ends.
#[derive(Debug)]
pub struct OrderedQueue<T> {
    heap: BinaryHeap<Reverse<Entry<T>>>,
    seq: u64,
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

#[derive(Debug)]
struct Entry<T> {
    time: u64,
    seq: u64,
    item: T,
}

impl<T> PartialEq for Entry<T> {
    fn eq(&self, other: &Self) -> bool {
        (self.time, self.seq) == (other.time, other.seq)
    }
}
impl<T> Eq for Entry<T> {}
impl<T> PartialOrd for Entry<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Entry<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.time, self.seq).cmp(&(other.time, other.seq))
    }
}

impl<T> Default for OrderedQueue<T> {
    fn default() -> Self {
        OrderedQueue {
            heap: BinaryHeap::new(),
            seq: 0,
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
        self.heap.push(Reverse(Entry {
            time,
            seq: self.seq,
            item,
        }));
        self.seq += 1;
    }

    /// How many items are queued.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
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
        while self.heap.peek().is_some_and(|Reverse(e)| e.time <= limit) {
            if let Some(Reverse(e)) = self.heap.pop() {
                self.last_released = self.last_released.max(e.time);
                release(e.time, e.item);
            }
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
}
