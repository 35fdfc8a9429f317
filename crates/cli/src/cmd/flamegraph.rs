//! `perfscope flamegraph`: a standalone interactive SVG flame graph of the folded stacks.

use std::path::PathBuf;
use std::process::ExitCode;

use perfscope_analysis::call_tree::CallTree;
use perfscope_analysis::export::svg::{to_svg, SvgOptions};
use perfscope_analysis::flame_graph::{FlameGraph, WeightKind};

use super::collapse::ProfileArgs;

/// Arguments of `perfscope flamegraph`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    profile: ProfileArgs,
    /// Where to write the SVG.
    #[arg(short, long, value_name = "SVG")]
    output: PathBuf,
    /// Widths by summed period instead of sample count.
    #[arg(long)]
    period: bool,
    /// The title.
    #[arg(long, default_value = "Flame Graph")]
    title: String,
}

/// Runs `perfscope flamegraph`.
pub fn run(args: &Args) -> Result<ExitCode, String> {
    // A perf.data or a share file (`perfscope export --format share`).
    let loaded = super::export::load(&args.profile)?;
    let profile = &loaded.profile;
    let tree = CallTree::top_down(profile, &loaded.filter).map_err(|e| format!("{e:?}"))?;
    let kind = loaded.weight(if args.period {
        WeightKind::Period
    } else {
        WeightKind::Samples
    });
    let graph = FlameGraph::from_call_tree(&tree, profile, kind);
    let options = SvgOptions {
        title: args.title.clone(),
        unit: if loaded.off_cpu {
            "ns off-CPU".into()
        } else if args.period {
            "events".into()
        } else {
            "samples".into()
        },
        ..SvgOptions::default()
    };
    let svg = to_svg(&graph, profile, &options);
    std::fs::write(&args.output, svg)
        .map_err(|e| format!("cannot write {}: {e}", args.output.display()))?;
    Ok(if loaded.had_errors {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
