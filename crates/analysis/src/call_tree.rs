//! Call trees: stacks merged by function, root to leaf (top-down) or leaf to root (inverted,
//! bottom-up), with self and total weight as sample count and period.
//!
//! In the top-down tree a node is (parent node, function): two stacks that differ only in the
//! addresses within a function land on one node. A node's *self* weight is the weight of samples
//! whose leaf is that node; its *total* is self plus the children's totals. In the inverted tree
//! the roots are leaf functions and a path goes towards the callers; every node's total is the
//! weight of samples whose stack ends with that path, and only roots have self weight (equal to
//! their total), as in the Firefox Profiler.

use rustc_hash::FxHashMap as HashMap;

use crate::ids::{CallNodeIndex, CapacityError, FrameIndex, FuncIndex, StackIndex};
use crate::profile::Profile;
use crate::samples::SampleFilter;

/// Sample count and summed period.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Weight {
    /// Number of samples.
    pub samples: u64,
    /// Sum of their periods.
    pub period: u64,
}

impl Weight {
    /// Adds `other` (saturating).
    pub fn add(&mut self, other: Weight) {
        self.samples = self.samples.saturating_add(other.samples);
        self.period = self.period.saturating_add(other.period);
    }

    /// Takes `other` away (saturating).
    pub fn sub(&mut self, other: Weight) {
        self.samples = self.samples.saturating_sub(other.samples);
        self.period = self.period.saturating_sub(other.period);
    }
}

/// One node of a [`CallTree`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallNode {
    /// The function.
    pub func: FuncIndex,
    /// The parent (caller in the top-down tree, callee in the inverted tree).
    pub parent: Option<CallNodeIndex>,
    /// 0 for roots.
    pub depth: u32,
    /// Weight of samples that end here (inverted tree: roots only).
    pub self_weight: Weight,
    /// Weight of samples that pass through here.
    pub total: Weight,
    /// Children in order of creation.
    pub children: Vec<CallNodeIndex>,
}

/// A top-down or inverted call tree over the samples that pass a filter.
#[derive(Clone, Debug, Default)]
pub struct CallTree {
    nodes: Vec<CallNode>,
    roots: Vec<CallNodeIndex>,
    inverted: bool,
    total: Weight,
    empty_stacks: Weight,
}

/// The weight each stack carries itself, over the samples that pass `filter`, and the weight of
/// samples with an empty stack.
pub fn stack_self_weights(profile: &Profile, filter: &SampleFilter) -> (Vec<Weight>, Weight) {
    let mut weights = vec![Weight::default(); profile.stacks.len()];
    let mut empty = Weight::default();
    let all = *filter == SampleFilter::all();
    let passes = filter.tester(&profile.samples, &profile.threads);
    for i in 0..profile.samples.len() {
        if !all && !passes(i) {
            continue;
        }
        let (Some(stack), Some(period)) = (profile.samples.stack(i), profile.samples.period(i))
        else {
            continue;
        };
        let w = Weight { samples: 1, period };
        match stack.and_then(|s| weights.get_mut(s.index())) {
            Some(slot) => slot.add(w),
            None => empty.add(w),
        }
    }
    (weights, empty)
}

/// What [`key_weights`] adds up, by key.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyWeights {
    /// The weight of the stacks whose leaf frame has the key...
    pub self_weight: Vec<Weight>,
    /// ...of the stacks with the key in any frame (once a stack: recursion counts once)...
    pub total: Vec<Weight>,
    /// ...and whether a stack taken has the key.
    pub present: Vec<bool>,
    /// The weight of every stack taken and of the samples without a stack.
    pub grand: Weight,
}

/// The self and total weight of the keys of frames (`key_of`: a frame's key, below `keys`, or
/// `None` for none) — functions, or function names — over the stacks of the samples that pass
/// `filter` and that `take` by their weight: what a table of functions by self and total
/// shows. Counted in lists by key, a stack's total once per key by a mark (no search of the
/// keys seen in the stack).
pub fn key_weights(
    profile: &Profile,
    filter: &SampleFilter,
    keys: usize,
    key_of: impl Fn(FrameIndex) -> Option<usize>,
    take: impl Fn(Weight) -> bool,
) -> KeyWeights {
    let (weights, empty) = stack_self_weights(profile, filter);
    let mut self_weight = vec![Weight::default(); keys];
    let mut total = vec![Weight::default(); keys];
    // The stack that last counted each key's total; `usize::MAX`: none.
    let mut counted_for = vec![usize::MAX; keys];
    let mut grand = empty;
    for (i, &w) in weights.iter().enumerate() {
        if !take(w) {
            continue;
        }
        grand.add(w);
        let stack = StackIndex::from_len(i).ok();
        for (depth, frame) in profile.stacks.frames_leaf_first(stack).enumerate() {
            let Some(k) = key_of(frame) else {
                continue;
            };
            let (Some(own), Some(all), Some(counted)) = (
                self_weight.get_mut(k),
                total.get_mut(k),
                counted_for.get_mut(k),
            ) else {
                continue;
            };
            if depth == 0 {
                own.add(w);
            }
            if *counted != i {
                *counted = i;
                all.add(w);
            }
        }
    }
    KeyWeights {
        self_weight,
        total,
        present: counted_for.iter().map(|&c| c != usize::MAX).collect(),
        grand,
    }
}

impl CallTree {
    fn child(
        &mut self,
        index: &mut HashMap<(Option<CallNodeIndex>, FuncIndex), CallNodeIndex>,
        parent: Option<CallNodeIndex>,
        func: FuncIndex,
    ) -> Result<CallNodeIndex, CapacityError> {
        if let Some(&n) = index.get(&(parent, func)) {
            return Ok(n);
        }
        let n = CallNodeIndex::from_len(self.nodes.len())?;
        let depth = parent
            .and_then(|p| self.nodes.get(p.index()))
            .map_or(0, |p| p.depth + 1);
        self.nodes.push(CallNode {
            func,
            parent,
            depth,
            self_weight: Weight::default(),
            total: Weight::default(),
            children: Vec::new(),
        });
        match parent.and_then(|p| self.nodes.get_mut(p.index())) {
            Some(p) => p.children.push(n),
            None => self.roots.push(n),
        }
        index.insert((parent, func), n);
        Ok(n)
    }

    /// The top-down tree of the samples that pass `filter`.
    pub fn top_down(profile: &Profile, filter: &SampleFilter) -> Result<Self, CapacityError> {
        let (weights, empty) = stack_self_weights(profile, filter);
        // Which stacks lead to weight: walk up from every weighted stack.
        let mut used = vec![false; weights.len()];
        for (i, w) in weights.iter().enumerate() {
            if w.samples == 0 {
                continue;
            }
            let mut cur = StackIndex::from_len(i).ok();
            while let Some(s) = cur {
                match used.get_mut(s.index()) {
                    Some(u) if !*u => *u = true,
                    _ => break,
                }
                cur = profile.stacks.get(s).and_then(|st| st.prefix);
            }
        }
        let mut tree = CallTree {
            empty_stacks: empty,
            ..Default::default()
        };
        let mut index = HashMap::default();
        let mut node_of = vec![None; weights.len()];
        // Prefixes have smaller indices: one forward pass.
        for (i, stack) in profile.stacks.iter().enumerate() {
            if !used.get(i).copied().unwrap_or(false) {
                continue;
            }
            let Some(func) = profile.frame_func(stack.frame) else {
                continue;
            };
            let parent = stack
                .prefix
                .and_then(|p| node_of.get(p.index()).copied().flatten());
            let node = tree.child(&mut index, parent, func)?;
            if let Some(slot) = node_of.get_mut(i) {
                *slot = Some(node);
            }
            if let (Some(w), Some(n)) = (weights.get(i), tree.nodes.get_mut(node.index())) {
                n.self_weight.add(*w);
            }
        }
        // Children come after parents: totals in one backward pass.
        for i in (0..tree.nodes.len()).rev() {
            let Some(n) = tree.nodes.get_mut(i) else {
                continue;
            };
            n.total.add(n.self_weight);
            let (total, parent) = (n.total, n.parent);
            if let Some(p) = parent.and_then(|p| tree.nodes.get_mut(p.index())) {
                p.total.add(total);
            }
        }
        for &r in &tree.roots {
            if let Some(n) = tree.nodes.get(r.index()) {
                tree.total.add(n.total);
            }
        }
        Ok(tree)
    }

    /// The inverted (bottom-up) tree of the samples that pass `filter`.
    pub fn inverted(profile: &Profile, filter: &SampleFilter) -> Result<Self, CapacityError> {
        let (weights, empty) = stack_self_weights(profile, filter);
        let mut tree = CallTree {
            inverted: true,
            empty_stacks: empty,
            ..Default::default()
        };
        let mut index = HashMap::default();
        for (i, w) in weights.iter().enumerate() {
            if w.samples == 0 {
                continue;
            }
            let mut parent = None;
            for frame in profile
                .stacks
                .frames_leaf_first(StackIndex::from_len(i).ok())
            {
                let Some(func) = profile.frame_func(frame) else {
                    continue;
                };
                let node = tree.child(&mut index, parent, func)?;
                if let Some(n) = tree.nodes.get_mut(node.index()) {
                    n.total.add(*w);
                    if parent.is_none() {
                        n.self_weight.add(*w);
                    }
                }
                parent = Some(node);
            }
            tree.total.add(*w);
        }
        Ok(tree)
    }

    /// Whether this is the inverted tree.
    pub fn is_inverted(&self) -> bool {
        self.inverted
    }

    /// The roots.
    pub fn roots(&self) -> &[CallNodeIndex] {
        &self.roots
    }

    /// A node.
    pub fn node(&self, i: CallNodeIndex) -> Option<&CallNode> {
        self.nodes.get(i.index())
    }

    /// All nodes; parents come before their children.
    pub fn nodes(&self) -> &[CallNode] {
        &self.nodes
    }

    /// Total weight of samples with a non-empty stack that passed the filter.
    pub fn total(&self) -> Weight {
        self.total
    }

    /// Weight of samples that passed the filter but had no frame at all.
    pub fn empty_stacks(&self) -> Weight {
        self.empty_stacks
    }

    /// The node reached by following function names from the roots.
    pub fn find_path(&self, profile: &Profile, names: &[&str]) -> Option<CallNodeIndex> {
        let mut level: &[CallNodeIndex] = &self.roots;
        let mut found = None;
        for name in names {
            let n = *level.iter().find(|&&c| {
                self.node(c)
                    .is_some_and(|n| profile.func_name(n.func) == *name)
            })?;
            found = Some(n);
            level = &self.node(n)?.children;
        }
        found
    }

    /// The tree as indented text, children by decreasing total then name: one
    /// `"{indent}{name} total={samples} self={samples}"` line per node. Handy in tests and logs.
    pub fn to_text(&self, profile: &Profile) -> String {
        let mut out = String::new();
        let mut stack: Vec<CallNodeIndex> = self
            .sorted(profile, &self.roots)
            .into_iter()
            .rev()
            .collect();
        while let Some(i) = stack.pop() {
            let Some(n) = self.node(i) else { continue };
            let indent = "  ".repeat(n.depth as usize);
            out.push_str(&format!(
                "{indent}{} total={} self={}\n",
                profile.func_name(n.func),
                n.total.samples,
                n.self_weight.samples
            ));
            stack.extend(self.sorted(profile, &n.children).into_iter().rev());
        }
        out
    }

    fn sorted(&self, profile: &Profile, nodes: &[CallNodeIndex]) -> Vec<CallNodeIndex> {
        let mut v = nodes.to_vec();
        v.sort_by(|&a, &b| {
            let (na, nb) = (self.node(a), self.node(b));
            let ta = na.map_or(0, |n| n.total.samples);
            let tb = nb.map_or(0, |n| n.total.samples);
            tb.cmp(&ta).then_with(|| {
                let fa = na.map_or("", |n| profile.func_name(n.func));
                let fb = nb.map_or("", |n| profile.func_name(n.func));
                fa.cmp(fb)
            })
        });
        v
    }
}
