//! Shared helpers for the corpus tests: finding `../shared/corpus`, reading its MANIFEST tables
//! and perf's oracle files, and running the `perfscope` binary.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The corpus root (`../shared/corpus` next to the workspace, or `$PERFSCOPE_SHARED/corpus`).
pub fn corpus_root() -> Option<PathBuf> {
    let shared = std::env::var_os("PERFSCOPE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    let root = shared.join("corpus");
    if root.is_dir() {
        Some(root)
    } else {
        eprintln!(
            "SKIPPED: no perf.data corpus at {} (set PERFSCOPE_SHARED to run the corpus tests)",
            root.display()
        );
        None
    }
}

/// One corpus file with where its oracles are.
#[derive(Debug, Clone)]
pub struct CorpusFile {
    /// `public`, `gen` or `bigendian`.
    pub set: &'static str,
    /// The file (or directory, for `perf record --threads`).
    pub path: PathBuf,
    /// Oracle path prefix: append `.stats.txt`, `.script.txt`, ...
    pub oracle: PathBuf,
    /// The name used in the MANIFEST (relative path for public, file name otherwise).
    pub manifest_name: String,
}

/// Every perf.data of the three corpus sets.
pub fn corpus_files(root: &Path) -> Vec<CorpusFile> {
    let mut out = Vec::new();
    for set in ["gen", "bigendian"] {
        let dir = root.join(set);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut names: Vec<String> = entries
            .flatten()
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .filter(|n| n.ends_with(".data"))
            .collect();
        names.sort();
        for name in names {
            let stem = name.trim_end_matches(".data").to_string();
            out.push(CorpusFile {
                set,
                path: dir.join(&name),
                oracle: dir.join("oracle").join(&stem),
                manifest_name: name,
            });
        }
    }
    let public = root.join("public");
    if let Ok(projects) = std::fs::read_dir(&public) {
        let mut projects: Vec<PathBuf> = projects
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        projects.sort();
        for project in projects {
            let Ok(entries) = std::fs::read_dir(&project) else {
                continue;
            };
            let mut files: Vec<PathBuf> = entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .collect();
            files.sort();
            for f in files {
                let name = f
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or_default()
                    .to_string();
                let proj = project
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or_default()
                    .to_string();
                out.push(CorpusFile {
                    set: "public",
                    oracle: project.join("oracle").join(&name),
                    manifest_name: format!("{proj}/{name}"),
                    path: f,
                });
            }
        }
    }
    out
}

/// Splits a markdown table row on `|` that are not escaped as `\|`.
pub fn split_row(line: &str) -> Vec<String> {
    let mut cells = Vec::new();
    let mut cur = String::new();
    let mut chars = line.trim().trim_start_matches('|').chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cur.push('|');
                chars.next();
            }
            '|' => cells.push(std::mem::take(&mut cur).trim().to_string()),
            _ => cur.push(c),
        }
    }
    if !cur.trim().is_empty() {
        cells.push(cur.trim().to_string());
    }
    cells
}

/// The rows of the public MANIFEST's tables, keyed by the first column (path in corpus), each
/// row as a map from column header to cell.
pub fn manifest_rows(manifest: &Path) -> BTreeMap<String, BTreeMap<String, String>> {
    let text = std::fs::read_to_string(manifest).unwrap_or_default();
    let mut rows = BTreeMap::new();
    let mut header: Vec<String> = Vec::new();
    for line in text.lines() {
        if !line.starts_with('|') {
            header.clear();
            continue;
        }
        let cells = split_row(line);
        if cells
            .iter()
            .all(|c| c.chars().all(|ch| ch == '-' || ch == ':'))
        {
            continue;
        }
        if header.is_empty() {
            header = cells;
            continue;
        }
        let key = cells
            .first()
            .cloned()
            .unwrap_or_default()
            .trim_matches('`')
            .to_string();
        let row = header.iter().cloned().zip(cells).collect();
        rows.insert(key, row);
    }
    rows
}

/// Reads the "Aggregated stats" part of `perf report --stats` output: record type name → count.
pub fn parse_perf_stats(text: &str) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    let mut in_aggregated = false;
    for line in text.lines() {
        if line.starts_with("Aggregated stats") {
            in_aggregated = true;
            continue;
        }
        if in_aggregated && line.trim_end().ends_with("stats:") {
            break;
        }
        if !in_aggregated {
            continue;
        }
        let Some((name, rest)) = line.split_once(" events:") else {
            continue;
        };
        let name = name.trim();
        if name == "TOTAL" {
            continue;
        }
        if let Some(n) = rest.split_whitespace().next().and_then(|n| n.parse().ok()) {
            out.insert(name.to_string(), n);
        }
    }
    out
}

/// Reads the per-event part of `perf report --stats` output: event name → SAMPLE count.
pub fn parse_perf_event_samples(text: &str) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    let mut event: Option<String> = None;
    for line in text.lines() {
        if let Some(name) = line.strip_suffix(" stats:") {
            if !line.starts_with(' ') && name != "Aggregated" {
                event = Some(name.to_string());
            }
            continue;
        }
        let Some(ev) = &event else { continue };
        if let Some(rest) = line.trim_start().strip_prefix("SAMPLE events:") {
            if let Some(n) = rest
                .split_whitespace()
                .next()
                .and_then(|n| n.parse::<u64>().ok())
            {
                *out.entry(ev.clone()).or_default() += n;
            }
        }
    }
    out
}

/// Reads the MANIFEST's independent record counts ("COMM:3 SAMPLE:7 ; inside compressed: SAMPLE:9")
/// into perf's names, adding records inside compressed records to the totals.
pub fn parse_manifest_counts(cell: &str) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for part in cell.split(';') {
        let part = part.trim().trim_start_matches("inside compressed:").trim();
        for item in part.split_whitespace() {
            let Some((name, n)) = item.rsplit_once(':') else {
                continue;
            };
            let Ok(n) = n.parse::<u64>() else { continue };
            let name = match name {
                "HEADER_ATTR" => "ATTR".to_string(),
                "HEADER_EVENT_TYPE" => "EVENT_TYPE".to_string(),
                "HEADER_TRACING_DATA" => "TRACING_DATA".to_string(),
                "HEADER_BUILD_ID" => "BUILD_ID".to_string(),
                "HEADER_FEATURE" => "FEATURE".to_string(),
                n if n.starts_with("SIMPLEPERF_") => {
                    format!("UNKNOWN_{}", n.trim_start_matches("SIMPLEPERF_"))
                }
                "aux" | "bytes" => continue,
                n => n.to_string(),
            };
            *out.entry(name).or_default() += n;
        }
    }
    out
}

/// Runs `perfscope ARGS...`, returning (exit code, stdout, stderr).
pub fn perfscope(args: &[&std::ffi::OsStr]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_perfscope"))
        .args(args)
        .output()
        .expect("run perfscope");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
