//! A standalone interactive SVG flame graph (like FlameGraph.pl and inferno output, our own
//! code): one `<g>` per box with a `<title>` tooltip, an embedded script for click-to-zoom
//! (click a box to zoom, click "all" or press Escape to reset) and search (Ctrl-F or the
//! "Search" button: matching boxes turn magenta and the matched share is shown).

use core::fmt::Write as _;

use crate::call_tree::Weight;
use crate::flame_graph::{hot_color, FlameGraph, WeightKind};
use crate::ids::FuncIndex;
use crate::profile::Profile;
use crate::pruned_tree::{pruned_flame, PruneOptions, StackChildren, StackWeights};
use crate::samples::SampleFilter;

/// Options for [`to_svg`].
#[derive(Clone, Debug, PartialEq)]
pub struct SvgOptions {
    /// Title at the top.
    pub title: String,
    /// Image width in pixels.
    pub width: u32,
    /// Height of one row in pixels.
    pub frame_height: u32,
    /// Font size in pixels.
    pub font_size: u32,
    /// What the widths count, for tooltips ("samples", "ns", "events").
    pub unit: String,
    /// Boxes narrower than this many pixels (of the whole graph) are left out, with the boxes
    /// above them, as by FlameGraph.pl's `--minwidth` (whose default is 0.1 pixels too):
    /// a recording named by module and offset has millions of boxes, nearly all too narrow to
    /// see or click, that would make a file of gigabytes. 0 keeps every box.
    pub min_width: f64,
}

impl Default for SvgOptions {
    fn default() -> Self {
        SvgOptions {
            title: "Flame Graph".into(),
            width: 1200,
            frame_height: 16,
            font_size: 12,
            unit: "samples".into(),
            min_width: 0.1,
        }
    }
}

/// Escapes text for XML content and attribute values.
pub fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\t' && c != '\n' => {}
            c => out.push(c),
        }
    }
    out
}

const SCRIPT: &str = r#"
(function () {
  var svg = document.documentElement;
  var W = +svg.getAttribute("data-width"), PAD = 10, FONT = +svg.getAttribute("data-font");
  var total = +svg.getAttribute("data-total");
  var boxes = Array.prototype.slice.call(document.querySelectorAll("g.f"));
  var matched = document.getElementById("matched"), searchBtn = document.getElementById("search");
  var resetBtn = document.getElementById("reset");
  function px(v) { return PAD + v * (W - 2 * PAD); }
  function fit(g, x, w) {
    var r = g.querySelector("rect"), t = g.querySelector("text"), name = g.getAttribute("data-name");
    r.setAttribute("x", px(x)); r.setAttribute("width", Math.max(0, px(x + w) - px(x) - 0.5));
    t.setAttribute("x", px(x) + 3);
    var room = Math.floor((px(x + w) - px(x) - 6) / (FONT * 0.59));
    t.textContent = room < 3 ? "" : (name.length <= room ? name : name.slice(0, room - 2) + "..");
  }
  function zoom(g) {
    var x0 = +g.getAttribute("data-x"), w0 = +g.getAttribute("data-w"), d0 = +g.getAttribute("data-d");
    boxes.forEach(function (b) {
      var x = +b.getAttribute("data-x"), w = +b.getAttribute("data-w"), d = +b.getAttribute("data-d");
      var inside = x >= x0 && x + w <= x0 + w0 + 1e-9;
      var ancestor = d < d0 && x <= x0 && x + w >= x0 + w0 - 1e-9;
      if (inside || ancestor || g === null) {
        b.style.display = "";
        if (ancestor) fit(b, 0, 1); else fit(b, (x - x0) / w0, w / w0);
      } else {
        b.style.display = "none";
      }
    });
    resetBtn.style.opacity = 1;
  }
  function reset() {
    boxes.forEach(function (b) { b.style.display = ""; fit(b, +b.getAttribute("data-x"), +b.getAttribute("data-w")); });
    resetBtn.style.opacity = 0;
  }
  function search(term) {
    var re = null;
    if (term) { try { re = new RegExp(term); } catch (e) { re = null; } }
    var spans = [];
    boxes.forEach(function (b) {
      var r = b.querySelector("rect");
      if (!r.hasAttribute("data-fill")) r.setAttribute("data-fill", r.getAttribute("fill"));
      var hit = re !== null && re.test(b.getAttribute("data-name"));
      r.setAttribute("fill", hit ? "rgb(230,0,230)" : r.getAttribute("data-fill"));
      if (hit) spans.push([+b.getAttribute("data-x"), +b.getAttribute("data-x") + +b.getAttribute("data-w")]);
    });
    spans.sort(function (a, b) { return a[0] - b[0]; });
    var covered = 0, end = -1;
    spans.forEach(function (s) { if (s[1] > end) { covered += s[1] - Math.max(s[0], end); end = s[1]; } });
    matched.textContent = re === null ? "" : "Matched: " + (covered * 100).toFixed(1) + "%";
    searchBtn.textContent = re === null ? "Search" : "Reset Search";
    return re !== null;
  }
  boxes.forEach(function (b) {
    b.addEventListener("click", function () { if (b.getAttribute("data-d") === "0" && b.getAttribute("data-w") === "1") reset(); else zoom(b); });
  });
  resetBtn.addEventListener("click", reset);
  searchBtn.addEventListener("click", function () {
    if (searchBtn.textContent !== "Search") { search(null); return; }
    search(window.prompt("Search for (regular expression):", ""));
  });
  window.addEventListener("keydown", function (e) {
    if ((e.ctrlKey || e.metaKey) && e.key === "f") { e.preventDefault(); search(window.prompt("Search for (regular expression):", "")); }
    if (e.key === "Escape") { reset(); search(null); }
  });
  svg.setAttribute("data-ready", "1");
})();
"#;

/// One box to draw: its function, row (0 for a root), left edge and width in weight units from
/// the left of the graph, and its self weight.
struct SvgBox {
    func: FuncIndex,
    depth: u32,
    x: u64,
    width: u64,
    self_width: u64,
}

/// The horizontal room for the boxes, in pixels (the image less its margins).
fn scale(options: &SvgOptions) -> f64 {
    f64::from(options.width.max(100)) - 2.0 * PAD
}

/// The margin left and right of the boxes, in pixels.
const PAD: f64 = 10.0;

/// Renders the flame graph as a standalone SVG document. Rows grow upwards from an "all" box
/// at the bottom; x positions are stored as fractions of the total in `data-x`/`data-w`
/// attributes for the script.
pub fn to_svg(graph: &FlameGraph, profile: &Profile, options: &SvgOptions) -> String {
    let boxes: Vec<SvgBox> = graph
        .rects
        .iter()
        .map(|r| SvgBox {
            func: r.func,
            depth: r.depth,
            x: r.x,
            width: r.width,
            self_width: r.self_width,
        })
        .collect();
    write_svg(&boxes, graph.total, profile, options)
}

/// [`to_svg`] of the top-down flame graph of `profile`'s samples that pass `filter`, weighed
/// by `kind`, laid out without merging every stack into a call tree: only the boxes at least
/// `options.min_width` pixels wide are made ([`crate::pruned_tree`], which gives them the
/// coordinates of the whole layout). The same document as [`to_svg`] of
/// [`FlameGraph::from_call_tree`], without the millions of boxes too narrow to draw (a 12M-sample
/// recording by module and offset: seconds and megabytes instead of a minute and gigabytes).
pub fn flame_svg(
    profile: &Profile,
    filter: &SampleFilter,
    kind: WeightKind,
    options: &SvgOptions,
) -> String {
    let children = StackChildren::new(profile);
    let weights = StackWeights::new(profile, filter);
    // A box is drawn when width / total × scale ≥ min_width: the pruned layout keeps those
    // with width × detail ≥ total, and a detail a little above scale / min_width keeps them
    // all (the writer then drops the few extra ones by the exact test).
    let detail = if options.min_width > 0.0 {
        let d = (scale(options) / options.min_width).ceil() + 2.0;
        if d < u64::MAX as f64 {
            d as u64
        } else {
            u64::MAX
        }
    } else {
        u64::MAX
    };
    let flame = pruned_flame(
        profile,
        &children,
        &weights,
        PruneOptions {
            inverted: false,
            kind,
            detail,
            root: &[],
        },
    );
    let pick = |w: Weight| match kind {
        WeightKind::Samples => w.samples,
        WeightKind::Period => w.period,
    };
    let boxes: Vec<SvgBox> = flame
        .nodes
        .iter()
        .map(|n| SvgBox {
            func: n.func,
            depth: n.depth,
            x: n.x,
            width: n.width,
            self_width: pick(n.self_weight),
        })
        .collect();
    write_svg(&boxes, flame.width, profile, options)
}

/// The SVG document of `boxes` (parents before their children) in a graph `total` wide.
fn write_svg(boxes: &[SvgBox], total: u64, profile: &Profile, options: &SvgOptions) -> String {
    let width = options.width.max(100);
    let graph_total = total;
    let total = total.max(1) as f64;
    let pad = PAD;
    let scale = scale(options);
    // The boxes wide enough, and the rows they fill.
    let wide = |r: &&SvgBox| r.width as f64 / total * scale >= options.min_width;
    let depth = boxes
        .iter()
        .filter(wide)
        .map(|r| r.depth + 1)
        .max()
        .unwrap_or(0);
    let fh = options.frame_height.max(1);
    let rows = depth + 1; // + "all"
    let top = 3 * options.font_size + 8;
    let height = top + rows * fh + 2 * options.font_size;
    let mut s = String::new();
    let _ = writeln!(s, r#"<?xml version="1.0" standalone="no"?>"#);
    let _ = writeln!(
        s,
        r#"<svg version="1.1" width="{width}" height="{height}" viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg" data-width="{width}" data-font="{font}" data-total="{graph_total}">"#,
        font = options.font_size,
    );
    let _ = writeln!(
        s,
        r#"<style>text {{ font-family: Verdana, sans-serif; font-size: {f}px; fill: #000; }} g.f:hover rect {{ stroke: #000; stroke-width: 0.5; cursor: pointer; }} .ui {{ cursor: pointer; }}</style>"#,
        f = options.font_size
    );
    let _ = writeln!(
        s,
        r##"<rect x="0" y="0" width="{width}" height="{height}" fill="#f8f8f8"/>"##
    );
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle" style="font-size:{}px">{}</text>"#,
        width / 2,
        options.font_size + 6,
        options.font_size + 5,
        xml_escape(&options.title)
    );
    let _ = writeln!(
        s,
        r#"<text id="reset" class="ui" x="{pad}" y="{}" style="opacity:0">Reset Zoom</text>"#,
        2 * options.font_size + 6
    );
    let _ = writeln!(
        s,
        r#"<text id="search" class="ui" x="{}" y="{}" text-anchor="end">Search</text>"#,
        width - 10,
        2 * options.font_size + 6
    );
    let _ = writeln!(
        s,
        r#"<text id="matched" x="{}" y="{}" text-anchor="end"></text>"#,
        width - 10,
        height - 6
    );

    let row_y = |depth: u32| top + (rows - 1 - depth) * fh;
    let rect = |s: &mut String,
                name: &str,
                depth: u32,
                x: u64,
                w: u64,
                self_w: u64,
                color: (u8, u8, u8)| {
        let fx = x as f64 / total;
        let fw = w as f64 / total;
        let px = pad + fx * scale;
        let pw = (fw * scale - 0.5).max(0.0);
        let pct = 100.0 * fw;
        let label = xml_escape(name);
        let room = ((pw - 6.0) / (f64::from(options.font_size) * 0.59)).floor();
        let shown: String = if room < 3.0 {
            String::new()
        } else if (name.chars().count() as f64) <= room {
            label.clone()
        } else {
            let keep = (room as usize).saturating_sub(2);
            format!(
                "{}..",
                xml_escape(&name.chars().take(keep).collect::<String>())
            )
        };
        let _ = writeln!(
            s,
            r#"<g class="f" data-name="{label}" data-x="{fx}" data-w="{fw}" data-d="{depth}"><title>{label} ({w} {unit}, {pct:.2}%, self {self_w})</title><rect x="{px:.1}" y="{y}" width="{pw:.1}" height="{h}" fill="rgb({r},{g},{b})" rx="2" ry="2"/><text x="{tx:.1}" y="{ty}">{shown}</text></g>"#,
            unit = xml_escape(&options.unit),
            y = row_y(depth),
            h = fh.saturating_sub(1),
            r = color.0,
            g = color.1,
            b = color.2,
            tx = px + 3.0,
            ty = row_y(depth) + fh.saturating_sub(4),
        );
    };
    rect(&mut s, "all", 0, 0, graph_total, 0, (250, 120, 90));
    for r in boxes.iter().filter(wide) {
        let name = profile.func_name(r.func);
        rect(
            &mut s,
            name,
            r.depth + 1,
            r.x,
            r.width,
            r.self_width,
            hot_color(name),
        );
    }
    let _ = writeln!(
        s,
        "<script type=\"text/ecmascript\"><![CDATA[{}]]></script>",
        SCRIPT
    );
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call_tree::CallTree;
    use crate::flame_graph::WeightKind;
    use crate::samples::SampleFilter;
    use crate::text_samples::profile_from_text_samples;

    #[test]
    fn svg_has_one_group_per_box_with_exact_geometry() {
        let p = profile_from_text_samples("main main main other\nf<T> g    g\n").unwrap();
        let t = CallTree::top_down(&p, &SampleFilter::all()).unwrap();
        let g = FlameGraph::from_call_tree(&t, &p, WeightKind::Samples);
        let svg = to_svg(
            &g,
            &p,
            &SvgOptions {
                width: 410,
                ..Default::default()
            },
        );
        assert!(svg.starts_with("<?xml"));
        assert!(svg.ends_with("</svg>\n"));
        // Boxes: main(3) with f<T>(1) and g(2), other(1); plus the "all" box.
        assert_eq!(g.rects.len(), 4);
        assert_eq!(svg.matches(r#"<g class="f""#).count(), 1 + 4);
        // scale = 410 - 20 = 390 px for 4 samples: "g" starts at 10 + 390*1/4 = 107.5, width 195 - 0.5.
        assert!(svg.contains(r#"data-name="g" data-x="0.25" data-w="0.5" data-d="2"><title>g (2 samples, 50.00%, self 2)</title><rect x="107.5" y="#), "{svg}");
        assert!(svg.contains(r#"width="194.5""#));
        assert!(svg.contains("f&lt;T&gt;"));
        assert!(!svg.contains("f<T>"));
        assert!(svg.contains("data-ready"));
    }
}
