//! `perfscope flamegraph`: a standalone interactive SVG flame graph of the folded stacks.

use std::path::PathBuf;
use std::process::ExitCode;

use perfscope_analysis::export::svg::{flame_svg, SvgOptions};
use perfscope_analysis::flame_graph::WeightKind;

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
    /// Leave out boxes narrower than this many pixels (of the 1200-pixel image), as
    /// FlameGraph.pl's --minwidth; 0 keeps every box.
    #[arg(long, value_name = "PIXELS", default_value_t = 0.1)]
    min_width: f64,
}

/// Runs `perfscope flamegraph`.
pub fn run(args: &Args) -> Result<ExitCode, String> {
    // A perf.data or a share file (`perfscope export --format share`).
    let loaded = super::export::load(&args.profile)?;
    let profile = &loaded.profile;
    let kind = loaded.weight(if args.period {
        WeightKind::Period
    } else {
        WeightKind::Samples
    });
    let options = SvgOptions {
        title: args.title.clone(),
        unit: if loaded.off_cpu {
            "ns off-CPU".into()
        } else if args.period {
            "events".into()
        } else {
            "samples".into()
        },
        min_width: args.min_width,
        ..SvgOptions::default()
    };
    let svg = flame_svg(profile, &loaded.filter, kind, &options);
    std::fs::write(&args.output, svg)
        .map_err(|e| format!("cannot write {}: {e}", args.output.display()))?;
    Ok(if loaded.had_errors {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
