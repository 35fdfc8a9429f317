//! The records pass in two halves (`ProfileLoader::delivery_writer` and `take_deliveries`,
//! what two workers do in the page) builds what one loader pushed the records builds: the same
//! profile, timeline and diagnostics, on the test files and the corpus, for the page's loader,
//! a plain one (DWARF-mode stacks unwound) and one whose timeline takes every sample.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod timeline_common;

use std::path::Path;

use perfscope_analysis::builder::UnknownNames;
use perfscope_analysis::load::{LoadExtras, LoadOptions, Loaded, ProfileLoader};
use perfscope_format::walk::{walk, Item};

#[derive(Clone, Copy, Debug)]
enum Kind {
    /// The page's: the switch timeline without sample times, fed samples only when the
    /// recording can switch.
    Page,
    /// No timeline; DWARF-mode stacks unwound.
    Plain,
    /// The timeline with every sample, and the off-CPU time.
    Timeline,
}

fn loader(kind: Kind) -> ProfileLoader {
    let options = LoadOptions {
        unknown_names: UnknownNames::ModuleOffset,
        ..LoadOptions::default()
    };
    match kind {
        Kind::Page => ProfileLoader::with_extras(
            options,
            LoadExtras {
                timeline: true,
                off_cpu: false,
            },
        )
        .without_timeline_sample_times()
        .timeline_samples_for_switches(),
        Kind::Plain => ProfileLoader::new(options),
        Kind::Timeline => ProfileLoader::with_extras(
            options,
            LoadExtras {
                timeline: true,
                off_cpu: true,
            },
        ),
    }
}

/// Loads `data` with one loader pushed every record.
fn direct(data: &[u8], kind: Kind) -> Option<Loaded> {
    let mut l = loader(kind);
    let meta = walk(data, &[], |meta, _, item| match item {
        Item::Record(rec) => l.push(meta, rec),
        Item::Error(e) => l.push_error(*e),
    })
    .ok()?;
    l.finish_loaded(&meta).ok()
}

/// Loads `data` in two halves, the writer's operations taken every `every` records (and
/// before each error). `None` for a pipe stream too.
fn halves(data: &[u8], kind: Kind, every: usize) -> Option<Loaded> {
    let mut l = loader(kind);
    let mut w = l.delivery_writer();
    let mut ops = Vec::new();
    let mut n = 0;
    let mut taken = 0usize;
    let meta = walk(data, &[], |meta, _, item| match item {
        Item::Record(rec) => {
            w.push(meta, rec, &mut ops);
            n += 1;
            if n % every == 0 {
                taken += ops.len();
                l.take_deliveries(meta, &ops).unwrap();
                ops.clear();
            }
        }
        Item::Error(e) => {
            l.take_deliveries(meta, &ops).unwrap();
            ops.clear();
            l.push_error(*e);
        }
    })
    .ok()?;
    if meta.pipe {
        return None;
    }
    w.finish(&meta, &mut ops);
    assert!(!ops.is_empty(), "the end is written");
    l.take_deliveries(&meta, &ops).unwrap();
    let _ = taken;
    l.finish_loaded(&meta).ok()
}

/// Whether `path` loads both ways (the same way: checked).
fn check(path: &Path, kind: Kind) -> bool {
    let data = std::fs::read(path).unwrap();
    let name = format!("{} ({kind:?})", path.display());
    let Some(one) = direct(&data, kind) else {
        assert!(
            halves(&data, kind, 1).is_none(),
            "{name}: loads in halves only"
        );
        return false;
    };
    for every in [1, 1000] {
        let Some(two) = halves(&data, kind, every) else {
            return false;
        };
        assert_eq!(
            format!("{:?}", one.profile),
            format!("{:?}", two.profile),
            "{name}: profile"
        );
        assert_eq!(one.diagnostics, two.diagnostics, "{name}: diagnostics");
        assert_eq!(
            format!("{:?}", one.timeline),
            format!("{:?}", two.timeline),
            "{name}: timeline"
        );
        assert_eq!(
            one.off_cpu_events, two.off_cpu_events,
            "{name}: off-CPU events"
        );
    }
    true
}

const KINDS: [Kind; 3] = [Kind::Page, Kind::Plain, Kind::Timeline];

#[test]
fn two_halves_load_the_test_files_as_one_loader() {
    let files = timeline_common::test_data_files();
    let mut loaded = 0;
    for f in &files {
        for kind in KINDS {
            loaded += usize::from(check(f, kind));
        }
    }
    // Every file but the pipe streams (pipe.data, compressed-pipe.data), three ways.
    let pipes = files
        .iter()
        .filter(|f| {
            let bytes = std::fs::read(f).unwrap();
            perfscope_format::header::Magic::parse(&bytes).unwrap().pipe
        })
        .count();
    assert_eq!(pipes, 2, "{files:?}");
    assert_eq!(loaded, (files.len() - pipes) * 3, "{files:?}");
}

#[test]
fn two_halves_load_the_corpus_as_one_loader() {
    let Some(root) = timeline_common::shared() else {
        println!("SKIPPED: no ../shared corpus (set PERFSCOPE_SHARED)");
        return;
    };
    let files = timeline_common::corpus_recordings(&root, true);
    let mut loaded = 0;
    for f in &files {
        for kind in KINDS {
            loaded += usize::from(check(f, kind));
        }
    }
    println!("{loaded} loads of {} files compared", files.len());
    assert!(loaded > 250, "only {loaded} loads compared");
}

#[test]
fn a_cut_or_garbled_buffer_is_refused_where_it_goes_wrong_without_a_panic() {
    let data =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/example.data"))
            .unwrap();
    let mut w = loader(Kind::Page).delivery_writer();
    let mut ops = Vec::new();
    let meta = walk(&data, &[], |meta, _, item| {
        if let Item::Record(rec) = item {
            w.push(meta, rec, &mut ops);
        }
    })
    .unwrap();
    w.finish(&meta, &mut ops);
    // An unknown operation at the start.
    let mut l = loader(Kind::Page);
    let e = l.take_deliveries(&meta, &[9, 0, 0]).unwrap_err();
    assert_eq!(e.at, 0);
    assert!(e.to_string().contains("byte 0"), "{e}");
    // Cut anywhere: refused at the operation cut, or taken whole at an operation's end.
    let mut refused = 0;
    for cut in (0..ops.len()).step_by(97) {
        let mut l = loader(Kind::Page);
        match l.take_deliveries(&meta, &ops[..cut]) {
            Ok(()) => {}
            Err(e) => {
                assert!(e.at < cut, "refused at {} of {cut}", e.at);
                refused += 1;
            }
        }
        // What was taken still finishes.
        assert!(l.finish_loaded(&meta).is_ok());
    }
    assert!(refused > 10, "{refused} cuts refused");
    // Whole, the same samples as one loader.
    let mut l = loader(Kind::Page);
    l.take_deliveries(&meta, &ops).unwrap();
    let two = l.finish_loaded(&meta).unwrap();
    let one = direct(&data, Kind::Page).unwrap();
    assert_eq!(one.profile.samples.len(), two.profile.samples.len());
    assert!(two.profile.samples.len() > 100);
}
