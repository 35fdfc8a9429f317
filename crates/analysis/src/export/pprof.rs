//! pprof export: google/pprof's `profile.proto`, gzip-compressed, as `go tool pprof`, Grafana
//! Pyroscope, Parca and Polar Signals read it. The protobuf encoding is written by hand (varints
//! and length-delimited fields).
//!
//! What goes where:
//! - **Sample types.** For each event that has samples, in event order: its sample count
//!   (`samples`/`count`) and its summed period (`<event>`/`nanoseconds` for `cpu-clock` and
//!   `task-clock`, `<event>`/`count` otherwise). With one event the two types are
//!   `samples`/`count` and `<event>`/unit; with several, `<event>_samples`/`count` and
//!   `<event>`/unit per event. Event names lose perf's modifier suffix (`cpu-clock:pppH` →
//!   `cpu-clock`) unless two events would then share a name. `default_sample_type` and
//!   `period_type` are the first event's period; `period` is its mean period.
//! - **Samples.** One pprof sample per distinct (stack, thread) — with
//!   [`PprofOptions::thread_labels`] — or per distinct stack. Its values are the sums over the
//!   perf samples merged into it, so every column adds up to the profile's totals. Thread labels
//!   are `thread` (the command name), `pid` and `tid`, so `pprof -tagfocus` can select threads.
//!   Samples without any frame are kept with an empty location list.
//! - **Locations.** One per frame; inlined frames at one address (consecutive frames with the
//!   same module and address and decreasing `inline_depth`) share one location with one `line`
//!   each, innermost first, as `profile.proto` specifies. Addresses are the frames' file-relative
//!   addresses (run-time addresses for the kernel and JIT code); each mapping spans the addresses
//!   used in it with `file_offset == memory_start`, so a reader's `address - memory_start +
//!   file_offset` gives the same address back.
//! - **Mappings.** One per module with its path and build id (lower-case hex),
//!   `has_functions = true` (names are already resolved: pprof does not symbolize again). The
//!   module whose file name starts with the most sampled command name comes first ("the main
//!   binary").
//! - **Functions.** One per function with its (demangled) name as `name` and `system_name`.
//! - **Time.** `duration_nanos` spans the first to the last sample; `time_nanos` is the first
//!   sample in wall-clock time when the recording has HEADER_CLOCK_DATA (else 0).

use std::collections::HashMap;
use std::io::Write as _;

use rustc_hash::FxHashMap;

use crate::export::events_used;
use crate::feature_summary::ClockDataSummary;
use crate::ids::{FrameIndex, FuncIndex, ModuleIndex, StackIndex, ThreadIndex};
use crate::profile::Profile;
use crate::samples::SampleFilter;

/// Options for [`to_pprof`].
#[derive(Clone, Debug, PartialEq)]
pub struct PprofOptions {
    /// Which samples to export.
    pub filter: SampleFilter,
    /// One pprof sample per (stack, thread) with `thread`/`pid`/`tid` labels (`true`), or one
    /// per stack without labels.
    pub thread_labels: bool,
    /// HEADER_CLOCK_DATA of the recording, to give `time_nanos` in wall-clock time.
    pub clock_data: Option<ClockDataSummary>,
}

impl Default for PprofOptions {
    fn default() -> Self {
        PprofOptions {
            filter: SampleFilter::all(),
            thread_labels: true,
            clock_data: None,
        }
    }
}

/// The unit of an event's period.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeriodUnit {
    /// Nanoseconds: the software clocks (`cpu-clock`, `task-clock`) and off-CPU time
    /// ([`crate::offcpu::OFF_CPU_EVENT`], [`crate::offcpu::OFF_CPU_APPROX_EVENT`]).
    Nanoseconds,
    /// Event counts: everything else.
    Count,
}

impl PeriodUnit {
    /// `"nanoseconds"` or `"count"`.
    pub fn name(self) -> &'static str {
        match self {
            PeriodUnit::Nanoseconds => "nanoseconds",
            PeriodUnit::Count => "count",
        }
    }
}

/// An event name without perf's modifier suffix: `cpu-clock:pppH` → `cpu-clock`,
/// `cycles:u` → `cycles`; a tracepoint (`sched:sched_switch`) is left alone.
pub fn event_base_name(name: &str) -> &str {
    match name.rsplit_once(':') {
        Some((base, mods))
            if !base.is_empty()
                && !mods.is_empty()
                && mods.chars().all(|c| "ukhIGHpPSDWeb".contains(c)) =>
        {
            base
        }
        _ => name,
    }
}

/// The unit of the period of the event named `name`.
pub fn period_unit(name: &str) -> PeriodUnit {
    match event_base_name(name) {
        _ if crate::offcpu::is_off_cpu_event(name) => PeriodUnit::Nanoseconds,
        "cpu-clock" | "task-clock" => PeriodUnit::Nanoseconds,
        _ => PeriodUnit::Count,
    }
}

/// Protobuf wire encoding: only what `profile.proto` needs.
mod pb {
    /// Appends `v` as a base-128 varint.
    pub fn varint(buf: &mut Vec<u8>, mut v: u64) {
        while v >= 0x80 {
            buf.push((v as u8) | 0x80);
            v >>= 7;
        }
        buf.push(v as u8);
    }

    fn key(buf: &mut Vec<u8>, field: u32, wire: u8) {
        varint(buf, (u64::from(field) << 3) | u64::from(wire));
    }

    /// A varint field (uint64, int64, bool); zero is the default and is not written.
    pub fn uint(buf: &mut Vec<u8>, field: u32, v: u64) {
        if v != 0 {
            key(buf, field, 0);
            varint(buf, v);
        }
    }

    /// An int64 field (two's complement varint, as protobuf encodes int64).
    pub fn int(buf: &mut Vec<u8>, field: u32, v: i64) {
        uint(buf, field, v as u64);
    }

    /// A length-delimited field (string, bytes, embedded message), written even when empty.
    pub fn bytes(buf: &mut Vec<u8>, field: u32, data: &[u8]) {
        key(buf, field, 2);
        varint(buf, data.len() as u64);
        buf.extend_from_slice(data);
    }

    /// A packed repeated varint field; nothing when empty.
    pub fn packed(buf: &mut Vec<u8>, field: u32, values: impl IntoIterator<Item = u64>) {
        let mut body = Vec::new();
        for v in values {
            varint(&mut body, v);
        }
        if !body.is_empty() {
            bytes(buf, field, &body);
        }
    }
}

/// The string table under construction; index 0 is `""`.
struct Strings {
    list: Vec<String>,
    index: FxHashMap<String, i64>,
}

impl Strings {
    fn new() -> Self {
        let mut s = Strings {
            list: Vec::new(),
            index: FxHashMap::default(),
        };
        s.get("");
        s
    }

    fn get(&mut self, s: &str) -> i64 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.list.len() as i64;
        self.list.push(s.to_owned());
        self.index.insert(s.to_owned(), i);
        i
    }
}

/// Frames of a stack, leaf first, grouped into locations (a frame and the frames it was inlined
/// into at the same address): `group` is called with each, in order (`buf` is scratch).
fn for_each_location_group(
    profile: &Profile,
    stack: Option<StackIndex>,
    buf: &mut Vec<FrameIndex>,
    mut group: impl FnMut(&[FrameIndex]),
) {
    buf.clear();
    let mut prev: Option<(Option<ModuleIndex>, u64, u16)> = None;
    for f in profile.stacks.frames_leaf_first(stack) {
        let Some(frame) = profile.frames.get(f) else {
            continue;
        };
        let joins = match prev {
            Some((m, a, d)) => {
                d > 0 && m == frame.module && a == frame.address && frame.inline_depth + 1 == d
            }
            None => false,
        };
        if !joins && !buf.is_empty() {
            group(buf);
            buf.clear();
        }
        buf.push(f);
        prev = Some((frame.module, frame.address, frame.inline_depth));
    }
    if !buf.is_empty() {
        group(buf);
    }
}

/// The locations, functions and mappings of the exported stacks, numbered from 1 in order of
/// first use.
struct Locations {
    /// A one-frame location's id by frame index (0: none yet)...
    single: Vec<u64>,
    /// ...and an inlined group's (or a frame's outside `single`).
    groups: FxHashMap<Vec<FrameIndex>, u64>,
    /// Each location's frames, one location after another...
    frames: Vec<FrameIndex>,
    /// ...and where each starts in `frames`.
    starts: Vec<usize>,
    /// A function's id by function index (0: none yet), and the functions in id order.
    func_ids: Vec<u64>,
    funcs: Vec<FuncIndex>,
    /// By module index: the lowest and highest address used, and whether a location has
    /// inlined frames there.
    module_range: Vec<Option<(u64, u64)>>,
    inline: Vec<bool>,
}

impl Locations {
    fn new(profile: &Profile) -> Locations {
        Locations {
            single: vec![0; profile.frames.len()],
            groups: FxHashMap::default(),
            frames: Vec::new(),
            starts: Vec::new(),
            func_ids: vec![0; profile.funcs.len()],
            funcs: Vec::new(),
            module_range: vec![None; profile.modules.len()],
            inline: vec![false; profile.modules.len()],
        }
    }

    /// The id of the location of `group` (frames, innermost first), added when new.
    fn id(&mut self, profile: &Profile, group: &[FrameIndex]) -> u64 {
        let next = self.starts.len() as u64 + 1;
        let single = match group {
            [f] => self.single.get_mut(f.index()),
            _ => None,
        };
        let id = match single {
            Some(slot) => {
                if *slot == 0 {
                    *slot = next;
                }
                *slot
            }
            None => *self.groups.entry(group.to_vec()).or_insert(next),
        };
        if id == next {
            self.add(profile, group);
        }
        id
    }

    fn add(&mut self, profile: &Profile, group: &[FrameIndex]) {
        self.starts.push(self.frames.len());
        self.frames.extend_from_slice(group);
        for &f in group {
            let Some(frame) = profile.frames.get(f) else {
                continue;
            };
            if let Some(id) = self.func_ids.get_mut(frame.func.index()) {
                if *id == 0 {
                    self.funcs.push(frame.func);
                    *id = self.funcs.len() as u64;
                }
            }
            if let Some(r) = frame
                .module
                .and_then(|m| self.module_range.get_mut(m.index()))
            {
                let (lo, hi) = r.get_or_insert((frame.address, frame.address));
                *lo = (*lo).min(frame.address);
                *hi = (*hi).max(frame.address);
            }
        }
        if group.len() > 1 {
            let first = group.first().and_then(|&f| profile.frames.get(f));
            if let Some(i) = first
                .and_then(|f| f.module)
                .and_then(|m| self.inline.get_mut(m.index()))
            {
                *i = true;
            }
        }
    }

    /// The frames of each location, in id order.
    fn each(&self) -> impl Iterator<Item = &[FrameIndex]> + '_ {
        self.starts.iter().enumerate().map(|(i, &start)| {
            let end = self.starts.get(i + 1).copied().unwrap_or(self.frames.len());
            self.frames.get(start..end).unwrap_or(&[])
        })
    }
}

/// The gzip-compressed `profile.proto` bytes of the samples of `profile` that pass the filter.
pub fn to_pprof(profile: &Profile, options: &PprofOptions) -> Vec<u8> {
    let raw = to_pprof_uncompressed(profile, options);
    // Level 2: a big recording's export by module and offset spent a third of its time at the
    // default level 6. Its 49 MB message: level 6 1.68 s → 10.08 MB, 2 0.32 s → 10.72 MB, 1
    // (Go's runtime/pprof's choice) 0.21 s → 12.21 MB (BENCHMARKS.md, session 51).
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(2));
    // Writing into a Vec cannot fail.
    let _ = enc.write_all(&raw);
    enc.finish().unwrap_or_default()
}

/// The uncompressed `profile.proto` message (what [`to_pprof`] gzips).
pub fn to_pprof_uncompressed(profile: &Profile, options: &PprofOptions) -> Vec<u8> {
    let s = &profile.samples;
    let all = options.filter == SampleFilter::all();
    let passes = options.filter.tester(s, &profile.threads);
    let kept: Vec<usize> = (0..s.len()).filter(|&i| all || passes(i)).collect();

    // Events with samples, in event order; each gets two value columns.
    let used_events = events_used(profile, &kept);
    // Each event's first value column (by event index), if it has samples.
    let mut column_of: Vec<Option<usize>> = vec![None; profile.events.len()];
    for (c, e) in used_events.iter().enumerate() {
        if let Some(slot) = column_of.get_mut(e.index()) {
            *slot = Some(2 * c);
        }
    }
    let n_values = 2 * used_events.len();

    let mut st = Strings::new();
    let mut out = Vec::new();

    // sample_type
    let bases: Vec<&str> = used_events
        .iter()
        .map(|&e| event_base_name(profile.event_name(e)))
        .collect();
    let unique = |b: &str| bases.iter().filter(|&&x| x == b).count() == 1;
    let type_names: Vec<String> = used_events
        .iter()
        .zip(&bases)
        .map(|(&e, &b)| {
            if unique(b) {
                b.to_owned()
            } else {
                profile.event_name(e).to_owned()
            }
        })
        .collect();
    let mut value_types: Vec<(i64, i64)> = Vec::new();
    for (&e, name) in used_events.iter().zip(&type_names) {
        let count_name = if used_events.len() == 1 {
            "samples".to_owned()
        } else {
            format!("{name}_samples")
        };
        value_types.push((st.get(&count_name), st.get("count")));
        value_types.push((
            st.get(name),
            st.get(period_unit(profile.event_name(e)).name()),
        ));
    }
    let value_type = |t: (i64, i64)| {
        let mut m = Vec::new();
        pb::int(&mut m, 1, t.0);
        pb::int(&mut m, 2, t.1);
        m
    };
    for &t in &value_types {
        pb::bytes(&mut out, 1, &value_type(t));
    }

    // Samples merged by (stack, thread): their keys in order of first use, and `n_values`
    // values each in one list (read column by column, not as whole samples: a 12M-sample
    // recording's export spent most of its time here).
    let mut merged: Vec<(Option<StackIndex>, Option<ThreadIndex>)> = Vec::new();
    let mut merged_values: Vec<i64> = Vec::new();
    let mut merged_index: FxHashMap<(Option<StackIndex>, Option<ThreadIndex>), usize> =
        FxHashMap::default();
    let (mut t_min, mut t_max) = (u64::MAX, 0u64);
    let mut first_event_period: (u128, u128) = (0, 0);
    for &i in &kept {
        let Some(c) = s
            .event(i)
            .and_then(|e| column_of.get(e.index()).copied().flatten())
        else {
            continue;
        };
        let (Some(stack), Some(period), Some(time)) = (s.stack(i), s.period(i), s.times().get(i))
        else {
            continue;
        };
        let thread = if options.thread_labels {
            let Some(&t) = s.thread.get(i) else { continue };
            Some(t)
        } else {
            None
        };
        let slot = *merged_index.entry((stack, thread)).or_insert_with(|| {
            merged.push((stack, thread));
            merged_values.resize(merged_values.len() + n_values, 0);
            merged.len() - 1
        });
        let at = slot * n_values + c;
        if let Some(v) = merged_values.get_mut(at) {
            *v = v.saturating_add(1);
        }
        if let Some(v) = merged_values.get_mut(at + 1) {
            *v = v.saturating_add(i64::try_from(period).unwrap_or(i64::MAX));
        }
        if c == 0 {
            first_event_period.0 += u128::from(period);
            first_event_period.1 += 1;
        }
        if time != 0 {
            t_min = t_min.min(time);
            t_max = t_max.max(time);
        }
    }

    // Locations, functions and mappings, numbered in order of first use; each merged sample's
    // location ids (a stack's list made once, at its first sample).
    let mut locs = Locations::new(profile);
    let mut stack_spans: FxHashMap<Option<StackIndex>, (usize, usize)> = FxHashMap::default();
    let mut location_ids: Vec<u64> = Vec::new();
    let mut merged_spans: Vec<(usize, usize)> = Vec::with_capacity(merged.len());
    let mut group_buf = Vec::new();
    for (stack, _) in &merged {
        let span = *stack_spans.entry(*stack).or_insert_with(|| {
            let start = location_ids.len();
            for_each_location_group(profile, *stack, &mut group_buf, |group| {
                location_ids.push(locs.id(profile, group));
            });
            (start, location_ids.len())
        });
        merged_spans.push(span);
    }

    // Mappings: the main binary first, then by module index.
    let mut modules: Vec<ModuleIndex> = locs
        .module_range
        .iter()
        .enumerate()
        .filter(|(_, r)| r.is_some())
        .filter_map(|(i, _)| ModuleIndex::from_len(i).ok())
        .collect();
    if let Some(main) = main_module(profile, &kept, &modules) {
        modules.retain(|&m| m != main);
        modules.insert(0, main);
    }
    let mut mapping_ids = vec![0u64; profile.modules.len()];
    for (i, m) in modules.iter().enumerate() {
        if let Some(id) = mapping_ids.get_mut(m.index()) {
            *id = i as u64 + 1;
        }
    }
    let mapping_id = |m: Option<ModuleIndex>| {
        m.and_then(|m| mapping_ids.get(m.index()).copied())
            .unwrap_or(0)
    };

    // The labels' keys, put in the string table where the first label needs them.
    let mut label_keys = None;
    // Each thread's name in the string table, once.
    let mut thread_names: FxHashMap<ThreadIndex, i64> = FxHashMap::default();
    let (mut m, mut l) = (Vec::new(), Vec::new());
    for (((_, thread), values), &(start, end)) in merged
        .iter()
        .zip(merged_values.chunks_exact(n_values.max(1)))
        .zip(&merged_spans)
    {
        m.clear();
        pb::packed(
            &mut m,
            1,
            location_ids.get(start..end).unwrap_or(&[]).iter().copied(),
        );
        pb::packed(&mut m, 2, values.iter().map(|&v| v as u64));
        if let Some((index, t)) = thread.and_then(|i| Some((i, profile.threads.get(i)?))) {
            let mut label = |key: i64, str_: i64, num: i64| {
                l.clear();
                pb::int(&mut l, 1, key);
                pb::int(&mut l, 2, str_);
                pb::int(&mut l, 3, num);
                pb::bytes(&mut m, 3, &l);
            };
            let (kt, kp, kd) =
                *label_keys.get_or_insert_with(|| (st.get("thread"), st.get("pid"), st.get("tid")));
            let name = *thread_names
                .entry(index)
                .or_insert_with(|| st.get(profile.strings.get(t.name)));
            label(kt, name, 0);
            // perf's pid -1 (u32::MAX) stays -1.
            label(kp, 0, i64::from(t.pid as i32));
            label(kd, 0, i64::from(t.tid as i32));
        }
        pb::bytes(&mut out, 2, &m);
    }

    for &module in &modules {
        let Some(md) = profile.modules.get(module) else {
            continue;
        };
        let (lo, hi) = locs
            .module_range
            .get(module.index())
            .copied()
            .flatten()
            .unwrap_or_default();
        m.clear();
        pb::uint(&mut m, 1, mapping_id(Some(module)));
        pb::uint(&mut m, 2, lo);
        pb::uint(&mut m, 3, hi.saturating_add(1));
        pb::uint(&mut m, 4, lo);
        pb::int(&mut m, 5, st.get(profile.strings.get(md.path)));
        let build_id: String = md
            .build_id
            .as_deref()
            .unwrap_or_default()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        pb::int(&mut m, 6, st.get(&build_id));
        pb::uint(&mut m, 7, 1);
        let inline = locs.inline.get(module.index()).copied().unwrap_or(false);
        pb::uint(&mut m, 10, u64::from(inline));
        pb::bytes(&mut out, 3, &m);
    }

    for (i, group) in locs.each().enumerate() {
        m.clear();
        pb::uint(&mut m, 1, i as u64 + 1);
        let first = group.first().and_then(|&f| profile.frames.get(f));
        pb::uint(&mut m, 2, mapping_id(first.and_then(|f| f.module)));
        pb::uint(&mut m, 3, first.map_or(0, |f| f.address));
        for &f in group {
            let Some(frame) = profile.frames.get(f) else {
                continue;
            };
            l.clear();
            pb::uint(
                &mut l,
                1,
                locs.func_ids.get(frame.func.index()).copied().unwrap_or(0),
            );
            pb::bytes(&mut m, 4, &l);
        }
        pb::bytes(&mut out, 4, &m);
    }

    for (i, &func) in locs.funcs.iter().enumerate() {
        let name = st.get(profile.func_name(func));
        m.clear();
        pb::uint(&mut m, 1, i as u64 + 1);
        pb::int(&mut m, 2, name);
        pb::int(&mut m, 3, name);
        pb::bytes(&mut out, 5, &m);
    }

    // Scalars, whose strings must be in the table before it is written.
    let mut tail = Vec::new();
    if t_min <= t_max {
        if let Some(c) = &options.clock_data {
            let wall = i128::from(c.tod_ns) + i128::from(t_min) - i128::from(c.clockid_ns);
            pb::int(&mut tail, 9, i64::try_from(wall).unwrap_or(0));
        }
        pb::int(
            &mut tail,
            10,
            i64::try_from(t_max - t_min).unwrap_or(i64::MAX),
        );
    }
    if let Some(&period_type) = value_types.get(1) {
        pb::bytes(&mut tail, 11, &value_type(period_type));
        if let Some(mean) =
            (first_event_period.0 + first_event_period.1 / 2).checked_div(first_event_period.1)
        {
            pb::int(&mut tail, 12, i64::try_from(mean).unwrap_or(i64::MAX));
        }
    }
    let comment = st.get("exported by perfscope");
    pb::packed(&mut tail, 13, [comment as u64]);
    if let Some(&(t, _)) = value_types.get(1) {
        pb::int(&mut tail, 14, t);
    }

    for s in &st.list {
        pb::bytes(&mut out, 6, s.as_bytes());
    }
    out.extend_from_slice(&tail);
    out
}

/// The module to list first: the one whose file name starts with the command name that has the
/// most samples (command names are cut to 15 bytes), if any.
fn main_module(profile: &Profile, kept: &[usize], modules: &[ModuleIndex]) -> Option<ModuleIndex> {
    // Samples by thread first, then by name (a name hashed per sample took a 12M-sample
    // recording's export ~1 s in the page).
    let mut by_thread = vec![0usize; profile.threads.len()];
    for &i in kept {
        if let Some(n) = profile
            .samples
            .thread
            .get(i)
            .and_then(|t| by_thread.get_mut(t.index()))
        {
            *n += 1;
        }
    }
    let mut by_comm: HashMap<&str, usize> = HashMap::new();
    for (t, &n) in by_thread.iter().enumerate() {
        if n > 0 {
            *by_comm
                .entry(profile.thread_name(ThreadIndex(t as u32)))
                .or_default() += n;
        }
    }
    let mut comms: Vec<(&str, usize)> =
        by_comm.into_iter().filter(|(c, _)| !c.is_empty()).collect();
    comms.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let (comm, _) = comms.first()?;
    modules.iter().copied().find(|&m| {
        profile.modules.get(m).is_some_and(|md| {
            let path = profile.strings.get(md.path);
            let base = path.rsplit('/').next().unwrap_or(path);
            !base.is_empty() && base.starts_with(comm)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text_samples::profile_from_text_samples;

    #[test]
    fn varints_and_fields_match_the_protobuf_encoding() {
        // Examples from the protobuf encoding guide: 150 = 96 01, field 1 varint = 08 96 01.
        let mut b = Vec::new();
        pb::uint(&mut b, 1, 150);
        assert_eq!(b, [0x08, 0x96, 0x01]);
        let mut b = Vec::new();
        pb::bytes(&mut b, 2, b"testing");
        assert_eq!(b, [0x12, 0x07, b't', b'e', b's', b't', b'i', b'n', b'g']);
        // int64 -1 is ten bytes; zero is not written.
        let mut b = Vec::new();
        pb::int(&mut b, 1, -1);
        pb::int(&mut b, 2, 0);
        assert_eq!(
            b,
            [0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]
        );
        let mut b = Vec::new();
        pb::packed(&mut b, 4, [3, 270, 86942]);
        assert_eq!(b, [0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05]);
    }

    #[test]
    fn event_names_and_units() {
        assert_eq!(event_base_name("cpu-clock:pppH"), "cpu-clock");
        assert_eq!(event_base_name("cycles:u"), "cycles");
        assert_eq!(event_base_name("sched:sched_switch"), "sched:sched_switch");
        assert_eq!(event_base_name("cycles"), "cycles");
        assert_eq!(period_unit("task-clock:u"), PeriodUnit::Nanoseconds);
        assert_eq!(period_unit("instructions"), PeriodUnit::Count);
        // Off-CPU time is in ns, as perf's --off-cpu event counts it.
        assert_eq!(period_unit("offcpu-time"), PeriodUnit::Nanoseconds);
        assert_eq!(period_unit("offcpu-time:approx"), PeriodUnit::Nanoseconds);
    }

    #[test]
    fn inlined_frames_at_one_address_share_a_location() {
        let mut p = profile_from_text_samples("main\n").unwrap();
        let m = p.intern_module("/bin/app", None).unwrap();
        let outer = p.intern_func("outer", Some(m)).unwrap();
        let inner = p.intern_func("inner", Some(m)).unwrap();
        let f0 = p.intern_frame(outer, Some(m), 0x10, 0).unwrap();
        let f1 = p.intern_frame(inner, Some(m), 0x10, 1).unwrap();
        let g = p.intern_frame(outer, Some(m), 0x20, 0).unwrap();
        // root first: outer@0x20 -> outer@0x10 -> (inlined) inner@0x10
        let stack = p.stacks.intern_path(&[g, f0, f1]).unwrap();
        let mut groups = Vec::new();
        for_each_location_group(&p, stack, &mut Vec::new(), |g| groups.push(g.to_vec()));
        assert_eq!(groups, vec![vec![f1, f0], vec![g]]);
    }

    #[test]
    fn gzip_header() {
        let p = profile_from_text_samples("main main\na    b\n").unwrap();
        let gz = to_pprof(&p, &PprofOptions::default());
        assert_eq!(&gz[..2], &[0x1f, 0x8b]);
    }
}
