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

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::export::pprof::{period_unit, PeriodUnit};
use crate::flame_graph::WeightKind;
use crate::ids::{EventIndex, FuncIndex};
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
    profiles: Vec<Sampled>,
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
struct Sampled {
    #[serde(rename = "type")]
    type_: &'static str,
    name: String,
    unit: &'static str,
    #[serde(rename = "startValue")]
    start_value: u64,
    #[serde(rename = "endValue")]
    end_value: u64,
    samples: Vec<Vec<u32>>,
    weights: Vec<u64>,
}

/// The speedscope JSON of the samples of `profile` that pass the filter.
pub fn to_speedscope(profile: &Profile, options: &SpeedscopeOptions) -> String {
    let s = &profile.samples;
    let all = options.filter == SampleFilter::all();
    let passes = options.filter.tester(s, &profile.threads);
    let mut order: Vec<usize> = (0..s.len()).filter(|&i| all || passes(i)).collect();
    order.sort_by_key(|&i| s.times().get(i).unwrap_or(0));

    let several_events = {
        let mut evs: Vec<EventIndex> = order.iter().filter_map(|&i| s.event(i)).collect();
        evs.sort();
        evs.dedup();
        evs.len() > 1
    };

    let mut frame_of: HashMap<FuncIndex, u32> = HashMap::new();
    let mut frames: Vec<Frame<'_>> = Vec::new();
    // (pid, tid, event) -> (thread name, profile)
    let mut groups: BTreeMap<(u32, u32, EventIndex), (&str, Sampled)> = BTreeMap::new();
    let mut scratch: Vec<u32> = Vec::new();
    let mut funcs: Vec<FuncIndex> = Vec::new();
    for &i in &order {
        let Some(sample) = s.get(i) else { continue };
        let Some(thread) = profile.threads.get(sample.thread) else {
            continue;
        };
        funcs.clear();
        funcs.extend(
            profile
                .stacks
                .frames_leaf_first(sample.stack)
                .filter_map(|f| profile.frame_func(f)),
        );
        if funcs.is_empty() {
            continue;
        }
        scratch.clear();
        for &func in funcs.iter().rev() {
            let next = frames.len() as u32;
            let idx = *frame_of.entry(func).or_insert_with(|| {
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
            });
            scratch.push(idx);
        }
        let event_name = profile.event_name(sample.event);
        let (weight, unit) = match options.weight {
            WeightKind::Samples => (1, "none"),
            WeightKind::Period => match period_unit(event_name) {
                PeriodUnit::Nanoseconds => (sample.period, "nanoseconds"),
                PeriodUnit::Count => (sample.period, "none"),
            },
        };
        let entry = groups
            .entry((thread.pid, thread.tid, sample.event))
            .or_insert_with(|| {
                (
                    "",
                    Sampled {
                        type_: "sampled",
                        name: String::new(),
                        unit,
                        start_value: 0,
                        end_value: 0,
                        samples: Vec::new(),
                        weights: Vec::new(),
                    },
                )
            });
        entry.0 = profile.strings.get(thread.name);
        entry.1.samples.push(scratch.clone());
        entry.1.weights.push(weight);
        entry.1.end_value = entry.1.end_value.saturating_add(weight);
    }

    let mut profiles = Vec::with_capacity(groups.len());
    for ((_, tid, event), (comm, mut sampled)) in groups {
        sampled.name = if several_events {
            format!("{comm} ({tid}) — {}", profile.event_name(event))
        } else {
            format!("{comm} ({tid})")
        };
        profiles.push(sampled);
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
