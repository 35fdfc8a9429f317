//! Drawing a flame-graph [`Layout`] on a canvas. Pure: the same layout and style always give
//! the same picture. Colors are deterministic: FlameGraph.pl's hot palette hashed from the
//! function name, or a hue hashed from the module name.

use std::collections::HashMap;

use perfscope_analysis::flame_graph::hot_color;
use web_sys::CanvasRenderingContext2d;

use super::layout::{Layout, ROW_HEIGHT};
use crate::components::canvas::timed;
use crate::protocol::{ProfileData, TreeNodes};
use crate::selectors::{basename, func_module, func_name, is_command};

/// The color of a command's box (see [`box_color`]).
const COMMAND_COLOR: (u8, u8, u8) = (168, 190, 214);
use crate::state::ColorBy;

/// Search matches are drawn in FlameGraph.pl's search color.
pub const MATCH_COLOR: &str = "rgb(230,0,230)";

/// What besides the geometry decides the picture.
pub struct Style<'a> {
    /// Names and modules.
    pub profile: &'a ProfileData,
    /// The tree the layout was made from.
    pub nodes: &'a TreeNodes,
    /// Box colors.
    pub color_by: ColorBy,
    /// Search matches per node, when searching.
    pub matched: Option<&'a [bool]>,
    /// A function to outline (selected in the call tree).
    pub selected_func: Option<u32>,
    /// The node under the pointer.
    pub hovered: Option<u32>,
    /// Outline color (theme).
    pub accent: String,
    /// Background (theme).
    pub background: String,
    /// The top of the band drawn under the roots for the roots left out (too narrow to
    /// draw), when the whole graph is shown and some were.
    pub elided_band: Option<f64>,
    /// The bands above the command boxes whose trees left roots out.
    pub command_bands: &'a [CommandBand],
    /// The bands' color (theme).
    pub elided_color: String,
}

/// 32-bit FNV-1a.
fn fnv(s: &str) -> u32 {
    s.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// HSL (degrees, %, %) to RGB.
fn hsl(h: f64, s: f64, l: f64) -> (u8, u8, u8) {
    let (s, l) = (s / 100.0, l / 100.0);
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let hp = (h % 360.0) / 60.0;
    let x = c * (1.0 - (hp % 2.0 - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    let to = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    (to(r), to(g), to(b))
}

/// The color of a module (by its file name), one hue per module.
pub fn module_color(module: &str) -> (u8, u8, u8) {
    if module.is_empty() {
        return (190, 190, 190);
    }
    let h = fnv(basename(module));
    hsl(
        f64::from(h % 360),
        55.0 + f64::from((h >> 9) % 20),
        62.0 + f64::from((h >> 17) % 10),
    )
}

/// The color of a function box.
pub fn box_color(profile: &ProfileData, func: u32, by: ColorBy) -> (u8, u8, u8) {
    if is_command(profile, func) {
        // A command (a root of a tree by command): one cool color apart from any function's.
        return COMMAND_COLOR;
    }
    match by {
        ColorBy::Name => hot_color(func_name(profile, func)),
        ColorBy::Module => module_color(func_module(profile, func)),
    }
}

fn rgb((r, g, b): (u8, u8, u8)) -> String {
    format!("rgb({r},{g},{b})")
}

/// The band above a command's box, standing for the roots of its tree that were left out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CommandBand {
    /// The command's node.
    pub node: u32,
    /// Left, CSS px.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Width.
    pub w: f64,
}

/// The bands of the command boxes in `placed` whose trees left roots out: the row above each
/// (below, as an icicle), as wide as the box.
pub fn command_bands(
    placed: &Layout,
    nodes: &TreeNodes,
    profile: &ProfileData,
    icicle: bool,
) -> Vec<CommandBand> {
    placed
        .boxes
        .iter()
        .filter(|b| {
            let i = b.node as usize;
            nodes.elided_count.get(i).is_some_and(|&c| c > 0)
                && nodes.func.get(i).is_some_and(|&f| is_command(profile, f))
        })
        .map(|b| CommandBand {
            node: b.node,
            x: b.x,
            y: if icicle {
                b.y + ROW_HEIGHT
            } else {
                b.y - ROW_HEIGHT
            },
            w: b.w,
        })
        .collect()
}

/// Draws `layout` in `style`, timed as the measure `perfscope:flame-draw`.
pub fn draw(ctx: &CanvasRenderingContext2d, layout: &Layout, style: &Style<'_>) {
    timed("perfscope:flame-draw", || draw_boxes(ctx, layout, style));
}

fn draw_boxes(ctx: &CanvasRenderingContext2d, layout: &Layout, style: &Style<'_>) {
    ctx.set_fill_style_str(&style.background);
    ctx.fill_rect(0.0, 0.0, layout.width, layout.height);
    // The roots drawn cover the band where they are; the rest of it is the roots left out.
    ctx.set_fill_style_str(&style.elided_color);
    if let Some(y) = style.elided_band {
        ctx.fill_rect(0.0, y, layout.width, ROW_HEIGHT - 1.0);
    }
    for b in style.command_bands {
        ctx.fill_rect(b.x, b.y, b.w, ROW_HEIGHT - 1.0);
    }
    ctx.set_font("12px ui-sans-serif, system-ui, -apple-system, 'Segoe UI', sans-serif");
    ctx.set_text_baseline("middle");
    let char_w = ctx
        .measure_text("abcdefghijklmnopqrstuvwxyz")
        .map_or(6.5, |m| m.width() / 26.0)
        .max(1.0);
    let mut colors: HashMap<u32, String> = HashMap::new();
    let mut outlined = Vec::new();
    for b in &layout.boxes {
        let i = b.node as usize;
        let func = style.nodes.func.get(i).copied().unwrap_or(0);
        let matched = style
            .matched
            .is_some_and(|m| m.get(i).copied().unwrap_or(false));
        let fill = if matched {
            MATCH_COLOR.to_string()
        } else {
            colors
                .entry(func)
                .or_insert_with(|| rgb(box_color(style.profile, func, style.color_by)))
                .clone()
        };
        ctx.set_fill_style_str(&fill);
        // One device pixel of gap between neighbors when there is room for it.
        let w = if b.w > 2.0 { b.w - 0.5 } else { b.w };
        ctx.fill_rect(b.x, b.y, w, b.h);
        if style.selected_func == Some(func) || style.hovered == Some(b.node) {
            outlined.push(*b);
        }
        if b.w > 3.0 * char_w + 6.0 {
            let name = func_name(style.profile, func);
            let fits = ((b.w - 6.0) / char_w).floor() as usize;
            let text: String = if name.chars().count() <= fits {
                name.to_string()
            } else {
                let mut t: String = name.chars().take(fits.saturating_sub(1)).collect();
                t.push('…');
                t
            };
            ctx.set_fill_style_str(if matched { "#fff" } else { "#1a1a1a" });
            let _ = ctx.fill_text(&text, b.x + 3.0, b.y + b.h / 2.0 + 0.5);
        }
    }
    for b in outlined {
        let selected = style.nodes.func.get(b.node as usize).copied() == style.selected_func;
        ctx.set_stroke_style_str(if selected { &style.accent } else { "#222" });
        ctx.set_line_width(if selected { 2.0 } else { 1.0 });
        ctx.stroke_rect(b.x + 0.5, b.y + 0.5, (b.w - 1.0).max(0.5), b.h - 1.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_colors_are_stable_and_differ_between_modules() {
        let a = module_color("/usr/lib/libc.so.6");
        assert_eq!(a, module_color("/other/dir/libc.so.6"), "by file name");
        assert_ne!(a, module_color("[kernel.kallsyms]"));
        assert_eq!(module_color(""), (190, 190, 190));
    }

    #[test]
    fn hsl_primaries() {
        assert_eq!(hsl(0.0, 100.0, 50.0), (255, 0, 0));
        assert_eq!(hsl(120.0, 100.0, 50.0), (0, 255, 0));
        assert_eq!(hsl(240.0, 100.0, 50.0), (0, 0, 255));
    }
}
