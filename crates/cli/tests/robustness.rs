//! Broken input never panics, hangs or over-allocates: every fuzzer-made file of the public
//! corpus, and every corpus file cut at 16 evenly spaced points, gives an error or a partial
//! result.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::time::{Duration, Instant};

use common::*;

/// Peak resident memory of this process in KiB (VmHWM), where /proc is available.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Reads everything that can be read from `data`; returns (records, errors).
fn read_all(data: &[u8]) -> (u64, u64) {
    let mut records = 0u64;
    let mut errors = 0u64;
    let summary = perfscope_analysis::summary::Summary::from_bytes(data);
    if summary.error.is_some() {
        errors += 1;
    }
    let _ = perfscope_format::walk::walk(data, &[], |meta, _, item| match item {
        perfscope_format::walk::Item::Record(rec) => {
            records += 1;
            let _ = meta.parse(rec);
        }
        perfscope_format::walk::Item::Error(_) => errors += 1,
    });
    (records, errors)
}

#[test]
fn cut_and_fuzzed_files_fail_cleanly() {
    let Some(root) = corpus_root() else { return };
    let files = corpus_files(&root);
    let mut largest = 0usize;
    let mut runs = 0;
    let mut slowest = (Duration::ZERO, String::new());
    for f in &files {
        let Ok(data) = std::fs::read(&f.path) else {
            continue;
        }; // directories: data files are cut below
        largest = largest.max(data.len());
        let (full_records, _) = read_all(&data);
        for i in 0..16u64 {
            let cut = (data.len() as u64 * i / 16) as usize;
            let start = Instant::now();
            let (records, errors) = read_all(&data[..cut]);
            let took = start.elapsed();
            if took > slowest.0 {
                slowest = (took, format!("{} cut at {cut}", f.manifest_name));
            }
            runs += 1;
            // A cut file yields at most the records of the whole file, and says that it is
            // broken unless the cut fell on the end of a record of a pipe stream (or in a file
            // whose data size perf left at 0).
            assert!(
                records <= full_records + 1,
                "{} cut at {cut}: {records} records > {full_records}",
                f.manifest_name
            );
            let pipe = perfscope_format::Magic::parse(&data).is_ok_and(|m| m.pipe);
            if !pipe && cut < data.len() {
                assert!(
                    errors > 0,
                    "{} cut at {cut} of {}: no error reported",
                    f.manifest_name,
                    data.len()
                );
            }
        }
    }
    let peak = peak_rss_kib();
    eprintln!(
        "{runs} runs; largest input {largest} bytes; slowest {slowest:?}; peak RSS {peak:?} KiB"
    );
    assert!(
        slowest.0 < Duration::from_secs(5),
        "a cut file took {slowest:?}: a hang?"
    );
    if let Some(peak) = peak {
        // All inputs are held at once by the test (up to a few MB each); the parser must not add
        // more than a small multiple of the largest one.
        assert!(peak < 256 * 1024, "peak RSS {peak} KiB");
    }
}

/// perf killed before it finishes leaves a data size of 0 and no feature sections: every record
/// up to the end of the file is still read, and the counts equal those of the finished file.
#[test]
fn data_size_zero_means_read_to_the_end() {
    let Some(root) = corpus_root() else { return };
    let path = root.join("gen/default.data");
    let bytes = std::fs::read(&path).expect("read default.data");
    let file = perfscope_format::PerfFile::parse(&bytes).expect("parse default.data");
    let end = (file.header.data.offset + file.header.data.size) as usize;
    let mut killed = bytes[..end].to_vec();
    // struct perf_file_header: magic, size, attr_size, attrs{offset,size}, data{offset,size}:
    // data.size is the u64 at byte 48 (little-endian here); the feature bitmap at 72 is cleared.
    killed[48..56].copy_from_slice(&0u64.to_le_bytes());
    killed[72..104].fill(0);
    let tmp = std::env::temp_dir().join(format!("perfscope-killed-{}.data", std::process::id()));
    std::fs::write(&tmp, &killed).expect("write");
    let (code, stdout, stderr) = perfscope(&["stats".as_ref(), "--json".as_ref(), tmp.as_os_str()]);
    std::fs::remove_file(&tmp).ok();
    assert_eq!(code, 0, "{stderr}");
    let json: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    let want = parse_perf_stats(
        &std::fs::read_to_string(root.join("gen/oracle/default.stats.txt")).expect("oracle"),
    );
    let got: std::collections::BTreeMap<String, u64> = json["records"]
        .as_object()
        .expect("records")
        .iter()
        .map(|(k, v)| (k.clone(), v.as_u64().unwrap_or(0)))
        .collect();
    assert_eq!(got, want);
}
