//! Derivations from the state, pure and tested natively. Components call them through
//! `use_memo` with the inputs they depend on, so each is computed once per change.
//!
//! - the queries the worker must answer for the current view state;
//! - tree navigation over the worker's node columns (children, subtree ends, paths);
//! - flame-graph search matches and their share;
//! - the commands of a recording and their thread lanes (the command filter).

use crate::protocol::{
    Filter, Overview, ProfileData, Query, RecordFilter, SearchReply, TreeNodes, TreeReply,
    WeightKind,
};
use crate::state::{AppState, FuncPath, Tab};

/// A function's name.
pub fn func_name(p: &ProfileData, func: u32) -> &str {
    p.func_name
        .get(func as usize)
        .map_or("", |&s| p.strings.get(s))
}

/// A function's module path ("" when unknown).
pub fn func_module(p: &ProfileData, func: u32) -> &str {
    p.func_module
        .get(func as usize)
        .filter(|&&m| m != u32::MAX && m != COMMAND_MODULE)
        .map_or("", |&s| p.strings.get(s))
}

/// The [`ProfileData::func_module`] of a command's id (the roots of a tree by command).
pub const COMMAND_MODULE: u32 = u32::MAX - 1;

/// Whether `func` is a command's id (a root of a tree by command), not a function's.
pub fn is_command(p: &ProfileData, func: u32) -> bool {
    p.func_module.get(func as usize) == Some(&COMMAND_MODULE)
}

/// The last component of a path.
pub fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Whether the sample views show off-CPU time: chosen, and the recording has it.
pub fn off_cpu_shown(state: &AppState) -> bool {
    state.view.off_cpu
        && state
            .profile()
            .is_some_and(|p| p.overview.off_cpu.is_some())
}

/// The filter every sample view shares.
pub fn filter(state: &AppState) -> Filter {
    Filter {
        range: state.view.selection,
        event: state.view.event,
        threads: state.view.threads.clone(),
        off_cpu: off_cpu_shown(state),
    }
}

/// The tree the flame graph and call tree need: pruned by the worker, with more detail under
/// the flame graph's zoom root.
pub fn tree_query(state: &AppState) -> Option<Query> {
    state.profile()?;
    Some(Query::Tree {
        filter: filter(state),
        inverted: state.view.inverted,
        weight: state.view.weight,
        root: state.view.zoom.clone(),
        detail: state.tree_detail,
        by_command: state.view.by_command,
    })
}

/// Whether `shown`, the tree the flame graph and call tree have, is the one `wanted` for the
/// current profile (`current`), and whether it is an earlier one kept while the worker makes
/// that (`stale`; not after a query failed, when none is coming).
pub fn tree_freshness(
    state: &AppState,
    shown: Option<&TreeReply>,
    wanted: Option<&Query>,
    generation: u32,
) -> (bool, bool) {
    let current =
        shown.is_some_and(|t| t.meta.query.as_ref() == wanted && t.meta.generation == generation);
    let stale = shown.is_some() && !current && state.query_error.is_none();
    (current, stale)
}

/// The flame-graph search's matched weight, over all samples (the tree is pruned, so the
/// page cannot add it up).
pub fn search_query(state: &AppState) -> Option<Query> {
    state.profile()?;
    let text = state.view.search.trim();
    (!text.is_empty()).then(|| Query::Search {
        filter: filter(state),
        text: text.to_string(),
    })
}

/// The search reply's matched weight and share (of the samples with frames) in `weight`
/// units, when `reply` answers `wanted` for profile `generation`.
pub fn search_share(
    reply: Option<&SearchReply>,
    wanted: Option<&Query>,
    generation: u32,
    weight: WeightKind,
) -> Option<(f64, f64)> {
    let r = reply
        .filter(|r| r.query.as_ref() == wanted && wanted.is_some() && r.generation == generation)?;
    let (w, total) = match weight {
        WeightKind::Samples => (r.samples, r.total_samples),
        WeightKind::Period => (r.period, r.total_period),
    };
    let share = if total > 0 {
        (w as f64 / total as f64).min(1.0)
    } else {
        0.0
    };
    Some((w as f64, share))
}

/// The timeline's visible range: the chosen viewport, else every sample.
pub fn viewport(state: &AppState) -> Option<(u64, u64)> {
    state
        .view
        .viewport
        .or_else(|| state.profile()?.overview.sample_range)
}

/// The density the timeline needs (once it knows its width).
pub fn timeline_query(state: &AppState) -> Option<Query> {
    let (start, end) = viewport(state)?;
    let bins = state.view.timeline_bins;
    (bins > 0).then_some(Query::Timeline {
        start,
        end,
        bins,
        event: state.view.event,
        func: state.view.selected_func,
    })
}

/// Rows per second of the sub-second heatmap (20 ms each, as FlameScope's).
pub const HEATMAP_ROWS: u32 = 50;

/// The sub-second heatmap the timeline tab needs when it shows it (the time selection is not
/// applied: the heatmap is where it is made).
pub fn heatmap_query(state: &AppState) -> Option<Query> {
    state.profile()?;
    state.view.heatmap.then(|| Query::Heatmap {
        event: state.view.event,
        threads: state.view.threads.clone(),
        rows: HEATMAP_ROWS,
    })
}

/// The records filter with the time selection applied.
pub fn record_filter(state: &AppState) -> RecordFilter {
    RecordFilter {
        range: state.view.selection,
        ..state.view.record_filter.clone()
    }
}

/// Records rows are fetched in pages of this many.
pub const RECORD_PAGE: u32 = 128;

/// The records page the table needs: pages aligned to [`RECORD_PAGE`] around the scroll row.
pub fn records_query(state: &AppState) -> Option<Query> {
    state.profile()?;
    let start = (state.view.record_scroll / RECORD_PAGE) * RECORD_PAGE;
    let visible = state.view.record_rows.max(1);
    let end = state.view.record_scroll.saturating_add(visible);
    let count = (end.div_ceil(RECORD_PAGE) * RECORD_PAGE)
        .saturating_sub(start)
        .max(RECORD_PAGE);
    Some(Query::Records {
        filter: record_filter(state),
        start,
        count,
    })
}

/// The stack of the selected record.
pub fn stack_query(state: &AppState) -> Option<Query> {
    state.profile()?;
    Some(Query::Stack {
        record: state.view.record_selected?,
    })
}

/// The diff the compare tab needs (once the base is read).
pub fn diff_query(state: &AppState) -> Option<Query> {
    state.profile()?;
    let c = state.compare.as_ref().filter(|c| c.info.is_some())?;
    Some(Query::Diff {
        base: c.request,
        weight: state.view.weight,
        off_cpu: off_cpu_shown(state),
    })
}

/// Every query the current tab needs (other tabs query when shown), in the order the worker
/// answers them. A time selection made on the timeline also asks for the flame graph's tree
/// (and search) after the timeline's own query: the worker refilters while the person goes to
/// the flame graph, which then shows the selection's tree at once. The Summary tab, shown first
/// when a file opens, asks for the flame graph's tree the same way.
pub fn wanted_queries(state: &AppState) -> Vec<Query> {
    let mut out = Vec::new();
    match state.view.tab {
        // The flame graph's tree, made while the summary is read: the Flame tab, where most go
        // next, then draws at once.
        Tab::Summary => out.extend(tree_query(state)),
        Tab::Flame => {
            out.extend(tree_query(state));
            out.extend(search_query(state));
        }
        Tab::CallTree => out.extend(tree_query(state)),
        Tab::Timeline => {
            if state.view.heatmap {
                out.extend(heatmap_query(state));
            } else {
                out.extend(timeline_query(state));
            }
            if state.view.selection.is_some() {
                out.extend(tree_query(state));
                out.extend(search_query(state));
            }
        }
        Tab::Records => {
            out.extend(records_query(state));
            out.extend(stack_query(state));
        }
        Tab::Compare => out.extend(diff_query(state)),
    }
    out
}

/// Children lists and subtree ends of a node list in depth-first order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TreeIndex {
    /// Roots in order.
    pub roots: Vec<u32>,
    /// Children of each node, in order.
    pub children: Vec<Vec<u32>>,
    /// One past the last node of each node's subtree.
    pub end: Vec<u32>,
}

impl TreeIndex {
    /// Indexes `nodes` (parents before children, subtrees contiguous).
    pub fn new(nodes: &TreeNodes) -> TreeIndex {
        let n = nodes.len();
        let mut ix = TreeIndex {
            roots: Vec::new(),
            children: vec![Vec::new(); n],
            end: (1..=n as u32).collect(),
        };
        for (i, &p) in nodes.parent.iter().enumerate() {
            match ix.children.get_mut(p as usize) {
                Some(c) => c.push(i as u32),
                None => ix.roots.push(i as u32),
            }
        }
        // Children come after their parent: a backward pass carries ends up.
        for i in (0..n).rev() {
            let e = ix.end.get(i).copied().unwrap_or(0);
            if let Some(&p) = nodes.parent.get(i) {
                if let Some(pe) = ix.end.get_mut(p as usize) {
                    *pe = (*pe).max(e);
                }
            }
        }
        ix
    }
}

/// The node reached by following `path` (function ids from a root).
pub fn find_path(nodes: &TreeNodes, ix: &TreeIndex, path: &[u32]) -> Option<u32> {
    let mut level: &[u32] = &ix.roots;
    let mut found = None;
    for &func in path {
        let n = *level
            .iter()
            .find(|&&c| nodes.func.get(c as usize) == Some(&func))?;
        found = Some(n);
        level = ix.children.get(n as usize).map_or(&[], Vec::as_slice);
    }
    found
}

/// The functions from the root down to node `i`.
pub fn path_of(nodes: &TreeNodes, i: u32) -> FuncPath {
    let mut path = Vec::new();
    let mut cur = i;
    while let Some(&f) = nodes.func.get(cur as usize) {
        path.push(f);
        match nodes.parent.get(cur as usize) {
            Some(&p) if p != u32::MAX && path.len() <= nodes.len() => cur = p,
            _ => break,
        }
    }
    path.reverse();
    path
}

/// Search results over a tree's nodes (the boxes to highlight; the matched share comes from the
/// worker, [`search_query`], as the tree may be pruned).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SearchResult {
    /// The text searched.
    pub query: String,
    /// Per node: its function's name contains the text (case-insensitive).
    pub matched: Vec<bool>,
    /// Nodes matched.
    pub count: usize,
}

/// A case-insensitive search for a text in function names: what the search box matches, on
/// the page (the tree's boxes) and in the worker (every function, for the matched share).
#[derive(Clone, Debug)]
pub struct NameQuery {
    /// The text, trimmed and lowercased.
    lower: String,
}

impl NameQuery {
    /// The query for `text` (trimmed; `None` when nothing is left).
    pub fn new(text: &str) -> Option<NameQuery> {
        let lower = text.trim().to_lowercase();
        (!lower.is_empty()).then_some(NameQuery { lower })
    }

    /// Whether `name` contains the text, ignoring case as `str::to_lowercase` does. ASCII names
    /// and texts (the usual case: a million `module+0xoffset` names in an unsymbolized
    /// recording) are compared byte by byte without making a lowercase copy.
    pub fn matches(&self, name: &str) -> bool {
        let needle = self.lower.as_bytes();
        if !(name.is_ascii() && self.lower.is_ascii()) {
            return name.to_lowercase().contains(&self.lower);
        }
        name.as_bytes()
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle))
    }
}

/// Finds the nodes whose function name contains `query` (commands' boxes are not functions: the
/// worker's matched share does not count them either).
pub fn search(tree: &TreeReply, profile: &ProfileData, query: &str) -> SearchResult {
    let nodes = &tree.nodes;
    let mut r = SearchResult {
        query: query.to_string(),
        matched: vec![false; nodes.len()],
        ..SearchResult::default()
    };
    let Some(q) = NameQuery::new(query) else {
        return r;
    };
    let mut func_hit: std::collections::HashMap<u32, bool> = std::collections::HashMap::new();
    for i in 0..nodes.len() {
        let f = nodes.func.get(i).copied().unwrap_or(0);
        let hit = *func_hit
            .entry(f)
            .or_insert_with(|| !is_command(profile, f) && q.matches(func_name(profile, f)));
        if hit {
            if let Some(m) = r.matched.get_mut(i) {
                *m = true;
            }
            r.count += 1;
        }
    }
    r
}

/// A command (a process name) and the thread lanes of every process of that name.
#[derive(Debug, Clone, PartialEq)]
pub struct Command {
    /// The name.
    pub name: String,
    /// Processes of that name.
    pub processes: usize,
    /// Their thread lanes (indices into [`Overview::threads`]), ascending.
    pub lanes: Vec<u32>,
    /// Their samples.
    pub samples: u64,
}

/// The commands of `overview`'s processes, busiest first (ties by name).
pub fn commands(overview: &Overview) -> Vec<Command> {
    let mut by_name: std::collections::HashMap<&str, Command> = std::collections::HashMap::new();
    for p in &overview.processes {
        let c = by_name.entry(p.name.as_str()).or_insert_with(|| Command {
            name: p.name.clone(),
            processes: 0,
            lanes: Vec::new(),
            samples: 0,
        });
        c.processes += 1;
        c.lanes.extend_from_slice(&p.threads);
        c.samples += p.samples;
    }
    let mut out: Vec<Command> = by_name.into_values().collect();
    for c in &mut out {
        c.lanes.sort_unstable();
        c.lanes.dedup();
    }
    out.sort_by(|a, b| b.samples.cmp(&a.samples).then_with(|| a.name.cmp(&b.name)));
    out
}

/// The command whose lanes the thread filter `lanes` is, exactly (in any order).
pub fn command_of<'a>(commands: &'a [Command], lanes: &[u32]) -> Option<&'a Command> {
    if lanes.is_empty() {
        return None;
    }
    let mut sorted = lanes.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    commands.iter().find(|c| c.lanes == sorted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::strings::StringTable;
    use crate::protocol::TreeMeta;

    /// main(4) → [alpha(1), zeta(2) → [alpha(1)]], other(1): functions main=0 alpha=1 zeta=2 other=3.
    fn tree() -> (TreeReply, ProfileData) {
        let mut strings = StringTable::new();
        for s in ["main", "alpha", "zeta", "other"] {
            strings.push(s);
        }
        let p = ProfileData {
            strings,
            func_name: vec![0, 1, 2, 3],
            func_module: vec![u32::MAX; 4],
            ..ProfileData::default()
        };
        let nodes = TreeNodes {
            parent: vec![u32::MAX, 0, 0, 2, u32::MAX],
            func: vec![0, 1, 2, 1, 3],
            depth: vec![0, 1, 1, 2, 0],
            x: vec![0.0, 0.0, 1.0, 1.0, 4.0],
            width: vec![4.0, 1.0, 2.0, 1.0, 1.0],
            ..TreeNodes::default()
        };
        (
            TreeReply {
                meta: TreeMeta {
                    total: 5.0,
                    ..TreeMeta::default()
                },
                nodes,
            },
            p,
        )
    }

    #[test]
    fn index_paths_and_subtree_ends() {
        let (t, _) = tree();
        let ix = TreeIndex::new(&t.nodes);
        assert_eq!(ix.roots, vec![0, 4]);
        assert_eq!(ix.children[0], vec![1, 2]);
        assert_eq!(ix.end, vec![4, 2, 4, 4, 5]);
        assert_eq!(path_of(&t.nodes, 3), vec![0, 2, 1]);
        assert_eq!(find_path(&t.nodes, &ix, &[0, 2, 1]), Some(3));
        assert_eq!(find_path(&t.nodes, &ix, &[0, 3]), None);
        assert_eq!(find_path(&t.nodes, &ix, &[]), None);
    }

    #[test]
    fn name_queries_match_as_lowercased_text_does() {
        let names = [
            "cc1+0x1a2b3c",
            "CC1+0X1A2B",
            "std::vec::Vec<T>::push",
            "Straße",
            "STRASSE",
            "\u{212a}ernel",
            "İstanbul",
            "",
            "ab",
        ];
        let texts = [
            "0x1a", "CC1", " vec<t> ", "straße", "ß", "kernel", "k", "i̇s", "abc", "b",
        ];
        for text in texts {
            let q = NameQuery::new(text).unwrap();
            let lower = text.trim().to_lowercase();
            for name in names {
                let want = name.to_lowercase().contains(&lower);
                assert_eq!(q.matches(name), want, "{text:?} in {name:?}");
            }
        }
        // The Kelvin sign lowercases to an ASCII k.
        assert!(NameQuery::new("k").unwrap().matches("\u{212a}ernel"));
        assert!(NameQuery::new(" \t").is_none());
    }

    #[test]
    fn search_marks_every_matching_box() {
        let (t, p) = tree();
        // "a" matches main, alpha, zeta, alpha.
        let r = search(&t, &p, "A");
        assert_eq!(r.count, 4);
        let r = search(&t, &p, "alpha");
        assert_eq!(r.count, 2);
        assert_eq!(r.matched, vec![false, true, false, true, false]);
        assert_eq!(search(&t, &p, "  ").count, 0);
    }

    #[test]
    fn the_search_share_is_the_replys_for_the_wanted_query_only() {
        let q = Query::Search {
            filter: Filter::default(),
            text: "a".into(),
        };
        let other = Query::Search {
            filter: Filter::default(),
            text: "b".into(),
        };
        let reply = SearchReply {
            query: Some(q.clone()),
            generation: 2,
            samples: 3,
            period: 30,
            total_samples: 4,
            total_period: 120,
        };
        assert_eq!(
            search_share(Some(&reply), Some(&q), 2, WeightKind::Samples),
            Some((3.0, 0.75))
        );
        assert_eq!(
            search_share(Some(&reply), Some(&q), 2, WeightKind::Period),
            Some((30.0, 0.25))
        );
        assert_eq!(
            search_share(Some(&reply), Some(&other), 2, WeightKind::Samples),
            None
        );
        assert_eq!(
            search_share(Some(&reply), Some(&q), 3, WeightKind::Samples),
            None
        );
        assert_eq!(search_share(None, Some(&q), 2, WeightKind::Samples), None);
    }

    #[test]
    fn commands_gather_the_processes_of_a_name_busiest_first() {
        use crate::protocol::ProcessInfo;
        let process = |pid: u32, name: &str, threads: Vec<u32>, samples: u64| ProcessInfo {
            pid,
            name: name.into(),
            threads,
            samples,
        };
        let o = Overview {
            processes: vec![
                process(10, "gzip", vec![4, 1], 50),
                process(11, "sort", vec![0], 30),
                process(12, "gzip", vec![2], 40),
                process(13, "bash", vec![3], 30),
            ],
            ..Overview::default()
        };
        let c = commands(&o);
        let got: Vec<_> = c
            .iter()
            .map(|c| (c.name.as_str(), c.processes, c.lanes.clone(), c.samples))
            .collect();
        assert_eq!(
            got,
            vec![
                ("gzip", 2, vec![1, 2, 4], 90),
                ("bash", 1, vec![3], 30),
                ("sort", 1, vec![0], 30),
            ]
        );
        assert_eq!(
            command_of(&c, &[4, 2, 1]).map(|c| c.name.as_str()),
            Some("gzip")
        );
        assert_eq!(command_of(&c, &[4, 2]), None, "some of gzip's threads");
        assert_eq!(command_of(&c, &[]), None);
    }

    #[test]
    fn a_selection_on_the_timeline_also_asks_for_the_flame_graphs_tree_after_the_timeline() {
        use crate::protocol::WorkerMessage;
        use crate::state::{Action, FileInfo, ViewAction};
        let s = AppState::default()
            .apply(Action::Started {
                id: 1,
                file: FileInfo {
                    name: "a.data".into(),
                    size: Some(10),
                },
            })
            .apply(Action::Worker(WorkerMessage::Summary(1, Box::default())))
            .apply(Action::Worker(WorkerMessage::Profile(
                1,
                Box::new(ProfileData {
                    overview: Overview {
                        sample_range: Some((0, 100)),
                        ..Overview::default()
                    },
                    ..ProfileData::default()
                }),
            )));
        let kinds = |s: &AppState| -> Vec<&'static str> {
            wanted_queries(s)
                .iter()
                .map(|q| match q {
                    Query::Tree { .. } => "tree",
                    Query::Search { .. } => "search",
                    Query::Timeline { .. } => "timeline",
                    Query::Heatmap { .. } => "heatmap",
                    _ => "other",
                })
                .collect()
        };
        // A file opens on its summary, which asks for the flame graph's tree (the same query).
        assert_eq!(s.view.tab, Tab::Summary);
        assert_eq!(kinds(&s), ["tree"]);
        assert_eq!(wanted_queries(&s).first(), tree_query(&s).as_ref());
        let s = s.apply(Action::View(ViewAction::Tab(Tab::Timeline)));
        let s = s.apply(Action::View(ViewAction::TimelineBins(300)));
        assert!(s.view.selection.is_none());
        assert_eq!(
            kinds(&s),
            ["timeline"],
            "no selection: the timeline's own query"
        );
        let s = s.apply(Action::View(ViewAction::Select(Some((9, 3)))));
        assert_eq!(kinds(&s), ["timeline", "tree"]);
        // The same query the flame graph asks for, so that it is not asked twice.
        assert_eq!(wanted_queries(&s).get(1), tree_query(&s).as_ref());
        let s = s.apply(Action::View(ViewAction::Search("main".into())));
        assert_eq!(kinds(&s), ["timeline", "tree", "search"]);
        let s = s.apply(Action::View(ViewAction::Heatmap(true)));
        assert_eq!(kinds(&s), ["heatmap", "tree", "search"]);
        let s = s.apply(Action::View(ViewAction::Select(None)));
        assert_eq!(kinds(&s), ["heatmap"]);
    }
}
