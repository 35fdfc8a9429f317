//! Reading the corpus and perf's oracle outputs (`perf script`, `perf report -D`) for the corpus
//! tests. Shared by the corpus test files.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The shared folder: `$PERFSCOPE_SHARED`, or `../shared` next to the workspace (or next to one
/// of its ancestors, for git worktrees kept in a subfolder).
pub fn shared_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("PERFSCOPE_SHARED") {
        let dir = PathBuf::from(d);
        return dir.join("corpus").is_dir().then_some(dir);
    }
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    workspace
        .ancestors()
        .skip(1)
        .map(|a| a.join("shared"))
        .find(|d| d.join("corpus").is_dir())
}

/// A corpus file and where its oracles are.
#[derive(Debug, Clone)]
pub struct CorpusFile {
    /// `gen/default.data`, `public/hotspot/…`, …
    pub name: String,
    pub path: PathBuf,
    /// Oracle path prefix: append `.script.txt`, `.dump.txt(.gz)`, `.meta`, `.cmd.txt`.
    pub oracle: PathBuf,
    /// Which collection: "gen", "bigendian" or "public".
    pub collection: &'static str,
}

/// Every perf.data of the three collections, sorted by name.
pub fn corpus_files(shared: &Path) -> Vec<CorpusFile> {
    let corpus = shared.join("corpus");
    let mut out = Vec::new();
    for collection in ["gen", "bigendian"] {
        let dir = corpus.join(collection);
        for entry in read_dir_sorted(&dir) {
            let name = entry.file_name().unwrap().to_string_lossy().into_owned();
            if let Some(stem) = name.strip_suffix(".data") {
                out.push(CorpusFile {
                    name: format!("{collection}/{name}"),
                    oracle: dir.join("oracle").join(stem),
                    path: entry,
                    collection,
                });
            }
        }
    }
    for repo in read_dir_sorted(&corpus.join("public")) {
        if !repo.is_dir() {
            continue;
        }
        for entry in read_dir_sorted(&repo) {
            let name = entry.file_name().unwrap().to_string_lossy().into_owned();
            if entry.is_file() && !name.ends_with(".md") {
                let repo_name = repo.file_name().unwrap().to_string_lossy().into_owned();
                out.push(CorpusFile {
                    name: format!("public/{repo_name}/{name}"),
                    oracle: repo.join("oracle").join(&name),
                    path: entry,
                    collection: "public",
                });
            }
        }
    }
    out
}

fn read_dir_sorted(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// Reads `prefix + suffix`, or `prefix + suffix + ".gz"` through `gzip -dc`.
pub fn read_oracle(prefix: &Path, suffix: &str) -> Option<String> {
    let plain = PathBuf::from(format!("{}{suffix}", prefix.display()));
    if let Ok(s) = std::fs::read(&plain) {
        return Some(String::from_utf8_lossy(&s).into_owned());
    }
    let gz = PathBuf::from(format!("{}{suffix}.gz", prefix.display()));
    if !gz.is_file() {
        return None;
    }
    let out = std::process::Command::new("gzip")
        .arg("-dc")
        .arg(&gz)
        .output()
        .ok()?;
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Whether the `perf script` oracle of this file was cut short (so it lists fewer samples).
pub fn script_truncated(f: &CorpusFile) -> bool {
    let meta = read_oracle(&f.oracle, ".meta").unwrap_or_default();
    let cmd = read_oracle(&f.oracle, ".cmd.txt").unwrap_or_default();
    let field = |key: &str| {
        meta.lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
    };
    let cut_lines = matches!((field("script_lines_kept:"), field("script_lines_total:")), (Some(k), Some(t)) if k < t);
    cut_lines
        || cmd
            .lines()
            .any(|l| l.starts_with("script:") && l.contains("truncated"))
}

/// Sample counts per (pid, tid) in `perf script` output: lines with a `PID/TID` token that are
/// not PERF_RECORD_* lines (callchain frame lines have no such token).
pub fn script_samples(text: &str) -> BTreeMap<(i64, i64), u64> {
    let mut counts = BTreeMap::new();
    for line in text.lines() {
        if line.contains("PERF_RECORD_") {
            continue;
        }
        for tok in line.split_whitespace() {
            if let Some((p, t)) = tok.split_once('/') {
                if let (Ok(p), Ok(t)) = (p.parse::<i64>(), t.parse::<i64>()) {
                    *counts.entry((p, t)).or_insert(0) += 1;
                    break;
                }
            }
        }
    }
    counts
}

/// One record line of `perf report -D`: `[cpu] [time] 0xOFFSET [0xSIZE]: PERF_RECORD_NAME rest`,
/// with the indented detail lines that follow it.
#[derive(Debug, Clone)]
pub struct DumpRecord {
    /// For `perf record --threads` directories: the `data.N` file the record is in (from the
    /// raw-header line `0xOFF@PATH [0xSIZE]: event: T`); empty for the main file.
    pub part: String,
    pub offset: u64,
    pub size: u64,
    /// The tokens before the offset (cpu and/or time, as perf printed them).
    pub prefix: Vec<String>,
    pub name: String,
    /// What follows `PERF_RECORD_NAME`.
    pub rest: String,
    /// The `...`-lines after it.
    pub details: Vec<String>,
}

pub fn dump_records(text: &str) -> Vec<DumpRecord> {
    let mut out: Vec<DumpRecord> = Vec::new();
    let mut current: Option<usize> = None;
    let mut part = String::new();
    for line in text.lines() {
        if let (Some(at), Some(end)) = (line.find('@'), line.find(" [0x")) {
            if line.starts_with("0x") && at < end && line.contains("]: event: ") {
                let base = line[at + 1..end].rsplit('/').next().unwrap_or("");
                part = if base.starts_with("data.") {
                    base.to_string()
                } else {
                    String::new()
                };
                current = None;
                continue;
            }
        }
        if let Some(at) = line.find(": PERF_RECORD_") {
            current = None;
            let head = &line[..at];
            let tail = &line[at + ": PERF_RECORD_".len()..];
            let toks: Vec<&str> = head.split_whitespace().collect();
            if toks.len() < 2 {
                continue;
            }
            let (off, size) = (toks[toks.len() - 2], toks[toks.len() - 1]);
            let Some(offset) = off
                .strip_prefix("0x")
                .and_then(|h| u64::from_str_radix(h, 16).ok())
            else {
                continue;
            };
            let Some(size) = size
                .strip_prefix("[0x")
                .and_then(|s| s.strip_suffix(']'))
                .and_then(|h| u64::from_str_radix(h, 16).ok())
            else {
                continue;
            };
            let name_end = tail
                .find(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
                .unwrap_or(tail.len());
            out.push(DumpRecord {
                part: part.clone(),
                offset,
                size,
                prefix: toks[..toks.len() - 2]
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
                name: tail[..name_end].to_string(),
                rest: tail[name_end..].to_string(),
                details: Vec::new(),
            });
            current = Some(out.len() - 1);
        } else if let Some(i) = current {
            if line.starts_with("..") || line.starts_with(" .") {
                out[i].details.push(line.to_string());
            } else if line.trim().is_empty() {
                current = None;
            }
        }
    }
    // The dump may be cut short: its last record's details may be incomplete.
    out.pop();
    out
}

/// Parses a number as perf prints it: `0x…` hex or decimal.
pub fn num(s: &str) -> Option<u64> {
    let s = s.trim().trim_end_matches([',', ':', ']']);
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}
