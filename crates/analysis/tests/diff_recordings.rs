//! End to end: two recordings of the same program (`tests/data/diff`, see `record.sh`), the
//! second built with `compute_hash()` doing three times the work. The diff must show
//! compute_hash as the largest increase, by the amounts perf's own report gives.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod recording_common;

use perfscope_analysis::diff::{diff_flame_graph, function_diff, DiffOptions};
use perfscope_analysis::flame_graph::WeightKind;
use recording_common::{load, report};

#[test]
fn profiles_agree_with_perf_report() {
    for name in ["base", "slow"] {
        let p = load(name);
        let (total, syms) = report(name);
        assert_eq!(p.samples.len() as u64, total, "{name}");
        // perf report --no-children: self samples per symbol.
        let d = function_diff(&p, &p, &DiffOptions::default());
        for f in ["parse_input", "compute_hash", "write_output"] {
            let row = d.rows.iter().find(|r| r.name == f).unwrap();
            assert_eq!(
                (row.new_self * total as f64).round() as u64,
                syms[f].1,
                "{name} {f}"
            );
        }
        // The percentages are period-weighted.
        let d = function_diff(
            &p,
            &p,
            &DiffOptions {
                weight: WeightKind::Period,
                ..Default::default()
            },
        );
        for f in ["parse_input", "compute_hash", "write_output"] {
            let row = d.rows.iter().find(|r| r.name == f).unwrap();
            assert!(
                (row.new_self * 100.0 - syms[f].0).abs() < 0.006,
                "{name} {f}: {} vs {}",
                row.new_self * 100.0,
                syms[f].0
            );
        }
    }
}

#[test]
fn the_slowed_function_is_the_largest_increase() {
    let (base, slow) = (load("base"), load("slow"));
    let (bt, b) = report("base");
    let (st, s) = report("slow");
    let d = function_diff(&base, &slow, &DiffOptions::default());
    let top = d.largest_increase().unwrap();
    assert_eq!(top.name, "compute_hash");
    // It is also the largest change of all, ahead of the two phases that shrank.
    assert_eq!(d.rows[0].name, "compute_hash");
    let want = s["compute_hash"].1 as f64 / st as f64 - b["compute_hash"].1 as f64 / bt as f64;
    assert!(
        (top.self_delta() - want).abs() < 1e-12,
        "{} vs {want}",
        top.self_delta()
    );
    assert!(want > 0.2, "the recordings show the slowdown: {want}");
    for f in ["parse_input", "write_output"] {
        assert!(
            d.rows.iter().find(|r| r.name == f).unwrap().self_delta() < -0.05,
            "{f}"
        );
    }
    // main's total does not move: every sample of the program is under it in both.
    let main = d.rows.iter().find(|r| r.name == "main").unwrap();
    assert!(main.total_delta().abs() < 0.02, "{main:?}");

    // The differential flame graph: main;compute_hash is the reddest box.
    let g = diff_flame_graph(&base, &slow, &DiffOptions::default()).unwrap();
    let (i, _) = g
        .nodes
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.delta_self.total_cmp(&b.1.delta_self))
        .unwrap();
    let rect = g.graph.rects[i];
    assert_eq!(slow.func_name(rect.func), "compute_hash");
    let parent = g.tree.node(rect.node).unwrap().parent.unwrap();
    assert_eq!(slow.func_name(g.tree.node(parent).unwrap().func), "main");
    assert_eq!(g.color(i), (255, 0, 0));
    let shrank = g
        .graph
        .rects
        .iter()
        .position(|r| slow.func_name(r.func) == "parse_input")
        .unwrap();
    let (r, gr, bl) = g.color(shrank);
    assert!(bl == 255 && r == gr && r < 210, "{:?}", g.color(shrank));
}
