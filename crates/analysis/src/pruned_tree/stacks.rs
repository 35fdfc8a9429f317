//! What the pruned layout reads from the profile: the stack table indexed by prefix
//! ([`StackChildren`], per profile) and the per-stack weights of one filter ([`StackWeights`]).

use crate::call_tree::{stack_self_weights, Weight};
use crate::ids::{FuncIndex, StackIndex};
use crate::profile::Profile;
use crate::samples::SampleFilter;

/// The children of every stack (the stack table indexed by prefix), and the root stacks.
/// Independent of any filter: build it once per profile.
#[derive(Clone, Debug, Default)]
pub struct StackChildren {
    /// Stack `s`'s children are `child[start[s]..start[s + 1]]`.
    start: Vec<u32>,
    /// Children, grouped by prefix, each group in index order.
    child: Vec<u32>,
    /// Stacks without a prefix, in index order.
    roots: Vec<u32>,
    /// Per stack: its leaf frame's function, `u32::MAX` when it has none.
    func: Vec<u32>,
}

impl StackChildren {
    /// Indexes `profile`'s stack table.
    pub fn new(profile: &Profile) -> Self {
        let n = profile.stacks.len();
        let mut start = vec![0u32; n + 1];
        let mut roots = Vec::new();
        let mut func = Vec::with_capacity(n);
        for (i, s) in profile.stacks.iter().enumerate() {
            func.push(profile.frame_func(s.frame).map_or(u32::MAX, |f| f.0));
            match s.prefix {
                Some(p) => {
                    if let Some(c) = start.get_mut(p.index() + 1) {
                        *c += 1;
                    }
                }
                None => roots.push(i as u32),
            }
        }
        for i in 1..start.len() {
            let prev = start.get(i - 1).copied().unwrap_or(0);
            if let Some(c) = start.get_mut(i) {
                *c += prev;
            }
        }
        let mut child = vec![0u32; start.last().copied().unwrap_or(0) as usize];
        // Fill with `start[p]` as prefix p's cursor (it ends at p's end, the next one's start),
        // then shift the starts back into place.
        for (i, s) in profile.stacks.iter().enumerate() {
            let Some(p) = s.prefix else { continue };
            if let Some(c) = start.get_mut(p.index()) {
                if let Some(slot) = child.get_mut(*c as usize) {
                    *slot = i as u32;
                }
                *c += 1;
            }
        }
        for i in (1..start.len()).rev() {
            let prev = start.get(i - 1).copied().unwrap_or(0);
            if let Some(c) = start.get_mut(i) {
                *c = prev;
            }
        }
        if let Some(c) = start.first_mut() {
            *c = 0;
        }
        StackChildren { start, child, roots, func }
    }

    /// The children of stack `s`.
    pub fn children(&self, s: u32) -> &[u32] {
        let a = self.start.get(s as usize).copied().unwrap_or(0) as usize;
        let b = self.start.get(s as usize + 1).copied().unwrap_or(0) as usize;
        self.child.get(a..b).unwrap_or(&[])
    }

    /// The root stacks.
    pub fn roots(&self) -> &[u32] {
        &self.roots
    }

    /// The function of stack `s`'s leaf frame (`u32::MAX` when none).
    pub fn func(&self, s: u32) -> u32 {
        self.func.get(s as usize).copied().unwrap_or(u32::MAX)
    }

    /// Bytes held on the heap.
    pub fn heap_bytes(&self) -> usize {
        use crate::heap::vec_bytes;
        vec_bytes(&self.start) + vec_bytes(&self.child) + vec_bytes(&self.roots) + vec_bytes(&self.func)
    }
}

/// Per stack, the weight of the samples that passed a filter and pass through it (its total:
/// the samples whose stack is it or starts with it), and the weight of samples without frames.
/// Reusable for every zoom root, weight kind and direction of one filter. One [`Weight`] per
/// stack: a stack's self weight is its total less its children's.
#[derive(Clone, Debug, Default)]
pub struct StackWeights {
    total: Vec<Weight>,
    empty: Weight,
}

impl StackWeights {
    /// The weights of the samples that pass `filter`.
    pub fn new(profile: &Profile, filter: &SampleFilter) -> Self {
        let (mut total, empty) = stack_self_weights(profile, filter);
        // A prefix has a smaller index than the stacks built on it: one backward pass turns the
        // self weights into totals in place.
        for i in (0..profile.stacks.len()).rev() {
            let Some(p) = profile.stacks.get(StackIndex(i as u32)).and_then(|s| s.prefix).filter(|p| p.index() < i) else { continue };
            let t = total.get(i).copied().unwrap_or_default();
            if let Some(slot) = total.get_mut(p.index()) {
                slot.add(t);
            }
        }
        StackWeights { total, empty }
    }

    /// Weight of the samples whose stack is `s` or starts with it.
    pub fn total(&self, s: u32) -> Weight {
        self.total.get(s as usize).copied().unwrap_or_default()
    }

    /// Weight of the samples whose stack is `s` exactly (`children` indexes the same profile).
    pub fn self_weight(&self, s: u32, children: &StackChildren) -> Weight {
        let mut w = self.total(s);
        for &c in children.children(s) {
            let t = self.total(c);
            w.samples = w.samples.saturating_sub(t.samples);
            w.period = w.period.saturating_sub(t.period);
        }
        w
    }

    /// Weight of all the samples with frames.
    pub fn sum(&self, children: &StackChildren) -> Weight {
        let mut w = Weight::default();
        for &r in children.roots() {
            w.add(self.total(r));
        }
        w
    }

    /// Weight of the samples that passed the filter without any frame.
    pub fn empty(&self) -> Weight {
        self.empty
    }

    /// Bytes held on the heap.
    pub fn heap_bytes(&self) -> usize {
        crate::heap::vec_bytes(&self.total)
    }

    /// The weight of the samples whose stack has a function for which `matches` is true (each
    /// sample once, however many of its frames match): the totals of the matching stacks whose
    /// prefix does not match.
    pub fn matching(&self, profile: &Profile, mut matches: impl FnMut(FuncIndex) -> bool) -> Weight {
        let mut func_hit: Vec<u8> = vec![2; profile.funcs.len()];
        let mut hit = vec![false; profile.stacks.len()];
        let mut sum = Weight::default();
        for (i, s) in profile.stacks.iter().enumerate() {
            let inherited = s.prefix.filter(|p| p.index() < i).and_then(|p| hit.get(p.index()).copied()).unwrap_or(false);
            if inherited {
                if let Some(slot) = hit.get_mut(i) {
                    *slot = true;
                }
                continue;
            }
            let own = profile.frame_func(s.frame).is_some_and(|f| match func_hit.get_mut(f.index()) {
                Some(h) if *h == 2 => {
                    *h = u8::from(matches(f));
                    *h == 1
                }
                Some(h) => *h == 1,
                None => false,
            });
            if own {
                if let Some(slot) = hit.get_mut(i) {
                    *slot = true;
                }
                sum.add(self.total(i as u32));
            }
        }
        sum
    }
}

