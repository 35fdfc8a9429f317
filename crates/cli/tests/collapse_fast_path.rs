//! `collapse` takes a fast path (`perfscope_analysis::collapse`) that builds no profile; it
//! must print what the general path (load the profile, write its folded text) prints, byte for
//! byte, with the same warnings and exit status, on every recording we have, with
//! `--no-symbols` and with symbols (kallsyms, a perf archive, a JIT map, this machine's
//! binaries). `PERFSCOPE_COLLAPSE_GENERAL` makes the binary take the general path.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs `collapse` with `symbols` (`None`: `--no-symbols`) on the general path, or on the
/// fast path on one thread or on several.
fn run_with(file: &Path, symbols: Option<&[String]>, general: bool, one_thread: bool) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_perfscope"));
    cmd.arg("collapse");
    match symbols {
        Some(args) => cmd.args(args),
        None => cmd.arg("--no-symbols"),
    };
    cmd.arg(file).env("PERFSCOPE_COLLAPSE_STATS", "1");
    cmd.env_remove("PERFSCOPE_COLLAPSE_GENERAL")
        .env_remove("PERFSCOPE_COLLAPSE_ONE_THREAD");
    if general {
        cmd.env("PERFSCOPE_COLLAPSE_GENERAL", "1");
    }
    if one_thread {
        cmd.env("PERFSCOPE_COLLAPSE_ONE_THREAD", "1");
    }
    cmd.output().unwrap()
}

fn collapse(file: &Path, general: bool) -> Output {
    run_with(file, None, general, false)
}

/// Whether the run took the fast path (it says so on stderr with PERFSCOPE_COLLAPSE_STATS).
fn fast(out: &Output) -> bool {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .any(|l| l.starts_with("collapse: "))
}

/// Compares both paths on `file`; returns whether the fast path applied.
fn same_output(file: &Path) -> bool {
    same_output_with(file, None)
}

/// [`same_output`] with `symbols` (`None`: `--no-symbols`).
fn same_output_with(file: &Path, symbols: Option<&[String]>) -> bool {
    let (f, g) = (
        run_with(file, symbols, false, false),
        run_with(file, symbols, true, false),
    );
    let name = file.display();
    assert!(
        !fast(&g),
        "{name}: PERFSCOPE_COLLAPSE_GENERAL is not obeyed"
    );
    assert_eq!(f.status.code(), g.status.code(), "{name}: exit status");
    if f.stdout != g.stdout {
        let (a, b) = (
            String::from_utf8_lossy(&f.stdout),
            String::from_utf8_lossy(&g.stdout),
        );
        let first = a.lines().zip(b.lines()).position(|(x, y)| x != y);
        panic!(
            "{name}: fast path output differs ({} vs {} lines; first difference at line {first:?})",
            a.lines().count(),
            b.lines().count()
        );
    }
    // The warnings too, but for the fast path's own line.
    let warnings = |o: &Output| {
        String::from_utf8_lossy(&o.stderr)
            .lines()
            .filter(|l| !l.starts_with("collapse: "))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    assert_eq!(warnings(&f), warnings(&g), "{name}: warnings");
    let one = run_with(file, symbols, false, true);
    assert_eq!(
        (one.status.code(), &one.stdout),
        (f.status.code(), &f.stdout),
        "{name}: the fast path on one thread"
    );
    fast(&f)
}

#[test]
fn the_fast_path_prints_what_the_general_path_prints_on_the_test_files() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
    let mut took = 0;
    for name in [
        "example.data",
        "pipe.data",
        "two-events.data",
        "heatmap.data",
    ] {
        let file = dir.join(name);
        let out = collapse(&file, true);
        assert!(!out.stdout.is_empty(), "{name}: no folded lines");
        took += usize::from(same_output(&file));
    }
    assert_eq!(took, 4, "the fast path applies to every test file");
}

/// `export --format folded -o OUT` of `file` (`--no-symbols`) on the fast path or the general
/// one: the exit status, the bytes written and what it said on stderr.
fn export_folded(file: &Path, general: bool, out: &Path) -> (Option<i32>, Vec<u8>, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_perfscope"));
    cmd.args(["export", "--no-symbols", "--format", "folded", "-o"])
        .arg(out)
        .arg(file)
        .env("PERFSCOPE_COLLAPSE_STATS", "1")
        .env_remove("PERFSCOPE_COLLAPSE_ONE_THREAD")
        .env_remove("PERFSCOPE_COLLAPSE_GENERAL");
    if general {
        cmd.env("PERFSCOPE_COLLAPSE_GENERAL", "1");
    }
    let o = cmd.output().unwrap();
    let written = std::fs::read(out).unwrap_or_default();
    let _ = std::fs::remove_file(out);
    (
        o.status.code(),
        written,
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn export_folded_takes_the_fast_path_and_writes_what_the_general_export_writes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
    let out = std::env::temp_dir().join(format!("perfscope-export-folded-{}", std::process::id()));
    for name in [
        "example.data",
        "two-events.data",
        "threads.data",
        "compressed.data",
    ] {
        let file = dir.join(name);
        let (fast_code, fast_bytes, fast_err) = export_folded(&file, false, &out);
        let (code, bytes, err) = export_folded(&file, true, &out);
        assert!(
            fast_err.contains("collapse: "),
            "{name}: the fast path: {fast_err}"
        );
        assert!(
            !err.contains("collapse: "),
            "{name}: the general path: {err}"
        );
        assert_eq!(fast_code, code, "{name}: exit status");
        assert!(bytes.len() > 100, "{name}: {} bytes", bytes.len());
        assert!(fast_bytes == bytes, "{name}: the folded text differs");
    }
    // A file it cannot write is an error naming it.
    let file = dir.join("example.data");
    let bad = Path::new("/nonexistent-dir/out.folded");
    let (code, _, err) = export_folded(&file, false, bad);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("cannot write /nonexistent-dir/out.folded"),
        "{err}"
    );
}

#[test]
fn the_fast_path_prints_what_the_general_path_prints_on_every_corpus_recording() {
    let Some(root) = common::corpus_root() else {
        return;
    };
    let files: Vec<PathBuf> = common::corpus_files(&root)
        .into_iter()
        .map(|f| f.path)
        .collect();
    let (mut took, mut with_lines) = (Vec::new(), 0);
    for file in &files {
        if !collapse(file, true).stdout.is_empty() {
            with_lines += 1;
        }
        if same_output(file) {
            took.push(file.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    println!(
        "{} recordings ({with_lines} with samples); the fast path took {}: {took:?}",
        files.len(),
        took.len()
    );
    // Files the fast path leaves to the general path: DWARF-mode stacks and read values.
    for name in [
        "fp-callchain.data",
        "syswide-g.data",
        "compressed-z.data",
        "pipe-compressed.data",
        "threads.data",
        "group.data",
    ] {
        assert!(
            took.iter().any(|t| t == name),
            "the fast path applies to {name}"
        );
    }
    for name in ["dwarf.data", "kitchen-sink.data"] {
        assert!(
            !took.iter().any(|t| t == name),
            "{name} goes through the general path"
        );
    }
}

/// The symbol arguments for a corpus recording: kallsyms of the machine that made `gen/`, and
/// the perf archive and JIT map the corpus keeps for two of its files.
fn symbol_args(file: &Path, root: &Path) -> Vec<String> {
    let extra = root.join("corpus/gen/extra");
    let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
    let mut args = Vec::new();
    if file.starts_with(root.join("corpus/gen")) {
        args.push("--kallsyms".to_owned());
        args.push(extra.join("kallsyms.gz").display().to_string());
    }
    let archive = extra.join(format!("{stem}.data.tar.bz2"));
    if archive.is_file() {
        args.push("--archive".to_owned());
        args.push(archive.display().to_string());
    }
    if stem == "python312-perfmap" {
        args.push("--perf-map".to_owned());
        args.push(
            extra
                .join("python312-perfmap.perf-31813.map")
                .display()
                .to_string(),
        );
    }
    args
}

#[test]
fn with_symbols_the_fast_path_prints_what_the_general_path_prints() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
    for name in [
        "example.data",
        "pipe.data",
        "two-events.data",
        "diff/base.data",
    ] {
        assert!(
            same_output_with(&dir.join(name), Some(&[])),
            "{name}: fast path"
        );
    }
    let Some(root) = common::corpus_root() else {
        return;
    };
    let mut took = Vec::new();
    for file in common::corpus_files(&root).into_iter().map(|f| f.path) {
        if same_output_with(&file, Some(&symbol_args(&file, &root))) {
            took.push(file.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    println!("with symbols, the fast path took {}: {took:?}", took.len());
    for name in [
        "fp-callchain.data",
        "syswide-g.data",
        "no-buildid.data",
        "inject-b.data",
    ] {
        assert!(
            took.iter().any(|t| t == name),
            "the fast path applies to {name}"
        );
    }
}
