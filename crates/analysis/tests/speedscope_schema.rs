//! The speedscope export validated against speedscope's `file-format-schema.json` with Python's
//! `jsonschema` (`tests/data/speedscope/check_speedscope.py`), and its stacks and weights
//! compared with the folded export. Skips with a message when `python3` with `jsonschema` is not
//! installed.
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
use perfscope_analysis::export::speedscope::{to_speedscope, SpeedscopeOptions};
use perfscope_analysis::flame_graph::WeightKind;
use perfscope_analysis::samples::SampleFilter;
use perfscope_analysis::text_samples::profile_from_text_samples;
use serde_json::{json, Value};

fn check(doc: &str, name: &str) -> Result<Value, String> {
    let dir =
        std::env::temp_dir().join(format!("perfscope-speedscope-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.speedscope.json"));
    std::fs::write(&path, doc).unwrap();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/speedscope/check_speedscope.py");
    let out = Command::new("python3")
        .arg(script)
        .arg(&path)
        .output()
        .unwrap();
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    Ok(serde_json::from_slice(&out.stdout).unwrap())
}

fn python_ready(test: &str) -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import jsonschema"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("{test}: skipped: needs python3 with `pip install jsonschema`");
    }
    ok
}

#[test]
fn export_matches_the_schema_and_the_folded_stacks() {
    if !python_ready("export_matches_the_schema_and_the_folded_stacks") {
        return;
    }
    let p = profile_from_text_samples(
        "
event:  cpu-clock:pppH cpu-clock:pppH cycles cpu-clock:pppH
tid:    1              2              1      1
comm:   app            worker         app    app
period: 250000         250000         3000   500000
main                   start          main   main
a[lib:/usr/lib/libc.so.6] run         a      b
",
    )
    .unwrap();
    let doc = to_speedscope(
        &p,
        &SpeedscopeOptions {
            name: "t.data".into(),
            ..Default::default()
        },
    );
    let v = check(&doc, "dsl").unwrap();
    assert_eq!(
        v["profiles"],
        json!([
            {"name": "app (1) — cpu-clock:pppH", "unit": "nanoseconds", "weight": 750000, "samples": 2},
            {"name": "app (1) — cycles", "unit": "none", "weight": 3000, "samples": 1},
            {"name": "worker (2) — cpu-clock:pppH", "unit": "nanoseconds", "weight": 250000, "samples": 1},
        ])
    );
    assert_eq!(v["active"], 0);
    // Two functions named `a` (one in libc, one without module) print the same.
    let mut ours: BTreeMap<String, u64> = BTreeMap::new();
    for (line, n) in folded_lines(
        &p,
        &SampleFilter::all(),
        FoldedOptions {
            include_comm: false,
            weight: WeightKind::Period,
        },
    ) {
        *ours.entry(line).or_default() += n;
    }
    assert_eq!(ours["main;a"], 253000);
    let theirs: BTreeMap<String, u64> = serde_json::from_value(v["folded"].clone()).unwrap();
    assert_eq!(theirs, ours);
}

#[test]
fn the_checker_rejects_a_broken_file() {
    if !python_ready("the_checker_rejects_a_broken_file") {
        return;
    }
    // The same document with a unit speedscope does not know: the schema must catch it.
    let p = profile_from_text_samples("main\n").unwrap();
    let doc = to_speedscope(&p, &SpeedscopeOptions::default())
        .replace("\"unit\":\"none\"", "\"unit\":\"cycles\"");
    let err = check(&doc, "broken").unwrap_err();
    assert!(err.starts_with("invalid speedscope file"), "{err}");
    assert!(check(
        &doc.replace("\"unit\":\"cycles\"", "\"unit\":\"none\""),
        "fixed"
    )
    .is_ok());
}
