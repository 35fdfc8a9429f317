//! Flame-graph geometry: which nodes are visible at the current zoom and where, in CSS px. Both
//! drawing and hit testing work from the same [`Layout`], so what is clicked is what is drawn.
//!
//! Level of detail: nodes narrower than [`MIN_WIDTH`] px are skipped with their whole subtree
//! (children are never wider than their parent), so the cost follows what is visible, not the
//! size of the tree.

use crate::protocol::TreeNodes;
use crate::selectors::TreeIndex;

/// Narrower boxes are not drawn (nor their children).
pub const MIN_WIDTH: f64 = 0.35;
/// Row height in CSS px.
pub const ROW_HEIGHT: f64 = 18.0;

/// What part of the graph is shown.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Viewport {
    /// Canvas width, CSS px.
    pub width: f64,
    /// First visible weight unit (the zoomed node's left edge).
    pub x0: f64,
    /// Visible weight units (the zoomed node's width); > 0.
    pub span: f64,
    /// Rows in the graph (the tree's depth).
    pub rows: u32,
    /// Roots at the top.
    pub icicle: bool,
}

impl Viewport {
    /// The viewport showing node `zoom` (or everything) of a tree `total` wide and `rows` deep.
    pub fn new(
        nodes: &TreeNodes,
        zoom: Option<u32>,
        total: f64,
        rows: u32,
        width: f64,
        icicle: bool,
    ) -> Viewport {
        let (x0, span) = match zoom
            .and_then(|z| Some((*nodes.x.get(z as usize)?, *nodes.width.get(z as usize)?)))
        {
            Some((x, w)) if w > 0.0 => (x, w),
            _ => (0.0, total.max(1.0)),
        };
        Viewport {
            width,
            x0,
            span,
            rows: rows.max(1),
            icicle,
        }
    }

    /// The canvas height for this viewport.
    pub fn height(&self) -> f64 {
        f64::from(self.rows) * ROW_HEIGHT + 4.0
    }

    /// The top of row `depth`.
    pub fn row_y(&self, depth: u32) -> f64 {
        if self.icicle {
            2.0 + f64::from(depth) * ROW_HEIGHT
        } else {
            self.height() - 2.0 - f64::from(depth + 1) * ROW_HEIGHT
        }
    }
}

/// One visible box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placed {
    /// Node index.
    pub node: u32,
    /// Left, CSS px.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
}

/// The visible boxes, in drawing order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Layout {
    /// The boxes.
    pub boxes: Vec<Placed>,
    /// The viewport they were placed for.
    pub width: f64,
    /// Canvas height.
    pub height: f64,
}

/// Places the nodes visible in `vp`.
pub fn layout(nodes: &TreeNodes, ix: &TreeIndex, vp: &Viewport) -> Layout {
    let mut boxes = Vec::new();
    let scale = vp.width / vp.span;
    let x1 = vp.x0 + vp.span;
    let n = nodes.len();
    let mut i = 0usize;
    while i < n {
        let next_sibling = ix.end.get(i).map_or(i + 1, |&e| (e as usize).max(i + 1));
        let (Some(&x), Some(&w), Some(&d)) =
            (nodes.x.get(i), nodes.width.get(i), nodes.depth.get(i))
        else {
            break;
        };
        // Outside the zoomed range: skip the subtree.
        if x + w <= vp.x0 || x >= x1 {
            i = next_sibling;
            continue;
        }
        let left = ((x - vp.x0) * scale).max(0.0);
        let right = ((x + w - vp.x0) * scale).min(vp.width);
        if right - left < MIN_WIDTH {
            i = next_sibling;
            continue;
        }
        boxes.push(Placed {
            node: i as u32,
            x: left,
            y: vp.row_y(d),
            w: right - left,
            h: ROW_HEIGHT - 1.0,
        });
        i += 1;
    }
    Layout {
        boxes,
        width: vp.width,
        height: vp.height(),
    }
}

/// The node drawn at (`x`, `y`) CSS px, if any.
pub fn hit_test(layout: &Layout, x: f64, y: f64) -> Option<u32> {
    layout
        .boxes
        .iter()
        .find(|b| x >= b.x && x < b.x + b.w && y >= b.y && y < b.y + b.h)
        .map(|b| b.node)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// main(0..4) → [alpha(0..1), zeta(1..3)], other(4..5).
    fn nodes() -> TreeNodes {
        TreeNodes {
            parent: vec![u32::MAX, 0, 0, u32::MAX],
            func: vec![0, 1, 2, 3],
            depth: vec![0, 1, 1, 0],
            x: vec![0.0, 0.0, 1.0, 4.0],
            width: vec![4.0, 1.0, 2.0, 1.0],
            ..TreeNodes::default()
        }
    }

    #[test]
    fn places_boxes_and_hit_tests_the_same_geometry() {
        let n = nodes();
        let ix = TreeIndex::new(&n);
        let vp = Viewport::new(&n, None, 5.0, 2, 500.0, true);
        let l = layout(&n, &ix, &vp);
        let got: Vec<_> = l.boxes.iter().map(|b| (b.node, b.x, b.y, b.w)).collect();
        assert_eq!(
            got,
            vec![
                (0, 0.0, 2.0, 400.0),
                (1, 0.0, 20.0, 100.0),
                (2, 100.0, 20.0, 200.0),
                (3, 400.0, 2.0, 100.0)
            ]
        );
        assert_eq!(hit_test(&l, 150.0, 25.0), Some(2));
        assert_eq!(hit_test(&l, 350.0, 25.0), None, "main's self area");
        // Flame: roots at the bottom.
        let flame = layout(
            &n,
            &ix,
            &Viewport {
                icicle: false,
                ..vp
            },
        );
        assert_eq!(flame.boxes[0].y, vp.height() - 2.0 - ROW_HEIGHT);
        assert_eq!(hit_test(&flame, 10.0, flame.boxes[0].y + 1.0), Some(0));
    }

    #[test]
    fn zoom_shows_the_node_full_width_with_its_ancestors() {
        let n = nodes();
        let ix = TreeIndex::new(&n);
        let vp = Viewport::new(&n, Some(2), 5.0, 2, 500.0, true);
        let l = layout(&n, &ix, &vp);
        let got: Vec<_> = l.boxes.iter().map(|b| (b.node, b.x, b.w)).collect();
        // main is clipped to the full width; alpha and other are out of range.
        assert_eq!(got, vec![(0, 0.0, 500.0), (2, 0.0, 500.0)]);
    }

    #[test]
    fn narrow_subtrees_are_skipped() {
        let n = nodes();
        let ix = TreeIndex::new(&n);
        let l = layout(&n, &ix, &Viewport::new(&n, None, 5.0, 2, 1.0, true));
        // At 1 px for 5 units: main 0.8 px and zeta 0.4 px stay; alpha and other (0.2 px) go.
        assert_eq!(
            l.boxes.iter().map(|b| b.node).collect::<Vec<_>>(),
            vec![0, 2]
        );
    }
}
