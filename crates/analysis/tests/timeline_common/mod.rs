//! Shared by the timeline corpus tests: the corpus, the expected outputs made by perf
//! (`tests/data/timeline`, see `generate.sh` there), and a timeline read from a file the way
//! perf delivers records, through the loader.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    dead_code
)]

use std::path::{Path, PathBuf};

use perfscope_analysis::builder::UnknownNames;
use perfscope_analysis::load::{load, LoadError, LoadExtras, LoadOptions, Loaded};
use perfscope_analysis::timeline::Timeline;

/// `../shared` (or `$PERFSCOPE_SHARED`), when present.
pub fn shared() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PERFSCOPE_SHARED") {
        return Some(PathBuf::from(p));
    }
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    p.is_dir().then_some(p)
}

/// The `.data` files of `tests/data`, sorted.
pub fn test_data_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "data"))
        .collect();
    files.sort();
    files
}

/// The corpus's recordings under `root` (see [`shared`]), sorted: the `.data` files of gen and
/// bigendian, and, with `public`, every file of the public projects but their notes.
pub fn corpus_recordings(root: &Path, public: bool) -> Vec<PathBuf> {
    let listing = |dir: PathBuf| -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .collect()
    };
    let mut files: Vec<PathBuf> = ["gen", "bigendian"]
        .iter()
        .flat_map(|set| listing(root.join("corpus").join(set)))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "data"))
        .collect();
    if public {
        for project in listing(root.join("corpus/public")) {
            files.extend(
                listing(project)
                    .into_iter()
                    .filter(|p| p.is_file() && !p.to_string_lossy().ends_with(".md")),
            );
        }
    }
    files.sort();
    files
}

/// A corpus file, or `None` (with a message) when the corpus is absent.
pub fn corpus_file(rel: &str) -> Option<PathBuf> {
    let Some(root) = shared() else {
        eprintln!("skipped: ../shared (or PERFSCOPE_SHARED) is absent");
        return None;
    };
    let p = root.join("corpus").join(rel);
    if !p.is_file() {
        eprintln!("skipped: {} is absent", p.display());
        return None;
    }
    Some(p)
}

/// An expected output in `tests/data/timeline`.
pub fn expected(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/timeline")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The timeline of a perf.data file through the loader (no symbols).
pub fn timeline_of(path: &Path) -> Timeline {
    try_timeline_of(path).unwrap()
}

/// The timeline of a perf.data file, or the error that kept its records from being read.
pub fn try_timeline_of(path: &Path) -> Result<Timeline, LoadError> {
    let data = std::fs::read(path).unwrap();
    let options = LoadOptions {
        unwind: false,
        ..LoadOptions::default()
    };
    Ok(load(
        &data,
        &[],
        options,
        LoadExtras {
            timeline: true,
            off_cpu: false,
        },
    )?
    .timeline
    .unwrap())
}

/// The profile (frames named `module+0xoffset`, no symbols) with its timeline and the off-CPU
/// samples added.
pub fn load_with_off_cpu(path: &Path) -> Loaded {
    let data = std::fs::read(path).unwrap();
    let options = LoadOptions {
        unwind: false,
        unknown_names: UnknownNames::ModuleOffset,
        ..LoadOptions::default()
    };
    load(
        &data,
        &[],
        options,
        LoadExtras {
            timeline: true,
            off_cpu: true,
        },
    )
    .unwrap()
}

/// perf's `print_sched_time`: msec with 3 decimals, truncated.
pub fn msec(ns: u64) -> String {
    format!("{}.{:03}", ns / 1_000_000, ns % 1_000_000 / 1_000)
}

/// perf's `timestamp__scnprintf_usec`.
pub fn usec(ns: u64) -> String {
    format!("{}.{:06}", ns / 1_000_000_000, ns % 1_000_000_000 / 1_000)
}
