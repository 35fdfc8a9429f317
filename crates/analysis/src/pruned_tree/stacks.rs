//! What the pruned layout reads from the profile: the stack table indexed by prefix
//! ([`StackChildren`], per profile) and the per-stack weights of one filter ([`StackWeights`]).

use crate::call_tree::Weight;
use crate::ids::{FuncIndex, StackIndex};
use crate::profile::Profile;
use crate::samples::SampleFilter;

/// The children of every stack (the stack table indexed by prefix), and the root stacks.
/// Independent of any filter: build it once per profile. 8 bytes per stack (a CSR index of
/// `u32`s, built by a counting sort): a stack's function is read from the profile.
#[derive(Clone, Debug, Default)]
pub struct StackChildren {
    /// Stack `s`'s children are `child[start[s]..start[s + 1]]`.
    start: Vec<u32>,
    /// Children, grouped by prefix, each group in index order.
    child: Vec<u32>,
    /// Stacks without a prefix, in index order.
    roots: Vec<u32>,
}

impl StackChildren {
    /// Indexes `profile`'s stack table.
    pub fn new(profile: &Profile) -> Self {
        let n = profile.stacks.len();
        let mut start = vec![0u32; n + 1];
        let mut roots = Vec::new();
        for (i, s) in profile.stacks.iter().enumerate() {
            match s.prefix {
                Some(p) => {
                    if let Some(c) = start.get_mut(p.index() + 1) {
                        *c += 1;
                    }
                }
                None => roots.push(i as u32),
            }
        }
        roots.shrink_to_fit();
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
        StackChildren { start, child, roots }
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

    /// The function of stack `s`'s leaf frame in `profile` (`u32::MAX` when none).
    pub fn func(profile: &Profile, s: u32) -> u32 {
        profile.stack_func(StackIndex(s)).map_or(u32::MAX, |f| f.0)
    }

    /// Bytes held on the heap.
    pub fn heap_bytes(&self) -> usize {
        use crate::heap::vec_bytes;
        vec_bytes(&self.start) + vec_bytes(&self.child) + vec_bytes(&self.roots)
    }
}

/// Per stack, the weight of the samples that passed a filter and pass through it (its total:
/// the samples whose stack is it or starts with it), and the weight of samples without frames.
/// Reusable for every zoom root, weight kind and direction of one filter. A stack's self weight
/// is its total less its children's.
///
/// 4 bytes per stack (a sample count) when every sample that passed has the same period (a
/// total period is then the count times it), 12 when the periods differ.
#[derive(Clone, Debug, Default)]
pub struct StackWeights {
    /// Per stack: the number of samples through it.
    samples: Vec<u32>,
    /// The periods of the samples through each stack; empty when they all have `uniform`.
    period: Vec<u64>,
    /// The period of every sample that passed, while they all had the same.
    uniform: Option<u64>,
    empty: Weight,
}

impl StackWeights {
    /// The weights of the samples that pass `filter`.
    pub fn new(profile: &Profile, filter: &SampleFilter) -> Self {
        let n = profile.stacks.len();
        let mut w = StackWeights { samples: vec![0; n], ..StackWeights::default() };
        let all = *filter == SampleFilter::all();
        let samples = &profile.samples;
        // Self weights: the counts, and the periods only once two differ.
        let mut first = true;
        for (i, (stack, &period)) in samples.stack.iter().zip(&samples.period).enumerate() {
            if !all && !filter.matches(samples, &profile.threads, i) {
                continue;
            }
            if first {
                w.uniform = Some(period);
                first = false;
            } else if w.uniform.is_some_and(|u| u != period) {
                w.spread_periods(n);
            }
            let slot = stack.and_then(|s| Some(s.index()).zip(w.samples.get_mut(s.index())));
            match slot {
                Some((s, count)) => {
                    *count = count.saturating_add(1);
                    if let Some(p) = w.period.get_mut(s) {
                        *p = p.saturating_add(period);
                    }
                }
                None => w.empty.add(Weight { samples: 1, period }),
            }
        }
        // A prefix has a smaller index than the stacks built on it: one backward pass turns the
        // self weights into totals in place.
        for i in (0..n).rev() {
            let Some(p) = profile.stacks.get(StackIndex(i as u32)).and_then(|s| s.prefix).filter(|p| p.index() < i) else { continue };
            let c = w.samples.get(i).copied().unwrap_or(0);
            if let Some(slot) = w.samples.get_mut(p.index()) {
                *slot = slot.saturating_add(c);
            }
            let t = w.period.get(i).copied().unwrap_or(0);
            if let Some(slot) = w.period.get_mut(p.index()) {
                *slot = slot.saturating_add(t);
            }
        }
        w
    }

    /// Switches from one period for all to a period sum per stack (the counts so far times the
    /// period they all had).
    fn spread_periods(&mut self, n: usize) {
        let u = self.uniform.take().unwrap_or(0);
        self.period = self.samples.iter().map(|&c| u.saturating_mul(u64::from(c))).collect();
        self.period.resize(n, 0);
    }

    /// Weight of the samples whose stack is `s` or starts with it.
    pub fn total(&self, s: u32) -> Weight {
        let samples = self.samples.get(s as usize).copied().unwrap_or(0);
        let period = match self.uniform {
            Some(u) => u.saturating_mul(u64::from(samples)),
            None => self.period.get(s as usize).copied().unwrap_or(0),
        };
        Weight { samples: u64::from(samples), period }
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
        crate::heap::vec_bytes(&self.samples) + crate::heap::vec_bytes(&self.period)
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

