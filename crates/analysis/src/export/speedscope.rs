//! speedscope's file format (<https://www.speedscope.app/file-format-schema.json>): one JSON
//! document with a shared frame list and one `"sampled"` profile per (thread, event).
//!
//! - **Frames** are functions: `name` is the function name, `file` its module's path (left out
//!   when the function has no module). Only functions that appear in an exported sample are
//!   listed.
//! - **Profiles.** One per (pid, tid, event) with samples, ordered by pid, tid and event. A
//!   thread is named by its last command name: `comm (tid)`, with ` — event` appended when the
//!   recording has several events. `activeProfileIndex` is the profile with the most weight.
//! - **Samples** are in time order, one per perf sample, each a list of frame indices from the
//!   root to the leaf; samples without frames are left out. The weights are the periods
//!   ([`WeightKind::Period`]: unit `nanoseconds` for `cpu-clock`/`task-clock`, `none` otherwise)
//!   or 1 per sample ([`WeightKind::Samples`], unit `none`). `startValue` is 0 and `endValue`
//!   the summed weight, as speedscope's own importers do for sampled profiles.

use rustc_hash::FxHashMap;
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

/// A profile's samples: each the list of frame indices of its stack, root first. The lists are
/// made once per stack (`lists`) and each sample names its own (`ids`): a list per sample was
/// most of the time of a big recording's export.
struct Stacks<'a> {
    lists: &'a [Vec<u32>],
    ids: Vec<u32>,
}

impl Serialize for Stacks<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.ids.len()))?;
        for &id in &self.ids {
            seq.serialize_element(self.lists.get(id as usize).map_or(&[][..], Vec::as_slice))?;
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
    let mut lists: Vec<Vec<u32>> = Vec::new();
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
            let ids = funcs
                .iter()
                .rev()
                .map(|&func| {
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
                })
                .collect();
            lists.push(ids);
            (lists.len() - 1) as u32
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
            group.ids.push(list);
            group.weights.push(weight);
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
    serde_json::to_string(&file).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
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
        // Time order 10, 20, 30.
        assert_eq!(
            profiles[0]["samples"],
            serde_json::json!([[1, 2], [1, 3], [1, 3]])
        );
        assert_eq!(profiles[0]["weights"], serde_json::json!([5, 4, 3]));
        assert_eq!(profiles[0]["endValue"], 12);
        assert_eq!(profiles[1]["name"], "bg (2)");
        assert_eq!(profiles[1]["samples"], serde_json::json!([[0]]));
        assert_eq!(json["activeProfileIndex"], 0);
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
