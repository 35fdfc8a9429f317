#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
//! Call trees from the text DSL of stacks (one column per sample, root on top). Expected trees
//! are worked out by hand from the columns.

use perfscope_analysis::call_tree::{CallTree, Weight};
use perfscope_analysis::ids::EventIndex;
use perfscope_analysis::samples::SampleFilter;
use perfscope_analysis::text_samples::profile_from_text_samples;

const BASIC: &str = "
A  A  A  A
B  B  C  B
C  D     C
";

#[test]
fn top_down_self_and_total() {
    let p = profile_from_text_samples(BASIC).unwrap();
    let t = CallTree::top_down(&p, &SampleFilter::all()).unwrap();
    assert_eq!(
        t.to_text(&p),
        "A total=4 self=0\n  B total=3 self=0\n    C total=2 self=2\n    D total=1 self=1\n  C total=1 self=1\n"
    );
    assert_eq!(
        t.total(),
        Weight {
            samples: 4,
            period: 4
        }
    );
    assert!(!t.is_inverted());
}

#[test]
fn inverted_tree_roots_are_leaf_functions() {
    let p = profile_from_text_samples(BASIC).unwrap();
    let t = CallTree::inverted(&p, &SampleFilter::all()).unwrap();
    // Leaves: C (A;B;C twice, A;C once), D (A;B;D).
    assert_eq!(
        t.to_text(&p),
        "C total=3 self=3\n  B total=2 self=0\n    A total=2 self=0\n  A total=1 self=0\nD total=1 self=1\n  B total=1 self=0\n    A total=1 self=0\n"
    );
    assert!(t.is_inverted());
}

#[test]
fn same_function_different_modules_are_different_nodes() {
    let p = profile_from_text_samples(
        "
A             A
f[lib:liba]   f[lib:libb]
",
    )
    .unwrap();
    let t = CallTree::top_down(&p, &SampleFilter::all()).unwrap();
    let a = t.node(t.roots()[0]).unwrap();
    assert_eq!(a.children.len(), 2);
}

#[test]
fn recursion_stays_on_the_path() {
    let p = profile_from_text_samples(
        "
A  A
B  B
A  A
B  C
",
    )
    .unwrap();
    let t = CallTree::top_down(&p, &SampleFilter::all()).unwrap();
    assert_eq!(
        t.to_text(&p),
        "A total=2 self=0\n  B total=2 self=0\n    A total=2 self=0\n      B total=1 self=1\n      C total=1 self=1\n"
    );
    let inv = CallTree::inverted(&p, &SampleFilter::all()).unwrap();
    let b = inv.find_path(&p, &["B", "A", "B", "A"]).unwrap();
    assert_eq!(inv.node(b).unwrap().total.samples, 1);
}

const ATTRS: &str = "
time:   0  10 20 30 40
pid:    1  1  1  2  2
tid:    1  2  2  3  3
cpu:    0  1  0  1  1
period: 5  7  11 13 17
event:  cycles cycles faults cycles faults
A  A  A  X  X
B  C  B  Y  Y
";

#[test]
fn weights_are_sample_count_and_period() {
    let p = profile_from_text_samples(ATTRS).unwrap();
    let t = CallTree::top_down(&p, &SampleFilter::all()).unwrap();
    let ab = t.find_path(&p, &["A", "B"]).unwrap();
    assert_eq!(
        t.node(ab).unwrap().self_weight,
        Weight {
            samples: 2,
            period: 16
        }
    );
    let x = t.find_path(&p, &["X"]).unwrap();
    assert_eq!(
        t.node(x).unwrap().total,
        Weight {
            samples: 2,
            period: 30
        }
    );
    assert_eq!(
        t.total(),
        Weight {
            samples: 5,
            period: 53
        }
    );
}

#[test]
fn filters_by_time_pid_tid_cpu_and_event() {
    let p = profile_from_text_samples(ATTRS).unwrap();
    let text = |f: SampleFilter| CallTree::top_down(&p, &f).unwrap().to_text(&p);
    // [10, 30): samples 1 and 2
    assert_eq!(
        text(SampleFilter {
            time_range: Some((10, 30)),
            ..Default::default()
        }),
        "A total=2 self=0\n  B total=1 self=1\n  C total=1 self=1\n"
    );
    assert_eq!(
        text(SampleFilter {
            pids: vec![2],
            ..Default::default()
        }),
        "X total=2 self=0\n  Y total=2 self=2\n"
    );
    assert_eq!(
        text(SampleFilter {
            tids: vec![2],
            ..Default::default()
        }),
        "A total=2 self=0\n  B total=1 self=1\n  C total=1 self=1\n"
    );
    assert_eq!(
        text(SampleFilter {
            cpus: vec![0],
            ..Default::default()
        }),
        "A total=2 self=0\n  B total=2 self=2\n"
    );
    // event 1 = faults (second distinct event name)
    assert_eq!(p.event_name(EventIndex(1)), "faults");
    assert_eq!(
        text(SampleFilter {
            events: vec![EventIndex(1)],
            ..Default::default()
        }),
        "A total=1 self=0\n  B total=1 self=1\nX total=1 self=0\n  Y total=1 self=1\n"
    );
    // combined: pid 1 and cpu 1 -> only sample 1 (A;C)
    assert_eq!(
        text(SampleFilter {
            pids: vec![1],
            cpus: vec![1],
            ..Default::default()
        }),
        "A total=1 self=0\n  C total=1 self=1\n"
    );
    // nothing passes: an empty tree
    assert_eq!(
        text(SampleFilter {
            tids: vec![99],
            ..Default::default()
        }),
        ""
    );
    let inv = CallTree::inverted(
        &p,
        &SampleFilter {
            time_range: Some((0, 25)),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(
        inv.to_text(&p),
        "B total=2 self=2\n  A total=2 self=0\nC total=1 self=1\n  A total=1 self=0\n"
    );
}

#[test]
fn dsl_errors_name_the_problem() {
    assert_eq!(
        profile_from_text_samples("time: 1 2\nA B C\n").unwrap_err(),
        "time: 2 values for 3 samples"
    );
    assert_eq!(
        profile_from_text_samples("A  B\n   C\nD\n").unwrap_err(),
        "frame row 2: column 0 has a gap above \"D\""
    );
}
