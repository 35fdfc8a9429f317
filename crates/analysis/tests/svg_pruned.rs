//! `flame_svg` (the SVG flame graph laid out by the pruned tree, only the boxes wide enough
//! made) writes the same document as `to_svg` of the whole flame graph
//! (`FlameGraph::from_call_tree`), for every box width limit and both weights, on the test files
//! and the corpus's recordings; and the limit leaves out exactly the boxes narrower than it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod timeline_common;

use std::path::Path;

use perfscope_analysis::builder::UnknownNames;
use perfscope_analysis::call_tree::CallTree;
use perfscope_analysis::export::svg::{flame_svg, to_svg, SvgOptions};
use perfscope_analysis::flame_graph::{FlameGraph, WeightKind};
use perfscope_analysis::load::{load_profile, LoadOptions};
use perfscope_analysis::profile::Profile;
use perfscope_analysis::samples::SampleFilter;

fn boxes(svg: &str) -> usize {
    svg.matches("<g class=\"f\"").count()
}

/// Compares both ways on `profile`; returns the boxes drawn with no limit.
fn check(name: &str, profile: &Profile) -> usize {
    let filter = SampleFilter::all();
    let tree = CallTree::top_down(profile, &filter).unwrap();
    let mut all_boxes = 0;
    for kind in [WeightKind::Samples, WeightKind::Period] {
        let graph = FlameGraph::from_call_tree(&tree, profile, kind);
        for min_width in [0.0, 0.1, 1.0, 30.0] {
            let options = SvgOptions {
                min_width,
                ..SvgOptions::default()
            };
            let whole = to_svg(&graph, profile, &options);
            let pruned = flame_svg(profile, &filter, kind, &options);
            assert!(
                whole == pruned,
                "{name} ({kind:?}, min width {min_width}): the documents differ"
            );
            // The boxes left out are those narrower than the limit ("all" is always drawn).
            let scale = f64::from(options.width) - 20.0;
            let total = graph.total.max(1) as f64;
            let wide = graph
                .rects
                .iter()
                .filter(|r| r.width as f64 / total * scale >= min_width)
                .count();
            assert_eq!(boxes(&pruned), wide + 1, "{name} ({kind:?}, {min_width})");
            if min_width == 0.0 {
                assert_eq!(wide, graph.rects.len());
                all_boxes = all_boxes.max(wide);
            }
        }
    }
    all_boxes
}

fn load(path: &Path) -> Option<Profile> {
    let data = std::fs::read(path).unwrap();
    let options = LoadOptions {
        unknown_names: UnknownNames::ModuleOffset,
        ..LoadOptions::default()
    };
    load_profile(&data, &[], options).ok().map(|(p, _)| p)
}

#[test]
fn the_pruned_svg_is_the_whole_svg_on_the_test_files() {
    let files = timeline_common::test_data_files();
    let mut drawn = 0;
    for f in &files {
        let profile = load(f).unwrap();
        drawn += check(&f.display().to_string(), &profile);
    }
    assert!(drawn > 200, "{drawn} boxes");
}

#[test]
fn the_pruned_svg_is_the_whole_svg_on_the_corpus() {
    let Some(root) = timeline_common::shared() else {
        println!("SKIPPED: no ../shared corpus (set PERFSCOPE_SHARED)");
        return;
    };
    let files = timeline_common::corpus_recordings(&root, false);
    let mut compared = 0;
    for f in &files {
        if let Some(profile) = load(f) {
            if !profile.samples.is_empty() {
                check(&f.display().to_string(), &profile);
                compared += 1;
            }
        }
    }
    println!("{compared} recordings compared");
    assert!(compared > 20, "only {compared} recordings");
}
