//! Timeline lanes (a lane per thread grouped by process, then a lane per CPU) and sample density
//! per lane in time bins. Each lane keeps its samples (indices into the profile's columns) in
//! time order, per event, with a [`RankIndex`]. The lanes and their counts are made at load;
//! the lists and indexes once the first tree is sent (the worker calls [`Timeline::prepare`])
//! or at the first query that reads them, so that the profile and the first flame graph do not
//! wait for them. A query costs at most
//! `bins + 1` ranks per lane (each a lookup and a search among a few samples), or a visit of
//! each sample in range when there are fewer, whatever the zoom and the number of samples.

use std::cell::OnceCell;
use std::collections::{BTreeMap, HashMap};

use perfscope_analysis::profile::Profile;
use perfscope_analysis::summary::Summary;
use perfscope_analysis::timeline::{RankIndex, Timeline as AnalysisTimeline};

use super::activity::{Activity, Bins};
use super::events::EventMap;
use super::lane_list::LaneList;
use crate::protocol::{CpuInfo, ProcessInfo, ThreadInfo, TimelineMeta, TimelineReply};

/// CPU numbers below this are looked up in a table while the lanes are made (the sample
/// table keeps CPUs in 16 bits; bigger ones are rare).
const DENSE_CPUS: usize = 1 << 16;

/// The lane of each CPU: a table for the numbers below [`DENSE_CPUS`], a map for the rest
/// (looked up once per sample while lanes are made).
#[derive(Debug, Default, Clone)]
struct CpuLanes {
    dense: Vec<usize>,
    other: HashMap<u32, usize>,
}

impl CpuLanes {
    /// Lanes `first`, `first + 1`, … for `cpus` in order.
    fn new(cpus: &[u32], first: usize) -> CpuLanes {
        let mut lanes = CpuLanes::default();
        for (i, &cpu) in cpus.iter().enumerate() {
            let c = cpu as usize;
            if c < DENSE_CPUS {
                if lanes.dense.len() <= c {
                    lanes.dense.resize(c + 1, usize::MAX);
                }
                if let Some(slot) = lanes.dense.get_mut(c) {
                    *slot = first + i;
                }
            } else {
                lanes.other.insert(cpu, first + i);
            }
        }
        lanes
    }

    /// The lane of `cpu`, if it has one.
    fn get(&self, cpu: u32) -> Option<usize> {
        match self.dense.get(cpu as usize) {
            Some(&l) => (l != usize::MAX).then_some(l),
            None => self.other.get(&cpu).copied(),
        }
    }
}

/// Per lane and attr, which samples of the lane's list are marked (see [`Timeline::marks`]).
#[derive(Debug, Default)]
pub struct LaneMarks(Vec<Vec<Marks>>);

/// A bit per entry of a list, with the number of ones before each word: the ones between two
/// positions are counted in two lookups.
#[derive(Debug, Default)]
struct Marks {
    bits: Vec<u64>,
    before: Vec<u32>,
    ones: usize,
}

impl Marks {
    fn new(list: &LaneList, marked: impl Fn(u32) -> bool) -> Marks {
        let mut bits = vec![0u64; list.len().div_ceil(64)];
        for (k, i) in list.iter().enumerate() {
            if marked(i) {
                if let Some(word) = bits.get_mut(k / 64) {
                    *word |= 1 << (k % 64);
                }
            }
        }
        let mut before = Vec::with_capacity(bits.len());
        let mut ones = 0usize;
        for w in &bits {
            before.push(ones as u32);
            ones += w.count_ones() as usize;
        }
        Marks { bits, before, ones }
    }

    /// Ones at positions before `pos`.
    fn ones_before(&self, pos: usize) -> usize {
        let (w, b) = (pos / 64, pos % 64);
        match (self.before.get(w), self.bits.get(w)) {
            (Some(&n), Some(&word)) => {
                n as usize + (word & ((1u64 << b) - 1)).count_ones() as usize
            }
            _ => self.ones,
        }
    }

    /// Ones at positions `a..b`.
    fn ones_in(&self, a: usize, b: usize) -> usize {
        self.ones_before(b).saturating_sub(self.ones_before(a))
    }

    /// The positions of the ones in `a..b`, ascending.
    fn positions(&self, a: usize, b: usize) -> impl Iterator<Item = usize> + '_ {
        let words = self
            .bits
            .get(a / 64..b.div_ceil(64).min(self.bits.len()))
            .unwrap_or(&[]);
        words
            .iter()
            .enumerate()
            .flat_map(move |(k, &word)| {
                let base = (a / 64 + k) * 64;
                let mut rest = word;
                core::iter::from_fn(move || {
                    (rest != 0).then(|| {
                        let p = base + rest.trailing_zeros() as usize;
                        rest &= rest - 1;
                        p
                    })
                })
            })
            .filter(move |&p| p >= a && p < b)
    }
}

/// Lanes and their sorted sample times.
#[derive(Debug, Default)]
pub struct Timeline {
    /// Thread lanes (lane index = position).
    pub threads: Vec<ThreadInfo>,
    /// Processes with their lanes, busiest first.
    pub processes: Vec<ProcessInfo>,
    /// CPU lanes.
    pub cpus: Vec<CpuInfo>,
    /// Lane of each profile thread (`ThreadIndex`); `u32::MAX` for threads without samples.
    pub lane_of_thread: Vec<u32>,
    /// Threads without samples (no lane).
    pub idle_threads: u64,
    /// What the lanes' lists are made from.
    plan: LanePlan,
    /// The lanes' lists, made at the first query that reads them ([`Timeline::lists`]).
    lists: OnceCell<LaneLists>,
    /// On/off-CPU periods and markers ([`Timeline::set_activity`]).
    pub activity: Activity,
}

/// How the samples are placed in the lanes: the attr of each profile event, the lane of each
/// CPU, and each lane's number of samples of each attr (each list is allocated once, at its
/// size).
#[derive(Debug, Default)]
struct LanePlan {
    events: EventMap,
    cpu_lane: CpuLanes,
    /// `sizes[lane][attr]`.
    sizes: Vec<Vec<usize>>,
}

/// The samples of each lane and their rank indexes.
#[derive(Debug, Default)]
struct LaneLists {
    /// `samples[lane][attr]`: the lane's samples (indices into the profile's sample columns)
    /// in time order. Thread lanes first, then CPU lanes. (Indices rather than times, ~2 bytes
    /// a sample per lane: [`LaneList`].)
    samples: Vec<Vec<LaneList>>,
    /// `index[lane][attr]`: the rank index of `samples[lane][attr]`.
    index: Vec<Vec<RankIndex>>,
}

impl LanePlan {
    /// The lists of `profile`'s samples, whose threads have the lanes `lane_of_thread` says.
    fn lists(&self, profile: &Profile, lane_of_thread: &[u32]) -> LaneLists {
        let samples = &profile.samples;
        let events = self.sizes.first().map_or(1, Vec::len).max(1);
        // The lanes of each sample: (thread lane, CPU lane) and its attr.
        let lanes_of = |i: usize| -> Option<(Option<usize>, Option<usize>, usize)> {
            let (th, cpu, ev) = (samples.thread.get(i)?, samples.cpu(i)?, samples.event(i)?);
            let attr = self.events.attr(ev);
            let e = (attr as usize).min(events - 1);
            let thread_lane = lane_of_thread
                .get(th.index())
                .filter(|&&l| l != u32::MAX)
                .map(|&l| l as usize);
            Some((thread_lane, self.cpu_lane.get(cpu), e))
        };
        let mut lists: Vec<Vec<LaneList>> = self
            .sizes
            .iter()
            .map(|counts| counts.iter().map(|&n| LaneList::with_capacity(n)).collect())
            .collect();
        for i in 0..samples.len() {
            let (Some((thread_lane, cpu_lane, e)), Ok(index)) = (lanes_of(i), u32::try_from(i))
            else {
                continue;
            };
            for l in [thread_lane, cpu_lane].into_iter().flatten() {
                if let Some(v) = lists.get_mut(l).and_then(|lane| lane.get_mut(e)) {
                    v.push(index);
                }
            }
        }
        lists.iter_mut().flatten().for_each(LaneList::finish);
        // The profile's samples are in time order but for the untimed ones: sort by time.
        let time = |i: u32| samples.times().get(i as usize).unwrap_or(0);
        if !samples.times().is_sorted() {
            for list in lists.iter_mut().flatten() {
                let mut v: Vec<u32> = list.iter().collect();
                v.sort_by_key(|&i| (time(i), i));
                *list = LaneList::from_entries(&v);
            }
        }
        let index = lists
            .iter()
            .map(|lane| {
                lane.iter()
                    .map(|v| RankIndex::new(v.len(), |k| v.get(k).map(time)))
                    .collect()
            })
            .collect();
        LaneLists {
            samples: lists,
            index,
        }
    }
}

impl Timeline {
    /// Builds the lanes of `profile`; samples are kept per attr (`events` maps them).
    pub fn new(profile: &Profile, event_map: &EventMap) -> Timeline {
        let samples = &profile.samples;
        let events = event_map.attrs().max(1);
        // Threads by (pid, tid): the profile has one entry per (pid, tid, comm). A thread whose
        // tid is unknown (`u32::MAX`: the commands of imported folded stacks) is one of its own.
        let mut key_of: HashMap<(u32, u32, usize), usize> = HashMap::new();
        let mut raw: Vec<ThreadInfo> = Vec::new();
        let mut thread_key = Vec::with_capacity(profile.threads.len());
        for i in 0..profile.threads.len() {
            let t = profile
                .threads
                .get(perfscope_analysis::ids::ThreadIndex(i as u32));
            let (pid, tid, name) = t.map_or((u32::MAX, u32::MAX, String::new()), |t| {
                (t.pid, t.tid, profile.strings.get(t.name).to_string())
            });
            let apart = if tid == u32::MAX { i } else { 0 };
            let k = *key_of.entry((pid, tid, apart)).or_insert_with(|| {
                raw.push(ThreadInfo {
                    pid,
                    tid,
                    name: String::new(),
                    samples: 0,
                    first: u64::MAX,
                    last: 0,
                });
                raw.len() - 1
            });
            if let Some(info) = raw.get_mut(k) {
                // The last name the thread had.
                info.name = name;
            }
            thread_key.push(k);
        }
        // How many samples of each attr each thread and CPU has (the CPUs seen, and the sizes
        // of the lanes' lists once the lanes are known): the CPUs below DENSE_CPUS in a table
        // (no map lookup per sample), the rare bigger ones in a map.
        let mut key_counts = vec![0usize; raw.len() * events];
        let mut cpu_counts: Vec<usize> = Vec::new();
        let mut other_counts: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        // `n` samples of attr `e` on `cpu`...
        let mut add_cpu = |cpu: u32, e: usize, n: usize| {
            let c = cpu as usize;
            let slot = if c < DENSE_CPUS {
                if cpu_counts.len() <= c * events {
                    cpu_counts.resize((c + 1) * events, 0);
                }
                cpu_counts.get_mut(c * events + e)
            } else if cpu != u32::MAX {
                other_counts
                    .entry(cpu)
                    .or_insert_with(|| vec![0; events])
                    .get_mut(e)
            } else {
                None
            };
            if let Some(slot) = slot {
                *slot += n;
            }
        };
        // ...and of thread key `k`, between times `first` and `last`.
        let mut add_thread = |k: usize, e: usize, n: u64, first: u64, last: u64| {
            if let Some(info) = raw.get_mut(k) {
                info.samples += n;
                info.first = info.first.min(first);
                info.last = info.last.max(last);
            }
            if let Some(slot) = key_counts.get_mut(k * events + e) {
                *slot += n as usize;
            }
        };
        // Every sample of one attr (most recordings): the sample table's tallies, kept as its
        // samples were pushed, say the same without a pass over millions of samples.
        let tallied = samples
            .uniform_event()
            .map(|ev| (event_map.attr(ev) as usize).min(events - 1))
            .zip(samples.thread_tallies());
        match tallied {
            Some((e, tallies)) => {
                for (tally, &k) in tallies.iter().zip(&thread_key) {
                    add_thread(k, e, tally.samples, tally.first, tally.last);
                }
                for (cpu, n) in samples.cpu_tallies() {
                    add_cpu(cpu, e, n as usize);
                }
            }
            None => {
                for (i, cpu) in samples.cpus().enumerate() {
                    let e = samples
                        .event(i)
                        .map_or(0, |ev| (event_map.attr(ev) as usize).min(events - 1));
                    add_cpu(cpu, e, 1);
                    let key = samples
                        .thread
                        .get(i)
                        .and_then(|t| thread_key.get(t.index()));
                    if let Some(&k) = key {
                        let t = samples.times().get(i).unwrap_or(0);
                        add_thread(k, e, 1, t, t);
                    }
                }
            }
        }
        // Processes busiest first, their threads busiest first; threads without samples last.
        // Threads without samples (kernel threads synthesized at the start of a system-wide
        // recording, idle shells, ...) get no lane; they are counted.
        // A thread whose process is unknown (pid `u32::MAX`: the commands of imported folded
        // stacks) is a process of its own, not one with every other such thread.
        let mut by_pid: BTreeMap<(u32, usize), Vec<usize>> = BTreeMap::new();
        let mut idle_threads = 0;
        for (k, t) in raw.iter().enumerate() {
            if t.samples == 0 {
                idle_threads += 1;
                continue;
            }
            let apart = if t.pid == u32::MAX { k } else { 0 };
            by_pid.entry((t.pid, apart)).or_default().push(k);
        }
        let mut procs: Vec<(u32, Vec<usize>, u64)> = by_pid
            .into_iter()
            .map(|((pid, _), mut ks)| {
                ks.sort_by_key(|&k| {
                    (
                        std::cmp::Reverse(raw.get(k).map_or(0, |t| t.samples)),
                        raw.get(k).map_or(0, |t| t.tid),
                    )
                });
                let total = ks
                    .iter()
                    .map(|&k| raw.get(k).map_or(0, |t| t.samples))
                    .sum();
                (pid, ks, total)
            })
            .collect();
        procs.sort_by_key(|(pid, _, total)| (std::cmp::Reverse(*total), *pid));
        let mut lane_of_key = vec![u32::MAX; raw.len()];
        let mut threads = Vec::with_capacity(raw.len());
        let mut processes = Vec::with_capacity(procs.len());
        for (pid, ks, total) in procs {
            let mut lanes = Vec::with_capacity(ks.len());
            for k in ks {
                if let (Some(slot), Some(t)) = (lane_of_key.get_mut(k), raw.get(k)) {
                    *slot = threads.len() as u32;
                    lanes.push(threads.len() as u32);
                    threads.push(t.clone());
                }
            }
            let name = lanes
                .iter()
                .filter_map(|&l| threads.get(l as usize))
                .find(|t| t.tid == pid)
                .or_else(|| lanes.first().and_then(|&l| threads.get(l as usize)))
                .map(|t| t.name.clone())
                .unwrap_or_default();
            processes.push(ProcessInfo {
                pid,
                name,
                threads: lanes,
                samples: total,
            });
        }
        let lane_of_thread: Vec<u32> = thread_key
            .iter()
            .map(|&k| lane_of_key.get(k).copied().unwrap_or(u32::MAX))
            .collect();
        // The CPUs seen, in order, with their samples of each attr.
        let cpu_sizes: Vec<(u32, &[usize])> = cpu_counts
            .chunks(events)
            .enumerate()
            .filter(|(_, counts)| counts.iter().any(|&n| n > 0))
            .map(|(c, counts)| (c as u32, counts))
            .chain(
                other_counts
                    .iter()
                    .map(|(&c, counts)| (c, counts.as_slice())),
            )
            .collect();
        let cpu_numbers: Vec<u32> = cpu_sizes.iter().map(|&(cpu, _)| cpu).collect();
        let cpu_lane = CpuLanes::new(&cpu_numbers, threads.len());
        let lanes = threads.len() + cpu_numbers.len();
        let cpus: Vec<CpuInfo> = cpu_sizes
            .iter()
            .map(|&(cpu, counts)| CpuInfo {
                cpu,
                samples: counts.iter().sum::<usize>() as u64,
            })
            .collect();
        // Each lane's number of samples of each attr (counted above).
        let mut sizes = vec![vec![0usize; events]; lanes];
        for (k, &lane) in lane_of_key.iter().enumerate() {
            if let (Some(slot), Some(counts)) = (
                sizes.get_mut(lane as usize),
                key_counts.get(k * events..(k + 1) * events),
            ) {
                for (size, &n) in slot.iter_mut().zip(counts) {
                    *size = n;
                }
            }
        }
        for &(cpu, counts) in &cpu_sizes {
            if let Some(slot) = cpu_lane.get(cpu).and_then(|l| sizes.get_mut(l)) {
                for (size, &n) in slot.iter_mut().zip(counts) {
                    *size = n;
                }
            }
        }
        Timeline {
            threads,
            processes,
            cpus,
            lane_of_thread,
            idle_threads,
            plan: LanePlan {
                events: event_map.clone(),
                cpu_lane,
                sizes,
            },
            lists: OnceCell::new(),
            activity: Activity::default(),
        }
    }

    /// Makes the lanes' lists if they are not made yet; whether it made them now.
    pub fn prepare(&self, profile: &Profile) -> bool {
        let made = self.lists.get().is_none();
        self.lists(profile);
        made
    }

    /// The lanes' lists, made at the first call.
    fn lists(&self, profile: &Profile) -> &LaneLists {
        self.lists
            .get_or_init(|| self.plan.lists(profile, &self.lane_of_thread))
    }

    /// Places the on/off-CPU periods and markers of `tl` (the analysis timeline of the same
    /// load) and the tracepoint samples of `profile` in the lanes.
    pub fn set_activity(
        &mut self,
        tl: Option<&AnalysisTimeline>,
        profile: &Profile,
        summary: &Summary,
        events: &EventMap,
    ) {
        let keys: Vec<(u32, u32)> = self.threads.iter().map(|t| (t.pid, t.tid)).collect();
        let cpus: Vec<u32> = self.cpus.iter().map(|c| c.cpu).collect();
        self.activity = Activity::new(
            tl,
            profile,
            summary,
            events,
            &keys,
            &cpus,
            &self.lane_of_thread,
        );
    }

    /// The timeline reply: [`Timeline::density`], the activity and markers, and the bins of
    /// the samples whose stack contains `func`'s function.
    pub fn reply(
        &self,
        profile: &Profile,
        start: u64,
        end: u64,
        bins: u32,
        event: Option<u32>,
        func: Option<&LaneMarks>,
    ) -> TimelineReply {
        let mut r = self.density(profile, start, end, bins, event);
        let bins = Bins::new(start, end, r.meta.bins);
        self.activity.fill(bins, &mut r.detail);
        if let Some(f) = func {
            r.detail.highlight = self.highlight(profile, f, bins, event);
        }
        r
    }

    /// Marks, in every lane's sample lists, the samples whose stack `marked` says.
    pub fn marks(&self, profile: &Profile, marked: impl Fn(u32) -> bool) -> LaneMarks {
        let s = &profile.samples;
        let has = |i: u32| s.stack(i as usize).flatten().is_some_and(|st| marked(st.0));
        LaneMarks(
            self.lists(profile)
                .samples
                .iter()
                .map(|lists| lists.iter().map(|list| Marks::new(list, has)).collect())
                .collect(),
        )
    }

    /// Per lane and bin of `bins`, the marked samples (of `event`, or all): `lanes × bins`
    /// counts, thread lanes then CPU lanes. Like [`Timeline::density`], the bins' edges are
    /// found in each lane's list, and the marks between them counted, so a query costs about
    /// the same as the density's whatever the range holds.
    pub fn highlight(
        &self,
        profile: &Profile,
        marks: &LaneMarks,
        bins: Bins,
        event: Option<u32>,
    ) -> Vec<u32> {
        let times = &profile.samples.times();
        let n = bins.n as usize;
        let edges: Vec<u64> = (0..=bins.n).map(|k| bins.edge(k)).collect();
        let mut out = vec![0u32; self.lanes() * n];
        let lists = self.lists(profile);
        let lanes = lists.samples.iter().zip(&lists.index).zip(&marks.0);
        for (lane, ((lists, index), marks)) in lanes.enumerate() {
            let row = out.get_mut(lane * n..(lane + 1) * n).unwrap_or(&mut []);
            for (e, ((list, index), m)) in lists.iter().zip(index).zip(marks).enumerate() {
                if event.is_some_and(|want| want as usize != e) || m.ones == 0 {
                    continue;
                }
                let time = |k: usize| list.get(k).map(|i| times.get(i as usize).unwrap_or(0));
                let (Some(&first), Some(&last)) = (edges.first(), edges.last()) else {
                    continue;
                };
                let (a, b) = (index.rank(first, time), index.rank(last, time));
                let ones = m.ones_in(a, b);
                if ones <= n {
                    // Few: each marked sample's bin.
                    for k in m
                        .positions(a, b)
                        .filter_map(time)
                        .filter_map(|t| bins.bin_of(t))
                    {
                        if let Some(c) = row.get_mut(k as usize) {
                            *c += 1;
                        }
                    }
                    continue;
                }
                let mut prev = a;
                for (k, slot) in row.iter_mut().enumerate() {
                    let next = edges.get(k + 1).map_or(prev, |&e| index.rank(e, time));
                    *slot += m.ones_in(prev, next) as u32;
                    prev = next;
                }
            }
        }
        out
    }

    /// Number of lanes (threads, then CPUs).
    pub fn lanes(&self) -> usize {
        self.threads.len() + self.cpus.len()
    }

    /// Bytes the rank indexes hold (the lanes' sample lists not counted; 0 before the first
    /// query that made them).
    pub fn index_bytes(&self) -> usize {
        self.lists.get().map_or(0, |l| {
            l.index.iter().flatten().map(RankIndex::heap_bytes).sum()
        })
    }

    /// Density of samples (of `event`, or all) in `bins` equal bins over `start..=end`.
    pub fn density(
        &self,
        profile: &Profile,
        start: u64,
        end: u64,
        bins: u32,
        event: Option<u32>,
    ) -> TimelineReply {
        let times = &profile.samples.times();
        let bins = bins.clamp(1, 8192);
        let end = end.max(start);
        // Bin k covers [edge(k), edge(k + 1)); the last edge is one past `end`.
        let b = Bins::new(start, end, bins);
        let edges: Vec<u64> = (0..=bins).map(|k| b.edge(k)).collect();
        let mut counts = vec![0u32; self.lanes() * bins as usize];
        let mut max = [0u32; 2];
        let lists = self.lists(profile);
        for (lane, (per_event, index)) in lists.samples.iter().zip(&lists.index).enumerate() {
            let row = counts
                .get_mut(lane * bins as usize..(lane + 1) * bins as usize)
                .unwrap_or(&mut []);
            for (e, (list, index)) in per_event.iter().zip(index).enumerate() {
                if event.is_some_and(|want| want as usize != e) || list.is_empty() {
                    continue;
                }
                let time = |k: usize| list.get(k).map(|i| times.get(i as usize).unwrap_or(0));
                index.counts_into(&edges, time, row);
            }
            let group = usize::from(lane >= self.threads.len());
            if let Some(m) = max.get_mut(group) {
                *m = (*m).max(row.iter().copied().max().unwrap_or(0));
            }
        }
        let meta = TimelineMeta {
            query: None,
            generation: 0,
            lanes: self.lanes() as u32,
            bins,
            max_thread: max[0],
            max_cpu: max[1],
        };
        TimelineReply {
            meta,
            counts,
            detail: Default::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_count_and_list_the_ones_between_two_positions() {
        for len in [0usize, 1, 63, 64, 65, 200] {
            let list = LaneList::from_entries(&(0..len as u32).collect::<Vec<_>>());
            // Marked: multiples of 3 and a run at 60..70.
            let marked = |i: u32| i.is_multiple_of(3) || (60..70).contains(&i);
            let m = Marks::new(&list, marked);
            let want = |a: usize, b: usize| (a..b.min(len)).filter(|&p| marked(p as u32));
            assert_eq!(m.ones, want(0, len).count(), "{len}");
            for a in 0..=len + 1 {
                for b in a..=len + 1 {
                    assert_eq!(m.ones_in(a, b), want(a, b).count(), "{len} {a}..{b}");
                    assert_eq!(
                        m.positions(a, b).collect::<Vec<_>>(),
                        want(a, b).collect::<Vec<_>>(),
                        "{len} {a}..{b}"
                    );
                }
            }
        }
    }
    use perfscope_analysis::builder::{CpuMode, ProfileBuilder, SampleInput};
    use perfscope_analysis::ids::EventIndex;

    fn map() -> EventMap {
        EventMap {
            to_profile: vec![Some(EventIndex(0))],
            to_attr: vec![0],
        }
    }

    fn profile() -> Profile {
        let mut b = ProfileBuilder::new(None);
        b.add_event("cpu-clock").unwrap();
        b.comm(10, 10, "main").unwrap();
        b.comm(10, 11, "worker").unwrap();
        b.comm(20, 20, "other").unwrap();
        b.comm(30, 30, "idle").unwrap();
        let mut s = |pid, tid, time, cpu| {
            let input = SampleInput {
                pid,
                tid,
                time,
                cpu,
                event: EventIndex(0),
                period: 1,
                ip: 0x10,
                ip_mode: CpuMode::User,
                callchain: &[],
            };
            b.sample(&input).unwrap();
        };
        // Times 100..=199: thread 10/11 gets 3 samples, 10/10 one, 20/20 one.
        s(10, 11, 100, 0);
        s(10, 11, 150, 1);
        s(10, 11, 199, 1);
        s(10, 10, 120, 0);
        s(20, 20, 160, 1);
        b.finish()
    }

    #[test]
    fn lanes_group_threads_by_process_busiest_first() {
        let t = Timeline::new(&profile(), &map());
        let names: Vec<_> = t
            .threads
            .iter()
            .map(|t| (t.name.as_str(), t.tid, t.samples))
            .collect();
        assert_eq!(
            names,
            vec![("worker", 11, 3), ("main", 10, 1), ("other", 20, 1)]
        );
        assert_eq!(
            t.processes
                .iter()
                .map(|p| (p.pid, p.name.as_str(), p.threads.clone()))
                .collect::<Vec<_>>(),
            vec![(10, "main", vec![0, 1]), (20, "other", vec![2])]
        );
        assert_eq!(
            t.cpus
                .iter()
                .map(|c| (c.cpu, c.samples))
                .collect::<Vec<_>>(),
            vec![(0, 2), (1, 3)]
        );
        assert_eq!(t.threads[0].first, 100);
        assert_eq!(t.idle_threads, 1, "idle 30/30 has no lane");
        assert_eq!(t.threads[0].last, 199);
    }

    /// Six samples of process 10 over two events (the attrs of `map`), of the events
    /// `events`: (tid, time, cpu) (10, 100, 3), (10, 110, 70 000), (10, 120, 3),
    /// (11, 130, 70 000), (11, 140, none), (10, 150, 3). CPU 70 000 is past the dense table.
    fn two_attrs(events: [u32; 6]) -> (Profile, EventMap) {
        let mut b = ProfileBuilder::new(None);
        b.add_event("cycles").unwrap();
        b.add_event("instructions").unwrap();
        b.comm(10, 10, "main").unwrap();
        let samples = [
            (10, 100, 3),
            (10, 110, 70_000),
            (10, 120, 3),
            (11, 130, 70_000),
            (11, 140, u32::MAX),
            (10, 150, 3),
        ];
        for (&(tid, time, cpu), event) in samples.iter().zip(events) {
            b.sample(&SampleInput {
                pid: 10,
                tid,
                time,
                cpu,
                event: EventIndex(event),
                period: 1,
                ip: 0x10,
                ip_mode: CpuMode::User,
                callchain: &[],
            })
            .unwrap();
        }
        let map = EventMap {
            to_profile: vec![Some(EventIndex(0)), Some(EventIndex(1))],
            to_attr: vec![0, 1],
        };
        (b.finish(), map)
    }

    /// Per lane (threads, then CPUs), per attr, the samples' indices.
    fn list_entries(t: &Timeline, p: &Profile) -> Vec<Vec<Vec<u32>>> {
        t.lists(p)
            .samples
            .iter()
            .map(|lane| lane.iter().map(|l| l.iter().collect()).collect())
            .collect()
    }

    #[test]
    fn lanes_count_each_attr_and_cpus_past_the_dense_table() {
        let (p, map) = two_attrs([0, 1, 1, 1, 0, 1]);
        let t = Timeline::new(&p, &map);
        let cpus: Vec<(u32, u64)> = t.cpus.iter().map(|c| (c.cpu, c.samples)).collect();
        assert_eq!(cpus, vec![(3, 3), (70_000, 2)]);
        let threads: Vec<(u32, u64)> = t.threads.iter().map(|t| (t.tid, t.samples)).collect();
        assert_eq!(threads, vec![(10, 4), (11, 2)]);
        // No list is made before a query reads them, or before `prepare`, once.
        assert!(t.lists.get().is_none());
        assert_eq!(t.index_bytes(), 0);
        assert!(t.prepare(&p));
        assert!(!t.prepare(&p));
        assert!(t.index_bytes() > 0);
        // Per lane (threads, then CPUs), per attr, the samples' indices.
        let lists = t.lists(&p);
        assert_eq!(
            list_entries(&t, &p),
            vec![
                vec![vec![0], vec![1, 2, 5]],
                vec![vec![4], vec![3]],
                vec![vec![0], vec![2, 5]],
                vec![vec![], vec![1, 3]],
            ]
        );
        // Each list's offsets were made at its size, and nothing is left of the blocks being
        // filled.
        let narrow_bytes = |l: &LaneList| l.heap_bytes() - l.len().div_ceil(64) * 8;
        assert!(lists
            .samples
            .iter()
            .flatten()
            .all(|l| narrow_bytes(l) == 2 * l.len()));
        assert_eq!(t.lanes(), lists.samples.len());
    }

    #[test]
    fn lanes_of_one_attr_come_from_the_sample_table_s_tallies() {
        // The samples of the test above, all of the first event: counted from the tallies
        // kept as they were pushed, not in a pass over them.
        let (p, map) = two_attrs([0; 6]);
        assert!(p.samples.uniform_event().is_some() && p.samples.thread_tallies().is_some());
        let t = Timeline::new(&p, &map);
        let cpus: Vec<(u32, u64)> = t.cpus.iter().map(|c| (c.cpu, c.samples)).collect();
        assert_eq!(cpus, vec![(3, 3), (70_000, 2)]);
        let threads: Vec<(u32, u64, u64, u64)> = t
            .threads
            .iter()
            .map(|t| (t.tid, t.samples, t.first, t.last))
            .collect();
        assert_eq!(threads, vec![(10, 4, 100, 150), (11, 2, 130, 140)]);
        assert_eq!(
            list_entries(&t, &p),
            vec![
                vec![vec![0, 1, 2, 5], vec![]],
                vec![vec![3, 4], vec![]],
                vec![vec![0, 2, 5], vec![]],
                vec![vec![1, 3], vec![]],
            ]
        );
    }

    #[test]
    fn density_bins_cover_both_ends() {
        let p = profile();
        let t = Timeline::new(&p, &map());
        // 4 bins of 25 ns over 100..=199: [100,125) [125,150) [150,175) [175,200).
        let d = t.density(&p, 100, 199, 4, None);
        assert_eq!((d.meta.lanes, d.meta.bins), (5, 4));
        let lane = |l: usize| d.counts[l * 4..l * 4 + 4].to_vec();
        assert_eq!(lane(0), vec![1, 0, 1, 1]); // worker
        assert_eq!(lane(1), vec![1, 0, 0, 0]); // main
        assert_eq!(lane(3), vec![2, 0, 0, 0]); // cpu 0
        assert_eq!(lane(4), vec![0, 0, 2, 1]); // cpu 1
        assert_eq!((d.meta.max_thread, d.meta.max_cpu), (1, 2));
        // A zoomed range leaves the rest out.
        let z = t.density(&p, 150, 160, 1, None);
        assert_eq!(z.counts, vec![1, 0, 1, 0, 2]);
        assert_eq!(
            t.density(&p, 100, 199, 2, Some(1))
                .counts
                .iter()
                .sum::<u32>(),
            0
        );
    }
}
