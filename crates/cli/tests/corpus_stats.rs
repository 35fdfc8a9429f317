//! Record counts per type of every corpus file, against `perf report --stats` (or the
//! MANIFEST's independent counts where perf 6.1 cannot read the file completely).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::collections::BTreeMap;

use common::*;

/// Files we knowingly read differently, with the reason.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[];

/// Pipe-mode files whose per-event stats perf 6.1 prints under another name than the one its
/// own `--header-only` output gives (it names the event from the attr before the EVENT_DESC /
/// EVENT_UPDATE records arrive). We use the header's name; the counts are still compared.
const PERF_STATS_NAMES_DIFFER: &[&str] = &[
    "perf_data_converter/quipper__testdata__perf.data.piped-4.13",
    "perf_data_converter/src__quipper__testdata__perf.data.piped.header_features_aligned-6.12",
    "perf_data_converter/src__quipper__testdata__perf.data.piped.header_feautres_group_desc-6.8",
];

#[test]
fn record_counts_match_perf() {
    let Some(root) = corpus_root() else { return };
    let manifest = manifest_rows(&root.join("public/MANIFEST.md"));
    let mut checked = 0;
    let mut failures = Vec::new();
    let mut skipped = Vec::new();
    for f in corpus_files(&root) {
        let row = manifest.get(&f.manifest_name);
        let fuzz = f.manifest_name.contains("src__quipper__corpus__");
        let perf_ok = match f.set {
            "public" => row
                .and_then(|r| r.get("perf 6.1"))
                .is_some_and(|s| s == "ok"),
            _ => true,
        };
        let oracle_stats = std::fs::read_to_string(f.oracle.with_file_name(format!(
            "{}.stats.txt",
            f.oracle.file_name().and_then(|n| n.to_str()).unwrap_or_default()
        )))
        .unwrap_or_default();
        let expected: BTreeMap<String, u64> = if perf_ok && !oracle_stats.trim().is_empty() {
            parse_perf_stats(&oracle_stats)
        } else if let Some(cell) = row.and_then(|r| r.get("records (independent count)")) {
            parse_manifest_counts(cell)
        } else {
            if !fuzz {
                skipped.push(format!("{} (no oracle counts)", f.manifest_name));
            }
            continue;
        };
        let (code, stdout, stderr) =
            perfscope(&["stats".as_ref(), "--json".as_ref(), f.path.as_os_str()]);
        let json: serde_json::Value = match serde_json::from_str(&stdout) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!(
                    "{}: bad JSON ({e}), exit {code}, stderr {stderr}",
                    f.manifest_name
                ));
                continue;
            }
        };
        let got: BTreeMap<String, u64> = json["records"]
            .as_object()
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), v.as_u64().unwrap_or(0)))
                    .collect()
            })
            .unwrap_or_default();
        if perf_ok && !oracle_stats.trim().is_empty() {
            let want = parse_perf_event_samples(&oracle_stats);
            let got: BTreeMap<String, u64> = json["samples"]
                .as_object()
                .map(|m| {
                    m.iter()
                        .map(|(k, v)| (k.clone(), v.as_u64().unwrap_or(0)))
                        .collect()
                })
                .unwrap_or_default();
            let names_differ = PERF_STATS_NAMES_DIFFER.contains(&f.manifest_name.as_str());
            let counts = |m: &BTreeMap<String, u64>| {
                let mut v: Vec<u64> = m.values().copied().collect();
                v.sort_unstable();
                v
            };
            if (names_differ && counts(&got) != counts(&want)) || (!names_differ && got != want) {
                failures.push(format!(
                    "{}: samples per event:\n  expected {want:?}\n  got      {got:?}",
                    f.manifest_name
                ));
            }
        }
        if got != expected && !KNOWN_DIFFERENCES.iter().any(|(n, _)| *n == f.manifest_name) {
            failures.push(format!(
                "{}:\n  expected {expected:?}\n  got      {got:?}\n  errors {}",
                f.manifest_name, json["errors"]
            ));
        }
        checked += 1;
    }
    eprintln!("checked {checked} files; skipped: {skipped:?}");
    assert!(
        failures.is_empty(),
        "{} files disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked > 60, "only {checked} corpus files were checked");
}
