//! Comparing two profiles of the same program, a *base* and a *new* one.
//!
//! - [`function_diff`]: every function's self and total weight in both, each as a fraction of
//!   its profile's total (so recordings of different lengths compare), sorted by how much it
//!   changed. Functions are matched by name: the two recordings may come from different builds
//!   at different paths.
//! - [`diff_flame_graph`]: the new profile's flame graph with, on every box, the base
//!   profile's weight for the same call path (matched by function names from the root) scaled
//!   to the new profile's total, and the difference. Colors follow FlameGraph's
//!   `difffolded.pl -n` + `flamegraph.pl`: the base is normalized to the new total, a box is
//!   colored by the change of its *self* weight, red when it grew and blue when it shrank, the
//!   most changed box fully saturated, an unchanged one white. Call paths that exist only in
//!   the base have no box (they are in the function table).

use std::collections::HashMap;

use rustc_hash::FxHashMap;

use crate::call_tree::{key_weights, stack_self_weights, CallTree, Weight};
use crate::flame_graph::{FlameGraph, WeightKind};
use crate::ids::{CapacityError, FuncIndex};
use crate::profile::Profile;
use crate::samples::SampleFilter;

/// Which change to sort the function table by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DiffSort {
    /// The change of the self fraction.
    #[default]
    SelfWeight,
    /// The change of the total fraction.
    Total,
}

/// Options for [`function_diff`] and [`diff_flame_graph`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DiffOptions {
    /// Samples of the base profile to use.
    pub base_filter: SampleFilter,
    /// Samples of the new profile to use.
    pub new_filter: SampleFilter,
    /// Count samples or sum periods.
    pub weight: WeightKind,
    /// Sort order of [`function_diff`]'s rows.
    pub sort: DiffSort,
}

/// One function in both profiles. Fractions are of the profile's total weight (0..=1).
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDiffRow {
    /// The function name.
    pub name: String,
    /// Self fraction in the base.
    pub base_self: f64,
    /// Total fraction in the base (samples with the function anywhere on the stack, once each).
    pub base_total: f64,
    /// Self fraction in the new profile.
    pub new_self: f64,
    /// Total fraction in the new profile.
    pub new_total: f64,
}

impl FunctionDiffRow {
    /// `new_self - base_self`.
    pub fn self_delta(&self) -> f64 {
        self.new_self - self.base_self
    }

    /// `new_total - base_total`.
    pub fn total_delta(&self) -> f64 {
        self.new_total - self.base_total
    }
}

/// The function table of a comparison.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FunctionDiff {
    /// The functions, largest absolute change first (then by name).
    pub rows: Vec<FunctionDiffRow>,
    /// The base profile's total weight (samples that passed the filter, with or without frames).
    pub base_total: u64,
    /// The new profile's total weight.
    pub new_total: u64,
}

impl FunctionDiff {
    /// The row whose self fraction grew most, if any grew.
    pub fn largest_increase(&self) -> Option<&FunctionDiffRow> {
        self.rows
            .iter()
            .filter(|r| r.self_delta() > 0.0)
            .max_by(|a, b| a.self_delta().total_cmp(&b.self_delta()))
    }
}

/// Self and total weight per function name, and the profile's total.
fn function_weights(
    profile: &Profile,
    filter: &SampleFilter,
    kind: WeightKind,
) -> (HashMap<String, (u64, u64)>, u64) {
    // Each function's name as a number (functions of one name in different modules are one
    // row; a frame without a function is ""), the key its frames are counted by.
    let mut ids: FxHashMap<&str, usize> = FxHashMap::default();
    let mut names: Vec<&str> = Vec::new();
    let mut id_of = |name| {
        *ids.entry(name).or_insert_with(|| {
            names.push(name);
            names.len() - 1
        })
    };
    let nameless = id_of("");
    let name_of_func: Vec<usize> = (0..profile.funcs.len())
        .map(|i| FuncIndex::from_len(i).map_or(nameless, |f| id_of(profile.func_name(f))))
        .collect();
    let k = key_weights(
        profile,
        filter,
        names.len(),
        |frame| {
            Some(
                profile
                    .frame_func(frame)
                    .and_then(|f| name_of_func.get(f.index()).copied())
                    .unwrap_or(nameless),
            )
        },
        |w| kind.of(w) != 0,
    );
    let out = names
        .iter()
        .zip(k.self_weight.iter().zip(&k.total))
        .zip(&k.present)
        .filter(|&(_, &present)| present)
        .map(|((name, (&own, &all)), _)| ((*name).to_owned(), (kind.of(own), kind.of(all))))
        .collect();
    (out, kind.of(k.grand))
}

fn fraction(part: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        part as f64 / total as f64
    }
}

/// Every function of either profile with its self and total fraction in both, sorted by the
/// absolute change ([`DiffOptions::sort`]), largest first.
pub fn function_diff(base: &Profile, new: &Profile, options: &DiffOptions) -> FunctionDiff {
    let (b, base_total) = function_weights(base, &options.base_filter, options.weight);
    let (n, new_total) = function_weights(new, &options.new_filter, options.weight);
    let mut names: Vec<&String> = b.keys().chain(n.keys()).collect();
    names.sort();
    names.dedup();
    let mut rows: Vec<FunctionDiffRow> = names
        .into_iter()
        .map(|name| {
            let (bs, bt) = b.get(name).copied().unwrap_or_default();
            let (ns, nt) = n.get(name).copied().unwrap_or_default();
            FunctionDiffRow {
                name: name.clone(),
                base_self: fraction(bs, base_total),
                base_total: fraction(bt, base_total),
                new_self: fraction(ns, new_total),
                new_total: fraction(nt, new_total),
            }
        })
        .collect();
    let key = |r: &FunctionDiffRow| match options.sort {
        DiffSort::SelfWeight => r.self_delta().abs(),
        DiffSort::Total => r.total_delta().abs(),
    };
    rows.sort_by(|a, b| key(b).total_cmp(&key(a)).then_with(|| a.name.cmp(&b.name)));
    FunctionDiff {
        rows,
        base_total,
        new_total,
    }
}

/// The base weights of one box of a [`DiffFlameGraph`], scaled to the new profile's total.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DiffNode {
    /// The base's self weight on this call path, scaled.
    pub base_self: f64,
    /// The base's total weight on this call path, scaled.
    pub base_total: f64,
    /// New self weight minus `base_self`.
    pub delta_self: f64,
    /// New total weight minus `base_total`.
    pub delta_total: f64,
}

/// A differential flame graph: the new profile's layout with the change on every box.
#[derive(Clone, Debug, Default)]
pub struct DiffFlameGraph {
    /// The new profile's top-down call tree (the graph's boxes refer to its nodes).
    pub tree: CallTree,
    /// The new profile's flame graph.
    pub graph: FlameGraph,
    /// One entry per `graph.rects` entry.
    pub nodes: Vec<DiffNode>,
    /// The factor applied to base weights (new total / base total).
    pub scale: f64,
    /// The largest `|delta_self|`, which gets the full color.
    pub max_abs_delta: f64,
}

impl DiffFlameGraph {
    /// The color of box `i` (`graph.rects[i]`).
    pub fn color(&self, i: usize) -> (u8, u8, u8) {
        self.nodes.get(i).map_or((255, 255, 255), |n| {
            diff_color(n.delta_self, self.max_abs_delta)
        })
    }
}

/// FlameGraph.pl's `color_scale` for differential graphs: white for no change, towards red
/// (`rgb(255, g, g)`) for growth and blue (`rgb(r, r, 255)`) for shrinkage, with the channel
/// `int(210 * (max - |delta|) / max)`.
pub fn diff_color(delta: f64, max: f64) -> (u8, u8, u8) {
    if max.is_nan() || max <= 0.0 || delta == 0.0 || delta.is_nan() {
        return (255, 255, 255);
    }
    let c = (210.0 * (max - delta.abs().min(max)) / max) as u8;
    if delta > 0.0 {
        (255, c, c)
    } else {
        (c, c, 255)
    }
}

/// A call tree merged by function *name* (self, total per node), for matching across profiles.
#[derive(Default)]
struct NameTree {
    index: HashMap<(Option<usize>, String), usize>,
    weights: Vec<(u64, u64)>,
}

impl NameTree {
    fn from_call_tree(tree: &CallTree, profile: &Profile, kind: WeightKind) -> (Self, Vec<usize>) {
        let mut t = NameTree::default();
        let mut of_node: Vec<usize> = Vec::with_capacity(tree.nodes().len());
        for n in tree.nodes() {
            let parent = n.parent.and_then(|p| of_node.get(p.index()).copied());
            let key = (parent, profile.func_name(n.func).to_owned());
            let next = t.weights.len();
            let id = *t.index.entry(key).or_insert(next);
            if id == next {
                t.weights.push((0, 0));
            }
            if let Some(w) = t.weights.get_mut(id) {
                w.0 = w.0.saturating_add(kind.of(n.self_weight));
                w.1 = w.1.saturating_add(kind.of(n.total));
            }
            of_node.push(id);
        }
        (t, of_node)
    }
}

/// The differential flame graph of `new` against `base`.
pub fn diff_flame_graph(
    base: &Profile,
    new: &Profile,
    options: &DiffOptions,
) -> Result<DiffFlameGraph, CapacityError> {
    let kind = options.weight;
    let base_tree = CallTree::top_down(base, &options.base_filter)?;
    let tree = CallTree::top_down(new, &options.new_filter)?;
    let graph = FlameGraph::from_call_tree(&tree, new, kind);
    let (names, _) = NameTree::from_call_tree(&base_tree, base, kind);
    let base_total = kind.of(base_tree.total());
    let scale = if base_total == 0 {
        0.0
    } else {
        kind.of(tree.total()) as f64 / base_total as f64
    };

    // The base name-tree node of every new call node (parents come first).
    let mut matched: Vec<Option<usize>> = Vec::with_capacity(tree.nodes().len());
    for n in tree.nodes() {
        let parent = match n.parent {
            None => Some(None),
            Some(p) => matched.get(p.index()).copied().flatten().map(Some),
        };
        let m = parent.and_then(|parent| {
            names
                .index
                .get(&(parent, new.func_name(n.func).to_owned()))
                .copied()
        });
        matched.push(m);
    }

    let mut max_abs_delta = 0.0f64;
    let nodes: Vec<DiffNode> = graph
        .rects
        .iter()
        .map(|r| {
            let (bs, bt) = matched
                .get(r.node.index())
                .copied()
                .flatten()
                .and_then(|m| names.weights.get(m))
                .copied()
                .unwrap_or_default();
            let (base_self, base_total) = (bs as f64 * scale, bt as f64 * scale);
            let node = DiffNode {
                base_self,
                base_total,
                delta_self: r.self_width as f64 - base_self,
                delta_total: r.width as f64 - base_total,
            };
            max_abs_delta = max_abs_delta.max(node.delta_self.abs());
            node
        })
        .collect();
    Ok(DiffFlameGraph {
        tree,
        graph,
        nodes,
        scale,
        max_abs_delta,
    })
}

/// The sample count and period of the samples that pass `filter`, with or without frames.
pub fn total_weight(profile: &Profile, filter: &SampleFilter) -> Weight {
    let (weights, empty) = stack_self_weights(profile, filter);
    weights.iter().fold(empty, |mut acc, w| {
        acc.samples = acc.samples.saturating_add(w.samples);
        acc.period = acc.period.saturating_add(w.period);
        acc
    })
}

#[cfg(test)]
mod tests;
