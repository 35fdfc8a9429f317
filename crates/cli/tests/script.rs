//! `perfscope script` on corpus files: JSON lines agree with perf's own output; broken files print
//! what decoded, then the error with its offset, and exit 1. Skips when the corpus is absent.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn corpus() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("PERFSCOPE_SHARED") {
        return Some(PathBuf::from(d).join("corpus")).filter(|c| c.is_dir());
    }
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    workspace
        .ancestors()
        .skip(1)
        .map(|a| a.join("shared/corpus"))
        .find(|d| d.is_dir())
}

fn script(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_perfscope"))
        .arg("script")
        .args(args)
        .output()
        .unwrap()
}

fn json_lines(out: &Output) -> Vec<Value> {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `samples: N` from a corpus `.meta` oracle.
fn meta_samples(meta: &Path) -> u64 {
    let text = std::fs::read_to_string(meta).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix("samples: "))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn json_samples_match_perf() {
    let Some(corpus) = corpus() else {
        println!("skipped: no shared corpus");
        return;
    };
    for (file, meta) in [
        ("gen/fp-callchain.data", "gen/oracle/fp-callchain.meta"),
        ("gen/kitchen-sink.data", "gen/oracle/kitchen-sink.meta"),
        ("bigendian/be-fp.data", "bigendian/oracle/be-fp.meta"),
    ] {
        let out = script(&["--json", corpus.join(file).to_str().unwrap()]);
        assert!(
            out.status.success(),
            "{file}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let lines = json_lines(&out);
        assert!(
            lines
                .iter()
                .all(|l| l["type"].is_string() && l["offset"].is_u64()),
            "{file}"
        );
        let samples: Vec<&Value> = lines.iter().filter(|l| l["type"] == "SAMPLE").collect();
        assert_eq!(
            samples.len() as u64,
            meta_samples(&corpus.join(meta)),
            "{file}"
        );
        assert!(samples.iter().all(|s| s["pid"].is_i64()
            && s["tid"].is_i64()
            && s["time"].is_u64()
            && s["ip"].is_string()));
    }

    // The first samples of fp-callchain.data, as `perf report -D` prints them:
    // 0x3a0: 26314/26314: 0x7f16c891b389 period: 250000, chain [USER, 0x7f16c891b389].
    // 0x3e0: 26314/26314: 0x7f16c891b0af period: 250000, chain [USER, 0x7f16c891b0af, 0x0].
    let out = script(&[
        "--json",
        corpus.join("gen/fp-callchain.data").to_str().unwrap(),
    ]);
    let lines = json_lines(&out);
    let at = |off: u64| lines.iter().find(|l| l["offset"] == off).unwrap();
    let s = at(0x3a0);
    assert_eq!(
        (&s["event"], &s["pid"], &s["tid"]),
        (
            &Value::from("cpu-clock:pppH"),
            &Value::from(26314),
            &Value::from(26314)
        )
    );
    assert_eq!(
        (&s["time"], &s["period"], &s["ip"]),
        (
            &Value::from(3874783760326u64),
            &Value::from(250000),
            &Value::from("0x7f16c891b389")
        )
    );
    assert_eq!(s["callchain"], serde_json::json!(["0x7f16c891b389"]));
    assert_eq!(
        at(0x3e0)["callchain"],
        serde_json::json!(["0x7f16c891b0af", "0x0"])
    );
    // 0x240: PERF_RECORD_MMAP2 26314/26314: [0x5620248b2000(0x1000) @ 0x1000 fe:00 10092705 3379155572]: r-xp .../mt
    let m = at(0x240);
    assert_eq!(
        (&m["type"], &m["start"], &m["len"], &m["ino"]),
        (
            &Value::from("MMAP2"),
            &Value::from("0x5620248b2000"),
            &Value::from("0x1000"),
            &Value::from(10092705)
        )
    );
    assert_eq!(m["filename"], "/tmp/corpus-gen/workloads/mt");
}

#[test]
fn broken_files_print_what_decoded_then_the_error_and_exit_1() {
    let Some(corpus) = corpus() else {
        println!("skipped: no shared corpus");
        return;
    };
    let bytes = std::fs::read(corpus.join("gen/fp-callchain.data")).unwrap();
    let cut =
        std::env::temp_dir().join(format!("perfscope-script-cut-{}.data", std::process::id()));
    std::fs::write(&cut, &bytes[..20000]).unwrap();
    let out = script(&[cut.to_str().unwrap()]);
    std::fs::remove_file(&cut).unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    // Records up to the cut are printed; the last whole record ends at 0x4df0.
    assert!(
        stdout.lines().any(|l| l.starts_with("0x3a0 SAMPLE ")),
        "{stdout}"
    );
    assert!(
        stderr.contains("error: ")
            && stderr.contains("at offset 0x4df0: record of 88 bytes runs past the end"),
        "{stderr}"
    );
}

#[test]
fn pipe_mode_and_compressed_files_are_scripted() {
    let Some(corpus) = corpus() else {
        println!("skipped: no shared corpus");
        return;
    };
    // perf report --stats: pipe.data has 1569 samples, compressed-z.data 1486 (inside 2
    // COMPRESSED records).
    for (file, samples) in [("gen/pipe.data", 1569), ("gen/compressed-z.data", 1486)] {
        let out = script(&["--json", corpus.join(file).to_str().unwrap()]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{file}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let n = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .filter(|l| l.contains("\"type\":\"SAMPLE\""))
            .count();
        assert_eq!(n, samples, "{file}");
    }
}
