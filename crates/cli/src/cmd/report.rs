//! `perfscope report`: functions by self weight, with their total (inclusive) weight, like
//! `perf report --no-children` (whose "Overhead" is our "Self").

use std::io::Write as _;
use std::process::ExitCode;

use perfscope_analysis::call_tree::{key_weights, Weight};
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

/// Self and total weight of each function in a kept sample's stack; the grand total.
pub fn function_weights(
    profile: &Profile,
    filter: &SampleFilter,
    by_samples: bool,
) -> (Vec<(FuncIndex, FuncWeight)>, u64) {
    let pick = |w: Weight| if by_samples { w.samples } else { w.period };
    let k = key_weights(
        profile,
        filter,
        profile.funcs.len(),
        |frame| profile.frame_func(frame).map(FuncIndex::index),
        |w| w.samples != 0,
    );
    let rows = k
        .self_weight
        .iter()
        .zip(&k.total)
        .zip(&k.present)
        .enumerate()
        .filter(|&(_, (_, &present))| present)
        .filter_map(|(i, ((&own, &all), _))| {
            let weights = FuncWeight {
                self_weight: pick(own),
                total: pick(all),
                self_samples: own.samples,
            };
            Some((FuncIndex::from_len(i).ok()?, weights))
        })
        .collect();
    (rows, pick(k.grand))
}

/// The `limit` heaviest of `rows` in the order printed: by self weight, then total, then name
/// (the rest are not sorted: a recording named by module and offset has millions).
fn heaviest<'p>(
    mut rows: Vec<(FuncIndex, FuncWeight)>,
    limit: usize,
    name: impl Fn(FuncIndex) -> &'p str,
) -> Vec<(FuncIndex, FuncWeight)> {
    let order = |a: &(FuncIndex, FuncWeight), b: &(FuncIndex, FuncWeight)| {
        b.1.self_weight
            .cmp(&a.1.self_weight)
            .then(b.1.total.cmp(&a.1.total))
            .then_with(|| name(a.0).cmp(name(b.0)))
            .then(a.0.cmp(&b.0))
    };
    if limit < rows.len() {
        rows.select_nth_unstable_by(limit, order);
        rows.truncate(limit);
    }
    rows.sort_unstable_by(order);
    rows
}

/// Runs `perfscope report`.
pub fn run(args: &Args) -> Result<ExitCode, String> {
    // A perf.data or a share file (`perfscope export --format share`).
    let loaded = super::export::load(&args.profile)?;
    let profile = &loaded.profile;
    // Off-CPU time is a period (ns): a sample count would only count switches.
    let by_samples = args.samples && !loaded.off_cpu;
    let (rows, grand) = function_weights(profile, &loaded.filter, by_samples);
    let name = |f: FuncIndex| profile.func_name(f);
    let module = |f: FuncIndex| {
        profile
            .funcs
            .get(f)
            .and_then(|func| func.module)
            .and_then(|m| profile.modules.get(m))
            .map_or("[unknown]", |m| profile.strings.get(m.path))
    };
    let rows = heaviest(rows, args.limit, name);
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
