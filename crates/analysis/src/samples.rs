//! The sample table (struct of arrays), threads, events, and filters over samples.

use crate::chunked::{Chunked, Uniform};
use crate::ids::{CapacityError, EventIndex, SampleIndex, StackIndex, StringIndex, ThreadIndex};
use crate::time_column::TimeColumn;

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

/// Samples as parallel columns, 24 bytes a sample: the time and thread whole, the stack as a
/// `u32` (`u32::MAX`: none), the CPU as a `u16` and the period as a `u32`, with the few values
/// that do not fit kept exactly in side lists, and the event as a `u16`. (A sample was 36 bytes
/// when every column had its full width: a third of the largest table of a big recording.)
/// Every column is in fixed blocks ([`Chunked`]), which never copy themselves as they grow
/// (a `Vec` of 28.5M times grew by copying into ever bigger blocks).
#[derive(Clone, Debug)]
pub struct SampleTable {
    /// Time in ns ([`SampleTable::times`]).
    time: TimeColumn,
    /// The latest time pushed...
    latest: u64,
    /// ...and the most a sample was earlier than one pushed before it (0: in time order).
    late: u64,
    /// Thread.
    pub thread: Chunked<ThreadIndex>,
    /// CPU: [`CPU_NONE`], [`WIDE_CPU`] (in `wide_cpu`), or the CPU.
    cpu: Chunked<u16>,
    /// (sample, CPU) of the CPUs that do not fit a `u16`, by sample.
    wide_cpu: Vec<(u32, u32)>,
    /// Event (one value while every sample has the same).
    event: Uniform<u16>,
    /// Stack index, [`NO_STACK`] for none.
    stack: Chunked<u32>,
    /// Period: [`WIDE_PERIOD`] (in `wide_period`), or the period (one value while every sample
    /// has the same).
    period: Uniform<u32>,
    /// (sample, period) of the periods that do not fit a `u32`, by sample.
    wide_period: Vec<(u32, u64)>,
    /// The samples of each thread (by index) and their time span, kept as samples are pushed;
    /// `None` once a thread index was too big to keep ([`MAX_TALLIED`]).
    by_thread: Option<Vec<ThreadTally>>,
    /// The samples of each CPU below [`MAX_TALLIED`] (by CPU), kept as samples are pushed...
    by_cpu: Vec<u64>,
    /// ...and of the bigger ones (not `u32::MAX`, no CPU).
    other_cpus: std::collections::BTreeMap<u32, u64>,
    /// The samples that end in each stack (by index) and their periods' sum, kept as samples
    /// are pushed: the whole table's weights without a pass over its samples
    /// ([`SampleTable::stack_tallies`]); `None` once a stack index was too big to keep them
    /// ([`MAX_STACKS_TALLIED`]).
    by_stack: Option<Vec<(u32, u64)>>,
    /// The samples without a stack and their periods' sum.
    no_stack: (u64, u64),
    /// `by_stack` and `no_stack` as they were after each [`CHECKPOINT`] samples (the first
    /// after `CHECKPOINT`, the next after twice that, …), while they hold at most one entry
    /// per [`CHECKPOINT_SHARE`] samples: the weights of a time range from two of them and the
    /// samples of two partial blocks ([`SampleTable::range_tallies`]). `None` once over.
    checkpoints: Option<Vec<OwnedTallies>>,
}

/// The samples of a [`SampleTable`] by the stack they end in
/// ([`SampleTable::stack_tallies`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StackTallies<'a> {
    /// By stack index: the samples that end in it and their periods' sum.
    pub by_stack: &'a [(u32, u64)],
    /// The samples without a stack and their periods' sum.
    pub no_stack: (u64, u64),
}

/// A thread's samples in a [`SampleTable`]: how many, the earliest and latest time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreadTally {
    /// Samples.
    pub samples: u64,
    /// The earliest sample's time (`u64::MAX` without samples).
    pub first: u64,
    /// The latest sample's time (0 without samples).
    pub last: u64,
}

impl ThreadTally {
    const NONE: ThreadTally = ThreadTally {
        samples: 0,
        first: u64::MAX,
        last: 0,
    };
}

/// Thread indices and CPUs below this are tallied in dense lists as samples are pushed.
const MAX_TALLIED: usize = 1 << 16;

/// Stack tallies owned: by stack index the samples and their periods' sum, and those of the
/// samples without a stack.
pub type OwnedTallies = (Vec<(u32, u64)>, (u64, u64));

/// Samples between two checkpoints of the stack tallies ([`SampleTable::range_tallies`]).
pub const CHECKPOINT: usize = 1 << 18;
/// Samples per entry of the checkpoints at most (16 bytes an entry: ~1 byte a sample).
const CHECKPOINT_SHARE: usize = 16;

/// Stack indices below this are tallied in a dense list as samples are pushed (64 MiB at
/// most; a 300 MB recording's samples with a frame per address end in ~1.1M stacks).
const MAX_STACKS_TALLIED: usize = 1 << 22;

/// The `cpu` of a sample without one (`u32::MAX`).
const CPU_NONE: u16 = u16::MAX;
/// The `cpu` of a sample whose CPU is in `wide_cpu`.
const WIDE_CPU: u16 = u16::MAX - 1;
/// The `stack` of a sample without one.
const NO_STACK: u32 = u32::MAX;
/// The `period` of a sample whose period is in `wide_period`.
const WIDE_PERIOD: u32 = u32::MAX;

/// The value kept for sample `i` in a side list (sorted by sample).
fn side<T: Copy>(list: &[(u32, T)], i: usize) -> Option<T> {
    let i = u32::try_from(i).ok()?;
    list.binary_search_by_key(&i, |&(j, _)| j)
        .ok()
        .and_then(|k| list.get(k))
        .map(|&(_, v)| v)
}

impl Default for SampleTable {
    fn default() -> Self {
        Self::new()
    }
}

impl SampleTable {
    /// No samples (usable in a `static`).
    pub const fn new() -> Self {
        SampleTable {
            time: TimeColumn::new(),
            latest: 0,
            late: 0,
            thread: Chunked::new(),
            cpu: Chunked::new(),
            wide_cpu: Vec::new(),
            event: Uniform::new(),
            stack: Chunked::new(),
            period: Uniform::new(),
            wide_period: Vec::new(),
            by_thread: Some(Vec::new()),
            by_cpu: Vec::new(),
            other_cpus: std::collections::BTreeMap::new(),
            by_stack: Some(Vec::new()),
            no_stack: (0, 0),
            checkpoints: Some(Vec::new()),
        }
    }

    /// Appends a sample.
    pub fn push(&mut self, s: Sample) -> Result<SampleIndex, CapacityError> {
        let i = SampleIndex::from_len(self.time.len())?;
        let event = u16::try_from(s.event.0).map_err(|_| CapacityError { table: "event" })?;
        let stack = match s.stack {
            Some(StackIndex(NO_STACK)) => return Err(CapacityError { table: "stack" }),
            Some(StackIndex(k)) => k,
            None => NO_STACK,
        };
        let cpu = match s.cpu {
            u32::MAX => CPU_NONE,
            c => match u16::try_from(c) {
                Ok(c) if c < WIDE_CPU => c,
                _ => {
                    self.wide_cpu.push((i.0, c));
                    WIDE_CPU
                }
            },
        };
        let period = match u32::try_from(s.period) {
            Ok(p) if p != WIDE_PERIOD => p,
            _ => {
                self.wide_period.push((i.0, s.period));
                WIDE_PERIOD
            }
        };
        self.tally(&s);
        if stack == NO_STACK {
            self.no_stack.0 += 1;
            self.no_stack.1 = self.no_stack.1.saturating_add(s.period);
        } else if let Some(tallies) = self.by_stack.as_mut() {
            let k = stack as usize;
            if k >= MAX_STACKS_TALLIED {
                self.by_stack = None;
            } else {
                if tallies.len() <= k {
                    tallies.resize(k + 1, (0, 0));
                }
                if let Some(t) = tallies.get_mut(k) {
                    // (Fewer samples than u32::MAX: their indices are u32.)
                    t.0 += 1;
                    t.1 = t.1.saturating_add(s.period);
                }
            }
        }
        if (i.0 as usize + 1).is_multiple_of(CHECKPOINT) {
            self.checkpoint();
        }
        if s.time < self.latest {
            self.late = self.late.max(self.latest - s.time);
        } else {
            self.latest = s.time;
        }
        self.time.push(s.time);
        self.thread.push(s.thread);
        self.cpu.push(cpu);
        self.event.push(event);
        self.stack.push(stack);
        self.period.push(period);
        Ok(i)
    }

    /// Counts `s` in the tallies of its thread and CPU.
    #[inline]
    fn tally(&mut self, s: &Sample) {
        let t = s.thread.index();
        if let Some(tallies) = self.by_thread.as_mut() {
            if t >= MAX_TALLIED {
                self.by_thread = None;
            } else {
                if tallies.len() <= t {
                    tallies.resize(t + 1, ThreadTally::NONE);
                }
                if let Some(tally) = tallies.get_mut(t) {
                    tally.samples += 1;
                    tally.first = tally.first.min(s.time);
                    tally.last = tally.last.max(s.time);
                }
            }
        }
        let c = s.cpu as usize;
        if c < MAX_TALLIED {
            if self.by_cpu.len() <= c {
                self.by_cpu.resize(c + 1, 0);
            }
            if let Some(n) = self.by_cpu.get_mut(c) {
                *n += 1;
            }
        } else if s.cpu != u32::MAX {
            *self.other_cpus.entry(s.cpu).or_insert(0) += 1;
        }
    }

    /// Each thread's samples and time span, by thread index (threads past the end have
    /// none), as pushed; `None` when a thread index was too big to keep them.
    pub fn thread_tallies(&self) -> Option<&[ThreadTally]> {
        self.by_thread.as_deref()
    }

    /// The samples that end in each stack and their periods' sum, by stack index (stacks past
    /// the end have none), and those of the samples without a stack; `None` when a stack
    /// index was too big to keep them.
    pub fn stack_tallies(&self) -> Option<StackTallies<'_>> {
        Some(StackTallies {
            by_stack: self.by_stack.as_deref()?,
            no_stack: self.no_stack,
        })
    }

    /// Keeps the stack tallies as they are now, or drops the checkpoints when they would hold
    /// more than their share.
    #[cold]
    fn checkpoint(&mut self) {
        let (Some(points), Some(now)) = (self.checkpoints.as_mut(), self.by_stack.as_ref()) else {
            self.checkpoints = None;
            return;
        };
        let entries = points.iter().map(|(t, _)| t.len()).sum::<usize>() + now.len();
        if entries > (self.time.len() + 1) / CHECKPOINT_SHARE {
            self.checkpoints = None;
            return;
        }
        points.push((now.clone(), self.no_stack));
    }

    /// The stack tallies of the samples at positions `range` (as
    /// [`SampleTable::stack_tallies`]): two checkpoints' difference and the samples of the
    /// partial blocks at both ends; `None` without checkpoints or when the range holds no whole
    /// block between two (then a pass over its samples is as short).
    pub fn range_tallies(&self, range: core::ops::Range<usize>) -> Option<OwnedTallies> {
        let points = self.checkpoints.as_ref()?;
        let end = range.end.min(self.len());
        let first = range.start.div_ceil(CHECKPOINT);
        let last = end / CHECKPOINT;
        if first >= last {
            return None;
        }
        // The tallies before `k` blocks: checkpoint k - 1 (none before the first).
        let at = |k: usize| match k {
            0 => Some((&[][..], (0, 0))),
            k => points.get(k - 1).map(|(t, e)| (&t[..], *e)),
        };
        let ((lo, lo_empty), (hi, hi_empty)) = (at(first)?, at(last)?);
        let mut out: Vec<(u32, u64)> = hi.to_vec();
        for (o, &(c, p)) in out.iter_mut().zip(lo) {
            o.0 = o.0.wrapping_sub(c);
            o.1 = o.1.wrapping_sub(p);
        }
        let mut tallies = (
            out,
            (
                hi_empty.0.wrapping_sub(lo_empty.0),
                hi_empty.1.wrapping_sub(lo_empty.1),
            ),
        );
        let partial = (range.start..first * CHECKPOINT).chain(last * CHECKPOINT..end);
        for i in partial {
            self.add_to(&mut tallies, i);
        }
        Some(tallies)
    }

    /// Adds sample `i` to `tallies` (as [`SampleTable::stack_tallies`] count it).
    pub fn add_to(&self, (by_stack, no_stack): &mut OwnedTallies, i: usize) {
        let period = self.period(i).unwrap_or(0);
        let slot = match self.stack(i).flatten() {
            Some(s) => {
                let k = s.index();
                if by_stack.len() <= k {
                    by_stack.resize(k + 1, (0, 0));
                }
                match by_stack.get_mut(k) {
                    Some(slot) => slot,
                    None => return,
                }
            }
            None => {
                no_stack.0 = no_stack.0.wrapping_add(1);
                no_stack.1 = no_stack.1.wrapping_add(period);
                return;
            }
        };
        slot.0 = slot.0.wrapping_add(1);
        slot.1 = slot.1.wrapping_add(period);
    }

    /// The period of every sample, when there are samples and they all have the same.
    pub fn uniform_period(&self) -> Option<u64> {
        match self.period.uniform_value()? {
            WIDE_PERIOD => None,
            p => Some(u64::from(p)),
        }
    }

    /// The CPUs with samples, in order, with their sample counts.
    pub fn cpu_tallies(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.by_cpu
            .iter()
            .enumerate()
            .filter(|&(_, &n)| n > 0)
            .map(|(c, &n)| (c as u32, n))
            .chain(self.other_cpus.iter().map(|(&c, &n)| (c, n)))
    }

    /// The samples' times in ns, by sample.
    pub fn times(&self) -> &TimeColumn {
        &self.time
    }

    /// The most a sample is earlier than one before it, in ns: 0 when the samples are in time
    /// order (as a recording's are once ordered; not when a record came after its round or a
    /// table was put together from parts).
    pub fn lateness(&self) -> u64 {
        self.late
    }

    /// The event of every sample, when there are samples and they all have the same.
    pub fn uniform_event(&self) -> Option<EventIndex> {
        self.event.uniform_value().map(|e| EventIndex(u32::from(e)))
    }

    /// The sample at `i`.
    pub fn get(&self, i: usize) -> Option<Sample> {
        Some(Sample {
            time: self.time.get(i)?,
            thread: *self.thread.get(i)?,
            cpu: self.cpu(i)?,
            event: self.event(i)?,
            stack: self.stack(i)?,
            period: self.period(i)?,
        })
    }

    /// The CPU of sample `i` (`u32::MAX`: not recorded); `None` past the end.
    #[inline]
    pub fn cpu(&self, i: usize) -> Option<u32> {
        match *self.cpu.get(i)? {
            CPU_NONE => Some(u32::MAX),
            WIDE_CPU => side(&self.wide_cpu, i),
            c => Some(u32::from(c)),
        }
    }

    /// The event of sample `i`; `None` past the end.
    #[inline]
    pub fn event(&self, i: usize) -> Option<EventIndex> {
        self.event.get(i).map(|&e| EventIndex(u32::from(e)))
    }

    /// The stack of sample `i`: `Some(None)` for a sample without one, `None` past the end.
    #[inline]
    pub fn stack(&self, i: usize) -> Option<Option<StackIndex>> {
        self.stack
            .get(i)
            .map(|&k| (k != NO_STACK).then_some(StackIndex(k)))
    }

    /// The period of sample `i`; `None` past the end.
    #[inline]
    pub fn period(&self, i: usize) -> Option<u64> {
        match *self.period.get(i)? {
            WIDE_PERIOD => side(&self.wide_period, i),
            p => Some(u64::from(p)),
        }
    }

    /// Replaces every stack that `f` maps (`f(stack)`: `None` to keep it, `Some(new)` to
    /// replace it, `Some(None)` for none), in sample order: the stacks another loader made
    /// for samples pushed with a stand-in ([`crate::load::StackShare`]).
    pub fn replace_stacks(
        &mut self,
        mut f: impl FnMut(StackIndex) -> Option<Option<StackIndex>>,
    ) -> Result<(), CapacityError> {
        for block in self.stack.blocks_mut() {
            for k in block.iter_mut().filter(|k| **k != NO_STACK) {
                match f(StackIndex(*k)) {
                    None => {}
                    Some(None) => *k = NO_STACK,
                    Some(Some(StackIndex(NO_STACK))) => {
                        return Err(CapacityError { table: "stack" })
                    }
                    Some(Some(StackIndex(new))) => *k = new,
                }
            }
        }
        Ok(())
    }

    /// The CPUs in sample order.
    pub fn cpus(&self) -> impl ExactSizeIterator<Item = u32> + '_ {
        (0..self.len()).map(|i| self.cpu(i).unwrap_or(u32::MAX))
    }

    /// The events in sample order.
    pub fn events(&self) -> impl ExactSizeIterator<Item = EventIndex> + '_ {
        self.event.iter_exact().map(|e| EventIndex(u32::from(e)))
    }

    /// The stacks in sample order.
    pub fn stacks(&self) -> impl ExactSizeIterator<Item = Option<StackIndex>> + '_ {
        self.stack
            .iter_exact()
            .map(|&k| (k != NO_STACK).then_some(StackIndex(k)))
    }

    /// The periods in sample order.
    pub fn periods(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        (0..self.len()).map(|i| self.period(i).unwrap_or(0))
    }

    /// The earliest and the latest sample time (`None` without samples): from the threads'
    /// tallies when they were kept, else read from every sample.
    pub fn time_range(&self) -> Option<(u64, u64)> {
        if let Some(tallies) = &self.by_thread {
            let (lo, hi) = tallies
                .iter()
                .filter(|t| t.samples > 0)
                .fold((u64::MAX, 0), |(lo, hi), t| {
                    (lo.min(t.first), hi.max(t.last))
                });
            return (!self.is_empty()).then_some((lo, hi));
        }
        self.time.min_max()
    }

    /// Samples and summed periods (saturating) per event, indexed by event: constant time for
    /// a recording of one event with one period.
    pub fn event_totals(&self) -> Vec<(u64, u64)> {
        let mut out: Vec<(u64, u64)> = Vec::new();
        let mut add = |e: usize, n: u64, period: u64| {
            if out.len() <= e {
                out.resize(e + 1, (0, 0));
            }
            if let Some(o) = out.get_mut(e) {
                o.0 += n;
                o.1 = o.1.saturating_add(period);
            }
        };
        match (self.event.uniform_value(), self.period.uniform_value()) {
            (Some(e), Some(p)) => {
                let n = self.len() as u64;
                let period = if p == WIDE_PERIOD {
                    self.wide_period
                        .iter()
                        .fold(0u64, |a, &(_, p)| a.saturating_add(p))
                } else {
                    n.saturating_mul(u64::from(p))
                };
                add(usize::from(e), n, period);
            }
            _ => {
                for (e, p) in self.events().zip(self.periods()) {
                    add(e.index(), 1, p);
                }
            }
        }
        out
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.time.len()
    }

    /// Whether there is no sample.
    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }

    /// Frees the unused capacity.
    pub fn shrink(&mut self) {
        self.time.shrink_to_fit();
        self.thread.shrink_to_fit();
        self.cpu.shrink_to_fit();
        self.wide_cpu.shrink_to_fit();
        self.event.shrink_to_fit();
        self.stack.shrink_to_fit();
        self.period.shrink_to_fit();
        self.wide_period.shrink_to_fit();
        if let Some(t) = self.by_thread.as_mut() {
            t.shrink_to_fit();
        }
        self.by_cpu.shrink_to_fit();
        if let Some(t) = self.by_stack.as_mut() {
            t.shrink_to_fit();
        }
        if let Some(t) = self.checkpoints.as_mut() {
            t.shrink_to_fit();
        }
    }

    /// Bytes held on the heap (see [`crate::heap`]).
    pub fn heap_bytes(&self) -> usize {
        use crate::heap::vec_bytes;
        self.time.heap_bytes()
            + self.thread.heap_bytes()
            + self.cpu.heap_bytes()
            + vec_bytes(&self.wide_cpu)
            + self.event.heap_bytes()
            + self.stack.heap_bytes()
            + self.period.heap_bytes()
            + vec_bytes(&self.wide_period)
            + self.by_thread.as_ref().map_or(0, vec_bytes)
            + vec_bytes(&self.by_cpu)
            + self.by_stack.as_ref().map_or(0, vec_bytes)
            + self.checkpoints.as_ref().map_or(0, |c| {
                vec_bytes(c) + c.iter().map(|(t, _)| vec_bytes(t)).sum::<usize>()
            })
            + self.other_cpus.len() * std::mem::size_of::<(u32, u64)>()
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

/// Where the samples of a time range are ([`SampleFilter::time_span`]): none outside `outer`,
/// all of `inner`, a part of `outer`; those at `outer`'s other positions (its edges) are in
/// the range or not. In time order, the two are the same.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeSpan {
    /// Positions outside which no sample is in the range.
    pub outer: core::ops::Range<usize>,
    /// Positions whose samples are all in the range.
    pub inner: core::ops::Range<usize>,
}

impl TimeSpan {
    /// Whether every sample of `outer` is in the range.
    pub fn is_exact(&self) -> bool {
        self.inner == self.outer
    }

    /// The positions of `outer` before and after `inner`.
    pub fn edges(&self) -> impl Iterator<Item = usize> + Clone {
        (self.outer.start..self.inner.start).chain(self.inner.end..self.outer.end)
    }
}

/// A position of `times` whose time fails `before` (or the end) right after one whose time
/// passes it (or the start): with the times in order, the first that fails; out of order, one
/// of the places where they go from passing to failing.
fn first_not(times: &TimeColumn, before: impl Fn(u64) -> bool) -> usize {
    let (mut lo, mut hi) = (0, times.len());
    // Every position before `lo` follows one that passes (or is the first), `hi` fails (or is
    // the end).
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if times.get(mid).is_some_and(&before) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

impl SampleFilter {
    /// A filter that keeps everything.
    pub fn all() -> Self {
        Self::default()
    }

    /// Whether every sample of `samples` passes: no time range, process, thread or CPU, and
    /// events that are all of the `events` or hold the one event of every sample.
    pub fn keeps_all(&self, samples: &SampleTable, events: usize) -> bool {
        self.time_range.is_none()
            && self.pids.is_empty()
            && self.tids.is_empty()
            && self.cpus.is_empty()
            && (self.picks_every_event(events)
                || samples
                    .uniform_event()
                    .is_some_and(|e| self.events.contains(&e)))
    }

    /// Whether the events are none (any) or name every one of the `events`.
    fn picks_every_event(&self, events: usize) -> bool {
        self.events.is_empty() || (0..events).all(|e| self.events.contains(&EventIndex(e as u32)))
    }

    /// The samples in the time range, when there is one and the samples are in time order.
    pub fn time_window(&self, samples: &SampleTable) -> Option<core::ops::Range<usize>> {
        self.time_span(samples)
            .filter(TimeSpan::is_exact)
            .map(|span| span.outer)
    }

    /// Where the samples in the time range are, when there is one: two binary searches when
    /// the samples are in time order, four otherwise ([`TimeSpan`]).
    ///
    /// With each sample at most `late` ns earlier than one before it
    /// ([`SampleTable::lateness`]): no sample before the first position whose time is at least
    /// `start - late` is in the range (each is at most `late` earlier than that one's
    /// predecessor, itself earlier than `start - late`), nor any after the first whose time is
    /// at least `end + late`; every sample from the first whose time is at least `start + late`
    /// is at least at `start`, and every one before the first whose time is at least
    /// `end - late` is before `end` (were one at `end` or later, that position's predecessor
    /// would be at least `end - late`). "The first" is, out of order, one of the positions
    /// where the times go from below the bound to not below it: the proofs need no more.
    pub fn time_span(&self, samples: &SampleTable) -> Option<TimeSpan> {
        let times = &samples.time;
        let (start, end) = self.time_range?;
        let late = samples.lateness();
        let first = first_not(times, |t| t < start.saturating_sub(late));
        let last = match end.checked_add(late) {
            Some(after) => first_not(times, |t| t < after).max(first),
            None => times.len(),
        };
        if late == 0 {
            return Some(TimeSpan {
                outer: first..last,
                inner: first..last,
            });
        }
        let from = match start.checked_add(late) {
            Some(at) => first_not(times, |t| t < at).max(first).min(last),
            None => last,
        };
        let to = match end.checked_sub(late) {
            Some(before) => first_not(times, |t| t < before).max(from).min(last),
            None => from,
        };
        Some(TimeSpan {
            outer: first..last,
            inner: from..to,
        })
    }

    /// The samples that may pass — those in the time range's [`TimeSpan`], else all — and a
    /// test that tells which of them pass, as cheap as the filter allows: none when the range
    /// is all there is to it (an event list naming every event of the `events` keeps all;
    /// out of time order, a time test for the span's edges), the event column alone when
    /// events are picked too, else [`SampleFilter::matches`].
    pub fn candidates<'a>(
        &'a self,
        samples: &'a SampleTable,
        threads: &'a ThreadTable,
        events: usize,
    ) -> (core::ops::Range<usize>, impl Fn(usize) -> bool + 'a) {
        let span = self.time_span(samples);
        let all_events = self.picks_every_event(events);
        let full = !(self.pids.is_empty() && self.tids.is_empty() && self.cpus.is_empty());
        let whole = full.then(|| self.tester(samples, threads));
        // Out of time order, the samples of the span's edges are tested for the range.
        let (start, end) = self.time_range.unwrap_or((0, u64::MAX));
        let sure = span
            .as_ref()
            .filter(|span| !span.is_exact())
            .map(|span| span.inner.clone());
        let test = move |i: usize| {
            if let Some(whole) = &whole {
                return whole(i);
            }
            if let Some(sure) = &sure {
                if !sure.contains(&i) && !samples.time.get(i).is_some_and(|t| start <= t && t < end)
                {
                    return false;
                }
            }
            all_events || samples.event(i).is_some_and(|e| self.events.contains(&e))
        };
        (span.map_or(0..samples.len(), |span| span.outer), test)
    }

    /// [`SampleFilter::matches`] for many samples: whether the processes and threads pass is
    /// decided once per thread of `threads` (a filter of a command's threads may list thousands,
    /// which `matches` searches for every sample).
    pub fn tester<'a>(
        &'a self,
        samples: &'a SampleTable,
        threads: &'a ThreadTable,
    ) -> impl Fn(usize) -> bool + 'a {
        let by_thread: Option<Vec<bool>> =
            (!(self.pids.is_empty() && self.tids.is_empty())).then(|| {
                let (mut pids, mut tids) = (self.pids.clone(), self.tids.clone());
                pids.sort_unstable();
                tids.sort_unstable();
                let listed =
                    |list: &[u32], v: u32| list.is_empty() || list.binary_search(&v).is_ok();
                (0..threads.len())
                    .map(|t| {
                        ThreadIndex::from_len(t)
                            .ok()
                            .and_then(|t| threads.get(t))
                            .is_some_and(|t| listed(&pids, t.pid) && listed(&tids, t.tid))
                    })
                    .collect()
            });
        move |i: usize| {
            let Some(s) = samples.get(i) else {
                return false;
            };
            self.passes_besides_threads(&s)
                && by_thread
                    .as_ref()
                    .is_none_or(|keep| keep.get(s.thread.index()).copied().unwrap_or(false))
        }
    }

    /// Whether `s` passes the time range, CPUs and events.
    fn passes_besides_threads(&self, s: &Sample) -> bool {
        if let Some((start, end)) = self.time_range {
            if s.time < start || s.time >= end {
                return false;
            }
        }
        if !self.cpus.is_empty() && !self.cpus.contains(&s.cpu) {
            return false;
        }
        self.events.is_empty() || self.events.contains(&s.event)
    }

    /// Whether sample `i` passes. `threads` resolves pid/tid. (For many samples,
    /// [`SampleFilter::tester`].)
    pub fn matches(&self, samples: &SampleTable, threads: &ThreadTable, i: usize) -> bool {
        let Some(s) = samples.get(i) else {
            return false;
        };
        if !self.passes_besides_threads(&s) {
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn sample(cpu: u32, period: u64, stack: Option<u32>) -> Sample {
        Sample {
            time: 7,
            thread: ThreadIndex(3),
            cpu,
            event: EventIndex(2),
            stack: stack.map(StackIndex),
            period,
        }
    }

    #[test]
    fn values_that_do_not_fit_the_narrow_columns_come_back_exactly() {
        // Each narrow column's edges: the largest value kept in place, the sentinels' own values,
        // values past them, and "none".
        let cases = [
            sample(0, 0, None),
            sample(u32::MAX, 1, Some(0)),
            sample(0xFFFD, u64::from(u32::MAX) - 1, Some(5)),
            sample(0xFFFE, u64::from(u32::MAX), Some(u32::MAX - 1)),
            sample(0xFFFF, u64::from(u32::MAX) + 1, Some(1)),
            sample(0x1_0000, u64::MAX, None),
            sample(u32::MAX - 1, 12_345, Some(9)),
        ];
        let mut t = SampleTable::new();
        for s in cases {
            t.push(s).unwrap();
        }
        let back: Vec<Sample> = (0..t.len()).map(|i| t.get(i).unwrap()).collect();
        assert_eq!(back, cases);
        assert_eq!(t.cpus().collect::<Vec<_>>(), cases.map(|s| s.cpu));
        assert_eq!(t.periods().collect::<Vec<_>>(), cases.map(|s| s.period));
        assert_eq!(t.stacks().collect::<Vec<_>>(), cases.map(|s| s.stack));
        assert!(t.get(cases.len()).is_none());
        // Four CPUs and three periods did not fit: only they are in the side lists.
        assert_eq!((t.wide_cpu.len(), t.wide_period.len()), (4, 3));
        // A stack index too big to tally (no list of 4G stacks): no stack tallies.
        assert!(t.stack_tallies().is_none());
        let mut small = SampleTable::new();
        for s in [(4, Some(2)), (5, None), (6, Some(2))] {
            small.push(sample(1, s.0, s.1)).unwrap();
        }
        let tallies = [(0, 0), (0, 0), (2, 10)];
        let expected = StackTallies {
            by_stack: &tallies,
            no_stack: (1, 5),
        };
        assert_eq!(small.stack_tallies(), Some(expected));
    }

    #[test]
    fn event_totals_and_time_range_match_a_sum_over_every_sample() {
        // Sums made sample by sample from the pushed values, against the table's totals: one
        // event with one period (the constant-time case), one wide period for all, then
        // mixed events and periods.
        let by_hand = |cases: &[Sample]| {
            let mut out = vec![(0u64, 0u64); 6];
            for s in cases {
                let o = &mut out[s.event.index()];
                o.0 += 1;
                o.1 = o.1.saturating_add(s.period);
            }
            while out.last() == Some(&(0, 0)) {
                out.pop();
            }
            out
        };
        let at = |time: u64, event: u32, period: u64| Sample {
            time,
            event: EventIndex(event),
            ..sample(0, period, None)
        };
        let uniform: Vec<Sample> = (0..3000)
            .map(|i| at(50 + (i * 7919) % 3001, 2, 4000))
            .collect();
        let wide: Vec<Sample> = (0..5).map(|i| at(9 - i, 1, u64::MAX / 3)).collect();
        let mixed: Vec<Sample> = (0..3000)
            .map(|i| {
                at(
                    i * 3,
                    (i % 3) as u32 * 2,
                    if i % 7 == 0 { 1 << 40 } else { i },
                )
            })
            .collect();
        for cases in [&uniform, &wide, &mixed] {
            let mut t = SampleTable::new();
            assert_eq!((t.event_totals(), t.time_range()), (vec![], None));
            for &s in cases.iter() {
                t.push(s).unwrap();
            }
            assert_eq!(t.event_totals(), by_hand(cases));
            let times = cases.iter().map(|s| s.time);
            assert_eq!(
                t.time_range(),
                Some((times.clone().min().unwrap(), times.max().unwrap()))
            );
        }
        // The uniform cases were kept as one value.
        let mut t = SampleTable::new();
        for &s in &uniform {
            t.push(s).unwrap();
        }
        assert!(t.event.is_uniform() && t.period.is_uniform());
        assert_eq!(t.event_totals()[2], (3000, 12_000_000));
        assert_eq!(t.time_range(), Some((50, 3050)));
    }

    #[test]
    fn tallies_are_each_thread_s_and_cpu_s_samples_counted_one_by_one() {
        // 5 threads (index 0 never used), CPUs 0..6 with CPU 5 unused, a wide CPU, no CPU;
        // times out of order. The tallies against counts made from the samples themselves.
        let cases: Vec<Sample> = (0..5000u64)
            .map(|i| Sample {
                time: (i * 7919) % 10_007,
                thread: ThreadIndex(1 + (i % 4) as u32),
                cpu: match i % 9 {
                    5 => 70_000,
                    8 => u32::MAX,
                    c => c as u32,
                },
                event: EventIndex(0),
                stack: None,
                period: 1,
            })
            .collect();
        let mut t = SampleTable::new();
        for &s in &cases {
            t.push(s).unwrap();
        }
        let tallies = t.thread_tallies().unwrap();
        assert_eq!(tallies.len(), 5);
        assert_eq!(tallies[0], ThreadTally::NONE);
        for (k, tally) in tallies.iter().enumerate().skip(1) {
            let times: Vec<u64> = cases
                .iter()
                .filter(|s| s.thread.index() == k)
                .map(|s| s.time)
                .collect();
            let want = ThreadTally {
                samples: times.len() as u64,
                first: *times.iter().min().unwrap(),
                last: *times.iter().max().unwrap(),
            };
            assert_eq!(*tally, want, "thread {k}");
        }
        let mut by_cpu = std::collections::BTreeMap::new();
        for s in cases.iter().filter(|s| s.cpu != u32::MAX) {
            *by_cpu.entry(s.cpu).or_insert(0u64) += 1;
        }
        assert_eq!(
            t.cpu_tallies().collect::<Vec<_>>(),
            by_cpu.into_iter().collect::<Vec<_>>()
        );
        assert_eq!(t.uniform_event(), Some(EventIndex(0)));
        // A thread index too big to tally: no thread tallies (the CPUs' stay).
        t.push(Sample {
            thread: ThreadIndex(1 << 20),
            ..cases[0]
        })
        .unwrap();
        assert_eq!(t.thread_tallies(), None);
        // Then the time range is read from the samples: the same.
        let times = cases.iter().map(|s| s.time);
        assert_eq!(
            t.time_range(),
            Some((times.clone().min().unwrap(), times.max().unwrap()))
        );
        assert_eq!(
            t.cpu_tallies().map(|(_, n)| n).sum::<u64>(),
            5001 - 5000 / 9
        );
        assert_eq!(SampleTable::default().thread_tallies(), Some(&[][..]));
    }

    #[test]
    fn a_sample_is_14_to_20_bytes_and_what_cannot_be_kept_is_refused() {
        let mut t = SampleTable::new();
        for i in 0..10_000 {
            t.push(sample(i % 64, 250_000, Some(i))).unwrap();
        }
        t.shrink();
        // One event and one period: time 4 (an offset in its block of 4 096: see
        // `time_column`) + thread 4 + CPU 2 + stack 4 bytes. The three columns in blocks hold
        // a list of their (here one) blocks, the time column one of its 3 blocks. The tallies:
        // threads 0 to 3 (of which 3 has samples), CPUs 0 to 63 and stacks 0 to 9 999.
        let lists = |n: usize| n * std::mem::size_of::<Vec<u8>>();
        let time_blocks = |n: usize| {
            n.div_ceil(crate::time_column::BLOCK) * crate::time_column::BLOCK_ENTRY_BYTES
        };
        let tallies = 4 * std::mem::size_of::<ThreadTally>()
            + 64 * 8
            + 10_000 * std::mem::size_of::<(u32, u64)>();
        assert_eq!(
            t.heap_bytes(),
            14 * 10_000 + lists(3) + time_blocks(10_000) + tallies
        );
        // A second event and another period: their columns are made whole (event 2 and
        // period 4 bytes).
        let mut other = sample(1, 1_000, Some(1));
        other.event = EventIndex(3);
        t.push(other).unwrap();
        t.shrink();
        assert_eq!(
            t.heap_bytes(),
            20 * 10_001 + lists(5) + time_blocks(10_001) + tallies
        );
        assert_eq!(t.event(10_000), Some(EventIndex(3)));
        assert_eq!(t.event(9_999), Some(EventIndex(2)));
        assert_eq!(
            (t.period(0), t.period(10_000)),
            (Some(250_000), Some(1_000))
        );
        let too_big_event = Sample {
            event: EventIndex(u32::from(u16::MAX) + 1),
            ..sample(0, 1, None)
        };
        assert_eq!(t.push(too_big_event), Err(CapacityError { table: "event" }));
        assert_eq!(
            t.push(sample(0, 1, Some(u32::MAX))),
            Err(CapacityError { table: "stack" })
        );
        assert_eq!(t.len(), 10_001);
    }

    #[test]
    fn the_tester_passes_what_matches_passes_for_long_thread_lists_too() {
        // 40 threads in 8 processes (tid 100 + t, pid 10 + t / 5); 2 000 samples over them,
        // 4 CPUs, 2 events, times 0..2000.
        let mut threads = ThreadTable::default();
        for t in 0..40u32 {
            threads
                .push(Thread {
                    pid: 10 + t / 5,
                    tid: 100 + t,
                    name: StringIndex(0),
                })
                .unwrap();
        }
        let mut samples = SampleTable::new();
        for i in 0..2_000u32 {
            samples
                .push(Sample {
                    time: u64::from(i),
                    thread: ThreadIndex(i * 7 % 40),
                    cpu: i % 4,
                    event: EventIndex(i % 2),
                    stack: None,
                    period: 1,
                })
                .unwrap();
        }
        let filters = [
            SampleFilter::all(),
            SampleFilter {
                pids: vec![12, 11],
                ..SampleFilter::default()
            },
            SampleFilter {
                tids: vec![139, 100, 117],
                cpus: vec![1],
                ..SampleFilter::default()
            },
            SampleFilter {
                // A command's threads: many, in no order, with duplicates and strangers.
                pids: (0..40).rev().map(|t| 10 + t / 5).chain([99]).collect(),
                tids: (0..40)
                    .rev()
                    .filter(|t| t % 3 != 0)
                    .map(|t| 100 + t)
                    .collect(),
                time_range: Some((300, 1_700)),
                events: vec![EventIndex(1)],
                ..SampleFilter::default()
            },
        ];
        for f in &filters {
            let test = f.tester(&samples, &threads);
            let want: Vec<bool> = (0..samples.len())
                .map(|i| f.matches(&samples, &threads, i))
                .collect();
            let got: Vec<bool> = (0..samples.len()).map(&test).collect();
            assert_eq!(got, want, "{f:?}");
            assert!(want.iter().any(|&k| k), "{f:?} keeps some");
            assert!(!test(samples.len()), "past the end");
        }
        // The third: tids 139, 100 and 117 on CPU 1 only.
        let third = filters[2].tester(&samples, &threads);
        let n = (0..samples.len()).filter(|&i| third(i)).count();
        let by_hand = (0..2_000u32)
            .filter(|i| i % 4 == 1 && [39, 0, 17].contains(&(i * 7 % 40)))
            .count();
        assert_eq!(n, by_hand);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod time_span_tests {
    use super::*;

    /// The samples `filter` keeps, found through [`SampleFilter::candidates`] and one by one.
    fn kept(filter: &SampleFilter, table: &SampleTable) -> (Vec<usize>, Vec<usize>) {
        let threads = ThreadTable::default();
        let (range, passes) = filter.candidates(table, &threads, 1);
        let fast: Vec<usize> = range.filter(|&i| passes(i)).collect();
        let (start, end) = filter.time_range.unwrap();
        let slow = (0..table.len())
            .filter(|&i| table.time.get(i).is_some_and(|t| start <= t && t < end))
            .collect();
        (fast, slow)
    }

    fn table(times: &[u64]) -> SampleTable {
        let mut t = SampleTable::new();
        for &time in times {
            t.push(Sample {
                time,
                thread: ThreadIndex(0),
                cpu: 0,
                event: EventIndex(0),
                stack: None,
                period: 1,
            })
            .unwrap();
        }
        t
    }

    #[test]
    fn samples_out_of_time_order_are_found_in_a_span_around_the_range() {
        // Times 0, 10, 20, … with a few samples delivered late (earlier than one before them,
        // by up to 35), as a record that came after its round is.
        let mut times: Vec<u64> = (0..2000).map(|i| i * 10).collect();
        for (at, late) in [(500, 35), (501, 5), (1200, 20), (1999, 12)] {
            times[at] -= late;
        }
        let sorted = table(&(0..2000).map(|i| i * 10).collect::<Vec<_>>());
        let late = table(&times);
        for (start, end) in [
            (0, 20_000),
            (4_960, 5_020),
            (4_965, 4_975),
            (11_985, 12_000),
            (19_975, 19_990),
            (100, 101),
            (30_000, 40_000),
        ] {
            let f = SampleFilter {
                time_range: Some((start, end)),
                ..SampleFilter::all()
            };
            let (fast, slow) = kept(&f, &late);
            assert_eq!(fast, slow, "{start}..{end}");
            let (fast, slow) = kept(&f, &sorted);
            assert_eq!(fast, slow, "{start}..{end} in order");
            // In order, the window is exact; out of order, a span no wider than the range
            // with the lateness on both sides, all of whose samples inside the range less the
            // lateness on both sides are in it.
            assert!(f.time_window(&sorted).is_some());
            let span = f.time_span(&late).unwrap();
            // (Exact when empty: past the last sample.)
            assert_eq!(span.is_exact(), span.outer.is_empty(), "{span:?}");
            assert_eq!(f.time_window(&late).is_some(), span.is_exact());
            assert!(
                span.outer.len() <= ((end - start + 70) / 10 + 2) as usize,
                "{span:?}"
            );
            let inner = (start + 35..end.saturating_sub(35))
                .filter(|t| t % 10 == 0 && *t < 20_000)
                .count();
            assert!(span.inner.len() + 1 >= inner, "{span:?}");
            assert!(span.edges().count() <= 16, "{span:?}");
        }
    }

    #[test]
    fn lateness_is_the_most_a_sample_is_earlier_than_one_before_it() {
        assert_eq!(table(&[]).lateness(), 0);
        assert_eq!(table(&[1, 1, 2, 9]).lateness(), 0);
        // 3 is 7 earlier than 10; 8 only 2.
        assert_eq!(table(&[5, 10, 3, 8, 11]).lateness(), 7);
        assert_eq!(table(&[u64::MAX, 0]).lateness(), u64::MAX);
    }
}
