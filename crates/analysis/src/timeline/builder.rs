//! [`TimelineBuilder`]: the timeline built from events fed in time order.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use super::run::{OutContext, Run};
use super::{
    Bound, CpuLane, CpuSlice, Marker, OffCpuInterval, OffCpuSample, OffCpuState, OnCpuInterval,
    SampleDensity, SwitchCounts, Task, TaskIndex, TaskName, Timeline,
};
use crate::ids::StackIndex;
use crate::offcpu::OffCpuStacks;

/// A sample, as [`TimelineBuilder::on_sample`] takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimelineSample {
    /// Time (ns); `None` without `PERF_SAMPLE_TIME`.
    pub time: Option<u64>,
    /// pid (`u32::MAX` for -1).
    pub pid: u32,
    /// tid (`u32::MAX` for -1).
    pub tid: u32,
    /// CPU, without `PERF_SAMPLE_CPU` `None`.
    pub cpu: Option<u32>,
    /// The sample's stack in the profile, remembered as the thread's last sampled stack for
    /// off-CPU attribution.
    pub stack: Option<StackIndex>,
    /// A `sched:sched_switch` sample (also fed to [`TimelineBuilder::on_sched_switch`]): its
    /// stack is not taken as the thread's last sampled stack.
    pub is_sched_switch: bool,
}

/// A `PERF_RECORD_SWITCH` or `PERF_RECORD_SWITCH_CPU_WIDE` record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SwitchEvent {
    /// Time (ns) from the `sample_id`.
    pub time: u64,
    /// The switching task's pid (`sample_id`).
    pub pid: u32,
    /// The switching task's tid (`sample_id`).
    pub tid: u32,
    /// CPU from the `sample_id`, when recorded.
    pub cpu: Option<u32>,
    /// `PERF_RECORD_MISC_SWITCH_OUT`: the task leaves (else it enters).
    pub out: bool,
    /// `PERF_RECORD_MISC_SWITCH_OUT_PREEMPT`: it was preempted (still runnable).
    pub preempt: bool,
    /// A `PERF_RECORD_SWITCH_CPU_WIDE` record.
    pub cpu_wide: bool,
}

/// A `sched:sched_switch` sample, its fields decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SchedSwitch<'a> {
    /// Time (ns).
    pub time: u64,
    /// The CPU (`PERF_SAMPLE_CPU`).
    pub cpu: Option<u32>,
    /// `prev_pid`: the tid leaving.
    pub prev_tid: u32,
    /// `prev_state`.
    pub prev_state: u64,
    /// `prev_comm`.
    pub prev_comm: &'a str,
    /// `next_pid`: the tid entering.
    pub next_tid: u32,
    /// `next_comm`.
    pub next_comm: &'a str,
    /// The sample was recorded with a callchain (`-g`).
    pub has_callchain: bool,
    /// Its stack in the profile (meaningful with `has_callchain`).
    pub stack: Option<StackIndex>,
}

struct TaskState {
    task: Task,
    run: Run,
    times: Vec<u64>,
}

#[derive(Default)]
struct CpuState {
    times: Vec<u64>,
    /// The time of the last context switch seen on this CPU (perf's `tprev`).
    last_switch: Option<u64>,
    idle: Option<Run>,
    idle_slices: Vec<CpuSlice>,
    /// The thread running on it, as far as the switches tell.
    current: Option<TaskIndex>,
}

/// Builds a [`Timeline`] from events fed in time order.
///
/// ```
/// use perfscope_analysis::timeline::{Lane, SchedSwitch, TaskIndex, TimelineBuilder, TimelineSample};
/// let mut b = TimelineBuilder::new();
/// let sample = |time, tid| TimelineSample { time: Some(time), pid: 100, tid, cpu: Some(0), stack: None, is_sched_switch: false };
/// b.on_sample(&sample(1_000, 100));
/// // tid 100 blocks (S) at 2000 and tid 101 runs; 101 is preempted at 5000 and 100 is back.
/// let switch = |time, prev_tid, prev_state, next_tid| SchedSwitch {
///     time, cpu: Some(0), prev_tid, prev_state, prev_comm: "", next_tid, next_comm: "", has_callchain: false, stack: None,
/// };
/// b.on_sched_switch(&switch(2_000, 100, 1, 101));
/// b.on_sched_switch(&switch(5_000, 101, 0, 100));
/// let t = b.build();
/// assert_eq!(t.tasks[0].off_cpu_ns(), 3_000);
/// assert_eq!(t.off_cpu[0].duration(), 3_000);
/// assert_eq!(t.density(Lane::Task(TaskIndex(0)), 0, 10_000, 2), [1, 0]);
/// ```
#[derive(Default)]
pub struct TimelineBuilder {
    tasks: Vec<TaskState>,
    by_tid: FxHashMap<u32, TaskIndex>,
    /// Tasks with tid -1 (samples of exiting tasks), by pid.
    by_pid_unknown_tid: FxHashMap<u32, TaskIndex>,
    cpus: FxHashMap<u32, CpuState>,
    markers: Vec<Marker>,
    off_cpu: Vec<OffCpuSample>,
    stacks: OffCpuStacks,
    start: Option<u64>,
    end: Option<u64>,
    switches: SwitchCounts,
    untimed_samples: u64,
    /// Whether sample times are not kept (lanes without sample densities).
    no_sample_times: bool,
}

fn known(time: u64) -> Option<u64> {
    // perf writes 0 for synthesized records and -1 for "no time".
    (time != 0 && time != u64::MAX).then_some(time)
}

impl TimelineBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Keeps no sample times: the timeline's lanes get empty [`SampleDensity`]s (samples are
    /// still counted per task, and still give the threads' last stacks and time span). For a
    /// caller that counts samples from the profile itself: it saves 16 bytes a sample while
    /// loading.
    pub fn without_sample_times(mut self) -> Self {
        self.no_sample_times = true;
        self
    }

    fn see(&mut self, time: Option<u64>) {
        if let Some(t) = time {
            self.start = Some(self.start.map_or(t, |s| s.min(t)));
            self.end = Some(self.end.map_or(t, |e| e.max(t)));
        }
    }

    fn touch(&mut self, task: TaskIndex, time: Option<u64>) {
        self.see(time);
        if let (Some(t), Some(s)) = (time, self.tasks.get_mut(task.index())) {
            s.task.first_seen = Some(s.task.first_seen.map_or(t, |f| f.min(t)));
            s.task.last_seen = Some(s.task.last_seen.map_or(t, |l| l.max(t)));
        }
    }

    fn new_task(&mut self, pid: Option<u32>, tid: u32) -> TaskIndex {
        let i = TaskIndex(u32::try_from(self.tasks.len()).unwrap_or(u32::MAX));
        self.tasks.push(TaskState {
            task: Task {
                pid,
                tid,
                ..Task::default()
            },
            run: Run::Unknown,
            times: Vec::new(),
        });
        if tid == u32::MAX {
            if let Some(p) = pid {
                self.by_pid_unknown_tid.insert(p, i);
            }
        } else {
            self.by_tid.insert(tid, i);
        }
        i
    }

    /// The task a tid names now (sched_switch gives only tids).
    fn task_of_tid(&mut self, tid: u32) -> TaskIndex {
        match self.by_tid.get(&tid) {
            Some(&i) => i,
            None => self.new_task(None, tid),
        }
    }

    /// The task of a (pid, tid) pair: the live task with that tid, learning its pid, or a new
    /// one when the tid now belongs to another process.
    fn task_of(&mut self, pid: u32, tid: u32) -> TaskIndex {
        if tid == u32::MAX {
            return match self.by_pid_unknown_tid.get(&pid) {
                Some(&i) => i,
                None => self.new_task(Some(pid), tid),
            };
        }
        let Some(&i) = self.by_tid.get(&tid) else {
            return self.new_task(Some(pid), tid);
        };
        match self.tasks.get_mut(i.index()).map(|s| &mut s.task.pid) {
            Some(p @ None) => {
                *p = Some(pid);
                i
            }
            Some(Some(p)) if *p == pid => i,
            _ => self.new_task(Some(pid), tid),
        }
    }

    fn name(&mut self, task: TaskIndex, time: Option<u64>, name: &str, exec: bool) {
        if let Some(s) = self.tasks.get_mut(task.index()) {
            if s.task.name() != name {
                s.task.names.push(TaskName {
                    time,
                    name: name.to_owned(),
                    exec,
                });
            }
        }
    }

    fn name_if_unnamed(&mut self, task: TaskIndex, time: u64, name: &str) {
        if !name.is_empty()
            && self
                .tasks
                .get(task.index())
                .is_some_and(|s| s.task.names.is_empty())
        {
            self.name(task, Some(time), name, false);
        }
    }

    /// A sample: counts for its thread's and CPU's lanes; its stack becomes the thread's last
    /// sampled stack (unless it is a sched_switch sample).
    pub fn on_sample(&mut self, s: &TimelineSample) {
        let time = s.time.filter(|&t| t != u64::MAX);
        let task = self.task_of(s.pid, s.tid);
        self.touch(task, time);
        if let Some(st) = self.tasks.get_mut(task.index()) {
            st.task.samples += 1;
            match time {
                Some(t) if !self.no_sample_times => st.times.push(t),
                Some(_) => {}
                None => self.untimed_samples += 1,
            }
        }
        if let (Some(t), Some(cpu)) = (time, s.cpu) {
            let times = &mut self.cpus.entry(cpu).or_default().times;
            if !self.no_sample_times {
                times.push(t);
            }
        }
        if !s.is_sched_switch {
            self.stacks.on_sample(task, s.stack);
        }
    }

    /// COMM: the thread's name from `time` on.
    pub fn on_comm(&mut self, time: Option<u64>, pid: u32, tid: u32, name: &str, exec: bool) {
        let time = time.and_then(known);
        let task = self.task_of(pid, tid);
        self.touch(task, time);
        self.name(task, time, name, exec);
    }

    /// FORK: a new thread `tid` of process `pid`, child of `ptid` in `ppid`, named as its parent.
    pub fn on_fork(&mut self, time: u64, pid: u32, ppid: u32, tid: u32, ptid: u32) {
        let time = known(time);
        let reuse = self.by_tid.get(&tid).copied().filter(|i| {
            self.tasks.get(i.index()).is_some_and(|s| {
                s.task.exit_time.is_none()
                    && s.task.fork_time.is_none()
                    && s.task.pid.is_none_or(|p| p == pid)
            })
        });
        let task = match reuse {
            Some(i) if tid != u32::MAX => i,
            _ => self.new_task(Some(pid), tid),
        };
        let parent_name = self
            .by_tid
            .get(&ptid)
            .filter(|&&p| p != task)
            .and_then(|p| self.tasks.get(p.index()))
            .map(|p| p.task.name().to_owned())
            .filter(|n| !n.is_empty());
        if let Some(s) = self.tasks.get_mut(task.index()) {
            s.task.pid = Some(pid);
            s.task.parent = Some((ppid, ptid));
            s.task.fork_time = time;
            if let (true, Some(name)) = (s.task.names.is_empty(), parent_name) {
                s.task.names.push(TaskName {
                    time,
                    name,
                    exec: false,
                });
            }
        }
        self.touch(task, time);
    }

    /// EXIT of thread `tid`.
    pub fn on_exit(&mut self, time: u64, pid: u32, _ppid: u32, tid: u32, _ptid: u32) {
        let time = known(time);
        let task = self.task_of(pid, tid);
        if let Some(s) = self.tasks.get_mut(task.index()) {
            s.task.exit_time = time.or(s.task.exit_time);
        }
        self.touch(task, time);
    }

    /// A lost or throttle marker.
    pub fn on_marker(&mut self, marker: Marker) {
        self.see(marker.time.and_then(known));
        self.markers.push(marker);
    }

    fn tprev(&self, cpu: Option<u32>) -> Option<u64> {
        cpu.and_then(|c| self.cpus.get(&c))
            .and_then(|c| c.last_switch)
    }

    fn set_last_switch(&mut self, cpu: Option<u32>, time: u64) {
        if let Some(c) = cpu {
            self.cpus.entry(c).or_default().last_switch = Some(time);
        }
    }

    fn out_context(&self, time: u64, cpu: Option<u32>, fork: Option<u64>) -> OutContext {
        OutContext {
            time,
            cpu,
            tprev: self.tprev(cpu),
            fork,
            start: self.start.unwrap_or(time),
        }
    }

    /// `task` leaves its CPU in `state`; `callchain` is the stack of the switch when the event
    /// had a callchain.
    fn task_out(
        &mut self,
        task: TaskIndex,
        time: u64,
        cpu: Option<u32>,
        state: OffCpuState,
        callchain: Option<Option<StackIndex>>,
    ) {
        self.touch(task, Some(time));
        let fork = self.tasks.get(task.index()).and_then(|s| s.task.fork_time);
        let ctx = self.out_context(time, cpu, fork);
        let Some(s) = self.tasks.get_mut(task.index()) else {
            return;
        };
        let closed = s.run.switch_out(&ctx, state);
        if closed.duplicate {
            if callchain.is_some() || closed.upgraded {
                self.stacks.on_switch_out(task, callchain);
            }
            return;
        }
        s.task.on_cpu.extend(closed.on);
        s.task.off_cpu.extend(closed.off);
        if let Some(off) = closed.off {
            self.emit_off_cpu(task, off);
        }
        self.stacks.on_switch_out(task, callchain);
        if let Some(on) = closed.on.filter(|on| on.start_bound == Bound::Inferred) {
            self.evict(on.cpu, on.start, Some(task));
        }
        if let Some(state) = cpu.and_then(|c| self.cpus.get_mut(&c)) {
            if state.current == Some(task) {
                state.current = None;
            }
        }
    }

    /// `newcomer` (a thread, or the idle task for `None`) got CPU `cpu` at `at`: whoever the
    /// switches left running there must have left then, unrecorded. A thread that leaves so is
    /// off-CPU in an [`OffCpuState::Unknown`] state (no off-CPU time is attributed for it).
    fn evict(&mut self, cpu: Option<u32>, at: u64, newcomer: Option<TaskIndex>) {
        let Some(c) = cpu else { return };
        let Some(state) = self.cpus.get_mut(&c) else {
            return;
        };
        if let (Some(_), Some(Run::On { since, bound, .. })) = (newcomer, state.idle) {
            if since <= at {
                if since < at {
                    state.idle_slices.push(CpuSlice {
                        start: since,
                        end: at,
                        task: None,
                        start_bound: bound,
                        end_bound: Bound::Inferred,
                    });
                }
                state.idle = Some(Run::Off {
                    since: at,
                    cpu,
                    state: OffCpuState::Unknown,
                });
            }
        }
        let Some(other) = state.current.filter(|&o| Some(o) != newcomer) else {
            return;
        };
        state.current = None;
        let Some(o) = self.tasks.get_mut(other.index()) else {
            return;
        };
        if let Run::On {
            since,
            cpu: Some(oc),
            bound,
        } = o.run
        {
            if oc == c && since <= at {
                if since < at {
                    o.task.on_cpu.push(OnCpuInterval {
                        start: since,
                        end: at,
                        cpu,
                        start_bound: bound,
                        end_bound: Bound::Inferred,
                    });
                }
                o.run = Run::Off {
                    since: at,
                    cpu,
                    state: OffCpuState::Unknown,
                };
            }
        }
    }

    fn task_in(&mut self, task: TaskIndex, time: u64, cpu: Option<u32>) {
        self.touch(task, Some(time));
        self.evict(cpu, time, Some(task));
        let Some(s) = self.tasks.get_mut(task.index()) else {
            return;
        };
        let off = s.run.switch_in(time, cpu).off;
        s.task.off_cpu.extend(off);
        if let Some(off) = off {
            self.emit_off_cpu(task, off);
        }
        if let Some(c) = cpu {
            self.cpus.entry(c).or_default().current = Some(task);
        }
    }

    fn emit_off_cpu(&mut self, task: TaskIndex, off: OffCpuInterval) {
        let (stack, source) = self.stacks.on_switch_in(task);
        if off.state == OffCpuState::Unknown {
            return;
        }
        self.off_cpu.push(OffCpuSample {
            task,
            start: off.start,
            end: off.end,
            cpu_out: off.cpu_out,
            cpu_in: off.cpu_in,
            state: off.state,
            stack,
            source,
            end_bound: off.end_bound,
        });
    }

    fn idle_out(&mut self, time: u64, cpu: Option<u32>) {
        let Some(c) = cpu else { return };
        let ctx = self.out_context(time, cpu, None);
        let state = self.cpus.entry(c).or_default();
        let run = state.idle.get_or_insert(Run::Unknown);
        if let Some(on) = run.switch_out(&ctx, OffCpuState::Runnable).on {
            state.idle_slices.push(slice(on, None));
            if on.start_bound == Bound::Inferred {
                self.evict(cpu, on.start, None);
            }
        }
    }

    fn idle_in(&mut self, time: u64, cpu: Option<u32>) {
        let Some(c) = cpu else { return };
        self.evict(cpu, time, None);
        let _ = self
            .cpus
            .entry(c)
            .or_default()
            .idle
            .get_or_insert(Run::Unknown)
            .switch_in(time, cpu);
    }

    /// A `PERF_RECORD_SWITCH` / `PERF_RECORD_SWITCH_CPU_WIDE` record.
    pub fn on_switch(&mut self, e: &SwitchEvent) {
        if e.cpu_wide {
            self.switches.switch_cpu_wide += 1;
        } else {
            self.switches.switch += 1;
        }
        self.see(Some(e.time));
        if e.tid == u32::MAX {
            return;
        }
        if e.tid == 0 {
            if e.out {
                self.idle_out(e.time, e.cpu);
            } else {
                self.idle_in(e.time, e.cpu);
            }
        } else {
            let task = self.task_of(e.pid, e.tid);
            if e.out {
                let state = if e.preempt {
                    OffCpuState::Runnable
                } else {
                    OffCpuState::Voluntary
                };
                self.task_out(task, e.time, e.cpu, state, None);
            } else {
                self.task_in(task, e.time, e.cpu);
            }
        }
        self.set_last_switch(e.cpu, e.time);
    }

    /// A `sched:sched_switch` sample: `prev_tid` leaves, `next_tid` enters.
    pub fn on_sched_switch(&mut self, s: &SchedSwitch<'_>) {
        self.switches.sched_switch += 1;
        self.see(Some(s.time));
        if s.prev_tid == 0 {
            self.idle_out(s.time, s.cpu);
        } else if s.prev_tid != u32::MAX {
            let task = self.task_of_tid(s.prev_tid);
            self.name_if_unnamed(task, s.time, s.prev_comm);
            let callchain = s.has_callchain.then_some(s.stack);
            self.task_out(
                task,
                s.time,
                s.cpu,
                OffCpuState::from_prev_state(s.prev_state),
                callchain,
            );
        }
        if s.next_tid == 0 {
            self.idle_in(s.time, s.cpu);
        } else if s.next_tid != u32::MAX {
            let task = self.task_of_tid(s.next_tid);
            self.name_if_unnamed(task, s.time, s.next_comm);
            self.task_in(task, s.time, s.cpu);
        }
        self.set_last_switch(s.cpu, s.time);
    }

    /// The off-CPU samples so far.
    pub fn off_cpu(&self) -> &[OffCpuSample] {
        &self.off_cpu
    }

    /// Closes what is still open at the end of the recording and returns the timeline.
    pub fn build(self) -> Timeline {
        let end = self.end.unwrap_or(0);
        let mut tasks = Vec::with_capacity(self.tasks.len());
        let mut task_samples = Vec::with_capacity(self.tasks.len());
        let mut cpus: BTreeMap<u32, CpuLane> = BTreeMap::new();
        for (i, mut s) in self.tasks.into_iter().enumerate() {
            let index = TaskIndex(u32::try_from(i).unwrap_or(u32::MAX));
            match s.run {
                Run::On { since, cpu, bound } => s.task.on_cpu.push(OnCpuInterval {
                    start: since,
                    end: end.max(since),
                    cpu,
                    start_bound: bound,
                    end_bound: Bound::Truncated,
                }),
                Run::Off { since, cpu, state } => {
                    let gone = state.is_dead() || s.task.exit_time.is_some_and(|e| e <= since);
                    if !gone && end > since {
                        s.task.off_cpu.push(OffCpuInterval {
                            start: since,
                            end,
                            cpu_out: cpu,
                            cpu_in: None,
                            state,
                            end_bound: Bound::Truncated,
                        });
                    }
                }
                Run::Unknown => {}
            }
            for on in &s.task.on_cpu {
                if let Some(c) = on.cpu {
                    cpus.entry(c)
                        .or_insert_with(|| CpuLane {
                            cpu: c,
                            ..CpuLane::default()
                        })
                        .slices
                        .push(slice(*on, Some(index)));
                }
            }
            task_samples.push(SampleDensity::new(s.times));
            tasks.push(s.task);
        }
        let mut states: Vec<(u32, CpuState)> = self.cpus.into_iter().collect();
        states.sort_unstable_by_key(|(c, _)| *c);
        for (c, mut state) in states {
            if let Some(Run::On { since, bound, .. }) = state.idle {
                state.idle_slices.push(CpuSlice {
                    start: since,
                    end: end.max(since),
                    task: None,
                    start_bound: bound,
                    end_bound: Bound::Truncated,
                });
            }
            let lane = cpus.entry(c).or_insert_with(|| CpuLane {
                cpu: c,
                ..CpuLane::default()
            });
            lane.samples = SampleDensity::new(state.times);
            lane.slices.append(&mut state.idle_slices);
            lane.slices.sort_by_key(|s| (s.start, s.end));
        }
        let mut markers = self.markers;
        markers.sort_by_key(|m| m.time);
        Timeline {
            start: self.start,
            end: self.end,
            tasks,
            task_samples,
            cpus: cpus.into_values().collect(),
            markers,
            off_cpu: self.off_cpu,
            switches: self.switches,
            untimed_samples: self.untimed_samples,
        }
    }
}

fn slice(on: OnCpuInterval, task: Option<TaskIndex>) -> CpuSlice {
    CpuSlice {
        start: on.start,
        end: on.end,
        task,
        start_bound: on.start_bound,
        end_bound: on.end_bound,
    }
}
