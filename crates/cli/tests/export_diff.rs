//! `perfscope export` and `perfscope diff` on the two recordings of `tests/data/diff` (a C
//! program, `slow` with compute_hash() doing three times the work; see `record.sh`). The
//! binaries are found through `--symfs`, as they were recorded under /tmp/perfscope-diff.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/diff")
        .join(name)
}

/// A temporary directory with a `--symfs` tree holding the two binaries at their recorded paths.
fn workdir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("perfscope-cli-{test}-{}", std::process::id()));
    let bin = dir.join("symfs/tmp/perfscope-diff");
    std::fs::create_dir_all(&bin).unwrap();
    for b in ["base", "slow"] {
        std::fs::copy(data(b), bin.join(b)).unwrap();
    }
    dir
}

fn perfscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_perfscope"))
        .args(args)
        .output()
        .unwrap()
}

fn ok(out: Output) -> Vec<u8> {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// `samples` of a symbol in perf's report, and the total.
fn perf_count(name: &str, sym: &str) -> (f64, f64) {
    let text = std::fs::read_to_string(data(&format!("{name}.report.txt"))).unwrap();
    let total = text
        .lines()
        .find_map(|l| l.strip_prefix("# Samples: "))
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let n = text
        .lines()
        .find(|l| l.ends_with(&format!("] {sym}")))
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    (n, total)
}

#[test]
fn diff_shows_the_slowed_function_first() {
    let dir = workdir("diff");
    let symfs = dir.join("symfs");
    let (base, slow) = (data("base.data"), data("slow.data"));
    let args = [
        "diff",
        "--json",
        "--symfs",
        symfs.to_str().unwrap(),
        base.to_str().unwrap(),
        slow.to_str().unwrap(),
    ];
    let v: Value = serde_json::from_slice(&ok(perfscope(&args))).unwrap();
    let top = &v["functions"][0];
    assert_eq!(top["function"], "compute_hash");
    let (bn, bt) = perf_count("base", "compute_hash");
    let (sn, st) = perf_count("slow", "compute_hash");
    assert!(
        (top["self_change"].as_f64().unwrap() - (sn / st - bn / bt)).abs() < 1e-9,
        "{top}"
    );
    assert_eq!(
        (
            v["base_total"].as_f64().unwrap(),
            v["new_total"].as_f64().unwrap()
        ),
        (bt, st)
    );

    let table = String::from_utf8(ok(perfscope(&[
        args[0], args[2], args[3], args[4], args[5],
    ])))
    .unwrap();
    let first = table.lines().nth(2).unwrap();
    assert!(
        first.ends_with("compute_hash") && first.contains("+26.39%"),
        "{table}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn share_file_is_accepted_like_a_perf_data() {
    let dir = workdir("share");
    let symfs = dir.join("symfs");
    let symfs = symfs.to_str().unwrap();
    let base = data("base.data");
    let base = base.to_str().unwrap();
    let share = dir.join("base.share");
    let share = share.to_str().unwrap();
    ok(perfscope(&[
        "export", "--format", "share", "--symfs", symfs, "-o", share, base,
    ]));
    let bytes = std::fs::read(share).unwrap();
    assert!(bytes.starts_with(b"PERFSCOPE-SHARE\0"));
    // Without the binaries (no --symfs) the share file still has every name.
    let from_data = ok(perfscope(&[
        "export", "--format", "folded", "--symfs", symfs, "-o", "-", base,
    ]));
    let from_share = ok(perfscope(&[
        "export", "--format", "folded", "-o", "-", share,
    ]));
    assert_eq!(
        String::from_utf8(from_share).unwrap(),
        String::from_utf8(from_data).unwrap()
    );
    // The sample options select the same samples from both (perf.data: while loading; share
    // file: as a filter). perf prints the 100th and 200th sample times truncated to µs, so the
    // window holds samples 100..=199: `perf script --time 5564.802547,5564.898225` prints 100.
    let window = ["--time", "5564.802547,5564.898225"];
    let a = ok(perfscope(
        &[
            &[
                "export", "--format", "folded", "--symfs", symfs, "-o", "-", base,
            ][..],
            &window,
        ]
        .concat(),
    ));
    let b = ok(perfscope(
        &[
            &["export", "--format", "folded", "-o", "-", share][..],
            &window,
        ]
        .concat(),
    ));
    assert_eq!(
        String::from_utf8(b).unwrap(),
        String::from_utf8(a.clone()).unwrap()
    );
    let n: u64 = String::from_utf8(a)
        .unwrap()
        .lines()
        .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(n, 100);
    // collapse and report read share files too, with the same result as from the perf.data.
    let mut collapse_data: Vec<String> =
        String::from_utf8(ok(perfscope(&["collapse", "--symfs", symfs, base])))
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
    let mut collapse_share: Vec<String> = String::from_utf8(ok(perfscope(&["collapse", share])))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    collapse_data.sort();
    collapse_share.sort();
    assert_eq!(collapse_share, collapse_data);
    let report_data = ok(perfscope(&["report", "--symfs", symfs, base]));
    assert_eq!(ok(perfscope(&["report", share])), report_data);
    let slow = data("slow.data");
    let v: Value = serde_json::from_slice(&ok(perfscope(&[
        "diff",
        "--json",
        "--symfs",
        symfs,
        share,
        slow.to_str().unwrap(),
    ])))
    .unwrap();
    assert_eq!(v["functions"][0]["function"], "compute_hash");

    // Privacy flags, checked on the decompressed bytes.
    let private = dir.join("private.share");
    let private = private.to_str().unwrap();
    let flags = [
        "--strip-paths",
        "--strip-cmdline",
        "--strip-hostname",
        "--strip-thread-names",
    ];
    let mut args = vec![
        "export", "--format", "share", "--symfs", symfs, "-o", private, base,
    ];
    args.extend(flags);
    ok(perfscope(&args));
    let mut body = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(&std::fs::read(private).unwrap()[32..]),
        &mut body,
    )
    .unwrap();
    let body = String::from_utf8_lossy(&body);
    for secret in [r#""hostname":"vm""#, "-F 2000", "/tmp/perfscope-diff"] {
        assert!(!body.contains(secret), "{secret} leaked");
    }
    let folded = String::from_utf8(ok(perfscope(&[
        "export", "--format", "folded", "-o", "-", private,
    ])))
    .unwrap();
    assert!(folded.lines().all(|l| l.starts_with("thread-")), "{folded}");
    assert!(folded.contains(";main;compute_hash "));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_format_writes_its_kind_of_file() {
    let dir = workdir("formats");
    let symfs = dir.join("symfs");
    let base = data("base.data");
    for (format, head) in [
        ("pprof", &b"\x1f\x8b"[..]),
        ("svg", b"<?xml"),
        ("speedscope", b"{\"$schema\""),
        ("folded", b"base;"),
    ] {
        let out = dir.join(format!("out.{format}"));
        ok(perfscope(&[
            "export",
            "--format",
            format,
            "--symfs",
            symfs.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            base.to_str().unwrap(),
        ]));
        let bytes = std::fs::read(&out).unwrap();
        assert!(
            bytes.starts_with(head),
            "{format}: {:?}",
            &bytes[..bytes.len().min(16)]
        );
    }
    let out = perfscope(&[
        "export",
        "--format",
        "pprof",
        "--strip-paths",
        "-o",
        "-",
        base.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("apply to --format share"));
    std::fs::remove_dir_all(&dir).unwrap();
}
