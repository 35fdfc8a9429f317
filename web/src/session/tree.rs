//! The tree query: `perfscope_analysis`'s call tree over the filtered samples, laid out by its
//! flame graph, as columns.

use perfscope_analysis::call_tree::CallTree;
use perfscope_analysis::flame_graph::{FlameGraph, WeightKind as AnalysisWeight};
use perfscope_analysis::ids::EventIndex;
use perfscope_analysis::profile::Profile;
use perfscope_analysis::samples::SampleFilter;

use super::events::EventMap;
use super::timeline::Timeline;
use crate::protocol::{Filter, TreeMeta, TreeNodes, TreeReply, WeightKind};

/// The analysis filter for a view filter. `range` is inclusive; the analysis range is
/// half-open.
pub fn sample_filter(filter: &Filter, timeline: &Timeline, events: &EventMap) -> SampleFilter {
    let mut f = SampleFilter::all();
    if let Some((start, end)) = filter.range {
        f.time_range = Some((start, end.saturating_add(1)));
    }
    if let Some(e) = filter.event {
        // An attr without samples has no profile event: match nothing.
        f.events = vec![events.to_profile.get(e as usize).copied().flatten().unwrap_or(EventIndex(u32::MAX))];
    }
    for &lane in &filter.threads {
        if let Some(t) = timeline.threads.get(lane as usize) {
            f.pids.push(t.pid);
            f.tids.push(t.tid);
        }
    }
    f
}

/// The tree for `filter`, laid out in `weight` units.
pub fn tree(profile: &Profile, timeline: &Timeline, events: &EventMap, filter: &Filter, inverted: bool, weight: WeightKind) -> Result<TreeReply, String> {
    let sf = sample_filter(filter, timeline, events);
    let tree = if inverted { CallTree::inverted(profile, &sf) } else { CallTree::top_down(profile, &sf) }.map_err(|e| e.to_string())?;
    let kind = match weight {
        WeightKind::Samples => AnalysisWeight::Samples,
        WeightKind::Period => AnalysisWeight::Period,
    };
    let graph = FlameGraph::from_call_tree(&tree, profile, kind);
    let n = graph.rects.len();
    let mut rect_of_node = vec![u32::MAX; tree.nodes().len()];
    let mut nodes = TreeNodes {
        parent: Vec::with_capacity(n),
        func: Vec::with_capacity(n),
        depth: Vec::with_capacity(n),
        x: Vec::with_capacity(n),
        width: Vec::with_capacity(n),
        total_samples: Vec::with_capacity(n),
        self_samples: Vec::with_capacity(n),
        total_period: Vec::with_capacity(n),
        self_period: Vec::with_capacity(n),
    };
    for (i, r) in graph.rects.iter().enumerate() {
        if let Some(slot) = rect_of_node.get_mut(r.node.index()) {
            *slot = i as u32;
        }
        let Some(node) = tree.node(r.node) else { continue };
        let parent = node.parent.and_then(|p| rect_of_node.get(p.index()).copied()).unwrap_or(u32::MAX);
        nodes.parent.push(parent);
        nodes.func.push(r.func.0);
        nodes.depth.push(r.depth);
        nodes.x.push(r.x as f64);
        nodes.width.push(r.width as f64);
        nodes.total_samples.push(node.total.samples as f64);
        nodes.self_samples.push(node.self_weight.samples as f64);
        nodes.total_period.push(node.total.period as f64);
        nodes.self_period.push(node.self_weight.period as f64);
    }
    let (total, empty) = (tree.total(), tree.empty_stacks());
    let meta = TreeMeta {
        query: None,
        generation: 0,
        samples: total.samples + empty.samples,
        period: total.period + empty.period,
        empty_samples: empty.samples,
        total: graph.total as f64,
        depth: graph.depth,
        ms: 0.0,
    };
    Ok(TreeReply { meta, nodes })
}

#[cfg(test)]
mod tests {
    use super::*;
    use perfscope_analysis::text_samples::profile_from_text_samples;

    #[test]
    fn columns_follow_the_flame_layout_with_parents() {
        let p = profile_from_text_samples(
            "
main main  main other
zeta alpha zeta
",
        )
        .unwrap();
        let map = EventMap { to_profile: vec![Some(perfscope_analysis::ids::EventIndex(0))], to_attr: vec![0] };
        let tl = Timeline::new(&p, &map);
        let t = tree(&p, &tl, &map, &Filter::default(), false, WeightKind::Samples).unwrap();
        let name = |i: usize| p.func_name(perfscope_analysis::ids::FuncIndex(t.nodes.func[i])).to_string();
        let rows: Vec<_> = (0..t.nodes.len()).map(|i| (name(i), t.nodes.parent[i], t.nodes.x[i], t.nodes.width[i], t.nodes.self_samples[i])).collect();
        assert_eq!(
            rows,
            vec![
                ("main".into(), u32::MAX, 0.0, 3.0, 0.0),
                ("alpha".into(), 0, 0.0, 1.0, 1.0),
                ("zeta".into(), 0, 1.0, 2.0, 2.0),
                ("other".into(), u32::MAX, 3.0, 1.0, 1.0),
            ]
        );
        assert_eq!((t.meta.samples, t.meta.total, t.meta.depth), (4, 4.0, 2));
        let inv = tree(&p, &tl, &map, &Filter::default(), true, WeightKind::Samples).unwrap();
        // Bottom-up roots are the leaf functions.
        let roots: Vec<_> = (0..inv.nodes.len()).filter(|&i| inv.nodes.parent[i] == u32::MAX).map(|i| p.func_name(perfscope_analysis::ids::FuncIndex(inv.nodes.func[i])).to_string()).collect();
        assert_eq!(roots, vec!["alpha", "other", "zeta"]);
    }
}
