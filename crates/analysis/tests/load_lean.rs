//! The loader's memory saver changes nothing but memory: a timeline without sample times
//! (`ProfileLoader::without_timeline_sample_times`) gives the same profile and the same
//! timeline (but the lanes' sample densities) as the plain loader, on the test files and the
//! corpus.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod timeline_common;

use std::path::{Path, PathBuf};

use perfscope_analysis::builder::UnknownNames;
use perfscope_analysis::load::{LoadExtras, LoadOptions, Loaded, ProfileLoader};
use perfscope_analysis::timeline::Timeline;
use perfscope_format::walk::{walk, Item};

fn options() -> LoadOptions {
    LoadOptions {
        unwind: false,
        unknown_names: UnknownNames::ModuleOffset,
        ..LoadOptions::default()
    }
}

/// Loads `data` with the timeline; `lean`: keeping no timeline sample times.
fn load(data: &[u8], lean: bool) -> Option<Loaded> {
    load_with(data, lean, false)
}

/// [`load`]; `for_switches`: the timeline fed samples only when switches are possible.
fn load_with(data: &[u8], lean: bool, for_switches: bool) -> Option<Loaded> {
    let mut loader = ProfileLoader::with_extras(
        options(),
        LoadExtras {
            timeline: true,
            off_cpu: false,
        },
    );
    if lean {
        loader = loader.without_timeline_sample_times();
    }
    if for_switches {
        loader = loader.timeline_samples_for_switches();
    }
    let meta = walk(data, &[], |meta, _, item| match item {
        Item::Record(rec) => loader.push(meta, rec),
        Item::Error(e) => loader.push_error(*e),
    })
    .ok()?;
    loader.finish_loaded(&meta).ok()
}

/// The timeline without the lanes' sample densities.
fn without_densities(t: &Timeline) -> String {
    let mut t = t.clone();
    t.task_samples.clear();
    for c in &mut t.cpus {
        c.samples = Default::default();
    }
    format!("{t:?}")
}

/// The `gen` corpus's recordings, by name.
fn gen_files(root: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("corpus/gen"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "data"))
        .collect();
    files.sort();
    files
}

fn check(path: &Path) -> bool {
    let data = std::fs::read(path).unwrap();
    let (Some(plain), Some(lean)) = (load(&data, false), load(&data, true)) else {
        return false;
    };
    let name = path.display();
    let (p, l) = (&plain.profile, &lean.profile);
    assert_eq!(p.samples.times(), l.samples.times(), "{name}: times");
    assert_eq!(
        p.samples.stacks().collect::<Vec<_>>(),
        l.samples.stacks().collect::<Vec<_>>(),
        "{name}: stacks"
    );
    assert_eq!(
        p.samples.periods().collect::<Vec<_>>(),
        l.samples.periods().collect::<Vec<_>>(),
        "{name}: periods"
    );
    assert_eq!(p.samples.thread, l.samples.thread, "{name}: threads");
    assert_eq!(
        p.samples.cpus().collect::<Vec<_>>(),
        l.samples.cpus().collect::<Vec<_>>(),
        "{name}: cpus"
    );
    assert_eq!(
        p.samples.events().collect::<Vec<_>>(),
        l.samples.events().collect::<Vec<_>>(),
        "{name}: events"
    );
    assert_eq!(p.stacks.len(), l.stacks.len(), "{name}: stack table");
    // Shrunk at the end either way: shrinking again frees nothing.
    let mut again = l.samples.clone();
    again.shrink();
    assert_eq!(
        again.heap_bytes(),
        l.samples.heap_bytes(),
        "{name}: spare capacity after loading"
    );
    let (pt, lt) = (
        plain.timeline.as_ref().unwrap(),
        lean.timeline.as_ref().unwrap(),
    );
    assert_eq!(
        without_densities(pt),
        without_densities(lt),
        "{name}: timeline"
    );
    assert!(
        lt.task_samples.iter().all(|d| d.is_empty()),
        "{name}: no sample times kept"
    );
    // Samples are still counted per task.
    assert_eq!(
        pt.tasks.iter().map(|t| t.samples).collect::<Vec<_>>(),
        lt.tasks.iter().map(|t| t.samples).collect::<Vec<_>>()
    );
    let dense: usize = pt.task_samples.iter().map(|d| d.len()).sum();
    assert_eq!(
        dense as u64 + pt.untimed_samples,
        pt.tasks.iter().map(|t| t.samples).sum::<u64>(),
        "{name}: plain densities hold every timed sample"
    );
    true
}

#[test]
fn lean_loading_gives_the_same_profile_and_timeline_on_the_test_files() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
    for f in [
        "example.data",
        "pipe.data",
        "two-events.data",
        "heatmap.data",
    ] {
        assert!(check(&dir.join(f)), "{f} loads");
    }
}

#[test]
fn lean_loading_gives_the_same_profile_and_timeline_on_the_corpus() {
    let Some(root) = timeline_common::shared() else {
        println!("SKIPPED: no ../shared corpus (set PERFSCOPE_SHARED)");
        return;
    };
    let files = gen_files(&root);
    let checked = files.iter().filter(|p| check(p)).count();
    assert!(checked > 30, "only {checked} corpus files loaded");
}

/// Whether some event of the file asks for switch records or is a tracepoint (read from the
/// attrs here, not by the loader).
fn switch_capable(data: &[u8]) -> bool {
    let mut capable = false;
    let _ = walk(data, &[], |meta, _, _| {
        let attrs = (0..meta.events.len() as u32)
            .filter_map(|i| meta.events.attr(perfscope_format::layout::EventIndex(i)));
        capable = attrs.into_iter().any(|a| {
            a.flags.has(perfscope_format::AttrFlags::CONTEXT_SWITCH)
                || a.type_ == perfscope_format::constants::attr_type::TRACEPOINT
        });
    });
    capable
}

/// `Some(switch capable)` when the file loads.
fn check_for_switches(path: &Path) -> Option<bool> {
    let data = std::fs::read(path).unwrap();
    let (lean, sw) = (load(&data, true)?, load_with(&data, true, true)?);
    let name = path.display();
    let capable = switch_capable(&data);
    assert_eq!(
        lean.profile.samples.thread, sw.profile.samples.thread,
        "{name}"
    );
    assert_eq!(
        lean.profile.samples.stacks().collect::<Vec<_>>(),
        sw.profile.samples.stacks().collect::<Vec<_>>(),
        "{name}"
    );
    let (lt, st) = (lean.timeline.unwrap(), sw.timeline.unwrap());
    if capable {
        assert_eq!(format!("{lt:?}"), format!("{st:?}"), "{name}: timeline");
        return Some(true);
    }
    // Nothing could switch: no activity either way, the same markers, and the samples
    // counted by the lean timeline only.
    for t in [&lt, &st] {
        assert!(!t.switches.any(), "{name}: {:?}", t.switches);
        assert!(t.off_cpu.is_empty(), "{name}");
        assert!(t.cpus.iter().all(|c| c.slices.is_empty()), "{name}");
        assert!(
            t.tasks
                .iter()
                .all(|t| t.on_cpu.is_empty() && t.off_cpu.is_empty()),
            "{name}"
        );
    }
    assert_eq!(lt.markers, st.markers, "{name}: markers");
    assert!(st.tasks.iter().all(|t| t.samples == 0), "{name}");
    assert_eq!(
        lt.tasks.iter().map(|t| t.samples).sum::<u64>(),
        lean.profile.samples.len() as u64,
        "{name}: the lean timeline counts every sample"
    );
    Some(false)
}

#[test]
fn a_timeline_for_switches_skips_samples_only_when_nothing_can_switch() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
    // Both recorded with --switch-events (see their .cmd files).
    for f in ["switches.data", "heatmap.data"] {
        assert_eq!(check_for_switches(&dir.join(f)), Some(true), "{f}");
    }
    for f in [
        "example.data",
        "pipe.data",
        "two-events.data",
        "threads.data",
    ] {
        assert_eq!(check_for_switches(&dir.join(f)), Some(false), "{f}");
    }
}

#[test]
fn a_timeline_for_switches_skips_samples_only_when_nothing_can_switch_on_the_corpus() {
    let Some(root) = timeline_common::shared() else {
        println!("SKIPPED: no ../shared corpus (set PERFSCOPE_SHARED)");
        return;
    };
    let files = gen_files(&root);
    let results: Vec<bool> = files.iter().filter_map(|p| check_for_switches(p)).collect();
    let capable = results.iter().filter(|&&c| c).count();
    assert!(
        results.len() > 30,
        "only {} corpus files loaded",
        results.len()
    );
    assert!(capable >= 2, "{capable} corpus files can switch");
}
