//! The sample table (struct of arrays), threads, events, and filters over samples.

use crate::ids::{CapacityError, EventIndex, SampleIndex, StackIndex, StringIndex, ThreadIndex};

/// A thread: (pid, tid) and the command name it had (the last COMM seen for it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Thread {
    /// Process id (`-1` in perf becomes `u32::MAX`).
    pub pid: u32,
    /// Thread id.
    pub tid: u32,
    /// Command name.
    pub name: StringIndex,
}

/// Threads, in order of first appearance.
#[derive(Clone, Debug, Default)]
pub struct ThreadTable {
    threads: Vec<Thread>,
}

impl ThreadTable {
    /// Adds a thread (no interning: a tid reused by another process is another thread).
    pub fn push(&mut self, thread: Thread) -> Result<ThreadIndex, CapacityError> {
        let i = ThreadIndex::from_len(self.threads.len())?;
        self.threads.push(thread);
        Ok(i)
    }

    /// The thread at `i`.
    pub fn get(&self, i: ThreadIndex) -> Option<Thread> {
        self.threads.get(i.index()).copied()
    }

    /// Changes the name of a thread (COMM).
    pub fn set_name(&mut self, i: ThreadIndex, name: StringIndex) {
        if let Some(t) = self.threads.get_mut(i.index()) {
            t.name = name;
        }
    }

    /// Number of threads.
    pub fn len(&self) -> usize {
        self.threads.len()
    }

    /// Whether there is no thread.
    pub fn is_empty(&self) -> bool {
        self.threads.is_empty()
    }

    /// Bytes held on the heap (see [`crate::heap`]).
    pub fn heap_bytes(&self) -> usize {
        crate::heap::vec_bytes(&self.threads)
    }
}

/// One sample, as handed to [`SampleTable::push`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// `PERF_SAMPLE_TIME` in ns (0 when not recorded).
    pub time: u64,
    /// The thread.
    pub thread: ThreadIndex,
    /// `PERF_SAMPLE_CPU` (`u32::MAX` when not recorded).
    pub cpu: u32,
    /// The event (attr) that produced it.
    pub event: EventIndex,
    /// The stack, `None` when empty.
    pub stack: Option<StackIndex>,
    /// `PERF_SAMPLE_PERIOD` (or the fixed period), the weight in event units.
    pub period: u64,
}

/// Samples as parallel columns.
#[derive(Clone, Debug, Default)]
pub struct SampleTable {
    /// Time in ns.
    pub time: Vec<u64>,
    /// Thread.
    pub thread: Vec<ThreadIndex>,
    /// CPU, `u32::MAX` when unknown.
    pub cpu: Vec<u32>,
    /// Event.
    pub event: Vec<EventIndex>,
    /// Stack.
    pub stack: Vec<Option<StackIndex>>,
    /// Period.
    pub period: Vec<u64>,
}

impl SampleTable {
    /// Appends a sample.
    pub fn push(&mut self, s: Sample) -> Result<SampleIndex, CapacityError> {
        let i = SampleIndex::from_len(self.time.len())?;
        if self.time.len() == self.time.capacity() {
            // By a quarter, not by doubling (see `crate::heap::growth`).
            let more = crate::heap::growth(self.time.len());
            self.time.reserve_exact(more);
            self.thread.reserve_exact(more);
            self.cpu.reserve_exact(more);
            self.event.reserve_exact(more);
            self.stack.reserve_exact(more);
            self.period.reserve_exact(more);
        }
        self.time.push(s.time);
        self.thread.push(s.thread);
        self.cpu.push(s.cpu);
        self.event.push(s.event);
        self.stack.push(s.stack);
        self.period.push(s.period);
        Ok(i)
    }

    /// The sample at `i`.
    pub fn get(&self, i: usize) -> Option<Sample> {
        Some(Sample {
            time: *self.time.get(i)?,
            thread: *self.thread.get(i)?,
            cpu: *self.cpu.get(i)?,
            event: *self.event.get(i)?,
            stack: *self.stack.get(i)?,
            period: *self.period.get(i)?,
        })
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.time.len()
    }

    /// Whether there is no sample.
    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }

    /// The samples the columns have room for.
    pub fn capacity(&self) -> usize {
        self.time.capacity()
    }

    /// Frees the unused capacity.
    pub fn shrink(&mut self) {
        self.time.shrink_to_fit();
        self.thread.shrink_to_fit();
        self.cpu.shrink_to_fit();
        self.event.shrink_to_fit();
        self.stack.shrink_to_fit();
        self.period.shrink_to_fit();
    }

    /// Bytes held on the heap (see [`crate::heap`]).
    pub fn heap_bytes(&self) -> usize {
        use crate::heap::vec_bytes;
        vec_bytes(&self.time)
            + vec_bytes(&self.thread)
            + vec_bytes(&self.cpu)
            + vec_bytes(&self.event)
            + vec_bytes(&self.stack)
            + vec_bytes(&self.period)
    }
}

/// Which samples count. Every set field must match; an empty list means "any".
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SampleFilter {
    /// Keep samples with `start <= time < end`.
    pub time_range: Option<(u64, u64)>,
    /// Keep samples of these processes.
    pub pids: Vec<u32>,
    /// Keep samples of these threads (by tid).
    pub tids: Vec<u32>,
    /// Keep samples taken on these CPUs.
    pub cpus: Vec<u32>,
    /// Keep samples of these events.
    pub events: Vec<EventIndex>,
}

impl SampleFilter {
    /// A filter that keeps everything.
    pub fn all() -> Self {
        Self::default()
    }

    /// The samples in the time range, when there is one and the samples are in time order.
    pub fn time_window(&self, samples: &SampleTable) -> Option<core::ops::Range<usize>> {
        let times = &samples.time;
        let (start, end) = self.time_range?;
        if !times.is_sorted() {
            return None;
        }
        let first = times.partition_point(|&t| t < start);
        Some(first..times.partition_point(|&t| t < end).max(first))
    }

    /// The samples that may pass — those in the time range when the samples are in time order
    /// (as loaded), else all — and a test that tells which of them pass, as cheap as the filter
    /// allows: none when the range is all there is to it (an event list naming every event of
    /// the `events` keeps all), the event column alone when events are picked too, else
    /// [`SampleFilter::matches`].
    pub fn candidates<'a>(
        &'a self,
        samples: &'a SampleTable,
        threads: &'a ThreadTable,
        events: usize,
    ) -> (core::ops::Range<usize>, impl Fn(usize) -> bool + 'a) {
        let window = self.time_window(samples);
        let all_events = self.events.is_empty()
            || (0..events).all(|e| self.events.contains(&EventIndex(e as u32)));
        let full = (self.time_range.is_some() && window.is_none())
            || !(self.pids.is_empty() && self.tids.is_empty() && self.cpus.is_empty());
        let test = move |i: usize| {
            if full {
                self.matches(samples, threads, i)
            } else if all_events {
                true
            } else {
                samples
                    .event
                    .get(i)
                    .is_some_and(|e| self.events.contains(e))
            }
        };
        (window.unwrap_or(0..samples.len()), test)
    }

    /// Whether sample `i` passes. `threads` resolves pid/tid.
    pub fn matches(&self, samples: &SampleTable, threads: &ThreadTable, i: usize) -> bool {
        let Some(s) = samples.get(i) else {
            return false;
        };
        if let Some((start, end)) = self.time_range {
            if s.time < start || s.time >= end {
                return false;
            }
        }
        if !self.cpus.is_empty() && !self.cpus.contains(&s.cpu) {
            return false;
        }
        if !self.events.is_empty() && !self.events.contains(&s.event) {
            return false;
        }
        if !self.pids.is_empty() || !self.tids.is_empty() {
            let Some(t) = threads.get(s.thread) else {
                return false;
            };
            if !self.pids.is_empty() && !self.pids.contains(&t.pid) {
                return false;
            }
            if !self.tids.is_empty() && !self.tids.contains(&t.tid) {
                return false;
            }
        }
        true
    }
}
