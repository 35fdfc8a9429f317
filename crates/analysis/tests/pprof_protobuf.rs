//! The pprof export decoded by Google's protobuf runtime against google/pprof's `profile.proto`
//! (`tests/data/pprof/check_pprof.py`), compared with the profile: value totals equal the sample
//! count and summed period, stacks equal the folded export, threads equal the thread table.
//! Skips with a message when `python3` with `protobuf` and `grpcio-tools` is not installed.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use perfscope_analysis::export::folded::{folded_lines, FoldedOptions};
use perfscope_analysis::export::pprof::{to_pprof, PprofOptions};
use perfscope_analysis::feature_summary::ClockDataSummary;
use perfscope_analysis::flame_graph::WeightKind;
use perfscope_analysis::profile::Profile;
use perfscope_analysis::samples::SampleFilter;
use perfscope_analysis::text_samples::profile_from_text_samples;
use serde_json::Value;

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/pprof/check_pprof.py")
}

fn python_ready(test: &str) -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import google.protobuf, grpc_tools"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("{test}: skipped: needs python3 with `pip install protobuf grpcio-tools`");
    }
    ok
}

/// Runs the Python decoder on the export of `p`.
fn decode(p: &Profile, options: &PprofOptions, name: &str) -> Value {
    let dir = std::env::temp_dir().join(format!("perfscope-pprof-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.pb.gz"));
    std::fs::write(&path, to_pprof(p, options)).unwrap();
    let out = Command::new("python3")
        .arg(script())
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "check_pprof.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Our folded stacks (no command name) with the given weight.
fn folded(p: &Profile, filter: &SampleFilter, weight: WeightKind) -> BTreeMap<String, u64> {
    folded_lines(
        p,
        filter,
        FoldedOptions {
            include_comm: false,
            weight,
        },
    )
    .into_iter()
    .collect()
}

/// Column `c` of the decoded folded stacks, without zero entries.
fn column(v: &Value, c: usize) -> BTreeMap<String, u64> {
    v["folded"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, vals)| (k.clone(), vals[c].as_u64().unwrap()))
        .filter(|&(_, n)| n > 0)
        .collect()
}

const ONE_EVENT: &str = "
comm:   app app app worker worker
tid:    10  10  10  11     11
time:   100 200 300 400    500
period: 100 250 100 400    50
main             main             main  main  start
a                a                b     a     run
x[lib:libc.so.6] x[lib:libc.so.6] b
";

#[test]
fn one_event_totals_stacks_and_threads() {
    if !python_ready("one_event_totals_stacks_and_threads") {
        return;
    }
    let p = profile_from_text_samples(ONE_EVENT).unwrap();
    let clock = ClockDataSummary {
        clockid: 1,
        clockid_name: None,
        tod_ns: 1_700_000_000_000_000_000,
        clockid_ns: 2,
    };
    let v = decode(
        &p,
        &PprofOptions {
            clock_data: Some(clock),
            ..Default::default()
        },
        "one",
    );
    assert_eq!(
        v["sample_types"],
        serde_json::json!([["samples", "count"], ["cycles", "count"]])
    );
    // Totals: 5 samples, periods 100+250+100+400+50.
    assert_eq!(v["totals"], serde_json::json!([5, 900]));
    assert_eq!(
        column(&v, 0),
        folded(&p, &SampleFilter::all(), WeightKind::Samples)
    );
    assert_eq!(
        column(&v, 1),
        folded(&p, &SampleFilter::all(), WeightKind::Period)
    );
    assert_eq!(column(&v, 1)["main;a;x"], 350);
    // Times 100..500: duration 400 ns, start = tod + 100 - clockid.
    assert_eq!(v["duration_nanos"], 400);
    assert_eq!(v["time_nanos"], 1_700_000_000_000_000_000u64 + 100 - 2);
    assert_eq!(v["default_sample_type"], "cycles");
    assert_eq!(v["period_type"], serde_json::json!(["cycles", "count"]));
    assert_eq!(v["period"], 180); // 900 / 5
    assert_eq!(
        v["threads"],
        serde_json::json!({"app/1/10": [3, 450], "worker/1/11": [2, 450]})
    );
    assert_eq!(v["mappings"], serde_json::json!([["libc.so.6", "", true]]));
    // One pprof sample per (stack, thread): the two main;a;x columns merge.
    assert_eq!(v["samples"], 4);

    let v = decode(
        &p,
        &PprofOptions {
            thread_labels: false,
            ..Default::default()
        },
        "nolabels",
    );
    assert_eq!(v["threads"], serde_json::json!({"//": [5, 900]}));
    assert_eq!(v["time_nanos"], 0);
}

#[test]
fn two_events_get_two_columns_each() {
    if !python_ready("two_events_get_two_columns_each") {
        return;
    }
    let p = profile_from_text_samples(
        "
event:  cpu-clock:pppH cycles:u cpu-clock:pppH cycles:u
period: 250000         1000     250000         3000
main    main           main     main
a       a              b        b
",
    )
    .unwrap();
    let v = decode(&p, &PprofOptions::default(), "two");
    assert_eq!(
        v["sample_types"],
        serde_json::json!([
            ["cpu-clock_samples", "count"],
            ["cpu-clock", "nanoseconds"],
            ["cycles_samples", "count"],
            ["cycles", "count"]
        ])
    );
    assert_eq!(v["totals"], serde_json::json!([2, 500000, 2, 4000]));
    for (ev, col) in [(0u32, 0usize), (1, 2)] {
        let f = SampleFilter {
            events: vec![perfscope_analysis::ids::EventIndex(ev)],
            ..Default::default()
        };
        assert_eq!(column(&v, col), folded(&p, &f, WeightKind::Samples));
        assert_eq!(column(&v, col + 1), folded(&p, &f, WeightKind::Period));
    }
}

#[test]
fn inlined_frames_decode_as_lines_of_one_location() {
    if !python_ready("inlined_frames_decode_as_lines_of_one_location") {
        return;
    }
    let mut p = profile_from_text_samples("main\n").unwrap();
    let m = p
        .intern_module("/usr/bin/app", Some(&[0xab, 0xcd]))
        .unwrap();
    let outer = p.intern_func("outer", Some(m)).unwrap();
    let inner = p.intern_func("inner", Some(m)).unwrap();
    let f0 = p.intern_frame(outer, Some(m), 0x1010, 0).unwrap();
    let f1 = p.intern_frame(inner, Some(m), 0x1010, 1).unwrap();
    let root = p.intern_frame(outer, Some(m), 0x1000, 0).unwrap();
    let stack = p.stacks.intern_path(&[root, f0, f1]).unwrap();
    let mut s = p.samples.get(0).unwrap();
    s.stack = stack;
    p.push_sample(s).unwrap();
    let v = decode(&p, &PprofOptions::default(), "inline");
    assert_eq!(
        column(&v, 0),
        folded(&p, &SampleFilter::all(), WeightKind::Samples)
    );
    assert!(v["folded"].get("outer;outer;inner").is_some(), "{v}");
    // main (DSL frame, no module), outer@0x1000, outer+inner@0x1010.
    assert_eq!(v["locations"], 3);
    assert_eq!(
        v["mappings"],
        serde_json::json!([["/usr/bin/app", "abcd", true]])
    );
}
