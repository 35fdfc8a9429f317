//! Timelines: who ran when. Per-thread and per-CPU sample density at any zoom
//! ([`SampleDensity`]), thread lifetimes (FORK, COMM, EXIT, first and last seen), on- and off-CPU
//! intervals per thread from context switches, what ran on each CPU, and markers for lost and
//! throttled samples.
//!
//! A [`TimelineBuilder`] is fed events in time order — by hand, or from perf records through a
//! [`RecordFeeder`] — and [`TimelineBuilder::build`] returns the [`Timeline`].
//!
//! # Context switches
//!
//! Three sources say when a thread left and got back a CPU:
//! - `PERF_RECORD_SWITCH` (`perf record --switch-events`, per task): the switching task is in the
//!   record's `sample_id`, `PERF_RECORD_MISC_SWITCH_OUT` tells out from in and
//!   `PERF_RECORD_MISC_SWITCH_OUT_PREEMPT` a preemption (still runnable) from a voluntary switch.
//! - `PERF_RECORD_SWITCH_CPU_WIDE` (`-a --switch-events`): the same per record; the other task
//!   (`next_prev_pid/tid`) gets its own record, so it is not used.
//! - `sched:sched_switch` samples: `prev_pid` leaves with `prev_state`, `next_pid` enters.
//!   Recorded per task (`-e sched:sched_switch -- cmd`), only the task's own switch-outs are
//!   seen: a switch-out of a thread that is already out means its switch-in was missed, and it
//!   is inferred at the previous switch seen on that CPU (or the switch-out, if later), which is
//!   what `perf sched timehist` assumes too ([`Bound::Inferred`]).
//!
//! When a thread takes a CPU (recorded, or inferred as above), whoever the switches left running
//! there must have left unrecorded (lost events, or a task outside a per-task recording): its
//! interval ends there, [`Bound::Inferred`], and it is off-CPU in [`OffCpuState::Unknown`], which
//! gets no off-CPU time.
//!
//! pid/tid 0 is the idle task, one per CPU: its intervals are the CPU's idle slices, not a
//! thread's. A thread's first switch-in has no off-CPU interval before it (nothing says where it
//! was); an interval still open at the end of the recording is closed there and marked
//! [`Bound::Truncated`]; a thread switched out dead (`X`/`Z`), or after its EXIT, has no off-CPU
//! interval after that.

mod builder;
mod density;
mod rank_index;
mod records;
mod run;

pub use builder::{SchedSwitch, SwitchEvent, TimelineBuilder, TimelineSample};
pub use density::SampleDensity;
pub use rank_index::{RankIndex, SAMPLES_PER_BUCKET};
pub use records::{RecordFeeder, SchedSwitchFields, SchedSwitchFormat, TimelineRecorder};

use crate::ids::StackIndex;

/// An entry of [`Timeline::tasks`]: one thread over its lifetime (a tid reused after an EXIT is
/// another task).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TaskIndex(pub u32);

impl TaskIndex {
    /// The index as a `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// How an interval end is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// A switch record (or the FORK/EXIT) says so.
    Recorded,
    /// The switch-in was not recorded: it is taken at the previous switch seen on the CPU, as
    /// `perf sched timehist` does (per-task `sched_switch` recordings, lost events).
    Inferred,
    /// Not known: the interval began before the first or ended after the last event that shows
    /// it, and the bound is the earliest (latest) time possible — the recording's start (or the
    /// thread's FORK, or its previous switch-out when nothing was seen on the CPU before) or the
    /// recording's end.
    Truncated,
}

/// Why a thread was off-CPU: its state when it was switched out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OffCpuState {
    /// Still runnable: preempted (`PERF_RECORD_MISC_SWITCH_OUT_PREEMPT`, sched_switch `R`/`R+`).
    Runnable,
    /// A voluntary switch (`PERF_RECORD_SWITCH` without the preempt bit): sleeping or blocked,
    /// the record does not say which.
    Voluntary,
    /// Interruptible sleep (`S`).
    Sleeping,
    /// Uninterruptible sleep, usually I/O (`D`).
    DiskSleep,
    /// Another sched_switch state letter: `T`, `t`, `X` (dead), `Z` (zombie), `P`, `I`.
    Other(char),
    /// The switch-out was not recorded: it is inferred from another thread (or the idle task)
    /// taking the CPU. No off-CPU time is attributed for it.
    Unknown,
}

impl OffCpuState {
    /// The state of a sched_switch `prev_state` value (kernel 4.14+ `TASK_REPORT` bits: 0 is
    /// `R`, bit 0 `S`, 1 `D`, 2 `T`, 3 `t`, 4 `X`, 5 `Z`, 6 `P`, 7 `I`; `TASK_REPORT_MAX` above
    /// them marks a preemption, `R+`).
    pub fn from_prev_state(prev_state: u64) -> OffCpuState {
        let low = prev_state & 0xff;
        if low == 0 {
            return OffCpuState::Runnable;
        }
        match low.trailing_zeros() {
            0 => OffCpuState::Sleeping,
            1 => OffCpuState::DiskSleep,
            bit => OffCpuState::Other(char::from(*b"SDTtXZPI".get(bit as usize).unwrap_or(&b'?'))),
        }
    }

    /// Whether the task is gone (`X` or `Z`): nothing follows this switch-out.
    pub fn is_dead(self) -> bool {
        matches!(self, OffCpuState::Other('X' | 'Z'))
    }

    /// The letter perf prints (`R`, `S`, `D`, ...; `V` for a voluntary switch record).
    pub fn letter(self) -> char {
        match self {
            OffCpuState::Runnable => 'R',
            OffCpuState::Voluntary => 'V',
            OffCpuState::Sleeping => 'S',
            OffCpuState::DiskSleep => 'D',
            OffCpuState::Other(c) => c,
            OffCpuState::Unknown => '?',
        }
    }
}

/// A time a thread (or a CPU's idle task) was running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OnCpuInterval {
    /// Switch-in time (ns).
    pub start: u64,
    /// Switch-out time (ns).
    pub end: u64,
    /// The CPU, when the records say it.
    pub cpu: Option<u32>,
    /// How `start` is known.
    pub start_bound: Bound,
    /// How `end` is known.
    pub end_bound: Bound,
}

/// A time a thread was switched out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OffCpuInterval {
    /// Switch-out time (ns), always recorded.
    pub start: u64,
    /// Switch-in time (ns).
    pub end: u64,
    /// The CPU it left.
    pub cpu_out: Option<u32>,
    /// The CPU it came back on.
    pub cpu_in: Option<u32>,
    /// Its state when it left.
    pub state: OffCpuState,
    /// How `end` is known.
    pub end_bound: Bound,
}

/// A name a thread had from `time` on (COMM, or the parent's at FORK, or a sched_switch comm).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskName {
    /// When it was set (`None`: before the recording, or a record without time).
    pub time: Option<u64>,
    /// The command name.
    pub name: String,
    /// Set by an exec (`PERF_RECORD_MISC_COMM_EXEC`).
    pub exec: bool,
}

/// One thread over its lifetime.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Task {
    /// Process id; `None` while only sched_switch tracepoints (which give tids) named it.
    pub pid: Option<u32>,
    /// Thread id (`u32::MAX` for perf's -1).
    pub tid: u32,
    /// Names in time order.
    pub names: Vec<TaskName>,
    /// `(ppid, ptid)` from FORK.
    pub parent: Option<(u32, u32)>,
    /// FORK time.
    pub fork_time: Option<u64>,
    /// EXIT time.
    pub exit_time: Option<u64>,
    /// Earliest timestamp of any event about the thread.
    pub first_seen: Option<u64>,
    /// Latest timestamp of any event about the thread.
    pub last_seen: Option<u64>,
    /// Samples of the thread (all events), including those without a time.
    pub samples: u64,
    /// On-CPU intervals in time order.
    pub on_cpu: Vec<OnCpuInterval>,
    /// Off-CPU intervals in time order.
    pub off_cpu: Vec<OffCpuInterval>,
}

impl Task {
    /// The latest name (empty when none is known).
    pub fn name(&self) -> &str {
        self.names.last().map_or("", |n| n.name.as_str())
    }

    /// The name the thread had at `time`: the last one set at or before it (the first one when
    /// all are later).
    pub fn name_at(&self, time: u64) -> &str {
        let i = self
            .names
            .partition_point(|n| n.time.is_none_or(|t| t <= time));
        self.names
            .get(i.saturating_sub(1))
            .map_or("", |n| n.name.as_str())
    }

    /// Total on-CPU time (ns), truncated intervals included.
    pub fn on_cpu_ns(&self) -> u64 {
        self.on_cpu
            .iter()
            .map(|i| i.end.saturating_sub(i.start))
            .sum()
    }

    /// Total off-CPU time (ns) of the intervals that began with a switch-out and ended with a
    /// switch-in (recorded or inferred), the time that [`OffCpuSample`]s carry.
    pub fn off_cpu_ns(&self) -> u64 {
        self.off_cpu
            .iter()
            .filter(|i| i.end_bound != Bound::Truncated && i.state != OffCpuState::Unknown)
            .map(|i| i.end.saturating_sub(i.start))
            .sum()
    }
}

/// Where an off-CPU stack comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StackSource {
    /// The callchain of the sched_switch sample that switched the thread out (recorded with
    /// `-g`): exact.
    SwitchCallchain,
    /// The thread's last sampled stack before the switch: approximate.
    LastSample,
    /// No sample of the thread before the switch: no stack.
    NoSample,
}

impl StackSource {
    /// Whether the stack is a guess (not the callchain at the switch).
    pub fn is_approximate(self) -> bool {
        self != StackSource::SwitchCallchain
    }
}

/// One off-CPU interval that ended with a switch-in, with the stack it is attributed to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OffCpuSample {
    /// The thread.
    pub task: TaskIndex,
    /// Switch-out time (ns).
    pub start: u64,
    /// Switch-in time (ns).
    pub end: u64,
    /// The CPU it left.
    pub cpu_out: Option<u32>,
    /// The CPU it came back on.
    pub cpu_in: Option<u32>,
    /// Its state when it left.
    pub state: OffCpuState,
    /// The stack (in the profile's stack table), `None` for none.
    pub stack: Option<StackIndex>,
    /// Where the stack comes from.
    pub source: StackSource,
    /// How `end` is known ([`Bound::Recorded`] or [`Bound::Inferred`]).
    pub end_bound: Bound,
}

impl OffCpuSample {
    /// The off-CPU time in ns.
    pub fn duration(&self) -> u64 {
        self.end.saturating_sub(self.start)
    }
}

/// A slice of a CPU's time: who ran on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuSlice {
    /// Start (ns).
    pub start: u64,
    /// End (ns).
    pub end: u64,
    /// The thread, `None` for the idle task.
    pub task: Option<TaskIndex>,
    /// How `start` is known.
    pub start_bound: Bound,
    /// How `end` is known.
    pub end_bound: Bound,
}

/// One CPU's lane.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CpuLane {
    /// The CPU number.
    pub cpu: u32,
    /// Times of the samples taken on it.
    pub samples: SampleDensity,
    /// Who ran on it, in time order (from context switches that name the CPU).
    pub slices: Vec<CpuSlice>,
}

/// What a [`Marker`] marks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkerKind {
    /// `PERF_RECORD_LOST`: `lost` records of event `id` dropped (ring buffer full).
    Lost {
        /// The event's id.
        id: u64,
        /// How many records.
        lost: u64,
    },
    /// `PERF_RECORD_LOST_SAMPLES`: `lost` samples dropped by the kernel (or a BPF filter).
    LostSamples {
        /// How many samples.
        lost: u64,
    },
    /// `PERF_RECORD_THROTTLE`: sampling of event `id` throttled.
    Throttle {
        /// The event's id.
        id: u64,
    },
    /// `PERF_RECORD_UNTHROTTLE`.
    Unthrottle {
        /// The event's id.
        id: u64,
    },
}

/// A point event on the timeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Marker {
    /// Time (ns), when the record has one.
    pub time: Option<u64>,
    /// CPU, when the record has one.
    pub cpu: Option<u32>,
    /// What happened.
    pub kind: MarkerKind,
}

/// A timeline lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    /// A thread.
    Task(TaskIndex),
    /// A CPU, by number.
    Cpu(u32),
}

/// How many context-switch events of each source were seen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SwitchCounts {
    /// `PERF_RECORD_SWITCH` records.
    pub switch: u64,
    /// `PERF_RECORD_SWITCH_CPU_WIDE` records.
    pub switch_cpu_wide: u64,
    /// `sched:sched_switch` samples.
    pub sched_switch: u64,
}

impl SwitchCounts {
    /// Whether any context switch was seen (on- and off-CPU intervals exist).
    pub fn any(&self) -> bool {
        self.switch + self.switch_cpu_wide + self.sched_switch > 0
    }
}

/// Everything a timeline view draws.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Timeline {
    /// The earliest timestamp seen.
    pub start: Option<u64>,
    /// The latest timestamp seen.
    pub end: Option<u64>,
    /// Threads, in order of first appearance.
    pub tasks: Vec<Task>,
    /// Sample times per thread, parallel to `tasks`.
    pub task_samples: Vec<SampleDensity>,
    /// CPUs, by number.
    pub cpus: Vec<CpuLane>,
    /// Lost and throttle markers in time order.
    pub markers: Vec<Marker>,
    /// Off-CPU time attributed to stacks, in order of switch-in.
    pub off_cpu: Vec<OffCpuSample>,
    /// Context-switch events seen, by source.
    pub switches: SwitchCounts,
    /// Samples without a time (they count for their thread but have no place on a lane).
    pub untimed_samples: u64,
}

impl Timeline {
    /// The thread at `i`.
    pub fn task(&self, i: TaskIndex) -> Option<&Task> {
        self.tasks.get(i.index())
    }

    /// The tasks with this pid and tid (several when the tid was reused).
    pub fn find_tasks(&self, pid: u32, tid: u32) -> impl Iterator<Item = TaskIndex> + '_ {
        self.tasks
            .iter()
            .enumerate()
            .filter(move |(_, t)| t.tid == tid && t.pid == Some(pid))
            .map(|(i, _)| TaskIndex(u32::try_from(i).unwrap_or(u32::MAX)))
    }

    /// The CPU lane of CPU `cpu`.
    pub fn cpu(&self, cpu: u32) -> Option<&CpuLane> {
        self.cpus
            .binary_search_by_key(&cpu, |c| c.cpu)
            .ok()
            .and_then(|i| self.cpus.get(i))
    }

    /// The sample times of a lane.
    pub fn lane_samples(&self, lane: Lane) -> Option<&SampleDensity> {
        match lane {
            Lane::Task(t) => self.task_samples.get(t.index()),
            Lane::Cpu(c) => self.cpu(c).map(|c| &c.samples),
        }
    }

    /// Sample counts of `lane` in `nbins` equal bins over `[t0, t1)` (all zero for an unknown
    /// lane); see [`SampleDensity::density_into`].
    pub fn density(&self, lane: Lane, t0: u64, t1: u64, nbins: usize) -> Vec<u32> {
        match self.lane_samples(lane) {
            Some(d) => d.density(t0, t1, nbins),
            None => vec![0; nbins],
        }
    }

    /// The on-CPU intervals of a thread that overlap `[t0, t1)`.
    pub fn on_cpu_in(&self, task: TaskIndex, t0: u64, t1: u64) -> &[OnCpuInterval] {
        let Some(t) = self.task(task) else { return &[] };
        // Intervals of one thread do not overlap, so starts and ends are both sorted.
        let a = t.on_cpu.partition_point(|i| i.end <= t0);
        let b = t.on_cpu.partition_point(|i| i.start < t1);
        t.on_cpu.get(a..b.max(a)).unwrap_or(&[])
    }

    /// The off-CPU intervals of a thread that overlap `[t0, t1)`.
    pub fn off_cpu_in(&self, task: TaskIndex, t0: u64, t1: u64) -> &[OffCpuInterval] {
        let Some(t) = self.task(task) else { return &[] };
        let a = t.off_cpu.partition_point(|i| i.end <= t0);
        let b = t.off_cpu.partition_point(|i| i.start < t1);
        t.off_cpu.get(a..b.max(a)).unwrap_or(&[])
    }
}
