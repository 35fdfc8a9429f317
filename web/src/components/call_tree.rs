//! The call tree view: top-down or bottom-up (inverted) table with total and self weight,
//! expandable rows, sortable columns and keyboard navigation. Selecting a row highlights its
//! function in the flame graph.

use std::rc::Rc;

use web_sys::KeyboardEvent;
use yew::prelude::*;

use super::controls::{roots_switch, view_toggle, SampleControls};
use super::notices::Notices;
use crate::display::{duration_ns, grouped, off_cpu_total, percent};
use crate::protocol::{ProfileData, Query, TreeNodes, TreeReply, WeightKind};
use crate::selectors::{basename, find_path, func_module, func_name, path_of, TreeIndex};
use crate::state::shared::Shared;
use crate::state::{AppState, FuncPath, SortBy, ViewAction};

/// At most this many rows are rendered.
pub const MAX_ROWS: usize = 3000;

/// Properties of [`CallTreeView`].
#[derive(Properties, PartialEq)]
pub struct CallTreeProps {
    /// The state.
    pub state: Rc<AppState>,
    /// The profile.
    pub profile: Shared<ProfileData>,
    /// The tree query the view needs.
    pub wanted: Option<Query>,
    /// View changes.
    pub on_action: Callback<ViewAction>,
}

fn weights(n: &TreeNodes, i: usize, w: WeightKind) -> (f64, f64) {
    match w {
        WeightKind::Samples => (
            n.total_samples.get(i).copied().unwrap_or(0.0),
            n.self_samples.get(i).copied().unwrap_or(0.0),
        ),
        WeightKind::Period => (
            n.total_period.get(i).copied().unwrap_or(0.0),
            n.self_period.get(i).copied().unwrap_or(0.0),
        ),
    }
}

/// Children of `level` sorted for display.
pub fn sorted(
    t: &TreeReply,
    p: &ProfileData,
    level: &[u32],
    sort: SortBy,
    w: WeightKind,
) -> Vec<u32> {
    let mut v = level.to_vec();
    let n = &t.nodes;
    v.sort_by(|&a, &b| {
        let (ta, sa) = weights(n, a as usize, w);
        let (tb, sb) = weights(n, b as usize, w);
        let name = |i: u32| func_name(p, n.func.get(i as usize).copied().unwrap_or(0));
        match sort {
            SortBy::Total => tb.total_cmp(&ta).then_with(|| name(a).cmp(name(b))),
            SortBy::SelfWeight => sb.total_cmp(&sa).then_with(|| tb.total_cmp(&ta)),
            SortBy::Name => name(a).cmp(name(b)).then_with(|| tb.total_cmp(&ta)),
        }
    });
    v
}

/// A visible row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    /// The node (for an elided row: the node whose children were left out).
    pub node: u32,
    /// Indentation level.
    pub depth: u32,
    /// The row stands for the children of `node` that the worker left out (too small to draw).
    pub elided: bool,
}

/// The visible rows: expanded nodes followed by their children, and an elided row after them
/// when some were left out.
pub fn visible_rows(
    t: &TreeReply,
    p: &ProfileData,
    ix: &TreeIndex,
    expanded: &std::collections::BTreeSet<FuncPath>,
    sort: SortBy,
    w: WeightKind,
) -> Vec<Row> {
    let mut out = Vec::new();
    // (row, path; empty for elided rows).
    let mut stack: Vec<(Row, FuncPath)> = sorted(t, p, &ix.roots, sort, w)
        .into_iter()
        .rev()
        .map(|r| {
            (
                Row {
                    node: r,
                    depth: 0,
                    elided: false,
                },
                vec![t.nodes.func.get(r as usize).copied().unwrap_or(0)],
            )
        })
        .collect();
    // The roots left out come last.
    if t.meta.elided_count > 0 {
        stack.insert(
            0,
            (
                Row {
                    node: u32::MAX,
                    depth: 0,
                    elided: true,
                },
                Vec::new(),
            ),
        );
    }
    while let Some((row, path)) = stack.pop() {
        out.push(row);
        if out.len() >= MAX_ROWS {
            break;
        }
        if !row.elided && expanded.contains(&path) {
            let node = row.node;
            if t.nodes
                .elided_count
                .get(node as usize)
                .is_some_and(|&c| c > 0)
            {
                stack.push((
                    Row {
                        node,
                        depth: row.depth + 1,
                        elided: true,
                    },
                    Vec::new(),
                ));
            }
            let kids = ix
                .children
                .get(node as usize)
                .map_or(&[][..], Vec::as_slice);
            for c in sorted(t, p, kids, sort, w).into_iter().rev() {
                let mut cp = path.clone();
                cp.push(t.nodes.func.get(c as usize).copied().unwrap_or(0));
                stack.push((
                    Row {
                        node: c,
                        depth: row.depth + 1,
                        elided: false,
                    },
                    cp,
                ));
            }
        }
    }
    out
}

/// Whether node `i` can be expanded: it has children, drawn or left out.
fn has_children(t: &TreeReply, ix: &TreeIndex, i: usize) -> bool {
    ix.children.get(i).is_some_and(|k| !k.is_empty())
        || t.nodes.elided_count.get(i).is_some_and(|&c| c > 0)
}

/// The heaviest path from the heaviest root, as the prefixes to expand (at most 16 levels).
pub fn heaviest_path(t: &TreeReply, ix: &TreeIndex) -> Vec<FuncPath> {
    let heaviest = |level: &[u32]| {
        level.iter().copied().max_by(|&a, &b| {
            let wa = t
                .nodes
                .total_samples
                .get(a as usize)
                .copied()
                .unwrap_or(0.0);
            let wb = t
                .nodes
                .total_samples
                .get(b as usize)
                .copied()
                .unwrap_or(0.0);
            wa.total_cmp(&wb)
        })
    };
    let mut out = Vec::new();
    let mut cur = heaviest(&ix.roots);
    while let Some(n) = cur {
        let kids = ix.children.get(n as usize).map_or(&[][..], Vec::as_slice);
        if kids.is_empty() || out.len() >= 16 {
            break;
        }
        out.push(path_of(&t.nodes, n));
        cur = heaviest(kids);
    }
    out
}

/// The call tree tab.
#[function_component(CallTreeView)]
pub fn call_tree_view(props: &CallTreeProps) -> Html {
    let view = &props.state.view;
    let p = &props.profile;
    let tree = props.state.results.tree.clone();
    // An earlier query's tree while the wanted one is made: dimmed, and said.
    let (current, stale) = crate::selectors::tree_freshness(
        &props.state,
        tree.as_deref(),
        props.wanted.as_ref(),
        p.overview.generation,
    );
    let empty = use_memo((), |_| Shared::new(TreeReply::default()));
    let t = tree.clone().unwrap_or_else(|| (*empty).clone());
    let ix = use_memo(Shared::id(&t), {
        let t = t.clone();
        move |_| TreeIndex::new(&t.nodes)
    });
    let rows = use_memo(
        (
            Shared::id(&t),
            view.expanded.clone(),
            view.sort,
            view.weight,
        ),
        {
            let (t, p, ix) = (t.clone(), p.clone(), ix.clone());
            move |(_, expanded, sort, w)| visible_rows(&t, &p, &ix, expanded, *sort, *w)
        },
    );
    // Open the heaviest path the first time a tree is shown.
    {
        let (on_action, t, ix) = (props.on_action.clone(), t.clone(), ix.clone());
        let want = current && view.expanded.is_empty() && !t.nodes.is_empty();
        use_effect_with((want, Shared::id(&t)), move |(want, _)| {
            if *want {
                on_action.emit(ViewAction::Expand(heaviest_path(&t, &ix)));
            }
        });
    }
    let selected = view
        .tree_selected
        .as_ref()
        .and_then(|path| find_path(&t.nodes, &ix, path));
    let total = match view.weight {
        WeightKind::Samples => t.meta.samples as f64,
        WeightKind::Period => t.meta.period as f64,
    };
    let select = {
        let (on_action, t) = (props.on_action.clone(), t.clone());
        move |node: u32| {
            let path = path_of(&t.nodes, node);
            on_action.emit(ViewAction::SelectFunc(path.last().copied()));
            on_action.emit(ViewAction::TreeSelect(Some(path)));
        }
    };
    let onkeydown = {
        let (rows, t, ix, on_action, select) = (
            rows.clone(),
            t.clone(),
            ix.clone(),
            props.on_action.clone(),
            select.clone(),
        );
        let expanded = view.expanded.clone();
        Callback::from(move |e: KeyboardEvent| {
            let rows: Vec<u32> = rows.iter().filter(|r| !r.elided).map(|r| r.node).collect();
            let pos = selected.and_then(|s| rows.iter().position(|&n| n == s));
            let move_to = |i: usize| rows.get(i).copied();
            let key = e.key();
            let target = match key.as_str() {
                "ArrowDown" => pos
                    .map_or(Some(0), |p| Some((p + 1).min(rows.len().saturating_sub(1))))
                    .and_then(move_to),
                "ArrowUp" => pos.map(|p| p.saturating_sub(1)).and_then(move_to),
                "ArrowRight" | "ArrowLeft" | "Enter" | " " => {
                    if let Some(s) = selected {
                        let path = path_of(&t.nodes, s);
                        let has_kids = has_children(&t, &ix, s as usize);
                        let open = expanded.contains(&path);
                        let toggle = match key.as_str() {
                            "ArrowRight" => has_kids && !open,
                            "ArrowLeft" => open,
                            _ => has_kids,
                        };
                        if toggle {
                            on_action.emit(ViewAction::Toggle(path));
                        } else if key == "ArrowLeft" {
                            let parent = t
                                .nodes
                                .parent
                                .get(s as usize)
                                .copied()
                                .filter(|&p| p != u32::MAX);
                            if let Some(p) = parent {
                                select(p);
                            }
                        }
                    }
                    e.prevent_default();
                    None
                }
                _ => None,
            };
            if let Some(n) = target {
                e.prevent_default();
                select(n);
            }
        })
    };
    let sort_button = |label: &'static str, by: SortBy, class: &'static str| {
        let cb = props
            .on_action
            .reform(move |_: MouseEvent| ViewAction::Sort(by));
        let on = view.sort == by;
        html! {
            <th class={class} aria-sort={if on { if by == SortBy::Name { "ascending" } else { "descending" } } else { "none" }}>
                <button type="button" class={classes!("th-sort", on.then_some("on"))} data-sort={label.to_lowercase()} onclick={cb}>{ label }</button>
            </th>
        }
    };
    let toggle = |label: &'static str, id: &'static str, on: bool, action: ViewAction| {
        view_toggle(&props.on_action, label, id, on, action)
    };
    let off_cpu = crate::selectors::off_cpu_shown(&props.state);
    let unit = match (off_cpu, view.weight) {
        (true, _) => "off-CPU time",
        (false, WeightKind::Samples) => "samples",
        (false, WeightKind::Period) => "period",
    };
    // Off-CPU weights are ns: shown as durations.
    let value = move |w: f64| {
        if off_cpu {
            duration_ns(w as u64)
        } else {
            grouped(w as u64)
        }
    };
    let body = rows.iter().map(|&Row { node, depth, elided }| {
        let i = node as usize;
        if elided {
            // `u32::MAX`: the roots left out.
            let count = if node == u32::MAX { t.meta.elided_count } else { t.nodes.elided_count.get(i).copied().unwrap_or(0) };
            let w = match (view.weight, node == u32::MAX) {
                (WeightKind::Samples, true) => t.meta.elided_samples as f64,
                (WeightKind::Period, true) => t.meta.elided_period as f64,
                (WeightKind::Samples, false) => t.nodes.elided_samples.get(i).copied().unwrap_or(0.0),
                (WeightKind::Period, false) => t.nodes.elided_period.get(i).copied().unwrap_or(0.0),
            };
            return html! {
                <tr class="elided muted" aria-level={(depth + 1).to_string()} data-elided={node.to_string()} data-count={count.to_string()} data-weight={w.to_string()}>
                    <td class="num">{ value(w) }</td>
                    <td class="num muted">{ percent(if total > 0.0 { w / total } else { 0.0 }) }</td>
                    <td class="num" />
                    <td class="fn" style={format!("padding-left:{}px", 6 + depth * 14)}>
                        <span class="twisty-space" />
                        <span class="fn-name">{ format!("+ {} smaller, not drawn", grouped(u64::from(count))) }</span>
                    </td>
                    <td class="module" />
                </tr>
            };
        }
        let func = t.nodes.func.get(i).copied().unwrap_or(0);
        let (tw, sw) = weights(&t.nodes, i, view.weight);
        let has_kids = has_children(&t, &ix, i);
        let path = path_of(&t.nodes, node);
        let open = view.expanded.contains(&path);
        let toggle = {
            let (on_action, path) = (props.on_action.clone(), path.clone());
            Callback::from(move |e: MouseEvent| {
                e.stop_propagation();
                on_action.emit(ViewAction::Toggle(path.clone()));
            })
        };
        let onclick = {
            let select = select.clone();
            Callback::from(move |_: MouseEvent| select(node))
        };
        let module = func_module(p, func);
        let name = func_name(p, func).to_string();
        html! {
            <tr class={classes!((Some(node) == selected).then_some("selected"))} aria-selected={(Some(node) == selected).to_string()}
                aria-level={(depth + 1).to_string()} aria-expanded={has_kids.then(|| open.to_string())}
                data-node={node.to_string()} data-name={name.clone()} {onclick}>
                <td class="num">{ value(tw) }</td>
                <td class="num muted">{ percent(if total > 0.0 { tw / total } else { 0.0 }) }</td>
                <td class="num">{ value(sw) }</td>
                <td class="fn" style={format!("padding-left:{}px", 6 + depth * 14)}>
                    if has_kids {
                        <button type="button" class="twisty" tabindex="-1" aria-label={if open { "Collapse" } else { "Expand" }} onclick={toggle}>{ if open { "▾" } else { "▸" } }</button>
                    } else {
                        <span class="twisty-space" />
                    }
                    <span class="fn-name" title={name.clone()}>{ name }</span>
                </td>
                <td class="module muted" title={module.to_string()}>{ basename(module).to_string() }</td>
            </tr>
        }
    });

    html! {
        <section class="view calltree-view" id="panel-calltree" role="tabpanel" aria-labelledby="tab-calltree">
            <SampleControls state={props.state.clone()} profile={props.profile.clone()} on_action={props.on_action.clone()} />
            <div class="view-bar">
                <div class="segmented" role="group" aria-label="Direction">
                    { toggle("Top-down", "tree-topdown", !view.inverted, ViewAction::Inverted(false)) }
                    { toggle("Bottom-up", "tree-bottomup", view.inverted, ViewAction::Inverted(true)) }
                </div>
                { roots_switch(&props.on_action, view.by_command, ("tree-roots-functions", "tree-roots-commands")) }
                <span class="muted small">{ format!("Total and Self in {unit}") }</span>
                <span class="spacer" />
                <span class="total" data-field="calltree-total" data-current={current.to_string()} data-samples={t.meta.samples.to_string()}>
                    if stale {
                        <span class="muted updating" data-field="calltree-updating">{ "Updating…" }</span>
                    } else {
                        { match (tree.is_some(), off_cpu) {
                            (false, _) => "…".to_string(),
                            (true, false) => format!("{} samples", grouped(t.meta.samples)),
                            (true, true) => off_cpu_total(t.meta.period, t.meta.samples),
                        } }
                    }
                </span>
            </div>
            <Notices state={props.state.clone()} profile={props.profile.clone()} on_action={props.on_action.clone()} />
            <div class={classes!("table-scroll", stale.then_some("stale"))} aria-busy={stale.to_string()}>
                <table class="calltree" role="treegrid" aria-label="Call tree" tabindex="0" {onkeydown}>
                    <thead>
                        <tr>
                            { sort_button("Total", SortBy::Total, "num") }
                            <th class="num">{ "%" }</th>
                            { sort_button("Self", SortBy::SelfWeight, "num") }
                            { sort_button("Function", SortBy::Name, "fn") }
                            <th>{ "Module" }</th>
                        </tr>
                    </thead>
                    <tbody>{ for body }</tbody>
                </table>
                if rows.len() >= MAX_ROWS { <p class="muted small">{ format!("Showing the first {MAX_ROWS} rows; collapse nodes to see others.") }</p> }
            </div>
        </section>
    }
}
