//! The flame layout of the top-down or inverted call tree, pruned to what a screen can show,
//! computed from the stack table without building the whole merged tree.
//!
//! [`crate::call_tree::CallTree`] merges every stack into a node and [`FlameGraph`] lays all of
//! them out; with millions of distinct stacks (an unsymbolized system-wide profile) that is
//! millions of nodes nobody can see. [`pruned_flame`] emits only the nodes whose width is at least
//! `1 / detail` of the graph's width (or of a zoom root's width inside the zoom root's subtree),
//! with exactly the coordinates the full layout gives them: siblings ordered by function name
//! (ties in the order [`crate::call_tree::CallTree`] creates nodes), every left-out sibling still
//! taking its width. Each emitted node carries the weight of its children that were left out.
//!
//! How: a merged node is a set of *members*. Top-down, a member is a stack (all stacks with the
//! same parent node and function form one node); a node's children are the child stacks of its
//! members grouped by function, found through [`StackChildren`] (an index of the stack table by
//! prefix). Inverted, a member is a pointer into the stack table walking from a sample's leaf
//! towards the root, with that leaf stack's weight; members that point at the same stack have
//! the same future and are merged. Only nodes that are emitted are expanded, so the work is the
//! members of the emitted nodes and their children, plus one pass over the stacks for the
//! weights ([`StackWeights`], reusable for any zoom root and weight kind).
//!
//! ```
//! use perfscope_analysis::flame_graph::WeightKind;
//! use perfscope_analysis::pruned_tree::{pruned_flame, PruneOptions, StackChildren, StackWeights};
//! use perfscope_analysis::samples::SampleFilter;
//! use perfscope_analysis::text_samples::profile_from_text_samples;
//!
//! // main is 3 samples wide (a: 2, b: 1), other 1: at detail 2 (boxes at least half as
//! // wide as the graph) only main and a are emitted; b and other are left out.
//! let p = profile_from_text_samples("main main main other\na    a    b\n").unwrap();
//! let children = StackChildren::new(&p); // once per profile
//! let weights = StackWeights::new(&p, &SampleFilter::all()); // once per filter
//! let opts = PruneOptions { inverted: false, kind: WeightKind::Samples, detail: 2, root: &[] };
//! let f = pruned_flame(&p, &children, &weights, opts);
//! let names: Vec<_> = f.nodes.iter().map(|n| (p.func_name(n.func), n.x, n.width, n.elided.samples)).collect();
//! assert_eq!(names, [("main", 0, 3, 1), ("a", 0, 2, 0)]);
//! assert_eq!((f.width, f.elided_roots.samples), (4, 1));
//! ```
//!
//! [`FlameGraph`]: crate::flame_graph::FlameGraph

use core::ops::Range;

use crate::call_tree::Weight;
use crate::flame_graph::WeightKind;
use crate::ids::{FuncIndex, StackIndex};
use crate::profile::Profile;
use crate::samples::SampleTable;

mod name_rank;
mod stacks;

pub use stacks::{StackBits, StackChildren, StackWeights};

/// What [`pruned_flame`] lays out.
#[derive(Clone, Copy, Debug)]
pub struct PruneOptions<'a> {
    /// The inverted (bottom-up) tree instead of the top-down one.
    pub inverted: bool,
    /// What widths measure.
    pub kind: WeightKind,
    /// A node is emitted when `width × detail ≥` the width it is measured against (the graph's,
    /// or the zoom root's inside its subtree): about `detail` cells across. `u64::MAX`: every
    /// node with a width.
    pub detail: u64,
    /// The zoom root as functions from a root (empty: none). The path's nodes are always
    /// emitted, and the zoom root's subtree is pruned against the zoom root's width.
    pub root: &'a [FuncIndex],
}

/// One emitted node of a [`PrunedFlame`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrunedNode {
    /// The function.
    pub func: FuncIndex,
    /// The parent's index in [`PrunedFlame::nodes`], `None` for roots.
    pub parent: Option<u32>,
    /// 0 for roots.
    pub depth: u32,
    /// Left edge in weight units, as in the full layout.
    pub x: u64,
    /// Width in weight units (the chosen component of `total`).
    pub width: u64,
    /// Weight of the samples through the node.
    pub total: Weight,
    /// Weight of the samples ending in the node (inverted tree: roots only).
    pub self_weight: Weight,
    /// Summed totals of the children that were left out (`self + emitted children + elided =
    /// total`).
    pub elided: Weight,
    /// Number of children left out.
    pub elided_count: u32,
}

/// A pruned flame layout: nodes depth first (parent before children, siblings by name).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PrunedFlame {
    /// The emitted nodes.
    pub nodes: Vec<PrunedNode>,
    /// The graph's width in weight units (all roots).
    pub width: u64,
    /// Deepest emitted row + 1.
    pub depth: u32,
    /// Weight of all samples with frames.
    pub total: Weight,
    /// Weight of the samples without frames.
    pub empty: Weight,
    /// Summed totals of the roots that were left out.
    pub elided_roots: Weight,
    /// Number of roots left out.
    pub elided_root_count: u32,
}

/// The top-down layout walks up from the known leaves of [`pruned_flame_of`] when there are
/// fewer than the roots over this (a walk is tens of steps; reading a root's weight is one).
pub const LEAF_WALK: usize = 16;

/// A member of a merged node: where it stands in the stack table, the smallest stack index it
/// stands for (the node-creation order of [`crate::call_tree::CallTree`]), and its weight.
#[derive(Clone, Copy, Debug)]
struct Member {
    stack: u32,
    origin: u32,
    weight: Weight,
}

/// Where a node stands relative to the zoom path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// On the path above the zoom root: `path[..=d]` matched.
    Path(usize),
    /// The zoom root or inside its subtree.
    Zoom,
    /// Elsewhere.
    Outside,
}

/// A node waiting to be emitted; its members are `arena[members]`.
struct Pending {
    func: u32,
    parent: Option<u32>,
    depth: u32,
    x: u64,
    total: Weight,
    self_weight: Weight,
    place: Place,
    members: Range<usize>,
}

/// The roots of one function with samples ([`Descent::sorted_roots`]): `roots[start..end]`
/// of the children index, their total and the smallest of them with samples.
struct RootRun {
    total: Weight,
    func: u32,
    origin: u32,
    start: u32,
    end: u32,
}

/// A group of children with one function; its members are `pairs[range]`.
struct Group {
    func: u32,
    origin: u32,
    total: Weight,
    self_weight: Weight,
    range: Range<usize>,
}

struct Descent<'a> {
    profile: &'a Profile,
    children: &'a StackChildren,
    weights: &'a StackWeights,
    opts: PruneOptions<'a>,
    /// Width the global threshold measures against.
    graph_width: u64,
    /// The zoom root's width, once reached.
    zoom_width: Option<u64>,
    arena: Vec<Member>,
    pairs: Vec<(u32, Member)>,
    groups: Vec<Group>,
    todo: Vec<Pending>,
    out: PrunedFlame,
    /// The stacks the weighed samples end in, ascending, when the caller knows them.
    leaves: Option<&'a [u32]>,
    /// The stacks with a self weight, from the inverted tree's first pass over them.
    self_weighted: StackBits,
}

/// The flame layout of the samples weighed in `weights`, pruned as `opts` say.
pub fn pruned_flame(
    profile: &Profile,
    children: &StackChildren,
    weights: &StackWeights,
    opts: PruneOptions<'_>,
) -> PrunedFlame {
    pruned_flame_of(profile, children, weights, opts, None)
}

/// The `leaves` of [`pruned_flame_of`] for the samples of `samples` at `indices`: their stacks,
/// ascending, each once.
pub fn leaf_stacks(samples: &SampleTable, indices: &[u32]) -> Vec<u32> {
    let mut leaves: Vec<u32> = indices
        .iter()
        .filter_map(|&i| samples.stack(i as usize).flatten())
        .map(|s| s.0)
        .collect();
    leaves.sort_unstable();
    leaves.dedup();
    leaves
}

/// [`pruned_flame`] for weights of samples whose stacks are known: `leaves`, ascending, holds
/// every stack a weighed sample ends in (and maybe others). The inverted tree's roots are then
/// found among them, not among all stacks: for the weights of a small part of the samples,
/// such as one command's.
pub fn pruned_flame_of(
    profile: &Profile,
    children: &StackChildren,
    weights: &StackWeights,
    opts: PruneOptions<'_>,
    leaves: Option<&[u32]>,
) -> PrunedFlame {
    let mut d = Descent {
        profile,
        children,
        weights,
        opts,
        graph_width: 0,
        zoom_width: None,
        arena: Vec::new(),
        pairs: Vec::new(),
        groups: Vec::new(),
        todo: Vec::new(),
        out: PrunedFlame {
            empty: weights.empty(),
            ..PrunedFlame::default()
        },
        leaves,
        self_weighted: StackBits::default(),
    };
    d.roots();
    while let Some(p) = d.todo.pop() {
        d.visit(p);
    }
    d.out
}

impl Descent<'_> {
    fn roots(&mut self) {
        self.pairs.clear();
        if self.opts.inverted {
            let Some(leaves) = self.leaves else {
                return self.inverted_roots_summed();
            };
            self.inverted_root_groups_of(leaves);
        } else {
            // An unsymbolized system-wide profile has ~1M roots: for a few known leaves, their
            // roots are found by walking up from them instead.
            let Some(walked) = self.leaf_roots() else {
                return self.sorted_roots();
            };
            let roots = walked.as_slice();
            self.pairs.reserve_exact(roots.len());
            for &s in roots {
                let w = self.weights.total(s);
                if w.samples > 0 {
                    self.pairs.push((
                        StackChildren::func(self.profile, s),
                        Member {
                            stack: s,
                            origin: s,
                            weight: w,
                        },
                    ));
                }
            }
            self.group(true);
        }
        let kind = self.opts.kind;
        self.graph_width = self
            .groups
            .iter()
            .fold(0u64, |a, g| a.saturating_add(kind.of(g.total)));
        self.out.width = self.graph_width;
        for g in &self.groups {
            self.out.total.add(g.total);
        }
        let (elided, count) = self.place_children(None, 0, 0, Place::Path(usize::MAX));
        self.out.elided_roots = elided;
        self.out.elided_root_count = count;
    }

    /// [`Descent::roots`] top-down over every root of the children index, which holds them by
    /// function, then index: each function's run of roots summed where it lies, instead of a
    /// pair and a group per root (an unsymbolized system-wide profile has ~500k roots, whose
    /// pairs and groups took 47 MB at the first flame graph's peak). The same layout as
    /// [`Descent::group`] and [`Descent::place_children`] give.
    fn sorted_roots(&mut self) {
        let (profile, weights, kind) = (self.profile, self.weights, self.opts.kind);
        let roots = self.children.roots();
        let funcs: Vec<u32> = roots
            .iter()
            .map(|&s| StackChildren::func(profile, s))
            .collect();
        let mut runs: Vec<RootRun> =
            Vec::with_capacity(1 + funcs.windows(2).filter(|w| w.first() != w.get(1)).count());
        let mut start = 0;
        while let Some(&func) = funcs.get(start) {
            let end = start
                + funcs
                    .get(start..)
                    .map_or(0, |f| f.iter().take_while(|&&g| g == func).count());
            let mut run = RootRun {
                total: Weight::default(),
                func,
                origin: u32::MAX,
                start: start as u32,
                end: end as u32,
            };
            for &s in roots.get(start..end).unwrap_or(&[]) {
                let w = weights.total(s);
                if w.samples > 0 {
                    run.total.add(w);
                    run.origin = run.origin.min(s);
                }
            }
            // (A function whose roots have no samples has no node, as in `group`.)
            if run.origin != u32::MAX {
                runs.push(run);
            }
            start = end.max(start + 1);
        }
        drop(funcs);
        self.graph_width = runs
            .iter()
            .fold(0u64, |a, r| a.saturating_add(kind.of(r.total)));
        self.out.width = self.graph_width;
        for r in &runs {
            self.out.total.add(r.total);
        }
        let (placed, elided, count) = self.lay_out_siblings(
            Place::Path(usize::MAX),
            0,
            runs.iter()
                .enumerate()
                .map(|(ri, r)| (ri, r.func, r.total, r.origin)),
        );
        self.out.elided_roots = elided;
        self.out.elided_root_count = count;
        // Right to left, as `place_children` queues them.
        for &(ri, x, child_place) in placed.iter().rev() {
            let Some(r) = runs.get(ri) else { continue };
            let start = self.arena.len();
            for &s in roots.get(r.start as usize..r.end as usize).unwrap_or(&[]) {
                let weight = weights.total(s);
                if weight.samples > 0 {
                    self.arena.push(Member {
                        stack: s,
                        origin: s,
                        weight,
                    });
                }
            }
            self.todo.push(Pending {
                func: r.func,
                parent: None,
                depth: 0,
                x,
                total: r.total,
                self_weight: Weight::default(),
                place: child_place,
                members: start..self.arena.len(),
            });
        }
    }

    /// The roots of the known leaves (see [`pruned_flame_of`]), each once, when there are few
    /// enough leaves that walking up from them beats reading every root's weight; `None`
    /// otherwise. A walk stops at a stack seen before (its root is already found).
    fn leaf_roots(&self) -> Option<Vec<u32>> {
        let leaves = self.leaves?;
        if leaves.len().saturating_mul(LEAF_WALK) >= self.children.roots().len() {
            return None;
        }
        let mut seen = StackBits::new(self.profile.stacks.len());
        let mut roots = Vec::new();
        for &leaf in leaves {
            let mut cur = leaf as usize;
            while seen.insert(cur) {
                // (As `StackChildren` indexes them: a stack with a prefix is no root; a cycle
                // in a broken table ends at a stack seen before.)
                match self.profile.stacks.prefix(StackIndex(cur as u32)) {
                    Some(p) => cur = p.index(),
                    None => {
                        roots.push(cur as u32);
                        break;
                    }
                }
            }
        }
        Some(roots)
    }

    /// Emits `p` and queues its children that are wide enough.
    fn visit(&mut self, p: Pending) {
        self.arena.truncate(p.members.end);
        let index = self.out.nodes.len() as u32;
        let width = self.opts.kind.of(p.total);
        if p.place == Place::Zoom && self.zoom_width.is_none() {
            self.zoom_width = Some(width);
        }
        self.out.depth = self.out.depth.max(p.depth + 1);
        self.out.nodes.push(PrunedNode {
            func: FuncIndex(p.func),
            parent: p.parent,
            depth: p.depth,
            x: p.x,
            width,
            total: p.total,
            self_weight: p.self_weight,
            elided: Weight::default(),
            elided_count: 0,
        });
        self.pairs.clear();
        let members = self.arena.get(p.members.clone()).unwrap_or(&[]);
        // At most this many pairs: room for them at once, not by doubling (the widest node of
        // a big profile has ~1M, and each doubling left a hole in the wasm memory).
        let bound = if self.opts.inverted {
            members.len()
        } else {
            members
                .iter()
                .map(|m| self.children.child_count(m.stack))
                .sum()
        };
        self.pairs.reserve_exact(bound);
        if self.opts.inverted {
            for m in members {
                let Some(prefix) = self
                    .profile
                    .stacks
                    .get(StackIndex(m.stack))
                    .and_then(|s| s.prefix)
                else {
                    continue;
                };
                self.pairs.push((
                    StackChildren::func(self.profile, prefix.0),
                    Member {
                        stack: prefix.0,
                        ..*m
                    },
                ));
            }
        } else {
            // Self weight: the total less the children's.
            let mut self_weight = p.total;
            for m in members {
                for c in self.children.children(m.stack) {
                    let w = self.weights.total(c);
                    if w.samples > 0 {
                        self.pairs.push((
                            StackChildren::func(self.profile, c),
                            Member {
                                stack: c,
                                origin: c,
                                weight: w,
                            },
                        ));
                        self_weight.samples = self_weight.samples.saturating_sub(w.samples);
                        self_weight.period = self_weight.period.saturating_sub(w.period);
                    }
                }
            }
            if let Some(n) = self.out.nodes.get_mut(index as usize) {
                n.self_weight = self_weight;
            }
        }
        self.group(false);
        let (elided, count) = self.place_children(Some(index), p.depth + 1, p.x, p.place);
        if let Some(n) = self.out.nodes.get_mut(index as usize) {
            n.elided = elided;
            n.elided_count = count;
        }
    }

    /// [`Descent::roots`] of the inverted tree over every stack with a self weight: one slot
    /// per leaf function, its weight the self weight of the stacks that end in it, summed
    /// without a pair per stack (2M+ stacks of 32 bytes, sorted, for a big profile); only the
    /// functions drawn get a group (an unsymbolized profile has a leaf function per address:
    /// 1.4M groups of 56 bytes were its inverted tree's peak). The members of the groups drawn
    /// come after, from [`Descent::fill_inverted_roots`]. The same layout as
    /// [`Descent::group`] and [`Descent::place_children`] give.
    fn inverted_roots_summed(&mut self) {
        let nf = self.profile.funcs.len();
        // Per function (the last slot: stacks without one), its sample count, smallest stack
        // and, unless every sample has the same, its period: 8 or 16 bytes a function.
        let uniform = self.weights.uniform_period();
        let mut counts: Vec<u32> = vec![0; nf + 1];
        let mut origins: Vec<u32> = vec![u32::MAX; nf + 1];
        let mut periods: Vec<u64> = match uniform {
            Some(_) => Vec::new(),
            None => vec![0; nf + 1],
        };
        // Which stacks have a self weight, for the second pass (among those the weights say
        // may have one).
        let n = self.profile.stacks.len();
        let mut leaves = StackBits::new(n);
        for s in self.weights.leaves() {
            let w = self.weights.self_weight(s, self.children);
            if w.samples == 0 {
                continue;
            }
            leaves.insert(s as usize);
            let f = (StackChildren::func(self.profile, s) as usize).min(nf);
            if let (Some(c), Some(o)) = (counts.get_mut(f), origins.get_mut(f)) {
                *c = c.saturating_add(u32::try_from(w.samples).unwrap_or(u32::MAX));
                *o = (*o).min(s);
            }
            if let Some(p) = periods.get_mut(f) {
                *p = p.saturating_add(w.period);
            }
        }
        self.self_weighted = leaves;
        let kind = self.opts.kind;
        let func_of = |f: usize| if f == nf { u32::MAX } else { f as u32 };
        // Slot `f`'s weight and smallest stack, when it has samples.
        let slot = |f: usize| {
            let samples = u64::from(counts.get(f).copied().filter(|&c| c > 0)?);
            let period = match uniform {
                Some(u) => u.saturating_mul(samples),
                None => periods.get(f).copied().unwrap_or(0),
            };
            Some((Weight { samples, period }, origins.get(f).copied()?))
        };
        // (slot, function, weight, smallest stack) of the slots with samples.
        let with_samples = || {
            (0..=nf).filter_map(|f| slot(f).map(|(total, origin)| (f, func_of(f), total, origin)))
        };
        self.graph_width = with_samples().fold(0u64, |a, (.., t, _)| a.saturating_add(kind.of(t)));
        self.out.width = self.graph_width;
        for (.., t, _) in with_samples() {
            self.out.total.add(t);
        }
        let (placed, elided, count) =
            self.lay_out_siblings(Place::Path(usize::MAX), 0, with_samples());
        self.out.elided_roots = elided;
        self.out.elided_root_count = count;
        // Groups for the drawn functions only, which `placed` then names.
        self.groups.clear();
        let mut drawn = Vec::with_capacity(placed.len());
        for (f, x, child_place) in placed {
            let Some((total, origin)) = slot(f) else {
                continue;
            };
            drawn.push((self.groups.len(), x, child_place));
            self.groups.push(Group {
                func: func_of(f),
                origin,
                total,
                self_weight: total,
                range: 0..0,
            });
        }
        let placed = drawn;
        drop((counts, origins, periods));
        self.fill_inverted_roots(&placed);
        self.queue(&placed, None, 0);
    }

    /// The inverted tree's root groups from the stacks `leaves` (ascending): each one with a
    /// self weight is paired with its function, and the pairs, sorted by (function, stack), are
    /// summed into the groups. The pairs stay in `pairs`, where
    /// [`Descent::fill_inverted_roots`] would put them.
    fn inverted_root_groups_of(&mut self, leaves: &[u32]) {
        let nf = self.profile.funcs.len();
        self.pairs.clear();
        for &s in leaves {
            let w = self.weights.self_weight(s, self.children);
            if w.samples == 0 {
                continue;
            }
            let f = StackChildren::func(self.profile, s);
            // (A stack without a function sorts last, as the last slot of the dense count.)
            let f = if (f as usize) < nf { f } else { u32::MAX };
            self.pairs.push((
                f,
                Member {
                    stack: s,
                    origin: s,
                    weight: w,
                },
            ));
        }
        self.pairs.sort_by_key(|p| (p.0, p.1.stack));
        self.pairs.dedup_by_key(|p| p.1.stack);
        self.groups.clear();
        let mut i = 0;
        while let Some(&(func, first)) = self.pairs.get(i) {
            let rest = self.pairs.get(i..).unwrap_or(&[]);
            let end = i + rest.partition_point(|p| p.0 == func).max(1);
            let mut total = Weight::default();
            for p in self.pairs.get(i..end).unwrap_or(&[]) {
                total.add(p.1.weight);
            }
            self.groups.push(Group {
                func,
                origin: first.stack,
                total,
                self_weight: total,
                range: i..end,
            });
            i = end;
        }
    }

    /// Gives the inverted tree's root groups in `placed` (to be drawn) their members: the stacks
    /// with self weight that end in their function, in `pairs` by (function, stack).
    fn fill_inverted_roots(&mut self, placed: &[(usize, u64, Place)]) {
        if self.leaves.is_some() {
            // Made with the groups (`inverted_root_groups_of`).
            return;
        }
        let nf = self.profile.funcs.len();
        let mut drawn = vec![false; nf + 1];
        for &(gi, _, _) in placed {
            if let Some(g) = self.groups.get(gi) {
                if let Some(d) = drawn.get_mut((g.func as usize).min(nf)) {
                    *d = true;
                }
            }
        }
        self.pairs.clear();
        // Only the stacks with a self weight (found by the first pass).
        let leaves = std::mem::take(&mut self.self_weighted);
        for s in leaves.iter() {
            let f = StackChildren::func(self.profile, s);
            if !drawn.get((f as usize).min(nf)).copied().unwrap_or(false) {
                continue;
            }
            let w = self.weights.self_weight(s, self.children);
            if w.samples > 0 {
                self.pairs.push((
                    f,
                    Member {
                        stack: s,
                        origin: s,
                        weight: w,
                    },
                ));
            }
        }
        // By function, then stack (the stacks are visited in order: a stable sort by function).
        self.pairs.sort_by_key(|p| p.0);
        for &(gi, _, _) in placed {
            let Some(func) = self.groups.get(gi).map(|g| g.func) else {
                continue;
            };
            let start = self.pairs.partition_point(|p| p.0 < func);
            let end = self.pairs.partition_point(|p| p.0 <= func);
            if let Some(g) = self.groups.get_mut(gi) {
                g.range = start..end;
            }
        }
    }

    /// Groups `pairs` by function (merging members at the same stack) into `groups`, in function
    /// index order.
    fn group(&mut self, roots: bool) {
        self.pairs.sort_unstable_by_key(|&(f, m)| (f, m.stack));
        // Merge members at the same stack (only the inverted tree has any).
        let mut w = 0usize;
        for r in 0..self.pairs.len() {
            let Some(&cur) = self.pairs.get(r) else { break };
            if w > 0 {
                if let Some(prev) = self.pairs.get_mut(w - 1) {
                    if prev.0 == cur.0 && prev.1.stack == cur.1.stack {
                        prev.1.weight.add(cur.1.weight);
                        prev.1.origin = prev.1.origin.min(cur.1.origin);
                        continue;
                    }
                }
            }
            if let Some(slot) = self.pairs.get_mut(w) {
                *slot = cur;
            }
            w += 1;
        }
        self.pairs.truncate(w);
        self.groups.clear();
        // One group per function: counted, then made room for at once.
        let funcs = 1 + self
            .pairs
            .windows(2)
            .filter(|p| p.first().map(|a| a.0) != p.get(1).map(|b| b.0))
            .count();
        self.groups.reserve_exact(funcs.min(self.pairs.len()));
        let mut start = 0usize;
        while start < self.pairs.len() {
            let func = self.pairs.get(start).map_or(u32::MAX, |p| p.0);
            let mut g = Group {
                func,
                origin: u32::MAX,
                total: Weight::default(),
                self_weight: Weight::default(),
                range: start..start,
            };
            let mut end = start;
            while let Some(&(_, m)) = self.pairs.get(end).filter(|p| p.0 == func) {
                g.total.add(m.weight);
                g.origin = g.origin.min(m.origin);
                end += 1;
            }
            if self.opts.inverted && roots {
                g.self_weight = g.total;
            }
            g.range = start..end;
            self.groups.push(g);
            start = end;
        }
    }

    /// Where a child with function `func` of a node at `place` stands.
    fn child_place(&self, place: Place, func: u32) -> Place {
        let path = self.opts.root;
        match place {
            Place::Path(d) => {
                let next = d.wrapping_add(1);
                match path.get(next) {
                    Some(f) if f.0 == func => {
                        if next + 1 == path.len() {
                            Place::Zoom
                        } else {
                            Place::Path(next)
                        }
                    }
                    _ => Place::Outside,
                }
            }
            Place::Zoom => Place::Zoom,
            Place::Outside => Place::Outside,
        }
    }

    /// Whether a child `width` wide at `child_place`, of a node at `place`, is emitted: on the
    /// zoom path, or at least a `detail`-th of the graph's (or the zoom root's) width.
    fn is_wide(&self, place: Place, child_place: Place, width: u64) -> bool {
        let on_path = matches!(child_place, Place::Path(_))
            || (child_place == Place::Zoom && place != Place::Zoom);
        let against = match (child_place, self.zoom_width) {
            (Place::Zoom, Some(z)) if place == Place::Zoom => z,
            _ => self.graph_width,
        };
        width > 0
            && (on_path || u128::from(width) * u128::from(self.opts.detail) >= u128::from(against))
    }

    /// Lays out `groups` as the children of `parent` from `x` ([`Descent::lay_out_siblings`]);
    /// queues those to emit (their members copied to the arena) and returns the weight and
    /// number of those left out.
    fn place_children(
        &mut self,
        parent: Option<u32>,
        depth: u32,
        x: u64,
        place: Place,
    ) -> (Weight, u32) {
        let groups = self.groups.iter().enumerate();
        let (placed, elided, count) = self.lay_out_siblings(
            place,
            x,
            groups.map(|(gi, g)| (gi, g.func, g.total, g.origin)),
        );
        self.queue(&placed, parent, depth);
        (elided, count)
    }

    /// Lays out siblings of a node at `place` from `x`. `items` are (id, function, total,
    /// creation order), read twice. Returns the emitted ones as (id, left edge, place), in
    /// order, and the weight and number of those left out.
    ///
    /// The full layout orders siblings by name, then by creation order (the smallest stack they
    /// stand for). Only the emitted ones are sorted; each left-out one is placed among them by a
    /// binary search, which is all their widths need: where many small siblings are left out,
    /// this is most of the work saved.
    fn lay_out_siblings(
        &self,
        place: Place,
        x: u64,
        items: impl Iterator<Item = (usize, u32, Weight, u32)> + Clone,
    ) -> (Vec<(usize, u64, Place)>, Weight, u32) {
        let kind = self.opts.kind;
        let children = self.children;
        // By name (its rank), then creation order.
        let key = |func: u32, origin: u32| {
            (u64::from(children.name_rank(func)) << 32) | u64::from(origin)
        };
        let wide = |func: u32, total: Weight| {
            let child_place = self.child_place(place, func);
            self.is_wide(place, child_place, kind.of(total))
                .then_some(child_place)
        };
        let (mut elided, mut count) = (Weight::default(), 0u32);
        let mut emit = Vec::new();
        for (id, func, total, origin) in items.clone() {
            match wide(func, total) {
                Some(child_place) => {
                    emit.push((id, child_place, key(func, origin), kind.of(total)))
                }
                None => {
                    elided.add(total);
                    count += 1;
                }
            }
        }
        if emit.is_empty() {
            return (Vec::new(), elided, count);
        }
        let left_out = items
            .filter(|&(_, func, total, _)| wide(func, total).is_none())
            .map(|(_, func, total, origin)| (key(func, origin), kind.of(total)));
        (lay_out(emit, x, left_out), elided, count)
    }

    /// Queues the groups `placed` (group index, left edge, place) as children of `parent`,
    /// their members copied to the arena.
    fn queue(&mut self, placed: &[(usize, u64, Place)], parent: Option<u32>, depth: u32) {
        // Queue right to left so the leftmost comes out first; the arena grows the same way so a
        // popped node's members are on top.
        for &(gi, gx, child_place) in placed.iter().rev() {
            let Some(g) = self.groups.get(gi) else {
                continue;
            };
            let start = self.arena.len();
            self.arena.extend(
                self.pairs
                    .get(g.range.clone())
                    .unwrap_or(&[])
                    .iter()
                    .map(|p| p.1),
            );
            self.todo.push(Pending {
                func: g.func,
                parent,
                depth,
                x: gx,
                total: g.total,
                self_weight: g.self_weight,
                place: child_place,
                members: start..self.arena.len(),
            });
        }
    }
}

/// The emitted children `emit` (id, place, key, width) laid out from `x`: ordered by key
/// (name rank, then creation order), each after the widths of the emitted ones before it and of
/// the left-out siblings `left_out` (key, width) that sort before it. Returns (id, left edge,
/// place) in that order.
fn lay_out(
    mut emit: Vec<(usize, Place, u64, u64)>,
    x: u64,
    left_out: impl Iterator<Item = (u64, u64)>,
) -> Vec<(usize, u64, Place)> {
    emit.sort_unstable_by_key(|e| e.2);
    let keys: Vec<u64> = emit.iter().map(|e| e.2).collect();
    // Widths of the left-out siblings before each emitted one (and after the last).
    let mut before = vec![0u64; keys.len() + 1];
    for (k, w) in left_out {
        let pos = keys.partition_point(|e| *e < k);
        if let Some(b) = before.get_mut(pos) {
            *b = b.saturating_add(w);
        }
    }
    let mut placed = Vec::with_capacity(emit.len());
    let mut cx = x;
    for (i, &(id, place, _, width)) in emit.iter().enumerate() {
        cx = cx.saturating_add(before.get(i).copied().unwrap_or(0));
        placed.push((id, cx, place));
        cx = cx.saturating_add(width);
    }
    placed
}

impl PrunedFlame {
    /// The functions from the root down to node `i`.
    pub fn path(&self, i: usize) -> Vec<FuncIndex> {
        let mut out = Vec::new();
        let mut cur = Some(i as u32);
        while let Some(n) = cur.and_then(|c| self.nodes.get(c as usize)) {
            out.push(n.func);
            cur = n.parent;
            if out.len() > self.nodes.len() {
                break;
            }
        }
        out.reverse();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples::SampleFilter;
    use crate::text_samples::profile_from_text_samples;

    #[test]
    fn roots_walked_up_from_a_few_known_leaves_give_the_same_layout() {
        // 200 roots (r0..r199, the even ones with a child), the samples of tid 2 at six of
        // them: 6 leaves × LEAF_WALK < 200 roots, so their roots are found by walking up.
        let n = 200;
        let mut roots = String::new();
        let mut kids = String::new();
        let mut tids = String::new();
        for i in 0..n {
            roots.push_str(&format!("r{i} "));
            kids.push_str(if i % 2 == 0 { "k " } else { "  " });
            tids.push_str(if i % 40 == 3 || i == 8 { "2 " } else { "1 " });
        }
        let p = profile_from_text_samples(&format!("tid: {tids}\n{roots}\n{kids}\n")).unwrap();
        let filter = SampleFilter {
            tids: vec![2],
            ..SampleFilter::all()
        };
        let kept: Vec<u32> = (0..p.samples.len() as u32)
            .filter(|&i| filter.matches(&p.samples, &p.threads, i as usize))
            .collect();
        let leaves = leaf_stacks(&p.samples, &kept);
        let children = StackChildren::new(&p);
        assert_eq!(children.roots().len(), n);
        assert!(leaves.len() * LEAF_WALK < n, "{leaves:?}");
        let weights = StackWeights::new(&p, &filter);
        for inverted in [false, true] {
            for detail in [1, 3, u64::MAX] {
                let opts = PruneOptions {
                    inverted,
                    kind: WeightKind::Samples,
                    detail,
                    root: &[],
                };
                let full = pruned_flame(&p, &children, &weights, opts);
                let told = pruned_flame_of(&p, &children, &weights, opts, Some(&leaves));
                assert_eq!(told, full, "inverted {inverted} detail {detail}");
                assert_eq!(full.total.samples, 6);
            }
        }
    }
}
