//! `perfscope diff BASE NEW`: the functions of two recordings of one program, sorted by how much
//! their share of the samples changed.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use perfscope_analysis::diff::{function_diff, DiffOptions, DiffSort, FunctionDiff};
use perfscope_analysis::flame_graph::WeightKind;
use serde_json::json;

use super::collapse::ProfileArgs;
use super::export::{load, with_file, write_output};

/// Which change to sort by.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sort {
    /// The change of self time (samples whose leaf is the function).
    #[value(name = "self")]
    SelfTime,
    /// The change of total time (samples with the function anywhere on the stack).
    Total,
}

/// Arguments of `perfscope diff`.
#[derive(clap::Args, Debug)]
#[command(mut_arg("file", |a| a.value_name("BASE").index(1).help("The base recording (perf.data or share file)")))]
pub struct Args {
    /// Sort by the change of self or total time.
    #[arg(long, value_enum, default_value = "self")]
    sort: Sort,
    /// Weigh by period (event counts, ns for cpu-clock) instead of sample count.
    #[arg(long)]
    period: bool,
    /// Show this many functions (0: all).
    #[arg(long, default_value_t = 25)]
    limit: usize,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// The base recording and how to read both.
    #[command(flatten)]
    base: ProfileArgs,
    /// The new recording (perf.data or share file), compared with the base.
    #[arg(index = 2)]
    new: PathBuf,
}

fn pct(f: f64) -> String {
    format!("{:.2}%", 100.0 * f)
}

fn signed_pct(f: f64) -> String {
    let v = 100.0 * f;
    // -0.00% reads as a change; print it as 0.
    if v.abs() < 0.005 {
        "0.00%".into()
    } else {
        format!("{v:+.2}%")
    }
}

/// The table: one line per function, changes signed, largest change first.
/// `unit`: what the totals count ("samples", "period", "ns off-CPU").
pub fn table(d: &FunctionDiff, limit: usize, unit: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# base: {} {unit}, new: {} {unit}; shares of each profile's total",
        d.base_total, d.new_total
    );
    let _ = writeln!(
        s,
        "{:>10} {:>10} {:>9}  {:>10} {:>10} {:>9}  function",
        "base self", "new self", "change", "base total", "new total", "change"
    );
    let shown = if limit == 0 {
        d.rows.len()
    } else {
        limit.min(d.rows.len())
    };
    for r in d.rows.iter().take(shown) {
        let _ = writeln!(
            s,
            "{:>10} {:>10} {:>9}  {:>10} {:>10} {:>9}  {}",
            pct(r.base_self),
            pct(r.new_self),
            signed_pct(r.self_delta()),
            pct(r.base_total),
            pct(r.new_total),
            signed_pct(r.total_delta()),
            r.name
        );
    }
    if shown < d.rows.len() {
        let _ = writeln!(
            s,
            "# {} more functions (--limit 0 shows all)",
            d.rows.len() - shown
        );
    }
    s
}

/// Runs `perfscope diff`.
pub fn run(args: &Args) -> Result<ExitCode, String> {
    let base = load(&args.base)?;
    let new = load(&with_file(&args.base, args.new.clone()))?;
    let options = DiffOptions {
        weight: base.weight(if args.period {
            WeightKind::Period
        } else {
            WeightKind::Samples
        }),
        sort: match args.sort {
            Sort::SelfTime => DiffSort::SelfWeight,
            Sort::Total => DiffSort::Total,
        },
        base_filter: base.filter,
        new_filter: new.filter,
    };
    let d = function_diff(&base.profile, &new.profile, &options);
    let out = if args.json {
        let rows: Vec<_> = d
            .rows
            .iter()
            .take(if args.limit == 0 { usize::MAX } else { args.limit })
            .map(|r| {
                json!({
                    "function": r.name,
                    "base_self": r.base_self, "new_self": r.new_self, "self_change": r.self_delta(),
                    "base_total": r.base_total, "new_total": r.new_total, "total_change": r.total_delta(),
                })
            })
            .collect();
        let doc =
            json!({ "base_total": d.base_total, "new_total": d.new_total, "functions": rows });
        format!("{doc}\n")
    } else {
        let unit = match (base.off_cpu, options.weight) {
            (true, _) => "ns off-CPU",
            (false, WeightKind::Period) => "period",
            (false, WeightKind::Samples) => "samples",
        };
        table(&d, args.limit, unit)
    };
    write_output(std::path::Path::new("-"), out.as_bytes())?;
    Ok(if base.had_errors || new.had_errors {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
