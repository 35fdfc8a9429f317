//! `load_threaded` (the command line's load: the records pass in two halves on two threads)
//! builds what `load` builds on one: the same profile, timeline, diagnostics and off-CPU
//! events, on the test files and the corpus (broken files among them), with the command
//! line's options: names by module and offset, names with `[unknown]` and the off-CPU time,
//! and a filter by pid, time range and event with the timeline.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod timeline_common;

use std::path::Path;

use perfscope_analysis::builder::UnknownNames;
use perfscope_analysis::load::{load, load_threaded, LoadExtras, LoadFilter, LoadOptions, Loaded};
use perfscope_analysis::symbols::resolver::SymbolResolver;

#[derive(Clone, Copy, Debug)]
enum Kind {
    /// `--no-symbols`.
    Offsets,
    /// Names (none found here: `[unknown]`) and `--off-cpu`'s pseudo-events.
    Names,
    /// `--pid`, `--time` and `--event` of the file's own samples, with the timeline.
    Filtered,
}

/// A filter that keeps some of `profile`'s samples: the process and event of the sample in the
/// middle, the middle half of the sample times.
fn filter_of(one: &Loaded) -> LoadFilter {
    let p = &one.profile;
    let s = &p.samples;
    let middle = s.len() / 2;
    let pid = s
        .thread
        .get(middle)
        .and_then(|&t| p.threads.get(t))
        .map(|t| t.pid);
    let event = s.event(middle).map(|e| p.event_name(e).to_owned());
    let mut times: Vec<u64> = s.times().iter().filter(|&t| t != 0).collect();
    times.sort_unstable();
    let time = (times.len() >= 4).then(|| (times[times.len() / 4], times[times.len() * 3 / 4]));
    LoadFilter {
        events: event.into_iter().collect(),
        pids: pid.into_iter().collect(),
        tids: Vec::new(),
        time,
    }
}

fn options(kind: Kind, filter: &LoadFilter) -> (LoadOptions, LoadExtras) {
    let (unknown_names, symbolize, filter, extras) = match kind {
        Kind::Offsets => (
            UnknownNames::ModuleOffset,
            false,
            LoadFilter::default(),
            LoadExtras::default(),
        ),
        Kind::Names => (
            UnknownNames::Unknown,
            true,
            LoadFilter::default(),
            LoadExtras {
                timeline: false,
                off_cpu: true,
            },
        ),
        Kind::Filtered => (
            UnknownNames::ModuleOffset,
            false,
            filter.clone(),
            LoadExtras {
                timeline: true,
                off_cpu: false,
            },
        ),
    };
    let options = LoadOptions {
        resolver: Some(SymbolResolver::new()),
        symbolize,
        unknown_names,
        filter,
        ..LoadOptions::default()
    };
    (options, extras)
}

/// Compares both loads of `path` every way; whether it loaded (a file whose header cannot be
/// read fails both ways, with the same error).
fn check(path: &Path) -> bool {
    let data = std::fs::read(path).unwrap();
    let name = path.display();
    let plain = |kind, filter: &LoadFilter| {
        let (o, e) = options(kind, filter);
        load(&data, &[], o, e)
    };
    let threaded = |kind, filter: &LoadFilter| {
        let (o, e) = options(kind, filter);
        load_threaded(&data, &[], o, e)
    };
    let first = match plain(Kind::Offsets, &LoadFilter::default()) {
        Ok(l) => l,
        Err(e) => {
            let two = threaded(Kind::Offsets, &LoadFilter::default()).err();
            assert_eq!(two, Some(e), "{name}: the same error");
            return false;
        }
    };
    let filter = filter_of(&first);
    for kind in [Kind::Offsets, Kind::Names, Kind::Filtered] {
        let one = plain(kind, &filter).unwrap();
        let two = threaded(kind, &filter).unwrap();
        let what = format!("{name} ({kind:?}, {filter:?})");
        assert_eq!(
            format!("{:?}", one.profile),
            format!("{:?}", two.profile),
            "{what}: profile"
        );
        assert_eq!(one.diagnostics, two.diagnostics, "{what}: diagnostics");
        assert_eq!(
            format!("{:?}", one.timeline),
            format!("{:?}", two.timeline),
            "{what}: timeline"
        );
        assert_eq!(one.off_cpu_events, two.off_cpu_events, "{what}: off-CPU");
    }
    true
}

#[test]
fn two_threads_load_the_test_files_as_one() {
    let files = timeline_common::test_data_files();
    let loaded = files.iter().filter(|f| check(f)).count();
    assert_eq!(loaded, files.len(), "{files:?}");
    // The filter keeps some samples of the example and drops others.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
    let data = std::fs::read(dir.join("example.data")).unwrap();
    let (o, e) = options(Kind::Offsets, &LoadFilter::default());
    let all = load_threaded(&data, &[], o, e).unwrap();
    let (o, e) = options(Kind::Filtered, &filter_of(&all));
    let some = load_threaded(&data, &[], o, e).unwrap();
    let (n, m) = (all.profile.samples.len(), some.profile.samples.len());
    assert!(0 < m && m < n, "{m} of {n} samples kept");
}

#[test]
fn two_threads_load_the_corpus_as_one() {
    let Some(root) = timeline_common::shared() else {
        println!("SKIPPED: no ../shared corpus (set PERFSCOPE_SHARED)");
        return;
    };
    let files = timeline_common::corpus_recordings(&root, true);
    let loaded = files.iter().filter(|f| check(f)).count();
    println!(
        "{loaded} of {} files loaded the same both ways",
        files.len()
    );
    assert!(loaded > 80, "only {loaded} files compared");
}
