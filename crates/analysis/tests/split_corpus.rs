//! The stacks of one recording made by two loaders (`StackShare`): the first makes those of
//! the samples before a file offset, the second those after; once the second's are filled in,
//! every sample and every off-CPU interval must be what one loader alone makes of the file —
//! same time, thread, event, period, CPU, and the same frames (by name and module) from root
//! to leaf. Checked on the committed recordings always, and on every corpus recording when
//! `../shared` is there, at several cuts, with both namings of frames without symbols.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::path::{Path, PathBuf};

use perfscope_analysis::builder::UnknownNames;
use perfscope_analysis::ids::StackIndex;
use perfscope_analysis::load::{
    can_share_stacks, encode_part, fill_deferred, LoadExtras, LoadOptions, Loaded, Part,
    ProfileLoader, SampleCheck, SplitError, StackShare,
};
use perfscope_analysis::profile::Profile;
use perfscope_format::walk::{walk, Item};

const EXTRAS: LoadExtras = LoadExtras {
    timeline: true,
    off_cpu: false,
};

fn options(names: UnknownNames) -> LoadOptions {
    LoadOptions {
        unknown_names: names,
        ..LoadOptions::default()
    }
}

fn run(
    bytes: &[u8],
    mut loader: ProfileLoader,
) -> Option<(ProfileLoader, perfscope_format::metadata::Metadata)> {
    let meta = walk(bytes, &[], |meta, _part, item| match item {
        Item::Record(rec) => loader.push(meta, rec),
        Item::Error(e) => loader.push_error(*e),
    })
    .ok()?;
    Some((loader, meta))
}

fn whole(bytes: &[u8], names: UnknownNames) -> Option<Loaded> {
    let (loader, meta) = run(bytes, ProfileLoader::with_extras(options(names), EXTRAS))?;
    loader.finish_loaded(&meta).ok()
}

/// The first loader's result and the second's stacks, for a cut at `cut`.
fn halves(bytes: &[u8], names: UnknownNames, cut: u64) -> (Loaded, Part) {
    let mut first = ProfileLoader::with_extras(options(names), EXTRAS);
    first.share_stacks(StackShare::Before(cut));
    let (first, meta) = run(bytes, first).unwrap();
    let first = first.finish_loaded(&meta).unwrap();
    let mut second = ProfileLoader::new(options(names));
    second.share_stacks(StackShare::From(cut));
    let (second, meta) = run(bytes, second).unwrap();
    (first, second.finish_part(&meta).unwrap())
}

/// A stack as its frames' (function, module) names, root first.
fn path(p: &Profile, stack: Option<StackIndex>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut s = stack;
    while let Some(i) = s {
        let st = p.stacks.get(i).expect("a stack of the table");
        let f = p.frames.get(st.frame).unwrap();
        let module = f
            .module
            .and_then(|m| p.modules.get(m))
            .map_or(String::new(), |m| p.strings.get(m.path).to_string());
        out.push((p.func_name(f.func).to_string(), module));
        s = st.prefix;
    }
    out.reverse();
    out
}

/// Compares the split load with the whole one; returns the samples that were deferred.
fn compare(name: &str, bytes: &[u8], names: UnknownNames, cut: u64, want: &Loaded) -> u64 {
    let (mut got, part) = halves(bytes, names, cut);
    let deferred = got.deferred.count;
    let stack_of = |k: u32| part.stacks.get(k as usize);
    fill_deferred(
        &mut got.profile,
        got.timeline.as_mut(),
        got.deferred,
        &part.tables,
        stack_of,
    )
    .unwrap_or_else(|e| panic!("{name} cut at {cut}: {e}"));
    let (a, b) = (&got.profile, &want.profile);
    assert_eq!(a.samples.len(), b.samples.len(), "{name} cut at {cut}");
    for i in 0..a.samples.len() {
        let (x, y) = (a.samples.get(i).unwrap(), b.samples.get(i).unwrap());
        let what = || format!("{name} ({names:?}) cut at {cut}, sample {i}");
        assert_eq!(
            (x.time, x.cpu, x.period),
            (y.time, y.cpu, y.period),
            "{}",
            what()
        );
        assert_eq!(a.event_name(x.event), b.event_name(y.event), "{}", what());
        let (tx, ty) = (
            a.threads.get(x.thread).unwrap(),
            b.threads.get(y.thread).unwrap(),
        );
        assert_eq!((tx.pid, tx.tid), (ty.pid, ty.tid), "{}", what());
        assert_eq!(
            a.thread_name(x.thread),
            b.thread_name(y.thread),
            "{}",
            what()
        );
        assert_eq!(path(a, x.stack), path(b, y.stack), "{}", what());
    }
    let (ta, tb) = (
        got.timeline.as_ref().unwrap(),
        want.timeline.as_ref().unwrap(),
    );
    assert_eq!(ta.off_cpu.len(), tb.off_cpu.len(), "{name} cut at {cut}");
    for (x, y) in ta.off_cpu.iter().zip(&tb.off_cpu) {
        assert_eq!(
            (x.start, x.end, x.source),
            (y.start, y.end, y.source),
            "{name}"
        );
        assert_eq!(
            path(a, x.stack),
            path(b, y.stack),
            "{name} cut at {cut}: off-CPU stack"
        );
    }
    deferred
}

/// Checks `file` at cuts through its length; returns the samples deferred over all cuts.
fn check_file(file: &Path) -> u64 {
    let bytes = std::fs::read(file).unwrap();
    let name = file.display().to_string();
    // Samples with read values are not shared (their deliveries depend on every earlier one).
    let Some((_, meta)) = run(&bytes, ProfileLoader::new(LoadOptions::default())) else {
        return 0;
    };
    if !can_share_stacks(&meta) {
        return 0;
    }
    let mut deferred = 0;
    for names in [UnknownNames::Module, UnknownNames::ModuleOffset] {
        let Some(want) = whole(&bytes, names) else {
            return 0;
        };
        let len = bytes.len() as u64;
        for cut in [0, len / 5, len / 2, len * 4 / 5, len] {
            deferred += compare(&name, &bytes, names, cut, &want);
        }
    }
    deferred
}

fn repo_data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data")
}

#[test]
fn split_stacks_equal_one_loader_on_the_committed_recordings() {
    let mut deferred = 0;
    for f in [
        "example.data",
        "switches.data",
        "threads.data",
        "two-events.data",
        "pipe.data",
    ] {
        deferred += check_file(&repo_data().join(f));
    }
    assert!(deferred > 1000, "only {deferred} samples deferred");
}

#[test]
fn split_stacks_equal_one_loader_on_the_corpus() {
    let Some(root) = common::shared() else {
        eprintln!("skipped: ../shared (the corpus) is not here");
        return;
    };
    let mut files = 0;
    let mut deferred = 0;
    for (path, _, _) in common::corpus_files(&root) {
        if path.is_file() {
            let d = check_file(&path);
            files += usize::from(d > 0);
            deferred += d;
        }
    }
    assert!(files > 50, "only {files} recordings had deferred samples");
    eprintln!("{files} recordings, {deferred} samples deferred over all cuts");
}

#[test]
fn a_part_that_does_not_match_changes_nothing() {
    let bytes = std::fs::read(repo_data().join("example.data")).unwrap();
    let cut = bytes.len() as u64 / 2;
    let (mut got, part) = halves(&bytes, UnknownNames::Module, cut);
    assert!(got.deferred.count > 0);
    let before: Vec<_> = got.profile.samples.stacks().collect();
    let stack_of = |k: u32| part.stacks.get(k as usize);
    // Another check: refused before anything is read.
    let other = SampleCheck {
        count: got.deferred.count,
        hash: got.deferred.hash ^ 1,
    };
    assert!(matches!(
        fill_deferred(&mut got.profile, None, other, &part.tables, stack_of),
        Err(SplitError::Mismatch(..))
    ));
    // Tables cut short anywhere: an encoding error, no panic.
    let t = &part.tables;
    for end in (0..t.len()).step_by(97).chain([t.len() - 1]) {
        let r = fill_deferred(&mut got.profile, None, got.deferred, &t[..end], stack_of);
        assert!(
            matches!(r, Err(SplitError::Encoding(_))),
            "cut at {end}: {r:?}"
        );
    }
    assert_eq!(got.profile.samples.stacks().collect::<Vec<_>>(), before);
    // A stack number out of the table, or a sample missing: the same (the profile is then
    // partly filled in, to be built again).
    let out_of_range = |k: u32| Some(if k == 7 { 0x7fff_fff0 } else { stack_of(k)? });
    let missing = |k: u32| {
        (k + 1 < got.deferred.count as u32)
            .then(|| stack_of(k))
            .flatten()
    };
    for f in [&out_of_range as &dyn Fn(u32) -> Option<u32>, &missing] {
        let (mut again, _) = halves(&bytes, UnknownNames::Module, cut);
        let r = fill_deferred(&mut again.profile, None, again.deferred, t, f);
        assert!(matches!(r, Err(SplitError::Encoding(_))), "{r:?}");
    }
    // Then the right part is used.
    fill_deferred(&mut got.profile, None, got.deferred, t, stack_of).unwrap();
    assert_ne!(got.profile.samples.stacks().collect::<Vec<_>>(), before);
    // An empty part for a loader that deferred nothing.
    let empty = encode_part(&Profile::new(), SampleCheck::default());
    let mut none = whole(&bytes, UnknownNames::Module).unwrap();
    fill_deferred(&mut none.profile, None, none.deferred, &empty, |_| None).unwrap();
}

#[test]
fn sample_stacks_keep_every_value_when_they_widen() {
    let mut s = perfscope_analysis::load::SampleStacks::default();
    let values: Vec<u32> = (0..70_000u32)
        .map(|i| match i % 7 {
            0 => u32::MAX,
            _ => i,
        })
        .collect();
    for &v in &values {
        s.push(v);
    }
    assert!(matches!(s, perfscope_analysis::load::SampleStacks::Wide(_)));
    assert_eq!(s.len(), values.len());
    assert_eq!(s.iter().collect::<Vec<_>>(), values);
    let mut narrow = perfscope_analysis::load::SampleStacks::default();
    for &v in &values[..1000] {
        narrow.push(v);
    }
    assert!(matches!(
        narrow,
        perfscope_analysis::load::SampleStacks::Narrow(_)
    ));
    assert_eq!(narrow.iter().collect::<Vec<_>>(), values[..1000]);
    assert_eq!(narrow.get(1000), None);
}
