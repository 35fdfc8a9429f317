//! What the timeline draws besides sample density: on- and off-CPU periods per lane (from
//! `perfscope_analysis`'s timeline: SWITCH / SWITCH_CPU_WIDE records, sched_switch tracepoints),
//! markers (LOST, LOST_SAMPLES, THROTTLE, UNTHROTTLE, tracepoint samples), and the bins of the
//! samples whose stack contains a function.
//!
//! Level of detail: every answer is per bin (the page asks for one bin per few pixels), so
//! however many intervals or markers a range holds, a lane gets at most one activity value and
//! one marker of each kind per bin.

use std::collections::{BTreeMap, HashMap};

use perfscope_analysis::ids::FuncIndex;
use perfscope_analysis::profile::Profile;
use perfscope_analysis::pruned_tree::StackBits;

use super::timeline::{LaneMarks, Timeline};
use perfscope_analysis::summary::Summary;
use perfscope_analysis::timeline::{
    MarkerKind as AnalysisMarker, OffCpuState, Timeline as AnalysisTimeline,
};

use super::events::EventMap;
use crate::protocol::timeline::off_state;
use crate::protocol::{MarkerKind, TimelineDetail};

/// `PERF_TYPE_TRACEPOINT`.
const PERF_TYPE_TRACEPOINT: u32 = 2;

/// `n` equal bins over `start..=end` (ns); bin `k` covers `[edge(k), edge(k + 1))`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bins {
    /// First ns.
    pub start: u64,
    /// Last ns.
    pub end: u64,
    /// Number of bins (at least 1).
    pub n: u32,
}

impl Bins {
    /// Bins over `start..=end` (`end` is raised to `start`, `n` to 1).
    pub fn new(start: u64, end: u64, n: u32) -> Bins {
        Bins {
            start,
            end: end.max(start),
            n: n.max(1),
        }
    }

    fn span(&self) -> u128 {
        u128::from(self.end - self.start) + 1
    }

    /// Start of bin `k` (`k = n`: one past the last ns).
    pub fn edge(&self, k: u32) -> u64 {
        if k >= self.n {
            return self.end.saturating_add(1);
        }
        self.start
            .saturating_add((self.span() * u128::from(k) / u128::from(self.n)) as u64)
    }

    /// The bin of time `t`, `None` outside `start..=end`.
    pub fn bin_of(&self, t: u64) -> Option<u32> {
        if t < self.start || t > self.end {
            return None;
        }
        // The largest k with edge(k) <= t: floor(span·k/n) <= x  ⟺  k < (x + 1)·n / span.
        let x = u128::from(t - self.start);
        let k = ((x + 1) * u128::from(self.n)).div_ceil(self.span()) - 1;
        Some(k.min(u128::from(self.n - 1)) as u32)
    }

    /// Adds, per bin, the part of `[s, e)` inside it to `acc[bin * stride + slot]`.
    fn spread(&self, s: u64, e: u64, acc: &mut [u64], stride: usize, slot: usize) {
        let (s, e) = (s.max(self.start), e.min(self.end.saturating_add(1)));
        if e <= s {
            return;
        }
        let (Some(k0), Some(k1)) = (self.bin_of(s), self.bin_of(e - 1)) else {
            return;
        };
        for k in k0..=k1 {
            let part = e.min(self.edge(k + 1)).saturating_sub(s.max(self.edge(k)));
            if let Some(a) = acc.get_mut(k as usize * stride + slot) {
                *a += part;
            }
        }
    }
}

/// A point event in a lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Mark {
    time: u64,
    lane: u32,
    kind: MarkerKind,
    event: u32,
    count: u64,
}

/// On/off-CPU intervals and markers per lane.
#[derive(Debug, Default)]
pub struct Activity {
    /// Per lane: on-CPU (thread lanes) or busy (CPU lanes) intervals `[start, end)`, in order.
    on: Vec<Vec<(u64, u64)>>,
    /// Per lane: off-CPU (thread lanes) or idle (CPU lanes) intervals with their state class.
    off: Vec<Vec<(u64, u64, u8)>>,
    /// Markers in time order.
    marks: Vec<Mark>,
    /// Whether the recording has context switches (activity is known).
    pub switches: bool,
}

/// The class of an off-CPU state ([`off_state`]); `None` for an unknown switch-out.
fn class(state: OffCpuState) -> Option<u8> {
    Some(match state {
        OffCpuState::Runnable => off_state::RUNNABLE,
        OffCpuState::Voluntary | OffCpuState::Sleeping => off_state::SLEEPING,
        OffCpuState::DiskSleep => off_state::DISK,
        OffCpuState::Other(_) => off_state::OTHER,
        OffCpuState::Unknown => return None,
    })
}

impl Activity {
    /// Places the intervals and markers of `tl` in the session's lanes: thread lanes by (pid,
    /// tid) (by tid alone for tasks only sched_switch named), CPU lanes by number
    /// (`cpu_numbers`, after `lane_of_thread.len()`... lanes). Tracepoint samples come from the
    /// profile.
    pub fn new(
        tl: Option<&AnalysisTimeline>,
        profile: &Profile,
        summary: &Summary,
        events: &EventMap,
        thread_lanes: &[(u32, u32)],
        cpu_numbers: &[u32],
        lane_of_thread: &[u32],
    ) -> Activity {
        let lanes = thread_lanes.len() + cpu_numbers.len();
        let mut a = Activity {
            on: vec![Vec::new(); lanes],
            off: vec![Vec::new(); lanes],
            marks: Vec::new(),
            switches: false,
        };
        let by_key: HashMap<(u32, u32), usize> = thread_lanes
            .iter()
            .enumerate()
            .map(|(i, &k)| (k, i))
            .collect();
        let mut by_tid: HashMap<u32, Option<usize>> = HashMap::new();
        for (i, &(_, tid)) in thread_lanes.iter().enumerate() {
            by_tid
                .entry(tid)
                .and_modify(|l| *l = None)
                .or_insert(Some(i));
        }
        let cpu_lane = |cpu: u32| {
            cpu_numbers
                .binary_search(&cpu)
                .ok()
                .map(|i| thread_lanes.len() + i)
        };
        if let Some(tl) = tl {
            a.switches = tl.switches.any();
            for task in &tl.tasks {
                // The idle task's intervals are the CPUs' idle slices.
                if task.tid == 0 {
                    continue;
                }
                let lane = match task.pid {
                    Some(pid) => by_key.get(&(pid, task.tid)).copied(),
                    None => by_tid.get(&task.tid).copied().flatten(),
                };
                let Some(lane) = lane else { continue };
                // Nothing after the thread's EXIT (an interval left open is closed at the end of
                // the recording).
                let until = task.exit_time.unwrap_or(u64::MAX);
                if let Some(v) = a.on.get_mut(lane) {
                    v.extend(
                        task.on_cpu
                            .iter()
                            .filter(|i| i.start < until)
                            .map(|i| (i.start, i.end.min(until))),
                    );
                }
                if let Some(v) = a.off.get_mut(lane) {
                    v.extend(
                        task.off_cpu
                            .iter()
                            .filter(|i| i.start < until)
                            .filter_map(|i| Some((i.start, i.end.min(until), class(i.state)?))),
                    );
                }
            }
            for c in &tl.cpus {
                let Some(lane) = cpu_lane(c.cpu) else {
                    continue;
                };
                for s in &c.slices {
                    match s.task {
                        Some(_) => a.on.get_mut(lane).map(|v| v.push((s.start, s.end))),
                        None => a
                            .off
                            .get_mut(lane)
                            .map(|v| v.push((s.start, s.end, off_state::OTHER))),
                    };
                }
            }
            for m in &tl.markers {
                let Some(time) = m.time else { continue };
                let lane = m.cpu.and_then(cpu_lane).map_or(u32::MAX, |l| l as u32);
                let (kind, count) = match m.kind {
                    AnalysisMarker::Lost { lost, .. } => (MarkerKind::Lost, lost),
                    AnalysisMarker::LostSamples { lost } => (MarkerKind::LostSamples, lost),
                    AnalysisMarker::Throttle { .. } => (MarkerKind::Throttle, 1),
                    AnalysisMarker::Unthrottle { .. } => (MarkerKind::Unthrottle, 1),
                };
                a.marks.push(Mark {
                    time,
                    lane,
                    kind,
                    event: u32::MAX,
                    count,
                });
            }
        }
        for v in &mut a.on {
            v.sort_unstable();
        }
        for v in &mut a.off {
            v.sort_unstable();
        }
        // Tracepoint samples.
        let tracepoint: Vec<bool> = (0..profile.events.len())
            .map(|e| {
                let attr = events.attr(perfscope_analysis::ids::EventIndex(e as u32));
                summary
                    .events
                    .get(attr as usize)
                    .is_some_and(|s| s.type_ == PERF_TYPE_TRACEPOINT)
            })
            .collect();
        if tracepoint.iter().any(|&t| t) {
            let s = &profile.samples;
            for i in 0..s.len() {
                let (Some(ev), Some(time), Some(th)) =
                    (s.event(i), s.times().get(i), s.thread.get(i))
                else {
                    continue;
                };
                if !tracepoint.get(ev.index()).copied().unwrap_or(false) {
                    continue;
                }
                let Some(&lane) = lane_of_thread.get(th.index()).filter(|&&l| l != u32::MAX) else {
                    continue;
                };
                a.marks.push(Mark {
                    time,
                    lane,
                    kind: MarkerKind::Tracepoint,
                    event: events.attr(ev),
                    count: 1,
                });
            }
        }
        a.marks.sort_by_key(|m| m.time);
        a
    }

    /// Fills the activity and marker columns of `d` for `bins` (lanes as at creation).
    pub fn fill(&self, bins: Bins, d: &mut TimelineDetail) {
        let n = bins.n as usize;
        if self.switches {
            let lanes = self.on.len();
            d.on_cpu = vec![0; lanes * n];
            d.off_cpu = vec![0; lanes * n];
            d.off_state = vec![0; lanes * n];
            // Per bin: on time, then off time per state class.
            const SLOTS: usize = 5;
            let mut acc = vec![0u64; n * SLOTS];
            for lane in 0..lanes {
                acc.iter_mut().for_each(|x| *x = 0);
                let on = self.on.get(lane).map_or(&[][..], Vec::as_slice);
                let off = self.off.get(lane).map_or(&[][..], Vec::as_slice);
                let a = on.partition_point(|i| i.1 <= bins.start);
                for &(s, e) in on
                    .get(a..)
                    .unwrap_or(&[])
                    .iter()
                    .take_while(|i| i.0 <= bins.end)
                {
                    bins.spread(s, e, &mut acc, SLOTS, 0);
                }
                let a = off.partition_point(|i| i.1 <= bins.start);
                for &(s, e, c) in off
                    .get(a..)
                    .unwrap_or(&[])
                    .iter()
                    .take_while(|i| i.0 <= bins.end)
                {
                    bins.spread(s, e, &mut acc, SLOTS, usize::from(c));
                }
                for k in 0..n {
                    let width = bins
                        .edge(k as u32 + 1)
                        .saturating_sub(bins.edge(k as u32))
                        .max(1);
                    let share =
                        |t: u64| ((u128::from(t) * 255).div_ceil(u128::from(width))).min(255) as u8;
                    let cell = acc.get(k * SLOTS..(k + 1) * SLOTS).unwrap_or(&[]);
                    let on_t = cell.first().copied().unwrap_or(0);
                    let off_t: u64 = cell.iter().skip(1).sum();
                    let state = (1..SLOTS)
                        .filter(|&c| cell.get(c).is_some_and(|&t| t > 0))
                        .max_by_key(|&c| cell.get(c).copied().unwrap_or(0));
                    let at = lane * n + k;
                    if let (Some(o), Some(f), Some(st)) = (
                        d.on_cpu.get_mut(at),
                        d.off_cpu.get_mut(at),
                        d.off_state.get_mut(at),
                    ) {
                        *o = share(on_t);
                        *f = share(off_t);
                        *st = state.map_or(0, |c| c as u8);
                    }
                }
            }
        }
        // Markers merged per (lane, bin, kind, event).
        let first = self.marks.partition_point(|m| m.time < bins.start);
        let mut merged: BTreeMap<(u32, u32, MarkerKind, u32), (u32, u64)> = BTreeMap::new();
        for m in self
            .marks
            .get(first..)
            .unwrap_or(&[])
            .iter()
            .take_while(|m| m.time <= bins.end)
        {
            let Some(bin) = bins.bin_of(m.time) else {
                continue;
            };
            let e = merged
                .entry((m.lane, bin, m.kind, m.event))
                .or_insert((0, 0));
            e.0 = e.0.saturating_add(1);
            e.1 = e.1.saturating_add(m.count);
        }
        for ((lane, bin, kind, event), (records, count)) in merged {
            d.marker_lane.push(lane);
            d.marker_bin.push(bin);
            d.marker_kind.push(kind as u8);
            d.marker_event.push(event);
            d.marker_records.push(records);
            d.marker_count.push(count);
        }
    }

    /// The on-CPU intervals of a lane (tests).
    pub fn on_cpu(&self, lane: usize) -> &[(u64, u64)] {
        self.on.get(lane).map_or(&[], Vec::as_slice)
    }

    /// The off-CPU intervals of a lane with their state class (tests).
    pub fn off_cpu(&self, lane: usize) -> &[(u64, u64, u8)] {
        self.off.get(lane).map_or(&[], Vec::as_slice)
    }
}

/// What highlight queries of one function reuse: which samples of each timeline lane have a
/// stack containing it ([`LaneMarks`]). Made once per function and profile: a pass over every
/// stack (~1 s in the page for the 62M stacks of a 1.5 GB recording) and one over the lanes'
/// samples, while the page asks for the highlight again on every move of the timeline while a
/// function is picked.
#[derive(Debug)]
pub struct FuncMarks {
    /// The profile's generation.
    pub generation: u32,
    /// The function.
    pub func: u32,
    /// Its samples in each lane.
    pub marks: LaneMarks,
}

impl FuncMarks {
    /// The samples of `timeline`'s lanes whose stack in `profile` contains `func`.
    pub fn new(profile: &Profile, timeline: &Timeline, generation: u32, func: u32) -> FuncMarks {
        let want = FuncIndex(func);
        let stacks = StackBits::containing(profile, |f| f == want);
        FuncMarks {
            generation,
            func,
            marks: timeline.marks(profile, |s| stacks.contains(s as usize)),
        }
    }
}

#[cfg(test)]
#[path = "timeline_corpus_tests.rs"]
mod corpus_tests;
