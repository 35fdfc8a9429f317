//! `perfscope report`: functions by self weight, with their total (inclusive) weight, like
//! `perf report --no-children` (whose "Overhead" is our "Self").

use std::collections::HashMap;
use std::io::Write as _;
use std::process::ExitCode;

use perfscope_analysis::call_tree::stack_self_weights;
use perfscope_analysis::ids::FuncIndex;
use perfscope_analysis::profile::Profile;
use perfscope_analysis::samples::SampleFilter;

use super::collapse::ProfileArgs;

/// Arguments of `perfscope report`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    profile: ProfileArgs,
    /// Weigh by sample count instead of period.
    #[arg(long)]
    samples: bool,
    /// Print at most this many functions.
    #[arg(long, default_value_t = 50)]
    limit: usize,
}

/// Self and total weight of one function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FuncWeight {
    /// Samples (or period) whose leaf is the function.
    pub self_weight: u64,
    /// Samples (or period) whose stack contains the function (once per sample).
    pub total: u64,
    /// Samples whose leaf is the function.
    pub self_samples: u64,
}

/// Self and total weight per function; the grand total.
pub fn function_weights(
    profile: &Profile,
    filter: &SampleFilter,
    by_samples: bool,
) -> (HashMap<FuncIndex, FuncWeight>, u64) {
    let (weights, empty) = stack_self_weights(profile, filter);
    let pick =
        |w: perfscope_analysis::call_tree::Weight| if by_samples { w.samples } else { w.period };
    let mut out: HashMap<FuncIndex, FuncWeight> = HashMap::new();
    let mut grand = pick(empty);
    let mut seen: Vec<FuncIndex> = Vec::new();
    for (i, w) in weights.iter().enumerate() {
        if w.samples == 0 {
            continue;
        }
        let Ok(stack) = perfscope_analysis::ids::StackIndex::from_len(i) else {
            continue;
        };
        let weight = pick(*w);
        grand += weight;
        seen.clear();
        for (depth, frame) in profile.stacks.frames_leaf_first(Some(stack)).enumerate() {
            let Some(func) = profile.frame_func(frame) else {
                continue;
            };
            let e = out.entry(func).or_default();
            if depth == 0 {
                e.self_weight += weight;
                e.self_samples += w.samples;
            }
            if !seen.contains(&func) {
                seen.push(func);
                e.total += weight;
            }
        }
    }
    (out, grand)
}

/// Runs `perfscope report`.
pub fn run(args: &Args) -> Result<ExitCode, String> {
    // A perf.data or a share file (`perfscope export --format share`).
    let loaded = super::export::load(&args.profile)?;
    let profile = &loaded.profile;
    // Off-CPU time is a period (ns): a sample count would only count switches.
    let by_samples = args.samples && !loaded.off_cpu;
    let (weights, grand) = function_weights(profile, &loaded.filter, by_samples);
    let mut rows: Vec<(FuncIndex, FuncWeight)> = weights.into_iter().collect();
    let name = |f: FuncIndex| profile.func_name(f);
    let module = |f: FuncIndex| {
        profile
            .funcs
            .get(f)
            .and_then(|func| func.module)
            .and_then(|m| profile.modules.get(m))
            .map_or("[unknown]", |m| profile.strings.get(m.path))
    };
    rows.sort_by(|a, b| {
        b.1.self_weight
            .cmp(&a.1.self_weight)
            .then(b.1.total.cmp(&a.1.total))
            .then(name(a.0).cmp(name(b.0)))
    });
    let pct = |w: u64| {
        if grand == 0 {
            0.0
        } else {
            100.0 * w as f64 / grand as f64
        }
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let _ = writeln!(
        out,
        "# {} samples, {} {}",
        profile.samples.len(),
        grand,
        if by_samples {
            "samples"
        } else if loaded.off_cpu {
            "ns off-CPU"
        } else {
            "period"
        }
    );
    let _ = writeln!(out, "#   Self   Total  Samples  Function  [Module]");
    for (f, w) in rows.iter().take(args.limit) {
        let module = module(*f);
        let short = module.rsplit('/').next().unwrap_or(module);
        let short = if short.starts_with('[') {
            short.to_owned()
        } else {
            format!("[{short}]")
        };
        if writeln!(
            out,
            "{:6.2}% {:6.2}% {:8}  {}  {}",
            pct(w.self_weight),
            pct(w.total),
            w.self_samples,
            name(*f),
            short
        )
        .is_err()
        {
            break;
        }
    }
    let _ = out.flush();
    Ok(if loaded.had_errors {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
