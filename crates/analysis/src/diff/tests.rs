use super::*;
use crate::text_samples::profile_from_text_samples;

const BASE: &str = "
main main main main
a    a    b    b
";
const NEW: &str = "
main main main main main main main main main main
a    a    b    b    b    b    b    b    b
";

fn row<'a>(d: &'a FunctionDiff, name: &str) -> &'a FunctionDiffRow {
    d.rows.iter().find(|r| r.name == name).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn function_table_fractions_and_order() {
    let (b, n) = (
        profile_from_text_samples(BASE).unwrap(),
        profile_from_text_samples(NEW).unwrap(),
    );
    let d = function_diff(&b, &n, &DiffOptions::default());
    assert_eq!((d.base_total, d.new_total), (4, 10));
    // Base: a 2/4, b 2/4 self; new: a 2/10, b 7/10, main 1/10 self.
    assert_eq!(
        d.rows.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
        ["a", "b", "main"]
    );
    let a = row(&d, "a");
    assert!(close(a.base_self, 0.5) && close(a.new_self, 0.2) && close(a.self_delta(), -0.3));
    assert!(close(row(&d, "b").self_delta(), 0.2));
    let main = row(&d, "main");
    assert!(
        close(main.base_total, 1.0) && close(main.new_total, 1.0) && close(main.self_delta(), 0.1)
    );
    assert_eq!(d.largest_increase().unwrap().name, "b");
    // Sorted by total change: main's total does not change.
    let d = function_diff(
        &b,
        &n,
        &DiffOptions {
            sort: DiffSort::Total,
            ..Default::default()
        },
    );
    assert_eq!(
        d.rows.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
        ["a", "b", "main"]
    );
    assert!(close(row(&d, "main").total_delta(), 0.0));
}

#[test]
fn recursion_counts_once_in_total_and_periods_weigh() {
    let b = profile_from_text_samples("period: 1 3\nmain main\nf    g\nf\n").unwrap();
    let n = profile_from_text_samples("period: 3 1\nmain main\nf    g\nf\n").unwrap();
    let d = function_diff(&b, &n, &DiffOptions::default());
    let f = row(&d, "f");
    assert!(close(f.base_total, 0.5) && close(f.base_self, 0.5)); // one of two samples, not 2/2
    assert!(close(f.self_delta(), 0.0));
    let d = function_diff(
        &b,
        &n,
        &DiffOptions {
            weight: WeightKind::Period,
            ..Default::default()
        },
    );
    let f = row(&d, "f");
    assert!(close(f.base_self, 0.25) && close(f.new_self, 0.75));
    assert_eq!(d.largest_increase().unwrap().name, "f");
}

#[test]
fn differential_flame_graph_deltas_and_colors() {
    let (b, n) = (
        profile_from_text_samples(BASE).unwrap(),
        profile_from_text_samples(NEW).unwrap(),
    );
    let g = diff_flame_graph(&b, &n, &DiffOptions::default()).unwrap();
    assert!(close(g.scale, 2.5));
    let names: Vec<&str> = g.graph.rects.iter().map(|r| n.func_name(r.func)).collect();
    assert_eq!(names, ["main", "a", "b"]);
    // main: self 1 vs 0, total 10 vs 4 * 2.5; a: 2 vs 2 * 2.5; b: 7 vs 2 * 2.5.
    let want = [
        (0.0, 10.0, 1.0, 0.0),
        (5.0, 5.0, -3.0, -3.0),
        (5.0, 5.0, 2.0, 2.0),
    ];
    for (node, w) in g.nodes.iter().zip(want) {
        assert!(
            close(node.base_self, w.0)
                && close(node.base_total, w.1)
                && close(node.delta_self, w.2)
                && close(node.delta_total, w.3),
            "{node:?} {w:?}"
        );
    }
    assert!(close(g.max_abs_delta, 3.0));
    // FlameGraph.pl: int(210 * (3 - |d|) / 3).
    assert_eq!(g.color(0), (255, 140, 140));
    assert_eq!(g.color(1), (0, 0, 255));
    assert_eq!(g.color(2), (255, 70, 70));
    assert_eq!(diff_color(0.0, 3.0), (255, 255, 255));
}

#[test]
fn paths_match_by_names_from_the_root() {
    let b = profile_from_text_samples("main\na\nx\n").unwrap();
    let n = profile_from_text_samples("main\nb\nx\n").unwrap();
    let g = diff_flame_graph(&b, &n, &DiffOptions::default()).unwrap();
    let x = g
        .graph
        .rects
        .iter()
        .position(|r| n.func_name(r.func) == "x")
        .unwrap();
    // main;b;x does not exist in the base: all of it is new.
    assert_eq!(
        g.nodes[x],
        DiffNode {
            base_self: 0.0,
            base_total: 0.0,
            delta_self: 1.0,
            delta_total: 1.0
        }
    );
    assert_eq!(
        g.nodes[0],
        DiffNode {
            base_self: 0.0,
            base_total: 1.0,
            delta_self: 0.0,
            delta_total: 0.0
        }
    );
    // The function table matches x by name: unchanged.
    let d = function_diff(&b, &n, &DiffOptions::default());
    assert!(close(row(&d, "x").self_delta(), 0.0));
    assert!(close(row(&d, "a").total_delta(), -1.0) && close(row(&d, "b").total_delta(), 1.0));
}
