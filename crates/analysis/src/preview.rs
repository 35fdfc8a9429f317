//! A flame graph of a profile that is still being read: the top-down layout of an evenly spaced
//! subset of the samples so far, at most a given number of them (the caller picks it: every
//! sample when the profile has few stacks, a fixed number when it has millions, so that it
//! costs the same whether 10 thousand or 10 million samples were read). The page draws it while the records pass
//! goes on, and drops it for the real flame graph when the profile is complete.
//!
//! Nodes merge by function from the roots down, siblings in the byte order of their names (ties
//! in the order the nodes were first met), as in the full layout
//! (`flame_graph::FlameGraph::from_call_tree`): with every sample taken and nothing pruned, the
//! preview is that layout node for node.

use rustc_hash::FxHashMap;

use crate::ids::{EventIndex, FuncIndex};
use crate::profile::Profile;

/// One node of a [`Preview`], depth first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PreviewNode {
    /// The function.
    pub func: FuncIndex,
    /// The parent's index in [`Preview::nodes`], `None` for roots.
    pub parent: Option<u32>,
    /// 0 for roots.
    pub depth: u32,
    /// Left edge, in samples taken.
    pub x: u64,
    /// Width: the samples taken whose stack passes through the node.
    pub width: u64,
}

/// A flame graph of a subset of the samples read so far.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Preview {
    /// Nodes in depth-first order (a parent before its children, siblings by name).
    pub nodes: Vec<PreviewNode>,
    /// The event whose samples are counted (`None`: all, the profile has one event or none).
    pub event: Option<EventIndex>,
    /// The samples taken (the graph's width).
    pub taken: u64,
    /// The samples of that event with a stack read so far, of which every `step`-th was taken
    /// (with one event: those among every `step`-th sample, `step` then counted over all the
    /// samples; the same when every sample has a stack).
    pub seen: u64,
    /// The spacing of the samples taken.
    pub step: u64,
}

/// Up to this many stacks in the profile, the samples taken are counted in a column per stack
/// (8 MB at most), not in a map (see [`dense`]).
const DENSE_STACKS: usize = 1 << 20;

/// Whether to keep a column per stack (rather than a map) when taking about `taken` samples
/// of a profile with `stacks` stacks: when the table is not big, and not much bigger than the
/// samples taken (a column of a million stacks for twenty thousand samples cost more to
/// clear than the samples to take).
fn dense(stacks: usize, taken: usize) -> bool {
    stacks <= DENSE_STACKS && stacks / 16 <= taken
}

/// No parent: the key of a root in the trie.
const NO_NODE: u32 = u32::MAX;

/// The trie node of each stack looked up so far: a column when the stack table is not big, else
/// a map.
struct StackNodes {
    column: Vec<u32>,
    map: FxHashMap<u32, u32>,
}

/// Not looked up yet (in the column).
const UNSET: u32 = u32::MAX - 1;

impl StackNodes {
    fn new(stacks: usize, dense: bool) -> StackNodes {
        StackNodes {
            column: vec![UNSET; if dense { stacks } else { 0 }],
            map: FxHashMap::default(),
        }
    }

    fn get(&self, s: crate::ids::StackIndex) -> Option<u32> {
        match self.column.get(s.index()) {
            Some(&n) => (n != UNSET).then_some(n),
            None => self.map.get(&s.0).copied(),
        }
    }

    fn set(&mut self, s: crate::ids::StackIndex, node: u32) {
        match self.column.get_mut(s.index()) {
            Some(n) => *n = node,
            None => {
                self.map.insert(s.0, node);
            }
        }
    }
}

/// The preview of `profile` from at most `max_samples` of its samples (every `step`-th of the
/// event's, `step` as small as that allows). With several events, the samples counted are the
/// first event's that has any (the event the page's first flame graph shows). A node is kept when
/// `width × detail ≥ taken` (`u64::MAX`: every node).
pub fn preview(profile: &Profile, max_samples: usize, detail: u64) -> Preview {
    preview_with(profile, max_samples, detail, true)
}

/// [`preview`]; without `use_tallies`, the samples are read one by one even when the stack
/// tallies would do (the same preview: the tests compare the two).
fn preview_with(profile: &Profile, max_samples: usize, detail: u64, use_tallies: bool) -> Preview {
    let samples = &profile.samples;
    let n = samples.len();
    let event = if profile.events.len() > 1 {
        (0..n).filter_map(|i| samples.event(i)).min()
    } else {
        None
    };
    // Samples without a stack are not in a flame graph, nor those whose stack another loader
    // is making (`crate::load::StackShare`).
    let counted = |i: usize| {
        (event.is_none() || samples.event(i) == event)
            && samples
                .stack(i)
                .flatten()
                .is_some_and(|s| crate::load::deferred_ordinal(s).is_none())
    };
    // With one event and every stack made by this loader (the tallies kept as samples are
    // pushed say so), the samples counted are those with a stack: the tallies count them, and
    // when each is taken, by stack. Then no pass over the samples is needed (a big file's
    // later previews had cost ~0.1–0.2 s in the page), and with a budget the samples taken
    // are those with a stack among every `step`-th sample (every `step`-th of those with a
    // stack when, as usual, all have one; a big recording may have a few without).
    let tallies = samples
        .stack_tallies()
        .filter(|_| use_tallies && event.is_none());
    let seen = match tallies {
        Some(t) => n.saturating_sub(usize::try_from(t.no_stack.0).unwrap_or(usize::MAX)),
        None => (0..n).filter(|&i| counted(i)).count(),
    };
    // (Every `step`-th sample read directly: `step` as small as keeps them within the budget.)
    let over = if tallies.is_some() { n } else { seen };
    let step = over.div_ceil(max_samples.max(1)).max(1);
    let by_column = dense(profile.stacks.len(), n / step);
    let mut taken = 0u64;
    // (stack, samples taken) in stack order.
    let mut stacks: Vec<(u32, u64)> = match tallies {
        Some(t) if step == 1 => {
            let by_stack = t.by_stack.iter().enumerate();
            let stacks: Vec<(u32, u64)> = by_stack
                .filter(|&(_, &(count, _))| count > 0)
                .map(|(s, &(count, _))| (s as u32, u64::from(count)))
                .collect();
            taken = stacks.iter().map(|&(_, w)| w).sum();
            stacks
        }
        _ => {
            // The samples taken per stack, then each stack taken walked once: a profile with
            // few distinct stacks (one frame per module for code without symbols) is read
            // whole at the cost of one pass over its samples.
            // (A column per stack when the table is not big, else a map of the stacks taken.)
            let mut column: Vec<u64> = vec![0; if by_column { profile.stacks.len() } else { 0 }];
            let mut map: FxHashMap<u32, u64> = FxHashMap::default();
            let mut take = |s: crate::ids::StackIndex| {
                taken += 1;
                match column.get_mut(s.index()) {
                    Some(w) => *w += 1,
                    None => *map.entry(s.0).or_insert(0) += 1,
                }
            };
            // (With the tallies, `step` is over all the samples.)
            let stepped = (0..n).filter(|&i| tallies.is_some() || counted(i));
            for i in stepped.step_by(step) {
                if let Some(s) = samples.stack(i).flatten() {
                    take(s);
                }
            }
            let mut stacks: Vec<(u32, u64)> = map.into_iter().collect();
            stacks.extend(
                column
                    .iter()
                    .enumerate()
                    .filter(|&(_, &w)| w > 0)
                    .map(|(s, &w)| (s as u32, w)),
            );
            stacks
        }
    };
    // In stack order: a stack is made when the first sample with it is read, so the trie's
    // nodes are met in the order the samples first reach them (siblings of one name keep it).
    stacks.sort_unstable();
    // The trie of function paths: per node (parent, function, weight). A stack's node is its
    // prefix's node's child for its frame's function (or that node, for a frame without
    // one): each stack table entry on the taken stacks' paths is looked up once, not once per
    // stack through it (a preview of a quarter million stacks walked them all to their roots:
    // ~0.1 s). A stack's weight goes to its node, and to the ancestors at the end.
    let mut trie: Vec<(u32, FuncIndex, u64)> = Vec::new();
    let mut index: FxHashMap<(u32, FuncIndex), u32> = FxHashMap::default();
    let mut memo = StackNodes::new(profile.stacks.len(), by_column);
    let mut chain: Vec<crate::ids::StackIndex> = Vec::new();
    for (s, weight) in stacks {
        chain.clear();
        let mut node = NO_NODE;
        let mut stack = Some(crate::ids::StackIndex(s));
        while let Some(s) = stack {
            if let Some(n) = memo.get(s) {
                node = n;
                break;
            }
            chain.push(s);
            stack = profile.stacks.get(s).and_then(|e| e.prefix);
        }
        for &s in chain.iter().rev() {
            let func = profile
                .stacks
                .get(s)
                .and_then(|e| profile.frame_func(e.frame));
            if let Some(f) = func {
                let next = trie.len() as u32;
                let at = *index.entry((node, f)).or_insert(next);
                if at == next {
                    trie.push((node, f, 0));
                }
                node = at;
            }
            memo.set(s, node);
        }
        if let Some(t) = trie.get_mut(node as usize) {
            t.2 += weight;
        }
    }
    // A child is made after its parent: from the last node back, each adds its subtree's
    // weight to its parent's.
    for i in (0..trie.len()).rev() {
        let Some(&(parent, _, weight)) = trie.get(i) else {
            continue;
        };
        if let Some(p) = trie.get_mut(parent as usize) {
            p.2 += weight;
        }
    }
    drop(index);
    // Children grouped by parent; each kept parent's children are put in name order when it
    // is reached. A node is never wider than its parent, so the kept nodes are closed under
    // taking parents; the ones left out still take their place in x.
    let kept = |w: u64| detail == u64::MAX || w.saturating_mul(detail) >= taken;
    let mut order: Vec<u32> = (0..trie.len() as u32).collect();
    order.sort_unstable_by_key(|&t| trie.get(t as usize).map_or(NO_NODE, |e| e.0));
    let mut groups: FxHashMap<u32, (usize, usize)> = FxHashMap::default();
    let mut start = 0;
    while start < order.len() {
        let parent_of = |t: &u32| trie.get(*t as usize).map_or(NO_NODE, |e| e.0);
        let parent = order.get(start).map_or(NO_NODE, parent_of);
        let len = order
            .get(start..)
            .map_or(0, |r| {
                r.iter().take_while(|t| parent_of(t) == parent).count()
            })
            .max(1);
        groups.insert(parent, (start, start + len));
        start += len;
    }
    let mut nodes = Vec::new();
    // Depth first: (trie node, output parent, depth, x), pushed in reverse so that the first
    // sibling comes out first.
    let mut todo: Vec<(u32, Option<u32>, u32, u64)> = Vec::new();
    let mut visit = NO_NODE;
    let (mut out, mut depth, mut x) = (None, 0, 0);
    let mut keyed: Vec<(&str, u32)> = Vec::new();
    loop {
        if let Some(&(a, b)) = groups.get(&visit) {
            if let Some(kids) = order.get_mut(a..b) {
                // By (name, node), the names looked up once each: a comparator that looked
                // them up was copied into every place of the sort's code (in wasm one function
                // of ~52K instructions, which the browser took 15–40 ms to compile at the first
                // preview; BENCHMARKS.md, session 44).
                keyed.clear();
                keyed.extend(kids.iter().map(|&t| {
                    let name = trie.get(t as usize).map_or("", |e| profile.func_name(e.1));
                    (name, t)
                }));
                keyed.sort_unstable();
                for (kid, &(_, t)) in kids.iter_mut().zip(&keyed) {
                    *kid = t;
                }
                let mut right = x + kids
                    .iter()
                    .map(|&t| trie.get(t as usize).map_or(0, |e| e.2))
                    .sum::<u64>();
                for &t in kids.iter().rev() {
                    let w = trie.get(t as usize).map_or(0, |e| e.2);
                    right -= w;
                    if kept(w) {
                        todo.push((t, out, depth, right));
                    }
                }
            }
        }
        let Some((t, parent, d, left)) = todo.pop() else {
            break;
        };
        let Some(&(_, func, width)) = trie.get(t as usize) else {
            continue;
        };
        out = Some(nodes.len() as u32);
        nodes.push(PreviewNode {
            func,
            parent,
            depth: d,
            x: left,
            width,
        });
        (visit, depth, x) = (t, d + 1, left);
    }
    Preview {
        nodes,
        event,
        taken,
        seen: seen as u64,
        step: step as u64,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::text_samples::profile_from_text_samples;

    /// (name, depth, x, width) per node.
    fn rows(p: &Profile, v: &Preview) -> Vec<(String, u32, u64, u64)> {
        v.nodes
            .iter()
            .map(|n| (p.func_name(n.func).to_string(), n.depth, n.x, n.width))
            .collect()
    }

    #[test]
    fn merges_by_function_and_orders_siblings_by_name() {
        // One column per sample, root on the first row.
        let p = profile_from_text_samples(
            "main main main main z\n\
             b    b    d    b\n\
             c              c\n",
        )
        .unwrap();
        let v = preview(&p, 100, u64::MAX);
        assert_eq!((v.taken, v.seen, v.step, v.event), (5, 5, 1, None));
        let want = [
            ("main", 0, 0, 4),
            ("b", 1, 0, 3),
            ("c", 2, 0, 2),
            ("d", 1, 3, 1),
            ("z", 0, 4, 1),
        ];
        let want: Vec<_> = want
            .iter()
            .map(|&(n, d, x, w)| (n.to_string(), d, x, w))
            .collect();
        assert_eq!(rows(&p, &v), want);
        assert_eq!(v.nodes[2].parent, Some(1));
        assert_eq!(v.nodes[3].parent, Some(0));
        assert_eq!(v.nodes[4].parent, None);
    }

    #[test]
    fn takes_every_step_th_sample_and_prunes_narrow_nodes() {
        // Samples 0, 2, 4 and 6 of seven are taken (at most 4): a a a y-x.
        let p = profile_from_text_samples(
            "a b a b a b y\n\
             \u{20}           x\n",
        )
        .unwrap();
        let v = preview(&p, 4, u64::MAX);
        assert_eq!((v.taken, v.seen, v.step), (4, 7, 2));
        let want: Vec<_> = [("a", 0, 0, 3), ("y", 0, 3, 1), ("x", 1, 3, 1)]
            .iter()
            .map(|&(n, d, x, w)| (n.to_string(), d, x, w))
            .collect();
        assert_eq!(rows(&p, &v), want);
        // Detail 2: kept when width × 2 ≥ 4.
        let v = preview(&p, 4, 2);
        assert_eq!(rows(&p, &v), want[..1].to_vec());
    }

    #[test]
    fn the_stack_tallies_give_the_preview_the_samples_give_and_all_taken_it_is_the_flame_graph() {
        // Test files of one event (the tallies' case; some with samples without a stack) and
        // of several, each at several budgets.
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data");
        let mut fast = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().and_then(|e| e.to_str()) != Some("data") {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let options = crate::load::LoadOptions::default();
            let Ok((p, _)) = crate::load::load_profile(&bytes, &[], options) else {
                continue;
            };
            let p = &p;
            let t = p.samples.stack_tallies();
            let tallied = p.events.len() <= 1 && t.is_some() && !p.samples.is_empty();
            let no_stack = t.map_or(0, |t| t.no_stack.0);
            fast += usize::from(tallied);
            // Every sample taken, one event: the flame graph's layout, box for box.
            if p.events.len() <= 1 {
                let tree =
                    crate::call_tree::CallTree::top_down(p, &crate::samples::SampleFilter::all())
                        .unwrap();
                let kind = crate::flame_graph::WeightKind::Samples;
                let graph = crate::flame_graph::FlameGraph::from_call_tree(&tree, p, kind);
                let boxes: Vec<_> = graph
                    .rects
                    .iter()
                    .map(|r| (r.func, r.depth, r.x, r.width))
                    .collect();
                let v = preview(p, usize::MAX, u64::MAX);
                let nodes: Vec<_> = v
                    .nodes
                    .iter()
                    .map(|n| (n.func, n.depth, n.x, n.width))
                    .collect();
                assert_eq!(nodes, boxes, "{}", path.display());
            }
            for max in [usize::MAX, p.samples.len(), 1000, 37, 1] {
                for detail in [u64::MAX, 2_000] {
                    let fast = preview_with(p, max, detail, true);
                    let slow = preview_with(p, max, detail, false);
                    let what = format!("{} at {max} samples, detail {detail}", path.display());
                    if tallied && no_stack > 0 && max < p.samples.len() {
                        // Every step-th sample, those with a stack: as many as counted, and
                        // the graph as wide as the samples taken.
                        let step = p.samples.len().div_ceil(max) as u64;
                        assert_eq!((fast.seen, fast.step), (slow.seen, step), "{what}");
                        let taken = (0..p.samples.len())
                            .step_by(fast.step as usize)
                            .filter(|&i| p.samples.stack(i).flatten().is_some())
                            .count() as u64;
                        assert_eq!(fast.taken, taken, "{what}");
                        let roots = fast.nodes.iter().filter(|n| n.depth == 0);
                        assert_eq!(roots.map(|n| n.width).sum::<u64>(), taken, "{what}");
                    } else {
                        assert_eq!(fast, slow, "{what}");
                    }
                }
            }
        }
        assert!(fast >= 3, "{fast} files take the tallies' way");
    }

    #[test]
    fn with_a_budget_samples_without_a_stack_among_every_step_th_are_skipped() {
        // a b a b a b y-x, with a sample without a stack after each of the first three.
        let text = profile_from_text_samples("a b a b a b y\n\u{20}           x\n").unwrap();
        let mut p = text.clone();
        p.samples = crate::samples::SampleTable::default();
        for i in 0..text.samples.len() {
            let s = text.samples.get(i).unwrap();
            p.samples.push(s).unwrap();
            if i < 3 {
                p.samples
                    .push(crate::samples::Sample { stack: None, ..s })
                    .unwrap();
            }
        }
        // Samples 0 a, 1 -, 2 b, 3 -, 4 a, 5 -, 6 b, 7 a, 8 b, 9 y-x: seven with a stack; at
        // most 4 of the ten gives a step of 3: samples 0, 3, 6, 9 (a - b y-x).
        let v = preview(&p, 4, u64::MAX);
        assert_eq!((v.taken, v.seen, v.step), (3, 7, 3));
        let want: Vec<_> = [
            ("a", 0, 0, 1),
            ("b", 0, 1, 1),
            ("y", 0, 2, 1),
            ("x", 1, 2, 1),
        ]
        .iter()
        .map(|&(n, d, x, w)| (n.to_string(), d, x, w))
        .collect();
        assert_eq!(rows(&p, &v), want);
        // Every sample taken: the seven with a stack, as the samples give them.
        let all = preview(&p, usize::MAX, u64::MAX);
        assert_eq!(all, preview_with(&p, usize::MAX, u64::MAX, false));
        assert_eq!((all.taken, all.seen, all.step), (7, 7, 1));
    }
}
