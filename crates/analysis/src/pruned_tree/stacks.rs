//! What the pruned layout reads from the profile: the stack table indexed by prefix
//! ([`StackChildren`], per profile) and the per-stack weights of one filter ([`StackWeights`]).

use super::name_rank::name_ranks;
use crate::call_tree::Weight;
use crate::chunked::Chunked;
use crate::ids::{FrameIndex, FuncIndex, StackIndex};
use crate::profile::Profile;
use crate::samples::{SampleFilter, SampleTable, StackTallies};

/// A set of stack indices, a bit each (a set over the 105M stacks of a 4 GB recording is
/// 13 MB).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StackBits(Vec<u64>);

impl StackBits {
    /// An empty set for stacks `0..n`.
    pub fn new(n: usize) -> Self {
        StackBits(vec![0; n.div_ceil(64)])
    }

    /// The stacks of `profile` that have a function for which `matches` is true: each stack
    /// whose own frame's function matches, and every stack above it. `matches` is asked once
    /// per function, in index order, first; when no function matches, no stack is read.
    pub fn containing(profile: &Profile, mut matches: impl FnMut(FuncIndex) -> bool) -> Self {
        let mut set = StackBits::new(profile.stacks.len());
        let funcs: Vec<bool> = (0..profile.funcs.len())
            .map(|f| matches(FuncIndex(f as u32)))
            .collect();
        if !funcs.contains(&true) {
            return set;
        }
        // Per frame (read in order here, not at random per stack below).
        let frames: Vec<bool> = (0..profile.frames.len())
            .map(|fr| {
                profile
                    .frame_func(FrameIndex(fr as u32))
                    .and_then(|f| funcs.get(f.index()).copied())
                    .unwrap_or(false)
            })
            .collect();
        let own = |fr: FrameIndex| frames.get(fr.index()).copied().unwrap_or(false);
        for (i, s) in profile.stacks.iter().enumerate() {
            let inherited = match s.prefix {
                // A prefix is interned before the stacks on it.
                Some(p) if p.index() < i => set.contains(p.index()),
                // (Not so in a table made otherwise: its frames are read.)
                Some(p) => profile.stacks.frames_leaf_first(Some(p)).any(own),
                None => false,
            };
            if inherited || own(s.frame) {
                set.insert(i);
            }
        }
        set
    }

    /// Whether `s` is in the set.
    #[inline]
    pub fn contains(&self, s: usize) -> bool {
        self.0
            .get(s / 64)
            .is_some_and(|word| word & (1u64 << (s % 64)) != 0)
    }

    /// Adds `s`; whether it was not in the set yet (`false` also when out of range).
    pub fn insert(&mut self, s: usize) -> bool {
        let Some(word) = self.0.get_mut(s / 64) else {
            return false;
        };
        let bit = 1u64 << (s % 64);
        let new = *word & bit == 0;
        *word |= bit;
        new
    }

    /// Takes every member out, keeping the room.
    pub fn clear(&mut self) {
        self.0.fill(0);
    }

    /// The members, ascending.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().enumerate().flat_map(|(wi, &word)| {
            let mut bits = word;
            core::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let b = bits.trailing_zeros();
                    bits &= bits - 1;
                    (wi * 64) as u32 + b
                })
            })
        })
    }

    /// Bytes held on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.0.capacity() * 8
    }
}

/// The children of every stack (the stack table indexed by prefix), the root stacks, and the
/// order of the functions' names. Independent of any filter: build it once per profile. 8 bytes
/// per stack (a CSR index of `u32`s, built by a counting sort; a stack's function is read from
/// the profile) and 4 per function.
#[derive(Clone, Debug, Default)]
pub struct StackChildren {
    /// Stack `s`'s children are `child[start[s]..start[s + 1]]`.
    start: Chunked<u32>,
    /// Children, grouped by prefix, each group in index order.
    child: Chunked<u32>,
    /// Stacks without a prefix, by function, then index.
    roots: Vec<u32>,
    /// Per function, the rank of its name in byte order (see [`StackChildren::name_rank`]).
    name_rank: Vec<u32>,
}

impl StackChildren {
    /// Indexes `profile`'s stack table.
    pub fn new(profile: &Profile) -> Self {
        // First, while the sort's scratch space is the only other thing held.
        let name_rank = name_ranks(profile);
        let n = profile.stacks.len();
        let mut start = Chunked::from_elem(0u32, n + 1);
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
        // By function, as the descent groups them, so that its sort of the roots' pairs finds
        // them in order (an unsymbolized system-wide profile has ~1M roots: truncated stacks).
        let mut keyed: Vec<(u32, u32)> =
            roots.iter().map(|&s| (Self::func(profile, s), s)).collect();
        keyed.sort_unstable();
        roots.clear();
        roots.extend(keyed.iter().map(|&(_, s)| s));
        drop(keyed);
        roots.shrink_to_fit();
        for i in 1..start.len() {
            let prev = start.get(i - 1).copied().unwrap_or(0);
            if let Some(c) = start.get_mut(i) {
                *c += prev;
            }
        }
        let mut child = Chunked::from_elem(0u32, start.last().copied().unwrap_or(0) as usize);
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
        if let Some(c) = start.get_mut(0) {
            *c = 0;
        }
        StackChildren {
            start,
            child,
            roots,
            name_rank,
        }
    }

    /// Where function `f`'s name sorts among the profile's function names: `name_rank(a) <
    /// name_rank(b)` exactly when `a`'s name is before `b`'s in byte order (a missing function
    /// sorts as the empty name).
    pub fn name_rank(&self, f: u32) -> u32 {
        self.name_rank.get(f as usize).copied().unwrap_or(0)
    }

    /// The children of stack `s`.
    pub fn children(&self, s: u32) -> impl Iterator<Item = u32> + '_ {
        let a = self.start.get(s as usize).copied().unwrap_or(0) as usize;
        let b = self.start.get(s as usize + 1).copied().unwrap_or(0) as usize;
        (a..b).filter_map(|i| self.child.get(i).copied())
    }

    /// How many children stack `s` has.
    pub fn child_count(&self, s: u32) -> usize {
        let a = self.start.get(s as usize).copied().unwrap_or(0) as usize;
        let b = self.start.get(s as usize + 1).copied().unwrap_or(0) as usize;
        b.saturating_sub(a)
    }

    /// The root stacks, by function (index of their leaf frame's function), then index.
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
        self.start.heap_bytes()
            + self.child.heap_bytes()
            + vec_bytes(&self.roots)
            + vec_bytes(&self.name_rank)
    }
}

/// Below this many stacks per kept sample, [`StackWeights::new`] adds each sample's weight
/// along its chain of prefixes instead of passing over every stack (a chain is a stack's depth
/// long: tens of steps).
const CHAIN_WALK: usize = 32;

/// Up to this many stacks, [`StackWeights::take_off`] adds the samples taken off up per stack
/// first (4 bytes a stack, 12 with periods per stack), instead of walking each one's chain.
const DENSE_TAKE_OFF: usize = 1 << 21;

/// The prefix of stack `s`, when its index is below `s`'s: a prefix is interned before the
/// stacks on it, so a walk up the chain ends even in a broken table.
fn prefix_below(profile: &Profile, s: usize) -> Option<usize> {
    profile
        .stacks
        .prefix(StackIndex(s as u32))
        .map(|p| p.index())
        .filter(|&p| p < s)
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
    samples: Chunked<u32>,
    /// The periods of the samples through each stack; empty when they all have `uniform`.
    period: Chunked<u64>,
    /// The period of every sample that passed, while they all had the same.
    uniform: Option<u64>,
    empty: Weight,
    /// The stacks that may have a self weight: each one some sample that passed ends in (a
    /// superset once samples are taken off, [`StackWeights::narrowed`]). A bit per stack, so that
    /// the inverted layout reads the self weights of these stacks only, not of all.
    leaves: StackBits,
    /// Whether the totals were added up by one pass over every stack (any stack may then have
    /// a weight), not along the chains of the leaves.
    by_pass: bool,
}

impl StackWeights {
    /// The weights of the samples that pass `filter`.
    pub fn new(profile: &Profile, filter: &SampleFilter) -> Self {
        Self::with_totals(profile, &profile.samples, filter, None)
    }

    /// The weights of the samples of `samples` — a table beside `profile`'s, on its stacks and
    /// threads, such as [`crate::offcpu::off_cpu_table`] — that pass `filter`.
    pub fn of_samples(profile: &Profile, samples: &SampleTable, filter: &SampleFilter) -> Self {
        Self::with_totals(profile, samples, filter, None)
    }

    /// The weights of the samples of `samples` at `indices` (each once; out-of-range ones are
    /// skipped), with no other filter: for a caller that has split the samples already, such as
    /// the flame graph's per-command roots.
    pub fn of_indices(profile: &Profile, samples: &SampleTable, indices: &[u32]) -> Self {
        Self::from_kept(
            profile,
            samples,
            indices.iter().map(|&i| i as usize),
            indices.len(),
            None,
        )
    }

    /// [`StackWeights::of_samples`], the totals added up by chains (`Some(true)`), by one pass
    /// (`Some(false)`) or as fits the number of samples (`None`).
    fn with_totals(
        profile: &Profile,
        samples: &SampleTable,
        filter: &SampleFilter,
        by_chains: Option<bool>,
    ) -> Self {
        if let Some(tallies) = samples
            .stack_tallies()
            .filter(|_| filter.keeps_all(samples, profile.events.len()))
        {
            return Self::of_all(profile, samples, tallies, samples.len(), by_chains);
        }
        if let Some(w) = Self::of_range(profile, samples, filter, by_chains) {
            return w;
        }
        let (range, passes) = filter.candidates(samples, &profile.threads, profile.events.len());
        let kept = range.len();
        Self::from_kept(
            profile,
            samples,
            range.filter(|&i| passes(i)),
            kept,
            by_chains,
        )
    }

    /// The weights of every sample of `samples`, from the table's tallies by stack
    /// ([`SampleTable::stack_tallies`]) rather than a pass over the samples (16M samples took
    /// ~200 ms in the page's worker), the totals added up as [`StackWeights::with_totals`] says.
    fn of_all(
        profile: &Profile,
        samples: &SampleTable,
        tallies: StackTallies<'_>,
        bound: usize,
        by_chains: Option<bool>,
    ) -> Self {
        let StackTallies {
            by_stack: tallies,
            no_stack: (no_stack, no_stack_period),
        } = tallies;
        let n = profile.stacks.len();
        let mut w = StackWeights::zeroed(n);
        w.uniform = samples.uniform_period();
        if w.uniform.is_none() && !samples.is_empty() {
            w.period = Chunked::from_elem(0, n);
        }
        w.empty = Weight {
            samples: no_stack,
            period: no_stack_period,
        };
        for (s, &(count, period)) in tallies.iter().enumerate() {
            if count == 0 {
                continue;
            }
            if s >= n {
                // (As a pass counts a sample whose stack the profile does not have.)
                w.empty.add(Weight {
                    samples: u64::from(count),
                    period,
                });
                continue;
            }
            if let Some(slot) = w.samples.get_mut(s) {
                *slot = count;
            }
            if let Some(slot) = w.period.get_mut(s) {
                *slot = period;
            }
            w.leaves.insert(s);
        }
        if by_chains.unwrap_or(bound.saturating_mul(CHAIN_WALK) < n) {
            let leaves = tallies
                .iter()
                .enumerate()
                .filter(|&(_, &(count, _))| count > 0)
                .map(|(s, _)| StackIndex(s as u32));
            w.totals_by_chains(profile, leaves);
        } else {
            w.totals_by_pass(profile);
            w.by_pass = true;
        }
        w
    }

    /// The weights of `filter`, when the time range is all there is to it and the table keeps
    /// checkpoints of its stack tallies ([`SampleTable::range_tallies`]): the tallies of the
    /// samples of the range's whole blocks from two checkpoints, the rest one by one (out of
    /// time order, the [`crate::samples::TimeSpan`]'s edges tested for the range). `None`
    /// otherwise, or when the range holds no whole block.
    fn of_range(
        profile: &Profile,
        samples: &SampleTable,
        filter: &SampleFilter,
        by_chains: Option<bool>,
    ) -> Option<Self> {
        let rest = SampleFilter {
            time_range: None,
            ..filter.clone()
        };
        if filter.time_range.is_none() || !rest.keeps_all(samples, profile.events.len()) {
            return None;
        }
        let span = filter.time_span(samples)?;
        let mut tallies = samples.range_tallies(span.inner.clone())?;
        let (start, end) = filter.time_range?;
        let times = samples.times();
        let mut bound = span.inner.len();
        for i in span
            .edges()
            .filter(|&i| times.get(i).is_some_and(|t| start <= t && t < end))
        {
            bound += 1;
            samples.add_to(&mut tallies, i);
        }
        let tallies = StackTallies {
            by_stack: &tallies.0,
            no_stack: tallies.1,
        };
        Some(Self::of_all(profile, samples, tallies, bound, by_chains))
    }

    /// The weights of the samples `kept` (at most `bound` of them), the totals added up as
    /// [`StackWeights::with_totals`] says.
    fn from_kept(
        profile: &Profile,
        samples: &SampleTable,
        kept: impl Iterator<Item = usize> + Clone,
        bound: usize,
        by_chains: Option<bool>,
    ) -> Self {
        let mut w = StackWeights::zeroed(profile.stacks.len());
        w.fill(profile, samples, kept, bound, by_chains);
        w
    }

    /// No weight on any of `n` stacks.
    fn zeroed(n: usize) -> Self {
        StackWeights {
            samples: Chunked::from_elem(0, n),
            leaves: StackBits::new(n),
            ..StackWeights::default()
        }
    }

    /// [`StackWeights::of_indices`] again, in place of these weights (of the same profile): for
    /// a caller that weighs many parts of one profile in turn, such as the flame graph's
    /// per-command roots. The old weights are taken off along the chains of their leaves when
    /// they were added up that way, so a part of a few samples costs its chains, not a pass
    /// over every stack (~20 ms a part on a profile of 62M stacks).
    pub fn refill_indices(&mut self, profile: &Profile, samples: &SampleTable, indices: &[u32]) {
        let n = profile.stacks.len();
        if self.samples.len() != n {
            *self = StackWeights::zeroed(n);
        } else {
            self.clear(profile);
        }
        self.fill(
            profile,
            samples,
            indices.iter().map(|&i| i as usize),
            indices.len(),
            None,
        );
    }

    /// Takes every weight off, keeping the room for the counts.
    fn clear(&mut self, profile: &Profile) {
        if self.by_pass {
            self.samples.fill(0);
        } else {
            // A stack with weight has a leaf at or above it, and its chain down to the root
            // is then all weighed: each walk stops at a stack another walk has zeroed.
            for leaf in self.leaves.iter() {
                let mut cur = Some(leaf as usize);
                while let Some(s) = cur {
                    match self.samples.get_mut(s) {
                        Some(count) if *count != 0 => *count = 0,
                        _ => break,
                    }
                    cur = prefix_below(profile, s);
                }
            }
        }
        self.leaves.clear();
        self.period = Chunked::default();
        self.uniform = None;
        self.empty = Weight::default();
        self.by_pass = false;
    }

    /// Adds the weights of the samples `kept` (at most `bound` of them) to these, which are
    /// zero, the totals added up as [`StackWeights::with_totals`] says.
    fn fill(
        &mut self,
        profile: &Profile,
        samples: &SampleTable,
        kept: impl Iterator<Item = usize> + Clone,
        bound: usize,
        by_chains: Option<bool>,
    ) {
        let n = profile.stacks.len();
        let w = self;
        // Self weights: the counts, and the periods only once two differ.
        let mut first = true;
        for i in kept.clone() {
            let (Some(stack), Some(period)) = (samples.stack(i), samples.period(i)) else {
                continue;
            };
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
                    w.leaves.insert(s);
                    if let Some(p) = w.period.get_mut(s) {
                        *p = p.saturating_add(period);
                    }
                }
                None => w.empty.add(Weight { samples: 1, period }),
            }
        }
        // Self weights into totals. A prefix has a smaller index than the stacks built on it:
        // one backward pass over all stacks does it in place; for a few samples (a narrow
        // time selection), walking from each sample's stack to its root touches less.
        if by_chains.unwrap_or(bound.saturating_mul(CHAIN_WALK) < n) {
            w.totals_by_chains(profile, kept.filter_map(|i| samples.stack(i).flatten()));
        } else {
            w.totals_by_pass(profile);
            w.by_pass = true;
        }
    }

    fn totals_by_pass(&mut self, profile: &Profile) {
        for i in (0..self.samples.len()).rev() {
            let Some(p) = prefix_below(profile, i) else {
                continue;
            };
            let c = self.samples.get(i).copied().unwrap_or(0);
            if let Some(slot) = self.samples.get_mut(p) {
                *slot = slot.saturating_add(c);
            }
            let t = self.period.get(i).copied().unwrap_or(0);
            if let Some(slot) = self.period.get_mut(p) {
                *slot = slot.saturating_add(t);
            }
        }
    }

    /// Totals from self weights by adding each stack's self weight to its prefixes, for the
    /// distinct stacks among `stacks` (those the samples that passed have, and maybe more
    /// without weight).
    fn totals_by_chains(&mut self, profile: &Profile, stacks: impl Iterator<Item = StackIndex>) {
        // Each stack with a self weight once (its own weight is then moved out to be added
        // back along its chain, itself included).
        let mut leaves: Vec<u32> = stacks.map(|s| s.0).collect();
        leaves.sort_unstable();
        leaves.dedup();
        let own: Vec<(u32, u64)> = leaves
            .iter()
            .map(|&s| {
                (
                    self.samples.get(s as usize).copied().unwrap_or(0),
                    self.period.get(s as usize).copied().unwrap_or(0),
                )
            })
            .collect();
        for (&s, &(count, period)) in leaves.iter().zip(&own) {
            if count == 0 {
                continue;
            }
            let mut cur = s as usize;
            // Its own slot already holds its self weight; the prefixes get it added.
            while let Some(p) = prefix_below(profile, cur) {
                cur = p;
                if let Some(slot) = self.samples.get_mut(cur) {
                    *slot = slot.saturating_add(count);
                }
                if let Some(slot) = self.period.get_mut(cur) {
                    *slot = slot.saturating_add(period);
                }
            }
        }
    }

    /// The weights of `filter` from `whole`, the weights of the same filter without its time
    /// range: `whole` less the samples outside the range ([`StackWeights::take_off`]; out of
    /// time order, those outside its [`crate::samples::TimeSpan`] and those of the span's edges
    /// outside the range). `None` when that is not the shorter way or when `filter` has no
    /// time range: then [`StackWeights::new`] is. The shorter way: up to twice as
    /// many samples outside the range as inside on a table of at most [`DENSE_TAKE_OFF`] stacks,
    /// where the samples taken off are summed per stack first (big1500-g's middle half:
    /// natively 41–43 ms taking 8.5M samples off against 65 ms weighing 8.5M; a 45 % range in
    /// the page's worker 76 ms against 82 ms); fewer outside than inside otherwise.
    pub fn narrowed(
        whole: &StackWeights,
        profile: &Profile,
        filter: &SampleFilter,
    ) -> Option<StackWeights> {
        let samples = &profile.samples;
        // From the table's checkpoints, shorter still.
        if let Some(w) = Self::of_range(profile, samples, filter, None) {
            return Some(w);
        }
        // Out of time order, the samples of the span's edges out of the range are taken off
        // too.
        let span = filter.time_span(samples)?;
        let inside = span.outer.clone();
        let outside = samples.len() - inside.len();
        let most = if whole.samples.len() <= DENSE_TAKE_OFF {
            inside.len().saturating_mul(2)
        } else {
            inside.len()
        };
        if outside >= most || whole.samples.len() != profile.stacks.len() {
            return None;
        }
        let rest = SampleFilter {
            time_range: None,
            ..filter.clone()
        };
        let (_, passes) = rest.candidates(samples, &profile.threads, profile.events.len());
        let (start, end) = filter.time_range?;
        let times = samples.times();
        let out_of_range = |&i: &usize| times.get(i).is_some_and(|t| t < start || t >= end);
        let taken = (0..inside.start)
            .chain(inside.end..samples.len())
            .chain(span.edges().filter(out_of_range))
            .filter(|&i| passes(i));
        Some(StackWeights::without(whole, profile, samples, taken))
    }

    /// The weights of `base` (of the samples of `samples` that passed some filter) less those of
    /// the samples at `taken` (each of them among those that passed, once): for a part of the
    /// samples that holds most of them, such as the busiest command's, the shorter way than
    /// weighing the part. The leaves are then `base`'s, a superset.
    pub fn without(
        base: &StackWeights,
        profile: &Profile,
        samples: &SampleTable,
        taken: impl Iterator<Item = usize>,
    ) -> StackWeights {
        let mut w = base.clone();
        w.take_off(profile, samples, taken);
        w
    }

    /// Takes the samples of `samples` at `taken` off. On a table of at most [`DENSE_TAKE_OFF`]
    /// stacks, their weights are first added up per stack (a count, and a period sum when
    /// these weights keep one per stack), then taken off along the chain of each stack they
    /// end in, or by one backward pass over every stack when those are many: a step per sample
    /// rather than a chain's tens (a refilter to half of big1500-g's 17M samples took ~65 ms
    /// natively along each sample's chain). On a bigger table, each sample along its chain,
    /// without the per-stack sums' memory.
    fn take_off(
        &mut self,
        profile: &Profile,
        samples: &SampleTable,
        taken: impl Iterator<Item = usize>,
    ) {
        let n = self.samples.len();
        if n > DENSE_TAKE_OFF {
            self.take_off_by_chains(profile, samples, taken);
            return;
        }
        let mut count = vec![0u32; n];
        let mut period_sum = vec![0u64; if self.period.is_empty() { 0 } else { n }];
        // The stacks the taken samples end in, each once.
        let mut ends = Vec::new();
        for i in taken {
            let period = samples.period(i).unwrap_or(0);
            let Some(stack) = samples.stack(i).flatten() else {
                self.empty.sub(Weight { samples: 1, period });
                continue;
            };
            let s = stack.index();
            if let Some(c) = count.get_mut(s) {
                if *c == 0 {
                    ends.push(s);
                }
                *c = c.saturating_add(1);
            }
            if let Some(p) = period_sum.get_mut(s) {
                *p = p.saturating_add(period);
            }
        }
        if ends.len().saturating_mul(CHAIN_WALK) < n {
            for &end in &ends {
                let c = count.get(end).copied().unwrap_or(0);
                let t = period_sum.get(end).copied().unwrap_or(0);
                self.sub_along_chain(profile, end, c, t);
            }
        } else {
            // Totals of the taken weights (a prefix's index is below its stacks'), taken off.
            for s in (0..n).rev() {
                let c = count.get(s).copied().unwrap_or(0);
                let t = period_sum.get(s).copied().unwrap_or(0);
                if c == 0 && t == 0 {
                    continue;
                }
                if let Some(p) = prefix_below(profile, s) {
                    if let Some(slot) = count.get_mut(p) {
                        *slot = slot.saturating_add(c);
                    }
                    if let Some(slot) = period_sum.get_mut(p) {
                        *slot = slot.saturating_add(t);
                    }
                }
                self.sub_at(s, c, t);
            }
        }
    }

    /// Takes `count` samples and `period` off the totals of stack `end` and of each of its
    /// prefixes.
    fn sub_along_chain(&mut self, profile: &Profile, end: usize, count: u32, period: u64) {
        let mut cur = Some(end);
        while let Some(s) = cur {
            self.sub_at(s, count, period);
            cur = prefix_below(profile, s);
        }
    }

    /// Takes `count` samples and `period` off stack `s`'s total.
    fn sub_at(&mut self, s: usize, count: u32, period: u64) {
        if let Some(slot) = self.samples.get_mut(s) {
            *slot = slot.saturating_sub(count);
        }
        if let Some(slot) = self.period.get_mut(s) {
            *slot = slot.saturating_sub(period);
        }
    }

    /// [`StackWeights::take_off`], each sample along its chain of prefixes.
    fn take_off_by_chains(
        &mut self,
        profile: &Profile,
        samples: &SampleTable,
        taken: impl Iterator<Item = usize>,
    ) {
        for i in taken {
            let period = samples.period(i).unwrap_or(0);
            let Some(stack) = samples.stack(i).flatten() else {
                self.empty.sub(Weight { samples: 1, period });
                continue;
            };
            self.sub_along_chain(profile, stack.index(), 1, period);
        }
    }

    /// Switches from one period for all to a period sum per stack (the counts so far times the
    /// period they all had).
    fn spread_periods(&mut self, n: usize) {
        let u = self.uniform.take().unwrap_or(0);
        self.period = self
            .samples
            .iter()
            .map(|&c| u.saturating_mul(u64::from(c)))
            .collect();
        while self.period.len() < n {
            self.period.push(0);
        }
    }

    /// Weight of the samples whose stack is `s` or starts with it.
    pub fn total(&self, s: u32) -> Weight {
        let samples = self.samples.get(s as usize).copied().unwrap_or(0);
        let period = match self.uniform {
            Some(u) => u.saturating_mul(u64::from(samples)),
            None => self.period.get(s as usize).copied().unwrap_or(0),
        };
        Weight {
            samples: u64::from(samples),
            period,
        }
    }

    /// The stacks that may have a self weight ([`StackWeights::self_weight`] is zero for every
    /// other stack), ascending.
    pub fn leaves(&self) -> impl Iterator<Item = u32> + '_ {
        self.leaves.iter()
    }

    /// Weight of the samples whose stack is `s` exactly (`children` indexes the same profile).
    pub fn self_weight(&self, s: u32, children: &StackChildren) -> Weight {
        let mut w = self.total(s);
        for c in children.children(s) {
            let t = self.total(c);
            w.samples = w.samples.saturating_sub(t.samples);
            w.period = w.period.saturating_sub(t.period);
        }
        w
    }

    /// The period every sample that passed has, when they all have the same (a total period
    /// is then the count times it).
    pub fn uniform_period(&self) -> Option<u64> {
        self.uniform
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
        self.samples.heap_bytes() + self.period.heap_bytes() + self.leaves.heap_bytes()
    }

    /// The weight of the samples whose stack has a function for which `matches` is true (each
    /// sample once, however many of its frames match): the totals of the matching stacks whose
    /// prefix does not match.
    pub fn matching(&self, profile: &Profile, matches: impl FnMut(FuncIndex) -> bool) -> Weight {
        let hit = StackBits::containing(profile, matches);
        let mut sum = Weight::default();
        for i in hit.iter() {
            let first = profile
                .stacks
                .get(StackIndex(i))
                .and_then(|s| s.prefix)
                .is_none_or(|p| !hit.contains(p.index()));
            if first {
                sum.add(self.total(i));
            }
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::EventIndex;
    use crate::text_samples::profile_from_text_samples;

    #[test]
    fn stack_bits_hold_the_stacks_with_a_function_and_every_stack_above_them() {
        // Columns are samples, root first: main;a;b  main;b  other;a  main;a
        let p = profile_from_text_samples("main main other main\na    b    a     a\nb\n").unwrap();
        let names = |set: &StackBits| -> Vec<String> {
            let mut v: Vec<String> = set
                .iter()
                .map(|s| {
                    let mut fs: Vec<&str> = p
                        .stacks
                        .frames_leaf_first(Some(StackIndex(s)))
                        .map(|f| p.func_name(p.frame_func(f).unwrap()))
                        .collect();
                    fs.reverse();
                    fs.join(";")
                })
                .collect();
            v.sort();
            v
        };
        let func = |name: &str| {
            (0..p.funcs.len() as u32)
                .map(FuncIndex)
                .find(|&f| p.func_name(f) == name)
                .unwrap()
        };
        let (a, b) = (func("a"), func("b"));
        let mut asked = Vec::new();
        let with_a = StackBits::containing(&p, |f| {
            asked.push(f);
            f == a
        });
        assert_eq!(names(&with_a), ["main;a", "main;a;b", "other;a"]);
        // Each function is asked about once.
        asked.sort();
        asked.dedup();
        assert_eq!(asked.len(), p.funcs.len());
        assert_eq!(
            names(&StackBits::containing(&p, |f| f == b)),
            ["main;a;b", "main;b"]
        );
        assert!(StackBits::containing(&p, |_| false).iter().next().is_none());
        let all = StackBits::containing(&p, |_| true);
        assert_eq!(all.iter().count(), p.stacks.len());
        assert!(!all.contains(p.stacks.len()), "out of range");
    }

    #[test]
    fn totals_by_chains_equal_totals_by_one_pass() {
        // Stacks sharing prefixes, a recursion, periods that differ, two threads.
        let p = profile_from_text_samples(
            "
tid:    1 1 2 1 2 1 2 1
period: 1 2 1 5 1 1 3 2
        A A A B A A A A
        B B C B B A A B
        C D   A C A A
              A   A
",
        )
        .unwrap();
        let n = p.samples.len() as u64;
        let children = StackChildren::new(&p);
        let with_self_weight = |w: &StackWeights| {
            (0..p.stacks.len() as u32)
                .filter(|&s| w.self_weight(s, &children).samples > 0)
                .collect::<Vec<_>>()
        };
        let mut narrowed = 0;
        for start in 0..n {
            for end in start..=n + 1 {
                for tids in [vec![], vec![1]] {
                    let f = SampleFilter {
                        time_range: Some((start, end)),
                        tids: tids.clone(),
                        ..SampleFilter::all()
                    };
                    let (a, b) = (
                        StackWeights::with_totals(&p, &p.samples, &f, Some(true)),
                        StackWeights::with_totals(&p, &p.samples, &f, Some(false)),
                    );
                    let totals = |w: &StackWeights| {
                        (0..p.stacks.len() as u32)
                            .map(|s| w.total(s))
                            .collect::<Vec<_>>()
                    };
                    assert_eq!(totals(&a), totals(&b), "{f:?}");
                    assert_eq!(totals(&a), brute(&p, &f), "{f:?}");
                    assert_eq!((a.empty(), a.uniform), (b.empty(), b.uniform), "{f:?}");
                    // The leaves: exactly the stacks with a self weight.
                    for w in [&a, &b] {
                        assert_eq!(w.leaves().collect::<Vec<_>>(), with_self_weight(w));
                    }
                    // From the weights of the whole time, when most samples are in the range.
                    let whole = StackWeights::new(
                        &p,
                        &SampleFilter {
                            tids,
                            ..SampleFilter::all()
                        },
                    );
                    if let Some(c) = StackWeights::narrowed(&whole, &p, &f) {
                        assert_eq!((totals(&c), c.empty()), (totals(&b), b.empty()), "{f:?}");
                        // Here a superset: the whole time's.
                        let leaves: Vec<u32> = c.leaves().collect();
                        assert_eq!(leaves, whole.leaves().collect::<Vec<_>>());
                        assert!(with_self_weight(&c).iter().all(|s| leaves.contains(s)));
                        narrowed += 1;
                    }
                }
            }
        }
        assert!(narrowed > 10, "{narrowed}");
        // The same samples out of time order (two times swapped, as a late record's sample
        // comes after later ones): the weights from the whole time's still exact.
        let mut late = p.clone();
        late.samples = SampleTable::new();
        for i in 0..p.samples.len() {
            let mut s = p.samples.get(i).unwrap();
            let swapped = [(2, 5), (5, 2)].iter().find(|&&(a, _)| a == i);
            if let Some(&(_, b)) = swapped {
                s.time = p.samples.times().get(b).unwrap();
            }
            late.samples.push(s).unwrap();
        }
        assert!(late.samples.lateness() > 0);
        let mut narrowed = 0;
        for start in 0..n {
            for end in start..=n + 1 {
                let f = SampleFilter {
                    time_range: Some((start, end)),
                    ..SampleFilter::all()
                };
                let b = StackWeights::with_totals(&late, &late.samples, &f, Some(false));
                let totals = |w: &StackWeights| {
                    (0..late.stacks.len() as u32)
                        .map(|s| w.total(s))
                        .collect::<Vec<_>>()
                };
                assert_eq!(totals(&b), brute(&late, &f), "{f:?} out of order");
                let whole = StackWeights::new(&late, &SampleFilter::all());
                if let Some(c) = StackWeights::narrowed(&whole, &late, &f) {
                    assert_eq!(totals(&c), totals(&b), "{f:?} out of order");
                    narrowed += 1;
                }
            }
        }
        assert!(narrowed > 5, "{narrowed}");
        // By hand, all samples: the root A is in every sample but B;B;A;A (period 5).
        for by_chains in [true, false] {
            let w =
                StackWeights::with_totals(&p, &p.samples, &SampleFilter::all(), Some(by_chains));
            assert_eq!(
                w.total(0),
                Weight {
                    samples: 7,
                    period: 1 + 2 + 1 + 1 + 1 + 3 + 2
                }
            );
        }
        // Thread 1 in times 1..6: A;B;D (2), B;B;A;A (5), A;A;A;A (1): A 2 samples, period 3.
        let f = SampleFilter {
            time_range: Some((1, 6)),
            tids: vec![1],
            ..SampleFilter::all()
        };
        let w = StackWeights::with_totals(&p, &p.samples, &f, Some(true));
        assert_eq!(
            w.total(0),
            Weight {
                samples: 2,
                period: 3
            }
        );
    }

    #[test]
    fn weights_refilled_in_place_or_taken_off_equal_those_weighed_afresh() {
        // 240 samples over four threads, stacks R{j%3};F{j%17};G{j%29} (~300 stacks): a few
        // picked samples are added up by chains, many by one pass. Periods differ on thread 4.
        let n = 240;
        // (Frame rows are read by column position: every token 4 wide.)
        let row = |f: &dyn Fn(usize) -> String| {
            (0..n).map(|j| format!("{:<4}", f(j))).collect::<String>()
        };
        let text = format!(
            "tid: {}\nperiod: {}\n{}\n{}\n{}\n",
            row(&|j| (1 + j % 4).to_string()),
            row(&|j| if j % 4 == 3 { 1 + j % 5 } else { 1 }.to_string()),
            row(&|j| format!("R{}", j % 3)),
            row(&|j| format!("F{}", j % 17)),
            row(&|j| format!("G{}", j % 29)),
        );
        let p = profile_from_text_samples(&text).unwrap();
        assert!(p.stacks.len() > 200, "{}", p.stacks.len());
        let of_tids = |tids: &[u32]| SampleFilter {
            tids: tids.to_vec(),
            ..SampleFilter::all()
        };
        let picked = |f: &SampleFilter| -> Vec<u32> {
            (0..p.samples.len())
                .filter(|&i| f.matches(&p.samples, &p.threads, i))
                .map(|i| i as u32)
                .collect()
        };
        let totals = |w: &StackWeights| -> Vec<Weight> {
            (0..p.stacks.len() as u32).map(|s| w.total(s)).collect()
        };
        // Parts in turn: chains (2 samples), a pass (a thread), chains after a pass, uneven
        // periods, none, all.
        let parts: Vec<Vec<u32>> = vec![
            vec![5, 77],
            picked(&of_tids(&[2])),
            vec![1],
            vec![3, 7, 11],
            vec![],
            vec![4, 9],
            picked(&SampleFilter::all()),
            vec![200],
        ];
        let mut w = StackWeights::default();
        let mut passes = 0;
        for part in &parts {
            w.refill_indices(&p, &p.samples, part);
            let fresh = StackWeights::of_indices(&p, &p.samples, part);
            assert_eq!(totals(&w), totals(&fresh), "{part:?}");
            assert_eq!(
                w.leaves().collect::<Vec<_>>(),
                fresh.leaves().collect::<Vec<_>>()
            );
            assert_eq!((w.empty(), w.uniform), (fresh.empty(), fresh.uniform));
            passes += usize::from(w.by_pass);
        }
        assert!(passes >= 2 && passes < parts.len(), "{passes}");
        // Threads 1 to 3 from the weights of all, less thread 4's samples.
        let all = StackWeights::new(&p, &SampleFilter::all());
        let rest = picked(&of_tids(&[4]));
        let three = StackWeights::without(&all, &p, &p.samples, rest.iter().map(|&i| i as usize));
        assert_eq!(totals(&three), brute(&p, &of_tids(&[1, 2, 3])));
        assert_ne!(totals(&three), totals(&all));
        // The three ways of taking samples off agree with weighing the rest afresh: summed per
        // stack, then by one pass (thread 4's 60 samples end in more than a 32nd of the ~300
        // stacks) or along the chains of the few stacks they end in (2 or 4 samples); and each
        // sample along its chain (tables over DENSE_TAKE_OFF stacks). Thread 4's periods
        // differ, so the periods per stack are taken off too.
        assert!(!all.period.is_empty());
        for off in [rest.clone(), vec![5, 77], vec![3, 7, 11, 200]] {
            let kept: Vec<u32> = (0..p.samples.len() as u32)
                .filter(|i| !off.contains(i))
                .collect();
            let fresh = StackWeights::of_indices(&p, &p.samples, &kept);
            let taken = || off.iter().map(|&i| i as usize);
            let summed = StackWeights::without(&all, &p, &p.samples, taken());
            let mut chains = all.clone();
            chains.take_off_by_chains(&p, &p.samples, taken());
            for w in [&summed, &chains] {
                assert_eq!(totals(w), totals(&fresh), "{off:?}");
                assert_eq!(w.empty(), fresh.empty(), "{off:?}");
            }
        }
    }

    /// Per stack, the weight of the samples passing `f` whose stack is it or starts with it,
    /// counted sample by sample.
    fn brute(p: &Profile, f: &SampleFilter) -> Vec<Weight> {
        let mut out = vec![Weight::default(); p.stacks.len()];
        for i in 0..p.samples.len() {
            if !f.matches(&p.samples, &p.threads, i) {
                continue;
            }
            let mut cur = p.samples.stack(i).unwrap();
            while let Some(s) = cur {
                out[s.index()].add(Weight {
                    samples: 1,
                    period: p.samples.period(i).unwrap(),
                });
                cur = p.stacks.get(s).unwrap().prefix;
            }
        }
        out
    }

    #[test]
    fn the_whole_tables_weights_from_its_tallies_equal_a_pass_over_its_samples() {
        // Periods that differ, then all the same; one event of two picked.
        for text in [
            "
tid:    1 1 2 1 2 1
period: 1 2 1 5 1 3
        A A A B A A
        B B C B B A
        C D   A C
",
            "
tid:    1 2 2 1
period: 7 7 7 7
        A A B A
        B   C B
",
        ] {
            let p = profile_from_text_samples(text).unwrap();
            let n = p.samples.len();
            let totals = |w: &StackWeights| {
                (0..p.stacks.len() as u32)
                    .map(|s| w.total(s))
                    .collect::<Vec<_>>()
            };
            for f in [
                SampleFilter::all(),
                SampleFilter {
                    events: vec![EventIndex(0)],
                    ..SampleFilter::all()
                },
            ] {
                assert!(f.keeps_all(&p.samples, p.events.len()));
                for by_chains in [Some(true), Some(false), None] {
                    let fast = StackWeights::with_totals(&p, &p.samples, &f, by_chains);
                    let pass = StackWeights::from_kept(&p, &p.samples, 0..n, n, by_chains);
                    assert_eq!(totals(&fast), brute(&p, &f));
                    assert_eq!(totals(&fast), totals(&pass));
                    assert_eq!(
                        (fast.empty(), fast.uniform, fast.by_pass),
                        (pass.empty(), pass.uniform, pass.by_pass)
                    );
                    assert!(fast.leaves().eq(pass.leaves()));
                }
            }
        }
    }

    #[test]
    fn a_time_ranges_weights_from_checkpoints_equal_a_pass_over_its_samples() {
        use crate::samples::{Sample, CHECKPOINT};
        let p = profile_from_text_samples(
            "
tid:    1 1 2 1
period: 1 2 1 5
        A A A B
        B B C B
        C D   A
",
        )
        .unwrap();
        // Three and a half blocks of samples on those stacks (and none), periods that differ,
        // times in order but for a few late ones.
        let stacks = p.stacks.len() as u32;
        let n = 3 * CHECKPOINT + CHECKPOINT / 2;
        let late = [5, CHECKPOINT - 1, CHECKPOINT + 7, 2 * CHECKPOINT + 3];
        let mut table = SampleTable::new();
        for i in 0..n {
            let k = i as u32;
            let time = 10 * i as u64 - if late.contains(&i) { 25 } else { 0 };
            table
                .push(Sample {
                    time,
                    thread: p.samples.get(0).unwrap().thread,
                    cpu: 0,
                    event: EventIndex(0),
                    stack: (!k.is_multiple_of(7)).then_some(StackIndex(k % stacks)),
                    period: u64::from(k % 5 + 1),
                })
                .unwrap();
        }
        assert!(table.lateness() > 0);
        let totals = |w: &StackWeights| {
            (0..p.stacks.len() as u32)
                .map(|s| w.total(s))
                .collect::<Vec<_>>()
        };
        let block = 10 * CHECKPOINT as u64;
        let mut from_checkpoints = 0;
        for (start, end) in [
            (0, 10 * n as u64),
            (block - 40, 2 * block + 15),
            (3, 3 * block + 1),
            (block, 2 * block),
            (block + 10, 2 * block - 10),
            (55, 60),
        ] {
            let f = SampleFilter {
                time_range: Some((start, end)),
                ..SampleFilter::all()
            };
            let kept: Vec<usize> = (0..n)
                .filter(|&i| f.matches(&table, &p.threads, i))
                .collect();
            let pass = StackWeights::from_kept(&p, &table, kept.iter().copied(), n, Some(false));
            let span = f.time_span(&table).unwrap();
            from_checkpoints += usize::from(table.range_tallies(span.inner).is_some());
            let w = StackWeights::of_samples(&p, &table, &f);
            assert_eq!(totals(&w), totals(&pass), "{start}..{end}");
            assert_eq!(w.empty(), pass.empty(), "{start}..{end}");
        }
        assert_eq!(from_checkpoints, 3);
    }

    #[test]
    fn weights_count_the_samples_that_pass_in_time_order_or_not() {
        // Times out of order (a profile built by hand), two events, two threads.
        let p = profile_from_text_samples(
            "
time:   5 1 3 0 4 2
event:  a b a a b a
tid:    1 2 1 1 2 2
        A A B A A A
        B C B B C
        C   A   D
",
        )
        .unwrap();
        assert!(!p.samples.times().is_sorted());
        let events = [
            vec![],
            vec![EventIndex(0)],
            vec![EventIndex(0), EventIndex(1)],
        ];
        for (start, end) in [(0, 6), (1, 4), (2, 3), (3, 3), (0, 100)] {
            for ev in &events {
                for tids in [vec![], vec![2]] {
                    let f = SampleFilter {
                        time_range: Some((start, end)),
                        events: ev.clone(),
                        tids,
                        ..SampleFilter::all()
                    };
                    for by_chains in [Some(true), Some(false), None] {
                        let w = StackWeights::with_totals(&p, &p.samples, &f, by_chains);
                        let got: Vec<Weight> =
                            (0..p.stacks.len() as u32).map(|s| w.total(s)).collect();
                        assert_eq!(got, brute(&p, &f), "{f:?} {by_chains:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn weights_of_sample_indices_equal_those_of_the_filter_that_picks_them() {
        let p = profile_from_text_samples(
            "
time:   5 1 3 0 4 2
tid:    1 2 1 1 2 2
        A A B A A A
        B C B B C
        C   A   D
",
        )
        .unwrap();
        for tids in [vec![1], vec![2], vec![1, 2]] {
            let f = SampleFilter {
                tids: tids.clone(),
                ..SampleFilter::all()
            };
            let picked: Vec<u32> = (0..p.samples.len())
                .filter(|&i| f.matches(&p.samples, &p.threads, i))
                .map(|i| i as u32)
                .collect();
            // Indices past the end are skipped.
            let with_stray: Vec<u32> = picked.iter().copied().chain([99]).collect();
            let w = StackWeights::of_indices(&p, &p.samples, &with_stray);
            let got: Vec<Weight> = (0..p.stacks.len() as u32).map(|s| w.total(s)).collect();
            assert_eq!(got, brute(&p, &f), "{tids:?}");
        }
        let none = StackWeights::of_indices(&p, &p.samples, &[]);
        assert!((0..p.stacks.len() as u32).all(|s| none.total(s) == Weight::default()));
    }

    #[test]
    fn name_ranks_follow_the_byte_order_of_names() {
        let p =
            profile_from_text_samples("b a ab a b Ab aaaaaaaaaaaaaaaaaaab aaaaaaaaaaaaaaaaaaa\n")
                .unwrap();
        let children = StackChildren::new(&p);
        let mut by_rank: Vec<(u32, &str)> = (0..p.funcs.len() as u32)
            .map(|f| (children.name_rank(f), p.func_name(FuncIndex(f))))
            .collect();
        by_rank.sort();
        let mut by_name: Vec<&str> = by_rank.iter().map(|r| r.1).collect();
        by_name.sort();
        assert_eq!(by_rank.iter().map(|r| r.1).collect::<Vec<_>>(), by_name);
        // Equal names, equal ranks; different names, different ranks.
        for x in &by_rank {
            for y in &by_rank {
                assert_eq!(x.0 == y.0, x.1 == y.1, "{x:?} {y:?}");
            }
        }
        assert_eq!(children.name_rank(u32::MAX), 0);
    }
}
