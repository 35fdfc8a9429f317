//! `perfscope stats`: record counts per type, counted the way `perf report --stats` counts them.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use perfscope_analysis::delivery::{carries_reads, SampleDelivery};
use perfscope_analysis::load::EventNames;
use perfscope_format::walk::Item;
use perfscope_format::{Record, RecordType};

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
    // Counted in an array first: a map lookup per record was a tenth of the time.
    let mut by_type = [0u64; 128];
    // Samples per event index: counted in a vector (the event indices are dense), and in a map
    // for those delivered per read value.
    let mut per_event: Vec<u64> = Vec::new();
    let mut delivered: BTreeMap<u32, u64> = BTreeMap::new();
    let mut errors: Vec<String> = Vec::new();
    let mut delivery = SampleDelivery::new();
    let mut names = EventNames::default();
    let result = walk(&input, |meta, _, item| {
        let rec = match item {
            Item::Record(rec) => rec,
            Item::Error(e) => return errors.push(e.to_string()),
        };
        // Event names come from metadata records only (a call per sample was 6 % of the walk).
        if rec.type_() != RecordType::SAMPLE {
            names.observe(rec);
        }
        {
            match by_type.get_mut(rec.type_().0 as usize) {
                Some(n) => *n += 1,
                None => *counts.entry(rec.type_().0).or_default() += 1,
            }
            if rec.type_() == RecordType::SAMPLE {
                // Checked, not decoded (decoding cost more than the rest of the walk), unless
                // read values make perf deliver it once per moved counter.
                match meta.check_sample(rec) {
                    Ok(e) if !carries_reads(&meta.events, e) => {
                        let i = e.0 as usize;
                        if per_event.len() <= i {
                            per_event.resize(i + 1, 0);
                        }
                        if let Some(n) = per_event.get_mut(i) {
                            *n += 1;
                        }
                    }
                    Ok(_) => match meta.parse(rec) {
                        Ok(Record::Sample(s)) => delivery.deliver(&meta.events, &s, |e, _| {
                            *delivered.entry(e.0).or_default() += 1;
                        }),
                        Ok(_) => {}
                        Err(e) => errors.push(e.to_string()),
                    },
                    Err(e) => errors.push(e.to_string()),
                }
            }
        }
    });
    for (t, n) in (0u32..).zip(by_type).filter(|(_, n)| *n > 0) {
        counts.insert(t, n);
    }
    for (e, n) in (0u32..).zip(per_event).filter(|(_, n)| *n > 0) {
        *delivered.entry(e).or_default() += n;
    }
    let per_event = delivered;
    let meta = result.map_err(|e| errors.push(e.to_string())).ok();
    // Named in the same pass (a second walk for the names took as long as the counting).
    let event_name = |i: u32| match &meta {
        Some(m) if (i as usize) < m.attrs.len() => names.name(m, i as usize),
        _ => format!("event {i}"),
    };
    let name = |t: u32| match &meta {
        Some(m) => m.record_type_name(RecordType(t)),
        None => RecordType(t)
            .name()
            .map_or_else(|| format!("UNKNOWN_{t}"), str::to_string),
    };
    let total: u64 = counts.values().sum();
    if args.json {
        let records: serde_json::Map<String, serde_json::Value> = counts
            .iter()
            .map(|(t, n)| (name(*t), (*n).into()))
            .collect();
        let mut samples = serde_json::Map::new();
        for (e, n) in &per_event {
            let name = event_name(*e);
            let prev = samples
                .get(&name)
                .and_then(serde_json::Value::as_u64)
                .unwrap_or(0);
            samples.insert(name, (prev + n).into());
        }
        let obj = serde_json::json!({ "records": records, "samples": samples, "errors": errors });
        println!("{obj}");
    } else {
        println!("{:>20} events: {:>10}", "TOTAL", total);
        for (t, n) in &counts {
            println!("{:>20} events: {:>10}", name(*t), n);
        }
        for (e, n) in &per_event {
            println!("{} stats:", event_name(*e));
            println!("{:>20} events: {:>10}", "SAMPLE", n);
        }
    }
    for e in &errors {
        eprintln!("error: {}: {e}", args.file.display());
    }
    Ok(if errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
