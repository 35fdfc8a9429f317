//! The tree query: the flame layout of the filtered samples' call tree, pruned to what a screen
//! can show (`perfscope_analysis::pruned_tree`), as columns; and the search query's matched
//! weight over all of the samples.

use perfscope_analysis::call_tree::Weight;
use perfscope_analysis::flame_graph::WeightKind as AnalysisWeight;
use perfscope_analysis::ids::{EventIndex, FuncIndex};
use perfscope_analysis::profile::Profile;
use perfscope_analysis::pruned_tree::{
    leaf_stacks, pruned_flame, pruned_flame_of, PruneOptions, PrunedFlame, PrunedNode,
    StackChildren, StackWeights, LEAF_WALK,
};
use perfscope_analysis::samples::{SampleFilter, SampleTable};

use super::events::EventMap;
use super::timeline::Timeline;
use crate::protocol::{Filter, SearchReply, TreeMeta, TreeNodes, TreeReply, WeightKind};
use crate::selectors::Command;

/// The analysis filter for a view filter. `range` is inclusive; the analysis range is
/// half-open.
pub fn sample_filter(filter: &Filter, timeline: &Timeline, events: &EventMap) -> SampleFilter {
    let mut f = SampleFilter::all();
    if let Some((start, end)) = filter.range {
        f.time_range = Some((start, end.saturating_add(1)));
    }
    if let Some(e) = filter.event {
        // An attr without samples has no profile event: match nothing.
        f.events = vec![events
            .to_profile
            .get(e as usize)
            .copied()
            .flatten()
            .unwrap_or(EventIndex(u32::MAX))];
    }
    for &lane in &filter.threads {
        if let Some(t) = timeline.threads.get(lane as usize) {
            f.pids.push(t.pid);
            f.tids.push(t.tid);
        }
    }
    f
}

/// What tree queries weigh: the profile's samples, or with [`Filter::off_cpu`] its off-CPU
/// table (samples on the same stacks and threads, weighed by ns switched out).
#[derive(Clone, Copy)]
pub struct Samples<'a> {
    /// The profile.
    pub profile: &'a Profile,
    /// Its off-CPU time (empty without context switches).
    pub off_cpu: &'a SampleTable,
}

/// Boxes narrower than `1 / DETAIL` of the graph (or of the zoom root, below it) are left out
/// of tree replies: a few per pixel on any screen.
pub const DETAIL: u64 = 8192;

/// What tree and search queries reuse: the stack table's children index (per profile
/// generation) and the per-stack weights of the last filter, so that a zoom, a change of
/// direction or weight kind, or a search is a descent only; and while the last filter has a
/// time range, the weights of the last one without (`whole`), from which a selection of most of
/// the time is computed by taking off the samples outside it.
#[derive(Default)]
pub struct TreeCache {
    generation: u32,
    children: Option<StackChildren>,
    weights: (Option<Filter>, StackWeights),
    whole: (Option<Filter>, StackWeights),
    /// The samples of the last tree grouped by command, by command (see [`CommandSamples`]).
    commands: Option<CommandSamples>,
}

impl TreeCache {
    /// The children index and the weights of the samples passing `filter`, made unless kept
    /// from the last call with the same generation (and filter). Called without a query, it
    /// makes what the first tree query would (`Session::prewarm`).
    pub fn prepare(
        &mut self,
        samples: &Samples<'_>,
        timeline: &Timeline,
        events: &EventMap,
        filter: &Filter,
        generation: u32,
    ) -> (&StackChildren, &StackWeights) {
        if self.generation != generation {
            *self = TreeCache {
                generation,
                ..TreeCache::default()
            };
        }
        // The samples by command are kept while trees of their filter are asked for.
        if self.commands.as_ref().is_some_and(|c| &c.filter != filter) {
            self.commands = None;
        }
        let TreeCache {
            children,
            weights,
            whole,
            ..
        } = self;
        // The index first: its name sort's scratch space is then the only other thing held.
        let children = children.get_or_insert_with(|| StackChildren::new(samples.profile));
        if weights.0.as_ref() != Some(filter) {
            let old = std::mem::take(weights);
            if old.0.as_ref().is_some_and(|f| f.range.is_none()) {
                *whole = old;
            }
            // (Other old weights are freed before the new ones are computed.)
            *weights = if whole.0.as_ref() == Some(filter) {
                std::mem::take(whole)
            } else {
                (
                    Some(filter.clone()),
                    refilter(samples, timeline, events, filter, whole),
                )
            };
        }
        (children, &weights.1)
    }

    /// The children index alone (what a tree grouped by command needs: its weights are per
    /// command), made unless kept for this generation.
    pub fn children(&mut self, profile: &Profile, generation: u32) -> &StackChildren {
        self.children_and_weights(profile, generation, None).0
    }

    /// [`TreeCache::children`], and the weights of `filter` when they are kept.
    fn children_and_weights(
        &mut self,
        profile: &Profile,
        generation: u32,
        filter: Option<&Filter>,
    ) -> (&StackChildren, Option<&StackWeights>) {
        if self.generation != generation {
            *self = TreeCache {
                generation,
                ..TreeCache::default()
            };
        }
        let weights =
            (filter.is_some() && self.weights.0.as_ref() == filter).then_some(&self.weights.1);
        let children = self
            .children
            .get_or_insert_with(|| StackChildren::new(profile));
        (children, weights)
    }

    /// The samples by command kept from the last tree grouped by command (taken out: put back
    /// once used), when of this generation.
    fn take_commands(&mut self, generation: u32) -> Option<CommandSamples> {
        if self.generation != generation {
            *self = TreeCache {
                generation,
                ..TreeCache::default()
            };
        }
        self.commands.take()
    }

    /// The filter whose weights are kept.
    #[cfg(test)]
    pub fn weighs(&self) -> Option<&Filter> {
        self.weights.0.as_ref()
    }

    /// Bytes the cache holds.
    pub fn heap_bytes(&self) -> usize {
        self.children.as_ref().map_or(0, StackChildren::heap_bytes)
            + self.weights.1.heap_bytes()
            + self.whole.1.heap_bytes()
            + self.commands.as_ref().map_or(0, CommandSamples::heap_bytes)
    }
}

/// The weights of `filter`, from `whole` (the weights of the last filter without a time range)
/// when they are of the same filter without its range and that is the shorter way; `whole` is
/// emptied when it is of another event or threads.
fn refilter(
    samples: &Samples<'_>,
    timeline: &Timeline,
    events: &EventMap,
    filter: &Filter,
    whole: &mut (Option<Filter>, StackWeights),
) -> StackWeights {
    let profile = samples.profile;
    let without_range = Filter {
        range: None,
        ..filter.clone()
    };
    if whole.0.as_ref() != Some(&without_range) {
        *whole = (None, StackWeights::default());
    }
    let (table, sf) = weighed(samples, filter, timeline, events);
    if filter.off_cpu {
        return StackWeights::of_samples(profile, table, &sf);
    }
    let narrowed = whole
        .0
        .is_some()
        .then(|| StackWeights::narrowed(&whole.1, profile, &sf))
        .flatten();
    narrowed.unwrap_or_else(|| StackWeights::new(profile, &sf))
}

/// The samples `filter` weighs and the analysis filter for them: the profile's, or with
/// [`Filter::off_cpu`] its off-CPU table, to which the event does not apply.
fn weighed<'a>(
    samples: &Samples<'a>,
    filter: &Filter,
    timeline: &Timeline,
    events: &EventMap,
) -> (&'a SampleTable, SampleFilter) {
    let sf = sample_filter(filter, timeline, events);
    if filter.off_cpu {
        let sf = SampleFilter {
            events: Vec::new(),
            ..sf
        };
        (samples.off_cpu, sf)
    } else {
        (&samples.profile.samples, sf)
    }
}

/// A tree query's parameters.
#[derive(Debug, Clone, Copy)]
pub struct TreeParams<'a> {
    /// Which samples.
    pub filter: &'a Filter,
    /// Bottom-up.
    pub inverted: bool,
    /// What widths measure.
    pub weight: WeightKind,
    /// The zoom root (function ids from a root).
    pub root: &'a [u32],
    /// See [`DETAIL`]; `u64::MAX`: every node.
    pub detail: u64,
    /// Roots per command (see [`CommandRoots`]), or `None` for the functions' tree.
    pub by_command: Option<CommandRoots<'a>>,
}

/// The commands whose boxes are the roots of a tree grouped by command, each over the tree of
/// its own samples: the Command select's list (processes grouped by name), and the function id
/// the page knows the first by (the others follow; see [`super::Session::profile_data`]).
#[derive(Debug, Clone, Copy)]
pub struct CommandRoots<'a> {
    /// The commands, in the order their ids follow.
    pub commands: &'a [Command],
    /// The id of `commands[0]`.
    pub first_func: u32,
}

/// The tree for `params`, laid out in its weight units and pruned to its detail.
pub fn tree(
    samples: &Samples<'_>,
    timeline: &Timeline,
    events: &EventMap,
    cache: &mut TreeCache,
    generation: u32,
    params: TreeParams<'_>,
) -> TreeReply {
    let graph = match params.by_command {
        Some(roots) => command_flame(samples, timeline, events, cache, generation, params, roots),
        None => {
            let (children, weights) =
                cache.prepare(samples, timeline, events, params.filter, generation);
            let root: Vec<FuncIndex> = params.root.iter().map(|&f| FuncIndex(f)).collect();
            pruned_flame(
                samples.profile,
                children,
                weights,
                PruneOptions {
                    inverted: params.inverted,
                    kind: analysis_kind(params.weight),
                    detail: params.detail,
                    root: &root,
                },
            )
        }
    };
    let mut nodes = TreeNodes::default();
    for node in &graph.nodes {
        nodes.parent.push(node.parent.unwrap_or(u32::MAX));
        nodes.func.push(node.func.0);
        nodes.depth.push(node.depth);
        nodes.x.push(node.x as f64);
        nodes.width.push(node.width as f64);
        nodes.total_samples.push(node.total.samples as f64);
        nodes.self_samples.push(node.self_weight.samples as f64);
        nodes.total_period.push(node.total.period as f64);
        nodes.self_period.push(node.self_weight.period as f64);
        nodes.elided_samples.push(node.elided.samples as f64);
        nodes.elided_period.push(node.elided.period as f64);
        nodes.elided_count.push(node.elided_count);
    }
    let (total, empty) = (graph.total, graph.empty);
    let meta = TreeMeta {
        query: None,
        generation,
        samples: total.samples + empty.samples,
        period: total.period + empty.period,
        empty_samples: empty.samples,
        total: graph.width as f64,
        depth: graph.depth,
        ms: 0.0,
        detail: if params.detail == u64::MAX {
            0
        } else {
            params.detail
        },
        elided_samples: graph.elided_roots.samples,
        elided_period: graph.elided_roots.period,
        elided_count: graph.elided_root_count,
    };
    TreeReply { meta, nodes }
}

/// The samples that pass a filter, by command: what a tree grouped by command reads first,
/// kept in the [`TreeCache`] for the next one with the same filter (commands as roots shown
/// again, zoomed, inverted or weighed otherwise: a pass over every sample, ~2/3 of such a tree
/// of a 12M-sample recording, not made again).
struct CommandSamples {
    /// What they are of: the filter, the commands' count and their first id.
    filter: Filter,
    commands: usize,
    first_func: u32,
    /// Each command's samples with frames (indices, ascending) and their weight.
    lists: Vec<Vec<u32>>,
    weights: Vec<Weight>,
    /// The samples without frames or command.
    empty: Weight,
    /// How many samples passed.
    passed: usize,
}

impl CommandSamples {
    fn of(
        table: &SampleTable,
        profile: &Profile,
        sf: &SampleFilter,
        command_of_thread: &[u32],
        key: (Filter, usize, u32),
    ) -> CommandSamples {
        let n = key.1;
        let mut weights = vec![Weight::default(); n];
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut empty = Weight::default();
        let (range, passes) = sf.candidates(table, &profile.threads, profile.events.len());
        let mut passed = 0usize;
        // One pass: each command's weight (samples with frames) and its samples.
        for i in range.filter(|&i| passes(i)) {
            passed += 1;
            let period = table.period(i).unwrap_or(0);
            let k = table
                .thread
                .get(i)
                .and_then(|t| command_of_thread.get(t.index()))
                .filter(|&&k| k != NO_COMMAND);
            match (k, table.stack(i).flatten()) {
                (Some(&k), Some(_)) => {
                    if let (Some(w), Some(list)) =
                        (weights.get_mut(k as usize), lists.get_mut(k as usize))
                    {
                        w.add(Weight { samples: 1, period });
                        list.push(i as u32);
                    }
                }
                _ => empty.add(Weight { samples: 1, period }),
            }
        }
        let (filter, commands, first_func) = key;
        CommandSamples {
            filter,
            commands,
            first_func,
            lists,
            weights,
            empty,
            passed,
        }
    }

    fn heap_bytes(&self) -> usize {
        self.lists.iter().map(|l| l.capacity() * 4).sum::<usize>()
            + self.weights.capacity() * std::mem::size_of::<Weight>()
    }
}

/// No command (a thread in no command's lanes).
const NO_COMMAND: u32 = u32::MAX;

/// The tree of `params` with a root per command (`roots`), in name order like any siblings:
/// each command's box spans the weight of its samples that pass the filter, and holds the tree
/// of those samples alone, pruned against the whole graph's width (so the same boxes are left
/// out as in one tree). Commands too narrow to draw are left out as roots are. A zoom root's
/// path starts with its command's id.
fn command_flame(
    samples: &Samples<'_>,
    timeline: &Timeline,
    events: &EventMap,
    cache: &mut TreeCache,
    generation: u32,
    params: TreeParams<'_>,
    roots: CommandRoots<'_>,
) -> PrunedFlame {
    let profile = samples.profile;
    let (table, sf) = weighed(samples, params.filter, timeline, events);
    let kind = analysis_kind(params.weight);
    let n = roots.commands.len();
    let key = (params.filter.clone(), n, roots.first_func);
    // The samples by command: kept from the last such tree of this filter, else made.
    let kept_samples = cache
        .take_commands(generation)
        .filter(|c| (&c.filter, c.commands, c.first_func) == (&key.0, key.1, key.2));
    // Each profile thread's command, through its lane.
    let mut command_of_lane = vec![NO_COMMAND; timeline.threads.len()];
    for (k, c) in roots.commands.iter().enumerate() {
        for &lane in &c.lanes {
            if let Some(slot) = command_of_lane.get_mut(lane as usize) {
                *slot = k as u32;
            }
        }
    }
    let command_of_thread: Vec<u32> = (0..profile.threads.len())
        .map(|t| {
            let lane = timeline
                .lane_of_thread
                .get(t)
                .copied()
                .unwrap_or(NO_COMMAND);
            command_of_lane
                .get(lane as usize)
                .copied()
                .unwrap_or(NO_COMMAND)
        })
        .collect();
    let by_command = kept_samples
        .unwrap_or_else(|| CommandSamples::of(table, profile, &sf, &command_of_thread, key));
    let (range, passes) = sf.candidates(table, &profile.threads, profile.events.len());
    let command_at = |i: usize| {
        let t = table.thread.get(i)?;
        let k = *command_of_thread.get(t.index())?;
        (k != NO_COMMAND).then_some(k as usize)
    };
    let (weights, empty, passed) = (&by_command.weights, by_command.empty, by_command.passed);
    let mut parts: Vec<(usize, Weight)> = weights.iter().copied().enumerate().collect();
    let total: Weight = weights.iter().fold(Weight::default(), |mut a, w| {
        a.add(*w);
        a
    });
    let graph_width = kind.of(total);
    parts.retain(|p| kind.of(p.1) > 0);
    parts.sort_by(|a, b| {
        let name = |p: &(usize, Weight)| roots.commands.get(p.0).map_or("", |c| c.name.as_str());
        name(a).cmp(name(b)).then(a.0.cmp(&b.0))
    });
    // A zoom root inside one command: the rest of its path is that command's zoom root.
    let zoomed = params
        .root
        .split_first()
        .and_then(|(&f, rest)| Some((f.checked_sub(roots.first_func)? as usize, rest)))
        .filter(|&(k, _)| k < n);
    let (children, kept) = cache.children_and_weights(profile, generation, Some(params.filter));
    let mut out = PrunedFlame::default();
    let mut x = 0u64;
    let (mut elided, mut elided_count) = (Weight::default(), 0u32);
    // One set of weights over all stacks, refilled per command: most commands have few samples.
    let mut w = StackWeights::default();
    for &(command, weight) in &parts {
        let width = kind.of(weight);
        let at = x;
        x += width;
        let zoom = zoomed.filter(|&(k, _)| k == command).map(|(_, rest)| rest);
        let wide = (width as u128) * (params.detail as u128) >= graph_width as u128;
        if !wide && zoom.is_none() {
            elided.add(weight);
            elided_count += 1;
            continue;
        }
        // The same absolute threshold as the whole graph's: width × detail ≥ graph width.
        let detail = match zoom {
            Some(_) => params.detail,
            None if params.detail == u64::MAX => u64::MAX,
            None => ((params.detail as u128 * width as u128) / (graph_width.max(1) as u128))
                .clamp(1, u64::MAX as u128) as u64,
        };
        let picked = by_command.lists.get(command).map_or(&[][..], Vec::as_slice);
        match kept {
            // Most of the samples (the busiest command's, often): the weights of them all
            // less the rest's (the samples that passed with another command or none).
            Some(all) if picked.len() > passed / 2 => {
                // (The old weights are freed first.)
                drop(std::mem::take(&mut w));
                w = StackWeights::without(
                    all,
                    profile,
                    table,
                    range.clone().filter(|&i| {
                        passes(i)
                            && !(command_at(i) == Some(command)
                                && table.stack(i).flatten().is_some())
                    }),
                );
            }
            _ => w.refill_indices(profile, table, picked),
        }
        let root: Vec<FuncIndex> = zoom.unwrap_or(&[]).iter().map(|&f| FuncIndex(f)).collect();
        // The stacks its samples end in, when they are few: the inverted tree's roots are
        // found among them (sorted by function; for many, a count per function over the
        // weights' own leaves takes less: the busiest command of big300-g, 2M samples, 268 ->
        // 176 ms natively), and the top-down tree's by walking up from them (sorting a million
        // leaves of the busiest command for nothing took ~50 ms).
        let few = if params.inverted {
            picked.len().saturating_mul(8) < profile.funcs.len()
        } else {
            picked.len().saturating_mul(LEAF_WALK) < children.roots().len()
        };
        let leaves = few.then(|| leaf_stacks(table, picked));
        let graph = pruned_flame_of(
            profile,
            children,
            &w,
            PruneOptions {
                inverted: params.inverted,
                kind,
                detail,
                root: &root,
            },
            leaves.as_deref(),
        );
        let own = out.nodes.len() as u32;
        out.nodes.push(PrunedNode {
            func: FuncIndex(roots.first_func + command as u32),
            parent: None,
            depth: 0,
            x: at,
            width,
            total: weight,
            self_weight: Weight::default(),
            elided: graph.elided_roots,
            elided_count: graph.elided_root_count,
        });
        out.nodes.extend(graph.nodes.iter().map(|node| PrunedNode {
            parent: Some(node.parent.map_or(own, |p| own + 1 + p)),
            depth: node.depth + 1,
            x: at + node.x,
            ..*node
        }));
        out.depth = out.depth.max(graph.depth + 1);
    }
    out.width = graph_width;
    out.total = total;
    out.empty = empty;
    out.elided_roots = elided;
    out.elided_root_count = elided_count;
    cache.commands = Some(by_command);
    out
}

/// The analysis crate's weight kind for the page's.
fn analysis_kind(weight: WeightKind) -> AnalysisWeight {
    match weight {
        WeightKind::Samples => AnalysisWeight::Samples,
        WeightKind::Period => AnalysisWeight::Period,
    }
}

/// The weight of the samples passing `filter` whose stack has a function whose name contains
/// `text` (trimmed, case-insensitive), each sample once: what the flame-graph search's share
/// counts (the outermost matched boxes of the whole, unpruned graph).
pub fn search(
    samples: &Samples<'_>,
    timeline: &Timeline,
    events: &EventMap,
    cache: &mut TreeCache,
    generation: u32,
    filter: &Filter,
    text: &str,
) -> SearchReply {
    let profile = samples.profile;
    let (children, weights) = cache.prepare(samples, timeline, events, filter, generation);
    let matched = match crate::selectors::NameQuery::new(text) {
        Some(q) => weights.matching(profile, |f| q.matches(profile.func_name(f))),
        None => Default::default(),
    };
    let total = weights.sum(children);
    SearchReply {
        query: None,
        generation,
        samples: matched.samples,
        period: matched.period,
        total_samples: total.samples,
        total_period: total.period,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use perfscope_analysis::call_tree::CallTree;
    use perfscope_analysis::flame_graph::FlameGraph;
    use perfscope_analysis::text_samples::profile_from_text_samples;

    const TEXT: &str = "
main main  main other main main main
zeta alpha zeta       zeta zeta zeta
                      a    b    c
";

    fn on(p: &Profile) -> Samples<'_> {
        static NONE: SampleTable = SampleTable::new();
        Samples {
            profile: p,
            off_cpu: &NONE,
        }
    }

    fn setup() -> (Profile, EventMap, Timeline) {
        let p = profile_from_text_samples(TEXT).unwrap();
        let map = EventMap {
            to_profile: vec![Some(EventIndex(0))],
            to_attr: vec![0],
        };
        let tl = Timeline::new(&p, &map);
        (p, map, tl)
    }

    fn params<'a>(
        filter: &'a Filter,
        inverted: bool,
        root: &'a [u32],
        detail: u64,
    ) -> TreeParams<'a> {
        TreeParams {
            filter,
            inverted,
            weight: WeightKind::Samples,
            root,
            detail,
            by_command: None,
        }
    }

    #[test]
    fn columns_follow_the_flame_layout_with_parents() {
        let (p, map, tl) = setup();
        let mut cache = TreeCache::default();
        let t = tree(
            &on(&p),
            &tl,
            &map,
            &mut cache,
            1,
            params(&Filter::default(), false, &[], u64::MAX),
        );
        let name = |i: usize| p.func_name(FuncIndex(t.nodes.func[i])).to_string();
        let rows: Vec<_> = (0..t.nodes.len())
            .map(|i| {
                (
                    name(i),
                    t.nodes.parent[i],
                    t.nodes.x[i],
                    t.nodes.width[i],
                    t.nodes.self_samples[i],
                )
            })
            .collect();
        // By hand: main 6 (alpha 1, zeta 5 (self 2; a, b, c 1 each)), other 1.
        assert_eq!(
            rows,
            vec![
                ("main".into(), u32::MAX, 0.0, 6.0, 0.0),
                ("alpha".into(), 0, 0.0, 1.0, 1.0),
                ("zeta".into(), 0, 1.0, 5.0, 2.0),
                ("a".into(), 2, 1.0, 1.0, 1.0),
                ("b".into(), 2, 2.0, 1.0, 1.0),
                ("c".into(), 2, 3.0, 1.0, 1.0),
                ("other".into(), u32::MAX, 6.0, 1.0, 1.0),
            ]
        );
        assert_eq!(
            (t.meta.samples, t.meta.total, t.meta.depth, t.meta.detail),
            (7, 7.0, 3, 0)
        );
        // The same as the whole tree laid out.
        let full = FlameGraph::from_call_tree(
            &CallTree::top_down(&p, &SampleFilter::all()).unwrap(),
            &p,
            AnalysisWeight::Samples,
        );
        assert_eq!(full.rects.len(), t.nodes.len());
        let inv = tree(
            &on(&p),
            &tl,
            &map,
            &mut cache,
            1,
            params(&Filter::default(), true, &[], u64::MAX),
        );
        // Bottom-up roots are the leaf functions.
        let roots: Vec<_> = (0..inv.nodes.len())
            .filter(|&i| inv.nodes.parent[i] == u32::MAX)
            .map(|i| p.func_name(FuncIndex(inv.nodes.func[i])).to_string())
            .collect();
        assert_eq!(roots, vec!["a", "alpha", "b", "c", "other", "zeta"]);
    }

    #[test]
    fn pruned_replies_carry_the_elided_weight_and_zoom_in() {
        let (p, map, tl) = setup();
        let mut cache = TreeCache::default();
        // detail 2: width × 2 ≥ 7 keeps main (6) and zeta (5); alpha, other, a, b, c are left out.
        let t = tree(
            &on(&p),
            &tl,
            &map,
            &mut cache,
            1,
            params(&Filter::default(), false, &[], 2),
        );
        let rows: Vec<_> = (0..t.nodes.len())
            .map(|i| {
                (
                    p.func_name(FuncIndex(t.nodes.func[i])).to_string(),
                    t.nodes.x[i],
                    t.nodes.elided_samples[i],
                    t.nodes.elided_count[i],
                )
            })
            .collect();
        assert_eq!(
            rows,
            vec![("main".into(), 0.0, 1.0, 1), ("zeta".into(), 1.0, 3.0, 3)]
        );
        assert_eq!(
            (t.meta.detail, t.meta.elided_samples, t.meta.elided_count),
            (2, 1, 1)
        );
        // Zoomed to main;zeta (5): a, b, c (1 each, × 2 < 5) still out; at detail 5 they come.
        let path = [t.nodes.func[0], t.nodes.func[1]];
        let z = tree(
            &on(&p),
            &tl,
            &map,
            &mut cache,
            1,
            params(&Filter::default(), false, &path, 5),
        );
        let names: Vec<_> = z
            .nodes
            .func
            .iter()
            .map(|&f| p.func_name(FuncIndex(f)))
            .collect();
        assert_eq!(names, vec!["main", "zeta", "a", "b", "c"]);
        assert_eq!(z.nodes.x, vec![0.0, 1.0, 1.0, 2.0, 3.0]);
    }

    #[test]
    fn a_selection_of_most_of_the_time_equals_the_tree_computed_afresh() {
        let (p, map, tl) = setup();
        let rows = |t: &TreeReply| {
            (0..t.nodes.len())
                .map(|i| {
                    (
                        p.func_name(FuncIndex(t.nodes.func[i])).to_string(),
                        t.nodes.x[i],
                        t.nodes.width[i],
                        t.nodes.self_samples[i],
                    )
                })
                .collect::<Vec<_>>()
        };
        // The whole time first (the weights kept as the base), then columns 0..=5 of 7: the
        // selection's weights are the whole's less column 6 (main;zeta;c).
        let mut warm = TreeCache::default();
        let all = tree(
            &on(&p),
            &tl,
            &map,
            &mut warm,
            1,
            params(&Filter::default(), false, &[], u64::MAX),
        );
        assert_eq!(all.meta.samples, 7);
        let most = Filter {
            range: Some((0, 5)),
            ..Filter::default()
        };
        let t = tree(
            &on(&p),
            &tl,
            &map,
            &mut warm,
            1,
            params(&most, false, &[], u64::MAX),
        );
        assert!(warm.whole.0.is_some(), "the whole time's weights are kept");
        let fresh = tree(
            &on(&p),
            &tl,
            &map,
            &mut TreeCache::default(),
            1,
            params(&most, false, &[], u64::MAX),
        );
        assert_eq!(rows(&t), rows(&fresh));
        // By hand: main 5 (alpha 1, zeta 4: self 2, a 1, b 1), other 1.
        assert_eq!(
            rows(&t),
            vec![
                ("main".into(), 0.0, 5.0, 0.0),
                ("alpha".into(), 0.0, 1.0, 1.0),
                ("zeta".into(), 1.0, 4.0, 2.0),
                ("a".into(), 1.0, 1.0, 1.0),
                ("b".into(), 2.0, 1.0, 1.0),
                ("other".into(), 5.0, 1.0, 1.0),
            ]
        );
        // Back to the whole time: the kept weights again.
        let again = tree(
            &on(&p),
            &tl,
            &map,
            &mut warm,
            1,
            params(&Filter::default(), false, &[], u64::MAX),
        );
        assert_eq!(rows(&again), rows(&all));
        assert!(warm.whole.0.is_none());
    }

    #[test]
    fn search_counts_every_sample_with_a_match_once() {
        let (p, map, tl) = setup();
        let mut cache = TreeCache::default();
        // "a": main;alpha, main;zeta (×5 with a, b, c under it): 6 of 7; "A " trims and lowercases.
        let r = search(&on(&p), &tl, &map, &mut cache, 1, &Filter::default(), " A ");
        assert_eq!((r.samples, r.total_samples), (6, 7));
        let r = search(&on(&p), &tl, &map, &mut cache, 1, &Filter::default(), "b");
        assert_eq!(r.samples, 1);
        // A time filter (times are column numbers 0..=6): columns 0..=2.
        let f = Filter {
            range: Some((0, 2)),
            ..Filter::default()
        };
        let r = search(&on(&p), &tl, &map, &mut cache, 1, &f, "zeta");
        assert_eq!((r.samples, r.total_samples), (2, 3));
    }
}
