//! The parts of a flame-graph query on a loaded profile, timed: the per-profile index
//! (`StackChildren`, with the functions' name order), then for the whole time and three time
//! selections the per-filter weights (`StackWeights`) and the pruned layout, top-down and
//! inverted, at the page's detail.
//!
//! ```text
//! cargo run --release -p perfscope-cli --example tree_parts -- FILE
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used)]
use perfscope_analysis::flame_graph::WeightKind;
use perfscope_analysis::pruned_tree::{pruned_flame, PruneOptions, StackChildren, StackWeights};
use perfscope_analysis::samples::SampleFilter;

mod common;

fn main() {
    let path = std::env::args().nth(1).unwrap();
    let p = common::load_by_address(&path);
    println!(
        "{} samples, {} stacks, {} frames, {} funcs",
        p.samples.len(),
        p.stacks.len(),
        p.frames.len(),
        p.funcs.len()
    );
    let t = std::time::Instant::now();
    let ch = StackChildren::new(&p);
    println!("children {:.0} ms", t.elapsed().as_secs_f64() * 1e3);
    let lo = p.samples.times().first().unwrap_or(0);
    let hi = p.samples.times().last().unwrap_or(0);
    if let Some(n) = std::env::var("REPEAT")
        .ok()
        .and_then(|n| n.parse::<u32>().ok())
    {
        // For profiling: the whole-range weights and top-down layout (inverted with
        // INVERTED=1), n times.
        let inverted = std::env::var("INVERTED").is_ok_and(|v| v == "1");
        for _ in 0..n {
            let w = StackWeights::new(&p, &SampleFilter::all());
            std::hint::black_box(pruned_flame(
                &p,
                &ch,
                &w,
                PruneOptions {
                    inverted,
                    kind: WeightKind::Samples,
                    detail: 8192,
                    root: &[],
                },
            ));
        }
        return;
    }
    let whole = StackWeights::new(&p, &SampleFilter::all());
    for (a, b) in [
        (0.0, 1.0),
        (0.25, 0.75),
        (0.1, 0.6),
        (0.05, 0.95),
        (0.3, 0.4),
        (0.5, 0.52),
    ] {
        let f = if a == 0.0 && b == 1.0 {
            SampleFilter::all()
        } else {
            let span = (hi - lo) as f64;
            SampleFilter {
                time_range: Some((lo + (span * a) as u64, lo + (span * b) as u64)),
                ..SampleFilter::all()
            }
        };
        let t = std::time::Instant::now();
        let w = StackWeights::new(&p, &f);
        let tw = t.elapsed().as_secs_f64() * 1e3;
        // From the whole time's weights less the samples outside (when fewer are outside).
        let t = std::time::Instant::now();
        if let Some(n) = StackWeights::narrowed(&whole, &p, &f) {
            println!(
                "{a}-{b}: narrowed from the whole time's weights {:.0} ms",
                t.elapsed().as_secs_f64() * 1e3
            );
            drop(n);
        }
        for inverted in [false, true] {
            let t = std::time::Instant::now();
            let g = pruned_flame(
                &p,
                &ch,
                &w,
                PruneOptions {
                    inverted,
                    kind: WeightKind::Samples,
                    detail: 8192,
                    root: &[],
                },
            );
            println!(
                "{a}-{b}: weights {tw:.0} ms, pruned (inverted {inverted}) {:.0} ms, {} nodes",
                t.elapsed().as_secs_f64() * 1e3,
                g.nodes.len()
            );
        }
    }
}
