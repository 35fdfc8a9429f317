//! perf's own `perf script` output of every corpus recording, imported as text: its folded
//! export equals perf's folded oracle (same lines, same counts), its sample count the number
//! of samples in the oracle; and the oracles' folded files round-trip through the folded
//! importer byte for byte.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::path::PathBuf;

use perfscope_analysis::export::folded::{to_folded_text, FoldedOptions};
use perfscope_analysis::import::{detect, folded, perf_script, TextKind};
use perfscope_analysis::samples::SampleFilter;

/// (stem, script oracle, folded oracle) of every recording that has both.
fn oracle_pairs() -> Option<Vec<(String, PathBuf, PathBuf)>> {
    let Some(shared) = common::shared() else {
        eprintln!("SKIPPED: no ../shared (set PERFSCOPE_SHARED to run the corpus tests)");
        return None;
    };
    let mut out = Vec::new();
    for set in ["gen", "bigendian"] {
        let dir = shared.join("corpus").join(set).join("oracle");
        for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(stem) = name.strip_suffix(".folded.txt") else {
                continue;
            };
            let script = dir.join(format!("{stem}.script.txt"));
            if script.is_file() {
                out.push((format!("{set}/{stem}"), script, e.path()));
            }
        }
    }
    out.sort();
    Some(out)
}

fn sorted_lines(text: &str) -> Vec<&str> {
    let mut v: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
    v.sort_unstable();
    v
}

/// The number of samples a folded oracle counts.
fn folded_total(text: &str) -> u64 {
    text.lines()
        .filter_map(|l| l.rsplit_once(' '))
        .map(|(_, n)| n.parse::<u64>().unwrap())
        .sum()
}

/// Recordings whose two oracles disagree with each other, and why. perf made the script and
/// the folded oracle in separate runs; checked by folding the script oracle by hand
/// (`comm;frames reversed`): the hand fold differs from the folded oracle the same way.
const ORACLES_DISAGREE: &[(&str, &str)] = &[
    ("bigendian/be-fp", "comm of the samples around an exec (perf-exec vs work.sh, gzip vs work.sh)"),
    ("gen/compressed-z", "the folded oracle names the 155 early samples mt with [unknown] frames, the script perf-exec"),
    ("gen/context-switches", "the script names new threads :TID, the folded oracle mt"),
    ("gen/tp-callchain", "the script names new threads :TID, the folded oracle mt"),
    ("gen/lost", "the script names a new thread :28017, the folded oracle mt"),
    ("gen/user-only", "the script names new threads :TID and has [unknown] where the folded oracle has names"),
];

/// Recordings whose folded oracle cut each frame name before its first ` (` (taking it for the
/// dso: Rust and C++ names such as `<RawTable<(A, (B, C))>>::reserve`): compared after cutting
/// ours the same way.
const ORACLE_CUTS_AT_SPACE: &[&str] = &["gen/lost", "gen/syswide-g"];

/// Script oracles cut at 2,000,000 bytes (their `.meta` says so): fewer samples than the folded oracle.
const SCRIPT_TRUNCATED: &[&str] = &["bigendian/be-pipe"];

fn cut_at_paren(line: &str) -> String {
    let (stack, count) = line.rsplit_once(' ').unwrap();
    let frames: Vec<&str> = stack
        .split(';')
        .map(|f| f.split(" (").next().unwrap())
        .collect();
    format!("{} {count}", frames.join(";"))
}

#[test]
fn perf_script_text_gives_perfs_folded_stacks() {
    let Some(pairs) = oracle_pairs() else { return };
    assert!(
        pairs.len() >= 15,
        "expected the corpus' folded oracles, found {}",
        pairs.len()
    );
    let mut failures = Vec::new();
    let mut exact = 0;
    for (stem, script, folded_oracle) in &pairs {
        let script_bytes = std::fs::read(script).unwrap();
        let oracle = std::fs::read_to_string(folded_oracle).unwrap();
        assert_eq!(detect(&script_bytes), Some(TextKind::PerfScript), "{stem}");
        let imported = perf_script::import(&script_bytes).unwrap_or_else(|e| panic!("{stem}: {e}"));
        assert_eq!(
            imported.skipped_lines, 0,
            "{stem}: skipped line {:?}",
            imported.first_skipped
        );
        let ours = to_folded_text(
            &imported.profile,
            &SampleFilter::all(),
            FoldedOptions::default(),
        );
        let samples = imported.profile.samples.len() as u64;
        eprintln!(
            "{stem}: {samples} samples, {} folded lines",
            sorted_lines(&ours).len()
        );
        if SCRIPT_TRUNCATED.contains(&stem.as_str()) {
            assert!(
                samples < folded_total(&oracle),
                "{stem}: no longer truncated?"
            );
            continue;
        }
        if samples != folded_total(&oracle) {
            failures.push(format!(
                "{stem}: {samples} samples, the oracle counts {}",
                folded_total(&oracle)
            ));
        }
        let (mut a, b): (Vec<String>, Vec<String>) = (
            sorted_lines(&ours).into_iter().map(String::from).collect(),
            sorted_lines(&oracle)
                .into_iter()
                .map(String::from)
                .collect(),
        );
        if ORACLE_CUTS_AT_SPACE.contains(&stem.as_str()) {
            // Cutting names merges lines: count again.
            let mut merged: std::collections::BTreeMap<String, u64> =
                std::collections::BTreeMap::new();
            for l in a.iter().map(|l| cut_at_paren(l)) {
                let (s, n) = l.rsplit_once(' ').unwrap();
                *merged.entry(s.to_owned()).or_default() += n.parse::<u64>().unwrap();
            }
            a = merged
                .into_iter()
                .map(|(s, n)| format!("{s} {n}"))
                .collect();
            a.sort_unstable();
        }
        if let Some((_, why)) = ORACLES_DISAGREE.iter().find(|(s, _)| s == stem) {
            assert_ne!(
                a, b,
                "{stem}: the oracles agree now ({why}): compare exactly"
            );
            continue;
        }
        if a == b {
            exact += 1;
        } else {
            let only_ours: Vec<_> = a.iter().filter(|l| !b.contains(l)).take(3).collect();
            let only_oracle: Vec<_> = b.iter().filter(|l| !a.contains(l)).take(3).collect();
            failures.push(format!("{stem}: folded lines differ; ours only: {only_ours:?}; oracle only: {only_oracle:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(exact >= 12, "{exact} recordings compared exactly");
}

#[test]
fn folded_oracles_round_trip() {
    let Some(pairs) = oracle_pairs() else { return };
    for (stem, _, folded_oracle) in &pairs {
        let text = std::fs::read(folded_oracle).unwrap();
        assert_eq!(detect(&text), Some(TextKind::Folded), "{stem}");
        let imported = folded::import(&text, &folded::FoldedImportOptions::default()).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert_eq!(
            imported.profile.samples.len() as u64,
            folded_total(&text),
            "{stem}"
        );
        let ours = to_folded_text(
            &imported.profile,
            &SampleFilter::all(),
            FoldedOptions::default(),
        );
        assert_eq!(sorted_lines(&ours), sorted_lines(&text), "{stem}");
        // The oracles are `LC_ALL=C sort`ed, as the export writes: byte-identical too.
        assert_eq!(ours, text, "{stem}");
    }
}

#[test]
fn every_script_oracle_imports_without_panicking() {
    let Some(shared) = common::shared() else {
        return;
    };
    let mut n = 0;
    for set in ["gen", "bigendian", "public"] {
        let root = shared.join("corpus").join(set);
        let mut dirs = vec![root.join("oracle")];
        dirs.extend(
            std::fs::read_dir(&root)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path().join("oracle")),
        );
        for dir in dirs {
            for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                if !e.file_name().to_string_lossy().ends_with(".script.txt") {
                    continue;
                }
                let bytes = std::fs::read(e.path()).unwrap();
                let headers = bytes
                    .split(|&b| b == b'\n')
                    .filter(|l| perf_script::parse_header(&String::from_utf8_lossy(l)).is_some())
                    .count();
                match perf_script::import(&bytes) {
                    Ok(imp) => {
                        assert_eq!(imp.profile.samples.len(), headers, "{}", e.path().display());
                        if imp.skipped_lines > 0 {
                            eprintln!(
                                "{}: {} lines skipped, first {:?}",
                                e.path().display(),
                                imp.skipped_lines,
                                imp.first_skipped
                            );
                        }
                    }
                    Err(err) => assert_eq!(headers, 0, "{}: {err}", e.path().display()),
                }
                n += 1;
            }
        }
    }
    assert!(n > 40, "{n} script oracles");
}
