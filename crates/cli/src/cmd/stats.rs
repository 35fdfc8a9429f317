//! `perfscope stats`: record counts per type, counted the way `perf report --stats` counts them.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use perfscope_format::RecordType;

use super::input::Input;
use super::walk::walk;

/// Arguments of `perfscope stats`.
#[derive(clap::Args)]
pub struct Args {
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// A perf.data file or a `perf record --threads` directory.
    file: PathBuf,
}

/// Runs `perfscope stats`.
pub fn run(args: &Args) -> Result<ExitCode, String> {
    let input = Input::read(&args.file)?;
    let mut counts: BTreeMap<u32, u64> = BTreeMap::new();
    let mut errors: Vec<String> = Vec::new();
    let result = walk(
        &input,
        |_, rec| *counts.entry(rec.type_().0).or_default() += 1,
        |e| errors.push(e.to_string()),
    );
    let meta = result.map_err(|e| errors.push(e.to_string())).ok();
    let name = |t: u32| match &meta {
        Some(m) => m.record_type_name(RecordType(t)),
        None => RecordType(t).name().map_or_else(|| format!("UNKNOWN_{t}"), str::to_string),
    };
    let total: u64 = counts.values().sum();
    if args.json {
        let records: serde_json::Map<String, serde_json::Value> =
            counts.iter().map(|(t, n)| (name(*t), (*n).into())).collect();
        let obj = serde_json::json!({ "records": records, "samples": {}, "errors": errors });
        println!("{obj}");
    } else {
        println!("{:>20} events: {:>10}", "TOTAL", total);
        for (t, n) in &counts {
            println!("{:>20} events: {:>10}", name(*t), n);
        }
    }
    for e in &errors {
        eprintln!("error: {}: {e}", args.file.display());
    }
    Ok(if errors.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
