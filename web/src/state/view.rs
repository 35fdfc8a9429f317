//! View state: which tab, the filters every view shares (time selection, event, threads), and
//! each view's own settings (flame-graph zoom and search, call-tree expansion and sort, records
//! filter and scroll). Changed only through [`ViewAction`]s.

use std::collections::BTreeSet;

use crate::protocol::{ProfileData, RecordFilter, WeightKind};

/// The views.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tab {
    /// File facts and header features.
    #[default]
    Summary,
    /// Threads and CPUs over time.
    Timeline,
    /// The flame graph.
    Flame,
    /// Top-down / bottom-up tables.
    CallTree,
    /// Every record.
    Records,
    /// The open profile against another one.
    Compare,
}

impl Tab {
    /// All tabs in order.
    pub const ALL: [Tab; 6] = [
        Tab::Summary,
        Tab::Timeline,
        Tab::Flame,
        Tab::CallTree,
        Tab::Records,
        Tab::Compare,
    ];

    /// The label.
    pub fn label(self) -> &'static str {
        match self {
            Tab::Summary => "Summary",
            Tab::Timeline => "Timeline",
            Tab::Flame => "Flame graph",
            Tab::CallTree => "Call tree",
            Tab::Records => "Records",
            Tab::Compare => "Compare",
        }
    }

    /// The stable id (`tab-flame`, `panel-flame`).
    pub fn id(self) -> &'static str {
        match self {
            Tab::Summary => "summary",
            Tab::Timeline => "timeline",
            Tab::Flame => "flame",
            Tab::CallTree => "calltree",
            Tab::Records => "records",
            Tab::Compare => "compare",
        }
    }
}

/// How flame-graph boxes are colored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ColorBy {
    /// FlameGraph.pl's hot palette hashed from the function name.
    #[default]
    Name,
    /// One hue per module.
    Module,
}

/// Call-tree columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortBy {
    /// Total weight.
    #[default]
    Total,
    /// Self weight.
    SelfWeight,
    /// Function name.
    Name,
}

/// A call-tree node named by its functions from the root: survives re-queries.
pub type FuncPath = Vec<u32>;

/// Every view's state.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ViewState {
    /// The tab shown.
    pub tab: Tab,
    /// The event whose samples are counted; `None`: all events.
    pub event: Option<u32>,
    /// Samples or period.
    pub weight: WeightKind,
    /// Off-CPU time instead of samples (the weight is then the period: ns).
    pub off_cpu: bool,
    /// Bottom-up trees (flame graph and call tree).
    pub inverted: bool,
    /// A root per command (the flame graph and call tree start with the commands).
    pub by_command: bool,
    /// Roots at the top.
    pub icicle: bool,
    /// Frames without a symbol one per address (`module+0xoffset`), not one per module
    /// (`[module]`): the worker builds the profile again when it changes.
    pub by_address: bool,
    /// Flame colors.
    pub color_by: ColorBy,
    /// Flame-graph search text.
    pub search: String,
    /// Flame-graph zoom: the node shown full width.
    pub zoom: FuncPath,
    /// The function selected in the call tree (highlighted in the flame graph).
    pub selected_func: Option<u32>,
    /// The selected time range (ns, both ends included): filters every view.
    pub selection: Option<(u64, u64)>,
    /// The timeline's visible range (ns); `None`: everything.
    pub viewport: Option<(u64, u64)>,
    /// Thread lanes that filter the views; empty: all.
    pub threads: Vec<u32>,
    /// Timeline bins (its plot width in CSS px).
    pub timeline_bins: u32,
    /// The timeline tab shows the sub-second heatmap instead of the lanes.
    pub heatmap: bool,
    /// Expanded call-tree nodes.
    pub expanded: BTreeSet<FuncPath>,
    /// The call-tree row selected.
    pub tree_selected: Option<FuncPath>,
    /// Call-tree sort column.
    pub sort: SortBy,
    /// Records filter (the time selection is added to it).
    pub record_filter: RecordFilter,
    /// The first records row shown.
    pub record_scroll: u32,
    /// Rows that fit the records viewport.
    pub record_rows: u32,
    /// The record whose details (and stack) are shown.
    pub record_selected: Option<u32>,
}

/// What can happen to [`ViewState`].
#[derive(Debug, Clone, PartialEq)]
pub enum ViewAction {
    /// Show a tab.
    Tab(Tab),
    /// Count this event (or all).
    Event(Option<u32>),
    /// Samples or period.
    Weight(WeightKind),
    /// Weigh by off-CPU time (`true`: the period of the off-CPU table, in ns) or not.
    OffCpu(bool),
    /// Bottom-up or top-down.
    Inverted(bool),
    /// A root per command or not.
    ByCommand(bool),
    /// Icicle or flame.
    Icicle(bool),
    /// Frames without a symbol one per address, or one per module.
    ByAddress(bool),
    /// Colors.
    ColorBy(ColorBy),
    /// Search text.
    Search(String),
    /// Zoom the flame graph to a node (empty: everything).
    Zoom(FuncPath),
    /// Select a function (from the call tree).
    SelectFunc(Option<u32>),
    /// Set or clear the time selection.
    Select(Option<(u64, u64)>),
    /// Set the timeline's visible range.
    Viewport(Option<(u64, u64)>),
    /// Filter by thread lanes.
    Threads(Vec<u32>),
    /// The timeline's width in CSS px.
    TimelineBins(u32),
    /// Show the sub-second heatmap (or the lanes) in the timeline tab.
    Heatmap(bool),
    /// Expand or collapse a call-tree node.
    Toggle(FuncPath),
    /// Expand these nodes (and keep the others).
    Expand(Vec<FuncPath>),
    /// Select a call-tree row.
    TreeSelect(Option<FuncPath>),
    /// Sort the call tree.
    Sort(SortBy),
    /// Filter the records.
    RecordFilter(RecordFilter),
    /// Scroll the records table.
    RecordScroll(u32),
    /// Rows that fit the records table.
    RecordRows(u32),
    /// Select a record.
    RecordSelect(Option<u32>),
}

impl ViewState {
    /// Switches to or from off-CPU time: another tree, so zoom paths and expanded rows go.
    fn off_cpu_changed(&mut self, on: bool) {
        if self.off_cpu != on {
            self.off_cpu = on;
            self.zoom.clear();
            self.expanded.clear();
            self.tree_selected = None;
        }
    }

    /// The tree's shape changed (inverted, or grouped by command): paths into one tree mean
    /// nothing in the other, so the zoom, the expanded call-tree rows and its selection go.
    fn tree_changed(&mut self) {
        self.zoom.clear();
        self.expanded.clear();
        self.tree_selected = None;
    }

    /// Applies one action.
    pub fn apply(&mut self, action: ViewAction) {
        match action {
            ViewAction::Tab(t) => self.tab = t,
            ViewAction::Event(e) => {
                self.event = e;
                self.zoom.clear();
            }
            ViewAction::Weight(w) => {
                self.weight = w;
                self.off_cpu_changed(false);
            }
            ViewAction::OffCpu(on) => {
                if on {
                    self.weight = WeightKind::Period;
                }
                self.off_cpu_changed(on);
            }
            ViewAction::Inverted(i) => {
                if self.inverted != i {
                    self.inverted = i;
                    self.tree_changed();
                }
            }
            ViewAction::ByCommand(on) => {
                if self.by_command != on {
                    self.by_command = on;
                    self.tree_changed();
                }
            }
            ViewAction::Icicle(i) => self.icicle = i,
            ViewAction::ByAddress(on) => self.by_address = on,
            ViewAction::ColorBy(c) => self.color_by = c,
            ViewAction::Search(s) => self.search = s,
            ViewAction::Zoom(p) => self.zoom = p,
            ViewAction::SelectFunc(f) => self.selected_func = f,
            ViewAction::Select(range) => {
                self.selection = range.map(|(a, b)| (a.min(b), a.max(b)));
                self.record_scroll = 0;
            }
            ViewAction::Viewport(v) => self.viewport = v.map(|(a, b)| (a.min(b), a.max(b))),
            ViewAction::Threads(t) => {
                self.threads = t;
                self.zoom.clear();
            }
            ViewAction::TimelineBins(b) => self.timeline_bins = b,
            ViewAction::Heatmap(h) => self.heatmap = h,
            ViewAction::Toggle(p) => {
                if !self.expanded.remove(&p) {
                    self.expanded.insert(p);
                }
            }
            ViewAction::Expand(paths) => self.expanded.extend(paths),
            ViewAction::TreeSelect(p) => self.tree_selected = p,
            ViewAction::Sort(s) => self.sort = s,
            ViewAction::RecordFilter(f) => {
                self.record_filter = f;
                self.record_scroll = 0;
                self.record_selected = None;
            }
            ViewAction::RecordScroll(r) => self.record_scroll = r,
            ViewAction::RecordRows(r) => self.record_rows = r,
            ViewAction::RecordSelect(r) => self.record_selected = r,
        }
    }
}

/// A function's identity across two builds of one profile: its name, its module, and whether
/// it is a command (the roots of a tree by command follow the functions).
fn func_key(p: &ProfileData, func: u32) -> Option<(&str, &str, bool)> {
    let command = *p.func_module.get(func as usize)? == crate::selectors::COMMAND_MODULE;
    Some((
        crate::selectors::func_name(p, func),
        crate::selectors::func_module(p, func),
        command,
    ))
}

/// Moves the functions `view` names (zoom, selection, the call tree's open and selected
/// paths) from `old` to `new`, another build of the same file (with symbols added, or frames
/// without a symbol named another way), by name and module. A path is cut at its first
/// function `new` does not have; an open path or a selection that is not whole is dropped.
pub fn translate_funcs(view: &mut ViewState, old: &ProfileData, new: &ProfileData) {
    use std::collections::HashMap;
    let mut wanted: HashMap<u32, Option<u32>> = HashMap::new();
    let ids = view
        .zoom
        .iter()
        .chain(view.selected_func.iter())
        .chain(view.expanded.iter().flatten())
        .chain(view.tree_selected.iter().flatten());
    for &id in ids {
        wanted.insert(id, None);
    }
    if wanted.is_empty() {
        return;
    }
    let mut by_key: HashMap<(&str, &str, bool), Vec<u32>> = HashMap::new();
    for &id in wanted.keys() {
        if let Some(k) = func_key(old, id) {
            by_key.entry(k).or_default().push(id);
        }
    }
    // One pass over the new functions (a million or more without symbols by address).
    for f in 0..new.func_name.len() as u32 {
        let Some(k) = func_key(new, f) else { continue };
        if let Some(olds) = by_key.remove(&k) {
            for o in olds {
                wanted.insert(o, Some(f));
            }
            if by_key.is_empty() {
                break;
            }
        }
    }
    let map = |id: &u32| wanted.get(id).copied().flatten();
    let whole = |path: &FuncPath| path.iter().map(map).collect::<Option<FuncPath>>();
    view.zoom = view.zoom.iter().map_while(map).collect();
    view.selected_func = view.selected_func.as_ref().and_then(map);
    view.expanded = view.expanded.iter().filter_map(whole).collect();
    view.tree_selected = view.tree_selected.as_ref().and_then(whole);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Functions (name, module) over one string table; `None`: a command.
    fn named(funcs: &[(&str, Option<&str>)]) -> ProfileData {
        let mut strings = crate::protocol::strings::StringTable::new();
        let mut p = ProfileData::default();
        for (i, (name, module)) in funcs.iter().enumerate() {
            strings.push(name);
            p.func_name.push(2 * i as u32);
            strings.push(module.unwrap_or(""));
            p.func_module.push(match module {
                Some(_) => 2 * i as u32 + 1,
                None => crate::selectors::COMMAND_MODULE,
            });
        }
        p.strings = strings;
        p
    }

    #[test]
    fn a_profile_built_again_keeps_the_functions_it_still_has() {
        // One frame per module, then per address: [libc.so.6] is gone, `main` and `foo` moved;
        // `foo` of another module and the command `foo` are other functions.
        let old = named(&[
            ("main", Some("/bin/a")),
            ("foo", Some("/bin/a")),
            ("[libc.so.6]", Some("/lib/libc.so.6")),
            ("foo", None),
        ]);
        let new = named(&[
            ("foo", Some("/lib/libc.so.6")),
            ("foo", None),
            ("foo", Some("/bin/a")),
            ("libc.so.6+0x10", Some("/lib/libc.so.6")),
            ("main", Some("/bin/a")),
        ]);
        let mut v = ViewState {
            zoom: vec![3, 0, 1, 2, 1],
            selected_func: Some(2),
            tree_selected: Some(vec![0, 1]),
            ..ViewState::default()
        };
        v.expanded.extend([vec![0], vec![0, 1], vec![0, 1, 2]]);
        translate_funcs(&mut v, &old, &new);
        assert_eq!(v.zoom, vec![1, 4, 2], "cut at [libc.so.6]");
        assert_eq!(v.selected_func, None);
        assert_eq!(v.tree_selected, Some(vec![4, 2]));
        assert_eq!(v.expanded, [vec![4], vec![4, 2]].into_iter().collect());
    }

    #[test]
    fn inverting_forgets_paths_of_the_other_tree() {
        let mut v = ViewState {
            zoom: vec![1, 2],
            tree_selected: Some(vec![1]),
            ..ViewState::default()
        };
        v.expanded.insert(vec![1]);
        v.apply(ViewAction::Inverted(false));
        assert_eq!(v.zoom, vec![1, 2], "no change, nothing forgotten");
        v.apply(ViewAction::Inverted(true));
        assert!(v.zoom.is_empty() && v.expanded.is_empty() && v.tree_selected.is_none());
    }

    #[test]
    fn selections_are_ordered_and_reset_the_records_scroll() {
        let mut v = ViewState {
            record_scroll: 40,
            ..ViewState::default()
        };
        v.apply(ViewAction::Select(Some((9, 3))));
        assert_eq!(v.selection, Some((3, 9)));
        assert_eq!(v.record_scroll, 0);
        v.apply(ViewAction::Toggle(vec![4]));
        v.apply(ViewAction::Toggle(vec![4]));
        assert!(v.expanded.is_empty());
    }
}
