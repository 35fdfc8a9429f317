//! speedscope's file format (<https://www.speedscope.app/file-format-schema.json>): one JSON
//! document with a shared frame list and one `"sampled"` profile per (thread, event).
//!
//! - **Frames** are functions: `name` is the function name, `file` its module's path (left out
//!   when the function has no module). Only functions that appear in an exported sample are
//!   listed.
//! - **Profiles.** One per (pid, tid, event) with samples, ordered by pid, tid and event. A
//!   thread is named by its last command name: `comm (tid)`, with ` — event` appended when the
//!   recording has several events. `activeProfileIndex` is the profile with the most weight.
//! - **Samples** are in time order, each a list of frame indices from the root to the leaf;
//!   samples without frames are left out. Consecutive samples of a profile with the same list
//!   are one sample with their weights summed: speedscope merges them itself when it reads
//!   them (the time order's call tree extends the last sample's node; the grouped one adds the
//!   weights), so its views are the same and the file is smaller. The weights are the periods
//!   ([`WeightKind::Period`]: unit `nanoseconds` for `cpu-clock`/`task-clock`, `none` otherwise)
//!   or 1 per sample ([`WeightKind::Samples`], unit `none`). `startValue` is 0 and `endValue`
//!   the summed weight, as speedscope's own importers do for sampled profiles.

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap};
use serde::ser::SerializeSeq;
use serde::{Serialize, Serializer};

use crate::export::events_used;
use crate::export::pprof::{period_unit, PeriodUnit};
use crate::flame_graph::WeightKind;
use crate::ids::{EventIndex, FuncIndex, StackIndex};
use crate::profile::Profile;
use crate::samples::SampleFilter;

/// Options for [`to_speedscope`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpeedscopeOptions {
    /// Which samples to export.
    pub filter: SampleFilter,
    /// Sample counts or periods as weights.
    pub weight: WeightKind,
    /// The document name speedscope shows (usually the input file name).
    pub name: String,
}

impl Default for SpeedscopeOptions {
    fn default() -> Self {
        SpeedscopeOptions {
            filter: SampleFilter::all(),
            weight: WeightKind::Period,
            name: "perf.data".into(),
        }
    }
}

/// `FileFormat.File`.
#[derive(Serialize)]
struct File<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    shared: Shared<'a>,
    profiles: Vec<Sampled<'a>>,
    name: &'a str,
    #[serde(rename = "activeProfileIndex")]
    active_profile_index: usize,
    exporter: String,
}

#[derive(Serialize)]
struct Shared<'a> {
    frames: Vec<Frame<'a>>,
}

/// `FileFormat.Frame`.
#[derive(Serialize)]
struct Frame<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
}

/// `FileFormat.SampledProfile`.
#[derive(Serialize)]
struct Sampled<'a> {
    #[serde(rename = "type")]
    type_: &'static str,
    name: String,
    unit: &'static str,
    #[serde(rename = "startValue")]
    start_value: u64,
    #[serde(rename = "endValue")]
    end_value: u64,
    samples: Stacks<'a>,
    weights: Vec<u64>,
}

/// The distinct lists of frame indices (root first) of the exported stacks, one after
/// another, each found by its content.
#[derive(Default)]
struct Lists {
    frames: Vec<u32>,
    /// List `i` is `frames[starts[i]..starts[i + 1]]`.
    starts: Vec<usize>,
    /// List ids, hashed by their content.
    index: HashTable<u32>,
}

impl Lists {
    fn get(&self, id: u32) -> &[u32] {
        list_at(&self.frames, &self.starts, id)
    }

    /// The id of the list `frames`, added when new.
    fn intern(&mut self, frames: &[u32]) -> u32 {
        let hash = FxBuildHasher.hash_one(frames);
        let (all, starts) = (&self.frames, &self.starts);
        if let Some(&id) = self
            .index
            .find(hash, |&id| list_at(all, starts, id) == frames)
        {
            return id;
        }
        let id = u32::try_from(self.starts.len()).unwrap_or(u32::MAX);
        self.starts.push(self.frames.len());
        self.frames.extend_from_slice(frames);
        let (all, starts) = (&self.frames, &self.starts);
        self.index.insert_unique(hash, id, |&id| {
            FxBuildHasher.hash_one(list_at(all, starts, id))
        });
        id
    }
}

/// List `id` of `frames` cut at `starts`.
fn list_at<'a>(frames: &'a [u32], starts: &[usize], id: u32) -> &'a [u32] {
    let i = id as usize;
    let end = starts.get(i + 1).copied().unwrap_or(frames.len());
    starts
        .get(i)
        .and_then(|&start| frames.get(start..end))
        .unwrap_or(&[])
}

/// A profile's samples: each the list of frame indices of its stack, root first. The lists are
/// made once per stack (`lists`) and each sample names its own (`ids`): a list per sample was
/// most of the time of a big recording's export.
struct Stacks<'a> {
    lists: &'a Lists,
    ids: Vec<u32>,
}

impl Serialize for Stacks<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.ids.len()))?;
        for &id in &self.ids {
            seq.serialize_element(self.lists.get(id))?;
        }
        seq.end()
    }
}

/// A (pid, tid, event)'s samples while they are read.
struct Group<'a> {
    /// Its thread's last command name.
    comm: &'a str,
    unit: &'static str,
    end_value: u64,
    ids: Vec<u32>,
    weights: Vec<u64>,
}

/// The speedscope JSON of the samples of `profile` that pass the filter.
pub fn to_speedscope(profile: &Profile, options: &SpeedscopeOptions) -> String {
    let mut out = Vec::new();
    // Writing to a `Vec` cannot fail, and serde_json writes UTF-8.
    match write_speedscope(profile, options, &mut out) {
        Ok(()) => String::from_utf8(out).unwrap_or_default(),
        Err(_) => String::new(),
    }
}

/// [`to_speedscope`] written to `out` as it is serialized (a big recording's document is
/// hundreds of MB: not held whole in memory).
pub fn write_speedscope(
    profile: &Profile,
    options: &SpeedscopeOptions,
    out: impl std::io::Write,
) -> std::io::Result<()> {
    let s = &profile.samples;
    let all = options.filter == SampleFilter::all();
    let passes = options.filter.tester(s, &profile.threads);
    let mut order: Vec<usize> = (0..s.len()).filter(|&i| all || passes(i)).collect();
    order.sort_by_key(|&i| s.times().get(i).unwrap_or(0));

    let several_events = events_used(profile, &order).len() > 1;

    let mut frame_of: FxHashMap<FuncIndex, u32> = FxHashMap::default();
    let mut frames: Vec<Frame<'_>> = Vec::new();
    // Each stack's list of frame indices (`lists`), by stack; `NO_FRAMES` for a stack without
    // any (its samples are left out).
    const NO_FRAMES: u32 = u32::MAX;
    let mut list_of: FxHashMap<Option<StackIndex>, u32> = FxHashMap::default();
    // Stacks of different addresses in the same functions share a list, so that their
    // consecutive samples are merged.
    let mut lists = Lists::default();
    let mut ids: Vec<u32> = Vec::new();
    // (pid, tid, event) -> its group.
    let mut group_of: FxHashMap<(u32, u32, EventIndex), usize> = FxHashMap::default();
    let mut groups: Vec<((u32, u32, EventIndex), Group<'_>)> = Vec::new();
    let mut funcs: Vec<FuncIndex> = Vec::new();
    for &i in &order {
        let (Some(stack), Some(event), Some(&thread_index)) =
            (s.stack(i), s.event(i), s.thread.get(i))
        else {
            continue;
        };
        let Some(thread) = profile.threads.get(thread_index) else {
            continue;
        };
        let list = *list_of.entry(stack).or_insert_with(|| {
            funcs.clear();
            funcs.extend(
                profile
                    .stacks
                    .frames_leaf_first(stack)
                    .filter_map(|f| profile.frame_func(f)),
            );
            if funcs.is_empty() {
                return NO_FRAMES;
            }
            ids.clear();
            ids.extend(funcs.iter().rev().map(|&func| {
                let next = frames.len() as u32;
                *frame_of.entry(func).or_insert_with(|| {
                    let module = profile
                        .funcs
                        .get(func)
                        .and_then(|fu| fu.module)
                        .and_then(|m| profile.modules.get(m));
                    frames.push(Frame {
                        name: profile.func_name(func),
                        file: module.map(|m| profile.strings.get(m.path)),
                    });
                    next
                })
            }));
            lists.intern(&ids)
        });
        if list == NO_FRAMES {
            continue;
        }
        let (weight, unit) = match options.weight {
            WeightKind::Samples => (1, "none"),
            WeightKind::Period => {
                let period = s.period(i).unwrap_or(0);
                match period_unit(profile.event_name(event)) {
                    PeriodUnit::Nanoseconds => (period, "nanoseconds"),
                    PeriodUnit::Count => (period, "none"),
                }
            }
        };
        let key = (thread.pid, thread.tid, event);
        let g = *group_of.entry(key).or_insert_with(|| {
            groups.push((
                key,
                Group {
                    comm: "",
                    unit,
                    end_value: 0,
                    ids: Vec::new(),
                    weights: Vec::new(),
                },
            ));
            groups.len() - 1
        });
        if let Some((_, group)) = groups.get_mut(g) {
            group.comm = profile.strings.get(thread.name);
            match (group.ids.last(), group.weights.last_mut()) {
                (Some(&last), Some(w)) if last == list => *w = w.saturating_add(weight),
                _ => {
                    group.ids.push(list);
                    group.weights.push(weight);
                }
            }
            group.end_value = group.end_value.saturating_add(weight);
        }
    }

    // Ordered by pid, tid and event.
    groups.sort_by_key(|&(key, _)| key);
    let mut profiles = Vec::with_capacity(groups.len());
    for ((_, tid, event), group) in groups {
        let name = if several_events {
            format!("{} ({tid}) — {}", group.comm, profile.event_name(event))
        } else {
            format!("{} ({tid})", group.comm)
        };
        profiles.push(Sampled {
            type_: "sampled",
            name,
            unit: group.unit,
            start_value: 0,
            end_value: group.end_value,
            samples: Stacks {
                lists: &lists,
                ids: group.ids,
            },
            weights: group.weights,
        });
    }
    let active_profile_index = profiles
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.end_value.cmp(&b.1.end_value).then(b.0.cmp(&a.0)))
        .map_or(0, |(i, _)| i);
    let file = File {
        schema: "https://www.speedscope.app/file-format-schema.json",
        shared: Shared { frames },
        profiles,
        name: &options.name,
        active_profile_index,
        exporter: format!("perfscope {}", env!("CARGO_PKG_VERSION")),
    };
    serde_json::to_writer(out, &file).map_err(std::io::Error::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples::Sample;
    use crate::text_samples::profile_from_text_samples;

    #[test]
    fn one_profile_per_thread_with_root_first_stacks() {
        let p = profile_from_text_samples(
            "
tid:    2    1    1                1
time:   5    30   10               20
comm:   bg   app  app              app
period: 7    3    5                4
idle    main main             main
        a    b[lib:/lib/libc.so.6] a
",
        )
        .unwrap();
        let json: serde_json::Value =
            serde_json::from_str(&to_speedscope(&p, &SpeedscopeOptions::default())).unwrap();
        assert_eq!(
            json["$schema"],
            "https://www.speedscope.app/file-format-schema.json"
        );
        // Frames in order of first use in time order: idle(t=5), main, b (t=10), a (t=20).
        assert_eq!(
            json["shared"]["frames"],
            serde_json::json!([{"name": "idle"}, {"name": "main"}, {"name": "b", "file": "/lib/libc.so.6"}, {"name": "a"}])
        );
        let profiles = json["profiles"].as_array().unwrap();
        assert_eq!(profiles.len(), 2);
        assert_eq!(profiles[0]["name"], "app (1)");
        assert_eq!(profiles[0]["unit"], "none");
        // Time order 10, 20, 30; the samples at 20 and 30 have the same stack: one sample of
        // both weights.
        assert_eq!(profiles[0]["samples"], serde_json::json!([[1, 2], [1, 3]]));
        assert_eq!(profiles[0]["weights"], serde_json::json!([5, 7]));
        assert_eq!(profiles[0]["endValue"], 12);
        assert_eq!(profiles[1]["name"], "bg (2)");
        assert_eq!(profiles[1]["samples"], serde_json::json!([[0]]));
        assert_eq!(json["activeProfileIndex"], 0);
    }

    #[test]
    fn only_consecutive_samples_of_one_list_and_profile_are_merged() {
        // Thread 1: a, a at another address (time 2, added below: another stack of the same
        // frames), b, a, a of another event, a. Thread 2's sample at time 3 falls between
        // thread 1's.
        let mut p = profile_from_text_samples(
            "
tid:    1      2      1      1      1            1
time:   1      3      4      5      6            7
event:  cycles cycles cycles cycles instructions cycles
period: 10     40     80     160    320          640
main    main   main   main   main         main
a       a      b      a      a            a
",
        )
        .unwrap();
        let first = p.samples.stack(0).flatten().unwrap();
        let main = p.stacks.prefix(first);
        let a = p.stacks.get(first).unwrap().frame;
        let a_func = p.frame_func(a).unwrap();
        let a_elsewhere = p.intern_frame(a_func, None, 0x20, 0).unwrap();
        assert_ne!(a_elsewhere, a);
        let stack = p.stacks.intern(main, a_elsewhere).unwrap();
        assert_ne!(stack, first);
        p.push_sample(Sample {
            time: 2,
            thread: *p.samples.thread.get(0).unwrap(),
            cpu: 0,
            event: p.samples.event(0).unwrap(),
            stack: Some(stack),
            period: 20,
        })
        .unwrap();
        let json: serde_json::Value =
            serde_json::from_str(&to_speedscope(&p, &SpeedscopeOptions::default())).unwrap();
        let profiles = json["profiles"].as_array().unwrap();
        let names: Vec<&str> = profiles
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "app (1) — cycles",
                "app (1) — instructions",
                "app (2) — cycles"
            ]
        );
        // main = 0, a = 1, b = 2 (first use in time order).
        assert_eq!(
            profiles[0]["samples"],
            serde_json::json!([[0, 1], [0, 2], [0, 1]])
        );
        assert_eq!(profiles[0]["weights"], serde_json::json!([30, 80, 800]));
        assert_eq!(profiles[0]["endValue"], 910);
        assert_eq!(profiles[1]["samples"], serde_json::json!([[0, 1]]));
        assert_eq!(profiles[1]["weights"], serde_json::json!([320]));
        assert_eq!(profiles[2]["samples"], serde_json::json!([[0, 1]]));
        assert_eq!(profiles[2]["weights"], serde_json::json!([40]));
        // Counted per sample, the same.
        let opts = SpeedscopeOptions {
            weight: WeightKind::Samples,
            ..Default::default()
        };
        let json: serde_json::Value = serde_json::from_str(&to_speedscope(&p, &opts)).unwrap();
        assert_eq!(json["profiles"][0]["weights"], serde_json::json!([2, 1, 2]));
    }

    #[test]
    fn clock_events_are_nanoseconds_and_events_split_profiles() {
        let p = profile_from_text_samples(
            "
event:  cpu-clock:pppH cycles
period: 250000         1000
main    main
",
        )
        .unwrap();
        let json: serde_json::Value =
            serde_json::from_str(&to_speedscope(&p, &SpeedscopeOptions::default())).unwrap();
        assert_eq!(json["profiles"][0]["unit"], "nanoseconds");
        assert_eq!(json["profiles"][0]["name"], "app (1) — cpu-clock:pppH");
        assert_eq!(json["profiles"][1]["unit"], "none");
        let opts = SpeedscopeOptions {
            weight: WeightKind::Samples,
            ..Default::default()
        };
        let json: serde_json::Value = serde_json::from_str(&to_speedscope(&p, &opts)).unwrap();
        assert_eq!(json["profiles"][0]["weights"], serde_json::json!([1]));
    }
}
