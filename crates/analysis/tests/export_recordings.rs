//! The exports of a real recording (`tests/data/diff/base.data` and `slow.data`): the share file
//! reads back to the same profile and its privacy options remove what they say from the bytes;
//! pprof decodes with Google's protobuf runtime to the profile's totals and stacks; speedscope
//! passes speedscope's schema with the same stacks. The Python checks skip with a message when
//! their packages are missing.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod recording_common;

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::PathBuf;
use std::process::Command;

use perfscope_analysis::export::folded::{folded_lines, FoldedOptions};
use perfscope_analysis::export::pprof::{to_pprof, PprofOptions};
use perfscope_analysis::export::share::{to_share, PrivacyOptions, ShareOptions, HEADER_SIZE};
use perfscope_analysis::export::speedscope::{to_speedscope, SpeedscopeOptions};
use perfscope_analysis::flame_graph::WeightKind;
use perfscope_analysis::ids::ThreadIndex;
use perfscope_analysis::open::{open, Opened};
use perfscope_analysis::profile::Profile;
use perfscope_analysis::samples::SampleFilter;
use perfscope_analysis::summary::Summary;
use recording_common::{load, read};
use serde_json::Value;

/// Folded stacks with the command name, lines that print the same merged.
fn folded(p: &Profile, include_comm: bool, weight: WeightKind) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for (line, n) in folded_lines(
        p,
        &SampleFilter::all(),
        FoldedOptions {
            include_comm,
            weight,
        },
    ) {
        *out.entry(line).or_default() += n;
    }
    out
}

fn columns(p: &Profile) -> (Vec<u64>, Vec<u32>, Vec<u64>) {
    (
        p.samples.times().iter().collect(),
        p.samples.cpus().collect(),
        p.samples.periods().collect(),
    )
}

fn shared(bytes: &[u8]) -> perfscope_analysis::export::share::SharedProfile {
    match open(bytes).unwrap() {
        Opened::Share(s) => *s,
        Opened::PerfData => panic!("not recognized as a share file"),
    }
}

#[test]
fn share_file_round_trip() {
    let data = read("slow.data");
    assert!(matches!(open(&data).unwrap(), Opened::PerfData));
    let p = load("slow");
    let summary = Summary::from_bytes(&data);
    let bytes = to_share(&p, Some(&summary), &ShareOptions::default());
    eprintln!(
        "slow.data: {} bytes, share file: {} bytes",
        data.len(),
        bytes.len()
    );
    let back = shared(&bytes);
    assert_eq!(
        folded(&back.profile, true, WeightKind::Period),
        folded(&p, true, WeightKind::Period)
    );
    assert_eq!(columns(&back.profile), columns(&p));
    assert_eq!(back.summary.as_ref(), Some(&summary));
    assert_eq!(
        back.profile
            .event_name(perfscope_analysis::ids::EventIndex(0)),
        p.event_name(perfscope_analysis::ids::EventIndex(0))
    );
}

#[test]
fn privacy_options_on_a_real_recording() {
    let data = read("base.data");
    let p = load("base");
    let summary = Summary::from_bytes(&data);
    assert_eq!(summary.hostname.as_deref(), Some("vm"));
    let body = |privacy: PrivacyOptions| {
        let bytes = to_share(
            &p,
            Some(&summary),
            &ShareOptions {
                privacy,
                ..Default::default()
            },
        );
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&bytes[HEADER_SIZE..])
            .read_to_end(&mut out)
            .unwrap();
        (String::from_utf8_lossy(&out).into_owned(), shared(&bytes))
    };
    let secrets = [r#""hostname":"vm""#, "-F 2000", "/tmp/perfscope-diff/base"];
    let (plain, _) = body(PrivacyOptions::default());
    for s in secrets {
        assert!(plain.contains(s), "{s} should be in the unstripped file");
    }
    let (stripped, back) = body(PrivacyOptions::all());
    for s in secrets {
        assert!(!stripped.contains(s), "{s} leaked");
    }
    assert!(!stripped.contains("/tmp/"));
    let s = back.summary.unwrap();
    assert_eq!((s.hostname, s.cmdline, s.cmdline_args), (None, None, None));
    let thread = back.profile.threads.get(ThreadIndex(0)).unwrap();
    assert_eq!(
        back.profile.thread_name(ThreadIndex(0)),
        format!("thread-{}", thread.tid)
    );
    // The names people share the file for are all there.
    let f = folded(&back.profile, false, WeightKind::Samples);
    assert_eq!(f, folded(&p, false, WeightKind::Samples));
    assert!(f.keys().any(|k| k.ends_with("main;compute_hash")));
}

fn python(modules: &str, test: &str) -> bool {
    let ok = Command::new("python3")
        .args(["-c", &format!("import {modules}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("{test}: skipped: needs python3 with {modules}");
    }
    ok
}

fn run_check(script: &str, file_name: &str, contents: &[u8]) -> Value {
    let dir = std::env::temp_dir().join(format!(
        "perfscope-export-recordings-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(file_name);
    std::fs::write(&path, contents).unwrap();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data")
        .join(script);
    let out = Command::new("python3")
        .arg(script)
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn pprof_of_a_recording_decodes_to_its_totals() {
    if !python(
        "google.protobuf, grpc_tools",
        "pprof_of_a_recording_decodes_to_its_totals",
    ) {
        return;
    }
    let p = load("base");
    let v = run_check(
        "pprof/check_pprof.py",
        "base.pb.gz",
        &to_pprof(&p, &PprofOptions::default()),
    );
    let period: u64 = p.samples.periods().sum();
    assert_eq!(v["totals"], serde_json::json!([p.samples.len(), period]));
    assert_eq!(
        v["sample_types"],
        serde_json::json!([["samples", "count"], ["cpu-clock", "nanoseconds"]])
    );
    let f: BTreeMap<String, Vec<u64>> = serde_json::from_value(v["folded"].clone()).unwrap();
    let samples: BTreeMap<String, u64> = f.iter().map(|(k, v)| (k.clone(), v[0])).collect();
    assert_eq!(samples, folded(&p, false, WeightKind::Samples));
    // The main binary is listed first.
    assert_eq!(v["mappings"][0][0], "/tmp/perfscope-diff/base");
}

#[test]
fn speedscope_of_a_recording_passes_the_schema() {
    if !python("jsonschema", "speedscope_of_a_recording_passes_the_schema") {
        return;
    }
    let p = load("slow");
    let doc = to_speedscope(
        &p,
        &SpeedscopeOptions {
            name: "slow.data".into(),
            ..Default::default()
        },
    );
    let v = run_check(
        "speedscope/check_speedscope.py",
        "slow.speedscope.json",
        doc.as_bytes(),
    );
    let theirs: BTreeMap<String, u64> = serde_json::from_value(v["folded"].clone()).unwrap();
    assert_eq!(theirs, folded(&p, false, WeightKind::Period));
    assert_eq!(v["profiles"][0]["unit"], "nanoseconds");
}
