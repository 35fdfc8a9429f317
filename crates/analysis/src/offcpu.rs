//! Off-CPU time attributed to stacks, so that a flame graph can be weighted by the time threads
//! spent switched out (as Hotspot and samply do, and as `perf record --off-cpu` records it).
//!
//! With context switches recorded (`--switch-events`, or `sched:sched_switch` samples), each time a
//! thread is switched out and back in, the time in between goes to the stack it was switched
//! out with: the callchain of the sched_switch sample when it was recorded with `-g` (exact), or
//! else the thread's last sampled stack before the switch (approximate: the thread may have
//! moved on since that sample). The [`crate::timeline::TimelineBuilder`] tracks this with an
//! [`OffCpuStacks`] and emits one [`OffCpuSample`] per switch-in.
//!
//! [`add_to_profile`] turns them into samples of pseudo-events whose period is the off-CPU time
//! in ns, named like perf's BPF off-CPU event: [`OFF_CPU_EVENT`] for exact stacks and
//! [`OFF_CPU_APPROX_EVENT`] for approximate ones. Every call tree, flame graph and export then
//! weighs by off-CPU time when asked for that event's period.

use std::collections::{BTreeMap, HashMap};

use crate::ids::{CapacityError, EventIndex, StackIndex, ThreadIndex};
use crate::profile::Profile;
use crate::samples::SampleTable;
use crate::timeline::{OffCpuSample, StackSource, TaskIndex, Timeline};

/// The pseudo-event of off-CPU time with exact stacks (sched_switch callchains), the name of
/// perf's `--off-cpu` event.
pub const OFF_CPU_EVENT: &str = "offcpu-time";
/// The pseudo-event of off-CPU time attributed to the thread's last sampled stack.
pub const OFF_CPU_APPROX_EVENT: &str = "offcpu-time:approx";

/// Whether `name` is one of the off-CPU pseudo-events ([`OFF_CPU_EVENT`],
/// [`OFF_CPU_APPROX_EVENT`]).
pub fn is_off_cpu_event(name: &str) -> bool {
    matches!(name, OFF_CPU_EVENT | OFF_CPU_APPROX_EVENT)
}

/// The stack each thread would be switched out with, per [`TaskIndex`].
#[derive(Clone, Debug, Default)]
pub struct OffCpuStacks {
    /// The last sampled stack of each task (`None`: no sample yet).
    last: Vec<Option<Option<StackIndex>>>,
    /// The stack of each switched-out task, until it is switched in.
    pending: Vec<Option<(Option<StackIndex>, StackSource)>>,
}

fn slot<T: Default + Clone>(v: &mut Vec<T>, task: TaskIndex) -> Option<&mut T> {
    if v.len() <= task.index() {
        v.resize(task.index().saturating_add(1), T::default());
    }
    v.get_mut(task.index())
}

impl OffCpuStacks {
    /// A sample of `task` with `stack`.
    pub fn on_sample(&mut self, task: TaskIndex, stack: Option<StackIndex>) {
        if let Some(s) = slot(&mut self.last, task) {
            *s = Some(stack);
        }
    }

    /// `task` is switched out; `callchain` is the stack of the switch event when it had a
    /// callchain.
    pub fn on_switch_out(&mut self, task: TaskIndex, callchain: Option<Option<StackIndex>>) {
        let pick = match callchain {
            Some(stack) => (stack, StackSource::SwitchCallchain),
            None => match self.last.get(task.index()).copied().flatten() {
                Some(stack) => (stack, StackSource::LastSample),
                None => (None, StackSource::NoSample),
            },
        };
        if let Some(p) = slot(&mut self.pending, task) {
            *p = Some(pick);
        }
    }

    /// `task` is switched in: the stack its off-CPU time goes to.
    pub fn on_switch_in(&mut self, task: TaskIndex) -> (Option<StackIndex>, StackSource) {
        self.pending
            .get_mut(task.index())
            .and_then(Option::take)
            .unwrap_or((None, StackSource::NoSample))
    }
}

/// Off-CPU time of one (thread, stack) pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OffCpuWeight {
    /// The thread.
    pub task: TaskIndex,
    /// The stack, `None` for none.
    pub stack: Option<StackIndex>,
    /// Where the stack comes from.
    pub source: StackSource,
    /// Total off-CPU time (ns).
    pub ns: u64,
    /// How many off-CPU intervals.
    pub count: u64,
}

/// Off-CPU time summed per (thread, stack, source), ordered by thread, then stack.
pub fn off_cpu_by_stack(samples: &[OffCpuSample]) -> Vec<OffCpuWeight> {
    let mut sums: BTreeMap<(TaskIndex, Option<StackIndex>, StackSource), (u64, u64)> =
        BTreeMap::new();
    for s in samples {
        let e = sums.entry((s.task, s.stack, s.source)).or_default();
        e.0 = e.0.saturating_add(s.duration());
        e.1 += 1;
    }
    sums.into_iter()
        .map(|((task, stack, source), (ns, count))| OffCpuWeight {
            task,
            stack,
            source,
            ns,
            count,
        })
        .collect()
}

/// The events [`add_to_profile`] added.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OffCpuEvents {
    /// [`OFF_CPU_EVENT`], when some stack was exact.
    pub exact: Option<EventIndex>,
    /// [`OFF_CPU_APPROX_EVENT`], when some stack was approximate.
    pub approximate: Option<EventIndex>,
}

/// Adds the timeline's off-CPU samples to `profile` as samples of [`OFF_CPU_EVENT`] /
/// [`OFF_CPU_APPROX_EVENT`] with the off-CPU time in ns as period, at the switch-in time (as
/// perf's `--off-cpu` does), merged into the sample table in time order. Each goes to the
/// profile thread with the task's pid, tid and name at the switch-out (a new thread when the
/// profile has none). Samples of zero length are left out.
pub fn add_to_profile(
    profile: &mut Profile,
    timeline: &Timeline,
) -> Result<OffCpuEvents, CapacityError> {
    add_to_profile_filtered(profile, timeline, |_, _| true)
}

/// [`add_to_profile`] for the samples `keep` accepts (given the sample and its thread).
pub fn add_to_profile_filtered(
    profile: &mut Profile,
    timeline: &Timeline,
    keep: impl Fn(&OffCpuSample, &crate::timeline::Task) -> bool,
) -> Result<OffCpuEvents, CapacityError> {
    let mut events = OffCpuEvents::default();
    let threads = threads_by_id(profile)?;
    let mut extra = SampleTable::default();
    let mut added: HashMap<(u32, u32, String), ThreadIndex> = HashMap::new();
    for s in in_time_order(timeline) {
        let Some(task) = timeline.task(s.task).filter(|t| keep(s, t)) else {
            continue;
        };
        let pid = task.pid.unwrap_or(u32::MAX);
        let name = task.name_at(s.start);
        let thread = match profile_thread(profile, &threads, task, s) {
            Some(t) => t,
            None => {
                let key = (pid, task.tid, name.to_owned());
                match added.get(&key) {
                    Some(&t) => t,
                    None => {
                        let shown = if name.is_empty() {
                            format!(":{}", task.tid)
                        } else {
                            name.to_owned()
                        };
                        let t = profile.add_thread(pid, task.tid, &shown)?;
                        added.insert(key, t);
                        t
                    }
                }
            }
        };
        let event = if s.source.is_approximate() {
            match events.approximate {
                Some(e) => e,
                None => *events
                    .approximate
                    .insert(profile.add_event(OFF_CPU_APPROX_EVENT)?),
            }
        } else {
            match events.exact {
                Some(e) => e,
                None => *events.exact.insert(profile.add_event(OFF_CPU_EVENT)?),
            }
        };
        extra.push(crate::samples::Sample {
            time: s.end,
            thread,
            cpu: s.cpu_in.unwrap_or(u32::MAX),
            event,
            stack: s.stack,
            period: s.duration(),
        })?;
    }
    merge_by_time(&mut profile.samples, extra)?;
    Ok(events)
}

/// The profile's threads by (pid, tid).
fn threads_by_id(
    profile: &Profile,
) -> Result<HashMap<(u32, u32), Vec<ThreadIndex>>, CapacityError> {
    let mut threads: HashMap<(u32, u32), Vec<ThreadIndex>> = HashMap::new();
    for i in 0..profile.threads.len() {
        let t = ThreadIndex::from_len(i)?;
        if let Some(th) = profile.threads.get(t) {
            threads.entry((th.pid, th.tid)).or_default().push(t);
        }
    }
    Ok(threads)
}

/// The timeline's off-CPU periods with a duration, by switch-in time.
fn in_time_order(timeline: &Timeline) -> Vec<&OffCpuSample> {
    let mut order: Vec<&OffCpuSample> = timeline
        .off_cpu
        .iter()
        .filter(|s| s.duration() > 0)
        .collect();
    order.sort_by_key(|s| s.end);
    order
}

/// The profile thread of `task` when `s` began: the one with its name then, else its last.
fn profile_thread(
    profile: &Profile,
    threads: &HashMap<(u32, u32), Vec<ThreadIndex>>,
    task: &crate::timeline::Task,
    s: &OffCpuSample,
) -> Option<ThreadIndex> {
    let name = task.name_at(s.start);
    let candidates = threads
        .get(&(task.pid.unwrap_or(u32::MAX), task.tid))
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    candidates
        .iter()
        .rev()
        .find(|&&t| profile.thread_name(t) == name)
        .or(candidates.last())
        .copied()
}

/// The event column of [`off_cpu_table`]: off-CPU time with an exact stack.
pub const EXACT: EventIndex = EventIndex(0);
/// The event column of [`off_cpu_table`]: off-CPU time given to the thread's last sampled stack.
pub const APPROXIMATE: EventIndex = EventIndex(1);

/// The timeline's off-CPU time as a sample table of its own, beside `profile`'s (whose stack
/// table and threads it refers to; the profile is not changed): one sample per switch-in, in
/// time order, period the ns switched out, event [`EXACT`] or [`APPROXIMATE`] (not events of
/// the profile). Periods of threads the profile has no sample of are left out: they have no
/// stack to give the time to.
pub fn off_cpu_table(profile: &Profile, timeline: &Timeline) -> Result<SampleTable, CapacityError> {
    let threads = threads_by_id(profile)?;
    let mut table = SampleTable::default();
    for s in in_time_order(timeline) {
        let Some(thread) = timeline
            .task(s.task)
            .and_then(|task| profile_thread(profile, &threads, task, s))
        else {
            continue;
        };
        let event = if s.source.is_approximate() {
            APPROXIMATE
        } else {
            EXACT
        };
        table.push(crate::samples::Sample {
            time: s.end,
            thread,
            cpu: s.cpu_in.unwrap_or(u32::MAX),
            event,
            stack: s.stack,
            period: s.duration(),
        })?;
    }
    Ok(table)
}

/// Merges `extra` (sorted by time) into `table`, keeping each table's own order; a sample of
/// `table` goes first on equal times.
fn merge_by_time(table: &mut SampleTable, extra: SampleTable) -> Result<(), CapacityError> {
    if extra.is_empty() {
        return Ok(());
    }
    let old = std::mem::take(table);
    let (mut i, mut j) = (0, 0);
    loop {
        let take_old = match (old.times().get(i), extra.times().get(j)) {
            (Some(a), Some(b)) => a <= b,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        let s = if take_old { old.get(i) } else { extra.get(j) };
        if take_old {
            i += 1;
        } else {
            j += 1;
        }
        if let Some(s) = s {
            table.push(s)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::{SchedSwitch, TimelineBuilder, TimelineSample};

    fn sample(time: u64, tid: u32, stack: u32) -> TimelineSample {
        TimelineSample {
            time: Some(time),
            pid: 10,
            tid,
            cpu: Some(0),
            stack: Some(StackIndex(stack)),
            is_sched_switch: false,
        }
    }

    fn switch(
        time: u64,
        prev_tid: u32,
        prev_state: u64,
        next_tid: u32,
        callchain: Option<u32>,
    ) -> SchedSwitch<'static> {
        SchedSwitch {
            time,
            cpu: Some(0),
            prev_tid,
            prev_state,
            prev_comm: "",
            next_tid,
            next_comm: "",
            has_callchain: callchain.is_some(),
            stack: callchain.map(StackIndex),
        }
    }

    #[test]
    fn exact_stack_from_the_switch_callchain_else_the_last_sample() {
        let mut b = TimelineBuilder::new();
        b.on_sample(&sample(100, 11, 7));
        b.on_sample(&sample(150, 11, 8));
        // 11 blocks with a callchain (stack 9), 12 runs, then 11 is back.
        b.on_sched_switch(&switch(200, 11, 1, 12, Some(9)));
        b.on_sched_switch(&switch(260, 12, 0, 11, Some(20)));
        // 11 blocks again without a callchain: its last sample's stack (8), approximate; the
        // sched_switch sample's own stack is not a "last sample".
        b.on_sample(&TimelineSample {
            is_sched_switch: true,
            ..sample(300, 11, 99)
        });
        b.on_sched_switch(&switch(300, 11, 2, 12, None));
        b.on_sched_switch(&switch(1_300, 12, 1, 11, None));
        let t = b.build();
        let got: Vec<_> = t
            .off_cpu
            .iter()
            .map(|s| (s.task.0, s.start, s.end, s.stack, s.source))
            .collect();
        assert_eq!(
            got,
            [
                (
                    0,
                    200,
                    260,
                    Some(StackIndex(9)),
                    StackSource::SwitchCallchain
                ),
                // 12 was first seen switching in at 200: nothing before that.
                (
                    1,
                    260,
                    300,
                    Some(StackIndex(20)),
                    StackSource::SwitchCallchain
                ),
                (0, 300, 1_300, Some(StackIndex(8)), StackSource::LastSample),
            ]
        );
        let w = off_cpu_by_stack(&t.off_cpu);
        assert_eq!(w.len(), 3);
        assert_eq!(
            (w[0].task, w[0].stack, w[0].ns, w[0].count),
            (TaskIndex(0), Some(StackIndex(8)), 1_000, 1)
        );
    }

    #[test]
    fn no_sample_before_the_switch_gives_no_stack() {
        let mut b = TimelineBuilder::new();
        b.on_sched_switch(&switch(10, 11, 1, 12, None));
        b.on_sched_switch(&switch(25, 12, 1, 11, None));
        let t = b.build();
        assert_eq!(t.off_cpu.len(), 1);
        assert_eq!(
            (
                t.off_cpu[0].stack,
                t.off_cpu[0].source,
                t.off_cpu[0].duration()
            ),
            (None, StackSource::NoSample, 15)
        );
        assert!(t.off_cpu[0].source.is_approximate());
    }

    #[test]
    fn off_cpu_samples_merge_into_the_profile_in_time_order() {
        let mut p = Profile::new();
        let ev = p.add_event("cpu-clock").unwrap();
        let th = p.add_thread(10, 11, "worker").unwrap();
        for time in [100, 150, 400] {
            p.push_sample(crate::samples::Sample {
                time,
                thread: th,
                cpu: 0,
                event: ev,
                stack: None,
                period: 1,
            })
            .unwrap();
        }
        let mut b = TimelineBuilder::new();
        b.on_comm(Some(50), 10, 11, "worker", false);
        b.on_sample(&sample(100, 11, 7));
        b.on_sched_switch(&switch(200, 11, 1, 12, None));
        b.on_sched_switch(&switch(260, 12, 1, 11, Some(3)));
        let t = b.build();
        // 12 (pid unknown: only sched_switch named it) was never switched back in.
        let events = add_to_profile(&mut p, &t).unwrap();
        assert_eq!(events.exact, None);
        let approx = events.approximate.unwrap();
        assert_eq!(p.event_name(approx), OFF_CPU_APPROX_EVENT);
        assert_eq!(p.samples.times().to_vec(), [100, 150, 260, 400]);
        let s = p.samples.get(2).unwrap();
        assert_eq!(
            (s.thread, s.event, s.stack, s.period, s.cpu),
            (th, approx, Some(StackIndex(7)), 60, 0)
        );
    }
}
