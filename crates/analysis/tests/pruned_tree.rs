//! The pruned flame layout (`pruned_tree`) against the full one (`CallTree` laid out by
//! `FlameGraph::from_call_tree`): without pruning the same nodes in the same order; with pruning
//! exactly the full layout's nodes at or above the threshold (plus the zoom path), each equal to
//! the full layout's node at its path, and elided weights that add up. On DSL stacks and on
//! every corpus recording (skipped with a message without `../shared` or `PERFSCOPE_SHARED`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use perfscope_analysis::chunked::Chunked;
use std::collections::{BTreeMap, BTreeSet};

use perfscope_analysis::builder::UnknownNames;
use perfscope_analysis::call_tree::{CallTree, Weight};
use perfscope_analysis::flame_graph::{FlameGraph, WeightKind};
use perfscope_analysis::ids::FuncIndex;
use perfscope_analysis::load::{load_profile, LoadOptions};
use perfscope_analysis::preview::{preview, Preview};
use perfscope_analysis::profile::Profile;
use perfscope_analysis::pruned_tree::{
    leaf_stacks, pruned_flame, pruned_flame_of, PruneOptions, PrunedFlame, StackChildren,
    StackWeights,
};
use perfscope_analysis::samples::SampleFilter;
use perfscope_analysis::text_samples::profile_from_text_samples;

/// A full-layout node: (func, depth, x, width, total, self).
type Full = (FuncIndex, u32, u64, u64, Weight, Weight);

/// The full layout in order, each node with its path of functions from the root.
fn full_layout(
    p: &Profile,
    filter: &SampleFilter,
    inverted: bool,
    kind: WeightKind,
) -> (Vec<(Vec<FuncIndex>, Full)>, FlameGraph) {
    let tree = if inverted {
        CallTree::inverted(p, filter)
    } else {
        CallTree::top_down(p, filter)
    }
    .unwrap();
    let graph = FlameGraph::from_call_tree(&tree, p, kind);
    let rows = graph
        .rects
        .iter()
        .map(|r| {
            let mut path = Vec::new();
            let mut cur = Some(r.node);
            while let Some(c) = cur {
                let n = tree.node(c).unwrap();
                path.push(n.func);
                cur = n.parent;
            }
            path.reverse();
            let n = tree.node(r.node).unwrap();
            (
                path,
                (r.func, r.depth, r.x, r.width, n.total, n.self_weight),
            )
        })
        .collect();
    (rows, graph)
}

fn pruned(
    p: &Profile,
    filter: &SampleFilter,
    inverted: bool,
    kind: WeightKind,
    detail: u64,
    root: &[FuncIndex],
) -> PrunedFlame {
    let children = StackChildren::new(p);
    let weights = StackWeights::new(p, filter);
    let opts = PruneOptions {
        inverted,
        kind,
        detail,
        root,
    };
    let out = pruned_flame(p, &children, &weights, opts);
    // Told the stacks the samples end in, the layout is the same (and so are the weights of
    // those samples picked by index).
    let kept: Vec<u32> = (0..p.samples.len())
        .filter(|&i| filter.matches(&p.samples, &p.threads, i))
        .map(|i| i as u32)
        .collect();
    let leaves = leaf_stacks(&p.samples, &kept);
    let picked = StackWeights::of_indices(p, &p.samples, &kept);
    assert_eq!(
        pruned_flame_of(p, &children, &picked, opts, Some(&leaves)),
        out,
        "told the leaves: {filter:?} inverted {inverted} {kind:?} detail {detail} root {root:?}"
    );
    out
}

fn as_full(f: &PrunedFlame, i: usize) -> Full {
    let n = &f.nodes[i];
    (n.func, n.depth, n.x, n.width, n.total, n.self_weight)
}

/// Every check of the module doc, for one (filter, direction, kind, detail, zoom root).
fn check(
    name: &str,
    p: &Profile,
    filter: &SampleFilter,
    inverted: bool,
    kind: WeightKind,
    detail: u64,
    root: &[FuncIndex],
) {
    let what = format!("{name}: inverted={inverted} {kind:?} detail={detail} root={root:?}");
    let (full, graph) = full_layout(p, filter, inverted, kind);
    let got = pruned(p, filter, inverted, kind, detail, root);
    assert_eq!(got.width, graph.total, "{what}: width");
    let tree_total = if inverted {
        CallTree::inverted(p, filter)
    } else {
        CallTree::top_down(p, filter)
    }
    .unwrap()
    .total();
    assert_eq!(got.total, tree_total, "{what}: total");
    // Node for node in the full layout's order, without pruning.
    if detail == u64::MAX && root.is_empty() {
        let rows: Vec<Full> = (0..got.nodes.len()).map(|i| as_full(&got, i)).collect();
        let want: Vec<Full> = full.iter().map(|r| r.1).collect();
        assert_eq!(rows, want, "{what}");
        assert_eq!(got.depth, graph.depth, "{what}: depth");
    }
    let by_path: BTreeMap<&[FuncIndex], Full> =
        full.iter().map(|(path, f)| (path.as_slice(), *f)).collect();
    // The expected set, from the full layout alone.
    let zoom_width = by_path.get(root).map(|f| f.3);
    let mut want: BTreeSet<Vec<FuncIndex>> = BTreeSet::new();
    for (path, f) in &full {
        let width = f.3;
        let global = u128::from(width) * u128::from(detail) >= u128::from(graph.total);
        let on_path = root.starts_with(path);
        let in_zoom = zoom_width.is_some_and(|z| {
            path.starts_with(root) && u128::from(width) * u128::from(detail) >= u128::from(z)
        });
        if width > 0 && (global || on_path || in_zoom) {
            want.insert(path.clone());
        }
    }
    let mut seen = BTreeSet::new();
    for i in 0..got.nodes.len() {
        let path = got.path(i);
        let full_node = by_path
            .get(path.as_slice())
            .unwrap_or_else(|| panic!("{what}: emitted {path:?} is not in the full tree"));
        assert_eq!(as_full(&got, i), *full_node, "{what}: node {path:?}");
        assert!(seen.insert(path), "{what}: emitted twice");
    }
    assert_eq!(seen, want, "{what}: emitted set");
    // Depth-first: a parent before its children.
    for (i, n) in got.nodes.iter().enumerate() {
        if let Some(parent) = n.parent {
            assert!((parent as usize) < i, "{what}: parent after child");
        }
    }
    // self + emitted children + elided = total, and the elided count.
    let mut kids: Vec<(Weight, u32)> = vec![(Weight::default(), 0); got.nodes.len()];
    for n in &got.nodes {
        if let Some(parent) = n.parent {
            let k = &mut kids[parent as usize];
            k.0.samples += n.total.samples;
            k.0.period += n.total.period;
            k.1 += 1;
        }
    }
    let mut full_children: BTreeMap<&[FuncIndex], u32> = BTreeMap::new();
    for (path, _) in &full {
        *full_children.entry(&path[..path.len() - 1]).or_default() += 1;
    }
    // The roots left out.
    let roots: Vec<_> = got.nodes.iter().filter(|n| n.parent.is_none()).collect();
    let full_roots: Vec<_> = full.iter().filter(|(p, _)| p.len() == 1).collect();
    if kind == WeightKind::Samples {
        assert_eq!(
            roots.len() as u32 + got.elided_root_count,
            full_roots.len() as u32,
            "{what}: roots"
        );
    }
    let root_sum = roots.iter().map(|n| n.total.samples).sum::<u64>() + got.elided_roots.samples;
    assert_eq!(root_sum, got.total.samples, "{what}: root samples");
    let mut full_child_weight: BTreeMap<&[FuncIndex], Weight> = BTreeMap::new();
    for (path, f) in &full {
        let w = full_child_weight
            .entry(&path[..path.len() - 1])
            .or_default();
        w.samples += f.4.samples;
        w.period += f.4.period;
    }
    for (i, n) in got.nodes.iter().enumerate() {
        if !inverted {
            let sum = n.self_weight.samples + kids[i].0.samples + n.elided.samples;
            assert_eq!(sum, n.total.samples, "{what}: samples of {:?}", got.path(i));
            let sum = n.self_weight.period + kids[i].0.period + n.elided.period;
            assert_eq!(sum, n.total.period, "{what}: period of {:?}", got.path(i));
        }
        if kind == WeightKind::Samples {
            // Emitted and elided children are all the full layout's children.
            let w = full_child_weight
                .get(got.path(i).as_slice())
                .copied()
                .unwrap_or_default();
            let sum = Weight {
                samples: kids[i].0.samples + n.elided.samples,
                period: kids[i].0.period + n.elided.period,
            };
            assert_eq!(sum, w, "{what}: children of {:?}", got.path(i));
        }
        let full_children = full_children
            .get(got.path(i).as_slice())
            .copied()
            .unwrap_or(0);
        if kind == WeightKind::Samples {
            // (With periods a zero-period child has no box in the full layout either.)
            assert_eq!(
                kids[i].1 + n.elided_count,
                full_children,
                "{what}: children of {:?}",
                got.path(i)
            );
        }
    }
}

/// Zoom roots worth trying: the widest node that is elided at `detail` and has children, and
/// a node that is not elided, with depth ≥ 1.
fn zoom_roots(p: &Profile, inverted: bool, kind: WeightKind, detail: u64) -> Vec<Vec<FuncIndex>> {
    let (full, graph) = full_layout(p, &SampleFilter::all(), inverted, kind);
    let mut out = Vec::new();
    let parents: BTreeSet<&[FuncIndex]> = full.iter().map(|(q, _)| &q[..q.len() - 1]).collect();
    let has_children = |path: &Vec<FuncIndex>| parents.contains(path.as_slice());
    let elided = full
        .iter()
        .filter(|(path, f)| {
            u128::from(f.3) * u128::from(detail) < u128::from(graph.total) && has_children(path)
        })
        .max_by_key(|(_, f)| f.3);
    out.extend(elided.map(|(path, _)| path.clone()));
    let kept = full.iter().find(|(path, f)| {
        f.1 >= 1
            && u128::from(f.3) * u128::from(detail) >= u128::from(graph.total)
            && has_children(path)
    });
    out.extend(kept.map(|(path, _)| path.clone()));
    out
}

/// The children index's name ranks against the byte order of the functions' names (`str`'s
/// sort): equal names equal ranks, the empty name 0. Whether most names are offset names
/// (`module+0x…` or `0x…`: the ranks' block path).
fn check_name_ranks(name: &str, p: &Profile) -> bool {
    let children = StackChildren::new(p);
    let names: Vec<&str> = (0..p.funcs.len() as u32)
        .map(|f| p.func_name(FuncIndex(f)))
        .collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    sorted.dedup();
    let first = u32::from(sorted.first().is_some_and(|n| !n.is_empty()));
    for (f, n) in names.iter().enumerate() {
        let want = sorted.binary_search(n).unwrap() as u32 + first;
        assert_eq!(
            children.name_rank(f as u32),
            want,
            "{name}: function {f} {n:?}"
        );
    }
    let offset = names
        .iter()
        .filter(|n| n.starts_with("0x") || n.contains("+0x"))
        .count();
    offset * 2 > names.len()
}

fn check_all(name: &str, p: &Profile) {
    check_preview(name, p);
    for inverted in [false, true] {
        for kind in [WeightKind::Samples, WeightKind::Period] {
            check(name, p, &SampleFilter::all(), inverted, kind, u64::MAX, &[]);
            for detail in [1, 20, 500] {
                check(name, p, &SampleFilter::all(), inverted, kind, detail, &[]);
                for root in zoom_roots(p, inverted, kind, detail) {
                    check(name, p, &SampleFilter::all(), inverted, kind, detail, &root);
                }
            }
        }
    }
    // A time filter: the first half of the samples' times.
    if let (Some(lo), Some(hi)) = (
        p.samples.times().iter().min(),
        p.samples.times().iter().max(),
    ) {
        let filter = SampleFilter {
            time_range: Some((lo, lo + (hi - lo) / 2 + 1)),
            ..SampleFilter::all()
        };
        check(name, p, &filter, false, WeightKind::Samples, u64::MAX, &[]);
        check(name, p, &filter, true, WeightKind::Period, 20, &[]);
        // A narrow one (a 40th of the time, in the middle): few samples for many stacks, whose
        // totals are added up along their chains rather than in a pass over every stack.
        let mid = lo + (hi - lo) / 2;
        let filter = SampleFilter {
            time_range: Some((mid, mid + (hi - lo) / 40 + 1)),
            ..SampleFilter::all()
        };
        check(name, p, &filter, false, WeightKind::Period, u64::MAX, &[]);
        check(name, p, &filter, false, WeightKind::Samples, 20, &[]);
    }
}

const CASES: &[&str] = &[
    "
A  A  A  A
B  B  C  B
C  D     C
",
    "
main main  main  main  main other
zeta alpha zeta  alpha
     x
",
    // Recursion, and the same name in two modules (ties go to creation order).
    "
period: 5 1 7 2 3 1 9
A      A      A      B   A           A     A
B      A      A      A   f[lib:one]  f     f[lib:one]
A      A      B      f   g           g     h
f[lib:two] B  f      g
",
    // The same period for the first samples (the first half of the time: one period for all),
    // then others: the weights switch to a period per stack midway.
    "
period: 3 3 3 3 8 3 5
A       A A B A A B
B       C B C C B
C         D   D
",
];

/// The preview of every sample is the full layout of its event's samples node for node; pruned,
/// the nodes at or above the threshold, in the same order.
fn check_preview(name: &str, p: &Profile) {
    let all = preview(p, usize::MAX, u64::MAX);
    let filter = SampleFilter {
        events: all.event.into_iter().collect(),
        ..SampleFilter::all()
    };
    let (full, graph) = full_layout(p, &filter, false, WeightKind::Samples);
    let want: Vec<(FuncIndex, u32, u64, u64)> =
        full.iter().map(|(_, f)| (f.0, f.1, f.2, f.3)).collect();
    let rows = |v: &Preview| -> Vec<(FuncIndex, u32, u64, u64)> {
        v.nodes
            .iter()
            .map(|n| (n.func, n.depth, n.x, n.width))
            .collect()
    };
    assert_eq!(all.taken, graph.total, "{name}: preview width");
    assert_eq!((all.seen, all.step), (all.taken, 1), "{name}");
    assert_eq!(rows(&all), want, "{name}: preview of every sample");
    for n in &all.nodes {
        let parent = n.parent.map(|i| all.nodes[i as usize]);
        assert_eq!(parent.map_or(0, |q| q.depth + 1), n.depth, "{name}: parent");
    }
    let pruned = preview(p, usize::MAX, 20);
    let kept: Vec<_> = want
        .iter()
        .filter(|r| r.3 * 20 >= all.taken)
        .copied()
        .collect();
    assert_eq!(rows(&pruned), kept, "{name}: preview at detail 20");
    // At most a third of them: every `step`-th sample, `step` the smallest that allows it. With
    // one event, of every `step`-th sample those with a stack (the count of every sample
    // then); with several, every `step`-th of the event's samples with a stack.
    let most = all.taken.div_ceil(3);
    let third = preview(p, most as usize, u64::MAX);
    let n = p.samples.len();
    let (step, taken) = if p.events.len() <= 1 {
        let step = (n as u64).div_ceil(most.max(1)).max(1);
        let with_stack = (0..n).step_by(step as usize);
        let with_stack = with_stack.filter(|&i| p.samples.stack(i).flatten().is_some());
        (step, with_stack.count() as u64)
    } else {
        let step = all.taken.div_ceil(most.max(1)).max(1);
        (step, all.taken.div_ceil(step))
    };
    assert_eq!((third.step, third.seen), (step, all.taken), "{name}");
    assert_eq!(third.taken, taken, "{name}");
    assert!(third.taken <= most, "{name}: within the budget");
    let roots: u64 = third
        .nodes
        .iter()
        .filter(|n| n.depth == 0)
        .map(|n| n.width)
        .sum();
    assert!(roots <= third.taken, "{name}: roots within the width");
}

#[test]
fn dsl_cases_equal_the_full_layout() {
    for (i, text) in CASES.iter().enumerate() {
        let p = profile_from_text_samples(text).unwrap();
        check_all(&format!("case {i}"), &p);
    }
}

#[test]
fn pruning_by_hand() {
    // Widths 6: main=5 (alpha 2 (x 1), zeta 2, self 1), other=1. detail 3: width*3 >= 6 keeps
    // main, alpha, zeta; elides x (1) under alpha, and the root other (1).
    let p = profile_from_text_samples(CASES[1]).unwrap();
    let f = pruned(&p, &SampleFilter::all(), false, WeightKind::Samples, 3, &[]);
    let rows: Vec<_> = f
        .nodes
        .iter()
        .map(|n| {
            (
                p.func_name(n.func),
                n.x,
                n.width,
                n.elided.samples,
                n.elided_count,
            )
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            ("main", 0, 5, 0, 0),
            ("alpha", 0, 2, 1, 1),
            ("zeta", 2, 2, 0, 0)
        ]
    );
    // Zoomed to main;alpha (width 2): x (1) is wide enough against 2.
    let main = f.nodes[0].func;
    let alpha = f.nodes[1].func;
    let f = pruned(
        &p,
        &SampleFilter::all(),
        false,
        WeightKind::Samples,
        3,
        &[main, alpha],
    );
    let rows: Vec<_> = f
        .nodes
        .iter()
        .map(|n| (p.func_name(n.func), n.depth, n.x, n.width))
        .collect();
    assert_eq!(
        rows,
        vec![
            ("main", 0, 0, 5),
            ("alpha", 1, 0, 2),
            ("x", 2, 0, 1),
            ("zeta", 1, 2, 2)
        ]
    );
}

#[test]
fn matching_weight_counts_each_sample_once() {
    // Samples (period 1 each) whose stack has a function containing "a": A;B;C, A;B;D, A;C, A;B;C
    // all have A: 4. "c": A;B;C, A;C, A;B;C: 3.
    let p = profile_from_text_samples(CASES[0]).unwrap();
    let w = StackWeights::new(&p, &SampleFilter::all());
    let count = |text: &str| {
        w.matching(&p, |f| p.func_name(f).to_lowercase().contains(text))
            .samples
    };
    assert_eq!(
        (count("a"), count("c"), count("d"), count("zz")),
        (4, 3, 1, 0)
    );
}

#[test]
fn weights_keep_a_period_per_stack_only_when_periods_differ() {
    // 8 stacks (A, A;B, A;B;C, A;C, A;B;D, B;C, B, A;C;D); the first four samples have
    // period 3: the counts alone.
    let p = profile_from_text_samples(CASES[3]).unwrap();
    assert_eq!(p.stacks.len(), 8);
    let first_four = SampleFilter {
        time_range: Some((0, 4)),
        ..SampleFilter::all()
    };
    let w = StackWeights::new(&p, &first_four);
    // The counts alone: one column of 8 `u32`s (in one block).
    let counts = Chunked::from_elem(0u32, 8).heap_bytes();
    assert_eq!(
        counts,
        8 * 4 + Chunked::<u32>::from_elem(0, 0).heap_bytes() + 4 * std::mem::size_of::<Vec<u32>>()
    );
    // And a bit per stack for the stacks a sample ends in: one `u64`.
    assert_eq!(w.heap_bytes(), counts + 8);
    // A (the root's total): samples 0, 1, 2, period 3 each.
    assert_eq!(
        w.total(0),
        Weight {
            samples: 3,
            period: 9
        }
    );
    let w = StackWeights::new(&p, &SampleFilter::all());
    // And a column of 8 `u64` periods.
    assert_eq!(
        w.heap_bytes(),
        counts + 8 + (0..8u64).collect::<Chunked<u64>>().heap_bytes()
    );
    assert_eq!(
        (0..8u64).collect::<Chunked<u64>>().heap_bytes(),
        8 * 8 + 4 * std::mem::size_of::<Vec<u64>>()
    );
    // A: samples 0, 1, 2, 4, 5 with periods 3, 3, 3, 8, 3.
    assert_eq!(
        w.total(0),
        Weight {
            samples: 5,
            period: 20
        }
    );
}

#[test]
fn corpus_recordings_equal_the_full_layout() {
    let Some(root) = common::shared() else {
        println!("skipped: no ../shared corpus (set PERFSCOPE_SHARED)");
        return;
    };
    let (mut checked, mut offset_named) = (0, 0);
    for (path, _, _) in common::corpus_files(&root) {
        let bytes = common::read_input(&path);
        let options = LoadOptions {
            unknown_names: UnknownNames::ModuleOffset,
            ..LoadOptions::default()
        };
        let Ok((p, _)) = load_profile(&bytes, &[], options) else {
            continue;
        };
        if p.samples.is_empty() {
            continue;
        }
        check_all(&path.display().to_string(), &p);
        offset_named += usize::from(check_name_ranks(&path.display().to_string(), &p));
        checked += 1;
    }
    assert!(checked > 10, "only {checked} corpus recordings loaded");
    // Most recordings are named by module and offset here: the name order's block path.
    assert!(offset_named * 2 > checked, "{offset_named} of {checked}");
}
