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
    /// The samples of that event with a stack read so far, of which every `step`-th was taken.
    pub seen: u64,
    /// The spacing of the samples taken.
    pub step: u64,
}

/// Up to this many stacks in the profile, the samples taken are counted in a column per stack
/// (8 MB at most), not in a map.
const DENSE_STACKS: usize = 1 << 20;

/// No parent: the key of a root in the trie.
const NO_NODE: u32 = u32::MAX;

/// The preview of `profile` from at most `max_samples` of its samples (every `step`-th of the
/// event's, `step` as small as that allows). With several events, the samples counted are the
/// first event's that has any (the event the page's first flame graph shows). A node is kept when
/// `width × detail ≥ taken` (`u64::MAX`: every node).
pub fn preview(profile: &Profile, max_samples: usize, detail: u64) -> Preview {
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
    let seen = (0..n).filter(|&i| counted(i)).count();
    let step = seen.div_ceil(max_samples.max(1)).max(1);
    // The samples taken per stack, then each stack taken walked once: a profile with few
    // distinct stacks (one frame per module for code without symbols) is read whole at the
    // cost of one pass over its samples.
    // (A column per stack when the table is not big, else a map of the stacks taken.)
    let dense = profile.stacks.len() <= DENSE_STACKS;
    let mut column: Vec<u64> = vec![0; if dense { profile.stacks.len() } else { 0 }];
    let mut map: FxHashMap<u32, u64> = FxHashMap::default();
    let mut taken = 0u64;
    for i in (0..n).filter(|&i| counted(i)).step_by(step) {
        if let Some(s) = samples.stack(i).flatten() {
            taken += 1;
            match column.get_mut(s.index()) {
                Some(w) => *w += 1,
                None => *map.entry(s.0).or_insert(0) += 1,
            }
        }
    }
    // In stack order: a stack is made when the first sample with it is read, so the trie's
    // nodes are met in the order the samples first reach them (siblings of one name keep it).
    let mut stacks: Vec<(u32, u64)> = map.into_iter().collect();
    stacks.extend(
        column
            .iter()
            .enumerate()
            .filter(|&(_, &w)| w > 0)
            .map(|(s, &w)| (s as u32, w)),
    );
    stacks.sort_unstable();
    // The trie of function paths: per node (parent, function, weight).
    let mut trie: Vec<(u32, FuncIndex, u64)> = Vec::new();
    let mut index: FxHashMap<(u32, FuncIndex), u32> = FxHashMap::default();
    let mut path: Vec<FuncIndex> = Vec::new();
    for (s, weight) in stacks {
        path.clear();
        let mut stack = Some(crate::ids::StackIndex(s));
        while let Some(s) = stack {
            let Some(entry) = profile.stacks.get(s) else {
                break;
            };
            if let Some(f) = profile.frame_func(entry.frame) {
                path.push(f);
            }
            stack = entry.prefix;
        }
        let mut node = NO_NODE;
        for &f in path.iter().rev() {
            let next = trie.len() as u32;
            let at = *index.entry((node, f)).or_insert(next);
            if at == next {
                trie.push((node, f, 0));
            }
            if let Some(t) = trie.get_mut(at as usize) {
                t.2 += weight;
            }
            node = at;
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
    loop {
        if let Some(&(a, b)) = groups.get(&visit) {
            if let Some(kids) = order.get_mut(a..b) {
                kids.sort_unstable_by(|&p, &q| {
                    let key = |t: u32| {
                        let name = trie.get(t as usize).map_or("", |e| profile.func_name(e.1));
                        (name, t)
                    };
                    key(p).cmp(&key(q))
                });
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
}
