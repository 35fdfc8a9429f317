//! Flame-graph layout from a top-down [`CallTree`], and deterministic colors.
//!
//! As in FlameGraph.pl and inferno, siblings are ordered by name and packed from their parent's
//! left edge; the parent's self weight is the empty space on the right. Positions and widths are
//! in weight units (samples or period), so drawing code scales them to pixels. Colors are hashed
//! from the function name with FlameGraph.pl's `namehash` (inferno's `--hash`), so a function has
//! the same color in every graph.

use crate::call_tree::{CallTree, Weight};
use crate::ids::{CallNodeIndex, FuncIndex};
use crate::profile::Profile;

/// Which weight the widths measure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WeightKind {
    /// Number of samples.
    #[default]
    Samples,
    /// Sum of periods (event counts, ns for cpu-clock).
    Period,
}

impl WeightKind {
    /// The chosen component of a weight.
    pub fn of(self, w: Weight) -> u64 {
        match self {
            WeightKind::Samples => w.samples,
            WeightKind::Period => w.period,
        }
    }
}

/// One box of the flame graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlameRect {
    /// The call-tree node drawn.
    pub node: CallNodeIndex,
    /// Its function.
    pub func: FuncIndex,
    /// Stack depth, 0 for roots.
    pub depth: u32,
    /// Left edge, in weight units from the left of the graph.
    pub x: u64,
    /// Width in weight units (the node's total).
    pub width: u64,
    /// The node's self weight.
    pub self_width: u64,
}

/// A laid-out flame graph: boxes in depth-first order (a parent before its children).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FlameGraph {
    /// The boxes.
    pub rects: Vec<FlameRect>,
    /// Total width in weight units (sum of the roots).
    pub total: u64,
    /// Number of rows (max depth + 1), 0 when empty.
    pub depth: u32,
}

impl FlameGraph {
    /// Lays out a top-down call tree. Nodes with zero weight are left out.
    pub fn from_call_tree(tree: &CallTree, profile: &Profile, kind: WeightKind) -> Self {
        let mut graph = FlameGraph::default();
        let by_name = |nodes: &[CallNodeIndex]| {
            let mut v: Vec<CallNodeIndex> = nodes.to_vec();
            v.sort_by(|&a, &b| {
                let na = tree.node(a).map_or("", |n| profile.func_name(n.func));
                let nb = tree.node(b).map_or("", |n| profile.func_name(n.func));
                na.cmp(nb).then(a.cmp(&b))
            });
            v
        };
        // (node, x) to visit; pushed in reverse so the leftmost comes out first.
        let mut todo: Vec<(CallNodeIndex, u64)> = Vec::new();
        let mut x = 0u64;
        let mut roots = Vec::new();
        for r in by_name(tree.roots()) {
            roots.push((r, x));
            x = x.saturating_add(tree.node(r).map_or(0, |n| kind.of(n.total)));
        }
        graph.total = x;
        todo.extend(roots.into_iter().rev());
        while let Some((i, x)) = todo.pop() {
            let Some(n) = tree.node(i) else { continue };
            let width = kind.of(n.total);
            if width == 0 {
                continue;
            }
            graph.rects.push(FlameRect {
                node: i,
                func: n.func,
                depth: n.depth,
                x,
                width,
                self_width: kind.of(n.self_weight),
            });
            graph.depth = graph.depth.max(n.depth + 1);
            let mut cx = x;
            let mut kids = Vec::new();
            for c in by_name(&n.children) {
                kids.push((c, cx));
                cx = cx.saturating_add(tree.node(c).map_or(0, |n| kind.of(n.total)));
            }
            todo.extend(kids.into_iter().rev());
        }
        graph
    }

    /// The box at depth `depth` covering weight position `x`, if any.
    pub fn hit_test(&self, x: u64, depth: u32) -> Option<&FlameRect> {
        self.rects
            .iter()
            .find(|r| r.depth == depth && x >= r.x && x - r.x < r.width)
    }
}

/// FlameGraph.pl's `namehash`: a value in [0, 1] from the first three characters, weighting
/// early characters more. A `module`` ` prefix is dropped first.
pub fn name_hash(name: &str) -> f64 {
    let name = match name.find('`') {
        Some(pos) if pos > 0 => name.get(pos + 1..).unwrap_or(name),
        _ => name,
    };
    let (mut vector, mut weight, mut max, mut modulo) = (0.0f64, 1.0f64, 1.0f64, 10u32);
    for c in name.chars() {
        let i = u32::from(c) % modulo;
        vector += (f64::from(i) / f64::from(modulo - 1)) * weight;
        modulo += 1;
        max += weight;
        weight *= 0.70;
        if modulo > 12 {
            break;
        }
    }
    1.0 - vector / max
}

/// The "hot" palette color of a function name, hashed as FlameGraph.pl `--hash` and inferno do:
/// `rgb(205 + 50·h(rev), 230·h(name), 55·h(rev))`.
pub fn hot_color(name: &str) -> (u8, u8, u8) {
    let v1 = name_hash(name);
    let reversed: String = name.chars().rev().collect();
    let v2 = name_hash(&reversed);
    // Truncation toward zero as Perl's int(); the values are within u8 by construction.
    let r = 205 + (50.0 * v2) as u8;
    let g = (230.0 * v1) as u8;
    let b = (55.0 * v2) as u8;
    (r, g, b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples::SampleFilter;
    use crate::text_samples::profile_from_text_samples;

    #[test]
    fn layout_orders_siblings_by_name_from_the_parent_left_edge() {
        // Widths by hand: main=5 (self 1), main;zeta=2, main;alpha=2 (alpha;x=1), other=1.
        let p = profile_from_text_samples(
            "
main main  main  main  main other
zeta alpha zeta  alpha
     x
",
        )
        .unwrap();
        let t = CallTree::top_down(&p, &SampleFilter::all()).unwrap();
        let g = FlameGraph::from_call_tree(&t, &p, WeightKind::Samples);
        let got: Vec<_> = g
            .rects
            .iter()
            .map(|r| (p.func_name(r.func), r.depth, r.x, r.width, r.self_width))
            .collect();
        assert_eq!(
            got,
            vec![
                ("main", 0, 0, 5, 1),
                ("alpha", 1, 0, 2, 1),
                ("x", 2, 0, 1, 1),
                ("zeta", 1, 2, 2, 2),
                ("other", 0, 5, 1, 1),
            ]
        );
        assert_eq!((g.total, g.depth), (6, 3));
        assert_eq!(g.hit_test(3, 1).map(|r| p.func_name(r.func)), Some("zeta"));
        assert_eq!(g.hit_test(4, 1), None); // main's self area
    }

    #[test]
    fn period_widths() {
        let p = profile_from_text_samples("period: 3 4\nA A\nB\n").unwrap();
        let t = CallTree::top_down(&p, &SampleFilter::all()).unwrap();
        let g = FlameGraph::from_call_tree(&t, &p, WeightKind::Period);
        assert_eq!(
            g.rects.iter().map(|r| (r.x, r.width)).collect::<Vec<_>>(),
            vec![(0, 7), (0, 3)]
        );
    }

    #[test]
    fn colors_follow_flamegraph_pl_namehash() {
        // By hand: "leaf" -> l%10=8, e%11=2, a%12=1: v = 8/9 + 0.7*2/10 + 0.49*1/11 = 1.073434,
        // max = 3.19, h = 0.663500; reversed "fael": 2/9 + 0.7*9/10 + 0.49*5/11 = 1.074949,
        // h = 0.663025. rgb = (205 + int(33.15), int(152.6), int(36.47)).
        assert!(
            (name_hash("leaf") - 0.663_500).abs() < 1e-6,
            "{}",
            name_hash("leaf")
        );
        assert_eq!(hot_color("leaf"), (238, 152, 36));
        assert_eq!(name_hash("libc.so.6`memcpy"), name_hash("memcpy"));
        assert_eq!(hot_color("x"), hot_color("x"));
    }
}
